-- dlbench.calibrate — dlb.hw.calibrate(device, measurements, opts): fit named numeric
-- fields of a device to measured op or step times, robustly, with the predictions made by
-- dlb.roofline.time (so the time model stays one model), and report the error on held-out
-- measurements. The search is the Nelder-Mead simplex of graphs/stats/minimize.c, asked for
-- points in reverse communication. docs/measure.md.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local pretty = require "dlbench.pretty"

local M = {}

M.default_fields = { "flops_eff", "bw_eff", "kernel_overhead", "step_overhead" }

-- How a field is searched: efficiencies in (0, 1] on log scale, overheads (seconds, >= 0)
-- on log10 scale from 1 ns to 1 s, other positive numbers on log scale around their value.
local function transform(name, v0)
  if name:match("_eff$") then
    local lo = math.log(1e-4)
    local u0 = math.log(math.max(math.min(v0 or 0.8, 1), 1e-4))
    return { lo = lo, hi = 0, u0 = u0, step = -0.3,
      value = function(u) return math.min(1, math.exp(u)) end }
  elseif name:match("overhead$") then
    local u0 = math.log10(math.max(v0 or 0, 1e-6))
    u0 = math.max(-9, math.min(0, u0))
    return { lo = -9, hi = 0, u0 = u0, step = 1,
      value = function(u) return 10 ^ u end }
  end
  if type(v0) ~= "number" or not (v0 > 0) then return nil end
  local c = math.log(v0)
  return { lo = c - 10, hi = c + 10, u0 = c, step = 0.5, value = function(u) return math.exp(u) end }
end

-- Park-Miller minimal standard generator (exact in doubles on both backends).
local function shuffle(n, seed)
  local x = (math.floor(seed) % 2147483646) + 1
  local idx = {}
  for i = 1, n do idx[i] = i end
  for i = n, 2, -1 do
    x = (16807 * x) % 2147483647
    local j = 1 + x % i
    idx[i], idx[j] = idx[j], idx[i]
  end
  return idx
end

local function percentile(xs, p)
  if #xs == 0 then return nil end
  return core.stats_percentiles(xs, { p })[1] -- linear interpolation, as dlb.stats.percentile
end

-- The Nelder-Mead simplex of graphs/stats/minimize.c, asked for points until it stops:
-- the best point found and the evaluations it took. fn names the caller (dlb.hw.calibrate,
-- dlb.parallel.calibrate_collective) in the error of a bad max_evals, which the C rule
-- (graphs/stats/minimize.c, through the binding) refuses: raised at the user's line (level 4:
-- the user's call of fn, through fn's body), not as the binding's "bad argument #6 to
-- 'minimizer_new'" (review 13).
local function minimize(fn, x0, step, lo, hi, tol, max_evals, objective)
  local okm, mz = pcall(core.minimizer_new, x0, step, lo, hi, tol, max_evals)
  if not okm then
    local why = require("dlbench.errors").argtext(require("dlbench.errors").strip(mz))
    if not why:find("^max_evals") then why = "max_evals: " .. why end
    error(fn .. ": " .. why .. " (got " .. tostring(max_evals) .. ")", 4)
  end
  while true do
    local u = core.minimizer_ask(mz)
    if not u then break end
    core.minimizer_tell(mz, objective(u))
  end
  local best, _, evals = core.minimizer_best(mz)
  return best, evals
end

local cal_opts = { fields = true, holdout = true, seed = true, loss = true, delta = true,
  name = true, time = true, max_evals = true }

