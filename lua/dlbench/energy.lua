-- dlbench.energy — the energy of a training step from per-operation energies (pJ per add,
-- multiply and word access at the register file, SRAM and DRAM; tables with sources in
-- graphs/hw/energy.c), beside the device's power x step time. See docs/energy.md.
--
-- The traffic at each level is a model, stated so it can be replaced:
--   dram  the step's algorithmic bytes (stats.bytes: every op reads its inputs and writes
--         its outputs off chip), or a roofline result's bytes (cache-aware, fused, ...), or
--         opts.dram_bytes;
--   sram  every DRAM byte passes through the on-chip SRAM once (dram bytes), plus the
--         operands of each multiply-accumulate fetched from SRAM into registers once per
--         `reuse` MACs (register blocking; assumed 8): flops/2 x 2 words / reuse;
--   rf    three register-file word accesses per MAC (two operand reads, one write):
--         flops/2 x 3 words.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local strip = require("dlbench.errors").strip

local M = {}

function M.tables() return core.energy_tables() end
doc.doc(M.tables, "dlb.energy.tables() -> {{name=, note=}, ...}",
  "the per-operation energy tables (processes) with a note on their source")

-- table and precision names: strings (a number is not a name, on either backend)
local function name(fn, what, v, default)
  if v == nil then return default end
  if type(v) ~= "string" then
    error(string.format("%s: %s must be a string (a name), got %s", fn, what, type(v)), 3)
  end
  return v
end

function M.precisions(table_name)
  local t = name("dlb.energy.precisions", "table", table_name, "45nm")
  local ok, r = pcall(core.energy_precisions, t)
  if not ok then error("dlb.energy.precisions: " .. strip(r), 2) end
  return r
end
doc.doc(M.precisions, "dlb.energy.precisions([table=\"45nm\"]) -> {\"fp32\", ...}",
  "the precisions a table lists")

function M.cost(table_name, precision)
  return core.energy_cost(name("dlb.energy.cost", "table", table_name, "45nm"),
    name("dlb.energy.cost", "precision", precision, "fp32"))
end
doc.doc(M.cost, "dlb.energy.cost([table=\"45nm\", precision=\"fp32\"]) -> {add=, mul=, rf=, sram=, dram=, word_bytes=, source={...}}",
  "energy per operation in pJ (an add, a multiply, one word access per level), each with its source")

local STEP = { table = true, hw = true, precision = true, reuse = true, dram_bytes = true,
               sram_bytes = true, rf_bytes = true, roofline = true, time = true, power = true }

local function field(s, k)
  local v = s[k]
  if type(v) == "table" or type(v) == "userdata" then
    local txt = tostring(v)
    v = tonumber(txt)
    if v == nil then
      if #txt > 60 then txt = txt:sub(1, 57) .. "..." end
      error(string.format("dlb.energy.step: stats.%s is symbolic (%s): bind every dim, e.g. g:stats{b = 32}", k, txt), 3)
    end
  end
  return v
end

-- a number as text, the same on both backends (Lua 5.4 prints 0/0 as "-nan", LuaJIT "nan")
local function num2s(v)
  if type(v) == "number" and v ~= v then return "nan" end
  return tostring(v)
end

-- an optional count given in opts: a finite number >= 0 (> 0 when positive), else an error
-- naming the option
local function count(k, v, positive)
  if v == nil then return nil end
  if type(v) ~= "number" or v ~= v or v == math.huge or v < 0 or (positive and v == 0) then
    error(string.format("dlb.energy.step: %s must be a finite number %s, got %s%s", k, positive and "> 0" or ">= 0",
      type(v) == "string" and "the string " or "", type(v) == "string" and string.format("%q", v) or num2s(v)), 3)
  end
  return v
end

