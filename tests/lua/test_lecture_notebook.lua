-- test_lecture_notebook.lua — notebooks/lecture.lua runs under this backend and reproduces
-- the lecture's (seeds/002) numbers: its FOM example, the P1B3 profile, the CNN tables.
local T = require "harness"
local NB = require "notebook"
local dlb = require "dlbench"

local text, res = NB.run("lecture")

T.test("figure of merit (slide 'Example FOM Calculation')", function()
  -- P1 ratio 564,000 / 7,475 = 75.45x; FOM = H_A / H_titan = 82.599 vs mean 125.747
  T.near(res.fom.ratios[1], 75.45, 1e-3, "P1 ratio")
  T.near(res.fom.fom, 82.599, 1e-4, "FOM (harmonic)")
  T.near(res.fom.mean_ratio, 125.747, 1e-4, "arithmetic mean of the ratios")
  -- CANDLE table 'Means' row: P100 (2.9x) is the harmonic mean of its 7 measured ratios,
  -- V100 (6x) the arithmetic mean (hand check: 42.0 / 7 = 6.0)
  T.eq(res.means.P100, "harmonic", "P100 mean")
  T.eq(res.means.V100, "arithmetic", "V100 mean")
end)

T.test("P1B3: the parameter count and the profile's matmul time", function()
  -- CANDLE table: P1B3 has 30,088,701 parameters (dense 29532-1000-500-100-50-1 with biases)
  T.eq(res.p1b3_params, 30088701, "P1B3 parameters")
  -- the profile's 13 matmul lines sum to its MatMul total, 115.52 ms
  T.near(res.p1b3_matmul_ms, 115.52, 1e-3, "matmul ms")
  assert(res.p1b3_ratio["V100-SXM2-16GB"] > 1, "a V100 step is predicted faster than a K20X's")
end)

T.test("CNN tables 2-4 and DAWNBench", function()
  -- Table 4: AlexNet weights & biases 233 (MiB), VGG 528; Table 3: VGG 15503M MACs
  T.near(res.cnn.AlexNet.mib, 233, 0.01, "AlexNet MiB")
  T.near(res.cnn.VGGNet.mib, 528, 0.01, "VGG MiB")
  T.near(res.cnn.VGGNet.macs, 15503e6, 0.01, "VGG MACs")
  -- DAWNBench: 8 data-parallel GK210s at b=32 each cannot beat 8x one GK210's roofline
  -- throughput (perfect scaling) and must lose something to the all-reduce of ResNet-152's
  -- gradients over PCIe (QA: replaces checks of the notebook's own constants)
  local k80 = dlb.hw.get("K80")
  local gk = k80:with { peak = { fp32 = k80.peak.fp32 / 2, fp64 = k80.peak.fp64 / 2 }, mem = k80.mem / 2,
    mem_bw = k80.mem_bw / 2 }
  local one = 32 / dlb.roofline.time(dlb.models.resnet { depth = 152 }:stats { b = 32 }, gk).time
  assert(res.dawn.throughput < 8 * one and res.dawn.throughput > 4 * one,
    string.format("8 GK210: %.1f images/s vs 8 x %.1f", res.dawn.throughput, one))
  -- 90 epochs of ImageNet-1k's 1,281,167 images at that throughput
  T.near(res.dawn.hours, 90 * 1281167 / res.dawn.throughput / 3600, 1e-9, "hours")
  -- the CANDLE table's KNL column (0.67x) is the arithmetic mean of its 7 ratios: 4.75 / 7 = 0.68
  T.eq(res.means.KNL, "arithmetic", "KNL mean")
  assert(text:find("The table mixes means: P100: the harmonic mean; V100 and KNL: the arithmetic mean", 1, true),
    "the conclusion follows the three checks")
  assert(text:find("b=32 each, ASSUMED", 1, true) and text:find("90 epochs (ASSUMED", 1, true), "assumptions labelled")
  assert(text:find("predicted (roofline model), not measured", 1, true), "predictions labelled")
  NB.png("out/lecture_p1b3_ratio.png")
end)

T.done()
