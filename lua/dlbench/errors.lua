-- dlbench.errors — messages that point at the user's line. Library functions that re-raise
-- a core or inner error strip the locations Lua put in front of it ("graph.lua:12: ",
-- "[string ...]:3: ", "stdin:1: ", "(command line):1: " (dlbench -e), "[C]: ") and raise it again at the caller's level, so a
-- message carries exactly one location: the caller's.
local M = {}

-- The message without its leading locations. A Lua runtime error ("attempt to index a nil
-- value") is a bug of the library, not the caller's: it keeps where it happened, marked
-- "internal error at ...".
-- The text of a binding's argument error without its frame: "bad argument #10 to
-- 'sweep_eval' (threads must be 0..64)" -> "threads must be 0..64" (for a message that names
-- the option instead); other errors as they are.
function M.argtext(e)
  return (tostring(e):gsub("^bad argument #%d+ to '[%w_]+' %((.*)%)$", "%1"))
end

-- The locations Lua puts in front of a message (one rule for M.strip and M.strip_inner): a
-- Lua file's "path.lua:12: " (a path may hold spaces, not colons), a chunk's
-- "[string \"...\"]:3: ", the REPL's "stdin:1: ", dlbench -e's "(command line):1: ", "[C]: ".
local LOCATIONS = { "[^\n:]-%.lua:%d+: ", "%[string \"[^\n]-\"%]:%d+: ", "stdin:%d+: ",
  "%(command line%):%d+: ", "%[C%]: " }

-- m without the locations at `at` (a pattern: "^" the start, "(: )" after a ": "), repeated
-- while one goes.
local function drop(m, at, keep)
  local prev
  repeat
    prev = m
    for _, l in ipairs(LOCATIONS) do m = m:gsub(at .. l, keep) end
  until m == prev
  return m
end

function M.strip(m)
  m = tostring(m)
  if m:match("^[^\n]-:%d+: attempt to ") then return "internal error at " .. m end
  return drop(m, "^", "")
end

-- M.strip, and the locations inside the message too (after a ": ", where a library function
-- put its inner error after its own text: "g:conv2d: graph.lua:12: ..."), so that a message
-- re-raised at the caller's line carries that one location (the zoo's builders, whose inner
-- errors come from the engine's files). An internal error ("internal error at ...") keeps
-- every location: the place of the bug. Before review 13 the zoo kept its own pattern for
-- the inner ones, which missed a path with a space, (command line) and [string] chunks, and
-- took the inner location out of an internal error, leaving the outer frame's as its place.
function M.strip_inner(m)
  m = M.strip(m)
  if m:find("^internal error at ") then return m end
  return drop(m, "(: )", "%1")
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

-- Raise msg at the user's line (M.where), always: the usage errors of dlb.table and its
-- files (table.lua, table_io.lua).
function M.fail(msg) error(M.where() .. msg, 0) end

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

