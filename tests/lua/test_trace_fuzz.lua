-- test_trace_fuzz.lua — a mutation fuzzer for what dlbench makes of a profiler trace
-- (dlb.trace.read and dlb.trace.summary, lua/dlbench/trace.lua over graphs/io/trace.c, whose
-- bytes tests/fuzz/fuzz_trace.c and fuzz_tracefile.c fuzz). The events of a fixture trace
-- (tests/fixtures/traces/) are mutated -- a ts or dur moved, scaled, zeroed, made negative or
-- huge; a name turned into a step, an autograd node, an optimizer step or a launch; ph, cat,
-- pid, tid, device, stream, correlation or flops changed; an event duplicated, dropped or
-- moved -- written back as Kineto JSON and summarised two ways: the table of dlb.trace.read
-- given to dlb.trace.summary, and the file's path streamed in small windows (1 to 40 events).
-- Each outcome must be one of:
--   * both summaries, equal (docs/measure.md: the streamed summary "equals
--     dlb.trace.summary(dlb.trace.read(path))"; numbers within 1e-9 relative, sums taken in
--     another order), every number finite;
--   * the streamed one refused with its documented error, a thread's or device's events that
--     go back in time past an earlier batch (the table's summary may then succeed);
--   * both refused, with errors naming dlb.trace (never a Lua runtime error, a crash or a
--     hang).
-- Deterministic: both backends print the same counts.
--   cases: DLB_TRFUZZ_CASES (default 30, about 2 s), seed DLB_TRFUZZ_SEED (default 1);
--   DLB_TRFUZZ_VERBOSE=1 names each case and its outcome on stderr. A long run:
--     DLB_TRFUZZ_CASES=3000 DLB_TRFUZZ_SEED=7 LUA_PATH="$PWD/tests/lua/?.lua;;" \
--       build/bin/dlbench run tests/lua/test_trace_fuzz.lua
local T = require "harness"
local dlb = require "dlbench"
local json = require "dlbench.json"
local tbl = require "dlbench.table"

local F = require("fuzz_setup")("TRFUZZ") -- cases, seed, verbosity; Park-Miller rnd / pick
local CASES, SEED, VERBOSE, rnd, pick = F.cases or 30, F.seed, F.verbose, F.rnd, F.pick


-- The fixtures' events as plain rows (the small ones: each case writes and reads one).
local FIXTURES = { "gpu_cuda_synthetic.json", "gpu_rocm_synthetic.json.gz", "cnn_b32.pt.trace.json.gz" }
local bases = {}
for i, f in ipairs(FIXTURES) do
  local t = dlb.trace.read("tests/fixtures/traces/" .. f)
  local rows = {}
  for k = 1, t:count() do rows[k] = t:row(k) end
  bases[i] = rows
end

-- A row back as a Kineto event (the columns dlbench reads; shapes and types left out).
local ARGS = { device = "device", stream = "stream", correlation = "correlation",
  external_id = "External id", sequence = "Sequence number", flops = "flops" }
local function event(r)
  local e = { ph = r.ph, cat = r.cat, name = r.name, pid = r.pid, tid = r.tid, ts = r.ts, dur = r.dur }
  local args
  for k, a in pairs(ARGS) do
    if r[k] ~= nil then args = args or {}; args[a] = r[k] end
  end
  e.args = args
  return e
end

local NAMES = { "ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#x", "autograd::engine::evaluate_function: AddmmBackward0",
  "AddmmBackward0", "Optimizer.step#SGD.step", "Optimizer.zero_grad#SGD.zero_grad", "cudaLaunchKernel",
  "hipLaunchKernel", "aten::addmm", "aten::mm", "volta_sgemm_128x64_nn", "Memcpy HtoD", "", "x" }
local CATS = { "cpu_op", "kernel", "Kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "Runtime",
  "user_annotation", "python_function", "Operator" }

local function mutate(rows)
  local n = #rows
  local i = rnd(n)
  local r = rows[i]
  local op = rnd(12)
  if op == 1 then
    local v = pick { 0, 1, -1, 0.5, 1e3, 1e6, 1e15, -1e6, 1e300 }
    r.ts = (r.ts or 0) + v
    return "event " .. i .. " ts + " .. v
  elseif op == 2 then
    local v = pick { 0, -1, -0.0, 0.5, 2, 10, 1e6, 1e300, 5e-324 }
    r.dur = (r.dur or 1) * (v == -1 and -1 or 1) * (v == -1 and 1 or v)
    return "event " .. i .. " dur * " .. v
  elseif op == 3 then
    r.name = pick(NAMES)
    return "event " .. i .. " name " .. r.name
  elseif op == 4 then
    r.cat = pick(CATS)
    return "event " .. i .. " cat " .. r.cat
  elseif op == 5 then
    r.ph = pick { "X", "i", "B", "E", "M", "f", "s", "" }
    return "event " .. i .. " ph " .. r.ph
  elseif op == 6 then
    local k = pick { "pid", "tid" }
    r[k] = pick { 0, 1, 7, 1000, 1001, -1, 2 ^ 53, "CPU functions", "", "stream 7" }
    return "event " .. i .. " " .. k .. " " .. tostring(r[k])
  elseif op == 7 then
    local k = pick { "device", "stream", "correlation", "external_id", "sequence", "flops" }
    r[k] = pick { 0, 1, 7, 101, 102, -1, 1e300, 2 ^ 53 }
    return "event " .. i .. " " .. k .. " " .. tostring(r[k])
  elseif op == 8 then
    local c = {}
    for k, v in pairs(r) do c[k] = v end
    table.insert(rows, rnd(n + 1), c)
    return "event " .. i .. " twice"
  elseif op == 9 and n > 1 then
    table.remove(rows, i)
    return "event " .. i .. " dropped"
  elseif op == 10 then
    local j = rnd(n)
    rows[i], rows[j] = rows[j], rows[i]
    return "events " .. i .. " <-> " .. j
  elseif op == 11 then
    local k = pick { "ts", "dur", "name", "cat", "pid", "tid" }
    r[k] = nil
    return "event " .. i .. " without " .. k
  end
  -- a step range made around a random span of a thread
  local ts = r.ts or 0
  table.insert(rows, 1, { ph = "X", cat = "user_annotation", name = "ProfilerStep#" .. rnd(9),
    pid = r.pid, tid = r.tid, ts = ts - rnd(100), dur = rnd(5000) })
  return "a step around event " .. i
end

local function runtime_error(msg)
  return msg:find("attempt to", 1, true) or msg:find("bad argument", 1, true)
    or msg:find("stack overflow", 1, true)
end

-- The first difference between two summaries (nil when equal): numbers within 1e-9 relative.
local function diff(a, b, where)
  if type(a) ~= type(b) then return where .. ": " .. type(a) .. " against " .. type(b) end
  if type(a) == "number" then
    if a ~= a or b ~= b or a == math.huge or a == -math.huge then
      return where .. ": not finite (" .. tostring(a) .. ", " .. tostring(b) .. ")"
    end
    if math.abs(a - b) > 1e-9 * math.max(math.abs(a), math.abs(b)) then
      return string.format("%s: %.17g against %.17g", where, a, b)
    end
    return nil
  end
  if type(a) ~= "table" then return a ~= b and (where .. ": " .. tostring(a) .. " against " .. tostring(b)) or nil end
  if tbl.is_table(a) then
    if a:count() ~= b:count() then return where .. ": " .. a:count() .. " rows against " .. b:count() end
    for i = 1, a:count() do
      local d = diff(a:row(i), b:row(i), where .. "[" .. i .. "]")
      if d then return d end
    end
    return nil
  end
  local keys = {}
  for k in pairs(a) do keys[#keys + 1] = k end
  for k in pairs(b) do if a[k] == nil then keys[#keys + 1] = k end end
  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
  for _, k in ipairs(keys) do
    local d = diff(a[k], b[k], where .. "." .. tostring(k))
    if d then return d end
  end
  return nil
end

local path = T.tmpdir() .. "/trace.json"
local both, streamed_back, refused = 0, 0, 0

T.test("mutated traces: the streamed summary equals the table's, or both refuse", function()
  for n = 1, CASES do
    local b = rnd(#bases)
    local rows = {}
    for i, r in ipairs(bases[b]) do
      local c = {}
      for k, v in pairs(r) do c[k] = v end
      rows[i] = c
    end
    local what = { FIXTURES[b] }
    for _ = 1, rnd(3) do what[#what + 1] = mutate(rows) end
    local desc = table.concat(what, "; ")
    local events = {}
    for i, r in ipairs(rows) do events[i] = event(r) end
    local f = assert(io.open(path, "wb"))
    f:write(json.encode({ traceEvents = json.array(events) }))
    f:close()
    local window = rnd(40)
    local ok1, s1 = pcall(function() return dlb.trace.summary(dlb.trace.read(path)) end)
    local ok2, s2 = pcall(dlb.trace.summary, path, { window = window })
    local where = "case " .. n .. " (" .. desc .. "; window " .. window .. ")"
    for _, e in ipairs { { ok1, s1 }, { ok2, s2 } } do
      if not e[1] and (runtime_error(tostring(e[2])) or not tostring(e[2]):find("dlb.trace", 1, true)) then
        T.eq(tostring(e[2]), "an error of dlb.trace", where)
      end
    end
    local outcome
    if ok1 and ok2 then
      local d = diff(s1, s2, "summary")
      if d then
        if os.getenv("DLB_TRFUZZ_KEEP") then os.execute("cp " .. path .. " " .. os.getenv("DLB_TRFUZZ_KEEP")) end
        T.eq(d, "the same summary", where)
      end
      both = both + 1
      outcome = "equal"
    elseif ok1 and not ok2 then
      if not tostring(s2):find("go back in time past an earlier batch", 1, true) then
        T.eq(tostring(s2), "the table's summary (it succeeded)", where .. ": streamed")
      end
      streamed_back = streamed_back + 1
      outcome = "streamed refused: " .. tostring(s2)
    elseif ok2 and not ok1 then
      T.eq(tostring(s1), "the streamed summary (it succeeded)", where .. ": the table's")
    else
      refused = refused + 1
      outcome = "refused: " .. tostring(s1)
    end
    if VERBOSE then io.stderr:write(string.format("%s: %s\n", where, outcome)) end
  end
  T.eq(both > CASES / 10, true, string.format("%d equal, %d streamed refused, %d refused", both, streamed_back, refused))
  print(string.format("trace fuzz: seed %d, %d cases: %d equal, %d refused streamed only (back in time), %d refused",
    SEED, CASES, both, streamed_back, refused))
end)

T.test("regression: steps on two threads come in the order they start (fuzz-long)", function()
  -- a step on a second thread, first in the file: the table's summary listed it first, the
  -- streamed one (its thread's last event is held for the next window) last
  local ev = {
    { ph = "X", cat = "user_annotation", name = "ProfilerStep#3", pid = 0, tid = 7, ts = 1229, dur = 4351 },
    { ph = "X", cat = "user_annotation", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 1000, dur = 900 },
    { ph = "X", cat = "cpu_op", name = "aten::mm", pid = 1, tid = 1, ts = 1010, dur = 40 },
    { ph = "X", cat = "cpu_op", name = "aten::mm", pid = 0, tid = 7, ts = 1300, dur = 40 },
  }
  local f = assert(io.open(path, "wb"))
  f:write(json.encode({ traceEvents = json.array(ev) }))
  f:close()
  for _, s in ipairs { dlb.trace.summary(dlb.trace.read(path)), dlb.trace.summary(path),
      dlb.trace.summary(path, { window = 1 }) } do
    T.eq(#s.step_times, 2, "two steps")
    T.near(s.step_times[1], 900e-6, 1e-12, "the step that starts first, first")
    T.near(s.step_times[2], 4351e-6, 1e-12, "then the other")
  end
end)

T.done()
