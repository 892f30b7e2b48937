-- test_plot_qa.lua — regressions for the defects QA found in dlb.plot (round 2), headless:
-- pixel probes, ax:ticks, f:layout_check(), f:warnings() and error messages. Runs under
-- both backends.
local T = require "harness"
local dlb = require "dlbench"
local plot = dlb.plot

local dir = io.popen("mktemp -d /tmp/dlb_plot_qa.XXXXXX"):read("*l")
local function tmp(name) return dir .. "/" .. name end
local SRC = debug.getinfo(1, "S").short_src -- this file, as error positions name it

-- Is the pixel at (x, y) of a PNG far from white (drawn on)?
local function inked(path, x, y)
  local r, g, b = plot.png_pixel(path, math.floor(x), math.floor(y))
  return r + g + b < 2.4
end

-- f(...) must fail with a message that names this file (the user's line) and holds frag.
local function user_err(frag, f, ...)
  local e = T.checkerr(frag, f, ...)
  assert(e:sub(1, #SRC + 1) == SRC .. ":", "error points at '" .. e .. "', not at " .. SRC)
  return e
end

local function labels(ax, which)
  local _, l = ax:ticks(which)
  return table.concat(l, " ")
end

T.test("roofline auto limits hold every point; labels stay inside the axes", function()
  -- QA: the 40 TFLOP/s point lay above the V100's auto y limit (~30T) and was not drawn;
  -- "far" was cut at the right edge
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:roofline { hw = dlb.hw.get("V100-SXM2-16GB"),
               points = { { intensity = 300, flops = 40e12, label = "m" },
                          { intensity = 1e5, flops = 1e9, label = "far" } } }
  local p = tmp("roof.png")
  assert(f:save(p, { dpi = 200 }))
  T.eq(#f:warnings(), 0, "warnings")
  T.eq(#f:layout_check(), 0, "layout problems")
  local ax = f:panel(1)
  local mx, my = ax:to_pixel(300, 40e12, 200)
  assert(inked(p, mx, my), "the 40 TFLOP/s point is not drawn")
  local fx, fy = ax:to_pixel(1e5, 1e9, 200)
  assert(inked(p, fx, fy), "the far point is not drawn")
  local w = plot.png_size(p)
  assert(fx + 12 < w, "far point at the figure's edge")
  local left = false -- its label went left of it (right of it there is no room)
  for x = fx - 40, fx - 10 do left = left or inked(p, x, fy) end
  assert(left, "the far point's label is not left of it")
end)

T.test("points outside user limits are counted in a warning at save", function()
  local f = plot.figure {}
  f:roofline { hw = dlb.hw.get("V100-SXM2-16GB"),
               points = { { intensity = 300, flops = 40e12 }, { intensity = 10, flops = 1e12 } } }
  f.ylim = { 1e9, 1e13 }
  assert(f:save(tmp("roof2.png")))
  local w = f:warnings()
  T.eq(#w, 1, "warnings")
  assert(w[1]:find("1 point outside the axis limits", 1, true), w[1])
  local g = plot.figure {}
  g:scatter { x = { 1, 2, 3 }, y = { 1, 2, 30 } }
  g.ylim = { 0, 5 }
  assert(g:save(tmp("sc.png")))
  assert(g:warnings()[1]:find("scatter series 1: 1 point outside", 1, true))
end)

T.test("shared axes with mixed scales are an error; an unset scale follows its column", function()
  local f = plot.figure { rows = 2, sharex = true }
  f:panel(1):line { x = { 1, 1000 }, y = { 1, 2 } }
  f:panel(2):line { x = { 1, 1000 }, y = { 2, 1 } }
  f:panel(1).xscale = "log"
  f:panel(2).xscale = "linear"
  user_err("sharex: panel 1 has a log x axis but panel 2 a linear one",
           function() f:save(tmp("share.png")) end)
  f:panel(2).xscale = "log"
  assert(f:save(tmp("share.png")))
  local g = plot.figure { rows = 2, sharex = true }
  g:panel(1):line { x = { 1, 1000 }, y = { 1, 2 } }
  g:panel(2):line { x = { 1, 1000 }, y = { 2, 1 } }
  g:panel(1).xscale = "log"
  assert(g:save(tmp("share2.png")))
  T.eq(labels(g:panel(1), "x"), labels(g:panel(2), "x"), "shared ticks")
  T.eq(labels(g:panel(2), "x"), "1 10 100 1k", "panel 2 follows the log scale")
end)

T.test("bad limits, text on a log axis and tick-label counts raise at the user's line", function()
  local f = plot.figure {}
  f:line { x = { 1, 10 }, y = { 1, 10 } }
  user_err("xlim = {5, 1}: lo must be below hi", function() f.xlim = { 5, 1 } end)
  f.xmax = 3
  user_err("xmin = 5 but xmax = 3", function() f.xmin = 5 end)
  f.xlim = { 2, 8 }                                    -- both at once is fine
  f.xscale = "log"
  user_err("xmin = -1 <= 0 on a log x axis", function() f.xlim = { -1, 10 } end)
  T.eq(f.xlim[1], 2, "the old limits stay")
  T.eq(labels(f:panel(1), "x"), "2 5", "and are used")
  local g = plot.figure {}
  g.xlim = { -1, 10 }
  user_err("xmin = -1 <= 0 on a log x axis", function() g.xscale = "log" end)
  T.eq(g.xscale, nil, "the scale stays unset")
  local h = plot.figure {}
  h.yscale = "log"
  user_err("text at y = -1 on a log y axis", function() h:text { x = 1, y = -1, text = "a" } end)
  h.xticks = { 1, 2 }
  user_err("xticklabels has 1 labels but xticks has 2", function() h.xticklabels = { "a" } end)
  h.xticklabels = { "a", "b" }
  user_err("unknown property 'colour'", function() h.colour = "red" end)
  user_err("unknown property 'colour'", function() h:panel(1).colour = "red" end)
  user_err("xscale: unknown scale 'lin'", function() h.xscale = "lin" end)
  user_err("line: x has 2 values but y has 1", function() h:line { x = { 1, 2 }, y = { 1 } } end)
  user_err("line: y[2] is string", function() h:line { x = { 1, 2 }, y = { 1, "a" } } end)
  user_err("unknown option 'colour' for line", function() h:line { x = { 1 }, y = { 1 }, colour = 1 } end)
  user_err("roofline: 'hw' must be", function() h:roofline { hw = 1 } end)
  user_err("unknown style", function() plot.tick_format(1, "nope") end)
end)

T.test("a dense series with a long label: the legend goes above, nothing is clipped", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  local xs, ys = {}, {}
  for i = 1, 50 do xs[i] = i; ys[i] = i % 2 end
  f:line { x = xs, y = ys, label = "a zig-zag series with a long label" }
  f.xlabel, f.title = "Training set size m (samples)", "Learning curve of a long title"
  T.eq(#f:layout_check(), 0, "layout problems: " .. table.concat(f:layout_check(), "; "))
  local p = tmp("leg.png")
  assert(f:save(p, { dpi = 100 }))
  T.eq(#f:warnings(), 0, "warnings")
  local x0 = f:panel(1):to_pixel(1, 0, 100)
  local x1 = f:panel(1):to_pixel(50, 0, 100)
  assert(x1 - x0 > 0.6 * 330, "the axes were squeezed to " .. (x1 - x0) .. " px")
end)

T.test("long bar names and titles are shortened, the axes keep their size", function()
  local f = plot.figure {}
  f:bar { labels = { "ResNet-50 (ImageNet, 224x224, batch 256)", "Transformer-big (WMT'14 En-De)",
                     "BERT-large pretraining phase 2", "x" }, values = { 1, 2, 3, 4 } }
  f.title = "A very long title that certainly does not fit in a single-column 3.3 inch figure"
  f.ylabel = "A long y label that is longer than the axis height itself"
  T.eq(#f:layout_check(), 0, "layout problems: " .. table.concat(f:layout_check(), "; "))
  local _, y0 = f:panel(1):to_pixel(1, 0, 200)
  local _, y4 = f:panel(1):to_pixel(1, 4, 200)
  assert(y0 - y4 > 0.35 * 2.4 * 200, "the axes are " .. (y0 - y4) .. " px tall")
  local _, l = f:panel(1):ticks("x")
  assert(l[1]:find("\226\128\166", 1, true), "the long name is not cut: " .. l[1])
  T.eq(l[4], "x", "short names stay")
end)

T.test("save warns once when the layout check finds problems", function()
  local f = plot.figure { width = 1.5, height = 1.2 }
  f:line { x = { 1, 2 }, y = { 1, 2 } }
  f:text { x = 1.5, y = 1.5, text = "a note" }
  f:text { x = 1.5, y = 1.5, text = "another note" }
  assert(#f:layout_check() > 0)
  assert(f:save(tmp("ov.png")))
  local w = f:warnings()
  T.eq(#w, 1, "one warning per save")
  assert(w[1]:find("layout problem", 1, true) and w[1]:find("note", 1, true), w[1])
  assert(f:save(tmp("ov.png")))
  T.eq(#f:warnings(), 2, "and one more for the next save")
end)

T.test("ticks: 1/2/5 steps, SI labels that agree, 1..10 log, constant colour bar", function()
  local t = {}
  for i, v in ipairs(plot.ticks(0, 1e6, 4)) do t[i] = string.format("%g", v) end
  T.eq(table.concat(t, " "), "0 200000 400000 600000 800000 1e+06", "200k steps, never 250k")
  local f = plot.figure {}
  f:line { x = { 0, 1e6 }, y = { 1, 2 } }
  f.xlim = { 0, 1e6 }
  T.eq(labels(f:panel(1), "x"), "0 200k 400k 600k 800k 1M", "0..1M")
  f.xlim = { 1e6, 2e6 }
  T.eq(labels(f:panel(1), "x"), "1.0M 1.2M 1.4M 1.6M 1.8M 2.0M", "one prefix, one decimal")
  local g = plot.figure {}
  g:line { x = { 1, 10 }, y = { 1, 2 } }
  g.xlim = { 1, 10 }
  g.xscale = "log"
  T.eq(labels(g:panel(1), "x"), "1 2 5 10", "one decade: 1/2/5")
  local h = plot.figure {}
  h:heatmap { z = { { 0.5, 0.5 }, { 0.5, 0.5 } } }
  T.eq(labels(h:panel(1), "colorbar"), "0.5", "a constant map: one tick")
  -- a colour bar needs a label (issue [14]): the check names the missing one
  T.eq(table.concat(h:layout_check(), "; "), "panel 1 colour bar has no label (colorbar_label=)")
  local h2 = plot.figure {}
  h2:heatmap { z = { { 0.5, 0.5 }, { 0.5, 0.5 } }, colorbar_label = "utilization" }
  T.eq(#h2:layout_check(), 0, "layout")
end)

T.test("cell labels keep two significant digits at rounding edges", function()
  local f = plot.figure {}
  f:heatmap { z = { { 0.0999, 9.99, 0.47 } }, cell_labels = true, colorbar = false }
  local p = tmp("cells.pdf")
  assert(f:save(p))
  local txt = io.popen("pdftotext " .. p .. " - 2>/dev/null"):read("*a")
  local words = {}
  for w in txt:gmatch("%S+") do words[w] = true end
  assert(words["0.10"] and words["10"] and words["0.47"], "cell labels: " .. txt)
  assert(not words["0.100"] and not words["10.0"], "three digits: " .. txt)
end)

T.test("a roofline point without a group next to grouped ones is 'other' in the legend", function()
  local f = plot.figure {}
  f:roofline { hw = dlb.hw.get("V100-SXM2-16GB"),
               points = { { intensity = 10, flops = 1e12, group = "conv" },
                          { intensity = 20, flops = 2e12 } } }
  T.eq(#f:layout_check(), 0, "layout")
  assert(f:save(tmp("grp.png")))
end)

T.test("random bad options: every error names the user's line", function()
  local keys = { "x", "y", "z", "c", "s", "group", "groups", "labels", "values", "stacks",
                 "data", "hw", "points", "lo", "hi", "text", "label", "color", "whiskers",
                 "box", "mask", "width", "size", "cmap", "mode", "style", "marker", "fmt" }
  local pool = { 1, -1, 0 / 0, "x", "red", true, {}, { 1 }, { 1, 2 }, { "a", "b" }, { {} },
                 { { 1, 2 } }, { x = 1 }, { 1, "a" }, { intensity = 1 }, { { intensity = 1 } } }
  local V100 = dlb.hw.get("V100-SXM2-16GB")
  local base = { -- valid options, perturbed below so errors come from deep inside too
    line = function() return { x = { 1, 2 }, y = { 1, 2 } } end,
    scatter = function() return { x = { 1, 2 }, y = { 1, 2 } } end,
    bar = function() return { values = { 1, 2 } } end,
    heatmap = function() return { z = { { 1, 2 } } } end,
    boxplot = function() return { data = { { 1, 2 } } } end,
    roofline = function() return { hw = V100, points = { { intensity = 1, flops = 1e9 } } } end,
    band = function() return { x = { 1, 2 }, lo = { 1, 2 }, hi = { 2, 3 } } end,
    hline = function() return { y = 1 } end, vline = function() return { x = 1 } end,
    diag = function() return {} end, span = function() return { x = { 1, 2 } } end,
    text = function() return { x = 1, y = 1, text = "a" } end,
  }
  local methods = { "line", "scatter", "bar", "heatmap", "boxplot", "roofline", "band",
                    "hline", "vline", "diag", "span", "text" }
  math.randomseed(7)
  local n = 0
  for _ = 1, 1500 do
    local m = methods[math.random(#methods)]
    local o = math.random(3) > 1 and base[m]() or {}
    for _ = 1, math.random(0, 3) do o[keys[math.random(#keys)]] = pool[math.random(#pool)] end
    local f = plot.figure {}
    if math.random(4) == 1 then f.yscale = "log" end
    local target = math.random(2) == 1 and f or f:panel(1)
    local ok, e = pcall(function() target[m](target, o) end)
    if not ok then
      n = n + 1
      e = tostring(e)
      assert(e:sub(1, #SRC + 1) == SRC .. ":", m .. ": error points at '" .. e .. "'")
    end
  end
  assert(n > 500, "too few errors: " .. n)
end)

T.test("roofline points take marker= (star among them); an unknown marker is an error listing them", function()
  -- a session found points' marker="star" silently drawn as the group's circle
  local function draw(marker, path)
    local f = plot.figure { width = 3.3, height = 2.4 }
    f:roofline { hw = dlb.hw.get("V100-SXM2-16GB"),
                 points = { { intensity = 30, flops = 1e12, marker = marker } } }
    assert(f:save(path, { dpi = 400 }))
    return f:panel(1)
  end
  local ax = draw(nil, tmp("roof_circle.png"))
  draw("star", tmp("roof_star.png"))
  local cx, cy = ax:to_pixel(30, 1e12, 400)
  -- the markers are 4 pt wide (11 px at 400 dpi, r = 11): between two of the star's tips
  -- (36 degrees right of the top one) at 0.8 r the circle is inked and the star is not (its
  -- inner corners are at 0.45 r)
  local r = 4 / 72 * 400 / 2
  local a = math.rad(-90 + 36)
  local qx, qy = cx + 0.8 * r * math.cos(a), cy + 0.8 * r * math.sin(a)
  assert(inked(tmp("roof_circle.png"), qx, qy), "the default circle is not drawn")
  assert(not inked(tmp("roof_star.png"), qx, qy), "marker='star' drew no star")
  assert(inked(tmp("roof_star.png"), cx, cy), "the star is not drawn")
  local f = plot.figure {}
  T.checkerr("roofline: points[2].marker 'hexagon' is not a marker (valid: none circle square "
    .. "triangle diamond cross plus star)", f.roofline, f, { hw = dlb.hw.get("V100-SXM2-16GB"),
      points = { { intensity = 10, flops = 1e12 }, { intensity = 30, flops = 2e12, marker = "hexagon" } } })
  T.checkerr("roofline: points[1].marker must be a marker name, got number", f.roofline, f,
    { hw = dlb.hw.get("V100-SXM2-16GB"), points = { { intensity = 10, flops = 1e12, marker = 3 } } })
end)

-- Review 8: bad text and bad limits are errors naming what the user wrote. A NUL byte
-- (C strings end there) named an internal binding function and its argument number; a
-- roofline point <= 0 named the internal arrays 'px'/'py'; xlim = {NaN, 1} said "lo must be
-- below hi" and printed NaN as "-nan" or "nan" by backend.
T.test("review 8: NUL bytes, roofline points and NaN limits name what the user wrote", function()
  local f = plot.figure {}
  user_err("line: option 'label' contains a NUL byte", function() f:line { x = { 1, 2 }, y = { 1, 2 }, label = "a\0b" } end)
  user_err("bar: labels[2] contains a NUL byte", function() f:bar { labels = { "a", "b\0" }, values = { 1, 2 } } end)
  user_err("plot: xlabel contains a NUL byte", function() f.xlabel = "x\0" end)
  f.xticks = { 1, 2 }
  user_err("plot: xticklabels[2] contains a NUL byte", function() f.xticklabels = { "a", "\0" } end)
  user_err("plot.figure: 'title' contains a NUL byte", function() plot.figure { title = "t\0" } end)
  -- the failed series left nothing behind: the figure still saves
  f:line { x = { 1, 2 }, y = { 1, 2 } }
  assert(f:save(tmp("nul.png")))
  local r = plot.figure {}
  local hw = dlb.hw.get("H100-SXM")
  user_err("panel 1, roofline: points[2].intensity = 0 <= 0 on a log x axis", function()
    r:roofline { hw = { hw }, points = { { intensity = 4, flops = 1e12 }, { intensity = 0, flops = 1e12 } } }
  end)
  user_err("panel 1, roofline: points[1].flops = -1 <= 0 on a log y axis", function()
    r:roofline { hw = { hw }, points = { { intensity = 4, flops = -1 } } }
  end)
  local e = user_err("plot: xlim = {lo, hi} must be numbers, got NaN", function() f.xlim = { 0 / 0, 1 } end)
  assert(not e:find("below"), e)
  user_err("plot: ylim = {lo, hi} must be numbers, got NaN", function() f.ylim = { 1, 0 / 0 } end)
  -- an infinite half: refused before either half is set (the core refused the second only,
  -- suggesting NaN, which is refused above, and left ymin = 1 set)
  local g = plot.figure {}
  g:line { x = { 1, 2 }, y = { 5, 6 } }
  user_err("plot: ylim = {1, inf} must be finite (leave ylim unset", function() g.ylim = { 1, math.huge } end)
  T.eq(g:panel(1):ticks("y")[1], 5, "no half of the limits set (ymin = 1 made the ticks 1..6)")
end)

-- Review 8: a save that fails in the middle (here past the file size limit, as on a full
-- disk) leaves the old file as it was, no temporary, and says why (it said only Cairo's
-- "error while writing to output stream").
T.test("review 8: a save that fails mid-write keeps the old file and says why", function()
  local cmd, skip = T.lua_cmd()
  if not cmd then print("# skipped: " .. skip); return end
  if not os.execute("command -v bash >/dev/null 2>&1") then print("# skipped: needs bash"); return end
  local script = tmp("fsize.lua")
  local f = assert(io.open(script, "w"))
  f:write(string.format([[
local dlb = require "dlbench"
local f = dlb.plot.figure {}
local x, y = {}, {}
for i = 1, 5000 do x[i] = i; y[i] = math.sin(i) end
f:line { x = x, y = y }
for _, ext in ipairs { "png", "svg", "pdf" } do
  local ok, err = f:save(%q .. ext)
  io.write(ext, "|", tostring(ok), "|", tostring(err), "\n")
end
]], tmp("fs.")))
  f:close()
  for _, ext in ipairs { "png", "svg", "pdf" } do
    local o = assert(io.open(tmp("fs." .. ext), "w")); o:write("old"); o:close()
  end
  local p = io.popen(string.format("bash -c 'trap \"\" XFSZ; ulimit -f 2; exec %s %q' 2>&1", cmd, script))
  local out = p:read("*a")
  p:close()
  for _, ext in ipairs { "png", "svg", "pdf" } do
    assert(out:find(ext .. "|nil|save '" .. tmp("fs." .. ext) .. "': File too large", 1, true), out)
    local o = assert(io.open(tmp("fs." .. ext), "rb")); T.eq(o:read("a"), "old", ext .. " kept"); o:close()
  end
  local ls = io.popen("ls -a " .. dir):read("a")
  assert(not ls:find(".tmp.", 1, true), "a temporary file was left: " .. ls)
end)

-- Review 8: help() names every option a plot method accepts (its signature names the
-- common ones; f:scatter's help lacked 11 of its 19, f:heatmap's 10 of 17): the list the
-- unknown-option error gives equals the one help shows.
T.test("review 8: help of each plot method lists exactly the options it accepts", function()
  local doc = require "dlbench.doc"
  local f = plot.figure {}
  local ax = f:panel(1)
  for _, m in ipairs { "line", "scatter", "bar", "heatmap", "boxplot", "roofline", "band", "hline",
                       "vline", "diag", "span", "text" } do
    local _, e = pcall(ax[m], ax, { bogus_option = 1 })
    local acc = tostring(e):match("accepted: ([%w_, ]+)")
    assert(acc, m .. ": " .. tostring(e))
    local d = doc.get(ax[m])
    local shown = d and d.meaning and d.meaning:match("options: ([%w_, ]+)")
    T.eq(shown, acc, "help(ax:" .. m .. ")")
  end
end)

-- Review 8: vmin >= vmax (swapped limits) drew a one-colour map, and a limit <= 0 under
-- norm = "logsym" was ignored: silently wrong colours. Both are errors naming the series.
T.test("review 8: colour-map limits: vmin below vmax, > 0 on the logsym norm; all-NaN bars and bands", function()
  local f = plot.figure {}
  local base = { x = { 1, 2 }, y = { 1, 2 }, z = { { 1, 2 }, { 3, 4 } }, colorbar_label = "z" }
  local function heat(extra)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    for k, v in pairs(extra) do o[k] = v end
    return function() f:heatmap(o) end
  end
  user_err("heatmap: vmin = 5 is not below vmax = 1", heat { vmin = 5, vmax = 1 })
  user_err("heatmap: vmin = 1 is not below vmax = 1", heat { vmin = 1, vmax = 1 })
  user_err('heatmap: vmin = -1 on norm = "logsym" (a log scale): it must be > 0', heat { vmin = -1, norm = "logsym" })
  user_err("scatter: vmax = 0 on norm", function()
    f:scatter { x = { 1, 2 }, y = { 1, 2 }, c = { 1, 2 }, vmax = 0, norm = "logsym" }
  end)
  user_err("scatter: vmin = 3 is not below vmax = 2", function()
    f:scatter { x = { 1, 2 }, y = { 1, 2 }, c = { 1, 2 }, vmin = 3, vmax = 2 }
  end)
  -- a series with nothing to draw is an error (docs/plot.md "Bad input"): bars and bands
  -- with only NaN values were saved blank with a warning, unlike lines and boxes
  user_err("bar: all 2 values are NaN or infinite", function() f:bar { labels = { "a", "b" }, values = { 0 / 0, math.huge } } end)
  user_err("band: all 2 points are NaN or infinite", function() f:band { x = { 1, 2 }, lo = { 0 / 0, 0 / 0 }, hi = { 1, 2 } } end)
  -- review 12: a heat map of only NaN cells was saved blank with a warning; now the one rule
  -- of every kind (plots/series.c dlb_series_commit). Masked cells are drawn: not refused.
  user_err("heatmap: all 4 cells are NaN or infinite", function()
    f:heatmap { z = { { 0 / 0, 0 / 0 }, { math.huge, 0 / 0 } } }
  end)
  do
    local g = plot.figure()
    g:heatmap { z = { { 0 / 0, 0 / 0 } }, mask = { { true, true } }, colorbar = false }
    assert(g:save(tmp("all_masked.png")))
  end
  -- review 12: a band with lo above hi was drawn as if swapped; an error naming it and where
  user_err("band 'CI': lo[2] = 5 is above hi[2] = 2", function()
    f:band { x = { 1, 2, 3 }, lo = { 1, 5, 1 }, hi = { 2, 2, 2 }, label = "CI" }
  end)
  user_err("band: lo[1] = 3 is above hi[1] = 1", function() f:band { x = { 1, 2 }, lo = { 3, 0 }, hi = { 1, 2 } } end)
  heat { vmin = 0 } () -- one side alone, as the notebooks use it
  heat { vmin = 0.5, vmax = 8, norm = "logsym" } ()
  assert(f:save(tmp("vminmax.png")))
end)

os.execute("rm -rf " .. dir)
T.done()