-- Writers (t:to_csv, t:to_json, dlb.hw.save_csv, f:save, dlb.table.write_atomic) follow
-- Lua's io convention: true, or nil and a message (a full disk, a read-only folder). After
-- dlb.write_errors("raise") they raise that message at the caller's line instead, so a
-- study that ignores return values stops at the first failed write (docs/security.md).
-- A misuse (bad argument, f:save's unknown extension) raises in either mode.
local write_mode = "return"
function M.write_errors(mode)
  local old = write_mode
  if mode ~= nil then
    if mode ~= "return" and mode ~= "raise" then
      error("dlb.write_errors: mode must be \"return\" or \"raise\", got " .. tostring(mode), 2)
    end
    write_mode = mode
  end
  return old
end
-- Why a writer cannot use path as a file name (a C string ends at a NUL byte: the binding
-- refused it with a message naming its own function and argument), or nil.
function M.unwritable_name(path)
  if path:find("\0", 1, true) then
    -- control bytes as \ddd, the same text under both interpreters (%q differs)
    local shown = path:gsub("%c", function(c) return "\\" .. c:byte() end)
    return "cannot write '" .. shown .. "': the file name holds a NUL byte"
  end
  return nil
end

-- s as one word of a POSIX shell command: in single quotes, each ' as '\'' (the one quoting
-- rule of the library's shell commands: dlbench measure, dlb.sweep's Slurm scripts, a
-- notebook's output folder, the tests' child processes; review 13: four copies).
function M.shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- Run a shell command: true when it exited 0. os.execute says so differently by backend:
-- Lua 5.4 returns true or nil, LuaJIT the status as a number (0, 256, ...: every one of them
-- true in a test, so `if not os.execute(...)` never fired under LuaJIT, and `if
-- os.execute(...)` always did).
function M.shell(cmd)
  local r = os.execute(cmd)
  return r == true or r == 0
end

-- Run a shell command and read its output (stderr with it): the text, and true when it
-- exited 0. A pipe's close gives the status under Lua 5.4 but always true under LuaJIT, so
-- the status is printed after the output and read back from there.
function M.shell_capture(cmd)
  local p = io.popen("(" .. cmd .. ") 2>&1; echo \"dlbench-status:$?\"", "r")
  if p == nil then return "", false end
  local out = p:read("*a") or ""
  p:close()
  local code = out:match("dlbench%-status:(%d+)%s*$")
  out = out:gsub("dlbench%-status:%d+%s*$", "")
  return out, code == "0", tonumber(code)
end

-- The result of a writer: passed on, or raised (mode "raise") when it failed.
function M.written(ok, msg)
  if not ok and write_mode == "raise" then M.raise(msg) end
  return ok, msg
end

-- Wrap every method of class (functions under string keys not starting with "__") so a
-- call with a wrong self -- t.count() for t:count(), a method called on nil or a number --
-- raises "<prefix>name: call it as <prefix>name(...) with a colon; got a <type> as self"
-- at the caller's line instead of an internal error deep inside. isself(x) says whether x
-- is an object of the class, or is the class's metatable. The wrapper tail-calls the
-- method, so stack levels and results stay as they were; help text registered on a method
-- moves to its wrapper. selfchecked names methods left unwrapped because their own argument
-- check calls M.wrong_self on a wrong self (the graph builders' hot paths: no wrapper frame
-- per op).
function M.wrong_self(name, self, level)
  error(string.format("%s: call it as %s(...) with a colon; got a %s as self", name, name,
    type(self)), level + 1)
end

function M.guard_methods(class, prefix, isself, selfchecked)
  local doc = require "dlbench.doc"
  local names = {}
  for k, f in pairs(class) do
    if type(k) == "string" and type(f) == "function" and k:sub(1, 2) ~= "__"
        and not (selfchecked and selfchecked[k]) then
      names[#names + 1] = k
    end
  end
  -- isself may be the class's metatable itself: one getmetatable per call, no Lua call
  local mt = type(isself) == "table" and isself or nil
  for _, k in ipairs(names) do
    local f = class[k]
    local guarded
    if mt then
      guarded = function(self, ...)
        if getmetatable(self) ~= mt then M.wrong_self(prefix .. k, self, 2) end
        return f(self, ...)
      end
    else
      guarded = function(self, ...)
        if not isself(self) then M.wrong_self(prefix .. k, self, 2) end
        return f(self, ...)
      end
    end
    local d = doc.get(f)
    if d then doc.doc(guarded, d.signature, d.meaning) end
    class[k] = guarded
  end
end

-- The session-variable rule of the REPL (host/repl.c) and the Jupyter kernel
-- (dlbench.kernel), one place for both (review 14 wrote it in C for the REPL; review 15
-- moved it here so a notebook cell follows it too). A line of chunk src that starts a
-- top-level statement (the lines before it compile as a chunk) with `local a, b = ...`
-- loses its `local` when src still compiles without it: the docs' examples (`local g =
-- ...` then `g:stats{}` on the next line, or in the next cell) keep their variables.
-- `local function f` (its traceback names it a local), `local x` without a value,
-- attributes (`<const>`), later locals on the same line and locals inside a block stay as
-- typed. Returns the source to compile (src itself when nothing changed).
function M.session_locals(src)
  if not src:find("local", 1, true) then return src end
  local lines = {}
  for l in (src .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local changed = false
  for i, l in ipairs(lines) do
    local rest = l:match("^[ \t]*local[ \t]+(.*)$")
    if rest and rest ~= "function" and not rest:match("^function[^%w_]")
      and (i == 1 or load(table.concat(lines, "\n", 1, i - 1), "=c", "t")) then
      local keep = lines[i]
      lines[i] = rest
      if load(table.concat(lines, "\n"), "=c", "t") then changed = true else lines[i] = keep end
    end
  end
  return changed and table.concat(lines, "\n") or src
end

-- The hint a syntax error gets when a line of the chunk is an expression alone (review 14:
-- the docs' examples are REPL lines such as `g:stats{}.params`, which a script rejects as
-- "syntax error near <eof>" at the line after): " (line N, `expr`, is an expression alone:
-- ...)", or nil. A line counts when it fails as a statement, compiles after `return `, and
-- the chunk with that line as an assignment `_ = expr` compiles or fails further down (a
-- line inside a multi-line call does not). `dlbench run` adds it to a script's error
-- (M.bare_expression(path), called by host/main.c), the Jupyter kernel to a cell's
-- (M.bare_expression_in(code, "a cell shows its last line's value")).
function M.bare_expression(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local src = f:read("*a")
  f:close()
  return M.bare_expression_in(src, "the REPL prints such a line's value, a script needs print(...)")
end

function M.bare_expression_in(src, advice)
  local lines = {}
  for l in (src:gsub("\r\n", "\n") .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  for i, l in ipairs(lines) do
    local code = l:gsub("%-%-.*$", "")
    if code:match("%S") and not load(code, "=l", "t") and load("return " .. code, "=l", "t") then
      local copy = {}
      for j = 1, #lines do copy[j] = lines[j] end
      copy[i] = "_ = " .. code
      local ok, err = load(table.concat(copy, "\n"), "=f", "t")
      local at = not ok and tonumber(tostring(err):match("^f:(%d+):"))
      if ok or (at and at > i) then
        return string.format(" (line %d, `%s`, is an expression alone: %s)", i,
          code:match("^%s*(.-)%s*$"), advice)
      end
    end
  end
  return nil
end

return M
