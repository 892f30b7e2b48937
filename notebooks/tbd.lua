-- tbd.lua — TBD (Zhu et al., "Benchmarking and Analyzing Deep Neural Network Training",
-- seeds/001) on PREDICTIONS of an analytical model: its eight models from the zoo, each
-- training step analysed by the graph engine and timed op by op on the roofline of the
-- Quadro P4000 and the TITAN Xp (Table IV, in the catalogue with sources), then the paper's
-- figures and a verdict for each of its 12 observations computed from our numbers:
--   Fig. 4  throughput vs mini-batch on the P4000     Fig. 7  P4000 vs TITAN Xp
--   Fig. 5  GPU compute utilisation (busy fraction)   Fig. 8  memory breakdown (5 kinds)
--   Fig. 6  FP32 utilisation while busy               Fig. 9  multi-GPU / two machines
--   dlbench run notebooks/tbd.lua [outdir]     (default out/; a few seconds)
--
-- What the model has and what it has not (read before the verdicts):
--   * kernel time: each op of the training step at its roofline bound, min(peak x 0.8,
--     intensity x bw x 0.7) (Hestness 5.2's achievable fractions, the catalogue default);
--   * GPU idle time: the host-side model of issue [19] (dlb_timeline, the one per-op rule of
--     dlb.roofline.time): the host issues op after op at DISPATCH seconds each (TF 1.3 /
--     MXNet 0.11 run each op from C++ executors at some microseconds per op; TBD Obs. 4
--     "invoking and finishing small kernels"), the GPU starts an op when it is free and the
--     op is issued, so a long kernel lets the host run ahead and short kernels behind it
--     still wait. DISPATCH is ASSUMED (8 us), not measured; the sensitivity is printed.
--     TBD's GPU utilisation (eq. 1) is busy / (busy + the device's idle time, host_idle).
--     (Before issue [19] this notebook had its own floor, sum(kernel) / sum(max(kernel,
--     DISPATCH)), with no running ahead; Obs 4, 5, 9 were evaluated on it.)
--   * FP32 utilisation (eq. 2): FLOPs / (peak x busy time);
--   * memory: the graph's minimal footprint (best topological order) split as TBD's Fig. 8:
--     weights, weight gradients, feature maps (activations kept for backward), workspace,
--     dynamic (optimizer state, which TBD says MXNet allocates during the iterations);
--   * no framework (TensorFlow / MXNet / CNTK) differences, no cuDNN algorithm choice, no
--     data loading, no CPU time.
local dlb = require "dlbench"
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")
local P = dlb.parallel

local nb = require "dlbench.notebook"
local outdir = nb.outdir(arg)
local SHORT = "predicted (roofline model), not measured"
local DISPATCH = 8e-6 -- s per op, ASSUMED framework dispatch floor (see above)

local p4000 = dlb.hw.get("Quadro-P4000")
local titan = dlb.hw.get("TITAN-Xp")
print("== TBD (seeds/001) predicted with dlbench: " .. SHORT)
for _, d in ipairs { p4000, titan } do
  print(string.format("  %-13s %5.2f TFLOP/s fp32 (%s), %5.1f GB/s, %2.0f GB, %3.0f W", d.name,
    d.peak.fp32 / 1e12, d.source.peak, d.mem_bw / 1e9, d.mem / 1e9, d.power))
end
print(string.format("  GPU idle model: %.0f us dispatch floor per op (ASSUMED); kernels at %.0f%% of peak FLOP/s, %.0f%% of bandwidth "
  .. "(ASSUMED: the catalogue's default achievable fractions, not fitted to TBD)", DISPATCH * 1e6,
  100 * p4000.flops_eff, 100 * p4000.bw_eff))

-- The eight models of Table II (Faster R-CNN at batch 1 only, as in the paper). `unit`
-- names what one sample is; `per` converts samples to TBD's throughput unit (Deep Speech 2:
-- seconds of audio, 3 s per utterance at the zoo's 300 frames of 10 ms).
local MODELS = {
  { key = "resnet50", name = "ResNet-50", build = function() return dlb.models.resnet { depth = 50 } end,
    unit = "images/s", kind = "cnn" },
  { key = "inception", name = "Inception-v3", build = function() return dlb.models.inception_v3 {} end,
    unit = "images/s", kind = "cnn" },
  { key = "seq2seq", name = "Seq2Seq", build = function() return dlb.models.seq2seq {} end,
    unit = "sentences/s", kind = "lstm" },
  { key = "transformer", name = "Transformer", build = function() return dlb.models.transformer {} end,
    unit = "sentences/s", kind = "attention" },
  { key = "ds2", name = "Deep Speech 2", build = function() return dlb.models.deepspeech2 {} end,
    unit = "audio s/s", per = 3, kind = "rnn" },
  { key = "wgan", name = "WGAN", build = function() return dlb.models.wgan {} end,
    unit = "images/s", kind = "cnn" },
  { key = "a3c", name = "A3C", build = function() return dlb.models.a3c {} end,
    unit = "frames/s", kind = "cnn" },
}
local BATCHES = { 1, 2, 4, 8, 16, 32, 64, 128, 256 }

