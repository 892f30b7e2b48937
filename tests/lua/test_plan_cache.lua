-- test_plan_cache.lua — the planner's caches (graphs/parallel/planner_ops.c, layer classes;
-- planner.c's per-layout memos) return what an uncached evaluation would: layers that differ
-- in a field the timing reads are not one class. On both backends. (review6)
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

-- Two layers without ops, alike but for flops_core (the attention core's forward FLOPs that
-- selective recompute runs again: planner_ops.c compute, a layer without ops). Before the fix
-- the second layer joined the first's class (same() compared FLOPs and bytes only) and was
-- timed with the first's flops_core: the order of the layers changed the step.
T.test("selective recompute: a layer's flops_core is its own (no stale class)", function()
  local function L(core)
    return { flops_fwd = 1e12, flops_bwd = 2e12, bytes_sample = 1e8, bytes_fixed = 0, params = 1e8,
      act_out = 1e6, act_kept = 1e7, act_rep = 0, act_in = 1e6, tp_bytes = 0, tp_colls = 0,
      shardable = 0, flops_core = core, act_core = 1e6 }
  end
  local function step(a, b)
    local ls = { L(a), L(b) }
    ls.precision = "mixed"
    return P.evaluate { layers = ls, hw = "H100", batch = 8, dp = 1, tp = 1, pp = 1, m = 1,
      recompute = "selective" }.step
  end
  local ab, ba = step(1e11, 5e11), step(5e11, 1e11)
  local aa, bb = step(1e11, 1e11), step(5e11, 5e11)
  assert(bb > aa, "more core FLOPs recomputed: a longer step")
  T.near(ab, ba, 1e-12, "the layers' order does not matter")
  -- each layer's recomputed core is its own: the mixed list is halfway
  T.near(ab, (aa + bb) / 2, 1e-12, "halfway between the two uniform lists")
end)

