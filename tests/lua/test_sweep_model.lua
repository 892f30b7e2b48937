-- test_sweep_model.lua — the compiled per-op model (graphs/sweep, dlb.sweep.model) against
-- the per-configuration path (g:stats{framework = "auto"} + dlb.roofline.time): 1,000
-- configurations drawn from GPT, Llama (GQA), MoE, ResNet, ParaDnn FC/CNN/RNN and an
-- imported ONNX model (tests/fixtures/onnx/gpt2_like.onnx), on five devices (H100, V100, a
-- Skylake CPU, TPUv4 at its natural bf16, MI300X); FLOPs,
-- bytes, parameters, weights, optimizer state and step times within 1e-9 relative. Memory:
-- the compiled peak is the construction order's (footprint_order) within 1e-9 on every
-- configuration, never below the searched footprint, and the compiled step memory equals
-- the per-configuration one within 1e-9 wherever the construction order is the best order
-- the per-configuration path found (footprint_graph, the scheduler's peak under a profile,
-- == footprint_order); elsewhere the gaps are
-- printed (docs/sweep.md "Exactness and memory"). dlb.sweep.model end to end (its rows, its
-- reductions against brute force over its kept rows, its errors): test_sweep_model_run.lua.
local T = require "harness"
local dlb = require "dlbench"
local fw = require "dlbench.frameworks"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local ONNX = here .. "/../fixtures/onnx/gpt2_like.onnx"

-- a deterministic generator (the same draws under Lua 5.4 and LuaJIT): Park-Miller
local seed = 20261128
local function rand(n)
  seed = (seed * 16807) % 2147483647
  return 1 + seed % n