-- The arithmetic precision of a stats precision: the mixed policies compute in 16 bits
-- (mixed: fp16, mixed_bf16: bf16; g:stats{precision = "mixed_bf16"} was "no precision
-- 'mixed_bf16'" here while "mixed" worked).
local MIXED = { mixed = "fp16", mixed_bf16 = "bf16" }
local function arith(p) return MIXED[p] or p end

-- dlb.energy.step(stats, opts) -> joules split by compute and level, beside power x time
function M.step(s, opts)
  opts = options.check(opts, STEP, "dlb.energy.step")
  if type(s) ~= "table" then
    error("dlb.energy.step: stats must be a table (g:stats{...} or {flops=, bytes=}), got " .. type(s), 2)
  end
  local flops, bytes = field(s, "flops"), field(s, "bytes")
  if type(flops) ~= "number" or type(bytes) ~= "number" then
    error(string.format("dlb.energy.step: stats need numeric flops and bytes (bind every dim), got flops = %s, bytes = %s",
      tostring(flops), tostring(bytes)), 2)
  end
  if flops ~= flops or flops < 0 or flops == math.huge or bytes ~= bytes or bytes < 0 or bytes == math.huge then
    error(string.format("dlb.energy.step: stats.flops = %s and stats.bytes = %s must be finite and >= 0",
      num2s(flops), num2s(bytes)), 2)
  end
  for _, k in ipairs { "dram_bytes", "sram_bytes", "rf_bytes", "time" } do count(k, opts[k]) end
  count("power", opts.power, true)
  name("dlb.energy.step", "table", opts.table)
  name("dlb.energy.step", "precision", opts.precision)
  local rl = opts.roofline
  if rl ~= nil then
    if type(rl) ~= "table" then
      error("dlb.energy.step: roofline must be a dlb.roofline.time result (a table), got " .. type(rl), 2)
    end
    count("roofline.bytes", rl.bytes)
    count("roofline.time", rl.time)
  end
  local hw = opts.hw
  if type(hw) == "string" then
    local ok, d = pcall(require("dlbench.hw").get, hw)
    if not ok then error("dlb.energy.step: hw: " .. strip(d), 2) end
    hw = d
  end
  if hw ~= nil and type(hw) ~= "table" then
    error("dlb.energy.step: hw must be a device (dlb.hw.get(name)) or its name, got " .. type(hw), 2)
  end
  if hw and opts.power == nil and hw.power == nil then
    error(string.format("dlb.energy.step: device '%s' has no power (W) to multiply by the step time; "
      .. "give power = watts, or leave hw out", tostring(hw.name)), 2)
  end
  local prec = arith(opts.precision or rawget(s, "precision") or "fp32")
  local tname = opts.table or "45nm"
  local c = core.energy_cost(tname, prec)
  -- reuse shapes the modelled SRAM traffic only: beside sram_bytes= it was ignored (and
  -- reported back in e.reuse as if it had counted)
  if opts.reuse ~= nil and opts.sram_bytes ~= nil then
    error("dlb.energy.step: reuse= models the SRAM bytes; give it or sram_bytes=, not both", 2)
  end
  local reuse = opts.reuse or 8
  if type(reuse) ~= "number" or reuse ~= reuse or reuse < 1 or reuse == math.huge then
    error("dlb.energy.step: reuse must be a number >= 1 (MACs per SRAM operand fetch), got "
      .. (type(reuse) == "string" and string.format("the string %q", reuse) or num2s(reuse)), 2)
  end
  local w = c.word_bytes
  -- algorithmic bytes were counted at the stats' precision; the table's word may differ
  local sp = arith(rawget(s, "precision"))
  local scale = 1
  if sp and sp ~= prec then
    local ok, b = pcall(core.hw_precision_bytes, sp)
    if ok and b > 0 then scale = w / b end
  end
  local dram = opts.dram_bytes or (opts.roofline and opts.roofline.bytes) or bytes * scale
  local macs = flops / 2
  local sram = opts.sram_bytes or (dram + macs * 2 * w / reuse)
  local rf = opts.rf_bytes or macs * 3 * w
  local e = core.energy_step(c.add, c.mul, c.rf, c.sram, c.dram, w, flops, rf, sram, dram)
  local r = { joules = e.total, compute = e.compute, rf = e.rf, sram = e.sram, dram = e.dram,
              movement = e.rf + e.sram + e.dram, table = tname, precision = prec,
              bytes = { rf = rf, sram = sram, dram = dram }, flops = flops, cost = c,
              reuse = opts.sram_bytes == nil and reuse or nil }
  -- the device's view: power x step time (power from the catalogue, its TDP/board power)
  local t = opts.time or (opts.roofline and opts.roofline.time)
  if hw and not t then
    local R = require "dlbench.roofline"
    t = R.time(s, hw).time
  end
  local p = opts.power or (hw and hw.power)
  if t then r.time = t end
  if p then r.power = p end
  if p and t then
    r.device_joules = p * t
    -- power= overrides the device's figure, so its source is the caller's, not the catalogue's
    if opts.power ~= nil then r.power_source = "given"
    else r.power_source = hw.source and hw.source.power or "catalogue (no source recorded)" end
  end
  return r
end
doc.doc(M.step, "dlb.energy.step(stats, {table=\"45nm\", hw=, precision=, reuse=8, dram_bytes=, sram_bytes=, rf_bytes=, roofline=, time=, power=}) -> e",
  "joules of a step: e.joules = e.compute + e.rf + e.sram + e.dram (e.movement = the three levels); with hw (or time and power) e.device_joules = power x step time")

doc.doc(M, "dlb.energy", "energy per operation (45 nm tables with sources) and the energy of a training step")
return M
