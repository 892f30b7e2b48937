-- test_norm_upcast.lua — what eager model code's RMSNorm keeps for its backward (branch
-- rmsnorm-upcast, issue [18] item 4): a profile's norm = {upcast = true} sets
-- dlb_train_opts.norm_upcast, and graphs/step/train.c (upcast_norms) gives each rmsnorm the
-- tensors autograd saves in place of its input. The hand count, from the sources:
--   torchtune/modules/rms_norm.py (stored 1b0918f2): x_fp32 = x.float(); x_normed =
--   (x_fp32 * torch.rsqrt(x_fp32.pow(2).mean(-1, keepdim=True) + eps)).type_as(x);
--   return x_normed * self.scale;
--   PyTorch tools/autograd/derivatives.yaml (stored d327a787): pow saves self, rsqrt its
--   result, mul the other operand of each input needing a gradient, _to_copy nothing.
-- Saved: x_fp32 (4 B an element), the row statistics, x_normed (x's type); nothing keeps x.
-- dlbench's fused rmsnorm op keeps x (a B) and the statistics. Per norm of n elements:
-- 4n + a n - a n = 4n bytes more, at 16 bits (2 + 2) and at 32 (x_fp32 is x: + x_normed 4).
-- Traffic and FLOPs are the algorithmic op's (the copies are memory, not counted bytes).
-- Every other profile and the algorithmic step are unchanged.
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"
local P, R = dlb.parallel, dlb.roofline

local function prof(up)
  return dlb.frameworks.derive("pytorch-ddp", { norm = { upcast = up, source = "test" } })
end

-- live bytes while the loss's forward op runs, under the walk (dlb_analysis_step_loss):
-- every tensor saved for the backward is live there
local function at_loss(s) return (core.analysis_step_loss(s.analysis)) end

T.test("one rmsnorm, hand count: 4 B an element more at the loss's moment, no traffic", function()
  local g = dlb.graph("norm")
  local x = g:input("x", { "b", 8 })
  local y = g:rmsnorm(x, g:weight("gamma", { 8 }), "norm")
  g:loss(g:softmax_xent(g:matmul(y, g:weight("w", { 8, 16 })), g:label("t", { "b" })))
  for _, prec in ipairs { "bf16", "fp32", "mixed" } do
    local a = g:stats { b = 4, precision = prec, framework = prof(false), schedule = "walk" }
    local b = g:stats { b = 4, precision = prec, framework = prof(true), schedule = "walk" }
    -- 4 rows x 8 = 32 elements: x_fp32 4 + x_normed 2 - x 2 (bf16, mixed), x_normed 4 (fp32)
    T.eq(at_loss(b) - at_loss(a), 4 * 32, prec .. ": 4 B x 32 elements")
    T.eq(b.bytes, a.bytes, prec .. ": the copies are not traffic")
    T.eq(b.flops, a.flops, prec .. ": nor FLOPs")
    T.eq(b.nops, a.nops, prec .. ": no op added")
    T.eq(b.norm_upcast, true); T.eq(a.norm_upcast, nil)
  end
  -- the step cached under one setting is not reused for the other (either order)
  local b = g:stats { b = 4, precision = "bf16", framework = prof(true), schedule = "walk" }
  local a = g:stats { b = 4, precision = "bf16", framework = prof(false), schedule = "walk" }
  T.eq(at_loss(b) - at_loss(a), 128, "upcast first, then without")
  -- a layernorm is not an rmsnorm: native_layer_norm saves what dlbench counts
  local h = dlb.graph("ln")
  local hx = h:input("x", { 4, 8 })
  local hy = h:layernorm(hx, h:weight("gamma", { 8 }), h:weight("beta", { 8 }), "ln")
  h:loss(h:softmax_xent(h:matmul(hy, h:weight("w", { 8, 16 })), h:label("t", { 4 })))
  T.eq(at_loss(h:stats { precision = "bf16", framework = prof(true), schedule = "walk" }),
    at_loss(h:stats { precision = "bf16", framework = prof(false), schedule = "walk" }), "layernorm")
end)

-- A Llama of 2 blocks: 2 rmsnorms a block + the final one = 5 norms of n = b s d elements.
local function small(b)
  if type(b) == "table" then b = b.batch end -- dlb.sweep.model's builder gets the row
  return dlb.models.llama { layers = 2, hidden = 256, heads = 4, kv_heads = 4, ffn = 512,
    vocab = 1000, batch = b, seq = 512 }
end
local N = 8 * 512 * 256

T.test("llama: 5 norms x 4 B x b s d; checkpointed blocks recompute theirs", function()
  local g = small(8)
  local function run(up, rc)
    return g:stats { precision = "bf16", framework = prof(up), recompute = rc, schedule = "walk" }
  end
  local a, b = run(false), run(true)
  T.eq(at_loss(b) - at_loss(a), 5 * 4 * N, "every norm's copies saved at the loss")
  -- the walk's peak is the start of the backward pass here: the footprint carries them
  T.eq(b.footprint - a.footprint, 5 * 4 * N, "footprint")
  -- the printed footprint says what it holds
  assert(tostring(b):find("with the eager RMSNorm's saved fp32 upcast)", 1, true), tostring(b))
  assert(not tostring(a):find("RMSNorm", 1, true), tostring(a))
  -- recompute every block (torch.utils.checkpoint): a block's saved tensors are made again
  -- inside its backward; at the loss only the final norm's are live, at the walked peak the
  -- final norm's and those of the block being recomputed
  -- under a profile with elementwise fusion too: the fused chains are the same (the norm's
  -- input still counts its backward as a reader, graphs/step/fusion.c), traffic unchanged
  for _, base in ipairs { "torchtitan", "fsdp" } do
    local function tt(up)
      return g:stats { precision = "bf16", framework = dlb.frameworks.derive(base,
        { norm = { upcast = up, source = "test" } }) }
    end
    local x, y = tt(false), tt(true)
    T.eq(y.bytes, x.bytes, base .. ": bytes"); T.eq(y.flops, x.flops, base .. ": FLOPs")
    T.eq(y.footprint - x.footprint, 5 * 4 * N, base .. ": footprint")
  end
  local ra, rb = run(false, 1), run(true, 1)
  T.eq(at_loss(rb) - at_loss(ra), 4 * N, "recompute: the final norm's at the loss")
  -- the walked peak: the upcast adds only the copies, at most the final norm's and the two
  -- of the block being recomputed (3 x 4 B N) at any moment, and at the peak without them
  -- the final norm's and one block's (2 x 4 B N). Before branch recompute-one (issue
  -- [18]/[19]: a checkpointed block reruns its whole forward, graphs/step/train.c) the
  -- difference was 2 x 4 B N exactly; now the peak with the copies is at the end of a
  -- block's rerun, whose closing ops (the w2 matmul, the residual add) run again:
  -- 2 x 4 B N + 1,835,008 B (one bf16 b s d tensor more, fewer gradients made yet)
  local dr = rb.footprint - ra.footprint
  assert(dr >= 2 * 4 * N and dr <= 3 * 4 * N, "recompute: the copies at the walked peak: " .. dr)
end)

T.test("one footprint: g:stats, roofline.time, evaluate, plan and the compiled sweep carry it", function()
  local g = small(8)
  local d = {}
  for i, up in ipairs { false, true } do
    local fw = prof(up)
    local s = g:stats { precision = "bf16", framework = fw }
    local r = R.time(s, "H100-SXM")
    local e = P.evaluate { graph = g, hw = "H100-SXM", batch = 8, dp = 1, framework = fw, precision = "bf16" }
    local p = P.plan { graph = g, hw = "H100-SXM", batch = 8, devices = 1, framework = fw,
      precision = "bf16", recompute = false }
    local sw = dlb.sweep.model(small, { batch = { 8 }, device = "H100-SXM" },
      { bind = { "batch" }, keep = true, stats = { framework = fw, precision = "bf16" } })
    T.eq(r.need, s.footprint, "need = footprint")
    T.eq(sw.rows:column("memory")[1], s.footprint, "the compiled sweep's memory = footprint")
    T.eq(p[1].mem, e.mem, "a one-device plan row = evaluate")
    d[i] = { s = s.footprint, e = e.mem }
  end
  -- the framework schedule's peak is the start of the backward pass: all 5 norms' copies
  T.eq(d[2].s - d[1].s, 5 * 4 * N, "g:stats / need / sweep")
  -- (per-sample layer costs from two batch sizes: equal to rounding)
  T.near(d[2].e - d[1].e, 5 * 4 * N, 1e-9, "evaluate / plan (layers built under the profile)")
end)

T.test("profiles: who states it, and nothing else moves", function()
  local fw = dlb.frameworks
  T.eq(fw.norm_upcast(fw.get("hf-trainer")), true, "transformers' LlamaRMSNorm, eager")
  T.eq(fw.norm_upcast(fw.get("hf-deepspeed")), true, "the same model code")
  T.eq(fw.get("megatron-core").norm.upcast, false, "Transformer Engine's fused RMSNorm")
  T.eq(fw.get("megatron-core-cudagraphs").norm.upcast, false)
  T.eq(fw.get("nemo").norm.upcast, false)
  for _, name in ipairs { "none", "pytorch-ddp", "fsdp", "fsdp2", "torchtitan", "megatron-lm",
      "deepspeed-zero3", "maxtext" } do
    T.eq(fw.get(name).norm, nil, name .. ": not stated (today's count)")
  end
  -- the default profile of a transformer (torchtitan) and the algorithmic step: unchanged
  local g = small(2)
  local auto = g:stats { precision = "bf16", framework = "auto", schedule = "walk" }
  T.eq(auto.norm_upcast, nil)
  T.eq(at_loss(auto), at_loss(g:stats { precision = "bf16", framework = fw.derive("torchtitan",
    { norm = { upcast = false, source = "test" } }), schedule = "walk" }), "torchtitan")
  T.eq(g:stats { precision = "bf16" }.norm_upcast, nil, "algorithmic step")
  -- symbolic counts (the batch left unbound): the same polynomials, the flag said
  local gb = dlb.models.llama { layers = 2, hidden = 256, heads = 4, kv_heads = 4, ffn = 512,
    vocab = 1000, batch = "b", seq = 512 }
  local sy = gb:stats { precision = "bf16", framework = "hf-trainer" }
  local sn = gb:stats { precision = "bf16", framework = fw.derive("hf-trainer",
    { norm = { upcast = false, source = "test" } }) }
  T.eq(sy.symbolic, true); T.eq(sy.norm_upcast, true); T.eq(sn.norm_upcast, nil)
  T.eq(tostring(sy.bytes), tostring(sn.bytes), "symbolic bytes"); T.eq(sy.nops, sn.nops)
  -- a profile's norm is checked where it is derived
  T.checkerr("norm must be {upcast = true | false", fw.derive, "pytorch-ddp", { norm = { upcast = "yes" } })
  T.checkerr("norm must be {upcast = true | false", fw.derive, "pytorch-ddp", { norm = { upcast = true } })
  -- the C check names the field (both backends: one message)
  T.checkerr("norm_upcast must be 0 or 1", core._graph_analyze, g._h,
    { optimizer = 0, precision = 0, recompute = 0, recompute_k = 0, inference = 0, fuse = 0,
      norm_upcast = 2 }, {}, {})
  -- g:step_options (what dlb.sweep.model compiles) says it
  T.eq(g:step_options { framework = "hf-trainer", precision = "bf16" }.norm_upcast, 1)
  T.eq(g:step_options { framework = "pytorch-ddp", precision = "bf16" }.norm_upcast, 0)
end)

T.done()
