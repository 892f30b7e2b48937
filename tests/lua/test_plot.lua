-- test_plot.lua — dlb.plot end to end under both backends: files of the right size in each
-- format (PDF through pdfinfo/pdftoppm, SVG through xmllint), pixel probes of heat maps and
-- box plots, bad input with clear messages, and a clean layout for the standard figures.
local T = require "harness"
local dlb = require "dlbench"
local plot = dlb.plot

-- Run a shell command; its output and whether it succeeded.
local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1; echo \"rc=$?\"")
  local out = p:read("*a")
  p:close()
  local rc = tonumber(out:match("rc=(%d+)%s*$"))
  return out:gsub("rc=%d+%s*$", ""), rc == 0
end

local dir = sh("mktemp -d /tmp/dlb_plot_lua.XXXXXX"):gsub("%s+$", "")
local function tmp(name) return dir .. "/" .. name end
local function exists(p) local f = io.open(p, "rb"); if f then f:close() end; return f ~= nil end
local function leftovers()
  local out = sh("ls -a " .. dir)
  local n = 0
  for _ in out:gmatch("%.tmp%.") do n = n + 1 end
  return n
end

local function heat_figure()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:heatmap { x = { 64, 128, 256 }, y = { "fc", "cnn" }, z = { { 0, 1, 2 }, { 3, 4, 5 } },
              mask = { { false, false, false }, { false, false, true } } }
  f.xlabel, f.ylabel = "Batch", "Model"
  return f
end

T.test("PNG has the pixel size of inches x dpi", function()
  local f = heat_figure()
  assert(f:save(tmp("h.png"), { dpi = 100 }))
  local w, h = plot.png_size(tmp("h.png"))
  T.eq(w, 330, "width"); T.eq(h, 240, "height")       -- 3.3 x 2.4 in at 100 dpi
  -- a pHYs chunk tells LaTeX the size: 100 dpi = 3937 pixels per metre
  local png = io.open(tmp("h.png"), "rb"):read("*a")
  local at = png:find("pHYs", 1, true)
  assert(at and at < 60, "no pHYs chunk after IHDR")
  local b1, b2, b3, b4 = png:byte(at + 4, at + 7)
  T.eq(((b1 * 256 + b2) * 256 + b3) * 256 + b4, 3937, "pixels per metre")
  T.eq(png:byte(at + 12), 1, "unit metre")
  assert(f:save(tmp("h300.png"), { dpi = 300 }))
  -- a dpi <= 0 was the figure's own dpi without a word (figure{dpi = 0} is an error)
  T.checkerr("figure:save: dpi -5 is not 10-2400", f.save, f, tmp("hneg.png"), { dpi = -5 })
  T.checkerr("figure:save: dpi 0 is not 10-2400", f.save, f, tmp("hneg.png"), { dpi = 0 })
  w, h = plot.png_size(tmp("h300.png"))
  T.eq(w, 990, "width at 300 dpi"); T.eq(h, 720, "height at 300 dpi")
end)

T.test("a heat-map cell has its colour-map colour; a masked cell is white", function()
  local f = heat_figure()
  assert(f:save(tmp("probe.png"), { dpi = 100 }))
  -- cell (i=2, j=1) holds 1; the range is 0..4 (the masked 5 is not counted): t = 0.25
  local px, py = f:to_pixel(2, 1, 100)
  local r, g, b = plot.png_pixel(tmp("probe.png"), math.floor(px), math.floor(py))
  local wr, wg, wb = plot.cmap("viridis", 0.25)
  T.near(r, wr, 0.02, "red"); T.near(g, wg, 0.02, "green"); T.near(b, wb, 0.02, "blue")
  px, py = f:to_pixel(1, 2, 100)                       -- z = 3: t = 0.75
  r, g, b = plot.png_pixel(tmp("probe.png"), math.floor(px), math.floor(py))
  wr, wg, wb = plot.cmap("viridis", 0.75)
  T.near(r, wr, 0.02, "red"); T.near(g, wg, 0.02, "green"); T.near(b, wb, 0.02, "blue")
  px, py = f:to_pixel(3, 2, 100)                       -- masked
  r, g, b = plot.png_pixel(tmp("probe.png"), math.floor(px), math.floor(py))
  assert(r > 0.99 and g > 0.99 and b > 0.99, "masked cell not white")
end)

