-- dlbench.stats — percentiles, means, box statistics and ParaDnn's sensitivity regression
-- (seeds/004 §2.3, §4.1). The numerics are in C (graphs/stats/stats.c, graphs/stats/regress.c).
--   dlb.stats.percentile(list, 91)        linear interpolation (numpy's default)
--   dlb.stats.box(list)                   2/9/50/91/98 percentiles (ParaDnn's box plots)
--   dlb.stats.regress(t, {"nodes", "batch"}, "util", {log=true})
local core = require "dlbench.backend"
local options = require "dlbench.options"
local doc = require "dlbench.doc"

local M = {}

local function checklist(list, who)
  if type(list) ~= "table" then error(who .. ": a list of numbers expected, got " .. type(list), 3) end
  if #list == 0 then error(who .. ": empty list", 3) end
  return list
end

local function call(who, f, ...)
  local ok, r = pcall(f, ...)
  if not ok then
    r = tostring(r)
    if r:find("^percentile") or r:find("^mean") or r:find("^geometric") or r:find("^harmonic")
      or r:find("^box") then r = r:gsub("^[%a ]+: ", "") end
    error(who .. ": " .. r, 3)
  end
  return r
end

-- A refused p as the messages show it: a string quoted with its type ("50" read as 50
-- said "got 50"), NaN as nan on both backends (Lua 5.4 printed -nan).
local function shown(p)
  if type(p) == "string" then return 'string "' .. p .. '"' end
  if p ~= p then return "nan" end
  return tostring(p)
end

-- The p-th percentile (p in [0, 100]) with linear interpolation between closest ranks.
function M.percentile(list, p)
  checklist(list, "dlb.stats.percentile")
  if type(p) ~= "number" or not (p >= 0 and p <= 100) then
    error("dlb.stats.percentile: p must be a number in [0, 100], got " .. shown(p), 2)
  end
  return call("dlb.stats.percentile", core.stats_percentiles, list, { p })[1]
end

-- Several percentiles at once: dlb.stats.percentiles(list, {2, 9, 50, 91, 98}).
function M.percentiles(list, ps)
  checklist(list, "dlb.stats.percentiles")
  if type(ps) ~= "table" then error("dlb.stats.percentiles: a list of percentiles expected", 2) end
  for i, p in ipairs(ps) do
    if type(p) ~= "number" or not (p >= 0 and p <= 100) then
      error(string.format("dlb.stats.percentiles: p[%d] must be a number in [0, 100], got %s", i, shown(p)), 2)
    end
  end
  return call("dlb.stats.percentiles", core.stats_percentiles, list, ps)
end

function M.median(list)
  checklist(list, "dlb.stats.median")
  return call("dlb.stats.median", core.stats_percentiles, list, { 50 })[1]
end

-- The arithmetic (kind 0), geometric (1) or harmonic (2) mean in C, errors named for `who`:
-- the one home of the means (dlb.roofline.harmonic_mean calls it too). Callers tail-call
-- it, and it does not tail-call `call`, so level 3 of its errors is the user's line.
function M._mean(who, list, kind)
  local r = call(who, core.stats_mean, checklist(list, who), kind)
  return r
end

function M.mean(list) return M._mean("dlb.stats.mean", list, 0) end

function M.gmean(list) return M._mean("dlb.stats.gmean", list, 1) end

function M.hmean(list) return M._mean("dlb.stats.hmean", list, 2) end

-- Sample standard deviation (n - 1).
function M.sd(list)
  checklist(list, "dlb.stats.sd")
  if #list < 2 then error("dlb.stats.sd: needs at least 2 values", 2) end
  local m = M.mean(list)
  local s = 0
  for _, v in ipairs(list) do s = s + (v - m) * (v - m) end
  return math.sqrt(s / (#list - 1))
end

-- Box statistics. Default: ParaDnn's (seeds/004 §6: box 9th-91st percentiles, whiskers
-- 2nd and 98th); opts.percentiles = {lo_whisker, lo_box, hi_box, hi_whisker}; opts.tukey
-- = true for 25/75 boxes with whiskers at 1.5 IQR. Returns {whisker_lo, q_lo, median,
-- q_hi, whisker_hi, mean, min, max, n, outliers = {values outside the whiskers}}.
function M.box(list, opts)
  checklist(list, "dlb.stats.box")
  opts = opts or {}
  options.check(opts, { percentiles = true, tukey = true }, "dlb.stats.box")
  options.switches(opts, { "tukey" }, "dlb.stats.box", 2)
  local p = opts.percentiles or { 2, 9, 91, 98 }
  if type(p) ~= "table" or #p ~= 4 then error("dlb.stats.box: percentiles must be {lo_whisker, lo_box, hi_box, hi_whisker}", 2) end
  local b = call("dlb.stats.box", core.stats_box, list, p[1], p[2], p[3], p[4], opts.tukey and true or false)
  local out = {}
  for _, v in ipairs(list) do
    if v < b.whisker_lo or v > b.whisker_hi then out[#out + 1] = v end
  end
  table.sort(out)
  b.outliers = out
  return b
end

-- Sensitivity regression (ParaDnn §2.3, §4.1): least squares (Householder QR) of y on
-- the inputs xs, each normalised to zero mean and unit standard deviation so the weights
-- compare across hyperparameters and keep their signs. t: a dlb.table or {name = array}.
-- opts: log = true (all inputs) or {names} (may include y), interactions = true (add
-- a*b terms), normalize = "zscore" (default) | "minmax" | false, drop_missing = true
-- (skip rows where an input or y is missing instead of failing). Rows of failed sweep
-- configs (with an _error) are skipped.
function M.regress(t, xs, y, opts)
  local tbl = require "dlbench.table"
  opts = opts or {}
  local valid = { log = true, interactions = true, normalize = true, drop_missing = true }
  options.check(opts, valid, "dlb.stats.regress")
  -- switches: drop_missing = 0 skipped the rows (Lua's truth), interactions = 0 added a*b terms
  options.switches(opts, { "interactions", "drop_missing" }, "dlb.stats.regress", 2)
  if type(xs) == "string" then xs = { xs } end
  if type(xs) ~= "table" or #xs == 0 then error("dlb.stats.regress: input column names expected", 2) end
  if type(y) ~= "string" then error("dlb.stats.regress: the name of the y column expected", 2) end
  local getcol, nrows, errcol
  if tbl.is_table(t) then
    nrows = t:count()
    getcol = function(c) return t:has(c) and t:column(c) or nil end
    errcol = getcol("_error")
  elseif type(t) == "table" then
    getcol = function(c) return t[c] end
    nrows = t[y] and #t[y] or 0
  else
    error("dlb.stats.regress: a dlb.table or a table of columns expected", 2)
  end
  local logs, logy = {}, false
  if opts.log == true then
    for _, x in ipairs(xs) do logs[x] = true end
  elseif type(opts.log) == "table" then
    for _, nm in ipairs(opts.log) do
      if nm == y then logy = true
      else
        local found = false
        for _, x in ipairs(xs) do if x == nm then found = true end end
        if not found then error("dlb.stats.regress: log names '" .. tostring(nm) .. "', which is neither an input nor y", 2) end
        logs[nm] = true
      end
    end
  elseif opts.log ~= nil and opts.log ~= false then
    error("dlb.stats.regress: log must be true or a list of column names", 2)
  end
  local cols = {}
  for i, c in ipairs(xs) do
    if type(c) ~= "string" then error("dlb.stats.regress: input " .. i .. " is not a column name", 2) end
    for j = 1, i - 1 do if xs[j] == c then error("dlb.stats.regress: input '" .. c .. "' is listed twice", 2) end end
    cols[i] = getcol(c)
    if cols[i] == nil then error("dlb.stats.regress: no column '" .. c .. "'", 2) end
  end
  local ycol = getcol(y)
  if ycol == nil then error("dlb.stats.regress: no column '" .. y .. "'", 2) end
  -- rows to use
  local X, Y, skipped = {}, {}, 0
  for j = 1, #xs do X[j] = {} end
  for i = 1, nrows do
    if errcol and errcol[i] ~= nil then
      skipped = skipped + 1
    else
      local missing
      if type(ycol[i]) ~= "number" then missing = y end
      for j = 1, #xs do if type(cols[j][i]) ~= "number" then missing = missing or xs[j] end end
      if missing then
        if not opts.drop_missing then
          local v = ycol[i]
          for j = 1, #xs do if xs[j] == missing then v = cols[j][i] end end
          error(string.format("dlb.stats.regress: row %d: '%s' is %s, not a number "
            .. "(drop_missing=true skips such rows)", i, missing, v == nil and "missing" or tostring(v)), 2)
        end
        skipped = skipped + 1
      else
        Y[#Y + 1] = ycol[i]
        for j = 1, #xs do X[j][#Y] = cols[j][i] end
      end
    end
  end
  local options = 0
  if opts.interactions then options = options + 1 end
  if logy then options = options + 2 end
  local norm = opts.normalize
  if norm == nil then norm = "zscore" end
  if norm == false or norm == "none" then options = options + 4
  elseif norm == "minmax" then options = options + 8
  elseif norm ~= "zscore" then
    error("dlb.stats.regress: normalize must be \"zscore\", \"minmax\" or false, got " .. tostring(norm), 2)
  end
  local logl = {}
  for j, x in ipairs(xs) do logl[j] = logs[x] == true end
  local ok, r = pcall(core.stats_regress, X, Y, xs, logl, options)
  if not ok then
    error("dlb.stats.regress: " .. tostring(r):gsub("^regress: ", ""), 2)
  end
  local res = { weights = {}, se = {}, t = {}, scaling = {}, terms = {},
    intercept = r.intercept, intercept_se = r.intercept_se, intercept_t = r.intercept_t,
    r2 = r.r2, adj_r2 = r.adj_r2, rss = r.rss, sigma = r.sigma, n = r.n, skipped = skipped,
    y = y, log_y = logy, normalize = norm, log_inputs = {} }
  for _, x in ipairs(xs) do if logs[x] then res.log_inputs[#res.log_inputs + 1] = x end end
  for i, term in ipairs(r.terms) do
    res.terms[i] = term.name
    res.weights[term.name] = term.weight
    res.se[term.name] = term.se
    res.t[term.name] = term.t
    res.scaling[term.name] = { shift = term.shift, scale = term.scale }
  end
  return setmetatable(res, M.Regression)
end

M.Regression = {}
M.Regression.__index = M.Regression
M.Regression.__name = "dlbench.Regression"

-- The terms sorted by |weight|, largest first.
function M.Regression:ranked()
  local ts = {}
  for i, n in ipairs(self.terms) do ts[i] = n end
  table.sort(ts, function(a, b)
    local x, y = math.abs(self.weights[a]), math.abs(self.weights[b])
    if x ~= y then return x > y end
    return a < b
  end)
  return ts
end

-- A table of term, weight, se, t (sorted by |weight|).
function M.Regression:table()
  local rows = {}
  for i, n in ipairs(self:ranked()) do
    rows[i] = { term = n, weight = self.weights[n], se = self.se[n], t = self.t[n] }
  end
  return require("dlbench.table").new(rows, { "term", "weight", "se", "t" })
end

M.Regression.__tostring = function(r)
  local how = r.normalize == false and "raw" or (r.normalize == "minmax" and "min-max" or "z-scored")
  if #r.log_inputs > 0 then how = "log of " .. table.concat(r.log_inputs, ", ") .. "; " .. how end
  local lines = { string.format("regression of %s%s on %d term%s (%s inputs): n=%d r2=%.4f adj_r2=%.4f intercept=%.6g",
    r.log_y and "log " or "", r.y, #r.terms, #r.terms == 1 and "" or "s", how, r.n, r.r2,
    r.adj_r2, r.intercept) }
  lines[2] = r:table():format(40)
  return table.concat(lines, "\n")
end

doc.doc(M.Regression.ranked, "reg:ranked() -> {term names}", "terms sorted by |weight|, largest first")
doc.doc(M.Regression.table, "reg:table() -> table", "term, weight, se, t as a dlb.table, sorted by |weight|")
doc.doc(M, "dlb.stats", "statistics: percentile, percentiles, median, mean, gmean, hmean, sd, box, regress")
doc.doc(M.percentile, "dlb.stats.percentile(list, p) -> number", "p in [0, 100]; linear interpolation (numpy's default)")
doc.doc(M.percentiles, "dlb.stats.percentiles(list, {p, ...}) -> {numbers}", "several percentiles with one sort")
doc.doc(M.median, "dlb.stats.median(list) -> number", "the 50th percentile")
doc.doc(M.mean, "dlb.stats.mean(list) -> number", "arithmetic mean")
doc.doc(M.gmean, "dlb.stats.gmean(list) -> number", "geometric mean (values > 0)")
doc.doc(M.hmean, "dlb.stats.hmean(list) -> number", "harmonic mean (values > 0), e.g. a figure of merit over rates")
doc.doc(M.sd, "dlb.stats.sd(list) -> number", "sample standard deviation (n - 1)")
doc.doc(M.box, "dlb.stats.box(list[, {percentiles={2,9,91,98}} | {tukey=true}]) -> box",
  "whisker_lo, q_lo, median, q_hi, whisker_hi, mean, min, max, n, outliers (ParaDnn's 2/9/50/91/98 by default)")
doc.doc(M.regress, "dlb.stats.regress(t, {inputs}, y[, {log=, interactions=, normalize=, drop_missing=}]) -> reg",
  "sensitivity regression over normalised inputs (ParaDnn §4.1): reg.weights[name], reg.se, reg.t, reg.intercept, reg.r2, reg.adj_r2")
doc.methods(M, M.Regression, "reg")
return M
