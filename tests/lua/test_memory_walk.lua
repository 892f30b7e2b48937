-- test_memory_walk.lua — g:stats{schedule = "walk"} (branch mem-sched, issue [18] item 4): the
-- backward pass walked in the step's op order with every weight gradient held from the op that
-- makes it to the optimizer step (dlb_analysis_step_peak), against a hand count; the loss's
-- moment, gradient accumulation, a persistent gradient buffer, one footprint, and the errors.
-- Both backends.
local T = require "harness"
local dlb = require "dlbench"
local R = dlb.roofline

-- Three d x d matmuls and a softmax cross entropy, b = 4, d = 8, fp32, SGD (no state).
-- Sizes: an activation [4, 8] 128 B; a weight [8, 8] 256 B, its gradient 256 B; labels 16 B.
local function chain()
  local g = dlb.graph("walk3")
  local h = g:input("x", { "b", "d" })
  for i = 1, 3 do h = g:matmul(h, g:weight("w" .. i, { "d", "d" })) end
  g:loss(g:softmax_xent(h, g:input("labels", { "b" }, "int32")))
  return g
end

-- the op names of the analysis's order (the walk runs it with the update ops moved last)
local function order(g, s)
  local ord = dlb.core.analysis_schedule(s.analysis)
  local ops, t = g:ops { b = 4, d = 8 }, {}
  for i, o in ipairs(ord) do t[i] = ops[o + 1].name end
  return table.concat(t, ", ")
end

