-- profile_cases.lua — what the tests that run every framework profile share
-- (test_optim_step.lua, test_offload_update.lua): the profiles' names, and a profile
-- without a host model. Not a test (tests/run.sh runs test_*.lua).
local dlb = require "dlbench"
local fw = dlb.frameworks
local M = {}

-- every catalogue profile's name
function M.names()
  local out = {}
  for _, p in ipairs(fw.list()) do out[#out + 1] = type(p) == "table" and p.name or p end
  return out
end

-- a profile without a host model: every op's host cost 0 (dlb.frameworks.host_of)
function M.nohost(name)
  local d = fw.get(name).dispatch
  if d == nil then return name end   -- none already (dlb.frameworks.host_of: 0, 0)
  local z = {}
  for k, v in pairs(d) do z[k] = v end
  z.per_op, z.per_layer = 0, 0
  return fw.derive(name, { dispatch = z })
end

return M
