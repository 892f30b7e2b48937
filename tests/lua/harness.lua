-- harness.lua — the Lua test harness, in the style of Lua's testes: T.test(name, fn) runs
-- a case, T.checkerr(fragment, f, ...) expects an error containing fragment, T.near for
-- floating point, T.done() prints "N passed, N failed" and exits. Runs under both backends.
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

-- |a - b| <= rel * max(|a|, |b|, 1).
function T.near(a, b, rel, what)
  rel = rel or 1e-12
  local scale = math.max(math.abs(a), math.abs(b), 1)
  if not (math.abs(a - b) <= rel * scale) then
    error(string.format("%s: %.17g vs %.17g (rel %g)", what or "near", a, b, rel), 2)
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

function T.done()
  print(string.format("%d passed, %d failed", T.passed, T.failed))
  os.exit(T.failed == 0 and 0 or 1)
end

return T
