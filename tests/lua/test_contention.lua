-- test_contention.lua — compute / communication overlap with contention (issues [18] / [21]):
-- NCCL's CTAs per device (lua/dlbench/contention.lua), the planner's rule max(C - W, f C)
-- (graphs/parallel/planner_dp.c) through plan and evaluate, the profiles' default (off: the
-- mechanism failed its adoption rule, docs/validation.md branch overlap), on both backends.
local T = require "harness"
local dlb = require "dlbench"
local F, P = dlb.frameworks, dlb.parallel
local C = require "dlbench.contention"

T.test("f = NCCL's CTAs / SMs, each count with its source", function()
  -- H100 / H200: 24 channels (NVIDIA/nccl issue 1259) of 132 SMs; A100: 24 (issue 578) of 108
  local f, src = F.contention("H100-SXM")
  T.near(f, 24 / 132, 1e-15, "H100")
  assert(src:find("24 NCCL CTAs of 132 SMs", 1, true) and src:find("nccl issue 1259", 1, true), src)
  T.near(F.contention("H200-SXM"), 24 / 132, 1e-15, "H200")
  T.near(F.contention(dlb.hw.get("A100-SXM4-80GB")), 24 / 108, 1e-15, "A100 80 GB")
  T.near(F.contention("A100-SXM4-40GB"), 24 / 108, 1e-15, "A100 40 GB")
  -- a calibrated copy (hw:with, renamed) keeps the count; a device table likewise
  local h = dlb.hw.get("H100-SXM"):with { flops_eff = 0.7 }
  T.near(F.contention(h), 24 / 132, 1e-15, "hw:with copy")
  T.near(F.contention { name = "mine", sm_count = 100, nccl_ctas = 20 }, 0.2, 1e-15, "a table")
  -- no published count: nil and the reason
  local n, why = F.contention("V100-SXM2-16GB")
  assert(n == nil and why:find("no published NCCL CTA count", 1, true), why)
  T.checkerr("nccl_ctas must be a whole number", F.contention, { name = "x", sm_count = 10, nccl_ctas = 2.5 })
  T.checkerr("a device", F.contention, 42)
  -- the catalogue shows it, sourced
  assert(dlb.hw.get("H100-SXM"):describe():find("nccl_ctas", 1, true))
  T.checkerr("nccl_ctas must be a whole number >= 1", function()
    return dlb.hw.get("H100-SXM"):with { nccl_ctas = 0 } end)
end)

T.test("the rule's slowdown against a published measurement (a cross-check, not a fit)", function()
  -- Lee et al. 2025 (arXiv 2507.03114): overlapped computation 18.9% slower on average, 40.0%
  -- at most (A100, H100, MI250, MI210). The rule's slowdown of the compute, f / (1 - f):
  -- H100 24 / 108 = 22.2%, A100 24 / 84 = 28.6%: above the mean, below the maximum
  local M = C.MEASURED
  for _, d in ipairs { "H100-SXM", "A100-SXM4-80GB" } do
    local f = F.contention(d)
    local s = f / (1 - f)
    assert(s > M.mean and s < M.max, string.format("%s: slowdown %.3f outside (%.3f, %.3f)",
      d, s, M.mean, M.max))
  end
  T.near(24 / 132 / (1 - 24 / 132), 24 / 108, 1e-15, "H100's slowdown = 24 / (132 - 24)")
end)

