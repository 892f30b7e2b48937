-- dlbench.models.hf — Hugging Face configs: dlb.models.from_hf(path_or_table[, opts]) reads
-- a config.json (yajl, graphs/io/json.c) and builds the matching zoo transformer with every
-- option the config sets: llama, mistral, qwen2 -> dlb.models.llama (GQA, tied embeddings,
-- q/k/v biases, intermediate size); mixtral -> dlb.models.moe (llama style, experts, top-k
-- routing); gpt2 -> dlb.models.gpt; gpt_neox -> dlb.models.gpt without learned positions,
-- with rotary and an untied output; bert -> dlb.models.bert; t5 -> transformer.t5 (relative
-- position biases, RMS norms, ReLU or gated-GELU feed-forward). docs/import.md.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

-- Keys of a config that do not change parameters or FLOPs in our count (training and
-- runtime settings, token ids, numerics); anything else we do not read is reported in
-- g.hf.ignored.
local NEUTRAL = {}
for k in ([[architectures bos_token_id eos_token_id pad_token_id initializer_range torch_dtype
  transformers_version use_cache rms_norm_eps layer_norm_eps layer_norm_epsilon rope_theta
  rope_scaling attention_dropout hidden_dropout_prob attention_probs_dropout_prob
  hidden_dropout attn_pdrop embd_pdrop resid_pdrop summary_activation summary_first_dropout
  summary_proj_to_labels summary_type summary_use_proj task_specific_params _name_or_path
  pretraining_tp gradient_checkpointing position_embedding_type output_router_logits
  router_aux_loss_coef rotary_emb_base classifier_dropout use_sliding_window max_window_layers
  model_type n_ctx hidden_act activation_function tokenizer_class id2label label2id
  router_jitter_noise bias dropout decoder_start_token_id dropout_rate initializer_factor
  is_encoder_decoder output_past relative_attention_max_distance dense_act_fn is_gated_act
  n_positions]]):gmatch("%S+") do NEUTRAL[k] = true end

local SUPPORTED = "llama, mistral, mixtral, qwen2, gpt2, gpt_neox, bert, t5"
local VALID = { batch = true, seq = true, optimizer = true, lora = true, quantize = true }

-- A config value as an error shows it: a number as is, a string quoted with its type (the
-- JSON string "2" said "got 2", as if it were the number: review 12), others by type.
local function got(v)
  if v == nil then return "nothing" end
  if type(v) == "number" then return tostring(v) end
  if type(v) == "string" then return 'string "' .. v .. '"' end
  if type(v) == "boolean" then return "boolean " .. tostring(v) end
  return type(v)
end

local function need(cfg, key, what)
  local v = cfg[key]
  if type(v) ~= "number" or v ~= math.floor(v) or v < 1 or v == math.huge then
    error(string.format("%s: config key \"%s\" must be a positive integer, got %s", what, key,
      got(v)), 0)
  end
  return v
end

-- An optional key: absent -> default; else of the kind `kind` ("number" or "boolean"; from
-- the default's type when not given), or an error naming it (a string "4096" was compared
-- with a number, "false" read as true).
local function opt(cfg, key, default, what, kind)
  local v = cfg[key]
  if v == nil then return default end
  kind = kind or (default ~= nil and type(default)) or nil
  if kind and type(v) ~= kind then
    error(string.format("%s: config key \"%s\" must be a %s, got %s", what, key, kind,
      type(v) == "number" and "number " .. tostring(v) or got(v)), 0)
  end
  return v
end

