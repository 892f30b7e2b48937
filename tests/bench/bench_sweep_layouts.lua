-- bench_sweep_layouts.lua — issue [20]'s second target: 100,000 (model x layout) plans for
-- GPT sizes on 64-4,096 GPUs (H100-SXM, nodes of 8) in <= 10 s: dlb.sweep.layouts runs the
-- planner (dlb.parallel.plan over each model's per-layer costs, every op timed by the per-op
-- rule) for each model and device count and streams every fitting plan into the reductions
-- (a Pareto front of step time vs GPUs, the best plan per model, a heat map of the best MFU
-- over layers x hidden).
-- usage: build/bin/dlbench run tests/bench/bench_sweep_layouts.lua [checkpoint [keep]]
--        (checkpoint: "-" for none, or a file name: the sweep with checkpoint = it, a fresh file (removed
--        first); r.checkpoint_seconds beside the sweep's time is the cost of making every plan
--        call durable; then the same call again, resumed from the finished file, timed.
--        keep: "keep" keeps every row too, each call's rows then written whole)
--        (LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_sweep_layouts.lua)
local dlb = require "dlbench"
local checkpoint = (arg or {})[1]
if checkpoint == "-" then checkpoint = nil end
local keep = (arg or {})[2] == "keep" or nil
if checkpoint then os.remove(checkpoint) end
local space = {
  layers = { 24, 48 }, hidden = { 2048, 4096, 5120, 8192 },
  gpus = { 64, 128, 256, 512, 1024, 2048, 4096 }, device = "H100-SXM",
}
local opts = {
  plan = { batch = 1024, precision = "mixed" },
  pareto = { minimize = { "step", "gpus" } },
  top = { k = 5, by = "-mfu" },
  heatmap = { x = "layers", y = "hidden", value = "mfu", agg = "max" },
  group_by = { keys = { "layers", "hidden" }, values = { "step", "mfu" } },
  keep = keep, checkpoint = checkpoint,
}
local function builder(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.hidden / 128, context = 2048 }
end
local t0 = os.clock()
local r = dlb.sweep.layouts(builder, space, opts)
print(string.format("dlb.sweep.layouts: %d fitting plans of %d layouts evaluated, %d GPT models x 7 "
  .. "GPU counts, in %.2f s wall (%.2f s CPU); Pareto front (step vs GPUs) %d plans, best MFU %.1f%%",
  r.count, r.evaluated, r.models, r.seconds, os.clock() - t0, r.pareto:count(), 100 * r.top:row(1).mfu))
if checkpoint then
  local f = io.open(checkpoint, "rb")
  local size = f and f:seek("end") or 0
  if f then f:close() end
  print(string.format("checkpoint %s: %d plan calls, %.0f kB; checkpoint work %.3f s = %.2f%% of the sweep",
    checkpoint, r.chunks, size / 1024, r.checkpoint_seconds, 100 * r.checkpoint_seconds / r.seconds))
  local t1 = os.clock()
  local again = dlb.sweep.layouts(builder, space, opts)
  assert(again.resumed == again.chunks and again.count == r.count, "every plan call resumed")
  print(string.format("resumed: %d of %d plan calls from the file in %.2f s wall (%.2f s CPU)",
    again.resumed, again.chunks, again.seconds, os.clock() - t1))
end
