-- test_validation_data.lua — notebooks/data/validation_runs.lua, the table of published
-- training throughputs (issue 12, item 7): the schema of its header holds strictly
-- (unknown keys rejected, required keys present, catalogue names, sane units), every
-- row's model builds with dlb.models, its parameter count is within 3% of the published
-- one, and where a row gives both a throughput and an MFU (or model TFLOP/s) the two agree
-- with the model's own FLOP count. The checker also rejects broken rows (a test that
-- cannot fail is a defect).
local T = require "harness"
local dlb = require "dlbench"
local options = require "dlbench.options"

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local PATH = here .. "/../../notebooks/data/validation_runs.lua"

-- == the checker ======================================================================

local ROW_KEYS = { id = true, model = true, params = true, hw = true, device = true,
  devices = true, layout = true, precision = true, seq = true, framework = true,
  measured = true, source = true, note = true, role = true, set = true, nics = true, fp8 = true,
  moe = true }
local REQUIRED = { "id", "model", "hw", "devices", "layout", "precision", "framework",
  "measured", "source" }
local LAYOUT_COUNTS = { dp = true, tp = true, pp = true, cp = true, ep = true, etp = true, mp = true,
  micro_batch = true, grad_accum = true, global_batch = true, interleave = true }
local LAYOUT_KEYS = { schedule = true, recompute = true, zero = true, sequence_parallel = true,
  cp_algo = true, recompute_modules = true, reduce_dtype = true, recompute_every = true,
  moe_dispatcher = true, moe_a2a_overlap = true, pp_split = true }
