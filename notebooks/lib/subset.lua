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
