-- test_harness.lua — harness.lua's tolerances themselves (a check that cannot fail is a
-- defect): T.near is relative with no floor at 1, T.near_abs absolute; NaN and unequal
-- infinities fail both. tests/test_core.c's test_check_near checks check.h's twins.
local T = require "harness"

T.test("T.near is relative below 1", function()
  -- a 5e-5 s time off by 1e-12 s is 2e-8 relative (the old floor at 1 passed it at 1e-9)
  T.checkerr("rel 1e-09", T.near, 5e-5, 5e-5 + 1e-12, 1e-9)
  T.near(5e-5, 5e-5 * (1 + 5e-10), 1e-9)
  T.checkerr("ms", T.near, 1e-3, 1.5e-3, 1e-3, "ms")   -- a millisecond time with rel 1e-3
  T.near(1e6, 1e6 + 0.5, 1e-6)                           -- and above 1, as before
  T.checkerr("near", T.near, 1e6, 1e6 + 2, 1e-6)
  T.checkerr("near", T.near, 1, 1 + 1e-11)               -- the default: 1e-12
end)

T.test("T.near: 0, NaN, infinities", function()
  T.near(0, 0, 0); T.near(-0.0, 0, 1e-12)                -- both 0: equal
  T.checkerr("near", T.near, 0, 1e-300, 1e-9)            -- relative to 0: exact
  T.checkerr("near", T.near, 0 / 0, 0 / 0, 1)
  T.checkerr("near", T.near, 1, 0 / 0, 1)
  T.near(math.huge, math.huge, 0)
  T.checkerr("near", T.near, math.huge, -math.huge, 1)
  T.checkerr("near", T.near, math.huge, 1e300, 0.5)
  T.checkerr("near", T.near, -1e308, 1e308, 2)           -- the difference overflows
end)

T.test("T.near_abs is absolute", function()
  T.near_abs(0, 1e-13, 1e-12)
  T.checkerr("abs 1e-12", T.near_abs, 0, 2e-12, 1e-12)
  T.near_abs(0.0049, 0.004874, 5e-5)
  T.checkerr("near_abs", T.near_abs, 0 / 0, 0, 1)
  T.near_abs(math.huge, math.huge, 0)
  T.checkerr("near_abs", T.near_abs, math.huge, 0, 1e300)
  T.checkerr("the absolute tolerance is required", T.near_abs, 1, 1)
end)

-- T.lua_cmd under the C-API backend: build/bin/dlbench beside the harness, quoted for the
-- shell (review 13: a checkout whose path had a space gave a command that split there). A
-- copy of the harness in such a folder, with build/bin/dlbench linked to this build's, runs
-- a script. (Under DLB_BACKEND=ffi T.lua_cmd is the running LuaJIT: the next test.)
T.test("T.lua_cmd: a checkout path with a space", function()
  if os.getenv("DLB_BACKEND") == "ffi" then print("# skipped: luajit"); return end
  local cmd0 = T.lua_cmd()
  if not cmd0 then print("# skipped: no build/bin/dlbench"); return end
  local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local bin = io.popen("cd '" .. here .. "/../../build/bin' && pwd"):read("*l") .. "/dlbench"
  local dir = io.popen("mktemp -d '/tmp/dlb lua cmd.XXXXXX'"):read("*l")
  assert(os.execute("mkdir -p '" .. dir .. "/tests/lua' '" .. dir .. "/build/bin' && cp '" .. here
    .. "/harness.lua' '" .. dir .. "/tests/lua/' && ln -s '" .. bin .. "' '" .. dir .. "/build/bin/dlbench'"))
  local H = dofile(dir .. "/tests/lua/harness.lua")
  local cmd = assert(H.lua_cmd())
  local f = assert(io.open(dir .. "/s.lua", "w"))
  f:write("io.write('ran')\n"); f:close()
  local out = io.popen(cmd .. " '" .. dir .. "/s.lua' 2>&1"):read("*a")
  os.execute("rm -rf '" .. dir .. "'")
  T.eq(out, "ran", "the script ran through " .. cmd)
end)

-- T.lua_cmd under DLB_BACKEND=ffi: the LuaJIT that runs the test, not the first luajit on
-- PATH (review 14). This interpreter, linked into a folder whose name has a space, runs a
-- probe with PATH emptied; the probe's T.lua_cmd must name that link and run a script
-- through it (before the fix it answered "luajit", which an empty PATH cannot find).
T.test("T.lua_cmd under ffi: the running interpreter", function()
  if os.getenv("DLB_BACKEND") ~= "ffi" then print("# skipped: C-API backend"); return end
  local lj = assert(T.interpreter(), "arg[-1]")
  if not lj:find("/", 1, true) then lj = assert(io.popen("command -v " .. lj):read("*l"), lj) end
  local q = require("dlbench.errors").shell_quote
  local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local dir = io.popen("mktemp -d '/tmp/dlb lj.XXXXXX'"):read("*l")
  assert(os.execute("ln -s " .. q(lj) .. " " .. q(dir .. "/lj")))
  local f = assert(io.open(dir .. "/s.lua", "w"))
  f:write("io.write('ran')\n"); f:close()
  f = assert(io.open(dir .. "/probe.lua", "w"))
  f:write(string.format("local H = dofile(%q)\nlocal cmd = assert(H.lua_cmd())\nio.write(cmd, '|', "
    .. "io.popen(cmd .. ' ' .. %q .. ' 2>&1'):read('*a'))\n", here .. "/harness.lua", q(dir .. "/s.lua")))
  f:close()
  local out = io.popen("PATH=/nonexistent " .. q(dir .. "/lj") .. " " .. q(dir .. "/probe.lua") .. " 2>&1"):read("*a")
  os.execute("rm -rf " .. q(dir))
  T.eq(out, q(dir .. "/lj") .. "|ran", "the probe's command and its script's output")
end)

-- dlbench.errors.shell_quote, the one quoting rule of the library's shell commands (review
-- 13: four copies in measure, sweep_slurm, notebook and this harness): a word the shell
-- reads back as it was, whatever it holds
T.test("errors.shell_quote: the shell reads the word back unchanged", function()
  local q = require("dlbench.errors").shell_quote
  for _, w in ipairs { "a b", "it's", "$HOME `x` \\ \"q\"", "''", "" } do
    local out = io.popen("printf %s " .. q(w)):read("*a")
    T.eq(out, w, "round trip of " .. w)
  end
  T.eq(q(5), "'5'")
end)

T.done()
