-- test_hw_qa.lua — regressions for QA's device-naming findings: duplicate CSV rows,
-- defining over an alias, read-only devices, cores/mem_per_core through CSV, sorted
-- names in conflict messages. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"

local function raises(pat, f, ...)
  local ok, msg = pcall(f, ...)
  assert(not ok, "expected an error matching " .. pat)
  assert(tostring(msg):find(pat, 1, true), "message: " .. tostring(msg))
  return msg
end

local function tmpname(ext)
  local n = os.tmpname()
  os.remove(n)
  return n .. ext
end

T.test("a CSV naming a device twice is an error naming both lines, and defines nothing", function()
  local text = "name,fp32,mem,mem_bw\nqa-dup,1e12,1e9,1e11\n# comment\nqa-other,1e12,1e9,1e11\n"
    .. "qa-dup,2e12,1e9,1e11\n"
  raises("dup.csv:5: device 'qa-dup' is already on line 2 of dup.csv", dlb.hw.parse_csv, text, "dup.csv")
  local p = tmpname(".csv")
  local f = assert(io.open(p, "wb")); f:write(text); f:close()
  raises("is already on line 2", dlb.hw.load, p)
  raises("unknown device", dlb.hw.get, "qa-other") -- all or nothing
  os.remove(p)
  -- a Lua list with a repeated name, likewise
  local q = tmpname(".lua")
  f = assert(io.open(q, "wb"))
  f:write('return {{name="qa-l", peak={fp32=1e12}, mem=1e9, mem_bw=1e11},'
    .. '{name="qa-l", peak={fp32=2e12}, mem=1e9, mem_bw=1e11}}')
  f:close()
  raises("entry 2: device 'qa-l' is already entry 1", dlb.hw.load, q)
  os.remove(q)
end)