for k in pairs(LAYOUT_COUNTS) do LAYOUT_KEYS[k] = true end
local SCHEDULES = { ["1f1b"] = true, interleaved = true }
local RECOMPUTE = { full = true, selective = true, selective_op = true }   -- (torchtitan's per-op AC)
local PRECISIONS = { mixed = true, mixed_bf16 = true, fp16 = true, bf16 = true, fp32 = true,
  tf32 = true, fp8 = true }
local QUANTITIES = { tokens_per_s = { 1, 1e8 }, samples_per_s = { 1e-3, 1e8 },
  step_time = { 1e-4, 1e4 }, tflops_per_gpu = { 1e-3, 1e4 }, mfu = { 1e-3, 1 },
  hfu = { 1e-3, 1 }, time_to_train_min = { 1e-2, 1e6 } }
local MEASURED_KEYS = { per = true, flops_kind = true }
for k in pairs(QUANTITIES) do MEASURED_KEYS[k] = true end

local sorted_keys = options.names -- "a, b, c"

local function is_count(v) return type(v) == "number" and v >= 1 and v == math.floor(v) end

-- "<where>: unknown option 'k' (accepted: ...)", the library's own options checker
local function reject_unknown(t, allowed, where) options.check(t, allowed, where, -1) end -- level 0: no position

-- Checks one row's shape and units; returns nothing, raises "<id>: what is wrong".
local function check_row(r, i, names)
  if type(r) ~= "table" then error("row " .. i .. ": not a table", 0) end
  local where = "row " .. i .. " (" .. tostring(r.id) .. ")"
  reject_unknown(r, ROW_KEYS, where)
  for _, k in ipairs(REQUIRED) do
    if r[k] == nil then error(where .. ": missing required key '" .. k .. "'", 0) end
  end
  for _, k in ipairs { "id", "hw", "precision", "framework", "source" } do
    if type(r[k]) ~= "string" or #r[k] == 0 then error(where .. ": " .. k .. " must be a non-empty string", 0) end
  end
  if not r.id:match("^[%w%.%-_]+$") then error(where .. ": id must be a slug (letters, digits, . - _)", 0) end
  if #r.source < 20 then error(where .. ": source too short to check ('" .. r.source .. "')", 0) end
  if r.role ~= "fit" and r.role ~= "held" then
    error(where .. ": role must be 'fit' or 'held' (stored with the row), got " .. tostring(r.role), 0)
  end
  if r.nics ~= nil and not is_count(r.nics) then error(where .. ": nics must be a positive integer", 0) end
  if r.fp8 ~= nil then
    -- the fp8 recipe the source states (dlbench.te_fp8's scalings and weight casts)
    local te = require "dlbench.te_fp8"
    if r.precision ~= "fp8" then error(where .. ": fp8 (a recipe) on a " .. r.precision .. " row", 0) end
    if type(r.fp8) ~= "table" then error(where .. ": fp8 must be a table {scaling=, weight_cast=}", 0) end
    reject_unknown(r.fp8, { scaling = true, weight_cast = true, output = true }, where .. " fp8")
    -- the output layer's precision the source shows (dlbench.fp8_output's field)
    local ok, e = pcall(require("dlbench.fp8_output").check, r.fp8.output, where, 0)
    if not ok then error(e, 0) end
    if r.fp8.scaling ~= nil and not te.SCALINGS[r.fp8.scaling] then
      error(where .. ": fp8.scaling '" .. tostring(r.fp8.scaling) .. "' is unknown", 0)
    end
    if r.fp8.weight_cast ~= nil and not te.WEIGHT_CASTS[r.fp8.weight_cast] then
      error(where .. ": fp8.weight_cast '" .. tostring(r.fp8.weight_cast) .. "' is unknown", 0)
    end
  end
  if r.moe ~= nil then
    -- the MoE layer's implementation the source's recipe states (the planner's moe_impl,
    -- passed as the row's profile field moe): one of dlb.parallel's DLB_MOE_ names
    if not require("dlbench.parallel_base").MOE_IMPLS[r.moe] then
      error(where .. ": moe '" .. tostring(r.moe) .. "' is not a moe_impl (graph, mcore)", 0)
    end
  end
  for _, k in ipairs { "note", "device" } do
    if r[k] ~= nil and (type(r[k]) ~= "string" or #r[k] == 0) then error(where .. ": " .. k .. " must be a string", 0) end
  end
  -- model
  if type(r.model) ~= "table" then error(where .. ": model must be a table", 0) end
  reject_unknown(r.model, { builder = true, opts = true }, where .. " model")
  if type(r.model.builder) ~= "string" then error(where .. ": model.builder must be a string", 0) end
  if type(r.model.opts) ~= "table" then error(where .. ": model.opts must be a table", 0) end
  if r.model.opts.batch ~= nil then error(where .. ": model.opts must not bind batch (layout.micro_batch holds it)", 0) end
  local known = false
  for _, n in ipairs(dlb.models.names) do if n == r.model.builder then known = true end end
  if not known then error(where .. ": no dlb.models builder '" .. r.model.builder .. "'", 0) end
  if r.params ~= nil and not (type(r.params) == "number" and r.params >= 1e3) then
    error(where .. ": params must be a parameter count (a number) or nil", 0)
  end
  -- hardware and precision
  if not names[r.hw] then error(where .. ": hw '" .. r.hw .. "' is not a catalogue name (dlb.hw.names())", 0) end
  if not is_count(r.devices) then error(where .. ": devices must be a positive integer", 0) end
  if not PRECISIONS[r.precision] then
    error(where .. ": precision '" .. r.precision .. "' (accepted: " .. sorted_keys(PRECISIONS) .. ")", 0)
  end
  local dev = dlb.hw.get(r.hw)
  local ok, prec = pcall(dev.precision, dev, r.precision)
  if not ok then error(where .. ": " .. tostring(prec), 0) end
  -- layout
  local L = r.layout
  if type(L) ~= "table" then error(where .. ": layout must be a table", 0) end
  reject_unknown(L, LAYOUT_KEYS, where .. " layout")
  for k in pairs(LAYOUT_COUNTS) do
    if L[k] ~= nil and not is_count(L[k]) then error(where .. ": layout." .. k .. " must be a positive integer", 0) end
  end
  if L.schedule ~= nil and not SCHEDULES[L.schedule] then error(where .. ": layout.schedule '" .. tostring(L.schedule) .. "'", 0) end
  if L.recompute ~= nil and not RECOMPUTE[L.recompute] then error(where .. ": layout.recompute '" .. tostring(L.recompute) .. "'", 0) end
  if L.zero ~= nil and not (L.zero == 0 or L.zero == 1 or L.zero == 2 or L.zero == 3) then error(where .. ": layout.zero must be 0..3", 0) end
  if L.sequence_parallel ~= nil and type(L.sequence_parallel) ~= "boolean" then error(where .. ": layout.sequence_parallel must be a boolean", 0) end
  -- Megatron-Core's --recompute-modules: the selective policy's modules (core_attn, layernorm, moe, ...)
  if L.recompute_every ~= nil and (L.recompute ~= "selective" or type(L.recompute_every) ~= "number"
      or L.recompute_every < 1 or L.recompute_every ~= math.floor(L.recompute_every)) then
    error(where .. ": layout.recompute_every must be a whole number >= 1 with recompute = \"selective\"", 0)
  end
  if L.recompute_modules ~= nil then
    if L.recompute ~= "selective" or type(L.recompute_modules) ~= "table" or #L.recompute_modules == 0 then
      error(where .. ": layout.recompute_modules must be a non-empty list with recompute = \"selective\"", 0)
    end
    for _, m in ipairs(L.recompute_modules) do
      if type(m) ~= "string" then error(where .. ": layout.recompute_modules must list module names", 0) end
    end
  end
  -- the gradients' reduce dtype the source states (PyTorch FSDP MixedPrecision reduce_dtype)
  if L.reduce_dtype ~= nil and not ({ fp32 = true, bf16 = true, fp16 = true })[L.reduce_dtype] then
    error(where .. ": layout.reduce_dtype must be fp32, bf16 or fp16", 0)
  end
  -- the MoE token dispatcher the source states: one of the planner's (DLB_DISPATCHER_*)
  if L.moe_dispatcher ~= nil and not require("dlbench.parallel_base").DISPATCHERS[L.moe_dispatcher] then
    error(where .. ": layout.moe_dispatcher '" .. tostring(L.moe_dispatcher) .. "' is not a planner dispatcher", 0)
  end
  -- Megatron-Core's combined 1F1B all-to-all overlap the source states (a boolean)
  if L.moe_a2a_overlap ~= nil and type(L.moe_a2a_overlap) ~= "boolean" then
    error(where .. ": layout.moe_a2a_overlap must be true or false", 0)
  end
  -- the pipeline split the source states: "layers" (Megatron-Core's account_for_embedding /
  -- account_for_loss split, the planner's balance "layers"), which needs pipeline chunks and
  -- the model's layers (its blocks + the embedding + the loss) whole in every chunk: checked
  -- where the row is predicted (the planner's error names the counts)
  if L.pp_split ~= nil and (L.pp_split ~= "layers" or not L.pp or L.pp < 2) then
    error(where .. ": layout.pp_split must be \"layers\", with pp > 1", 0)
  end
  if L.cp_algo ~= nil and not ({ ring = true, allgather = true, alltoall = true })[L.cp_algo] then
    error(where .. ": layout.cp_algo must be ring, allgather or alltoall", 0)
  end
  if L.ep and L.dp and not L.etp and ((L.dp * (L.cp or 1)) % L.ep ~= 0) then
    error(where .. ": layout.ep must divide dp x cp", 0)
  end
  if L.ep and L.dp and L.etp and (((L.tp or 1) * L.dp * (L.cp or 1)) % (L.ep * L.etp) ~= 0
    or (L.tp or 1) % L.etp ~= 0) then
    error(where .. ": layout.etp must divide tp, and ep x etp divide tp x dp x cp", 0)
  end
  if L.mp and (L.tp or L.pp) then error(where .. ": layout.mp is for an unsplit model-parallel size; not with tp/pp", 0) end
  if L.dp then -- an absent tp / pp / mp / cp is 1
    local prod = L.dp * (L.mp or ((L.tp or 1) * (L.pp or 1))) * (L.cp or 1)
    if prod ~= r.devices then
      error(string.format("%s: dp x tp x pp (or mp) x cp = %d, but devices = %d", where, prod, r.devices), 0)
    end
  end
  if L.dp and L.micro_batch and L.grad_accum and L.global_batch
    and L.dp * L.micro_batch * L.grad_accum ~= L.global_batch then
    error(string.format("%s: dp x micro_batch x grad_accum = %d, but global_batch = %d", where,
      L.dp * L.micro_batch * L.grad_accum, L.global_batch), 0)
  end
  -- seq
  if r.seq ~= nil and not is_count(r.seq) then error(where .. ": seq must be a positive integer", 0) end
  local oseq = r.model.opts.seq or r.model.opts.steps
  if oseq ~= nil and r.seq ~= oseq then
    error(string.format("%s: seq = %s but model.opts.seq = %s", where, tostring(r.seq), tostring(oseq)), 0)
  end
  -- measured
  local m = r.measured
  if type(m) ~= "table" then error(where .. ": measured must be a table", 0) end
  reject_unknown(m, MEASURED_KEYS, where .. " measured")
  local n = 0
  for k, range in pairs(QUANTITIES) do
    local v = m[k]
    if v ~= nil then
      n = n + 1
      if type(v) ~= "number" or v < range[1] or v > range[2] then
        error(string.format("%s: measured.%s = %s outside [%g, %g]", where, k, tostring(v), range[1], range[2]), 0)
      end
    end
  end
  if n == 0 then error(where .. ": measured holds no quantity (" .. sorted_keys(QUANTITIES) .. ")", 0) end
  local tput = m.tokens_per_s or m.samples_per_s
  if tput and m.per ~= "gpu" and m.per ~= "system" then error(where .. ": measured.per must be 'gpu' or 'system'", 0) end
  if not tput and m.per ~= nil then error(where .. ": measured.per without a throughput", 0) end
  if m.tokens_per_s and not r.seq then error(where .. ": tokens_per_s needs seq", 0) end
  if m.tflops_per_gpu and m.flops_kind ~= "model" and m.flops_kind ~= "model_causal"
    and m.flops_kind ~= "hardware" then
    error(where .. ": measured.flops_kind must be 'model', 'model_causal' or 'hardware' with "
      .. "tflops_per_gpu", 0)
  end
  if not m.tflops_per_gpu and m.flops_kind ~= nil then error(where .. ": measured.flops_kind without tflops_per_gpu", 0) end
  if m.tflops_per_gpu and m.tflops_per_gpu * 1e12 > dev.peak[prec] then
    error(string.format("%s: %g TFLOP/s per device exceeds the %s peak of %s (%g)", where,
      m.tflops_per_gpu, prec, r.hw, dev.peak[prec] / 1e12), 0)
  end
  if m.mfu and m.hfu and m.hfu < m.mfu then error(where .. ": hfu < mfu", 0) end
end

-- All rows: the shape of each, unique ids. Returns the rows.
local function check_rows(rows)
  if type(rows) ~= "table" or #rows == 0 then error("validation_runs.lua must return a non-empty list", 0) end
  local names, ids = {}, {}
  for _, nm in ipairs(dlb.hw.names()) do names[nm] = true end
  for i, r in ipairs(rows) do
    check_row(r, i, names)
    if ids[r.id] then error("duplicate id '" .. r.id .. "' (rows " .. ids[r.id] .. " and " .. i .. ")", 0) end
    ids[r.id] = i
  end
  return rows
end

-- Builds a row's model at batch 1; returns its stats.
-- Built once per model: rows share models (one model on many layouts and devices), and both
-- tests below read the same stats (a table option keys by its identity: never shared).
local built = {}
local function build(r)
  local o = { batch = 1 }
  local keys = {}
  for k, v in pairs(r.model.opts) do o[k] = v; keys[#keys + 1] = k end
  table.sort(keys)
  local key = r.model.builder
  for _, k in ipairs(keys) do key = key .. "|" .. k .. "=" .. tostring(o[k]) end
  local b = built[key]
  if not b then
    local ok, g = pcall(dlb.models.build, r.model.builder, o)
    if not ok then error(r.id .. ": model does not build: " .. tostring(g), 0) end
    b = { g:stats {}, g }
    built[key] = b
  end
  return b[1], b[2]
end

-- Samples per second per device implied by a row's throughput, or nil.
local function samples_per_device(r)
  local m = r.measured
  local per_dev = function(v) return m.per == "system" and v / r.devices or v end
  if m.tokens_per_s then return per_dev(m.tokens_per_s) / r.seq end
  if m.samples_per_s then return per_dev(m.samples_per_s) end
  if m.step_time and r.layout.global_batch then return r.layout.global_batch / m.step_time / r.devices end
  return nil
end

-- == the tests =========================================================================

local rows
T.test("the data file loads and every row has the documented schema", function()
  local ok, res = pcall(dofile, PATH)
  assert(ok, res)
  rows = check_rows(res)
  assert(#rows >= 45, "at least 45 rows (issue 12 asks for 40), got " .. #rows)
end)

T.test("the checker rejects broken rows (unknown key, bad hw, units, layout)", function()
  local names = {}
  for _, nm in ipairs(dlb.hw.names()) do names[nm] = true end
  local function good()
    return { id = "x", model = { builder = "gpt", opts = { size = "gpt2", seq = 1024 } },
      hw = "A100-SXM4-80GB", devices = 8, layout = { dp = 8, micro_batch = 4, grad_accum = 2, global_batch = 64 },
      precision = "mixed", seq = 1024, framework = "PyTorch",
      measured = { tokens_per_s = 1000, per = "gpu" }, source = "a paper, Table 9, row 3 (made up for the test)",
      role = "held" }
  end
  check_row(good(), 1, names)
  local function bad(fragment, mutate)
    local r = good()
    mutate(r)
    T.checkerr(fragment, check_row, r, 1, names)
  end
  bad("unknown option 'speed'", function(r) r.speed = 1 end)
  bad("unknown option 'samples'", function(r) r.measured.samples = 1 end)
  bad("unknown option 'pipeline'", function(r) r.layout.pipeline = 2 end)
  bad("missing required key 'source'", function(r) r.source = nil end)
  bad("not a catalogue name", function(r) r.hw = "A100" end)
  bad("no fp8 peak", function(r) r.precision = "fp8" end)
  bad("no dlb.models builder 'gpt4'", function(r) r.model.builder = "gpt4" end)
  bad("must not bind batch", function(r) r.model.opts.batch = 4 end)
  bad("measured.per", function(r) r.measured.per = nil end)
  bad("outside", function(r) r.measured.mfu = 46.2 end)
  bad("no quantity", function(r) r.measured = {} end)
  bad("flops_kind", function(r) r.measured.tflops_per_gpu = 100 end)
  bad("exceeds the fp16 peak", function(r) r.measured.tflops_per_gpu = 400; r.measured.flops_kind = "model" end)
  bad("global_batch = 64", function(r) r.layout.grad_accum = 1 end)
  bad("but devices = 8", function(r) r.layout.dp = 4; r.layout.global_batch = 32 end)
  bad("seq = 2048 but model.opts.seq = 1024", function(r) r.seq = 2048 end)
  bad("layout.zero", function(r) r.layout.zero = 4 end)
  bad("too short", function(r) r.source = "Table 1" end)
  bad("role must be 'fit' or 'held'", function(r) r.role = nil end)
  bad("role must be 'fit' or 'held'", function(r) r.role = "train" end)
  bad("nics must be a positive integer", function(r) r.nics = 0.5 end)
  bad("moe 'deepep' is not a moe_impl", function(r) r.moe = "deepep" end)
  bad("recompute_every must be a whole number", function(r) r.layout.recompute_every = 2 end)
  bad("recompute_every must be a whole number", function(r)
    r.layout.recompute = "selective"; r.layout.recompute_every = 1.5 end)
end)

T.test("every model builds and matches its published parameter count within 3%", function()
  assert(rows, "rows loaded")
  local checked = 0
  for _, r in ipairs(rows) do
    local s = build(r)
    assert(s.symbolic == false, r.id .. ": all dims bound")
    if r.params then
      local rel = s.params / r.params - 1
      assert(math.abs(rel) <= 0.03, string.format("%s: built %.4g params vs published %.4g (%+.1f%%)",
        r.id, s.params, r.params, 100 * rel))
      checked = checked + 1
    else
      assert(r.note, r.id .. ": params = nil needs a note saying why")
    end
  end
  assert(checked >= 40, "most rows carry a published parameter count, got " .. checked)
end)

-- A throughput and an MFU (or model TFLOP/s) in the same row must describe the same run:
-- the model's training FLOPs per sample (forward + backward, no recompute; a MAC is 2
-- FLOPs, dense attention, as in the MFU definitions of Korthikanti et al. 2022 App. A,
-- Chowdhery et al. 2022 App. B and llm-foundry's benchmarking README) times samples/s per
-- device, over the catalogue peak, within 10% (all rows are within 2.5% except torchtitan's
-- Llama 3 8B rows, -5% (its formula counts 6 x non-embedding params), and PaLM, +5.6% (the
-- builder overcounts its attention, see the row's note)). This catches unit slips and
-- wrong configs.
T.test("throughput and MFU / model TFLOP/s of a row agree with the built model's FLOPs", function()
  assert(rows, "rows loaded")
  local n = 0
  for _, r in ipairs(rows) do
    local sps = samples_per_device(r)
    local m = r.measured
    local causal = m.flops_kind == "model_causal"
    if sps and (m.mfu or (m.tflops_per_gpu and (m.flops_kind == "model" or causal))) then
      local s, g = build(r)
      local fb = s.flops_fwd + s.flops_bwd
      -- "model_causal": a causal decoder's attention matmuls counted half (dlbench.mfu)
      if causal then fb = (require("dlbench.mfu").model_flops(fb, 1, g, nil, nil, "model", "causal")) end
      local achieved = fb * sps
      local dev = dlb.hw.get(r.hw)
      local claimed = m.mfu and m.mfu * dev.peak[dev:precision(r.precision)] or m.tflops_per_gpu * 1e12
      local ratio = achieved / claimed
      assert(ratio > 0.9 and ratio < 1.1, string.format("%s: throughput implies %.4g FLOP/s per device, "
        .. "the row says %.4g (ratio %.3f)", r.id, achieved, claimed, ratio))
      n = n + 1
    end
  end
  assert(n >= 20, "rows with both a throughput and a utilisation, got " .. n)
end)

-- Korthikanti et al. 2022 §4.1 (eq. 1, 34sbh + 5as^2b bytes per layer) counts the masks of
-- the attention dropout and the two hidden dropouts: the paper's layer has dropout, so its
-- rows build the GPT with dropout = true (issue [19]: the rows first built it without).
T.test("Korthikanti rows build the paper's layer: with its dropouts", function()
  assert(rows, "rows loaded")
  local n = 0
  for _, r in ipairs(rows) do
    if r.id:find("^korthikanti%-") then
      T.eq(r.model.opts.dropout, true, r.id .. ": dropout (Korthikanti et al. 2022 sec. 4.1)")
      n = n + 1
    end
  end
  T.eq(n, 9, "the nine Korthikanti rows")
end)

-- Composer's fsdp_config mixed_precision (composer get_mixed_precision): DEFAULT reduces the
-- gradients in fp32, PURE in the 16-bit precision; the llm-foundry table states the mode of
-- every row (its MP Mode column, copied into the note), and layout.reduce_dtype follows it.
T.test("llm-foundry rows: the reduce dtype follows the table's MP Mode column", function()
  assert(rows, "rows loaded")
  local n, pure = 0, 0
  for _, r in ipairs(rows) do
    if r.id:find("^foundry%-") then
      local mode = r.note:match("MP mode (%u+)")
      T.eq(r.layout.reduce_dtype, mode == "PURE" and "bf16" or "fp32", r.id .. " (MP mode " .. tostring(mode) .. ")")
      n = n + 1
      if mode == "PURE" then pure = pure + 1 end
    end
  end
  T.eq(n, 37, "the llm-foundry rows"); T.eq(pure, 10, "of which PURE")
end)

T.test("coverage: GPT, Llama, BERT and ResNet on A100, H100, V100 and TPU, several sequences", function()
  assert(rows, "rows loaded")
  local builders, hws, seqs = {}, {}, {}
  for _, r in ipairs(rows) do
    builders[r.model.builder] = true
    hws[r.hw] = true
    if r.seq then seqs[r.seq] = true end
  end
  for _, b in ipairs { "gpt", "llama", "bert", "resnet" } do assert(builders[b], "a " .. b .. " row") end
  for _, h in ipairs { "A100-SXM4-80GB", "A100-SXM4-40GB", "H100-SXM", "V100-SXM2-16GB", "TPUv4", "TPUv5e" } do
    assert(hws[h], "a row on " .. h)
  end
  local ns = 0
  for _ in pairs(seqs) do ns = ns + 1 end
  assert(ns >= 5, "at least 5 sequence lengths, got " .. ns)
end)

-- The vTrain sets (issue [19] item 5): every row's stored role is the one its key's hash
-- fixed before any error was seen (notebooks/data/vtrain/make_roles.py: h <- (31 h + byte)
-- mod 2147483647 over the layout columns joined by '/'; "fit" when h mod 3 = 0), the rows
-- pass the schema, and the sets hold what the source's README says (720 and 41 rows).
T.test("vTrain rows: schema, counts, and roles equal the hash of their keys", function()
  local dir = here .. "/../../notebooks/data"
  local vrows = check_rows(dofile(dir .. "/vtrain_runs.lua")(dir))
  local n = { ["1node"] = 0, multinode = 0, ["unshared-1node"] = 0, ["unshared-multinode"] = 0 }
  for _, r in ipairs(vrows) do
    assert(n[r.set], r.id .. ": unknown set " .. tostring(r.set))
    n[r.set] = n[r.set] + 1
  end
  T.eq(n["1node"], 720)
  T.eq(n.multinode, 41)
  -- the unshared rows (issue [19] target 2): all held, not hashed (tests/lua/test_vtrain_unshared.lua)
  T.eq(n["unshared-1node"], 720)
  T.eq(n["unshared-multinode"], 68)
  for _, name in ipairs { "single_node_h1024.csv", "multi_node_3.6b_18.4b.csv" } do
    local f = assert(io.open(dir .. "/vtrain/" .. name))
    local first, checked = true, 0
    for line in f:lines() do
      if first then first = false else
        local cells = {}
        for c in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = c end
        local key = table.concat(cells, "/", 1, #cells - 2)   -- all but the time and the role
        local h = 0
        for i = 1, #key do h = (31 * h + key:byte(i)) % 2147483647 end
        local want = (h % 3 == 0) and "fit" or "held"
        assert(cells[#cells] == want, name .. ": row '" .. key .. "' has role " .. cells[#cells]
          .. ", its hash says " .. want)
        checked = checked + 1
      end
    end
    f:close()
    assert(checked > 0)
  end
  -- the table's own rows keep the split they had (every third in id order, commit 841b5a7)
  local fit = 0
  for _, r in ipairs(rows) do if r.role == "fit" then fit = fit + 1 end end
  T.eq(fit, 40)
end)

-- Issue 27 ([21], branch moe-rows): the rows added from NeMo's later tables (the
-- Megatron-Bridge archive, NeMo 25.02's DGX-B200 table, NeMo AutoModel) store their role
-- in validation_runs_moe.lua itself (held, fixed before they were predicted), their
-- layouts follow the pages' columns (the GA column where given is checked by the data file
-- itself: a wrong cell raises), and the three layout inferences hold: ETP 1 where EP does
-- not divide the data ranks, the Mixtral-8x22B row's swapped GBS / MBS cells, a plain "FP8"
-- cell as current scaling on the Megatron-Bridge archive and as the profile's recipe on
-- the NeMo 25.02 page.
T.test("issue 27 rows: roles stored held, sources counted, layout inferences", function()
  local moe = dofile(here .. "/../../notebooks/data/validation_runs_moe.lua")
  for _, r in ipairs(moe) do T.eq(r.role, "held", r.id .. ": role stored in the data file") end
  -- the new rows' source (nil: a row of the earlier rounds)
  local function src_of(r)
    local function has(t) return r.source:find(t, 1, true) ~= nil end
    if has("performance-summary-archive.md (commit 0a25f911") then return "archive" end
    if has("svcnemo-autobot/Megatron-Bridge") then return "fork" end
    if has("'Container: NeMo 25.02'") then return "nemo2502" end
    if has("NVIDIA-NeMo/Automodel") then return "automodel" end
    if has("docs/performance-summary.md (commit 00b7660") and r.model.builder == "llama" and not r.layout.cp then
      return "mbridge-dense"
    end
  end
  local per, set21, dense, byid = {}, 0, 0, {}
  for _, r in ipairs(moe) do
    byid[r.id] = r
    local k = src_of(r)
    if k then
      per[k] = (per[k] or 0) + 1
      local L = r.layout
      if (L.ep or 1) > 1 or (L.cp or 1) > 1 or r.model.builder == "moe" then set21 = set21 + 1 else dense = dense + 1 end
    end
  end
  T.eq(per.archive, 7, "26.02 (6) and the whole 25.11 H100 Qwen3-235B row")
  T.eq(per.fork, 19, "26.06 (2), 26.04.01 (6), 26.04 (4), 26.02.01 (4), 25.09 dense (3)")
  T.eq(per.nemo2502, 6, "NeMo 25.02 DGX-B200 (Nemotron rows left out)")
  T.eq(per.automodel, 2, "AutoModel Qwen3 MoE 30B and Llama3 70B (CP 2)")
  T.eq(per["mbridge-dense"], 3, "25.11 dense rows")
  T.eq(set21, 25, "new MoE / context-parallel rows")
  T.eq(dense, 12, "new dense rows")
  -- ETP 1 exactly where EP does not divide dp x cp (Qwen3-235B on 256 H100: TP 2, EP 32, dp 16)
  for _, r in ipairs(moe) do
    local L = r.layout
    local need = L.ep and (L.dp * (L.cp or 1)) % L.ep ~= 0
    if L.etp ~= nil or need then
      assert(need or r.id:find("^modelzoo"), r.id .. ": etp only where EP does not divide dp x cp")
      T.eq(L.etp, 1, r.id .. ": etp")
    end
  end
  local r = byid["nemo-25.02-mixtral-8x22b-s65536-256xb200"]
  assert(r, "the Mixtral-8x22B row")
  T.eq(r.layout.global_batch, 64); T.eq(r.layout.micro_batch, 1); T.eq(r.layout.grad_accum, 16)
  T.eq(r.layout.dp, 4); T.eq(r.layout.cp, 8); T.eq(r.layout.ep, 8); T.eq(r.layout.interleave, 14)
  T.eq(byid["mbridge-26.04.01-qwen3-235b-a22b-s4096-256xh100"].layout.etp, 1)
  T.eq(byid["mbridge-26.02-qwen3-30b-a3b-s4096-16xh100"].fp8.scaling, "current")
  T.eq(byid["mbridge-26.02-qwen3-30b-a3b-s4096-8xb200"].fp8.scaling, "mxfp8")
  T.eq(byid["nemo-25.02-mixtral-8x7b-s4096-64xb200"].fp8, nil, "NeMo 25.02 names no recipe")
  T.eq(byid["mbridge-25.11-llama3-8b-s8192-8xh100"].layout.zero, 3, "FSDP column")
  T.eq(byid["automodel-llama3-70b-s8192-64xh100"].layout.cp, 2)
  -- the later containers' Qwen3 presets, taken where the layout is the preset's and the read
  -- versions agree (validation_runs_moe.lua RECIPES_26; branch moe-bulk): the H100 Qwen3-30B
  -- EP 16 rows run Hybrid-EP without the overlap, the H100 Qwen3-235B GBS 8192 rows the
  -- combined 1F1B overlap (with the alltoall dispatcher, the model's default); nothing else
  local want = {
    ["mbridge-26.06-qwen3-30b-a3b-s4096-16xh100"] = { "hybridep", false },
    ["mbridge-26.04.01-qwen3-30b-a3b-s4096-16xh100"] = { "hybridep", false },
    ["mbridge-26.04-qwen3-30b-a3b-s4096-16xh100"] = { "hybridep", false },
    ["mbridge-26.04.01-qwen3-235b-a22b-s4096-256xh100"] = { nil, true },
    ["mbridge-26.04-qwen3-235b-a22b-s4096-256xh100"] = { nil, true },
    ["mbridge-26.02.01-qwen3-235b-a22b-s4096-256xh100"] = { nil, true },
    ["mbridge-26.02-qwen3-235b-a22b-s4096-256xh100"] = { nil, true },
  }
  local set = 0
  for _, r in ipairs(moe) do
    local w = want[r.id]
    if r.id:find("^mbridge") then
      local wd, wo = nil, nil
      if w then wd, wo = w[1], w[2] end
      T.eq(r.layout.moe_dispatcher, wd, r.id .. ": dispatcher from a preset")
      T.eq(r.layout.moe_a2a_overlap, wo, r.id .. ": overlap from a preset")
      if w then
        set = set + 1
        assert(r.source:find("qwen3_workload_base_configs.py", 1, true), r.id .. ": the preset cited")
      end
    end
  end
  T.eq(set, 7, "rows given a preset's settings")
  -- every Megatron-Bridge Qwen3 row runs the recipe's Megatron-Core MoE layer and reduces in
  -- bf16 (validation_runs_moe.lua qwen3_recipe: 25.11 read in branch finegrained, the 26.x
  -- containers' model settings in branch moe-fresh, alike in every read version); no other
  -- row of the file states either
  local q3 = 0
  for _, r in ipairs(moe) do
    local mb = r.id:find("^mbridge%-") and r.id:find("%-qwen3%-")
    T.eq(r.moe, mb and "mcore" or nil, r.id .. ": moe")
    T.eq(r.layout.reduce_dtype, mb and "bf16" or nil, r.id .. ": reduce dtype")
    if mb then q3 = q3 + 1 end
  end
  T.eq(q3, 19, "Megatron-Bridge Qwen3 rows: 25.11 (4), 26.02 (4), 26.02.01 (3), 26.04 (3), 26.04.01 (4), 26.06 (1)")
end)

T.done()
