-- bench_sweep_rows.lua — issue [20] item 2: a million rows kept as a columnar table in C
-- (dlb.sweep.model{keep = true}) and dlb.table methods on it: where, sort (views over the C
-- rows), group_by (over columns). Prints time and peak RSS (VmHWM) after each step.
-- usage: build/bin/dlbench run tests/bench/bench_sweep_rows.lua
local dlb = require "dlbench"
local function hwm() local f = io.open("/proc/self/status"); local s = f:read("*a"); f:close(); return tonumber(s:match("VmHWM:%s*(%d+)")) / 1024 end
local seq, batch = {}, {}
for i = 1, 50 do seq[i] = 128 * i end
for i = 1, 50 do batch[i] = i end
local t0 = os.clock()
local r = dlb.sweep.model(function(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.heads, context = 6400, seq = p.seq, batch = p.batch }
end, { layers = { 4, 8, 12, 16, 20, 24, 32, 40, 48, 64 }, hidden = { 512, 768, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144 },
  heads = { 8, 16, 32, 64 }, seq = seq, batch = batch, device = "H100-SXM" }, { bind = { "batch", "seq" }, keep = true })
print(string.format("1M rows kept: %.2f s, RSS %.0f MB", os.clock() - t0, hwm()))
local t1 = os.clock()
local fit = r.rows:where { fits = true }
print(string.format("where{fits=true}: %d rows, %.2f s, RSS %.0f MB", fit:count(), os.clock() - t1, hwm()))
t1 = os.clock()
local s = fit:sort("-throughput")
print(string.format("sort: %.2f s, RSS %.0f MB; best %s", os.clock() - t1, hwm(), tostring(s:row(1).time)))
t1 = os.clock()
local g = r.rows:group_by({ "layers", "hidden" }, { time = "min" })
print(string.format("group_by: %d groups, %.2f s, RSS %.0f MB", g:count(), os.clock() - t1, hwm()))
