-- validation.lua — dlbench's predictions against published, measured training throughputs
-- (issue [9] item 7). The rows are notebooks/data/validation_runs.lua (sources, layouts and
-- conventions in that file and docs/validation.md). For every row:
--   1. build the model (dlb.models), take its per-layer costs and ops
--      (dlb.parallel.layers.from_graph), and predict the step of the row's layout with
--      dlb.parallel.evaluate on the catalogue device (the same per-op model as
--      dlb.roofline.time); a row without a stated layout gets the planner's best layout;
--   2. compare throughput per device in samples/s (tokens/s divided by the sequence; a
--      published TFLOP/s or MFU becomes samples/s through our own FLOPs per sample of the
--      same kind: model FLOPs, or hardware FLOPs with the recompute forward);
--   3. CALIBRATE one parameter with a physical meaning per chip and execution units,
--      flops_eff (the achievable fraction of peak of the compute-bound kernels), on a
--      calibration subset (each row's stored role, "fit"; the split of commit 841b5a7, every
--      third row in id order, written into the data), and report the error on the other
--      rows only (held out). Rows whose source lacks what the model needs are excluded from
--      scoring, each with its reason printed.
-- Prints the table, the default and calibrated held-out median / p90 |error|, and draws a
-- log-log predicted-vs-measured scatter with y = x and a +-20% band.
--   dlbench run notebooks/validation.lua [outdir]      (default out/)
local dlb = require "dlbench"
local P = dlb.parallel

local outdir = require("dlbench.notebook").outdir(arg)   -- arg[1] or "out", created

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "notebooks"
local rows = dofile(here .. "/data/validation_runs.lua")
table.sort(rows, function(a, b) return a.id < b.id end)

-- how a row becomes a prediction (its profile, layers, layout, cluster) and its measured
-- samples/s: notebooks/lib/validation_rows.lua
local V = dofile(here .. "/lib/validation_rows.lua")(dlb)
local excluded, setup, predict, measured = V.excluded, V.setup, V.predict, V.measured

-- == predict every row with the catalogue's defaults ===================================

