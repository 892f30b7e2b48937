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

-- The library's Lua sources: every file in this directory (lua/dlbench/ and below).
local LIBDIR = debug.getinfo(1, "S").source:match("^(@.*[/\\])errors%.lua$")

-- Sources counted as the library's beside this directory (M.register).
local extra = {}

-- Whether a frame's source is the library's own.
local function internal(source)
  return extra[source] == true or (LIBDIR ~= nil and source:sub(1, #LIBDIR) == LIBDIR)
end
M.internal = internal

-- Count a source (debug.getinfo(...).source) as the library's.
function M.register(source) extra[source] = true end

-- "file:line: " of the first Lua frame outside the library (the user's script or REPL
-- line), or "" when there is none (a C caller, the host's own call).
function M.where()
  local level = 2
  while true do
    local info = debug.getinfo(level, "Sl")
    if info == nil then return "" end
    if info.what ~= "C" and not internal(info.source) then
      if info.currentline and info.currentline > 0 then
        return info.short_src .. ":" .. info.currentline .. ": "
      end
      return ""
    end
    level = level + 1
  end
end

-- Whether the first Lua frame at or above `level` (of the caller; C frames such as pcall
-- skipped) is the library's own: a public function called by another one.
function M.from_library(level)
  level = (level or 1) + 1
  while true do
    local info = debug.getinfo(level, "S")
    if info == nil then return false end
    if info.what ~= "C" then return internal(info.source) end
    level = level + 1
  end
end

-- Raise msg at the user's line (M.where), however deep in the library the check ran; a
-- message that already starts with a location is raised as is.
function M.raise(msg)
  msg = tostring(msg)
  if msg:match("^[^\n:]+:%d+: ") then error(msg, 0) end
  error(M.where() .. msg, 0)
end

return M
