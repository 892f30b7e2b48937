-- test_optimizer_impl.lua — issue [18]: the optimizer implementation a framework profile runs
-- (optimizer_impl: fused, foreach, loop; grad_clip), hand-counted from the sources named in
-- graphs/step/fusion.c (IMPL_PASSES), on both backends.
local T = require "harness"
local dlb = require "dlbench"
local F = dlb.frameworks

-- one weight of n = 1024 x 1024 parameters: every byte the implementations differ by is the
-- update's (the forward and backward are the same ops)
local N = 1024 * 1024
local function one()
  local g = dlb.graph("one")
  local x = g:input("x", { 4, 1024 })
  local w = g:weight("w", { 1024, 1024 })
  g:loss(g:sum(g:matmul(x, w)))
  return g
end
local function extra(g, opt, prec, fuse)
  local s = g:stats { optimizer = opt, precision = prec, fuse = fuse }
  local s0 = g:stats { optimizer = opt, precision = prec, fuse = { "optimizer" } }
  return (s.bytes - s0.bytes) / N
end

T.test("AdamW fp32: fused 7 tensor passes (28 B/param), foreach 20 (80), loop 22 (88)", function()
  local g = one()
  -- fused: read p, g, m, v, write p, m, v: 7 x 4 B = 28 B. foreach (torch/optim/adamw.py
  -- _multi_tensor_adamw): p4 g2 m3 v5 + 6 temporary passes = 20 -> +13 x 4 B = +52 B.
  -- loop (composer DecoupledAdamW.adamw): p4 g2 m5 v5 + 6 = 22 -> +15 x 4 B = +60 B
  T.near(extra(g, "adamw", "fp32", { "optimizer", "optimizer_foreach" }), 52, 1e-9)
  T.near(extra(g, "adamw", "fp32", { "optimizer_loop" }), 60, 1e-9)
  -- gradient clipping (clip_grad_norm_: a norm read, then an in-place scale): 3 x 4 B
  T.near(extra(g, "adamw", "fp32", { "optimizer_loop", "grad_clip" }), 72, 1e-9)
  T.near(extra(g, "adamw", "fp32", { "optimizer", "grad_clip" }), 12, 1e-9)
end)

T.test("AdamW mixed: the fp32 master takes the parameter's passes, the 16-bit gradient its own", function()
  local g = one()
  -- foreach: master +2 passes x 4 B, gradient (16-bit) +1 x 2 B, m +1 x 4, v +3 x 4 and 6
  -- temporaries of v's size x 4: 8 + 2 + 4 + 36 = 50 B
  T.near(extra(g, "adamw", "mixed", { "optimizer", "optimizer_foreach" }), 50, 1e-9)
  -- loop: 8 + 2 + 12 + 36 = 58 B; clipping a 16-bit gradient: 3 x 2 B
  T.near(extra(g, "adamw", "mixed", { "optimizer_loop" }), 58, 1e-9)
  T.near(extra(g, "adamw", "mixed", { "optimizer_loop", "grad_clip" }), 64, 1e-9)
end)

T.test("Adam drops the decoupled weight decay's pass; SGD keeps one pass", function()
  local g = one()
  T.near(extra(g, "adam", "fp32", { "optimizer", "optimizer_foreach" }), 44, 1e-9) -- (13 - 2) x 4
  T.near(extra(g, "adam", "fp32", { "optimizer_loop" }), 52, 1e-9)                 -- (15 - 2) x 4
  T.near(extra(g, "sgd", "fp32", { "optimizer_loop" }), 0, 1e-9)
  T.near(extra(g, "sgd", "fp32", { "optimizer_loop", "grad_clip" }), 12, 1e-9)
  -- FLOPs are algorithmic: no implementation changes them
  local a = g:stats { optimizer = "adamw", fuse = { "optimizer_loop", "grad_clip" } }
  local b = g:stats { optimizer = "adamw" }
  T.eq(a.flops, b.flops)
end)

T.test("foreach and loop together are refused by name", function()
  local g = one()
  T.checkerr("optimizer_foreach or optimizer_loop",
    function() g:stats { fuse = { "optimizer_foreach", "optimizer_loop" } } end)
  T.checkerr("'optimiser_loop' is not a fusion pass", function() g:stats { fuse = { "optimiser_loop" } } end)
end)

