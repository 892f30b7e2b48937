-- test_sweep.lua — ranges, ParaDnn's spaces, sweeps (serial, in worker processes, with
-- failures, crashes, timeouts, shards and checkpoints) and the worker-pipe serialization.
local T = require "harness"
local dlb = require "dlbench"
local sweep = require "dlbench.sweep"

local tmpdir = os.getenv("TMPDIR") or "/tmp"
local function tmpname(tag)
  return string.format("%s/dlb_test_sweep_%s_%d_%d.csv", tmpdir, tag, os.time(), math.random(1, 1e9))
end
local function readall(p) local f = io.open(p, "rb"); if not f then return nil end; local s = f:read("*a"); f:close(); return s end
local function same(a, b, what, subtype)
  T.eq(a:count(), b:count(), what .. " count")
  T.eq(table.concat(a:columns(), ","), table.concat(b:columns(), ","), what .. " columns")
  for i = 1, a:count() do
    local x, y = a:row(i), b:row(i)
    for _, c in ipairs(a:columns()) do
      local u, v = x[c], y[c]
      if not (u == v or (u ~= u and v ~= v)) or (subtype and math.type and math.type(u) ~= math.type(v)) then
        error(string.format("%s: row %d column %s: %s vs %s", what, i, c, tostring(u), tostring(v)), 2)
      end
      if u == 0 and v == 0 and 1 / u ~= 1 / v then
        error(string.format("%s: row %d column %s: signed zeros differ", what, i, c), 2)
      end
    end
  end
end
local quiet = { quiet = true, progress = false }
local function with(o, extra) local r = {}; for k, v in pairs(o) do r[k] = v end; for k, v in pairs(extra) do r[k] = v end; return r end

