-- notebooks/data/memory_measured.lua — published MEASURED peak GPU memory of fine-tuning
-- runs (issue [18] item 4): LoRA, Q-LoRA and LoRA with trainable embeddings, one GPU.
-- Read by tests/lua/test_finetune_memory.lua, which predicts every row with dlbench
-- (dlb.roofline.time(...).footprint, the framework memory schedule) and checks each row's
-- error against what this file says of it, and by tests/bench/bench_finetune_memory.lua.
--
-- Source: QwenLM/Qwen, README.md, "Profiling of Memory and Speed" (the Qwen-1 repository,
-- https://github.com/QwenLM/Qwen, section "Finetuning"): "We profile the GPU memory and
-- training speed of both LoRA (LoRA (emb) refers to training the embedding and output
-- layer, while LoRA has no trainable embedding and output layer) and Q-LoRA in the setup of
-- single-GPU training. In this test, we experiment on a single A100-SXM4-80G GPU, and we use
-- CUDA 11.8 and Pytorch 2.0. Flash attention 2 is applied. We uniformly use a batch size of
-- 1 and gradient accumulation of 8." The table gives memory (GB) and s/iter per sequence
-- length 256 ... 8192; the memory figures are copied below unchanged. The README does not
-- say how memory was read (nvidia-smi or torch's allocator statistics).
--
-- The set-up the rows share, from the same repository's finetune.py and
-- finetune/finetune_lora_single_gpu.sh, finetune_qlora_single_gpu.sh (read for this file):
-- AdamW (optim adamw_torch), --gradient_checkpointing (every block), LoRA r = 64, alpha 16
-- on target_modules ["c_attn", "c_proj", "w1", "w2"] (c_proj matches the attention's and
-- the MLP's output projections: every linear layer of a block). LoRA: --bf16, no DeepSpeed.
-- Q-LoRA: the Qwen-*-Chat-Int4 GPTQ checkpoints (GPTQConfig(bits=4)), --fp16 with
-- DeepSpeed ZeRO-2 on the one GPU (finetune/ds_config_zero2.json: overlap_comm, reduce
-- bucket 2e8), and peft's prepare_model_for_kbit_training, which leaves a GPTQ model's
-- unquantised weights in the engine's fp16 (see M.setup). LoRA (emb): the
-- base (non-chat) models with modules_to_save = ["wte", "lm_head"].
-- In dlbench: dlb.models.llama with the shapes below (qkv_bias; Qwen-1 is Llama-shaped:
-- RMSNorm, SwiGLU, rotary, untied output), recompute = 1, adamw, LoRA on q, k, v, out, gate,
-- up, down, under the framework profile of each script (M.setup: hf-trainer with
-- mixed_bf16, or hf-deepspeed with mixed (fp16's bytes)); M.build makes a row's graph.
-- Known differences: separate q, k, v adapters instead of one on the fused c_attn (+2 r d
-- parameters per block: +0.27 GB at 7B with Adam's 16 bytes each). The adapters count 16 B
-- per parameter (mixed precision's 2 + 2 + 12 = fp32 weight, gradient and two moments):
-- PEFT before 0.6 (one tuners/lora.py; _replace_module moves the adapters to the device
-- only) kept them fp32, as the PyTorch 2.0 era of these runs suggests; later PEFT casts them
-- to the base weight's bf16 (8 B), 0.5 GB less at 1.8B, 2 GB at 14B.
-- Model shapes: the Qwen-1 config.json files on the Hugging Face hub (Qwen/Qwen-1_8B,
-- Qwen/Qwen-7B, Qwen/Qwen-14B, Qwen/Qwen-72B): hidden_size, num_hidden_layers,
-- num_attention_heads, intermediate_size / 2 (w1 and w2 each), vocab_size, untied output,
-- bias on c_attn.
--
-- expect: "within" (|error| <= 10%), "under" or "over" (outside 10%, in that direction;
-- `gap` says why). The test fails when a row moves out of what is written here.
-- expect_before[i]: the band cell i had before a later change moved it (the change named
-- below, "The loss's two moments").
local M = {}

M.source = "QwenLM/Qwen README.md, Profiling of Memory and Speed (single A100-SXM4-80G, "
  .. "CUDA 11.8, PyTorch 2.0, FlashAttention-2, batch 1, gradient accumulation 8)"
M.hw = "A100-SXM4-80GB"
M.seqs = { 256, 512, 1024, 2048, 4096, 8192 }

M.models = {
  ["qwen-1.8b"] = { layers = 24, hidden = 2048, heads = 16, kv_heads = 16, ffn = 5504, vocab = 151936 },
  ["qwen-7b"] = { layers = 32, hidden = 4096, heads = 32, kv_heads = 32, ffn = 11008, vocab = 151936 },
  ["qwen-14b"] = { layers = 40, hidden = 5120, heads = 40, kv_heads = 40, ffn = 13696, vocab = 152064 },
  ["qwen-72b"] = { layers = 80, hidden = 8192, heads = 64, kv_heads = 64, ffn = 24576, vocab = 152064 },
}

-- What each method is in dlbench (the graph and its stats options).
-- LoRA and LoRA (emb): the Trainer with --bf16 (amp autocast, no DeepSpeed): profile
-- hf-trainer. Q-LoRA: the Trainer with --fp16 and DeepSpeed ZeRO-2 (the engine casts the model
-- to fp16; Qwen's finetune/ds_config_zero2.json sets overlap_comm true and reduce_bucket_size
-- 2e8: two gradient buffers of 2e8 elements): profile hf-deepspeed derived with those.
-- Set-up correction (issue [18], this stop): the embedding and output layer of the Q-LoRA
-- runs were counted in fp32 (prepare_model_for_kbit_training's cast); PEFT skips that cast
-- for GPTQ models (peft/utils/other.py: `if not is_gptq_quantized:` around it) and the
-- DeepSpeed engine casts the module to fp16 (module.half()), so they are fp16 here.
-- accumulation = 8: the README's "gradient accumulation of 8" (the scripts'
-- --gradient_accumulation_steps 8), given to g:stats when the framework schedule became a
-- walk over the backward pass (branch mem-sched): from the second micro-batch on every
-- gradient is live with the activations. Added after seeing these rows' errors under the
-- walk without it (48 of 60 within 10%, median 6.4%); the set-up fact was in this file's
-- source line before.
M.setup = {
  stats = { precision = "mixed_bf16", recompute = 1, optimizer = "adamw", framework = "hf-trainer",
    schedule = "walk", accumulation = 8 },
  qlora_stats = { precision = "mixed", recompute = 1, optimizer = "adamw", framework = "hf-deepspeed",
    schedule = "walk", accumulation = 8 },
  qlora_buckets = { count = 2, elements = 2e8 },     -- Qwen's ds_config_zero2.json
  lora = { rank = 64, targets = { "q", "k", "v", "out", "gate", "up", "down" } },
  qlora_dtype = "int4",                    -- GPTQ 4-bit, groups of 128
  emb_trainable = { "embed_tokens", "lm_head/w" },      -- LoRA (emb)
  -- PEFT's modules_to_save: bf16 copies train beside the frozen originals (ModulesToSaveWrapper
  -- deep-copies the module), torch AdamW keeps their states in bf16 (exp_avg = zeros_like(p))
  emb_as = { copy = true, own_type = true },
  -- The model's RMSNorm (branch rmsnorm-upcast): hf-trainer and hf-deepspeed state that
  -- transformers' own RMSNorm classes keep their fp32 upcast for the backward (norm.upcast,
  -- graphs/step/train.c). Qwen-1's remote code (modeling_qwen.py, trust_remote_code) calls
  -- flash-attn's fused rms_norm when `from flash_attn.ops.rms_norm import rms_norm` succeeds
  -- (the separately built csrc/layer_norm extension) and an eager upcasting RMSNorm
  -- otherwise; the README does not say which these runs had. Unknown: today's count (the
  -- fused norm's saved tensors) is kept, and said so here.
  norm = { upcast = false, source = "Qwen-1 modeling_qwen.py RMSNorm: flash-attn's rms_norm "
    .. "when importable, else _norm(x.float()).type_as(x) * weight; which the README's runs had "
    .. "is not stated: the fused norm's count kept" },
}

-- The graph and stats options of one row at sequence length seq (the test and the benchmark
-- both predict through this): returns graph, stats options.
function M.build(dlb, row, seq)
  local m = { qkv_bias = true, batch = 1, seq = seq }
  for k, v in pairs(M.models[row.model]) do m[k] = v end
  m.lora = M.setup.lora
  local st = {}
  for k, v in pairs(M.setup.stats) do st[k] = v end
  local fields = { norm = M.setup.norm }
  if row.method == "qlora" then
    m.quantize = M.setup.qlora_dtype
    st = {}
    for k, v in pairs(M.setup.qlora_stats) do st[k] = v end
    local mem = {}
    for k, v in pairs(dlb.frameworks.get(st.framework).memory) do mem[k] = v end
    mem.buckets = M.setup.qlora_buckets
    fields.memory = mem
  end
  st.framework = dlb.frameworks.derive(st.framework, fields)
  local g = dlb.models.llama(m)
  if row.method == "lora_emb" then
    g:stats(st)             -- LoRA freezes the base weights at the first analysis
    g:unfreeze(M.setup.emb_trainable, M.setup.emb_as)
  end
  return g, st
end

-- Why cells missed, by class, and what is counted now (issue [18], this stop). Every rule
-- below was looked for after seeing the errors of the last stop (37 of 60 within 10%, all
-- misses under), then taken from its source and applied to every row of its stack; none is
-- fitted to a cell. The transcribed measurements are unchanged (checked against the README).
-- * long sequences under (LoRA, Q-LoRA): the model code's unfused loss (logits, a shifted
--   contiguous copy, the fp32 upcast and fp32 log_softmax under autocast: 12 B per logit
--   element; 6 B in the fp16 DeepSpeed engine; the fused graph counts 4).
-- * a constant under, largest share on the 1.8B model: the CUDA context with PyTorch's
--   kernels, 1343 MiB as nvidia-smi shows it (Hugging Face docs, "Model training
--   anatomy"); comparing with it assumes the README read memory as nvidia-smi does (it
--   does not say); for need and fits it is device memory the process holds either way.
-- * LoRA (emb) over at mid lengths, under once the rest is counted: PEFT's modules_to_save
--   trains bf16 copies beside the frozen originals, torch AdamW keeps their moments in bf16
--   (g:unfreeze{copy = true, own_type = true}: 2 + 2 + 2 + 4 B per parameter instead of
--   in-place mixed precision's 2 + 2 + 12), and foreach AdamW's step holds one more
--   moment-sized list (exp_avg_sq_sqrt), the peak of the short sequences.
-- * Q-LoRA: a set-up correction: the embedding and output layer are fp16, not fp32 (PEFT
--   skips prepare_model_for_kbit_training's fp32 cast for GPTQ models; DeepSpeed's engine
--   casts the module to fp16); ZeRO-2's two contiguous gradient buffers (2 x 2e8 fp16) and
--   its step's fp32 copy of the gradient partition (4 B per trainable parameter), the peak
--   of the short sequences on 14B and 72B.
-- The loss's two moments (branch walk-loss, issue [18] item 4; looked for after seeing
-- torchtune's packed row at -12.3% under the walk, not after these cells): under
-- schedule = "walk" the loss's forward and backward moments are each counted at their own op
-- of the walked step (dlb_analysis_step_loss: the live bytes while softmax_xent and its
-- backward run, the graph's two logit-sized tensors replaced by the stack's loss tensors at
-- that moment, every gradient held under accumulation = 8), where before the stack's loss
-- bytes were added to the graph schedule's peak, which with checkpointing and trainable
-- embeddings (LoRA (emb)) is not the loss's moment. The per-element counts are unchanged for
-- both loss paths here (autocast 12 B at both moments; DeepSpeed fp16 3 x 2 B at both). Moved:
-- the LoRA (emb) cells at 1.8B (256-1024: 12.5 / 12.5 / 12.7 -> 13.1 / 12.7 / 13.0 GB), 7B
-- (256-2048: +0.1 to +0.6 GB) and 14B (256-4096: +0.1 to +1.2 GB), all towards their
-- measurements; 1.8B LoRA (emb) at 512 goes from -11% (under) to -9.6% (within): 57 of 60
-- within 10%, median |error| 3.7% (56 of 60, 4.0% before). Nothing else moved.
-- What still misses (3 cells, all under; 1.8B LoRA (emb) at 512 was a fourth until the
-- loss's two moments above):
local ALLOC = "1.8B at one length: the measured growth per token is not steady (LoRA: +5.2 GB "
  .. "from 2048 to 4096 tokens where the live tensors grow 4.0 GB, then +5.6 GB to 8192 "
  .. "where they grow 7.9 GB): the caching allocator's cached blocks in a reserved or "
  .. "nvidia-smi reading, not modelled (no sourced rule)"

-- Q-LoRA's dequantised weights, looked up after seeing these cells (issue [18], fw-sweep):
-- Qwen's finetune.py loads the Int4 checkpoints with GPTQConfig(bits = 4, disable_exllama =
-- True), so auto-gptq's QuantLinear is qlinear_cuda_old (desc_act false, groups of 128).
-- Its forward (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py) takes the PyTorch path when
-- trainable or when x has >= kernel_switch_threshold = 128 rows (every cell: 256 or more
-- tokens): the packed weight is unpacked (an int32 shift, then int8: 5 B an element for a
-- moment), weight = scales * (weight - zeros) is materialised in fp16 (in x out x 2 B) and
-- out = torch.matmul(x, weight), which saves the fp16 weight for the backward when x needs
-- a gradient. Under --gradient_checkpointing the blocks' first forward runs without grad
-- (one layer's copy at a time, freed after its matmul); the copies saved for the backward
-- are those of the one block being recomputed: 50.6M elements at 1.8B (0.10 GB), 202.4M at
-- 7B (0.40 GB), 315M at 14B (0.63 GB), 872M at 72B (1.74 GB); the output layer is not
-- quantised. So the term is sourced but is not counted: it is live only during a block's
-- recomputed backward. The 1.8B and 7B steps peak at the loss (their activations at the
-- peak are the checkpoints and the logits' buffers: 0.18 GB of graph activations at 1.8B,
-- 256 tokens, = 24 x 256 x 2048 x 2 B + 2 x 2 B x 256 x 151936) or at the optimizer step
-- (7B at 256 and 512), where no copy is live, and a block's backward with its copies holds
-- less by a hand estimate (checkpoints + one block's activations + the copies); at 14B and
-- 72B mid lengths the backward may be the peak and the copy an under-count of at most its
-- size. g:stats' one-peak rule cannot place the term at the backward (the schedule's live
-- bytes per phase are not exposed: it would take the dequantised copy as a tensor of the
-- recomputed step, graphs/step), and added at the peak it would count bytes at a moment
-- they are not held. Nor could it close these cells: 0.10 / 0.40 GB against gaps of 2.3 /
-- 3.1 GB that grow with the sequence (7B: -0.2 GB at 256, -1.4 at 4096, -3.1 at 8192).
-- One more look (issue [18], branch mem4), at what the stack allocates at these peaks. The
-- Q-LoRA gaps at 4096 and 8192 tokens are 0.8 to 1.2 fp16 logit-sized tensors (2 B per logit
-- element: 1.8B 0.95 / 2.35 GB, 7B 1.37 / 3.06 GB), at both sizes. The fp16 DeepSpeed
-- engine's loss path, traced: Qwen's QWenLMHeadModel.forward (modeling_qwen.py) computes
-- lm_logits, shift_logits = lm_logits[..., :-1, :].contiguous() and CrossEntropyLoss in fp16
-- (no upcast; the Trainer runs no autocast under DeepSpeed), and the Trainer's compute_loss
-- returns only the loss, so the output holding lm_logits is gone before the backward. The
-- forward's peak at the loss holds logits + copy + log_softmax output (3 x 2 B, counted);
-- the backward's holds log_softmax's output, its incoming gradient (nll_loss's backward) and
-- its outgoing one (3 x 2 B); the slice's backward then holds 2 x 2 B. No tensor of the
-- missing size is live beyond the 6 B counted in this path. A caching-allocator effect would
-- be of this size (a reading of reserved memory, as nvidia-smi's, keeps the freed
-- logit-sized blocks the next allocations cannot reuse), but the README does not say how it
-- read memory and there is no sourced rule for it here. Not changed.
local QLORA = "Q-LoRA at 8192, 13-15% under (1.8B, 7B): growing with the sequence, so not "
  .. "auto-gptq's dequantised fp16 weights (sourced above, a per-block constant of 0.10 / "
  .. "0.40 GB live only in a block's recomputed backward, not at these steps' peak at the "
  .. "loss; not counted) and not a sourced rule found here; partly what ALLOC says; the 14B "
  .. "cell at 256 is at -9.8%, near the boundary"

-- {model, method, measured GB at M.seqs[i]} and the expectation per cell.
M.rows = {
  { model = "qwen-1.8b", method = "lora", gb = { 6.7, 7.4, 8.4, 11.0, 16.2, 21.8 },
    expect = { "within", "within", "within", "within", "under", "within" }, gap = ALLOC },
  { model = "qwen-1.8b", method = "lora_emb", gb = { 13.7, 14.0, 14.0, 15.1, 19.7, 27.7 },
    expect = { "within", "within", "within", "within", "within", "within" },
    expect_before = { [2] = "under" } },
  { model = "qwen-1.8b", method = "qlora", gb = { 5.8, 6.0, 6.6, 7.8, 10.2, 15.8 },
    expect = { "within", "within", "within", "within", "within", "under" }, gap = QLORA },
  { model = "qwen-7b", method = "lora", gb = { 20.1, 20.4, 21.5, 23.8, 29.7, 36.6 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-7b", method = "lora_emb", gb = { 33.7, 34.1, 35.2, 35.1, 39.2, 48.5 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-7b", method = "qlora", gb = { 11.5, 11.5, 12.3, 13.9, 16.9, 23.5 },
    expect = { "within", "within", "within", "within", "within", "under" }, gap = QLORA },
  { model = "qwen-14b", method = "lora", gb = { 34.6, 35.1, 35.3, 37.4, 42.5, 55.2 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-14b", method = "lora_emb", gb = { 51.2, 51.1, 51.5, 54.1, 56.8, 67.7 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-14b", method = "qlora", gb = { 18.7, 18.4, 18.9, 19.9, 23.0, 27.9 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-72b", method = "qlora", gb = { 61.4, 61.4, 62.9, 64.1, 68.0, 75.6 },
    expect = { "within", "within", "within", "within", "within", "within" } },
}

return M
