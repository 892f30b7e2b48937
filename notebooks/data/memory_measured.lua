-- notebooks/data/memory_measured.lua — published MEASURED peak GPU memory of fine-tuning
-- runs (issue [18] item 4): LoRA, Q-LoRA and LoRA with trainable embeddings, one GPU.
-- Read by tests/lua/test_finetune_memory.lua, which predicts every row with dlbench
-- (dlb.roofline.time(...).footprint, the framework memory schedule) and checks each row's
-- error against what this file says of it.
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
-- DeepSpeed ZeRO-2 on the one GPU, and peft's prepare_model_for_kbit_training, which casts
-- the weights left unquantised (embedding, output layer, norms) to fp32. LoRA (emb): the
-- base (non-chat) models with modules_to_save = ["wte", "lm_head"].
-- In dlbench: dlb.models.llama with the shapes below (qkv_bias; Qwen-1 is Llama-shaped:
-- RMSNorm, SwiGLU, rotary, untied output), mixed_bf16 (fp16's bytes are the same),
-- recompute = 1, fuse = {"attention"}, adamw; LoRA on q, k, v, out, gate, up, down. Known
-- differences: separate q, k, v adapters instead of one on the fused c_attn (+2 r d
-- parameters per block: +0.27 GB at 7B with Adam's 16 bytes each); LoRA (emb) trains the
-- embedding and output layer in place, while PEFT's modules_to_save trains copies beside
-- the frozen originals (one more 16-bit copy, 2.5 GB at 7B, not counted).
-- Model shapes: the Qwen-1 config.json files on the Hugging Face hub (Qwen/Qwen-1_8B,
-- Qwen/Qwen-7B, Qwen/Qwen-14B, Qwen/Qwen-72B): hidden_size, num_hidden_layers,
-- num_attention_heads, intermediate_size / 2 (w1 and w2 each), vocab_size, untied output,
-- bias on c_attn.
--
-- expect: "within" (|error| <= 10%), "under" or "over" (outside 10%, in that direction;
-- `gap` says why). The test fails when a row moves out of what is written here.
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
M.setup = {
  stats = { precision = "mixed_bf16", recompute = 1, fuse = { "attention" }, optimizer = "adamw" },
  lora = { rank = 64, targets = { "q", "k", "v", "out", "gate", "up", "down" } },
  qlora_dtype = "int4",                    -- GPTQ 4-bit, groups of 128
  unquantised_fp32 = { "embed_tokens", "lm_head/w" },   -- prepare_model_for_kbit_training
  emb_trainable = { "embed_tokens", "lm_head/w" },      -- LoRA (emb)
}

local SMALL = "a constant 1.5-2 GB the model does not count (CUDA context, cuBLAS "
  .. "workspace, cached allocator blocks) is a large share of a 1.8B model's total"
local LOSS = "long sequences: Transformers' unfused loss keeps the bf16 logits, a shifted "
  .. "contiguous copy and the log-softmax output of seq x 151936 (3 x 2.5 GB at 8192), the "
  .. "graph's fused softmax_xent one"

-- {model, method, measured GB at M.seqs[i]} and the expectation per cell.
M.rows = {
  { model = "qwen-1.8b", method = "lora", gb = { 6.7, 7.4, 8.4, 11.0, 16.2, 21.8 },
    expect = { "under", "under", "under", "under", "under", "under" }, gap = SMALL .. "; " .. LOSS },
  { model = "qwen-1.8b", method = "lora_emb", gb = { 13.7, 14.0, 14.0, 15.1, 19.7, 27.7 },
    expect = { "within", "within", "within", "within", "under", "under" }, gap = LOSS },
  { model = "qwen-1.8b", method = "qlora", gb = { 5.8, 6.0, 6.6, 7.8, 10.2, 15.8 },
    expect = { "under", "under", "under", "under", "under", "under" }, gap = SMALL .. "; " .. LOSS },
  { model = "qwen-7b", method = "lora", gb = { 20.1, 20.4, 21.5, 23.8, 29.7, 36.6 },
    expect = { "within", "within", "under", "under", "under", "under" }, gap = LOSS },
  { model = "qwen-7b", method = "lora_emb", gb = { 33.7, 34.1, 35.2, 35.1, 39.2, 48.5 },
    expect = { "within", "within", "within", "within", "within", "under" }, gap = LOSS },
  { model = "qwen-7b", method = "qlora", gb = { 11.5, 11.5, 12.3, 13.9, 16.9, 23.5 },
    expect = { "within", "within", "within", "within", "under", "under" }, gap = LOSS },
  { model = "qwen-14b", method = "lora", gb = { 34.6, 35.1, 35.3, 37.4, 42.5, 55.2 },
    expect = { "within", "within", "within", "within", "under", "under" }, gap = LOSS },
  { model = "qwen-14b", method = "lora_emb", gb = { 51.2, 51.1, 51.5, 54.1, 56.8, 67.7 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-14b", method = "qlora", gb = { 18.7, 18.4, 18.9, 19.9, 23.0, 27.9 },
    expect = { "within", "within", "within", "within", "within", "within" } },
  { model = "qwen-72b", method = "qlora", gb = { 61.4, 61.4, 62.9, 64.1, 68.0, 75.6 },
    expect = { "within", "within", "within", "within", "within", "within" } },
}

return M
