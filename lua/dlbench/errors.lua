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

-- Wrap every method of class (functions under string keys not starting with "__") so a
-- call with a wrong self -- t.count() for t:count(), a method called on nil or a number --
-- raises "<prefix>name: call it as <prefix>name(...) with a colon; got a <type> as self"
-- at the caller's line instead of an internal error deep inside. isself(x) says whether x
-- is an object of the class. The wrapper tail-calls the method, so stack levels and
-- results stay as they were; help text registered on a method moves to its wrapper.
function M.guard_methods(class, prefix, isself)
  local doc = require "dlbench.doc"
  local names = {}
  for k, f in pairs(class) do
    if type(k) == "string" and type(f) == "function" and k:sub(1, 2) ~= "__" then names[#names + 1] = k end
  end
  for _, k in ipairs(names) do
    local f = class[k]
    local function guarded(self, ...)
      if not isself(self) then
        error(string.format("%s%s: call it as %s%s(...) with a colon; got a %s as self", prefix, k,
          prefix, k, type(self)), 2)
      end
      return f(self, ...)
    end
    local d = doc.get(f)
    if d then doc.doc(guarded, d.signature, d.meaning) end
    class[k] = guarded
  end
end

return M
