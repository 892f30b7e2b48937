-- tour.lua — a tour of dlbench: what the README's first command runs.
-- Each section shows one capability; figures go to out/, or to the folder given as its
-- argument (`dlbench run notebooks/tour.lua DIR`; created when missing).
local dlb = require "dlbench"
local outdir = require("dlbench.notebook").outdir(arg)   -- arg[1] or "out", created

print(string.format("dlbench %s on %s, backend %s", dlb.version(), _VERSION, dlb.backend))
print()

-- == section: graphs ==
-- Compute graphs: build a forward graph, let dlbench expand the training step and count it.
do
  local nn = require "dlbench.nn"
  local g = dlb.graph("mlp")
  local x = g:input("x", { "b", 784 })
  local h = g:relu(nn.linear(g, x, "h", { name = "fc1" }))
  g:loss(g:softmax_xent(nn.linear(g, h, 10, { name = "fc2" }), g:label("labels", { "b" })))
  local sym = g:stats{}
  print("MLP training-step FLOPs: " .. tostring(sym.flops))
  print("  at b=32, h=1024: " .. string.format("%.4g", sym.flops{ b = 32, h = 1024 }))
  g:summary{ b = 32, h = 1024, optimizer = "adam" }
  -- a picture of the forward graph (Graphviz DOT; rendered when `dot` is installed)
  -- written whole or not at all (the house's one writer; io.open left a torn file on a full
  -- disk and said nothing when it could not write)
  local dot, pdf = outdir .. "/tour_mlp.dot", outdir .. "/tour_mlp.pdf"
  local written, err = dlb.table.write_atomic(dot, g:dot())
  if not written then print("graph picture: not written: " .. tostring(err)) end
  if written then
    local q = require("dlbench.errors").shell_quote
    local ok = os.execute("command -v dot >/dev/null 2>&1 && dot -Tpdf " .. q(dot) .. " -o " .. q(pdf))
    print((ok == true or ok == 0) and ("graph picture: wrote " .. dot .. " and " .. pdf)
      or ("graph picture: wrote " .. dot .. " (install graphviz to render it)"))
  end
  -- Hestness et al. (seeds/000 §4.2): an LSTM LM's forward matmul FLOPs q(16h^2 l + 2hv)
  local lm = nn.lstm_lm{ batch = 1, steps = 4, layers = 2 }
  print("LSTM LM (q=4, l=2) forward matmul FLOPs: " .. tostring(lm:type_flops("matmul"))
    .. "; params " .. tostring(lm:stats{}.params))
  local s = lm:stats{ h = 1024, v = 10000, precision = "mixed", optimizer = "adam" }
  print(string.format("  h=1024, v=10000, mixed precision, adam: %.3g FLOP/step, footprint %.3g MB",
    s.flops, s.footprint / 1e6))
  print()
end
-- == end: graphs ==

-- == section: models ==
do
  print("== the model zoo (dlb.models.list() names all 27)")
  local M = dlb.models
  print(string.format("%-22s %16s %22s %12s", "model", "params", "train GFLOP/sample", "FLOP/param"))
  for _, c in ipairs {
    { "resnet-50", "resnet", { depth = 50 } }, { "inception_v3", "inception_v3", {} },
    { "mobilenet_v2", "mobilenet", {} }, { "bert-base (seq 128)", "bert", {} },
    { "gpt2 (seq 1024)", "gpt", {} }, { "vit-b/16", "vit", {} },
    { "llama-2-7b (seq 2048)", "llama", { seq = 2048 } }, { "word_lm (Hestness)", "word_lm", {} },
    { "paradnn.cnn", "paradnn.cnn", {} } } do
    local s = M.build(c[2], c[3]):stats { b = 1 }
    print(string.format("%-22s %16.0f %22.1f %12.0f", c[1], s.params, s.flops / 1e9, s.flops / s.params))
  end
  -- symbolic dims: a GPT-2 training step as a polynomial in batch b and sequence length q
  local f = M.gpt { seq = "q" }:stats {}.flops
  print("gpt2 training FLOPs = " .. tostring(f))
  print(string.format("  at b=8, q=1024: %.4g FLOPs", f { b = 8, q = 1024 }))
  print("Hestness et al. Table 2 from these graphs: dlbench run notebooks/hestness_compute.lua")
  print()
