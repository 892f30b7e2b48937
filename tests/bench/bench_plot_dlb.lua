-- bench_plot_dlb.lua — the dlbench side of the figure benchmark (tests/bench/bench_plot.sh):
-- draws the heat map (32 x 32 cells, colour bar) or the 10,000-point box plot (4 groups of
-- 2,500, ParaDnn's 2/9/50/91/98), a 1e6-point line or a 100,000-point scatter to one file. The data match bench_plot_mpl.py exactly
-- (the same LCG). Usage: dlbench run bench_plot_dlb.lua heatmap|boxplot OUT.png|OUT.pdf
-- With no arguments (./build.sh bench) it draws all four into out/bench/ and times them.
local dlb = require "dlbench"

local lcg = require("dlbench.notebook").lcg -- bench_plot_mpl.py's lcg, exact on both backends

local function heatmap(path)
  local z, xs, ys = {}, {}, {}
  for i = 1, 32 do xs[i] = 2 ^ (i % 12 + 4) * i end
  for j = 1, 32 do
    ys[j] = 16 * j
    z[j] = {}
    for i = 1, 32 do z[j][i] = math.sin(i / 3) * math.cos(j / 5) + i * j / 1024 end
  end
  local f = dlb.plot.figure { width = 3.3, height = 3.0 }
  f:heatmap { z = z, colorbar = true, colorbar_label = "utilization" }
  f.xlabel, f.ylabel = "Batch size index", "Nodes index"
  assert(f:save(path))
end

local function boxplot(path)
  local r, data = lcg(42), {}
  for g = 1, 4 do
    data[g] = {}
    for i = 1, 2500 do
      local u1, u2 = r(), r()
      data[g][i] = math.exp(0.2 * g + 0.5 * math.sqrt(-2 * math.log(u1 + 1e-12))
        * math.cos(2 * math.pi * u2))
    end
  end
  local f = dlb.plot.figure { width = 3.3, height = 2.4 }
  f:boxplot { data = data, labels = { "FC", "CNN", "RNN", "LSTM" } }
  f.ylabel = "Speedup"
  assert(f:save(path))
end

-- 1e6-point line (the same data as bench_plot_mpl.py's line1m), legend "best"
local function line1m(path)
  local x, y = {}, {}
  for i = 1, 1000000 do x[i] = i; y[i] = math.sin(i / 10000) + (i % 7) / 10 end
  local f = dlb.plot.figure { width = 4.5, height = 3.0 }
  f:line { x = x, y = y, label = "line" }
  f.legend = "best"
  assert(f:save(path))
end

-- 100,000 markers from the same LCG as bench_plot_mpl.py's scatter100k, legend "best"
local function scatter100k(path)
  local r, x, y = lcg(7), {}, {}
  for i = 1, 100000 do x[i] = r() end
  for i = 1, 100000 do y[i] = r() end
  local f = dlb.plot.figure { width = 4.5, height = 3.0 }
  f:scatter { x = x, y = y, size = 4, label = "points" }
  f.legend = "best"
  assert(f:save(path))
end

local what, out = arg and arg[1], arg and arg[2]
if what then
  local fns = { heatmap = heatmap, boxplot = boxplot, line1m = line1m, scatter100k = scatter100k }
  if not fns[what] then
    error("bench_plot_dlb: heatmap, boxplot, line1m or scatter100k, not " .. tostring(what))
  end
  fns[what](out)
else
  os.execute("mkdir -p out/bench")
  for _, w in ipairs { "heatmap", "boxplot" } do
    for _, ext in ipairs { "png", "pdf" } do
      local t0 = os.clock()
      local fn = w == "heatmap" and heatmap or boxplot
      for _ = 1, 10 do fn("out/bench/dlb_" .. w .. "." .. ext) end
      print(string.format("bench_plot: %s %s: %.1f ms per figure (in process, CPU)", w, ext,
        (os.clock() - t0) / 10 * 1000))
    end
  end
  -- issue [14]'s cases: the 1e6-point line and the 100,000-point scatter, layout and save
  do
    local X, Y = {}, {}
    for i = 1, 1000000 do X[i] = i; Y[i] = math.sin(i / 10000) + (i % 7) / 10 end
    local f = dlb.plot.figure { width = 4.5, height = 3.0 }
    f:line { x = X, y = Y, label = "line" }
    f.legend = "best"
    local t0 = os.clock(); f:layout_check()
    local t1 = os.clock(); assert(f:save("out/bench/dlb_line1m.png"))
    local t2 = os.clock()
    print(string.format("bench_plot: 1e6-point line: layout %.0f ms, save PNG %.0f ms (in process, CPU)",
      (t1 - t0) * 1000, (t2 - t1) * 1000))
    local r, x, y = lcg(7), {}, {}
    for i = 1, 100000 do x[i] = r() end
    for i = 1, 100000 do y[i] = r() end
    local g = dlb.plot.figure { width = 4.5, height = 3.0 }
    g:scatter { x = x, y = y, size = 4, label = "points" }
    g.legend = "best"
    t0 = os.clock(); assert(g:save("out/bench/dlb_scatter100k.png"))
    t1 = os.clock(); assert(g:save("out/bench/dlb_scatter100k.pdf"))
    t2 = os.clock()
    local fh = io.open("out/bench/dlb_scatter100k.pdf", "rb")
    local size = fh:seek("end"); fh:close()
    print(string.format("bench_plot: 100,000-point scatter: save PNG %.0f ms, PDF %.0f ms, %d bytes (in process, CPU)",
      (t1 - t0) * 1000, (t2 - t1) * 1000, size))
  end
  -- large series: 100,000 points, a zig-zag line (the stroker's worst case) and markers
  local x, y = {}, {}
  for i = 1, 100000 do x[i] = i; y[i] = math.sin(i / 1000) + (i % 7) / 10 end
  for _, kind in ipairs { "line", "scatter" } do
    for _, ext in ipairs { "png", "pdf" } do
      local t0 = os.clock()
      local f = dlb.plot.figure {}
      if kind == "line" then f:line { x = x, y = y, label = "line" }
      else f:scatter { x = x, y = y, size = 1, label = "points" } end
      assert(f:save("out/bench/dlb_100k_" .. kind .. "." .. ext))
      print(string.format("bench_plot: 100,000-point %s %s: %.0f ms (in process, CPU)", kind,
        ext, (os.clock() - t0) * 1000))
    end
  end
end
