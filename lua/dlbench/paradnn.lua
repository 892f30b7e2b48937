-- dlbench.paradnn — ParaDnn's sweep spaces (Wang, Wei, Brooks, seeds/004 §2.1, Table 2):
-- the ranges of the hyperparameters and dataset variables of its FC, CNN and RNN families,
-- named like the options of dlb.models.paradnn.fc/cnn/rnn.
--   local t = dlb.sweep(dlb.paradnn.space("fc"), function(p) ... end)
local doc = require "dlbench.doc"
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
  for k in pairs(opts) do
    if k ~= "with" then error("dlb.paradnn.space: unknown option '" .. tostring(k) .. "' (with)", 2) end
  end
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

doc.doc(M, "dlb.paradnn", "ParaDnn's sweep spaces (seeds/004 Table 2): space(kind), order(kind), table2, defaults")
doc.doc(M.space, "dlb.paradnn.space(\"fc\"|\"cnn\"|\"rnn\"[, {with = {name = values}}]) -> space",
  "Table 2's hyperparameter ranges, named like dlb.models.paradnn.* options")
doc.doc(M.order, "dlb.paradnn.order(kind) -> {names}", "Table 2's column order (layers/blocks, width, data, batch)")
return M
