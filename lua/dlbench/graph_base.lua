-- dlbench.graph_base — what dlb.graph (lua/dlbench/graph.lua, which builds graphs), its
-- training set-ups (graph_setups.lua) and its analysis (graph_analysis.lua) share: the
-- class tables of a graph and a tensor (their methods are those files'), the C enums by
-- name (graphs/ir/dlb_graph.h, through core.enum_names: never copied by hand), op types by
-- name, and small helpers for checks and messages.
-- Internal: the user-facing API is dlb.graph (docs/graph.md).
local core = require "dlbench.backend"

local M = {}

M.Graph = {}
M.Graph.__index = M.Graph
M.Tensor = {}
M.Tensor.__index = M.Tensor

-- The C enums by name (graphs/ir/dlb_graph.h, through core.enum: never copied by hand).
M.ROLES, M.ROLENAMES = core.enum_names("DLB_ROLE_", { OPTSTATE = "optimizer" })
M.DTYPES, M.DTNAMES = core.enum_names("DLB_DT_")
M.OPTIMIZERS = core.enum_names("DLB_OPT_")
M.PRECISIONS = core.enum_names("DLB_POLICY_")
local _
_, M.PHASES = core.enum_names("DLB_PHASE_")

-- Op type ids by name, looked up in C on first use.
M.TYPE = setmetatable({}, { __index = function(t, k)
  local id = core.graph_op_type(k)
  if id == nil then error("graph: no op type '" .. tostring(k) .. "'", 3) end
  rawset(t, k, id)
  return id
end })

-- A table's keys, sorted and joined with ", " (the accepted names in a message).
function M.keys(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return table.concat(r, ", ")
end

-- An integer option: v must be an integer >= min (and < 2^31). One place for both backends
-- (the FFI would truncate 1.5 to 1, the C API raise).
function M.isint(v, min)
  return type(v) == "number" and v == v and v >= min and v < 2147483648 and v == math.floor(v)
end

-- A number as text, the same under both backends (nan without a sign).
function M.numtext(v)
  if type(v) ~= "number" then return type(v) end
  if v ~= v then return "nan" end
  return string.format("%.17g", v)
end

return M
