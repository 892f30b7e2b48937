-- test_energy.lua — dlb.energy: the 45 nm tables with their sources (seed 002 EIE Table I
-- = Horowitz ISSCC 2014; seed 003's Pedram et al. table), the step energy split, the
-- device-power view, and bad input.
local T = require "harness"
local dlb = require "dlbench"
local E = dlb.energy

T.test("45nm table: seed 002 EIE Table I (Horowitz ISSCC 2014)", function()
  local c = E.cost("45nm", "fp32")
  -- EIE Table I: 32 bit float ADD 0.9, float MULT 3.7, 32 bit 32KB SRAM 5, DRAM 640 pJ
  T.eq(c.add, 0.9, "fp32 add"); T.eq(c.mul, 3.7, "fp32 mul")
  T.eq(c.sram, 5, "sram"); T.eq(c.dram, 640, "dram"); T.eq(c.word_bytes, 4, "word")
  local i = E.cost("45nm", "int32")
  T.eq(i.add, 0.1, "int add"); T.eq(i.mul, 3.1, "int mult")
  -- "DRAM access uses three orders of magnitude more energy than simple arithmetic and
  -- 128x more than SRAM" (EIE Table I caption): 640 / 5 = 128, 640 / 0.1 = 6400
  T.near(c.dram / c.sram, 128, 1e-12, "DRAM / SRAM")
  T.near(c.dram / i.add, 6400, 1e-12, "DRAM / int add")
  for _, f in ipairs { "add", "mul", "rf", "sram", "dram" } do
    assert(type(c.source[f]) == "string" and #c.source[f] > 10, "source of " .. f)
  end
  assert(c.source.dram:find("640", 1, true), c.source.dram)
  assert(c.source.rf:find("derived", 1, true), "the fp32 register file is derived")
end)

T.test("45nm-pedram: seed 003 slide 'memory access is >500x arithmetic energy'", function()
  local s, d = E.cost("45nm-pedram", "int16"), E.cost("45nm-pedram", "fp64")
  -- slide: 16-bit ADD 0.18, Multiply 0.62, 64-word RF 0.23, 32K-word SRAM 11, DRAM 640 pJ
  T.eq(s.add, 0.18, "add16"); T.eq(s.mul, 0.62, "mul16"); T.eq(s.dram, 640, "dram16")
  -- 64-bit DP-FP: ADD 5, Multiply 20, DRAM 2560 pJ; the slide's ratios 3556x and 512x
  T.eq(d.add, 5, "add64"); T.eq(d.dram, 2560, "dram64")
  T.near(s.dram / s.add, 3556, 1e-3, "16-bit DRAM vs add (slide: 3556x)")
  T.near(d.dram / d.add, 512, 1e-12, "64-bit DRAM vs add (slide: 512x)")
  local names = E.precisions("45nm-pedram")
  T.eq(#names, 2, "two precisions")
end)

T.test("step energy: compute = FLOPs/2 x (add + mul), levels = words x pJ", function()
  -- hand derivation: 2e12 FLOPs = 1e12 FMAs x 4.6 pJ = 4.6 J; 1e9 DRAM bytes = 2.5e8
  -- words x 640 pJ = 0.16 J; SRAM = (1e9 + 1e12 x 2 x 4 / 8) bytes / 4 x 5 pJ = 1.25125 J;
  -- RF = 1e12 x 3 words x 0.293 pJ = 0.879 J
  local e = E.step({ flops = 2e12, bytes = 1e9 })
  T.near(e.compute, 4.6, 1e-12, "compute")
  T.near(e.dram, 0.16, 1e-12, "dram")
  T.near(e.sram, (1e9 + 1e12) / 4 * 5e-12, 1e-12, "sram")
  T.near(e.rf, 0.879, 1e-12, "rf")
  T.near(e.joules, e.compute + e.movement, 1e-12, "sum")
  -- fp16 words are half as wide: the same bytes are twice the accesses of half the energy
  local h = E.step({ flops = 2e12, bytes = 1e9, precision = "fp16" })
  T.near(h.compute, 1e12 * 1.5e-12, 1e-12, "fp16 compute (Horowitz: 0.4 + 1.1 pJ)")
  -- the mixed policies compute in 16 bits: mixed as fp16, mixed_bf16 as bf16 (which was an
  -- error, "table '45nm' has no precision 'mixed_bf16'", while mixed worked)
  local mb = E.step({ flops = 2e12, bytes = 1e9, precision = "mixed_bf16" })
  T.eq(mb.precision, "bf16", "mixed_bf16 computes in bf16")
  T.near(mb.compute, E.step({ flops = 2e12, bytes = 1e9, precision = "bf16" }).compute, 1e-12,
    "mixed_bf16 = bf16")
  T.eq(E.step({ flops = 2e12, bytes = 1e9, precision = "mixed" }).precision, "fp16", "mixed")
  -- the device's view: V100 300 W (datasheet) x the roofline step time
  local v = dlb.hw.get("V100-SXM2-16GB")
  local d = E.step({ flops = 2e12, bytes = 1e9 }, { hw = v })
  local t = dlb.roofline.time({ flops = 2e12, bytes = 1e9 }, v).time
  T.near(d.device_joules, 300 * t, 1e-12, "power x time")
  assert(d.power_source:find("300", 1, true), d.power_source)
  -- power= given beside hw: the device's time, the caller's watts, and the source says so
  -- (it named the catalogue's 300 W datasheet while multiplying by 500 W)
  local g = E.step({ flops = 2e12, bytes = 1e9 }, { hw = v, power = 500 })
  T.near(g.device_joules, 500 * t, 1e-12, "given power x time")
  T.eq(g.power_source, "given", "power_source of a given power")
end)

T.test("a zoo graph: ResNet-50 at batch 32", function()
  local s = dlb.models.resnet { depth = 50, batch = 32 }:stats {}
  local e = E.step(s)
  T.near(e.compute, s.flops / 2 * 4.6e-12, 1e-9, "compute from the graph's FLOPs")
  T.near(e.dram, s.bytes / 4 * 640e-12, 1e-9, "dram from the graph's bytes")
  assert(e.movement > e.compute, "data movement dominates at algorithmic (unfused) traffic")
end)

T.test("bad input", function()
  T.checkerr("unknown table 'x'", E.cost, "x", "fp32")
  T.checkerr("has no precision 'fp8'", E.cost, "45nm", "fp8")
  T.checkerr("unknown option 'tabel'", E.step, { flops = 1, bytes = 1 }, { tabel = "45nm" })
  T.checkerr("numeric flops and bytes", E.step, { flops = 1 })
  T.checkerr("stats must be a table", E.step, 5)
  T.checkerr("reuse must be", E.step, { flops = 1, bytes = 1 }, { reuse = 0 })
  -- reuse beside sram_bytes was ignored and reported back as if it had counted
  T.checkerr("reuse= models the SRAM bytes; give it or sram_bytes=, not both", E.step,
    { flops = 1, bytes = 1 }, { reuse = 4, sram_bytes = 10 })
  T.eq(E.step({ flops = 1, bytes = 1 }, { sram_bytes = 10 }).reuse, nil, "no reuse reported")
  T.checkerr("flops = -1", E.step, { flops = -1, bytes = 1 })
  T.checkerr("dram_bytes must be a finite number >= 0, got inf", E.step, { flops = 1, bytes = 1 }, { dram_bytes = math.huge, sram_bytes = 1, rf_bytes = 1 })
  T.checkerr("string expected", dlb.core.energy_cost, nil, "fp32")
  T.checkerr("number expected", dlb.core.energy_step, 1, 1, 1, 1, 1, 4, nil, 1, 1, 1)
  T.checkerr("word_bytes = 0", dlb.core.energy_step, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1)
  T.checkerr("dram_bytes = inf", dlb.core.energy_step, 1, 1, 1, 1, 1, 4, 1, 1, 1, math.huge)
  T.checkerr("unknown table", dlb.core.energy_precisions, "nope")
end)

-- QA regressions: every option is checked where it enters, with the same message on both
-- backends (before: dram_bytes = -5 was reported as "sram_bytes = -4.5", dram_bytes = "5"
-- passed under Lua 5.4 and failed as "bad argument #10" under LuaJIT, negative power and
-- time gave negative joules, power = "x" and roofline = 5 raised Lua arithmetic/index
-- errors, hw without power silently left device_joules out, the table 45 was "45" on one
-- backend and an error on the other)
T.test("bad options: clear errors naming the option, the same on both backends", function()
  local s = { flops = 2e9, bytes = 1e6 }
  T.checkerr("dram_bytes must be a finite number >= 0, got -5", E.step, s, { dram_bytes = -5 })
  T.checkerr("dram_bytes must be a finite number >= 0, got the string \"5\"", E.step, s, { dram_bytes = "5" })
  T.checkerr("sram_bytes must be a finite number >= 0, got nan", E.step, s, { sram_bytes = 0 / 0 })
  T.checkerr("time must be a finite number >= 0, got -1", E.step, s, { time = -1, power = 100 })
  T.checkerr("power must be a finite number > 0, got -100", E.step, s, { time = 1, power = -100 })
  T.checkerr("power must be a finite number > 0, got the string \"x\"", E.step, s, { time = 1, power = "x" })
  T.checkerr("roofline must be a dlb.roofline.time result (a table), got number", E.step, s, { roofline = 5 })
  T.checkerr("hw must be a device (dlb.hw.get(name)) or its name, got number", E.step, s, { hw = 5 })
  T.checkerr("hw: unknown device 'V999'", E.step, s, { hw = "V999" })
  T.checkerr("precision must be a string (a name), got number", E.step, s, { precision = 16 })
  T.checkerr("dlb.energy.cost: table must be a string (a name), got number", E.cost, 45, "fp32")
  T.checkerr("dlb.energy.precisions: energy: unknown table '7nm'", E.precisions, "7nm")
  T.checkerr("stats.flops = nan and stats.bytes = 1 must be finite", E.step, { flops = 0 / 0, bytes = 1 })
  T.checkerr("reuse must be a number >= 1 (MACs per SRAM operand fetch), got the string \"8\"", E.step, s, { reuse = "8" })
  -- a graph's stats with a dim left unbound name the symbolic count
  T.checkerr("stats.flops is symbolic (", E.step, dlb.models.alexnet {}:stats {})
  -- a device without power (Hestness' T4-like accelerator has none in the catalogue)
  local d = dlb.hw.define { name = "qa-nopower", kind = "gpu", peak = { fp32 = 1e12 }, mem = 1e9, mem_bw = 1e11 }
  T.checkerr("device 'qa-nopower' has no power (W)", E.step, s, { hw = d })
  -- with power given, hw supplies the time: 2e9 FLOPs at 0.8 x 1e12 = 2.5 ms (the bytes'
  -- 1e6 / (0.7 x 1e11) = 14 us is below it) x 50 W = 0.125 J (hand derivation)
  T.near(E.step(s, { hw = d, power = 50 }).device_joules, 0.125, 1e-12, "given power x roofline time")
  -- a catalogue name is a device: V100 300 W x 2e9 / (0.8 x 15.7e12) s = 0.047771 J
  T.near(E.step(s, { hw = "V100-SXM2-16GB" }).device_joules, 300 * 2e9 / (0.8 * 15.7e12), 1e-9, "hw by name")
end)

T.done()