-- A fit as the REPL and print show it: the fields fitted, those not (and why), the errors.
local function fit_tostring(r)
  local keys = {}
  for k in pairs(r.fields) do keys[#keys + 1] = k end
  table.sort(keys)
  local got = {}
  for _, k in ipairs(keys) do got[#got + 1] = string.format("%s = %.4g", k, r.fields[k]) end
  local out = { string.format("calibration: %s (%s on %d measurements, %s loss); median |error| "
    .. "%.1f%% (p90 %.1f%%) on the %s set", #got > 0 and table.concat(got, ", ") or "nothing fitted",
    #got > 0 and "CALIBRATED" or "fit", r.n_fit, r.loss, 100 * r.median_abs, 100 * r.p90_abs, r.errors_on) }
  if r.note then out[#out + 1] = "NOT FITTED: " .. r.note end
  return table.concat(out, "\n")
end

function M.calibrate(dev, meas, opts)
  local fn = "dlb.hw.calibrate"
  local hw = require "dlbench.hw"
  local roofline = require "dlbench.roofline"
  opts = options.check(opts, cal_opts, fn, 3)
  local ok, d = pcall(hw.get, dev)
  if not ok then error(fn .. ": " .. tostring(d), 3) end
  dev = d
  if type(meas) ~= "table" or #meas == 0 then
    error(fn .. ": measurements must be a non-empty list of {stats=, time=[, label=]}", 3)
  end
  for i, m in ipairs(meas) do
    if type(m) ~= "table" or type(m.stats) ~= "table" then
      error(string.format("%s: measurements[%d] needs stats= (g:stats{...} or {flops=, bytes=})", fn, i), 3)
    end
    if type(m.time) ~= "number" or not (m.time > 0) or m.time == math.huge then
      error(string.format("%s: measurements[%d].time must be positive seconds, got %s", fn, i, tostring(m.time)), 3)
    end
  end
  local fields = opts.fields or M.default_fields
  if type(fields) ~= "table" or #fields == 0 then error(fn .. ": fields must be a list of device field names", 3) end
  local holdout = opts.holdout or 0
  if type(holdout) ~= "number" or not (holdout >= 0 and holdout < 1) then
    error(fn .. ": holdout must be a fraction in [0, 1), got " .. tostring(holdout), 3)
  end
  local loss = opts.loss or "lad"
  if loss ~= "lad" and loss ~= "huber" then error(fn .. ": loss must be 'lad' or 'huber', got " .. tostring(loss), 3) end
  local delta = opts.delta or 0.1
  -- the split's seed and Huber's delta: NaN, inf or a string reached the shuffle's and the
  -- loss's arithmetic ("table index is NaN", "attempt to perform arithmetic")
  if type(delta) ~= "number" or not (delta > 0) or delta == math.huge then
    error(fn .. ": delta must be a finite number > 0 (Huber's threshold on the relative error), got "
      .. tostring(delta), 3)
  end
  local seed = opts.seed or 1
  if type(seed) ~= "number" or seed ~= math.floor(seed) or seed == math.huge or seed == -math.huge then
    error(fn .. ": seed must be a whole number (the fit/holdout split's), got " .. tostring(seed), 3)
  end
  local topts = opts.time or {}

  -- the seeded split
  local n = #meas
  local order = shuffle(n, seed)
  local nhold = math.floor(holdout * n + 0.5)
  if nhold >= n then nhold = n - 1 end
  local fit, hold = {}, {}
  for i, k in ipairs(order) do
    if i <= nhold then hold[#hold + 1] = k else fit[#fit + 1] = k end
  end
  table.sort(fit); table.sort(hold)

  local function predict(d, k)
    local m = meas[k]
    local o = {}
    for kk, v in pairs(topts) do o[kk] = v end
    for kk, v in pairs(m.time_opts or {}) do o[kk] = v end
    local okp, r = pcall(roofline.time, m.stats, d, o)
    if not okp then error(string.format("%s: measurements[%d]: %s", fn, k, tostring(r)), 0) end
    return r.time
  end
  -- "peak.fp32" names a precision's peak: changes to it replace the whole peak table;
  -- "bw_scale" (a factor, not a device field) scales every memory ceiling of the device,
  -- mem_bw and each measured level's bw: one unbounded memory scale, where bw_eff stops at 1
  local function with(changes)
    if changes.bw_scale then
      local c2, f = {}, changes.bw_scale
      for k, v in pairs(changes) do if k ~= "bw_scale" then c2[k] = v end end
      c2.mem_bw = dev.mem_bw * f
      local lv = dev:level_list()
      if #lv > 0 then
        for _, l in ipairs(lv) do l.bw = l.bw * f end
        c2.levels = lv
      end
      changes = c2
    end
    local peak
    for k, v in pairs(changes) do
      local p = type(k) == "string" and k:match("^peak%.(.+)$")
      if p then
        peak = peak or dev:spec().peak
        peak[p] = v
      end
    end
    if peak then
      local c2 = {}
      for k, v in pairs(changes) do if not (type(k) == "string" and k:match("^peak%.")) then c2[k] = v end end
      c2.peak = peak
      changes = c2
    end
    local okw, d2 = pcall(dev.with, dev, changes)
    if not okw then return nil, d2 end
    return d2
  end

  -- which fields the time model uses: a field must exist on devices and move a prediction
  local params, unused = {}, {}
  local base = {}
  for _, k in ipairs(fit) do base[k] = predict(dev, k) end
  for _, f in ipairs(fields) do
    if type(f) ~= "string" then error(fn .. ": field names must be strings", 3) end
    local v0 = dev[f]
    local pp = f:match("^peak%.(.+)$")
    if pp then v0 = dev.peak[pp] end
    if f == "bw_scale" then v0 = 1 end
    local spec_ = require "dlbench.hw_spec"
    if not (pp or f == "bw_scale" or spec_.FIELDS[f]) then
      -- a name no device has (a typo): named with the closest field (review 21)
      local near = options.suggest(f, spec_.FIELD_LIST)
      unused[f] = "not a field of dlb.hw devices" .. (near and (" (did you mean '" .. near .. "'?)") or "")
    elseif type(v0) == "function" or type(v0) == "table" then
      unused[f] = "not a numeric device field"
    else
      local tr = transform(f, v0)
      if not tr then
        unused[f] = "not a numeric device field"
      else
        local u = tr.u0 + tr.step
        if u > tr.hi or u < tr.lo then u = tr.u0 - tr.step end
        local probe = tr.value(u)
        local d2, err = with({ [f] = probe })
        if not d2 then
          unused[f] = "not a field of dlb.hw devices in this build (" .. tostring(err):gsub("^.-: ", "") .. ")"
        else
          local moved = false
          for _, k in ipairs(fit) do
            local p = predict(d2, k)
            if math.abs(p - base[k]) > 1e-12 * math.max(math.abs(base[k]), 1e-30) then moved = true; break end
          end
          if moved then
            params[#params + 1] = { name = f, tr = tr }
          else
            unused[f] = "not identifiable: dlb.roofline.time does not use it for these measurements"
          end
        end
      end
    end
  end

  local function rho(r)
    r = math.abs(r)
    if loss == "lad" then return r end
    return r <= delta and 0.5 * r * r or delta * (r - 0.5 * delta)
  end
  local function device_at(u)
    if #params == 0 then return dev end
    local ch = {}
    for i, p in ipairs(params) do ch[p.name] = p.tr.value(u[i]) end
    return (with(ch))
  end
  local function objective(u)
    local d2 = device_at(u)
    if not d2 then return math.huge end
    local s = 0
    for _, k in ipairs(fit) do
      local p = predict(d2, k)
      if not (p > 0) then return math.huge end
      s = s + rho(math.log(p / meas[k].time))
    end
    return s
  end

  local best_u, evals = {}, 0
  if #params > 0 then
    local x0, st, lo, hi = {}, {}, {}, {}
    for i, p in ipairs(params) do
      x0[i], st[i], lo[i], hi[i] = p.tr.u0, p.tr.step, p.tr.lo, p.tr.hi
    end
    best_u, evals = minimize(fn, x0, st, lo, hi, 1e-9, opts.max_evals or 300 * #params, objective)
  end

  local values, changes, src = {}, {}, {}
  local spec_src = {}
  for k, v in pairs(dev:spec().source or {}) do spec_src[k] = v end
  for i, p in ipairs(params) do
    values[p.name] = p.tr.value(best_u[i])
    changes[p.name] = values[p.name]
    local sname = p.name:match("^peak%.") and "peak" or p.name
    if p.name == "bw_scale" then sname = "mem_bw" end
    src[sname] = string.format("CALIBRATED by dlb.hw.calibrate on %d measurements (%s loss on log time)",
      #fit, loss)
    if p.name == "bw_scale" then
      src.mem_bw = src.mem_bw .. string.format(": the measured ceilings x %.4g (bw_scale)", values[p.name])
      if #dev:level_list() > 0 then src.levels = src.mem_bw end
    end
  end
  for k, v in pairs(src) do spec_src[k] = v end
  -- nothing fitted: the device is the one given, and its name says so (review 21: "X
  -- (calibrated)" with every field a typo or not identifiable, and no word of it)
  changes.name = opts.name or (dev.name .. (#params > 0 and " (calibrated)" or " (nothing fitted)"))
  changes.source = spec_src
  local out = assert(with(changes))

  -- errors: predicted / measured - 1
  local rows, efit, ehold = {}, {}, {}
  local inhold = {}
  for _, k in ipairs(hold) do inhold[k] = true end
  for k = 1, n do
    local p = predict(out, k)
    local e = p / meas[k].time - 1
    rows[k] = { label = meas[k].label or tostring(k), set = inhold[k] and "holdout" or "fit",
      measured = meas[k].time, predicted = p, error = e }
    if inhold[k] then ehold[#ehold + 1] = math.abs(e) else efit[#efit + 1] = math.abs(e) end
  end
  local T = require "dlbench.table"
  local eval_set = #ehold > 0 and ehold or efit
  local rec = {
    fields = values, not_identifiable = unused, loss = loss, evals = evals,
    fit_error = percentile(efit, 50), holdout_error = percentile(ehold, 50),
    median_abs = percentile(eval_set, 50), p90_abs = percentile(eval_set, 90),
    errors_on = #ehold > 0 and "holdout" or "fit",
    n_fit = #fit, n_holdout = #hold,
    table = T.new(rows, { "label", "set", "measured", "predicted", "error" }),
  }
  -- the fields asked for and not fitted, said where the user sees them (review 21: docs say
  -- they are reported, not refused, but the report was a table nobody printed): fit.not_fitted
  -- (in the order asked), fit.note, the printed fit, and a warning on stderr
  local nf = {}
  for _, f in ipairs(fields) do if unused[f] then nf[#nf + 1] = f end end
  rec.not_fitted = nf
  if #nf > 0 then
    local parts = {}
    for _, f in ipairs(nf) do parts[#parts + 1] = f .. ": " .. unused[f] end
    rec.note = string.format("%d of %d fields not fitted (%s)%s", #nf, #fields, table.concat(parts, "; "),
      #params == 0 and "; NOTHING was fitted: the device is the one given" or "")
    io.stderr:write("dlbench: warning: ", fn, ": ", rec.note, "\n")
  end
  return out, pretty.object(rec, fit_tostring)
end

doc.doc(M.calibrate, "dlb.hw.calibrate(hw, {{stats=, time=[, label=, time_opts=]}, ...}[, {fields=, "
  .. "holdout=, seed=, loss=\"lad\"|\"huber\", delta=, name=, time=, max_evals=}]) -> device, fit",
  "CALIBRATE named numeric device fields (default flops_eff, bw_eff, kernel_overhead, "
  .. "step_overhead; \"peak.fp32\" a precision's peak; \"bw_scale\" a factor on every memory "
  .. "ceiling) to measured times through dlb.roofline.time: least absolute log error "
  .. "(or Huber) by Nelder-Mead, a seeded holdout split; fit = {fields=, not_identifiable=, "
  .. "not_fitted= (the fields asked for and not fitted, also in fit.note, the printed fit and a "
  .. "warning on stderr), "
  .. "fit_error=, holdout_error=, median_abs=, p90_abs=, n_fit=, n_holdout=, table=}")

-- == a collective tier from measured (gpus, bytes, time) rows ===========================
-- dlb.parallel.calibrate_collective: fit one link tier of a cluster, its bandwidth
-- efficiency `eff` and `nccl_latency` (seconds added to every NCCL collective on that tier;
-- C's dlb_par_link), to measured collective times such as nccl-tests' all_reduce_perf
-- table: least squares in log time over the rows, the predictions made by
-- dlb.parallel.nccl (graphs/parallel/nccl.c: NCCL's algorithm and protocol choice stays
-- its own; nccl_latency is added to every pair's latency alike). Bytes follow
-- dlb.parallel.nccl's convention, which is nccl-tests' `size` column for all_reduce and
-- broadcast: the buffer each rank holds (count x type size; nccl-tests' busbw is its
-- algbw x 2(n-1)/n, the ring's). docs/parallel.md.
M.collective_fields = { "eff", "nccl_latency" }
local coll_opts = { op = true, tier = true, fields = true, max_evals = true }
local LAT_MAX_US = 1e5   -- the search's bound on nccl_latency: 0.1 s

function M.collective(cluster, meas, opts)
  local fn = "parallel.calibrate_collective"   -- dlb.parallel's own prefix (its rethrow)
  local P = require "dlbench.parallel"
  opts = options.check(opts, coll_opts, fn, 3)
  local okc, cl = pcall(P.cluster, type(cluster) == "table" and cluster or {})
  if type(cluster) ~= "table" or not okc then
    error(fn .. ": cluster must be a dlb.parallel.cluster{...}" .. (okc and "" or (": " .. tostring(cl):gsub("^.-: ", ""))), 3)
  end
  local op = opts.op or "allreduce"
  local tier = opts.tier or "intra"
  if tier ~= "intra" and tier ~= "inter" then
    error(fn .. ": tier must be \"intra\" (rows on one node) or \"inter\" (rows across nodes), got " .. tostring(tier), 3)
  end
  if not cl[tier] then error(fn .. ": the cluster has no " .. tier .. " link to calibrate", 3) end
  -- the operation as dlb.parallel.nccl knows it (its one list, from the C enum)
  local okop, why = pcall(P.nccl, op, 1, { ranks = 2, nodes = 1, bw_intra = 1e9 })
  if not okop then error(fn .. ": " .. tostring(why):gsub("^.-: ", ""), 3) end
  local fields = opts.fields or M.collective_fields
  if type(fields) ~= "table" or #fields == 0 then
    error(fn .. ": fields must be a non-empty list of \"eff\" and/or \"nccl_latency\"", 3)
  end
  local fit_eff, fit_lat = false, false
  for _, f in ipairs(fields) do
    if f == "eff" then fit_eff = true elseif f == "nccl_latency" then fit_lat = true
    else error(fn .. ": " .. options.message(tostring(f), M.collective_fields, fn, "field"), 3) end
  end
  if type(meas) ~= "table" or #meas == 0 then
    error(fn .. ": rows must be a non-empty list of {gpus=, bytes=, time=[, per_node=]}", 3)
  end
  local gnode = cl.per_node
  local rows = {}
  for i, m in ipairs(meas) do
    local w = string.format("%s: rows[%d]", fn, i)
    if type(m) ~= "table" then error(w .. " must be a table {gpus=, bytes=, time=}", 3) end
    local function need(k, v, ok, what)
      if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge or not ok(v) then
        error(string.format("%s.%s must be %s, got %s", w, k, what, tostring(v)), 4)
      end
      return v
    end
    local g = need("gpus", m.gpus, function(v) return v >= 2 and v == math.floor(v) end,
      "a whole number >= 2 (ranks)")
    local b = need("bytes", m.bytes, function(v) return v > 0 end, "a number of bytes > 0")
    local t = need("time", m.time, function(v) return v > 0 end, "positive seconds")
    local pn = m.per_node
    if pn == nil then pn = tier == "intra" and g or math.min(g, gnode) end
    need("per_node", pn, function(v) return v >= 1 and v == math.floor(v) and v <= g end,
      "a whole number in 1..gpus")
    if tier == "intra" and pn ~= g then
      error(string.format("%s: the intra tier is calibrated from rows on one node: per_node %g of %g gpus", w, pn, g), 3)
    end
    if tier == "inter" and pn >= g then
      error(string.format("%s: the inter tier is calibrated from rows across nodes: per_node %g of %g gpus", w, pn, g), 3)
    end
    if pn > gnode then
      error(string.format("%s: %g ranks per node in the cluster's nodes of %g", w, pn, gnode), 3)
    end
    rows[i] = { gpus = g, bytes = b, time = t, per_node = pn, label = m.label }
  end
  local base = cl[tier]
  local function cluster_at(eff, lat)
    local c = {}
    for k, v in pairs(cl) do c[k] = v end
    c[tier] = { bw = base.bw, latency = base.latency, eff = eff, nccl_latency = lat }
    return c
  end
  local function times(c)
    local out = {}
    for i, r in ipairs(rows) do
      local okp, x = pcall(function() return P.nccl(op, r.bytes, P.nccl_topo(c, r.gpus, r.per_node)) end)
      if not okp then error(string.format("%s: rows[%d]: %s", fn, i, tostring(x):gsub("^.-: ", "")), 0) end
      out[i] = x
    end
    return out
  end
  local eff0, lat0 = base.eff or 1, base.nccl_latency or 0
  -- the search's coordinates: log eff in [log 1e-3, 0], nccl_latency in us in [0, 1e5]
  local function unpack_u(u)
    local k, eff, lat = 1, eff0, lat0
    if fit_eff then eff = math.min(1, math.exp(u[k])); k = k + 1 end
    if fit_lat then lat = math.max(0, u[k]) * 1e-6 end
    return eff, lat
  end
  local function objective(u)
    local eff, lat = unpack_u(u)
    local okt, ts = pcall(times, cluster_at(eff, lat))
    if not okt then return math.huge end
    local s = 0
    for i, r in ipairs(rows) do s = s + math.log(ts[i].time / r.time) ^ 2 end
    return s
  end
  local x0, st, lo, hi = {}, {}, {}, {}
  if fit_eff then
    x0[#x0 + 1], st[#st + 1], lo[#lo + 1], hi[#hi + 1] = math.log(math.max(eff0, 1e-3)), -0.3, math.log(1e-3), 0
  end
  if fit_lat then
    x0[#x0 + 1], st[#st + 1], lo[#lo + 1], hi[#hi + 1] = math.min(lat0 * 1e6, LAT_MAX_US), 10, 0, LAT_MAX_US
  end
  local best_u, evals = minimize(fn, x0, st, lo, hi, 1e-14, opts.max_evals or 2000 * #x0, objective)
  local eff, lat = unpack_u(best_u)
  local out = cluster_at(eff, lat)
  local before, after = times(cl), times(out)
  local T = require "dlbench.table"
  local tab, eb, ea = {}, {}, {}
  local ss = 0
  for i, r in ipairs(rows) do
    local a = after[i]
    tab[i] = { label = r.label or tostring(i), gpus = r.gpus, per_node = r.per_node, bytes = r.bytes,
      measured = r.time, before = before[i].time, predicted = a.time, ratio = a.time / r.time,
      algo = a.algo .. "/" .. a.proto }
    eb[i], ea[i] = math.abs(before[i].time / r.time - 1), math.abs(a.time / r.time - 1)
    ss = ss + math.log(a.time / r.time) ^ 2
  end
  local rec = { eff = eff, nccl_latency = lat, tier = tier, op = op, n = #rows, evals = evals,
    eff_at_bound = fit_eff and eff >= 1 - 1e-9 or nil,
    rms_log = math.sqrt(ss / #rows),
    median_abs_before = percentile(eb, 50), median_abs = percentile(ea, 50),
    max_abs_before = percentile(eb, 100), max_abs = percentile(ea, 100),
    table = T.new(tab, { "label", "gpus", "per_node", "bytes", "measured", "before", "predicted",
      "ratio", "algo" }) }
  return out, rec
end
doc.doc(M.collective, "dlb.parallel.calibrate_collective(cluster, {{gpus=, bytes=, time=[, per_node=, "
  .. "label=]}, ...}[, {op=\"allreduce\", tier=\"intra\"|\"inter\", fields={\"eff\", \"nccl_latency\"}, "
  .. "max_evals=}]) -> cluster, fit",
  "CALIBRATE one link tier of a cluster to measured collective times (nccl-tests: size(B) as "
  .. "bytes, time in s): its bandwidth efficiency eff and nccl_latency (s added to every NCCL "
  .. "collective on the tier), least squares in log time through dlb.parallel.nccl; intra: rows "
  .. "on one node, inter: rows across nodes; fit = {eff=, nccl_latency=, rms_log=, median_abs=, "
  .. "median_abs_before=, max_abs=, max_abs_before=, n=, eff_at_bound=, table=}")
return M
