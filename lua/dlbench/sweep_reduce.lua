-- dlbench.sweep_reduce — the streaming reductions of dlb.sweep.model, dlb.sweep.layouts and
-- dlb.sweep.reduce (sweep_reduce.c: Pareto fronts, top-k, heat-map bins, grouped aggregates,
-- kept rows): the options' checks (reductions: one C reducer per spec), their results as
-- tables (collect), the interned text columns (interner), and dlb.sweep.reduce(t, opts) over
-- any dlb.table. dlb.sweep.model's own part (structures, compiling, timing): sweep_model.lua.
-- docs/sweep.md.
local core = require "dlbench.backend"
local options = require "dlbench.options"
local doc = require "dlbench.doc"
local memory = require "dlbench.memory"
local tbl = require "dlbench.table"
local coltable = require "dlbench.coltable"

local M = {}

-- the C enums, from the one description of the headers (dlbench.desc)
local desc = require "dlbench.desc"
local _, AGG = desc.enum("DLB_AGG_")     -- {count = 0, sum = 1, min = 2, max = 3, mean = 4}
local _, RED = desc.enum("DLB_RED_")     -- {keep = 0, pareto = 1, top = 2, bins = 3, group = 4}

-- Interned values of a column: numbers stay, anything else becomes its level's index.
-- Booleans get false 0 and true 1 whatever order they come in (a reduction's where= keeps
-- the rows whose value is not 0: first-seen order made `where = "fits"` keep the unfitting
-- rows of a table whose first row fits), when they are the column's first values.
function M.interner()
  local levels, index = {}, {}
  return levels, function(v)
    if type(v) == "number" then return v end
    if type(v) == "boolean" and #levels == 0 then
      levels[1], levels[2] = false, true
      index["boolean:false"], index["boolean:true"] = 0, 1
    end
    local k = type(v) .. ":" .. tostring(v)
    if not index[k] then levels[#levels + 1] = v; index[k] = #levels - 1 end
    return index[k]
  end
end

-- Edges at the midpoints of sorted levels (categorical bins of a heat map's axis).
local function edges_of(levels)
  local e = {}
  for i = 1, #levels do
    e[i] = i == 1 and levels[1] - 0.5 or (levels[i - 1] + levels[i]) / 2
  end
  e[#levels + 1] = levels[#levels] + 0.5
  return e
end

-- a binding's argument error without its frame (dlbench.errors.argtext)
local argtext = require("dlbench.errors").argtext

-- The reductions a call asks for (opts.pareto, top, heatmap, group_by, keep) over rows of
-- columns cols; tags are interned (strings to level indices). numeric: the columns whose
-- space values are numbers a heat map may bin. fname names the caller in errors; timecol is
-- the column top's by, heatmap's value and group_by's values default to ("time"; "step" for
-- dlb.sweep.layouts). Returns {red=, wants=, levels=, intern=}.
-- The fields of each reduction's spec (one table, or a list of them: dlbench.options.specs).
-- (pareto's and top's: the table methods', dlb.table.reduce_spec_keys, one list)
local SPEC_KEYS = { pareto = tbl.reduce_spec_keys.pareto, top = tbl.reduce_spec_keys.top,
  heatmap = { x = true, y = true, value = true, agg = true, where = true },
  group_by = { keys = true, values = true, where = true } }
-- carry: columns constant over a structure that every group keeps as a key after the
-- caller's (dlb.sweep.model's provenance: a group never mixes two profiles' rows).
function M.reductions(cols, opts, space, tagnames, devs, numeric, fname, timecol, carry)
  timecol = timecol or "time"
  local function fail(msg) error(fname .. ": " .. msg, 0) end
  -- keep = true (every row, up to dlb.sweep.max_configs), false, or a cap >= 1: keep = 0
  -- failed only when the first row came, naming no option ("reductions: more than 0 rows")
  local keep = opts.keep
  if keep ~= nil and type(keep) ~= "boolean" and (type(keep) ~= "number" or keep ~= math.floor(keep)
      or keep < 1 or keep == math.huge) then
    fail("keep must be true, false or a whole number >= 1 (the most rows kept), got "
      .. (type(keep) == "table" and "a table" or (type(keep) .. " " .. tostring(keep))))
  end
  local colidx = {}
  for i, c in ipairs(cols) do colidx[c] = i - 1 end
  local function col(name, what)
    local i = colidx[name]
    if i == nil then fail(what .. ": no column '" .. tostring(name) .. "' (" .. table.concat(cols, ", ") .. ")") end
    return i
  end
  local red = core.reduce_new(#cols)
  memory.account()
  -- each reducer's creation, replayed by R.spawn() on a new reducer (a checkpointed
  -- sweep's chunks are reduced alone first: the ids come out the same)
  local made, unpack = {}, table.unpack or unpack
  local function make(f, ...)
    local n, a = select("#", ...), { ... }
    made[#made + 1] = function(r) return f(r, unpack(a, 1, n)) end
    return f(red, ...)
  end
  local levels = {} -- interned string columns
  local intern = {}
  for _, k in ipairs(tagnames) do levels[k], intern[k] = M.interner() end
  local dev_levels = {}
  for i, d in ipairs(devs) do dev_levels[i] = d.name end
  levels.device = dev_levels
  local wants = {}
  local wherecols = {} -- the columns a where= names (dlb.sweep.reduce: nil there is 0)
  local function where_of(w, what)
    if w == nil then return -1 end
    local i = col(w, what .. ".where")
    wherecols[w] = true
    return i
  end
  -- the columns reduced as numbers (objectives, heat map values, group values): a string
  -- there is refused by dlb.sweep.reduce (its level index is no number to compare)
  local valcols = {}
  local textcols = { device = #devs > 0 or nil } -- the sweep's own text columns
  for _, c in ipairs(carry or {}) do textcols[c] = true end
  for k, lv in pairs(space) do
    if type(lv) == "table" then
      for _, v in ipairs(lv) do if type(v) == "string" then textcols[k] = true end end
    end
  end
  local function value_of(name, what)
    local i = col(name, what)
    -- a text column's values are its level indices: no number to compare or sum
    if textcols[name] then
      fail(what .. ": column '" .. tostring(name) .. "' holds text (objectives and values are numbers)")
    end
    valcols[name] = true
    return i
  end
  local function list(x) if type(x) == "table" then return x end return { x } end
  -- each reduction: one spec table or a list of them (dlbench.options.specs names a wrong one)
  local paretos = options.specs(opts.pareto, SPEC_KEYS.pareto, fname .. " pareto", 0)
  for i, pz in ipairs(paretos) do
    local cs, mx = {}, {}
    for _, c in ipairs(list(pz.minimize or {})) do cs[#cs + 1] = value_of(c, "pareto"); mx[#mx + 1] = 0 end
    for _, c in ipairs(list(pz.maximize or {})) do cs[#cs + 1] = value_of(c, "pareto"); mx[#mx + 1] = 1 end
    if #cs == 0 then fail("pareto needs minimize= or maximize= columns") end
    local wh = where_of(pz.where, "pareto")
    -- C's check of the objective count (a front takes at most 8), named as the option
    local ok, id = pcall(make, core._reduce_pareto, cs, mx, wh)
    if not ok then
      fail(string.format("pareto%s: minimize= and maximize= name %d columns: %s",
        #paretos > 1 and "[" .. i .. "]" or "", #cs, argtext(id)))
    end
    wants[#wants + 1] = { kind = "pareto", n = i, id = id }
  end
  -- top = k: the k smallest of the time column, as top = {k = k}
  local tops = opts.top
  if type(tops) == "number" then tops = { k = tops } end
  tops = options.specs(tops, SPEC_KEYS.top, fname .. " top", 0,
    "a number k, a table {" .. options.names(SPEC_KEYS.top) .. "} or a list of tables")
  for i, tz in ipairs(tops) do
    local by = tostring(tz.by or timecol)
    local maximize = by:sub(1, 1) == "-"
    if maximize then by = by:sub(2) end
    local ok, id = pcall(make, core._reduce_top, tz.k or 10, value_of(by, "top"), maximize, where_of(tz.where, "top"))
    -- the binding's check of k (1..1e6, a whole number), named as the option
    if not ok then fail("top" .. (#tops > 1 and "[" .. i .. "]" or "") .. ".k = " .. tostring(tz.k) .. ": "
      .. argtext(id)) end
    wants[#wants + 1] = { kind = "top", n = i, id = id }
  end
  local heats = options.specs(opts.heatmap, SPEC_KEYS.heatmap, fname .. " heatmap", 0)
  for i, hz in ipairs(heats) do
    local function axis(name)
      local lv = space[name]
      if name == "device" then lv = {} for j = 1, #devs do lv[j] = j - 1 end
      elseif not (numeric[name] or space[name] ~= nil) or type(lv) ~= "table" then
        fail("heatmap axis '" .. tostring(name) .. "' must be a dim of the space with a list of numbers")
      end
      local s = {}
      for _, v in ipairs(lv) do
        if type(v) ~= "number" then fail("heatmap axis '" .. name .. "' must hold numbers") end
        s[#s + 1] = v
      end
      -- (a column without numbers: dlb.sweep.reduce over text, or an empty level list)
      if #s == 0 then fail("heatmap axis '" .. name .. "' must hold numbers (it has none)") end
      table.sort(s)
      return s, edges_of(s)
    end
    local xl, xe = axis(hz.x)
    local yl, ye
    if hz.y then yl, ye = axis(hz.y) end
    local agg = AGG[hz.agg or "min"]
    if agg == nil then fail("heatmap.agg must be count, sum, min, max or mean") end
    local id = make(core._reduce_bins, col(hz.x, "heatmap"), xe, hz.y and col(hz.y, "heatmap") or -1,
      ye, agg == 0 and -1 or value_of(hz.value or timecol, "heatmap"), agg, where_of(hz.where, "heatmap"))
    wants[#wants + 1] = { kind = "bins", n = i, id = id, x = xl, y = yl or { 0 }, spec = hz }
  end
  local groups = options.specs(opts.group_by, SPEC_KEYS.group_by, fname .. " group_by", 0)
  for i, gz in ipairs(groups) do
    local ks, vs = {}, {}
    local keys = {}
    for _, c in ipairs(list(gz.keys)) do keys[#keys + 1] = c end
    for _, c in ipairs(carry or {}) do
      local dup = false
      for _, k in ipairs(keys) do if k == c then dup = true end end
      if not dup then keys[#keys + 1] = c end
    end
    for _, c in ipairs(keys) do ks[#ks + 1] = col(c, "group_by") end
    for _, c in ipairs(list(gz.values or { timecol })) do vs[#vs + 1] = value_of(c, "group_by") end
    local wh = where_of(gz.where, "group_by")
    -- C's check of the key and value counts (a group takes at most 8 keys), named as the option
    local ok, id = pcall(make, core._reduce_group, ks, vs, wh)
    if not ok then
      local given = #list(gz.keys)
      fail(string.format("group_by%s: keys= name %d columns%s, values= %d: %s",
        #groups > 1 and "[" .. i .. "]" or "", #ks,
        #ks > given and string.format(" (%d given, then %s, kept by every group)", given,
          table.concat(keys, ", ", given + 1)) or "", #vs, argtext(id)))
    end
    wants[#wants + 1] = { kind = "group", n = i, id = id,
      keys = keys, sort = list(gz.keys), values = list(gz.values or { timecol }) }
  end
  if opts.keep then
    local cap = type(opts.keep) == "number" and opts.keep or require("dlbench.sweep").max_configs
    make(core.reduce_keep, cap)
  end
  local function spawn()
    local r = core.reduce_new(#cols)
    for _, f in ipairs(made) do f(r) end
    return r
  end
  return { red = red, wants = wants, levels = levels, intern = intern, spawn = spawn,
    where = wherecols, values = valcols }
end

-- The results of the reductions: tables of the fronts and top lists, heat maps, groups, and
-- the kept rows as a columnar table.
function M.collect(R, cols, opts)
  local red, wants, levels = R.red, R.wants, R.levels
  local function rows_of(kind, id, n)
    local data = {}
    for i, c in ipairs(cols) do data[c] = core._reduce_column(red, RED[kind], id, i - 1, 0, n) end
    return data
  end
  local function decode(data, n)
    for name, a in pairs(data) do coltable.decode(a, n, name, levels[name]) end
    return data
  end
  local res = { columns = cols }
  for _, w in ipairs(wants) do
    if w.kind == "pareto" or w.kind == "top" then
      local n = core._reduce_size(red, RED[w.kind], w.id)
      local t = tbl.from_columns(decode(rows_of(w.kind, w.id, n), n), cols)
      if w.kind == "pareto" then
        res.paretos = res.paretos or {}
        res.paretos[w.n] = t
      else
        res.tops = res.tops or {}
        res.tops[w.n] = t
      end
    elseif w.kind == "bins" then
      local n = core._reduce_size(red, RED.bins, w.id)
      local v = core._reduce_column(red, RED.bins, w.id, 0, 0, n)
      local c = core._reduce_column(red, RED.bins, w.id, 1, 0, n)
      local z, cnt = {}, {}
      local nx = #w.x
      for j = 1, #w.y do
        z[j], cnt[j] = {}, {}
        for i = 1, nx do
          local x = v[(j - 1) * nx + i]
          z[j][i] = x ~= x and 0 / 0 or x
          cnt[j][i] = c[(j - 1) * nx + i]
        end
      end
      res.heatmaps = res.heatmaps or {}
      res.heatmaps[w.n] = { x = w.x, y = w.spec.y and w.y or { 1 }, z = z } -- what f:heatmap takes
      res.bins = res.bins or {}
      res.bins[w.n] = { count = cnt, x = w.spec.x, y = w.spec.y, value = w.spec.value or "time",
        agg = w.spec.agg or "min" }
    elseif w.kind == "group" then
      local n = core._reduce_size(red, RED.group, w.id)
      local data, order = {}, {}
      for i, k in ipairs(w.keys) do data[k] = core._reduce_column(red, RED.group, w.id, i - 1, 0, n); order[#order + 1] = k end
      local nk = #w.keys
      data.count = core._reduce_column(red, RED.group, w.id, nk, 0, n); order[#order + 1] = "count"
      for i, v in ipairs(w.values) do
        for j, a in ipairs { "sum", "min", "max" } do
          local name = a .. "_" .. v
          data[name] = core._reduce_column(red, RED.group, w.id, nk + 1 + 3 * (i - 1) + (j - 1), 0, n)
          order[#order + 1] = name
        end
        local mean = {}
        for r = 1, n do mean[r] = data["sum_" .. v][r] / data.count[r] end
        data["mean_" .. v] = mean
        order[#order + 1] = "mean_" .. v
      end
      decode(data, n)
      local t = tbl.from_columns(data, order)
      res.groups = res.groups or {}
      res.groups[w.n] = t:sort(w.sort)
    end
  end
  res.pareto = res.paretos and res.paretos[1]
  res.top = res.tops and res.tops[1]
  res.heatmap = res.heatmaps and res.heatmaps[1]
  res.group = res.groups and res.groups[1]
  if opts.keep then
    res.rows = coltable.new(function(c, start, n) return core._reduce_column(red, RED.keep, 0, c, start, n) end,
      core._reduce_size(red, RED.keep, 0), cols, levels, red)
  end
  return res
end

-- dlb.sweep.reduce(t, opts): the same reductions over any dlb.table (or the columnar rows):
-- numbers as they are, strings and booleans interned; heat-map axes bin at the column's
-- distinct values.
local RVALID = { pareto = true, top = true, heatmap = true, group_by = true }
function M.reduce(t, opts)
  -- its errors named with it (reductions' fname below: "dlb.sweep.reduce")
  local function fail(msg) error("dlb.sweep.reduce: " .. msg, 0) end
  opts = options.check(opts, RVALID, "dlb.sweep.reduce")
  if type(t) ~= "table" or type(t.columns) ~= "function" then fail("t must be a dlb.table") end
  local cols = t:columns()
  if #cols == 0 then fail("the table has no columns") end
  local n = t:count()
  local data, space, strs = {}, {}, {}
  for _, c in ipairs(cols) do
    data[c] = t:column(c)
    local kind
    for i = 1, n do
      local v = data[c][i]
      if v ~= nil then
        local k = type(v) == "number" and "number" or "other"
        if kind and kind ~= k then kind = "other" break end
        kind = k
      end
    end
    if kind == "other" then strs[#strs + 1] = c end
  end
  for _, hz in ipairs(options.specs(opts.heatmap, SPEC_KEYS.heatmap, "dlb.sweep.reduce heatmap", 0)) do
    for _, a in ipairs { hz.x, hz.y } do
      if a and data[a] and not space[a] then
        local seen, lv = {}, {}
        for i = 1, n do local v = data[a][i] if type(v) == "number" and not seen[v] then seen[v] = true; lv[#lv + 1] = v end end
        space[a] = lv
      end
    end
  end
  local R = M.reductions(cols, opts, space, strs, {}, {}, "dlb.sweep.reduce")
  R.levels.device = nil
  local buf, nb, first = {}, 0, 0
  -- a nil value: NaN (an objective skips the row), but 0 in a where column, which drops the
  -- row as t:pareto / t:top do (dlb.table.reduce_rows); NaN kept it (NaN ~= 0 to the C rule)
  for i = 1, n do
    for _, c in ipairs(cols) do
      local v = data[c][i]
      if v == nil then v = R.where[c] and 0 or 0 / 0
      elseif R.where[c] and type(v) == "string" then
        -- a string's level index would keep every level but the first seen (t:top's rule)
        fail(string.format("column '%s' row %d holds the string '%s' (where takes numbers or booleans)", c, i, v))
      elseif R.values[c] and type(v) == "string" then
        -- compared or summed as its level index, in first-seen order: refused, as t:top does
        fail(string.format("column '%s' row %d holds the string '%s' (objectives and values are numbers)", c, i, v))
      elseif R.intern[c] then v = R.intern[c](v) end
      buf[#buf + 1] = type(v) == "number" and v or 0 / 0
    end
    nb = nb + 1
    if nb == 4096 or i == n then
      core._reduce_push(R.red, nb, buf, first)
      first, buf, nb = first + nb, {}, 0
    end
  end
  local res = M.collect(R, cols, opts)
  res.count = n
  return res
end
doc.doc(M.reduce, "dlb.sweep.reduce(t, {pareto=, top=, heatmap=, group_by=}) -> {pareto=, top=, heatmap=, group=}",
  "the streaming reductions of dlb.sweep.model (C) over any dlb.table")

return M
