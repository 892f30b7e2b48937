-- dlbench.plot — paper-style figures (Cairo): PNG, PDF and SVG.
--   local f = dlb.plot.figure{width=3.3, height=2.4}         -- inches
--   f:heatmap{x=..., y=..., z=...}; f.xlabel = "batch"; f:save("out/fig.pdf")
-- Options are checked here (an unknown one is an error listing the valid ones); the data
-- goes to the C figure model (plots/) as flat arrays through the backend.
local core = require "dlbench.backend"
local options = require "dlbench.options"
local memory = require "dlbench.memory"
local doc = require "dlbench.doc"

local M = {}
local Figure, Panel = {}, {}

-- Call a core function; its error is raised again at `level` (error's level as seen from
-- the function calling cc), so messages point at the user's line, never into dlbench.
local strip = require("dlbench.errors").strip
local function cc(level, fn, ...)
  local ok, a, b = pcall(fn, ...)
  if not ok then error(strip(a), level + 1) end
  return a, b
end

-- A text for the figure must not hold a NUL byte (C strings end there): an error naming
-- what (the binding's own message named an internal function and argument number).
local function nonul(v, what, level)
  if type(v) == "string" and v:find("\0", 1, true) then
    error(what .. " contains a NUL byte", level == 0 and 0 or level + 1)
  end
end

-- Warnings go to f:warnings() and stderr.
local function warn(fig, w)
  local ws = fig._warnings
  ws[#ws + 1] = w
  io.stderr:write("dlbench: warning: ", w, "\n")
end

-- Series kinds by name, read from the library: the kinds of enum DLB_SERIES_* (through
-- dlbench.desc), each named by the library (dlb_series_options).
local KIND = {}
for k = 0, require("dlbench.desc").const("DLB_SERIES_NKINDS") - 1 do
  KIND[assert(core.plot_series_options(k, -1))] = k
end

local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = tostring(k) end
  table.sort(out)
  return table.concat(out, " ")
end

-- Check an options table against the valid names (a set); error names the bad key.
local function check_opts(what, opts, valid, level)
  options.check(opts, valid, what, level or 3, true)
end

local function set(list)
  local s = {}
  for w in list:gmatch("%S+") do s[w] = true end
  return s
end

-- help()'s list of the options a set accepts (the same set the checker uses, so help and
-- code cannot disagree): "; options: a, b, c".
local function optlist(s, extra)
  local names = {}
  for k in pairs(s) do names[#names + 1] = k end
  for w in (extra or ""):gmatch("%S+") do names[#names + 1] = w end
  table.sort(names)
  return "; options: " .. table.concat(names, ", ")
end

-- Error levels below count from the helper: 2 = the method, 3 = the user's call (methods
-- tail-call `add` and figure proxies tail-call methods, so neither adds a level).
local function need_array(what, name, t, level)
  if type(t) ~= "table" then
    error(string.format("%s: '%s' must be an array, got %s", what, name, type(t)), level or 3)
  end
  if #t == 0 then error(string.format("%s: '%s' is empty", what, name), level or 3) end
  return t
end

-- A nested array of rows -> a flat row-major array; every row must have `width` entries.
local function flatten(what, name, rows, width, conv)
  local out = {}
  for j = 1, #rows do
    local r = rows[j]
    if type(r) ~= "table" then
      error(string.format("%s: %s[%d] must be an array, got %s", what, name, j, type(r)), 3)
    end
    if #r ~= width then
      error(string.format("%s: %s[%d] has %d values, expected %d", what, name, j, #r, width), 3)
    end
    for i = 1, width do out[#out + 1] = conv and conv(r[i]) or r[i] end
  end
  return out
end

-- Arrays of strings become labels, arrays of numbers data.
local function is_strings(t)
  for i = 1, #t do if type(t[i]) ~= "string" then return false end end
  return true
end

---------------------------------------------------------------------------------------
-- Figures and panels

local FIG_OPTS = set("width height rows cols font dpi sharex sharey title")
local PANEL_PROPS = set("title xlabel ylabel xscale yscale legend grid xmin xmax ymin ymax "
  .. "xlim ylim xtickformat ytickformat xticks yticks xticklabels yticklabels")

local panel_mt = {}
local figure_mt = {}

-- A series switch for C: true/false, or a number as the C fields and mask= read it (0 off);
-- anything else an error at the caller's line (share_colors = 0 was on: "0 and 1 or 0").
local function switch01(fn, what, v)
  if type(v) == "boolean" then return v and 1 or 0 end
  if type(v) == "number" and v == v then return v ~= 0 and 1 or 0 end
  error(string.format("%s: %s must be true or false, got %s", fn, what,
    type(v) == "table" and "a table" or (type(v) .. " " .. tostring(v))), 3)
end

local function new_panel(fig, i)
  return setmetatable({ _fig = fig, _i = i, _props = {}, _lim = {} }, panel_mt)
end

-- f = dlb.plot.figure{width=, height=, rows=, cols=, font=, dpi=, sharex=, sharey=, title=}
function M.figure(opts)
  opts = opts or {}
  check_opts("plot.figure", opts, FIG_OPTS)
  for _, k in ipairs { "width", "height", "rows", "cols", "font", "dpi" } do
    if opts[k] ~= nil and type(opts[k]) ~= "number" then
      error(string.format("plot.figure: '%s' must be a number, got %s", k, type(opts[k])), 2)
    end
  end
  if opts.title ~= nil and type(opts.title) ~= "string" then
    error("plot.figure: 'title' must be a string", 2)
  end
  local rows, cols = opts.rows or 1, opts.cols or 1
  if rows ~= math.floor(rows) or cols ~= math.floor(cols) then
    error("plot.figure: rows and cols must be whole numbers", 2)
  end
  memory.account()
  local h = cc(2, core.plot_figure_new, opts.width or 3.3, opts.height or 2.4, rows, cols)
  local f = setmetatable({ _h = h, _panels = {}, _warnings = {}, rows = rows, cols = cols },
                         figure_mt)
  for i = 1, rows * cols do f._panels[i] = new_panel(f, i - 1) end
  if opts.font then cc(2, core.plot_figure_num, h, "font", opts.font) end
  if opts.dpi then cc(2, core.plot_figure_num, h, "dpi", opts.dpi) end
  if opts.sharex then cc(2, core.plot_figure_num, h, "sharex", 1) end
  if opts.sharey then cc(2, core.plot_figure_num, h, "sharey", 1) end
  if opts.title then
    nonul(opts.title, "plot.figure: 'title'", 2)
    cc(2, core.plot_figure_str, h, "title", opts.title)
  end
  return f
end
doc.doc(M.figure, "dlb.plot.figure{width=3.3, height=2.4, rows=1, cols=1, font=8, dpi=200, "
  .. "sharex=, sharey=, title=} -> figure",
  "a figure sized in inches (3.3 single column, 7 double), fonts in points")

-- f:panel(row, col) or f:panel(i): the panel (1-based) to draw into.
function Figure:panel(r, c)
  local i
  if c == nil then i = r else
    if type(r) ~= "number" or type(c) ~= "number" or r < 1 or r > self.rows or c < 1
       or c > self.cols then
      error(string.format("figure:panel(%s, %s): the figure has %d x %d panels", tostring(r),
        tostring(c), self.rows, self.cols), 2)
    end
    i = (r - 1) * self.cols + c
  end
  local p = self._panels[i]
  if not p then
    error(string.format("figure:panel(%s): the figure has %d panels", tostring(i), #self._panels), 2)
  end
  return p
end

-- f:save(path[, {dpi=}]) -> true, or nil and a message when the file cannot be written;
-- a misuse (unknown extension, bad dpi) raises, in either dlb.write_errors mode.
-- Warns (stderr and f:warnings(), once per save) about points outside user limits and
-- about what f:layout_check() would report.
function Figure:save(path, opts)
  if type(path) ~= "string" then error("figure:save: path must be a string", 2) end
  opts = opts or {}
  check_opts("figure:save", opts, set("dpi"))
  if opts.dpi ~= nil and type(opts.dpi) ~= "number" then
    error("figure:save: dpi must be a number, got " .. type(opts.dpi), 2)
  end
  -- the core takes dpi <= 0 for "the figure's own": dpi = -5 or 0 given here was that
  -- silently, where figure{dpi = 0} is an error (the range itself is the core's check)
  if opts.dpi ~= nil and opts.dpi <= 0 then
    error(string.format("figure:save: dpi %g is not 10-2400", opts.dpi), 2)
  end
  local errs = require "dlbench.errors"
  local why = errs.unwritable_name(path)
  if why then return errs.written(nil, "save: " .. why) end
  local ok, msg = cc(2, core.plot_save, self._h, path, opts.dpi or 0)
  if ok then
    local lw = cc(2, core.plot_layout_warning, self._h)
    if lw ~= "" then warn(self, lw) end
    local ov = cc(2, core.plot_overlaps, self._h)
    if #ov > 0 then
      warn(self, string.format("%s: %d layout problem%s (%s%s); see f:layout_check()", path, #ov,
        #ov == 1 and "" or "s", ov[1], #ov > 1 and ", ..." or ""))
    end
  end
  return require("dlbench.errors").written(ok, msg)
end

-- f:layout_check() -> the layout's problems (empty when clean): overlapping text boxes,
-- text leaving the figure, legends over data where a free spot exists, colour bars
-- without a label.
function Figure:layout_check()
  return (cc(2, core.plot_overlaps, self._h))
end

-- The warnings issued so far (NaN/Inf values skipped).
function Figure:warnings()
  local out = {}
  for i, w in ipairs(self._warnings) do out[i] = w end
  return out
end

-- Figure-level series methods act on panel 1 (made once, after Panel is complete).
local proxies = {}

figure_mt.__index = function(t, k)
  if Figure[k] then return Figure[k] end
  if proxies[k] then return proxies[k] end
  local p = rawget(t, "_panels")[1] -- figure-level properties are panel 1's
  if PANEL_PROPS[k] then return p._props[k] end
  return nil
end
local setprop
figure_mt.__newindex = function(t, k, v)
  return setprop(rawget(t, "_panels")[1], k, v, 2) -- a tail call: level 2 is the user's
end
figure_mt.__tostring = function(t)
  return string.format("dlbench figure (%d x %d panels)", t.rows, t.cols)
end

panel_mt.__index = function(t, k)
  if Panel[k] then return Panel[k] end
  if PANEL_PROPS[k] then return t._props[k] end
  return nil
end
-- Set panel property k of panel t; errors at `level` (2: the caller of setprop's caller
-- when setprop is tail-called from __newindex).
setprop = function(t, k, v, level)
  if not PANEL_PROPS[k] then
    error(options.message(k, PANEL_PROPS, "plot", "property"), level)
  end
  local h, i = t._fig._h, t._i
  local lim = t._lim
  if k == "xlim" or k == "ylim" then
    if type(v) ~= "table" or type(v[1]) ~= "number" or type(v[2]) ~= "number" then
      error("plot: " .. k .. " must be {lo, hi}", level)
    end
    if v[1] ~= v[1] or v[2] ~= v[2] then -- %g prints NaN as "nan" or "-nan" by backend
      error(string.format("plot: %s = {lo, hi} must be numbers, got NaN (leave %slim unset "
        .. "for automatic limits)", k, k:sub(1, 1)), level)
    end
    -- infinities before either half is set: the core refused the second half only ("ymax
    -- must be finite (or NaN: automatic)", where NaN is refused above), leaving the first set
    if v[1] == -math.huge or v[1] == math.huge or v[2] == -math.huge or v[2] == math.huge then
      error(string.format("plot: %s = {%g, %g} must be finite (leave %slim unset for automatic "
        .. "limits)", k, v[1], v[2], k:sub(1, 1)), level)
    end
    if not (v[1] < v[2]) then
      error(string.format("plot: %s = {%g, %g}: lo must be below hi", k, v[1], v[2]), level)
    end
    local a = k:sub(1, 1)
    if t._props[a .. "scale"] == "log" and v[1] <= 0 then -- before either half changes
      error(string.format("panel %d: %smin = %g <= 0 on a log %s axis", i + 1, a, v[1], a), level)
    end
    cc(level, core.plot_panel_num, h, i, a .. "min", 0 / 0) -- no stale half in between
    cc(level, core.plot_panel_num, h, i, a .. "max", 0 / 0)
    lim[a .. "min"], lim[a .. "max"] = nil, nil
    cc(level, core.plot_panel_num, h, i, a .. "min", v[1])
    lim[a .. "min"] = v[1]
    cc(level, core.plot_panel_num, h, i, a .. "max", v[2])
    lim[a .. "max"] = v[2]
  elseif k == "xticks" or k == "yticks" then
    if v ~= nil and type(v) ~= "table" then error("plot: " .. k .. " must be an array of numbers", level) end
    cc(level, core.plot_panel_ticks, h, i, k == "xticks" and 0 or 1, v or {})
    t._props[k:sub(1, 1) .. "ticklabels"] = nil -- new ticks get their own labels
  elseif k == "xticklabels" or k == "yticklabels" then
    if type(v) ~= "table" then error("plot: " .. k .. " must be an array of strings", level) end
    local ticks = t._props[k:sub(1, 1) .. "ticks"]
    if #v ~= (ticks and #ticks or 0) then
      error(string.format("plot: %s has %d labels but %sticks has %d positions (set %sticks "
        .. "first, one label each)", k, #v, k:sub(1, 1), ticks and #ticks or 0, k:sub(1, 1)), level)
    end
    local ax = k == "xticklabels" and 0 or 1
    for j = 1, #v do
      nonul(v[j], string.format("plot: %s[%d]", k, j), level)
      cc(level, core.plot_panel_ticklabel, h, i, ax, j - 1, tostring(v[j]))
    end
  elseif k == "grid" then
    cc(level, core.plot_panel_num, h, i, "grid", v and 1 or 0)
  elseif k == "xmin" or k == "xmax" or k == "ymin" or k == "ymax" then
    if type(v) ~= "number" and v ~= nil then error("plot: " .. k .. " must be a number", level) end
    local a, other = k:sub(1, 1), k:sub(2) == "min" and k:sub(1, 1) .. "max" or k:sub(1, 1) .. "min"
    local o = lim[other]
    if v ~= nil and o ~= nil and not (k:sub(2) == "min" and v < o or k:sub(2) == "max" and v > o) then
      error(string.format("plot: %s = %g but %s = %g: the lower limit must be below the upper "
        .. "one (set %slim = {lo, hi} to change both)", k, v, other, o, a), level)
    end
    cc(level, core.plot_panel_num, h, i, k, v or 0 / 0)
    lim[k] = v
  else
    if type(v) ~= "string" then error("plot: " .. k .. " must be a string", level) end
    nonul(v, "plot: " .. k, level)
    cc(level, core.plot_panel_str, h, i, k, v)
  end
  t._props[k] = v
end
panel_mt.__newindex = function(t, k, v)
  return setprop(t, k, v, 2)
end

-- ax:ticks("x"|"y"|"colorbar") -> {values}, {labels}: the labelled ticks the layout chose.
function Panel:ticks(which)
  local ax = ({ x = 0, y = 1, colorbar = 2 })[which or "x"]
  if not ax then error("ticks: axis must be 'x', 'y' or 'colorbar', not " .. tostring(which), 2) end
  return cc(2, core.plot_ticks_of, self._fig._h, self._i, ax)
end

-- ax:to_pixel(x, y[, dpi]) -> px, py: where data (x, y) lands in a PNG at dpi.
function Panel:to_pixel(x, y, dpi)
  local px, py = cc(2, core.plot_to_point, self._fig._h, self._i, x, y)
  local s = (dpi or 200) / 72
  return px * s, py * s
end

---------------------------------------------------------------------------------------
-- Series

-- Build a series: kind, data arrays, string lists, string and number options.
local function add(p, kind, data, strs, str, num)
  local h = p._fig._h
  local id = cc(2, core.plot_series_new, h, p._i, KIND[kind])
  local ok, err = pcall(function()
    for k, v in pairs(data) do core.plot_series_data(h, id, k, v) end
    for k, v in pairs(strs) do
      for j = 1, #v do nonul(v[j], string.format("%s: %s[%d]", kind, k, j), 0) end
      core.plot_series_strs(h, id, k, v)
    end
    for k, v in pairs(str) do
      nonul(v, string.format("%s: option '%s'", kind, k), 0)
      core.plot_series_str(h, id, k, v)
    end
    for k, v in pairs(num) do
      if type(v) == "boolean" then v = v and 1 or 0 end
      core.plot_series_num(h, id, k, v)
    end
  end)
  if not ok then
    core.plot_series_drop(h, id) -- no half-built series stays behind
    error(strip(err), 2)
  end
  local w = cc(2, core.plot_series_commit, h, id)
  if w then warn(p._fig, w) end
  return p
end

local function pick(opts, names)
  local out = {}
  for w in names:gmatch("%S+") do if opts[w] ~= nil then out[w] = opts[w] end end
  return out
end

local function numarray(what, name, t)
  need_array(what, name, t, 4)
  for i = 1, #t do
    if type(t[i]) ~= "number" then
      error(string.format("%s: %s[%d] is %s, not a number", what, name, i, type(t[i])), 3)
    end
  end
  return t
end

local LINE = set("x y label color style marker width size")
-- ax:line{x=, y=, label=, color=, style=, marker=, width=, size=}
function Panel:line(o)
  check_opts("line", o, LINE)
  return add(self, "line", { x = numarray("line", "x", o.x), y = numarray("line", "y", o.y) },
             {}, pick(o, "label color style marker"), pick(o, "width size"))
end

local SCATTER = set("x y c s size group groups label color marker cmap vmin vmax center alpha "
  .. "colorbar colorbar_label norm share_colors")

-- norm = "linear" (default) or "logsym": colours by log(value) around center (default 1),
-- symmetric, so a 2x speed-up and a 2x slow-down get equally strong colours.
local function check_norm(kind, v)
  if v ~= nil and v ~= "linear" and v ~= "logsym" then
    error(string.format("%s: norm must be \"linear\" or \"logsym\", got %s", kind, tostring(v)), 3)
  end
end
-- ax:scatter{x=, y=, c= (values through cmap) | group= (names or 1-based ids), s= (sizes)}
function Panel:scatter(o)
  check_opts("scatter", o, SCATTER)
  check_norm("scatter", o.norm)
  local data = { x = numarray("scatter", "x", o.x), y = numarray("scatter", "y", o.y) }
  if o.c then data.c = numarray("scatter", "c", o.c) end
  if o.s then data.s = numarray("scatter", "s", o.s) end
  local strs = {}
  if o.group then
    need_array("scatter", "group", o.group, 3)
    if is_strings(o.group) then -- names in order of first appearance
      local ids, names, g = {}, {}, {}
      for i, n in ipairs(o.group) do
        if not ids[n] then names[#names + 1] = n; ids[n] = #names end
        g[i] = ids[n]
      end
      data.group, strs.groups = g, names
    else
      data.group = numarray("scatter", "group", o.group)
      if o.groups then strs.groups = o.groups end
    end
  end
  local num = pick(o, "size vmin vmax center alpha colorbar")
  if o.share_colors ~= nil then num.share_colors = switch01("scatter", "share_colors", o.share_colors) end
  return add(self, "scatter", data, strs, pick(o, "label color marker cmap colorbar_label norm"), num)
end

local BAR = set("labels values stacks label color mode width")
-- ax:bar{labels=, values= {..} or {{stack 1}, {stack 2}}, stacks= names, mode="stacked"|"grouped"}
function Panel:bar(o)
  check_opts("bar", o, BAR)
  need_array("bar", "values", o.values, 3)
  local values = o.values
  if type(values[1]) == "table" then
    values = flatten("bar", "values", values, #values[1])
  end
  numarray("bar", "values", values)
  local strs = {}
  if o.labels then strs.labels = need_array("bar", "labels", o.labels, 3) end
  if o.stacks then strs.stacks = o.stacks end
  return add(self, "bar", { values = values }, strs, pick(o, "label color mode"),
             pick(o, "width"))
end

local HEAT = set("x y z mask cmap colorbar colorbar_label vmin vmax center cell_labels fmt "
  .. "mask_style mask_label label_size norm share_colors")
-- ax:heatmap{x=, y=, z= {{row 1}, ...}, mask=, cmap="viridis", colorbar=true, cell_labels=}
-- z[j][i] is row j (along y), column i (along x); mask[j][i] true hides a cell.
function Panel:heatmap(o)
  check_opts("heatmap", o, HEAT)
  check_norm("heatmap", o.norm)
  need_array("heatmap", "z", o.z, 3)
  local ny = #o.z
  local nx = type(o.z[1]) == "table" and #o.z[1] or 0
  if o.x then nx = #need_array("heatmap", "x", o.x, 3) end
  if o.y then
    need_array("heatmap", "y", o.y, 3)
    if #o.y ~= ny then
      error(string.format("heatmap: y has %d values but z has %d rows", #o.y, ny), 2)
    end
  end
  local data, strs = { z = flatten("heatmap", "z", o.z, nx) }, {}
  numarray("heatmap", "z", data.z)
  if o.mask then
    need_array("heatmap", "mask", o.mask, 3)
    if #o.mask ~= ny then
      error(string.format("heatmap: mask has %d rows but z has %d", #o.mask, ny), 2)
    end
    data.mask = flatten("heatmap", "mask", o.mask, nx, function(v)
      if type(v) == "number" then return v ~= 0 and 1 or 0 end
      return v and 1 or 0
    end)
  end
  for _, a in ipairs { "x", "y" } do
    if o[a] then
      if is_strings(o[a]) then strs[a .. "labels"] = o[a] else data[a] = numarray("heatmap", a, o[a]) end
    end
  end
  local num = pick(o, "vmin vmax center cell_labels label_size colorbar")
  if o.share_colors ~= nil then num.share_colors = switch01("heatmap", "share_colors", o.share_colors) end
  num.nx, num.ny = nx, ny
  return add(self, "heatmap", data, strs, pick(o, "cmap fmt mask_style mask_label colorbar_label norm"),
             num)
end

local BOX = set("data labels whiskers box tukey outliers width color")
-- ax:boxplot{data={{...}, ...}, labels=, whiskers={2, 98}, box={9, 91}, tukey=false,
--            outliers=true}  (ParaDnn Fig. 11: box 9/50/91, whiskers 2/98, outliers dots)
function Panel:boxplot(o)
  check_opts("boxplot", o, BOX)
  need_array("boxplot", "data", o.data, 3)
  local values, sizes = {}, {}
  for g, grp in ipairs(o.data) do
    if type(grp) ~= "table" then
      error(string.format("boxplot: data[%d] must be an array, got %s", g, type(grp)), 2)
    end
    if #grp == 0 then error(string.format("boxplot: data[%d] is empty", g), 2) end
    for i = 1, #grp do
      if type(grp[i]) ~= "number" then
        error(string.format("boxplot: data[%d][%d] is %s, not a number", g, i, type(grp[i])), 2)
      end
      values[#values + 1] = grp[i]
    end
    sizes[g] = #grp
  end
  local num = pick(o, "tukey outliers width")
  for _, k in ipairs { "whiskers", "box" } do
    local v = o[k]
    if v ~= nil and (type(v) ~= "table" or type(v[1]) ~= "number" or type(v[2]) ~= "number") then
      error("boxplot: '" .. k .. "' must be {lo, hi} percentiles", 2)
    end
  end
  if o.whiskers then num.lo, num.hi = o.whiskers[1], o.whiskers[2] end
  if o.box then num.box_lo, num.box_hi = o.box[1], o.box[2] end
  local strs = {}
  if o.labels then strs.labels = o.labels end
  return add(self, "box", { values = values, sizes = sizes }, strs, pick(o, "color"), num)
end

local ROOF = set("hw points precision achievable ridge")
-- ax:roofline{hw={dev, ...}, points={{intensity=, flops=, label=, group=, marker=}, ...},
--             precision="fp32", achievable=true}: devices need name, peak, mem_bw.
function Panel:roofline(o)
  check_opts("roofline", o, ROOF)
  local hw = o.hw
  if type(hw) ~= "table" and type(hw) ~= "userdata" then
    error("roofline: 'hw' must be a device or a list of devices", 2)
  end
  if hw.name ~= nil or hw.peak ~= nil then hw = { hw } end
  if #hw == 0 then error("roofline: 'hw' is empty", 2) end
  local prec = o.precision or "fp32"
  local data = { peak = {}, bw = {}, flops_eff = {}, bw_eff = {} }
  local strs = { names = {} }
  local has_eff = false
  for i, d in ipairs(hw) do
    if type(d) ~= "table" and type(d) ~= "userdata" then
      error(string.format("roofline: hw[%d] must be a device, got %s", i, type(d)), 2)
    end
    local peak = d.peak
    if type(peak) == "table" then peak = peak[prec] end
    if type(peak) ~= "number" then
      error(string.format("roofline: hw[%d] (%s) has no %s peak", i, tostring(d.name), prec), 2)
    end
    if type(d.mem_bw) ~= "number" then
      error(string.format("roofline: hw[%d] (%s) has no mem_bw", i, tostring(d.name)), 2)
    end
    data.peak[i], data.bw[i] = peak, d.mem_bw
    data.flops_eff[i], data.bw_eff[i] = d.flops_eff or 1, d.bw_eff or 1
    has_eff = has_eff or d.flops_eff ~= nil or d.bw_eff ~= nil
    strs.names[i] = tostring(d.name or ("device " .. i))
  end
  if not has_eff then data.flops_eff, data.bw_eff = nil, nil end
  if o.points ~= nil and type(o.points) ~= "table" then
    error("roofline: 'points' must be an array of {intensity=, flops=}", 2)
  end
  if o.points then
    local px, py, pg, pl, groups, gid, pm, marked = {}, {}, {}, {}, {}, {}, {}, false
    for i, pt in ipairs(o.points) do
      if type(pt) ~= "table" or type(pt.intensity) ~= "number" or type(pt.flops) ~= "number" then
        error(string.format("roofline: points[%d] needs numbers intensity= and flops=", i), 2)
      end
      if pt.marker ~= nil and type(pt.marker) ~= "string" then
        error(string.format("roofline: points[%d].marker must be a marker name, got %s", i,
          type(pt.marker)), 2)
      end
      -- a point's own marker (its name is checked by the figure, plots/series.c)
      pm[i], marked = pt.marker or "", marked or pt.marker ~= nil
      px[i], py[i], pl[i] = pt.intensity, pt.flops, pt.label and tostring(pt.label) or ""
      local g = pt.group and tostring(pt.group) or ""
      if not gid[g] then groups[#groups + 1] = g; gid[g] = #groups end
      pg[i] = gid[g]
    end
    if #px > 0 then
      data.px, data.py, data.pgroup, strs.plabels = px, py, pg, pl
      if marked then strs.pmarkers = pm end
      if not (#groups == 1 and groups[1] == "") then strs.groups = groups end
    end
  end
  local p = self
  if p._props.xscale == nil then setprop(p, "xscale", "log", 3) end
  if p._props.yscale == nil then setprop(p, "yscale", "log", 3) end
  if p._props.xlabel == nil then setprop(p, "xlabel", "Operational intensity (FLOP/B)", 3) end
  if p._props.ylabel == nil then setprop(p, "ylabel", "Performance (FLOP/s)", 3) end
  return add(self, "roofline", data, strs, {}, pick(o, "achievable ridge"))
end

local BAND = set("x lo hi label color alpha")
-- ax:band{x=, lo=, hi=, label=, alpha=}: a shaded region (confidence band, regions).
function Panel:band(o)
  check_opts("band", o, BAND)
  return add(self, "band", { x = numarray("band", "x", o.x), lo = numarray("band", "lo", o.lo),
             hi = numarray("band", "hi", o.hi) }, {}, pick(o, "label color"), pick(o, "alpha"))
end

local REF = set("label color style width")
local function ref(kind, axis)
  local valid = set("label color style width" .. (axis and (" " .. axis) or ""))
  return function(self, o)
    check_opts(kind, o, axis and valid or REF)
    local num = pick(o, "width")
    if axis then
      if type(o[axis]) ~= "number" then error(kind .. ": '" .. axis .. "' must be a number", 2) end
      num.value = o[axis]
    end
    return add(self, kind, {}, {}, pick(o, "label color style"), num)
  end
end
Panel.hline = ref("hline", "y")   -- ax:hline{y=, label=, color=, style="dashed"}
Panel.vline = ref("vline", "x")   -- ax:vline{x=, ...}
Panel.diag = ref("diag")          -- ax:diag{label=}: the y = x line

local SPAN = set("x label color alpha text")
-- ax:span{x={lo, hi}, text=, label=, alpha=}: a shaded x range over the full height, e.g.
-- the small-data, power-law and irreducible-error regions of a learning curve.
function Panel:span(o)
  check_opts("span", o, SPAN)
  if type(o.x) ~= "table" or type(o.x[1]) ~= "number" or type(o.x[2]) ~= "number" then
    error("span: 'x' must be {lo, hi}", 2)
  end
  return add(self, "span", {}, {}, pick(o, "label color text"),
             { lo = o.x[1], hi = o.x[2], alpha = o.alpha })
end

local TEXT = set("x y text color anchor size")
-- ax:text{x=, y=, text=, anchor="left"|"center"|"right"}: an annotation in data coordinates.
function Panel:text(o)
  check_opts("text", o, TEXT)
  if type(o.text) ~= "string" then error("text: 'text' must be a string", 2) end
  if type(o.x) ~= "number" or type(o.y) ~= "number" then error("text: 'x' and 'y' must be numbers", 2) end
  return add(self, "text", {}, {}, pick(o, "text color anchor"), pick(o, "x y size"))
end

-- Colour maps and ticks, for users and tests.
local function cc3(fn, ...) -- up to three results (colours)
  local ok, a, b, c, d = pcall(fn, ...)
  if not ok then error(strip(a), 3) end
  return a, b, c, d
end
function M.cmap(name, t) return cc3(core.plot_cmap, name, t) end
function M.palette(i) return cc3(core.plot_palette, i - 1) end
function M.ticks(lo, hi, target) return (cc(2, core.plot_ticks, lo, hi, target or 5)) end
function M.tick_format(v, style, step)
  return (cc(2, core.plot_tick_format, v, step or 0, style or "auto"))
end
function M.png_size(path) return cc(2, core.plot_png_size, path) end
function M.png_pixel(path, x, y) return cc3(core.plot_png_pixel, path, x, y) end

doc.doc(Figure.panel, "f:panel(row, col) -> panel", "a panel of a grid figure (1-based)")
doc.doc(Figure.save, "f:save(path[, {dpi=}]) -> true | nil, message",
  "write PNG, PDF or SVG (by extension), whole or not at all; nil, message when the write "
  .. "fails; another extension (.jpg) or a dpi outside 10-2400 is an error")
doc.doc(Figure.layout_check, "f:layout_check() -> {descriptions}",
  "overlapping text boxes of the layout (empty when clean)")
doc.doc(Figure.warnings, "f:warnings() -> {messages}", "warnings so far (NaN/Inf skipped)")
doc.doc(Panel.ticks, "ax:ticks(\"x\"|\"y\"|\"colorbar\") -> {values}, {labels}",
  "the labelled ticks the layout chose")
doc.doc(Panel.to_pixel, "ax:to_pixel(x, y[, dpi]) -> px, py", "where a data point lands in a PNG")
doc.doc(Panel.line, "ax:line{x=, y=, label=, color=, style=, marker=, width=, size=}", "a line" .. optlist(LINE))
doc.doc(Panel.scatter, "ax:scatter{x=, y=, c=|group=, s=, cmap=, colorbar=}", "markers" .. optlist(SCATTER))
doc.doc(Panel.bar, "ax:bar{labels=, values=, stacks=, mode=}", "bars, stacked or grouped" .. optlist(BAR))
doc.doc(Panel.heatmap, "ax:heatmap{x=, y=, z=, mask=, cmap=, colorbar=, cell_labels=}",
  "a heat map; z[j][i] is row j (y), column i (x)" .. optlist(HEAT))
doc.doc(Panel.boxplot, "ax:boxplot{data=, labels=, whiskers={2,98}, box={9,91}, tukey=}",
  "box plots (ParaDnn percentiles by default)" .. optlist(BOX))
doc.doc(Panel.roofline, "ax:roofline{hw={...}, points={{intensity=, flops=, label=, group=, marker=}, ...}, precision=}", "rooflines, log-log" .. optlist(ROOF))
doc.doc(Panel.band, "ax:band{x=, lo=, hi=}", "a shaded band" .. optlist(BAND))
doc.doc(Panel.hline, "ax:hline{y=}", "a horizontal reference line" .. optlist(REF, "y"))
doc.doc(Panel.vline, "ax:vline{x=}", "a vertical reference line" .. optlist(REF, "x"))
doc.doc(Panel.diag, "ax:diag{}", "the y = x reference line" .. optlist(REF))
doc.doc(Panel.span, "ax:span{x={lo, hi}, text=, label=}", "a shaded x range (regions)" .. optlist(SPAN))
doc.doc(Panel.text, "ax:text{x=, y=, text=}", "a text annotation" .. optlist(TEXT))
doc.doc(M.cmap, "dlb.plot.cmap(name, t) -> r, g, b", "a colour map at t in [0, 1]")
doc.doc(M.palette, "dlb.plot.palette(i) -> r, g, b", "colour i of the categorical palette")
doc.doc(M.ticks, "dlb.plot.ticks(lo, hi[, target]) -> {ticks}", "nice 1/2/5 x 10^n ticks")
doc.doc(M.tick_format, "dlb.plot.tick_format(v[, style[, step]]) -> string",
  "a tick label: auto, si (1k, 10M), pow (10^3), plain")
doc.doc(M.png_size, "dlb.plot.png_size(path) -> w, h", "a PNG's size in pixels")
doc.doc(M.png_pixel, "dlb.plot.png_pixel(path, x, y) -> r, g, b, a", "one pixel of a PNG")
doc.doc(M, "dlb.plot", "paper-style figures: figure{}, panels, heatmap, boxplot, line, scatter, "
  .. "bar, roofline, band, hline/vline/diag, text; save to PNG/PDF/SVG")
for k, fn in pairs(Panel) do
  proxies[k] = function(self, ...)
    if getmetatable(self) == figure_mt then self = self._panels[1] end
    return fn(self, ...)
  end
  local d = doc.get(fn)
  if d then doc.doc(proxies[k], (d.signature:gsub("^ax:", "f:")), d.meaning .. " (panel 1)") end
end

-- f.save("x.png") or ax.line{} (a dot for a colon) names the mistake instead of failing inside
local errors_ = require "dlbench.errors"
local function isfig(x) return getmetatable(x) == figure_mt end
local function ispanel(x) return getmetatable(x) == panel_mt end
errors_.guard_methods(Figure, "f:", isfig)
errors_.guard_methods(Panel, "ax:", ispanel)
errors_.guard_methods(proxies, "f:", function(x) return isfig(x) or ispanel(x) end)

M.Figure, M.Panel = Figure, Panel
doc.methods(M, Figure, "f")
doc.methods(M, Panel, "p")
return M