end
local function pick(list) return list[rand(#list)] end

local DEVICES = { "H100-SXM", "V100-SXM2-16GB", "Skylake-n1-32", "TPUv4", "MI300X" }

-- family: builder(options), structures (model options), bind = {dim = values}, layers
local FAMILIES = {
  { name = "gpt", build = function(p) return dlb.models.gpt(p) end,
    structs = { { hidden = 256, heads = 4, context = 1024, vocab = 1000 },
                { hidden = 384, heads = 6, context = 1024, vocab = 512, dropout = true } },
    bind = { batch = { 1, 2, 3, 4, 8, 16 }, seq = { 64, 128, 192, 512, 1024 } }, layers = { 1, 2, 5, 12 } },
  { name = "llama (GQA)", build = function(p) return dlb.models.llama(p) end,
    structs = { { hidden = 256, heads = 8, kv_heads = 2, ffn = 704, vocab = 1000 } },
    bind = { batch = { 1, 2, 4, 8 }, seq = { 64, 256, 1000, 2048 } }, layers = { 1, 3, 8 } },
  { name = "moe", build = function(p) return dlb.models.moe(p) end,
    structs = { { hidden = 256, heads = 4, ffn = 512, experts = 4 } },
    bind = { batch = { 1, 2, 4 }, seq = { 64, 256, 512 } }, layers = { 1, 2, 4 } },
  { name = "resnet", build = function(p) return dlb.models.resnet(p) end,
    structs = { { depth = 18, image = 64, classes = 10 }, { depth = 50, image = 32, classes = 100 } },
    bind = { batch = { 1, 2, 8, 32, 64 } } },
  { name = "paradnn fc", build = function(p) return dlb.models.paradnn.fc(p) end,
    structs = { {} },
    bind = { batch = { 64, 256, 1024 }, nodes = { 32, 128, 512, 2048 }, input = { 2000, 4000 },
             output = { 200, 1000 } }, layers = { 1, 4, 16 } },
  { name = "paradnn cnn", build = function(p) return dlb.models.paradnn.cnn(p) end,
    structs = { { blocks = 1, filters = 16, image = 64 } },
    bind = { batch = { 1, 8, 64 }, output = { 500, 1000 } } },
  { name = "paradnn rnn", build = function(p) return dlb.models.paradnn.rnn(p) end,
    structs = { { cell = "lstm", length = 10 }, { cell = "gru", length = 5 } },
    bind = { batch = { 16, 64, 256 }, embed = { 100, 500, 900 }, vocab = { 2, 64, 1024 } }, layers = { 1, 5, 9 } },
  { name = "onnx gpt2_like", build = function() return dlb.models.from_onnx(ONNX) end,
    structs = { {} },
    bind = { batch = { 1, 2, 4, 8 }, sequence = { 16, 32, 64, 128 } } },
}

local function sortedkeys(t)
  local k = {}
  for n in pairs(t) do k[#k + 1] = n end
  table.sort(k)
  return k
end

local worst = { time = 0, flops = 0, bytes = 0, mem = 0, fam = {} }
local N = 0

local function rel(a, b) return math.abs(a - b) / math.max(math.abs(a), math.abs(b), 1e-300) end
-- the reference bindings dlb.sweep.model gives dlb.sweep.compile (each swept dim's first
-- value): a hand-built or imported graph's family is found from the step at them (review 17)
local function ref_of(bind)
  local r = {}
  for k, v in pairs(bind) do r[k] = v[1] end
  return r
end

for _, F in ipairs(FAMILIES) do
  T.test("compiled = per-configuration: " .. F.name, function()
    local bind = sortedkeys(F.bind)
    for si, st in ipairs(F.structs) do
      local P = dlb.sweep.compile(F.build, st, bind, F.layers and "layers" or nil, nil, ref_of(F.bind))
      local draws = math.floor(1000 / (#FAMILIES * #F.structs))
      for _ = 1, draws do
        local vals, b = {}, {}
        for i, k in ipairs(bind) do vals[i] = pick(F.bind[k]); b[k] = vals[i] end
        local opts = {}
        for k, v in pairs(st) do opts[k] = v end
        for _, k in ipairs(bind) do opts[k] = k end
        if F.layers then opts.layers = pick(F.layers); vals[#vals + 1] = opts.layers end
        local g = F.build(opts)
        b.framework = "auto"
        local s = g:stats(b)
        local tot = P.totals(vals)
        local what = string.format("%s struct %d at %s", F.name, si, table.concat(vals, ","))
        T.near(tot.flops, s.flops, 1e-9, what .. " flops")
        T.near(tot.bytes, s.bytes, 1e-9, what .. " bytes")
        T.near(tot.params, s.params, 1e-9, what .. " params")
        T.near(tot.weights, s.breakdown.weights, 1e-9, what .. " weights")
        T.near(tot.optimizer, s.breakdown.optimizer, 1e-9, what .. " optimizer")
        T.near(tot.flops_fwd, s.flops_fwd, 1e-9, what .. " flops_fwd")
        T.near(tot.flops_recompute, s.flops_recompute, 1e-9, what .. " flops_recompute")
        worst.flops = math.max(worst.flops, rel(tot.flops, s.flops))
        worst.bytes = math.max(worst.bytes, rel(tot.bytes, s.bytes))
        -- memory: the compiled construction-order peak is the per-configuration one
        -- (footprint_order) always, an upper bound of the searched footprint, and the
        -- compiled step memory (activations + workspace at that peak) equals the
        -- per-configuration memory wherever the construction order is the best order found
        local dev = dlb.hw.get(pick(DEVICES))
        local r = dlb.roofline.time(s, dev)
        local roof, _, _, scale, _, _, slack, cdev = dlb.roofline.roof_of(dev, fw.get(s.framework), s.precision,
          s.precision_given, {}, "none", "test")
        -- a causal decoder's fused attention under its profile's kernel (dlb.frameworks.attn_work)
        roof.attn_work = fw.attn_work(fw.get(s.framework), require("dlbench.mfu").causal(g), cdev)
        T.near(tot.peak, s.footprint_order, 1e-9, what .. " construction-order peak")
        -- the searched peak: under a profile s.footprint is the framework rule, the graph
        -- scheduler's best peak s.footprint_graph (no memory table here: nothing added)
        local searched = s.footprint_graph or s.footprint
        assert(tot.peak >= searched * (1 - 1e-12), what .. ": peak " .. tot.peak .. " below the searched peak " .. searched)
        local fixed = tot.weights + tot.trainable * dlb.roofline.grad_elem(s.precision) + tot.optimizer
        local cm = (fixed + tot.peak_act) * scale * (1 + (slack or 0))
        worst.fam[F.name] = worst.fam[F.name] or { n = 0, won = 0, peak = 1, lo = 1, hi = 1 }
        local fam = worst.fam[F.name]
        fam.n = fam.n + 1
        if searched == s.footprint_order then -- the construction order won
          T.near(cm, r.footprint, 1e-9, what .. " memory on " .. dev.name .. " (construction order won)")
          worst.mem = math.max(worst.mem, rel(cm, r.footprint))
          fam.won = fam.won + 1
        else
          fam.peak = math.max(fam.peak, tot.peak / searched)
          -- the bound's gap: at most 1.274 measured (ParaDnn RNN); 1.5 set after seeing it
          assert(tot.peak <= 1.5 * searched, what .. ": peak / searched peak " .. tot.peak / searched)
          fam.lo = math.min(fam.lo, cm / r.footprint)
          fam.hi = math.max(fam.hi, cm / r.footprint)
        end
        -- the upper bound: every activation and workspace tensor of the step at once
        local ub = (fixed + tot.act_all) * scale * (1 + (slack or 0))
        assert(ub >= r.footprint * (1 - 1e-12), what .. ": bound " .. ub .. " below the footprint " .. r.footprint)
        worst.ub = math.max(worst.ub or 1, ub / r.footprint)
        local t, f, by = P.time(vals, roof)
        T.near(t, r.time, 1e-9, what .. " time on " .. dev.name)
        T.near(f, r.flops, 1e-9, what .. " timed flops")
        T.near(by, r.bytes, 1e-9, what .. " timed bytes")
        worst.time = math.max(worst.time, rel(t, r.time))
        N = N + 1
      end
    end
  end)
end

T.test("1,000 configurations compared; worst gaps", function()
  assert(N >= 950, "compared " .. N)
  print(string.format("# %d configurations: worst relative difference time %.2g, flops %.2g, bytes %.2g, "
    .. "memory where the construction order won %.2g; memory_bound at most %.3f x the footprint",
    N, worst.time, worst.flops, worst.bytes, worst.mem, worst.ub))
  for _, k in ipairs(sortedkeys(worst.fam)) do
    local v = worst.fam[k]
    if v.won == v.n then print(string.format("#   %s: construction order won %d of %d", k, v.won, v.n))
    else print(string.format("#   %s: construction order won %d of %d; elsewhere peak / footprint <= %.3f, "
      .. "memory / per-config in [%.3f, %.3f]", k, v.won, v.n, v.peak, v.lo, v.hi)) end
  end
end)

-- The profiles with a memory table (hf-trainer, hf-deepspeed: the unfused loss, the CUDA
-- context, foreach AdamW's temporaries, ZeRO-2's buffers and fp32 gradient copy;
-- lua/dlbench/framework_memory.lua): dlb.sweep.model's rows count the same terms. On random
-- rows of every family and device: the compiled totals the terms scale with (optimizer
-- states, logit elements) equal g:stats' within 1e-9; every row's memory equals the Lua rule
-- (framework_memory.terms, the code g:stats runs) applied to the construction order's peak
-- activations within 1e-9; and where the construction order is the best order found the
-- row's memory and fits equal roofline.time's need and fits (the per-configuration path).
local fwmem = require "dlbench.framework_memory"
local function gpt_small(p) return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.heads,
  context = 128, vocab = 500, batch = p.batch, seq = p.seq } end
local stack_won = {}
for _, F in ipairs(FAMILIES) do
  for _, pname in ipairs { "hf-trainer", "hf-deepspeed" } do
    T.test("a stack's memory terms, compiled = per-configuration: " .. F.name .. ", " .. pname, function()
      local bind = sortedkeys(F.bind)
      local st = F.structs[rand(#F.structs)]
      local space = { device = DEVICES }
      for k, v in pairs(st) do space[k] = { v } end
      for k, v in pairs(F.bind) do space[k] = v end
      if F.layers then space.layers = F.layers end
      local build = function(p)
        local q = {}
        for k, v in pairs(p) do q[k] = v end
        return F.build(q)
      end
      local res = dlb.sweep.model(build, space, { bind = bind, keep = true, stats = { framework = pname } })
      local P = dlb.sweep.compile(F.build, st, bind, F.layers and "layers" or nil, { framework = pname },
        ref_of(F.bind))
      local t = res.rows
      local cols = t:columns()
      local data = {}
      for _, c in ipairs(cols) do data[c] = t:column(c) end
      local prof = fw.get(pname)
      local sw = stack_won[pname] or { n = 0, won = 0, terms = {} }
      stack_won[pname] = sw
      for _ = 1, 12 do
        local i = rand(t:count())
        local r = {}
        for _, c in ipairs(cols) do r[c] = data[c][i] end
        local opts, b, vals = {}, { framework = pname }, {}
        for k, v in pairs(st) do opts[k] = v end
        for j, k in ipairs(bind) do opts[k] = k; b[k] = r[k]; vals[j] = r[k] end
        if F.layers then opts.layers = r.layers; vals[#vals + 1] = r.layers end
        local g = F.build(opts)
        local s = g:stats(b)
        local dev = dlb.hw.get(r.device)
        local rt = dlb.roofline.time(s, dev)
        local what = string.format("%s %s at %s on %s", F.name, pname, table.concat(vals, ","), dev.name)
        local tot = P.totals(vals)
        T.near(tot.opt_states, s.opt_states, 1e-9, what .. " optimizer states")
        local fm = s.framework_memory
        assert(fm and fm.context, what .. ": no stack terms in g:stats")
        T.near(tot.logits, fm.loss and fm.loss.elements or 0, 1e-9, what .. " logit elements")
        for k in pairs(fm) do sw.terms[k] = true end
        -- the Lua rule on the construction order's peak activations (what the row counts)
        local names, values = {}, {}
        for k, v in pairs(b) do if k ~= "framework" then names[#names + 1] = k; values[#values + 1] = v end end
        local ft = fwmem.terms(prof, g, s.precision, names, values, false, s.optimizer,
          { activations = tot.peak_act, workspace = 0, opt_states = s.opt_states, trainable = s.trainable })
        local _, _, _, scale, _, _, slack = dlb.roofline.roof_of(dev, prof, s.precision, s.precision_given,
          {}, "none", "test")
        local want = dlb.roofline.core_footprint({ breakdown = { weights = tot.weights, gradients = 0,
          optimizer = tot.optimizer, activations = tot.peak_act + ft.activations, workspace = ft.workspace },
          trainable = s.trainable, params = s.params, precision = s.precision, footprint = 0 },
          dev, scale, { slack = slack })
        T.near(r.memory, want, 1e-9, what .. " memory = the Lua rule at the construction order's peak")
        T.eq(r.fits, want <= dev.mem, what .. " fits")
        sw.n = sw.n + 1
        -- the construction order won when the scheduler's peak (footprint_graph, which under
        -- a profile holds the stack's terms too) less those terms is footprint_order
        local added = 0
        for _, v in pairs(fm) do added = added + v.bytes end
        if math.abs(s.footprint_graph - added - s.footprint_order) <= 1e-12 * s.footprint_order then
          T.near(r.memory, rt.need, 1e-9, what .. " memory = roofline.time's need (construction order won)")
          T.eq(r.fits, rt.fits, what .. " fits = roofline.time's")
          sw.won = sw.won + 1
        end
      end
    end)
  end
end
T.test("a stack's memory terms: a derived profile's table is the one counted; inference adds none", function()
  local sp = { layers = { 1, 2 }, hidden = { 128 }, heads = { 4 }, batch = { 1, 4 }, seq = { 64 }, device = "H100-SXM" }
  local function run(stats)
    local r = dlb.sweep.model(gpt_small, sp, { bind = { "batch", "seq" }, keep = true, stats = stats })
    return r.rows:column("memory"), r.rows:column("activations")
  end
  local base = run { framework = "hf-deepspeed", precision = "mixed" }
  local mem = {}
  for k, v in pairs(fw.get("hf-deepspeed").memory) do mem[k] = v end
  mem.buckets = { count = 2, elements = 5e8 }   -- one more ZeRO bucket of 5e8 fp16 elements
  local derived = run { framework = fw.derive("hf-deepspeed", { memory = mem }), precision = "mixed" }
  for i = 1, #base do T.near(derived[i] - base[i], 5e8 * 2, 1e-9, "row " .. i .. ": the second bucket") end
  -- an inference step has no loss backward and no optimizer step: no terms (as g:stats).
  -- hf-trainer is pytorch-ddp with a memory table: their inference rows are the same, their
  -- training rows differ by the terms (the context at least)
  local inf = run { framework = "hf-trainer", inference = true }
  local ddp = run { framework = "pytorch-ddp", inference = true }
  local tr, tr_ddp = run { framework = "hf-trainer" }, run { framework = "pytorch-ddp" }
  for i = 1, #inf do
    T.eq(inf[i], ddp[i], "row " .. i .. ": inference, no stack terms")
    assert(tr[i] >= tr_ddp[i] + fwmem.PYTORCH_CONTEXT, "row " .. i .. ": training counts the terms")
  end
  local s = gpt_small { layers = 1, hidden = 128, heads = 4, batch = 1, seq = 64 }:stats { framework = "hf-trainer", inference = true }
  assert(s.framework_memory == nil, "g:stats adds no terms to an inference step")
end)

T.test("a stack's memory terms: every term met, the per-configuration equality tested", function()
  for _, pname in ipairs { "hf-trainer", "hf-deepspeed" } do
    local sw = stack_won[pname]
    local terms = sortedkeys(sw.terms)
    print(string.format("# %s: %d rows compared, %d where the construction order won; terms met: %s",
      pname, sw.n, sw.won, table.concat(terms, ", ")))
    assert(sw.won > 0, pname .. ": the per-configuration equality went untested")
    for _, k in ipairs { "context", "loss", "optimizer_step" } do assert(sw.terms[k], pname .. ": no " .. k .. " term met") end
  end
  assert(stack_won["hf-deepspeed"].terms.buckets, "no buckets term met")
end)

-- Review 16: the compiled sweep under every profile that runs this round's passes (qkv,
-- qkv_views, softmax_causal) on the models they meet: GQA with Q/K/V biases, LoRA on the MLP
-- (the frozen Q, K, V fused), a Mixtral-style MoE, BERT and ViT (non-causal), T5 and the
-- encoder-decoder Transformer (cross-attention), GPT-2 from ONNX (c_attn already one GEMM;
-- its family from reference bindings, as dlb.sweep.model gives them), without and with full
-- recompute: FLOPs, bytes, parameters and the step time within 1e-9 of g:stats +
-- dlb.roofline.time.
T.test("review 16: compiled = per-configuration under the qkv / softmax_causal profiles", function()
  local TR = require "dlbench.models.transformer"
  local fams = {
    { "llama gqa qkv_bias", function(p) return dlb.models.llama(p) end, { hidden = 256, heads = 8,
      kv_heads = 2, ffn = 704, vocab = 1000, qkv_bias = true }, { batch = { 1, 4 }, seq = { 64, 2048 } }, true },
    { "llama lora mlp", function(p) return dlb.models.llama(p) end, { hidden = 256, heads = 8,
      kv_heads = 2, ffn = 704, vocab = 1000, lora = { rank = 8, targets = { "gate", "up" } } },
      { batch = { 1, 4 }, seq = { 64, 256 } }, true },
    { "moe llama", function(p) return dlb.models.moe(p) end, { style = "llama", hidden = 256,
      heads = 8, kv_heads = 2, ffn = 256, experts = 4, vocab = 1000 }, { batch = { 1, 2 }, seq = { 64, 256 } }, true },
    { "bert", function(p) return dlb.models.bert(p) end, { hidden = 256, heads = 4, vocab = 1000 },
      { batch = { 1, 4 }, seq = { 64, 128 } }, true },
    { "vit", function(p) return dlb.models.vit(p) end, { hidden = 256, heads = 4, ffn = 512,
      image = 32, patch = 8 }, { batch = { 1, 4 } }, true },
    { "t5", function(p) return TR.t5(p) end, { layers = 2, hidden = 256, heads = 4, dkv = 64,
      ffn = 512, vocab = 1000 }, { batch = { 1, 4 }, seq = { 64, 128 } }, false },
    -- (layers fixed: under the elementwise pass the encoder-decoder's op classes are not
    -- affine in layers, 4, 6, 9 at 1, 2, 3 -- refused by the compiler, an older pass's)
    { "transformer", function(p) return dlb.models.transformer(p) end, { layers = 2, hidden = 256,
      heads = 4, ffn = 512, vocab = 1000 }, { batch = { 1, 4 }, seq = { 64, 128 } }, false },
    { "onnx gpt2_like", function() return dlb.models.from_onnx(ONNX) end, {},
      { batch = { 1, 4 }, sequence = { 16, 64 } }, false },
  }
  local devs = { dlb.hw.get("H100-SXM"), dlb.hw.get("V100-SXM2-16GB") }
  local n = 0
  for _, F in ipairs(fams) do
    local bind = sortedkeys(F[4])
    local ref = {}
    for _, k in ipairs(bind) do ref[k] = F[4][k][1] end
    for _, pn in ipairs { "megatron-lm", "megatron-core", "nemo", "deepspeed-zero1", "fsdp" } do
      for _, rc in ipairs { false, true } do
        local so = { framework = pn, precision = "mixed", recompute = rc and 1 or nil }
        local okc, P = pcall(dlb.sweep.compile, F[2], F[3], bind, F[5] and "layers" or nil, so, ref)
        if not okc then error(F[1] .. " " .. pn .. (rc and " recompute" or "") .. ": " .. tostring(P), 0) end
        for _, L in ipairs(F[5] and { 1, 3 } or { false }) do
          -- every combination of the bound values
          local combos = { {} }
          for _, k in ipairs(bind) do
            local nx = {}
            for _, c in ipairs(combos) do
              for _, v in ipairs(F[4][k]) do
                local d = {}
                for i, x in ipairs(c) do d[i] = x end
                d[#d + 1] = v
                nx[#nx + 1] = d
              end
            end
            combos = nx
          end
          for _, vals in ipairs(combos) do
            local o, b = {}, { framework = pn, precision = "mixed", recompute = rc and 1 or nil }
            for k, v in pairs(F[3]) do o[k] = v end
            for i, k in ipairs(bind) do o[k] = k; b[k] = vals[i] end
            local vv = {}
            for i, x in ipairs(vals) do vv[i] = x end
            if L then o.layers = L; vv[#vv + 1] = L end
            local g = F[2](o)
            local s = g:stats(b)
            local tot = P.totals(vv)
            local what = string.format("%s %s%s at %s", F[1], pn, rc and " recompute" or "",
              table.concat(vv, ","))
            T.near(tot.flops, s.flops, 1e-9, what .. " flops")
            T.near(tot.bytes, s.bytes, 1e-9, what .. " bytes")
            T.near(tot.params, s.params, 1e-9, what .. " params")
            local dev = devs[1 + n % #devs]
            local r = dlb.roofline.time(s, dev)
            local roof, _, _, _, _, _, _, cdev = dlb.roofline.roof_of(dev, fw.get(s.framework),
              s.precision, s.precision_given, {}, "none", "test")
            roof.attn_work = fw.attn_work(fw.get(s.framework), require("dlbench.mfu").causal(g), cdev)
            T.near(P.time(vv, roof), r.time, 1e-9, what .. " time on " .. dev.name)
            n = n + 1
          end
        end
      end
    end
  end
  assert(n >= 300, "compared " .. n)
end)

T.done()
