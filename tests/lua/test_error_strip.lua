-- test_error_strip.lua — review 12: library functions that re-raise an inner error strip its
-- locations through dlbench.errors.strip, the one rule. Twelve copies of the pattern
-- "^[^%s:]+:%d+: " stopped at a space, so a message raised at the user's line kept a
-- "(command line):1: " (dlbench -e) or "/tmp/a b/x.lua:1: " (a path with a space) inside
-- it: "dlb.serve.config: compute: (command line):1: unknown precision 'fp3' ...". Runs
-- under both backends.
local T = require "harness"
local errors = require "dlbench.errors"

local dir = io.popen("mktemp -d '/tmp/dlb strip.XXXXXX'"):read("*l")
assert(dir:find(" ", 1, true), "the temporary folder's name has a space")

-- Run code as the chunk `name` (a script file or "=(command line)") and return its error.
local function err_of(code, name)
  local f = assert(load(code, name))
  local ok, e = pcall(f)
  assert(not ok, "expected an error from " .. code)
  return tostring(e)
end

-- The message holds frag once and the chunk's location only at its start.
local function one_location(e, where, frag)
  assert(e:find(frag, 1, true) ~= nil, "message holds '" .. frag .. "': " .. e)
  local rest = e:sub(1, #where) == where and e:sub(#where + 1) or e
  assert(not rest:find(where, 1, true), "no location '" .. where .. "' inside: " .. e)
end

-- (one line: the chunk's location is line 1; dlb is not a global under LuaJIT)
local R = "local dlb = require 'dlbench'; "
local cases = {
  { R .. "dlb.serve.config{hw = 'H100', compute = 'fp3'}", "dlb.serve.config: compute: unknown precision 'fp3'" },
  { R .. "dlb.serve.config{hw = 'NoSuchGPU'}", "dlb.serve.config: hw: unknown device 'NoSuchGPU'" },
}

T.test("errors.strip: a message raised at (command line) loses that location", function()
  for _, c in ipairs(cases) do
    local e = err_of(c[1], "=(command line)")
    one_location(e, "(command line):1: ", c[2])
  end
end)

T.test("errors.strip: a script path with a space loses its location inside the message", function()
  local path = dir .. "/my study.lua"
  for _, c in ipairs(cases) do
    local f = assert(io.open(path, "wb")); f:write(c[1], "\n"); f:close()
    local ok, e = pcall(dofile, path)
    assert(not ok, "the script fails")
    one_location(tostring(e), path .. ":1: ", c[2])
  end
end)

T.test("errors.strip: the locations it removes", function()
  T.eq(errors.strip("(command line):3: x"), "x")
  T.eq(errors.strip("/tmp/a b/c d.lua:12: x"), "x")
  T.eq(errors.strip("[string \"f()\"]:1: graph.lua:2: x"), "x")
  T.eq(errors.strip("stdin:1: [C]: x"), "x")
  T.eq(errors.strip("x: y.lua:1: z"), "x: y.lua:1: z", "only leading locations")
end)

-- The zoo's wrapper (lua/dlbench/models/init.lua run) re-raises a builder's inner error at
-- the caller's line: the locations inside it go (a path with a space too), and an internal
-- error keeps the place of the bug (errors.strip_inner; review 13: the wrapper's own pattern
-- kept "/tmp/dlb strip.X/eng ine.lua:1: " inside the message, and took "/tmp/inner.lua:1: "
-- out of an internal error, leaving the builder's line as its place). Two builders of the
-- zoo are replaced, before their first use, by ones that fail as an engine call would.
T.test("errors.strip_inner: the zoo's builder errors, inner locations and internal errors", function()
  local tbd = require "dlbench.models.tbd"
  local eng = assert(load("return function() error('shape mismatch', 1) end", "@" .. dir .. "/eng ine.lua"))()
  local bug = assert(load("return function() local t = nil; return t.x end", "@/tmp/inner.lua"))()
  tbd.wgan = function() local _, e = pcall(eng); error("g:conv2d: " .. tostring(e), 1) end
  tbd.a3c = function() local _, e = pcall(bug); error("g:conv2d: " .. tostring(e), 1) end
  local dlb = require "dlbench"
  local e = T.checkerr("dlb.models.wgan: these options make an invalid graph: g:conv2d: shape mismatch (accepted: ",
    dlb.models.wgan, {})
  assert(not e:find("eng ine.lua", 1, true), "no inner location: " .. e)
  e = T.checkerr("g:conv2d: /tmp/inner.lua:1: attempt to index", dlb.models.a3c, {})
  assert(e:find("dlb.models.a3c: internal error at ", 1, true), "marked internal: " .. e)
  assert(not e:find("invalid graph", 1, true), "a bug is not the options' fault: " .. e)
  T.eq(errors.strip_inner("dlb.x: g:y: (command line):2: [string \"z\"]:1: w"), "dlb.x: g:y: w")
  T.eq(errors.strip_inner("a.lua:1: b: /p q/r.lua:3: c"), "b: c")
  T.eq(errors.strip_inner("a.lua:1: b: c.lua:3: attempt to call"), "internal error at a.lua:1: b: c.lua:3: attempt to call")
end)

os.execute("rm -rf '" .. dir .. "'")
-- dlbench.errors.bare_expression (review 14): the line of a script that is an expression
-- alone (a docs REPL line), the hint `dlbench run` adds to its syntax error; nil for a line
-- inside a multi-line call and for a file without such a line
T.test("errors.bare_expression names an expression alone, not a line inside a call", function()
  local E = require "dlbench.errors"
  local path = os.tmpname()
  local function with(text)
    local f = assert(io.open(path, "w")); f:write(text); f:close()
    return E.bare_expression(path)
  end
  local h = with("local g = {n = 3}\ng.n              --> 3\nprint(g)\n")
  assert(h and h:find("(line 2, `g.n`, is an expression alone", 1, true), tostring(h))
  T.eq(with("print(\n  1\n  2)\n"), nil)
  T.eq(with("x = = 1\n"), nil)
  os.remove(path)
  T.eq(E.bare_expression(path), nil, "a file that is gone")
end)

T.done()
