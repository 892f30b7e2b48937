-- bench_measure.lua — dlb.measure and dlb.trace: the wall time of dlb.measure.host (target
-- under 10 s), and the trace reader's speed in MB/s of JSON (target >= 100 MB/s), for the C
-- parse alone (core.trace_read: yajl + zlib into columns) and for dlb.trace.read (plus the
-- dlb.table of events), plain and gzip, on a trace built by repeating the events of the
-- committed Kineto fixture (object form, GPU events with args) up to ~size MB.
--   build/bin/dlbench run tests/bench/bench_measure.lua [size_MB]
local dlb = require "dlbench"
local core = dlb.core
local now = core.sys_now

local size = tonumber(arg and arg[1]) or 100

local t0 = now()
local dev, rec = dlb.measure.host {}
local host_s = now() - t0
print(string.format("dlb.measure.host{}: %.2f s wall (record says %.2f s); %d threads; fp32 %.4g GFLOP/s, DRAM %.4g GB/s",
  host_s, rec.seconds, rec.threads, dev.peak.fp32 / 1e9, dev.mem_bw / 1e9))
t0 = now()
dev, rec = dlb.measure.host { threads = 1, stat = "min" }
host_s = now() - t0
print(string.format("dlb.measure.host{threads=1, stat=\"min\"} (notebooks/measure.lua): %.2f s wall; fp32 %.4g GFLOP/s, "
  .. "DRAM %.4g GB/s (one thread: timed in its CPU time)", host_s, dev.peak.fp32 / 1e9, dev.mem_bw / 1e9))

-- a big trace: the fixture's events, repeated with shifted timestamps
local f = assert(io.open("tests/fixtures/traces/gpu_cuda_synthetic.json", "rb"))
local text = f:read("*a")
f:close()
local events = text:match('"traceEvents": %[(.*)%],%s*"traceName"')
assert(events, "fixture layout")
local parts, bytes = {}, 0
local rep = 0
while bytes < size * 1e6 do
  rep = rep + 1
  -- "%.1f" as the fixture writes them ("1000.0"): `..` of the float wrote "2000.0" under Lua
  -- 5.4 and "2000" under LuaJIT, so the two backends built different traces (event counts)
  local chunk = events:gsub('"ts": (%d+%.?%d*)', function(ts)
    return '"ts": ' .. string.format("%.1f", tonumber(ts) + rep * 1000)
  end)
  parts[#parts + 1] = chunk
  bytes = bytes + #chunk
end
local big = '{"schemaVersion": 1, "traceEvents": [' .. table.concat(parts, ",\n") .. ']}'
parts = nil
local plain = os.tmpname() .. ".json"
local w = assert(io.open(plain, "wb")); w:write(big); w:close()
local gz = plain .. ".gz"
os.execute("gzip -k -1 " .. plain)
local mb = #big / 1e6
big = nil
collectgarbage()

-- best wall time of n runs, and the best CPU time of the process (os.clock: the reader is
-- single-threaded, so on a shared machine its CPU time is its time when not preempted)
local function best(f, n)
  local b, bc = math.huge, math.huge
  for _ = 1, n do
    collectgarbage()
    local s, c = now(), os.clock()
    f()
    b = math.min(b, now() - s)
    bc = math.min(bc, os.clock() - c)
  end
  return b, bc
end
local nev
local c_plain, cc_plain = best(function() local h = core.trace_read(plain); nev = core.trace_count(h) end, 3)
local c_gz, cc_gz = best(function() core.trace_read(gz) end, 3)
local l_plain, cl_plain = best(function() dlb.trace.read(plain) end, 1)
print(string.format("trace of %.1f MB JSON, %d events (gzip file %.1f MB)", mb, nev,
  (io.open(gz, "rb"):seek("end")) / 1e6))
print(string.format("  C parse, plain:          %.3f s  %.0f MB/s (CPU time: %.0f MB/s)", c_plain, mb / c_plain,
  mb / cc_plain))
print(string.format("  C parse, gzip:           %.3f s  %.0f MB/s of JSON (CPU time: %.0f MB/s)", c_gz, mb / c_gz,
  mb / cc_gz))
print(string.format("  dlb.trace.read (table):  %.3f s  %.0f MB/s (CPU time: %.0f MB/s)", l_plain, mb / l_plain,
  mb / cl_plain))
os.remove(plain); os.remove(gz)
