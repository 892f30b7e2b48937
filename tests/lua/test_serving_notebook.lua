-- test_serving_notebook.lua — notebooks/serving.lua runs under this backend: the KV table,
-- the decode roofline crossing the ridge, the throughput-latency curve, the validation
-- on the fixed split, and its four figures.
local T = require "harness"
local NB = require "notebook"

local text, res = NB.run("serving")

T.test("KV bytes printed exactly; the decode roofline crosses the ridge for GQA only", function()
  assert(text:find("Llama-2-7B         6738415616         32     524288", 1, true), "llama-2-7b row")
  assert(text:find("Llama-3-8B         8030261248          8     131072", 1, true), "llama-3-8b row")
  assert(text:find("Llama-3-8B       128   2048", 1, true) and text:find("compute\n", 1, true), "a compute-bound decode")
  assert(text:find("Llama%-2%-7B      1024   2048 [^\n]-memory"), "MHA at 1k stays memory-bound")
end)

T.test("the steps as graphs: timed as the steps are, the KV cache as inputs", function()
  for _, step in ipairs { "prefill", "decode" } do
    local g, l = text:match("\n" .. step .. " +355 +8030261248 +[%d.]+ +[%d.]+ +([%d.]+) +([%d.]+)\n")
    assert(g and g == l, step .. ": graph ms = steps ms")
  end
  assert(text:find("KV-cache inputs: 8623489024 bytes = 16 x 4112 cached", 1, true), "paged cache")
end)

-- the rows the notebook scores: all 73, or under DLB_NOTEBOOK_SUBSET=1 (the sanitizer
-- flavour, tests/run.sh) the subset notebooks/lib/subset.lua keeps, whose errors are not
-- the published ones (the release and FFI flavours check those)
local SUB = dofile(NB.root() .. "/notebooks/lib/subset.lua")
local nrows = #SUB.keep(nil, dofile(NB.root() .. "/notebooks/data/serving_runs.lua"), SUB.serving)

T.test("validation: calibrated on the fit rows, held-out error reported", function()
  T.eq(res.rows, nrows, "rows")
  if SUB.on then
    assert(text:find("SUBSET (DLB_NOTEBOOK_SUBSET=1, the sanitizer tests' mode): serving rows: " .. nrows
      .. " of 73 rows", 1, true), "the subset is said")
  else
    T.eq(nrows, 73, "rows")
    assert(not text:find("SUBSET", 1, true), "no subset by default")
    assert(res.held > 0 and res.held < 0.2, "held-out median |error| " .. res.held)
    assert(res.fit < res.held, "fit rows fit better than held ones")
  end
  assert(text:find("median |error|: held-out", 1, true), "reported")
end)

T.test("first-token rows (issue 29): flops_eff at the chips' CALIBRATED values, not adopted", function()
  local v = res.validated
  T.eq(v.cal.calibration, "validated", "the variant")
  T.eq(v.cal.flops_eff, nil, "flops_eff not fitted")
  -- the rule of docs/serve.md step 4: of two variants, the lower fit rows' error is kept
  assert(SUB.on or v.fit > res.fit, "its fit rows' error is the higher: " .. v.fit .. " vs " .. res.fit)
  assert(v.held > 0 and v.held < 1, "held-out reported")
  assert(text:find("first-token rows (issue 29)", 1, true) and text:find("held-out TensorRT-LLM TTFT rows", 1, true), "printed")
end)

T.test("figures", function()
  for _, f in ipairs { "serving_kv", "serving_roofline", "serving_curve", "serving_validation" } do
    NB.png("out/" .. f .. ".png")
  end
end)

T.done()
