-- dlbench.hw_spec — what a device spec may hold and the one check of it, shared by the
-- catalogue (lua/dlbench/hw.lua: dlb.hw.define, dlb.hw.device, hw:with) and its files
-- (hw_csv.lua): the precisions (C's DLB_PREC_*), dlb_roof's fields a device holds by the
-- same name, the fields a device may have and their types, and validate(spec, where).
-- Internal: the user-facing API is dlb.hw (docs/hw.md).
local core = require "dlbench.backend"
local levels = require "dlbench.hw_levels"
local errors = require "dlbench.errors"
local desc = require "dlbench.desc"
local options = require "dlbench.options"

local M = {}

local PRECISIONS = core.hw_precisions()   -- fp64, fp32, tf32, fp16, bf16, fp8, int8
local is_prec = {}
for _, p in ipairs(PRECISIONS) do is_prec[p] = true end
M.PRECISIONS, M.is_prec = PRECISIONS, is_prec

-- The description of a device the models share: C's struct dlb_roof (graphs/hw/dlb_hw.h), read
-- from the headers (dlbench.desc). Most of its fields are a device's numbers of the same
-- name (flops_eff, bw_eff, cache, mem, the kernel model, attn_eff); these are not, and
-- hw:roof makes each from something else: peak (the device's peak table, at one
-- precision), bw (mem_bw), elem (the precision's bytes), cache_aware, bytes_scale, tile_m,
-- tile_n (options of one call), gemm_tile_m, gemm_tile_n (gemm_tile = {m, n}), the
-- levelN_size / levelN_bw pairs (levels, a list), attn_work (the step's causal masking
-- under a framework profile: dlb.frameworks.attn_work) and head_peak (the output layer's peak
-- under the profile's fp8 recipe: dlb.frameworks.head_peak).
local ROOF_MADE = { peak = true, bw = true, elem = true, cache_aware = true, bytes_scale = true,
  tile_m = true, tile_n = true, gemm_tile_m = true, gemm_tile_n = true, attn_work = true,
  head_peak = true }
local ROOF_FIELDS = {}   -- dlb_roof's fields a device holds as numbers of the same name
for _, f in ipairs(desc.fields("dlb_roof")) do
  if not (ROOF_MADE[f] or f:match("^level%d+_")) then ROOF_FIELDS[#ROOF_FIELDS + 1] = f end
end

-- The fields a device may have, and what they must be: dlb_roof's numbers above, and what
-- only the catalogue knows (names, provenance, per-precision peaks, links, power, the
-- levels and tiles hw:roof flattens).
local FIELDS = {
  name = "string", kind = "string", year = "number", note = "string", vendor = "string",
  peak = "table", mem_bw = "number", links = "table", power = "number",
  mem_per_core = "number", cores = "number", source = "table", replace = "boolean",
  gemm_tile = "table",
  -- what the device's kernel model lacks against the A100's published fields (hw_catalog.lua);
  -- plan/evaluate rows on it say so (r.less_certain)
  less_certain = "string",
  -- measured per-level memory ceilings (dlb.measure.host): {{name=, size=, bw=}, ...}
  levels = "table",
  -- the fabric as NCCL sees it (issue [19], hw_catalog.lua FABRIC): NVLink generation,
  -- NVLink SHARP, compute NICs per node of the reference system
  nvlink = "number", nvls = "number", nics = "number",
  -- NCCL's CTAs (one per channel) a collective holds on the device (contention.lua CTAS)
  nccl_ctas = "number",
  -- a deliberate toy device (a test's or a lesson's, every number 1): the plausibility
  -- check of the units (PLAUSIBLE below) is skipped; the rest of the validation holds
  toy = "boolean",
}
for _, f in ipairs(ROOF_FIELDS) do FIELDS[f] = "number" end
local FIELD_LIST = {}
for k in pairs(FIELDS) do FIELD_LIST[#FIELD_LIST + 1] = k end
table.sort(FIELD_LIST)

local function finite(x) return type(x) == "number" and x == x and x > -math.huge and x < math.huge end

-- The C rule (dlb_roof_check, the one check of a device) on field k = v of an otherwise
-- valid device: nil when it holds, else the check's message without its "roofline: ".
-- The rule is a pure function of (k, v), so its answers are kept (a calibrated device is
-- made per validation row: hw:with validates it, three fields a device).
local rule_seen, nseen = {}, 0
local function roof_rule(k, v)
  local key = type(v) == "number" and k .. "=" .. string.format("%.17g", v) or nil
  local seen = key and rule_seen[key]
  if seen ~= nil then return seen or nil end
  local d = core.roof_defaults()
  d.peak, d.bw, d[k] = 1, 1, v
  local ok, msg = pcall(core.roof_check, d)
  local out = not ok and (errors.strip(tostring(msg)):gsub("^roofline: ", "")) or nil
  if key then
    if nseen >= 4096 then rule_seen, nseen = {}, 0 end
    rule_seen[key], nseen = out or false, nseen + 1
  end
  return out
end

-- The units' plausibility check (review 21): a field given in the unit a datasheet prints
-- rather than the catalogue's SI one (mem = 80 meaning GB, peak = {bf16 = 1000} meaning
-- TFLOP/s, a link bw = 450 meaning GB/s, power = 0.7 meaning kW, a latency of 5 meaning us)
-- was accepted and gave times 1e9 to 1e12 off. Each bound is orders of magnitude outside
-- any device the catalogue holds (its extremes: peak 1e12 .. 4.5e15 FLOP/s, mem 8e9 ..
-- 7.7e11 B, mem_bw 1.7e10 .. 8e12 B/s, cache 2e6 .. 3.8e8 B, link bw 3.1e9 .. 1.3e12 B/s,
-- latency 1 .. 5 us, power 70 .. 1000 W, kernel_overhead 1 .. 10 us) and inside every such
-- slip: a unit slip of GB, GB/s or TFLOP/s leaves a number below 1e6, of MB (cache) below
-- 1e4, of kW below 1, of us or ms (a time) above 0.1 s. A deliberate toy device says
-- toy = true. {field, lo, hi, unit, the likely slip and how to write it}
local PLAUSIBLE = {
  { "peak", 1e6, nil, "FLOP/s", "TFLOP/s", 12 },
  { "mem", 1e6, nil, "bytes", "GB", 9 },
  { "mem_per_core", 1e6, nil, "bytes", "GB", 9 },
  { "mem_bw", 1e6, nil, "bytes/s", "GB/s", 9 },
  { "cache", 1e4, nil, "bytes", "MB", 6 },
  { "links.bw", 1e6, nil, "bytes/s each way", "GB/s", 9 },
  { "links.latency", nil, 0.1, "seconds", "us", -6 },
  { "power", 1, nil, "watts", "kW", 3 },
  { "power", nil, 1e5, "watts", "mW", -3 },
  { "kernel_overhead", nil, 0.1, "seconds", "us", -6 },
  { "host_op", nil, 0.1, "seconds", "us", -6 },
  { "host_layer", nil, 0.1, "seconds", "us", -6 },
  { "gemm_tile_overhead", nil, 0.1, "seconds", "us", -6 },
}
M.PLAUSIBLE = PLAUSIBLE

-- The plausibility check of a spec whose fields are otherwise valid: bad(fmt, ...) on the
-- first implausible one, naming the field, the value, the unit it must be in and the slip.
local function plausible(spec, bad)
  local function check(label, v, rule)
    if v == nil or v == 0 then return end   -- 0: "none stated" where a field allows it
    local lo, hi = rule[2], rule[3]
    local small = lo and v < lo
    if small or (hi and v > hi) then
      local g = string.format("%.6g", v)
      bad("%s = %s %s is implausibly %s for a device (%s %g): a unit slip? %s is in %s: %s %s "
        .. "is %se%d; a deliberate toy device says toy = true", label, g, rule[4],
        small and "small" or "large", small and "below" or "above", small and lo or hi, label,
        rule[4], g, rule[5], g, rule[6])
    end
  end
  for _, rule in ipairs(PLAUSIBLE) do
    local f = rule[1]
    if f == "peak" then
      for _, p in ipairs(PRECISIONS) do check("peak." .. p, spec.peak[p], rule) end
    elseif f:match("^links%.") then
      local k = f:match("^links%.(.+)$")
      for _, tier in ipairs { "intra", "inter", "host" } do
        local l = spec.links and spec.links[tier]
        if l then check("links." .. tier .. "." .. k, l[k], rule) end
      end
    else
      check(f, spec[f], rule)
    end
  end
  for i, l in ipairs(spec.levels or {}) do
    check("levels[" .. i .. "].bw", l.bw, PLAUSIBLE[4])   -- mem_bw's rule
  end
end

-- Validate a device spec; `where` prefixes every message (e.g. "catalog.csv:3").
local function validate(spec, where)
  local function bad(fmt, ...)
    local msg = where .. ": " .. string.format(fmt, ...)
    if where:match(":%d+$") then error(msg, 0) end -- a file's line: already located
    errors.raise(msg)
  end
  if type(spec) ~= "table" then bad("a device must be a table, got %s", type(spec)) end
  for k, v in pairs(spec) do
    local want = FIELDS[k]
    if want == nil then
      bad("%s", options.message(k, FIELD_LIST, "a device", "field"))
    end
    if type(v) ~= want then bad("field '%s' must be a %s, got %s", k, want, type(v)) end
  end
  -- the name keys the catalogue and reaches C as a C string: a NUL byte would cut it there
  -- (two names, one device), and an empty one names nothing
  if spec.name == nil then bad("a device needs a name (field 'name')") end
  if spec.name == "" then bad("field 'name' must not be empty") end
  local nul = spec.name:find("\0", 1, true)
  if nul then bad("field 'name' must not hold a NUL byte (byte %d of %d)", nul, #spec.name) end
  where = where .. ": device '" .. spec.name .. "'"
  if spec.peak == nil or next(spec.peak) == nil then
    bad("needs peak = {fp32 = FLOP/s, ...} with at least one precision")
  end
  for p, v in pairs(spec.peak) do
    if not is_prec[p] then
      bad("unknown precision '%s' in peak (expected %s)", tostring(p), table.concat(PRECISIONS, ", "))
    end
    if not finite(v) or v <= 0 then bad("peak.%s must be a positive FLOP/s, got %s", p, tostring(v)) end
  end
  local function positive(k, required, unit)
    local v = spec[k]
    if v == nil then
      if required then bad("needs %s (%s)", k, unit) end
      return
    end
    if not finite(v) or v <= 0 then bad("%s must be positive %s, got %s", k, unit, tostring(v)) end
  end
  positive("mem_bw", true, "bytes/s")
  positive("mem", true, "bytes")
  positive("power", false, "watts")
  positive("mem_per_core", false, "bytes")
  positive("cores", false, "cores")
  if spec.cores ~= nil and spec.cores ~= math.floor(spec.cores) then
    bad("cores must be a whole number, got %s", tostring(spec.cores))
  end
  positive("sm_count", false, "multiprocessors")
  if spec.sm_count ~= nil and spec.sm_count ~= math.floor(spec.sm_count) then
    bad("sm_count must be a whole number, got %s", tostring(spec.sm_count))
  end
  if (spec.cores == nil) ~= (spec.mem_per_core == nil) then
    bad("cores and mem_per_core go together (a board whose cores each hold a model copy)")
  end
  -- a real zero cache is not a thing: leave cache out when it is unknown
  if spec.cache ~= nil and (not finite(spec.cache) or spec.cache <= 0) then
    bad("cache must be positive bytes (leave it out when unknown), got %s", tostring(spec.cache))
  end
  for _, k in ipairs { "flops_eff", "bw_eff", "attn_eff", "gemm_tile_overhead" } do
    local v = spec[k]
    local msg = v ~= nil and roof_rule(k, v)
    if msg then bad("%s", msg) end
  end
  -- C reads attn_eff 0 as "off"; a device states a published efficiency or leaves it out
  if spec.attn_eff == 0 then
    bad("attn_eff must be in (0, 1] on a device (leave it out when unknown), got 0")
  end
  for _, k in ipairs { "kernel_overhead", "step_overhead", "half_bw_bytes", "host_op", "host_layer" } do
    local v = spec[k]
    if v ~= nil and (not finite(v) or v < 0) then bad("%s must be >= 0, got %s", k, tostring(v)) end
  end
  for _, k in ipairs { "sm_count", "systolic", "vector_width", "nccl_ctas" } do
    local v = spec[k]
    if v ~= nil and (not finite(v) or v < 1 or v ~= math.floor(v)) then
      bad("%s must be a whole number >= 1, got %s", k, tostring(v))
    end
  end
  if spec.gemm_tile ~= nil then
    local t = spec.gemm_tile
    local function ok(x) return finite(x) and x >= 1 and x == math.floor(x) end
    if not (ok(t[1]) and ok(t[2]) and t[3] == nil) then
      bad("gemm_tile must be {m, n}, whole numbers >= 1 (the output tile of the GEMM kernels)")
    end
  end
  if spec.links then
    -- no pairs loop inside another: LuaJIT 2.1.0-beta3's JIT ends such an outer loop after
    -- its first entry once it has despecialised it (LuaJIT issue #827, fixed upstream in
    -- 2022), and the later tiers went unchecked: a negative inter_bw or intra_latency passed
    -- under the FFI backend, about 1 mutated catalogue in 2,000 (fuzz-long,
    -- tests/lua/test_hw_csv_fuzz.lua seed 81). The tiers are listed first, then checked.
    local tiers = {}
    for tier in pairs(spec.links) do tiers[#tiers + 1] = tier end
    for i = 1, #tiers do
      local tier = tiers[i]
      local l = spec.links[tier]
      if tier ~= "intra" and tier ~= "inter" and tier ~= "host" then
        bad("%s", options.message(tier, { "intra", "inter", "host" }, "links", "link tier"))
      end
      if type(l) ~= "table" then bad("links.%s must be a table {bw=, latency=}", tier) end
      for _, k in ipairs(options.keys(l)) do -- sorted: the first refused key is named
        if k ~= "bw" and k ~= "latency" then
          bad("%s", options.message(k, { "bw", "latency" }, "links." .. tier, "field"))
        end
      end
      if not finite(l.bw) or l.bw <= 0 then
        bad("links.%s.bw must be positive bytes/s, got %s", tier, tostring(l.bw))
      end
      if l.latency ~= nil and (not finite(l.latency) or l.latency < 0) then
        bad("links.%s.latency must be >= 0 seconds, got %s", tier, tostring(l.latency))
      end
    end
  end
  if spec.levels then levels.check(spec.levels, bad) end
  if spec.source then
    for k, v in pairs(spec.source) do
      if type(v) ~= "string" then bad("source.%s must be a string", tostring(k)) end
    end
  end
  if not spec.toy then plausible(spec, bad) end
end

M.ROOF_FIELDS, M.roof_rule, M.validate = ROOF_FIELDS, roof_rule, validate
M.FIELDS, M.FIELD_LIST = FIELDS, FIELD_LIST
return M
