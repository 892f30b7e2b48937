-- test_lecture_notebook.lua — notebooks/lecture.lua runs under this backend and reproduces
-- the lecture's (seeds/002) numbers: its FOM example, the P1B3 profile, the CNN tables.
local T = require "harness"
local NB = require "notebook"

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
  -- DAWNBench entry: 10 days 8:59:59 = 248.9997 h; the slide's product of speedups 1011x
  T.near(res.dawn.entry_hours, 249, 1e-3, "entry hours")
  T.near(res.combine.product, 1011, 1e-3, "1.25 x 3.1 x 3 x 29 x 3")
  assert(text:find("predicted (roofline model), not measured", 1, true), "predictions labelled")
  NB.png("out/lecture_p1b3_ratio.png")
end)

T.done()
