-- dlbench.paradnn — ParaDnn's sweep spaces (Wang, Wei, Brooks, seeds/004 §2.1, Table 2):
-- the ranges of the hyperparameters and dataset variables of its FC, CNN and RNN families,
-- named like the options of dlb.models.paradnn.fc/cnn/rnn.
--   local t = dlb.sweep(dlb.paradnn.space("fc"), function(p) ... end)
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local sweep = require "dlbench.sweep"

local M = {}
local range = sweep.range

-- Table 2 as printed (Min, Max, Inc) per family, in the paper's column order.
-- (a) FC: Layer 4..128 x2, Nodes 32..8192 x2, Input 2000..8000 +2000,
--     Output 200..1000 +200, Batch 64..16384 x2             -> 6*9*4*5*9 = 9720 models
-- (b) CNN: Block 1..8 +1, Filter 16..64 x2, Image 200..300 +50, Output 500..1500 +500,
--     Batch 64..1024 x2                                      -> 8*3*3*3*5 = 1080 models
--     The seed's text of Table 2(b) prints the filter maximum as "6", below the minimum
--     of 16: a digit lost in extraction; the paper's sweep is 16, 32, 64 (Max 64).
-- (c) RNN: Layer 1..13 +4, Embed 100..900 +400, Length 10..90 +40, Vocab 2..1024 x4,
--     Batch 16..1024 x4                                      -> 4*3*3*5*4 = 720 models
--     Vocab x4 from 2 stops at 512 (2048 > 1024), so Max is a bound, not a member.
M.table2 = {
  fc = {
    { "layers", 4, 128, "x2" }, { "nodes", 32, 8192, "x2" }, { "input", 2000, 8000, "+2000" },
    { "output", 200, 1000, "+200" }, { "batch", 64, 16384, "x2" },
  },
  cnn = {
    { "blocks", 1, 8, "+1" }, { "filters", 16, 64, "x2" }, { "image", 200, 300, "+50" },
    { "output", 500, 1500, "+500" }, { "batch", 64, 1024, "x2" },
  },
  rnn = {
    { "layers", 1, 13, "+4" }, { "embed", 100, 900, "+400" }, { "length", 10, 90, "+40" },
    { "vocab", 2, 1024, "x4" }, { "batch", 16, 1024, "x4" },
  },
}

