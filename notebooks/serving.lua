-- serving.lua — LLM inference and serving with dlb.serve (issue [23]; docs/serve.md):
--   1. KV-cache bytes per token for the zoo's LLMs (exact: 2 x layers x kv_heads x head_dim
--      x bytes) and the largest batch x context that fits an H100 beside the weights; the
--      prefill and decode steps as graphs (dlb.serve.graphs), timed as the steps are;
--   2. figure: KV-cache memory vs context (serving_kv.png);
--   3. figure: the decode roofline — a decode step's arithmetic intensity grows with the
--      batch and stays memory-bound until the batch reaches the ridge (serving_roofline.png);
--   4. figure: the throughput–latency curve — tokens/s per GPU against time per output
--      token, static batches for three weight dtypes and continuous batching over request
--      rates (serving_curve.png);
--   5. tensor/pipeline parallel 70B, quantised weights, speculative decoding, energy per
--      generated token;
--   6. validation: 73 published measured rows (notebooks/data/serving_runs.lua: TensorRT-LLM's
--      performance tables, static batches; NVIDIA NIM's benchmarking page, closed-loop
--      continuous batching), calibrated on the rows marked "fit" only; the held-out median
--      |error| is reported, with a predicted-vs-measured figure (serving_validation.png).
--   dlbench run notebooks/serving.lua [outdir]      (default out/)
local dlb = require "dlbench"
local S = dlb.serve
local plot = dlb.plot

local outdir = require("dlbench.notebook").outdir(arg)   -- arg[1] or "out", created
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "notebooks"

local function save(f, name)
  local ok, err = f:save(outdir .. "/" .. name)
  if not ok then error("serving: " .. tostring(err)) end
  print("wrote " .. outdir .. "/" .. name)
end

local H100 = dlb.hw.get("H100-SXM")
local models = {
  { "Llama-2-7B", S.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 }) },
  { "Llama-2-13B", S.model(dlb.models.llama { size = "13b", batch = 1, seq = 16 }) },
  { "Llama-2-70B", S.model(dlb.models.llama { size = "70b", batch = 1, seq = 16 }) },
  -- Llama-3-8B: meta-llama/Meta-Llama-3-8B config.json
  { "Llama-3-8B", S.model(dlb.models.llama { layers = 32, hidden = 4096, heads = 32, kv_heads = 8,
    ffn = 14336, vocab = 128256, batch = 1, seq = 16 }, { name = "llama-3-8b" }) },
  { "Mixtral-8x7B", S.model(dlb.models.moe { size = "mixtral-8x7b", batch = 1, seq = 16 }) },
}

-- == 1. KV bytes and capacity =====================================================
print("\n1. KV cache per token (fp16) and the largest batch at 4k context on one H100-SXM (80 GB, 90% usable)")
print(string.format("%-14s %14s %10s %10s %14s %14s", "model", "params", "kv heads", "B/token", "batch@4k fp16", "batch@4k fp8kv"))
for _, m in ipairs(models) do
  local s = m[2]
  local c16 = S.capacity(s, { hw = H100, context = 4096 })
  local c8 = S.capacity(s, { hw = H100, context = 4096, kv = "fp8" })
  print(string.format("%-14s %14.0f %10d %10d %14s %14s", m[1], s.params, s.kv_heads,
    S.kv_bytes_per_token(s), c16.fits and tostring(c16.batch) or "no fit",
    c8.fits and tostring(c8.batch) or "no fit"))
end

