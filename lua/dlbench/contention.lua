-- contention.lua — what a data-parallel collective takes from the compute it overlaps
-- (issues [18] / [21]): NCCL runs a collective as one kernel with one CTA (thread block) per
-- channel, each resident on an SM for the collective's length, so the compute beside it runs
-- on the other SMs: its rate falls by f = CTAs / SMs. The planner charges a collective of C
-- seconds under a compute window W max(C - W, f C) (graphs/parallel/planner_dp.c,
-- dlb_par_hidden; opts.contention). The CTA counts are NCCL's channels as its logs print them
-- on each node type, with their sources; a device without one has no f (its collectives stay
-- exposed under a profile). Not fitted to step times (docs/validation.md, branch overlap).
local doc = require "dlbench.doc"

local M = {}

-- NCCL's channels per collective on a node of the device (one CTA each).
M.CTAS = {
  ["A100-SXM4-40GB"] = { 24, "NVIDIA/nccl issue 578 (2021): NCCL_DEBUG=INFO on an 8 x A100 "
    .. "NVSwitch node (NV12), a 4-rank communicator: 'Channel 00/24 : 0 1 2 3' ... (24 ring "
    .. "channels: the topology search's, duplicated by NCCL, as the issue asks about)" },
  ["A100-SXM4-80GB"] = { 24, "as A100-SXM4-40GB (the same HGX A100 NVSwitch node)" },
  ["H100-SXM"] = { 24, "NVIDIA/nccl issue 1259 (2024): NCCL_DEBUG=INFO on an 8 x H100 "
    .. "NVSwitch node: 'Channel 16/24 : 0 1 2 3 4 5 6 7'; the same count in NCCL's init line "
    .. "on 8 x H100 (p5.48xlarge): '24 coll channels'; an nsys trace of FSDP's ncclAllGather "
    .. "on an H100 (NVIDIA developer forum, 'Compute-Communication Overlap Causes Severe GEMM "
    .. "Performance Degradation because of Tail Effect', 2025): 24 blocks of 132 SMs" },
  ["H200-SXM"] = { 24, "as H100-SXM (HGX H200: the same GH100 die and NVSwitch fabric)" },
}

-- A published measurement the rule is checked against (tests/lua/test_contention.lua), not
-- fitted to: the computation's slowdown under overlapped collectives, mean and maximum.
M.MEASURED = { mean = 0.189, max = 0.400, source = "Lee et al. 2025, 'Characterizing "
  .. "Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning: Performance "
  .. "and Power Implications' (arXiv 2507.03114), abstract: overlapped computation 18.9% "
  .. "slower on average, 40.0% at most (GPT and LLaMA on 4 x A100, H100, MI250, MI210)" }

-- f for a device (a catalogue device, a dlb.parallel.device table or a name): CTAs / SMs,
-- and a line saying where it comes from; nil and the reason when the device has no count.
function M.of(hw)
  local errors = require "dlbench.errors"
  if type(hw) == "string" then hw = require("dlbench.hw").get(hw) end
  if type(hw) ~= "table" then
    errors.raise("dlb.frameworks.contention: a device (catalogue device, dlb.parallel.device "
      .. "table or name) expected, got " .. type(hw) .. " " .. tostring(hw))
  end
  -- the device's own field (the catalogue's, kept by hw:with copies, or a table's own)
  local name, n, sm = hw.name, hw.nccl_ctas, hw.sm_count
  if n == nil then
    return nil, "no published NCCL CTA count (nccl_ctas) for " .. tostring(name or "the device")
      .. " (the catalogue has one for " .. table.concat(M.names(), ", ") .. ")"
  end
  if not (type(n) == "number" and n >= 1 and n == math.floor(n)) then
    errors.raise("dlb.frameworks.contention: " .. tostring(name) .. ": nccl_ctas must be a "
      .. "whole number >= 1, got " .. tostring(n))
  end
  if not (type(sm) == "number" and sm > n) then
    return nil, string.format("%s has no SM count above its %d NCCL CTAs (sm_count %s)",
      tostring(name), n, tostring(sm))
  end
  local src = type(hw.source) == "table" and hw.source.nccl_ctas or "the device's nccl_ctas"
  return n / sm, string.format("%d NCCL CTAs of %d SMs (%s)", n, sm, tostring(src))
end

function M.names()
  local n = {}
  for k in pairs(M.CTAS) do n[#n + 1] = k end
  table.sort(n)
  return n
end

-- A profile with the collectives its stack overlaps (its stack_overlap: grad_reduce under
-- the backward, param_gather under the forward) hidden at the contention rule's cost: the
-- option the profiles do not take by default (docs/validation.md, branch overlap).
function M.overlapped(p)
  local fw = require "dlbench.frameworks"
  p = fw.get(p, "dlb.frameworks.overlapped")
  local so = p.stack_overlap
  if type(so) ~= "table" or not (so.grad_reduce or so.param_gather) then
    require("dlbench.errors").raise("dlb.frameworks.overlapped: profile '" .. tostring(p.name)
      .. "' states no collectives its stack overlaps (stack_overlap)")
  end
  return fw.derive(p, { overlap = so.grad_reduce and 1 or nil,
    fsdp_overlap = so.param_gather and 1 or nil, contention = "nccl" })
end

doc.doc(M.of, "dlb.frameworks.contention(hw) -> f, source | nil, reason",
  "the fraction of the compute's rate a data-parallel collective beside it takes on device hw "
  .. "(a catalogue device, a dlb.parallel.device table or a name): NCCL's CTAs (one per "
  .. "channel, from the device's published NCCL logs) over its SMs; the planner charges a "
  .. "collective of C s under a compute window W max(C - W, f C) (plan / evaluate contention=); "
  .. "nil and the reason for a device without a published count")
doc.doc(M.overlapped, "dlb.frameworks.overlapped(profile) -> profile",
  "the profile (a table or its name) with the data-parallel collectives its stack overlaps "
  .. "(stack_overlap) hidden under compute at the contention rule's cost (overlap 1 for the "
  .. "gradient reduction, fsdp_overlap 1 for the parameter gathers, contention \"nccl\"): "
  .. "not the profiles' default (docs/validation.md, branch overlap)")

return M
