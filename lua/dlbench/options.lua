-- dlbench.options — the one checker of options tables for the Lua library: an unknown
-- option is an error that names it, names the function, and lists the accepted ones.
local M = {}

-- The sorted keys of a set, joined with ", ".
function M.names(valid)
  local names = {}
  for n in pairs(valid) do names[#names + 1] = tostring(n) end
  table.sort(names)
  return table.concat(names, ", ")
end

-- Check opts (nil means {}) against the set `valid` for function `fname`; returns opts.
-- `level` is error()'s level as seen by the caller of check (default 2: the caller's
-- caller, i.e. the user's call of fname).
-- With `required`, a missing table is an error too.
function M.check(opts, valid, fname, level, required)
  level = (level or 2) + 1
  if opts == nil and not required then return {} end
  if type(opts) ~= "table" then
    error(string.format("%s: options must be a table, got %s", fname, type(opts)), level)
  end
  for k in pairs(opts) do
    if not valid[k] then
      error(string.format("%s: unknown option '%s' (accepted: %s)", fname, tostring(k),
        M.names(valid)), level)
    end
  end
  return opts
end

return M
