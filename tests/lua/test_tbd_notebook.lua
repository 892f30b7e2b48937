-- test_tbd_notebook.lua — notebooks/tbd.lua runs under this backend, prints predictions of
-- TBD's (seeds/001) Figs. 4-9 and a verdict for each of its 12 observations, and writes
-- its figures.
local T = require "harness"
local NB = require "notebook"

local text, res = NB.run("tbd")

T.test("12 observations, each with a verdict from our numbers", function()
  local n = 0
  for _, l in ipairs(res.verdicts) do
    assert(l:match("^(%u+)") == "AGREE" or l:match("^(%u+)") == "PARTLY" or l:match("^(%u+)") == "DISAGREE", l)
    n = n + 1
  end
  T.eq(n, 12, "one verdict per observation (TBD Obs. 1-12)")
  for i = 1, 12 do assert(text:find("Obs " .. i .. " ", 1, true), "Obs " .. i) end
  assert(text:find("predicted (roofline model), not measured", 1, true), "predictions are labelled")
end)

T.test("values against the seed", function()
  -- Faster R-CNN, one image per step on the P4000: TBD IV-B1 measures 2.3 images/s; ours
  -- from the zoo's graph (ResNet-101 trunk, 600x1000) is within 30% (2.65 when written)
  T.near(res.frcnn.thr, 2.3, 0.3, "Faster R-CNN images/s")
  -- Obs 11: feature maps scale linearly with batch (Fig. 8): exactly 2x per doubling in a graph
  local m = res.models.resnet50
  local a, b = m.rows[#m.rows - 1], m.rows[#m.rows]
  T.near(tonumber(b.breakdown.activations) / tonumber(a.breakdown.activations), 2, 0.02, "ResNet-50 fmaps")
  -- Table IV: the P4000 has 8 GB: ResNet-50 fits up to batch 64 in the graph's minimal footprint
  T.eq(m.maxb, 64, "ResNet-50 largest batch in 8 GB")
  -- Obs 12: one machine of 4 P4000s over PCIe beats 2 machines x 1 GPU over 1 Gb/s Ethernet
  local r = res.fig9.resnet50[32]
  assert(r.eth[4] < r.eth[1], "two machines over Ethernet are slower than one GPU")
  assert(r.ib[6] > 1.8 * r.eth[3], "InfiniBand scales to 8 GPUs")
end)

T.test("figures", function()
  for _, f in ipairs { "tbd_fig4_throughput", "tbd_fig5_gpu_util", "tbd_fig6_fp32_util",
                       "tbd_fig7_titan_xp", "tbd_fig8_memory", "tbd_fig9_scaling" } do
    NB.png("out/" .. f .. ".png")
  end
end)

T.done()
