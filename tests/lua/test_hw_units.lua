-- test_hw_units.lua — review 21: dlb.hw.define (and hw.device, hw:with, catalogue files)
-- refuses a number in a datasheet's unit where the catalogue's SI one belongs (mem = 80
-- meaning GB, peak 1000 meaning TFLOP/s, a link bw of 450 meaning GB/s), naming the field,
-- the value and the slip; toy = true is the way out for deliberate toy devices. The values
-- are the H100-SXM datasheet's (NVIDIA H100 Tensor Core GPU datasheet: 80 GB HBM3,
-- 989 TFLOP/s dense bf16, NVLink 900 GB/s total = 450 GB/s each way, 700 W), typed in the
-- datasheet's units. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"

local function spec(over)
  local s = { name = "units-h100", peak = { bf16 = 989e12 }, mem = 80e9, mem_bw = 3.35e12,
    links = { intra = { bw = 450e9, latency = 1e-6 } }, power = 700, cache = 50e6 }
  for k, v in pairs(over or {}) do s[k] = v end
  return s
end

T.test("the datasheet's numbers in SI units are accepted; in its units, refused by name", function()
  local d = dlb.hw.device(spec())
  T.eq(d.mem, 80e9)
  local function refused(over, field, value, slip)
    local e = T.checkerr(field .. " = " .. value, dlb.hw.define, spec(over))
    assert(e:find("device 'units-h100'", 1, true), e)
    assert(e:find("a unit slip? " .. field, 1, true), e)
    assert(e:find(slip, 1, true), e)
    assert(e:find("toy = true", 1, true), e)
  end
  refused({ mem = 80 }, "mem", "80 bytes", "80 GB is 80e9")
  refused({ peak = { bf16 = 989 } }, "peak.bf16", "989 FLOP/s", "989 TFLOP/s is 989e12")
  refused({ mem_bw = 3350 }, "mem_bw", "3350 bytes/s", "3350 GB/s is 3350e9")
  refused({ links = { intra = { bw = 450 } } }, "links.intra.bw", "450 bytes/s each way", "450 GB/s is 450e9")
  refused({ links = { intra = { bw = 450e9, latency = 1 } } }, "links.intra.latency", "1 seconds",
    "1 us is 1e-6")
  refused({ power = 0.7 }, "power", "0.7 watts", "0.7 kW is 0.7e3")
  refused({ power = 700000 }, "power", "700000 watts", "700000 mW is 700000e-3")
  refused({ cache = 50 }, "cache", "50 bytes", "50 MB is 50e6")
  refused({ kernel_overhead = 5 }, "kernel_overhead", "5 seconds", "5 us is 5e-6")
  T.checkerr("unknown device 'units-h100'", dlb.hw.get, "units-h100") -- nothing was defined
  -- every path that makes a device: hw.device, hw:with, a catalogue file (file:line)
  T.checkerr("dlb.hw.device: device 'units-h100': mem = 80 bytes", dlb.hw.device, spec { mem = 80 })
  local h = dlb.hw.get("H100-SXM")
  T.checkerr("mem = 80 bytes is implausibly small", h.with, h, { mem = 80 })
  T.checkerr("u.csv:2: device 'u': mem = 80 bytes", dlb.hw.parse_csv,
    "name,bf16,mem,mem_bw\nu,989e12,80,3.35e12\n", "u.csv")
  -- a measured level's bandwidth: mem_bw's rule
  T.checkerr("levels[1].bw = 200 bytes/s", dlb.hw.device, spec { levels = { { name = "L1", size = 32768, bw = 200 } } })
end)

T.test("the bounds sit outside every catalogue device", function()
  -- the catalogue was validated when it loaded (hw_catalog entry N); a copy of each with a
  -- changed name passes the same check
  for _, d in ipairs(dlb.hw.list { print = false }) do
    local s = d:spec()
    s.name = d.name .. "-units-copy"
    dlb.hw.device(s)
  end
end)

T.test("toy = true: a deliberate toy device, every number 1, kept through with, spec and CSV", function()
  local toy = dlb.hw.define { name = "units-toy", peak = { fp32 = 1 }, mem = 1, mem_bw = 1, toy = true }
  T.eq(toy.toy, true)
  -- the rest of the validation still holds
  T.checkerr("mem must be positive", dlb.hw.define, { name = "units-toy2", peak = { fp32 = 1 }, mem = -1,
    mem_bw = 1, toy = true })
  T.checkerr("field 'toy' must be a boolean", dlb.hw.define, { name = "units-toy3", peak = { fp32 = 1 },
    mem = 1, mem_bw = 1, toy = "yes" })
  assert(toy:describe():find("toy device (toy = true)", 1, true), toy:describe())
  local w = toy:with { mem = 2 }
  T.eq(w.toy, true, "hw:with keeps toy")
  T.eq(w.mem, 2)
  -- timed as any device: 2 FLOP at 0.8 x 1 FLOP/s (Hestness et al. 5.2's default flops_eff)
  T.near(dlb.roofline.time({ flops = 2, bytes = 0, precision = "fp32" }, toy).time, 2 / 0.8, 1e-12, "toy timed")
  local csv = dlb.hw.to_csv { toy }
  local specs = dlb.hw.parse_csv(csv, "toy.csv")
  T.eq(specs[1].toy, true, "CSV round trip")
  T.eq(dlb.hw.parse_csv(dlb.hw.to_csv { dlb.hw.get("H100-SXM") }, "h.csv")[1].toy, nil, "not a toy")
  T.checkerr("toy.csv:2: column 'toy': 'yes' is not true or false", dlb.hw.parse_csv,
    "name,fp32,mem,mem_bw,toy\nt,1,1,1,yes\n", "toy.csv")
end)

T.done()
