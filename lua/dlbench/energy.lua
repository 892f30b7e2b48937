-- dlbench.energy — the energy of a training step from per-operation energies (pJ per add,
-- multiply and word access at the register file, SRAM and DRAM; tables with sources in
-- graphs/energy.c), beside the device's power x step time. See docs/energy.md.
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

local M = {}

function M.tables() return core.energy_tables() end
doc.doc(M.tables, "dlb.energy.tables() -> {{name=, note=}, ...}",
  "the per-operation energy tables (processes) with a note on their source")

function M.precisions(table_name) return core.energy_precisions(table_name or "45nm") end
doc.doc(M.precisions, "dlb.energy.precisions([table=\"45nm\"]) -> {\"fp32\", ...}",
  "the precisions a table lists")

function M.cost(table_name, precision)
  return core.energy_cost(table_name or "45nm", precision or "fp32")
end
doc.doc(M.cost, "dlb.energy.cost([table=\"45nm\", precision=\"fp32\"]) -> {add=, mul=, rf=, sram=, dram=, word_bytes=, source={...}}",
  "energy per operation in pJ (an add, a multiply, one word access per level), each with its source")

local STEP = { table = true, hw = true, precision = true, reuse = true, dram_bytes = true,
               sram_bytes = true, rf_bytes = true, roofline = true, time = true, power = true }

local function field(s, k)
  local v = s[k]
  if type(v) == "table" or type(v) == "userdata" then v = tonumber(tostring(v)) end
  return v
end

-- dlb.energy.step(stats, opts) -> joules split by compute and level, beside power x time
function M.step(s, opts)
  opts = options.check(opts, STEP, "dlb.energy.step")
  if type(s) ~= "table" then
    error("dlb.energy.step: stats must be a table (g:stats{...} or {flops=, bytes=}), got " .. type(s), 2)
  end
  local flops, bytes = field(s, "flops"), field(s, "bytes")
  if type(flops) ~= "number" or type(bytes) ~= "number" then
    error("dlb.energy.step: stats need numeric flops and bytes (bind every dim)", 2)
  end
  local prec = opts.precision or rawget(s, "precision") or "fp32"
  if prec == "mixed" then prec = "fp16" end
  local tname = opts.table or "45nm"
  local c = core.energy_cost(tname, prec)
  local reuse = opts.reuse or 8
  if type(reuse) ~= "number" or reuse < 1 then
    error("dlb.energy.step: reuse must be a number >= 1 (MACs per SRAM operand fetch), got " .. tostring(reuse), 2)
  end
  local w = c.word_bytes
  -- algorithmic bytes were counted at the stats' precision; the table's word may differ
  local sp = rawget(s, "precision")
  if sp == "mixed" then sp = "fp16" end
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
              reuse = reuse }
  -- the device's view: power x step time (power from the catalogue, its TDP/board power)
  local hw = opts.hw
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
    r.power_source = hw and hw.source and hw.source.power or "given"
  end
  return r
end
doc.doc(M.step, "dlb.energy.step(stats, {table=\"45nm\", hw=, precision=, reuse=8, dram_bytes=, sram_bytes=, rf_bytes=, roofline=, time=, power=}) -> e",
  "joules of a step: e.joules = e.compute + e.rf + e.sram + e.dram (e.movement = the three levels); with hw (or time and power) e.device_joules = power x step time")

doc.doc(M, "dlb.energy", "energy per operation (45 nm tables with sources) and the energy of a training step")
return M