-- the steps as graphs: Llama-3-8B's prefill (batch 16 x 1,024 tokens) and a decode step at
-- 4,096 cached tokens, as dlb graphs of kernel ops with the paged KV cache as inputs; their
-- analysis, and dlb.serve.time, beside dlb.serve.prefill/decode, which time the same graphs
-- (every serving answer is computed from its step's graph; docs/serve.md)
do
  local m = models[4][2]
  local o = { hw = H100, batch = 16, prompt = 1024, context = 4096 }
  local pg, dg = S.graphs(m, o)
  print("\nthe steps as graphs (Llama-3-8B on H100-SXM, batch 16, prompt 1024, decode at 4096 cached tokens)")
  print(string.format("%-8s %8s %14s %12s %12s %12s %12s", "step", "kernels", "params", "GFLOP", "GB moved", "graph ms", "steps ms"))
  local steps = { S.prefill(m, { hw = H100, batch = 16, prompt = 1024 }), S.decode(m, { hw = H100, batch = 16, context = 4096 }) }
  for i, g in ipairs { pg, dg } do
    local st = g:stats { inference = true, precision = "bf16" }
    local t = S.time(g)
    print(string.format("%-8s %8d %14.0f %12.1f %12.2f %12.3f %12.3f", g.serve.kind, g:nops(), st.params,
      st.flops / 1e9, st.bytes / 1e9, t.time * 1e3, steps[i].time * 1e3))
  end
  local cache = 0
  for i = 0, dg:ntensors() - 1 do
    local name, dims = require("dlbench.backend").graph_tensor_info(dg._h, i)
    if name:match("kv_cache$") then cache = cache + dims[1] * dims[2] * dims[3] * 2 end
  end
  print(string.format("decode graph's KV-cache inputs: %.0f bytes = 16 x %d cached (4,097 in blocks of 16) x %d B/token",
    cache, cache / 16 / S.kv_bytes_per_token(m), S.kv_bytes_per_token(m)))
end

-- == 2. KV memory vs context ======================================================
do
  local f = plot.figure { width = 3.3, height = 2.4 }
  local ctx = {}
  for i = 0, 14 do ctx[#ctx + 1] = 2 ^ (7 + i * 0.5) end
  for _, m in ipairs { models[1], models[4], models[3] } do
    local y = {}
    for i, c in ipairs(ctx) do y[i] = 16 * c * S.kv_bytes_per_token(m[2]) / 1e9 end
    f:line { x = ctx, y = y, label = m[1] }
  end
  f:hline { y = 80, label = "H100 80 GB" }
  f.xscale, f.yscale = "log", "log"
  f.xlabel, f.ylabel = "context (tokens)", "KV cache, batch 16 (GB)"
  f.title = "KV-cache memory vs context (fp16)"
  f.legend = "outside"
  save(f, "serving_kv.png")
end

-- == 3. the decode roofline =======================================================
-- Llama-3-8B (GQA, 8 KV heads) at a short context: the weights' reads are shared by the
-- batch, so the step's intensity grows with the batch and crosses the ridge near batch
-- ~300 (fp16 on H100). Llama-2-7B (MHA, 32 KV heads) at 1k context never does: its cache
-- reads grow with the batch as fast as its FLOPs (attention at ~1 FLOP/byte).
local L7 = models[1][2]
do
  local pts = {}
  print("\n3. decode steps on H100-SXM (fp16, CUDA graphs): memory-bound until the batch reaches the ridge")
  print(string.format("%-12s %7s %6s %12s %12s %10s %8s", "model", "context", "batch", "FLOP/byte", "TFLOP/s", "TPOT ms", "bound"))
  for _, m in ipairs { { models[4], 128, "Llama-3-8B" }, { models[1], 1024, "Llama-2-7B" } } do
    for _, b in ipairs { 1, 8, 64, 512, 2048 } do
      local d = S.decode(m[1][2], { hw = H100, batch = b, context = m[2], cuda_graphs = true })
      local rate = d.flops / d.time
      pts[#pts + 1] = { intensity = d.intensity, flops = rate, group = m[3] .. " @" .. m[2],
        label = (m[3] == "Llama-3-8B" and (b == 1 or b == 2048)) and ("b=" .. b) or nil }
      print(string.format("%-12s %7d %6d %12.1f %12.1f %10.2f %8s", m[3], m[2], b, d.intensity, rate / 1e12, d.tpot * 1e3, d.bound))
    end
  end
  local d = S.decode(L7, { hw = H100, batch = 1, context = 1024 })
  print(string.format("ridge at the achievable rates: %.0f FLOP/byte (fp16)", d.ridge))
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:roofline { hw = { H100 }, points = pts, precision = "fp16" }
  f.title = "Decode roofline (batch 1 to 2048)"
  f.ylabel = "FLOP/s"
  f.legend = "outside"
  save(f, "serving_roofline.png")
end

-- == 4. the throughput-latency curve ==============================================
do
  local f = plot.figure { width = 3.3, height = 2.4 }
  print("\n4. throughput vs latency, Llama-2-7B on H100-SXM, prompt 512, output 256")
  local batches = { 1, 2, 4, 8, 16, 32, 64, 128, 256 }
  for _, w in ipairs { "fp16", "fp8", "int4" } do
    local t = S.sweep { model = L7, hw = H100, batch = batches, prompt = 512, output = 256, weights = w }
    local x, y = {}, {}
    for i = 1, t:count() do
      local r = t:row(i)
      if r.fits then x[#x + 1], y[#y + 1] = r.tpot * 1e3, r.tokens_per_s_gpu end
    end
    f:line { x = x, y = y, label = "static, " .. w }
    print(string.format("  static %-5s: TPOT %.1f..%.1f ms, %.0f..%.0f tokens/s/GPU", w, x[1], x[#x], y[1], y[#y]))
  end
  local x, y = {}, {}
  local rmax = S.max_rate(L7, { hw = H100, prompt = 512, output = 256 })
  for i = 1, 9 do
    local r = S.continuous(L7, { hw = H100, rate = rmax * i / 10, prompt = 512, output = 256 })
    x[#x + 1], y[#y + 1] = r.tpot * 1e3, r.tokens_per_s_gpu
  end
  f:line { x = x, y = y, label = "continuous, fp16" }
  print(string.format("  continuous fp16: up to %.1f requests/s (%.0f tokens/s) per replica", rmax, rmax * 256))
  local r50 = S.max_rate(L7, { hw = H100, prompt = 512, output = 256, target = { tpot = 0.02, ttft = 0.5 }, percentile = 90 })
  print(string.format("  at TPOT <= 20 ms and p90 TTFT <= 0.5 s: %.1f requests/s per GPU", r50))
  f.xscale, f.yscale = "log", "log"
  f.xlabel, f.ylabel = "time per output token (ms)", "tokens/s per GPU"
  f.title = "Throughput vs latency"
  f.legend = "outside"
  save(f, "serving_curve.png")
end

-- == 5. parallel, quantised, speculative, energy ==================================
do
  print("\n5. Llama-2-70B, batch 32, prompt 1024, output 256 on H100-SXM")
  local L70 = models[3][2]
  print(string.format("%-22s %9s %9s %12s %6s %12s", "layout", "TTFT s", "TPOT ms", "tok/s/GPU", "fits", "J/token"))
  for _, o in ipairs {
    { "tp=2 fp16", { tp = 2 } }, { "tp=4 fp16", { tp = 4 } }, { "tp=8 fp16", { tp = 8 } },
    { "tp=2 pp=2 fp16", { tp = 2, pp = 2 } }, { "tp=2 fp8 + fp8 kv", { tp = 2, weights = "fp8", kv = "fp8" } },
    { "tp=1 int4 (AWQ-like)", { weights = "int4" } }, { "tp=4 fp16 cuda graphs", { tp = 4, cuda_graphs = true } },
  } do
    local opts = { hw = H100, batch = 32, prompt = 1024, output = 256 }
    for k, v in pairs(o[2]) do opts[k] = v end
    local r = S.generate(L70, opts)
    print(string.format("%-22s %9.3f %9.2f %12.1f %6s %12.3f", o[1], r.ttft, r.tpot * 1e3,
      r.tokens_per_s_gpu, tostring(r.fits), r.energy_per_token or 0 / 0))
  end
  local sp = S.speculative(L7, { hw = H100, draft = { layers = 4, hidden = 1024, heads = 16, ffn = 2816,
    mlp = "swiglu" }, k = 4, accept = 0.7, batch = 1 })
  print(string.format("speculative decoding, Llama-2-7B + a 4-layer draft, k = 4, acceptance 0.7: %.2f tokens/step, TPOT %.2f -> %.2f ms (x%.2f)",
    sp.tokens_per_step, sp.plain_tpot * 1e3, sp.tpot * 1e3, sp.speedup))
end

-- the tensor-parallel allreduces of a step: two a layer (after the attention's output
-- projection and after the MLP), each of tokens x hidden x 2 B, timed as NCCL runs them
-- (collectives = "nccl", the default: NCCL's tuning model, as training's planner) beside
-- the alpha-beta ring on the NVLink link at 1 us a hop (collectives = "alpha-beta")
do
  local L70 = models[3][2]
  print("\ntensor-parallel allreduces, Llama-2-70B fp8 on H100-SXM (160 a step: 2 a layer x 80)")
  print(string.format("%-24s %4s %12s %14s %18s %12s", "step", "tp", "payload B", "NCCL us each", "alpha-beta us each", "NCCL ms/step"))
  for _, st in ipairs { { "decode batch 1", 1, 1, 1000 }, { "decode batch 64", 64, 1, 1000 },
                        { "decode batch 1024", 1024, 1, 200 }, { "prefill 1 x 128", 1, 128, 0 },
                        { "prefill 1 x 2048", 1, 2048, 0 } } do
    for _, tp in ipairs { 2, 4, 8 } do
      local o = { hw = H100, tp = tp, weights = "fp8", kv = "fp8", batch = st[2] }
      local oa = { hw = H100, tp = tp, weights = "fp8", kv = "fp8", batch = st[2], collectives = "alpha-beta", comm_latency = 1e-6 }
      local r, ra
      if st[3] == 1 then
        o.context, oa.context = st[4], st[4]
        r, ra = S.decode(L70, o), S.decode(L70, oa)
      else
        o.prompt, oa.prompt = st[3], st[3]
        r, ra = S.prefill(L70, o), S.prefill(L70, oa)
      end
      -- two allreduces a layer (after attention and after the MLP), each of the step's
      -- tokens x hidden at 2 bytes (the model's own shapes)
      local nar = 2 * L70.layers
      print(string.format("%-24s %4d %12d %14.1f %18.1f %12.2f", st[1], tp, st[2] * st[3] * L70.hidden * 2,
        r.comm / nar * 1e6, ra.comm / nar * 1e6, r.comm * 1e3))
    end
  end
end

-- == 6. validation ================================================================
local rows = dofile(here .. "/data/serving_runs.lua")
-- the sanitizer tests' subset mode (DLB_NOTEBOOK_SUBSET=1, notebooks/lib/subset.lua): the
-- first row of each kind, the same C lines and branches as all rows
-- (tests/tools/subset_coverage.sh). Off by default: every row is calibrated and scored.
local SUB = dofile(here .. "/lib/subset.lua")
rows = SUB.keep("serving rows", rows, SUB.serving)
local cal, fit_err = S.calibrate(rows)
local _, uncal = S.errors(rows, nil)
local held, res = S.errors(rows, cal, "held")
local fitm = S.errors(rows, cal, "fit")
local allm = S.errors(rows, cal)
print(string.format("\n6. validation: %d published rows (TensorRT-LLM performance tables; NVIDIA NIM's benchmarking page), calibrated on the %d 'fit' rows",
  #rows, #rows - #res))
print(string.format("calibration: flops_eff = %.2f, bw_eff = %.2f, kernel_overhead = %.0f us, step_overhead = %.1f ms (tp allreduces: NCCL's model)",
  cal.flops_eff, cal.bw_eff, cal.kernel_overhead * 1e6, cal.step_overhead * 1e3))
local ue = {}
for _, e in ipairs(uncal) do if e.split == "held" then ue[#ue + 1] = math.abs(e.error) end end
print(string.format("median |error|: held-out %.1f%% (uncalibrated %.1f%%), fit %.1f%%, all %.1f%%",
  100 * held, 100 * S._percentile(ue, 50), 100 * fitm, 100 * allm))
local by_source = {}
for _, src in ipairs { "trtllm", "nim" } do
  local e = {}
  for _, x in ipairs(res) do if x.id:sub(1, #src) == src then e[#e + 1] = math.abs(x.error) end end
  by_source[src] = #e > 0 and S._percentile(e, 50) or nil
  print(string.format("  held-out median |error|, %-6s rows: %.1f%% (%d rows)", src, 100 * (by_source[src] or 0), #e))
end
local _, all = S.errors(rows, cal)
do -- the TensorRT-LLM rows with TP > 1 (docs/serve.md, "The tensor-parallel rows")
  local e, eh = {}, {}
  for i, row in ipairs(rows) do
    if row.id:sub(1, 6) == "trtllm" and (row.config.tp or 1) > 1 then
      e[#e + 1] = math.abs(all[i].error)
      if row.split == "held" then eh[#eh + 1] = math.abs(all[i].error) end
    end
  end
  if #e > 0 then
    print(string.format("  median |error|, TensorRT-LLM rows with TP > 1: %.1f%% (%d rows), held-out %.1f%% (%d rows)",
      100 * S._percentile(e, 50), #e, #eh > 0 and 100 * S._percentile(eh, 50) or 0 / 0, #eh))
  end
end
print(string.format("%-58s %-5s %10s %10s %8s", "row", "split", "predicted", "measured", "error"))
local xs, ys, xf, yf = {}, {}, {}, {}
for _, e in ipairs(all) do
  print(string.format("%-58s %-5s %10.1f %10.1f %+7.1f%%", e.id, e.split, e.predicted, e.measured, 100 * e.error))
  if e.split == "held" then xs[#xs + 1], ys[#ys + 1] = e.measured, e.predicted
  else xf[#xf + 1], yf[#yf + 1] = e.measured, e.predicted end
end
-- the first-token rows (issue 29): every TensorRT-LLM "1st token latency" row is predicted
-- short. The same rows and split, recalibrated with the GEMMs' flops_eff fixed at each
-- chip's CALIBRATED value from the training validation (calibration = "validated":
-- lua/dlbench/hw_calibrated.lua, H100 fp8 0.56, A100 0.80; the L40S has none and keeps the
-- catalogue's 0.8) instead of fitted here; the other three parameters fitted as above.
-- Not adopted: its fit rows' error is the higher, the rule of docs/serve.md step 4; this
-- comparison was made after seeing every row's error (docs/serve.md, step 9).
local calv = S.calibrate(rows, { calibration = "validated" })
local _, allv = S.errors(rows, calv)
do
  local function med(list, keep)
    local e = {}
    for _, x in ipairs(list) do if keep(x) then e[#e + 1] = math.abs(x.error) end end
    return #e > 0 and 100 * S._percentile(e, 50) or 0 / 0, #e
  end
  local function ttft(x) return x.id:find("^trtllm") and x.id:find("ttft%-ms") end
  local function thr(x) return x.id:find("^trtllm") and x.id:find("out%-tok") end
  local function nim(x) return x.id:find("^nim") end
  print(string.format("\nfirst-token rows (issue 29): adopted calibration vs flops_eff = the chips' CALIBRATED values (validated: bw_eff = %.2f, kernel_overhead = %.0f us, step_overhead = %.1f ms)",
    calv.bw_eff, calv.kernel_overhead * 1e6, calv.step_overhead * 1e3))
  print(string.format("%-34s %10s %10s", "median |error|", "adopted", "validated"))
  for _, g in ipairs { { "held-out, all rows", function() return true end }, { "fit, all rows", function() return true end, "fit" },
    { "held-out TensorRT-LLM TTFT rows", ttft }, { "fit TensorRT-LLM TTFT rows", ttft, "fit" },
    { "held-out TensorRT-LLM throughput", thr }, { "fit TensorRT-LLM throughput", thr, "fit" },
    { "held-out NIM rows", nim }, { "fit NIM rows", nim, "fit" } } do
    local split = g[3] or "held"
    local function keep(x) return x.split == split and g[2](x) end
    local a, n = med(all, keep)
    print(string.format("%-34s %9.1f%% %9.1f%%   (%d rows)", g[1], a, (med(allv, keep)), n))
  end
  print(string.format("%-58s %-5s %9s %9s %9s", "TTFT row", "split", "measured", "adopted", "validated"))
  for i, x in ipairs(all) do
    if ttft(x) then
      print(string.format("%-58s %-5s %9.1f %+8.1f%% %+8.1f%%", x.id, x.split, x.measured, 100 * x.error, 100 * allv[i].error))
    end
  end
end
do
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:scatter { x = xf, y = yf, label = "fit" }
  f:scatter { x = xs, y = ys, label = "held out" }
  f:line { x = { 1, 1e5 }, y = { 1, 1e5 }, label = "y = x" }
  f.xscale, f.yscale = "log", "log"
  f.xlabel, f.ylabel = "measured (tok/s or ms)", "predicted"
  f.title = string.format("Serving, held-out median |err| %.0f%%", 100 * held)
  f.legend = "outside"
  save(f, "serving_validation.png")
end
return { held = held, fit = fitm, cal = cal, rows = #rows, by_source = by_source,
  validated = { cal = calv, fit = (S.errors(rows, calv, "fit")), held = (S.errors(rows, calv, "held")) } }
