-- test_host_nccl.lua — issue [19] from Lua, on both backends: the host-side model (the
-- profiles' dispatch as the devices' host_op / host_layer, host_idle in roofline.time and
-- the planner), collectives as NCCL runs them (collectives=, the cluster's nics / nvlink /
-- nvls from the catalogue's FABRIC table), and the memory-pressure flag.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

T.test("a catalogue cluster carries the fabric: NICs per node, NVLink generation, NVLS", function()
  local c = P.cluster { hw = "A100-SXM4-80GB", per_node = 8, nodes = 2 }
  -- DGX A100: 8 compute NICs, NVLink 3 (hw_catalog.lua FABRIC, with its source)
  T.eq(c.nics, 8); T.eq(c.nvlink, 3); T.eq(c.nvls, 0)
  local h = P.cluster { hw = "H100-SXM", per_node = 8, nodes = 1 }
  T.eq(h.nvlink, 4); T.eq(h.nvls, 1)
  T.eq(P.cluster { hw = "A100-SXM4-80GB", per_node = 8, nodes = 2, nics = 4 }.nics, 4)
  T.checkerr("nvlink a generation 0..5", P.cluster, { hw = "A100-SXM4-80GB", per_node = 8, nodes = 1, nvlink = 9 })
  assert(dlb.hw.get("A100-SXM4-80GB").source.fabric:find("DGX A100"), "the fabric names its source")
end)

-- a small GPT (hidden 1024, 12 layers) at tp 8, micro-batch 1: with a host that spends 40 us
-- per op (the CALIBRATED value of notebooks/validation.lua's vTrain rows) its kernels are
-- shorter than their issue, so the GPU idles; at the profile's 10 us ESTIMATE far less
local g = dlb.models.gpt { layers = 12, hidden = 1024, heads = 16, vocab = 50257, seq = 1024, context = 1024 }
local ls = P.layers.from_graph(g, { precision = "mixed" })
local function ev(o)
  local base = { layers = ls, hw = "A100-SXM4-80GB", precision = "mixed", dp = 1, tp = 8, pp = 1,
    m = 8, batch = 8, recompute = true, framework = "megatron-lm" }
  for k, v in pairs(o or {}) do base[k] = v end
  return P.evaluate(base)
end

T.test("the host-side model: a starved GPU waits for its host, per op and per layer", function()
  local host40 = dlb.hw.get("A100-SXM4-80GB"):with { host_op = 40e-6 }
  -- at the profile's 10 us the device waits for each phase's first op (megatron-lm's
  -- phase_sync: 8 micro-batches x forward and backward, host_op each, host_layer 0) and for
  -- the few kernels shorter than their issue (the host-side timeline, op by op)
  local i10 = ev().host_idle
  local r = ev { hw = host40 }
  assert(i10 >= 2 * 8 * 10e-6 * (1 - 1e-12) and i10 < r.host_idle / 10, "at 10 us: " .. i10)
  assert(r.host_idle > 0, "tp 8 at micro-batch 1 is host-bound")
  T.near(r.step, r.compute + r.comm + r.bubble + r.update + r.host_idle
    + dlb.hw.get("A100-SXM4-80GB").step_overhead, 1e-9)
  -- framework "none" has no dispatch: no host model, as before issue [19]
  local n = ev { framework = "none" }
  T.eq(n.host_idle, 0)
  assert(n.step < r.step)
  -- a compiled stack (XLA) issues the step at once
  T.eq((dlb.frameworks.host_of(dlb.frameworks.get("maxtext"))), 0)
  -- a device that states its own host cost keeps it: 80 us per op is slower still
  local slow = ev { hw = dlb.hw.get("A100-SXM4-80GB"):with { host_op = 80e-6 } }
  assert(slow.step > r.step and slow.host_idle > r.host_idle)
  -- roofline.time: the same rule op by op (host_idle, host_time in the result)
  local s = dlb.models.gpt { size = "gpt2", batch = 1, seq = 128 }:stats { precision = "mixed" }
  local rt = dlb.roofline.time(s, "H100-SXM", { framework = "pytorch-ddp" })
  assert(rt.per_op.host_idle > 0 and rt.per_op.host_time > 0, "gpt2 at batch 1 is host-bound")
  local r0 = dlb.roofline.time(s, "H100-SXM", { framework = "none" })
  T.eq(r0.per_op.host_idle, 0)
  -- CUDA graphs (a profile of its own: megatron-core's with no per-op dispatch) and XLA
  local mc = dlb.roofline.time(s, "H100-SXM", { framework = "megatron-core" })
  local cg = dlb.roofline.time(s, "H100-SXM", { framework = "cuda-graphs" })
  T.eq(cg.framework, "megatron-core-cudagraphs")
  assert(mc.per_op.host_idle > 0, "eager Megatron-Core waits for its host")
  T.eq(cg.per_op.host_idle, 0)
  assert(cg.time < mc.time)
end)

-- The planner gave a catalogue device the profile's host cost only when the device's field
-- was nil; a catalogue device's is 0, so evaluate and plan never applied a profile's dispatch
-- (only hw:with{host_op =} reached them). The one rule now (dlb.frameworks.apply_host): a
-- positive cost the device states is kept, otherwise the profile's.
T.test("the planner applies the profile's host cost to a catalogue device", function()
  local slow = dlb.frameworks.derive("megatron-lm", { dispatch = { per_op = 1e-3, source = "test" } })
  local r = ev { framework = slow }
  local h = ev { hw = dlb.hw.get("A100-SXM4-80GB"):with { host_op = 1e-3 } }
  assert(r.host_idle > 0, "1 ms per op starves the GPU")
  T.near(r.step, h.step, 1e-12)
  -- a device's own positive cost is kept over the profile's
  local own = ev { framework = slow, hw = dlb.hw.get("A100-SXM4-80GB"):with { host_op = 40e-6 } }
  assert(own.step < r.step, "the device's 40 us, not the profile's 1 ms")
  -- the rule itself: 0 is "none stated"
  local d = dlb.frameworks.apply_host({ host_op = 0, host_layer = 0 }, slow)
  T.eq(d.host_op, 1e-3)
  T.eq(dlb.frameworks.apply_host({ host_op = 5e-6 }, slow).host_op, 5e-6)
end)

T.test("collectives as NCCL runs them, or the alpha-beta model", function()
  local a = ev { framework = "none", collectives = "alpha-beta" }
  local b = ev { framework = "none", collectives = "nccl" }
  assert(a.tp_comm > 0 and b.tp_comm > 0 and a.tp_comm ~= b.tp_comm)
  T.checkerr("collectives", ev, { collectives = "mpi" })
  -- NCCL's own choice for a small and a large message on one A100 node (tuning.cc)
  local t = P.nccl_topo(P.cluster { hw = "A100-SXM4-80GB", per_node = 8, nodes = 1 }, 8, 8)
  local small, large = P.nccl("allreduce", 4096, t), P.nccl("allreduce", 2 ^ 30, t)
  T.eq(small.proto, "LL"); T.eq(large.proto, "Simple")
  T.eq(large.algo, "ring")
  T.checkerr("broadcast runs rings only", P.nccl, "broadcast", 1, t, "tree")
  -- an H100 node's NVSwitches run NVLS: its name comes back (DLB_NCCL_NVLS is spelt like a
  -- count marker; it once came back nil and could not be asked for)
  local h = P.nccl_topo(P.cluster { hw = "H100-SXM", per_node = 8, nodes = 1 }, 8, 8)
  T.eq(P.nccl("allreduce", 2 ^ 30, h).algo, "nvls")
  T.eq(P.nccl("allreduce", 2 ^ 30, h, "nvls").algo, "nvls")
  T.eq(P.nccl_algos.nvls, dlb.core.enum.DLB_NCCL_NVLS)
end)

T.test("dlb.parallel.data: the gradient allreduce as NCCL runs it, or alpha-beta", function()
  local A100 = dlb.hw.get("A100-SXM4-80GB")
  local cl = P.cluster { hw = A100, per_node = 8, nodes = 4 }
  local w = { flops_sample = 1e12, grad_bytes = 1e9, bwd_frac = 2 / 3 }
  local r = P.data { work = w, hw = A100, workers = 32, subbatch = 4, cluster = cl }
  T.eq(r.collectives, "nccl", "the default on a catalogue GPU, as dlb.parallel.plan")
  -- NCCL's choice for 1 GB over 4 DGX A100 nodes, 8 ranks each: ring / Simple
  local topo = P.nccl_topo(cl, 32, 8)
  local nc = P.nccl("allreduce", 1e9, topo)
  T.eq(nc.algo, "ring"); T.eq(nc.proto, "Simple")
  T.near(r.comm, nc.time, 1e-12, "one bucket: P.nccl's allreduce of the gradient")
  -- the same by hand from tuning.cc (v2.19): ring, n = 32 ranks, N = 4 nodes; nsteps =
  -- 2(n-1) = 62, ninter = 2N = 8; latency = baseLat 8.4 + (62-8) x max(hwLat[NVLINK] 3.4,
  -- netOverhead 1 x 3) + 8 x hwLat[NET] 14.0 us, x 1.4 (the ring plateau, NVLink 3); bus
  -- bandwidth min(bw_intra, bw_inter) (more than one node) x n / nsteps to algorithm bandwidth
  local lat = (8.4 + 54 * 3.4 + 8 * 14.0) * 1.4 * 1e-6
  local algbw = math.min(topo.bw_intra, topo.bw_inter) * 32 / 62
  T.near(r.comm, lat + 1e9 / algbw, 1e-12, "tuning.cc's ring / Simple by hand")
  -- the node's 8 NICs (200 Gb/s HDR each) shared by the node's 8 ranks
  T.near(topo.bw_inter, 8 * cl.inter.bw * (cl.inter.eff or 1) * 8 / 8, 1e-12, "multi-rail")
  T.near(r.wire, 2 * 31 / 32 * 1e9, 1e-12, "wire: nccl-tests' bus convention, 2(n-1)/n x S")
  -- 25 MB buckets: 40 allreduces of 25 MB each, the last one exposed
  local b = P.data { work = w, hw = A100, workers = 32, subbatch = 4, cluster = cl,
    bucket = 25e6, overlap = 1 }
  local t25 = P.nccl("allreduce", 25e6, topo).time
  T.near(b.comm, 40 * t25, 1e-12, "40 buckets"); T.eq(b.buckets, 40)
  T.near(b.exposed, b.comm - math.min(39 * t25, b.compute * 2 / 3), 1e-12, "the last bucket")
  -- workers that do not fill a node: 4 ranks of one node on NVLink (NCCL on one node)
  local one = P.data { work = w, hw = A100, workers = 4, subbatch = 4, cluster = cl }
  T.near(one.comm, P.nccl("allreduce", 1e9, P.nccl_topo(cl, 4, 4)).time, 1e-12, "one node")
  -- collectives = "alpha-beta": the ring / hierarchical model, with its algo=
  local a = P.data { work = w, hw = A100, workers = 32, subbatch = 4, cluster = cl,
    collectives = "alpha-beta" }
  T.eq(a.collectives, "alpha-beta")
  T.near(a.comm, P.allreduce { bytes = 1e9, n = 32, cluster = cl }, 1e-12, "alpha-beta")
  local at = P.data { work = w, hw = A100, workers = 32, subbatch = 4, cluster = cl,
    collectives = "alpha-beta", algo = "tree" }
  T.near(at.comm, P.allreduce { bytes = 1e9, n = 32, cluster = cl, algo = "tree" }, 1e-12)
  T.checkerr("give collectives = \"alpha-beta\" with algo=", P.data,
    { work = w, hw = A100, workers = 32, subbatch = 4, cluster = cl, algo = "tree" })
  T.checkerr("collectives", P.data,
    { work = w, hw = A100, workers = 32, subbatch = 4, cluster = cl, collectives = "mpi" })
  -- a hand-made device keeps the alpha-beta model; asynchronous training is alpha-beta always
  local hand = { name = "hand", peak = { fp32 = 15e12 }, mem_bw = 900e9 }
  T.eq(P.data { work = w, hw = hand, workers = 4, subbatch = 4, bw = 10e9 }.collectives, "alpha-beta")
  T.eq(P.data { work = w, hw = A100, workers = 4, subbatch = 4, cluster = cl, async = true }
    .collectives, "alpha-beta")
end)

T.test("memory pressure: within 10% of capacity the time is flagged UNRELIABLE", function()
  local frac, why = P.mem_pressure(0.95e9, 1e9)
  T.near(frac, 0.95, 1e-12)
  assert(why and why:find("UNRELIABLE"))
  assert(select(2, P.mem_pressure(0.5e9, 1e9)) == nil)
  assert(P.mem_pressure(1, 0) == nil)   -- unlimited memory
  local r = ev()
  assert(r.reliable == true and r.unreliable == nil and r.mem_frac < 0.9)
  local tight = ev { hw = dlb.hw.get("A100-SXM4-80GB"):with { mem = r.mem / 0.95 } }
  assert(tight.reliable == false and tostring(tight):find("UNRELIABLE"))
end)

-- Review 11: evaluate, plan and pipeline took algo= under NCCL's model and ignored it (the
-- data-parallel allreduce is NCCL's own choice there): the same refusal as parallel.data's,
-- from one rule (parallel_base.check_algo); with collectives = "alpha-beta" it times the step.
T.test("algo= under NCCL's model: refused by evaluate, plan and pipeline as by data", function()
  local A100 = dlb.hw.get("A100-SXM4-80GB")
  local g = dlb.models.gpt { layers = 2, hidden = 256, heads = 4, seq = 128, context = 128, vocab = 1000 }
  local o = { graph = g, hw = A100, batch = 64, dp = 16 }
  for _, f in ipairs { { "evaluate", P.evaluate }, { "pipeline", P.pipeline } } do
    T.checkerr("parallel." .. f[1] .. ": algo='tree' is an alpha-beta algorithm, but the allreduce runs as NCCL "
      .. "runs it (collectives = \"nccl\", the default on a GPU", f[2], T.with(o, "algo", "tree"))
  end
  T.checkerr("parallel.plan: algo='tree' is an alpha-beta algorithm", P.plan,
    { graph = g, hw = A100, batch = 64, devices = 16, algo = "tree" })
  local ab = T.with(o, "collectives", "alpha-beta")
  local ring, tree = P.evaluate(ab), P.evaluate(T.with(ab, "algo", "tree"))
  assert(tree.dp_comm ~= ring.dp_comm, "alpha-beta: algo= times the allreduce")
end)

T.done()