-- Defaults the paper uses for the structure choice (§2.1: "By default, this paper uses
-- CNNs with bottleneck blocks and basic RNNs").
M.defaults = { cnn = { block = "bottleneck" }, rnn = { cell = "rnn" } }

local function checkkind(kind, who)
  if M.table2[kind] == nil then
    error(string.format("%s: kind must be \"fc\", \"cnn\" or \"rnn\", got %s", who, tostring(kind)), 3)
  end
end

-- The sweep space of a family: {name = {values}} with Table 2's ranges. opts.with adds or
-- overrides entries (e.g. {cell = {"rnn", "lstm", "gru"}} or {layers = 64}).
function M.space(kind, opts)
  checkkind(kind, "dlb.paradnn.space")
  opts = opts or {}
  options.check(opts, { with = true }, "dlb.paradnn.space")
  local s = {}
  for _, r in ipairs(M.table2[kind]) do s[r[1]] = range(r[2], r[3], r[4]) end
  for k, v in pairs(opts.with or {}) do s[k] = v end
  return s
end

-- The parameter names of a family in the paper's column order (a sweep order).
function M.order(kind)
  checkkind(kind, "dlb.paradnn.order")
  local o = {}
  for i, r in ipairs(M.table2[kind]) do o[i] = r[1] end
  return o
end

-- ---------------------------------------------------------------- predictions

-- Table 3's platforms from the catalogue, each at the precision the paper's peak refers to:
-- the TPU v2 board trains in mixed bfloat16 (180 TFLOPS), the V100 in mixed float16 on its
-- tensor cores (125 TFLOPS, §3: "float16 to compute and float32 to accumulate"), the CPU
-- in float32 (2 TFLOPS). `precision` is what g:stats counts ("mixed" keeps fp32 master
-- weights and optimizer state); the roofline picks bf16 on the TPU, which has no fp16.
function M.platforms()
  local hw = require "dlbench.hw"
  return {
    { key = "tpu", name = "TPUv2-board", hw = hw.get("TPUv2-board"), precision = "mixed" },
    { key = "gpu", name = "V100-SXM2-16GB", hw = hw.get("V100-SXM2-16GB"), precision = "mixed" },
    { key = "cpu", name = "Skylake-n1-32", hw = hw.get("Skylake-n1-32"), precision = "fp32" },
  }
end

-- Bytes one core holds: a device with `cores` and `mem_per_core` (a TPU board) keeps a
-- whole copy of the model on every core and splits the batch evenly (seeds/004 §3,
-- "Understanding TPU Memory Size"): weights, gradients and optimizer state whole, the
-- activations (and workspace) of batch/cores examples. Other devices hold the footprint.
-- The rule lives in dlb.roofline.core_footprint; this name stays for ParaDnn studies.
function M.core_footprint(s, hw)
  local need, cap = require("dlbench.roofline").core_footprint(s, hw) -- the one rule
  return need, cap
end

local EVAL_OPTS = { platforms = true, per_op = true, optimizer = true }

-- fn(p) for dlb.sweep: builds the family's model for p (every parameter but the batch),
-- analyses a training step at p.batch for each precision the platforms need, times it on
-- each platform's roofline and returns the row. Graphs are reused across consecutive
-- configs that differ only in batch (the batch is the model's symbolic dim "b"), which is
-- why paradnn.order puts batch last.
function M.evaluate(kind, opts)
  checkkind(kind, "dlb.paradnn.evaluate")
  opts = opts or {}
  options.check(opts, EVAL_OPTS, "dlb.paradnn.evaluate")
  local roofline = require "dlbench.roofline"
  local build = require("dlbench.models.paradnn")[kind]
  local pfs = opts.platforms or M.platforms()
  if type(pfs) ~= "table" or #pfs == 0 then
    error("dlb.paradnn.evaluate: platforms must be a non-empty list of {key=, hw=, precision=}", 2)
  end
  for i, pf in ipairs(pfs) do
    if type(pf) ~= "table" or type(pf.key) ~= "string" or type(pf.hw) ~= "table" then
      error(string.format("dlb.paradnn.evaluate: platforms[%d] needs key= (a string) and hw= (a device)", i), 2)
    end
    if pf.fuse ~= nil and pf.fuse ~= true and type(pf.fuse) ~= "table" then
      error(string.format("dlb.paradnn.evaluate: platforms[%d].fuse must be true or a list of "
        .. "fusion passes (g:stats{fuse=})", i), 2)
    end
  end
  local ropts = { per_op = opts.per_op ~= false }
  local last_key, last_g
  return function(p)
    local b = p.batch
    if type(b) ~= "number" or b < 1 or b ~= math.floor(b) then
      require("dlbench.errors").raise("dlb.paradnn.evaluate: batch must be a whole number >= 1, got " .. tostring(b))
    end
    local names, mo = {}, {}
    for k, v in pairs(p) do
      if k ~= "batch" then names[#names + 1] = k; mo[k] = v end
    end
    table.sort(names)
    local parts = {}
    for i, k in ipairs(names) do parts[i] = k .. "=" .. tostring(p[k]) end
    local key = table.concat(parts, ",")
    if key ~= last_key then
      if opts.optimizer then mo.optimizer = opts.optimizer end
      last_g, last_key = build(mo), key
    end
    local stats, row = {}, {}
    for _, pf in ipairs(pfs) do
      local prec = pf.precision or "fp32"
      -- a platform may run fused kernels (pf.fuse, g:stats{fuse=}: XLA's fusion on the TPU)
      local skey = pf.fuse and (prec .. "+" .. (pf.fuse == true and "all" or table.concat(pf.fuse, ",")))
        or prec
      local s = stats[skey]
      if not s then
        s = last_g:stats { b = b, precision = prec, fuse = pf.fuse }
        stats[skey] = s
        if row.params == nil then
          row.params, row.flops = s.params, s.flops
        end
      end
      local r = roofline.time(s, pf.hw, ropts)
      local k = pf.key
      local need, cap = M.core_footprint(s, pf.hw)
      local fits = need <= cap
      row["util_" .. k], row["time_" .. k] = r.util, r.time
      row["ai_" .. k], row["flops_" .. k] = r.intensity, r.flops / r.time
      row["bound_" .. k], row["fits_" .. k] = r.bound, fits
      row["mem_" .. k] = need
      if fits then row["eps_" .. k] = b / r.time end -- examples/s; nil (NaN in a pivot) when out of memory
    end
    return row
  end
end

local SWEEP_OPTS = { platforms = true, per_op = true, optimizer = true, with = true, jobs = true,
  checkpoint = true, shard = true, progress = true, quiet = true, strict = true, label = true }

-- The whole family of Table 2 (with opts.with added/overriding) through evaluate().
function M.sweep(kind, opts)
  checkkind(kind, "dlb.paradnn.sweep")
  opts = opts or {}
  options.check(opts, SWEEP_OPTS, "dlb.paradnn.sweep")
  local fn = M.evaluate(kind, { platforms = opts.platforms, per_op = opts.per_op, optimizer = opts.optimizer })
  return sweep.sweep(M.space(kind, { with = opts.with }), fn, {
    order = M.order(kind), jobs = opts.jobs, checkpoint = opts.checkpoint, shard = opts.shard,
    progress = opts.progress, quiet = opts.quiet, strict = opts.strict,
    label = opts.label or ("paradnn " .. kind) })
end

doc.doc(M, "dlb.paradnn", "ParaDnn's sweep spaces (seeds/004 Table 2) and predictions: space, order, platforms, evaluate, sweep, core_footprint, table2, defaults")
doc.doc(M.platforms, "dlb.paradnn.platforms() -> {{key=, name=, hw=, precision=}, ...}",
  "Table 3's TPU v2 board (mixed bf16), V100 (mixed fp16) and Skylake CPU (fp32) from dlb.hw")
doc.doc(M.core_footprint, "dlb.paradnn.core_footprint(stats, hw) -> bytes, capacity",
  "memory one core needs: a TPU core holds the whole model and batch/cores of the activations")
doc.doc(M.evaluate, "dlb.paradnn.evaluate(kind[, {platforms=, per_op=true, optimizer=}]) -> fn(p) -> row",
  "a sweep fn: model -> training-step stats -> roofline per platform; row: params, flops, util_K, time_K, eps_K, fits_K, ai_K, flops_K, bound_K, mem_K")
doc.doc(M.sweep, "dlb.paradnn.sweep(kind[, {jobs=, with=, platforms=, per_op=, checkpoint=, shard=, ...}]) -> table",
  "Table 2's family of predictions (dlb.sweep over space(kind) with evaluate(kind))")
doc.doc(M.space, "dlb.paradnn.space(\"fc\"|\"cnn\"|\"rnn\"[, {with = {name = values}}]) -> space",
  "Table 2's hyperparameter ranges, named like dlb.models.paradnn.* options")
doc.doc(M.order, "dlb.paradnn.order(kind) -> {names}", "Table 2's column order (layers/blocks, width, data, batch)")
return M