T.test("range: multiplying and adding steps", function()
  T.eq(table.concat(dlb.range(32, 8192, "x2"), " "), "32 64 128 256 512 1024 2048 4096 8192", "x2")
  T.eq(table.concat(dlb.range(1, 13, "+4"), " "), "1 5 9 13", "+4")
  -- ParaDnn's vocabulary: x4 from 2 never reaches 1024 (seeds/004 Table 2(c))
  T.eq(table.concat(dlb.range(2, 1024, "x4"), " "), "2 8 32 128 512", "x4 bound")
  T.eq(#dlb.range(0, 1, 0.1), 11, "0.1 steps reach 1 despite rounding")
  T.eq(#dlb.range(5, 5, "*3"), 1, "one value")
  T.checkerr("step must be", dlb.range, 1, 10, "y2")
  T.checkerr("must be a finite number > 1", dlb.range, 1, 10, "x1")
  T.checkerr("below lo", dlb.range, 10, 1, "+1")
  T.checkerr("lo > 0", dlb.range, 0, 10, "x2")
end)

T.test("paradnn: Table 2 spaces", function()
  local function size(s) local n = 1; for _, v in pairs(s) do n = n * #v end; return n end
  local fc, cnn, rnn = dlb.paradnn.space("fc"), dlb.paradnn.space("cnn"), dlb.paradnn.space("rnn")
  -- seeds/004 Table 2: FC 6 layers x 9 nodes x 4 inputs x 5 outputs x 9 batches
  T.eq(size(fc), 9720, "fc models")
  T.eq(table.concat(fc.layers, " "), "4 8 16 32 64 128", "fc layers")
  T.eq(table.concat(fc.input, " "), "2000 4000 6000 8000", "fc input")
  T.eq(table.concat(fc.output, " "), "200 400 600 800 1000", "fc output")
  T.eq(fc.batch[#fc.batch], 16384, "fc batch max")
  T.eq(size(cnn), 8 * 3 * 3 * 3 * 5, "cnn models")
  T.eq(table.concat(cnn.filters, " "), "16 32 64", "cnn filters")
  T.eq(table.concat(cnn.image, " "), "200 250 300", "cnn image")
  T.eq(size(rnn), 4 * 3 * 3 * 5 * 4, "rnn models")
  T.eq(table.concat(rnn.batch, " "), "16 64 256 1024", "rnn batch")
  T.eq(table.concat(rnn.embed, " "), "100 500 900", "rnn embed")
  local s = dlb.paradnn.space("rnn", { with = { cell = { "rnn", "lstm" } } })
  T.eq(size(s), 1440, "with cell")
  T.checkerr("kind must be", dlb.paradnn.space, "mlp")
end)

T.test("sweep: order, params in rows, fn results", function()
  local calls = 0
  local t = dlb.sweep({ b = { 1, 2 }, a = { 10, 20, 30 } }, function(p)
    calls = calls + 1
    p.a = 0 -- fn gets its own copy
    return { prod = p.b * 7 }
  end, with(quiet, { jobs = 1 }))
  T.eq(calls, 6, "calls")
  T.eq(t:count(), 6, "count")
  T.eq(table.concat(t:columns(), ","), "a,b,prod", "columns")
  -- sorted names, last fastest: a=10 b=1, a=10 b=2, a=20 b=1, ...
  T.eq(table.concat(t:column("a"), " "), "10 10 20 20 30 30", "a")
  T.eq(table.concat(t:column("b"), " "), "1 2 1 2 1 2", "b")
  local o = dlb.sweep({ b = { 1, 2 }, a = { 10, 20 }, c = 5 }, function() return nil end,
    with(quiet, { jobs = 1, order = { "b" } }))
  T.eq(table.concat(o:columns(), ","), "b,a,c", "opts.order then the rest sorted")
  T.eq(table.concat(o:column("a"), " "), "10 20 10 20", "a fastest")
  T.eq(o:row(1).c, 5, "scalar parameter")
  T.checkerr("unknown option 'job'", dlb.sweep, { a = { 1 } }, function() end, { job = 2 })
  T.checkerr("'a' has no values", dlb.sweep, { a = {} }, function() end)
  T.checkerr("order names 'z'", dlb.sweep, { a = { 1 } }, function() end, { order = { "z" } })
  T.checkerr("fn must be a function", dlb.sweep, { a = { 1 } }, 3)
end)

T.test("sweep: failures become rows; strict raises", function()
  local t = dlb.sweep({ n = { 1, 2, 3, 4 } }, function(p)
    if p.n == 2 then error("too big for memory", 0) end
    if p.n == 3 then return 42 end
    return { v = p.n }
  end, with(quiet, { jobs = 1 }))
  T.eq(t:count(), 4, "all configs present")
  T.eq(t:row(2)._error, "too big for memory", "message")
  assert(t:row(3)._error:find("fn returned a number"), t:row(3)._error)
  T.eq(t:failures():count(), 2, "failures")
  T.eq(t:ok():count(), 2, "ok")
  T.eq(t:row(4).v, 4, "later configs still run")
  T.checkerr("config {n=2} failed: too big", dlb.sweep, { n = { 1, 2, 3 } }, function(p)
    if p.n == 2 then error("too big", 0) end
  end, with(quiet, { jobs = 1, strict = true }))
  local r = dlb.sweep({ n = { 1 } }, function() return { n = 5 } end, with(quiet, { jobs = 1 }))
  assert(r:row(1)._error:find("swept parameter"), "overriding a parameter fails")
  r = dlb.sweep({ n = { 1 } }, function() return { x = {} } end, with(quiet, { jobs = 1 }))
  assert(r:row(1)._error:find("holding a table"), "a table value fails")
  T.checkerr("interrupted!", dlb.sweep, { n = { 1, 2 } }, function() error("interrupted!") end,
    with(quiet, { jobs = 1 }))
end)

local function fnmix(p)
  if p.k == 5 then error("config five fails", 0) end
  return { third = p.k / 3, big = 1e300 * p.k, tiny = 5e-324 * p.k, s = "k=" .. p.k .. ",\"q\"\n",
    even = p.k % 2 == 0, inf = p.k == 7 and math.huge or -math.huge, nan = p.k == 8 and 0 / 0 or 1,
    int = 2 ^ 53 - p.k, negzero = -0.0 * p.k, count = p.k * 3, maybe = p.k % 3 == 0 and "third" or nil }
end

T.test("sweep: jobs=2 returns the serial table, bit for bit", function()
  local space = { k = dlb.range(1, 40, "+1"), m = { "a", "b" } }
  local s = dlb.sweep(space, fnmix, with(quiet, { jobs = 1 }))
  local p = dlb.sweep(space, fnmix, with(quiet, { jobs = 2 }))
  same(s, p, "serial vs parallel", true)
  T.eq(p:failures():count(), 2, "failures in workers")
  T.eq(p:row(1).third, 1 / 3, "exact float")
  T.eq(p:row(1).tiny, 5e-324, "denormal")
  local p3 = dlb.sweep(space, fnmix, with(quiet, { jobs = 3 }))
  same(s, p3, "three workers", true)
end)

T.test("sweep: a crashing or killed worker fails its config, not the sweep", function()
  local t = dlb.sweep({ k = dlb.range(1, 12, "+1") }, function(p)
    if p.k == 4 then os.exit(7) end
    if p.k == 9 then os.execute("kill -9 $PPID") end -- the shell's parent: this worker
    return { sq = p.k * p.k }
  end, with(quiet, { jobs = 2 }))
  T.eq(t:count(), 12, "every config has a row")
  assert(t:row(4)._error and t:row(4)._error:find("exited with status 7"), tostring(t:row(4)._error))
  assert(t:row(9)._error and t:row(9)._error:find("signal 9"), tostring(t:row(9)._error))
  for _, k in ipairs { 1, 2, 3, 5, 6, 7, 8, 10, 11, 12 } do T.eq(t:row(k).sq, k * k, "k=" .. k) end
  -- big chunks with results in batches: a crash leaves several configs unreported; they
  -- run again one at a time, so the blame still lands on the right config
  local b = dlb.sweep({ k = dlb.range(1, 400, "+1") }, function(p)
    if p.k == 37 then os.execute("kill -9 $PPID") end
    if p.k == 250 then os.exit(5) end
    return { sq = p.k * p.k }
  end, with(quiet, { jobs = 2 }))
  T.eq(b:failures():count(), 2, "exactly the two culprits fail")
  assert(b:row(37)._error:find("signal 9"), b:row(37)._error)
  assert(b:row(250)._error:find("status 5"), b:row(250)._error)
  T.eq(b:row(38).sq, 38 * 38, "its neighbours are fine")
  T.eq(b:row(400).sq, 160000, "the last config")
end)

T.test("sweep: a worker that garbles or tears its messages fails that config, not the sweep", function()
  -- fn finds its worker's channel to the parent (the highest-numbered socket of the
  -- worker, the shell's parent) and writes a record whose row does not decode, then hangs:
  -- the parent kills the worker, reruns its unanswered configs one at a time and blames
  -- the one that did it; timeout is only a safety net against a hang
  local function garble(tag, die)
    local p = io.popen("for f in /proc/$PPID/fd/*; do l=$(readlink $f); " ..
      "case $l in socket:*) echo ${f##*/};; esac; done")
    local best = -1
    for line in p:lines() do local n = tonumber(line); if n and n > best then best = n end end
    p:close()
    dlb.core.proc_write(best, tag)
    if die then os.execute("kill -9 $PPID") end -- a torn record: the worker dies mid-message
    while true do end
  end
  local t0 = dlb.core.sys_now()
  local t = dlb.sweep({ k = dlb.range(1, 8, "+1") }, function(p)
    if p.k == 3 then garble("R 3 5\nxxxxx") end
    if p.k == 5 then garble("R 5 500\nabc", true) end
    if p.k == 6 then garble("not a header at all, and long enough to be sure of it.......................\n") end
    return { v = p.k }
  end, with(quiet, { jobs = 2, timeout = 10 }))
  assert(dlb.core.sys_now() - t0 < 10, "no hang")
  T.eq(t:failures():count(), 3, "three culprits")
  assert(t:row(5)._error:find("signal 9"), t:row(5)._error)
  assert(t:row(3)._error:find("sent a malformed row: malformed row at byte"), t:row(3)._error)
  assert(t:row(6)._error:find("malformed record header") or t:row(6)._error:find("out of turn"), t:row(6)._error)
  for _, k in ipairs { 1, 2, 4, 7, 8 } do T.eq(t:row(k).v, k, "k=" .. k) end
end)

-- A worker that never returns, waiting without burning CPU (a poll on no descriptors, as the
-- slow rows below): the parent times a worker by the clock and kills it with SIGKILL
-- (lua/dlbench/sweep_workers.lua), whatever it is doing. A busy loop here spun ~1.4 CPU-s a
-- run until the two timeouts; the in-process timeouts (jobs = 1, a count hook that sees
-- only Lua code) keep their busy loops (test_sweep_qa.lua).
local function hang() while true do dlb.core._proc_poll({}, 1) end end

T.test("sweep: timeout kills a hung worker", function()
  local t0 = dlb.core.sys_now()
  local t = dlb.sweep({ k = { 1, 2, 3 } }, function(p)
    if p.k == 2 then hang() end
    return { v = p.k }
  end, with(quiet, { jobs = 2, timeout = 0.3 }))
  assert(t:row(2)._error:find("timed out"), t:row(2)._error)
  T.eq(t:row(3).v, 3, "others run")
  assert(dlb.core.sys_now() - t0 < 5, "no hang")
  -- inside a big chunk: killed, its chunk rerun one by one, the hung config times out alone
  local b = dlb.sweep({ k = dlb.range(1, 60, "+1") }, function(p)
    if p.k == 17 then hang() end
    return { v = p.k }
  end, with(quiet, { jobs = 2, timeout = 0.2 }))
  T.eq(b:failures():count(), 1, "one failure")
  assert(b:row(17)._error:find("timed out"), tostring(b:row(17)._error))
  T.eq(b:row(18).v, 18, "neighbour")
end)

T.test("sweep: shards concatenate to the whole", function()
  local space = { a = { 1, 2, 3 }, b = { 1, 2, 3, 4, 5 } }
  local f = function(p) return { v = p.a * 10 + p.b } end
  local whole = dlb.sweep(space, f, with(quiet, { jobs = 1 }))
  local parts = {}
  for i = 1, 4 do parts[i] = dlb.sweep(space, f, with(quiet, { jobs = 1, shard = i .. "/4" })) end
  T.eq(parts[1]:count() + parts[2]:count() + parts[3]:count() + parts[4]:count(), 15, "sizes")
  same(whole, dlb.table.concat(parts[1], parts[2], parts[3], parts[4]), "concat of shards")
  T.checkerr("out of range", dlb.sweep, space, f, with(quiet, { shard = "5/4" }))
  T.checkerr("shard must be", dlb.sweep, space, f, with(quiet, { shard = "1-4" }))
end)

T.test("sweep: checkpoint resumes and survives an interruption", function()
  local path = tmpname("ckpt")
  local space = { a = { 1, 2, 3 }, b = { "x", "y" } }
  local stop_at, calls = 4, 0
  local f = function(p)
    calls = calls + 1
    if calls == stop_at then error("interrupted!", 0) end -- as the host's Ctrl-C
    if p.a == 2 and p.b == "x" and stop_at then error("flaky", 0) end
    return { v = p.a * 1.1, s = p.b .. "!" }
  end
  T.checkerr("interrupted!", dlb.sweep, space, f, with(quiet, { jobs = 1, checkpoint = path }))
  local text = readall(path)
  local saved = dlb.read_csv(path)
  T.eq(saved:count(), 3, "rows finished before the interruption are on disk")
  T.eq(saved:row(3)._error, "flaky", "failed rows are recorded")
  assert(text:sub(-1) == "\n", "no torn line")
  -- a torn last line (a crash mid-write) is dropped and the file repaired
  local fh = io.open(path, "ab"); fh:write("3,y,3.3"); fh:close()
  stop_at, calls = nil, 0
  local t = dlb.sweep(space, f, with(quiet, { jobs = 1, checkpoint = path }))
  T.eq(calls, 4, "only unfinished configs (and the failed one) run again")
  T.eq(t:count(), 6, "whole table")
  T.eq(t:failures():count(), 0, "retried failure succeeded")
  T.near(t:row(1).v, 1.1, 0, "value from the checkpoint, exact")
  T.eq(t:row(2).s, "y!", "strings from the checkpoint")
  -- torn inside a quoted line break: the file ends with a newline, the row does not
  local before = readall(path)
  fh = io.open(path, "ab"); fh:write('3,y,3.3,"half\n'); fh:close()
  calls = 0
  dlb.sweep(space, f, with(quiet, { jobs = 1, checkpoint = path }))
  T.eq(calls, 0, "nothing to rerun after dropping the torn row")
  T.eq(readall(path), before, "file repaired")
  calls = 0
  local again = dlb.sweep(space, f, with(quiet, { jobs = 2, checkpoint = path }))
  T.eq(calls, 0, "nothing left to run")
  same(t, again, "resumed table")
  T.checkerr("has no column 'c'", dlb.sweep, { c = { 1 } }, f, with(quiet, { checkpoint = path }))
  os.remove(path)
  -- parallel with a checkpoint
  local p2 = tmpname("ckpt2")
  local pt = dlb.sweep({ k = dlb.range(1, 20, "+1") }, function(p) return { v = p.k / 7 } end,
    with(quiet, { jobs = 2, checkpoint = p2 }))
  local back = dlb.read_csv(p2)
  T.eq(back:count(), 20, "all rows appended")
  T.eq(back:sort("k"):row(20).v, 20 / 7, "exact numbers in the checkpoint")
  same(pt, dlb.sweep({ k = dlb.range(1, 20, "+1") }, function() error("must not run") end,
    with(quiet, { jobs = 2, checkpoint = p2 })), "resume from a parallel checkpoint")
  os.remove(p2)
end)

T.test("sweep: a worker interrupted by Ctrl-C stops the sweep with rows on disk", function()
  local path = tmpname("int")
  T.checkerr("interrupted!", dlb.sweep, { k = dlb.range(1, 30, "+1") }, function(p)
    if p.k == 12 then io.popen("kill -INT $PPID"):close() end -- (system() would ignore SIGINT)
    return { v = p.k }
  end, with(quiet, { jobs = 2, checkpoint = path }))
  local saved = dlb.read_csv(path)
  assert(saved:count() >= 1 and saved:count() < 30, "some rows saved: " .. saved:count())
  os.remove(path)
end)

T.test("sweep: Ctrl-C on a running dlbench leaves finished rows and no workers", function()
  local src = debug.getinfo(1, "S").source
  local root = ((src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or ".") .. "/../.."
  local exe = root .. "/build/bin/dlbench"
  if not io.open(exe, "rb") or not os.execute("command -v bash >/dev/null 2>&1 && command -v ps >/dev/null 2>&1") then
    print("# skipped: needs build/bin/dlbench, bash and ps"); return
  end
  local path, script = tmpname("ctrlc"), tmpname("ctrlc") .. ".lua"
  local f = io.open(script, "w")
  f:write(string.format([[
local dlb = require "dlbench"
dlb.sweep({k = dlb.range(1, 2000, "+1")}, function(p)
  dlb.core._proc_poll({}, 0.005)   -- a slow row that burns no CPU
  return {v = p.k / 3}
end, {jobs = 2, checkpoint = %q, quiet = true, progress = false})
]], path))
  f:close()
  -- job control gives the run its own process group, so the signal reaches the workers
  -- as a terminal's Ctrl-C would
  local p = io.popen(string.format("env -u DLB_BACKEND bash -c 'set -m; %q run %q 2>/dev/null & pid=$!; "
    -- the signal comes once rows are on disk (a busy machine may take seconds to start)
    .. "for i in $(seq 300); do [ $(cat %q 2>/dev/null | wc -l) -ge 3 ] && break; sleep 0.1; done; sleep 0.3; "
    .. "kill -INT -$pid; wait $pid; echo rc=$?; sleep 0.2; echo left=$(ps -o pid= -g $pid | wc -l)' 2>/dev/null",
    exe, script, path))
  local out = p:read("*a")
  p:close()
  T.eq(out:match("rc=(%d+)"), "130", "exit status of an interrupted run: " .. out)
  T.eq(out:match("left=(%d+)"), "0", "no worker survives")
  local text = readall(path)
  assert(text and text:sub(-1) == "\n", "no torn last line")
  local saved = dlb.read_csv(path)
  assert(saved:count() > 0 and saved:count() < 2000, "finished rows on disk: " .. saved:count())
  local calls = 0
  local t = dlb.sweep({ k = dlb.range(1, 2000, "+1") }, function(q) calls = calls + 1; return { v = q.k / 3 } end,
    with(quiet, { jobs = 1, checkpoint = path }))
  T.eq(calls, 2000 - saved:count(), "the rerun skips them")
  T.eq(t:row(1).v, 1 / 3, "exact")
  os.remove(path); os.remove(script)
end)

T.test("sweep: Slurm array tasks pick their shard; the progress bar goes to stderr", function()
  local src = debug.getinfo(1, "S").source
  local root = ((src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or ".") .. "/../.."
  local exe = root .. "/build/bin/dlbench"
  if not io.open(exe, "rb") then print("# skipped: needs build/bin/dlbench"); return end
  local code = [[local t = dlb.sweep({a = {1, 2, 3}, b = {1, 2, 3}}, function(p) return {v = p.a * 10 + p.b} end,
    {jobs = 1, progress = PROGRESS}) io.write(table.concat(t:column("v"), " "))]]
  local function run(env, progress)
    local p = io.popen(string.format("env -u DLB_BACKEND %s %q -e %q 2>&1", env, exe,
      (code:gsub("PROGRESS", progress))))
    local out = p:read("*a")
    p:close()
    return out
  end
  -- 9 configs in 3 tasks of an array --array=5-7: task 6 is the second slice, configs 4-6
  local out = run("SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=5", "false")
  assert(out:find("Slurm shard 2/3: configs 4%-6 of 9"), out)
  assert(out:find("21 22 23$"), out)
  local bar = run("", "true")
  assert(bar:find("\r.*9/9") and bar:find("%] 9/9"), "bar: " .. bar)
  T.eq(run("", "nil"):find("\r", 1, true), nil, "silent when stderr is not a terminal")
end)

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end
local function unhex(h) return (h:gsub("%x%x", function(x) return string.char(tonumber(x, 16)) end)) end

T.test("serialization: exact round trip, malformed input is an error", function()
  local row = { a = 1 / 3, b = "x:1\n\0y", c = true, d = false, e = -0.0, f = 1e308, g = math.huge, h = 2 ^ 60,
    i = -math.huge, j = 5e-324, k = "", l = 2 ^ 53 + 2 }
  local back = assert(sweep.decode_row(sweep.encode_row(row)))
  for k, v in pairs(row) do T.eq(back[k], v, k) end
  for k in pairs(back) do assert(row[k] ~= nil, "extra column " .. k) end
  T.eq(1 / back.e, -math.huge, "-0 keeps its sign")
  local n = assert(sweep.decode_row(sweep.encode_row { x = 0 / 0 }))
  assert(n.x ~= n.x, "NaN")
  T.eq(next(assert(sweep.decode_row(sweep.encode_row {}))), nil, "an empty row")
  if math.type then -- Lua 5.4: the integer subtype survives (an integer past 2^53 exactly)
    local r = assert(sweep.decode_row(sweep.encode_row { i = math.maxinteger, j = -7, f = 3.0 }))
    T.eq(math.type(r.i), "integer", "integer"); T.eq(r.i, math.maxinteger, "maxinteger")
    T.eq(r.j, -7, "negative"); T.eq(math.type(r.f), "float", "float stays float")
  end
  T.checkerr("holds a table", sweep.encode_row, { a = {} })
  T.checkerr("key", sweep.encode_row, { [1] = 2 })
  -- wide and long rows (past the codecs' fixed scratch: 64 columns, 1 kB), in a stream
  local wide, cols, index, dcols = {}, {}, {}, {}
  for i = 1, 150 do wide["c" .. i] = i % 3 == 0 and string.rep("z", i * 10) or i / 7 end
  for pass = 1, 2 do
    local got = assert(dlb.core.proc_decode_row(dlb.core.proc_encode_row(wide, cols, index), dcols))
    for k, v in pairs(wide) do T.eq(got[k], v, "wide " .. k .. " pass " .. pass) end
  end
  T.eq(#dcols, 150, "names once")
end)

T.test("serialization: the byte layout, the same under both backends", function()
  -- host/lproc.c's layout: u32 new names, (u32 len, name) each, u32 column count, a tag per
  -- column, 8-byte little-endian IEEE words, (u32 len, bytes) per string. 1.5 is
  -- 0x3FF8000000000000 and 2.5 is 0x4004000000000000 (IEEE 754 binary64).
  local cols, index = { "a", "b", "c", "d", "e" }, { a = 1, b = 2, c = 3, d = 4, e = 5 }
  local s = dlb.core.proc_encode_row({ a = 1.5, b = "hi", c = true, d = false }, cols, index)
  T.eq(hex(s), "00000000" .. "05000000" .. "647374662d" .. "000000000000f83f" .. "02000000" .. "6869", "known columns")
  T.eq(#cols, 5, "no new names")
  T.eq(hex(sweep.encode_row { x = 2.5 }), "01000000" .. "01000000" .. "78" .. "01000000" .. "64" .. "0000000000000440", "a new name")
  -- a stream: names travel once, absent columns are tagged, new ones are appended
  local ec, ei, dc = {}, {}, {}
  local first = dlb.core.proc_encode_row({ u = 1.25, v = "s" }, ec, ei)
  local second = dlb.core.proc_encode_row({ v = "t", u = 2.25 }, ec, ei)
  local third = dlb.core.proc_encode_row({ u = 3.25, w = true }, ec, ei)
  T.eq(#second, 4 + 4 + 2 + 8 + 4 + 1, "the second row carries no names")
  local r1 = assert(dlb.core.proc_decode_row(first, dc))
  local r2 = assert(dlb.core.proc_decode_row(second, dc))
  local r3 = assert(dlb.core.proc_decode_row(third, dc))
  T.eq(r1.u .. r1.v .. r2.u .. r2.v .. r3.u .. tostring(r3.w) .. tostring(r3.v), "1.25s2.25t3.25truenil", "decoded stream")
  T.eq(table.concat(dc, ","), table.concat(ec, ","), "both sides know the same names")
  -- a record inside a larger buffer (pos, len), as the parent decodes them
  local buf = "R 1 " .. #second .. "\n" .. second .. "junk"
  T.eq(assert(dlb.core.proc_decode_row(buf, { ec[1], ec[2] }, 6 + #tostring(#second), #second)).v, "t", "decode in place")
  -- exact messages, the same from C and from the FFI
  local bad = {
    { "", "malformed row at byte 1: truncated count of new names" },
    { "01000000" .. "05000000" .. "6162", "malformed row at byte 9: truncated name" },
    { "00000000" .. "01000000", "malformed row at byte 5: column count differs from the names sent" },
    { "01000000" .. "01000000" .. "78" .. "01000000" .. "7a", "malformed row at byte 14: unknown tag" },
    { "01000000" .. "01000000" .. "78" .. "01000000" .. "64" .. "0000", "malformed row at byte 15: truncated numbers" },
    { "01000000" .. "01000000" .. "78" .. "01000000" .. "73" .. "09000000" .. "6869", "malformed row at byte 19: truncated string" },
    { "01000000" .. "01000000" .. "78" .. "01000000" .. "74" .. "00", "malformed row at byte 15: bytes after the row" },
  }
  for _, c in ipairs(bad) do
    local before = {}
    local r, msg = dlb.core.proc_decode_row(unhex(c[1]), before)
    T.eq(r, nil, c[2]); T.eq(msg, c[2], "message")
    T.eq(#before, 0, "names unchanged after a malformed row: " .. c[2])
  end
  -- encode errors leave the sender's names as they were
  local sc, si = { "a" }, { a = 1 }
  T.checkerr("holds a function", dlb.core.proc_encode_row, { b = 1, c = print }, sc, si)
  T.eq(#sc, 1, "cols unchanged"); T.eq(si.b, nil, "index unchanged")
  -- an index that knows a name its cols lacks would drop the column: an error instead
  T.checkerr("cols lacks", dlb.core.proc_encode_row, { a = 1, b = 2 }, { "a" }, { a = 1, b = 2 })
end)

T.test("serialization: fuzz: truncated, flipped and random bytes never crash", function()
  math.randomseed(7)
  local base = sweep.encode_row { a = 1 / 3, b = "text\0", c = true, d = -2.5e-300, e = false, f = "" }
  local function try(s)
    local cols = { "x" }
    local ok, r, msg = pcall(dlb.core.proc_decode_row, s, cols)
    assert(ok, "decode raised: " .. tostring(r))
    if r == nil then
      assert(type(msg) == "string" and msg:find("^malformed row at byte %d+: "), tostring(msg))
      T.eq(#cols, 1, "rollback")
    else
      assert(type(r) == "table")
    end
    return r
  end
  for cut = 0, #base - 1 do T.eq(try(base:sub(1, cut)), nil, "truncated at " .. cut) end
  for _ = 1, 3000 do
    local s = base
    local kind = math.random(3)
    if kind == 1 then -- flip a byte
      local i = math.random(#s)
      s = s:sub(1, i - 1) .. string.char(math.random(0, 255)) .. s:sub(i + 1)
    elseif kind == 2 then -- insert or delete bytes
      local i = math.random(#s)
      if math.random(2) == 1 then s = s:sub(1, i - 1) .. s:sub(i + math.random(4))
      else s = s:sub(1, i) .. string.char(math.random(0, 255), math.random(0, 255)) .. s:sub(i + 1) end
    else -- random bytes
      local t = {}
      for j = 1, math.random(0, 40) do t[j] = string.char(math.random(0, 255)) end
      s = table.concat(t)
    end
    try(s)
  end
end)

T.test("sweep: runs under the generational collector and gives the caller's mode back", function()
  if not pcall(collectgarbage, "incremental") then return end -- LuaJIT: one collector
  local seen
  local t = dlb.sweep({ a = { 1, 2 } }, function(p)
    seen = collectgarbage("generational") -- the previous mode: the sweep's
    return { y = p.a }
  end, { jobs = 1, quiet = true, progress = false })
  T.eq(t:count(), 2, "rows")
  T.eq(seen, "generational", "the mode inside the sweep")
  T.eq(collectgarbage("incremental"), "incremental", "the caller's mode after it")
  local f = dlb.sweep({ a = { 1 } }, function() error("boom") end,
    { jobs = 1, quiet = true, progress = false })
  T.eq(f:failures():count(), 1, "the failing configuration is recorded")
  T.eq(collectgarbage("incremental"), "incremental", "the caller's mode after a failing fn")
end)

T.done()