local t0 = os.clock()
local res, skipped = {}, {}
local unscored = {}   -- rows excluded for their source, predicted anyway: shown, not scored
for i, r in ipairs(rows) do
  if excluded(r) then
    local ok, s = pcall(setup, r, { unscored = true })
    if ok and s then
      local ok2, pred = pcall(predict, s, s.hw)
      local meas = measured(r, s)
      if ok2 and meas and pred > 0 then
        unscored[#unscored + 1] = { row = r, s = s, meas = meas, pred = pred, calib = r.role == "fit" }
      end
    end
  end
  local ok, s, why = pcall(setup, r)
  if not ok then why, s = tostring(s), nil end
  if s then
    local ok2, pred = pcall(predict, s, s.hw)
    local meas, how = measured(r, s)
    if ok2 and meas and pred > 0 then
      res[#res + 1] = { row = r, s = s, meas = meas, how = how, pred = pred,
        calib = r.role == "fit" }
    else
      skipped[#skipped + 1] = r.id .. ": " .. tostring(ok2 and "no measured throughput" or pred)
    end
  else
    skipped[#skipped + 1] = r.id .. ": " .. tostring(why)
  end
end

-- == calibration: flops_eff per device on the calibration rows =========================
local function logerr(p, m) return math.abs(math.log(p / m)) end
-- the lower median and the nearest-rank percentile (notebooks/lib/validation_stats.lua)
local VS = dofile(here .. "/lib/validation_stats.lua")
local median, pct = VS.median, VS.pct

local calibrated = {}   -- hw name -> {flops_eff =, rows =, pooled =}
local MIN_ROWS = 3      -- fewer calibration rows than this: the device class's pooled value
-- flops_eff minimising the median |log error| of rows xs (each on its own device)
-- The median |log error| of rows xs, each predicted on its catalogue device with `changes`
-- (hw:with): the modified device made once per catalogue device (hw:with validates it).
local function median_err(xs, changes)
  local errs, devs = {}, {}
  for i, x in ipairs(xs) do
    local d = devs[x.s.hw]
    if not d then d = x.s.hw:with(changes); devs[x.s.hw] = d end
    errs[i] = logerr((predict(x.s, d)), x.meas)
  end
  return median(errs)
end
local function fit(xs)
  local best, beste = 0.8, math.huge
  for e = 0.30, 1.0001, 0.02 do
    local me = median_err(xs, { flops_eff = math.min(1, e) })
    if me < beste then best, beste = math.min(1, e), me end
  end
  return best
end
-- What one flops_eff stands for: the achievable fraction of peak of one chip's execution
-- units. So the key is the chip (the A100 40 GB and 80 GB SXM4 parts are one GA100 die,
-- 108 SMs at the same clock and peak; they differ in HBM, which the model has as mem_bw)
-- and the units a precision runs on:
--   * tensor cores / MXUs (fp16, bf16, mixed, tf32): the device's flops_eff;
--   * fp8: a second flops_eff. Transformer Engine runs only the linear layers' GEMMs in fp8
--     (attention, norms and elementwise kernels stay bf16) and adds per-tensor scaling
--     (amax, casts), so the achievable fraction of the fp8 peak is a quantity of its own
--     (NVIDIA Transformer Engine docs, "Using FP8 with Transformer Engine");
--   * fp32 on CUDA cores (V100 and Pascal fp32 rows): a third; a tensor-core calibration
--     says nothing about CUDA-core SGEMM, so with fewer than MIN_ROWS rows of its own
--     (pooled over the device kind too) the class keeps the catalogue value, uncalibrated.
local CHIP = { ["A100-SXM4-40GB"] = "A100", ["A100-SXM4-80GB"] = "A100" }
local function unit(x)
  if x.row.precision == "fp8" then return " fp8" end
  if x.s.dprec == "fp32" then return " fp32" end
  return ""
end
local function ckey(x) return (CHIP[x.row.hw] or x.row.hw) .. unit(x) end
local by_hw, by_kind = {}, {}
for _, x in ipairs(res) do
  if x.calib then
    by_hw[ckey(x)] = by_hw[ckey(x)] or {}
    table.insert(by_hw[ckey(x)], x)
    local k = x.s.hw.kind .. unit(x)
    by_kind[k] = by_kind[k] or {}
    table.insert(by_kind[k], x)
  end
end
local pooled = {}
for k, xs in pairs(by_kind) do if #xs >= MIN_ROWS then pooled[k] = fit(xs) end end
for _, x in ipairs(res) do
  local name = ckey(x)
  if not calibrated[name] then
    local xs = by_hw[name] or {}
    local k = x.s.hw.kind .. unit(x)
    if #xs >= MIN_ROWS then
      calibrated[name] = { flops_eff = fit(xs), rows = #xs, catalogue = x.s.hw.flops_eff, xs = xs }
    elseif pooled[k] then
      calibrated[name] = { flops_eff = pooled[k], rows = #xs, pooled = k, catalogue = x.s.hw.flops_eff,
        xs = by_kind[k] }
    else
      calibrated[name] = { rows = #xs, catalogue = x.s.hw.flops_eff, none = k }
    end
  end
end
local host = {}   -- profile -> {host_op =, rows =, ids =}: the host-side CALIBRATION below
local function hw_cal(x)
  local c = calibrated[ckey(x)]
  local hw = (c and c.flops_eff) and x.s.hw:with { flops_eff = c.flops_eff } or x.s.hw
  local h = host[x.s.profile]
  if h then hw = hw:with { host_op = h.host_op } end
  return hw
end

-- == calibration: collective-bandwidth efficiency per framework profile ================
-- A framework whose collectives reach only part of the links' bandwidth: DeepSpeed's ZeRO-3
-- of 2021 gathered parameters tensor by tensor (partition_parameters.py, list-form
-- all_gather into per-rank buffers), prefetching one step ahead, not NCCL's bucketed
-- collectives; its achieved bandwidth is a property of that software, not of the links. One
-- CALIBRATED number per profile (a fraction of the links' bandwidth, both tiers), fitted on
-- that profile's calibration rows only (flops_eff already calibrated), when it has any.
local PROFILES = { { key = "DeepSpeed ZeRO-3", profile = "deepspeed-zero3" } }
local function profile(x)
  for _, p in ipairs(PROFILES) do
    if x.s.profile == p.profile then return p.key end
  end
end
local coll = {}   -- profile -> {eff =, rows =}
for _, p in ipairs(PROFILES) do
  local xs = {}
  for _, x in ipairs(res) do
    if x.calib and profile(x) == p.key then xs[#xs + 1] = x end
  end
  if #xs > 0 then
    local best, beste = 1, math.huge
    -- least squares in log error: with a profile's few rows (two today) a median would be
    -- one row's error alone (the lower median of two), so every row gets its weight
    for e = 0.05, 1.0001, 0.01 do
      local se = 0
      for _, x in ipairs(xs) do se = se + logerr((predict(x.s, hw_cal(x), e)), x.meas) ^ 2 end
      if se < beste then best, beste = e, se end
    end
    local ids = {}
    for _, x in ipairs(xs) do ids[#ids + 1] = x.row.id end
    coll[p.key] = { eff = best, rows = #xs, ids = ids }
  end
end

-- == the vTrain sets (issue [19]): small models, small micro-batches, tensor parallelism ==
-- Measured Megatron-LM iteration times on A100 clusters (notebooks/data/vtrain_runs.lua: the
-- layouts and the cluster the source states, the assumptions it does not: A100 80 GB, 4 NICs
-- of 200 Gb/s per node), each row's role fixed by a hash of its key before any error was
-- seen. They are scored as sets of their own, not pooled with the table above, and take no
-- part in its flops_eff calibration (the A100's comes from the table's calibration rows).
local vrows = dofile(here .. "/data/vtrain_runs.lua")(here .. "/data")
-- the sanitizer tests' subset mode (DLB_NOTEBOOK_SUBSET=1, notebooks/lib/subset.lua): the
-- first row of each set, role and layout kind; the same C lines and branches as all rows
-- (tests/tools/subset_coverage.sh). Off by default: every row is predicted and scored.
local SUB = dofile(here .. "/lib/subset.lua")
vrows = SUB.keep("vTrain rows", vrows, SUB.vtrain)
local vres, vskipped = {}, {}
for _, r in ipairs(vrows) do
  local ok, s, why = pcall(setup, r)
  if not ok then why, s = tostring(s), nil end
  if s then
    local ok2, pred, row = pcall(predict, s, s.hw)
    if ok2 then
      vres[#vres + 1] = { row = r, s = s, meas = (measured(r, s)), pred = pred, calib = r.role == "fit",
        unreliable = row.unreliable, mem_frac = row.mem_frac }
    else vskipped[#vskipped + 1] = r.id .. ": " .. tostring(pred) end
  else vskipped[#vskipped + 1] = r.id .. ": " .. tostring(why) end
end

-- == calibration: the vTrain cluster's node tier from its own nccl-tests ================
-- The source's all_reduce_perf tables on its A100 node (notebooks/data/vtrain/
-- nccl_allreduce_a100.csv, trace/a100/AR_GPU{2,4,8}_LUT: fp32, out-of-place, 2/4/8 GPUs,
-- 1-192 MiB; nccl-tests' size(B) is the buffer each rank all-reduces, count x 4, which is
-- dlb.parallel.nccl's bytes): the NVLink tier's bandwidth efficiency and the latency NCCL's
-- tuning tables lack, CALIBRATED by dlb.parallel.calibrate_collective (least squares in log
-- time). A calibration from a microbenchmark, not from step times, made BEFORE flops_eff and
-- the host cost below are fitted, so a too-fast all-reduce is not absorbed into a too-low
-- flops_eff. This mechanism was chosen after the errors of earlier rounds were seen
-- (docs/validation.md, issue [19] "the vTrain node's all-reduce"); it applies to the vTrain
-- rows' cluster only (their intra link), no other row's.
local nccl_meas = V.nccl_allreduce(here .. "/data")
local vt_node = P.cluster { hw = "A100-SXM4-80GB", per_node = 8, nodes = 1, nics = 4 }
local vt_node_cal, vt_nccl = P.calibrate_collective(vt_node, nccl_meas, { tier = "intra" })
for _, x in ipairs(vres) do x.s.intra = vt_node_cal.intra end   -- x.pred (catalogue) is made

-- == calibration: the vTrain cluster's flops_eff and the host's seconds per op ==========
-- Two CALIBRATED numbers, fitted on the vTrain calibration rows only (median |log error|,
-- two rounds of coordinate descent from the profile's ESTIMATE):
--   * the host seconds per op of the rows' profile (the profile's dispatch.per_op: Python,
--     the dispatcher and the launch per op; dlb_timeline): an ESTIMATE (10 us) in the
--     profiles, fitted here on the only rows where the host bounds the step. It stands for
--     that software on that source's hosts (Megatron-LM of 2021-22 with full checkpointing
--     on vTrain's A100 nodes), a label, not a datasheet value; it also times the table's
--     Megatron-LM rows above (CALIBRATED column), where it changes little (long kernels);
--   * the achievable fraction of peak of that cluster's A100s (flops_eff), apart from the
--     table's A100 value: the same Megatron-LM layout of the same 3.6B model runs ~15% slower
--     per GPU on vTrain's cluster than on Selene (Narayanan et al. 2021 Table 1: 138 TFLOP/s
--     at t 2, d 32; vTrain's row 118). This key was added AFTER the first run's held-out
--     errors were seen (the multi-node set 15% optimistic with the table's 0.78); it is
--     reported as such in docs/validation.md.
-- Both are fitted with the rows' node tier as CALIBRATED above from the source's nccl-tests
-- (their intra link, x.s.intra): the same calibration rows, roles unchanged.
local vcal = { flops_eff = nil, rows = 0 }
do
  local xs = {}
  for _, x in ipairs(vres) do if x.calib then xs[#xs + 1] = x end end
  if #xs > 0 then
    local prof = xs[1].s.profile
    local c = calibrated[ckey(xs[1])]
    local fe = c and c.flops_eff or xs[1].s.hw.flops_eff
    local ho = (dlb.frameworks.host_of(dlb.frameworks.get(prof)))
    -- each (flops_eff, host_op) point scored once: the second round's grids repeat points
    -- of the first (all of them when flops_eff has settled)
    local scored = {}
    local function score(e, h)
      local key = string.format("%.17g %.17g", e, h)
      local m = scored[key]
      if m == nil then m = median_err(xs, { flops_eff = e, host_op = h }); scored[key] = m end
      return m
    end
    for _ = 1, 2 do
      local best, beste = fe, math.huge
      for e = 0.50, 0.9001, 0.02 do
        local m = score(e, ho)
        if m < beste then best, beste = e, m end
      end
      fe = best
      best, beste = ho, math.huge
      for us = 0, 80, 4 do
        local m = score(fe, us * 1e-6)
        if m < beste then best, beste = us * 1e-6, m end
      end
      ho = best
    end
    vcal = { flops_eff = fe, rows = #xs }
    host[prof] = { host_op = ho, rows = #xs }
  end
end
for _, x in ipairs(vres) do
  x.pred_cal, x.cal = predict(x.s, x.s.hw:with { flops_eff = vcal.flops_eff or x.s.hw.flops_eff,
    host_op = host[x.s.profile] and host[x.s.profile].host_op or nil })
end

for _, x in ipairs(res) do
  local c = calibrated[ckey(x)]
  local cp = coll[profile(x) or ""]
  x.coll = cp and cp.eff
  if (c and c.flops_eff) or cp or host[x.s.profile] then
    x.pred_cal = (predict(x.s, hw_cal(x), cp and cp.eff))
  else
    x.pred_cal = x.pred
  end
end

for _, x in ipairs(unscored) do
  local cp = coll[profile(x) or ""]
  x.pred_cal = (predict(x.s, hw_cal(x), cp and cp.eff))
end

-- == report =============================================================================
print("Validation: PREDICTED training throughput (dlbench) vs MEASURED (published; sources in")
print("notebooks/data/validation_runs.lua). Per device, samples/s. 'cal' rows were used to fit")
print("the CALIBRATED flops_eff; the error that counts is on the held-out rows.\n")
print(string.format("%-44s %-15s %-5s %-9s %11s %11s %8s %11s %8s", "row", "device", "set", "framework",
  "measured", "predicted", "error", "calibrated", "error"))
-- Expert- and context-parallel rows (issue [21]) have their own target and line below; the
-- earlier rounds' target (<= 10% / <= 25%) is scored on the dense rows it was set on.
local function moecp(r)
  local L = r.layout or {}
  return (L.ep or 1) > 1 or (L.cp or 1) > 1 or r.model.builder == "moe"
end
local held_d, held_c, all_d = {}, {}, {}
local every_d, every_c = {}, {}
for _, x in ipairs(res) do
  local ed, ec = x.pred / x.meas - 1, x.pred_cal / x.meas - 1
  all_d[#all_d + 1] = math.abs(ed)
  if not x.calib then every_d[#every_d + 1] = math.abs(ed); every_c[#every_c + 1] = math.abs(ec) end
  if not x.calib and not moecp(x.row) then held_d[#held_d + 1] = math.abs(ed); held_c[#held_c + 1] = math.abs(ec) end
  print(string.format("%-44s %-15s %-5s %-9s %11.4g %11.4g %+7.1f%% %11.4g %+7.1f%%", x.row.id:sub(1, 44),
    x.row.hw:sub(1, 15), x.calib and "cal" or "held", x.s.profile:sub(1, 9), x.meas, x.pred, 100 * ed,
    x.pred_cal, 100 * ec))
end
print(string.format("\n%d rows predicted (%d calibration, %d held out), %d excluded from scoring; %.1f s",
  #res, #res - #every_d, #every_d, #skipped, os.clock() - t0))
for _, sk in ipairs(skipped) do print("  excluded " .. sk) end
if #unscored > 0 then
  print("  the excluded rows as predicted anyway (NOT scored: the model's FLOPs per sample are not "
    .. "what these runs computed):")
  for _, x in ipairs(unscored) do
    print(string.format("    %-44s %-4s measured %9.4g predicted %9.4g (%+.1f%%), CALIBRATED %9.4g (%+.1f%%)",
      x.row.id:sub(1, 44), x.calib and "cal" or "held", x.meas, x.pred, 100 * (x.pred / x.meas - 1),
      x.pred_cal, 100 * (x.pred_cal / x.meas - 1)))
  end
end
print("\nCALIBRATED flops_eff per chip and execution units (fitted on the calibration rows, "
  .. "median |log error|):")
local names = {}
for k in pairs(calibrated) do names[#names + 1] = k end
table.sort(names)
for _, k in ipairs(names) do
  local c = calibrated[k]
  if c.none then
    print(string.format("  %-20s NOT calibrated: catalogue %.2f (%d calibration rows of its own, "
      .. "%s pooled rows fewer than %d)", k, c.catalogue, c.rows, c.none, MIN_ROWS))
  else
    print(string.format("  %-20s flops_eff %.2f (catalogue %.2f), %s", k, c.flops_eff, c.catalogue,
      c.pooled and string.format("pooled over the %s calibration rows (%d of its own, fewer than %d)",
        c.pooled, c.rows, MIN_ROWS) or string.format("%d calibration rows", c.rows)))
    -- the rows it was fitted on, by id, wrapped
    local line = "      fitted on:"
    for i, x in ipairs(c.xs) do
      local id = " " .. x.row.id .. (i < #c.xs and "," or "")
      if #line + #id > 100 then print(line); line = "       " end
      line = line .. id
    end
    print(line)
  end
end
print("\nCALIBRATED collective-bandwidth efficiency per framework profile (fitted on the "
  .. "profile's calibration rows by least squares in log error, flops_eff calibrated first):")
for _, p in ipairs(PROFILES) do
  local c = coll[p.key]
  if c then
    print(string.format("  %-20s %.2f of the links' bandwidth, %d calibration rows (%s)", p.key,
      c.eff, c.rows, table.concat(c.ids, ", ")))
  else
    print(string.format("  %-20s NOT calibrated: no calibration rows of this profile", p.key))
  end
end
-- These fits are shipped as catalogue data (lua/dlbench/hw_calibrated.lua, used by
-- calibration = "validated"): say whether the shipped values are still what this fit gives.
do
  local C = require "dlbench.hw_calibrated"
  local differ = {}
  for k, c in pairs(calibrated) do
    if c.flops_eff then
      local chip, u = k:match("^(%S+)%s*(%S*)$")
      local unitk = u == "fp8" and "fp8" or (u == "fp32" and nil or "tensor")
      local names = chip == "A100" and { "A100-SXM4-80GB", "A100-SXM4-40GB" } or { chip }
      for _, n in ipairs(names) do
        local e = C.flops_eff[n] and unitk and C.flops_eff[n][unitk]
        if not e or math.abs(e[1] - c.flops_eff) > 0.005 then
          differ[#differ + 1] = string.format("%s %s: fitted %.2f, shipped %s", n, unitk or "?",
            c.flops_eff, e and string.format("%.2f", e[1]) or "none")
        end
      end
    end
  end
  -- the host seconds per op (fitted on the vTrain rows above; shipped as C.host)
  for prof, h in pairs(host) do
    local e = C.host[prof]
    if not e or math.abs(e[1] - h.host_op) > 0.5e-6 then
      differ[#differ + 1] = string.format("%s host seconds per op: fitted %.0f us, shipped %s", prof,
        h.host_op * 1e6, e and string.format("%.0f us", e[1] * 1e6) or "none")
    end
  end
  for _, p in ipairs(PROFILES) do
    local c, e = coll[p.key], C.collective[p.profile]
    if c and (not e or math.abs(e[1] - c.eff) > 0.005) then
      differ[#differ + 1] = string.format("%s collective: fitted %.2f, shipped %s", p.profile, c.eff,
        e and string.format("%.2f", e[1]) or "none")
    end
  end
  table.sort(differ)
  print(#differ == 0 and "\nthe shipped CALIBRATED values (lua/dlbench/hw_calibrated.lua) equal this fit"
    or ("\nthe shipped CALIBRATED values DIFFER from this fit (update lua/dlbench/hw_calibrated.lua): "
      .. table.concat(differ, "; ")))
end
local md, pd = median(held_d), pct(held_d, 0.9)
local mc, pc = median(held_c), pct(held_c, 0.9)
print(string.format("\nheld-out |error|, catalogue defaults:   median %.1f%%, p90 %.1f%%  (%d dense rows)", 100 * md, 100 * pd, #held_d))
print(string.format("held-out |error|, CALIBRATED:             median %.1f%%, p90 %.1f%%  (target <= 10%% / <= 25%%)%s",
  100 * mc, 100 * pc, (mc <= 0.10 and pc <= 0.25) and "  MET" or "  NOT MET"))
print(string.format("  (every held-out row, dense, MoE and context-parallel, %d: catalogue median %.1f%%, "
  .. "CALIBRATED median %.1f%%, p90 %.1f%%)", #every_c, 100 * median(every_d), 100 * median(every_c),
  100 * pct(every_c, 0.9)))
do   -- the same with the held-out rows excluded for their source counted in (their own error)
  local all = {}
  for _, v in ipairs(held_c) do all[#all + 1] = v end
  local extra = 0
  for _, x in ipairs(unscored) do
    if not x.calib then all[#all + 1] = math.abs(x.pred_cal / x.meas - 1); extra = extra + 1 end
  end
  print(string.format("  (counting the %d held-out rows excluded for their source too: median %.1f%%, p90 %.1f%%)",
    extra, 100 * median(all), 100 * pct(all, 0.9)))
end
do   -- issue [21]: expert- and context-parallel rows beside the dense ones (held out)
  local mc_d, mc_c, dn_d, dn_c = {}, {}, {}, {}
  for _, x in ipairs(res) do
    if not x.calib then
      local ed, ec = math.abs(x.pred / x.meas - 1), math.abs(x.pred_cal / x.meas - 1)
      if moecp(x.row) then mc_d[#mc_d + 1] = ed; mc_c[#mc_c + 1] = ec
      else dn_d[#dn_d + 1] = ed; dn_c[#dn_c + 1] = ec end
    end
  end
  print(string.format("held-out MoE / context-parallel rows (%d): catalogue median %.1f%%, "
    .. "CALIBRATED median %.1f%%, p90 %.1f%%  (target <= 10%% on >= 12 rows)%s", #mc_c,
    100 * median(mc_d), 100 * median(mc_c), 100 * pct(mc_c, 0.9),
    (#mc_c >= 12 and median(mc_c) <= 0.10) and "  MET" or "  NOT MET"))
  print(string.format("held-out dense rows (%d):                  catalogue median %.1f%%, "
    .. "CALIBRATED median %.1f%%, p90 %.1f%%", #dn_c, 100 * median(dn_d), 100 * median(dn_c),
    100 * pct(dn_c, 0.9)))
end
print("  (first round, commit 7df446a, same split: catalogue median 14.9%, p90 69.6%; "
  .. "CALIBRATED median 12.6%, p90 42.0%)")
print("  (second round, commit 7eee22c, same split: catalogue median 14.9%, p90 50.5%; "
  .. "CALIBRATED median 11.4%, p90 33.4%)")

-- The worst held-out rows and what the model lacks for them (docs/validation.md). These
-- explanations are text only: nothing here changes a prediction (the list:
-- notebooks/data/validation_notes.lua).
local WHY = dofile(here .. "/data/validation_notes.lua")
-- each note names the settings its text speaks of (`uses`): a row gets only a note whose
-- settings it ran with (V.note; tests/lua/test_validation_rows.lua)
local function why(x) return (V.note(WHY, x.row, V.settings(x.row, x.s))) end
local held = {}
for _, x in ipairs(res) do if not x.calib then held[#held + 1] = x end end
table.sort(held, function(a, b)
  return math.abs(a.pred_cal / a.meas - 1) > math.abs(b.pred_cal / b.meas - 1)
end)
print("\nworst held-out rows (CALIBRATED error) and what the model lacks for them:")
for i = 1, math.min(12, #held) do
  local x = held[i]
  print(string.format("  %-44s %+7.1f%%  %s", x.row.id:sub(1, 44), 100 * (x.pred_cal / x.meas - 1), why(x)))
end

-- The llm-foundry FSDP rows (issue [19]'s FSDP target) row by row: where each CALIBRATED
-- step goes (the planner row's compute incl. recompute, exposed data-parallel communication,
-- optimizer update), so the rows that carry the set's error can be read off.
do
  local fs = {}
  for _, x in ipairs(res) do if x.row.id:find("^foundry%-") then fs[#fs + 1] = x end end
  local he = {}
  for _, x in ipairs(fs) do if not x.calib then he[#he + 1] = math.abs(x.pred_cal / x.meas - 1) end end
  print(string.format("\nthe llm-foundry FSDP rows (%d, %d held out): held-out CALIBRATED |error| median "
    .. "%.1f%%, p90 %.1f%% (target: median <= 5%%); per row, the CALIBRATED step's shares:", #fs, #he,
    100 * median(he), 100 * pct(he, 0.9)))
  for _, x in ipairs(fs) do
    local cp = coll[profile(x) or ""]
    local _, r = predict(x.s, hw_cal(x), cp and cp.eff)
    local L = x.row.layout
    print(string.format("  %-38s %-4s mb %3d m %2d %-4s reduce %-4s  compute %5.1f%%  dp comm %4.1f%%  "
      .. "update %4.1f%%  error %+6.1f%%", x.row.id, x.calib and "cal" or "held", x.s.micro,
      r.m, L.recompute == "full" and "AC" or "", L.reduce_dtype or "-", 100 * r.compute / r.step,
      100 * r.dp_comm / r.step, 100 * r.update / r.step, 100 * (x.pred_cal / x.meas - 1)))
  end
end

-- == report: the vTrain sets ============================================================
print("\nThe vTrain sets (issue [19]; notebooks/data/vtrain_runs.lua): measured Megatron-LM iteration")
print("times on A100 clusters; per set, |error| of the step time (samples/s alike), catalogue")
print("defaults and CALIBRATED (the A100's flops_eff above and the host seconds per op below).")
print(string.format("CALIBRATED flops_eff of the vTrain cluster's A100s: %.2f (fitted on %d vTrain "
  .. "calibration rows, their node tier CALIBRATED from nccl-tests below; the table's A100 value is %s)",
  vcal.flops_eff or 0 / 0, vcal.rows,
  tostring(calibrated.A100 and calibrated.A100.flops_eff)))
for k, h in pairs(host) do
  print(string.format("CALIBRATED host seconds per op, profile %s: %.0f us (fitted on %d vTrain calibration "
    .. "rows; the profile's ESTIMATE is %.0f us)", k, h.host_op * 1e6, h.rows,
    1e6 * (dlb.frameworks.host_of(dlb.frameworks.get(k)))))
end
for _, sk in ipairs(vskipped) do print("  not predicted " .. sk) end
local SETS = { { "1node", "one node, GPT hidden 1024, 2-8 GPUs", 0.10, 0.30 },
  { "multinode", "64-256 GPUs, GPT 3.6B and 18.4B", 0.08, 0.25 } }
for _, st in ipairs(SETS) do
  local hd, hc, hr, fc, nu = {}, {}, {}, {}, 0
  for _, x in ipairs(vres) do
    if x.row.set == st[1] then
      local ed, ec = math.abs(x.pred / x.meas - 1), math.abs(x.pred_cal / x.meas - 1)
      if x.calib then fc[#fc + 1] = ec
      else
        hd[#hd + 1], hc[#hc + 1] = ed, ec
        if x.unreliable then nu = nu + 1 else hr[#hr + 1] = ec end
      end
    end
  end
  local mc, pc = median(hc), pct(hc, 0.9)
  print(string.format("  %-40s held out %3d: catalogue median %5.1f%% p90 %5.1f%%; CALIBRATED median %5.1f%% "
    .. "p90 %5.1f%% (target <= %.0f%% / <= %.0f%%)%s", st[2], #hc, 100 * median(hd), 100 * pct(hd, 0.9),
    100 * mc, 100 * pc, 100 * st[3], 100 * st[4], (mc <= st[3] and pc <= st[4]) and "  MET" or "  NOT MET"))
  print(string.format("  %-40s calibration rows %3d: CALIBRATED median %5.1f%%; held out without the %d rows "
    .. "flagged UNRELIABLE (memory pressure): median %5.1f%% p90 %5.1f%%", "", #fc, 100 * median(fc), nu,
    100 * median(hr), 100 * pct(hr, 0.9)))
end
do   -- the multi-node set row by row (issue [19]: which rows carry its p90)
  local ms = {}
  for _, x in ipairs(vres) do if x.row.set == "multinode" then ms[#ms + 1] = x end end
  table.sort(ms, function(a, b) return math.abs(a.pred_cal / a.meas - 1) > math.abs(b.pred_cal / b.meas - 1) end)
  -- the p90 of n held-out rows is the ceil(0.9 n)-th smallest |error| (pct above): for 16
  -- rows the 15th, the second largest. Each row's CALIBRATED step in parts (compute with
  -- recompute, exposed tensor-parallel communication, the GPU's wait for its host) and what
  -- the model misses per micro-batch, (measured - CALIBRATED step) / micro-batches
  print("  the 64-256 GPU rows, worst CALIBRATED |error| first (layout: dp x tp x pp, micro-batch;"
    .. " CALIBRATED compute / tp comm / host idle, s; missed per micro-batch, ms):")
  for _, x in ipairs(ms) do
    local L = x.row.layout
    local meas_s = x.row.measured.step_time
    local pred_s = meas_s * x.meas / x.pred_cal
    print(string.format("    %-44s %-4s dp %3d tp %2d pp %2d mb %2d  measured %8.1f ms  CALIBRATED %8.1f ms (%+.1f%%)"
      .. "  %.2f / %.2f / %.3f  missed %+7.1f ms", x.row.id, x.calib and "cal" or "held", x.s.cfg.dp, x.s.cfg.tp,
      x.s.cfg.pp, x.s.micro, 1000 * meas_s, 1000 * pred_s, 100 * (x.pred_cal / x.meas - 1),
      x.cal.compute, x.cal.tp_comm, x.cal.host_idle, 1000 * (meas_s - pred_s) / x.s.cfg.m))
  end
end
do   -- NCCL's all-reduce as the model runs it against the same source's measured nccl-tests
  -- (issue [19]; notebooks/data/vtrain/nccl_allreduce_a100.csv: vTrain's own all_reduce_perf
  -- table for 2, 4 and 8 GPUs of its A100 node, fp32, sizes the rows' tensor-parallel
  -- all-reduces span: micro-batch x sequence x hidden x 2 bytes, 2 MiB to 192 MiB), before
  -- and after the node tier's CALIBRATION above (vt_nccl: dlb.parallel.calibrate_collective)
  print(string.format("  CALIBRATED node tier of vTrain's A100 nodes (dlb.parallel.calibrate_collective on the "
    .. "source's nccl-tests, %d rows, least squares in log time): NVLink eff %.2f of %.0f GB/s, nccl_latency "
    .. "%.1f us added per collective; rms |log error| %.3f; |error| median %.1f%% -> %.1f%%, max %.1f%% -> "
    .. "%.1f%% (catalogue -> CALIBRATED)", vt_nccl.n, vt_nccl.eff, vt_node.intra.bw / 1e9,
    vt_nccl.nccl_latency * 1e6, vt_nccl.rms_log, 100 * vt_nccl.median_abs_before, 100 * vt_nccl.median_abs,
    100 * vt_nccl.max_abs_before, 100 * vt_nccl.max_abs))
  print("  NCCL all-reduce on vTrain's A100 node, modelled / measured (nccl-tests, the source's"
    .. " trace/a100/AR_GPU*_LUT, out-of-place), catalogue -> CALIBRATED:")
  local by = {}
  for _, r in vt_nccl.table:rows() do
    by[r.gpus] = by[r.gpus] or {}
    table.insert(by[r.gpus], r)
  end
  for _, g in ipairs { 2, 4, 8 } do
    local parts, rb, ra = {}, {}, {}
    for _, r in ipairs(by[g] or {}) do
      parts[#parts + 1] = string.format("%g MiB %.2f -> %.2f", r.bytes / 2 ^ 20, r.before / r.measured, r.ratio)
      rb[#rb + 1], ra[#ra + 1] = r.before / r.measured, r.ratio
    end
    print(string.format("    %d GPUs (%d sizes, median %.2f -> %.2f): %s", g, #rb, median(rb), median(ra),
      table.concat(parts, ", ")))
  end
end
do   -- the rows flagged for memory pressure, with their error
  local fl = {}   -- the shared sets' rows (the unshared sets list theirs below)
  local shared = {}
  for _, st in ipairs(SETS) do shared[st[1]] = true end
  for _, x in ipairs(vres) do if x.unreliable and shared[x.row.set] then fl[#fl + 1] = x end end
  table.sort(fl, function(a, b) return a.row.id < b.row.id end)
  print(string.format("  rows flagged UNRELIABLE (peak within %.0f%% of capacity): %d",
    100 * P.PRESSURE_MARGIN, #fl))
  for _, x in ipairs(fl) do
    print(string.format("    %-52s %-4s memory %3.0f%%  measured %8.1f ms  CALIBRATED %8.1f ms (%+.1f%%)",
      x.row.id, x.calib and "cal" or "held", 100 * x.mem_frac, 1000 * x.row.measured.step_time,
      1000 * x.row.measured.step_time * x.meas / x.pred_cal, 100 * (x.pred_cal / x.meas - 1)))
  end
end
do   -- the same study's measured rows NOT shared (issue [19] target 2: median <= 10%, p90 <=
  -- 30%; notebooks/data/vtrain/make_unshared.py). Every row is held out (its role stored
  -- before any prediction was run); nothing is fitted on them: CALIBRATED is the flops_eff and
  -- host seconds per op fitted above on the shared sets' calibration rows, unchanged.
  local US = { { "unshared-1node", "one node, GPT hidden 2048, 2-8 GPUs" },
    { "unshared-multinode", "512 GPUs, GPT 39.1B and 175B" } }
  local TARGET_MED, TARGET_P90 = 0.10, 0.30
  local function err(x) return x.pred_cal / x.meas - 1 end   -- > 0: predicted too fast
  print("\nThe same study's measured rows NOT shared (issue [19] target 2, notebooks/data/vtrain/"
    .. "single_node_h2048.csv, multi_node_39.1b_175b.csv): every row held out, no refit (CALIBRATED:")
  print("the values above, fitted on the shared sets' calibration rows); error > 0: predicted faster "
    .. "than measured.")
  for _, st in ipairs(US) do
    local xs, hd, hc, hr, nu, over = {}, {}, {}, {}, 0, 0
    for _, x in ipairs(vres) do
      if x.row.set == st[1] then
        xs[#xs + 1] = x
        assert(not x.calib, "an unshared row is a calibration row: " .. x.row.id)
        hd[#hd + 1], hc[#hc + 1] = math.abs(x.pred / x.meas - 1), math.abs(err(x))
        if x.unreliable then nu = nu + 1 else hr[#hr + 1] = math.abs(err(x)) end
        if (x.mem_frac or 0) >= 1 then over = over + 1 end
      end
    end
    local rows_in = 0
    for _, r in ipairs(vrows) do if r.set == st[1] then rows_in = rows_in + 1 end end
    local mc, pc = median(hc), pct(hc, 0.9)
    print(string.format("  %-40s held out %3d of %3d rows: catalogue median %5.1f%% p90 %5.1f%%; CALIBRATED "
      .. "median %5.1f%% p90 %5.1f%% (target <= %.0f%% / <= %.0f%%)%s", st[2], #hc, rows_in, 100 * median(hd),
      100 * pct(hd, 0.9), 100 * mc, 100 * pc, 100 * TARGET_MED, 100 * TARGET_P90,
      (#hc > 0 and mc <= TARGET_MED and pc <= TARGET_P90) and "  MET" or "  NOT MET"))
    -- the same rows under what dlbench ships as calibration = "validated" (the table's A100
    -- flops_eff, lua/dlbench/hw_calibrated.lua, with the CALIBRATED host cost): the vTrain
    -- cluster's own flops_eff above is not shipped. Looked at AFTER the numbers above were seen.
    local fe_tab = calibrated.A100 and calibrated.A100.flops_eff
    if fe_tab then
      local ho = host["megatron-lm"] and host["megatron-lm"].host_op
      local hv = {}
      for _, x in ipairs(xs) do
        hv[#hv + 1] = math.abs(predict(x.s, x.s.hw:with { flops_eff = fe_tab, host_op = ho }) / x.meas - 1)
      end
      print(string.format("  %-40s with the table's A100 flops_eff %.2f instead (shipped as calibration = "
        .. "\"validated\"; looked at after the line above): median %5.1f%% p90 %5.1f%%", "", fe_tab,
        100 * median(hv), 100 * pct(hv, 0.9)))
    end
    print(string.format("  %-40s memory: %d rows with a modelled peak within %.0f%% of the 80 GB (flagged "
      .. "UNRELIABLE, scored above), %d of them over capacity; without the flagged rows: median %5.1f%% "
      .. "p90 %5.1f%%", "", nu, 100 * P.PRESSURE_MARGIN, over, 100 * median(hr), 100 * pct(hr, 0.9)))
    -- the error by layout degree: where the set's error sits (signed CALIBRATED error,
    -- median per group, and the group's rows)
    for _, key in ipairs { "tp", "pp", "dp", "micro_batch" } do
      local g, ks = {}, {}
      for _, x in ipairs(xs) do
        local v = x.row.layout[key] or 1
        if not g[v] then g[v] = {}; ks[#ks + 1] = v end
        table.insert(g[v], err(x))
      end
      table.sort(ks)
      local parts = {}
      for _, v in ipairs(ks) do
        parts[#parts + 1] = string.format("%d: %+.0f%% (%d)", v, 100 * median(g[v]), #g[v])
      end
      print(string.format("    median CALIBRATED error by %-11s %s", key, table.concat(parts, ", ")))
    end
    if st[1] == "unshared-multinode" then
      for _, pb in ipairs { 39.1e9, 175e9 } do
        local e, a = {}, {}
        for _, x in ipairs(xs) do
          if x.row.params == pb then e[#e + 1] = err(x); a[#a + 1] = math.abs(err(x)) end
        end
        print(string.format("    GPT %gB (%d rows): median CALIBRATED error %+.1f%%, median |error| %.1f%%",
          pb / 1e9, #e, 100 * median(e), 100 * median(a)))
      end
    end
    table.sort(xs, function(a, b) return math.abs(err(a)) > math.abs(err(b)) end)
    print("    worst rows (layout: dp x tp x pp, micro-batch; CALIBRATED compute / tp comm / pp comm / "
      .. "dp comm / bubble / host idle, s; memory, share of 80 GB):")
    for i = 1, math.min(10, #xs) do
      local x = xs[i]
      local L, c = x.row.layout, x.cal
      local meas_s = x.row.measured.step_time
      print(string.format("      %-52s dp %3d tp %d pp %2d mb %2d  measured %8.1f ms  CALIBRATED %8.1f ms "
        .. "(%+.1f%%)  %.3f / %.3f / %.3f / %.3f / %.3f / %.3f  mem %3.0f%%%s", x.row.id, L.dp, L.tp, L.pp,
        L.micro_batch, 1000 * meas_s, 1000 * meas_s * x.meas / x.pred_cal, 100 * err(x), c.compute,
        c.tp_comm, c.pp_comm or 0, c.dp_comm or 0, c.bubble or 0, c.host_idle or 0,
        100 * (x.mem_frac or 0), x.unreliable and " UNRELIABLE" or ""))
    end
    local fl = {}
    for _, x in ipairs(xs) do if x.unreliable then fl[#fl + 1] = x end end
    table.sort(fl, function(a, b) return a.row.id < b.row.id end)
    for _, x in ipairs(fl) do
      print(string.format("    flagged %-52s memory %3.0f%%%s  measured %8.1f ms  CALIBRATED %+.1f%%",
        x.row.id, 100 * x.mem_frac, x.mem_frac >= 1 and " (over capacity)" or "",
        1000 * x.row.measured.step_time, 100 * err(x)))
    end
  end
end
do   -- what the unshared rows show the model lacks (docs/validation.md, "Issue [19] target 2"):
  -- (a) the same layout at hidden 2048 and at hidden 1024 (the two one-node files share their
  -- grid): how much longer the step gets, measured and CALIBRATED, by tp and micro-batch;
  local by, pr = {}, {}
  for _, x in ipairs(vres) do by[x.row.id] = x end
  local function ms_cal(x) return x.row.measured.step_time * x.meas / x.pred_cal end
  for _, x in ipairs(vres) do
    if x.row.set == "unshared-1node" then
      local y = by[(x.row.id:gsub("^vtrain%-unshared%-1node%-h2048", "vtrain-1node-h1024"))]
      if y then
        pr[#pr + 1] = { L = x.row.layout, m = x.row.measured.step_time / y.row.measured.step_time,
          c = ms_cal(x) / ms_cal(y) }
      end
    end
  end
  print(string.format("  the same layout at hidden 2048 and 1024 (%d pairs): step time ratio h2048 / h1024, "
    .. "median measured / CALIBRATED:", #pr))
  for _, key in ipairs { "tp", "micro_batch" } do
    local g, ks = {}, {}
    for _, p in ipairs(pr) do
      local v = p.L[key]
      if not g[v] then g[v] = { m = {}, c = {} }; ks[#ks + 1] = v end
      table.insert(g[v].m, p.m); table.insert(g[v].c, p.c)
    end
    table.sort(ks)
    local parts = {}
    for _, v in ipairs(ks) do
      parts[#parts + 1] = string.format("%d: %.2f / %.2f", v, median(g[v].m), median(g[v].c))
    end
    print(string.format("    by %-11s %s", key, table.concat(parts, ", ")))
  end
  -- (b) DIAGNOSTIC, chosen AFTER the errors above were seen, used by nothing (no refit): the
  -- flops_eff at which each group's median |error| would be lowest, the host seconds per op
  -- as CALIBRATED. One cluster, one flops_eff: a group wanting another one is a mechanism the
  -- model lacks, not a constant to fit.
  local ho = host["megatron-lm"] and host["megatron-lm"].host_op
  local GROUPS = {
    { "GPT 3.6B, 64 GPUs (shared)", function(r) return r.set == "multinode" and r.params == 3.6e9 end },
    { "GPT 18.4B, 256 GPUs (shared)", function(r) return r.set == "multinode" and r.params == 18.4e9 end },
    { "GPT 39.1B, 512 GPUs", function(r) return r.set == "unshared-multinode" and r.params == 39.1e9 end },
    { "GPT 175B, 512 GPUs", function(r) return r.set == "unshared-multinode" and r.params == 175e9 end },
    { "one node h1024, tp 1, mb >= 4 (shared)", function(r)
      return r.set == "1node" and r.layout.tp == 1 and r.layout.micro_batch >= 4 end },
    { "one node h2048, tp 1, mb >= 4", function(r)
      return r.set == "unshared-1node" and r.layout.tp == 1 and r.layout.micro_batch >= 4 end } }
  local parts = {}
  for _, gr in ipairs(GROUPS) do
    local xs = {}
    for _, x in ipairs(vres) do if gr[2](x.row) then xs[#xs + 1] = x end end
    local best, bm = nil, math.huge
    for e = 0.50, 0.9001, 0.02 do
      local a = {}
      for _, x in ipairs(xs) do
        a[#a + 1] = math.abs(predict(x.s, x.s.hw:with { flops_eff = e, host_op = ho }) / x.meas - 1)
      end
      local m = median(a)
      if m < bm then best, bm = e, m end
    end
    parts[#parts + 1] = string.format("%s (%d rows) %.2f (median %.1f%%)", gr[1], #xs, best, 100 * bm)
  end
  print(string.format("  DIAGNOSTIC (post hoc, used by nothing): the flops_eff each group's median |error| is "
    .. "lowest at (grid 0.50-0.90; CALIBRATED %.2f):", vcal.flops_eff or 0 / 0))
  for _, t in ipairs(parts) do print("    " .. t) end
end
do   -- every held-out vTrain row, the four sets pooled, and what this notebook printed before
  -- the node tier's CALIBRATION (dlb.parallel.calibrate_collective) was made first
  local a = {}
  for _, x in ipairs(vres) do if not x.calib then a[#a + 1] = math.abs(x.pred_cal / x.meas - 1) end end
  print(string.format("\nevery held-out vTrain row (%d, the four sets): CALIBRATED median %.1f%% p90 %.1f%%",
    #a, 100 * median(a), 100 * pct(a, 0.9)))
  print("  (before the node tier was CALIBRATED from the source's nccl-tests, commit 01d3edd, same roles: "
    .. "flops_eff 0.62, 40 us per op; one node h1024 6.7% / 16.3%, 64-256 GPUs 3.9% / 27.7%, one node "
    .. "h2048 13.2% / 23.5%, 512 GPUs 12.2% / 20.0%, all 1294 10.1% / 22.8%; Korthikanti mean 2.9%)")
end
do   -- the Korthikanti rows (issue [19] target: mean |error| <= 4%)
  local all, n = 0, 0
  for _, x in ipairs(res) do
    if x.row.id:find("^korthikanti") then all = all + math.abs(x.pred_cal / x.meas - 1); n = n + 1 end
  end
  -- two decimals and the verdict: a mean of 4.04% must not read as the target's 4.0%
  local mean = 100 * all / math.max(1, n)
  print(string.format("\nKorthikanti et al. 2022 (%d rows, calibration and held out): CALIBRATED mean "
    .. "|error| %.2f%% (target <= 4%%)  %s", n, mean, mean <= 4 and "MET" or "NOT MET"))
end

-- == figure: log-log predicted vs measured, y = x, +-20% ================================
local f = dlb.plot.figure { width = 7, height = 3.4, cols = 2 }
local lo, hi = math.huge, 0
for _, x in ipairs(res) do
  lo = math.min(lo, x.meas, x.pred, x.pred_cal); hi = math.max(hi, x.meas, x.pred, x.pred_cal)
end
lo, hi = lo / 2, hi * 2
local function panel(i, key, title)
  local p = f:panel(i)
  local xs, ys, gs = {}, {}, {}
  for _, x in ipairs(res) do
    xs[#xs + 1], ys[#ys + 1] = x.meas, x[key]
    gs[#gs + 1] = x.calib and "calibration" or "held out"
  end
  local bx, blo, bhi = {}, {}, {}
  local n = 40
  for j = 0, n do
    local v = lo * (hi / lo) ^ (j / n)
    bx[#bx + 1], blo[#blo + 1], bhi[#bhi + 1] = v, 0.8 * v, 1.2 * v
  end
  p:band { x = bx, lo = blo, hi = bhi, label = "+-20%", alpha = 0.2 }
  p:diag { label = "y = x" }
  p:scatter { x = xs, y = ys, group = gs }
  p.xscale, p.yscale = "log", "log"
  p.xlim, p.ylim = { lo, hi }, { lo, hi }
  p.xlabel, p.ylabel = "measured samples/s per device", "predicted samples/s per device"
  p.title = title
end
panel(1, "pred", "catalogue defaults (predicted)")
panel(2, "pred_cal", "CALIBRATED flops_eff, ZeRO-3 bandwidth")
local ok, err = f:save(outdir .. "/validation.png")
print(ok and ("wrote " .. outdir .. "/validation.png") or ("could not write: " .. tostring(err)))
