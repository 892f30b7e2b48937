-- dlbench.hw — the hardware catalogue: dlb.hw.get(name), dlb.hw.list(), dlb.hw.define{...},
-- dlb.hw.load(path) (a Lua or CSV file). A device is a Lua table with plain fields
-- (docs/hw.md): name, kind, peak = {fp32=, bf16=, ...} (FLOP/s, dense), mem (bytes),
-- mem_bw (bytes/s), cache (bytes), flops_eff, bw_eff (achievable fractions, default
-- 0.8 / 0.7 after Hestness et al. 5.2), links = {intra = {bw=, latency=}, inter = {...}}
-- (bytes/s each way, seconds), power (W), note, source = {field = "where it comes from"}.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local levels = require "dlbench.hw_levels"
local errors = require "dlbench.errors"

local M = {}

-- The precisions, the fields a device may have and the one check of a spec, shared with
-- the catalogue files (lua/dlbench/hw_spec.lua; hw_csv.lua).
local spec_ = require "dlbench.hw_spec"
local PRECISIONS, is_prec = spec_.PRECISIONS, spec_.is_prec
local ROOF_FIELDS, roof_rule, validate = spec_.ROOF_FIELDS, spec_.roof_rule, spec_.validate
M.precisions = PRECISIONS
M.roof_fields = ROOF_FIELDS

-- Devices are read-only: a device is an empty proxy whose fields live in DATA (so the
-- catalogue cannot be changed by `hw.mem = x` in one corner of a session). Its nested
-- tables (peak, links, links.intra, source) are read-only proxies too. Lua 5.4 iterates
-- them with pairs (__pairs); LuaJIT has no __pairs, so hw:spec() gives a plain copy.
local Device = {}
local DATA = setmetatable({}, { __mode = "k" })   -- proxy -> its fields
local PATH = setmetatable({}, { __mode = "k" })   -- nested proxy -> "device 'X' field peak"

local function readonly_error(what, k)
  error(what .. " is read-only: cannot set '" .. tostring(k) .. "'; use hw:with{"
    .. tostring(k) .. " = ...} for a modified copy, or dlb.hw.define{..., replace = true} "
    .. "to change the catalogue", 3)
end

local RO = {
  __index = function(t, k) return DATA[t][k] end,
  __newindex = function(t, k) readonly_error(PATH[t], k) end,
  __pairs = function(t) return next, DATA[t], nil end,
  __len = function(t) return #DATA[t] end,
}
local function readonly(t, path)
  local p = setmetatable({}, RO)
  DATA[p], PATH[p] = t, path
  return p
end

Device.__index = function(t, k)
  local d = DATA[t]
  local v = d and d[k]
  if v ~= nil then return v end
  return Device[k]
end
Device.__newindex = function(t, k)
  readonly_error("device '" .. tostring(DATA[t].name) .. "'", k)
end
Device.__pairs = function(t) return next, DATA[t], nil end

-- A plain deep copy of a device's fields (what dlb.hw.define accepts).
local function plain(dev)
  local d, t = DATA[dev], {}
  for k, v in pairs(d) do t[k] = v end
  t.peak, t.links, t.source = {}, {}, {}
  for p, v in pairs(DATA[d.peak]) do t.peak[p] = v end
  for tier, l in pairs(DATA[d.links]) do t.links[tier] = { bw = l.bw, latency = l.latency } end
  for k, v in pairs(DATA[d.source]) do t.source[k] = v end
  if d.gemm_tile then t.gemm_tile = { d.gemm_tile[1], d.gemm_tile[2] } end
  if d.levels then t.levels = levels.copy(DATA[d.levels]) end
  return t
end

-- Copy a validated spec into a read-only device object (nothing aliases the spec).
-- cache stays nil when unknown (the cache-aware model refuses such a device).
local function make(spec)
  local d = {}
  for k, v in pairs(spec) do
    if k ~= "replace" then d[k] = v end
  end
  local name = spec.name
  local peak = {}
  for p, v in pairs(spec.peak) do peak[p] = v end
  d.peak = readonly(peak, "device '" .. name .. "' field peak")
  local links = {}
  for tier, l in pairs(spec.links or {}) do
    links[tier] = readonly({ bw = l.bw, latency = l.latency or 0 },
      "device '" .. name .. "' field links." .. tier)
  end
  d.links = readonly(links, "device '" .. name .. "' field links")
  local source = {}
  for k, v in pairs(spec.source or {}) do source[k] = v end
  d.source = readonly(source, "device '" .. name .. "' field source")
  if spec.levels then
    local lv = levels.copy(spec.levels)
    for i, l in ipairs(lv) do lv[i] = readonly(l, "device '" .. name .. "' field levels[" .. i .. "]") end
    d.levels = readonly(lv, "device '" .. name .. "' field levels")
  end
  local dflt = core.roof_defaults()   -- 0.8 / 0.7, their one home in C (dlb_roof_init)
  d.flops_eff = spec.flops_eff or dflt.flops_eff
  d.bw_eff = spec.bw_eff or dflt.bw_eff
  if spec.gemm_tile then
    d.gemm_tile = readonly({ spec.gemm_tile[1], spec.gemm_tile[2] },
      "device '" .. name .. "' field gemm_tile")
  end
  d.kind = spec.kind or "device"
  local dev = setmetatable({}, Device)
  DATA[dev] = d
  return dev
