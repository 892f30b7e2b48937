-- test_sweep_qa.lua — regressions for a QA round on dlb.range and dlb.sweep: unbounded
-- ranges, opts.timeout with jobs = 1, reserved parameter names, workers reaped when an
-- error (Ctrl-C included) unwinds through a parallel sweep, checkpoint write errors that
-- name the file. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"

local quiet = { quiet = true, progress = false }
local function with(o, extra) local r = {}; for k, v in pairs(o) do r[k] = v end; for k, v in pairs(extra) do r[k] = v end; return r end
local tmpdir = os.getenv("TMPDIR") or "/tmp"
local function tmpname(tag)
  return string.format("%s/dlb_test_sweepqa_%s_%d_%d", tmpdir, tag, os.time(), math.random(1, 1e9))
end

T.test("range: non-finite bounds, bad steps and huge ranges are errors naming the call", function()
  -- each of these hung (x2 up to inf) or ran out of memory (+1 up to inf) before
  T.checkerr('dlb.range(1, inf, "x2"): lo and hi must be finite', dlb.range, 1, math.huge, "x2")
  T.checkerr('dlb.range(1, inf, "+1"): lo and hi must be finite', dlb.range, 1, math.huge, "+1")
  T.checkerr("lo and hi must be finite", dlb.range, -math.huge, 1, 1)
  T.checkerr("lo and hi must be finite", dlb.range, 0 / 0, 1, 1)
  T.checkerr("lo and hi must be finite", dlb.range, 1, 0 / 0, "x2")
  T.checkerr("lo and hi must be finite", dlb.range, "1", 2, 1)
  T.checkerr('dlb.range(1, 2, "x0"): a multiplying step must be a finite number > 1, got 0', dlb.range, 1, 2, "x0")
  T.checkerr("multiplying step must be", dlb.range, 1, 2, "x-2")
  T.checkerr("multiplying step must be", dlb.range, 1, 2, "x0.5")
  T.checkerr("multiplying step must be", dlb.range, 1, 2, "x1e999")
  T.checkerr("added step must be a finite number > 0, got 0", dlb.range, 1, 2, 0)
  T.checkerr("added step must be", dlb.range, 1, 2, -1)
  T.checkerr("added step must be", dlb.range, 1, 2, "+-1")
  T.checkerr("added step must be", dlb.range, 1, 2, 0 / 0)
  T.checkerr("added step must be", dlb.range, 1, 2, math.huge)
  -- the documented maximum: exactly 1e6 values is fine, one more is an error
  T.eq(require("dlbench.sweep").range_max, 1000000, "maximum")
  local r = dlb.range(1, 1000000, 1)
  T.eq(#r, 1000000, "a million values")
  r = nil -- luacheck: ignore
  T.checkerr("maximum of 1000000", dlb.range, 1, 1000001, 1)
  T.checkerr("dlb.range(0, 1, 1e-12)", dlb.range, 0, 1, 1e-12)
  T.checkerr("maximum of 1000000", dlb.range, 1, 2, "x1.0000000001")
  -- near the top of the doubles, x2 stops before overflowing (1 .. 2^1023: 1024 values)
  local big = dlb.range(1, 1.7976931348623157e308, "x2")
  T.eq(#big, 1024, "x2 up to DBL_MAX")
  T.eq(big[#big], 2 ^ 1023, "last power of two")
  -- under Lua 5.4, an integer range past 2^63 goes on in floats instead of wrapping
  local w = dlb.range(1, 1e19, "x2")
  T.eq(#w, 64, "x2 up to 1e19")
  for i = 2, #w do assert(w[i] == 2.0 * w[i - 1], "doubling at " .. i .. ": " .. tostring(w[i])) end
end)

-- a busy loop outside fn (under LuaJIT, compiled unless the JIT is off)
local function spin() local x = 0; while true do x = x + 1 end end

T.test("sweep: opts.timeout stops a hung config with jobs = 1", function()
  local t0 = core.sys_now()
  local t = dlb.sweep({ a = { 1, 2, 3 } }, function(p)
    if p.a == 2 then while true do end end
    if p.a == 3 then spin() end
    return { v = p.a * 10 }
  end, with(quiet, { jobs = 1, timeout = 0.3 }))
  local el = core.sys_now() - t0
  assert(el < 5, "the sweep ends (took " .. el .. " s)")
  assert(el >= 0.55, "two configs ran to their limit (took " .. el .. " s)")
  T.eq(t:count(), 3, "rows")
  T.eq(t:row(1).v, 10, "config 1 ok")
  T.eq(t:row(1)._error, nil, "config 1 no error")
  T.eq(t:row(2)._error, "timed out after 0.3 s (stopped in-process)", "config 2 timed out")
  T.eq(t:row(3)._error, "timed out after 0.3 s (stopped in-process)", "config 3 (loop in a called function) timed out")
  T.eq(debug.gethook(), nil, "the hook is removed")
  if jit then T.eq(jit.status(), true, "the JIT is back on") end
  -- a fn that catches the timeout error still fails its config
  t = dlb.sweep({ a = { 1 } }, function()
    pcall(function() while true do end end)
    return { v = 1 }
  end, with(quiet, { jobs = 1, timeout = 0.2 }))
  T.eq(t:row(1)._error, "timed out after 0.2 s (stopped in-process)", "caught timeout still fails")
  -- strict turns it into an error naming the config
  T.checkerr("config {a=2} failed: timed out after 0.2 s", dlb.sweep, { a = { 1, 2 } }, function(p)
    if p.a == 2 then while true do end end
  end, with(quiet, { jobs = 1, timeout = 0.2, strict = true }))
  -- a single config on jobs = 2 also runs in-process, and is timed too
  t = dlb.sweep({ a = 7 }, function() while true do end end, with(quiet, { jobs = 2, timeout = 0.2 }))
  T.eq(t:row(1)._error, "timed out after 0.2 s (stopped in-process)", "single config")
  -- fast configs are untouched by the hook and keep their numbers exact
  t = dlb.sweep({ a = { 1, 2, 3 } }, function(p) return { v = p.a / 3 } end, with(quiet, { jobs = 1, timeout = 5 }))
  T.eq(t:row(3).v, 1.0, "exact")
  T.eq(t:row(1).v, 1 / 3, "exact")
end)

T.test("sweep: a reserved column name as a parameter is an error naming it", function()
  T.checkerr("parameter '_error' is a reserved column name (reserved: _error)", dlb.sweep,
    { _error = { 1, 2 }, a = { 1 } }, function() return { v = 1 } end, with(quiet, { jobs = 1 }))
  T.checkerr("parameter '_error' is a reserved column name", dlb.sweep,
    { _error = "x" }, function() return { v = 1 } end, with(quiet, { jobs = 1 }))
  -- the error points at the caller, not into sweep.lua
  local err = T.checkerr("reserved", dlb.sweep, { _error = { 1 } }, function() end, quiet)
  assert(not err:find("sweep.lua", 1, true), "names the caller: " .. err)
end)

-- Record the pids of the workers a sweep forks (in the parent; a worker sees pid 0).
local function spy_spawn()
  local pids, orig = {}, core.proc_spawn
  core.proc_spawn = function()
    local pid, wfd, rfd = orig()
    if pid ~= 0 then pids[#pids + 1] = pid end
    return pid, wfd, rfd
  end
  return pids, function() core.proc_spawn = orig end
end

-- Every pid must be reaped: waiting for it again fails (no such child), where a zombie
-- or a live worker would be found.
local function all_reaped(pids, what)
  assert(#pids > 0, what .. ": workers were forked")
  for _, pid in ipairs(pids) do
    local ok, state = pcall(core.proc_wait, pid, false)
    if ok then
      if state == "running" then pcall(core.proc_kill, pid, 9); pcall(core.proc_wait, pid, true) end
      error(string.format("%s: worker %d was left %s", what, pid, state == "running" and "running" or "a zombie"), 2)
    end
  end
end

local function slowish(p)
  core._proc_poll({}, 0.002)   -- a slow row that burns no CPU
  return { v = p.k }
end

T.test("sweep: workers are reaped when an error unwinds through a parallel sweep", function()
  -- strict: the first failure raises in the parent while both workers are busy
  local pids, restore = spy_spawn()
  local ok, err = pcall(dlb.sweep, { k = dlb.range(1, 400, "+1") }, function(p)
    if p.k == 50 then error("bad config", 0) end
    return slowish(p)
  end, with(quiet, { jobs = 2, strict = true }))
  restore()
  assert(not ok and tostring(err):find("config {k=50} failed: bad config", 1, true), tostring(err))
  all_reaped(pids, "strict")
end)

T.test("sweep: Ctrl-C (a hook raising on every instruction) leaves no zombie workers", function()
  -- the host's Ctrl-C: a count hook that raises "interrupted!" on every instruction until
  -- control is back outside (here: until no frame of sweep.lua is on the stack). The
  -- cleanup must run all the same: no zombie, no live worker, the same error object.
  local jiton = jit and jit.status()
  if jiton then jit.off(); jit.flush() end -- LuaJIT: hooks do not run in compiled code
  for _, jobs in ipairs({ 2, 4 }) do
    local pids, restore = spy_spawn()
    local orig_poll, polls = core.proc_poll, 0
    local function sticky()
      for lv = 2, 100 do
        local info = debug.getinfo(lv, "S")
        if not info then break end
        if info.source:find("dlbench/sweep.lua", 1, true) then error("interrupted!", 0) end
      end
      debug.sethook()
    end
    core.proc_poll = function(...)
      polls = polls + 1
      local r = orig_poll(...)
      if polls == 5 then debug.sethook(sticky, "", 1) end
      return r
    end
    local ok, err = pcall(dlb.sweep, { k = dlb.range(1, 2000, "+1") }, slowish, with(quiet, { jobs = jobs }))
    core.proc_poll = orig_poll
    restore()
    debug.sethook()
    T.eq(ok, false, "jobs=" .. jobs .. ": interrupted")
    T.eq(err, "interrupted!", "jobs=" .. jobs .. ": the same error object")
    T.eq(#pids, jobs, "jobs=" .. jobs .. ": workers forked")
    all_reaped(pids, "jobs=" .. jobs)
  end
  if jiton then jit.on() end
end)

T.test("sweep: a checkpoint write error names the checkpoint", function()
  local cmd, skip = T.lua_cmd()
  if not cmd then print("# skipped: " .. skip); return end
  if not os.execute("command -v bash >/dev/null 2>&1") then print("# skipped: needs bash"); return end
  local path, script = tmpname("full") .. ".csv", tmpname("full") .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(string.format([[
local dlb = require "dlbench"
local ok, err = pcall(dlb.sweep, {k = dlb.range(1, 200, "+1")}, function(p) return {s = string.rep("x", 100)} end,
  {jobs = 1, checkpoint = %q, quiet = true, progress = false})
io.write(tostring(ok), "|", tostring(err), "\n")
]], path))
  f:close()
  -- a file size limit of 2 KiB (SIGXFSZ ignored): the appends fail with EFBIG, as a full
  -- disk fails them with ENOSPC
  local p = io.popen(string.format("bash -c 'trap \"\" XFSZ; ulimit -f 2; exec %s %q' 2>&1", cmd, script))
  local out = p:read("*a")
  p:close()
  os.remove(path); os.remove(path .. ".tmp"); os.remove(script)
  assert(out:find("false|dlb.sweep: checkpoint " .. path .. ": write to descriptor", 1, true), "names the file: " .. out)
  assert(out:find("File too large", 1, true), "says why: " .. out)
end)

-- Review 8: docs/frameworks.md "Provenance": the rows of a sweep given framework= or
-- calibration= carry dlbench, framework and calibration. A failed config's row had none
-- (its fn returned no row to stamp), so the sweep's CSV left them blank on exactly the rows
-- one needs to reproduce.
for _, jobs in ipairs { 1, 2 } do
  T.test("sweep: failed rows of a sweep given framework=/calibration= carry its provenance (jobs = " .. jobs .. ")", function()
    local fn = function(p) if p.x == 2 then error("boom") end return { y = 1 } end
    local t = dlb.sweep({ x = { 1, 2 } }, fn, with(quiet, { jobs = jobs, framework = "megatron-lm" }))
    local ok, bad = t:row(1), t:row(2)
    assert(bad._error and bad._error:find("boom"), "row 2 failed")
    for _, k in ipairs { "dlbench", "framework", "calibration" } do
      T.eq(bad[k], ok[k], k .. " of the failed row")
    end
    T.eq(bad.framework, "megatron-lm", "framework")
    T.eq(bad.dlbench, dlb.version(), "version")
    -- a sweep given neither option (and fn calling no time model) stays without them
    t = dlb.sweep({ x = { 1, 2 } }, fn, with(quiet, { jobs = jobs }))
    T.eq(t:row(2).dlbench, nil, "no provenance asked for")
  end)
end

-- Review 8: help(dlb.sweep) names every option dlb.sweep accepts (label= was missing).
T.test("sweep: help(dlb.sweep) lists every option it accepts", function()
  local S = require "dlbench.sweep"
  local _, e = pcall(S.sweep, { x = { 1 } }, function() return {} end, { bogus_option = 1 })
  local acc = tostring(e):match("accepted: ([%w_, ]+)")
  assert(acc, tostring(e))
  local sig = require("dlbench.doc").get(S.sweep).signature
  for k in acc:gmatch("[%w_]+") do assert(sig:find(k .. "=", 1, true), "help lacks " .. k .. "=: " .. sig) end
end)

-- Review 10: a huge jobs (math.huge, 5000) forked min(jobs, configs) workers and failed at
-- the first poll (at most 4,096 descriptors: proc/dlb_proc.h's DLB_PROC_MAXPOLL); now an
-- error naming jobs and the bound, raised before any worker is forked (fn never runs).
T.test("sweep: jobs above the poll bound is an error naming jobs, before any fork", function()
  local max = require("dlbench.backend").enum.DLB_PROC_MAXPOLL
  T.eq(max, 4096, "the bound")
  local calls = 0
  local function fn(p) calls = calls + 1; return { y = p.x } end
  for _, j in ipairs { math.huge, 5000, max + 1, 0, 1.5 } do
    T.checkerr("dlb.sweep: jobs must be a whole number from 1 to 4096 (the most workers one sweep polls), got "
      .. tostring(j), dlb.sweep, { x = { 1, 2 } }, fn, { jobs = j, quiet = true })
  end
  T.eq(calls, 0, "no config ran")
  -- the bound itself is accepted (two configs: two workers)
  T.eq(dlb.sweep({ x = { 1, 2 } }, fn, { jobs = max, quiet = true }):row(2).y, 2)
end)

-- Review 9: jobs's default from SLURM_CPUS_PER_TASK: a value that is not a whole number >= 1
-- is an error naming the variable ("0" was reported as jobs = 0, which the call never gave;
-- "x" fell back to the machine's cores); a large one is capped at the bound, not refused.
T.test("sweep: a bad SLURM_CPUS_PER_TASK is named; a large one capped", function()
  local cmd, skip = T.lua_cmd()
  if not cmd then print("# skipped: " .. skip); return end
  local script = tmpname("slurm") .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write([[
local dlb = require "dlbench"
local ok, err = pcall(dlb.sweep, {x = {1, 2}}, function(p) return {y = p.x} end, {quiet = true, progress = false})
io.write(tostring(ok), "|", ok and tostring(err:row(2).y) or tostring(err), "\n")
]])
  f:close()
  local function run(v)
    local p = io.popen(string.format("SLURM_CPUS_PER_TASK=%s %s %q 2>&1", v, cmd, script))
    local out = p:read("*a")
    p:close()
    return out
  end
  for _, v in ipairs { "0", "x", "2.5", "-3" } do
    local out = run("'" .. v .. "'")
    assert(out:find('false|dlb.sweep: SLURM_CPUS_PER_TASK = "' .. v .. '" (the default of jobs) is not a whole number >= 1; give jobs=', 1, true),
      "SLURM_CPUS_PER_TASK=" .. v .. ": " .. out)
  end
  T.eq(run("2"), "true|2\n", "a good value")
  T.eq(run("100000"), "true|2\n", "capped at the bound")
  os.remove(script)
end)

T.done()
