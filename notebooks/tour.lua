-- tour.lua — a tour of dlbench: what the README's first command runs.
-- Each section shows one capability; figures go to out/.
local dlb = require "dlbench"

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
  local f = io.open("out/tour_mlp.dot", "w")
  if f then
    f:write(g:dot())
    f:close()
    local ok = os.execute("command -v dot >/dev/null 2>&1 && dot -Tpdf out/tour_mlp.dot -o out/tour_mlp.pdf")
    print((ok == true or ok == 0) and "graph picture: wrote out/tour_mlp.dot and out/tour_mlp.pdf"
      or "graph picture: wrote out/tour_mlp.dot (install graphviz to render it)")
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
-- and Hestness et al.'s subbatch choice for their projected word LM (Table 2 costs).
do
  local t4 = dlb.hw.get("Hestness-T4")
  print(string.format("hw: %d devices in the catalogue (dlb.hw.list() prints them)", #dlb.hw.names()))
  print(string.format("Hestness Table 4 device: ridge %.1f FLOP/B at peak, %.1f at 80%%/70%%",
    t4:ridge("fp32"), t4:ridge("fp32", true)))
  local s = dlb.roofline.hestness("word_lm", 23.8e9, 128) -- Table 3's word LM step
  for _, name in ipairs { "Hestness-T4", "V100-SXM2-16GB", "A100-SXM4-80GB", "H100-SXM" } do
    local r = dlb.roofline.time(s, name)
    print(string.format("  word LM step (23.8B params, b=128, fp32) on %-15s %7.1f s  %s-bound, "
      .. "util %3.0f%%, footprint %s", name, r.time, r.bound, 100 * r.util,
      r.fits and "fits" or string.format("short by %.0f GB", r.shortfall / 1e9)))
  end
  local sb = dlb.roofline.subbatch(function(b) return dlb.roofline.hestness("word_lm", 23.8e9, b) end, t4)
  print(string.format("  subbatch points: intensity saturates at b=%d, reaches the ridge at b=%d, "
    .. "best time per sample from b=%d", sb.saturation, sb.ridge, sb.best))
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
  assert(f:save("out/tour_heatmap.pdf"))
  assert(f:save("out/tour_heatmap.png"))
  print("plots: wrote out/tour_heatmap.pdf and .png; overlapping labels: "
    .. #f:layout_check())
end
-- == end: plots ==

-- == section: sweeps ==
do
  print("== sweeps, tables and statistics (ParaDnn's methodology)")
  -- A cheap stand-in for graph + roofline: an FC model's training FLOPs (a MAC is 2 FLOPs,
  -- backward twice forward) and a utilization that saturates with the matmul sizes.
  local space = dlb.paradnn.space("fc", { with = { input = 2000, output = 1000 } })
  local t = dlb.sweep(space, function(p)
    local params = p.input * p.nodes + (p.layers - 1) * p.nodes * p.nodes + p.nodes * p.output
    local util = 1 / (1 + 256 / p.nodes + 512 / p.batch)
    return { params = params, flops = 6 * p.batch * params, util = util }
  end, { jobs = 2, quiet = true })
  print(string.format("%d FC models (Table 2 with input and output fixed), %d columns",
    t:count(), #t:columns()))
  print(t:group_by("batch", { util = "mean", p91 = { "percentile", "util", 91 } }):head(4))
  local xs, ys, z = t:where { layers = 64 }:pivot("nodes", "batch", "util")
  print(string.format("heat map grid: %d nodes x %d batches, z[1][1] = %.3f", #xs, #ys, z[1][1]))
  print(dlb.stats.regress(t, { "layers", "nodes", "batch" }, "util", { log = true }))
  local b = dlb.stats.box(t:column("util"))
  print(string.format("utilization box: p2 %.3f  p9 %.3f  median %.3f  p91 %.3f  p98 %.3f",
    b.whisker_lo, b.q_lo, b.median, b.q_hi, b.whisker_hi))
  local ok, err = t:to_csv("out/tour_fc_sweep.csv")
  print(ok and "wrote out/tour_fc_sweep.csv" or err)
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
  -- Table 1 of the paper: data and model scale to reach the desired word LM perplexity
  local w = S.project(S.domains.word_lm, { device = S.table4_device })
  print(string.format("word LM to %.2f nat/word: %.0fx data, %.1fx model (paper 100x, 23x), "
    .. "%.0f TFLOP/step, %.0f s/step on the Table 4 accelerator", w.target, w.data_scale,
    w.model_scale, w.flops / 1e12, w.step_time))
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
  -- data parallelism of Hestness's word LM (Table 2 costs, 23.8B parameters)
  local w = P.layers.table2_work("word_lm", 23.8e9)
  local hw = { name = "target", peak = { fp32 = 15.67e12 }, mem_bw = 898e9, mem = 32e9 }
  for _, n in ipairs { 1, 64, 1024 } do
    local r = P.data { work = w, hw = hw, workers = n, subbatch = 128, bw = 56e9, latency = 5e-6 }
    print(string.format("word LM, %4d workers: step %.1f s, utilisation %.0f%%", n, r.step,
      100 * r.util))
  end
  -- the best 3-D plan for a 32-layer transformer on 64 devices
  local cl = P.cluster { per_node = 8, nodes = 8, intra = { bw = 300e9, latency = 2e-6 },
                         inter = { bw = 25e9, latency = 5e-6 } }
  local rows = P.plan { layers = P.layers.transformer { layers = 32, d = 4096, seq = 2048 },
    hw = { peak = { fp16 = 312e12 }, mem = 80e9, mem_bw = 2e12 }, precision = "fp16",
    cluster = cl, batch = 512, table = false }
  local b = rows[1]
  print(string.format("best plan of %d: dp %d x tp %d x pp %d, m %d, %s: %.2f s/step "
    .. "(compute %.2f, comm %.2f, bubble %.2f), %.0f GB/device", #rows, b.dp, b.tp, b.pp, b.m,
    b.schedule, b.step, b.compute, b.comm, b.bubble, b.mem / 1e9))
  print()
end
-- == end: parallel ==
