-- test_serve_graph.lua — every dlb.serve answer is computed from its step's graph
-- (serve_graph.lua): the prefill and decode steps as dlb graphs of kernel ops (g:kernel)
-- with the paged KV cache as inputs, tensor-parallel ranks with their allreduce kernels,
-- pipeline stages, chunked-prefill iterations (dlb.serve.step_graph), and dlb.serve.time.
-- For Llama-2-7B, Llama-3-8B (GQA), Mistral-7B (sliding window) and Mixtral-8x7B (MoE),
-- under several serving options and tp = 4: dlb.serve.time of the graphs equals
-- prefill/decode, and the steps derived from the graphs at batches 1, 2 and contexts 0, 1
-- equal the graph built at the step (whole and mean batches) within 1e-9; a hand-counted
-- decode FLOP total; the KV cache's tensors hold 524,288 B / 131,072 B per token. The
-- kernel op itself (forward only, given costs exact, refused by training) and bad input.
-- Runs on both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"
local S = dlb.serve

local SM = require "serve_models"
local L7, L3, MI, MX = SM.models()
local rel = SM.rel
local function close(a, b, what)
  if rel(a, b) > 1e-9 then error(string.format("%s: graph %.17g, list %.17g", what, a, b), 2) end
end
local function same_cost(g, r, what)
  for _, k in ipairs { "time", "flops", "bytes", "launch", "kernels", "memory_bound_time" } do
    close(g[k], r[k], what .. " " .. k)
  end
  for name, t in pairs(r.by_op) do close(g.by_op[name] or 0, t, what .. " by_op " .. name) end
  for name in pairs(g.by_op) do assert(r.by_op[name], what .. ": extra op " .. name) end
end

T.test("every step is its graph: dlb.serve.time(graphs) = prefill/decode; entries from the 1-2 batch, 0-1 context graphs = the graph built at (B, p)", function()
  local n = 0
  for _, m in ipairs { L7, L3, MI, MX } do
    for _, o in ipairs {
      { hw = "A100-SXM4-80GB", batch = 1, prompt = 128, context = 1000 },
      { hw = "H100-SXM", batch = 16, prompt = 2048, context = 8192, weights = "int4", kv = "fp8" },
      { hw = "L40S", batch = 3, prompt = 300, context = 5000, fused = true, cuda_graphs = true },
      { hw = "H100-SXM", batch = 64, prompt = 64, context = 100, weights = "fp8", launch = "serial", kv_reuse = false },
      { hw = "H100-SXM", batch = 12, prompt = 200, context = 3000, tp = 4 },
    } do
      local pg, dg = S.graphs(m, o)
      local po, dopt = {}, {}
      for k, v in pairs(o) do
        if k ~= "context" then po[k] = v end
        if k ~= "prompt" then dopt[k] = v end
      end
      local what = m.name .. " on " .. o.hw .. (o.tp and " tp " .. o.tp or "")
      same_cost(S.time(pg), S.prefill(m, po), what .. " prefill")
      same_cost(S.time(dg), S.decode(m, dopt), what .. " decode")
      -- g:stats counts the same FLOPs and bytes (the forward analysis)
      local st = dg:stats { inference = true }
      close(st.flops, S.decode(m, dopt).flops, what .. " g:stats flops")
      close(st.bytes, S.decode(m, dopt).bytes, what .. " g:stats bytes")
      -- a step's entries from the graphs at batches 1, 2 and contexts 0, 1 = those of the
      -- graph built at the step itself (a mean batch of continuous batching too)
      local cfg = {}
      for k, v in pairs(o) do if k ~= "batch" and k ~= "prompt" and k ~= "context" then cfg[k] = v end end
      local c = S.config(cfg)
      for _, bp in ipairs { { o.batch, 1, o.context }, { o.batch + 0.37, 1, o.context }, { 7.5, 1, 4500 },
                            { o.batch, o.prompt, 0 }, { 2.25, 5, 77 } } do
        local B, nn, p = bp[1], bp[2], bp[3]
        same_cost(S._step(m, c, B, nn, p), S._step(m, c, B, nn, p, { direct = true }),
          string.format("%s step B %g n %g p %g", what, B, nn, p))
      end
      n = n + 1
    end
  end
  T.eq(n, 20, "cases")
  -- a tied GELU decoder (GPT-2 XL: LayerNorm scale and bias), NF4 weights, an int4 cache
  local G = S.model(dlb.models.gpt { size = "gpt2-xl", batch = 1, seq = 16 })
  local o = { hw = "A100-SXM4-80GB", weights = "nf4", kv = "int4" }
  local pg, dg = S.graphs(G, { hw = o.hw, weights = o.weights, kv = o.kv, batch = 5, prompt = 77, context = 300 })
  same_cost(S.time(pg), S.prefill(G, { hw = o.hw, weights = o.weights, kv = o.kv, batch = 5, prompt = 77 }), "gpt2-xl prefill")
  same_cost(S.time(dg), S.decode(G, { hw = o.hw, weights = o.weights, kv = o.kv, batch = 5, context = 300 }), "gpt2-xl decode")
  T.eq(dg:stats { inference = true, precision = "fp16" }.params, G.params, "gpt2-xl params (tied head, LayerNorm biases)")
  -- an independent count (hand derivation from the spec): Llama-2-7B decode at batch 1,
  -- context 1000 on one GPU. Per layer: GEMMs 2 x (4096 x 12288 + 4096 x 4096 + 4096 x
  -- 22016 + 11008 x 4096) = 2 x 202,375,168; attention 4 x 32 x 128 x 1001 keys; norms 2 x
  -- 4 x 4096, RoPE 6 x 8192, SiLU-gate 4 x 11008, residuals 2 x 4096; LM head 2 x 4096 x
  -- 32000, final norm 4 x 4096
  local per_layer = 2 * 202375168 + 4 * 32 * 128 * 1001 + 8 * 4096 + 6 * 8192 + 4 * 11008 + 2 * 4096
  local want = 32 * per_layer + 2 * 4096 * 32000 + 4 * 4096
  close(S.decode(L7, { hw = "A100-SXM4-80GB", batch = 1, context = 1000 }).flops, want, "hand-counted decode FLOPs")
end)

