-- harness.lua — the Lua test harness, in the style of Lua's testes: T.test(name, fn) runs
-- a case, T.checkerr(fragment, f, ...) expects an error containing fragment, T.near and
-- T.near_abs for floating point, T.done() prints "N passed, N failed" and exits. Runs under
-- both backends.
--
-- Tolerances (the same two forms as tests/check.h's CHECK_NEAR / CHECK_NEAR_ABS):
--   T.near(a, b, rel, what)      RELATIVE: |a - b| <= rel * max(|a|, |b|); a == b always
--                                passes (both 0, or the same infinity). There is no floor at
--                                1: a 5e-5 s time checked with rel 1e-9 must agree to 5e-14 s.
--   T.near_abs(a, b, abs, what)  ABSOLUTE: |a - b| <= abs. Only where a relative bound has no
--                                meaning (a value that may be 0, a sum of cancelling terms);
--                                the call site says why in a comment.
-- A NaN on either side fails both, and so does an infinity unless both sides are the same
-- one. A relative tolerance against 0 is exact equality: a value that may be 0 takes near_abs.
local T = { passed = 0, failed = 0 }

local function traceback(e)
  return debug.traceback(tostring(e), 2)
end

function T.test(name, fn)
  local ok, err = xpcall(fn, traceback)
  if ok then
    T.passed = T.passed + 1
    print("ok " .. name)
  else
    T.failed = T.failed + 1
    print("not ok " .. name)
    io.stderr:write(name, ": ", tostring(err), "\n")
  end
end

-- f(...) must raise an error whose message contains fragment (plain text).
function T.checkerr(fragment, f, ...)
  local ok, err = pcall(f, ...)
  if ok then error("expected an error containing '" .. fragment .. "', got success", 2) end
  err = tostring(err)
  if not string.find(err, fragment, 1, true) then
    error("expected an error containing '" .. fragment .. "', got: " .. err, 2)
  end
  return err
end

-- |a - b| <= rel * max(|a|, |b|) (relative; a == b passes, so 0 vs 0 does).
function T.near(a, b, rel, what)
  rel = rel or 1e-12
  if a == b then return end
  local scale, d = math.max(math.abs(a), math.abs(b)), math.abs(a - b)
  if not (d < math.huge and d <= rel * scale) then
    error(string.format("%s: %.17g vs %.17g (rel %g; relative difference %.3g)", what or "near",
      a, b, rel, math.abs(a - b) / scale), 2)
  end
end

-- |a - b| <= abs (absolute: for values that may be 0 or sums of cancelling terms; say why).
function T.near_abs(a, b, abs, what)
  assert(type(abs) == "number" and abs >= 0, "T.near_abs: the absolute tolerance is required")
  if a == b then return end
  if not (math.abs(a - b) <= abs) then
    error(string.format("%s: %.17g vs %.17g (abs %g; difference %.3g)", what or "near_abs",
      a, b, abs, math.abs(a - b)), 2)
  end
end

-- A copy of table base with base[k] replaced by v (a call's options with one changed).
function T.with(base, k, v)
  local c = {}
  for a, b in pairs(base) do c[a] = b end
  c[k] = v
  return c
end

-- a == b with a message naming what.
function T.eq(a, b, what)
  if a ~= b then
    error(string.format("%s: got %s, expected %s", what or "eq", tostring(a), tostring(b)), 2)
  end
end

-- Run fn with dlb.plot's Figure.save wrapped: every figure saved is checked with
-- f:layout_check() (issue [14]). Returns fn's results' success (pcall's), the number saved
-- and the problems found ("path: problem" each). Used by test_figures_out and by the
-- notebook tests that run a notebook test_figures_out leaves to them.
function T.layout_checked(fn)
  local Figure = require("dlbench.plot").Figure
  assert(type(Figure) == "table" and type(Figure.save) == "function", "dlb.plot.Figure")
  local save0, problems, saved = Figure.save, {}, 0
  Figure.save = function(f, path, ...)
    local ok, msg = save0(f, path, ...)
    if ok then
      saved = saved + 1
      for _, p in ipairs(f:layout_check()) do problems[#problems + 1] = path .. ": " .. p end
    end
    return ok, msg
  end
  local ok, err = pcall(fn)
  Figure.save = save0
  return ok, err, saved, problems
end

-- The interpreter that started this process: the lowest-numbered entry of the standalone
-- interpreter's `arg` (arg[-1], or further down when options such as -joff come before the
-- script), as it was typed: a path, or a bare name the shell found on PATH. nil when there
-- is no such entry (an embedding host without `arg`).
function T.interpreter()
  local a = rawget(_G, "arg")
  if type(a) ~= "table" or a[-1] == nil then return nil end
  local i = -1
  while a[i - 1] ~= nil do i = i - 1 end
  return a[i]
end

-- The command that runs a Lua script in a process of its own on this test's backend: under
-- DLB_BACKEND=ffi the LuaJIT that runs this test (T.interpreter, not whichever luajit is
-- first on PATH; review 14), LUA_PATH and LD_LIBRARY_PATH inherited; else the repository's
-- build/bin/dlbench run. nil and the reason to print as a skip when that binary is not
-- built (or, under ffi, when the running interpreter is not known). Quoted for the shell.
function T.lua_cmd()
  if os.getenv("DLB_BACKEND") == "ffi" then
    local lj = T.interpreter()
    if not lj then return nil, "the running interpreter is not known (no arg[-1])" end
    return require("dlbench.errors").shell_quote(lj)
  end
  local src = debug.getinfo(1, "S").source
  local root = ((src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or ".") .. "/../.."
  local f = io.open(root .. "/build/bin/dlbench", "rb")
  if not f then return nil, "needs build/bin/dlbench" end
  f:close()
  -- quoted for the shell: a checkout whose path has a space (review 13: the command split there)
  return require("dlbench.errors").shell_quote(root .. "/build/bin/dlbench") .. " run"
end

-- A new empty folder under the system's temporary directory for a test's files (os.tmpname's
-- name, the file removed, the folder made), its path; raises if it cannot be made.
function T.tmpdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"), "T.tmpdir: cannot make " .. dir)
  return dir
end

function T.done()
  print(string.format("%d passed, %d failed", T.passed, T.failed))
  os.exit(T.failed == 0 and 0 or 1)
end

return T
