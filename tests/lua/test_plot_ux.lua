-- test_plot_ux.lua — figures a researcher meets first (issue [14]): the legend's "best"
-- place finds free space anywhere (scored on what is drawn), an outside legend leaves the
-- axes most of the width, time and count tick formats, the log-symmetric diverging norm,
-- one colour scale for comparison panels, box medians that contrast with their fill.
-- Pixel probes at 100 dpi; expected colours from dlb.plot.cmap (the same map).
local T = require "harness"
local dlb = require "dlbench"
local plot = dlb.plot

local dir = io.popen("mktemp -d /tmp/dlb_plot_ux.XXXXXX"):read("*l")
local function tmp(name) return dir .. "/" .. name end
local function probe(f, png, x, y, panel)
  local px, py = (panel or f:panel(1)):to_pixel(x, y, 100)
  return { plot.png_pixel(png, math.floor(px), math.floor(py)) }
end
local function same(what, px, r, g, b)
  T.near(px[1], r, 0.03, what .. " red"); T.near(px[2], g, 0.03, what .. " green")
  T.near(px[3], b, 0.03, what .. " blue")
end

T.test("legend 'best': free space away from the eight named places is found", function()
  -- a dense frame of markers along the four edges and the two middle lines: every corner
  -- and edge-centre position is covered, the four quarter-centres are free
  local x, y = {}, {}
  local function add(a, b) x[#x + 1] = a; y[#y + 1] = b end
  for i = 0, 200 do
    local t = i / 200
    add(t, 0); add(t, 1); add(0, t); add(1, t); add(t, 0.5); add(0.5, t)
    add(t, 0.05); add(t, 0.95); add(0.05, t); add(0.95, t); add(t, 0.45); add(t, 0.55)
    add(0.45, t); add(0.55, t)
  end
  local f = plot.figure { width = 4, height = 3 }
  f:scatter { x = x, y = y, size = 3, label = "frame" }
  f.legend = "best"
  T.eq(table.concat(f:layout_check(), "; "), "", "best finds a free spot")
  f.legend = "upper right" -- the old choice: over the frame, with free space elsewhere
  local bad = f:layout_check()
  assert(#bad == 1 and bad[1]:find("legend covers data where a free spot exists", 1, true),
    table.concat(bad, "; "))
end)

T.test("an outside legend keeps the axes at least 80% of their width", function()
  local x, y = {}, {}
  for i = 1, 400 do x[i] = i; y[i] = (i * 37 % 101) / 100 end -- fills the axes
  local f = plot.figure { width = 4, height = 3 }
  f:scatter { x = x, y = y, size = 6, label = "a rather long description of these points" }
  f:line { x = { 1, 400 }, y = { 0, 1 }, label = "and a second long legend entry here" }
  f.legend = "best"
  f.xlim = { 0, 400 }
  local x0 = f:panel(1):to_pixel(0, 0, 72)
  local x1 = f:panel(1):to_pixel(400, 0, 72)
  -- 4 in = 288 pt; the axes alone (no legend) take about 85% of that: a legend to their
  -- right would leave ~60%; above them (in columns) they keep their width
  assert((x1 - x0) / 288 > 0.75, "axes width " .. (x1 - x0) / 288)
  T.eq(#f:layout_check(), 0, "layout")
end)

T.test("tick formats: time in s/ms/µs, counts with B for billions", function()
  T.eq(plot.tick_format(5e-6, "time", 1e-6), "5 µs")
  T.eq(plot.tick_format(0.02, "time", 0.01), "20 ms")
  T.eq(plot.tick_format(1.5e9, "count", 5e8), "1.5B")
  T.eq(plot.tick_format(3e11, "count", 1e11), "300B")
  T.eq(plot.tick_format(2e12, "count", 1e12), "2T")
  local f = plot.figure {}
  f:line { x = { 1e9, 3e9 }, y = { 1e-6, 3e-6 } }
  f.xtickformat, f.ytickformat = "count", "time"
  T.checkerr("unknown format 'tokens'", function() f.xtickformat = "tokens" end)
end)

T.test("log-symmetric norm: ratios around 1 get symmetric colours", function()
  -- values 0.25 0.5 1 2 4: log-symmetric around 1 over [1/4, 4]: t = 0.5 + log(v)/(2 log 4),
  -- so 2 -> 0.75, 0.5 -> 0.25, 1 -> 0.5
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:heatmap { z = { { 0.25, 0.5, 1, 2, 4 } }, cmap = "diverging", norm = "logsym",
              colorbar_label = "speed-up" }
  assert(f:save(tmp("logsym.png"), { dpi = 100 }))
  same("v=2", probe(f, tmp("logsym.png"), 4, 1), plot.cmap("diverging", 0.75))
  same("v=0.5", probe(f, tmp("logsym.png"), 2, 1), plot.cmap("diverging", 0.25))
  same("v=1", probe(f, tmp("logsym.png"), 3, 1), plot.cmap("diverging", 0.5))
  T.checkerr('norm must be "linear" or "logsym"', f.heatmap, f, { z = { { 1 } }, norm = "log" })
end)

T.test("comparison panels share one colour scale (same colour-bar label)", function()
  local f = plot.figure { width = 6, height = 2.4, cols = 2 }
  f:panel(1):heatmap { z = { { 0, 1 } }, colorbar_label = "utilization" }
  f:panel(2):heatmap { z = { { 0, 2 } }, colorbar_label = "utilization" }
  assert(f:save(tmp("shared.png"), { dpi = 100 }))
  -- shared range 0..2: value 1 in panel 1 is the map's middle, not its top
  same("panel 1, v=1", probe(f, tmp("shared.png"), 2, 1, f:panel(1)), plot.cmap("viridis", 0.5))
  same("panel 2, v=2", probe(f, tmp("shared.png"), 2, 1, f:panel(2)), plot.cmap("viridis", 1))
  -- share_colors = false keeps a panel's own range
  local g = plot.figure { width = 6, height = 2.4, cols = 2 }
  g:panel(1):heatmap { z = { { 0, 1 } }, colorbar_label = "utilization", share_colors = false }
  g:panel(2):heatmap { z = { { 0, 2 } }, colorbar_label = "utilization" }
  assert(g:save(tmp("own.png"), { dpi = 100 }))
  same("own range, v=1", probe(g, tmp("own.png"), 2, 1, g:panel(1)), plot.cmap("viridis", 1))
  -- share_colors = 0 is off too, as mask= and the colour bar read numbers (review7: it was on,
  -- "0 and 1 or 0"); a string is an error
  local h = plot.figure { width = 6, height = 2.4, cols = 2 }
  h:panel(1):heatmap { z = { { 0, 1 } }, colorbar_label = "utilization", share_colors = 0 }
  h:panel(2):heatmap { z = { { 0, 2 } }, colorbar_label = "utilization" }
  assert(h:save(tmp("own0.png"), { dpi = 100 }))
  same("share_colors = 0: own range, v=1", probe(h, tmp("own0.png"), 2, 1, h:panel(1)), plot.cmap("viridis", 1))
  T.checkerr("heatmap: share_colors must be true or false, got string no", h.heatmap, h,
    { z = { { 1 } }, share_colors = "no" })
end)

T.test("box medians contrast with the fill", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  local dark, light = {}, {}
  for i = 1, 101 do dark[i] = i; light[i] = i end
  f:boxplot { data = { dark, light }, labels = { "dark", "light" } }
  assert(f:save(tmp("box.png"), { dpi = 100 }))
  -- palette colour 1 (dark blue) gets a white median, a light fill a black one: the
  -- median of 1..101 is 51
  local px = probe(f, tmp("box.png"), 1, 51)
  assert(px[1] > 0.9 and px[2] > 0.9 and px[3] > 0.9, "white median on the dark fill")
  local g = plot.figure { width = 3.3, height = 2.4 }
  g:boxplot { data = { light }, labels = { "light" }, color = "#f0e442" }
  assert(g:save(tmp("box2.png"), { dpi = 100 }))
  px = probe(g, tmp("box2.png"), 1, 51)
  assert(px[1] < 0.1 and px[2] < 0.1 and px[3] < 0.1, "black median on the light fill")
end)

T.test("category names that do not fit side by side wrap onto two lines before turning", function()
  local labels = { "16/8/32 m96 z2 1f1b", "64/4/16 m24 z2 1f1b", "256/8/2 m6 z2 il",
    "128/8/4 m12 z2 il", "32/4/32 m48 z2 1f1b", "128/4/8 m12 z2 1f1b" }
  local f = plot.figure { width = 6, height = 3 }
  f:bar { labels = labels, values = { 5, 6, 5.8, 5.2, 6.5, 6.4 } }
  local _, got = f:panel(1):ticks("x")
  T.eq(#got, 6, "every name shown")
  for i, l in ipairs(got) do
    assert(l:find("\n", 1, true), "two lines: " .. l)
    T.eq((l:gsub("\n", " ")), labels[i], "whole, not cut")
  end
  T.eq(#f:layout_check(), 0, "layout")
  assert(f:save(tmp("wrap.png")))
end)

os.execute("rm -rf " .. dir)
T.done()