end

-- The catalogue: by name, and in definition order.
local catalog, order = {}, {}

local function norm(s) return (s:lower():gsub("[%s%-_]", "")) end

-- Names a researcher types, to catalogue names (matched like names: case, spaces, '-' and
-- '_' ignored). The plain GPU names pick the SXM board; "A100" the 80 GB one.
M.aliases = {
  ["V100"] = "V100-SXM2-16GB", ["A100"] = "A100-SXM4-80GB", ["A100-40GB"] = "A100-SXM4-40GB",
  ["A100-80GB"] = "A100-SXM4-80GB", ["H100"] = "H100-SXM", ["H200"] = "H200-SXM",
  ["P100"] = "P100-SXM2", ["TPUv2"] = "TPUv2-board", ["TPUv3"] = "TPUv3-board",
  ["TitanXp"] = "TITAN-Xp", ["P4000"] = "Quadro-P4000", ["KNL"] = "KNL-7250",
  ["Skylake"] = "Skylake-n1-32",
}

-- The alias spelled like `name` (ignoring case, spaces, '-' and '_'), or nil. Aliases are
-- looked up afresh (M.aliases is public); when two match, the first in sorted order wins,
-- so the answer does not depend on the backend's table order.
local function alias_of(name)
  local n, hits = norm(name), {}
  for k in pairs(M.aliases) do if norm(k) == n then hits[#hits + 1] = k end end
  table.sort(hits)
  return hits[1] and M.aliases[hits[1]], hits[1]
end

-- The catalogue name spelled like `name` but not equal to it, or nil.
local function same_name(name)
  local n = norm(name)
  for _, k in ipairs(order) do
    if k ~= name and norm(k) == n then return k end
  end
end

-- May `name` be (re)defined? A defined name or an alias needs replace = true; a name
-- that only differs from a catalogue name in case, spaces, '-' or '_' is refused (dlb.hw.get
-- could not tell them apart).
local function check_name(name, replace, where)
  local old = catalog[name]
  if old and not replace then
    error(where .. ": device '" .. name .. "' is already defined (pass replace = true to "
      .. "redefine it)", 0)
  end
  local twin = same_name(name)
  if twin then
    local pair = { name, twin }
    table.sort(pair)
    error(where .. ": device names '" .. pair[1] .. "' and '" .. pair[2] .. "' are the same "
      .. "name to dlb.hw.get (case, spaces, '-' and '_' are ignored); use '" .. twin
      .. "' with replace = true to redefine it", 0)
  end
  local target, alias = alias_of(name)
  if not old and target and target ~= name and not replace then
    error(where .. ": '" .. name .. "' is an alias of " .. target .. " (dlb.hw.aliases['"
      .. alias .. "']); pass replace = true to define a new device that takes the name over", 0)
  end
end

local function add(spec, where)
  validate(spec, where)
  check_name(spec.name, spec.replace, where)
  local old = catalog[spec.name]
  local d = make(spec)
  if not old then order[#order + 1] = spec.name end
  catalog[spec.name] = d
  return d
end

for i, spec in ipairs(require "dlbench.hw_catalog") do
  add(spec, "hw_catalog entry " .. i)
end

-- == device methods ==============================================================

-- The precision to use on this device: `prec`, with "mixed" meaning fp16 (or bf16).
function Device:precision(prec)
  prec = prec or "fp32"
  if prec == "mixed" then
    prec = self.peak.fp16 and "fp16" or (self.peak.bf16 and "bf16" or "fp16")
  elseif prec == "mixed_bf16" then
    prec = self.peak.bf16 and "bf16" or (self.peak.fp16 and "fp16" or "bf16")
  end
  if not is_prec[prec] then
    errors.raise("unknown precision '" .. tostring(prec) .. "' (expected "
      .. table.concat(PRECISIONS, ", ") .. ", mixed or mixed_bf16)")
  end
  if not self.peak[prec] then
    local have = {}
    for _, p in ipairs(PRECISIONS) do if self.peak[p] then have[#have + 1] = p end end
    errors.raise("device '" .. self.name .. "' has no " .. prec .. " peak (it has "
      .. table.concat(have, ", ") .. "); pass precision = one of those")
  end
  return prec
end

-- The message for bad cache-aware tiling options (cache_fraction in [0, 1], tile a side >= 1
-- or {tile_m, tile_n}), or nil: the one check, hw:roof's and dlb.roofline.time's.
function M.tiling_error(opts)
  local f = opts.cache_fraction
  if f ~= nil and (type(f) ~= "number" or not (f >= 0 and f <= 1)) then
    return "cache_fraction must be a number in [0, 1], got " .. tostring(f)
  end
  local t = opts.tile
  if t ~= nil then
    local ok = function(x) return type(x) == "number" and x >= 1 and x < math.huge end
    if not (ok(t) or (type(t) == "table" and #t == 2 and ok(t[1]) and ok(t[2]))) then
      return "tile must be a side >= 1 (elements) or {tile_m, tile_n}, got " .. tostring(t)
    end
  end
end

doc.doc(M.tiling_error, "dlb.hw.tiling_error(opts) -> message | nil",
  "the check of cache-aware tiling options (cache_fraction in [0, 1], tile a side >= 1 or {tile_m, tile_n}) shared by hw:roof and dlb.roofline.time")

-- The backend's device table at precision prec (opts: flops_eff, bw_eff, cache_aware,
-- cache_fraction: share of the cache the matmul tiles may use, tile: t or {tm, tn} elements).
function Device:roof(prec, opts)
  opts = opts or {}
  prec = self:precision(prec)
  -- before the struct reader sees them: it reads a boolean as 1 or 0 (a switch), so
  -- flops_eff = true was an efficiency of 1, and a string cache_fraction an arithmetic error
  local terr = M.tiling_error(opts)
  if terr then errors.raise(terr) end
  for _, k in ipairs { "flops_eff", "bw_eff" } do
    if opts[k] ~= nil and type(opts[k]) ~= "number" then
      errors.raise(k .. " must be a number in (0, 1], got " .. type(opts[k]) .. " " .. tostring(opts[k]))
    end
  end
  local tm, tn = 0, 0
  if type(opts.tile) == "table" then tm, tn = opts.tile[1], opts.tile[2]
  elseif opts.tile ~= nil then tm, tn = opts.tile, opts.tile end
  -- an unknown cache is not an empty one: the cache-aware model needs the size
  if opts.cache_aware and self.cache == nil then
    errors.raise("cache_aware: device '" .. self.name .. "' has no known cache size (the catalogue "
      .. "leaves it out when no source gives it); give one with hw:with{cache = bytes} or "
      .. "drop cache_aware")
  end
  for _, k in ipairs { "flops_eff", "bw_eff" } do
    local msg = opts[k] ~= nil and roof_rule(k, opts[k])
    if msg then errors.raise(msg) end
  end
  local tile = self.gemm_tile
  local r = {
    peak = self.peak[prec], bw = self.mem_bw,
    flops_eff = opts.flops_eff or self.flops_eff, bw_eff = opts.bw_eff or self.bw_eff,
    cache = (self.cache or 0) * (opts.cache_fraction or 1), elem = core.hw_precision_bytes(prec),
    cache_aware = opts.cache_aware and true or false, tile_m = tm, tile_n = tn,
    gemm_tile_m = tile and tile[1] or 0, gemm_tile_n = tile and tile[2] or 0,
    attn_eff = self:attention_eff(prec),
  }
  -- the rest of dlb_roof's fields as the device has them (0: off), but mem: a time on the
  -- roofline is not refused for memory (roofline.lua reports fits, dlb.parallel.device
  -- adds mem for the planner)
  for _, k in ipairs(ROOF_FIELDS) do
    if r[k] == nil and k ~= "mem" then r[k] = self[k] or 0 end
  end
  levels.to_roof(self:level_list(), r)
  return r
end

-- The fused attention kernels' fraction of the peak at precision prec (0: none known, the
-- GEMMs' flops_eff applies). attn_eff is the kernel's achieved FLOP/s over the 16-bit
-- tensor-core peak (FlashAttention runs in fp16/bf16). In an fp8 step the linear layers'
-- GEMMs run in fp8 but attention stays bf16 (NVIDIA Transformer Engine docs, "Using FP8
-- with Transformer Engine": fp8 is applied to the te.Linear / LayerNormLinear GEMMs, dot
-- product attention runs in the higher precision), so its share of the fp8 peak is
-- attn_eff x peak.bf16 / peak.fp8; at tf32/fp32 FlashAttention does not run (fp16/bf16
-- only, Dao 2023 sec. 4), so no attention efficiency applies.
function Device:attention_eff(prec)
  local e = self.attn_eff
  if not e then return 0 end
  prec = self:precision(prec)
  local half = self.peak.bf16 or self.peak.fp16
  if prec == "fp16" or prec == "bf16" then return e end
  if (prec == "fp8" or prec == "int8") and half then
    return e * half / self.peak[prec]
  end
  return 0
end
doc.doc(Device.attention_eff, "hw:attention_eff(precision) -> fraction",
  "the fused attention kernels' fraction of the peak at a precision (0: none; fp8 steps run "
  .. "attention in bf16: attn_eff x peak.bf16 / peak.fp8)")

-- A plain deep copy of the device's fields (a table dlb.hw.define accepts).
function Device:spec() return plain(self) end

-- The measured memory levels as a plain array {{name=, size=, bw=}, ...} (empty when the
-- device has none): LuaJIT's # and ipairs do not see through the read-only proxies.
function Device:level_list()
  local lv = DATA[self].levels
  return lv and levels.copy(DATA[lv]) or {}
end
doc.doc(Device.level_list, "hw:level_list() -> {{name=, size=, bw=}, ...}",
  "the measured per-level memory ceilings (bytes, bytes/s; dlb.measure.host), innermost first")

-- A modified, unregistered copy: hw:with{mem = 32e9} (top-level fields replace the
-- device's; peak, links and source are replaced whole when given). The changed fields'
-- source notes say so.
function Device:with(changes)
  if type(changes) ~= "table" then
    error("hw:with: expected a table of fields, e.g. hw:with{mem = 32e9}", 2)
  end
  local t = plain(self)
  local changed = {}
  for k, v in pairs(changes) do
    t[k] = v
    if k ~= "source" and k ~= "name" then
      changed[#changed + 1] = tostring(k)
      if changes.source == nil or changes.source[k] == nil then t.source[k] = "changed with hw:with" end
    end
  end
  -- a modified copy is not the catalogue's device: "V100-SXM2-16GB+mem" unless named
  if changes.name == nil and #changed > 0 then
    table.sort(changed)
    t.name = tostring(self.name) .. "+" .. table.concat(changed, "+")
  end
  local where = "hw:with"
  local info = debug.getinfo(2, "Sl")
  if info and info.what ~= "C" and (info.currentline or 0) > 0 then
    where = info.short_src .. ":" .. info.currentline
  end
  validate(t, where)
  return make(t)
end

function Device:ridge(prec, achievable)
  return core.roofline_ridge(self:roof(prec), achievable)
end

function Device:attainable(intensity, prec)
  return core.roofline_attainable(self:roof(prec), intensity)
end

-- The precisions this device has a peak for, in canonical order.
function Device:precisions()
  local t = {}
  for _, p in ipairs(PRECISIONS) do if self.peak[p] then t[#t + 1] = p end end
  return t
end

-- The precision a study would use by default here: fp32 when present, else the widest
-- 16-bit format, else tf32, else the first the device has in the enum's order. (A
-- preference, deliberately not the enum's order.)
local PREFERRED = { "fp32", "bf16", "fp16", "tf32" }
function Device:default_precision()
  for _, p in ipairs(PREFERRED) do
    if self.peak[p] then return p end
  end
  for _, p in ipairs(PRECISIONS) do
    if self.peak[p] then return p end
  end
end

-- The one rule for the precision a result is timed at when its call named none, and the
-- entry naming it in the result's defaults (review 21, issue [18] item 6: a stats table
-- without a precision was timed at a TPU's bf16, a GPU's fp32, and only the first said so).
-- `default` is the path's own default request: "mixed" for a graph the planner analyses
-- (docs/parallel.md), the precision a layer list carries; nil: the device's own
-- (hw:default_precision: fp32 where it has an fp32 peak, else bf16 (the TPUs), fp16, ...),
-- which dlb.roofline.time, dlb.sweep.model and dlb.parallel.data apply to costs that say
-- none. `whose` names the default's owner in the entry ("the layers'"). Returns the
-- precision (as named: "mixed" stays mixed), the precision of the peak it runs at, and the
-- entry: "precision fp32", "precision mixed (bf16 peak)". A default the device cannot run
-- (mixed on a CPU host without a 16-bit peak) is an error saying it was the default.
function Device:defaulted_precision(default, whose)
  local name = default or self:default_precision()
  local ok, peak = pcall(self.precision, self, name)
  if not ok then
    errors.raise("no precision was given and the default, " .. tostring(name)
      .. (whose and (" (" .. whose .. ")") or "") .. ", cannot run on device '" .. self.name
      .. "' (it has " .. table.concat(self:precisions(), ", ") .. "): pass precision = one of those")
  end
  return name, peak, M.precision_entry(name, peak, whose)
end

-- The defaults entry of a precision chosen by default: "precision bf16", "precision mixed
-- (fp16 peak)", "precision mixed (bf16 peak; the layers')". (dlb.roofline.defaults_applied
-- and the planner's rows write it; hw:defaulted_precision makes it.)
function M.precision_entry(name, peak, whose)
  local extra = {}
  if peak and peak ~= name then extra[#extra + 1] = peak .. " peak" end
  if whose then extra[#extra + 1] = whose end
  return "precision " .. tostring(name) .. (#extra > 0 and (" (" .. table.concat(extra, "; ") .. ")") or "")
end

function Device:__tostring()
  local p = self:default_precision()
  return string.format("hw %s (%s: %.4g TFLOP/s %s, %.4g GB at %.4g GB/s)", self.name, self.kind,
    self.peak[p] / 1e12, p, self.mem / 1e9, self.mem_bw / 1e9)
end

-- A multi-line description: every number with its unit and source.
function Device:describe()
  local out = { string.format("%s (%s)%s", self.name, self.kind, self.note and (": " .. self.note) or "") }
  if self.toy then
    out[#out + 1] = "  toy device (toy = true): its numbers are not checked for plausible units"
  end
  local function line(label, value, src)
    out[#out + 1] = (string.format("  %-22s %-28s %s", label, value,
      src and ("[" .. src .. "]") or ""):gsub("%s+$", ""))
  end
  for _, p in ipairs(PRECISIONS) do
    if self.peak[p] then line("peak " .. p, string.format("%.4g TFLOP/s", self.peak[p] / 1e12), nil) end
  end
  out[#out + 1] = "    [peak: " .. (self.source.peak or "no source given") .. "]"
  line("mem", string.format("%.4g GB", self.mem / 1e9), self.source.mem)
  if self.cores then
    line("cores", string.format("%d (each holds a model copy)", self.cores), self.source.cores)
    line("mem_per_core", string.format("%.4g GB", self.mem_per_core / 1e9), self.source.mem_per_core)
  end
  line("mem_bw", string.format("%.4g GB/s", self.mem_bw / 1e9), self.source.mem_bw)
  if self.cache then
    line("cache", string.format("%.4g MB", self.cache / 1e6), self.source.cache)
  else
    line("cache", "unknown", nil)
  end
  if self.levels then
    for _, l in ipairs(self:level_list()) do
      line("level " .. l.name, string.format("%.4g GB/s%s", l.bw / 1e9,
        l.size and string.format(" (%.4g KiB)", l.size / 1024) or ""), self.source.levels)
    end
  end
  line("flops_eff, bw_eff", string.format("%.2f, %.2f", self.flops_eff, self.bw_eff),
    self.source.flops_eff or "defaults (Hestness et al. 5.2)")
  for _, tier in ipairs { "intra", "inter", "host" } do
    local l = self.links[tier]
    if l then
      line("links." .. tier, string.format("%.4g GB/s, %.3g µs", l.bw / 1e9, l.latency * 1e6), nil)
    end
  end
  if self.source.links then out[#out + 1] = "    [links: " .. self.source.links .. "]" end
  if self.nvlink or self.nics then   -- the fabric as NCCL sees it (issue [19])
    line("fabric", string.format("NVLink %s%s, %s NICs per node", tostring(self.nvlink or 0),
      (self.nvls or 0) > 0 and " with SHARP (NVLS)" or "", tostring(self.nics or "?")), self.source.fabric)
  end
  if self.power then line("power", string.format("%.4g W", self.power), self.source.power) end
  if self.kernel_overhead then
    line("kernel_overhead", string.format("%.3g us", self.kernel_overhead * 1e6), self.source.kernel_overhead)
  end
  if self.step_overhead then
    line("step_overhead", string.format("%.3g ms", self.step_overhead * 1e3), self.source.step_overhead)
  end
  if self.half_bw_bytes then
    line("half_bw_bytes", string.format("%.3g MB", self.half_bw_bytes / 1e6), self.source.half_bw_bytes)
  end
  if self.sm_count then line("sm_count", tostring(self.sm_count), self.source.sm_count) end
  if self.nccl_ctas then line("nccl_ctas", tostring(self.nccl_ctas), self.source.nccl_ctas) end
  if self.gemm_tile then
    line("gemm_tile", string.format("%d x %d", self.gemm_tile[1], self.gemm_tile[2]), self.source.gemm_tile)
  end
  if self.gemm_tile_overhead then
    line("gemm_tile_overhead", string.format("%.3g us per tile", self.gemm_tile_overhead * 1e6),
      self.source.gemm_tile_overhead)
  end
  if self.systolic then line("systolic", tostring(self.systolic), self.source.systolic) end
  if self.vector_width then line("vector_width", tostring(self.vector_width), self.source.vector_width) end
  if self.attn_eff then line("attn_eff", string.format("%.2f", self.attn_eff), self.source.attn_eff) end
  return table.concat(out, "\n")
end

doc.doc(Device.spec, "hw:spec() -> table", "a plain copy of the device's fields "
  .. "(devices are read-only; the copy is what dlb.hw.define{...} takes)")
doc.doc(Device.with, "hw:with{field = value, ...} -> device",
  "a modified copy of a (read-only) device, not added to the catalogue: hw:with{mem = 32e9}")
doc.doc(Device.describe, "hw:describe() -> text", "every number of the device with its unit and source")
doc.doc(Device.ridge, "hw:ridge(precision[, achievable]) -> FLOP/byte",
  "the roofline ridge point: peak / mem_bw, or with achievable = true "
    .. "(peak x flops_eff) / (mem_bw x bw_eff)")
doc.doc(Device.attainable, "hw:attainable(intensity[, precision]) -> FLOP/s",
  "min(peak x flops_eff, intensity x mem_bw x bw_eff)")
doc.doc(Device.precisions, "hw:precisions() -> {names}", "the precisions with a peak")
doc.doc(Device.precision, "hw:precision(name) -> name",
  "check that the device has a peak at name ('mixed' selects fp16 or bf16); raises otherwise")
doc.doc(Device.roof, "hw:roof(precision[, opts]) -> table", "the backend's roofline description")
doc.doc(Device.default_precision, "hw:default_precision() -> name",
  "fp32 when the device has it, else bf16, fp16, ...")
doc.doc(Device.defaulted_precision, "hw:defaulted_precision([default[, whose]]) -> name, peak_precision, entry",
  "the one rule for the precision of a call that named none: the path's default (\"mixed\" "
  .. "for a planner's graph) or hw:default_precision(), the peak it runs at and the defaults "
  .. "entry naming it (\"precision bf16\", \"precision mixed (fp16 peak)\")")
doc.doc(M.precision_entry, "dlb.hw.precision_entry(name[, peak_precision[, whose]]) -> text",
  "a result's defaults entry for a precision chosen by default: \"precision mixed (bf16 peak)\"")

-- == the module ==================================================================

function M.define(spec)
  local where = "dlb.hw.define"
  local info = debug.getinfo(2, "Sl")
  if info and info.what ~= "C" and (info.currentline or 0) > 0 then
    where = info.short_src .. ":" .. info.currentline
  end
  return add(spec, where)
end
-- A device from a spec, validated like dlb.hw.define's but not added to the catalogue
-- (measured and calibrated devices: dlb.measure.host, dlb.hw.calibrate).
function M.device(spec, where)
  validate(spec, where or "dlb.hw.device")
  return make(spec)
end
doc.doc(M.device, "dlb.hw.device{name=, peak=, mem_bw=, mem=, ...} -> device",
  "a device with the fields of dlb.hw.define, not added to the catalogue")

doc.doc(M.define, "dlb.hw.define{name=, peak={fp32=...}, mem_bw=, mem=[, cache=, flops_eff=, "
  .. "bw_eff=, links=, power=, source=]} -> device",
  "add a device to the catalogue (FLOP/s, bytes/s, bytes); bad fields are errors, and so are "
  .. "implausible units (mem = 80 meaning GB, peak 1000 meaning TFLOP/s: dlbench.hw_spec "
  .. "PLAUSIBLE); toy = true marks a deliberate toy device, whose units are not checked")

-- Levenshtein distance (small strings).
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- A device's fields live in DATA, so its proxy (and its nested proxies) must stay empty:
-- rawset(dev, "mem", 1) would shadow the field. Such a device is refused where it is used.
-- A device's nested proxies never change (DATA is private), so they are listed once per
-- device and each check is one next() per proxy: M.get runs on every config of a sweep
-- (walking every field each time took a fifth of the ParaDnn FC family's Lua time). The
-- list leaves out the device itself, so a weak-keyed entry never holds its own key alive
-- (LuaJIT's weak tables are not ephemerons).
local NESTED = setmetatable({}, { __mode = "k" })   -- device -> its nested proxies
-- The children are collected before the recursion, so no pairs loop runs inside another
-- (LuaJIT #827, docs/security.md: an outer loop ended early would miss a nested proxy).
local function nested_of(p, out)
  local kids = {}
  for _, v in pairs(DATA[p] or {}) do
    if type(v) == "table" and DATA[v] then kids[#kids + 1] = v end
  end
  for _, v in ipairs(kids) do
    out[#out + 1] = v
    nested_of(v, out)
  end
  return out
end

local function tampered(dev)
  if next(dev) ~= nil then return true end
  local list = NESTED[dev]
  if list == nil then
    list = nested_of(dev, {})
    NESTED[dev] = list
  end
  for i = 1, #list do
    if next(list[i]) ~= nil then return true end
  end
  return false
end

local function checked(dev)
  if tampered(dev) then
    error("device '" .. tostring(DATA[dev].name) .. "' is read-only, but a field was set with "
      .. "rawset; use hw:with{...} for a modified copy", 3)
  end
  return dev
end

-- A name for messages: a long one (say a 1 MB string) is cut, with its length.
local function shown(name)
  if #name <= 80 then return name end
  return name:sub(1, 60) .. string.format("... (%d bytes)", #name)
end

function M.get(name)
  if type(name) == "table" and getmetatable(name) == Device then return checked(name) end
  if type(name) ~= "string" then
    error("dlb.hw.get: expected a device name, got " .. type(name), 2)
  end
  if catalog[name] then return checked(catalog[name]) end
  -- no device name is this long: skip the fuzzy matching (an edit distance per name)
  if #name > 200 then
    error("unknown device '" .. shown(name) .. "'; dlb.hw.list() shows the catalogue", 2)
  end
  local n = norm(name)
  for _, k in ipairs(order) do
    if norm(k) == n then return checked(catalog[k]) end
  end
  local a = alias_of(name)
  if a and catalog[a] then return checked(catalog[a]) end
  -- the close names among the catalogue's and the aliases' (review 20: "V1000" and "H1000"
  -- suggested A10G, B200, GH200, not V100 or H100, which are aliases)
  local scored = {}
  local function score(k)
    local nk = norm(k)
    local d = distance(n, nk)
    local sub = nk:find(n, 1, true) ~= nil or n:find(nk, 1, true) ~= nil
    if sub then d = math.min(d, 1) end
    scored[#scored + 1] = { k, d, sub and 0 or 1 }
  end
  for _, k in ipairs(order) do score(k) end
  local anames = {}
  for k, target in pairs(M.aliases) do if catalog[target] then anames[#anames + 1] = k end end
  table.sort(anames) -- the same order on both backends
  for _, k in ipairs(anames) do score(k) end
  -- nearest first; of equal distance, a name that holds what was typed (TPUv5: TPUv5e, TPUv5p)
  table.sort(scored, function(a, b)
    if a[2] ~= b[2] then return a[2] < b[2] end
    if a[3] ~= b[3] then return a[3] < b[3] end
    return a[1] < b[1]
  end)
  local close = {}
  for i = 1, math.min(4, #scored) do
    if scored[i][2] <= math.max(3, #n / 2) then close[#close + 1] = scored[i][1] end
  end
  local msg = "unknown device '" .. shown(name) .. "'"
  if #close > 0 then msg = msg .. " (did you mean " .. table.concat(close, ", ") .. "?)" end
  error(msg .. "; dlb.hw.list() shows the catalogue", 2)
end
doc.doc(M.get, "dlb.hw.get(name) -> device",
  "a catalogue device by name or alias (dlb.hw.aliases: V100, A100, H100, TPUv2, TPUv3, ...; "
  .. "case and '-' insensitive); unknown names list close ones")

function M.names()
  local t = {}
  for i, k in ipairs(order) do t[i] = k end
  return t
end
doc.doc(M.names, "dlb.hw.names() -> {names}", "the catalogue's device names in order")

local function fmt(x, scale, digits)
  if x == nil then return "-" end
  digits = digits or 4
  -- rounded first: printf rounds 1670.5 to even under Lua 5.4, LuaJIT away from zero
  return string.format("%." .. digits .. "g", require("dlbench.pretty").round_sig(x / scale, digits))
end

-- The catalogue as rows of strings (header first).
local function rows()
  local cols = { "name", "kind" }
  for _, p in ipairs(PRECISIONS) do cols[#cols + 1] = p end
  for _, c in ipairs { "mem GB", "bw GB/s", "cache MB", "intra GB/s", "inter GB/s", "W" } do
    cols[#cols + 1] = c
  end
  local out = { cols }
  for _, k in ipairs(order) do
    local d = catalog[k]
    local r = { d.name, d.kind }
    for _, p in ipairs(PRECISIONS) do r[#r + 1] = fmt(d.peak[p], 1e12) end
    r[#r + 1] = fmt(d.mem, 1e9)
    r[#r + 1] = fmt(d.mem_bw, 1e9)
    r[#r + 1] = d.cache and d.cache > 0 and fmt(d.cache, 1e6) or "-"
    r[#r + 1] = d.links.intra and fmt(d.links.intra.bw, 1e9) or "-"
    r[#r + 1] = d.links.inter and fmt(d.links.inter.bw, 1e9) or "-"
    r[#r + 1] = fmt(d.power, 1)
    out[#out + 1] = r
  end
  return out
end

-- Print the catalogue as an aligned table (peaks in TFLOP/s, dense) and return the
-- devices. opts.print = false only returns them.
function M.list(opts)
  opts = opts or {}
  local devs = {}
  for i, k in ipairs(order) do devs[i] = catalog[k] end
  if opts.print ~= false then
    local rs = rows()
    local w = {}
    for _, r in ipairs(rs) do
      for j, c in ipairs(r) do w[j] = math.max(w[j] or 0, #c) end
    end
    local out = opts.out or io.write
    out("peak FLOP/s are TFLOP/s (dense); links are bytes/s each way\n")
    for i, r in ipairs(rs) do
      local cells = {}
      for j, c in ipairs(r) do
        cells[j] = j <= 2 and (c .. string.rep(" ", w[j] - #c)) or (string.rep(" ", w[j] - #c) .. c)
      end
      out(table.concat(cells, "  "), "\n")
      if i == 1 then
        local dash = {}
        for j = 1, #r do dash[j] = string.rep("-", w[j]) end
        out(table.concat(dash, "  "), "\n")
      end
    end
    require("dlbench.pretty").shown(devs) -- printed: the REPL does not echo the list
  end
  return devs
end
doc.doc(M.list, "dlb.hw.list([{print=false}]) -> {devices}",
  "print the catalogue as a table (TFLOP/s per precision, GB, GB/s, MB, W) and return it")

-- == catalogue files =============================================================
-- Their columns, parsing and text are lua/dlbench/hw_csv.lua's; defining their devices is
-- the catalogue's.
local csv = require "dlbench.hw_csv"
M.csv_columns, M.parse_csv = csv.csv_columns, csv.parse_csv

-- Load a catalogue file (.lua returning a spec or a list of specs, or .csv) and define
-- its devices; returns them. opts.replace = true redefines existing names.
function M.load(path, opts)
  opts = opts or {}
  if type(path) ~= "string" then error("dlb.hw.load: expected a path, got " .. type(path), 2) end
  local specs, err = csv.read(path)
  if not specs then error("dlb.hw.load: " .. err, 2) end
  -- validate everything before defining anything, so a bad file defines nothing
  local seen = {}
  for i, s in ipairs(specs) do
    validate(s, path .. " entry " .. i)
    if seen[s.name] then
      error(path .. " entry " .. i .. ": device '" .. s.name .. "' is already entry "
        .. seen[s.name] .. " of this file", 0)
    end
    seen[s.name] = i
    check_name(s.name, opts.replace or s.replace, path .. " entry " .. i)
  end
  local out = {}
  for i, s in ipairs(specs) do
    local copy = {}
    for k, v in pairs(s) do copy[k] = v end
    copy.replace = true
    out[i] = add(copy, path .. " entry " .. i)
  end
  return out
end
doc.doc(M.load, "dlb.hw.load(path[, {replace=true}]) -> {devices}",
  "define the devices of a .lua or .csv catalogue file (all or nothing)")

-- The CSV text of devices (default: the whole catalogue), readable by dlb.hw.load.
function M.to_csv(devices)
  devices = devices or M.list { print = false }
  local list = {}
  for i, d in ipairs(devices) do list[i] = M.get(d) end
  return csv.format(list)
end
doc.doc(M.to_csv, "dlb.hw.to_csv([devices]) -> text", "the catalogue (or some devices) as CSV")

-- Write devices as a CSV catalogue file, whole or not at all (graphs/base/file.c's writer).
-- Returns true, or nil and a message.
function M.save_csv(path, devices)
  if type(path) ~= "string" then error("dlb.hw.save_csv: expected a path, got " .. type(path), 2) end
  local text = M.to_csv(devices)
  local why = require("dlbench.errors").unwritable_name(path)
  if why then return require("dlbench.errors").written(nil, "dlb.hw.save_csv: " .. why) end
  local ok, err = core.file_write(path, text) -- the one writer (graphs/base/file.c)
  if not ok then return require("dlbench.errors").written(nil, "dlb.hw.save_csv: " .. err) end
  return true
end
doc.doc(M.save_csv, "dlb.hw.save_csv(path[, devices]) -> true | nil, msg",
  "write the catalogue as CSV (whole or not at all); dlb.hw.load reads it back")

-- Calibration lives in lua/dlbench/calibrate.lua (it needs dlb.roofline, which needs this).
function M.calibrate(dev, measurements, opts)
  return require("dlbench.calibrate").calibrate(dev, measurements, opts)
end
doc.doc(M.calibrate, "dlb.hw.calibrate(hw, measurements[, opts]) -> device, fit",
  "CALIBRATE device fields to measured times (see help(require 'dlbench.calibrate'.calibrate))")

-- d.with{} (a dot for a colon) names the mistake instead of failing inside
require("dlbench.errors").guard_methods(Device, "d:", function(x) return getmetatable(x) == Device end)
M.Device = Device
doc.doc(M, "dlb.hw", "the hardware catalogue: get, list, define, load, names (docs/hw.md)")
doc.methods(M, Device, "dev")
return M
