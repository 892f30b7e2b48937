-- bench_host_nccl.lua — issue [19]'s mechanisms: (1) one NCCL collective through
-- dlb.parallel.nccl (tuning.cc's 4 algorithms x 3 protocols, the fastest); (2) the planner's
-- full search for GPT-3 175B over 4,096 A100s with collectives as NCCL runs them and the
-- host-side model on (megatron-lm profile), against collectives = "alpha-beta"; (3) the
-- 761 vTrain layouts set up and predicted once each by the validation notebook's own
-- set-up (notebooks/lib/validation_rows.lua); (4)
-- dlb.parallel.data with its gradient allreduce as NCCL runs it (the default on a catalogue
-- GPU) against collectives = "alpha-beta"; (5) dlb.parallel.calibrate_collective on vTrain's
-- nccl-tests (27 rows). Figures
-- in BENCHMARKS.md "Host-side model and NCCL collectives".
-- Run: dlbench run tests/bench/bench_host_nccl.lua (or under LuaJIT with DLB_BACKEND=ffi).
local dlb = require "dlbench"
local P = dlb.parallel
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")

local hw = dlb.hw.get("A100-SXM4-80GB")
local t = P.nccl_topo(P.cluster { hw = hw, per_node = 8, nodes = 16, nics = 4 }, 128, 8)
local n = 10000
local med = time(5, function()
  for i = 1, n do P.nccl("allreduce", 1024 * i, t) end
end)
print(string.format("bench_host_nccl (%s): dlb.parallel.nccl %.2f us per collective (median of 5 x %d)",
  dlb.backend, med / n * 1e6, n))

local cl = P.cluster { per_node = 8, nodes = 512, hw = hw }
local ls = P.layers.transformer_formula { layers = 96, d = 12288, seq = 2048, heads = 96, vocab = 50257,
  dropout = false }
for _, c in ipairs { "nccl", "alpha-beta" } do
  local rows, ev
  local m = time(3, function()
    rows, ev = P.plan { layers = ls, hw = hw, precision = "mixed", cluster = cl, batch = 1536,
      table = false, framework = "megatron-lm", collectives = c }
  end)
  print(string.format("  plan GPT-3 175B on 4096 A100, collectives %-10s: %.1f ms median, %d layouts, best "
    .. "dp %d tp %d pp %d, %.2f s per step", c, m * 1e3, ev, rows[1].dp, rows[1].tp, rows[1].pp, rows[1].step))
end

local here = "notebooks/data"
-- (3) the shared sets' 761 layouts, the figure in BENCHMARKS.md (the unshared sets, issue
-- [19] target 2, are 788 more of the same kinds), each set up and predicted as the
-- validation notebook does: its one set-up (notebooks/lib/validation_rows.lua V.setup: the
-- row's framework profile, recompute policy, layout and cluster; the layers built once per
-- model, cached) and V.predict on the catalogue A100. Before review 13 this part kept its
-- own copy of the set-up (every row with full recompute, layers without the profile's
-- fusion passes), so its figure timed another model than the notebook's.
local V = dofile("notebooks/lib/validation_rows.lua")(dlb)
local vrows = {}
for _, r in ipairs(dofile(here .. "/vtrain_runs.lua")(here)) do
  if not r.set:find("^unshared") then vrows[#vrows + 1] = r end
end
local npred = 0
local m = time(1, function()
  npred = 0
  for _, r in ipairs(vrows) do
    local s = V.setup(r)
    if s then V.predict(s, s.hw); npred = npred + 1 end
  end
end)
print(string.format("  the %d vTrain layouts set up and predicted (notebooks/lib/validation_rows.lua): %.2f s "
  .. "(%.2f ms per layout, models cached after the first run)", npred, m, m / npred * 1e3))

-- (4) data parallelism: a 1 GB gradient in 25 MB buckets over 8..4096 A100s (DGX nodes)
local w = { flops_sample = 1e12, grad_bytes = 1e9, bwd_frac = 2 / 3 }
local big = P.cluster { hw = hw, per_node = 8, nodes = 512 }
local counts = { 8, 16, 64, 256, 1024, 4096 }
for _, c in ipairs { "nccl", "alpha-beta" } do
  local nd, r = 2000, nil
  local md = time(5, function()
    for i = 1, nd do
      r = P.data { work = w, hw = hw, workers = counts[i % #counts + 1], subbatch = 8, cluster = big,
        bucket = 25e6, overlap = 1, collectives = c }
    end
  end)
  local r4k = P.data { work = w, hw = hw, workers = 4096, subbatch = 8, cluster = big, bucket = 25e6,
    overlap = 1, collectives = c }
  print(string.format("  dlb.parallel.data, collectives %-10s: %.1f us per call (median of 5 x %d); "
    .. "4096 workers: allreduce %.1f ms, exposed %.1f ms", c, md / nd * 1e6, nd, r4k.comm * 1e3,
    r4k.exposed * 1e3))
end

-- (5) dlb.parallel.calibrate_collective on the source's own nccl-tests (the validation
-- notebook's node tier: 27 rows, 2/4/8 GPUs x 9 sizes): one whole fit
local meas = V.nccl_allreduce(here)
local node = P.cluster { hw = hw, per_node = 8, nodes = 1, nics = 4 }
local fit
local mc = time(5, function() _, fit = P.calibrate_collective(node, meas) end)
print(string.format("  dlb.parallel.calibrate_collective, %d nccl-tests rows: %.1f ms per fit (median of 5), "
  .. "%d evaluations; eff %.2f, nccl_latency %.1f us", #meas, mc * 1e3, fit.evals, fit.eff, fit.nccl_latency * 1e6))
