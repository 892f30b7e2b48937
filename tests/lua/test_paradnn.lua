-- test_paradnn.lua — a reduced ParaDnn FC sweep through the zoo and the roofline
-- (dlb.paradnn.evaluate / dlb.paradnn.sweep) with properties from the sources:
-- parameter and FLOP counts of an FC model (seeds/004 §2.1; a MAC is 2 FLOPs), the
-- platforms of Table 3, utilization rising with batch on the TPU (§4.1, Fig 2a), a TPU
-- core holding a whole model copy (§3), and workers giving the same table.
local T = require "harness"
local dlb = require "dlbench"
T.ok = T.ok or function(c, what) if not c then error((what or "check") .. ": false", 2) end end

-- 36 models: small enough for both backends in a few seconds
local space = dlb.paradnn.space("fc", { with = {
  layers = { 4, 16 }, nodes = { 64, 512, 8192 }, input = 2000, output = 200,
  batch = { 64, 256, 1024, 4096, 16384, 16384 * 4 } } })
local quiet = { quiet = true, progress = false }
local t = dlb.sweep(space, dlb.paradnn.evaluate("fc"), { order = dlb.paradnn.order("fc"), jobs = 1,
  quiet = true, progress = false })

T.test("platforms: Table 3 from the catalogue", function()
  local p = dlb.paradnn.platforms()
  T.eq(#p, 3, "three platforms")
  T.eq(p[1].hw.name .. " " .. p[2].hw.name .. " " .. p[3].hw.name, "TPUv2-board V100-SXM2-16GB Skylake-n1-32", "names")
  -- peaks of Table 3: 180T (TPU bf16), 125T (V100 tensor cores), 2T (CPU SP)
  local peaks = {}
  for i, pf in ipairs(p) do
    peaks[i] = dlb.roofline.time({ flops = 1, bytes = 1, precision = pf.precision }, pf.hw).peak
  end
  T.eq(peaks[1], 180e12, "TPU peak"); T.eq(peaks[2], 125e12, "V100 peak"); T.eq(peaks[3], 2e12, "CPU peak")
end)

T.test("FC params and FLOPs: 6 x batch x matmul weights, minus the input's gradient, plus extras", function()
  T.eq(t:count(), 2 * 3 * 6, "rows")
  T.eq(t:failures():count(), 0, "no failures")
  for _, r in t:rows() do
    local L, n, i, o, b = r.layers, r.nodes, r.input, r.output, r.batch
    -- dlb.models.paradnn.fc doc: input*nodes + (layers-1)*nodes^2 + nodes*output + biases
    local W = i * n + (L - 1) * n * n + n * o
    T.eq(r.params, W + L * n + o, "params")
    -- matmuls: forward 2bW, backward 2bW for the weight gradients and 2bW for the
    -- activation gradients, except the first layer's (x is data): 6bW - 2b*i*n.
    -- Extras (the graph engine's convention line, docs/graph.md): bias add and its
    -- gradient (a sum) b(Ln+o) each, ReLU and its gradient bLn each, softmax
    -- cross-entropy 4/elt forward and 2/elt backward, RMSProp 9 FLOPs per parameter +1
    -- under mixed precision (graphs/ir/op_cost.c: the cast from the fp32 master copy); the
    -- row's FLOPs come from the TPU's mixed-precision step.
    local want = 6 * b * W - 2 * b * i * n + 2 * b * (L * n + o) + 2 * b * L * n + 6 * b * o + 10 * r.params
    T.eq(r.flops, want, string.format("flops L=%d n=%d b=%d", L, n, b))
  end
  -- the matmul share alone, from the graph: forward matmul FLOPs are exactly 2bW
  local g = dlb.models.paradnn.fc { layers = 4, nodes = 512, input = 2000, output = 200 }
  local W = 2000 * 512 + 3 * 512 * 512 + 512 * 200
  T.eq(tostring(g:type_flops("matmul")), tostring(2 * W) .. "*b", "forward matmul FLOPs 2bW")
end)

T.test("utilization rises with batch on the TPU; roofline bounds hold", function()
  local tpu = dlb.hw.get("TPUv2-board")
  for _, L in ipairs { 4, 16 } do
    for _, n in ipairs { 64, 512, 8192 } do
      local rows = t:where { layers = L, nodes = n }:sort("batch")
      local prev = -1
      for _, r in rows:rows() do
        T.ok(r.util_tpu >= prev - 1e-12, string.format("util_tpu non-decreasing in batch (L=%d n=%d b=%d)", L, n, r.batch))
        prev = r.util_tpu
        -- never above the achievable share of peak (flops_eff = 0.8, Hestness 5.2)
        T.ok(r.util_tpu <= 0.8 + 1e-12, "util <= flops_eff")
        T.ok(r.time_tpu >= r.flops / (0.8 * 180e12) * (1 - 1e-12), "time >= flops / (0.8 peak)")
        if r.eps_tpu then T.near(r.eps_tpu, r.batch / r.time_tpu, 1e-12, "examples/s = batch / time") end
      end
      local first, last = rows:row(1), rows:row(rows:count())
      T.ok(last.util_tpu > first.util_tpu, "batch 64k beats batch 64")
    end
  end
  -- the TPU has the largest bandwidth of the three: a memory-bound FC runs fastest there
  local r = t:where { layers = 4, nodes = 64, batch = 64 }:row(1)
  T.eq(r.bound_tpu, "memory", "small FC memory-bound")
  T.ok(r.time_tpu < r.time_gpu and r.time_gpu < r.time_cpu, "TPU < GPU < CPU time")
  T.eq(tpu.cores, 8, "8 cores")
end)

T.test("memory: a TPU core holds the whole model and batch/8 of the activations", function()
  local big = t:where { layers = 16, nodes = 8192, batch = 64 }:row(1)
  -- 1.0G parameters: bf16 weights, fp32 master copy and RMSProp state >= 10 bytes each
  T.ok(big.params > 1e9, "1G params")
  T.eq(big.fits_tpu, false, "does not fit an 8 GB TPU core")
  T.eq(big.eps_tpu, nil, "no examples/s when it does not fit")
  T.ok(big.mem_tpu > 8e9, "needs more than 8 GB per core")
  local g = dlb.models.paradnn.fc { layers = 4, nodes = 512, input = 2000, output = 200 }
  local s = g:stats { b = 4096, precision = "mixed" }
  local per, cap = dlb.paradnn.core_footprint(s, dlb.hw.get("TPUv2-board"))
  local bd = s.breakdown
  -- framework schedule: every gradient held (params x 2 bytes under mixed precision)
  T.near(per, bd.weights + s.params * 2 + bd.optimizer + (bd.activations + bd.workspace) / 8, 1e-12, "per-core bytes")
  T.eq(cap, 8e9, "8 GB per core")
  local whole, gcap = dlb.paradnn.core_footprint(s, dlb.hw.get("V100-SXM2-16GB"))
  T.near(whole, bd.weights + s.params * 2 + bd.optimizer + bd.activations + bd.workspace, 1e-12,
    "a GPU holds weights, gradients, optimizer state and activations")
  T.eq(gcap, 16e9, "16 GB")
end)

T.test("dlb.paradnn.sweep: same table serial and with 2 workers, Table 2 sizes", function()
  local small = { layers = { 4 }, nodes = { 32, 256 }, batch = { 64, 512 } }
  local a = dlb.paradnn.sweep("fc", { with = small, jobs = 1, quiet = true, progress = false })
  local b = dlb.paradnn.sweep("fc", { with = small, jobs = 2, quiet = true, progress = false })
  T.eq(a:count(), 1 * 2 * 4 * 5 * 2, "rows (input and output from Table 2)")
  T.eq(table.concat(a:columns(), ","), table.concat(b:columns(), ","), "columns")
  for i = 1, a:count() do
    local x, y = a:row(i), b:row(i)
    for _, c in ipairs(a:columns()) do T.eq(x[c], y[c], "row " .. i .. " " .. c) end
  end
end)

T.test("bad input names what is wrong", function()
  T.checkerr("unknown option 'jobs'", dlb.paradnn.evaluate, "fc", { jobs = 2 })
  T.checkerr("kind must be", dlb.paradnn.evaluate, "mlp")
  T.checkerr("platforms[1] needs key=", dlb.paradnn.evaluate, "fc", { platforms = { {} } })
  T.checkerr("unknown option 'foo'", dlb.paradnn.sweep, "fc", { foo = 1 })
  local f = dlb.paradnn.evaluate("fc")
  T.checkerr("batch must be a whole number", f, { layers = 4, nodes = 32, input = 2000, output = 200, batch = 0.5 })
  -- a bad model option fails that config only, naming the zoo's model
  local r = dlb.sweep({ layers = { 4 }, nodes = { 32 }, input = { 2000 }, output = { 200 }, batch = { 64 }, bogus = { 1 } },
    dlb.paradnn.evaluate("fc"), quiet)
  T.eq(r:failures():count(), 1, "one failed row")
  T.ok(tostring(r:row(1)._error):find("paradnn.fc", 1, true) ~= nil, "names the model: " .. tostring(r:row(1)._error))
end)

T.done()