T.test("hatched masked cells and a legend entry", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:heatmap { z = { { 1, 2 }, { 3, 4 } }, mask = { { 0, 1 }, { 0, 0 } }, mask_style = "hatch",
              mask_label = "out of memory", colorbar_label = "value" }
  assert(f:save(tmp("hatch.png"), { dpi = 100 }))
  -- the hatched cell mixes white and grey lines: sample a row across it
  local x0, y0 = f:to_pixel(1.6, 1, 100)
  local x1 = f:to_pixel(2.4, 1, 100)
  local white, grey = 0, 0
  for x = math.floor(x0), math.floor(x1) do
    local r = plot.png_pixel(tmp("hatch.png"), x, math.floor(y0))
    if r > 0.95 then white = white + 1 elseif r < 0.8 then grey = grey + 1 end
  end
  assert(white > 3 and grey > 1, "hatch: " .. white .. " white, " .. grey .. " grey")
  T.eq(#f:layout_check(), 0, "overlaps")
end)

T.test("box plot: box 9..91, whiskers 2..98 by default (ParaDnn Fig. 11)", function()
  local v = {}
  for i = 0, 100 do v[#v + 1] = i end                 -- percentile p of 0..100 is p
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:boxplot { data = { v }, labels = { "all" } }
  f.ylim = { -5, 105 }
  assert(f:save(tmp("box.png"), { dpi = 100 }))
  local png = tmp("box.png")
  local function at(x, y)
    local px, py = f:to_pixel(x, y, 100)
    return plot.png_pixel(png, math.floor(px), math.floor(py))
  end
  local br, bg, bb = plot.palette(1)
  local r, g, b = at(1.2, 30)                         -- inside the box
  T.near(r, br, 0.02, "box red"); T.near(g, bg, 0.02, "box green"); T.near(b, bb, 0.02, "box blue")
  r = at(1.2, 94)                                      -- above the box (91), beside the whisker
  assert(r > 0.99, "above the box should be white")
  r = at(1.2, 88)
  T.near(r, br, 0.02, "just inside the box top")
  r = at(1.2, 12)                                      -- just inside the box bottom (9)
  T.near(r, br, 0.02, "just inside the box bottom")
  r = at(1.2, 6)                                       -- below the box, beside the whisker
  assert(r > 0.99, "below the box should be white")
  r = at(1, 4)                                         -- on the lower whisker (from 2)
  assert(r < 0.3, "whisker missing at 4")
  r = at(1, -1)                                        -- below the whisker end: nothing
  assert(r > 0.9, "nothing below the whisker end")
  r, g = at(1, 95)                                     -- on the whisker (to 98)
  assert(r < 0.3, "whisker missing at 95")
  r = at(1, 101)                                       -- above the whisker: no outlier at 101
  assert(r > 0.9, "nothing above the whisker end")
  -- Tukey: box at the quartiles
  local f2 = plot.figure { width = 3.3, height = 2.4 }
  f2:boxplot { data = { v }, tukey = true }
  f2.ylim = { -5, 105 }
  assert(f2:save(tmp("box2.png"), { dpi = 100 }))
  local px, py = f2:to_pixel(1.2, 20, 100)             -- below Q1 = 25: white
  r = plot.png_pixel(tmp("box2.png"), math.floor(px), math.floor(py))
  assert(r > 0.99, "tukey: below Q1 should be white")
end)

-- The colour of PNG pixel at data (x, y) of a figure saved at 100 dpi.
local function probe(f, png, x, y, panel)
  local ax = panel or f:panel(1)
  local px, py = ax:to_pixel(x, y, 100)
  return plot.png_pixel(png, math.floor(px), math.floor(py))
end

-- Pixel {r, g, b} (a table, so calls nest) against the expected colour.
local function same(what, px, wr, wg, wb)
  T.near(px[1], wr, 0.02, what .. " red"); T.near(px[2], wg, 0.02, what .. " green")
  T.near(px[3], wb, 0.02, what .. " blue")
end

T.test("scatter colours by value (colour map) and by group (palette)", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:scatter { x = { 1, 2, 3 }, y = { 1, 2, 3 }, c = { 10, 20, 30 }, cmap = "magma",
              size = 10, alpha = 1, colorbar = true, colorbar_label = "c" }
  f:scatter { x = { 1.5, 2.5 }, y = { 2.5, 1.5 }, group = { "a", "b" }, size = 10, alpha = 1 }
  f.xlim, f.ylim = { 0, 4 }, { 0, 4 }
  assert(f:save(tmp("sc.png"), { dpi = 100 }))
  local wr, wg, wb = plot.cmap("magma", 0.5)            -- c = 20 of 10..30
  same("c=20", { probe(f, tmp("sc.png"), 2, 2) }, wr, wg, wb)
  wr, wg, wb = plot.cmap("magma", 1)
  same("c=30", { probe(f, tmp("sc.png"), 3, 3) }, wr, wg, wb)
  wr, wg, wb = plot.palette(2)                           -- group "b" is the second
  same("group b", { probe(f, tmp("sc.png"), 2.5, 1.5) }, wr, wg, wb)
  T.eq(#f:layout_check(), 0, "overlaps")
end)

T.test("bands and spans fill exactly their region (after text was drawn)", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:span { x = { 1, 2 }, text = "region", color = "#000000", alpha = 0.5 }
  f:band { x = { 0, 10 }, lo = { 1, 1 }, hi = { 2, 2 }, color = "#0000ff", alpha = 1 }
  f.xlim, f.ylim = { 0, 10 }, { 0, 10 }
  assert(f:save(tmp("band.png"), { dpi = 100 }))
  same("in the band", { probe(f, tmp("band.png"), 5, 1.5) }, 0, 0, 1)
  same("above the band", { probe(f, tmp("band.png"), 5, 6) }, 1, 1, 1)
  same("in the span", { probe(f, tmp("band.png"), 1.5, 6) }, 0.5, 0.5, 0.5)
  same("beside the span", { probe(f, tmp("band.png"), 2.5, 6) }, 1, 1, 1)
  -- the band's outline must not start where the caption's text ended (top of the span)
  same("between caption and band", { probe(f, tmp("band.png"), 0.6, 4) }, 1, 1, 1)
  -- series without a colour of their own take the palette in order; coloured ones skip it
  local g = plot.figure {}
  g:span { x = { 1, 2 }, color = "grey" }
  g:line { x = { 0, 3 }, y = { 0, 3 }, width = 6 }
  g.xlim, g.ylim = { 0, 3 }, { 0, 3 }
  assert(g:save(tmp("pal.png"), { dpi = 100 }))
  same("first palette colour", { probe(g, tmp("pal.png"), 2.5, 2.5) }, plot.palette(1))
end)

T.test("a long line keeps its spikes (per-column thinning keeps min and max)", function()
  local x, y = {}, {}
  for i = 1, 50000 do x[i] = i; y[i] = 0 end
  y[25001] = 10                                         -- one spike among 50,000 points
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:line { x = x, y = y, width = 2, color = "#ff0000" }
  f.ylim = { -1, 11 }
  assert(f:save(tmp("spike.png"), { dpi = 100 }))
  same("spike top", { probe(f, tmp("spike.png"), 25001, 9.5) }, 1, 0, 0)
  same("baseline", { probe(f, tmp("spike.png"), 10000, 0) }, 1, 0, 0)
  same("beside the spike", { probe(f, tmp("spike.png"), 20000, 5) }, 1, 1, 1)
end)

T.test("a legend with no free corner goes outside the axes", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:bar { labels = { "a", "b", "c" }, values = { { 5, 5, 5 }, { 5, 5, 5 } },
          stacks = { "lower", "upper" }, width = 1 }
  f.ylim = { 0, 10 }
  assert(f:save(tmp("full.png"), { dpi = 100 }))
  local r2, g2, b2 = plot.palette(2)
  for _, x in ipairs { 0.7, 3.3 } do                   -- upper corners: bars, no legend box
    same("corner at x=" .. x, { probe(f, tmp("full.png"), x, 9.5) }, r2, g2, b2)
  end
  local r1, g1, b1 = plot.palette(1)
  same("lower corner", { probe(f, tmp("full.png"), 0.7, 0.5) }, r1, g1, b1)
  T.eq(#f:layout_check(), 0, "overlaps")
  -- and it stays inside when a corner is free
  local g = plot.figure { width = 3.3, height = 2.4 }
  g:line { x = { 0, 1 }, y = { 0, 1 }, label = "rising" }
  assert(g:save(tmp("free.png"), { dpi = 100 }))
  local px = g:to_pixel(0.1, 0.9, 100)
  local w = plot.png_size(tmp("free.png"))
  assert(px < w * 0.5, "test setup")
  local r = plot.png_pixel(tmp("free.png"), w - 5, 20)
  assert(r > 0.99, "nothing at the right edge: the legend is inside")
end)

T.test("stacked and signed bars", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:bar { labels = { "a", "b" }, values = { { 1, 2 }, { 3, 1 } }, stacks = { "w", "act" } }
  f:bar { labels = { "a", "b" }, values = { -1, 0.5 }, color = "#ff0000", width = 0.2 }
  f.ylim = { -2, 5 }
  assert(f:save(tmp("bar.png"), { dpi = 100 }))
  local r1, g1, b1 = plot.palette(1)
  local r2, g2, b2 = plot.palette(2)
  same("a, stack 1", { probe(f, tmp("bar.png"), 0.75, 0.5) }, r1, g1, b1)
  same("a, stack 2", { probe(f, tmp("bar.png"), 0.75, 2.5) }, r2, g2, b2)   -- 1..4
  same("b, stack 2", { probe(f, tmp("bar.png"), 2.25, 2.5) }, r2, g2, b2)   -- 2..3
  same("above b", { probe(f, tmp("bar.png"), 2.25, 3.5) }, 1, 1, 1)
  same("negative bar", { probe(f, tmp("bar.png"), 1, -0.5) }, 1, 0, 0)     -- 0 down to -1
  same("below it", { probe(f, tmp("bar.png"), 1, -1.5) }, 1, 1, 1)
end)

T.test("PDF: one page of the figure's size, converts with pdftoppm", function()
  local f = heat_figure()
  assert(f:save(tmp("h.pdf")))
  local info, ok = sh("pdfinfo " .. tmp("h.pdf"))
  assert(ok, info)
  assert(info:match("Pages:%s+1"), info)
  local w, h = info:match("Page size:%s+([%d.]+) x ([%d.]+) pts")
  T.near(tonumber(w), 237.6, 1e-3, "width pt"); T.near(tonumber(h), 172.8, 1e-3, "height pt")
  local out, ok2 = sh("pdftoppm -png -r 100 -singlefile " .. tmp("h.pdf") .. " " .. tmp("fromPdf"))
  assert(ok2, out)
  local pw, ph = plot.png_size(tmp("fromPdf.png"))
  T.eq(pw, 330, "pdftoppm width"); T.eq(ph, 240, "pdftoppm height")
  local fonts = sh("pdffonts " .. tmp("h.pdf"))
  assert(fonts:find("DejaVuSans"), "text as text in DejaVu Sans: " .. fonts)
end)

T.test("SVG is well-formed XML sized in points", function()
  local f = heat_figure()
  assert(f:save(tmp("h.svg")))
  local out, ok = sh("xmllint --noout " .. tmp("h.svg"))
  assert(ok, out)
  local svg = io.open(tmp("h.svg")):read("*a")
  assert(svg:find('width="237.6pt"', 1, true), svg:sub(1, 300))
end)

T.test("save: true, or nil and a message; nothing half-written", function()
  local f = heat_figure()
  local ok, msg = f:save(dir .. "/no/such/dir/x.png")
  T.eq(ok, nil, "unwritable")
  assert(msg:find("cannot write", 1, true), msg)
  assert(not exists(dir .. "/no/such/dir/x.png"))
  T.checkerr("unknown file type 'gif'", f.save, f, tmp("x.gif"))
  -- review 15: a misuse raises in both write modes (docs/plot.md, docs/security.md), and the
  -- help text says so (it promised only "true | nil, message")
  T.checkerr("save '" .. tmp("x.jpg") .. "': unknown file type 'jpg' (use .png, .pdf or .svg)",
    f.save, f, tmp("x.jpg"))
  local old = dlb.write_errors("raise")
  local okr, err = pcall(f.save, f, tmp("x.jpg"))
  dlb.write_errors(old)
  T.eq(okr, false, "raises under write_errors('raise') too")
  assert(tostring(err):find("unknown file type 'jpg'", 1, true), err)
  local h = require("dlbench.help").text(f.save)
  assert(h:find("another extension (.jpg) or a dpi outside 10-2400 is an error", 1, true), h)
  T.checkerr("path must be a string", f.save, f, 42)
  T.checkerr("unknown option 'dpj'", f.save, f, tmp("x.png"), { dpj = 3 })
  T.checkerr("dpi must be a number, got string", f.save, f, tmp("x.png"), { dpi = "300" })
  T.checkerr("dpi 5 is not 10-2400", f.save, f, tmp("x.png"), { dpi = 5 })
  T.eq(leftovers(), 0, "temporary files left")
end)

T.test("unknown options name themselves and the valid ones", function()
  T.checkerr("unknown option 'widht' for plot.figure (did you mean 'width'?); accepted: cols, dpi, "
    .. "font, height, rows, sharex, sharey, title, width", plot.figure, { widht = 3 })
  -- no suggestion when nothing is close
  T.checkerr("unknown option 'zzzzzz' for plot.figure; accepted: cols", plot.figure, { zzzzzz = 3 })
  T.checkerr("plot.figure: 'width' must be a number, got string", plot.figure, { width = "3" })
  T.checkerr("rows and cols must be 1 to 16", plot.figure, { rows = 0 })
  T.checkerr("width and height must be 0.5 to 100 inches", plot.figure, { width = 0 })
  local f = plot.figure {}
  local e = T.checkerr("unknown option 'colourbar' for heatmap (did you mean 'colorbar'?)", f.heatmap, f, { z = { { 1 } },
    colourbar = true })
  assert(e:find("colorbar", 1, true))
  T.checkerr("unknown option 'colour' for line (did you mean 'color'?)", f.line, f, { x = { 1 }, y = { 1 }, colour = "red" })
  T.checkerr("unknown property 'xlable' for plot (did you mean 'xlabel'?)", function() f.xlable = "x" end)
  T.checkerr("bad style 'wavy' (valid: solid dashed dotted dashdot none)", f.line, f,
    { x = { 1, 2 }, y = { 1, 2 }, style = "wavy" })
  T.checkerr("unknown cmap 'jet'", f.heatmap, f, { z = { { 1 } }, cmap = "jet" })
  T.checkerr("xscale: unknown scale 'logarithmic'", function() f.xscale = "logarithmic" end)
  T.checkerr("title: text is not valid UTF-8", function() f.title = "bad \xff byte" end)
  T.checkerr("bar: labels[2] is not valid UTF-8", f.bar, f, { labels = { "a", "\xc3" },
    values = { 1, 2 } })
  T.eq(#f:layout_check(), 0, "a failed series leaves nothing behind")
end)

T.test("bad data: empty, mismatched, non-numbers, ragged rows", function()
  local f = plot.figure {}
  T.checkerr("line: 'x' is empty", f.line, f, { x = {}, y = {} })
  T.checkerr("line: x has 3 values but y has 2", f.line, f, { x = { 1, 2, 3 }, y = { 1, 2 } })
  T.checkerr("line: y[2] is string, not a number", f.line, f, { x = { 1, 2 }, y = { 1, "a" } })
  T.checkerr("heatmap: z[2] has 1 values, expected 2", f.heatmap, f, { z = { { 1, 2 }, { 3 } } })
  T.checkerr("heatmap: y has 3 values but z has 2 rows", f.heatmap, f,
    { y = { "a", "b", "c" }, z = { { 1 }, { 2 } } })
  T.checkerr("boxplot: data[2] is empty", f.boxplot, f, { data = { { 1 }, {} } })
  T.checkerr("bar: 3 values do not fill 2 labels", f.bar, f, { labels = { "a", "b" },
    values = { 1, 2, 3 } })
  T.checkerr("roofline: hw[1] (x) has no fp16 peak", f.roofline, f,
    { hw = { { name = "x", peak = { fp32 = 1e12 }, mem_bw = 1e11 } }, precision = "fp16" })
  T.checkerr("figure:panel(3): the figure has 1 panels", f.panel, f, 3)
  T.checkerr("span: needs lo < hi (got 2, 1)", f.span, f, { x = { 2, 1 } })
  T.checkerr("scatter: a colorbar needs values c=", f.scatter, f, { x = { 1 }, y = { 1 },
    colorbar = true })
end)

T.test("log axes refuse values <= 0, whichever comes first", function()
  local f = plot.figure {}
  f:line { x = { 1, 2, 3 }, y = { 1, 0, 3 } }
  T.checkerr("1 value of 'y' <= 0 on a log y axis (first 0)", function() f.yscale = "log" end)
  local g = plot.figure {}
  g.xscale = "log"
  T.checkerr("<= 0 on a log x axis (first -2)", g.line, g, { x = { 1, -2 }, y = { 1, 2 } })
end)

T.test("NaN and Inf are skipped and counted in a warning", function()
  local f = plot.figure {}
  f:line { x = { 1, 2, 3, 4 }, y = { 1, 0 / 0, 1 / 0, 4 } }
  local w = f:warnings()
  T.eq(#w, 1, "warnings")
  assert(w[1]:find("2 NaN or infinite values skipped", 1, true), w[1])
  assert(f:save(tmp("nan.png")))
  T.checkerr("all 2 points are NaN or infinite", f.line, f, { x = { 1, 2 }, y = { 0 / 0, 0 / 0 } })
end)

T.test("roofline from plain device tables; log-log by default", function()
  local a = { name = "A", peak = { fp32 = 100e12, fp16 = 400e12 }, mem_bw = 1e12 }
  local b = { name = "B", peak = { fp32 = 15e12 }, mem_bw = 900e9, flops_eff = 0.8, bw_eff = 0.7 }
  local f = plot.figure { width = 3.3, height = 2.6 }
  f:roofline { hw = { a, b }, points = { { intensity = 10, flops = 5e12, group = "FC" },
                                         { intensity = 300, flops = 60e12, group = "CNN" } } }
  T.eq(f.xscale, "log", "xscale"); T.eq(f.yscale, "log", "yscale")
  assert(f:save(tmp("roof.png"), { dpi = 100 }))
  -- the ceiling of A at intensity 1000 is its peak: the pixel there is the ceiling's black
  local px, py = f:to_pixel(1000, 100e12, 100)
  local r = plot.png_pixel(tmp("roof.png"), math.floor(px), math.floor(py))
  assert(r < 0.3, "no ceiling at the peak: " .. r)
  T.eq(#f:layout_check(), 0, "overlaps")
  local single = plot.figure {}
  single:roofline { hw = a }                           -- one device needs no list
end)

T.test("the standard figures lay out without overlapping text", function()
  local figs = {}
  local f = plot.figure { width = 3.3, height = 2.4 }
  local x, y = {}, {}
  for i = 1, 40 do x[i] = 2 ^ i; y[i] = 1e6 * i * i end
  f:line { x = x, y = y, label = "FLOPs" }
  f:scatter { x = x, y = y, c = x, colorbar = true, colorbar_label = "size" }
  f.xscale, f.yscale = "log", "log"
  f.xlabel, f.ylabel, f.title = "Parameters", "FLOP/s", "Scaling"
  figs[#figs + 1] = f
  local g = plot.figure { width = 7, height = 2.4, rows = 1, cols = 3, sharey = true }
  for c = 1, 3 do
    local ax = g:panel(1, c)
    ax:bar { labels = { "ResNet-50", "Inception-v3", "Transformer", "Seq2Seq" },
             values = { { 1, 2, 3, 4 }, { 2, 2, 2, 2 } }, stacks = { "weights", "activations" } }
    ax.title, ax.xlabel = "GPU " .. c, "Model"
  end
  figs[#figs + 1] = g
  for i, fig in ipairs(figs) do
    local bad = fig:layout_check()
    assert(#bad == 0, "figure " .. i .. ": " .. table.concat(bad, "; "))
    assert(fig:save(tmp("std" .. i .. ".png")))
  end
  -- and the check does find real overlaps
  local n = plot.figure { width = 1.2, height = 1 }
  n:line { x = { 1, 2 }, y = { 1, 2 } }
  n:text { x = 1.5, y = 1.5, text = "a note" }
  n:text { x = 1.5, y = 1.5, text = "another note" }
  assert(#n:layout_check() > 0, "overlap not found")
end)

T.test("the gallery (one of each figure type) has no overlapping text", function()
  DLB_GALLERY = { strict = true }
  local saved_arg = arg
  arg = { tmp("nb") } -- luacheck: ignore
  local ok, err = pcall(dofile, "notebooks/gallery.lua")
  arg, DLB_GALLERY = saved_arg, nil -- luacheck: ignore
  assert(ok, err)
  for _, name in ipairs { "heatmap", "boxplot", "roofline", "bars_stacked", "bars_signed",
                          "learning_curve", "scatter", "panels", "heatmap_diverging" } do
    for _, ext in ipairs { "png", "pdf", "svg" } do
      assert(exists(tmp("nb/gallery/" .. name .. "." .. ext)), name .. "." .. ext)
    end
  end
  local w = plot.png_size(tmp("nb/gallery/readme/heatmap.png"))
  T.eq(w, 363, "README copy at 110 dpi")               -- 3.3 in x 110 dpi
end)

T.test("panels, shared axes, reference lines, bands, text", function()
  local f = plot.figure { width = 7, height = 4, rows = 2, cols = 2, sharex = true,
                          title = "Panels" }
  for i = 1, 4 do
    local ax = f:panel(i)
    ax:band { x = { 1, 2, 3 }, lo = { 0, 1, 2 }, hi = { 2, 3, 4 }, label = "band" }
    ax:line { x = { 1, 2, 3 }, y = { 1, 2, 3 }, label = "fit", marker = "square" }
    ax:hline { y = 2.5, label = "target" }
    ax:vline { x = 2 }
    ax:diag {}
    ax:text { x = 1.1, y = 3.5, text = "10^{3} note" }
    ax:span { x = { 2.5, 3 }, text = "region", label = "span" }
    ax.grid = true
  end
  f:panel(2, 1).xlabel = "x"
  assert(f:save(tmp("panels.pdf")))
  assert(f:save(tmp("panels.png"), { dpi = 72 }))
  local w, h = plot.png_size(tmp("panels.png"))
  T.eq(w, 504, "7 in at 72 dpi"); T.eq(h, 288, "4 in at 72 dpi")
  local bad = f:layout_check()
  assert(#bad == 0, table.concat(bad, "; "))
end)

T.test("ticks and labels from Lua", function()
  local t = plot.ticks(0, 1, 5)
  T.eq(#t, 6, "ticks"); T.near(t[2], 0.2, 1e-12, "step")
  T.eq(plot.tick_format(1e7, "si"), "10M", "si")
  T.eq(plot.tick_format(1e9, "si"), "1G", "si")
  T.eq(plot.tick_format(1000, "pow"), "10^{3}", "pow")
  T.checkerr("unknown colour map 'jet'", plot.cmap, "jet", 0.5)
  assert(dlb.doc.get(plot.figure), "help text")
  local f = plot.figure {}
  local d = dlb.doc.get(f.heatmap)
  assert(d and d.signature:find("f:heatmap", 1, true), "help for figure methods")
  assert(dlb.doc.get(f:panel(1).boxplot), "help for panel methods")
end)

T.test("user ticks and tick labels", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:line { x = { 8, 16, 32, 64 }, y = { 1, 2, 3, 4 } }
  f.xscale = "log"
  f.xticks = { 8, 16, 32, 64 }
  f.yticks = { 1, 2.5, 4 }
  f.yticklabels = { "low", "mid", "high" }
  assert(f:save(tmp("ticks.png"), { dpi = 100 }))
  T.eq(#f:layout_check(), 0, "overlaps")
  local xv, xl = f:ticks("x")
  T.eq(table.concat(xl, " "), "8 16 32 64", "x tick labels")
  T.eq(xv[4], 64, "x tick value")
  local _, yl = f:ticks("y")
  T.eq(table.concat(yl, " "), "low mid high", "y tick labels")
  T.checkerr("yticklabels has 4 labels but yticks has 3 positions", function()
    f.yticklabels = { "a", "b", "c", "d" }
  end)
  T.checkerr("xticks[2] is a string, not a number", function() f.xticks = { 1, "x" } end)
  f.xticks = nil                                        -- automatic again
  assert(f:save(tmp("ticks2.png")))
  xv, xl = f:ticks("x")
  T.eq(table.concat(xl, " "), "10 20 50", "under two decades: 1/2/5 x 10^n ticks")
end)

T.test("automatic ticks: log decades, 1/2/5 steps, SI labels, colour bar", function()
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:line { x = { 1e3, 1e9 }, y = { 0, 0.93 } }
  f.xscale = "log"
  local _, xl = f:ticks("x")
  T.eq(table.concat(xl, " "), "1k 10k 100k 1M 10M 100M 1G", "decades")
  local yv = f:ticks("y")
  T.eq(#yv, 5, "y ticks"); T.near(yv[2] - yv[1], 0.2, 1e-12, "y step")   -- 0 .. 0.8
  local g = plot.figure {}
  g:heatmap { z = { { -1, 3 } } }
  local cv, cl = g:ticks("colorbar")
  assert(#cv >= 3, "colour bar ticks")
  T.eq(cl[1], "\xe2\x88\x921.0", "a real minus sign")  -- -1.0 (step 0.5)
  T.eq(#f:ticks("colorbar"), 0, "no colour bar")
  -- a two-slope (diverging) bar ticks both halves and its centre
  local d = plot.figure {}
  d:heatmap { z = { { 0.8, 1, 3 } }, cmap = "diverging", center = 1, colorbar_label = "speed-up" }
  local dv = d:ticks("colorbar")
  local below, centre = 0, false
  for _, v in ipairs(dv) do
    if v < 1 then below = below + 1 end
    if v == 1 then centre = true end
  end
  assert(below >= 1 and centre, "diverging colour bar ticks: " .. table.concat(dv, " "))
  T.eq(#d:layout_check(), 0, "overlaps")
end)

T.test("edge-case axes: wide, tiny, offset, constant, negative", function()
  local M = "\xe2\x88\x92"                              -- U+2212 minus sign
  local cases = {
    { { 1e-10, 1e10 }, "log", "10^{" .. M .. "9} 10^{" .. M .. "6} 10^{" .. M .. "3} 10^{0} "
      .. "10^{3} 10^{6} 10^{9}" },                      -- one style: powers of ten
    { { -1e-6, 1e-6 }, nil, M .. "10^{" .. M .. "6} " .. M .. "5\xc3\x9710^{" .. M .. "7} 0 "
      .. "5\xc3\x9710^{" .. M .. "7} 10^{" .. M .. "6}" },
    { { 1e12, 1e12 + 1 }, nil, nil },                   -- SI would repeat "1T": digits
    { { 5, 5 }, nil, "4.0 4.5 5.0 5.5 6.0" },           -- a constant gets a unit range
    { { 0, 3.5e9 }, nil, "0 1G 2G 3G" },
    { { -250, -3 }, nil, M .. "200 " .. M .. "100 0" },
  }
  for i, c in ipairs(cases) do
    local f = plot.figure {}
    f:line { x = c[1], y = { 1, 2 } }
    if c[2] then f.xscale = c[2] end
    local _, l = f:ticks("x")
    if c[3] then T.eq(table.concat(l, " "), c[3], "case " .. i) end
    for j = 2, #l do assert(l[j] ~= l[j - 1], "case " .. i .. ": repeated label " .. l[j]) end
    local bad = f:layout_check()
    assert(#bad == 0, "case " .. i .. ": " .. table.concat(bad, "; "))
  end
end)

T.test("figure properties read back; figure methods act on panel 1", function()
  local f = plot.figure { rows = 1, cols = 2, width = 5 }
  f.xlabel = "batch"
  T.eq(f.xlabel, "batch", "figure xlabel")
  T.eq(f:panel(1).xlabel, "batch", "panel 1 xlabel")
  T.eq(f:panel(2).xlabel, nil, "panel 2 untouched")
  f:line { x = { 1, 2 }, y = { 3, 4 } }
  f:panel(1, 2):line { x = { 1, 2 }, y = { 3, 4 } }
  T.checkerr("the figure has 1 x 2 panels", f.panel, f, 2, 1)
  assert(tostring(f):find("1 x 2"))
end)

os.execute("rm -rf " .. dir)
T.done()
