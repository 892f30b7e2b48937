-- dlbench.errors — messages that point at the user's line. Library functions that re-raise
-- a core or inner error strip the locations Lua put in front of it ("graph.lua:12: ",
-- "[string ...]:3: ", "stdin:1: ", "[C]: ") and raise it again at the caller's level, so a
-- message carries exactly one location: the caller's.
local M = {}

-- The message without its leading locations. A Lua runtime error ("attempt to index a nil
-- value") is a bug of the library, not the caller's: it keeps where it happened, marked
-- "internal error at ...".
function M.strip(m)
  m = tostring(m)
  if m:match("^[^\n]-:%d+: attempt to ") then return "internal error at " .. m end
  local prev
  repeat
    prev = m
    m = m:gsub("^[^\n:]-%.lua:%d+: ", ""):gsub("^%[string \"[^\n]-\"%]:%d+: ", "")
      :gsub("^stdin:%d+: ", ""):gsub("^%[C%]: ", "")
  until m == prev
  return m
end

return M
