-- test_hf_config_fuzz.lua — a mutation fuzzer for what dlbench makes of a Hugging Face
-- config.json (dlb.models.from_hf, lua/dlbench/models/hf.lua over the JSON reader
-- graphs/io/json.c, which tests/fuzz/fuzz_json.c fuzzes as bytes). A config of
-- tests/fixtures/hf/ is read, then mutated: a key read by the builder (or a random one) set to
-- a hostile value (0, -1, 0.5, 2^31, 2^53, 1e300, a string, a boolean, an object, an array),
-- a key removed, model_type changed; sometimes two or three of these. Counts that multiply
-- the work (layers, experts) get small hostile values only: a config of a billion layers is
-- legitimate big work (docs/security.md "What is not defended"), not a finding. Each outcome
-- must be one of:
--   * an error naming dlb.models.from_hf and the config, never a Lua runtime error
--     ("attempt to ...") nor a crash or a hang;
--   * a graph whose training-step stats (g:stats{}) are finite, non-negative FLOPs and
--     parameters.
-- A fifth of the cases go through a file (the mutated table written as JSON, read back by
-- the C reader): they must give the same outcome as the table. Deterministic: both backends
-- print the same counts and digest.
--   cases: DLB_HFFUZZ_CASES (default 100, about 2 s), seed DLB_HFFUZZ_SEED (default 1);
--   DLB_HFFUZZ_VERBOSE=1 names each case and its outcome on stderr. A long run:
--     DLB_HFFUZZ_CASES=5000 DLB_HFFUZZ_SEED=7 LUA_PATH="$PWD/tests/lua/?.lua;;" \
--       build/bin/dlbench run tests/lua/test_hf_config_fuzz.lua
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"
local json = require "dlbench.json"

local F = require("fuzz_setup")("HFFUZZ") -- cases, seed, verbosity; Park-Miller rnd / pick
local CASES, SEED, VERBOSE, rnd, pick = F.cases or 100, F.seed, F.verbose, F.rnd, F.pick


local FIXTURES = { "bert-base-uncased", "flan-t5-small", "gpt2", "llama-2-7b", "mistral-7b-v0.1",
  "mixtral-8x7b-v0.1", "pythia-160m", "qwen2-0.5b", "t5-small" }
local configs = {}
for i, f in ipairs(FIXTURES) do configs[i] = core.json_read("tests/fixtures/hf/" .. f .. ".json") end

local HOSTILE = { 0, -1, 0.5, 1.5, 3, 7, 2 ^ 31, 2 ^ 53, 1e300, -1e300, 5e-324, "", "64", "x", true,
  false, {}, { 1, 2 }, { a = 1 } }
local SMALL = { 0, -1, 0.5, 1, 2, 3, "2", true, {} } -- layers, experts
local KEYS = { "model_type", "hidden_size", "intermediate_size", "num_attention_heads",
  "num_key_value_heads", "num_hidden_layers", "vocab_size", "max_position_embeddings",
  "head_dim", "n_embd", "n_head", "n_layer", "n_positions", "n_inner", "d_model", "d_ff",
  "d_kv", "num_heads", "num_layers", "num_decoder_layers", "num_local_experts",
  "num_experts_per_tok", "tie_word_embeddings", "attention_bias", "sliding_window",
  "type_vocab_size", "feed_forward_proj", "rotary_pct", "hidden_act", "bogus" }
local function multiplies(k) return k:find("layer") or k:find("expert") end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = type(v) == "table" and copy(v) or v end
  return c
end

local function mutate(cfg)
  local op = rnd(6)
  local keys = {}
  for k in pairs(cfg) do keys[#keys + 1] = k end
  table.sort(keys)
  if op == 1 and #keys > 0 then
    local k = pick(keys)
    cfg[k] = nil
    return "drop " .. k
  elseif op == 2 then
    cfg.model_type = pick { "llama", "mistral", "mixtral", "qwen2", "gpt2", "gpt_neox", "bert", "t5",
      "LLAMA", "", "gpt", 1 }
    return "model_type = " .. tostring(cfg.model_type)
  end
  local k = op == 3 and pick(keys) or pick(KEYS)
  local v = multiplies(k) and pick(SMALL) or pick(HOSTILE)
  if type(v) == "table" then v = copy(v) end
  cfg[k] = v
  return k .. " = " .. (type(v) == "table" and "{...}" or tostring(v))
end

local function runtime_error(msg)
  return msg:find("attempt to", 1, true) or msg:find("bad argument", 1, true)
    or msg:find("stack overflow", 1, true)
end

local digest = 0
local function mix(s)
  for i = 1, #s do digest = (digest * 31 + s:byte(i)) % 2147483647 end
end

-- The outcome of one config: "ok FLOPS PARAMS" or "error MESSAGE"; fails on a runtime error.
local function outcome(src, n, desc)
  local ok, g = pcall(dlb.models.from_hf, src, { batch = 2, seq = 16 })
  if not ok then
    local msg = tostring(g)
    if runtime_error(msg) or not msg:find("dlb.models.from_hf", 1, true) then
      T.eq(msg, "an error of dlb.models.from_hf", "case " .. n .. " (" .. desc .. ")")
    end
    return "error", msg
  end
  local oks, s = pcall(g.stats, g, {})
  if not oks then
    if runtime_error(tostring(s)) then T.eq(tostring(s), "stats or an error", "case " .. n .. " (" .. desc .. ")") end
    return "error", tostring(s)
  end
  for _, f in ipairs { "flops", "params" } do
    local v = tonumber(s[f])
    if not (v and v >= 0 and v < math.huge) then
      T.eq(tostring(s[f]), "finite non-negative " .. f, "case " .. n .. " (" .. desc .. ")")
    end
  end
  return "ok", string.format("%.17g %.17g", tonumber(s.flops) or -1, tonumber(s.params) or -1)
end

local path = T.tmpdir() .. "/config.json"
local accepted, refused, files = 0, 0, 0

T.test("mutated Hugging Face configs: an error naming from_hf, or finite stats", function()
  for n = 1, CASES do
    local base = rnd(#configs)
    local cfg = copy(configs[base])
    local what = { FIXTURES[base] }
    for _ = 1, (rnd(3) == 1 and 1 + rnd(2) or 1) do what[#what + 1] = mutate(cfg) end
    local desc = table.concat(what, "; ")
    local kind, r = outcome(cfg, n, desc)
    if VERBOSE then io.stderr:write(string.format("case %d: %s: %s %s\n", n, desc, kind, r)) end
    if kind == "ok" then accepted = accepted + 1; mix(r) else refused = refused + 1 end
    if n % 5 == 0 then
      local f = assert(io.open(path, "wb"))
      f:write(json.encode(cfg))
      f:close()
      local kind2, r2 = outcome(path, n, desc .. " (file)")
      T.eq(kind2, kind, "case " .. n .. " (" .. desc .. "): the file as the table: " .. tostring(r2))
      if kind == "ok" then T.eq(r2, r, "case " .. n .. ": the same stats from the file") end
      files = files + 1
    end
  end
  T.eq(accepted > CASES / 20 and refused > CASES / 20, true,
    string.format("accepted %d, refused %d", accepted, refused))
  print(string.format("hf config fuzz: seed %d, %d cases: %d accepted, %d refused, %d through a file; digest %d",
    SEED, CASES, accepted, refused, files, digest))
end)

T.done()
