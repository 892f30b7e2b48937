-- notebooks/data/validation_runs_moe.lua — the validation table's expert- and context-
-- parallel rows (issue [21]), in the schema of notebooks/data/validation_runs.lua, which
-- appends them in this order (kept apart only for the table's size). Returns the rows.
local rows = {}
local function add(r) rows[#rows + 1] = r end
-- a layout's degrees and accumulation steps divide exactly (an error names the pair)
local function div(a, b)
  local q = a / b
  if q ~= math.floor(q) then error(string.format("validation_runs_moe.lua: %d / %d is not whole", a, b), 2) end
  return q
end

---------------------------------------------------------------------------------------
-- Expert- and context-parallel runs (issue [21]). Every row below is role "held",
-- fixed when the rows were written, before any was predicted. FLOP conventions: the
-- NeMo / Megatron-Bridge tables give tokens/s, which is compared (their "Model TFLOP/s"
-- are not used); Megatron-MoE-ModelZoo's step times are compared where given, its
-- long-context table gives only TFLOPS per GPU, counted by Megatron-LM's
-- num_floating_point_operations (training.py): routed experts only (top-k x the expert
-- FFN), the logits, and causal attention counted HALF ("/ 2 # causal mask (only half of
-- the mask is non-zero)" in that function's core-attention term). The page pins this
-- itself: its step-time rows give both Step time and Per GPU TF, and TF x 256 GPUs x
-- step / (2048 x 4096 tokens) = 147.3, 148.2 and 147.8 GFLOP per token (rows 19.7 s /
-- 245, 17.6 s / 276, 29.0 s / 167), which is Megatron's formula with causal halving for
-- Qwen3-235B-A22B at 4096 (148.3) and not the whole count (167.2). So these rows are
-- flops_kind "model_causal": the graph's forward + backward with the causal attention
-- matmuls counted half (dlbench.mfu; the graph also counts norms, softmaxes and the
-- SwiGLU products, 4.5% above Megatron's formula at 4096). This was first written as
-- "attention whole" and corrected (issue [21], second round) after the rows' errors were
-- seen; the correction follows from the source's own columns, not from the predictions.
-- Llama 3 (Dubey et al. 2024) states its FLOP convention nowhere in Table 4; taken as
-- model FLOPs with attention whole.
---------------------------------------------------------------------------------------
-- NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, "25.11 NeMo Container",
-- Pre-Training Performance: columns Model, #-GPUs, Precision, GBS, MBS, Sequence Length,
-- FSDP, TP, PP, CP, VP, EP, GA, Tokens / sec / GPU, Model TFLOP / sec / GPU; "In MoE
-- training benchmarks, we force-balance the token distribution among experts and all
-- benchmarks are token-dropless" (imbalance 1, no capacity). Megatron-Core's context
-- parallelism (ring, its default p2p exchange). dp = GPUs / (TP x PP x CP); EP divides dp.
-- Architectures: Llama 3.1 405B (126 x 16384, 128 heads, 8 KV heads, FFN 53248, vocabulary
-- 128256); Qwen3-30B-A3B (48 layers, hidden 2048, 32 heads of 128, 4 KV heads, 128 experts
-- of width 768, top-8, vocabulary 151936, untied) and Qwen3-235B-A22B (94 layers, hidden
-- 4096, 64 heads of 128, 4 KV heads, 128 experts of width 1536, top-8): the Hugging Face
-- config.json of each (Qwen3's per-head q/k RMSNorm, 256 parameters a layer, is not built).
-- The 25.09 rows are from the same page at an older version, stored in the fork
-- pufanyi/Megatron-Bridge (commit 21a2ced8106754c746d0bbde686f35554992e4be).
---------------------------------------------------------------------------------------
local MBRIDGE = "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md (commit 00b7660be0254ac6f95f44164ddd0c3e9cc798ed)"
local MBRIDGE_0925 = "pufanyi/Megatron-Bridge (fork) docs/performance-summary.md (commit 21a2ced8106754c746d0bbde686f35554992e4be)"
local QWEN3 = {
  ["Qwen3_30B_a3B"] = { "moe", { style = "llama", layers = 48, hidden = 2048, heads = 32, kv_heads = 4,
    head_dim = 128, ffn = 768, experts = 128, top_k = 8, vocab = 151936 }, 30.5e9 },
  ["Qwen3_235B_a22B"] = { "moe", { style = "llama", layers = 94, hidden = 4096, heads = 64, kv_heads = 4,
    head_dim = 128, ffn = 1536, experts = 128, top_k = 8, vocab = 151936 }, 235e9 },
  ["LLAMA3.1_405B"] = { "llama", { layers = 126, hidden = 16384, heads = 128, kv_heads = 8, ffn = 53248,
    vocab = 128256 }, 405e9 },
}
local function mbridge(src, ver, system, hw, model, gpus, prec, gbs, mbs, seq, tp, pp, cp, vp, ep, tps)
  local a = QWEN3[model]
  local opts = { seq = seq }
  for k, v in pairs(a[2]) do opts[k] = v end
  local dp = div(gpus, tp * pp * cp)
  add {
    id = "mbridge-" .. ver .. "-" .. model:lower():gsub("[._]", "-") .. "-s" .. seq .. "-" .. gpus .. "x"
      .. hw:lower():gsub("%-sxm", ""),
    role = "held",
    model = { builder = a[1], opts = opts },
    params = a[3],
    hw = hw, devices = gpus,
    layout = { dp = dp, tp = tp, pp = pp, cp = cp > 1 and cp or nil, ep = ep > 1 and ep or nil,
      cp_algo = cp > 1 and "ring" or nil, micro_batch = mbs, grad_accum = div(gbs, dp * mbs),
      global_batch = gbs, schedule = vp > 1 and "interleaved" or nil, interleave = vp > 1 and vp or nil,
      -- the Qwen3 recipe's gradients reduced in bf16 (set_qwen3_common_configs:
      -- mixed_precision.grad_reduce_in_fp32 = False, ddp.grad_reduce_in_fp32 = False; added
      -- with moe below, branch finegrained)
      reduce_dtype = a[1] == "moe" and "bf16" or nil },
    precision = "fp8", seq = seq, framework = "NeMo " .. ver .. " (Megatron-Bridge, Megatron-Core)",
    -- the Precision column's fp8 recipe (Transformer Engine's quantisation kernels,
    -- dlbench.te_fp8): FP8-CS = Float8CurrentScaling, FP8-MX = MXFP8BlockScaling
    -- (Megatron-Bridge's mixed-precision recipes bf16_with_fp8_current_scaling_mixed and
    -- bf16_with_mxfp8_mixed)
    fp8 = ({ ["FP8-CS"] = { scaling = "current" }, ["FP8-MX"] = { scaling = "mxfp8" } })[prec]
      or error("mbridge: unknown precision " .. prec),
    -- the MoE layer as the Qwen3 recipe runs it (added in issue [21], branch finegrained,
    -- after the rows' errors were seen; the values are the recipe's): Megatron-Bridge's
    -- Qwen3MoEModelProvider (src/megatron/bridge/models/qwen/qwen_provider.py) sets
    -- moe_grouped_gemm = True, moe_token_dispatcher_type = "alltoall", moe_permute_fusion =
    -- True, moe_router_load_balancing_type = "aux_loss" (moe_aux_loss_coeff 1e-3); the
    -- performance scripts (scripts/performance/configs/qwen3/qwen3_llm_pretrain.py,
    -- set_qwen3_common_configs, commit 0fa501acee1ebfe3d1ab8088b638e2089d800df6, whose
    -- workload_base_configs.py holds these rows' layouts) add moe_router_fusion = True and
    -- moe_router_force_load_balancing = True and set no capacity (dropless, as the page
    -- says). TEGroupedMLP's grouped linear in that release is one cuBLAS GEMM per local
    -- expert (transformer_engine/common/gemm/cublaslt_gemm.cu nvte_multi_tensor_gemm:
    -- CUTLASS only on Hopper with NVTE_USE_CUTLASS_GROUPED_GEMM, bf16/fp16): the planner's
    -- moe_impl "mcore" (docs/parallel.md)
    moe = a[1] == "moe" and "mcore" or nil,
    measured = { tokens_per_s = tps, per = "gpu" },
    source = src .. ", '" .. ver .. " NeMo Container', Pre-Training Performance, System: " .. system
      .. ", row " .. model .. " / " .. gpus .. " GPUs (" .. prec .. "), column Tokens / sec / GPU",
    note = prec .. " (fp8 GEMMs on the catalogue's fp8 peak); MoE rows force-balanced and "
      .. "dropless (the page's note); params: the nominal size",
  }
end
mbridge(MBRIDGE, "25.11", "DGX-H100", "H100-SXM", "LLAMA3.1_405B", 1024, "FP8-CS", 512, 1, 8192, 8, 8, 2, 8, 1, 292)
mbridge(MBRIDGE, "25.11", "DGX-H100", "H100-SXM", "Qwen3_30B_a3B", 16, "FP8-CS", 512, 2, 4096, 1, 2, 1, 24, 8, 5275)
mbridge(MBRIDGE, "25.11", "DGX-B200", "B200", "LLAMA3.1_405B", 128, "FP8-CS", 64, 1, 8192, 4, 8, 2, 8, 1, 661)
mbridge(MBRIDGE, "25.11", "DGX-B200", "B200", "Qwen3_30B_a3B", 8, "FP8-MX", 512, 1, 4096, 1, 1, 1, 1, 8, 9299)
mbridge(MBRIDGE, "25.11", "DGX-B200", "B200", "Qwen3_235B_a22B", 64, "FP8-MX", 1024, 1, 4096, 1, 8, 1, 2, 8, 3269)
mbridge(MBRIDGE_0925, "25.09", "DGX-H100", "H100-SXM", "LLAMA3.1_405B", 1024, "FP8-CS", 512, 1, 8192, 8, 8, 2, 8, 1, 302)
mbridge(MBRIDGE_0925, "25.09", "DGX-B200", "B200", "LLAMA3.1_405B", 128, "FP8-CS", 64, 1, 8192, 4, 8, 2, 8, 1, 664)

---------------------------------------------------------------------------------------
-- yanring/Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md (commit
-- c1ad0b5c89f425d60febddc38e7f741a16f08bd1): Qwen3-235B-A22B on H100 (DGX, NVLink 4,
-- InfiniBand 8 x 50 GB/s), bf16, Megatron-Core. Table "Performance Results": columns TP,
-- CP, EP, PP, EDP, ETP, VPP, DP, FSDP, MBS, GBS, GA, recompute, Step time (sec), Per GPU
-- TF; rows with EP dividing DP (the model's expert groups come out of the data ranks;
-- ETP 1 (layout.etp: the experts not split over TP, so EP x ETP divides TP x DP and EP may
-- take tensor ranks), without the 1F1B all-to-all overlap (not modelled) and with whole
-- pipeline chunks (the A2A row's PP 32 x VPP 3 = 96 chunks for 94 layers is left out).
-- Table "Long Context" (DeepEP dispatcher, bf16, 32 nodes = 256 GPUs, the command's PP=8
-- VPP=4 EP=8, selective recompute of layernorm and moe): the "forced balance" TFLOPS (the
-- dropless ones depend on an imbalance the page does not give); its command sets no ETP
-- (Megatron-Core's default: the TP size).
---------------------------------------------------------------------------------------
local ZOO = "yanring/Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md (commit c1ad0b5c89f425d60febddc38e7f741a16f08bd1)"
local function zoo(seq, tp, cp, ep, pp, vpp, dp, fsdp, mbs, gbs, rc, meas, where, etp, mods)
  local opts = { seq = seq }
  for k, v in pairs(QWEN3["Qwen3_235B_a22B"][2]) do opts[k] = v end
  add {
    id = "modelzoo-qwen3-235b-s" .. seq .. "-tp" .. tp .. "-cp" .. cp .. "-ep" .. ep .. "-pp" .. pp
      .. (fsdp and "-fsdp" or "") .. "-256xh100",
    role = "held",
    model = { builder = "moe", opts = opts },
    params = 235e9,
    hw = "H100-SXM", devices = 256,
    layout = { dp = dp, tp = tp, pp = pp, cp = cp > 1 and cp or nil, ep = ep, etp = etp,
      cp_algo = cp > 1 and "ring" or nil, micro_batch = mbs, grad_accum = div(gbs, dp * mbs),
      global_batch = gbs, schedule = vpp > 1 and "interleaved" or nil, interleave = vpp > 1 and vpp or nil,
      zero = fsdp and 3 or nil, recompute = rc, recompute_modules = mods },
    precision = "mixed_bf16", seq = seq, framework = "Megatron-Core (Megatron-MoE-ModelZoo)",
    measured = meas,
    source = ZOO .. ", " .. where,
    note = "bf16; dispatcher DeepEP; ETP " .. tostring(etp or "not stated (the TP size)")
      .. "; recompute " .. tostring(rc or "none")
      .. (meas.tflops_per_gpu and "; TFLOPS by Megatron-LM's num_floating_point_operations "
        .. "(routed experts, causal attention counted half)" or ""),
  }
end
-- the step-time rows also give Per GPU TF (Megatron's count, causal attention half:
-- "model_causal"); the step time is what is compared, the TF pins the convention
-- (tests/lua/test_validation_data.lua checks the two agree through the built model)
zoo(4096, 2, 1, 8, 1, 1, 128, true, 4, 2048, "full", { step_time = 17.6, tflops_per_gpu = 276, flops_kind = "model_causal" },
  "table 'Performance Results', Intra-node EP strategy, row TP 2 / EP 8 / PP 1 / DP 128 / FSDP On / MBS 4, column Step time (sec)", 1)
zoo(4096, 4, 1, 8, 8, 4, 8, false, 1, 2048, nil, { step_time = 29.0, tflops_per_gpu = 167, flops_kind = "model_causal" },
  "table 'Performance Results', Intra-node EP strategy, row TP 4 / EP 8 / PP 8 / EDP 4 / VPP 4 / DP 8, column Step time (sec)", 1)
-- added with layout.etp (issue [21]), role fixed before it was predicted
zoo(4096, 2, 1, 32, 8, 4, 16, false, 1, 2048, "selective", { step_time = 19.7, tflops_per_gpu = 245, flops_kind = "model_causal" },
  "table 'Performance Results', Cross-node EP strategy, first row TP 2 / EP 32 / PP 8 / EDP 1 / ETP 1 / VPP 4 / DP 16 (no 1F1B overlap), column Step time (sec)", 1)
for _, lc in ipairs { { 16384, 1, 295 }, { 32768, 2, 335 }, { 65536, 4, 368 }, { 131072, 8, 389 } } do
  local seq, cp, tf = lc[1], lc[2], lc[3]
  zoo(seq, 4, cp, 8, 8, 4, div(256, 4 * 8 * cp), false, 1, 256, "selective",
    { tflops_per_gpu = tf, flops_kind = "model_causal" },
    "table 'Long Context', row SEQ_LEN " .. seq .. " / TP 4 / CP " .. cp .. ", column TFLOPS (forced balance)",
    nil, { "layernorm", "moe" })   -- the page's command: --recompute-modules layernorm moe
end

---------------------------------------------------------------------------------------
-- Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", arXiv 2407.21783), Table 4:
-- 405B pre-training on H100 (Meta's Grand Teton, 80 GB parts; counted as the catalogue's
-- H100-SXM), BF16. The long-context row: 16,384 GPUs, TP 8, CP 16, PP 16, DP 8, sequence
-- 131,072, batch size / DP 16, 16M tokens per batch, 380 TFLOPs/GPU, BF16 MFU 38%.
-- Context parallelism all-gathers K and V (sec. 3.3.2); the pipeline is an interleaved
-- schedule whose virtual stages the paper does not give (left to the notebook's default).
---------------------------------------------------------------------------------------
add {
  id = "llama3-405b-s131072-cp16-16384xh100",
  role = "held",
  model = { builder = "llama", opts = { layers = 126, hidden = 16384, heads = 128, kv_heads = 8,
    ffn = 53248, vocab = 128256, seq = 131072 } },
  params = 405e9,
  hw = "H100-SXM", devices = 16384,
  layout = { dp = 8, tp = 8, pp = 16, cp = 16, cp_algo = "allgather", global_batch = 128,
    micro_batch = 1, grad_accum = 16, schedule = "interleaved" },
  precision = "mixed_bf16", seq = 131072, framework = "PyTorch (Meta Llama 3 training stack)",
  measured = { tflops_per_gpu = 380, flops_kind = "model", mfu = 0.38 },
  source = "Dubey et al. 2024 (arXiv 2407.21783) Table 4, row GPUs 16,384 / CP 16 / Seq. Len. "
    .. "131,072: TFLOPs/GPU 380, BF16 MFU 38%",
  note = "micro_batch 1 assumed (the table gives batch size per DP, 16); FLOP convention not "
    .. "stated by the paper; params: the nominal size",
}

return rows
