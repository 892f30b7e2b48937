-- test_trace_layouts.lua — dlb.trace.read reads every top-level layout PyTorch's profiler
-- writes (PyTorch 1.13 to 2.x: the bare array, {"traceEvents"}, Kineto's object with
-- schemaVersion / deviceProperties / distributedInfo before the events and traceName /
-- displayTimeUnit / baseTimeNanoseconds / an INFO array of strings after them, keys in
-- any order), plain and gzip'd (issue [19], deliverable 4). The fixtures and their
-- reference totals come from tests/fixtures/make_kineto_layouts.py, which reads each file
-- back with Python's json module: the event count, the kernel count and time, and the
-- aten:: op count and time must equal it exactly (the sums run in file order in both).
local T = require "harness"
local dlb = require "dlbench"

local src = debug.getinfo(1, "S").source
local root = ((src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or ".") .. "/../.."
local dir = root .. "/tests/fixtures/traces/kineto/"

local ref = dlb.read_csv(dir .. "reference.csv")
T.test("the reference lists every layout", function()
  T.eq(ref:count(), 8, "eight files")
end)

for i = 1, ref:count() do
  local r = ref:row(i)
  T.test("layout " .. r.file, function()
    local t = dlb.trace.read(dir .. r.file)
    T.eq(t:count(), r.events, "events")
    local nk, k, na, a = 0, 0, 0, 0
    for j = 1, t:count() do
      local e = t:row(j)
      if e.ph == "X" and e.cat == "kernel" then nk = nk + 1; k = k + e.dur end
      if e.ph == "X" and type(e.name) == "string" and e.name:sub(1, 6) == "aten::" then
        na = na + 1; a = a + e.dur
      end
    end
    T.eq(nk, r.kernels, "kernels")
    T.eq(string.format("%.17g", k), string.format("%.17g", r.kernel_us), "kernel time, exactly")
    T.eq(na, r.aten_ops, "aten:: ops")
    T.eq(string.format("%.17g", a), string.format("%.17g", r.aten_us), "aten:: time, exactly")
  end)
end

T.test("what follows traceEvents holds no events", function()
  -- before the fix, the INFO array's strings after the events were read as events
  local t = dlb.trace.parse('{"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 2}], '
    .. '"INFO": ["a", "b"], "more": [{"ph": "X"}], "baseTimeNanoseconds": 1}')
  T.eq(t:count(), 1, "one event")
  T.checkerr("traceEvents appears twice", dlb.trace.parse,
    '{"traceEvents": [], "x": [1], "traceEvents": []}')
end)

T.test("summary: idle gaps per stream, the host's share of them, launch overhead", function()
  -- hand derivation (microseconds): kernel 1 runs 10..20; launch 2 returns at 30, so
  -- kernel 2 (32..36) follows a 12 us gap of which 10 us wait for the host; launch 3
  -- returned at 8, long before kernel 3 (40..41) follows a 4 us gap: not the host's.
  -- Launch calls 5, 5 and 2 us (mean 4); call start to kernel start 10, 7, 34 (median 10).
  local ev = {
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":6,"dur":2,"args":{"correlation":3}}',
    '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":10,"args":{"correlation":1,"stream":7,"device":0}}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":25,"dur":5,"args":{"correlation":2}}',
    '{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":32,"dur":4,"args":{"correlation":2,"stream":7,"device":0}}',
    '{"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":40,"dur":1,"args":{"correlation":3,"stream":7,"device":0}}',
  }
  local s = dlb.trace.summary(dlb.trace.parse('{"traceEvents": [' .. table.concat(ev, ",") .. '], "INFO": ["x"]}'))
  T.eq(s.streams:count(), 1, "one stream")
  T.near(s.idle, 16e-6, 1e-12, "idle between kernels")
  T.near(s.host_idle, 10e-6, 1e-12, "waiting for the host")
  T.near(s.host_bound, 10 / 16, 1e-12, "host-bound share")
  T.eq(s.launch.count, 3, "launches")
  T.near(s.launch.api, 4e-6, 1e-12, "launch call, mean")
  T.near(s.launch.latency, 10e-6, 1e-12, "call to kernel start, median")
  T.eq(s.streams:row(1).ops, 3, "ops on the stream")
  assert(tostring(s):find("waiting for the host", 1, true), "printed")
end)

T.done()