end
-- == end: models ==

-- == section: hw ==
-- Hardware catalogue and roofline: a device's ridge point, a step's time on a few devices,
-- Hestness et al.'s subbatch choice, a zoo model op by op, time to train, cost and the
-- lecture's figure of merit.
do
  local t4 = dlb.hw.get("Hestness-T4")
  print(string.format("hw: %d devices in the catalogue (dlb.hw.list() prints them)", #dlb.hw.names()))
  print(string.format("Hestness Table 4 device: ridge %.1f FLOP/B at peak, %.1f at 80%%/70%%",
    t4:ridge("fp32"), t4:ridge("fp32", true)))
  local s = dlb.roofline.hestness("word_lm", 23.8e9, 128) -- Table 3's word LM step
  for _, name in ipairs { "Hestness-T4", "V100", "A100", "H100" } do -- aliases work
    local r = dlb.roofline.time(s, name)
    print(string.format("  word LM step (23.8B params, b=128, fp32) on %-15s %7.1f s  %s-bound, "
      .. "util %3.0f%%, footprint %s", dlb.hw.get(name).name, r.time, r.bound, 100 * r.util,
      r.fits and "fits" or string.format("short by %.0f GB", r.shortfall / 1e9)))
  end
  -- the 285 GB model fits no one device (Hestness split it across many): require_fit = false
  local sb = dlb.roofline.subbatch(function(b) return dlb.roofline.hestness("word_lm", 23.8e9, b) end, t4,
    { require_fit = false })
  print(string.format("  subbatch points: intensity saturates at b=%d, reaches the ridge at b=%d, "
    .. "best time per sample from b=%d", sb.saturation, sb.ridge, sb.best))
  -- a zoo model op by op (ParaDnn Fig 3's breakdown), with the cache-aware matmul model
  local st = dlb.models.resnet { depth = 50, batch = 32 }:stats {}
  local r = dlb.roofline.time(st, "V100", { cache_aware = true, detail = true })
  print(string.format("  ResNet-50 b=32 on V100 op by op: %.1f ms, util %.0f%% (whole graph %.0f%%), "
    .. "%d of %d ops memory-bound for %.0f%% of the time", 1e3 * r.time, 100 * r.util,
    100 * r.graph.util, r.n_memory_bound, st.nops, 100 * r.memory_bound_time / r.time))
  -- 90 epochs of ImageNet (1.28M images) on 8 V100s at an example $2.48 per GPU-hour
  local tr = dlb.roofline.train { step = r, dataset = 1.28e6 / 8, batch = 32, epochs = 90,
    devices = 8, price = 2.48 }
  print(string.format("  90 ImageNet epochs on 8 V100s (ideal data parallelism): %.1f h, $%.0f",
    tr.hours, tr.cost))
  local fom = dlb.roofline.fom { -- the lecture's worked example (seed 002): Titan vs "A"
    { base_hours = 60, base_nodes = 18688, hours = 4, nodes = 94000 },
    { base_hours = 6, base_nodes = 18688, hours = 0.5, nodes = 94000 },
    { base_hours = 12, base_nodes = 18688, hours = 0.25, nodes = 94000 } }
  print(string.format("  the lecture's figure of merit example: %.1f (harmonic mean; the mean of "
    .. "ratios would say %.1f)", fom.fom, fom.mean_ratio))
  print()
end
-- == end: hw ==

-- == section: plots ==
-- Paper-style figures: sized in inches, fonts in points, PNG/PDF/SVG by extension.
do
  local batch, nodes, util = { 64, 128, 256, 512, 1024 }, { 32, 64, 128, 256 }, {}
  for j = 1, #nodes do
    util[j] = {}
    for i = 1, #batch do util[j][i] = 0.6 * (1 - math.exp(-(i + j) / 4)) end
  end
  local f = dlb.plot.figure { width = 3.3, height = 2.4 }
  f:heatmap { x = batch, y = nodes, z = util, cell_labels = true, fmt = "%.2f",
              colorbar_label = "FLOPS utilization" }
  f.xlabel, f.ylabel = "Batch size", "Nodes per layer"
  assert(f:save(outdir .. "/tour_heatmap.pdf"))
  assert(f:save(outdir .. "/tour_heatmap.png"))
  print("plots: wrote " .. outdir .. "/tour_heatmap.pdf and .png; overlapping labels: "
    .. #f:layout_check())
end
-- == end: plots ==

-- == section: sweeps ==
do
  print("== sweeps, tables and statistics (ParaDnn's methodology)")
  -- A slice of ParaDnn's FC family (seeds/004 Table 2): zoo model -> training-step stats ->
  -- per-op roofline on the catalogue's TPU v2 board (mixed bf16) and V100 (mixed fp16).
  -- Predictions of an analytical model, not measurements.
  local pf = dlb.paradnn.platforms()
  local space = dlb.paradnn.space("fc", { with = { layers = { 4, 16 }, input = 2000, output = 200,
    nodes = { 32, 128, 512, 2048, 8192 }, batch = { 64, 256, 1024, 4096, 16384 } } })
  local t = dlb.sweep(space, dlb.paradnn.evaluate("fc", { platforms = { pf[1], pf[2] } }),
    { order = dlb.paradnn.order("fc"), jobs = 2, quiet = true })
  print(string.format("%d FC models (layers x nodes x batch) on %s and %s, %d columns",
    t:count(), pf[1].name, pf[2].name, #t:columns()))
  print(t:group_by("batch", { util_tpu = "mean", util_gpu = "mean", p91 = { "percentile", "util_tpu", 91 } }))
  -- z-scored inputs: the weights compare across hyperparameters and keep their signs (§4.1)
  print(dlb.stats.regress(t, { "layers", "nodes", "batch" }, "util_tpu", { log = true }))
  local b = dlb.stats.box(t:column("util_tpu"))
  print(string.format("TPU utilization box: p2 %.3f  p9 %.3f  median %.3f  p91 %.3f  p98 %.3f",
    b.whisker_lo, b.q_lo, b.median, b.q_hi, b.whisker_hi))
  local xs, ys, z = t:where { layers = 16 }:pivot("nodes", "batch", "util_tpu")
  local f = dlb.plot.figure { width = 3.3, height = 2.6 }
  f:heatmap { x = xs, y = ys, z = z, vmin = 0, colorbar_label = "utilization" }
  f.xlabel, f.ylabel = "nodes per layer", "batch"
  f.title = "FC, 16 layers: TPU v2 utilization (predicted)"
  local ok, err = f:save(outdir .. "/tour_sweep_heatmap.png")
  print(ok and ("wrote " .. outdir .. "/tour_sweep_heatmap.png") or err)
  print()
end
-- == end: sweeps ==

-- == section: scaling ==
do
  print("== scaling laws (Hestness et al. PPoPP'19; Hoffmann et al. 2022)")
  local S = dlb.scaling
  -- a learning curve from (training set size, error) measurements
  local sizes, errors = {}, {}
  for i = 1, 10 do
    sizes[i] = 1e5 * 2 ^ i
    errors[i] = 4 * sizes[i] ^ -0.3 + 0.02
  end
  local lc = S.fit(sizes, errors, { form = "power+const" })
  print(tostring(lc))
  print(string.format("data for 3%% error: %.3g samples", lc:data_for(0.03)))
  -- Table 1 of the paper: data and model scale to reach the desired word LM perplexity, then
  -- Table 3: the step of our word LM graph at the projected size on the Table 4 accelerator
  local w = S.project(S.domains.word_lm, { device = dlb.hw.get("Hestness-T4"),
    graph = dlb.models.word_lm { hidden = "h" }, dim = "h" })
  print(string.format("word LM to %.2f nat/word: %.0fx data, %.1fx model (paper 100x, 23x); "
    .. "our graph at hidden %d (%.3g params): %.0f TFLOP/step, %.0f s/step on Hestness-T4",
    w.target, w.data_scale, w.model_scale, w.size, w.graph_params, w.flops / 1e12, w.step_time))
  -- Table 2 from our own graphs: FLOPs per parameter per sample (paper: 481)
  local f = S.fit_graph_costs { graph = dlb.models.word_lm { hidden = "h" }, dim = "h",
    params = { 2.38e9, 2.38e11 }, batch = 128 }
  print(string.format("word LM Table 2 from our graphs: %.0f b FLOPs/param (paper 481), "
    .. "%.2f B/param footprint (paper 11.94)", f.gamma, f.delta))
  local o = S.compute_optimal(S.chinchilla, 5.76e23)
  print(string.format("Chinchilla law at 5.76e23 FLOPs: N = %.3g params, D = %.3g tokens", o.N, o.D))
  print()
end
-- == end: scaling ==

-- == section: parallel ==
do
  local P = dlb.parallel
  print("-- parallel training: how long is a step on N devices?")
  -- 1 GB of gradients over 64 devices on 25 GB/s links, ring vs tree
  local ring = P.allreduce { bytes = 1e9, n = 64, bw = 25e9, latency = 5e-6 }
  local tree = P.allreduce { bytes = 1e9, n = 64, bw = 25e9, latency = 5e-6, algo = "tree" }
  print(string.format("allreduce 1 GB on 64 devices: ring %.3f s, tree %.3f s", ring, tree))
  -- data parallelism of ResNet-50 from its graph: per-worker time from dlb.roofline.time,
  -- the gradient allreduce over the A100's own links (NVLink in a node, 200 Gb/s between)
  local a100 = dlb.hw.get("A100-SXM4-80GB")
  local s = dlb.models.resnet { depth = 50 }:stats { b = 64, precision = "mixed" }
  -- (compute op by op, as dlb.roofline.time; the allreduce moves params x 2 bytes)
  for _, n in ipairs { 1, 8, 512 } do
    local r = P.data { stats = s, hw = a100, workers = n, subbatch = 64, overlap = 0.8,
                       bucket = 25e6 }
    print(string.format("ResNet-50, %3d A100s: step %.0f ms (%s-bound), %.0f images/s, "
      .. "utilisation %.0f%%, %.1f GB/worker %s", n, r.step * 1e3, r.roofline.bound,
      r.throughput, 100 * r.util, r.mem / 1e9, r.fits and "(fits)"
      or string.format("(does NOT fit: %.1f GB short)", r.shortfall / 1e9)))
  end
  -- a step that does not fit is reported as such, not as a utilisation
  local v100 = dlb.hw.get("V100-SXM2-16GB")
  local xl = dlb.models.gpt { size = "gpt3-xl" }:stats { b = 8, precision = "mixed" }
  for _, r in ipairs(P.scaling { stats = xl, hw = v100, workers = { 1, 64 }, subbatch = 8 }) do
    print(string.format("GPT-3 XL, %2d V100-16GB, 8 sequences each: %s", r.workers, r.fits
      and string.format("%.2f s/step", r.step)
      or string.format("does NOT fit (%.1f GB per worker, %.1f GB short)", r.mem / 1e9,
        r.shortfall / 1e9)))
  end
  -- the best 3-D plan for GPT-3 XL (24 layers, d 2048) from the model zoo on 64 A100s
  local plans = P.plan { graph = dlb.models.gpt { size = "gpt3-xl" }, hw = a100, devices = 64,
                         batch = 512 }
  local b = plans[1]
  print(string.format("GPT-3 XL, best of %d plans: dp %d x tp %d x pp %d, m %d, %s: %.2f s/step "
    .. "(compute %.2f, comm %.2f, bubble %.2f), %.0f GB/device", plans:count(), b.dp, b.tp, b.pp,
    b.m, b.schedule, b.step, b.compute, b.comm, b.bubble, b.mem / 1e9))
  -- impossible layouts are errors, not numbers: 32 samples per replica in 64 micro-batches
  local ok, e = pcall(P.evaluate, { graph = dlb.models.gpt { size = "gpt3-xl" }, hw = a100,
    batch = 64, dp = 2, tp = 2, pp = 2, m = 64 })
  print("an impossible layout: " .. (ok and "accepted?!" or tostring(e)))
  print()
end
-- == end: parallel ==
