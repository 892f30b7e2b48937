-- test_session_locals.lua — review 15: the REPL's session-variable rule
-- (dlbench.errors.session_locals, which host/repl.c calls) and the Jupyter kernel's cells
-- following the same rule, and naming a line that is an expression alone (errors.
-- bare_expression_in), as `dlbench run` does. Both backends; the kernel's Lua side is driven
-- directly (tests/sh/test_kernel.sh drives a real kernel where ipykernel is installed).
local T = require "harness"
local errs = require "dlbench.errors"
local SL = errs.session_locals

T.test("session_locals: a top-level local a, b = ... loses its local; the rest stay as typed", function()
  T.eq(SL("local a, b = 1, 2"), "a, b = 1, 2", "the REPL's leading local")
  T.eq(SL("  local g = f()"), "g = f()", "indented first line")
  T.eq(SL("local function f() end"), "local function f() end", "local function")
  T.eq(SL("local x"), "local x", "no value")
  T.eq(SL("local x <const> = 1"), "local x <const> = 1", "attribute")
  T.eq(SL("local a = 1; local b = 2"), "a = 1; local b = 2", "later locals on the line")
  T.eq(SL("local a = 1\nlocal b = a + 1\n"), "a = 1\nb = a + 1\n", "each top-level line (a cell)")
  T.eq(SL("for i = 1, 2 do\nlocal v = i\nend"), "for i = 1, 2 do\nlocal v = i\nend",
    "a local inside a block, even unindented")
  T.eq(SL("s = [[\nlocal q = 1\n]]"), "s = [[\nlocal q = 1\n]]", "inside a long string")
  T.eq(SL("x = 1 +"), "x = 1 +", "a chunk that does not compile: unchanged")
  T.eq(SL("local localize = 1"), "localize = 1", "a name that starts with local")
end)

-- the kernel's Lua side, its messages captured instead of sent to the wrapper
local sent = {}
rawset(_G, "kernel_send", function(s) sent[#sent + 1] = s end)
local K = require "dlbench.kernel"
local function run(n, code)
  sent = {}
  local ok, err = pcall(K.execute, n .. "\n" .. code)
  for _, m in ipairs(sent) do   -- the JSON text of {type="result", data={["text/plain"]=...}}
    if m:find('"type":"result"', 1, true) then return ok, m:match('"text/plain":"(.-)"') end
  end
  return ok, err
end

T.test("kernel: a cell's top-level locals are there in the next cell", function()
  local ok, v = run(1, "local kx = 20\nlocal ky = kx + 1\nky")
  T.eq(ok, true, tostring(v))
  T.eq(v, "21", "the cell's last line")
  ok, v = run(2, "kx + ky")
  T.eq(v, "41", "the locals of In[1] in In[2]")
  ok, v = run(3, "local kz = 5")
  ok, v = run(4, "kz * 2")
  T.eq(v, "10", "a cell of statements only")
  ok, v = run(5, "local function kf() return 1 end\nkf()")
  T.eq(v, "1", "a local function within its cell")
  ok, v = run(6, "kf == nil")
  T.eq(v, "true", "stays local to its cell")
end)

T.test("kernel: a pasted docs snippet names its expression-alone line", function()
  local ok, err = run(7, "local kg = 2\nkg * 3\nlocal kh = kg + 1\nkh")
  T.eq(ok, false, "a syntax error")
  assert(tostring(err):find("In[7]:", 1, true), err)
  assert(tostring(err):find("(line 2, `kg * 3`, is an expression alone: a cell shows its last "
    .. "line's value; print(...) the others)", 1, true), err)
  -- and dlbench run's hint is the same rule, with its own advice
  local path = os.tmpname()
  local f = assert(io.open(path, "w")); f:write("local a = 1\na + 1\nprint(a)\n"); f:close()
  local h = errs.bare_expression(path)
  os.remove(path)
  T.eq(h, " (line 2, `a + 1`, is an expression alone: the REPL prints such a line's value, a "
    .. "script needs print(...))", "script hint")
end)

T.done()
