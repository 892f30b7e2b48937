-- validation_runs.lua — measured training throughputs from public sources, the validation
-- table of issue 12 (item 7). Plain data: `return { row, row, ... }` in the common subset
-- of Lua 5.4 and LuaJIT 2.1. Nothing here is predicted, estimated or converted: every
-- number in `measured` is the value as published, in the unit the source used, and every
-- row names its source precisely enough to check (paper + table/section + row, or
-- repository + path + commit + table). docs/validation.md explains how rows were chosen
-- and each source's conventions; tests/lua/test_validation_data.lua checks the schema,
-- builds every model and compares its parameter count with `params`.
--
-- Schema of a row (unknown keys are an error; required keys are marked *):
--   id*        unique slug
--   model*     { builder* = a dlb.models builder name ("gpt", "llama", "bert", "resnet",
--                "seq2seq", "faster_rcnn", ...), opts* = that builder's options WITHOUT
--                batch (the per-device batch is in layout.micro_batch; parameter counts
--                do not depend on it) }
--   params     published parameter count (a number), or nil when the source gives none
--              or the builder can only approximate the architecture (see note)
--   hw*        a catalogue name (dlb.hw.names()): the nearest catalogue device
--   device     the device as published, when it differs from the catalogue entry (e.g.
--              V100 32 GB counted as the 16 GB catalogue entry: same peak and bandwidth)
--   devices*   number of catalogue devices used (GPUs, TPU chips)
--   layout*    { dp, tp, pp, cp (context parallel), ep (expert parallel, dividing dp x cp;
--                with etp, ep x etp divides tp x dp x cp), etp (the experts' tensor degree
--                when the source gives one; absent: tp),
--                cp_algo = "ring" | "allgather" | "alltoall" (how context parallelism
--                exchanges K/V: Megatron-Core's ring, Llama 3's all-gather, Ulysses'
--                all-to-all), mp (combined model-parallel size when
--                the source does not split it into tp x pp), micro_batch (per device, per
--                micro-step), grad_accum, global_batch (samples per optimizer step),
--                schedule = "1f1b" | "interleaved", interleave (virtual stages per device),
--                recompute = "full" | "selective" | "selective_op" (torchtitan's per-op
--                selective AC), recompute_modules = { "layernorm", ... }
--                (Megatron-Core's selective modules, when the source names them; absent:
--                the attention core), recompute_every = k (with "selective": torchtitan's
--                layer-level selective AC, every k-th block fully checkpointed), zero =
--                0..3 (ZeRO stage; FSDP
--                FULL_SHARD = 3, SHARD_GRAD_OP = 2), sequence_parallel = bool,
--                moe_dispatcher = "alltoall" | "deepep" (the MoE token dispatcher the
--                source states: the planner's moe_dispatcher; absent: alltoall) }
--              every field optional: only what the source states (or what follows from it
--              by arithmetic, e.g. dp = devices / (tp * pp)) is filled in
--   precision* dlbench precision name: "mixed" (fp16 AMP), "mixed_bf16" (bf16 compute,
--              fp32 master weights), "fp16", "bf16", "fp32", "tf32", "fp8"
--   seq        tokens per sample (transformers); equals model.opts.seq where the builder
--              has one
--   framework* "Megatron-LM", "PyTorch", "Composer/FSDP", "NeMo", "JAX", "TensorFlow", ...
--   measured*  at least one of
--                tokens_per_s, samples_per_s  throughput; per* = "gpu" | "system"
--                                             ("gpu" = per device, also for TPU chips)
--                step_time       seconds per optimizer step (whole system)
--                tflops_per_gpu  achieved TFLOP/s per device; flops_kind* = "model"
--                                (no recompute) | "model_causal" (no recompute, a causal
--                                decoder's attention score and value matmuls counted half:
--                                dlbench.mfu's attention_flops = "causal") | "hardware"
--                                (recompute counted)
--                mfu, hfu        fractions (0.462, not 46.2): model / hardware FLOPs
--                                utilisation as the source defines it
--                time_to_train_min  minutes (MLPerf-style)
--   source*    where the numbers are
--   note       anything needed to interpret the row (conventions, approximations)
--   fp8        fp8 rows: the Transformer Engine recipe the source states, { scaling =
--              "delayed" | "current" | "mxfp8", weight_cast = "step" | "micro" }
--              (dlbench.te_fp8); absent: the framework profile's
--   role       "fit" (may calibrate) or "held" (scored only); fixed before errors are seen,
--              stored with the row (set at the end of this file for the rows above)
--
-- Counting conventions differ between sources (which FLOPs a TFLOP/s figure counts, which
-- peak an MFU uses); they are stated per source below and in docs/validation.md. Compare a
-- prediction with the raw throughput (tokens/s, samples/s, step time) where one is given.

local rows = {}
local function add(r) rows[#rows + 1] = r end
-- exact quotient of two counts, an integer in Lua 5.4 too (layout counts stay integers)
local function div(a, b) return math.floor(a / b + 0.5) end
-- a one-decimal number as printed in the source, the same text under Lua 5.4 and LuaJIT
local function num(x) return string.format("%.1f", x) end

---------------------------------------------------------------------------------------
-- Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters
-- Using Megatron-LM" (SC21, arXiv 2104.04473). Selene, DGX A100 80 GB nodes, mixed
-- precision (fp16), interleaved 1F1B schedule with scatter/gather, full activation
-- recomputation. All models: vocabulary 51,200, sequence 2048. Achieved TFLOP/s count
-- the GEMM FLOPs of eq. (3), F = 96 B s l h^2 (1 + s/6h + V/16lh), which includes the
-- recomputation forward pass: hardware FLOPs in the sense of Korthikanti et al. 2022.
-- Parameter counts by eq. (2). Throughput is end to end (data loading, optimizer, logging).
---------------------------------------------------------------------------------------
local NARAYANAN = "Narayanan et al. 2021 (SC21, arXiv 2104.04473)"
local NARAYANAN_NOTE = "TFLOP/s by eq. (3): GEMM FLOPs with the recompute forward pass "
  .. "(4 passes; logit layer 3), i.e. hardware FLOPs; peak 312 TFLOP/s"

-- Table 1 row: params (billion), heads, hidden, layers, t, p, GPUs, batch, TFLOP/s, % peak, PFLOP/s
local function t1(pb, heads, hidden, layers, t, p, gpus, batch, tflops, pct, pflops)
  add {
    id = "megatron-t1-" .. num(pb) .. "b-" .. gpus .. "xa100",
    model = { builder = "gpt", opts = { layers = layers, hidden = hidden, heads = heads,
      vocab = 51200, context = 2048, seq = 2048 } },
    params = pb * 1e9,
    hw = "A100-SXM4-80GB", devices = gpus,
    layout = { dp = div(gpus, t * p), tp = t, pp = p, global_batch = batch,
      schedule = p > 1 and "interleaved" or nil, recompute = "full" },
    precision = "mixed", seq = 2048, framework = "Megatron-LM",
    measured = { tflops_per_gpu = tflops, flops_kind = "hardware" },
    source = NARAYANAN .. " Table 1, row " .. num(pb) .. "B (" .. pct .. "% of peak, "
      .. num(pflops) .. " PFLOP/s aggregate)",
    note = NARAYANAN_NOTE .. "; microbatch size not stated",
  }
end
t1(1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 44, 4.4)
t1(3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 44, 8.8)
t1(7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 46, 18.2)
t1(18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 43, 34.6)
t1(39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 44, 70.8)
t1(76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 45, 143.8)
t1(145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 47, 227.1)
t1(310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 50, 297.4)
t1(529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 52, 410.2)
t1(1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 52, 502.0)

-- §5.1 "Training Time Estimates": GPT-3 175B (96 layers, 96 heads, hidden 12288).
add {
  id = "megatron-gpt3-175b-1024xa100",
  model = { builder = "gpt", opts = { layers = 96, hidden = 12288, heads = 96, vocab = 51200,
    context = 2048, seq = 2048 } },
  params = 175e9,
  hw = "A100-SXM4-80GB", devices = 1024,
  layout = { global_batch = 1536, recompute = "full" },
  precision = "mixed", seq = 2048, framework = "Megatron-LM",
  measured = { tflops_per_gpu = 140, flops_kind = "hardware" },
  source = NARAYANAN .. " §5.1 (Training Time Estimates): GPT-3, n = 1024 A100 GPUs, "
    .. "batch size 1536, X = 140 teraFLOP/s per GPU",
  note = NARAYANAN_NOTE .. "; the (t, p) layout of this run is not stated in §5.1; "
    .. "params is GPT-3's nominal 175B (eq. (2) with V = 51,200 gives 174.6B, Table 2)",
}

-- Table 2: PTD parallelism vs ZeRO-3 without model parallelism (GPT-3 174.6B and the
-- 529.6B model of Table 1). Scheme, params, model-parallel size, batch, GPUs, microbatch,
-- TFLOP/s, days for 300B tokens.
local function t2(scheme, pb, mp, batch, gpus, micro, tflops, days)
  local cfg = pb == 174.6 and { layers = 96, hidden = 12288, heads = 96 }
    or { layers = 105, hidden = 20480, heads = 128 }
  local zero = scheme == "zero3"
  add {
    id = "megatron-t2-" .. scheme .. "-" .. num(pb) .. "b-" .. gpus .. "xa100",
    model = { builder = "gpt", opts = { layers = cfg.layers, hidden = cfg.hidden,
      heads = cfg.heads, vocab = 51200, context = 2048, seq = 2048 } },
    params = pb * 1e9,
    hw = "A100-SXM4-80GB", devices = gpus,
    layout = { dp = div(gpus, mp), mp = mp, global_batch = batch, micro_batch = micro,
      zero = zero and 3 or nil, schedule = (not zero) and "interleaved" or nil,
      recompute = "full" },
    precision = "mixed", seq = 2048,
    framework = zero and "Megatron-LM + DeepSpeed ZeRO-3" or "Megatron-LM",
    measured = { tflops_per_gpu = tflops, flops_kind = "hardware" },
    source = NARAYANAN .. " Table 2, " .. (zero and "ZeRO-3 without model parallelism"
      or "PTD parallelism") .. ", " .. num(pb) .. "B, " .. gpus .. " GPUs (" .. days
      .. " days for 300B tokens)",
    note = NARAYANAN_NOTE .. (zero and "; ZeRO-3 integrated through the DeepSpeed library; "
      .. "recompute 'full' follows by arithmetic: without it one 2048-token sample's "
      .. "activations (~34 s h l bytes, Korthikanti et al. 2022 eq. 1, = 82 GB at 174.6B) "
      .. "exceed the 80 GB device"
      or "; model-parallel size is t x p, the split is not stated")
      .. (batch == 2560 and "; the 2560/640-GPU row is the paper's throughput estimate "
        .. "configuration (530B did not fit on 560 GPUs at microbatch 4)" or ""),
  }
end
t2("zero3", 174.6, 1, 1536, 384, 4, 144, 90)
t2("zero3", 174.6, 1, 1536, 768, 2, 88, 74)
t2("zero3", 174.6, 1, 1536, 1536, 1, 44, 74)
t2("zero3", 529.6, 1, 2560, 640, 4, 138, 169)
t2("zero3", 529.6, 1, 2240, 1120, 2, 98, 137)
t2("zero3", 529.6, 1, 2240, 2240, 1, 48, 140)
t2("ptd", 174.6, 96, 1536, 384, 1, 153, 84)
t2("ptd", 174.6, 96, 1536, 768, 1, 149, 43)
t2("ptd", 174.6, 96, 1536, 1536, 1, 141, 23)
t2("ptd", 529.6, 280, 2240, 560, 1, 171, 156)
t2("ptd", 529.6, 280, 2240, 1120, 1, 167, 80)
t2("ptd", 529.6, 280, 2240, 2240, 1, 159, 42)

---------------------------------------------------------------------------------------
-- Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
-- Models" (arXiv 2205.05198, MLSys 2023). Selene, A100 80 GB, mixed precision; sequence
-- 2048, vocabulary 51,200; tensor parallel 8; no data parallelism; interleaved schedule
-- with 3 stages per device (m = 3) for 175B and 530B. Table 3 gives the configurations,
-- Table 5 the end-to-end iteration time with full recomputation (no sequence parallelism)
-- and with the paper's method (sequence parallelism + selective recomputation), and MFU /
-- HFU of the latter (model FLOPs: forward + backward without recompute, App. A; HFU adds
-- the recomputed FLOPs; peak 312 TFLOP/s). The paper's layer has dropout: §4.1's
-- activation memory (eq. 1, 34sbh + 5as^2b) counts the attention-dropout mask (as^2b) and
-- the masks of the dropouts after attention and MLP, so the rows build the GPT with
-- dropout = true (a data fix of issue [19]: the rows were first built without dropout).
---------------------------------------------------------------------------------------
local KORTHIKANTI = "Korthikanti et al. 2022 (arXiv 2205.05198)"
local K_CFG = {
  ["22b"] = { 22e9, 64, 6144, 48, 8, 1, 8, 4, 4 },
  ["175b"] = { 175e9, 96, 12288, 96, 8, 8, 64, 64, 1 },
  ["530b"] = { 530e9, 128, 20480, 105, 8, 35, 280, 280, 1 },
  ["1t"] = { 1e12, 160, 25600, 128, 8, 64, 512, 512, 1 },
}
local function k5(size, method, step, mfu, hfu, note)
  local c = K_CFG[size]
  local selective = method == "selective"
  local inter = size == "175b" or size == "530b" -- §6: m = 3 for these two; 1T not stated
  add {
    id = "korthikanti-" .. size .. "-" .. (selective and "selective-sp" or "full-recompute")
      .. "-" .. c[7] .. "xa100",
    model = { builder = "gpt", opts = { layers = c[4], hidden = c[3], heads = c[2],
      vocab = 51200, context = 2048, seq = 2048, dropout = true } },
    params = c[1],
    hw = "A100-SXM4-80GB", devices = c[7],
    layout = { dp = 1, tp = c[5], pp = c[6], global_batch = c[8], micro_batch = c[9],
      schedule = inter and "interleaved" or nil, interleave = inter and 3 or nil,
      recompute = selective and "selective" or "full", sequence_parallel = selective },
    precision = "mixed", seq = 2048, framework = "Megatron-LM",
    measured = { step_time = step, mfu = mfu, hfu = hfu },
    source = KORTHIKANTI .. " Table 5 (iteration time, " .. (selective and "Present Work"
      or "Full Recompute") .. "), row " .. size:upper() .. "; configuration from Table 3",
    note = note,
  }
end
local K_NOTE = "MFU/HFU as in Table 5 (model FLOPs per App. A, peak 312 TFLOP/s); "
  .. "parameter count is the paper's nominal size"
k5("22b", "full", 1.42, nil, nil, "Table 5 gives MFU/HFU only for Present Work; nominal size 22B")
k5("22b", "selective", 1.10, 0.415, 0.437, K_NOTE)
k5("175b", "full", 18.13, nil, nil, "Table 5 gives MFU/HFU only for Present Work; nominal size 175B")
k5("175b", "selective", 13.75, 0.514, 0.528, K_NOTE)
k5("530b", "full", 49.05, nil, nil, "Table 5 gives MFU/HFU only for Present Work; nominal size 530B")
k5("530b", "selective", 37.83, 0.560, 0.570, K_NOTE)
k5("1t", "full", 94.42, nil, nil, "Table 5 gives MFU/HFU only for Present Work; nominal size 1T")
k5("1t", "selective", 71.49, 0.563, 0.570, K_NOTE)

-- §6.3: the 530B model at 8-way data parallelism (2240 GPUs), batch per model instance
-- kept (global batch 8 x 280 = 2240): 39.15 s per iteration, MFU 54.2%.
add {
  id = "korthikanti-530b-selective-sp-2240xa100",
  model = { builder = "gpt", opts = { layers = 105, hidden = 20480, heads = 128, vocab = 51200,
    context = 2048, seq = 2048, dropout = true } },
  params = 530e9,
  hw = "A100-SXM4-80GB", devices = 2240,
  layout = { dp = 8, tp = 8, pp = 35, global_batch = 2240, micro_batch = 1,
    schedule = "interleaved", interleave = 3, recompute = "selective", sequence_parallel = true },
  precision = "mixed", seq = 2048, framework = "Megatron-LM",
  measured = { step_time = 39.15, mfu = 0.542 },
  source = KORTHIKANTI .. " §6.3 (and abstract): 530B at 8-way data parallelism on 2240 GPUs, "
    .. "39.15 s per iteration, MFU 54.2%",
  note = "gradient all-reduce not overlapped with back-propagation (§6.3); the abstract's "
    .. "full-recompute comparison (MFU 42.1%) gives no iteration time",
}

---------------------------------------------------------------------------------------
-- Megatron-Turing NLG 530B (Smith et al. 2022, arXiv 2201.11990, §2.4): global batch
-- 1920, sequence 2048, 8-way tensor x 35-way pipeline on 280 / 350 / 420 DGX A100 nodes;
-- iteration time 60.1 / 50.2 / 44.4 s = 126 / 121 / 113 TFLOP/s per GPU. Read from the
-- quotation in cli99/llm-analysis examples/megatron-turing-nlg/README.md (commit
-- b60b392), which also gives the model config (105 layers, 128 heads, hidden 20480,
-- vocab 50272) and dp = 8 / 10 / 12. The TFLOP/s must count recomputation (hardware
-- FLOPs): Chowdhery et al. 2022 (PaLM, §4.1) derive MFU 30.2% for the same run from
-- 65.43K tokens/s (= 1920 x 2048 / 60.1 s), below 126 / 312 = 40%.
---------------------------------------------------------------------------------------
local function mtnlg(nodes, step, tflops)
  local gpus = nodes * 8
  add {
    id = "mtnlg-530b-" .. gpus .. "xa100",
    model = { builder = "gpt", opts = { layers = 105, hidden = 20480, heads = 128, vocab = 50272,
      context = 2048, seq = 2048 } },
    params = 530e9,
    hw = "A100-SXM4-80GB", devices = gpus,
    layout = { dp = div(gpus, 280), tp = 8, pp = 35, global_batch = 1920, recompute = "full" },
    precision = "mixed", seq = 2048, framework = "Megatron-LM + DeepSpeed",
    measured = { step_time = step, tflops_per_gpu = tflops, flops_kind = "hardware" },
    source = "Smith et al. 2022 (MT-NLG, arXiv 2201.11990) §2.4: " .. nodes .. " DGX A100 nodes, "
      .. step .. " s per iteration, " .. tflops .. " TFLOP/s per GPU; as quoted in "
      .. "cli99/llm-analysis examples/megatron-turing-nlg/README.md (commit b60b392)",
    note = "Selene DGX A100 80 GB per the Microsoft/NVIDIA announcement (llm-analysis's "
      .. "README says 40 GB); precision assumed fp16 mixed (not stated in the quotation); "
      .. "TFLOP/s count recompute (see the section comment), so the run recomputed: "
      .. "recompute = 'full' follows by arithmetic (126 / (0.302 x 312) = 4/3, the recompute "
      .. "forward's share); micro-batch and schedule not stated (1, DeepSpeed's 1F1B assumed)",
  }
end
mtnlg(280, 60.1, 126)
mtnlg(350, 50.2, 121)
mtnlg(420, 44.4, 113)

---------------------------------------------------------------------------------------
-- PaLM 540B (Chowdhery et al. 2022, arXiv 2204.02311, §4.1 "Training Efficiency" and
-- Table 3): 6144 TPU v4 chips (two pods), batch 2048 sequences of 2048 tokens, average
-- 238.3K tokens/s; MFU 46.2% with self-attention FLOPs (45.7% without), analytical HFU
-- 57.8% (rematerialization); peak 275 TFLOP/s per chip. Read from the paper's text as
-- stored in a public repository copy (ar5iv rendering), checked against two summaries.
-- Layout (§4 "Training Infrastructure"): each pod holds a full copy of the parameters,
-- every weight partitioned over its 3072 chips by 12-way model parallelism and 256-way
-- fully sharded data parallelism ("2D finalized", Xu et al. 2021); the two pods are 2-way
-- data parallel; no pipeline. Counted here as tp 12 x dp 512 with ZeRO-3 (FSDP) sharding;
-- 2048 / 512 = 4 sequences per replica, one micro-batch.
---------------------------------------------------------------------------------------
add {
  id = "palm-540b-6144xtpuv4",
  model = { builder = "llama", opts = { layers = 118, hidden = 18432, heads = 48, kv_heads = 1,
    ffn = 73728, vocab = 256000, tied = true, seq = 2048 } },
  params = nil,
  hw = "TPUv4", devices = 6144,
  layout = { dp = 512, tp = 12, zero = 3, micro_batch = 4, global_batch = 2048,
    recompute = "full" },
  precision = "mixed_bf16", seq = 2048, framework = "JAX/Pathways",
  measured = { tokens_per_s = 238300, per = "system", mfu = 0.462, hfu = 0.578 },
  source = "Chowdhery et al. 2022 (PaLM, arXiv 2204.02311) §4.1 and Table 3: PaLM 540B on "
    .. "6144 TPU v4, 238.3K tokens/s at batch 2048, MFU 46.2%, HFU 57.8%",
  note = "published 540.35B params; the llama builder approximates PaLM (SwiGLU, multi-query "
    .. "attention, shared embeddings, no biases, parallel layers): it ties head size to "
    .. "hidden/heads (384) while PaLM uses 48 heads of 256, so the built model has ~5% "
    .. "more attention parameters and FLOPs (567.6B); recompute 'full' stands for PaLM's "
    .. "rematerialization, whose exact policy is not published",
}

---------------------------------------------------------------------------------------
-- MosaicML llm-foundry, scripts/train/benchmarking/README.md at commit c90b9b3 ("MPT
-- Training Benchmarks"): MPT models trained with Composer + PyTorch FSDP on the MosaicML
-- platform, FlashAttention/Triton attention, 12-step runs. Each call below copies one
-- table row in the README's column order: model, SeqLen, #GPUs, MFU, HFU,
-- MicroBatchSize, GradAccum, GlobalBatchSize, Throughput (T/s/GPU), Precision, MP Mode,
-- Sharding Strategy, Activation Checkpointing, NumParams. MFU = (6 N + 12 l d s) x
-- tokens/s / peak (attention counted without causal halving), HFU adds a 4/3 recompute
-- factor when checkpointing; peaks 312 (A100) and 989 (H100, bf16) / 1979 (H100, fp8)
-- TFLOP/s. Architecture (scripts/train/yamls/pretrain/mpt-<size>.yaml): GPT with biases,
-- learned positions of length max_seq_len, tied embeddings, vocab 50368, FFN 4d; NumParams
-- equals the gpt builder's 12ld^2 + 13ld + (V + s)d + 2d exactly for every size.
---------------------------------------------------------------------------------------
local MPT = { -- layers, d_model, heads (the yaml of each size)
  ["125m"] = { 12, 768, 12 }, ["350m"] = { 24, 1024, 16 }, ["760m"] = { 24, 1536, 12 },
  ["1b"] = { 24, 2048, 16 }, ["3b"] = { 32, 2560, 20 }, ["7b"] = { 32, 4096, 32 },
  ["13b"] = { 40, 5120, 40 }, ["30b"] = { 48, 7168, 56 }, ["70b"] = { 80, 8192, 64 },
}
local FOUNDRY = "mosaicml/llm-foundry scripts/train/benchmarking/README.md (commit c90b9b3)"
local FOUNDRY_HW = {
  ["H100 80GB BF16 (Large Scale, >= 128 GPUs)"] = "H100-SXM", ["H100 80GB BF16"] = "H100-SXM",
  ["H100 80GB FP8"] = "H100-SXM",
  ["A100 80GB with 1600 Gbps node-node interconnect (RoCE)"] = "A100-SXM4-80GB",
  ["A100 40GB with 1600 Gbps node-node interconnect (RoCE)"] = "A100-SXM4-40GB",
}
-- the fp8 rows' output layer (dlbench.fp8_output): MPT ties it to the embedding, and the
-- unembedding is SharedEmbedding.forward(unembed=True) = F.linear(input, self.weight)
-- (llmfoundry/models/layers/custom_embedding.py), not a te.Linear: Transformer Engine's
-- fp8_autocast leaves it in bf16
local FOUNDRY_HEAD = { quantized = false, source = "mosaicml/llm-foundry llmfoundry/models/layers/"
  .. "custom_embedding.py: SharedEmbedding.forward(unembed=True) is F.linear(input, self.weight), "
  .. "not a Transformer Engine module: bf16 under te.fp8_autocast" }
local function lf(tbl, size, seq, gpus, mfu, hfu, mb, ga, gbs, tps, prec, mpmode, shard, ckpt, nparams)
  local c = MPT[size]
  local hw = FOUNDRY_HW[tbl]
  add {
    id = "foundry-mpt-" .. size .. "-s" .. seq .. "-" .. gpus .. "x" .. hw:lower():gsub("%-sxm.*", "")
      .. (hw == "A100-SXM4-40GB" and "-40g" or (hw == "A100-SXM4-80GB" and "-80g" or ""))
      .. (prec == "amp_fp8" and "-fp8" or ""),
    model = { builder = "gpt", opts = { layers = c[1], hidden = c[2], heads = c[3], vocab = 50368,
      context = seq, seq = seq } },
    params = nparams,
    hw = hw, devices = gpus,
    device = hw == "H100-SXM" and "h100_80gb (MosaicML platform)" or nil,
    -- the gradients' reduce dtype follows the MP Mode column (Composer get_mixed_precision:
    -- DEFAULT reduces in fp32, PURE in the 16-bit precision)
    layout = { dp = gpus, micro_batch = mb, grad_accum = ga, global_batch = gbs,
      zero = shard == "FULL_SHARD" and 3 or 2, recompute = ckpt and "full" or nil,
      reduce_dtype = mpmode == "PURE" and "bf16" or "fp32" },
    precision = prec == "amp_fp8" and "fp8" or "mixed_bf16", seq = seq,
    framework = "Composer + PyTorch FSDP",
    -- amp_fp8: Composer runs Transformer Engine under te.fp8_autocast with a DelayedScaling
    -- recipe (composer/core/precision.py, get_precision_context) and calls its modules
    -- without is_first_microbatch, so weights are cast every micro-batch (dlbench.te_fp8);
    -- MPT's tied output layer is not a TE module: bf16 (dlbench.fp8_output)
    fp8 = prec == "amp_fp8" and { scaling = "delayed", weight_cast = "micro", output = FOUNDRY_HEAD } or nil,
    measured = { tokens_per_s = tps, per = "gpu", mfu = mfu / 100, hfu = hfu / 100 },
    source = FOUNDRY .. ", table '" .. tbl .. "', row " .. size .. " / SeqLen " .. seq .. " / "
      .. gpus .. " GPUs",
    note = "Precision " .. prec .. ", MP mode " .. mpmode .. ", FSDP " .. shard
      .. ", activation checkpointing " .. tostring(ckpt) .. "; MFU/HFU per the README formula",
  }
end
local H_L = "H100 80GB BF16 (Large Scale, >= 128 GPUs)"
local H = "H100 80GB BF16"
local H8 = "H100 80GB FP8"
local A80 = "A100 80GB with 1600 Gbps node-node interconnect (RoCE)"
local A40 = "A100 40GB with 1600 Gbps node-node interconnect (RoCE)"
lf(H_L, "70b", 2048, 512, 41.25, 55.0, 8, 1, 4096, 1007, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 64862437376)
lf(H_L, "7b", 2048, 512, 42.2, 42.2, 6, 1, 3072, 9670, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 6658859008)
lf(H_L, "1b", 2048, 512, 36.65, 36.65, 12, 1, 6144, 39837, "amp_bf16", "DEFAULT", "SHARD_GRAD_OP", false, 1315950592)
lf(H, "70b", 2048, 64, 42.57, 56.76, 8, 4, 2048, 1039, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 64862437376)
lf(H, "30b", 8192, 8, 29.92, 39.9, 1, 21, 168, 1384, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 30019254272)
lf(H, "30b", 2048, 8, 38.11, 50.82, 3, 21, 504, 2002, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 29975214080)
lf(H, "13b", 32768, 8, 31.68, 42.24, 1, 3, 24, 1976, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 13011240960)
lf(H, "13b", 2048, 8, 39.79, 39.79, 2, 1, 16, 4792, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 12853954560)
lf(H, "7b", 65536, 8, 28.59, 38.13, 1, 2, 16, 1956, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 6918905856)
lf(H, "7b", 8192, 8, 37.14, 49.52, 8, 2, 128, 6935, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 6684024832)
lf(H, "7b", 2048, 8, 46.44, 46.44, 6, 1, 48, 10643, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 6658859008)
lf(H, "3b", 512, 8, 46.32, 46.32, 40, 6, 1920, 27965, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 2647905280)
lf(H, "1b", 16384, 8, 35.22, 35.22, 2, 4, 64, 19649, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 1345310720)
lf(H, "760m", 2048, 8, 34.9, 34.9, 24, 2, 384, 63147, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 760470528)
lf(H8, "3b", 2048, 8, 27.7, 27.7, 10, 6, 480, 30586, "amp_fp8", "DEFAULT", "FULL_SHARD", false, 2651837440)
lf(H8, "1b", 8192, 8, 20.71, 20.71, 2, 4, 64, 32010, "amp_fp8", "DEFAULT", "FULL_SHARD", false, 1328533504)
lf(A80, "70b", 2048, 64, 53.33, 71.1, 8, 4, 2048, 410, "bf16", "PURE", "FULL_SHARD", true, 64862437376)
lf(A80, "30b", 2048, 8, 55.3, 73.74, 3, 21, 504, 916, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 29975214080)
lf(A80, "13b", 8192, 8, 56.07, 74.76, 5, 3, 120, 1795, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 12885411840)
lf(A80, "7b", 32768, 8, 49.46, 65.94, 2, 2, 32, 1672, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 6784688128)
lf(A80, "7b", 2048, 8, 64.23, 64.23, 6, 2, 96, 4641, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 6658859008)
lf(A80, "3b", 4096, 8, 60.53, 60.53, 5, 6, 240, 9457, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 2657080320)
lf(A80, "1b", 2048, 8, 59.86, 59.86, 14, 4, 448, 20513, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 1315950592)
lf(A80, "760m", 65536, 8, 45.34, 60.45, 1, 2, 16, 4143, "amp_bf16", "DEFAULT", "FULL_SHARD", true, 857988096)
lf(A80, "350m", 2048, 8, 51.62, 51.62, 32, 2, 512, 58782, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 355985408)
lf(A80, "125m", 16384, 8, 50.61, 50.61, 4, 2, 64, 60040, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 136321536)
lf(A80, "125m", 2048, 8, 44.79, 44.79, 40, 2, 640, 142830, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 125311488)
lf(A80, "125m", 512, 8, 42.56, 42.56, 128, 2, 2048, 165681, "amp_bf16", "DEFAULT", "FULL_SHARD", false, 124131840)
lf(A40, "70b", 2048, 128, 48.91, 65.21, 4, 1, 512, 376, "bf16", "PURE", "FULL_SHARD", true, 64862437376)
lf(A40, "30b", 2048, 128, 52.25, 69.66, 6, 1, 768, 865, "bf16", "PURE", "FULL_SHARD", true, 29975214080)
lf(A40, "13b", 2048, 64, 52.04, 69.39, 16, 1, 1024, 1976, "bf16", "PURE", "FULL_SHARD", true, 12853954560)
lf(A40, "7b", 4096, 8, 50.11, 66.82, 6, 4, 192, 3366, "bf16", "PURE", "FULL_SHARD", true, 6667247616)
lf(A40, "3b", 2048, 8, 57.82, 57.82, 5, 8, 320, 10065, "bf16", "PURE", "FULL_SHARD", false, 2651837440)
lf(A40, "1b", 8192, 8, 55.29, 55.29, 2, 8, 128, 13474, "bf16", "PURE", "FULL_SHARD", false, 1328533504)
lf(A40, "350m", 2048, 8, 49.17, 49.17, 16, 4, 512, 55995, "bf16", "PURE", "FULL_SHARD", false, 355985408)
lf(A40, "125m", 32768, 8, 47.27, 47.27, 1, 4, 32, 32651, "bf16", "PURE", "FULL_SHARD", false, 148904448)
lf(A40, "125m", 2048, 128, 38.86, 38.86, 26, 1, 3328, 123936, "bf16", "PURE", "FULL_SHARD", false, 125311488)


---------------------------------------------------------------------------------------
-- NVIDIA NeMo, docs/source/performance/performance_summary.md at commit 070a0bb
-- ("Performance Benchmarks", Pretraining): NeMo 24.07 container, DGX-H100, FP8
-- (Transformer Engine). Columns: Model, #-GPUs, GBS, MBS, Sequence Length, TP, PP, CP, VP,
-- Tokens / sec / GPU, Model TFLOP / sec / GPU. dp = GPUs / (TP x PP x CP) and grad_accum
-- = GBS / (dp x MBS) are arithmetic on those columns. Model TFLOP/s are model FLOPs (no
-- recompute), counted against the fp8 throughput. Architectures: GPT3-5B / 20B from
-- NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/{5b,20b}.yaml
-- (24 x 4096 x 32 heads; 44 x 6144 x 48 heads; FFN 4h; GPT-2 BPE vocabulary 50257,
-- padded to a multiple of 128 in NeMo), GPT3-175B = GPT-3; LLAMA2 = Meta's Llama 2
-- (the llama builder's presets); LLAMA3 = Meta's Llama 3 configs (8B: 32 x 4096, 32
-- heads, 8 KV heads, FFN 14336; 70B: 80 x 8192, 64 heads, 8 KV heads, FFN 28672;
-- vocabulary 128256).
---------------------------------------------------------------------------------------
local NEMO = "NVIDIA/NeMo docs/source/performance/performance_summary.md (commit 070a0bb)"
local NEMO_ARCH = {
  ["GPT3-5B"] = { "gpt", { layers = 24, hidden = 4096, heads = 32, context = 2048 }, 5e9 },
  ["GPT3-20B"] = { "gpt", { layers = 44, hidden = 6144, heads = 48, context = 2048 }, 20e9 },
  ["GPT3-175B"] = { "gpt", { layers = 96, hidden = 12288, heads = 96, context = 2048 }, 175e9 },
  ["LLAMA2-7B"] = { "llama", { size = "7b" }, 6738415616 },
  ["LLAMA2-13B"] = { "llama", { size = "13b" }, 13015864320 },
  ["LLAMA2-70B"] = { "llama", { size = "70b" }, 68976648192 },
  ["LLAMA3-8B"] = { "llama", { layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336,
    vocab = 128256 }, 8.03e9 },
  ["LLAMA3-70B"] = { "llama", { layers = 80, hidden = 8192, heads = 64, kv_heads = 8, ffn = 28672,
    vocab = 128256 }, 70.6e9 },
}
local function nemo(model, gpus, gbs, mbs, seq, tp, pp, cp, vp, tps, tflops)
  local a = NEMO_ARCH[model]
  local opts = { seq = seq }
  for k, v in pairs(a[2]) do opts[k] = v end
  local dp = div(gpus, tp * pp * cp)
  add {
    id = "nemo-" .. model:lower() .. "-s" .. seq .. "-" .. gpus .. "xh100-fp8",
    model = { builder = a[1], opts = opts },
    params = a[3],
    hw = "H100-SXM", devices = gpus,
    layout = { dp = dp, tp = tp, pp = pp, cp = cp > 1 and cp or nil, micro_batch = mbs,
      grad_accum = div(gbs, dp * mbs), global_batch = gbs,
      schedule = vp > 1 and "interleaved" or nil, interleave = vp > 1 and vp or nil },
    precision = "fp8", seq = seq, framework = "NeMo 24.07 (Megatron-Core, Transformer Engine)",
    measured = { tokens_per_s = tps, per = "gpu", tflops_per_gpu = tflops, flops_kind = "model" },
    source = NEMO .. ", Pretraining table, row " .. model .. " / " .. gpus .. " GPUs",
    note = "FP8 on DGX-H100; recompute and sequence-parallel settings are not in the table"
      .. (model:sub(1, 4) == "LLAM" and "; params: HuggingFace / Meta config counts" or
        "; params: nominal size"),
  }
end
nemo("GPT3-5B", 64, 2048, 4, 2048, 1, 1, 1, 1, 22521, 736)
nemo("GPT3-20B", 64, 256, 2, 2048, 2, 1, 1, 1, 5851, 750)
nemo("GPT3-175B", 128, 256, 1, 2048, 4, 8, 1, 6, 726, 782)
nemo("GPT3-175B", 512, 2048, 2, 2048, 4, 8, 1, 6, 782, 842)
nemo("LLAMA2-7B", 8, 128, 1, 4096, 1, 1, 1, 1, 16847, 776)
nemo("LLAMA2-13B", 16, 128, 1, 4096, 1, 4, 1, 10, 8646, 754)
nemo("LLAMA2-70B", 64, 128, 1, 4096, 4, 4, 1, 20, 1707, 759)
nemo("LLAMA3-8B", 8, 128, 1, 8192, 1, 1, 2, 1, 12036, 697)
nemo("LLAMA3-70B", 64, 128, 1, 8192, 4, 4, 2, 5, 1533, 738)

---------------------------------------------------------------------------------------
-- NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/README.md at
-- commit 291f0d0, "Training performance results" (pytorch-21.03 NGC container, 100
-- iterations of launch.py --mode benchmark_training): ResNet-50 v1.5 at 224x224, img/s of
-- the whole node. Per-GPU batch from PyTorch/Classification/ConvNets/configs.yml (commit
-- 097c7ff): 256 for AMP (channels-last) and TF32 on DGX A100, 256 for AMP and 112 for FP32
-- on DGX-1V. Optimizer SGD with momentum 0.875. params: torchvision's ResNet-50 count.
---------------------------------------------------------------------------------------
local DLE_RN = "NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/README.md (commit 291f0d0)"
local function rn50(hw, system, gpus, prec, batch, ips)
  add {
    id = "dle-resnet50-" .. (prec == "mixed" and "amp" or prec) .. "-" .. gpus .. "x"
      .. (hw == "V100-SXM2-16GB" and "v100-16g" or "a100-80g"),
    model = { builder = "resnet", opts = { depth = 50, image = 224 } },
    params = 25557032,
    hw = hw, devices = gpus,
    layout = { dp = gpus, micro_batch = batch, global_batch = batch * gpus, grad_accum = 1 },
    precision = prec, framework = "PyTorch (NGC 21.03)",
    measured = { samples_per_s = ips, per = "system" },
    source = DLE_RN .. ", table 'Training performance: " .. system .. "', " .. gpus .. " GPU(s), "
      .. (prec == "mixed" and "mixed precision" or prec:upper()) .. " column",
    note = "per-GPU batch " .. batch .. " from configs.yml (commit 097c7ff); throughput includes "
      .. "data loading",
  }
end
rn50("A100-SXM4-80GB", "NVIDIA DGX A100 (8x A100 80GB)", 1, "tf32", 256, 938)
rn50("A100-SXM4-80GB", "NVIDIA DGX A100 (8x A100 80GB)", 1, "mixed", 256, 2470)
rn50("A100-SXM4-80GB", "NVIDIA DGX A100 (8x A100 80GB)", 8, "tf32", 256, 7248)
rn50("A100-SXM4-80GB", "NVIDIA DGX A100 (8x A100 80GB)", 8, "mixed", 256, 16621)
rn50("V100-SXM2-16GB", "NVIDIA DGX-1 16GB (8x V100 16GB)", 1, "fp32", 112, 367)
rn50("V100-SXM2-16GB", "NVIDIA DGX-1 16GB (8x V100 16GB)", 1, "mixed", 256, 1200)
rn50("V100-SXM2-16GB", "NVIDIA DGX-1 16GB (8x V100 16GB)", 8, "fp32", 112, 2855)
rn50("V100-SXM2-16GB", "NVIDIA DGX-1 16GB (8x V100 16GB)", 8, "mixed", 256, 8322)

---------------------------------------------------------------------------------------
-- NVIDIA DeepLearningExamples, PyTorch/LanguageModeling/BERT/README.md, the version whose
-- changelog ends "January 2022" (tables run in the pytorch:21.11-py3 NGC container),
-- "Training performance results": BERT-large pre-training (LAMB), sequences/s of all GPUs.
-- Checked number by number (all 12 rows below) in the copy of that README stored at
-- github.com/thelordsaves/DeepLearningExamples (a fork of NVIDIA/DeepLearningExamples),
-- commit ea2edf66ef50719d22432e2ef231453fa3f36fc5, same path. The upstream commit cited
-- before (23a6382) holds the March 2020 README (pytorch:19.07, DGX-1/DGX-2 only), which
-- has none of these tables and different DGX-1 numbers. Phase 1: sequence 128, 20 masked positions; phase 2:
-- sequence 512, 80 masked positions (the README's glossary). micro_batch is the "Batch
-- size / GPU" column, grad_accum the "Accumulation steps" column; their product is the
-- "Accumulated Batch size / GPU" column. params: the README's model table ("330M").
-- DGX-1 rows ran on V100 32 GB, counted as the V100 catalogue entry (same SXM2 part,
-- same peak and bandwidth; only the memory differs).
---------------------------------------------------------------------------------------
local DLE_BERT = "NVIDIA DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md, January 2022 "
  .. "version (pytorch:21.11-py3), as stored at thelordsaves/DeepLearningExamples (fork) commit "
  .. "ea2edf66ef50719d22432e2ef231453fa3f36fc5"
local function bert(hw, tbl, gpus, prec, seq, micro, accum, sps, where)
  local v100 = hw == "V100-SXM2-16GB"
  add {
    id = "dle-bert-large-s" .. seq .. "-" .. (prec == "mixed" and "amp" or prec) .. "-" .. gpus .. "x"
      .. (v100 and "v100-32g" or "a100-80g"),
    model = { builder = "bert", opts = { size = "large", seq = seq, masked = seq == 128 and 20 or 80 } },
    params = 330e6,
    hw = hw, devices = gpus,
    device = v100 and "V100-SXM2-32GB (DGX-1)" or nil,
    layout = { dp = gpus, micro_batch = micro, grad_accum = accum, global_batch = gpus * micro * accum },
    precision = prec, seq = seq, framework = "PyTorch (NGC 21.11)",
    measured = { samples_per_s = sps, per = "system" },
    source = DLE_BERT .. ", table '" .. tbl .. "', " .. (where or (gpus .. " GPU(s)"))
      .. ", sequence length " .. seq
      .. ", " .. (prec == "mixed" and "mixed precision" or prec:upper()) .. " throughput",
    note = "LAMB optimizer; sequences/s averaged over a few iterations"
      .. (v100 and "; micro_batch = accumulated batch / accumulation steps (columns 2 and 3)" or "")
      .. (seq == 512 and "; LDDL sequence binning in phase 2: the README's changelog "
        .. "(January 2022) says 'Binned pretraining for phase2 with LDDL using a bin size of "
        .. "64' (LDDL pads each batch only to its 64-token bin), so phase-2 sequences ran "
        .. "shorter than 512 tokens; the mean is not published" or ""),
  }
end
local BA = "Pre-training NVIDIA DGX A100 (8x A100 80GB)"
local BM = "Pre-training NVIDIA DGX A100 (8x A100 80GB) Multi-node Scaling"
local BV = "Pre-training NVIDIA DGX-1 With 32G"
bert("A100-SXM4-80GB", BA, 1, "mixed", 128, 256, 32, 580)
bert("A100-SXM4-80GB", BA, 1, "tf32", 128, 128, 64, 317)
bert("A100-SXM4-80GB", BA, 8, "mixed", 128, 256, 32, 4591)
bert("A100-SXM4-80GB", BA, 1, "mixed", 512, 32, 128, 210)
bert("A100-SXM4-80GB", BA, 8, "mixed", 512, 32, 128, 1657)
bert("A100-SXM4-80GB", BM, 256, "mixed", 128, 256, 1, 138294, "32 nodes x 8 GPUs")
bert("A100-SXM4-80GB", BM, 256, "mixed", 512, 32, 4, 49663, "32 nodes x 8 GPUs")
bert("V100-SXM2-16GB", BV, 1, "mixed", 128, 64, 64, 224)
bert("V100-SXM2-16GB", BV, 1, "fp32", 128, 32, 128, 50)
bert("V100-SXM2-16GB", BV, 8, "mixed", 128, 64, 64, 1746)
bert("V100-SXM2-16GB", BV, 1, "mixed", 512, 8, 256, 75)
bert("V100-SXM2-16GB", BV, 8, "mixed", 512, 8, 256, 586)


---------------------------------------------------------------------------------------
-- Google MaxText (AI-Hypercomputer/maxtext), MaxText/configs/v5e/README.md at commit
-- 0ed7bd5 ("High Performance Model Training Configs on TPU v5e"): TFLOP/sec/chip and MFU
-- of the 32B and 64B models on 1 and 32 v5e-256 slices (256 chips each; MFU against 197
-- TFLOP/s bf16). The runs are MaxText/configs/v5e/{32b,64b}.sh: global_parameter_scale 32
-- / 64, per_device_batch_size 4 / 2 (stored versions, commits 0777510 / 0ea0637),
-- max_target_length 2048, remat_policy full, flash attention, synthetic data; FSDP over
-- the chips of a slice, data parallel across slices. Architecture: MaxText/configs/
-- base.yml (llama2 decoder block: RMSNorm, SwiGLU, rotary; base_emb_dim 2048, 16 heads of
-- head_dim 128, base_mlp_dim 7168, 16 layers, vocab 32000, untied) scaled by
-- get_individual_scales in pyconfig.py: scale 32 -> emb 8192, 64 heads, mlp 28672, 32
-- layers; scale 64 -> the same with 64 layers. (Scales 16 and 128 give heads x 128 !=
-- d_model, which the llama builder cannot express; those columns are left out.)
---------------------------------------------------------------------------------------
local MAXTEXT = "AI-Hypercomputer/maxtext MaxText/configs/v5e/README.md (commit 0ed7bd5)"
local function maxtext(size, layers, pdbs, slices, tflops, mfu)
  local chips = 256 * slices
  add {
    id = "maxtext-" .. size .. "-" .. slices .. "xv5e-256",
    model = { builder = "llama", opts = { layers = layers, hidden = 8192, heads = 64, kv_heads = 64,
      ffn = 28672, vocab = 32000, seq = 2048 } },
    params = size == "32b" and 32e9 or 64e9,
    hw = "TPUv5e", devices = chips,
    layout = { dp = chips, zero = 3, micro_batch = pdbs, grad_accum = 1, global_batch = pdbs * chips,
      recompute = "full" },
    precision = "mixed_bf16", seq = 2048, framework = "JAX (MaxText)",
    measured = { tflops_per_gpu = tflops, flops_kind = "model", mfu = mfu },
    source = MAXTEXT .. ", row '" .. slices .. "x v5e-256', columns " .. size:upper()
      .. " TFLOP/sec/chip and " .. size:upper() .. " MFU",
    note = "zero = 3 stands for FSDP within a slice (data parallel across slices); bf16 "
      .. "activations with float32 weights (base.yml weight_dtype); params: the nominal "
      .. "size (built: " .. (size == "32b" and "31.7B" or "62.8B") .. ")",
  }
end
maxtext("32b", 32, 4, 1, 132, 0.6686)
maxtext("32b", 32, 4, 32, 119, 0.6040)
maxtext("64b", 64, 2, 1, 118, 0.5990)
maxtext("64b", 64, 2, 32, 99, 0.5018)

---------------------------------------------------------------------------------------
-- TBD (Zhu et al. 2018, "Benchmarking and Analyzing Deep Neural Network Training",
-- IISWC; /work/shared/seeds/001): single Quadro P4000 (8 GB), fp32, throughput quoted in
-- the text of §IV.B "Performance Analysis", 1) Throughput (the figures are plots). The TBD builders model the suite's networks.
---------------------------------------------------------------------------------------
local TBD = "Zhu et al. 2018 (TBD, IISWC; seeds/001_46bf4542e5f75352.txt)"
add {
  id = "tbd-faster-rcnn-tf-1xp4000",
  model = { builder = "faster_rcnn", opts = {} },
  hw = "Quadro-P4000", devices = 1,
  layout = { micro_batch = 1, global_batch = 1 },
  precision = "fp32", framework = "TensorFlow",
  measured = { samples_per_s = 2.3, per = "system" },
  source = TBD .. " §IV.B 1) Throughput: 'Both TensorFlow and MXNet implementations achieve a "
    .. "throughput of 2.3 images per second' for Faster R-CNN (one image per iteration)",
  note = "params not given in the text; the faster_rcnn builder is an approximation of TBD's "
    .. "ResNet-101 Faster R-CNN (docs/models.md, Approximations)",
}
add {
  id = "tbd-seq2seq-nmt-tf-b128-1xp4000",
  model = { builder = "seq2seq", opts = {} },
  hw = "Quadro-P4000", devices = 1,
  layout = { micro_batch = 128, global_batch = 128 },
  precision = "fp32", framework = "TensorFlow (NMT)",
  measured = { samples_per_s = 365, per = "system" },
  source = TBD .. " §IV.B Observation 3: TensorFlow Seq2Seq (NMT) trains at mini-batch 128 "
    .. "within 8 GB and reaches '365 samples per second' (MXNet Sockeye: 229 at 64)",
  note = "params not given in the text; seq2seq builder = TF NMT IWSLT'15 En-Vi as in TBD "
    .. "(source length 50); Sockeye's 229 samples/s is left out (a different model)",
}


---------------------------------------------------------------------------------------
-- pytorch/torchtitan docs/performance.md at commit 0413364: Llama 3 (8B, 70B; sequence
-- 8192) and Llama 2 (13B, 70B; sequence 4096) with FSDP2 on 64 A100 80 GB GPUs; local
-- batch per GPU as in the tables (global = 64 x local). WPS is tokens/s per GPU; MFU as
-- computed in torchtitan's train.py (6 x non-embedding params + 12 l h q t per token,
-- after PaLM), against 312 TFLOP/s. "selective layer" activation checkpointing is recorded
-- as recompute = "selective" (with recompute_every, below), "selective op" as
-- recompute = "selective_op" (torchtitan's per-op policy, selective_ac_option "op"; the
-- planner's policy of that name; recorded so after the errors were seen, issue [18]).
---------------------------------------------------------------------------------------
local TITAN = "pytorch/torchtitan docs/performance.md (commit 0413364)"
local TITAN_ARCH = {
  ["llama3-8b"] = { { layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336,
    vocab = 128256, seq = 8192 }, 8.03e9, "Llama 3 performance numbers", "8B" },
  ["llama3-70b"] = { { layers = 80, hidden = 8192, heads = 64, kv_heads = 8, ffn = 28672,
    vocab = 128256, seq = 8192 }, 70.6e9, "Llama 3 performance numbers", "70B" },
  ["llama2-13b"] = { { size = "13b", seq = 4096 }, 13015864320, "Llama 2 performance numbers", "13B" },
  ["llama2-70b"] = { { size = "70b", seq = 4096 }, 68976648192, "Llama 2 performance numbers", "70B" },
}
local function titan(model, batch, ac, wps, mfu)
  local a = TITAN_ARCH[model]
  local opts = {}
  for k, v in pairs(a[1]) do opts[k] = v end
  add {
    id = "torchtitan-" .. model .. "-b" .. batch .. "-" .. ac:gsub(" ", "-") .. "-64xa100",
    model = { builder = "llama", opts = opts },
    params = a[2],
    hw = "A100-SXM4-80GB", devices = 64,
    layout = { dp = 64, zero = 3, micro_batch = batch, grad_accum = 1, global_batch = 64 * batch,
      recompute = (ac == "full" and "full") or (ac == "selective op" and "selective_op")
        or (ac ~= "no" and "selective") or nil,
      -- "selective layer" is torchtitan's layer-level selective AC: every k-th
      -- TransformerBlock fully checkpointed, k = selective_ac_option, whose default is "2"
      -- ("2 = checkpoint every other layer", torchtitan/config_manager.py of 2024); the page
      -- does not state the option, so the default is assumed
      recompute_every = ac == "selective layer" and 2 or nil },
    precision = "mixed_bf16", seq = opts.seq, framework = "PyTorch FSDP2 (torchtitan)",
    measured = { tokens_per_s = wps, per = "gpu", mfu = mfu },
    source = TITAN .. ", table '" .. a[3] .. "', row " .. a[4] .. " / batch " .. batch
      .. " / activation checkpointing '" .. ac .. "'",
    note = "bf16 mixed precision assumed (torchtitan's default; the page does not say); "
      .. "params: Meta / HuggingFace config counts",
  }
end
titan("llama3-8b", 1, "selective layer", 2904, 0.568)
titan("llama3-8b", 1, "selective op", 2973, 0.582)
titan("llama3-70b", 1, "full", 331, 0.517)
titan("llama2-13b", 2, "no", 2162, 0.611)
titan("llama2-13b", 2, "selective layer", 1914, 0.541)
titan("llama2-13b", 2, "selective op", 1904, 0.538)
titan("llama2-70b", 1, "selective op", 355, 0.508)
titan("llama2-70b", 2, "full", 353, 0.505)

---------------------------------------------------------------------------------------
-- MLPerf Training v1.0, NVIDIA closed-division submissions on one DGX A100
-- (mlcommons/training_results_v1.0, commit 8200377; NVIDIA/systems/
-- dgxa100_ngc21.05_{mxnet,pytorch}.json: 8x A100-SXM4-80GB 400 W). The official score is
-- time to train; the run logs also print measured throughput, which is what these rows
-- hold (one run each, the value as logged).
---------------------------------------------------------------------------------------
local MLPERF10 = "MLPerf Training v1.0, NVIDIA, system dgxa100_ngc21.05_"
add {
  id = "mlperf-v1.0-nvidia-resnet50-mxnet-8xa100",
  model = { builder = "resnet", opts = { depth = 50, image = 224 } },
  params = 25557032,
  hw = "A100-SXM4-80GB", devices = 8,
  layout = { dp = 8, micro_batch = 408, grad_accum = 1, global_batch = 3264 },
  precision = "mixed", framework = "MXNet (NGC 21.05, DALI)",
  measured = { samples_per_s = 26737.207176670036, per = "system" },
  source = MLPERF10 .. "mxnet, mlcommons/training_results_v1.0 NVIDIA/results/"
    .. "dgxa100_ngc21.05_mxnet/resnet/result_0.txt: MLLOG 'throughput' after epoch 10 "
    .. "(tracked_stats step 10, imgs_sec 26737.207176670036)",
  note = "train_imagenet.py --batch-size 408 per GPU, --dtype float16, NHWC, fused BN+ReLU, "
    .. "LARS (sgdwfastlars), DALI input; neighbouring epochs log 26733..26795 img/s; "
    .. "params: torchvision's ResNet-50 count (v1b = v1.5)",
}
add {
  id = "mlperf-v1.0-nvidia-bert-large-pytorch-8xa100",
  model = { builder = "bert", opts = { size = "large", seq = 512, masked = 76 } },
  params = 330e6,
  hw = "A100-SXM4-80GB", devices = 8,
  layout = { dp = 8, micro_batch = 56, grad_accum = 1, global_batch = 448 },
  precision = "mixed", seq = 512, framework = "PyTorch (NGC 21.05)",
  measured = { samples_per_s = 2193.410654407418, per = "system" },
  source = MLPERF10 .. "pytorch, mlcommons/training_results_v1.0 NVIDIA/results/"
    .. "dgxa100_ngc21.05_pytorch/bert/result_0.txt: final line "
    .. "'training_sequences_per_second': 2193.410654407418 (e2e_time 1462.36 s)",
  note = "run_pretraining.py --train_batch_size=56 --max_seq_length=512 "
    .. "--max_predictions_per_seq=76 --fp16 --unpad --fused_mha: padding tokens are "
    .. "removed, so the run computes fewer tokens than 512 per sequence (dense attention "
    .. "over 512 overestimates its FLOPs); LAMB; params: BERT-large's nominal 330M",
}

-- The expert- and context-parallel rows (issue [21]): validation_runs_moe.lua, appended here.
do
  local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  for _, r in ipairs(dofile(here .. "/validation_runs_moe.lua")) do add(r) end
end

---------------------------------------------------------------------------------------
-- Each row's validation role, stored with the row (issue [19] item 5): "fit" rows may
-- calibrate, "held" rows are only scored. Fixed: this is the split notebooks/validation.lua
-- used up to commit 841b5a7 (every third row in id order, i % 3 == 1), written out so that
-- adding rows never reshuffles it. A row added later states its own role, chosen before
-- its error is seen (the vTrain rows: a hash of the row's key, notebooks/data/vtrain/).
---------------------------------------------------------------------------------------
local FIT = {
["dle-bert-large-s128-amp-1xa100-80g"] = "fit",
  ["dle-bert-large-s128-amp-8xa100-80g"] = "fit",
  ["dle-bert-large-s128-tf32-1xa100-80g"] = "fit",
  ["dle-bert-large-s512-amp-256xa100-80g"] = "fit",
  ["dle-resnet50-amp-1xa100-80g"] = "fit",
  ["dle-resnet50-amp-8xv100-16g"] = "fit",
  ["dle-resnet50-tf32-1xa100-80g"] = "fit",
  ["foundry-mpt-125m-s2048-128xa100-40g"] = "fit",
  ["foundry-mpt-125m-s512-8xa100-80g"] = "fit",
  ["foundry-mpt-13b-s32768-8xh100"] = "fit",
  ["foundry-mpt-1b-s2048-512xh100"] = "fit",
  ["foundry-mpt-1b-s8192-8xh100-fp8"] = "fit",
  ["foundry-mpt-30b-s2048-8xh100"] = "fit",
  ["foundry-mpt-350m-s2048-8xa100-80g"] = "fit",
  ["foundry-mpt-3b-s4096-8xa100-80g"] = "fit",
  ["foundry-mpt-70b-s2048-512xh100"] = "fit",
  ["foundry-mpt-760m-s2048-8xh100"] = "fit",
  ["foundry-mpt-7b-s2048-8xa100-80g"] = "fit",
  ["foundry-mpt-7b-s4096-8xa100-40g"] = "fit",
  ["korthikanti-175b-full-recompute-64xa100"] = "fit",
  ["korthikanti-1t-selective-sp-512xa100"] = "fit",
  ["korthikanti-530b-full-recompute-280xa100"] = "fit",
  ["maxtext-32b-1xv5e-256"] = "fit",
  ["maxtext-64b-32xv5e-256"] = "fit",
  ["megatron-t1-1008.0b-3072xa100"] = "fit",
  ["megatron-t1-3.6b-64xa100"] = "fit",
  ["megatron-t1-529.6b-2520xa100"] = "fit",
  ["megatron-t2-ptd-174.6b-1536xa100"] = "fit",
  ["megatron-t2-ptd-529.6b-1120xa100"] = "fit",
  ["megatron-t2-zero3-174.6b-1536xa100"] = "fit",
  ["megatron-t2-zero3-529.6b-1120xa100"] = "fit",
  ["mlperf-v1.0-nvidia-bert-large-pytorch-8xa100"] = "fit",
  ["mtnlg-530b-2800xa100"] = "fit",
  ["nemo-gpt3-175b-s2048-512xh100-fp8"] = "fit",
  ["nemo-llama2-13b-s4096-16xh100-fp8"] = "fit",
  ["nemo-llama3-70b-s8192-64xh100-fp8"] = "fit",
  ["tbd-faster-rcnn-tf-1xp4000"] = "fit",
  ["torchtitan-llama2-13b-b2-selective-layer-64xa100"] = "fit",
  ["torchtitan-llama2-70b-b2-full-64xa100"] = "fit",
  ["torchtitan-llama3-8b-b1-selective-op-64xa100"] = "fit",
}
for _, r in ipairs(rows) do
  if r.role == nil then r.role = FIT[r.id] or "held" end
end

return rows
