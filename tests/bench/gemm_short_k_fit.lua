-- tests/bench/gemm_short_k_fit.lua — the fit of the per-tile GEMM overhead (device field
-- gemm_tile_overhead, graphs/hw/roofline.c dlb_gemm_efficiency; docs/hw.md "GEMM efficiency:
-- a fixed cost per tile") on the published GEMM tables of notebooks/data/gemm_short_k.lua,
-- and only on them (issues [19], [21]; docs/validation.md "GEMM efficiency at short K"). A
-- diagnostic, not a timed benchmark. It prints:
--   1. per source, the per-op rule's residual on the catalogue H100-SXM without the term and
--      with the fitted t0 (each source's level, a flops_eff, fitted alone as a nuisance: the
--      three sources are three different kernels -- XLA's GEMMs, TileLang's, DeepGEMM's FP8
--      -- that reach different long-K rates; the term's job is the shape in K);
--   2. t0 fitted on each source alone (is one constant in seconds consistent across bf16,
--      fp16 and fp8?), and fitted on the XLA table alone then applied to the others;
--   3. the catalogue's value (hw_catalog.lua GEMM_TILE) against the joint fit.
-- Residual: log(modelled time / published time) per row; reported as RMS and as the
-- median and largest |modelled / published - 1|.
-- Run: build/bin/dlbench run tests/bench/gemm_short_k_fit.lua   (or under LuaJIT's FFI)
local dlb = dlb or require "dlbench"
local core = require "dlbench.backend"

local here = (arg and arg[0] and arg[0]:match("^(.*)/")) or "tests/bench"
local data = dofile(here .. "/../../notebooks/data/gemm_short_k.lua")
local OUT_BYTES = 2   -- every source writes a 16-bit C (bf16 / fp16 output)

-- the rows of one source set, each with its device table at its precision
local function prepare(rows)
  local out = {}
  for _, r in ipairs(rows) do
    local hw = dlb.hw.get(r.device)
    local roof = hw:roof(r.precision)
    roof.bytes_scale = 1
    local e = core.hw_precision_bytes(r.precision)
    local fl = 2 * r.batch * r.m * r.n * r.k
    out[#out + 1] = { r = r, roof = roof, flops = fl,
      bytes = r.batch * (e * (r.m * r.k + r.k * r.n) + OUT_BYTES * r.m * r.n),
      gemm = { r.m, r.n, r.k, r.batch }, t_pub = fl / (r.tflops * 1e12) }
  end
  return out
end

-- log residuals of rows at level eff and per-tile overhead t0 (seconds)
local function residuals(rows, eff, t0)
  local res = {}
  for i, x in ipairs(rows) do
    x.roof.flops_eff, x.roof.gemm_tile_overhead = eff, t0
    local t = core.roofline_op_time(x.roof, x.flops, x.bytes, x.gemm)
    res[i] = math.log(t / x.t_pub)
  end
  return res
end
local function sse(res)
  local s = 0
  for _, v in ipairs(res) do s = s + v * v end
  return s
end

-- the level (flops_eff in [0.3, 1]) that minimises one source's squared log error at t0:
-- golden-section search (the error is unimodal in eff)
local function best_eff(rows, t0)
  local a, b = 0.3, 1.0
  local g = (math.sqrt(5) - 1) / 2
  local c, d = b - g * (b - a), a + g * (b - a)
  local fc, fd = sse(residuals(rows, c, t0)), sse(residuals(rows, d, t0))
  for _ = 1, 40 do
    if fc < fd then b, d, fd = d, c, fc; c = b - g * (b - a); fc = sse(residuals(rows, c, t0))
    else a, c, fc = c, d, fd; d = a + g * (b - a); fd = sse(residuals(rows, d, t0)) end
  end
  return (a + b) / 2
end

-- the level groups (one kernel at one precision: its own flops_eff) per device
local DEVICES = { "H100-SXM", "B200" }
local sets, order = {}, {}
for _, r in ipairs(data.rows) do
  local key = r.src .. " " .. r.precision
  if not sets[key] then
    sets[key] = {}
    order[r.device] = order[r.device] or {}
    table.insert(order[r.device], key)
  end
  table.insert(sets[key], r)
end
for k, rows in pairs(sets) do sets[k] = prepare(rows) end

-- total squared error over `srcs` at t0, each source at its own best level
local function total(srcs, t0)
  local s, effs = 0, {}
  for _, src in ipairs(srcs) do
    effs[src] = best_eff(sets[src], t0)
    s = s + sse(residuals(sets[src], effs[src], t0))
  end
  return s, effs
end

-- t0 on a grid of 0.01 us up to 3 us, then refined to 1 ns around the best
local function fit_t0(srcs)
  local best, bt = math.huge, 0
  for i = 0, 300 do
    local t0 = i * 1e-8
    local s = total(srcs, t0)
    if s < best then best, bt = s, t0 end
  end
  local lo = bt - 1e-8 > 0 and bt - 1e-8 or 0
  for i = 0, 20 do
    local t0 = lo + i * 1e-9
    local s = total(srcs, t0)
    if s < best then best, bt = s, t0 end
  end
  return bt
end

local function stats(res)
  local n, s, a = #res, 0, {}
  for i, v in ipairs(res) do s = s + v * v; a[i] = math.abs(math.exp(v) - 1) end
  table.sort(a)
  local med = n % 2 == 1 and a[(n + 1) / 2] or (a[n / 2] + a[n / 2 + 1]) / 2
  return math.sqrt(s / n), med, a[n]
end

local function report(label, srcs, t0)
  local _, effs = total(srcs, t0)
  local all = {}
  for _, src in ipairs(srcs) do
    local res = residuals(sets[src], effs[src], t0)
    local rms, med, mx = stats(res)
    print(string.format("   %-9s %-15s %3d rows  level %.3f  RMS log %.3f  median %5.1f%%  max %5.1f%%",
      label, src, #res, effs[src], rms, 100 * med, 100 * mx))
    for _, v in ipairs(res) do all[#all + 1] = v end
  end
  local rms, med, mx = stats(all)
  print(string.format("   %-9s %-15s %3d rows                RMS log %.3f  median %5.1f%%  max %5.1f%%",
    label, "all", #all, rms, 100 * med, 100 * mx))
  return rms, med, mx
end

print("GEMM efficiency at short K: the per-op rule against notebooks/data/gemm_short_k.lua")
for _, dev in ipairs(DEVICES) do
  local srcs = order[dev]
  local hw = dlb.hw.get(dev)
  print(dev .. ":")
  print("1. residuals without the term (t0 = 0) and with t0 fitted on every row of the device")
  local t0_all = fit_t0(srcs)
  report("without", srcs, 0)
  report(string.format("t0=%.2fus", t0_all * 1e6), srcs, t0_all)
  print("2. t0 fitted on each source alone (consistency across kernels and precisions)")
  for _, src in ipairs(srcs) do
    local t = fit_t0({ src })
    print(string.format("   %-15s t0 %.2f us  (squared log error %.3f -> %.3f)", src, t * 1e6,
      (total({ src }, 0)), (total({ src }, t))))
  end
  if #srcs > 2 then
    -- the first source alone, applied to the others
    local rest = {}
    for i = 2, #srcs do rest[#rest + 1] = srcs[i] end
    local t1 = fit_t0({ srcs[1] })
    print(string.format("   t0 fitted on %s alone (%.2f us), applied to the other sources (not fitted on them):",
      srcs[1], t1 * 1e6))
    report("without", rest, 0)
    report(string.format("t0=%.2fus", t1 * 1e6), rest, t1)
  end
  print("3. the catalogue's value")
  local cat = hw.gemm_tile_overhead or 0
  print(string.format("   %s gemm_tile_overhead = %.2f us (joint fit above: %.2f us)", dev, cat * 1e6,
    t0_all * 1e6))
  -- K0: the reduction depth the overhead is worth, t0 x peak x flops_eff / (2 tm tn sm)
  for _, p in ipairs { "bf16", "fp8" } do
    print(string.format("   K0 at %s, flops_eff %.2f: %.0f elements of K", p, hw.flops_eff,
      t0_all * hw.peak[p] * hw.flops_eff / (2 * hw.gemm_tile[1] * hw.gemm_tile[2] * hw.sm_count)))
  end
end
