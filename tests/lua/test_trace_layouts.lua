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

T.test("summary: runtime calls that queue no kernel are not launches", function()
  -- Real PyTorch 2.x traces hold cuda_runtime calls with correlation ids that launch no
  -- kernel (cudaStreamSynchronize, cudaDeviceSynchronize, cudaMemGetInfo; a
  -- cudaMemcpyAsync queues a copy): before the fix each counted as a kernel launch, its
  -- time in the mean launch call. Hand derivation (us): one launch (call 0..5, kernel at
  -- 10): 1 launch, call 5 us, latency 10 us; the sync (20 us), the memory query and the
  -- copy's call are not launches. The copy waits on its call (returned at 30, stream idle
  -- from 20): the gap 20..31 is 11 us, 10 of them waiting for the host.
  local ev = {
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}}',
    '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":10,"args":{"correlation":1,"stream":7,"device":0}}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":6,"dur":20,"args":{"correlation":2}}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaMemGetInfo","pid":1,"tid":1,"ts":26,"dur":1,"args":{"correlation":4}}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":27,"dur":3,"args":{"correlation":3}}',
    '{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":31,"dur":2,"args":{"correlation":3,"stream":7,"device":0}}',
  }
  local s = dlb.trace.summary(dlb.trace.parse('{"traceEvents": [' .. table.concat(ev, ",") .. ']}'))
  T.eq(s.launch.count, 1, "one kernel launch")
  T.near(s.launch.api, 5e-6, 1e-12, "its call")
  T.near(s.launch.latency, 10e-6, 1e-12, "call to kernel start")
  T.near(s.idle, 11e-6, 1e-12, "idle")
  T.near(s.host_idle, 10e-6, 1e-12, "the copy waited for its call")
end)

T.test("Kineto as PyTorch 1.8-1.9 wrote it: Kernel/Memcpy/Runtime, \"external id\", text tids", function()
  -- the layout of kineto's tb_plugin/test/gpu_metrics_input.json (a V100 run): categories
  -- Operator/Runtime/Kernel/Memcpy, "tid" as text ("24572", "stream 7"), the device and
  -- runtime events' op id as lowercase "external id". One step, hand derivation (us):
  -- the addmm's kernel (20) joins its op's shapes through external id 5; the copy (7) is
  -- no kernel: measured GEMM 64x512x784 = 20 us, nothing else measured.
  local ev = {
    '{"ph":"X","cat":"Operator","name":"ProfilerStep#1","pid":9,"tid":"9","ts":0,"dur":100,"args":{"External id":1}}',
    '{"ph":"X","cat":"Operator","name":"aten::addmm","pid":9,"tid":"9","ts":10,"dur":30,'
      .. '"args":{"External id":5,"Input Dims":[[512],[64,784],[784,512],[],[]]}}',
    '{"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":9,"tid":"9","ts":20,"dur":6,'
      .. '"args":{"cbid":211,"correlation":10,"external id":5,"external ts":10}}',
    '{"ph":"X","cat":"Kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":"stream 7","ts":30,"dur":20,'
      .. '"args":{"device":0,"stream":7,"correlation":10,"external id":5}}',
    '{"ph":"X","cat":"Runtime","name":"cudaMemcpyAsync","pid":9,"tid":"9","ts":60,"dur":4,'
      .. '"args":{"cbid":41,"correlation":11,"external id":6}}',
    '{"ph":"X","cat":"Memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":"stream 7","ts":66,"dur":7,'
      .. '"args":{"device":0,"stream":7,"correlation":11,"external id":6,"bytes":256}}',
  }
  local t = dlb.trace.parse('{"schemaVersion": 1, "computeProperties": [{"id": 0}], "traceEvents": ['
    .. table.concat(ev, ",") .. ']}')
  T.eq(t:row(4).external_id, 5, "\"external id\" read")
  T.eq(t:row(4).tid, "stream 7", "text tid kept")
  T.eq(t:row(2).tid, 9, "numeric text tid as a number")
  local s = dlb.trace.summary(t)
  T.eq(s.launch.count, 1, "the Runtime launch joins its Kernel; the copy's call is no launch")
  T.near(s.launch.api, 6e-6, 1e-12, "launch call")
  local gg = dlb.graph("lin18")
  local x = gg:input("x", { "b", 784 })
  gg:loss(gg:softmax_xent(gg:relu(gg:matmul(x, gg:weight("w", { 784, 512 }))), gg:input("l", { "b" }, "int32")))
  local cmp = dlb.trace.compare(t, gg:stats { b = 64 }, "V100")
  local measured, g = 0, nil
  for i = 1, cmp:count() do
    local r = cmp:row(i)
    measured = measured + r.measured
    if r.key == "gemm 64x512x784" then g = r end
  end
  assert(g, "the kernel joins the addmm's shape through \"external id\"")
  T.near(g.measured, 20e-6, 1e-12, "the GEMM's kernel")
  T.near(measured, 20e-6, 1e-12, "the copy is not a measured kernel")
end)

