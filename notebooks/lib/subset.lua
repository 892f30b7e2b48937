-- subset.lua — the notebooks' subset mode, for the sanitizer flavour's tests only
-- (tests/run.sh, "asan lua test_*_notebook"): with DLB_NOTEBOOK_SUBSET=1 in the environment
-- a notebook keeps, of a long list of rows that all run through the same C code, the first
-- row (in the list's order) of each value of a key named here: every set, role and layout
-- kind still represented, deterministically. Without it (the default: the release and FFI
-- flavours, a reader) every list is returned whole and the notebook is unchanged.
-- tests/tools/subset_coverage.sh shows that each notebook's subset run executes the same C
-- lines and branches as its full run (BENCHMARKS.md, "The whole suite").
--   local SUB = dofile(here .. "/lib/subset.lua")
--   rows = SUB.keep("vTrain rows", rows, SUB.vtrain)   -- prints a SUBSET line when it cuts
-- The notebooks' tests take the same keys to know which rows a subset run scores.
-- Two other sanitizer tests take the same mode for their own row lists (`runs`, `memory`
-- below: tests/lua/test_validation_rows.lua, test_finetune_memory.lua), adopted by the same
-- rule (tests/run.sh's `subset` list, with the coverage comparison for each).
local M = {}
local on = os.getenv("DLB_NOTEBOOK_SUBSET")
if on ~= nil and on ~= "" and on ~= "0" and on ~= "1" then
  error("DLB_NOTEBOOK_SUBSET: '" .. on .. "' is neither 0 nor 1")
end
M.on = on == "1"

-- the keys: a row -> its kind (rows of one kind take the same C paths)
-- notebooks/validation.lua's vTrain rows (notebooks/data/vtrain_runs.lua): the set, the
-- role (calibration or held out), the tensor and pipeline degrees, data parallel or not,
-- one micro-batch sample or more
function M.vtrain(r)
  local L = r.layout
  return table.concat({ r.set, r.role, L.tp, L.pp, L.dp > 1 and "dp" or "1",
    L.micro_batch > 1 and "mb" or "1" }, "/")
end

-- notebooks/serving.lua's validation rows (notebooks/data/serving_runs.lua): the source
-- (trtllm, nim), the split, the device, the metric, tensor parallel or not, the weights' and
-- the KV cache's dtypes, the KV cache reused or not, a closed-loop concurrency or a batch
function M.serving(r)
  local c = r.config
  return table.concat({ r.id:match("^%a+"), r.split, r.hw, r.metric, c.tp > 1 and "tp" or "1",
    tostring(c.weights), tostring(c.kv), tostring(c.kv_reuse), c.concurrency and "conc" or "batch" }, "/")
end

-- notebooks/data/validation_runs.lua's rows (the validation table) as
-- tests/lua/test_validation_rows.lua checks them (the notebook itself runs them whole): the
-- model builder, the device, the precision, the framework profile, the recipe's MoE layer
-- and fp8 columns, every field the layout states but the batch sizes (a number: 1 or more
-- than 1; a name, a switch or a list: its value), excluded from scoring or not, and the
-- notes (notebooks/data/validation_notes.lua, `notes`) whose id pattern matches the row, so
-- every note is still checked against a row's settings. V: notebooks/lib/validation_rows.lua
-- (its profile_of and excluded rules). A key without the layout's fields missed the
-- planner's expert-tensor-parallel and per-op selective recompute paths
-- (tests/tools/subset_coverage.sh; BENCHMARKS.md "The whole suite").
local BATCH = { micro_batch = true, global_batch = true, grad_accum = true }
function M.runs(r, notes, V)
  local m, L, ks = {}, {}, {}
  for i, w in ipairs(notes) do if r.id:find(w[1]) then m[#m + 1] = i end end
  for k in pairs(r.layout) do if not BATCH[k] then ks[#ks + 1] = k end end
  table.sort(ks)
  for _, k in ipairs(ks) do
    local v = r.layout[k]
    if type(v) == "number" then v = v > 1 and ">1" or "1"
    elseif type(v) == "table" then v = table.concat(v, ",") end
    L[#L + 1] = k .. "=" .. tostring(v)
  end
  return table.concat({ r.model.builder, r.hw, r.precision, V.profile_of(r).name, tostring(r.moe),
    r.fp8 and "fp8" or "-", table.concat(L, " "), V.excluded(r) and "excluded" or "scored",
    table.concat(m, ",") }, "/")
end

-- the cells of notebooks/data/memory_measured.lua (a row's model and method at one of its
-- sequence lengths) as tests/lua/test_finetune_memory.lua checks them: the model, the method
-- (its graph and stats set-up) and the cell's expected band (within 10%, under, over). (A key
-- without the model missed one arc: graphs/step/footprint.c's greedy schedule is skipped on
-- graphs of more than GREEDY_MAX ops: tests/tools/subset_coverage.sh.)
function M.memory(c)
  return c.row.model .. "/" .. c.row.method .. "/" .. c.row.expect[c.i]
end

-- keep(what, rows, key): rows whole when the mode is off; else the first row of each key,
-- in order, and (when `what` is given) a printed line saying how many were kept
function M.keep(what, rows, key)
  if not M.on then return rows end
  local out, seen = {}, {}
  for _, r in ipairs(rows) do
    local k = key(r)
    if not seen[k] then seen[k] = true; out[#out + 1] = r end
  end
  if what then
    print(string.format("SUBSET (DLB_NOTEBOOK_SUBSET=1, the sanitizer tests' mode): %s: %d of %d rows, "
      .. "the first of each kind", what, #out, #rows))
  end
  return out
end
return M
