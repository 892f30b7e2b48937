-- tests/bench/moe_layer_audit.lua — one MoE layer's components as dlbench times them, beside
-- published per-kernel measurements (issue [21], branch moe-audit; docs/validation.md, "One
-- MoE layer, component by component"). A diagnostic, not a timed benchmark: it prints
--   A. each component's published figures against the per-op rule on the same shape/device;
--   B. one Qwen3-30B-A3B MoE layer (fwd + bwd, one micro-batch, one rank) of two held-out
--      Megatron-Bridge rows: each component by the model, and the same component with the
--      kernel classes of part A at their published rates (the ratios carried, an assumption
--      stated per line), the device components summed, the host's per-expert launches
--      apart, against the planner's step per layer and the time per layer the row's tokens/s imply.
-- Run: build/bin/dlbench run tests/bench/moe_layer_audit.lua   (or under LuaJIT's FFI)
local dlb = dlb or require "dlbench"
local core = require "dlbench.backend"
local P = dlb.parallel
local unpack = table.unpack or unpack

local function roof(hwname, prec)
  local r = dlb.hw.get(hwname):roof(prec)
  r.bytes_scale = 1
  return r
end
local function t_op(r, f, b, g) return (core.roofline_op_time(r, f, b, g)) end

---------------------------------------------------------------------------------------
-- A1. GEMMs: deepseek-ai/DeepGEMM README (commit of "Performance", 2025-02: the tables
-- "Normal GEMMs for dense models", "Grouped GEMMs for MoE models (contiguous layout)" and
-- "(masked layout)"), H800 (132 SMs, the H100 SXM's FP8 peak 1,979 TFLOP/s dense), FP8 with
-- 1x128 / 128x128 scaling, bf16 output; columns groups, M per group, N, K, TFLOP/s. The rule
-- is run on the catalogue H100-SXM at fp8 (same SM count and peak; the H800 differs in its
-- NVLink only); bytes: fp8 operands read once, bf16 output written once.
local DEEPGEMM = {
  { 1, 64, 2112, 7168, 206 }, { 1, 64, 24576, 1536, 289 }, { 1, 64, 32768, 512, 219 },
  { 1, 64, 7168, 16384, 336 }, { 1, 64, 4096, 7168, 287 }, { 1, 64, 7168, 2048, 295 },
  { 1, 128, 2112, 7168, 352 }, { 1, 128, 24576, 1536, 535 }, { 1, 128, 32768, 512, 358 },
  { 1, 128, 7168, 16384, 645 }, { 1, 128, 4096, 7168, 533 }, { 1, 128, 7168, 2048, 510 },
  { 1, 4096, 2112, 7168, 1058 }, { 1, 4096, 24576, 1536, 990 }, { 1, 4096, 32768, 512, 590 },
  { 1, 4096, 7168, 16384, 1358 }, { 1, 4096, 4096, 7168, 1304 }, { 1, 4096, 7168, 2048, 1025 },
  { 4, 8192, 4096, 7168, 1297 }, { 4, 8192, 7168, 2048, 1099 }, { 8, 4096, 4096, 7168, 1288 },
  { 8, 4096, 7168, 2048, 1093 },
  { 1, 1024, 4096, 7168, 1233 }, { 1, 1024, 7168, 2048, 925 }, { 2, 512, 4096, 7168, 1040 },
  { 2, 512, 7168, 2048, 916 }, { 4, 256, 4096, 7168, 932 }, { 4, 256, 7168, 2048, 815 },
}
local h100 = roof("H100-SXM", "fp8")
print("A1. GEMMs: DeepGEMM on H800 (FP8) vs the per-op rule on H100-SXM fp8 (TFLOP/s)")
print("   groups x M      N      K   published  modelled  modelled/published")
-- the ratio by K over the rows with M per group >= 1024 (enough tiles: the K effect alone)
local byk = {}
for _, r in ipairs(DEEPGEMM) do
  local g, m, n, k, pub = unpack(r)
  local fl = 2 * g * m * n * k
  local t = t_op(h100, fl, g * (m * k + k * n) + 2 * g * m * n, { m, n, k, g })
  local mod = fl / t / 1e12
  print(string.format("   %d x %5d %6d %6d   %6d   %8.0f   %5.2f", g, m, n, k, pub, mod, mod / pub))
  if m >= 1024 then
    byk[k] = byk[k] or { 0, 0 }
    byk[k][1], byk[k][2] = byk[k][1] + math.log(mod / pub), byk[k][2] + 1
  end
end
local ks = {}
for k in pairs(byk) do ks[#ks + 1] = k end
table.sort(ks)
local kratio = {}
io.write("   modelled/published (geometric mean, M per group >= 1024) by K:")
for _, k in ipairs(ks) do
  kratio[#kratio + 1] = { k, math.exp(byk[k][1] / byk[k][2]) }
  io.write(string.format("  K %d: %.2f", k, kratio[#kratio][2]))
end
print()
-- the published/modelled time factor at depth K: the ratio at the nearest measured K below
-- (K at or below the smallest: the smallest's), log-linear in K between measured depths
local function gemm_factor(k)
  if k <= kratio[1][1] then return kratio[1][2] end
  for i = 2, #kratio do
    local a, b = kratio[i - 1], kratio[i]
    if k <= b[1] then
      local w = math.log(k / a[1]) / math.log(b[1] / a[1])
      return math.exp((1 - w) * math.log(a[2]) + w * math.log(b[2]))
    end
  end
  return kratio[#kratio][2]
end

---------------------------------------------------------------------------------------
-- A2. Token permutation: tile-ai/TileOPs pull request #603 ("Add moe_permute kernel and op",
-- 2026-03-19), "Benchmark (H200, bf16)": tokens, top_k, experts, hidden, achieved TB/s of the
-- TileOPs kernel and of vLLM's; bytes as that benchmark counts them are not stated, so the
-- gather's own traffic (T x d read, T x k x d written, bf16) is timed by the rule on the
-- catalogue H200-SXM and turned into TB/s the same way.
local PERMUTE = { { 512, 2, 8, 4096, 1.54, 0.85 }, { 2048, 2, 8, 4096, 2.32, 1.77 },
  { 4096, 2, 8, 4096, 2.37, 1.78 }, { 512, 8, 256, 7168, 1.76, 1.59 } }
local h200 = roof("H200-SXM", "bf16")
print(string.format("A2. permute (gather) on H200 (HBM %.1f TB/s): published TB/s vs the per-op rule", h200.bw / 1e12))
print("   tokens top_k experts hidden  TileOPs  vLLM  modelled")
local lsum = 0
for _, r in ipairs(PERMUTE) do
  local T, k, E, d, tile, vllm = unpack(r)
  local by = 2 * (T * d + T * k * d)
  local t = t_op(h200, 0, by, nil)
  local mod = by / t / 1e12
  print(string.format("   %6d %5d %7d %6d  %7.2f %5.2f  %8.2f   modelled/best published %.2f", T, k, E, d, tile, vllm,
    mod, mod / math.max(tile, vllm)))
  lsum = lsum + math.log(mod / math.max(tile, vllm))
end
-- the published/modelled time factor of a memory-bound token pass (geometric mean over the rows)
local mem_factor = math.exp(lsum / #PERMUTE)
print(string.format("   geometric mean of modelled/published over the rows: %.2f", mem_factor))

---------------------------------------------------------------------------------------
-- A3. All-to-all across nodes: NVIDIA/nccl-tests issue #130 (S. Jeaugey, NCCL's maintainer,
-- 2023-02-03): "Alltoall cannot aggregate the bandwidth of multiple NICs" (issue #267,
-- 2024-11-19), on 2 nodes "50% of the traffic is inter-node so you should see BusBW = 2x
-- network bandwidth per GPU"; NDR 400 Gb/s CX-7: "46-48GB/s per NIC" (issue #290, 2025-03-03),
-- "up to 48-49GB/s" (#267). The model's two-tier all-to-all (dlb_par_alltoall_cluster) on the
-- catalogue's 2 x 8 H100 cluster, as the busbw nccl-tests would print (bytes S per rank).
local cl2 = P.cluster { hw = dlb.hw.get("H100-SXM"), per_node = 8, nodes = 2 }
local S = 256e6
local a2 = core.parallel_alltoall_cluster(S, 16, 1, cl2)
local busbw = S * 15 / 16 / a2.time
print(string.format("A3. all-to-all, 16 H100 on 2 nodes, %.0f MB per rank: modelled busbw %.1f GB/s (%.1f GB/s per NIC); published 46-49 GB/s per NIC (busbw 2x that on 2 nodes)",
  S / 1e6, busbw / 1e9, busbw / 2 / 1e9))
-- the published/modelled time factor of the inter-node all-to-all: the modelled per-NIC rate
-- over the published one (47.5 GB/s, the middle of 46-49)
local a2a_factor = (busbw / 2) / 47.5e9

---------------------------------------------------------------------------------------
-- A4. Host cost of a grouped MLP: NVIDIA/TransformerEngine issue #2897 ("Reduce CPU overhead
-- in grouped MLP block", T. Moon, 2026-04-16): Transformer Engine's fused grouped MLP (MXFP8)
-- "on GB200 with 64 experts and 128 hidden size ... the forward pass takes ~1.2 ms and the
-- backward pass takes ~2.1 ms", CPU-bound (hidden 128: the kernels are tiny). Per expert:
local host_fwd, host_bwd = 1.2e-3 / 64, 2.1e-3 / 64
print(string.format("A4. host, grouped MLP (TE #2897, GB200): %.1f us per expert forward, %.1f us backward", host_fwd * 1e6, host_bwd * 1e6))

---------------------------------------------------------------------------------------
-- B. One Qwen3-30B-A3B MoE layer (48 layers, hidden 2048, 128 experts of width 768, top-8:
-- its Hugging Face config.json), one micro-batch of 4096-token sequences, one rank, fwd + bwd,
-- the grouped GEMMs as Megatron-Core's TEGroupedMLP runs them under moe_impl "mcore" (per local
-- expert, 4 streams: planner_ops.c), the alltoall dispatcher in bf16; the planner's own per-
-- layer numbers beside (dlb.parallel.evaluate, the row's layout).
local function layer(name, hwname, mb, ep, nodes, tok_s, moe, fp8)
  local d, f, E, k, L = 2048, 768, 128, 8, 48
  local r8, r16 = roof(hwname, "fp8"), roof(hwname, "bf16")
  local T = 4096 * mb
  local C = T * k                -- copies a rank sends and (balanced) receives
  local nl = E / ep              -- local experts
  local M = C / nl               -- rows per local expert
  local rows = {}
  local function add(what, mt, pt, note) rows[#rows + 1] = { what, mt, pt, note } end
  -- router: one GEMM forward, two backward (tokens x experts, bf16), and the launch-bound
  -- small kernels (softmax / fused top-k, the aux loss and the token counts: 2 + 5 + 7
  -- forward, 5 + 2 backward, the planner_moe.c MCORE_* counts) at one launch each
  local rg = t_op(r16, 2 * T * d * E, 2 * (T * d + d * E + T * E), { T, E, d, 1 })
    + t_op(r16, 2 * T * d * E, 2 * (T * E + d * E + T * d), { T, d, E, 1 })
    + t_op(r16, 2 * T * d * E, 2 * (T * d + T * E + d * E), { d, E, T, 1 })
  local small = 21 * r16.kernel_overhead
  add("router GEMMs + 21 small kernels", rg + small, nil, "no published per-kernel figure found")
  -- permute + unpermute: a gather of the copies forward, its scatter-add backward, each way
  local pb = 2 * (T * d + C * d)
  local pm = 4 * t_op(r16, 0, pb, nil)
  add("permute + unpermute (4 passes)", pm, pm * mem_factor, "TileOPs #603, A2")
  -- Megatron-Core's second permutation (sort by local expert), fwd + bwd, alltoall dispatcher
  local p2 = 4 * t_op(r16, 0, 2 * C * d, nil)
  add("sort_chunks (2nd permutation)", p2, p2 * mem_factor, "as A2")
  -- the experts' GEMMs: fc1 (d -> 2f, SwiGLU's two halves) and fc2 (f -> d); backward dgrad
  -- and wgrad of each: six shapes per local expert, as ceil(nl / 4) rounds of 4
  local shapes = { { M, 2 * f, d }, { M, d, f }, { M, f, d }, { f, d, M }, { M, d, 2 * f }, { d, 2 * f, M } }
  local gm, gp = 0, 0
  for _, s in ipairs(shapes) do
    local m, n, kk = s[1], s[2], s[3]
    local st = math.min(nl, 4)
    local t = math.ceil(nl / st) * t_op(r8, 2 * m * n * kk * st, st * (m * kk + kk * n + 2 * m * n), { m, n, kk, st })
    gm = gm + t
    gp = gp + t * gemm_factor(kk)
  end
  add(string.format("expert GEMMs (6 x %d experts)", nl), gm, gp, "DeepGEMM by K, A1 (H800 ratio carried)")
  -- SwiGLU forward and backward on the copies (bf16, memory-bound)
  local act = t_op(r16, 0, 2 * (2 * C * f + C * f), nil) + t_op(r16, 0, 2 * (3 * C * f + 2 * C * f), nil)
  add("SwiGLU fwd + bwd", act, act * mem_factor, "as A2")
  -- the all-to-alls: dispatch and combine, forward and backward, bf16 copies
  local cl = P.cluster { hw = dlb.hw.get(hwname), per_node = 8, nodes = nodes }
  local a = core.parallel_alltoall_cluster(C * d * 2, ep, 1, cl)
  local a2t = 4 * a.time
  add("all-to-all x 4 (" .. ep .. " ranks, " .. nodes .. " node" .. (nodes > 1 and "s" or "") .. ")", a2t,
    nodes > 1 and a2t * a2a_factor or a2t, nodes > 1 and "NCCL per-NIC ceiling, A3" or "no independent figure (DeepEP's is the model's)")
  -- host: the per-expert launches the model charges (kernel_overhead per further per-expert
  -- launch of the 3 forward / 6 backward GEMMs and the 2 per-expert fp8 casts forward, 2
  -- backward), against TE #2897's per-expert host seconds
  local hm = (5 + 8) * (nl - 1) * r8.kernel_overhead
  add("host, per-expert launches", hm, nl * (host_fwd + host_bwd), "TE #2897, A4 (GB200's Grace CPU)")
  local sm, sp = 0, 0
  print(string.format("B. %s: one MoE layer, one micro-batch (%d tokens), one rank, fwd + bwd", name, T))
  print(string.format("   %-38s %10s %12s   %s", "component", "modelled", "at published", "source of the published rate"))
  for i, x in ipairs(rows) do
    local pt = x[3] or x[2]
    if i < #rows then sm, sp = sm + x[2], sp + pt end
    if i == #rows then
      print(string.format("   %-38s %8.3f ms %10.3f ms", "MoE-side device total", sm * 1e3, sp * 1e3))
    end
    print(string.format("   %-38s %8.3f ms %10.3f ms   %s", x[1], x[2] * 1e3, pt * 1e3, x[4]))
  end
  -- the planner's step for the row's layout, per layer and micro-batch, and the measurement
  local g = dlb.models.moe { style = "llama", layers = L, hidden = d, heads = 32, kv_heads = 4,
    head_dim = 128, ffn = f, experts = E, top_k = k, vocab = 151936, seq = 4096 }
  local prof = dlb.frameworks.derive("nemo", { moe = moe, fp8 = fp8 })
  local ls = P.prepare(P.layers.from_graph(g, { precision = "mixed_bf16", framework = prof, fp8 = true }))
  local n = ep
  local gb = 64 * n * mb
  local ev = P.evaluate { layers = ls, hw = dlb.hw.get(hwname), precision = "fp8", framework = prof,
    cluster = cl, dp = n, tp = 1, pp = 1, m = gb / (n * mb), batch = gb, ep = ep, zero = 1, reduce_dtype = "bf16" }
  local per = function(x) return x / (gb / (n * mb)) / L * 1e3 end
  print(string.format("   planner (evaluate, this layout): step per layer and micro-batch %.3f ms (compute %.3f, all-to-all %.3f)",
    per(ev.step), per(ev.compute), per(ev.ep_comm)))
  print(string.format("   measured: %.0f tokens/s/GPU -> %.3f ms per layer and micro-batch (attention and the rest included)",
    tok_s, T / tok_s / L * 1e3))
end

-- NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, 25.11, DGX-B200, Qwen3_30B_a3B, 8
-- GPUs, FP8-MX, MBS 1, EP 8: 9,299 tokens/s/GPU (the row mbridge-25.11-qwen3-30b-a3b-s4096-8xb200)
layer("Qwen3-30B-A3B, 8 B200, EP 8, MBS 1 (25.11)", "B200", 1, 8, 1, 9299, "mcore", { scaling = "mxfp8" })
-- the same table's archive, 26.04, DGX-H100, 16 GPUs, FP8, MBS 1, EP 16: 8,901 tokens/s/GPU
-- (mbridge-26.04-qwen3-30b-a3b-s4096-16xh100; the row states moe = "mcore" since branch
-- moe-fresh, and Hybrid-EP, which this part B does not time: the alltoall dispatcher here)
layer("Qwen3-30B-A3B, 16 H100, EP 16, MBS 1 (26.04)", "H100-SXM", 1, 16, 2, 8901, "mcore", { scaling = "current" })
