-- tour.lua — a tour of dlbench: what the README's first command runs.
-- Each section shows one capability; figures go to out/.
local dlb = require "dlbench"

print(string.format("dlbench %s on %s, backend %s", dlb.version(), _VERSION, dlb.backend))
print()

-- == section: graphs ==
-- == end: graphs ==

-- == section: models ==
-- == end: models ==

-- == section: hw ==
-- == end: hw ==

-- == section: plots ==
-- == end: plots ==

-- == section: sweeps ==
do
  print("== sweeps, tables and statistics (ParaDnn's methodology)")
  -- A cheap stand-in for graph + roofline: an FC model's training FLOPs (a MAC is 2 FLOPs,
  -- backward twice forward) and a utilization that saturates with the matmul sizes.
  local space = dlb.paradnn.space("fc", { with = { input = 2000, output = 1000 } })
  local t = dlb.sweep(space, function(p)
    local params = p.input * p.nodes + (p.layers - 1) * p.nodes * p.nodes + p.nodes * p.output
    local util = 1 / (1 + 256 / p.nodes + 512 / p.batch)
    return { params = params, flops = 6 * p.batch * params, util = util }
  end, { jobs = 2, quiet = true })
  print(string.format("%d FC models (Table 2 with input and output fixed), %d columns",
    t:count(), #t:columns()))
  print(t:group_by("batch", { util = "mean", p91 = { "percentile", "util", 91 } }):head(4))
  local xs, ys, z = t:where { layers = 64 }:pivot("nodes", "batch", "util")
  print(string.format("heat map grid: %d nodes x %d batches, z[1][1] = %.3f", #xs, #ys, z[1][1]))
  print(dlb.stats.regress(t, { "layers", "nodes", "batch" }, "util", { log = true }))
  local b = dlb.stats.box(t:column("util"))
  print(string.format("utilization box: p2 %.3f  p9 %.3f  median %.3f  p91 %.3f  p98 %.3f",
    b.whisker_lo, b.q_lo, b.median, b.q_hi, b.whisker_hi))
  local ok, err = t:to_csv("out/tour_fc_sweep.csv")
  print(ok and "wrote out/tour_fc_sweep.csv" or err)
  print()
end
-- == end: sweeps ==

-- == section: scaling ==
-- == end: scaling ==

-- == section: parallel ==
-- == end: parallel ==
