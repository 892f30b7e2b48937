-- dlbench.trace — profiler traces in (docs/measure.md): dlb.trace.read(path) parses a
-- PyTorch profiler / Kineto Chrome trace-event file (object or bare-array form, plain or
-- gzip) in C as a stream (graphs/io/trace.c) into a dlb.table of events; dlb.trace.summary(t)
-- gives time by op kind and by phase, steps, device busy time and TBD's utilisations
-- (seed 001 eqs. 1-3); dlb.trace.compare(t, stats, hw) joins measured ops with the
-- predicted ops of a matching graph by kind and shape.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local T = require "dlbench.table"

local M = {}

-- The numeric and text columns of a trace handle: the C enums DLB_TRACE_* (graphs/io/dlb_trace.h,
-- through dlbench.desc), in their order.
local desc = require "dlbench.desc"
local NUMBERS = desc.block("DLB_TRACE_TS", "DLB_TRACE_")
local STRINGS = desc.block("DLB_TRACE_NAME", "DLB_TRACE_")
-- The table's columns, in the order a reader scans an event (deliberately not the enums'):
-- who and what first, then time, then where, then the costs.
M.columns = { "name", "cat", "ph", "ts", "dur", "pid", "tid", "device", "stream", "correlation",
  "external_id", "sequence", "flops", "shapes", "types" }

-- The events of a parsed trace handle (or of its batch) as rows: fresh tables of numbers
-- (microseconds, as written) and strings over M.columns; the count and JSON bytes read.
local function rows_of(h)
  local n, bytes = core.trace_count(h)
  local cols = {}
  for i, c in ipairs(NUMBERS) do cols[c] = core.trace_numbers(h, i - 1) end
  for i, c in ipairs(STRINGS) do cols[c] = core.trace_strings(h, i - 1) end
  -- pid/tid are numbers in Kineto, text in the legacy exporter ("CPU functions")
  for _, c in ipairs { "pid", "tid" } do
    local a = cols[c]
    for i = 1, n do
      local v = a[i]
      if v ~= nil then a[i] = tonumber(v) or v end
    end
  end
  local name, cat, ph, ts, dur, pid, tid = cols.name, cols.cat, cols.ph, cols.ts, cols.dur, cols.pid, cols.tid
  local dv, st, co, ex, sq, fl, sh, ty = cols.device, cols.stream, cols.correlation, cols.external_id,
    cols.sequence, cols.flops, cols.shapes, cols.types
  local rows = {}
  for i = 1, n do
    rows[i] = { name = name[i], cat = cat[i], ph = ph[i], ts = ts[i], dur = dur[i], pid = pid[i],
      tid = tid[i], device = dv[i], stream = st[i], correlation = co[i], external_id = ex[i],
      sequence = sq[i], flops = fl[i], shapes = sh[i], types = ty[i] }
  end
  return rows, n, bytes
end

local function to_table(h)
  local rows, n, bytes = rows_of(h)
  -- fresh rows of numbers and strings over M.columns: the table takes them as they are
  return T.adopt(rows, M.columns), n, bytes
end

-- The limits of a read (graphs/io/dlb_trace.h, docs/security.md "Traces"): the options given,
-- each a number >= 1; absent ones keep the library's defaults.
local LIMITS = { "max_bytes", "max_events", "max_string", "max_text" }
local read_opts = { max_bytes = true, max_events = true, max_string = true, max_text = true }
local function limits(opts, fn)
  local lim = {}
  for _, k in ipairs(LIMITS) do
    local v = opts[k]
    if v ~= nil then
      if type(v) ~= "number" or v ~= v or v < 1 then
        error(fn .. ": " .. k .. " must be a number >= 1, got " .. tostring(v), 3)
      end
      lim[k] = v
    end
  end
  return lim
end

local INFO = setmetatable({}, { __mode = "k" }) -- events table -> {events=, bytes=, path=}

-- Read a trace file; returns the events table (dlb.trace.info(t) says what was read).
function M.read(path, opts)
  local fn = "dlb.trace.read"
  if type(path) ~= "string" then error(fn .. ": expected a path, got " .. type(path), 2) end
  opts = options.check(opts, read_opts, fn, 2)
  local ok, h = pcall(core.trace_read, path, limits(opts, fn))
  if not ok then error(fn .. ": " .. tostring(h), 2) end
  local t, n, bytes = to_table(h)
  INFO[t] = { events = n, bytes = bytes, path = path }
  return t
end

-- What was read into an events table: {events=, bytes= (of JSON), path=}.
function M.info(t)
  return INFO[t]
end
doc.doc(M.info, "dlb.trace.info(t) -> {events=, bytes=, path=}", "what dlb.trace.read read into t "
  .. "(bytes of JSON after decompression)")
doc.doc(M.read, "dlb.trace.read(path[, {max_bytes=2^30, max_events=2^20, max_string=2^16, max_text=2^26}]) -> table",
  "a PyTorch profiler / Kineto Chrome trace (object or bare-array form, plain or gzip), parsed "
  .. "as a stream in C, as a dlb.table of events: name, cat, ph, ts, dur (us), pid, tid, device, "
  .. "stream, correlation, external_id, sequence, flops, shapes (Input Dims), types. The limits "
  .. "(JSON bytes after decompression, events, bytes of one string, of all distinct strings) keep the table within about "
  .. "1 GB; dlb.trace.summary(path) streams a trace of any size (docs/security.md)")

-- The same for JSON text in memory.
function M.parse(text, opts)
  local fn = "dlb.trace.parse"
  if type(text) ~= "string" then error(fn .. ": expected JSON text, got " .. type(text), 2) end
  opts = options.check(opts, read_opts, fn, 2)
  local ok, h = pcall(core.trace_parse, text, limits(opts, fn))
  if not ok then error(fn .. ": " .. tostring(h), 2) end
  local t, n, bytes = to_table(h)
  INFO[t] = { events = n, bytes = bytes }
  return t
