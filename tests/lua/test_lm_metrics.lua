-- test_lm_metrics.lua — issues [18] / [19]: the trainer's language-model train metrics (a
-- profile's train_metrics; fusion pass "lm_metrics", graphs/step/fusion.c lm_metrics), hand-
-- counted from the sources the fsdp profile names, on both backends:
--   mosaicml/composer composer/trainer/trainer.py: _train_microbatch calls _eval_train_metrics
--     after every micro-batch's backward, for each metric of model.get_metrics(is_train=True);
--   mosaicml/llm-foundry llmfoundry/models/mpt/modeling_mpt.py ComposerMPTCausalLM:
--     train_metrics = [LanguageCrossEntropy(), LanguagePerplexity()] (2 metrics);
--   composer/metrics/nlp.py LanguageCrossEntropy.update: torch.nn.CrossEntropyLoss(
--     reduction='sum') over the whole logits (LanguagePerplexity subclasses it);
--   PyTorch's autocast op reference ("CUDA Ops that can autocast to float32": cross_entropy):
--     a 16-bit logit is upcast to fp32 first.
-- Per metric and logit element: read the logit (e bytes), write and read its fp32 copy
-- (4 + 4, a 16- or 8-bit logit only), write the fp32 log-softmax (4).
-- Host ops and kernels per metric (graphs/step/fusion_loss.c, branch host-ops): the loss_fn
-- call (one host op launching the autocast cast, log_softmax and nll_loss: aten's
-- nll_loss_forward_reduce_cuda_kernel_2d is one kernel), the ignore-index count (!=, .sum())
-- and the two state additions (+=): 5 host ops, 7 kernels (6 over fp32 logits); the two views
-- launch nothing and cost the host nothing, as a graph's reshapes.
local T = require "harness"
local dlb = require "dlbench"
local F = dlb.frameworks

local B, S, V = 2, 64, 500
local function gpt()
  return dlb.models.gpt { layers = 1, hidden = 64, heads = 2, context = S, vocab = V, batch = B, seq = S }
end
-- bytes the pass adds, per logit element (b x s x V of them)
local function per_logit(g, prec, fuse)
  local base = {}
  for i, n in ipairs(fuse) do base[i] = n end
  local with = { "lm_metrics" }
  for _, n in ipairs(fuse) do with[#with + 1] = n end
  local a = g:stats { precision = prec, fuse = with }
  local b = g:stats { precision = prec, fuse = #base > 0 and base or nil }
  return (a.bytes - b.bytes) / (B * S * V)
end

T.test("two metrics: 2 x 14 B per bf16 logit, 2 x 8 B per fp32 logit, 2 x 13 B per fp8 logit", function()
  local g = gpt()
  -- mixed (bf16 logits): 2 x (2 + 4 + 4 + 4) = 28 B
  T.near(per_logit(g, "mixed", {}), 28, 1e-9)
  -- the same with the profile's other passes (they do not touch the loss's input)
  T.near(per_logit(g, "mixed", { "attention", "elementwise", "optimizer_loop", "grad_clip" }), 28, 1e-9)
  -- fp32 logits, no upcast: 2 x (4 + 4) = 16 B
  T.near(per_logit(g, "fp32", {}), 16, 1e-9)
  -- fp8 (1-byte logits in the model): 2 x (1 + 4 + 4 + 4) = 26 B
  T.near(per_logit(g, "fp8", {}), 26, 1e-9)
  -- FLOPs and parameters are algorithmic: the metrics change neither
  local a = g:stats { precision = "mixed", fuse = { "lm_metrics" } }
  local b = g:stats { precision = "mixed" }
  T.eq(a.flops, b.flops); T.eq(a.params, b.params)
end)

T.test("the fsdp profile (Composer) runs them on transformers only; other profiles do not", function()
  local f = F.get("fsdp")
  T.eq(f.train_metrics.lm_xent, true)
  assert(type(f.train_metrics.source) == "string" and f.train_metrics.source:find("LanguagePerplexity", 1, true),
    "the source names the metrics")
  local has = function(p, fam)
    for _, n in ipairs(F.fuse_of(p, fam)) do if n == "lm_metrics" then return true end end
    return false
  end
  assert(has(f, "transformer") and has(f, nil), "fsdp: a transformer's (or an unknown family's) loss")
  assert(not has(f, "other"), "fsdp: a CNN's loss is not a language model's")
  for _, e in ipairs(F.list()) do
    if e.name ~= "fsdp" then assert(not has(F.get(e.name), "transformer"), e.name .. ": no train metrics") end
  end
  -- a derived profile may turn them off, or on; a malformed field is refused by name
  local off = F.derive("fsdp", { train_metrics = { lm_xent = false, source = "a run without them" } })
  assert(not has(off, "transformer"))
  local on = F.derive("torchtitan", { train_metrics = { lm_xent = true, source = "a run's trainer" } })
  assert(has(on, "transformer"))
  T.checkerr("train_metrics must be {lm_xent = true | false, source", F.derive, "fsdp", { train_metrics = true })
  T.checkerr("train_metrics must be {lm_xent = true | false, source", F.derive, "fsdp",
    { train_metrics = { lm_xent = true } })
end)

T.test("g:stats, roofline.time, the planner and the compiled sweep count the same metrics", function()
  local g = dlb.models.gpt { size = "gpt2", seq = 256, batch = 2 }
  local off = F.derive("fsdp", { train_metrics = { lm_xent = false, source = "test" } })
  local s1 = g:stats { framework = "fsdp", precision = "mixed" }
  local s0 = g:stats { framework = off, precision = "mixed" }
  -- GPT-2's vocabulary 50257: 28 B per bf16 logit, 2 x 256 x 50257 logits
  T.near(s1.bytes - s0.bytes, 28 * 2 * 256 * 50257, 1e-9)
  local H = dlb.hw.get("H100-SXM")
  -- roofline.time: the metrics' ops are memory-bound (this small step is host-bound, so its
  -- device time shows them, not its step time)
  local r1, r0 = dlb.roofline.time(s1, H), dlb.roofline.time(s0, H)
  assert(r1.memory_bound_time > r0.memory_bound_time, "roofline: the metrics take device time")
  -- the planner (32 samples per device: a device-bound step)
  local function plan(fw)
    return dlb.parallel.evaluate { graph = g, hw = H, devices = 8, dp = 8, batch = 256,
      framework = fw, precision = "mixed" }
  end
  local p1, p0 = plan("fsdp"), plan(off)
  assert(p1.compute > p0.compute and p1.step > p0.step,
    "planner: the metrics take time " .. p1.step .. " vs " .. p0.step)
  -- the compiled sweep: the pass is linear in the logits' size (batch x seq x vocab)
  local build = function(p) return dlb.models.gpt { layers = p.layers, hidden = 128, heads = 4,
    context = 128, vocab = 500, batch = p.batch, seq = p.seq } end
  local P = dlb.sweep.compile(build, { layers = "layers" }, { "batch", "seq" }, "layers", { framework = "fsdp" })
  for _, v in ipairs { { 1, 64, 1 }, { 4, 32, 3 } } do
    local s = build { layers = v[3], batch = "batch", seq = "seq" }:stats { framework = "fsdp",
      batch = v[1], seq = v[2] }
    T.near(P.totals(v).bytes, s.bytes, 1e-9, "compiled bytes")
  end
end)