-- The model FLOPs per sample a plan's MFU divides by are cached per graph
-- (lua/dlbench/parallel_plan.lua fb_per_sample), and a graph is mutable: frozen weights lose
-- their weight-gradient FLOPs. Before the fix the cache was keyed on the graph object alone
-- and a plan after g:freeze reused the unfrozen FLOPs (MFU 0.01319 for 0.01210 here); the key
-- now holds g:generation() (dlb_graph_generation), which every change bumps.
T.test("plan -> freeze -> plan: the MFU of a fresh graph frozen the same way (fixes7)", function()
  local M = dlb.models
  local function gpt() return M.gpt { layers = 2, hidden = 256, heads = 4, seq = 512, vocab = 1000 } end
  local function plan(g) return P.plan { graph = g, hw = "H100-SXM", devices = 2, batch = 8, table = false } end
  local function same(a, b, what)
    T.eq(#a, #b, what .. ": rows")
    for i = 1, #a do
      T.near(a[i].mfu, b[i].mfu, 1e-12, what .. ": mfu of row " .. i)
      T.near(a[i].step, b[i].step, 1e-12, what .. ": step of row " .. i)
    end
  end
  local g = gpt()
  local before = plan(g)
  local v = g:generation()
  assert(g:freeze("attn") > 0, "some weights frozen")
  assert(g:generation() > v, "g:freeze bumps the generation")
  local after = plan(g)
  local h = gpt()
  h:freeze("attn")
  local fresh = plan(h)
  same(after, fresh, "frozen in place vs frozen fresh")
  assert(after[1].mfu < before[1].mfu * (1 - 1e-3), "frozen weights: fewer model FLOPs, a lower MFU")
  -- unfreezing returns the first plan's numbers (a new generation, not the stale entry)
  g:unfreeze()
  same(plan(g), before, "unfrozen again")
  -- g:lora on a built graph froze every weight at the next analysis (its targets had no
  -- adapters: a step that trains nothing); it is refused now (fixes11), and the refused call
  -- leaves the graph, its generation and its plan as they were
  v = g:generation()
  T.checkerr("was built before g:lora", g.lora, g, { rank = 8 })
  T.eq(g:generation(), v, "a refused g:lora: the same generation")
  same(plan(g), before, "a refused g:lora: the same plan")
  -- LoRA before the build (the zoo's lora =) adds ops and freezes the base: a new plan
  local k = M.gpt { layers = 2, hidden = 256, heads = 4, seq = 512, vocab = 1000, lora = { rank = 8 } }
  local kp = plan(k)
  assert(kp[1].mfu < before[1].mfu * (1 - 1e-3), "LoRA: frozen base, fewer model FLOPs, a lower MFU")
end)

-- The layer lists of graph= plans and evaluations are cached per graph (weak keys) and per
-- everything layers.from_graph reads (lua/dlbench/parallel_plan.lua cache_key): the graph's
-- generation, the options (bind, precision, batch_dim, fusion, the profile by identity and
-- by content), the zoo options. A wrong hit would be a silent wrong number: each request on a
-- graph that has served every earlier one must equal the same request on a fresh graph, and
-- the requests that change the layers must move the row (else this test could not fail).
local function rows_equal(a, b, what)
  for k, v in pairs(a) do
    local w = b[k]
    if type(v) == "table" and type(w) == "table" then
      T.eq(#v, #w, what .. ": " .. k .. " entries")
      for i = 1, #v do
        assert(v[i] == w[i], what .. ": " .. k .. "[" .. i .. "] " .. tostring(v[i]) .. " vs " .. tostring(w[i]))
      end
    else
      assert(v == w or (v ~= v and w ~= w), what .. ": " .. k .. " " .. tostring(v) .. " vs " .. tostring(w))
    end
  end
  for k in pairs(b) do assert(a[k] ~= nil, what .. ": " .. k .. " only in one row") end
end
local function differs(a, b)
  for _, k in ipairs { "step", "compute", "update", "mem", "mfu", "framework" } do
    if a[k] ~= b[k] then return true end
  end
  return false
end

T.test("graph= layer lists cached per graph: every request equals a fresh graph's", function()
  local M = dlb.models
  local function llama()
    return M.llama { layers = 2, hidden = 256, heads = 4, kv_heads = 2, ffn = 512, vocab = 1000, seq = 512 }
  end
  local function ev(g, extra)
    local o = { graph = g, hw = "H100-SXM", devices = 2, dp = 2, batch = 8 }
    for k, v in pairs(extra) do o[k] = v end
    return P.evaluate(o)
  end
  local fw = dlb.frameworks
  local p = fw.derive("hf-trainer", {})   -- edited in place below
  local cases = {
    { "precision fp32", { precision = "fp32" }, true },
    { "precision bf16", { precision = "bf16" }, true },
    { "framework megatron-core", { framework = "megatron-core" }, true },
    { "framework hf-trainer (layers under the profile: its memory, its norm)", { framework = "hf-trainer" }, true },
    { "fuse = false", { fuse = false }, true },
    { "batch_dim named", { batch_dim = "b" }, false },
    { "another batch (the layers are per sample: the same list)", { batch = 16 }, true },
    { "w_bytes (a copy of the cached list)", { w_bytes = 4 }, true },
    { "offload optimizer", { offload = { "optimizer" } }, true },
    { "a derived profile", { framework = p }, false },
  }
  local g = llama()
  local ref = ev(g, {})
  rows_equal(ref, ev(llama(), {}), "default")
  for _, c in ipairs(cases) do
    local x = ev(g, c[2])
    rows_equal(x, ev(llama(), c[2]), c[1] .. ": cached graph vs fresh graph")
    if c[3] then assert(differs(x, ref), c[1] .. ": the request moves the row") end
    rows_equal(ev(g, {}), ref, c[1] .. ", then the default again")
  end
  -- the derived profile edited in place: its RMSNorm no longer keeps the fp32 upcast (the
  -- layers are built under the profile, its memory table: dlb.frameworks.norm_upcast), the
  -- same table with other contents: another key (a new table for norm: p's own field)
  local before = ev(g, { framework = p })
  p.norm = { upcast = false, source = "test: edited in place" }
  local after = ev(g, { framework = p })
  rows_equal(after, ev(llama(), { framework = p }), "profile edited in place: cached vs fresh")
  assert(after.mem < before.mem, "without the upcast norms' activations: less memory")
  -- a plan's rows (the search path) on the cached graph, against a fresh graph's
  local function plan(h) return P.plan { graph = h, hw = "H100-SXM", devices = 4, batch = 8, table = false } end
  local a, b = plan(g), plan(llama())
  T.eq(#a, #b, "plan rows")
  for i = 1, #a do rows_equal(a[i], b[i], "plan row " .. i) end
end)

T.test("the layer cache keeps no graph alive (weak keys)", function()
  local probe = setmetatable({}, { __mode = "v" })
  do
    local g = dlb.models.gpt { layers = 2, hidden = 256, heads = 4, seq = 512, vocab = 1000 }
    P.evaluate { graph = g, hw = "H100-SXM", devices = 1, dp = 1, batch = 8 }
    probe[1] = g
  end
  for _ = 1, 4 do collectgarbage("collect") end
  assert(probe[1] == nil, "the graph is collected once the caller drops it")
end)

T.done()
