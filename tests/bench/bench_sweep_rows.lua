-- bench_sweep_rows.lua — issue [20] item 2: a million rows kept as a columnar table in C
-- (dlb.sweep.model{keep = true}) and dlb.table methods on it: where, sort (views over the C
-- rows), group_by (over columns). Prints time and peak RSS (VmHWM) after each step, the C
-- bytes the kept rows hold (the library's live memory before and after the sweep, over the
-- rows) and the time to read each column of every row from C once (the stored columns, the
-- coordinates and the ones recomputed through the program: docs/sweep.md "Kept rows").
-- usage: build/bin/dlbench run tests/bench/bench_sweep_rows.lua [checkpoint]
-- (checkpoint: a file name, removed first: the sweep with checkpoint = it, which holds every
-- kept row's four stored numbers; its cost and the resumed call's time are printed)
local dlb = require "dlbench"
local function hwm() local f = io.open("/proc/self/status"); local s = f:read("*a"); f:close(); return tonumber(s:match("VmHWM:%s*(%d+)")) / 1024 end
local seq, batch = {}, {}
for i = 1, 50 do seq[i] = 128 * i end
for i = 1, 50 do batch[i] = i end
local core = require "dlbench.backend"
local checkpoint = (arg or {})[1]
if checkpoint then os.remove(checkpoint) end
local t0 = os.clock()
local c0 = core.memory_in_use()
local function builder(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.heads, context = 6400, seq = p.seq, batch = p.batch }
end
local space = { layers = { 4, 8, 12, 16, 20, 24, 32, 40, 48, 64 }, hidden = { 512, 768, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144 },
  heads = { 8, 16, 32, 64 }, seq = seq, batch = batch, device = "H100-SXM" }
local r = dlb.sweep.model(builder, space, { bind = { "batch", "seq" }, keep = true, checkpoint = checkpoint })
print(string.format("1M rows kept: %.2f s, RSS %.0f MB; C memory held %.1f MB = %.1f bytes a row (%d rows, %d columns)",
  os.clock() - t0, hwm(), (core.memory_in_use() - c0) / 2^20, (core.memory_in_use() - c0) / r.rows:count(),
  r.rows:count(), #r.rows:columns()))
if checkpoint then
  local f = io.open(checkpoint, "rb")
  local size = f:seek("end")
  f:close()
  local w0 = core.sys_now()
  local r2 = dlb.sweep.model(builder, space, { bind = { "batch", "seq" }, keep = true, checkpoint = checkpoint, quiet = true })
  print(string.format("checkpoint: %d chunks, %.1f MB, its work %.2f s = %.0f%% of the sweep's %.2f s wall; "
    .. "resumed (%d chunks) in %.2f s wall, RSS %.0f MB", r.chunks, size / 1e6, r.checkpoint_seconds,
    100 * r.checkpoint_seconds / r.seconds, r.seconds, r2.resumed, core.sys_now() - w0, hwm()))
  r2 = nil
  collectgarbage()
end
local reads = {}
for _, c in ipairs(r.rows:columns()) do
  local t1 = os.clock()
  local a = r.rows:column(c)
  reads[#reads + 1] = string.format("%s %.2f", c, os.clock() - t1)
  a = nil
  collectgarbage()
end
print("each column of every row read from C once (s CPU): " .. table.concat(reads, ", "))
local t2, nr = os.clock(), 0
for _, row in r.rows:rows() do if row.fits then nr = nr + 1 end end
print(string.format("rows(): every row as a Lua table (all columns, read in chunks of 65,536): %.2f s, %d fit", os.clock() - t2, nr))
local t1 = os.clock()
local fit = r.rows:where { fits = true }
print(string.format("where{fits=true}: %d rows, %.2f s, RSS %.0f MB", fit:count(), os.clock() - t1, hwm()))
t1 = os.clock()
local s = fit:sort("-throughput")
print(string.format("sort: %.2f s, RSS %.0f MB; best %s", os.clock() - t1, hwm(), tostring(s:row(1).time)))
t1 = os.clock()
local g = r.rows:group_by({ "layers", "hidden" }, { time = "min" })
print(string.format("group_by: %d groups, %.2f s, RSS %.0f MB", g:count(), os.clock() - t1, hwm()))