T.test("defining an alias's name needs replace = true", function()
  local spec = { name = "V100", peak = { fp32 = 1e12 }, mem = 1e9, mem_bw = 1e11 }
  raises("'V100' is an alias of V100-SXM2-16GB", dlb.hw.define, spec)
  T.eq(dlb.hw.get("V100").name, "V100-SXM2-16GB", "alias untouched")
  raises("is an alias of TPUv3-board", dlb.hw.define,
    { name = "tpu_v3", peak = { bf16 = 1e12 }, mem = 1e9, mem_bw = 1e11 })
  -- a spelling of a catalogue name: both names, sorted
  local msg = raises("are the same name", dlb.hw.define,
    { name = "h100 sxm", peak = { fp32 = 1e12 }, mem = 1e9, mem_bw = 1e11 })
  assert(msg:find("'H100-SXM' and 'h100 sxm'", 1, true), msg)
  -- replace = true takes the alias over (last: it changes the session's V100)
  spec.replace = true
  local d = dlb.hw.define(spec)
  T.eq(dlb.hw.get("V100"), d, "V100 is now the new device")
  T.eq(dlb.hw.get("V100-SXM2-16GB").mem, 16e9, "the catalogue device is still there")
end)

T.test("devices are read-only; hw:with gives a modified copy", function()
  local v = dlb.hw.get("V100-SXM2-16GB")
  raises("device 'V100-SXM2-16GB' is read-only: cannot set 'mem'; use hw:with{mem = ...}",
    function() v.mem = 1 end)
  raises("read-only", function() v.peak.fp32 = 1 end)
  raises("read-only", function() v.links.intra.bw = 1 end)
  raises("read-only", function() v.source.mem = "mine" end)
  raises("read-only", function() v.newfield = 1 end)
  T.eq(dlb.hw.get("V100-SXM2-16GB").mem, 16e9, "catalogue unchanged")
  local big = v:with { mem = 32e9 }
  T.eq(big.mem, 32e9, "copy"); T.eq(v.mem, 16e9, "original")
  T.eq(big.peak.fp32, v.peak.fp32, "rest copied"); T.eq(big.source.mem, "changed with hw:with")
  raises("mem must be positive", function() return v:with { mem = -1 } end)
  raises("read-only", function() big.mem = 1 end)
  -- spec() is a plain table dlb.hw.define accepts
  local s = v:spec()
  s.mem, s.name = 48e9, "qa-v100-48"
  T.eq(dlb.hw.define(s).mem, 48e9, "defined from a spec")
  local n = 0
  for _ in pairs(s.peak) do n = n + 1 end
  T.eq(n, #v:precisions(), "plain copy iterates")
  T.eq(v:ridge("fp32"), v.peak.fp32 / v.mem_bw, "methods through the proxy")
end)

T.test("cores and mem_per_core survive a CSV round trip", function()
  local specs = dlb.hw.parse_csv(dlb.hw.to_csv { "TPUv3-board", "TPUv2-board", "V100" }, "rt.csv")
  T.eq(specs[1].cores, 8); T.eq(specs[1].mem_per_core, 16e9, "v3 per core")
  T.eq(specs[2].mem_per_core, 8e9, "v2 per core")
  T.eq(specs[3].cores, nil); T.eq(specs[3].mem_per_core, nil)
  for _, s in ipairs(specs) do s.name = "qa-rt-" .. s.name end
  local d = dlb.hw.define(specs[1])
  local r = dlb.roofline.time({ flops = 1, bytes = 1, footprint = 20e9, precision = "bf16" }, d)
  T.eq(r.per_core, true); T.eq(r.fits, false, "per-core fit after the round trip")
  raises("cores must be a whole number", dlb.hw.parse_csv,
    "name,bf16,mem,mem_bw,cores,mem_per_core\nx,1e12,1e9,1e11,2.5,1e8\n", "c.csv")
  raises("cores and mem_per_core go together", dlb.hw.parse_csv,
    "name,bf16,mem,mem_bw,cores\nx,1e12,1e9,1e11,2\n", "c.csv")
end)

T.test("the newer accelerators' figures are their sources' (review 20)", function()
  -- per-GPU datasheet figures, dense (hw_catalog.lua's units: FLOP/s, bytes, bytes/s, W)
  local b = dlb.hw.get("B200")
  -- GB200 NVL72 / HGX B200 specification table, HGX B200 per GPU: TF32 2.2 PFLOP/s with
  -- sparsity, halved to 1.1 dense (the source text said 18 / 8 / 2 = 1.125 beside 1100)
  T.eq(b.peak.tf32, 1100e12, "B200 tf32 dense")
  assert(b.source.peak:find("2.2 PFLOP/s", 1, true) and b.source.peak:find("1.1", 1, true),
    "the source states the figure it gives: " .. b.source.peak)
  T.eq(b.peak.bf16, 36e15 / 8 / 2, "B200 bf16: HGX 36 PFLOP/s sparse / 8 / 2")
  T.eq(b.mem, 1440e9 / 8, "B200: DGX B200 1,440 GB / 8"); T.eq(b.power, 1000, "B200 1,000 W")
  local m = dlb.hw.get("MI300X") -- AMD datasheet: dense matrix rates, 192 GB HBM3, 5.3 TB/s
  T.eq(m.peak.bf16, 1307.4e12); T.eq(m.peak.fp8, 2614.9e12); T.eq(m.mem, 192e9)
  T.eq(m.mem_bw, 5.3e12); T.eq(m.power, 750); T.eq(m.links.intra.bw, 896e9 / 2, "896 GB/s aggregate, each way")
  local t = dlb.hw.get("TPUv5p") -- Google Cloud TPU v5p page: 459 TFLOP/s bf16, 95 GB, 2,765 GB/s
  T.eq(t.peak.bf16, 459e12); T.eq(t.mem, 95e9); T.eq(t.mem_bw, 2765e9); T.eq(t.power, nil, "no power published")
  local g = dlb.hw.get("Gaudi3") -- Intel Gaudi 3 white paper: 1,835 TFLOP/s bf16 and fp8, 128 GB, 3.7 TB/s
  T.eq(g.peak.bf16, 1835e12); T.eq(g.peak.fp8, 1835e12); T.eq(g.mem, 128e9); T.eq(g.mem_bw, 3.7e12)
  T.eq(g.power, 900)
end)

T.done()
