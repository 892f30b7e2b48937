-- dlbench.scaling_fit — what dlb.scaling (lua/dlbench/scaling.lua) and its projections'
-- uncertainty (scaling_uncertainty.lua) share: the class table of a fitted curve (its
-- methods are scaling.lua's), the parameter names of each curve form (graphs/stats/dlb_scaling.h's
-- DLB_FORM_*, by id), and the parameters a spec's model-size law gives at a data size.
-- Internal: the user-facing API is dlb.scaling (docs/scaling.md).
local core = require "dlbench.backend"

local M = {}

-- Parameter names of each curve form, by its C id.
M.PARAMS = {
  [0] = { "alpha", "beta" },
  [1] = { "alpha", "beta", "gamma" },
  [2] = { "alpha", "beta", "gamma", "plateau" },
}

-- A fitted curve: its parameters by name, and methods (dlb.scaling's Fit).
M.Fit = {}
M.Fit.__index = M.Fit

-- Parameters at data size m from the spec's model-size law (nil when it has none).
function M.spec_params(spec, m)
  if spec.model then
    return core.scaling_eval(0, { spec.model.alpha, spec.model.beta }, m)
  end
  if spec.sigma and spec.beta_p then
    return spec.sigma * m ^ spec.beta_p * (spec.sigma_unit or 1)
  end
  return nil
end

-- The number of bootstrap resamples a bootstrap= option asks for: true is 1000, else a
-- whole number >= 2 (the core bounds it above); anything else an error naming fname. One
-- rule for dlb.scaling.fit and dlb.scaling.project (fit's 0 and 1.5 were the binding's
-- "bad argument #5 to 'scaling_bootstrap'").
function M.reps(v, fname)
  local reps = v == true and 1000 or v
  if type(reps) ~= "number" or reps ~= math.floor(reps) or reps < 2 then
    error(fname .. ": bootstrap must be true or a whole number of resamples >= 2, got "
      .. (type(reps) == "number" and (reps ~= reps and "nan" or tostring(reps))
        or type(reps) == "string" and string.format("the string %q", reps) or tostring(reps)), 0)
  end
  return reps
end

return M
