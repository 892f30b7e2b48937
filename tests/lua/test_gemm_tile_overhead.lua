-- test_gemm_tile_overhead.lua — the per-tile GEMM overhead (device field gemm_tile_overhead,
-- graphs/hw/roofline.c dlb_gemm_efficiency; docs/hw.md "GEMM efficiency: a fixed cost per
-- tile"): the rule on hand-derived cases, a device without the field bit-identical to the rule
-- without the term, the field reaching a whole step through hw:with, and the check of the
-- field. Both backends. (The mechanism was ported from branch gemm-k; its H100 / H200 / B200
-- catalogue values, adopted later, are tests/lua/test_gemm_short_k.lua's.)
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"

-- the share of peak a matmul reaches on device table d (compute-bound: no bytes)
local function q(d, m, n, k, b)
  local f = 2 * m * n * k * (b or 1)
  local t = core.roofline_op_time(d, f, 0, { m, n, k, b or 1 })
  return f / (t * d.peak)
end
local function dev(extra)
  local d = { peak = 100e12, bw = 1e12, flops_eff = 1, bw_eff = 1, sm_count = 108,
    gemm_tile_m = 128, gemm_tile_n = 128 }
  for k, v in pairs(extra or {}) do d[k] = v end
  return d
end

T.test("per-tile overhead: q x t_main / (t_main + t0), by hand", function()
  -- 108 SMs at 100 TFLOP/s, flops_eff 1: an SM's share is 100e12 / 108 FLOP/s; a 128 x 128
  -- tile's main loop over k = 1024 is 2 x 128 x 128 x 1024 FLOPs = 33.55 MFLOP:
  -- t_main = 33554432 x 108 / 100e12 = 36.24 us. 128 x 108 by 512 output: 4 full waves
  -- (wave q = 1), so q = t_main / (t_main + t0).
  local t0 = 2e-6
  local tmain = 2 * 128 * 128 * 1024 * 108 / 100e12
  T.near(tmain, 36.24e-6, 1e-3, "t_main by hand")
  T.near(q(dev { gemm_tile_overhead = t0 }, 128 * 108, 512, 1024), tmain / (tmain + t0), 1e-12,
    "full waves")
  -- the term scales with the achievable rate: at flops_eff 0.5 the main loop is twice as long
  local tm5 = tmain * 2
  T.near(q(dev { gemm_tile_overhead = t0, flops_eff = 0.5 }, 128 * 108, 512, 1024),
    0.5 * tm5 / (tm5 + t0), 1e-12, "at half the rate")
  -- split-K: one 128 x 128 tile with k = 4096 runs as 16 slices of 256 (floor(4096 / 256));
  -- each slice is a tile of its own with k / 16 = 256 of depth and pays t0
  local ts = 2 * 128 * 128 * 256 * 108 / 100e12
  T.near(q(dev { gemm_tile_overhead = t0 }, 128, 128, 4096), 16 / 108 * ts / (ts + t0), 1e-12,
    "split-K slices each pay the overhead")
  -- a partial last wave: 109 tiles (128 x 109 by 128 output) run in 2 waves of 108, each
  -- wave t_main + t0: q = 109 / 216 x t_main / (t_main + t0)
  T.near(q(dev { gemm_tile_overhead = t0 }, 128 * 109, 128, 1024), 109 / 216 * tmain / (tmain + t0),
    1e-12, "the wave tail and the per-tile cost multiply")
  -- K0: the term is (K + K0) / K in time with K0 = t0 x rate per SM / (2 tm tn)
  local k0 = t0 * (100e12 / 108) / (2 * 128 * 128)
  T.near(1 / q(dev { gemm_tile_overhead = t0 }, 128 * 108, 512, 1024), (1024 + k0) / 1024, 1e-12,
    "(K + K0) / K")
  -- without sm_count (no tile model) the field does nothing
  local notile = dev { gemm_tile_overhead = t0 }
  notile.sm_count = 0
  T.near(q(notile, 1000, 1000, 64), 1, 1e-12, "no tiles, no per-tile cost")
end)

T.test("a device without the field: exactly the rule without the term", function()
  -- the field 0 (absent) and the rule of the wave/tile quantisation alone give the same bits
  for _, s in ipairs { { 1024, 1024, 4096, 1 }, { 1025, 1024, 4096, 1 }, { 128, 128, 512, 1 },
                       { 4096, 4096, 256, 4 }, { 8192, 3 * 8192, 1024, 1 } } do
    local a = q(dev(), s[1], s[2], s[3], s[4])
    local b = q(dev { gemm_tile_overhead = 0 }, s[1], s[2], s[3], s[4])
    T.eq(a, b, "field 0 is bit-identical")
    -- and the wave rule by hand (k >= 256 x split everywhere here): tiles, split, waves
    local tiles = math.ceil(s[1] / 128) * math.ceil(s[2] / 128) * s[4]
    local split = math.max(1, math.min(math.floor(108 / tiles), math.floor(s[3] / 256)))
    local waves = math.ceil(tiles * split / 108)
    T.near(a, s[1] * s[2] * s[4] * split / (waves * 108 * 128 * 128), 1e-12, "the wave rule")
  end
  -- a catalogue device without a published K sweep (the A100) has no field; which devices
  -- carry one, and their values, is tests/lua/test_gemm_short_k.lua
  local a100 = dlb.hw.get("A100-SXM4-80GB")
  T.eq(a100:roof("fp16").gemm_tile_overhead, 0, "A100: 0 in its roofline table")
  -- hw:with sets it on a copy, which reaches the roofline table; the catalogue keeps none
  local w = a100:with { name = "a100-t0", gemm_tile_overhead = 1e-6 }
  T.eq(w.gemm_tile_overhead, 1e-6, "hw:with sets the field")
  T.eq(w:roof("fp16").gemm_tile_overhead, 1e-6, "and its roofline table carries it")
  T.eq(dlb.hw.get("A100-SXM4-80GB").gemm_tile_overhead, nil, "the catalogue A100 unchanged")
  assert(w:describe():find("gemm_tile_overhead%s+1 us per tile"), "hw:describe shows it")
  assert(not a100:describe():find("gemm_tile_overhead"), "and not on a device without it")
end)

T.test("the field reaches a whole step: roofline.time of a GPT", function()
  local g = dlb.models.gpt { layers = 2, hidden = 1024, heads = 16, seq = 1024, vocab = 51200, batch = 4 }
  local s = g:stats { precision = "mixed" }
  local a100 = dlb.hw.get("A100-SXM4-80GB")
  local r0 = dlb.roofline.time(s, a100)
  local rz = dlb.roofline.time(s, a100:with { gemm_tile_overhead = 0 })
  local r1 = dlb.roofline.time(s, a100:with { gemm_tile_overhead = 1e-6 })
  T.eq(rz.time, r0.time, "0 on a copy: the same step time, bit for bit")
  assert(r1.time > r0.time, "a per-tile cost lengthens the step")
  -- a GEMM of this model (b s = 4096 rows, hidden 1024, K = 1024) on 128 x 128 tiles and 108
  -- SMs at 312 TFLOP/s x 0.8: t_main = 2 x 128^2 x 1024 x 108 / 249.6e12 = 14.5 us, so 1 us
  -- adds 6.9% to its compute time; the step (with its memory-bound ops) less than that
  local tmain = 2 * 128 * 128 * 1024 * 108 / (a100.peak.fp16 * a100.flops_eff)
  assert(r1.time / r0.time < 1 + 1e-6 / tmain + 1e-9, "no more than the GEMMs' own share")
end)

T.test("the field's check", function()
  T.checkerr("gemm_tile_overhead must be a finite number >= 0", core.roof_check,
    { peak = 1, bw = 1, gemm_tile_overhead = -1e-6 })
  T.checkerr("gemm_tile_overhead must be a finite number >= 0", core.roof_check,
    { peak = 1, bw = 1, gemm_tile_overhead = 1 / 0 })
  T.checkerr("gemm_tile_overhead", dlb.hw.define, { name = "x-gto", peak = { fp16 = 1e12 },
    mem = 1e9, mem_bw = 1e9, gemm_tile_overhead = -1 })
  T.checkerr("gemm_tile_overhead", dlb.hw.define, { name = "x-gto2", peak = { fp16 = 1e12 },
    mem = 1e9, mem_bw = 1e9, gemm_tile_overhead = "1us" })
  T.checkerr("gemm_tile_overhead", function()
    return dlb.hw.get("A100-SXM4-80GB"):with { gemm_tile_overhead = -1e-6 }
  end)
end)

T.done()