-- Llama-3-8B on 1,024 H100s (tests/lua/test_frameworks.lua's plan): dp 1024, ZeRO-2, the
-- gradient reduction 174 ms exposed under the profile's default
local function llama() return dlb.models.llama { layers = 32, hidden = 4096, heads = 32,
  kv_heads = 8, ffn = 14336, vocab = 128256, seq = 8192 } end

T.test("plan: the profiles' default is unchanged; contention= and overlapped() hide at f C", function()
  local g = llama()
  local base = { graph = g, hw = "H100-SXM", devices = 1024, batch = 1024 }
  local function plan(x)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    for k, v in pairs(x) do o[k] = v end
    return P.plan(o)[1]
  end
  local r0 = plan {}
  T.eq(r0.framework, "torchtitan")
  T.near_abs(r0.mfu, 0.3796, 0.001, "the default plan (test_frameworks' pin)")
  -- overlap 0 with contention: today's numbers exactly
  local rz = plan { contention = "nccl" }
  T.eq(rz.step, r0.step, "contention without overlap: exposed, the same step")
  T.eq(rz.dp_comm, r0.dp_comm)
  -- hidden under the backward at f of itself: the same layout, dp_comm = f x the exposed
  local f = 24 / 132
  local r1 = plan { overlap = 1, fsdp_overlap = 1, contention = "nccl" }
  T.eq(r1.dp, r0.dp); T.eq(r1.zero, r0.zero)
  T.near(r1.dp_comm, f * r0.dp_comm, 1e-9, "dp_comm = f x the exposed collective")
  T.near(r1.step, r0.step - (1 - f) * r0.dp_comm, 1e-9, "step")
  -- the same through the profile option, and a number for f
  local r2 = plan { framework = F.overlapped("torchtitan") }
  T.near(r2.step, r1.step, 1e-12, "overlapped(torchtitan)")
  local r3 = plan { overlap = 1, fsdp_overlap = 1, contention = f }
  T.near(r3.step, r1.step, 1e-12, "contention as a number")
  -- MFU with the stack's overlap at this cost: 43.5% (issue [18]'s band 38-48%), not the
  -- default (docs/validation.md, branch overlap)
  T.near_abs(r1.mfu, 0.4346, 0.001, "Llama-3-8B with overlap and contention")
  -- free hiding (the old overlap 1): no collective left, the ZeRO-3 layout wins
  local rf = plan { overlap = 1, fsdp_overlap = 1 }
  T.eq(rf.dp_comm, 0)
  assert(rf.step < r1.step)
end)

T.test("evaluate: the same rule on a stated layout; a device without a count", function()
  local g = llama()
  local o = { graph = g, hw = "H100-SXM", devices = 64, batch = 64, dp = 64, zero = 3, m = 1 }
  local r0 = P.evaluate(o)
  local o1 = {}
  for k, v in pairs(o) do o1[k] = v end
  o1.overlap, o1.fsdp_overlap, o1.contention = 1, 1, "nccl"
  local r1 = P.evaluate(o1)
  assert(r1.dp_comm < r0.dp_comm and r1.dp_comm >= 24 / 132 * r0.dp_comm * (1 - 1e-12),
    string.format("%g %g", r1.dp_comm, r0.dp_comm))
  -- a profile's default on a device without a count: its collectives stay exposed, said so
  local v = { graph = g, hw = "A100-SXM4-80GB", devices = 64, batch = 64, dp = 64, zero = 3, m = 1 }
  local ra = P.evaluate(v)
  v.framework = F.overlapped("fsdp")
  local rb = P.evaluate(v)
  assert(rb.dp_comm < ra.dp_comm, "A100: hidden at 24 / 108")
  v.hw = "V100-SXM2-16GB"; v.precision = "fp16"; v.framework = F.overlapped("fsdp")
  local rc = P.evaluate(v)
  v.framework = "fsdp"
  local rd = P.evaluate(v)
  T.eq(rc.dp_comm, rd.dp_comm, "V100: no count, exposed as the profile's default")
  assert(tostring(rc.defaults):find("overlap 0 (no published NCCL CTA count", 1, true),
    tostring(rc.defaults))
  -- asked for by the caller on such a device: an error naming it
  v.framework = nil; v.contention = "nccl"; v.overlap = 1
  T.checkerr("contention \"nccl\": no published NCCL CTA count (nccl_ctas) for V100-SXM2-16GB",
    P.evaluate, v)
  v.contention = "sm"
  T.checkerr("option 'contention' must be \"nccl\"", P.evaluate, v)
  T.checkerr("contention must be \"nccl\"", F.derive, "fsdp", { contention = "sm" })
  T.checkerr("states no collectives its stack overlaps", F.overlapped, "megatron-lm")
end)

T.test("the profiles whose stacks overlap keep their collectives exposed by default", function()
  for _, p in ipairs(F.list()) do
    local d = F.plan_defaults(p)
    assert(d.contention == nil and (d.overlap or 0) == 0 and (d.fsdp_overlap or 0) == 0,
      p.name .. ": the mechanism is an option, not a default")
    if p.stack_overlap and (p.stack_overlap.grad_reduce or p.stack_overlap.param_gather) then
      local q = F.overlapped(p.name)
      T.eq(q.contention, "nccl", p.name)
      T.eq(q.overlap, p.stack_overlap.grad_reduce and 1 or nil, p.name .. " overlap")
      T.eq(q.fsdp_overlap, p.stack_overlap.param_gather and 1 or nil, p.name .. " fsdp_overlap")
    end
  end
end)

T.done()