T.test("a decode step's entries in one pass (between2) = the nested betweens, bit for bit", function()
  -- serve_graph.lua's between2 is between(between(a0, b0, x), between(a1, b1, x), q) without
  -- the two intermediate lists (a closed loop re-times decode steps thousands of times): the
  -- same arithmetic in the same order, so every field must be equal (==), not merely close
  local SG = require "dlbench.serve_graph"
  local function same(u, v, what)
    T.eq(#u, #v, what .. " entries")
    for i, e in ipairs(u) do
      local f = v[i]
      for k = 1, 6 do
        if k == 5 then
          T.eq(e[5] == nil, f[5] == nil, what .. " gemm presence " .. i)
          if e[5] then for j = 1, 4 do T.eq(e[5][j], f[5][j], what .. " gemm " .. i .. "." .. j) end end
        else
          T.eq(e[k], f[k], what .. " field " .. k .. " of " .. i)
        end
      end
      T.eq(e.payload, f.payload, what .. " payload " .. i)
    end
  end
  local n = 0
  for _, m in ipairs { L7, L3, MI } do
    for _, o in ipairs { { hw = "H100-SXM" }, { hw = "A100-SXM4-80GB", tp = 4, weights = "int4", kv = "fp8" } } do
      local c = S.config(o)
      local l = {}
      for _, bp in ipairs { { 1, 0 }, { 2, 0 }, { 1, 1 }, { 2, 1 } } do
        l[#l + 1] = SG._entries_at(m, c, bp[1], 1, bp[2], {})
      end
      for _, bq in ipairs { { 3.37, 4500 }, { 1.5, 3 }, { 255, 1e5 }, { 1.001, 17.25 } } do
        local B, q = bq[1], bq[2]
        local x = B - 1  -- as step_entries forms it
        local want = SG._between(SG._between(l[1], l[2], x), SG._between(l[3], l[4], x), q)
        local what = string.format("%s x %g q %g", m.name, x, q)
        same(SG._between2(l[1], l[2], l[3], l[4], x, q), want, what)
        -- the step at (B, q): past a window the context stops at window - 1
        local qq = m.window and math.min(q, m.window - 1) or q
        same(SG._step_entries(m, c, B, 1, q, {}),
          SG._between(SG._between(l[1], l[2], x), SG._between(l[3], l[4], x), qq), what .. " (step_entries)")
        n = n + 1
      end
    end
  end
  T.eq(n, 24, "cases")
  -- lists that do not pair up: nil, as the nested form
  local c = S.config { hw = "H100-SXM" }
  local a, b = SG._entries_at(L7, c, 1, 1, 0, {}), SG._entries_at(L3, c, 1, 1, 0, { layers = 3 })
  T.eq(SG._between2(a, a, b, b, 1.5, 7), nil, "unpaired lists")
  T.eq(SG._between(a, b, 0.5), nil, "unpaired lists (between)")
end)

T.test("tensor- and pipeline-parallel steps as graphs: allreduce kernels, stages", function()
  local L70 = S.model(dlb.models.llama { size = "70b", batch = 1, seq = 16 })
  -- tp = 4: one rank's graph, heads and the MLP width a quarter, two allreduce kernels a
  -- layer whose payload is T x hidden at fp16 (Megatron-LM's two allreduces per block)
  local o = { hw = "H100-SXM", tp = 4, batch = 8, prompt = 256, context = 1024 }
  local pg, dg = S.graphs(L70, o)
  local ar = 0
  for name, bytes in pairs(dg.serve.comm) do
    ar = ar + 1
    T.eq(bytes, 8 * 8192 * 2, name .. " payload")
  end
  T.eq(ar, 2 * 80, "two allreduces a layer")
  assert(dg:dot():find("layer1.allreduce_attn", 1, true), "the allreduce is an op of the graph")
  local d = S.decode(L70, { hw = "H100-SXM", tp = 4, batch = 8, context = 1024 })
  local t = S.time(dg)
  close(t.comm, d.comm, "comm time")
  assert(t.comm > 0, "collectives cost time")
  -- the allreduce's time: NCCL's model on the device's fabric (collectives = "nccl", the
  -- default), or dlb.parallel.allreduce on the intra-node link (collectives = "alpha-beta")
  local P = dlb.parallel
  local topo = P.nccl_topo(P.cluster { hw = "H100-SXM", per_node = 4, nodes = 1 }, 4, 4)
  local nccl = P.nccl("allreduce", 8 * 8192 * 2, topo).time
  close(t.by_op.allreduce_attn, 80 * nccl, "allreduce_attn = 80 x the collective (NCCL)")
  local link = dlb.hw.get("H100-SXM").links.intra
  local one = P.allreduce { bytes = 8 * 8192 * 2, n = 4, bw = link.bw, latency = link.latency or 0 }
  local oa = { collectives = "alpha-beta" }
  for k, v in pairs(o) do oa[k] = v end
  local _, dga = S.graphs(L70, oa)
  close(S.time(dga).by_op.allreduce_attn, 80 * one, "allreduce_attn = 80 x the collective (alpha-beta)")
  -- a rank holds a quarter of the layers' weights
  local w1 = S.graphs(L70, { hw = "H100-SXM", batch = 1, prompt = 16 })
  local p1 = w1:stats { inference = true, precision = "fp16" }.params
  local p4 = pg:stats { inference = true, precision = "fp16" }.params
  T.eq(p4 < p1 / 3.9, true, "tp = 4 rank's weights")
  -- pp = 2: a stage's graph of one micro-batch (40 layers), through the pipeline in S.time
  local po = { hw = "H100-SXM", tp = 2, pp = 2, batch = 16, prompt = 256, context = 512 }
  local spg, sdg = S.graphs(L70, po)
  T.eq(#sdg._layers, 40, "a stage holds half the layers")
  T.eq(sdg.serve.batch, 8, "a micro-batch of 8 (microbatches = pp)")
  same_cost(S.time(sdg), S.decode(L70, { hw = "H100-SXM", tp = 2, pp = 2, batch = 16, context = 512 }), "pp decode")
  same_cost(S.time(spg), S.prefill(L70, { hw = "H100-SXM", tp = 2, pp = 2, batch = 16, prompt = 256 }), "pp prefill")
  T.checkerr("pp = 3 must divide the model's 80 layers", S.graphs, L70, { hw = "H100-SXM", pp = 3 })
  T.checkerr("pp = 3 must divide the model's 80 layers", S.decode, L70, { hw = "H100-SXM", pp = 3 })
end)

T.test("chunked prefill as a graph: a decode batch and prompt chunks in one iteration", function()
  -- 20 sequences decoding at 700 cached tokens and 3 prompt chunks of 171 tokens after 256
  local g = S.step_graph(L7, { hw = "H100-SXM", batch = 20, context = 700, chunks = { { 3, 171, 256 } } })
  local st = g:stats { inference = true }
  local a = st.analysis
  local F, _, _, _, _, K = core.analysis_arrays(a)
  local att, caches = {}, {}
  for i = 1, #F do
    local name = core.analysis_op_name(a, i - 1)
    if K[i] == 1 then att[name] = F[i] end
  end
  for i = 0, g:ntensors() - 1 do
    local name, dims = core.graph_tensor_info(g._h, i)
    if name:match("^layer1%..*kv_cache$") then caches[name] = dims end
  end
  -- the decode group: 4 x 32 heads x 128 x 701 keys x 20 sequences; the chunk group:
  -- causal pairs 171 x 256 + 171 x 172 / 2 = 58,482 a sequence, 3 sequences
  T.eq(att["layer1.attention"], 4 * 32 * 128 * 701 * 20, "decode group's attention FLOPs")
  T.eq(att["layer1.attention2"], 4 * 32 * 128 * 58482 * 3, "chunk group's attention FLOPs")
  T.eq(tonumber(caches["layer1.attention.kv_cache"][2]), 704, "decode cache: 701 tokens in blocks of 16")
  T.eq(tonumber(caches["layer1.attention2.kv_cache"][1]), 3, "chunk cache: 3 sequences")
  T.eq(tonumber(caches["layer1.attention2.kv_cache"][2]), 432, "chunk cache: 427 tokens in blocks of 16")
  -- the chunk's tokens join the GEMMs: m = 20 + 3 x 171 = 533
  local found
  for i = 1, #F do
    if core.analysis_op_name(a, i - 1) == "layer1.qkv" then found = core.analysis_gemm(a, i - 1) end
  end
  T.eq(found, 533, "qkv GEMM rows")
  -- dlb.serve.time of it = the iteration continuous batching times
  local c = S.config { hw = "H100-SXM" }
  same_cost(S.time(g), S._step(L7, c, 20, 1, 700, { mix = { { 3, 171, 256 } } }), "chunked iteration")
  -- a dense model's chunked iteration from the graphs at (batch, chunk tokens) = (1, 1),
  -- (1, 2), (1, 3), (2, 1) = the graph built at it (continuous batching's mean batch and
  -- mean chunk: not whole numbers)
  for _, m in ipairs { L7, L3 } do
    for _, k in ipairs { { 20, 3, 171, 256 }, { 37.4, 2, 300.25, 400 }, { 1, 1, 2048, 0 } } do
      local o = { mix = { { k[2], k[3], k[4] } } }
      same_cost(S._step(m, c, k[1], 1, 900, o), S._step(m, c, k[1], 1, 900, { mix = o.mix, direct = true }),
        string.format("%s chunked B %g, %g x %g tokens", m.name, k[1], k[2], k[3]))
    end
  end
  T.checkerr("chunks[1][1] (sequences) must be a positive integer", S.step_graph, L7, { hw = "H100-SXM", chunks = { { 0, 1 } } })
  T.checkerr("chunks (chunked prefill) with pp > 1", S.step_graph, L7, { hw = "H100-SXM", pp = 2, chunks = { { 1, 1 } } })
  T.checkerr("option 'chunks' does not apply here", S.decode, L7, { hw = "H100-SXM", chunks = 3 })
end)

T.test("the graphs: layers, parameters, the paged KV cache as inputs (524,288 / 131,072 B per token)", function()
  for _, c in ipairs { { L7, 524288, 32 }, { L3, 131072, 32 } } do
    local m, per_token, L = c[1], c[2], c[3]
    local pg, dg = S.graphs(m, { hw = "A100-SXM4-80GB", batch = 2, prompt = 100, context = 1000 })
    T.eq(dg:stats { inference = true, precision = "fp16" }.params, m.params, m.name .. " params = the spec's")
    T.eq(#dg._layers, L, "one scope a layer")
    -- each layer's cache [B, cached, 2 x kv_heads x head_dim] at fp16, 1,001 tokens in
    -- blocks of 16: 1,008
    local width, caches = 0, 0
    for i = 0, dg:ntensors() - 1 do
      local name, dims, dt = core.graph_tensor_info(dg._h, i)
      if name:match("kv_cache$") then
        caches = caches + 1
        T.eq(tonumber(dims[1]), 2, "batch"); T.eq(tonumber(dims[2]), 1008, "paged: whole blocks")
        width = width + tonumber(dims[3])
      end
    end
    T.eq(caches, L, "a cache a layer")
    T.eq(width * 2, per_token, m.name .. " KV bytes per token from the graph's caches")
    T.eq(width * 2, S.kv_bytes_per_token(m), "= dlb.serve.kv_bytes_per_token")
    -- the prefill's cache holds the prompt, rounded up to blocks: 112
    local _, pd = core.graph_tensor_info(pg._h, (function()
      for i = 0, pg:ntensors() - 1 do if core.graph_tensor_info(pg._h, i):match("kv_cache$") then return i end end
    end)())
    T.eq(tonumber(pd[2]), 112, "prefill cache")
    -- one fused-attention kernel a layer, marked for the per-op rule
    local _, _, _, _, _, K = core.analysis_arrays(dg:stats { inference = true }.analysis)
    local att = 0
    for _, k in ipairs(K) do if k == 1 then att = att + 1 end end
    T.eq(att, L, "attention kernels")
    assert(dg:dot():find("layer1.attention", 1, true), "g:dot shows the kernels")
    -- dlb.roofline.time runs on it (at the activation precision)
    local r = dlb.roofline.time(dg:stats { inference = true, precision = "fp16" }, "A100-SXM4-80GB")
    T.eq(r.bound, "memory", "decode is memory-bound")
  end
  -- sliding window: the cache stops at the window
  local _, dg = S.graphs(MI, { hw = "A100-SXM4-80GB", batch = 1, prompt = 16, context = 10000 })
  for i = 0, dg:ntensors() - 1 do
    local name, dims = core.graph_tensor_info(dg._h, i)
    if name:match("kv_cache$") then T.eq(tonumber(dims[2]), 4096, "window-capped cache") end
  end
  -- MoE: experts as [E, k, n] weights; params = the spec's (46.7 B)
  local _, mg = S.graphs(MX, { hw = "H100-SXM", batch = 4, prompt = 64 })
  T.eq(mg:stats { inference = true, precision = "bf16" }.params, MX.params, "mixtral params")
end)

T.test("g:kernel: given costs exact, forward only, bad input named", function()
  local g = dlb.graph("k")
  local x = g:input("x", { 4, 8 })
  local w = g:weight("w", { 8, 16 })
  local y = g:kernel({ x, w }, { 4, 16 }, { name = "mm", flops = 1e12 / 3, bytes = 12345.5, gemm = { 4, 16, 8, 1 } })
  g:kernel({ y }, { 4, 16 }, { name = "att", flops = 7, bytes = 0.1, attention = true })
  local s = g:stats { inference = true }
  local F, B, _, _, Ty, K = core.analysis_arrays(s.analysis)
  T.eq(F[1], 1e12 / 3, "FLOPs exact (not snapped to an integer)")
  T.eq(B[1], 12345.5, "bytes exact"); T.eq(B[2], 0.1, "bytes")
  T.eq(core.graph_op_type_name(Ty[1]), "kernel", "op type")
  T.eq(K[1], 0, "plain"); T.eq(K[2], 1, "attention mark")
  local m, n, k, b = core.analysis_gemm(s.analysis, 0)
  T.eq(m, 4); T.eq(n, 16); T.eq(k, 8); T.eq(b, 1)
  T.eq(core.analysis_gemm(s.analysis, 1), nil, "no GEMM shape")
  T.eq(s.params, 128, "its weights are the graph's")
  -- symbolic costs: dims left unbound
  local h = dlb.graph("sym")
  local xs = h:input("x", { "b", 8 })
  h:kernel({ xs }, { "b", 8 }, { flops = "3*b", bytes = "2*b + 1" })
  local ss = h:stats { inference = true }
  T.eq(tostring(ss.flops), "3*b", "symbolic FLOPs")
  T.eq(h:stats { inference = true, b = 5 }.bytes, 11, "given bytes evaluated")
  -- training refuses it
  g:loss(g:mean(y))
  T.checkerr("is a kernel op (given costs, forward only); pass inference=true", g.stats, g, {})
  T.checkerr("FLOPs is -1", g.kernel, g, { x }, { 4 }, { flops = -1, bytes = 1 })
  T.checkerr("flops= and bytes= are required", g.kernel, g, { x }, { 4 }, { flops = 1 })
  T.checkerr("gemm must be {m, n, k, batch}", g.kernel, g, { x }, { 4 }, { flops = 1, bytes = 1, gemm = { 1, 2 } })
  T.checkerr("output dim 1 is 2.5", g.kernel, g, { x }, { 2.5 }, { flops = 1, bytes = 1 })
  T.checkerr("must be finite", g.kernel, g, { x }, { 4 }, { flops = 0 / 0, bytes = 1 })
  T.checkerr("unknown option", g.kernel, g, { x }, { 4 }, { flops = 1, bytes = 1, flop = 2 })
  -- through the generic op: wrong dims count, bad marks
  T.checkerr("takes 3 dims", core.graph_op, g._h, core.graph_op_type("kernel"), nil, { x.id }, { 0, 0, 1, 0 }, { "1", "2" })
  T.checkerr("marks must be 0 or 1", core.graph_op, g._h, core.graph_op_type("kernel"), nil, { x.id }, { 2, 0, 1, 0 }, { "1", "2", "3" })
end)

T.test("bad input: graphs that are not serving steps", function()
  T.checkerr("option 'output' does not apply here", S.graphs, L7, { hw = "H100-SXM", output = 3 })
  T.checkerr("expected a graph from dlb.serve.graphs", S.time, dlb.graph("x"))
  T.checkerr("expected a graph from dlb.serve.graphs", S.time, 3)
end)

-- (fixes8) The step graphs are kept per spec fields; the key was joined once a spec, so a
-- spec edited afterwards was timed on its old fields' graphs.
T.test("a spec edited after a time is timed on its new fields (= a fresh spec's time)", function()
  local function spec(layers)
    return S.model { name = "edit-test", layers = layers, hidden = 1024, heads = 8, ffn = 4096,
      vocab = 32000, mlp = "swiglu" }
  end
  local o = { hw = "H100-SXM", batch = 4, context = 512 }
  local s = spec(4)
  local before = S.decode(s, o).time
  s.layers = 8
  local edited, fresh = S.decode(s, o), S.decode(spec(8), o)
  assert(edited.time > before, "8 layers take longer than 4: " .. edited.time .. " vs " .. before)
  T.eq(edited.time, fresh.time)
  T.eq(edited.flops, fresh.flops)
  s.layers = 4
  T.eq(S.decode(s, o).time, before, "edited back")
end)

T.done()
