-- vtrain_runs.lua — measured Megatron-LM iteration times on A100 clusters from vTrain's
-- public ground truth (VIA-Research/vTrain, MICRO 2024, MIT licence: data/ground_truth_single.csv
-- and data/ground_truth_multi.csv at commit f8dda84; selection in ../../../shared/data/vtrain,
-- copied to notebooks/data/vtrain/ with a `role` column, see make_roles.py there), as rows of
-- the validation table's schema (notebooks/data/validation_runs.lua) with a `set` name.
--   dofile("notebooks/data/vtrain_runs.lua")(dir) -> { row, ... }   (dir: this folder)
-- The set-up the source states (src/config.py, config/validation/*.json): A100, 8 per node,
-- NVLink inside a node (intra_node_bandwidth 150 GB/s), 800 Gb/s per node between nodes,
-- fp16 mixed precision, full activation checkpointing, 1F1B, DDP without gradient buckets,
-- vocabulary 50257. What it does not state, and what these rows assume (docs/validation.md):
--   * the A100 variant: the 80 GB SXM4 part (A100-SXM4-80GB; first assumed 40 GB, changed
--     because the 3.6B model at tp 1 holds 57.6 GB of DDP state: docs/validation.md);
--   * the NICs: 4 per node of 200 Gb/s (HDR InfiniBand), 4 x 200 = 800 Gb/s per node;
--   * the stack: Megatron-LM's 2021-22 kernels (the megatron-lm profile).
-- Each row's role (fit / held) was fixed by a hash of its key before any error was seen.
-- Two more sets hold the same study's measured rows that are NOT in ../../../shared (issue
-- [19] target 2; the source's own files at the same commit, selected by make_unshared.py):
-- "unshared-1node" (the 720 one-node rows with hidden size 2048) and "unshared-multinode"
-- (the 68 rows of GPT 39.1B and 175B on 512 GPUs). Every one of them is held out (role
-- "held", stored with the row before any prediction was run): nothing is fitted on them;
-- they take the cluster assumptions above unchanged. The 175B file holds one layout twice
-- (two measurements): the second row's id ends in "-2".
local SOURCE = "VIA-Research/vTrain (MICRO 2024) data/ground_truth_%s.csv at commit f8dda84: "
  .. "measured Megatron-LM iteration time, row %s"

local function read(path)
  local f = assert(io.open(path, "r"))
  local rows, head = {}, nil
  for line in f:lines() do
    local t = {}
    for c in (line .. ","):gmatch("([^,]*),") do t[#t + 1] = c end
    if not head then head = t else rows[#rows + 1] = t end
  end
  f:close()
  return rows
end

return function(dir)
  local out, seen = {}, {}
  local function add(set, file, key, c, params)
    -- c: gpus, gb, mb, hidden, heads, layers, seq, tp, dp, pp, ms, role
    local n = {}
    for i = 1, 11 do n[i] = tonumber(c[i]) end
    local g, gb, mb, h, a, l, s, tp, dp, pp, ms = n[1], n[2], n[3], n[4], n[5], n[6], n[7],
      n[8], n[9], n[10], n[11]
    local id = string.format("vtrain-%s-h%d-l%d-g%d-b%d-mb%d-t%dd%dp%d", set, h, l, g, gb, mb, tp, dp, pp)
    seen[id] = (seen[id] or 0) + 1
    if seen[id] > 1 then id = id .. "-" .. seen[id] end   -- a layout measured twice
    out[#out + 1] = {
      id = id,
      set = set, role = c[12],
      -- dropout = true: the layer vTrain measured runs Megatron-LM's three dropouts at 0.1
      -- (VIA-Research/vTrain src/model/gpt_model.py ShardedGptModel: attention_dropout_prob
      -- and output_dropout_prob 0.1; src/model/gpt_modeling.py: attention_dropout as its own
      -- torch.nn.Dropout on the s x s probabilities, bias_dropout_add_fused_train(..., 0.1)
      -- after the attention and the MLP; Megatron-LM's --attention-dropout and
      -- --hidden-dropout default to 0.1). Issue [19] megatron audit (docs/validation.md).
      model = { builder = "gpt", opts = { layers = l, hidden = h, heads = a, vocab = 50257,
        context = s, seq = s, dropout = true } },
      params = params,
      hw = "A100-SXM4-80GB", devices = g,
      layout = { dp = dp, tp = tp, pp = pp, micro_batch = mb, global_batch = gb,
        schedule = "1f1b", recompute = "full" },
      precision = "mixed", seq = s, framework = "Megatron-LM",
      nics = 4,
      measured = { step_time = ms / 1000 },
      source = string.format(SOURCE, file, key),
    }
  end
  for i, c in ipairs(read(dir .. "/vtrain/single_node_h1024.csv")) do
    add("1node", "single", i, c, nil)
  end
  for i, c in ipairs(read(dir .. "/vtrain/multi_node_3.6b_18.4b.csv")) do
    local p = tonumber(table.remove(c, 1))
    add("multinode", "multi", i, c, p * 1e9)
  end
  -- the unshared rows (their row number: in the selected copy, named)
  for i, c in ipairs(read(dir .. "/vtrain/single_node_h2048.csv")) do
    add("unshared-1node", "single", i .. " of the selection vtrain/single_node_h2048.csv", c, nil)
  end
  for i, c in ipairs(read(dir .. "/vtrain/multi_node_39.1b_175b.csv")) do
    local p = tonumber(table.remove(c, 1))
    add("unshared-multinode", "multi", i .. " of the selection vtrain/multi_node_39.1b_175b.csv", c, p * 1e9)
  end
  return out
end
