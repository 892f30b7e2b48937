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
-- A page of NeMo's published pre-training tables: doc (the document and its version), id
-- (the rows' id prefix), stack (the framework text: its profile is matched on "NeMo"),
-- heading (the container's section title, %s = the version), model_tables (versions whose
-- tables are one per model with a System column, instead of one per system), plain_fp8
-- (the recipe a plain "FP8" Precision cell means on that page; false: not stated, the
-- profile's default), note (what the page says of MoE routing).
local MBRIDGE_NOTE = "MoE rows force-balanced and dropless (the page's note)"
local MBRIDGE = { doc = "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md (commit 00b7660be0254ac6f95f44164ddd0c3e9cc798ed)",
  id = "mbridge", stack = "Megatron-Bridge, Megatron-Core", heading = "'%s NeMo Container', Pre-Training Performance",
  note = MBRIDGE_NOTE }
local MBRIDGE_0925 = { doc = "pufanyi/Megatron-Bridge (fork) docs/performance-summary.md (commit 21a2ced8106754c746d0bbde686f35554992e4be)",
  id = "mbridge", stack = MBRIDGE.stack, heading = MBRIDGE.heading, note = MBRIDGE_NOTE }
local ARCH = {
  ["Qwen3_30B_a3B"] = { "moe", { style = "llama", layers = 48, hidden = 2048, heads = 32, kv_heads = 4,
    head_dim = 128, ffn = 768, experts = 128, top_k = 8, vocab = 151936 }, 30.5e9 },
  ["Qwen3_235B_a22B"] = { "moe", { style = "llama", layers = 94, hidden = 4096, heads = 64, kv_heads = 4,
    head_dim = 128, ffn = 1536, experts = 128, top_k = 8, vocab = 151936 }, 235e9 },
  ["LLAMA3.1_405B"] = { "llama", { layers = 126, hidden = 16384, heads = 128, kv_heads = 8, ffn = 53248,
    vocab = 128256 }, 405e9 },
}
-- the page's names for the same architectures (NeMo 25.02 writes LLAMA3-405B)
ARCH["LLAMA3-405B"] = ARCH["LLAMA3.1_405B"]
-- The later containers' Qwen3 recipes (issue 27, branch moe-bulk; read after the rows' errors
-- were seen). Megatron-Bridge's performance presets, scripts/performance/configs/qwen/
-- qwen3_workload_base_configs.py, two stored versions: NVIDIA-NeMo/Megatron-Bridge at
-- f29a269f8728ff9075f88a226f92e554196a7e41 and the fork ananthsub/Megatron-Bridge at
-- 4a645075594c4127bf824abe685140559a2a3bf2. Which version each container ran is not
-- published, so a preset is taken for a row only where its layout (GPUs, TP, PP, VP, EP,
-- MBS, GBS) is the row's, and a setting only where every read version with that layout
-- states it alike (a setting the versions disagree on keeps the model's default, said
-- below). Every Megatron-Bridge Qwen3 row runs the recipe's MoE layer (qwen3_recipe: 25.11 read in
-- branch finegrained, the 26.x containers' model settings in branch moe-fresh).
--   QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 (16 GPUs, EP 16, GBS 1024, MBS 1, TP = PP
--     = 1): moe_flex_dispatcher_backend = "hybridep", moe_a2a_overlap = False in both.
--   QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V2 (256 GPUs, TP 2, PP 8, VP 4, EP 32, GBS
--     8192): moe_a2a_overlap = True in both (the V1 preset's, GBS replaced). Its dispatcher
--     is the alltoall one in both (the model's default): 4a64507's base preset names the
--     "deepep" backend, but its qwen3_llm_pretrain.py (same commit) sets
--     moe_token_dispatcher_type = "alltoall" for H100 Qwen3-235B, so no flex backend runs;
--     f29a269's base names none.
--   The dispatcher type: qwen3_llm_pretrain.py at 4a64507 and in NVIDIA-NeMo/Megatron-Bridge
--     at 826618be9ea5c3b4cf11e582089dc1dee8586fe9 sets moe_token_dispatcher_type = "flex" for
--     H100 Qwen3-30B-A3B (so its hybridep backend runs) and CommOverlapConfig(
--     tp_comm_overlap=False) for H100 Qwen3-235B.
--   Not matched: the 26.02 / 26.02.01 H100 Qwen3-30B-A3B layout (PP 2, VP 12, EP 8, GBS
--     1024, MBS 1; 767255d's H100 presets have GBS 512), the B200 Qwen3-30B-A3B rows at MBS 4
--     (both versions' B200 presets have MBS 1), the B200 Qwen3-235B-A22B rows (V2: 256 GPUs,
--     PP 8, EP 8, moe_a2a_overlap False in both and the alltoall dispatcher at 4a64507: the
--     model's defaults, nothing to set).
local RECIPES_26 = {
  { model = "Qwen3_30B_a3B", hw = "H100-SXM", gpus = 16, tp = 1, pp = 1, vp = 1, ep = 16, mbs = 1, gbs = 1024,
    preset = "QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1",
    layout = { moe_dispatcher = "hybridep", moe_a2a_overlap = false } },
  { model = "Qwen3_235B_a22B", hw = "H100-SXM", gpus = 256, tp = 2, pp = 8, vp = 4, ep = 32, mbs = 1, gbs = 8192,
    preset = "QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V2",
    layout = { moe_a2a_overlap = true } },
}
local RECIPES_26_DOC = "Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py "
  .. "(NVIDIA-NeMo/Megatron-Bridge at f29a269f8728ff9075f88a226f92e554196a7e41 and ananthsub/"
  .. "Megatron-Bridge at 4a645075594c4127bf824abe685140559a2a3bf2, alike)"
local function recipe_26(ver, hw, model, gpus, mbs, gbs, tp, pp, vp, ep)
  if not ver:match("^26%.") then return nil end
  for _, r in ipairs(RECIPES_26) do
    if r.model == model and r.hw == hw and r.gpus == gpus and r.tp == tp and r.pp == pp and r.vp == vp
      and r.ep == ep and r.mbs == mbs and r.gbs == gbs then return r end
  end
end
-- ga: the page's GA column (checked), fsdp: its FSDP column > 0 (Megatron-FSDP, as ZeRO 3)
local function mbridge(page, ver, system, hw, model, gpus, prec, gbs, mbs, seq, tp, pp, cp, vp, ep, tps, ga, fsdp)
  local a = ARCH[model]
  local opts = { seq = seq }
  for k, v in pairs(a[2]) do opts[k] = v end
  local dp = div(gpus, tp * pp * cp)
  local accum = div(gbs, dp * mbs)
  -- the page's GA column, where it has one, must be GBS / (dp x MBS)
  if ga and ga ~= accum then
    error(string.format("validation_runs_moe.lua: %s %s: GA %d, but GBS / (dp x MBS) = %d", ver, model, ga, accum), 2)
  end
  local by_model = page.model_tables and page.model_tables[ver]
  -- the fp8 recipe of the Precision cell (Transformer Engine's quantisation kernels,
  -- dlbench.te_fp8): FP8-CS = Float8CurrentScaling, FP8-MX / MXFP8 = MXFP8BlockScaling
  -- (Megatron-Bridge's mixed-precision recipes bf16_with_fp8_current_scaling_mixed and
  -- bf16_with_mxfp8_mixed); a plain "FP8" is what the page's plain_fp8 says
  local recipes = { ["FP8-CS"] = { scaling = "current" }, ["FP8-MX"] = { scaling = "mxfp8" },
    ["MXFP8"] = { scaling = "mxfp8" }, ["FP8"] = page.plain_fp8 }
  local fp8 = recipes[prec]
  if fp8 == nil then error("mbridge: unknown precision " .. prec .. " on " .. page.doc, 2) end
  -- a Qwen3 MoE row of Megatron-Bridge: the recipe's MoE layer and bf16 reduction (below),
  -- read for 25.11 (branch finegrained) and for the 26.x containers (branch moe-fresh: every
  -- read version states them alike)
  local qwen3_recipe = page.id == "mbridge" and a[1] == "moe" and model:find("^Qwen3") ~= nil
  -- a later container's Qwen3 preset whose layout is the row's (RECIPES_26 above)
  local r26 = page.id == "mbridge" and recipe_26(ver, hw, model, gpus, mbs, gbs, tp, pp, vp, ep) or nil
  local r26l = r26 and r26.layout or {}
  add {
    id = page.id .. "-" .. ver .. "-" .. model:lower():gsub("[._]", "-") .. "-s" .. seq .. "-" .. gpus .. "x"
      .. hw:lower():gsub("%-sxm", ""),
    role = "held",
    model = { builder = a[1], opts = opts },
    params = a[3],
    hw = hw, devices = gpus,
    layout = { dp = dp, tp = tp, pp = pp, cp = cp > 1 and cp or nil, ep = ep > 1 and ep or nil,
      -- EP not dividing the data ranks (dp x cp): Megatron-Core's only layout for it is
      -- ETP 1 (EP x ETP must divide TP x DP x CP, ETP divide TP), the experts taking
      -- tensor ranks
      etp = (ep > 1 and (dp * cp) % ep ~= 0) and 1 or nil,
      cp_algo = cp > 1 and "ring" or nil, micro_batch = mbs, grad_accum = accum,
      global_batch = gbs, schedule = vp > 1 and "interleaved" or nil, interleave = vp > 1 and vp or nil,
      zero = (fsdp or 0) > 0 and 3 or nil,
      -- the Qwen3 recipe's gradients reduced in bf16 (set_qwen3_common_configs:
      -- mixed_precision.grad_reduce_in_fp32 = False, ddp.grad_reduce_in_fp32 = False; added
      -- with moe below, branch finegrained)
      reduce_dtype = qwen3_recipe and "bf16" or nil,
      -- the matched preset's MoE dispatcher backend and all-to-all overlap (RECIPES_26)
      moe_dispatcher = r26l.moe_dispatcher, moe_a2a_overlap = r26l.moe_a2a_overlap,
      -- the Qwen3-235B-A22B recipe's pipeline split (issue [21], branch qwen235, read after
      -- the rows' errors were seen): account_for_embedding_in_pipeline_split = True and
      -- account_for_loss_in_pipeline_split = True in every read version (Megatron-Bridge
      -- src/megatron/bridge/recipes/qwen/qwen3_235b_a22b.py at 3594df94 model_config,
      -- qwen3_moe.py at 2afd2d34 and h100/qwen3_moe.py at 04eb4f8d
      -- qwen3_235b_a22b_pretrain_config, which the performance scripts' qwen3_llm_pretrain.py
      -- starts from; set_workload_base_configs (scripts/performance/utils/overrides.py)
      -- sets the degrees and leaves both): (94 + 2) / (pp x vp) layers a chunk, the
      -- embedding in the first and the output layer with the loss in the last
      pp_split = (pp > 1 and model == "Qwen3_235B_a22B" and qwen3_recipe) and "layers" or nil },
    precision = "fp8", seq = seq, framework = "NeMo " .. ver .. " (" .. page.stack .. ")",
    fp8 = fp8 or nil,
    -- the MoE layer as the Qwen3 recipe runs it (added in issue [21], branch finegrained,
    -- after the rows' errors were seen; the values are the recipe's): Megatron-Bridge's
    -- Qwen3MoEModelProvider (src/megatron/bridge/models/qwen/qwen_provider.py) sets
    -- moe_grouped_gemm = True, moe_token_dispatcher_type = "alltoall", moe_permute_fusion =
    -- True, moe_router_load_balancing_type = "aux_loss" (moe_aux_loss_coeff 1e-3); the
    -- performance scripts (scripts/performance/configs/qwen3/qwen3_llm_pretrain.py,
    -- set_qwen3_common_configs, commit 0fa501acee1ebfe3d1ab8088b638e2089d800df6, whose
    -- workload_base_configs.py holds the 25.11 rows' layouts) add moe_router_fusion = True and
    -- moe_router_force_load_balancing = True and set no capacity (dropless, as the page
    -- says). TEGroupedMLP's grouped linear in that release is one cuBLAS GEMM per local
    -- expert (transformer_engine/common/gemm/cublaslt_gemm.cu nvte_multi_tensor_gemm:
    -- CUTLASS only on Hopper with NVTE_USE_CUTLASS_GROUPED_GEMM, bf16/fp16): the planner's
    -- moe_impl "mcore" (docs/parallel.md). The 26.x containers' rows too (issue [21], branch
    -- moe-fresh, read after the rows' errors were seen): their model comes from
    -- Qwen3MoEBridge.provider_bridge (Megatron-Bridge src/megatron/bridge/models/qwen/
    -- qwen3_moe_bridge.py at 3ec0b0aa91acfc3e28ae200bd304076baa4f2ad4: grouped GEMM, aux_loss
    -- 1e-3, permute fusion, dropless) and set_qwen3_common_configs is the same at 826618be
    -- and 05c0c90fbbf69c7bd57ee93c32f28b840f31484f (router fusion, forced balance, no
    -- recompute, grad_reduce_in_fp32 False); Transformer Engine's GroupedLinear still calls
    -- general_grouped_gemm -> te_general_grouped_gemm (per expert); docs/validation.md
    moe = qwen3_recipe and "mcore" or nil,
    measured = { tokens_per_s = tps, per = "gpu" },
    source = page.doc .. ", " .. string.format(page.heading, ver) .. ", "
      .. (by_model and ("Model: " .. model .. ", row " .. system) or ("System: " .. system .. ", row " .. model))
      .. " / " .. gpus .. " GPUs (" .. prec .. "), column Tokens / sec / GPU"
      .. (r26 and ("; settings: " .. r26.preset .. " of " .. RECIPES_26_DOC) or ""),
    note = prec .. (fp8 and "" or " (recipe not stated: the profile's)") .. " (fp8 GEMMs on the catalogue's fp8 peak); "
      .. page.note .. "; params: the nominal size",
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
-- take tensor ranks) and with whole pipeline chunks (the A2A row's PP 32 x VPP 3 = 96 chunks
-- for 94 layers is left out); the "+1f1b overlap" row was left out until the overlap was
-- modelled (added in branch moe-bulk, below).
-- Table "Long Context" (DeepEP dispatcher, bf16, 32 nodes = 256 GPUs, the command's PP=8
-- VPP=4 EP=8, selective recompute of layernorm and moe): the "forced balance" TFLOPS (the
-- dropless ones depend on an imbalance the page does not give). ETP 1: the command runs
-- sbatch_benchmarking.sh, which loads model_configs/benchmarking/Qwen3-235B-A22B.yaml, and
-- that config sets --expert-tensor-parallel-size 1 (both stored versions, commits
-- 30631ea5a4aa6a5328be4e81466ac0d7e9fc438f and 1ed4179f72e4873bc246501a976ed21628e99582; the
-- readme's own commit is not stored). These rows were first written with ETP "not stated
-- (the TP size)" and corrected after their errors were seen (issue [21], branch deepep), from
-- the config, not from the predictions. The same config and scripts state, for every row:
-- --moe-token-dispatcher-type flex with DeepEP, --moe-grouped-gemm, --moe-permute-fusion,
-- --moe-router-dtype fp32, aux-loss balancing (coefficient 1e-3), --sequence-parallel,
-- --use-distributed-optimizer with --overlap-grad-reduce and --overlap-param-gather,
-- --cross-entropy-loss-fusion, --manual-gc, CUDA_DEVICE_MAX_CONNECTIONS 1 (A2A_OVERLAP 0), no
-- CUDA graphs; the newer config adds --moe-router-fusion and the newer script
-- --tp-comm-overlap for bf16 (which version ran each row is not stated).
---------------------------------------------------------------------------------------
local ZOO = "yanring/Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md (commit c1ad0b5c89f425d60febddc38e7f741a16f08bd1)"
-- a2a: the row's Notes say "+1f1b overlap" (Megatron-Core's combined 1F1B,
-- --overlap-moe-expert-parallel-comm: layout.moe_a2a_overlap)
local function zoo(seq, tp, cp, ep, pp, vpp, dp, fsdp, mbs, gbs, rc, meas, where, etp, mods, a2a)
  local opts = { seq = seq }
  for k, v in pairs(ARCH["Qwen3_235B_a22B"][2]) do opts[k] = v end
  add {
    id = "modelzoo-qwen3-235b-s" .. seq .. "-tp" .. tp .. "-cp" .. cp .. "-ep" .. ep .. "-pp" .. pp
      .. (fsdp and "-fsdp" or "") .. (a2a and "-a2a" or "") .. "-256xh100",
    role = "held",
    model = { builder = "moe", opts = opts },
    params = 235e9,
    hw = "H100-SXM", devices = 256,
    layout = { dp = dp, tp = tp, pp = pp, cp = cp > 1 and cp or nil, ep = ep, etp = etp,
      cp_algo = cp > 1 and "ring" or nil, micro_batch = mbs, grad_accum = div(gbs, dp * mbs),
      global_batch = gbs, schedule = vpp > 1 and "interleaved" or nil, interleave = vpp > 1 and vpp or nil,
      -- Megatron-FSDP as ZeRO 3; otherwise the scripts' --use-distributed-optimizer (the
      -- optimizer state and the gradients' reduction sharded over the data ranks: ZeRO 1),
      -- added at the merge of branch tp-ep, whose report found the 4k TP 4 row's state (47.9
      -- GB unsharded) past the H100's memory: a stated setting, written after the rows'
      -- errors were seen
      zero = fsdp and 3 or 1, recompute = rc, recompute_modules = mods,
      -- every row's Dispatcher column (and the Long Context setup) says DeepEP; the scripts
      -- run it as --moe-token-dispatcher-type flex with the deepep backend
      -- (sbatch_benchmarking.sh; the model config's --moe-enable-deepep in older versions)
      moe_dispatcher = "deepep", moe_a2a_overlap = a2a or nil,
      -- --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split
      -- (model_configs/benchmarking/Qwen3-235B-A22B.yaml, both stored versions; issue [21],
      -- branch qwen235, read after the rows' errors were seen): Megatron-Core's split by
      -- count, (94 + 2) / (PP x VPP) layers a chunk
      pp_split = pp > 1 and "layers" or nil },
    precision = "mixed_bf16", seq = seq, framework = "Megatron-Core (Megatron-MoE-ModelZoo)",
    measured = meas,
    source = ZOO .. ", " .. where,
    note = "bf16; dispatcher DeepEP" .. (a2a and " with the 1F1B all-to-all overlap" or "")
      .. "; ETP " .. tostring(etp or "not stated (the TP size)")
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
-- added with layout.etp (issue [21]), role fixed before it was predicted. Its recompute
-- column reads "norm, act": Megatron-Core's --recompute-modules layernorm moe_act (the
-- only activation module for an all-MoE model). First written as plain "selective"
-- (Korthikanti's core attention); corrected from the readme's column in the session after
-- its error was seen (CALIBRATED +3.6% before, +4.9% after)
zoo(4096, 2, 1, 32, 8, 4, 16, false, 1, 2048, "selective", { step_time = 19.7, tflops_per_gpu = 245, flops_kind = "model_causal" },
  "table 'Performance Results', Cross-node EP strategy, first row TP 2 / EP 32 / PP 8 / EDP 1 / ETP 1 / VPP 4 / DP 16 (no 1F1B overlap), column Step time (sec)", 1,
  { "layernorm", "moe_act" })
-- issue 27, branch moe-bulk: the same layout's second row, Notes "+1f1b overlap", left out
-- while the overlap was not modelled (above); added, role held, in the commit before its
-- first prediction, once Megatron-Core's combined 1F1B (branch moe-audit) was applied to the
-- Megatron-Bridge rows whose presets state it. Its code column names the same moe_dev
-- commit (f3e6c5) as the first row's
zoo(4096, 2, 1, 32, 8, 4, 16, false, 1, 2048, "selective", { step_time = 17.6, tflops_per_gpu = 276, flops_kind = "model_causal" },
  "table 'Performance Results', Cross-node EP strategy, second row TP 2 / EP 32 / PP 8 / EDP 1 / ETP 1 / VPP 4 / DP 16, Notes '+1f1b overlap', column Step time (sec)", 1,
  { "layernorm", "moe_act" }, true)
for _, lc in ipairs { { 16384, 1, 295 }, { 32768, 2, 335 }, { 65536, 4, 368 }, { 131072, 8, 389 } } do
  local seq, cp, tf = lc[1], lc[2], lc[3]
  zoo(seq, 4, cp, 8, 8, 4, div(256, 4 * 8 * cp), false, 1, 256, "selective",
    { tflops_per_gpu = tf, flops_kind = "model_causal" },
    "table 'Long Context', row SEQ_LEN " .. seq .. " / TP 4 / CP " .. cp .. ", column TFLOPS (forced balance)",
    1, { "layernorm", "moe" })   -- the page's command: --recompute-modules layernorm moe
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
  -- zero = 2: the paper's sec. 3.3.2, "Our use of FSDP for Llama 3 shards optimizer states
  -- and gradients, but for model shards we do not reshard after forward computation to avoid
  -- an extra all-gather communication during backward passes": ZeRO-2's sharding, not the
  -- torchtitan profile's ZeRO-3 (which gathers again for the backward). Stated in the row
  -- by branch zero-default, whose audit left every unstated stage to the profile (this row's
  -- prediction had moved with it, -40% -> -55%, when the text was read; role unchanged).
  -- The all-gather of the parameters at each micro-batch's forward is not modelled
  layout = { dp = 8, tp = 8, pp = 16, cp = 16, cp_algo = "allgather", global_batch = 128,
    micro_batch = 1, grad_accum = 16, schedule = "interleaved", zero = 2 },
  precision = "mixed_bf16", seq = 131072, framework = "PyTorch (Meta Llama 3 training stack)",
  measured = { tflops_per_gpu = 380, flops_kind = "model", mfu = 0.38 },
  source = "Dubey et al. 2024 (arXiv 2407.21783) Table 4, row GPUs 16,384 / CP 16 / Seq. Len. "
    .. "131,072: TFLOPs/GPU 380, BF16 MFU 38%",
  note = "micro_batch 1 assumed (the table gives batch size per DP, 16); FLOP convention not "
    .. "stated by the paper; params: the nominal size",
}

---------------------------------------------------------------------------------------
-- Issue 27 ([21]), branch moe-rows: more of NeMo's published tables. Every row below is
-- role "held", written and committed before any of them was predicted. Every row of each
-- table below whose system is in the catalogue (DGX-H100 = H100-SXM, DGX-B200 = B200; the
-- GB200, GB300 and B300 rows are not) is listed: the MoE and context-parallel rows (the
-- [21] set) and the dense rows of the same tables (held-out dense rows). Tokens/s per GPU
-- are compared; the pages' Model TFLOP/s are not used. dp = GPUs / (TP x PP x CP), GA =
-- GBS / (dp x MBS) (checked against the GA column where the page has one), VP > 1 ->
-- interleaved schedule, FSDP > 0 -> ZeRO 3, EP from the data ranks (ETP 1 where EP does
-- not divide dp x CP: mbridge above), context parallelism Megatron-Core's ring (p2p).
--
-- (a) NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md, commit
--     0a25f911b2ed6c6905a539504fdb8e5b40e3438b: the "26.02 NeMo Container" tables (one per
--     model, System column, no GA column) and the "25.11 NeMo Container" tables, which
--     there give the DGX-H100 Qwen3_235B_a22B row whole (GBS 2048, GA 128; the 25.11 page
--     of commit 00b7660 above lacks its GBS cell, which is why that row was left out).
--     Its 25.11 and 25.09 rows are otherwise the same numbers as the pages above (kept once).
-- (b) svcnemo-autobot/Megatron-Bridge (fork) docs/performance-summary-archive.md, commit
--     52dfa15285ade0d59fdbe7ec6779992df2e491fc: the "26.06", "26.04.01", "26.04" and
--     "26.02.01" containers (tables per model, no GA column; 26.06 without an FSDP column)
--     and "25.09" (per system, no Precision column: taken as FP8, current scaling, as the
--     25.09 rows above). Its 26.02 and 25.11 sections equal (a) (kept once, from (a)).
--     The 26.x Precision cells read FP8 / MXFP8 / NVFP4 / BF16; a plain "FP8" is taken as
--     FP8-CS (current scaling): the 25.11 tables' name for the same H100 recipes, the
--     suffix dropped once MXFP8 and NVFP4 got their own cells. An assumption: the page
--     does not say it.
-- (c) docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html,
--     the stored copy whose "Pretraining" section reads "Container: NeMo 25.02", "System:
--     DGX-B200" (found with the search tool's pages corpus; only this page's B200 table
--     could be read: the stored text ends at its DGX-H100 table's header, and the 25.04 /
--     25.07 copies and archive/25.04-performance-summary.html end inside their DGX-GB200
--     tables). Columns Model, #-GPUs, GBS, MBS, Sequence Length, TP, PP, CP, VP, EP, GA,
--     Tokens / sec / GPU, Model TFLOP / sec / GPU; "FP8 precision (using NeMo 2.0)", no
--     recipe named (the nemo profile's default, delayed scaling, as the NeMo 24.07 rows),
--     no MoE routing note (imbalance 1 and dropless: the notebook's default).
--     Its Mixtral-8x22B row reads GBS 1, MBS 64; its own GA column (16) is 64 / (dp 4 x 1),
--     so the two cells are swapped: stored as GBS 64, MBS 1.
-- Left out: DeepSeekV3 (multi-latent attention, shared and fine-grained experts, MTP: no
-- builder); GPT OSS 120B (attention sinks, alternating sliding windows); Nemotron_3_Nano /
-- Super (hybrid Mamba-Transformer) and Nemotron-15B / 340B (squared-ReLU MLP: no builder);
-- Kimi_K2 (GB300 only, MLA); the SFT / LoRA tables (fine-tuning on packed sequences, not
-- pre-training); the 25.09 "(tokendrop)" rows (capacity factor not published); the
-- numbers in parentheses (a second recipe of the same row, "FP8-CS (FP8-MX)": one row per
-- layout is kept, the first number, as for the 25.11 rows above); the 26.02 and 25.09
-- B200 Qwen3_235B "(tokendrop)" variants. Architectures: Mixtral-8x7B the zoo's preset
-- (mistralai/Mixtral-8x7B-v0.1 config.json); Mixtral-8x22B from
-- mistralai/Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, 48 heads, 8 KV heads,
-- 8 experts of width 16384, top-2, vocabulary 32768, untied); Llama 3 70B = the llama
-- builder's 70b shape with vocabulary 128256; Llama 3 8B and GPT-3 175B as NEMO_ARCH in
-- validation_runs.lua.
---------------------------------------------------------------------------------------
ARCH["Mixtral-8x7B"] = { "moe", { size = "mixtral-8x7b" }, 46.7e9 }
ARCH["Mixtral-8x22B"] = { "moe", { style = "llama", layers = 56, hidden = 6144, heads = 48, kv_heads = 8,
  ffn = 16384, experts = 8, top_k = 2, vocab = 32768 }, 141e9 }
ARCH["LLAMA3_70B"] = { "llama", { size = "70b", vocab = 128256 }, 70.6e9 }
ARCH["LLAMA3_8B"] = { "llama", { layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336,
  vocab = 128256 }, 8.03e9 }
ARCH["GPT3-175B"] = { "gpt", { layers = 96, hidden = 12288, heads = 96, context = 2048 }, 175e9 }
ARCH["LLAMA3-70B"], ARCH["LLAMA3-8B"] = ARCH["LLAMA3_70B"], ARCH["LLAMA3_8B"]

local CURRENT = { scaling = "current" }
local ARCHIVE = { doc = "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md (commit 0a25f911b2ed6c6905a539504fdb8e5b40e3438b)",
  id = "mbridge", stack = MBRIDGE.stack, heading = MBRIDGE.heading, model_tables = { ["26.02"] = true },
  plain_fp8 = CURRENT, note = MBRIDGE_NOTE }
local ARCHIVE_FORK = { doc = "svcnemo-autobot/Megatron-Bridge (fork) docs/performance-summary-archive.md (commit 52dfa15285ade0d59fdbe7ec6779992df2e491fc)",
  id = "mbridge", stack = MBRIDGE.stack, heading = MBRIDGE.heading,
  model_tables = { ["26.06"] = true, ["26.04.01"] = true, ["26.04"] = true, ["26.02.01"] = true },
  plain_fp8 = CURRENT, note = MBRIDGE_NOTE }
local NEMO_2502 = { doc = "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html (stored copy, 'Container: NeMo 25.02')",
  id = "nemo", stack = "NeMo 2.0, Megatron-Core", heading = "'Container: NeMo %s', Pretraining",
  plain_fp8 = false, note = "MoE routing not stated by the page (balanced, dropless assumed)" }
local H, B = "H100-SXM", "B200"
-- (b) 26.06 (no FSDP column)
mbridge(ARCHIVE_FORK, "26.06", "DGX-H100", H, "LLAMA3.1_405B", 1024, "FP8", 1536, 1, 8192, 8, 8, 2, 8, 1, 326)
mbridge(ARCHIVE_FORK, "26.06", "DGX-H100", H, "Qwen3_30B_a3B", 16, "FP8", 1024, 1, 4096, 1, 1, 1, 1, 16, 8826)
-- (b) 26.04.01
mbridge(ARCHIVE_FORK, "26.04.01", "DGX-H100", H, "LLAMA3_70B", 64, "FP8", 256, 1, 8192, 4, 8, 1, 5, 1, 1664)
mbridge(ARCHIVE_FORK, "26.04.01", "DGX-H100", H, "LLAMA3.1_405B", 1024, "FP8", 1536, 1, 8192, 8, 8, 2, 8, 1, 328)
mbridge(ARCHIVE_FORK, "26.04.01", "DGX-B200", B, "Qwen3_30B_a3B", 8, "MXFP8", 512, 4, 4096, 1, 1, 1, 1, 8, 27136)
mbridge(ARCHIVE_FORK, "26.04.01", "DGX-H100", H, "Qwen3_30B_a3B", 16, "FP8", 1024, 1, 4096, 1, 1, 1, 1, 16, 8960)
mbridge(ARCHIVE_FORK, "26.04.01", "DGX-B200", B, "Qwen3_235B_a22B", 256, "MXFP8", 8192, 1, 4096, 1, 8, 1, 1, 8, 3776)
mbridge(ARCHIVE_FORK, "26.04.01", "DGX-H100", H, "Qwen3_235B_a22B", 256, "FP8", 8192, 1, 4096, 2, 8, 1, 4, 32, 1712)
-- (b) 26.04 (no DGX-H100 / DGX-B200 LLAMA3.1_405B row, no DGX-B200 Qwen3_235B_a22B row)
mbridge(ARCHIVE_FORK, "26.04", "DGX-H100", H, "LLAMA3_70B", 64, "FP8", 256, 1, 8192, 4, 8, 1, 5, 1, 1633)
mbridge(ARCHIVE_FORK, "26.04", "DGX-B200", B, "Qwen3_30B_a3B", 8, "MXFP8", 512, 4, 4096, 1, 1, 1, 1, 8, 26859)
mbridge(ARCHIVE_FORK, "26.04", "DGX-H100", H, "Qwen3_30B_a3B", 16, "FP8", 1024, 1, 4096, 1, 1, 1, 1, 16, 8901)
mbridge(ARCHIVE_FORK, "26.04", "DGX-H100", H, "Qwen3_235B_a22B", 256, "FP8", 8192, 1, 4096, 2, 8, 1, 4, 32, 1686)
-- (b) 26.02.01 (no DGX-H100 / DGX-B200 LLAMA3.1_405B row, no DGX-B200 Qwen3_235B_a22B row)
mbridge(ARCHIVE_FORK, "26.02.01", "DGX-H100", H, "LLAMA3_70B", 64, "FP8", 256, 1, 8192, 4, 8, 1, 5, 1, 1639)
mbridge(ARCHIVE_FORK, "26.02.01", "DGX-B200", B, "Qwen3_30B_a3B", 8, "MXFP8", 512, 4, 4096, 1, 1, 1, 1, 8, 26695)
mbridge(ARCHIVE_FORK, "26.02.01", "DGX-H100", H, "Qwen3_30B_a3B", 16, "FP8", 1024, 1, 4096, 1, 2, 1, 12, 8, 9058)
mbridge(ARCHIVE_FORK, "26.02.01", "DGX-H100", H, "Qwen3_235B_a22B", 256, "FP8", 8192, 1, 4096, 2, 8, 1, 4, 32, 1611)
-- (a) 26.02
mbridge(ARCHIVE, "26.02", "DGX-H100", H, "LLAMA3_70B", 64, "FP8", 256, 1, 8192, 4, 8, 1, 5, 1, 1621)
mbridge(ARCHIVE, "26.02", "DGX-H100", H, "LLAMA3.1_405B", 1024, "FP8", 1536, 1, 8192, 8, 8, 2, 8, 1, 311)
mbridge(ARCHIVE, "26.02", "DGX-B200", B, "Qwen3_30B_a3B", 8, "MXFP8", 512, 1, 4096, 1, 1, 1, 1, 8, 9691)
mbridge(ARCHIVE, "26.02", "DGX-H100", H, "Qwen3_30B_a3B", 16, "FP8", 1024, 1, 4096, 1, 2, 1, 12, 8, 5113)
mbridge(ARCHIVE, "26.02", "DGX-B200", B, "Qwen3_235B_a22B", 256, "MXFP8", 8192, 1, 4096, 1, 8, 1, 1, 8, 3805)
mbridge(ARCHIVE, "26.02", "DGX-H100", H, "Qwen3_235B_a22B", 256, "FP8", 8192, 1, 4096, 2, 8, 1, 4, 32, 1633)
-- (a) 25.11: the H100 Qwen3 235B row whole; the dense rows (the same numbers as the page
-- of commit 00b7660, cited from there); DGX-H100 LLAMA3_8B: FSDP 1 there, 8 in (a)
mbridge(ARCHIVE, "25.11", "DGX-H100", H, "Qwen3_235B_a22B", 256, "FP8-CS", 2048, 1, 4096, 2, 8, 1, 4, 32, 1575, 128)
mbridge(MBRIDGE, "25.11", "DGX-H100", H, "LLAMA3_8B", 8, "FP8-CS", 128, 1, 8192, 1, 1, 1, 1, 1, 14451, 16, 1)
mbridge(MBRIDGE, "25.11", "DGX-H100", H, "LLAMA3_70B", 64, "FP8-CS", 128, 1, 8192, 4, 8, 1, 5, 1, 1602, 64)
mbridge(MBRIDGE, "25.11", "DGX-B200", B, "LLAMA3_8B", 8, "FP8-CS", 128, 2, 8192, 1, 1, 1, 1, 1, 30624, 8)
-- (b) 25.09, the dense rows (no Precision column)
mbridge(ARCHIVE_FORK, "25.09", "DGX-H100", H, "LLAMA3_8B", 8, "FP8", 128, 1, 8192, 1, 1, 1, 1, 1, 14079, 16, 8)
mbridge(ARCHIVE_FORK, "25.09", "DGX-H100", H, "LLAMA3_70B", 64, "FP8", 128, 1, 8192, 4, 8, 1, 5, 1, 1619, 64)
mbridge(ARCHIVE_FORK, "25.09", "DGX-B200", B, "LLAMA3_8B", 8, "FP8", 128, 2, 8192, 1, 1, 1, 1, 1, 29994, 8)
-- (c) NeMo 25.02, DGX-B200
mbridge(NEMO_2502, "25.02", "DGX-B200", B, "GPT3-175B", 512, "FP8", 2048, 2, 2048, 4, 4, 1, 6, 1, 1600, 32)
mbridge(NEMO_2502, "25.02", "DGX-B200", B, "LLAMA3-8B", 8, "FP8", 128, 2, 8192, 1, 1, 1, 1, 1, 26006, 8)
mbridge(NEMO_2502, "25.02", "DGX-B200", B, "LLAMA3-70B", 64, "FP8", 128, 1, 8192, 2, 4, 2, 5, 1, 3062, 32)
mbridge(NEMO_2502, "25.02", "DGX-B200", B, "LLAMA3-405B", 128, "FP8", 64, 1, 8192, 4, 8, 2, 8, 1, 625, 32)
mbridge(NEMO_2502, "25.02", "DGX-B200", B, "Mixtral-8x7B", 64, "FP8", 256, 2, 4096, 1, 1, 1, 1, 8, 15457, 2)
-- the page's GBS 1 / MBS 64, swapped (its GA 16 = 64 / (4 x 1))
mbridge(NEMO_2502, "25.02", "DGX-B200", B, "Mixtral-8x22B", 256, "FP8", 64, 1, 65536, 2, 4, 8, 14, 8, 2232, 16)

---------------------------------------------------------------------------------------
-- NeMo AutoModel (PyTorch FSDP2 with Transformer Engine's kernels and DeepEP), "Pre-Training
-- Performance", "System: DGX-H100, Precision: BF16": columns Model, #GPUs, GBS, MBS, LBS,
-- GA, Seq Length, TP, PP, CP, EP, VP, FSDP, Kernel Optimizations, Time per Global Step
-- (s), Model TFLOPs/sec/GPU, Tokens/sec/GPU; "Fake balanced gate is enabled to simulate
-- ideal expert routing" (imbalance 1). Tokens/s per GPU compared (GBS x seq / step /
-- GPUs: 12,040 and 866.8, as printed). FSDP = the data ranks -> ZeRO 3 (FSDP2); TE's
-- context parallelism defaults to its p2p (ring) exchange (assumed: the page does not
-- name it). The Qwen3 MoE 30B row: NVIDIA-NeMo/Automodel docs/performance-summary.md at
-- commit 01926a5c443b7979463c73341bf64adf79de638e (the earlier version at ce005dd printed
-- 11,842 for the same layout; the later one is kept). The Llama3 70B row (CP 2) is only
-- in a later version of that file, read as served by
-- https://stig.sh/NVIDIA-NeMo/Automodel/blob/HEAD/docs/performance-summary.md (view
-- dated April 17, 2026; no commit given there). Left out: DeepSeek V3 and Kimi K2 (MLA),
-- GPT-OSS (sinks, sliding windows), Nemotron V3 (hybrid Mamba), the LoRA table.
---------------------------------------------------------------------------------------
local function automodel(model, arch, seq, gpus, gbs, mbs, ga, cp, ep, fsdp, tps, where)
  local opts = { seq = seq }
  for k, v in pairs(arch[2]) do opts[k] = v end
  local dp = div(gpus, cp)
  if div(gbs, dp * mbs) ~= ga then error("validation_runs_moe.lua: AutoModel " .. model .. ": GA", 2) end
  if fsdp ~= dp then error("validation_runs_moe.lua: AutoModel " .. model .. ": FSDP is not the data ranks", 2) end
  add {
    id = "automodel-" .. model:lower():gsub("[ .]", "-") .. "-s" .. seq .. "-" .. gpus .. "xh100",
    role = "held",
    model = { builder = arch[1], opts = opts },
    params = arch[3],
    hw = "H100-SXM", devices = gpus,
    layout = { dp = dp, cp = cp > 1 and cp or nil, cp_algo = cp > 1 and "ring" or nil,
      ep = ep > 1 and ep or nil, zero = 3, micro_batch = mbs, grad_accum = ga, global_batch = gbs },
    precision = "mixed_bf16", seq = seq,
    -- (not "PyTorch FSDP": that text selects [18]'s FSDP set, llm-foundry's and
    -- torchtitan's rows, in tests/lua/fsdp_rows.lua)
    framework = "NeMo AutoModel (FSDP2, Transformer Engine, DeepEP)",
    measured = { tokens_per_s = tps, per = "gpu" },
    source = where .. ", Pre-Training Performance, System: DGX-H100, Precision: BF16, row "
      .. model .. " / " .. gpus .. " GPUs, column Tokens/sec/GPU",
    note = "bf16; FSDP2 over the data ranks; balanced gate (the page's note); attention: "
      .. "Transformer Engine's (cuDNN), run on the fsdp2 profile's kernels; params: the nominal size",
  }
end
automodel("Qwen3 MoE 30B", ARCH["Qwen3_30B_a3B"], 4096, 8, 512, 4, 16, 1, 8, 8, 12040,
  "NVIDIA-NeMo/Automodel docs/performance-summary.md (commit 01926a5c443b7979463c73341bf64adf79de638e)")
automodel("Llama3 70B", ARCH["LLAMA3_70B"], 8192, 64, 128, 1, 4, 2, 1, 32, 866.77,
  "NVIDIA-NeMo/Automodel docs/performance-summary.md (as served by https://stig.sh/NVIDIA-NeMo/Automodel/blob/HEAD/docs/performance-summary.md, April 17, 2026)")

return rows
