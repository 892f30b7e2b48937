-- test_recompute_one.lua — one configuration, one time under full activation recomputation
-- (issues [18]/[19], branch recompute-one): dlb.roofline.time(g:stats{recompute = 1}) (the
-- graph path: one checkpointed segment per g:layer scope, the last not recomputed,
-- graphs/step/train.c) and dlb.parallel.evaluate{recompute = "full"} (the planner:
-- dlb_par_layout_eval reruns the forward of every layer between the input and the loss
-- layer) time the same step on one device. Source of the rule both now follow: a
-- checkpointed function reruns its whole forward in the backward (Megatron-LM's
-- CheckpointFunction.backward calls run_function on the saved inputs; Korthikanti et al.
-- 2022 sec. 4, "full activation recomputation"), with the same kernels as the forward.
-- Before: the graph path reran only the ops whose outputs the backward reads (a GPT block's
-- fc2, its bias and the closing residual add never ran again) and fused fc1's bias into gelu
-- in the forward under recompute only: GPT-2 on A100 under megatron-lm 18.414 ms against
-- evaluate's 19.018 ms (3.3% apart). Selective recompute has no graph-path twin
-- (g:stats's policies: docs/graph.md), so only full is compared. Every profile as it is and
-- without its host model, three GPT sizes; both backends.
-- Which layers run again (issue [18] item 5): the blocks of the stack, by one rule both paths
-- read (dlb_layer_reruns, graphs/step/train.c; dlb_par_layer.rerun): a layer whose forward
-- reads the hidden state and holds no loss. Hugging Face's BertEncoder checkpoints each
-- BertLayer, BertEmbeddings (with its LayerNorm) and BertPooler run outside it; T5Stack
-- likewise each T5Block. Before, the graph path reran BERT's embedding segment (its
-- LayerNorm's backward reads its input) and the planner T5's decoder embedding (between two
-- blocks, act_in > 0), 50 us and 10 us apart; both reran BERT's pooler.
local T = require "harness"
local dlb = require "dlbench"
local fw = dlb.frameworks

local H = dlb.hw.get("A100-80GB")
local names, nohost = require("profile_cases").names, require("profile_cases").nohost

local MODELS = {
  { "gpt2", function() return dlb.models.gpt { size = "gpt2", batch = 1 } end },
  { "gpt2-medium", function() return dlb.models.gpt { size = "gpt2-medium", batch = 1 } end },
  { "h256-l4", function() return dlb.models.gpt { hidden = 256, heads = 4, layers = 4,
    context = 256, vocab = 1000, batch = 1 } end },
}

local function pair(g, prof)
  local s = g:stats { precision = "mixed", framework = prof, recompute = 1 }
  local r = dlb.roofline.time(s, H)
  local e = dlb.parallel.evaluate { graph = g, hw = H, devices = 1, dp = 1, batch = 1,
    precision = "mixed", framework = prof, recompute = "full" }
  return r, e, s
end

T.test("full recompute: roofline.time = evaluate within 1e-9, every profile x 3 GPT sizes", function()
  local n, skipped = 0, {}
  for _, m in ipairs(MODELS) do
    for _, name in ipairs(names()) do
      -- (a profile whose stack offers no full recompute, ngc's, is refused by evaluate)
      local offers = fw.offers(fw.get(name), "full")
      if not offers then skipped[name] = true end
      for _, prof in ipairs(offers and { name, nohost(name) } or {}) do
        local r, e = pair(m[2](), prof)
        assert(e.recompute == true, "evaluate ran full recompute")
        local label = (type(prof) == "string" and prof or prof.name or name .. " (no host)") .. " " .. m[1]
        T.near(e.step, r.time, 1e-9, label .. ": step")
        n = n + 1
      end
    end
  end
  local k = 0
  for _ in pairs(skipped) do k = k + 1 end
  assert(n >= 3 * 2 * 14 and k <= 3, n .. " cases, " .. k .. " profiles without full recompute")
end)

-- what the graph path recomputes, op by op: every forward op of each block again with the
-- forward's own FLOPs and bytes (fusions included), nothing of the embedding nor of the
-- output layer (the last segment; the embedding's backward reads none of its activations)
T.test("full recompute reruns each block's whole forward, as the forward ran it", function()
  for _, prof in ipairs { "megatron-lm", "pytorch-ddp", "deepspeed-zero1", "maxtext" } do
    local g = dlb.models.gpt { size = "gpt2", batch = 1 }
    local ops = g:ops { precision = "mixed", framework = prof, recompute = 1 }
    local fwd, rc = {}, {}
    for _, o in ipairs(ops) do
      if o.phase == "fwd" then fwd[#fwd + 1] = o elseif o.phase == "recompute" then rc[o.name] = o end
    end
    local nblk = 0
    for _, o in ipairs(fwd) do
      local c = rc[o.name .. "/recompute"]
      if o.layer_name == "embedding" or o.layer_name == "output" then
        assert(c == nil, prof .. ": " .. o.name .. " of " .. o.layer_name .. " recomputed")
      else
        assert(c, prof .. ": " .. o.name .. " (" .. o.layer_name .. ") not recomputed")
        T.near(c.flops, o.flops, 1e-12, prof .. " " .. o.name .. " flops")
        T.near(c.bytes, o.bytes, 1e-12, prof .. " " .. o.name .. " bytes")
        nblk = nblk + 1
      end
    end
    assert(nblk >= 12 * 25, prof .. ": " .. nblk .. " block ops")
    -- the recomputed ops' FLOPs are the blocks' forward FLOPs (12 blocks of at least
    -- 24 s d^2 + 4 s^2 d: Narayanan et al. 2021 eq. 2's terms, plus elementwise ops)
    local blocks, rsum = 0, 0
    for _, o in ipairs(fwd) do
      if o.layer_name ~= "embedding" and o.layer_name ~= "output" then blocks = blocks + o.flops end
    end
    for _, c in pairs(rc) do rsum = rsum + c.flops end
    local d, q = 768, 1024
    assert(blocks >= 12 * (24 * q * d * d + 4 * q * q * d), prof .. ": blocks' forward " .. blocks)
    T.near(rsum, blocks, 1e-12, prof .. ": recomputed FLOPs")
  end
end)
-- BERT, T5 and the zoo's encoder-decoder: the same layers run again on both paths, and the
-- same step (1e-9), every profile that offers full recompute
T.test("full recompute: the blocks only -- BERT's embedding and pooler, T5's decoder embedding once", function()
  local T5 = require("dlbench.models.transformer").t5
  local MODELS2 = {
    { "bert", function() return dlb.models.bert { layers = 2, hidden = 256, heads = 4, vocab = 1000,
      seq = 128, batch = 1 } end, { embeddings = false, layer0 = true, layer1 = true, pooler = false, mlm = false } },
    { "t5", function() return T5 { layers = 2, hidden = 256, heads = 4, ffn = 512, vocab = 1000,
      seq = 64, batch = 1 } end, { shared = false, ["encoder.block.0"] = true, ["encoder.block.1"] = true,
      ["decoder.embed"] = false, ["decoder.block.0"] = true, ["decoder.block.1"] = true, output = false } },
    { "transformer", function() return dlb.models.transformer { layers = 1, hidden = 256, heads = 4,
      ffn = 512, vocab = 1000, seq = 64, batch = 1 } end,
      { embedding = false, encoder0 = true, decoder0 = true, output = false } },
  }
  local n = 0
  for _, m in ipairs(MODELS2) do
    local g = m[2]()
    -- the graph path: which layers' forward ops run again
    local rc = {}
    for _, o in ipairs(g:ops { precision = "mixed", recompute = 1 }) do
      if o.phase == "recompute" then rc[o.layer_name] = true end
    end
    -- the planner: the layers' rerun (from the same C rule)
    local ls = dlb.parallel.layers.from_graph(g, { precision = "mixed" })
    local nwant = 0
    for _ in pairs(m[3]) do nwant = nwant + 1 end
    T.eq(#ls, nwant, m[1] .. ": layers")
    for _, l in ipairs(ls) do
      local want = m[3][l.name]
      assert(want ~= nil, m[1] .. ": unexpected layer " .. l.name)
      T.eq(rc[l.name] == true, want, m[1] .. " " .. l.name .. ": graph path reruns")
      T.eq(l.rerun, want and 1 or -1, m[1] .. " " .. l.name .. ": planner's rerun")
    end
    for _, name in ipairs(names()) do
      if fw.offers(fw.get(name), "full") then
        for _, prof in ipairs { name, nohost(name) } do
          local r, e = pair(g, prof)
          T.near(e.step, r.time, 1e-9, m[1] .. " " .. (type(prof) == "string" and prof or name .. " (no host)"))
          n = n + 1
        end
      end
    end
  end
  assert(n >= 3 * 2 * 14, n .. " cases")
  -- a hand-written layer list keeps the rule by place; rerun = 2 is refused
  local base = { flops_fwd = 1e9, flops_bwd = 2e9, bytes_sample = 1e6, params = 1e6, act_out = 1e3,
    act_kept = 1e4 }
  local function layers(r)
    local L = {}
    for i = 1, 3 do
      local l = {}
      for k, v in pairs(base) do l[k] = v end
      l.act_in = i > 1 and 1e3 or 0
      if i == 3 then l.act_out = 0 end
      L[i] = l
    end
    L[2].rerun = r
    return L
  end
  local function step(r)
    return dlb.parallel.evaluate { layers = layers(r), hw = H, batch = 1, dp = 1, recompute = "full",
      precision = "mixed" }.step
  end
  T.near(step(nil), step(1), 1e-12, "rerun 1 = the middle layer by its place")
  assert(step(-1) < step(1), "rerun -1: its forward runs once")
  T.checkerr("layer 2 has rerun 2", step, 2)
end)

-- Memory (issue [18] item 5, branch defaults-one): one device, roofline.time(g:stats{...}).need
-- against parallel.evaluate's mem under recompute "none" and "full", the one rule of both
-- paths: the framework schedule (every gradient held) with the step's largest activations;
-- under full recompute a layer that runs once keeps what it saves (the stacks run it outside
-- checkpoint()), a rebuilt block its input, and a block's rebuild holds its saved bytes and
-- the gradient arriving at it beyond the layers after it (freed by then). Before: GPT-2 under
-- pytorch-ddp, full, 1.991 GB against the planner's 2.219 (the graph path's activations were
-- those at the peak of all bytes, late in the backward: none), BERT-base "none" equal only
-- because both left its 40.5 MB of activations out. Adoption rule (chosen before measuring):
-- equal within 1e-5 where the step's largest activations are the loss's moment (GPT-2 and
-- every "none" case); under "full" the planner's per-layer costs do not carry the activation
-- gradients inside a rebuilt block's backward, so there the bound is the measured gap's
-- (BERT 2 layers h 256: planner 0.98% under; set at 1.5% after seeing it).
T.test("memory: roofline.time's need = evaluate's mem, recompute none and full (BERT, T5, GPT-2)", function()
  local T5 = require("dlbench.models.transformer").t5
  local MODELS = {
    { "gpt2", function() return dlb.models.gpt { size = "gpt2", batch = 1 } end, 1e-5 },
    { "bert", function() return dlb.models.bert { layers = 2, hidden = 256, heads = 4, vocab = 1000,
      seq = 128, batch = 1 } end, 0.015 },
    { "bert-base", function() return dlb.models.bert { batch = 1 } end, 0.015 },
    { "t5", function() return T5 { layers = 2, hidden = 256, heads = 4, ffn = 512, vocab = 1000,
      seq = 64, batch = 1 } end, 0.015 },
  }
  for _, prof in ipairs { "pytorch-ddp", "fsdp", "megatron-lm" } do
    for _, m in ipairs(MODELS) do
      for _, rc in ipairs { "none", "full" } do
        local g = m[2]()
        local s = g:stats { precision = "mixed", framework = prof, recompute = rc == "full" and 1 or nil }
        local r = dlb.roofline.time(s, H)
        local e = dlb.parallel.evaluate { graph = g, hw = H, devices = 1, dp = 1, batch = 1,
          precision = "mixed", framework = prof, recompute = rc }
        local what = string.format("%s %s recompute %s", prof, m[1], rc)
        T.near(r.need, s.footprint, 1e-12, what .. ": need = footprint")
        T.near(e.mem, r.need, rc == "none" and 1e-12 or m[3], what .. ": evaluate's mem")
      end
    end
  end
  -- GPT-2 under pytorch-ddp, full: the checkpoints, the embedding's and the output layer's
  -- saved bytes (the logits' 2 x 2 B an element and the final norm's), 227.9 MB, held with
  -- every gradient
  local g = dlb.models.gpt { size = "gpt2", batch = 1 }
  local s = g:stats { precision = "mixed", framework = "pytorch-ddp", recompute = 1 }
  T.eq(string.format("%.3f", s.footprint / 1e9), "2.219")
  T.eq(string.format("%.1f", s.act_peak / 1e6), "227.9")
end)
T.done()