T.test("summary of a path: a launch whose kernel came in an earlier window still counts", function()
  -- HTA's backward_thread.json (an A100 step) writes the kernel before its
  -- cudaLaunchKernel; read in windows of 10 events, the launch and its kernel fall in
  -- different windows. Hand derivation: 1 launch, call 10 us, kernel 64,135 us after it.
  local ev = {
    '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1666149715428509,"dur":45,"args":{"correlation":2131433,"stream":7,"device":0}}',
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":3914,"tid":24922,"ts":1666149715364374,"dur":10,"args":{"correlation":2131433}}',
  }
  -- 4,000 metadata events between them (about 300 kB: more than one read of the file)
  local filler = {}
  for i = 1, 4000 do
    filler[i] = '{"name":"thread_name","ph":"M","pid":3914,"tid":' .. i .. ',"args":{"name":"thread ' .. i .. '"}}'
  end
  table.insert(ev, 2, table.concat(filler, ","))
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write('{"traceEvents": [' .. table.concat(ev, ",") .. '], "distributedInfo": {"rank": 0}}')
  f:close()
  local whole = dlb.trace.summary(dlb.trace.read(path))
  local ok, streamed = pcall(dlb.trace.summary, path, { window = 10 })
  os.remove(path)
  assert(ok, streamed)
  for _, s in ipairs { whole, streamed } do
    T.eq(s.launch and s.launch.count, 1, "one launch")
    T.near(s.launch.api, 10e-6, 1e-12, "its call")
    T.near(s.launch.latency, 64135e-6, 1e-9, "call to kernel start")
  end
end)

T.test("summary: the backward on the autograd engine's own thread is the step's backward", function()
  -- With a GPU, PyTorch's autograd engine runs the backward on a thread of its own, outside
  -- the ProfilerStep# range of the training thread (HTA's A100 sample, Kineto's V100
  -- sample): before the fix its ops belonged to no step and the step's backward read 0.
  -- Hand derivation (us, one step 0..100 on thread 1): forward = aten::linear 15 +
  -- a data thread's aten::pin_memory 5 = 20; backward (thread 2) = the evaluate_function
  -- tree 20 + an aten::sum outside any node after one (as PyTorch 1.8 ran it) 5 +
  -- torch::autograd::AccumulateGrad 4 = 29; optimizer 10; an op at 200, after the step:
  -- in no step.
  local ev = {
    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100}',
    '{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":5,"dur":15}',
    '{"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: AddmmBackward0","pid":1,"tid":2,"ts":30,"dur":20}',
    '{"ph":"X","cat":"cpu_op","name":"AddmmBackward0","pid":1,"tid":2,"ts":31,"dur":18}',
    '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":32,"dur":13}',
    '{"ph":"X","cat":"cpu_op","name":"aten::sum","pid":1,"tid":2,"ts":55,"dur":5}',
    '{"ph":"X","cat":"cpu_op","name":"torch::autograd::AccumulateGrad","pid":1,"tid":2,"ts":61,"dur":4}',
    '{"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":70,"dur":10}',
    '{"ph":"X","cat":"cpu_op","name":"aten::pin_memory","pid":1,"tid":3,"ts":85,"dur":5}',
    '{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":2,"ts":200,"dur":3}',
  }
  local t = dlb.trace.parse('{"traceEvents": [' .. table.concat(ev, ",") .. ']}')
  local s = dlb.trace.summary(t)
  T.eq(s.steps, 1, "one step")
  T.near(s.by_phase.forward, 20e-6, 1e-12, "forward")
  T.near(s.by_phase.backward, 29e-6, 1e-12, "backward, on the autograd thread")
  T.near(s.by_phase.optimizer, 10e-6, 1e-12, "optimizer")
  local kinds = {}
  for i = 1, s.by_kind:count() do kinds[s.by_kind:row(i).kind] = s.by_kind:row(i) end
  T.near(kinds["aten::mm"].time, 13e-6, 1e-12, "the backward's aten::mm is in the step")
  assert(kinds["aten::empty"] == nil, "the op after the step is in none")
  -- dlb.trace.nest places them the same (compare uses it)
  local steps = {}
  for _, e in ipairs(dlb.trace.nest(t)) do steps[e.row.name] = { e.step, e.phase } end
  T.eq(steps["aten::mm"][1], "ProfilerStep#1", "nest: the step by time")
  T.eq(steps["aten::sum"][2], "backward", "nest: the engine's op outside a node")
  T.eq(steps["aten::pin_memory"][2], "forward", "nest: another thread's op in the step")
  T.eq(steps["aten::empty"][1], nil, "nest: no step")