end
doc.doc(M.parse, "dlb.trace.parse(json[, limits]) -> table", "dlb.trace.read for text in memory")

-- == classification ===================================================================

-- Device ops by category: a kernel, or a copy/set ("Kernel", "Memcpy", "Memset" are the
-- categories of Kineto as PyTorch 1.8-1.9 shipped it, "Runtime" its cuda_runtime).
local KERNEL_CATS = { kernel = true, Kernel = true }
local DEVICE_CATS = { kernel = true, gpu_memcpy = true, gpu_memset = true, Kernel = true,
  Memcpy = true, Memset = true }

-- Is event r an op run on a device (GPU kernel, copy, set)?
local function is_device(r) return r.cat ~= nil and DEVICE_CATS[r.cat] == true end
M.is_device = is_device
doc.doc(M.is_device, "dlb.trace.is_device(event) -> boolean",
  "is the event an op run on a device (GPU kernel, copy or set: cat kernel/gpu_memcpy/gpu_memset)")

-- Is event r a GPU kernel (not a copy or a set)?
local function is_kernel(r) return r.cat ~= nil and KERNEL_CATS[r.cat] == true end

-- A host-side op (an aten op, an autograd node, a record_function range)?
local function is_cpu(r)
  if is_device(r) then return false end
  local c = r.cat
  return c == nil or c == "cpu_op" or c == "Operator" or c == "user_annotation"
    or c == "python_function" or c == "cuda_runtime" or c == "Runtime" or c == "cpu_instant_event"
end

-- The op class of a PyTorch op or kernel name, and of a dlbench op type: the common
-- vocabulary compare() joins on.
local CLASSES = {
  { "gemm", { "addmm", "^aten::mm$", "bmm", "matmul", "^aten::linear$", "gemm", "^Cijk_", "sgemm",
    "dgemm", "hgemm" } },
  { "conv", { "conv" } },
  { "rnn", { "lstm", "gru", "rnn" } },
  { "pool", { "pool" } },
  { "norm", { "norm" } },
  { "softmax", { "softmax", "nll_loss", "cross_entropy", "xent" } },
  { "optimizer", { "^Optimizer", "sgd", "adam", "update" } },
  { "elementwise", { "relu", "threshold", "add", "mul", "sub", "div", "sigmoid", "tanh", "gelu",
    "dropout", "elementwise", "copy", "fill", "zero", "exp", "sqrt", "clamp", "where" } },
  { "reduce", { "sum", "mean", "reduce" } },
}
function M.op_class(name)
  if type(name) ~= "string" then return "other" end
  local l = name:lower()
  for _, c in ipairs(CLASSES) do
    for _, pat in ipairs(c[2]) do
      if l:find(pat:lower()) or name:find(pat) then return c[1] end
    end
  end
  return "other"
end
doc.doc(M.op_class, "dlb.trace.op_class(name) -> class",
  "the op class (gemm, conv, rnn, pool, norm, softmax, optimizer, elementwise, reduce, other) "
  .. "of a PyTorch op, a GPU kernel or a dlbench op type")

-- The phase a range name opens: backward, optimizer or nil.
local function phase_of(name)
  if name:find("Backward", 1, true) or name:find("^autograd::engine::evaluate_function")
    or name:find("^torch::autograd::") then
    return "backward"
  end
  if name:find("^Optimizer%.") then return "optimizer" end
  return nil
end

local function is_step_range(r)
  return r.ph == "X" and type(r.name) == "string" and r.name:find("^ProfilerStep#") ~= nil
end

