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

-- a == b with a message naming what.
function T.eq(a, b, what)
  if a ~= b then
    error(string.format("%s: got %s, expected %s", what or "eq", tostring(a), tostring(b)), 2)
  end
end

function T.done()
  print(string.format("%d passed, %d failed", T.passed, T.failed))
  os.exit(T.failed == 0 and 0 or 1)
end

return T