end)

T.test("summary: TBD's utilisations count the busy time inside the steps (review 20)", function()
  -- TBD (seed 001, section III) eq. 1: GPU compute utilisation = device active time /
  -- elapsed time over the training iterations (docs/measure.md: elapsed = the steps' time).
  -- Hand derivation (us): one step 0..100 on thread 1; kernels 10..40 (in the step) and
  -- 200..1200 (after it); an op of thread 2 at 150..250, after the step. Inside the step:
  -- device 30, host 100 (thread 1's step range). eq. 1: 30 / 100 = 0.3 (before: the whole
  -- trace's 1,030 us, 10.3 = 1,030%); eq. 3 with 2 threads: 100 / (2 x 100) = 0.5 (before:
  -- 200 / 200, clamped at 1); eq. 2 with flops 1e9 per step on V100: 1e9 / (peak x 30 us).
  local ev = {
    '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100}',
    '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":20}',
    '{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":30,"args":{"device":0,"stream":7}}',
    '{"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":2,"ts":150,"dur":100}',
    '{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":200,"dur":1000,"args":{"device":0,"stream":7}}',
  }
  local json = '{"traceEvents": [' .. table.concat(ev, ",") .. ']}'
  local dir = T.tmpdir()
  local path = dir .. "/util.json"
  local f = assert(io.open(path, "w"))
  f:write(json)
  f:close()
  local v = dlb.hw.get("V100")
  for _, s in ipairs { dlb.trace.summary(dlb.trace.parse(json), { hw = "V100", flops = 1e9 }),
      dlb.trace.summary(path, { hw = "V100", flops = 1e9, window = 2 }) } do
    T.near(s.gpu_util, 0.3, 1e-12, "eq. 1 inside the step")
    T.near(s.cpu_util, 0.5, 1e-12, "eq. 3 inside the step")
    T.near(s.fp32_util, 1e9 / (v.peak.fp32 * 30e-6), 1e-9, "eq. 2 over the active time in the step")
    T.near(s.device_busy[0], 1030e-6, 1e-12, "device busy over the whole trace")
    T.near(s.device_busy_in_steps[0], 30e-6, 1e-12, "and inside the steps")
  end
  os.remove(path); os.remove(dir)
  -- a step of zero duration: no utilisation (eq. 2 on a CPU trace was inf)
  local z = dlb.trace.summary(dlb.trace.parse('[{"ph":"X","cat":"cpu_op","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":0}]'),
    { hw = "Xeon-E5-2680", flops = 1e9 })
  T.eq(z.fp32_util, nil, "no FP32 utilisation over a zero step")
end)

T.done()
