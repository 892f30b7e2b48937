-- test_finetune_memory.lua — memory of fine-tuning set-ups (issue [18] items 4 and 5):
-- frozen weights carry no gradient or optimizer state in any memory rule, one number called
-- footprint, weight-only quantisation (int8, fp8, nf4, int4 with their block scales), LoRA
-- on MoE experts, offload in roofline.time and parallel.evaluate with the host link's time,
-- device names and layer precisions in dlb.parallel, the memory a stack adds beyond the
-- graph's tensors (the hf-trainer / hf-deepspeed profiles' memory terms, weights that train
-- in their own type or as PEFT copies), and published measured peak memory
-- (notebooks/data/memory_measured.lua) within what that file says of each row.
local T = require "harness"
local dlb = require "dlbench"
local P, R = dlb.parallel, dlb.roofline

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local D = dofile(here .. "/../../notebooks/data/memory_measured.lua")

local function rel(a, b) return math.abs(a - b) / math.abs(b) end

T.test("frozen weights: no gradients in need; footprint = need (Mixtral LoRA, issue [18])", function()
  -- two Mixtral-8x7B blocks, LoRA rank 16 on q, k, v, out (the issue's case, fewer blocks)
  local g = dlb.models.moe { size = "mixtral-8x7b", layers = 2, seq = 512, batch = 1,
    lora = { rank = 16, targets = { "q", "k", "v", "out" } } }
  -- the step under the default profile (framework = "auto"), the one roofline.time times
  local s = g:stats { precision = "mixed_bf16", framework = "auto" }
  -- 2 blocks x 4 matrices x 16 x (4096 + out): q, out 4096; k, v 1024 (8 K/V heads of 128)
  T.eq(s.trainable, 2 * 16 * ((4096 + 4096) * 2 + (4096 + 1024) * 2), "trainable (Hu et al. count)")
  local r = R.time(s, "H100")
  T.eq(r.footprint, r.need, "one footprint: the bytes compared with memory")
  -- framework schedule: weights + trainable x 2 gradient bytes + optimizer + activations
  local bd = s.breakdown
  T.near(r.need, bd.weights + s.trainable * 2 + bd.optimizer + bd.activations + bd.workspace,
    1e-12, "gradients of the trainable weights only")
  -- before: every frozen weight got a gradient (190.9 vs 97.5 GB at 32 blocks); now the
  -- framework memory and the engine's scheduled peak agree within 1%
  assert(rel(r.footprint, s.footprint) < 0.01, r.footprint .. " vs " .. s.footprint)
  assert(tostring(r):find("footprint " .. dlb.pretty.si(r.footprint, "B"), 1, true), tostring(r))
  -- GPT-2 XL with LoRA (the issue's 7.4 vs 10.6 GB)
  local s2 = dlb.models.gpt { size = "gpt2-xl", seq = 1024, batch = 1,
    lora = { rank = 8, targets = { "q", "v" } } }:stats { precision = "mixed", framework = "auto" }
  local r2 = R.time(s2, "H100")
  assert(rel(r2.footprint, s2.footprint) < 0.01, r2.footprint .. " vs " .. s2.footprint)
end)

T.test("offload: the device's footprint in need, the host link's time in the step", function()
  local g = dlb.models.gpt { size = "gpt2-xl", seq = 1024, batch = 1 }
  local full = g:stats { precision = "mixed", optimizer = "adam" }
  local s = g:stats { precision = "mixed", optimizer = "adam", offload = { "optimizer", "params" },
    framework = "auto" }
  local r = R.time(s, "H100")
  T.eq(r.footprint, r.need, "one footprint")
  -- the issue: 7.1 GB footprint but "needs 99.5 GB"; now need is the device's own
  assert(rel(r.need, s.footprint) < 0.05, r.need .. " vs " .. s.footprint)
  assert(r.need < R.time(full, "H100").need / 3, "offload saves most of the memory")
  -- H100 SXM's host link: PCIe Gen5 x16, 63 GB/s each way (catalogue, derived from PCI-SIG)
  T.eq(dlb.hw.get("H100").links.host.bw, 63e9, "host link")
  T.near(r.offload_time, s.offload.traffic / 63e9, 1e-12, "traffic over the host link")
  -- activation offload: the kept activations go to the host and back; about one layer's stay
  local sa = g:stats { precision = "mixed", optimizer = "adam", offload = "activations" }
  local ra = R.time(sa, "H100")
  assert(ra.footprint < R.time(full, "H100").footprint, "less device memory")
  T.near(sa.offload.traffic, 2 * (full.breakdown.activations - sa.offload.activations_kept),
    1e-9, "out and back")
  T.eq(ra.footprint, ra.need, "one footprint")
  T.checkerr("offload must be", g.stats, g, { offload = "disk" })
end)

T.test("weight-only quantisation: nf4, int4, int8, fp8 weights with their block scales", function()
  local function w(q)
    local g = dlb.models.llama { size = "7b", layers = 2, seq = 128, batch = 1, quantize = q }
    return g:stats { precision = "mixed_bf16" }
  end
  local base = w(nil)
  -- 2 blocks: 4 x 4096^2 + 3 x 4096 x 11008 per block are quantised; embeddings, head and
  -- norms stay (transformers' get_keys_to_not_convert)
  local n = 2 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
  local keep = base.breakdown.weights - n * 2
  -- QLoRA sec. 3: NF4 with double quantisation, 4 + 8/64 + 32/(64 x 256) bits per weight
  T.near(w("nf4").breakdown.weights, keep + n * (4 + 8 / 64 + 32 / (64 * 256)) / 8, 1e-12, "nf4")
  -- GPTQ: 4 bits + an fp16 scale and a 4-bit zero per group of 128
  T.near(w("int4").breakdown.weights, keep + n * (4 + 20 / 128) / 8, 1e-12, "int4")
  T.near(w("int8").breakdown.weights, keep + n, 1e-12, "int8")
  T.near(w("fp8").breakdown.weights, keep + n, 1e-12, "fp8")
  -- quantised weights are frozen: no gradient, no optimizer state; FLOPs unchanged
  local q = w("nf4")
  T.eq(q.trainable, base.params - n, "quantised weights do not train")
  T.eq(q.flops_fwd, base.flops_fwd, "forward FLOPs unchanged")
  -- QLoRA = LoRA + quantize
  local ql = dlb.models.llama { size = "7b", layers = 2, seq = 128, batch = 1, quantize = "nf4",
    lora = { rank = 64, targets = { "q", "k", "v", "out" } } }:stats { precision = "mixed_bf16" }
  T.eq(ql.trainable, 2 * 4 * 64 * (4096 + 4096), "adapters only")
  -- any graph, by name or pattern; bad input is named
  local g = dlb.graph("m")
  local x = g:input("x", { "b", 64 })
  local wt = g:weight("w", { 64, 64 })
  g:loss(g:softmax_xent(g:matmul(x, wt), g:label("y", { "b" })))
  T.eq(g:quantize("int8", "w"), 1, "one weight")
  T.eq(wt:info().dtype, "int8", "its dtype")
  T.checkerr("dtype must be one of", g.quantize, g, "int3")
  T.checkerr("no weight's name matches", g.quantize, g, "nf4", "nothing")
  T.checkerr("unknown option 'skp'", g.quantize, g, "nf4", { skp = {} })
  T.checkerr("quantize: dtype must be one of", dlb.models.gpt, { size = "gpt2", quantize = "q2" })
end)

T.test("MoE experts are named and take LoRA adapters", function()
  local g = dlb.models.moe { size = "mixtral-8x7b", layers = 1, seq = 16, batch = 1,
    lora = { rank = 16, targets = { "w1", "w2", "w3" } } }
  local names = {}
  for _, o in ipairs(g:ops {}) do if o.phase == "fwd" then names[o.name] = o.type end end
  for _, n in ipairs { "h0/experts/w1", "h0/experts/w2", "h0/experts/w3" } do
    T.eq(names[n], "matmul", n)
    T.eq(names[n .. "/lora_A"], "matmul", n .. " adapter")
  end
  -- 8 experts x 3 matrices x 16 x (4096 + 14336), as PEFT counts Mixtral's w1, w2, w3
  T.eq(g:stats {}.trainable, 8 * 3 * 16 * (4096 + 14336), "trainable")
end)

T.test("parallel: frozen and quantised weights, offload, device names, layer precision", function()
  local g = dlb.models.gpt { size = "gpt2-xl", seq = 1024, batch = 2,
    lora = { rank = 8, targets = { "q", "v" } }, quantize = "nf4" }
  local s = g:stats { precision = "mixed" }
  local r = R.time(s, "H100")
  -- a device name works in plan/evaluate as in roofline.time
  local e = P.evaluate { graph = g, hw = "H100", batch = 2, dp = 1 }
  assert(rel(e.mem, r.footprint) < 0.01, e.mem .. " vs " .. r.footprint)
  assert(rel(e.step, r.time) < 0.01, e.step .. " vs " .. r.time)
  -- built under the default profile, as evaluate{graph=} times the graph
  local ls = P.layers.from_graph(g, { framework = "auto" })
  T.eq(ls.precision, "mixed", "layers carry their precision")
  local e2 = P.evaluate { layers = ls, hw = "H100", batch = 2, dp = 1 }
  T.near(e2.step, e.step, 1e-12, "layers= takes the precision they were built with")
  T.checkerr("the layers carry no precision", P.evaluate,
    { layers = { ls[1], ls[2] }, hw = "H100", batch = 2, dp = 1 })
  -- data parallelism all-reduces the trainable parameters' gradients only
  local d = P.data { stats = s, hw = "H100", workers = 8, subbatch = 2 }
  -- (at the default profile's reduce dtype, torchtitan's fp32: 4 bytes each, as evaluate
  -- and plan reduce them; the bf16 gradients held are 2 bytes each)
  T.eq(d.grad_bytes, s.trainable * 4, "allreduce of the adapters")
  local t = P.plan { graph = g, hw = "H100", devices = 8, batch = 16 }
  assert(#t > 0 and t[1].mem_grads < 1e8, "plan: no gradients for frozen weights")
  T.checkerr("unknown device", P.plan, { graph = g, hw = "H1OO", devices = 8, batch = 16 })
  -- offload in evaluate: memory moves to the host, its traffic over the host link
  local o = P.evaluate { graph = g, hw = "H100", batch = 2, dp = 1, offload = { "optimizer", "params" } }
  assert(o.mem < e.mem, "less device memory")
  T.near(o.offload_time, o.offload.traffic / 63e9, 1e-12, "host link time")
  -- the link added to the step, the update moved from the device to the host CPU
  T.near(o.step, e.step - e.update + o.offload_time + o.cpu_update_time, 1e-12, "added to the step")
  T.near(o.update_device_saved, e.update, 1e-12, "the device's update phase left the step")
  T.checkerr("offload must be", P.evaluate, { graph = g, hw = "H100", batch = 2, dp = 1, offload = "disk" })
end)

T.test("layers.transformer is the graph path: time and memory within 2% across sizes", function()
  for _, c in ipairs { { layers = 4, d = 512, heads = 8, seq = 256 },
                       { layers = 8, d = 1024, heads = 16, seq = 512 },
                       { layers = 4, d = 2048, heads = 16, seq = 1024 } } do
    local cf = P.layers.transformer { layers = c.layers, d = c.d, seq = c.seq, heads = c.heads,
      vocab = 32000, dropout = false }
    local g = dlb.models.gpt { layers = c.layers, hidden = c.d, heads = c.heads, seq = c.seq,
      context = c.seq, vocab = 32000 }
    for _, rc in ipairs { false, true } do
      local a = P.evaluate { layers = cf, hw = "A100-SXM4-80GB", batch = 8, dp = 1, recompute = rc }
      local b = P.evaluate { graph = g, hw = "A100-SXM4-80GB", batch = 8, dp = 1, recompute = rc }
      assert(rel(a.step, b.step) < 0.02 and rel(a.mem, b.mem) < 0.02,
        string.format("d %d: step %g vs %g, mem %g vs %g", c.d, a.step, b.step, a.mem, b.mem))
    end
  end
  -- fusion passes reach the graph's layers (FlashAttention: no s x s scores)
  local a = P.evaluate { layers = P.layers.transformer { layers = 4, d = 1024, heads = 16,
    seq = 1024, vocab = 32000, dropout = false, fuse = true }, hw = "A100-SXM4-80GB", batch = 8, dp = 1 }
  local b = P.evaluate { graph = dlb.models.gpt { layers = 4, hidden = 1024, heads = 16, seq = 1024,
    context = 1024, vocab = 32000 }, hw = "A100-SXM4-80GB", batch = 8, dp = 1, fuse = true }
  assert(rel(a.step, b.step) < 0.02 and rel(a.mem, b.mem) < 0.02, "fused: " .. a.step .. " vs " .. b.step)
  -- the papers' closed forms stay, as formulas (one op per layer, no optimizer update)
  local f = P.layers.transformer_formula { layers = 2, d = 1024, seq = 512, heads = 16 }
  T.eq(f[2].params, 12 * 1024 * 1024, "12 d^2 (Narayanan et al. 2021)")
end)

T.test("fused attention under recompute: the recomputed chain is the fused kernel", function()
  -- before: the recompute phase re-materialised the s x s scores (activations grew
  -- quadratically with seq under fuse + recompute); now linear
  local function act(seq)
    return dlb.models.llama { size = "7b", layers = 2, seq = seq, batch = 1 }:stats {
      precision = "mixed_bf16", recompute = 1, fuse = { "attention" } }.breakdown.activations
  end
  local a1, a2 = act(2048), act(4096)
  assert(a2 / a1 < 2.1, "linear in seq: " .. a2 / a1)
end)

T.test("what a stack adds: the unfused loss and ZeRO-2's gradient buffers (hf profiles)", function()
  -- pytorch-ddp and hf-trainer fuse the same passes (attention, optimizer) on a transformer:
  -- the graph's step is the same, the difference is the profile's memory table
  local V, q = 32000, 128
  local g = dlb.models.llama { size = "7b", layers = 2, seq = q, batch = 1, vocab = V }
  local base = g:stats { precision = "mixed_bf16", framework = "pytorch-ddp" }
  local hf = g:stats { precision = "mixed_bf16", framework = "hf-trainer" }
  local n = q * V -- logit elements (batch 1)
  -- under autocast: logits 2 + shifted copy 2 + fp32 upcast 4 + fp32 log_softmax 4 = 12 B per
  -- element (Qwen / transformers modeling code; PyTorch AMP's fp32 ops), the fused graph's 2 x 2
  T.eq(hf.framework_memory.loss.elements, n, "the logits of the one softmax_xent")
  T.eq(hf.framework_memory.loss.per_element, 12)
  -- and the CUDA context with PyTorch's kernels, 1343 MiB (HF docs, "Model training anatomy")
  local ctx = 1343 * 1048576
  T.eq(hf.framework_memory.context.bytes, ctx)
  -- (and AdamW's step temporaries where they exceed the activations: tested below)
  local step = hf.framework_memory.optimizer_step.bytes
  -- the step's largest activations (the framework schedule's, issue [18] item 5) differ by
  -- the eager RMSNorm's fp32 upcast hf-trainer's profile keeps (s.norm_upcast): at the old
  -- rule's moment (the optimizer step, no activation live) it did not show
  T.eq(hf.norm_upcast, true)
  local up = hf.act_peak - base.act_peak
  assert(up > 0, "the upcast's bytes: " .. up)
  T.eq(hf.footprint - base.footprint, (12 - 4) * n + ctx + step + up, "footprint")
  T.eq(hf.breakdown.activations - base.breakdown.activations, (12 - 4) * n + up, "activations")
  local r = R.time(hf, "H100")
  T.eq(r.footprint, r.need, "one footprint")
  T.near(r.need - R.time(base, "H100").need, (12 - 4) * n + ctx + step + up, 1e-12, "need carries it")
  -- parallel.evaluate{graph=} builds its layers under the profile: the loss bytes are per
  -- sample and reach it; the per-device terms (the context, the step's temporaries) are
  -- added to the layout's device (one footprint: tested below)
  local e = P.evaluate { graph = g, hw = "H100", batch = 1, dp = 1, framework = "hf-trainer",
    precision = "mixed_bf16" }
  T.near(e.mem, r.need, 1e-12, "evaluate's mem is need")
  T.near(e.mem_framework, ctx + step, 1e-12, "the row's per-device terms")
  -- fp32 steps have no 16-bit autocast: logits, copy, log_softmax at 4 B against 2 x 4
  -- (and the eager RMSNorm's saved x_normed in the step's largest activations)
  local f32 = g:stats { precision = "fp32", framework = "hf-trainer", optimizer = "sgd" }
  local b32 = g:stats { precision = "fp32", framework = "pytorch-ddp", optimizer = "sgd" }
  T.eq(f32.footprint - b32.footprint, 4 * n + ctx + (f32.act_peak - b32.act_peak))
  -- the DeepSpeed engine (no autocast): 3 x 2 B against 2 x 2; ZeRO-2's contiguous gradient
  -- buffer at DeepSpeed's defaults (one of 5e8 fp16 elements: stage_1_and_2.py backward)
  local ds = g:stats { precision = "mixed", framework = "hf-deepspeed" }
  -- and its step's fp32 copy of the gradient partition (stage_1_and_2.py step), 4 B per
  -- trainable parameter on one device, beyond the activations (DeepSpeed's Adam: no foreach
  -- temporaries)
  local dstep = ds.framework_memory.optimizer_step
  T.eq(dstep.temporaries, 4 * ds.trainable, "fp32 gradient partition")
  -- (+ the step's largest activations' difference: hf-deepspeed's eager RMSNorm upcast, above)
  T.eq(ds.footprint - base.footprint, 2 * n + 5e8 * 2 + ctx + dstep.bytes + (ds.act_peak - base.act_peak),
    "loss + bucket + context + step")
  T.eq(ds.breakdown.workspace - base.breakdown.workspace, 5e8 * 2 + ctx + dstep.bytes, "workspace")
  -- a run's own ds_config: overlap_comm (two buffers) and reduce_bucket_size 2e8
  local p = dlb.frameworks.derive("hf-deepspeed",
    { memory = { loss = { autocast = false }, buckets = { count = 2, elements = 2e8 } } }) -- no context
  assert(p.title:find("derived: memory", 1, true), p.title)
  local d2 = g:stats { precision = "mixed", framework = p }
  T.eq(d2.footprint - base.footprint, 2 * n + 2 * 2e8 * 2 + (d2.act_peak - base.act_peak),
    "derived buckets (no context, no step term)")
  T.eq(d2.framework, "hf-deepspeed", "the derived profile keeps its name")
  T.checkerr("unknown option 'bukets'", dlb.frameworks.derive, "hf-deepspeed", { bukets = {} })
  T.checkerr("unknown framework", dlb.frameworks.derive, "hf-deepspeeed", {})
  -- symbolic dims bound by the call; two losses count both; inference has no loss backward
  local h = dlb.graph("two heads")
  local x = h:input("x", { "b", 64 })
  local w1, w2 = h:weight("w1", { 64, 1000 }), h:weight("w2", { 64, 10 })
  local l1 = h:softmax_xent(h:matmul(x, w1), h:label("y1", { "b" }))
  local l2 = h:softmax_xent(h:matmul(x, w2), h:label("y2", { "b" }))
  h:loss(h:add(l1, l2))
  T.eq(h:stats { b = 8, precision = "mixed", framework = "hf-trainer" }.framework_memory.loss.elements,
    8 * 1000 + 8 * 10, "both logits, b bound")
  T.eq(g:stats { precision = "mixed_bf16", framework = "hf-trainer", inference = true }.framework_memory,
    nil, "no loss backward in inference")
  -- a loss that is not softmax_xent: the term says it found no logits
  local m = dlb.graph("mse")
  local mx = m:input("x", { 4, 8 })
  m:loss(m:mse(m:matmul(mx, m:weight("w", { 8, 8 })), m:label("y", { 4, 8 })))
  local ml = m:stats { precision = "mixed", framework = "hf-trainer", optimizer = "sgd" }.framework_memory.loss
  T.eq(ml.bytes, 0); assert(ml.note:find("no g:softmax_xent", 1, true), ml.note)
  -- the algorithmic step and profiles without a memory table add nothing
  T.eq(g:stats { precision = "mixed_bf16" }.framework_memory, nil)
  T.eq(base.framework_memory, nil)
end)

T.test("one footprint: g:stats, roofline.time, evaluate, plan, parallel.data (hf profiles)", function()
  -- the same single-device step through every memory rule: g:stats' footprint under the
  -- profile (every trainable gradient held to the step: the framework schedule),
  -- roofline.time's need and a dp = tp = pp = 1 evaluate / one-device plan row, equal
  local g = dlb.models.llama { size = "7b", layers = 2, seq = 128, batch = 1, vocab = 32000 }
  local FM = require "dlbench.framework_memory"
  for _, fw in ipairs { "hf-trainer", "hf-deepspeed" } do
    local s = g:stats { precision = "mixed_bf16", framework = fw }
    local r = R.time(s, "H100")
    local e = P.evaluate { graph = g, hw = "H100", batch = 1, dp = 1, framework = fw,
      precision = "mixed_bf16" }
    T.near(s.footprint, r.need, 1e-12, fw .. ": footprint = need")
    T.near(e.mem, s.footprint, 1e-12, fw .. ": evaluate = footprint")
    T.eq(e.fits, r.fits)
    -- the row says which terms it added, each the g:stats term of the same name
    for k, v in pairs(s.framework_memory) do
      if k ~= "loss" then T.near(e.framework_memory[k].bytes, v.bytes, 1e-12, fw .. " " .. k) end
    end
    T.near(e.mem_framework, FM.device_bytes(s.framework_memory), 1e-12)
    assert(e.mem_terms:find("context 1.41 GB", 1, true), e.mem_terms)
    -- printed as one footprint with the terms it holds, in g:stats and in the row
    assert(tostring(s):find("footprint " .. dlb.pretty.si(s.footprint, "B") .. " (with the stack's loss", 1, true),
      tostring(s))
    -- the graph scheduler's own peak stays beside it, smaller (gradients applied as made)
    assert(s.footprint_graph < s.footprint, s.footprint_graph .. " vs " .. s.footprint)
    T.eq(r.footprint_graph, s.footprint_graph)
    -- the same rule under the other schedule and with the allocator's slack
    for _, o in ipairs { { schedule = "minimal", slack = 0.1 }, { slack = 0.1 } } do
      local em = P.evaluate { graph = g, hw = "H100", batch = 1, dp = 1, framework = fw,
        precision = "mixed_bf16", schedule_mem = o.schedule, slack = o.slack }
      T.near(em.mem, R.time(s, "H100", o).need, 1e-12, fw .. " " .. tostring(o.schedule))
    end
    local p = P.plan { graph = g, hw = "H100", batch = 1, devices = 1, framework = fw,
      precision = "mixed_bf16", recompute = false }
    T.near(p[1].mem, s.footprint, 1e-12, fw .. ": a one-device plan row = footprint")
    assert(tostring(p[1]):find("footprint " .. string.format("%.1f", s.footprint / 1e9)
      .. " GB per device (fits, with the stack's context", 1, true), tostring(p[1]))
    -- data parallelism alone: the per-device terms once per worker, not per sample
    local d = P.data { stats = s, subbatch = 1, hw = "H100", workers = 2 }
    T.near(d.mem, s.footprint, 1e-12, fw .. ": parallel.data at the stats' batch")
  end
  -- hf-trainer's eager RMSNorm (its norm.upcast: transformers' LlamaRMSNorm keeps x_fp32 and
  -- x_normed for the backward, graphs/step/train.c) at a length where the peak holds the saved
  -- activations: 5 norms (2 a block + the final one) x 4 B x 4096 x 4096 more, the same bytes
  -- in g:stats, need, evaluate and a one-device plan row (tests/lua/test_norm_upcast.lua has
  -- the hand counts and the compiled sweep)
  local g4 = dlb.models.llama { size = "7b", layers = 2, seq = 4096, batch = 1, vocab = 32000 }
  local d = {}
  for i, fw in ipairs { "hf-trainer", dlb.frameworks.derive("hf-trainer",
      { norm = { upcast = false, source = "test: the fused norm's count" } }) } do
    local s = g4:stats { precision = "mixed_bf16", framework = fw }
    local e = P.evaluate { graph = g4, hw = "H100", batch = 1, dp = 1, framework = fw,
      precision = "mixed_bf16" }
    local p = P.plan { graph = g4, hw = "H100", batch = 1, devices = 1, framework = fw,
      precision = "mixed_bf16", recompute = false }
    d[i] = { s.footprint, R.time(s, "H100").need, e.mem, p[1].mem }
  end
  for k, what in ipairs { "g:stats", "need", "evaluate", "plan" } do
    T.near(d[1][k] - d[2][k], 5 * 4 * 4096 * 4096, 1e-9, "hf-trainer's RMSNorm upcast in " .. what)
  end
  -- sharded as the stack shards them: on 8 devices the context stays whole, the step's
  -- temporaries follow the device's share of the optimizer state (ZeRO-2 over dp 8: 1/8)
  local p8 = P.evaluate { graph = g, hw = "H100", batch = 8, dp = 8, zero = 2,
    framework = "hf-deepspeed", precision = "mixed_bf16" }
  local ds = g:stats { precision = "mixed_bf16", framework = "hf-deepspeed" }
  T.eq(p8.framework_memory.context.bytes, ds.framework_memory.context.bytes)
  T.eq(p8.framework_memory.buckets.bytes, ds.framework_memory.buckets.bytes, "per rank")
  T.near(p8.framework_memory.optimizer_step.temporaries,
    ds.framework_memory.optimizer_step.temporaries / 8, 1e-9, "the partition's fp32 copy")
  -- a plan keeps only layouts that fit with the terms: a device just too small for them
  local tight = dlb.hw.get("H100"):with { mem = ds.footprint - 1 }
  T.checkerr("no layout fits", P.plan, { graph = g, hw = tight, batch = 1, devices = 1,
    framework = "hf-deepspeed", precision = "mixed_bf16", recompute = false, zero = 0 })
  -- optimizer offload: the step runs on the host, no step temporaries on the device
  local off = P.evaluate { graph = g, hw = "H100", batch = 1, dp = 1, framework = "hf-trainer",
    precision = "mixed_bf16", offload = "optimizer" }
  T.eq(off.framework_memory.optimizer_step, nil)
  T.eq(g:stats { precision = "mixed_bf16", framework = "hf-trainer", offload = "optimizer" }
    .framework_memory.optimizer_step, nil, "g:stats the same")
  -- an inference step holds no gradients: roofline.time's need was its footprint plus a
  -- gradient per parameter; now the same number (and parallel.data's)
  local inf = g:stats { precision = "mixed_bf16", inference = true, framework = "torchtitan" }
  T.eq(R.time(inf, "H100").need, inf.footprint, "inference: need = footprint")
  T.eq(P.data { stats = inf, subbatch = 1, hw = "H100", workers = 2 }.mem, inf.footprint)
  -- profiles without a memory table add nothing and say so
  local t = P.evaluate { graph = g, hw = "H100", batch = 1, dp = 1, framework = "torchtitan" }
  T.eq(t.mem_framework, 0); T.eq(t.mem_terms, "none")
end)

T.test("one footprint across sizes: every profile, seq 128..8192, batch 1 and 2", function()
  -- g:stats' footprint under a profile, roofline.time's need and a dp = tp = pp = 1
  -- evaluate row are one number at every size, not only where the optimizer step's
  -- temporaries fill the live bytes up (seq 128). Before branch split-footprint the
  -- planner's layers carried the peak's activations without its workspace (the scratch of
  -- the op at the peak: a norm backward's two fp32 per token row, docs/graph.md
  -- "Workspace"), so the row was 8 B per token below: 32 KiB for hf-trainer at seq 4096.
  local names = {}
  for _, f in ipairs(dlb.frameworks.list()) do
    if f.name ~= "none" then names[#names + 1] = f.name end
  end
  assert(#names >= 10, "the profiles: " .. #names)
  local function same(g, fw, B, what)
    local s = g:stats { precision = "mixed_bf16", framework = fw }
    local r = R.time(s, "H100")
    local e = P.evaluate { graph = g, hw = "H100", batch = B, dp = 1, framework = fw,
      precision = "mixed_bf16" }
    T.near(r.need, s.footprint, 1e-9, what .. ": need = footprint")
    T.near(e.mem, s.footprint, 1e-9, what .. ": evaluate = footprint")
    -- the row's parts: its activations hold the peak's workspace (the stats' activations
    -- plus workspace, less the stack's per-device terms in mem_framework)
    local FM = require "dlbench.framework_memory"
    T.near(e.mem_act, FM.sample_bytes(s), 1e-9, what .. ": mem_act")
    return s, e
  end
  for _, q in ipairs { 128, 512, 2048, 4096, 8192 } do
    for _, B in ipairs { 1, 2 } do
      local g = dlb.models.llama { size = "7b", layers = 2, seq = q, batch = B, vocab = 32000 }
      for _, fw in ipairs(names) do
        same(g, fw, B, string.format("llama 7b x2 %s seq %d batch %d", fw, q, B))
      end
    end
  end
  -- the issue's case, in bytes: hf-trainer at seq 4096, batch 1 (without the fix 32 KiB below)
  local g4 = dlb.models.llama { size = "7b", layers = 2, seq = 4096, batch = 1, vocab = 32000 }
  local s4, e4 = same(g4, "hf-trainer", 1, "the issue's case")
  T.eq(e4.mem, s4.footprint, "to the byte")
  T.eq(s4.breakdown.workspace - require("dlbench.framework_memory").device_bytes(s4.framework_memory),
    8 * 4096, "the peak's workspace: 2 fp32 per token row")
  -- other families: layernorm (GPT-2), a MoE block (Mixtral)
  for _, q in ipairs { 128, 1024, 4096 } do
    for _, fw in ipairs { "pytorch-ddp", "hf-trainer", "fsdp", "megatron-core" } do
      same(dlb.models.gpt { size = "gpt2", seq = q, context = q, batch = 1 }, fw, 1,
        string.format("gpt2 %s seq %d", fw, q))
      same(dlb.models.moe { size = "mixtral-8x7b", layers = 1, seq = q, batch = 1 }, fw, 1,
        string.format("mixtral x1 %s seq %d", fw, q))
    end
  end
  -- the algorithmic step is the one documented difference (docs/frameworks.md "One
  -- footprint"): g:stats keeps the graph schedule and says so; the row and need hold every
  -- gradient (the framework schedule, the row's mem_schedule)
  local s = g4:stats { precision = "mixed_bf16", framework = "none" }
  local r = R.time(s, "H100", { framework = "none" })
  local e = P.evaluate { graph = g4, hw = "H100", batch = 1, dp = 1, framework = "none",
    precision = "mixed_bf16" }
  T.near(e.mem, r.need, 1e-9, "none: evaluate = need")
  assert(s.footprint < r.need, s.footprint .. " vs " .. r.need)
  T.eq(e.mem_schedule, "framework")
  assert(tostring(s):find("graph schedule", 1, true), tostring(s))
end)

T.test("trainable copies in their own type (PEFT modules_to_save) and AdamW's step temporaries", function()
  local function mk()
    local g = dlb.models.llama { size = "7b", layers = 1, seq = 16, batch = 1, vocab = 1000,
      lora = { rank = 8, targets = { "q" } } }
    g:stats { precision = "mixed_bf16" } -- LoRA freezes the base weights at the first analysis
    return g
  end
  local ne = 2 * 1000 * 4096        -- embed_tokens and lm_head/w
  local nl = 8 * (4096 + 4096)      -- the q adapters
  local a = mk():stats { precision = "mixed_bf16", optimizer = "adamw" }
  local g1 = mk()
  T.eq(g1:unfreeze({ "embed_tokens", "lm_head/w" }), 2)
  local b = g1:stats { precision = "mixed_bf16", optimizer = "adamw" }
  -- in place under mixed precision: fp32 master + two fp32 moments, 12 B per parameter
  T.eq(b.breakdown.optimizer - a.breakdown.optimizer, 12 * ne)
  local g2 = mk()
  g2:unfreeze({ "embed_tokens", "lm_head/w" }, { own_type = true, copy = true })
  local c = g2:stats { precision = "mixed_bf16", optimizer = "adamw" }
  -- own type: torch AdamW's moments in the parameter's bf16 (exp_avg = zeros_like(p)), no
  -- master: 4 B; copy: a frozen bf16 original stays beside the trainable copy: 2 B
  T.eq(c.breakdown.optimizer - a.breakdown.optimizer, 4 * ne, "bf16 moments")
  T.eq(c.breakdown.weights - a.breakdown.weights, 2 * ne, "the frozen originals")
  T.eq(c.trainable - a.trainable, ne, "the copies train")
  T.eq(c.params - a.params, ne, "the originals are parameters too (as PEFT counts them)")
  T.checkerr("unknown option 'owntype'", g2.unfreeze, g2, "embed_tokens", { owntype = true })
  T.checkerr("copy must be true or false", g2.unfreeze, g2, "embed_tokens", { copy = 1 })
  -- foreach AdamW's step holds one moment-sized list (exp_avg_sq_sqrt) when the
  -- activations are gone: the moments without master copies are fp32 for the adapters
  -- (2 x 4 B) and bf16 for the copies (2 x 2 B); the step needs what it holds beyond the
  -- activations and workspace of the step's peak
  local h = g2:stats { precision = "mixed_bf16", optimizer = "adamw", framework = "hf-trainer" }
  local t = h.framework_memory.optimizer_step
  T.eq(t.temporaries, (8 * nl + 4 * ne) / 2, "one moment of every trainable weight")
  local ctx = h.framework_memory.context.bytes
  local base = g2:stats { precision = "mixed_bf16", optimizer = "adamw", framework = "pytorch-ddp" }
  -- (the step's largest activations and workspace, s.act_peak: hf-trainer's, whose eager
  -- RMSNorm keeps its fp32 upcast, issue [18] item 5)
  local live = h.act_peak + h.framework_memory.loss.bytes
  T.near(t.bytes, math.max(0, t.temporaries - live), 1e-12, "beyond the activations")
  assert(t.bytes > 0, "at seq 16 the step is the peak")
  T.near(h.footprint - base.footprint, h.framework_memory.loss.bytes + ctx + t.bytes
    + (h.act_peak - base.act_peak), 1e-12)
  -- sgd has no moments: no step term
  T.eq(g2:stats { precision = "mixed_bf16", framework = "hf-trainer", optimizer = "sgd" }
    .framework_memory.optimizer_step, nil)
end)

-- == published measurements ============================================================

local function predict(row, seq)
  local g, st = D.build(dlb, row, seq)
  return R.time(g:stats(st), D.hw).footprint
end

T.test("measured peak memory (Qwen README): each row as notebooks/data/memory_measured.lua says", function()
  local within, n, errs = 0, 0, {}
  local lines = {}
  -- The sanitizer flavour (tests/run.sh, DLB_NOTEBOOK_SUBSET=1) checks the first cell of
  -- each kind (notebooks/lib/subset.lua's `memory` key: model, method, expected band): the
  -- same C lines and branches as all 60 (tests/tools/subset_coverage.sh, BENCHMARKS.md "The
  -- whole suite"); the release and FFI flavours check every cell.
  local SUB = dofile(here .. "/../../notebooks/lib/subset.lua")
  local all, kinds, nk = {}, {}, 0
  for _, row in ipairs(D.rows) do
    for i, seq in ipairs(D.seqs) do
      all[#all + 1] = { row = row, i = i, seq = seq }
      local k = SUB.memory(all[#all])
      if not kinds[k] then kinds[k] = true; nk = nk + 1 end
    end
  end
  local cells = SUB.keep("memory_measured cells", all, SUB.memory)
  T.eq(#cells, SUB.on and nk or #D.rows * #D.seqs, "cells: one of each kind in the subset mode, else all")
  for _, c in ipairs(cells) do
    local row, i, seq = c.row, c.i, c.seq
    do
      local got, want = predict(row, seq) / 1e9, row.gb[i]
      local err = got / want - 1
      local ex = row.expect[i]
      n = n + 1
      errs[#errs + 1] = math.abs(err)
      if math.abs(err) <= 0.10 then within = within + 1 end
      local before = row.expect_before and row.expect_before[i]
      lines[#lines + 1] = string.format("%-9s %-8s %5d  %5.1f GB  measured %5.1f  %+4.0f%%  (%s%s)",
        row.model, row.method, seq, got, want, 100 * err, ex,
        before and "; " .. before .. " before (the data file says when)" or "")
      local ok = (ex == "within" and math.abs(err) <= 0.10) or (ex == "under" and err < -0.10)
        or (ex == "over" and err > 0.10)
      if not os.getenv("DLB_MEASURE_ALL") then assert(ok, string.format("%s %s seq %d: %.1f GB vs measured %.1f (%+.1f%%), expected %s",
        row.model, row.method, seq, got, want, 100 * err, ex)) end
    end
  end
  table.sort(errs)
  if os.getenv("DLB_VERBOSE") then print(table.concat(lines, "\n")) end
  print(string.format("  %d of %d cells within 10%%, median |error| %.1f%%", within, n,
    100 * errs[math.floor((#errs + 1) / 2)]))
end)

T.done()