T.test("the metrics' eager ops: 10 host ops and 14 kernels on the loss, one step on every path", function()
  local core = require "dlbench.backend"
  local off = F.derive("fsdp", { train_metrics = { lm_xent = false, source = "test" } })
  local function more(s)
    local m, o, k = core.analysis_op_more(s.analysis), 0, 0
    for i = 1, #m, 2 do o, k = o + m[i], k + m[i + 1] end
    return o, k
  end
  local g = gpt()
  local s1 = g:stats { framework = "fsdp", precision = "mixed" }
  local s0 = g:stats { framework = off, precision = "mixed" }
  local o, k = more(s1)
  T.eq(o, 10, "host ops") T.eq(k, 14, "kernels")
  o, k = more(g:stats { framework = "fsdp", precision = "fp32" })
  T.eq(o, 10, "host ops, fp32 logits") T.eq(k, 12, "kernels, fp32 logits (no cast)")
  o, k = more(s0)
  T.eq(o + k, 0, "without the metrics: none")
  -- roofline.time: the host issues 10 more ops (host_op each) and 4 more kernels from C++
  -- (kernel_overhead each: dlb_launch_host), the device launches 14 more kernels
  local H = dlb.hw.get("H100-SXM")
  local roof = dlb.roofline.roof_of(H, F.get("fsdp"), "mixed", true, {}, "catalogue", "test")
  T.near(roof.host_op, 10e-6, 1e-12, "the fsdp profile's host_op")
  local r1, r0 = dlb.roofline.time(s1, H), dlb.roofline.time(s0, H)
  T.near(r1.host_time - r0.host_time, 10 * roof.host_op + 4 * roof.kernel_overhead, 1e-9, "host seconds")
  -- the planner (one device: the same step, dlb_timeline_kernels in its layer segments)
  for _, fwk in ipairs { "fsdp", off } do
    local e = dlb.parallel.evaluate { graph = g, hw = H, devices = 1, dp = 1, batch = B,
      precision = "mixed", framework = fwk }
    local r = fwk == off and r0 or r1
    T.near(e.step, r.time, 1e-9, "planner = roofline.time")
  end
  -- the compiled sweep (the classes carry the counts: graphs/sweep/sweep_compile.c)
  local build = function(p) return dlb.models.gpt { layers = p.layers, hidden = 64, heads = 2,
    context = S, vocab = V, batch = p.batch, seq = p.seq } end
  for _, fwk in ipairs { "fsdp", off } do
    local P = dlb.sweep.compile(build, { layers = "layers" }, { "batch", "seq" }, "layers",
      { framework = fwk, precision = "mixed" })
    local s = build { layers = 1, batch = "batch", seq = "seq" }:stats { framework = fwk,
      precision = "mixed", batch = B, seq = S }
    local rf, _, _, _, _, _, _, cdev = dlb.roofline.roof_of(H, F.get(fwk), "mixed", true, {},
      "catalogue", "test")
    rf.attn_work = F.attn_work(F.get(fwk), true, cdev)
    T.near(P.time({ B, S, 1 }, rf), dlb.roofline.time(s, H).time, 1e-9, "compiled = roofline.time")
  end
end)

T.done()