T.test("every profile says which update it runs, with a source", function()
  for _, e in ipairs(F.list()) do
    local p = F.get(e.name)
    local u = p.optimizer_impl
    assert(type(u) == "table" and F.OPTIMIZER_IMPLS[u.kind] ~= nil, e.name .. ": optimizer_impl")
    assert(type(u.source) == "string" and #u.source > 20, e.name .. ": optimizer_impl.source")
  end
  -- Composer (llm-foundry's FSDP rows): the loop and clipping, no multi-tensor merge
  local f = F.get("fsdp")
  T.eq(f.optimizer_impl.kind, "loop")
  T.eq(f.optimizer_impl.grad_clip, true)
  local names = table.concat(F.fuse_of(f, "transformer"), ",")
  -- and its trainer's two language-model train metrics (test_lm_metrics.lua)
  -- (qkv: MPT's one Wqkv projection, graphs/step/fusion.c)
  T.eq(names, "attention,elementwise,qkv,optimizer_loop,grad_clip,lm_metrics")
  T.eq(F.get("pytorch-ddp").optimizer_impl.kind, "foreach")
  T.eq(F.get("megatron-lm").optimizer_impl.kind, "fused")
  T.eq(table.concat(F.fuse_of(F.get("none")), ","), "")
  -- a derived profile may change it
  local d = F.derive("fsdp", { optimizer_impl = { kind = "fused", grad_clip = false, source = "run's config" } })
  T.eq(table.concat(F.fuse_of(d, "transformer"), ","), "attention,elementwise,qkv,lm_metrics")
end)

T.test("g:stats, roofline.time and the planner's update follow the profile's implementation", function()
  local g = dlb.models.gpt { size = "gpt2", seq = 256, batch = 2 }
  local loop = g:stats { framework = "fsdp", precision = "mixed", optimizer = "adamw" }
  local fused = g:stats { framework = F.derive("fsdp", { optimizer_impl = { kind = "fused",
    grad_clip = false, source = "test" } }), precision = "mixed", optimizer = "adamw" }
  -- the difference is the update's: 58 B per trainable parameter (mixed AdamW loop) plus
  -- 3 x 2 B of clipping a 16-bit gradient
  T.near((loop.bytes - fused.bytes) / loop.params, 64, 1e-6)
  local H = dlb.hw.get("H100-SXM")
  local rl = dlb.roofline.time(loop, H)
  local rf = dlb.roofline.time(fused, H)
  assert(rl.time > rf.time, "roofline: the loop's traffic takes longer")
  local function plan(fw)
    return dlb.parallel.evaluate { graph = g, hw = H, devices = 8, dp = 8, batch = 16,
      framework = fw, precision = "mixed" }
  end
  local pl = plan("fsdp")
  local pf = plan(F.derive("fsdp", { optimizer_impl = { kind = "fused", grad_clip = false, source = "test" } }))
  assert(pl.update > pf.update, "planner: the loop's update is slower " .. pl.update .. " vs " .. pf.update)
end)

T.test("the compiled sweep counts the same update bytes and time (fsdp loop, pytorch-ddp foreach)", function()
  local build = function(p) return dlb.models.gpt { layers = p.layers, hidden = 128, heads = 4,
    context = 128, vocab = 500, batch = p.batch, seq = p.seq, optimizer = "adamw" } end
  local H = dlb.hw.get("H100-SXM")
  for _, fw in ipairs { "fsdp", "pytorch-ddp", "hf-trainer" } do
    local P = dlb.sweep.compile(build, { layers = "layers" }, { "batch", "seq" }, "layers", { framework = fw })
    for _, v in ipairs { { 1, 64, 1 }, { 4, 32, 3 } } do
      local g = build { layers = v[3], batch = "batch", seq = "seq" }
      local s = g:stats { framework = fw, batch = v[1], seq = v[2] }
      local tot = P.totals(v)
      T.near(tot.bytes, s.bytes, 1e-9, fw .. " bytes")
      T.near(tot.flops, s.flops, 1e-9, fw .. " flops")
    end
    local res = dlb.sweep.model(build, { layers = { 2 }, batch = { 2 }, seq = { 64 }, device = "H100-SXM" },
      { bind = { "batch", "seq" }, keep = true, stats = { framework = fw } })
    local r = dlb.roofline.time(build { layers = 2, batch = "batch", seq = "seq" }:stats { framework = fw,
      batch = 2, seq = 64 }, H)
    T.near(res.rows:column("time")[1], r.time, 1e-9, fw .. " time: compiled = roofline.time")
  end
end)

T.done()
