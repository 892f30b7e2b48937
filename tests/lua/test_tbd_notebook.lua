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

-- QA regressions: the numbers inside the verdict texts are the notebook's own, not a first
-- element or a string written when the notebook was (math.min(a and f() or g()) took only
-- ResNet-50's utilisation as "the lowest"; "reaches 90% only from batch 128" was printed
-- while the table showed 89.8% at 128; Obs 3's spread left out WGAN's 66%).
local function line(obs)
  for _, l in ipairs(res.verdicts) do if l:find(obs .. " ", 1, true) then return l end end
  error("no verdict for " .. obs)
end
local function last(key) local m = res.models[key]; return m.rows[#m.rows] end
T.test("verdict texts carry the computed numbers", function()
  local lo = 1
  for _, k in ipairs { "resnet50", "inception", "transformer", "wgan", "ds2" } do lo = math.min(lo, last(k).gpu_util) end
  local l5 = line("Obs 5")
  T.eq(tonumber(l5:match("lowest of CNNs/Transformer/DS2 (%d+)%%")), math.floor(100 * lo + 0.5), "Obs 5 lowest")
  local from90
  for _, p in ipairs(res.models.seq2seq.rows) do if not from90 and p.gpu_util >= 0.9 then from90 = p.b end end
  T.eq(tonumber(l5:match("reaches 90%% only from batch (%d+)")), from90, "Obs 5 first batch at 90%")
  local fmin, fmax = 1, 0
  for _, m in pairs(res.models) do
    local u = m.rows[#m.rows].fp32_util
    fmin, fmax = math.min(fmin, u), math.max(fmax, u)
  end
  local a, b = line("Obs 3"):match("largest batch from (%d+)%% to (%d+)%%")
  T.eq(tonumber(a), math.floor(100 * fmin + 0.5), "Obs 3 spread low")
  T.eq(tonumber(b), math.floor(100 * fmax + 0.5), "Obs 3 spread high")
  -- Obs 3's verdict follows from our footprint: PARTLY when the minimal footprint fits TF's
  -- batch 128 in 8 GB (TBD IV-B1), DISAGREE when it does not
  T.eq(line("Obs 3"):match("^(%u+)"), res.models.seq2seq.maxb >= 128 and "PARTLY" or "DISAGREE", "Obs 3 verdict")
  -- Obs 10: the Fig. 8 rows at a quarter of the largest batch (ResNet-50 16, Deep Speech 2 16)
  local function q(key)
    local m = res.models[key]
    for _, p in ipairs(m.rows) do if p.b == m.maxb / 4 then return math.floor(100 * p.fmap_share + 0.5) end end
  end
  local r, d = line("Obs 10"):match("at a quarter of that batch (%d+)%% and (%d+)%%")
  T.eq(tonumber(r), q("resnet50"), "ResNet-50 quarter-batch share")
  T.eq(tonumber(d), q("ds2"), "Deep Speech 2 quarter-batch share")
  assert(text:find("(ASSUMED: the catalogue's default achievable fractions", 1, true), "efficiencies labelled")
  assert(text:find("us (ASSUMED)", 1, true), "link latencies labelled")
end)

T.test("figures", function()
  for _, f in ipairs { "tbd_fig4_throughput", "tbd_fig5_gpu_util", "tbd_fig6_fp32_util",
                       "tbd_fig7_titan_xp", "tbd_fig8_memory", "tbd_fig9_scaling" } do
    NB.png("out/" .. f .. ".png")
  end
end)

T.done()