-- One prediction: a graph's step at batch b on device hw.
local function predict(g, b, hw)
  local s = g:stats { b = b }
  local r = dlb.roofline.time(s, hw:with { host_op = DISPATCH }, { detail = true })
  local busy = 0
  for _, t in ipairs(r.op_time) do busy = busy + t end
  local wall = busy + r.per_op.host_idle
  return { b = b, stats = s, roof = r, busy = busy, wall = wall, gpu_util = busy / wall,
    fp32_util = s.flops / (r.peak * busy), fits = r.fits, footprint = s.footprint,
    breakdown = s.breakdown, nops = s.nops }
end

-- Fig. 4-6 data: every model over the batches that fit the P4000's 8 GB.
local res = {}
print("\n== Fig. 4-6: throughput, GPU utilisation, FP32 utilisation on the Quadro P4000 (" .. SHORT .. ")")
print(string.format("%-14s %5s %12s %-12s %9s %9s %8s %7s", "model", "batch", "throughput", "unit",
  "GPU util", "FP32 util", "step ms", "mem GB"))
for _, m in ipairs(MODELS) do
  local g = m.build()
  m.graph = g
  local rows = {}
  for _, b in ipairs(BATCHES) do
    local p = predict(g, b, p4000)
    if not p.fits then m.oom = b; break end
    p.thr = b * (m.per or 1) / p.wall
    rows[#rows + 1] = p
    print(string.format("%-14s %5d %12.1f %-12s %8.1f%% %8.1f%% %8.2f %7.2f", m.name, b, p.thr, m.unit,
      100 * p.gpu_util, 100 * p.fp32_util, 1e3 * p.wall, p.footprint / 1e9))
  end
  m.rows = rows
  m.maxb = rows[#rows].b
  res[m.key] = m
end
-- Faster R-CNN: one image per iteration on one GPU (TBD IV-B1)
local frcnn = predict(dlb.models.faster_rcnn {}, 1, p4000)
frcnn.thr = 1 / frcnn.wall
print(string.format("%-14s %5d %12.2f %-12s %8.1f%% %8.1f%% %8.2f %7.2f   TBD: 2.3 images/s, GPU util 89.4%% (TF) / 90.3%% (MXNet), FP32 util 58.9%% / 70.9%%",
  "Faster R-CNN", 1, frcnn.thr, "images/s", 100 * frcnn.gpu_util, 100 * frcnn.fp32_util,
  1e3 * frcnn.wall, frcnn.footprint / 1e9))
print("Largest batch that fits 8 GB (powers of two; our footprint is the graph's minimum, frameworks keep more):")
for _, m in ipairs(MODELS) do
  print(string.format("  %-14s %4d%s", m.name, m.maxb, m.oom and string.format(" (batch %d needs more than 8 GB)", m.oom) or " (the largest swept)"))
end
do
  local s2s = res.seq2seq
  local function at(m, b) for _, p in ipairs(m.rows) do if p.b == b then return p end end end
  local p128, p64 = at(s2s, 128), at(s2s, 64)
  print(string.format("Seq2Seq: ours %.0f sentences/s at batch 128, %.0f at 64; TBD: TensorFlow NMT 365 at 128, MXNet Sockeye 229 at 64",
    p128 and p128.thr or 0 / 0, p64 and p64.thr or 0 / 0))
end
do -- the host's cost per op is an assumption: how much hangs on it (the same rule, re-timed)
  local parts = {}
  local p = res.seq2seq.rows[#res.seq2seq.rows]
  for _, d in ipairs { 2e-6, 4e-6, 8e-6, 16e-6, 64e-6 } do
    local r = dlb.roofline.time(p.stats, p4000:with { host_op = d })
    parts[#parts + 1] = string.format("%.0f us: %.0f%%", d * 1e6,
      100 * p.busy / (p.busy + r.per_op.host_idle))
  end
  print("Sensitivity of Seq2Seq's GPU utilisation at its largest batch to the host's seconds per op: "
    .. table.concat(parts, ", "))
end

local function save(f, name) return nb.save(f, outdir, name) end

local function series(m, field)
  local xs, ys = {}, {}
  for i, p in ipairs(m.rows) do xs[i], ys[i] = p.b, p[field] end
  return xs, ys
end
local function grid(title, field, ylabel, scale)
  local f = dlb.plot.figure { width = 8, height = 4, rows = 2, cols = 4, title = title }
  for i, m in ipairs(MODELS) do
    local ax = f:panel(math.floor((i - 1) / 4) + 1, (i - 1) % 4 + 1)
    local xs, ys = series(m, field)
    if scale then for k = 1, #ys do ys[k] = ys[k] * scale end end
    ax:line { x = xs, y = ys, marker = "circle" }
    ax.xscale = "log"
    ax.title = m.name
    ax.xlabel = "mini-batch"
    if field ~= "thr" then ax.ylim = { 0, 100 } end
    if field == "thr" then ax.ylabel = m.unit elseif (i - 1) % 4 == 0 then ax.ylabel = ylabel end
  end
  local ax = f:panel(2, 4)
  if field == "thr" then
    ax:bar { labels = { "ours (pred.)", "TBD (meas.)" }, values = { frcnn.thr, 2.3 } }
    ax.ylabel = "images/s"
  elseif field == "gpu_util" then
    ax:bar { labels = { "ours (pred.)", "TF", "MXNet" }, values = { 100 * frcnn.gpu_util, 89.4, 90.3 } }
    ax.ylim = { 0, 100 }
  else
    ax:bar { labels = { "ours (pred.)", "TF", "MXNet" }, values = { 100 * frcnn.fp32_util, 58.9, 70.9 } }
    ax.ylim = { 0, 100 }
  end
  ax.title = "Faster R-CNN, batch 1"
  return f
end
save(grid("Fig. 4: training throughput on the Quadro P4000, " .. SHORT, "thr", "samples/s"),
  "tbd_fig4_throughput.png")
save(grid("Fig. 5: GPU compute utilisation (%), " .. SHORT, "gpu_util", "GPU util %", 100),
  "tbd_fig5_gpu_util.png")
save(grid("Fig. 6: GPU FP32 utilisation (%), " .. SHORT, "fp32_util", "FP32 util %", 100),
  "tbd_fig6_fp32_util.png")

------------------------------------------------------------------------------------------
-- Fig. 7: TITAN Xp vs P4000 at each model's largest batch that fits the P4000
print("\n== Fig. 7: TITAN Xp vs Quadro P4000 at the same batch (" .. SHORT .. ")")
print(string.format("%-14s %5s %10s %14s %14s", "model", "batch", "speedup", "GPU util P/T", "FP32 util P/T"))
local fig7 = { labels = {}, speed = {}, gu = { {}, {} }, fu = { {}, {} } }
for i, m in ipairs(MODELS) do
  local p = m.rows[#m.rows]
  local t = predict(m.graph, p.b, titan)
  t.thr = p.b * (m.per or 1) / t.wall
  m.titan = t
  print(string.format("%-14s %5d %9.2fx %6.1f/%5.1f%% %6.1f/%5.1f%%", m.name, p.b, t.thr / p.thr,
    100 * p.gpu_util, 100 * t.gpu_util, 100 * p.fp32_util, 100 * t.fp32_util))
  fig7.labels[i], fig7.speed[i] = m.name, t.thr / p.thr
  fig7.gu[1][i], fig7.gu[2][i] = 100 * p.gpu_util, 100 * t.gpu_util
  fig7.fu[1][i], fig7.fu[2][i] = 100 * p.fp32_util, 100 * t.fp32_util
end
do
  local f = dlb.plot.figure { width = 8, height = 3, cols = 3,
    title = "Fig. 7: TITAN Xp vs Quadro P4000, " .. SHORT }
  local a = f:panel(1, 1)
  a:bar { labels = fig7.labels, values = fig7.speed }
  a.title, a.ylabel = "throughput, TITAN Xp / P4000", "speedup"
  local b = f:panel(1, 2)
  b:bar { labels = fig7.labels, values = fig7.gu, mode = "grouped", stacks = { "P4000", "TITAN Xp" } }
  b.title, b.ylabel, b.ylim = "GPU utilisation", "%", { 0, 130 }
  b.legend = "upper right"
  local c = f:panel(1, 3)
  c:bar { labels = fig7.labels, values = fig7.fu, mode = "grouped", stacks = { "P4000", "TITAN Xp" } }
  c.title, c.ylim = "FP32 utilisation", { 0, 130 }
  c.legend = "upper right"
  save(f, "tbd_fig7_titan_xp.png")
end

------------------------------------------------------------------------------------------
-- Fig. 8: memory breakdown at two batches per model (the largest fitting and a quarter of it)
print("\n== Fig. 8: memory breakdown, GB (" .. SHORT .. "; minimal footprint of the graph)")
print(string.format("%-20s %8s %9s %12s %10s %8s %8s %8s", "model (batch)", "weights", "gradients",
  "feature maps", "workspace", "dynamic", "total", "fmaps %"))
local KINDS8 = { { "weights", "weights" }, { "gradients", "gradients" }, { "activations", "feature maps" },
  { "workspace", "workspace" }, { "optimizer", "dynamic" } }
local fig8 = { labels = {}, values = { {}, {}, {}, {}, {} } }
local shares = {}
for _, m in ipairs(MODELS) do
  local pts = { m.rows[#m.rows] }
  local q = math.max(1, m.maxb / 4)
  for _, p in ipairs(m.rows) do if p.b == q and q ~= m.maxb then table.insert(pts, 1, p) end end
  for _, p in ipairs(pts) do
    local bd, tot = p.breakdown, 0
    local v = {}
    for k, kk in ipairs(KINDS8) do v[k] = tonumber(bd[kk[1]]) or 0; tot = tot + v[k] end
    local label = string.format("%s (%d)", m.name, p.b)
    print(string.format("%-20s %8.3f %9.3f %12.3f %10.3f %8.3f %8.3f %7.1f%%", label, v[1] / 1e9,
      v[2] / 1e9, v[3] / 1e9, v[4] / 1e9, v[5] / 1e9, tot / 1e9, 100 * v[3] / tot))
    local i = #fig8.labels + 1
    fig8.labels[i] = label
    for k = 1, 5 do fig8.values[k][i] = v[k] / 1e9 end
    p.fmap_share = v[3] / tot
  end
  shares[m.key] = m.rows[#m.rows].fmap_share
end
print("  Weight gradients: our minimal schedule applies each weight's update as soon as its gradient is complete and")
print("  frees it, so the peak holds almost none (Deep Speech 2's accumulate over 150 unrolled steps and live longer);")
print("  the frameworks TBD profiled allocate them statically (TBD III-D). Dynamic = optimizer state (momentum, Adam).")
do
  local f = dlb.plot.figure { width = 8, height = 3.4,
    title = "Fig. 8: GPU memory breakdown (mini-batch in parentheses), " .. SHORT }
  f:bar { labels = fig8.labels, values = fig8.values, mode = "stacked",
    stacks = { "weights", "weight gradients", "feature maps", "workspace", "dynamic" } }
  f.ylabel = "GB"
  f.legend = "outside"
  save(f, "tbd_fig8_memory.png")
end

------------------------------------------------------------------------------------------
-- Fig. 9: ResNet-50 and Inception-v3 data parallel, per-GPU batch 8/16/32: one machine with
-- 1, 2, 4 GPUs (PCIe 3.0, 128 Gb/s), two machines over 1 Gb/s Ethernet or 100 Gb/s
-- InfiniBand (TBD IV-A). A hierarchical ring allreduce (the frameworks used parameter
-- servers; a flat scheme sends more over the slow link, see hestness_parallel.lua).
print("\n== Fig. 9: multi-GPU and two-machine data parallelism, images/s (" .. SHORT .. ")")
local PCIE = { bw = 16e9, latency = 2e-6 }
local NETS = { ethernet = { bw = 0.125e9, latency = 50e-6 }, infiniband = { bw = 12.5e9, latency = 5e-6 } }
local CONFIGS = { { 1, 1 }, { 1, 2 }, { 1, 4 }, { 2, 1 }, { 2, 2 }, { 2, 4 } }
local fig9 = {}
print(string.format("  links: PCIe 3.0 %.0f GB/s (TBD IV-A's 128 Gb/s), Ethernet %.3f GB/s (1 Gb/s), InfiniBand %.1f GB/s (100 Gb/s); "
  .. "latencies %.0f / %.0f / %.0f us (ASSUMED)", PCIE.bw / 1e9, NETS.ethernet.bw / 1e9, NETS.infiniband.bw / 1e9,
  PCIE.latency * 1e6, NETS.ethernet.latency * 1e6, NETS.infiniband.latency * 1e6))
print(string.format("%-13s %4s %-9s %10s %10s", "model", "b/GPU", "machines", "Ethernet", "InfiniBand"))
for _, key in ipairs { "resnet50", "inception" } do
  local m = res[key]
  fig9[key] = {}
  for _, b in ipairs { 8, 16, 32 } do
    local s = m.graph:stats { b = b }
    local line = { eth = {}, ib = {} }
    for ci, c in ipairs(CONFIGS) do
      local nodes, per = c[1], c[2]
      local out = {}
      for net, link in pairs(NETS) do
        local cl = P.cluster { per_node = per, nodes = nodes, intra = PCIE, inter = link }
        local r = P.data { stats = s, hw = p4000, workers = nodes * per, subbatch = b, cluster = cl }
        out[net] = r.throughput
      end
      line.eth[ci], line.ib[ci] = out.ethernet, out.infiniband
      print(string.format("%-13s %4d %dM x %dG %10.1f %10.1f", m.name, b, nodes, per, out.ethernet, out.infiniband))
    end
    fig9[key][b] = line
  end
end
do
  local f = dlb.plot.figure { width = 8, height = 3, cols = 2,
    title = "Fig. 9: data parallel on P4000s, 1 Gb/s Ethernet vs 100 Gb/s InfiniBand, " .. SHORT }
  local labels = {}
  for i, c in ipairs(CONFIGS) do labels[i] = string.format("%dM%dG", c[1], c[2]) end
  for i, key in ipairs { "resnet50", "inception" } do
    local ax = f:panel(1, i)
    local vals, names = {}, {}
    for _, b in ipairs { 8, 16, 32 } do
      vals[#vals + 1] = fig9[key][b].eth
      names[#names + 1] = "Eth, b=" .. b
    end
    vals[#vals + 1] = fig9[key][32].ib
    names[#names + 1] = "IB, b=32"
    ax:bar { labels = labels, values = vals, mode = "grouped", stacks = names }
    ax.title = res[key].name
    ax.ylabel = "images/s"
    ax.legend = "upper left"
  end
  save(f, "tbd_fig9_scaling.png")
end

------------------------------------------------------------------------------------------
-- The 12 observations, each checked against our numbers
print("\n== TBD's observations against our predictions ==")
local verdicts = nb.verdicts()
local function verdict(v, obs, claim, ours) return verdicts:add(v, obs, claim, ours) end
local function first_last(m, f) return m.rows[1][f], m.rows[#m.rows][f] end
local function at(m, b) for _, p in ipairs(m.rows) do if p.b == b then return p end end end
local function monotone(m, f)
  for i = 2, #m.rows do if m.rows[i][f] < m.rows[i - 1][f] * (1 - 1e-9) then return false end end
  return true
end
-- the smallest / largest of a list (math.min(unpack(t)) would do, but `a and f() or g()`
-- keeps only f()'s first value)
local function minof(t) local v = t[1]; for i = 2, #t do v = math.min(v, t[i]) end; return v end
local function maxof(t) local v = t[1]; for i = 2, #t do v = math.max(v, t[i]) end; return v end
local function last(m) return m.rows[#m.rows] end
local function all_models(pred)
  local bad = {}
  for _, m in ipairs(MODELS) do if not pred(m) then bad[#bad + 1] = m.name end end
  return bad
end

do -- Obs 1
  local bad = all_models(function(m) return monotone(m, "thr") end)
  verdict(#bad == 0 and "AGREE" or "PARTLY", "Obs 1 (Fig 4)", "throughput increases with mini-batch for all models",
    #bad == 0 and string.format("throughput rises with batch for all %d swept models", #MODELS) or ("not monotone for " .. table.concat(bad, ", ")))
end
local gain = {}
do -- Obs 2: relative gain of the last doubling
  for _, m in ipairs(MODELS) do
    local n = #m.rows
    gain[m.key] = n > 1 and m.rows[n].thr / m.rows[n - 1].thr - 1 or 0
  end
  local i16, i32 = at(res.inception, 16), at(res.inception, 32)
  local inc = (i16 and i32) and i32.thr / i16.thr - 1 or 0 / 0
  local s64, s128 = at(res.seq2seq, 64), at(res.seq2seq, 128)
  local nmt = (s64 and s128) and s128.thr / s64.thr - 1 or 0 / 0
  local rnn_unsat = gain.seq2seq > 0.1 and gain.ds2 > 0.1
  local cnn_sat = inc < 0.1
  verdict((rnn_unsat and cnn_sat) and "AGREE" or ((rnn_unsat or cnn_sat) and "PARTLY" or "DISAGREE"), "Obs 2 (Fig 4)",
    "RNN models are not saturated within memory (NMT 64->128 +25%); CNNs saturate (Inception 16->32 < 10%)",
    string.format("last doubling: Seq2Seq %+.0f%% (64->128: %+.0f%%), Deep Speech 2 %+.0f%%; Inception 16->32 %+.0f%%, ResNet-50 %+.0f%%",
      100 * gain.seq2seq, 100 * nmt, 100 * gain.ds2, 100 * inc, 100 * gain.resnet50))
end
do -- Obs 3: frameworks: we have one implementation per model, so the framework ranking is
  -- not ours to check. What we can check is the memory side of the claim: TF's Seq2Seq fits
  -- batch 128 in 8 GB, MXNet's 64. Our footprint is the graph's minimum, so it must fit at
  -- least the larger of the two; if it did not, our memory model would count more than a
  -- real framework kept (DISAGREE).
  local mb = res.seq2seq.maxb
  local fu = {}
  for i, m in ipairs(MODELS) do fu[i] = last(m).fp32_util end
  verdict(mb >= 128 and "PARTLY" or "DISAGREE", "Obs 3 (Fig 4)",
    "framework rankings differ by application; TF Seq2Seq fits batch 128, MXNet 64 in 8 GB",
    string.format("no framework model: one prediction per model, so only the spread across applications is ours "
      .. "(predicted FP32 utilisation at the largest batch from %.0f%% to %.0f%%); our minimal footprint fits Seq2Seq up to batch %d%s",
      100 * minof(fu), 100 * maxof(fu), mb, mb >= 128 and ", at least TF's 128: the frameworks' allocators keep more than the minimum"
        or ", less than TF's 128: our memory model counts more than TensorFlow kept"))
end
do -- Obs 4
  local bad = all_models(function(m) return monotone(m, "gpu_util") end)
  local r0, r1 = first_last(res.resnet50, "gpu_util")
  verdict(#bad == 0 and "AGREE" or "PARTLY", "Obs 4 (Fig 5)", "GPU compute utilisation rises with mini-batch (longer kernels, fewer idle gaps)",
    string.format("%s; ResNet-50 %.0f%% at batch 1 -> %.0f%% at %d (dispatch floor %.0f us, ASSUMED)",
      #bad == 0 and "rises for all models" or ("not for " .. table.concat(bad, ", ")), 100 * r0, 100 * r1,
      res.resnet50.maxb, DISPATCH * 1e6))
end
do -- Obs 5
  local s2s = res.seq2seq
  local lstm = last(s2s).gpu_util
  local others = {}
  for _, k in ipairs { "resnet50", "inception", "transformer", "wgan", "ds2" } do
    others[#others + 1] = last(res[k]).gpu_util
  end
  local lo = minof(others)
  local v = (lstm < 0.9 and lo >= 0.95) and "AGREE" or (lstm < lo - 0.02 and "PARTLY" or "DISAGREE")
  local from90 -- the smallest batch at which Seq2Seq's predicted GPU utilisation reaches 90%
  for _, p in ipairs(s2s.rows) do if not from90 and p.gpu_util >= 0.9 then from90 = p.b end end
  verdict(v, "Obs 5 (Fig 5)",
    "LSTM models keep GPU utilisation low even at their largest batch; Transformer and CNNs reach >= 95%",
    string.format("Seq2Seq %.0f%% at batch %d vs the lowest of CNNs/Transformer/DS2 %.0f%%, Transformer %.0f%%; "
      .. "Seq2Seq has %d ops per step against ResNet-50's %d: many small kernels, but at batch %d long enough to hide a "
      .. "%.0f us floor (ASSUMED); Seq2Seq reaches 90%% %s", 100 * lstm, s2s.maxb, 100 * lo,
      100 * last(res.transformer).gpu_util, s2s.rows[1].nops, res.resnet50.rows[1].nops, s2s.maxb, DISPATCH * 1e6,
      from90 and ("only from batch " .. from90) or "at no batch that fits"))
end
do -- Obs 6
  local bad = all_models(function(m) return monotone(m, "fp32_util") end)
  verdict(#bad == 0 and "AGREE" or "PARTLY", "Obs 6 (Fig 6)", "FP32 utilisation rises with mini-batch for all models",
    #bad == 0 and "rises for all models" or ("not monotone for " .. table.concat(bad, ", ")
      .. " (a roofline op at its compute bound stays at 80% however large the batch)"))
end
do -- Obs 7: the RNNs against every other (non-RNN) model, at each one's largest batch
  local rnn = math.max(last(res.seq2seq).fp32_util, last(res.ds2).fp32_util)
  local other, otherk = 1, nil
  for _, m in ipairs(MODELS) do
    if m.kind ~= "lstm" and m.kind ~= "rnn" and last(m).fp32_util < other then other, otherk = last(m).fp32_util, m.name end
  end
  verdict(rnn < other and "AGREE" or "DISAGREE", "Obs 7 (Fig 6)", "RNN models (Seq2Seq, Deep Speech 2) have lower FP32 utilisation than non-RNN models",
    string.format("largest batch: Seq2Seq %.0f%%, Deep Speech 2 %.0f%% vs the non-RNN models' lowest %.0f%% (%s); Seq2Seq at TBD's batch 128: %.0f%%. "
      .. "Our unrolled RNN steps re-read their weights from DRAM every time step, so they are memory-bound only at small "
      .. "batches; at 8 GB batches their matmuls reach the compute roof like the CNNs' convolutions",
      100 * last(res.seq2seq).fp32_util, 100 * last(res.ds2).fp32_util, 100 * other, otherk,
      100 * (at(res.seq2seq, 128) and at(res.seq2seq, 128).fp32_util or 0)))
end
do -- Obs 8: ResNet-50 at batch 32: op kinds with > 2% of the time and below-average FP32 utilisation
  local p = predict(res.resnet50.graph, 32, p4000)
  local kinds = p.roof.by_kind
  local avg = p.fp32_util
  local low = {}
  for k, g in pairs(kinds) do
    local u = g.time > 0 and g.flops / (g.time * p.roof.peak) or 0
    if g.share > 0.02 and u < avg then low[#low + 1] = { k, g.share, u } end
  end
  table.sort(low, function(a, b) return a[2] > b[2] end)
  local txt, has_bn = {}, false
  for i, l in ipairs(low) do
    if i <= 5 then txt[#txt + 1] = string.format("%s %.1f%% of time at %.0f%%", l[1], 100 * l[2], 100 * l[3]) end
    if l[1]:find("norm") or l[1]:find("batchnorm") then has_bn = true end
  end
  verdict(has_bn and "AGREE" or "PARTLY", "Obs 8 (Tables V-VI)",
    "long-running kernels with below-average FP32 utilisation exist even in ResNet-50; batch-norm kernels are the main ones",
    string.format("ResNet-50 b=32 (average %.0f%%): %s", 100 * avg, table.concat(txt, "; ")))
end
do -- Obs 9
  local faster, lower = 0, 0
  for _, m in ipairs(MODELS) do
    local p, t = m.rows[#m.rows], m.titan
    if t.thr > p.thr then faster = faster + 1 end
    if t.gpu_util < p.gpu_util then lower = lower + 1 end
  end
  verdict((faster == #MODELS and lower >= #MODELS / 2) and "AGREE" or "PARTLY", "Obs 9 (Fig 7)",
    "the TITAN Xp is faster (except Sockeye) but less well utilised than the P4000",
    string.format("faster for %d of %d models; lower GPU utilisation for %d (the same dispatch floor against "
      .. "kernels %.1fx shorter); FP32 utilisation while busy is the same by construction: the ridge points are %.1f and %.1f FLOP/B",
      faster, #MODELS, lower, titan.peak.fp32 / p4000.peak.fp32, p4000:ridge("fp32"), titan:ridge("fp32")))
end
do -- Obs 10
  local function quarter(m) -- the feature-map share at the Fig. 8 row of a quarter of the largest batch
    local q = at(m, math.max(1, m.maxb / 4))
    return q and q.fmap_share and string.format("%.0f%%", 100 * q.fmap_share) or "-"
  end
  local lo, hi, lok, hik = 1, 0, nil, nil
  for _, m in ipairs(MODELS) do
    local s = shares[m.key]
    if s < lo then lo, lok = s, m.name end
    if s > hi then hi, hik = s, m.name end
  end
  local dominant = 0
  for _, m in ipairs(MODELS) do if shares[m.key] > 0.5 then dominant = dominant + 1 end end
  verdict(dominant >= #MODELS - 1 and "AGREE" or "PARTLY", "Obs 10 (Fig 8)",
    "feature maps dominate memory: 62% (Deep Speech 2) to 89% (ResNet-50, Sockeye)",
    string.format("feature maps > 50%% for %d of %d models at their largest batch; from %.0f%% (%s) to %.0f%% (%s); ResNet-50 %.0f%%, Deep Speech 2 %.0f%%"
      .. " (at a quarter of that batch %s and %s: the shares depend on the batch, which TBD's Fig. 8 varies)",
      dominant, #MODELS, 100 * lo, lok, 100 * hi, hik, 100 * shares.resnet50, 100 * shares.ds2,
      quarter(res.resnet50), quarter(res.ds2)))
end
do -- Obs 11
  local ratios = {}
  local ok = true
  for _, m in ipairs(MODELS) do
    local a, b = at(m, math.max(1, m.maxb / 2)), m.rows[#m.rows]
    if a and a ~= b then
      local ra = (tonumber(b.breakdown.activations) or 0) / math.max(1, tonumber(a.breakdown.activations) or 0)
      ratios[#ratios + 1] = string.format("%s %.2f", m.name, ra)
      if math.abs(ra - 2) > 0.2 then ok = false end
    end
  end
  verdict(ok and "AGREE" or "PARTLY", "Obs 11 (Fig 8)", "feature-map memory scales almost linearly with mini-batch",
    "feature maps at the largest batch / at half of it: " .. table.concat(ratios, ", "))
end
do -- Obs 12: 1 -> 2 machines over Ethernet against the same GPUs in one machine
  local r = fig9.resnet50[32]
  local g1, g2m_eth, g2 = r.eth[1], r.eth[4], r.eth[2]  -- 1M1G, 2M1G (Ethernet), 1M2G
  local one, two_eth, two_ib = r.eth[3], r.eth[6], r.ib[6]
  local degrade = g2m_eth < g1 and two_eth < 1.5 * one
  verdict((degrade and two_ib > 1.8 * one) and "AGREE" or "PARTLY", "Obs 12 (Fig 9)",
    "two machines over 1 Gb/s Ethernet degrade; one machine over PCIe and InfiniBand scale well",
    string.format("ResNet-50 b=32/GPU: 1 GPU %.0f images/s, 2 GPUs in one machine %.0f, in two machines over Ethernet %.0f; "
      .. "1 x 4 GPUs %.0f, 2 x 4 over Ethernet %.0f (x%.2f for twice the GPUs; hierarchical allreduce), over InfiniBand %.0f",
      g1, g2, g2m_eth, one, two_eth, two_eth / one, two_ib))
end
print()
verdicts:summary(" (of 12; all from predictions, not measurements)")
do -- issue [19]: Fig. 5 re-evaluated with the host-side model, what changed and why
  local s2s = last(res.seq2seq)
  print(string.format("\nIssue [19], Fig. 5 with the host-side model (dlb_timeline) instead of the per-op floor "
    .. "sum(max(kernel, %.0f us)): the host now runs ahead while a long kernel runs, so only short "
    .. "kernels queued behind short ones wait; GPU utilisation can only rise against the old floor.", DISPATCH * 1e6))
  print("  Obs 4: AGREE -> PARTLY. Mechanism: run-ahead makes a model's idle time depend on the order of its "
    .. "long and short kernels, not on each short kernel alone; A3C's utilisation dips by less than 0.1 "
    .. "point from batch 1 to 2, which the strict monotonicity test counts.")
  print(string.format("  Obs 5 and Obs 7: unchanged (DISAGREE). Seq2Seq's kernels at batch %d average %.0f us "
    .. "(%d ops, %.0f ms busy), far above an %.0f us host cost per op, so the host never starves them; "
    .. "it would take ~64 us per op to bring it to 89%% (the sensitivity above). TBD's low LSTM "
    .. "utilisation is not explained by per-op dispatch at the ASSUMED cost; Obs 7 is about FP32 "
    .. "utilisation while busy, which the host model does not touch.", s2s.b,
    1e6 * s2s.busy / s2s.nops, s2s.nops, 1e3 * s2s.busy, DISPATCH * 1e6))
end

return { models = res, frcnn = frcnn, verdicts = verdicts, fig9 = fig9, dispatch = DISPATCH }