-- model_type -> {builder, options from the config, keys read}
local function map(cfg, what, o)
  local mt = cfg.model_type
  local read = {}
  local function n(k) read[k] = true; return need(cfg, k, what) end
  local function get(k, d, kind) read[k] = true; return opt(cfg, k, d, what, kind) end
  local seq = o.seq
  if mt == "llama" or mt == "mistral" or mt == "qwen2" or mt == "mixtral" then
    local heads = n("num_attention_heads")
    local r = { layers = n("num_hidden_layers"), hidden = n("hidden_size"), heads = heads,
                kv_heads = get("num_key_value_heads", heads), ffn = n("intermediate_size"),
                vocab = n("vocab_size"), batch = o.batch or "b" }
    local ctx = get("max_position_embeddings", 4096)
    r.seq = seq or math.min(ctx, 4096)
    if get("attention_bias", false) then
      error(what .. ": attention_bias = true (biases on every attention projection) is not modelled", 0)
    end
    get("sliding_window", nil, "number"); get("head_dim", nil, "number")
    if cfg.head_dim and cfg.head_dim * heads ~= r.hidden then
      error(string.format("%s: head_dim=%.0f * num_attention_heads=%.0f differs from hidden_size=%.0f; not modelled",
        what, cfg.head_dim, heads, r.hidden), 0)
    end
    if mt == "mixtral" then
      r.style = "llama"
      r.experts = n("num_local_experts")
      r.top_k = n("num_experts_per_tok")
      if get("tie_word_embeddings", false) then error(what .. ": tied embeddings are not modelled for mixtral", 0) end
      return "moe", r, read
    end
    r.tied = get("tie_word_embeddings", mt == "qwen2" and false or false)
    r.qkv_bias = mt == "qwen2"
    return "llama", r, read
  elseif mt == "gpt2" then
    local d = n("n_embd")
    local ctx = n("n_positions")
    local r = { layers = n("n_layer"), hidden = d, heads = n("n_head"), context = ctx,
                vocab = n("vocab_size"), ffn = get("n_inner", nil, "number") or 4 * d,
                tied = get("tie_word_embeddings", true), batch = o.batch or "b", seq = seq or ctx }
    return "gpt", r, read
  elseif mt == "gpt_neox" then
    local ctx = get("max_position_embeddings", 2048)
    local r = { layers = n("num_hidden_layers"), hidden = n("hidden_size"), heads = n("num_attention_heads"),
                ffn = n("intermediate_size"), vocab = n("vocab_size"), context = ctx,
                tied = get("tie_word_embeddings", false), positions = false, rotary = true,
                batch = o.batch or "b", seq = seq or ctx }
    get("rotary_pct", nil, "number"); get("use_parallel_residual", nil, "boolean")
    return "gpt", r, read
  elseif mt == "bert" then
    if get("type_vocab_size", 2) ~= 2 then error(what .. ": type_vocab_size other than 2 is not modelled", 0) end
    local r = { layers = n("num_hidden_layers"), hidden = n("hidden_size"), heads = n("num_attention_heads"),
                ffn = n("intermediate_size"), vocab = n("vocab_size"),
                positions = get("max_position_embeddings", 512), batch = o.batch or "b", seq = seq or 128 }
    return "bert", r, read
  elseif mt == "t5" then
    local ffp = get("feed_forward_proj", "relu")
    if ffp ~= "relu" and ffp ~= "gated-gelu" then
      error(string.format("%s: feed_forward_proj=%q is not modelled (relu, gated-gelu)", what, tostring(ffp)), 0)
    end
    local layers = n("num_layers")
    local r = { layers = layers, dec_layers = get("num_decoder_layers", nil, "number") or layers, hidden = n("d_model"),
                heads = n("num_heads"), dkv = n("d_kv"), ffn = n("d_ff"), vocab = n("vocab_size"),
                buckets = get("relative_attention_num_buckets", 32), gated = ffp == "gated-gelu",
                tied = get("tie_word_embeddings", true), batch = o.batch or "b", seq = seq or 512 }
    return "t5", r, read
  end
  error(string.format("%s: model_type %s is not supported (supported: %s)", what,
    mt == nil and "missing" or string.format("%q", tostring(mt)), SUPPORTED), 0)
end

function M.from_hf(src, opts)
  local what = "dlb.models.from_hf"
  opts = options.check(opts, VALID, what)
  local cfg, name = src, "config"
  if type(src) == "string" then
    local ok, r = pcall(core.json_read, src)
    if not ok then error(what .. ": " .. tostring(r), 2) end
    cfg, name = r, src
  elseif type(src) ~= "table" then
    error(what .. "(path_or_table): a path to a config.json or a config table expected, got " .. type(src), 2)
  end
  if type(cfg) ~= "table" then error(what .. ": '" .. name .. "' is not a JSON object", 2) end
  local ok, builder, o, read = pcall(map, cfg, what .. " ('" .. name .. "')", opts)
  if not ok then error(tostring(builder), 2) end
  if opts.optimizer then o.optimizer = opts.optimizer end
  -- lora = {rank=, targets=} and quantize = as every zoo model takes them: through the zoo's
  -- wrapper, or for T5 (outside the zoo's list) the same two steps here
  local C = require "dlbench.models.common"
  local build
  if builder == "t5" then
    build = function(oo)
      local okb, gb = C.build_with_lora(require("dlbench.models.transformer").t5, oo, opts.lora)
      if not okb then error(gb, 0) end
      if opts.quantize ~= nil then C.quantize(gb, opts.quantize) end
      return gb
    end
  else
    o.lora, o.quantize = opts.lora, opts.quantize
    build = require("dlbench.models")[builder]
  end
  local ok2, g = pcall(build, o)
  -- errors.strip: the builder's message carries the user's line, which the pattern here
  -- missed when it held a space ("(command line):6: " of dlbench -e, a path with a space)
  if not ok2 then error(what .. " ('" .. name .. "'): " .. require("dlbench.errors").strip(g), 2) end
  local ignored = {}
  for k in pairs(cfg) do
    if not read[k] and not NEUTRAL[k] then ignored[#ignored + 1] = k end
  end
  table.sort(ignored)
  g.hf = { model_type = cfg.model_type, builder = builder, options = o, ignored = ignored, source = name }
  return g
end
doc.doc(M.from_hf, "dlb.models.from_hf(path_or_table[, {batch=\"b\", seq=, optimizer=, lora={rank=, targets=}, quantize=}]) -> graph",
  "build the zoo transformer a Hugging Face config.json describes (" .. SUPPORTED
  .. "); g.hf records the builder, its options and the config keys not read")

return M
