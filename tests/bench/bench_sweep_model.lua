-- bench_sweep_model.lua — issue [20]'s target: 1,000,000 GPT configurations (layers x hidden
-- x heads x seq x micro-batch) on one H100 through the full per-op model (tile and wave
-- quantisation, the FlashAttention kernel of the default framework profile, dispatch
-- overheads, the step's memory) with Pareto fronts (step time vs memory, tokens/s vs memory,
-- of the configurations that fit) and a heat map (min time over layers x hidden) out of the
-- same call. Target: <= 10 s wall on the 2-core
-- machine, peak RSS <= 500 MB (the script prints VmHWM from /proc/self/status).
-- usage: build/bin/dlbench run tests/bench/bench_sweep_model.lua [threads [batches [framework [checkpoint [chunk]]]]]
--        (framework: a profile name, e.g. hf-trainer, whose memory terms every row then counts;
--        default: the family's default profile)
--        (checkpoint: a file name: the sweep with checkpoint = it, a fresh file (removed first);
--        the figure beside the one without is the cost of making every chunk durable; then the
--        same call again, resumed from the finished file, timed)
--        (LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_sweep_model.lua)
local dlb = require "dlbench"
local threads = tonumber((arg or {})[1]) or 0
local nbatch = tonumber((arg or {})[2]) or 50    -- 500: a 10^7-configuration space
local framework = (arg or {})[3] or "auto"
local checkpoint = (arg or {})[4]
if checkpoint then os.remove(checkpoint) end
-- the configurations a checkpoint's chunk holds (default 250,000)
if (arg or {})[5] then require("dlbench.sweep_model_checkpoint").chunk_configs = tonumber(arg[5]) end

local function hwm()
  local f = io.open("/proc/self/status")
  if not f then return "?" end
  local s = f:read("*a")
  f:close()
  return s:match("VmHWM:%s*(%d+)") and string.format("%.0f MB", tonumber(s:match("VmHWM:%s*(%d+)")) / 1024) or "?"
end

local seq, batch = {}, {}
for i = 1, 50 do seq[i] = 128 * i end            -- 128 .. 6400 tokens
for i = 1, nbatch do batch[i] = i end            -- micro-batch 1 .. 50
local space = {
  layers = { 4, 8, 12, 16, 20, 24, 32, 40, 48, 64 },
  hidden = { 512, 768, 1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144 },
  heads = { 8, 16, 32, 64 },
  seq = seq, batch = batch,
  device = "H100-SXM",
}
local t0 = os.clock()
local w0 = dlb.sys and dlb.sys.now and dlb.sys.now() or nil
local function builder(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.heads, context = 6400,
    seq = p.seq, batch = p.batch }
end
local opts = {
  bind = { "batch", "seq" },
  throughput = { "batch", "seq" },   -- tokens per second
  pareto = { { minimize = { "time", "memory" }, where = "fits" },
             { maximize = { "throughput" }, minimize = { "memory" }, where = "fits" } },
  heatmap = { x = "layers", y = "hidden", value = "time", agg = "min", where = "fits" },
  top = { k = 5, by = "time" },
  threads = threads,
  stats = { framework = framework },
  checkpoint = checkpoint,
}
local r = dlb.sweep.model(builder, space, opts)
print(string.format("dlb.sweep.model (framework %s): %d GPT configurations (%d structures, <= %d op classes each) "
  .. "in %.2f s (compile %.2f s), %.0f configurations/s, peak RSS %s, CPU %.2f s",
  framework, r.count, r.structures, r.classes, r.seconds, r.compile_seconds, r.count / r.seconds, hwm(), os.clock() - t0))
if checkpoint then
  local f = io.open(checkpoint, "rb")
  local size = f:seek("end")
  f:close()
  local r2 = dlb.sweep.model(builder, space, opts)
  print(string.format("checkpoint %s: %d chunks, %.0f kB, its work (each chunk reduced alone, its "
    .. "state read, written, synced and added) %.3f s = %.2f%% of the sweep's %.2f s; the same call "
    .. "resumed from it: %d chunks resumed in %.2f s (compile %.2f s)", checkpoint, r.chunks,
    size / 1e3, r.checkpoint_seconds, 100 * r.checkpoint_seconds / r.seconds, r.seconds, r2.resumed,
    r2.seconds, r2.compile_seconds))
end
print(string.format("Pareto fronts (configurations that fit): time vs memory %d, tokens/s vs memory %d; "
  .. "heat map %d x %d (min step time over layers x hidden)", r.paretos[1]:count(), r.paretos[2]:count(),
  #r.heatmap.x, #r.heatmap.y))

-- the per-configuration path on 200 configurations of the same space, for the ratio (each a
-- graph built with the swept dims symbolic, g:stats{framework = "auto"} + dlb.roofline.time)
local seed = 7
local function pick(list) seed = (seed * 16807) % 2147483647; return list[1 + seed % #list] end
local c0 = os.clock()
for _ = 1, 200 do
  local g = dlb.models.gpt { layers = pick(space.layers), hidden = pick(space.hidden),
    heads = pick(space.heads), context = 6400, seq = "seq", batch = "batch" }
  dlb.roofline.time(g:stats { framework = framework, seq = pick(seq), batch = pick(batch) }, "H100-SXM")
end
local per = (os.clock() - c0) / 200
print(string.format("per-configuration path (build + g:stats + roofline.time) on the same space: %.1f ms "
  .. "CPU per configuration (%.0f configurations/s); compiled: %.2f us wall per configuration",
  per * 1e3, 1 / per, r.seconds / r.count * 1e6))
