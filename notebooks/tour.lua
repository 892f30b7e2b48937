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
-- Paper-style figures: sized in inches, fonts in points, PNG/PDF/SVG by extension.
do
  local batch, nodes, util = { 64, 128, 256, 512, 1024 }, { 32, 64, 128, 256 }, {}
  for j = 1, #nodes do
    util[j] = {}
    for i = 1, #batch do util[j][i] = 0.6 * (1 - math.exp(-(i + j) / 4)) end
  end
  local f = dlb.plot.figure { width = 3.3, height = 2.4 }
  f:heatmap { x = batch, y = nodes, z = util, cell_labels = true, fmt = "%.2f",
              colorbar_label = "FLOPS utilization" }
  f.xlabel, f.ylabel = "Batch size", "Nodes per layer"
  assert(f:save("out/tour_heatmap.pdf"))
  assert(f:save("out/tour_heatmap.png"))
  print("plots: wrote out/tour_heatmap.pdf and .png; overlapping labels: "
    .. #f:layout_check())
end
-- == end: plots ==

-- == section: sweeps ==
-- == end: sweeps ==

-- == section: scaling ==
-- == end: scaling ==

-- == section: parallel ==
-- == end: parallel ==
