-- layouts_rows_dump.lua — every row dlb.sweep.layouts keeps for bench_sweep_layouts.lua's
-- space (keep = true), and its reductions (Pareto front, top 5, heat map, groups), written
-- with %.17g (bit-exact doubles), so that two builds' answers can be compared with cmp (not a
-- benchmark and not a test: a tool for changes that must not move any row, as
-- plan_rows_dump.lua is for dlb.parallel.plan).
-- Run:  dlbench run tests/bench/layouts_rows_dump.lua > /tmp/a.txt   (build A)
--       dlbench run tests/bench/layouts_rows_dump.lua > /tmp/b.txt   (build B);  cmp /tmp/a.txt /tmp/b.txt
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/layouts_rows_dump.lua). An argument
-- "quick" sweeps 2 models x 3 GPU counts instead of 8 x 7.
local dlb = require "dlbench"
local quick = (arg and arg[1]) == "quick"

local function val(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end

local function dump(name, t)
  local cols = t:columns()
  local n = t:count()
  io.write(string.format("== %s: %d rows\n", name, n))
  io.write(table.concat(cols, " "), "\n")
  local data = {}
  for i, c in ipairs(cols) do data[i] = t:column(c) end
  for r = 1, n do
    local parts = {}
    for i = 1, #cols do parts[i] = val(data[i][r]) end
    io.write(r, " ", table.concat(parts, " "), "\n")
  end
end

local r = dlb.sweep.layouts(function(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.hidden / 128, context = 2048 }
end, {
  layers = quick and { 24 } or { 24, 48 }, hidden = quick and { 2048, 4096 } or { 2048, 4096, 5120, 8192 },
  gpus = quick and { 64, 256, 1024 } or { 64, 128, 256, 512, 1024, 2048, 4096 }, device = "H100-SXM",
}, {
  plan = { batch = 1024, precision = "mixed" },
  pareto = { minimize = { "step", "gpus" } },
  top = { k = 5, by = "-mfu" },
  heatmap = { x = "layers", y = "hidden", value = "mfu", agg = "max" },
  group_by = { keys = { "layers", "hidden" }, values = { "step", "mfu" } },
  keep = true,
})
io.write(string.format("count %d evaluated %d models %d\n", r.count, r.evaluated, r.models))
dump("pareto", r.pareto)
dump("top", r.top)
dump("group", r.group)
local h = r.heatmap
for j = 1, #h.z do
  local parts = {}
  for i = 1, #h.z[j] do parts[i] = val(h.z[j][i]) end
  io.write("heatmap ", j, " ", table.concat(parts, " "), "\n")
end
dump("rows", r.rows)
