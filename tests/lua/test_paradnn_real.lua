-- test_paradnn_real.lua — the real-workload reference points notebooks/paradnn.lua draws from
-- the zoo (seeds/004 §2.2: Transformer, ResNet-50, RetinaNet, DenseNet, MobileNet,
-- SqueezeNet): their sizes against the published parameter counts and the roofline bound on
-- their TPU/GPU speedup.
local T = require "harness"
local dlb = require "dlbench"

T.test("real workloads: published parameter counts", function()
  -- He et al. 2016: ResNet-50 25.6M; Vaswani et al. 2017 Table 3: Transformer big 213M
  -- (ours 213.9M with the 37000 vocabulary, docs/models.md); Iandola et al. 2016: SqueezeNet
  -- 1.2M (1.25M); Huang et al. 2017: DenseNet-121 8.0M; Lin et al. 2017: RetinaNet
  -- ResNet-50-FPN ~34M (torchvision 34.0M)
  local want = { { dlb.models.resnet { depth = 50 }, 25.6e6, 0.01 },
                 { dlb.models.transformer { size = "big" }, 213e6, 0.01 },
                 { dlb.models.squeezenet {}, 1.25e6, 0.05 },
                 { dlb.models.densenet {}, 8.0e6, 0.02 },
                 { dlb.models.retinanet {}, 34.0e6, 0.02 } }
  for _, w in ipairs(want) do
    local p = w[1]:stats { b = 1 }.params
    assert(math.abs(p / w[2] - 1) < w[3], string.format("%s: %.4g vs %.4g", w[1].name or "model", p, w[2]))
  end
end)

T.test("a roofline bounds the TPU/GPU speedup by the peak and bandwidth ratios", function()
  -- Table 3: TPU v2 board 180 TFLOP/s bf16, 2400 GB/s; V100 125 TFLOP/s fp16, 900 GB/s:
  -- no model can be more than max(1.44, 2.67)x faster on the TPU at the same efficiencies
  local pf = dlb.paradnn.platforms()
  local g = dlb.models.resnet { depth = 50 }
  local st = g:stats { b = 256, precision = "mixed" }
  local tpu = dlb.roofline.time(st, pf[1].hw)
  local gpu = dlb.roofline.time(st, pf[2].hw)
  local sp = gpu.time / tpu.time
  assert(sp > 1 and sp <= 2400 / 900 + 1e-9, "speedup " .. sp)
end)

T.done()
