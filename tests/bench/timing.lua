-- timing.lua — the benchmarks' shared timer (not a benchmark: build.sh bench runs bench_*).
-- Load with: local time = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua")
-- time(n, f) -> median, min over n runs of f in seconds of os.clock (CPU time of this
-- single-threaded process), after one warm-up run.
return function(n, f)
  f()
  local ts = {}
  for i = 1, n do
    local t0 = os.clock()
    f()
    ts[i] = os.clock() - t0
  end
  table.sort(ts)
  return ts[math.floor((n + 1) / 2)], ts[1]
end