T.test("a hand-counted walk: three matmul blocks", function()
  local g = chain()
  local s = g:stats { optimizer = "sgd", b = 4, d = 8, framework = "pytorch-ddp", schedule = "walk" }
  -- the order the hand count below follows (the analysis's best order for the graph schedule)
  T.eq(order(g, s), "matmul_0, matmul_1, matmul_2, softmax_xent_3, softmax_xent_3/grad, "
    .. "matmul_2/grad_b, matmul_2/grad_a, matmul_2/update, matmul_1/grad_a, matmul_1/grad_b, "
    .. "matmul_1/update, matmul_0/grad_b, matmul_0/update")
  -- Hand count, weights 768 B throughout; the updates run after the last backward op:
  --   matmul_2/grad_b  x h1 h2 dh3 (512)      + dW3 (256)          = 1536 (the loss's moment)
  --   matmul_2/grad_a  x h1 dh3 dh2 (512)     + dW3                = 1536 (h2 freed)
  --   matmul_1/grad_a  x h1 dh2 dh1 (512)     + dW3                = 1536 (dh3 freed)
  --   matmul_1/grad_b  x h1 dh2 dh1 (512)     + dW3 dW2 (512)      = 1792 <- the peak
  --   matmul_0/grad_b  x dh1 (256)            + dW3 dW2 dW1 (768)  = 1792 (a tie: the first kept)
  --   the step         (0)                    + every gradient 768 = 1536
  T.eq(s.footprint, 768 + 512 + 512)
  T.eq(s.breakdown.weights, 768)
  T.eq(s.breakdown.gradients, 512, "dW3 and dW2")
  T.eq(s.breakdown.activations, 512, "x, h1, dh2, dh1")
  T.eq(s.footprint_walk.peak, "backward pass")
  T.eq(s.footprint_walk.loss, 768 + 256 + 512, "the graph schedule's peak")
  T.eq(s.footprint_graph, 768 + 256 + 512)
  assert(s.footprint_rule:find("backward pass walked", 1, true), s.footprint_rule)
  assert(tostring(s):find("footprint " .. dlb.pretty.si(s.footprint, "B")
    .. " (backward pass walked, peak at the backward pass)", 1, true), tostring(s))
  -- the framework schedule: every gradient with the step's largest activations + workspace
  -- (issue [18] item 5; those at the graph's peak, 512, before): softmax_xent_3 running,
  -- x h1 h2 h3 probs 640 + labels 16 + the loss's seed 4 + the loss 4 = 664, its row
  -- statistics 32 B of workspace (tests/test_footprint.c, dlb_analysis_act_peak)
  local f = g:stats { optimizer = "sgd", b = 4, d = 8, framework = "pytorch-ddp" }
  T.eq(f.footprint, 768 + 768 + 664 + 32)
  T.eq(f.act_peak, 664 + 32)
  T.eq(f.footprint_walk, nil)
  -- one footprint: roofline.time's need and parallel.data's mem at the graph's batch
  local r = R.time(s, "H100")
  T.eq(r.need, s.footprint, "need = footprint")
  T.eq(r.footprint_stats, nil, "no second number")
  T.eq(dlb.parallel.data { stats = s, subbatch = 4, hw = "H100", workers = 2 }.mem, s.footprint)
  -- roofline.time's "minimal" schedule keeps its meaning: weights + max(activations, every gradient)
  T.eq(R.time(s, "H100", { schedule = "minimal" }).need, 768 + math.max(512, 768))
end)

T.test("accumulation: from the second micro-batch every gradient is live at the loss", function()
  local g = chain()
  local s = g:stats { optimizer = "sgd", b = 4, d = 8, framework = "pytorch-ddp", schedule = "walk", accumulation = 2 }
  -- the loss's moment: x h1 h2 dh3 (512) + every gradient (768) + weights = 2048, the
  -- framework schedule's number
  T.eq(s.footprint, 768 + 768 + 512)
  T.eq(s.footprint_walk.peak, "loss")
  T.eq(s.breakdown.gradients, 768)
  T.eq(R.time(s, "H100").need, s.footprint)
  T.eq(g:stats { optimizer = "sgd", b = 4, d = 8, framework = "pytorch-ddp", schedule = "walk", accumulation = 1 }.footprint,
    1792)
end)

T.test("a stack with a persistent gradient buffer keeps the framework schedule", function()
  local g = chain()
  local fw = dlb.frameworks.derive("pytorch-ddp", { grad_buffer = { persistent = true,
    source = "a buffer of every gradient allocated once (test)" } })
  local s = g:stats { optimizer = "sgd", b = 4, d = 8, framework = fw, schedule = "walk" }
  T.eq(s.footprint, 768 + 768 + 664 + 32, "the framework schedule (the step's largest activations)")
  T.eq(s.footprint_walk, nil)
  assert(s.footprint_rule:find("not applied: the profile's persistent gradient buffer", 1, true),
    s.footprint_rule)
  -- the shipped profiles that say so
  for _, name in ipairs { "megatron-lm", "megatron-core", "megatron-core-cudagraphs", "nemo",
    "deepspeed-zero2", "deepspeed-zero3", "hf-deepspeed" } do
    local p = dlb.frameworks.get(name)
    assert(p.grad_buffer and p.grad_buffer.persistent == true, name)
  end
  for _, name in ipairs { "pytorch-ddp", "fsdp", "fsdp2", "torchtitan", "hf-trainer", "deepspeed-zero1" } do
    local p = dlb.frameworks.get(name)
    assert(not (p.grad_buffer and p.grad_buffer.persistent), name)
  end
end)

T.test("checkpointed blocks: the walk is never above the framework schedule, never below the graph's", function()
  local g = dlb.models.llama { size = "7b", layers = 4, seq = 256, batch = 1, vocab = 32000 }
  for _, rc in ipairs { "none", 1 } do
    local f = g:stats { precision = "bf16", optimizer = "adamw", recompute = rc, framework = "pytorch-ddp" }
    local s = g:stats { precision = "bf16", optimizer = "adamw", recompute = rc, framework = "pytorch-ddp",
      schedule = "walk" }
    assert(s.footprint <= f.footprint, rc .. ": walk " .. s.footprint .. " > " .. f.footprint)
    assert(s.footprint >= s.footprint_graph, rc .. ": walk under the graph schedule")
    T.eq(R.time(s, "H100").need, s.footprint)
  end
end)

T.test("the loss's two moments: a hand count of the stack's loss tensors (branch walk-loss)", function()
  -- The chain above in bf16 (a = 2 B), SGD: an activation [4, 8] 64 B, a weight 128 B (768 -> 384
  -- in all), labels int32 [4] 16 B, the loss and its gradient seed 2 B each; n = 4 x 8 = 32
  -- logit elements. The walk's op order is the one asserted above.
  --   softmax_xent_3 (the loss's forward op) running: weights 384; x h1 h2 h3 (the logits)
  --     and the probabilities it saves, 5 x 64 = 320, labels 16, the seed 2, the loss 2 =
  --     340 activations; its row statistics [4, 2] fp32, 32 B workspace -> 756
  --   softmax_xent_3/grad (the loss's backward op) running: weights 384; x h1 h2, the
  --     probabilities and dh3, 5 x 64 = 320, labels 16, the seed 2 (h3 and the loss freed) =
  --     338 -> 722
  --   the walk's own peak (graph tensors only), matmul_1/grad_b: 384 + dW3 dW2 256 + x h1
  --     dh2 dh1 256 = 896
  -- The graph holds two logit-sized tensors at each loss op (logits + probabilities; then
  -- probabilities + their gradient): 2 x 2 B x 32 = 128 B, replaced by the stack's:
  local g = chain()
  local n, ga = 32, 128
  local function walk(loss)
    return g:stats { optimizer = "sgd", b = 4, d = 8, precision = "bf16", schedule = "walk",
      framework = dlb.frameworks.derive("pytorch-ddp", { memory = { loss = loss } }) }
  end
  local lm = { dlb.core.analysis_step_loss(walk { upcast = true }.analysis) }
  T.eq(lm[1], 756); T.eq(lm[2], 384); T.eq(lm[5], 340); T.eq(lm[6], 32)
  T.eq(lm[7], 722); T.eq(lm[8], 384); T.eq(lm[11], 338); T.eq(lm[12], 0)
  -- torchtune unchunked (upcast): forward, log_softmax running on the fp32 logits: fp32
  -- logits 4 + log-probs 4 = 8 B an element (the bf16 logits freed after .float());
  -- backward, log_softmax's backward running: its saved log-probs 4 + nll_loss's dense
  -- grad_input 4 + the grad_input it makes 4 = 12 B (the fp32 logits freed by `del logits`)
  local u = walk { upcast = true }
  T.eq(u.framework_memory.loss.at_forward, 756 - ga + 8 * n)    -- 884
  T.eq(u.framework_memory.loss.at_backward, 722 - ga + 12 * n)  -- 978
  T.eq(u.footprint, 978)
  T.eq(u.footprint_walk.peak, "loss")
  T.eq(u.footprint_walk.loss_moment, "backward")
  T.eq(u.footprint_walk.walk, 896)
  T.eq(u.breakdown.activations, 338 - ga + 12 * n)
  T.eq(R.time(u, "H100").need, u.footprint, "one footprint")
  -- CEWithChunkedOutputLoss with 2 chunks: forward, the second chunk's log_softmax running:
  -- both bf16 chunks 2 + both chunks' fp32 log-probs 4 + that chunk's fp32 copy 4/2 = 8 B;
  -- backward, the first chunk's log_softmax backward running: both chunks' log-probs 4 +
  -- that chunk's gradient pair 8/2 = 8 B. Both moments under the walk's own peak:
  local c = walk { upcast = true, chunks = 2 }
  T.eq(c.framework_memory.loss.at_forward, 756 - ga + 8 * n)    -- 884
  T.eq(c.framework_memory.loss.at_backward, 722 - ga + 8 * n)   -- 850
  T.eq(c.footprint_walk.loss_moment, "forward")
  T.eq(c.footprint, 896)
  T.eq(c.footprint_walk.peak, "backward pass")
  -- Hugging Face model code under autocast: forward logits 2 + shifted copy 2 + fp32 cast 4 +
  -- log-probs 4 = 12; backward log-probs 4 + nll's grad_input 4 + log_softmax's 4 = 12
  local h = walk { autocast = true }
  T.eq(h.framework_memory.loss.at_forward, 756 - ga + 12 * n)   -- 1012
  T.eq(h.framework_memory.loss.at_backward, 722 - ga + 12 * n)  -- 978
  T.eq(h.footprint, 1012)
  T.eq(h.footprint_walk.loss_moment, "forward")
  -- the framework schedule (no walk) adds the larger moment's bytes beyond the graph's 2a
  -- to the activations of its peak, as before
  local f = g:stats { optimizer = "sgd", b = 4, d = 8, precision = "bf16",
    framework = dlb.frameworks.derive("pytorch-ddp", { memory = { loss = { upcast = true } } }) }
  T.eq(f.framework_memory.loss.bytes, (12 - 4) * n)
  T.eq(f.footprint_walk, nil)
end)

-- (review6) a softmax_xent that is not the loss (a metric beside an mse loss) has no backward
-- op: the stack's loss term counts its logits (framework_memory), but the walk has no loss
-- moments to put them at. Before, g:stats{schedule = "walk"} failed with the C message
-- "analysis: the step has no softmax_xent loss with a backward op"; now the loss's moment is
-- the graph schedule's peak, as for a step without a loss term.
T.test("a softmax_xent without a backward op (a metric): walked, no loss moments", function()
  local g = dlb.graph("metric")
  local x = g:input("x", { "b", 64 })
  g:layer("l1")
  local y = g:matmul(x, g:weight("w", { 64, 64 }))
  g:softmax_xent(y, g:label("labels", { "b" }), "metric")
  g:loss(g:mse(y, g:input("t", { "b", 64 })))
  local s = g:stats { optimizer = "sgd", b = 4, framework = "hf-trainer", schedule = "walk", precision = "mixed" }
  local w = s.footprint_walk
  T.eq(w.loss_moment, nil, "no loss moments")
  T.eq(s.framework_memory.loss.at_forward, nil)
  T.eq(s.footprint, math.max(w.walk, w.loss), "the larger of the walk and the loss's moment")
  -- the loss's moment is the graph schedule's peak with the stack's terms: below the
  -- framework schedule's, which holds every gradient
  local f = g:stats { optimizer = "sgd", b = 4, framework = "hf-trainer", precision = "mixed" }
  assert(w.loss > 0 and w.loss <= f.footprint, w.loss .. " vs " .. f.footprint)
end)

T.test("schedule and accumulation: errors by name", function()
  local g = chain()
  T.checkerr("schedule must be \"framework\" or \"walk\", got walked", g.stats, g,
    { b = 4, d = 8, framework = "pytorch-ddp", schedule = "walked" })
  T.checkerr("accumulation is read by schedule = \"walk\"", g.stats, g,
    { b = 4, d = 8, framework = "pytorch-ddp", accumulation = 8 })
  T.checkerr("accumulation must be a whole number >= 1", g.stats, g,
    { b = 4, d = 8, framework = "pytorch-ddp", schedule = "walk", accumulation = 0.5 })
  -- (review6) an infinite count is not a whole number: before, it was taken (math.floor(inf)
  -- == inf) and the footprint printed as if it were
  T.checkerr("accumulation must be a whole number >= 1 (micro-batches per optimizer step), got inf",
    g.stats, g, { b = 4, d = 8, framework = "pytorch-ddp", schedule = "walk", accumulation = math.huge })
  T.checkerr("it needs a framework profile other than \"none\"", g.stats, g,
    { b = 4, d = 8, framework = "none", schedule = "walk" })
  T.checkerr("dlb.frameworks.derive: grad_buffer must be {persistent = true | false", dlb.frameworks.derive,
    "pytorch-ddp", { grad_buffer = true })
  -- the compiled sweep does not walk: refused by name
  local function gpt(p) return dlb.models.gpt { layers = p.layers, hidden = 128, heads = 4,
    seq = "seq", batch = "batch", vocab = 1000 } end
  T.checkerr("stats.schedule = \"walk\" is not compiled", dlb.sweep.model, gpt,
    { layers = { 1, 2 }, batch = { 1 }, seq = { 64 }, device = { "H100" } },
    { bind = { "batch", "seq" }, stats = { framework = "pytorch-ddp", schedule = "walk" } })
end)

T.done()