-- Add the ProfilerStep# ranges among host records evs to steps ({ts=, te=, name=} sorted
-- by start; seen: the rows already added).
local function add_steps(steps, seen, evs)
  local added = false
  for _, e in ipairs(evs) do
    local r = e.row
    if is_step_range(r) and not seen[r] then
      seen[r] = true
      steps[#steps + 1] = { ts = r.ts, te = r.ts + r.dur, name = r.name }
      added = true
    end
  end
  if added then table.sort(steps, function(a, b) return a.ts < b.ts end) end
end

-- The step whose range holds time ts (the latest to start at or before it), or nil.
local function step_at(steps, ts)
  local lo, hi, at = 1, #steps, nil
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if steps[mid].ts <= ts then at, lo = mid, mid + 1 else hi = mid - 1 end
  end
  for i = at or 0, 1, -1 do -- steps do not overlap in practice; look back if they do
    if ts < steps[i].te then return steps[i].name end
    if i < at - 8 then break end
  end
  return nil
end

-- Push host range e (e.row, its thread's ranges that enclose it on the stack) onto its
-- thread's stack: its depth, self time (the parent loses e's time), step (a
-- ProfilerStep# range or the enclosing one; a top-level range with no step around it on
-- its thread, such as one of the autograd engine's thread that runs a GPU backward, takes
-- the step whose time holds its start, from steps) and phase (from its name, else its
-- parent's; a top-level range so placed on a thread that has run an autograd node,
-- backward: PyTorch 1.8 ran some of the engine's ops, aten::sum for a broadcast gradient,
-- outside any node; inside a step, forward by default). th: the thread's state
-- ({autograd=}). nest and the summary's accumulator share it.
local function push(stack, e, steps, th)
  local r, parent = e.row, stack[#stack]
  e.depth = #stack
  e.self = r.dur
  e.step = parent and parent.step or nil
  e.phase = parent and parent.phase or nil
  local by_time = false
  if r.name and r.name:find("^ProfilerStep#") then
    e.step = r.name
    e.is_step = true
  elseif e.step == nil and parent == nil and steps then
    e.step = step_at(steps, r.ts)
    by_time = e.step ~= nil
  end
  local p = r.name and phase_of(r.name)
  if by_time and th then
    if p == "backward" then th.autograd = true
    elseif p == nil and th.autograd then p = "backward" end
  end
  if p and (e.phase == nil or e.phase == "forward") then e.phase = p end
  if e.step and e.phase == nil and not e.is_step then e.phase = "forward" end
  if parent then parent.self = parent.self - r.dur end
  stack[#stack + 1] = e
end

-- Host ops with their nesting on each thread: depth, parent, self time (us), phase, step.
-- Returns an array of records {row=, depth=, self=, phase=, step=} in time order.
local function nest(t)
  local evs = {}
  for i = 1, t:count() do
    local r = t:row(i)
    if r.ph == "X" and r.ts and r.dur and is_cpu(r) then evs[#evs + 1] = { row = r, i = i } end
  end
  local steps = {}
  add_steps(steps, {}, evs)
  table.sort(evs, function(a, b)
    local ka, kb = tostring(a.row.pid) .. "/" .. tostring(a.row.tid), tostring(b.row.pid) .. "/" .. tostring(b.row.tid)
    if ka ~= kb then return ka < kb end
    if a.row.ts ~= b.row.ts then return a.row.ts < b.row.ts end
    if a.row.dur ~= b.row.dur then return a.row.dur > b.row.dur end
    -- equal ranges: the file's order, the parent first, as the summary's accumulator takes
    -- them (acc_feed). The sort is not stable: before, a tie (the legacy exporter's whole
    -- microseconds make many: ViewBackward0 and its aten::reshape, 1 us each) fell either
    -- way: 129 of 300 equal pairs came out inverted (tests/lua/test_trace.lua)
    return a.i < b.i
  end)
  local stack, key, th = {}, nil, nil
  for _, e in ipairs(evs) do
    local r = e.row
    local k = tostring(r.pid) .. "/" .. tostring(r.tid)
    if k ~= key then stack, key, th = {}, k, {} end
    while #stack > 0 do
      local top = stack[#stack].row
      if r.ts >= top.ts + top.dur then stack[#stack] = nil else break end
    end
    local parent = stack[#stack]
    e.parent = parent
    push(stack, e, steps, th)
  end
  return evs
end
M.nest = nest
doc.doc(M.nest, "dlb.trace.nest(events) -> events", "host ops nested by time on each thread: "
  .. "each gets parent, depth, self (its time less its children's), step and phase")

local function median(xs) return core.stats_percentiles(xs, { 50 })[1] end

local sum_opts = { hw = true, precision = true, cores = true, flops = true, window = true,
  max_bytes = true, max_string = true, max_text = true }

-- == summary: an accumulator fed with windows of events ================================
-- The table of dlb.trace.read is one window; a path is read in batches of `window` events
-- (core.trace_open/next), so a trace of any size is summarised without holding its events.
-- Host events are nested per thread in time order and device busy time is a running
-- union per device: each window is sorted, and a thread's or device's events must not go
-- back in time past an earlier window (an error says so; Kineto writes each thread's ops in
-- start order).

local function acc_new(what)
  return { what = what, threads = {}, tkeys = {}, devs = {}, dkeys = {}, steps = {},
    kinds = { step = {}, all = {} }, korder = { step = {}, all = {} },
    phases = { step = { forward = 0, backward = 0, optimizer = 0, other = 0 },
      all = { forward = 0, backward = 0, optimizer = 0, other = 0 } },
    ndev = 0, dev_flops = 0, streams = {}, skeys = {}, launches = {}, early = {}, nlaunch = 0,
    step_ranges = {}, step_seen = {},
    launch_api = 0, latencies = {} }
end

-- A call of the host's CUDA runtime or driver (or HIP) with a correlation id, which joins
-- it to the device op it queued, if it queued one: a launch is such a call whose id joins a
-- kernel; the rest (cudaStreamSynchronize, cudaMemGetInfo, cudaEventRecord, ...) queue no
-- kernel and are not counted as launches (acc_feed).
local function is_launch(r)
  return r.correlation ~= nil and (r.cat == "cuda_runtime" or r.cat == "cuda_driver" or r.cat == "Runtime"
    or (type(r.name) == "string" and (r.name:find("LaunchKernel", 1, true) ~= nil
      or r.name:find("cuLaunch", 1, true) ~= nil)))
end

-- A launch call l joined to the kernel that starts at kernel_ts: its call time and its
-- latency to the kernel.
local function count_launch(acc, l, kernel_ts)
  acc.nlaunch = acc.nlaunch + 1
  acc.launch_api = acc.launch_api + l.dur
  acc.latencies[#acc.latencies + 1] = kernel_ts - l.ts
end

-- the span of the trace: every top-level host range and device op
local function span(acc, a, b)
  acc.t0 = acc.t0 and math.min(acc.t0, a) or a
  acc.t1 = acc.t1 and math.max(acc.t1, b) or b
end

-- The part of [a, b] inside the steps' ranges (their union: steps sorted by start, which do
-- not overlap in practice; as step_at, a range is looked for from 8 steps before the last
-- to start at or before a).
local function in_steps(steps, a, b)
  local lo, hi, at = 1, #steps, 0
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if steps[mid].ts <= a then at, lo = mid, mid + 1 else hi = mid - 1 end
  end
  local sum, upto = 0, a
  for i = math.max(1, at - 8), #steps do
    local s = steps[i]
    if s.ts >= b then break end
    local x, y = math.max(upto, s.ts), math.min(b, s.te)
    if y > x then sum, upto = sum + (y - x), y end
  end
  return sum
end

-- A running union of intervals that arrive in start order: {a=, b=, total=, steps=}; steps:
-- the part of the closed intervals inside the steps known when each closed (a table is one
-- window: every step; a path read in windows: the steps of the windows read so far).
local function run_add(acc, u, a, b, who)
  if u.a ~= nil and a < u.a then
    error(string.format("%s: the events of %s go back in time past an earlier batch (an event "
      .. "at ts %.17g after one at %.17g); summarise dlb.trace.read(path) (raise max_events) or "
      .. "give a larger window", acc.what, who, a, u.a), 0)
  end
  if u.a == nil or a > u.b then
    if u.a then
      u.total = u.total + (u.b - u.a)
      u.steps = (u.steps or 0) + in_steps(acc.step_ranges, u.a, u.b)
    end
    u.a, u.b = a, b
  elseif b > u.b then u.b = b end
  span(acc, a, b)
end

-- A host range whose self time is final (its children are all seen): into by_kind and
-- by_phase, in the bucket of ranges inside a step and in the bucket of all ranges.
local function acc_close(acc, e)
  if e.is_step then return end
  local k = e.row.name or "?"
  local ph = e.phase or "other"
  for _, b in ipairs { "all", e.step and "step" or nil } do
    local g = acc.kinds[b][k]
    if not g then
      g = { kind = k, count = 0, self = 0 }
      acc.kinds[b][k] = g
      acc.korder[b][#acc.korder[b] + 1] = g
    end
    g.count = g.count + 1
    g.self = g.self + e.self
    acc.phases[b][ph] = (acc.phases[b][ph] or 0) + e.self
  end
end

-- One window of event rows (final: the last one). A thread's events at the latest ts of
-- a window wait for the next window, so ranges that start together nest the same however
-- the file is cut into windows.
local function acc_feed(acc, rows, final)
  local evs, dev = {}, {}
  local pending = acc.pending or {}
  acc.pending = nil
  for _, e in ipairs(pending) do evs[#evs + 1] = e end
  for _, r in ipairs(rows) do
    if r.ph == "X" and r.ts and r.dur then
      if is_cpu(r) then
        acc.seq = (acc.seq or 0) + 1
        evs[#evs + 1] = { row = r, key = tostring(r.pid) .. "/" .. tostring(r.tid), i = acc.seq }
      elseif is_device(r) then
        dev[#dev + 1] = r
        acc.ndev = acc.ndev + 1
      end
      if is_launch(r) then
        -- kept until its kernel arrives; launches whose kernel never comes (not traced)
        -- are dropped once 100,000 wait, so a long trace holds a bounded number
        if (acc.nwaiting or 0) >= 100000 then acc.launches, acc.nwaiting = {}, 0 end
        local k = acc.early[r.correlation]
        if k then -- its kernel came first (an earlier window): the launch, counted now
          acc.early[r.correlation] = nil
          acc.nearly = acc.nearly - 1
          count_launch(acc, r, k)
        else
          acc.launches[r.correlation] = r
          acc.nwaiting = (acc.nwaiting or 0) + 1
        end
      end
    end
    if r.flops then acc.dev_flops = acc.dev_flops + r.flops end
  end
  table.sort(evs, function(a, b)
    if a.key ~= b.key then return a.key < b.key end
    if a.row.ts ~= b.row.ts then return a.row.ts < b.row.ts end
    if a.row.dur ~= b.row.dur then return a.row.dur > b.row.dur end
    return a.i < b.i -- equal ranges: the file's order (the sort is not stable)
  end)
  -- the window's steps first: a thread without them (autograd's) takes theirs by time
  add_steps(acc.step_ranges, acc.step_seen, evs)
  if not final then
    local last, keep, later = {}, {}, {}
    for _, e in ipairs(evs) do last[e.key] = e.row.ts end
    for _, e in ipairs(evs) do
      if e.row.ts == last[e.key] then later[#later + 1] = e else keep[#keep + 1] = e end
    end
    evs, acc.pending = keep, later
  end
  for _, e in ipairs(evs) do
    local r = e.row
    local th = acc.threads[e.key]
    if not th then
      th = { stack = {}, run = { total = 0 } }
      acc.threads[e.key] = th
      acc.tkeys[#acc.tkeys + 1] = e.key
    end
    if th.last and r.ts < th.last then -- only across windows: a window is sorted
      error(string.format("%s: the events of thread %s go back in time past an earlier batch "
        .. "(an event at ts %.17g after one at %.17g); summarise dlb.trace.read(path) (raise "
        .. "max_events) or give a larger window", acc.what, e.key, r.ts, th.last), 0)
    end
    th.last = r.ts
    local stack = th.stack
    while #stack > 0 do
      local top = stack[#stack]
      if r.ts >= top.row.ts + top.row.dur then
        stack[#stack] = nil
        acc_close(acc, top)
      else break end
    end
    push(stack, e, acc.step_ranges, th)
    if e.is_step then acc.steps[#acc.steps + 1] = { ts = r.ts, dur = r.dur } end
    if e.depth == 0 then run_add(acc, th.run, r.ts, r.ts + r.dur, "thread " .. e.key) end
  end
  table.sort(dev, function(a, b) return a.ts < b.ts end)
  for _, r in ipairs(dev) do
    local d = r.device or 0
    local u = acc.devs[d]
    if not u then u = { total = 0 }; acc.devs[d] = u; acc.dkeys[#acc.dkeys + 1] = d end
    run_add(acc, u, r.ts, r.ts + r.dur, "device " .. string.format("%g", d))
    -- per stream: the idle gaps between one op's end and the next op's start, and the
    -- part of them in which the GPU waited for the host (the next op's launch call had
    -- not returned when the stream went idle)
    local sk = string.format("%g/%g", d, r.stream or 0)
    local st = acc.streams[sk]
    if not st then
      st = { device = d, stream = r.stream or 0, ops = 0, busy = 0, idle = 0, host_idle = 0 }
      acc.streams[sk] = st
      acc.skeys[#acc.skeys + 1] = sk
    end
    local l = r.correlation and acc.launches[r.correlation]
    if l then
      acc.launches[r.correlation] = nil
      acc.nwaiting = acc.nwaiting - 1
      if is_kernel(r) then count_launch(acc, l, r.ts) end
    elseif r.correlation and is_kernel(r) then
      -- no launch yet: kept (start time) for a launch in a later window, so that the launch
      -- counts however the file is cut into windows; bounded as the launches are
      if (acc.nearly or 0) >= 100000 then acc.early, acc.nearly = {}, 0 end
      acc.early[r.correlation] = r.ts
      acc.nearly = (acc.nearly or 0) + 1
    end
    if st.last_end and r.ts > st.last_end then
      local gap = r.ts - st.last_end
      st.idle = st.idle + gap
      if l then
        local issued = l.ts + l.dur -- when the launch call returned
        if issued > st.last_end then st.host_idle = st.host_idle + math.min(gap, issued - st.last_end) end
      end
    end
    st.ops = st.ops + 1
    st.busy = st.busy + r.dur
    st.last_end = math.max(st.last_end or r.ts + r.dur, r.ts + r.dur)
  end
end

local function run_total(u) return u.total + (u.a and (u.b - u.a) or 0) end
local function run_in_steps(acc, u)
  return (u.steps or 0) + (u.a and in_steps(acc.step_ranges, u.a, u.b) or 0)
end

-- The summary from what was fed (TBD's equations: see M.summary).
local function acc_finish(acc, opts)
  for _, k in ipairs(acc.tkeys) do
    local stack = acc.threads[k].stack
    for i = #stack, 1, -1 do acc_close(acc, stack[i]); stack[i] = nil end
  end
  -- in the order the steps start: the order met depends on threads and windows (fuzz-long)
  table.sort(acc.steps, function(a, b) return a.ts < b.ts or (a.ts == b.ts and a.dur > b.dur) end)
  local steps = {}
  for i, st in ipairs(acc.steps) do steps[i] = st.dur end
  local nsteps = #steps
  local bucket = nsteps > 0 and "step" or "all" -- with steps: the ops inside them
  local kinds, by_phase = acc.korder[bucket], acc.phases[bucket]
  for _, g in ipairs(kinds) do g.class = M.op_class(g.kind) end
  local us = 1e-6
  local elapsed = (acc.t0 and (acc.t1 - acc.t0) or 0) * us
  if nsteps > 0 then
    local s = 0
    for _, d in ipairs(steps) do s = s + d end
    elapsed = s * us -- utilisations over the steps, as TBD measures them
  end
  -- busy time over the whole trace, and inside the steps: with steps, TBD's eqs. 1-3 divide
  -- by the steps' time, so they count the busy time inside them (review 20: the whole
  -- trace's, so a kernel after the last step read as a GPU utilisation of 10,100%, and the
  -- CPU's was clamped at 100%)
  local busy, active, busy_steps, active_steps = {}, 0, {}, 0
  for _, d in ipairs(acc.dkeys) do
    busy[d] = run_total(acc.devs[d]) * us; active = active + busy[d]
    busy_steps[d] = run_in_steps(acc, acc.devs[d]) * us; active_steps = active_steps + busy_steps[d]
  end
  local cpu_active, threads = 0, 0
  for _, k in ipairs(acc.tkeys) do
    local run = acc.threads[k].run
    cpu_active = cpu_active + (nsteps > 0 and run_in_steps(acc, run) or run_total(run)) * us
    threads = threads + 1
  end
  local cores = opts.cores or threads
  table.sort(kinds, function(a, b) return a.self > b.self or (a.self == b.self and a.kind < b.kind) end)
  local per = math.max(nsteps, 1)
  local rows = {}
  local total_self = 0
  for _, g in ipairs(kinds) do total_self = total_self + g.self end
  for i, g in ipairs(kinds) do
    rows[i] = { kind = g.kind, class = g.class, count = g.count / per, time = g.self * us / per,
      share = total_self > 0 and g.self / total_self or 0 }
  end
  local phases = {}
  for k, v in pairs(by_phase) do phases[k] = v * us / per end
  local ndev = acc.ndev
  local res = {
    steps = nsteps, step_times = {}, step_time = nsteps > 0 and median(steps) * us or nil,
    elapsed = elapsed, by_kind = T.new(rows, { "kind", "class", "count", "time", "share" }),
    by_phase = phases, device_events = ndev, device_busy = busy,
    device_busy_in_steps = nsteps > 0 and busy_steps or nil,
    cpu_util = (elapsed > 0 and cores > 0) and math.min(1, cpu_active / (cores * elapsed)) or nil,
    cores = cores,
  }
  for i, d in ipairs(steps) do res.step_times[i] = d * us end
  -- host-bound gaps per stream (seconds over the whole trace) and the measured launch
  -- overhead per kernel: the launch call's own time and the latency from the call's start
  -- to the kernel's (median), what calibrating a device's launch cost can use
  local srows, idle, host_idle = {}, 0, 0
  for i, k in ipairs(acc.skeys) do
    local st = acc.streams[k]
    srows[i] = { device = st.device, stream = st.stream, ops = st.ops, busy = st.busy * us,
      idle = st.idle * us, host_idle = st.host_idle * us }
    idle, host_idle = idle + st.idle, host_idle + st.host_idle
  end
  res.streams = T.new(srows, { "device", "stream", "ops", "busy", "idle", "host_idle" })
  res.idle, res.host_idle = idle * us, host_idle * us
  res.host_bound = idle > 0 and host_idle / idle or nil
  if acc.nlaunch > 0 then
    res.launch = { count = acc.nlaunch, api = acc.launch_api * us / acc.nlaunch,
      latency = #acc.latencies > 0 and median(acc.latencies) * us or nil }
  end
  local udev, uprec   -- the device and precision of the FP32 utilisation's peak
  if ndev > 0 and elapsed > 0 then
    local ndevices = #acc.dkeys
    local in_window = nsteps > 0 and active_steps or active
    res.gpu_util = in_window / (ndevices * elapsed)        -- TBD eq. 1
    -- eq. 2: opts.flops per step over the active time inside the steps; the trace's own
    -- flops args (every kernel's) over the whole trace's
    local flops, over = nil, active
    if opts.flops then flops, over = opts.flops * per, in_window
    elseif acc.dev_flops > 0 then flops = acc.dev_flops end
    if flops and opts.hw and over > 0 then
      local hwm = require "dlbench.hw"
      local d = hwm.get(opts.hw)
      local prec = d:precision(opts.precision or "fp32")
      res.fp32_util = flops / (d.peak[prec] * over)          -- TBD eq. 2
      udev, uprec = d, prec
    end
  elseif opts.flops and opts.hw and nsteps > 0 and res.step_time > 0 then
    -- a CPU-only trace: the host is the device; eq. 2 over the step time
    local hwm = require "dlbench.hw"
    local d = hwm.get(opts.hw)
    local prec = d:precision(opts.precision or "fp32")
    res.fp32_util = opts.flops / (d.peak[prec] * res.step_time)
    udev, uprec = d, prec
  end
  -- a utilisation above 100% is not a utilisation: the peak is wrong for the run (more
  -- threads ran than the peak's; the peak was measured with a slower library; the FLOPs
  -- overcounted). Kept as computed, flagged (review 21: notebooks/measure.lua printed 155.9%)
  if res.fp32_util and res.fp32_util > 1 then
    res.fp32_util_above_peak = true
    res.fp32_util_note = string.format("%.1f%% is above 100%%: the peak (%s's %s, %s) is too "
      .. "low for this run (more threads ran than it was measured with, it was measured with a "
      .. "slower library, or the flops are overcounted), so it is not a utilisation",
      100 * res.fp32_util, udev.name, uprec, require("dlbench.pretty").si(udev.peak[uprec], "FLOP/s"))
  end
  return res
end

-- Summary of a trace (seconds): steps, time by op kind and phase, device busy time and the
-- utilisations of TBD (seed 001): eq. 1 GPU compute utilisation = device active time /
-- elapsed time; eq. 2 FP32 utilisation = FLOPs executed / (peak x active time), needs FLOPs
-- (the trace's "flops" args, or opts.flops per step) and opts.hw; eq. 3 CPU utilisation =
-- sum over threads of active time / (cores x elapsed), cores = opts.cores or the host
-- threads seen in the trace. t: the table of dlb.trace.read, or a trace file's path, read
-- in batches of opts.window events (default 100,000) and never held whole.
function M.summary(t, opts)
  local fn = "dlb.trace.summary"
  opts = options.check(opts, sum_opts, fn, 2)
  -- hw, precision, cores and flops checked here: they were read only when the trace had the
  -- events that use them, so hw = "zz", cores = 0 or NaN, flops = -1 passed silently
  if opts.hw ~= nil then
    local okh, d = pcall(require("dlbench.hw").get, opts.hw)
    if not okh then error(fn .. ": hw: " .. require("dlbench.errors").strip(d), 2) end
    if opts.precision ~= nil then
      local okp, e = pcall(d.precision, d, opts.precision)
      if not okp then error(fn .. ": precision: " .. require("dlbench.errors").strip(e), 2) end
    end
  elseif opts.precision ~= nil then
    error(fn .. ": precision= is the device's (for the FP32 utilisation): give hw= too", 2)
  end
  for _, k in ipairs { "cores", "flops" } do
    local v = opts[k]
    if v ~= nil and (type(v) ~= "number" or not (v > 0) or v == math.huge
        or (k == "cores" and v ~= math.floor(v))) then
      error(string.format("%s: %s must be a %s, got %s", fn, k,
        k == "cores" and "whole number >= 1" or "finite number > 0 (FLOPs per step)", tostring(v)), 2)
    end
  end
  -- (not (w >= 1): NaN too, which reached trace_next as "number has no integer representation")
  if opts.window ~= nil and (type(opts.window) ~= "number" or not (opts.window >= 1)
      or opts.window == math.huge) then
    error(fn .. ": window must be a number of events >= 1, got " .. tostring(opts.window), 2)
  end
  local acc = acc_new(fn)
  if type(t) == "string" then
    local path = t
    local ok, err = pcall(function()
      local h = core.trace_open(path, limits(opts, fn))
      while true do
        local n = core.trace_next(h, math.floor(opts.window or 100000))
        if n == 0 then break end
        acc_feed(acc, (rows_of(h)))
      end
      acc_feed(acc, {}, true)
    end)
    if not ok then error((tostring(err):find("^" .. fn) and "" or fn .. ": ") .. tostring(err), 2) end
  elseif T.is_table(t) then
    if opts.max_bytes or opts.max_string or opts.max_text then
      error(fn .. ": max_bytes, max_string and max_text apply to a path (the table is read already)", 2)
    end
    local rows = {}
    for i = 1, t:count() do
      local r = t:row(i)
      -- a table made by hand: the rule dlb.trace.read's events kept (graphs/io/trace.c)
      if type(r.dur) == "number" then
        local ok, err = pcall(core.trace_check_event, i, r.name ~= nil and tostring(r.name) or nil, r.dur)
        if not ok then error(fn .. ": " .. tostring(err), 2) end
      end
      rows[i] = r
    end
    local ok, err = pcall(acc_feed, acc, rows, true)
    if not ok then error(tostring(err), 2) end
  else
    error(fn .. ": expected the table of dlb.trace.read or a trace file's path", 2)
  end
  local res = acc_finish(acc, opts)
  return setmetatable(res, { __tostring = function(s)
    local out = { string.format("trace: %d steps, step %s, elapsed %.4g ms", s.steps,
      s.step_time and string.format("%.4g ms", s.step_time * 1e3) or "-", s.elapsed * 1e3) }
    out[#out + 1] = string.format("phases per step: forward %.4g ms, backward %.4g ms, optimizer %.4g ms, other %.4g ms",
      s.by_phase.forward * 1e3, s.by_phase.backward * 1e3, s.by_phase.optimizer * 1e3, s.by_phase.other * 1e3)
    if s.gpu_util then out[#out + 1] = string.format("GPU compute utilisation (TBD eq. 1) %.1f%%", 100 * s.gpu_util) end
    if s.fp32_util_note then
      out[#out + 1] = "FP32 utilisation (TBD eq. 2) NOT VALID: " .. s.fp32_util_note
    elseif s.fp32_util then
      out[#out + 1] = string.format("FP32 utilisation (TBD eq. 2) %.1f%%", 100 * s.fp32_util)
    end
    if s.cpu_util then out[#out + 1] = string.format("CPU utilisation (TBD eq. 3) %.1f%% of %d cores", 100 * s.cpu_util, s.cores) end
    if s.host_bound then
      out[#out + 1] = string.format("device idle between ops %.4g ms, of which %.1f%% waiting for the host's launches",
        s.idle * 1e3, 100 * s.host_bound)
    end
    if s.launch then
      out[#out + 1] = string.format("kernel launches: %d, launch call %.3g us each, call to kernel start %s",
        s.launch.count, s.launch.api * 1e6, s.launch.latency and string.format("%.3g us (median)", s.launch.latency * 1e6) or "-")
    end
    return table.concat(out, "\n")
  end })
end
doc.doc(M.summary, "dlb.trace.summary(t|path[, {hw=, precision=, flops=, cores=, window=, max_bytes=, max_string=, max_text=}]) -> summary",
  "steps (ProfilerStep# ranges) and step_time (median, s), by_kind (self time per step by op "
  .. "name), by_phase (forward/backward/optimizer/other, s per step), device_busy (device_busy_in_steps: inside the steps, what eqs. 1-3 count), and TBD's "
  .. "(seed 001) GPU compute utilisation (eq. 1), FP32 utilisation (eq. 2: needs flops and hw; "
  .. "above 1: fp32_util_above_peak and fp32_util_note, printed NOT VALID: the peak is wrong for the run) "
  .. "and CPU utilisation (eq. 3). Given a path, the file is streamed in windows of `window` "
  .. "events (default 100,000): any size, without holding its events; max_bytes (JSON after "
  .. "decompression) defaults to 100 times the file's bytes, at least 64 MiB (a gzip bomb)")

-- == compare with a prediction ==========================================================

-- The join key of a GEMM: its sorted sides (2mnk is the same for every transpose the
-- backward pass uses), e.g. "64x512x784".
local function gemm_key(a, b, c)
  local s = { a, b, c }
  table.sort(s)
  return string.format("%dx%dx%d", s[1], s[2], s[3])
end
M.gemm_key = gemm_key
doc.doc(M.gemm_key, "dlb.trace.gemm_key(m, n, k) -> string", "the join key of a GEMM: its "
  .. "sorted sides (\"64x512x784\"), the same for every transpose the backward uses")

-- The GEMM sides of a PyTorch op from its Input Dims, or nil.
local function torch_gemm(name, shapes)
  if not shapes then return nil end
  local dims = {}
  for grp in shapes:gmatch("%[([%d,%s]*)%]") do
    local d = {}
    for x in grp:gmatch("%d+") do d[#d + 1] = tonumber(x) end
    dims[#dims + 1] = d
  end
  local a, b
  if name:find("addmm") then a, b = dims[2], dims[3] else a, b = dims[1], dims[2] end
  if a and b and #a == 2 and #b == 2 then return a[1], b[2], a[2] end
  if a and b and #a == 3 and #b == 3 then return a[2], b[3], a[3] end
  return nil
end

local cmp_opts = { precision = true, figure = true }

-- Join the measured ops of trace t (per step) with the predicted ops of stats on hw by op
-- class and, for GEMMs with recorded shapes, by shape. Returns a dlb.table {key, class,
-- measured (s per step), predicted (s per step), ratio, n_measured, n_predicted, flops}, the
-- whole step {measured=, predicted=}, and, with opts.figure = true, a roofline figure of
-- predicted vs measured points.
function M.compare(t, stats, dev, opts)
  local fn = "dlb.trace.compare"
  opts = options.check(opts, cmp_opts, fn, 2)
  if not T.is_table(t) then error(fn .. ": expected the table of dlb.trace.read", 2) end
  if type(stats) ~= "table" or rawget(stats, "analysis") == nil then
    error(fn .. ": expected the stats of a graph with every dim bound (g:stats{...})", 2)
  end
  local roofline = require "dlbench.roofline"
  local hwm = require "dlbench.hw"
  local okd, d = pcall(hwm.get, dev)
  if not okd then error(fn .. ": hw: " .. require("dlbench.errors").strip(d), 2) end
  dev = d
  local sm = M.summary(t)
  local per = math.max(sm.steps, 1)
  -- measured: GPU kernels when the trace has them, else host ops without children (leaves)
  local groups, order = {}, {}
  local function add(key, class, side, time, flops, bytes)
    local g = groups[key]
    if not g then
      g = { key = key, class = class, measured = 0, predicted = 0, n_measured = 0, n_predicted = 0,
        flops = 0, bytes = 0 }
      groups[key] = g; order[#order + 1] = g
    end
    g[side] = g[side] + time
    g["n_" .. side] = g["n_" .. side] + 1
    if flops then g.flops = g.flops + flops; g.bytes = g.bytes + bytes end
  end
  local evs = nest(t)
  local has_device = sm.device_events > 0
  local shapes_by_ext = {}
  for _, e in ipairs(evs) do
    local r = e.row
    if r.external_id and r.shapes then shapes_by_ext[r.external_id] = { r.name, r.shapes } end
  end
  -- host ops: an op of a known class counts whole unless a known-class op encloses it
  -- (aten::linear holds aten::addmm); ops of no known class count their self time
  for _, e in ipairs(evs) do
    e.class = e.is_step and "step" or M.op_class(e.row.name)
    local p = e.parent
    e.outer = p and ((p.class ~= "other" and p.class ~= "step") and p or p.outer) or nil
  end
  local function measured_key(name, shapes)
    local class = M.op_class(name)
    if class == "gemm" then
      local m, n, k = torch_gemm(name, shapes)
      if m then return class .. " " .. gemm_key(m, n, k), class end
    end
    return class, class
  end
  if has_device then
    for i = 1, t:count() do
      local r = t:row(i)
      if r.ph == "X" and r.dur and is_kernel(r) then
        local src = r.external_id and shapes_by_ext[r.external_id]
        local key, class = measured_key(src and src[1] or r.name, src and src[2])
        add(key, class, "measured", r.dur * 1e-6 / per)
      end
    end
  else
    for _, e in ipairs(evs) do
      local r = e.row
      if e.step and not e.is_step and e.outer == nil then
        local key, class = measured_key(r.name, r.shapes)
        add(key, class, "measured", (class == "other" and e.self or r.dur) * 1e-6 / per)
      end
    end
  end
  -- predicted: op by op through dlb.roofline.time (the one time model)
  local r = roofline.time(stats, dev, { detail = true, precision = opts.precision })
  local a = stats.analysis
  local F, B, _, _, K = core.analysis_arrays(a)
  for i = 1, #F do
    local tname = core.graph_op_type_name(K[i])
    local class = M.op_class(tname)
    local key = class
    if class == "gemm" or class == "conv" then
      local m, n, k, b = core.analysis_gemm(a, i - 1)
      if m and class == "gemm" and (b or 1) == 1 then key = class .. " " .. gemm_key(m, n, k) end
    end
    add(key, class, "predicted", r.per_op.op_time[i], F[i], B[i])
  end
  -- a class measured without shapes (the legacy exporter records none) is compared whole:
  -- its predicted shapes fold into the class
  local shaped = {}
  for _, g in ipairs(order) do
    if g.n_measured > 0 and g.key ~= g.class then shaped[g.class] = true end
  end
  local merged, morder = {}, {}
  for _, g in ipairs(order) do
    local key = shaped[g.class] and g.key or g.class
    local m = merged[key]
    if not m then
      m = { key = key, class = g.class, measured = 0, predicted = 0, n_measured = 0, n_predicted = 0,
        flops = 0, bytes = 0 }
      merged[key] = m; morder[#morder + 1] = m
    end
    for _, f in ipairs { "measured", "predicted", "n_measured", "n_predicted", "flops", "bytes" } do
      m[f] = m[f] + g[f]
    end
  end
  order = morder
  local rows = {}
  for _, g in ipairs(order) do
    rows[#rows + 1] = { key = g.key, class = g.class, measured = g.measured, predicted = g.predicted,
      ratio = g.measured > 0 and g.predicted / g.measured or nil, n_measured = g.n_measured / per,
      n_predicted = g.n_predicted, flops = g.flops, bytes = g.bytes }
  end
  table.sort(rows, function(x, y) return x.measured + x.predicted > y.measured + y.predicted end)
  local out = T.new(rows, { "key", "class", "measured", "predicted", "ratio", "n_measured", "n_predicted", "flops", "bytes" })
  local step = { measured = sm.step_time, predicted = r.time }
  local fig
  if opts.figure then
    local pts = {}
    for _, row in ipairs(rows) do
      if row.flops > 0 and row.bytes > 0 and row.measured > 0 and row.predicted > 0 then
        -- both at the group's algorithmic intensity (FLOPs and bytes of the predicted ops)
        local x = row.flops / row.bytes
        pts[#pts + 1] = { intensity = x, flops = row.flops / row.predicted, group = "predicted" }
        pts[#pts + 1] = { intensity = x, flops = row.flops / row.measured, group = "measured" }
      end
    end
    local plot = require "dlbench.plot"
    fig = plot.figure { width = 4.5, height = 3.2, title = "Predicted vs measured ops on " .. dev.name }
    fig:roofline { hw = { dev }, points = pts }
  end
  return out, step, fig
end
doc.doc(M.compare, "dlb.trace.compare(t, stats, hw[, {precision=, figure=true}]) -> table, step, figure",
  "join the trace's measured ops (GPU kernels, else leaf host ops; per step) with the ops "
  .. "dlb.roofline.time predicts for stats on hw, by op class and GEMM shape (sorted sides); "
  .. "step = {measured=, predicted=} seconds")

doc.doc(M, "dlb.trace", "profiler traces: read, parse, summary, compare, op_class (docs/measure.md)")
return M
