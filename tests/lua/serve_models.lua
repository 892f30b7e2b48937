-- serve_models.lua — the serving tests' models (tests/lua/test_serve_graph.lua,
-- test_serve_compiled.lua) and the relative difference they compare by. Runs under Lua 5.4
-- and LuaJIT.
--   local SM = require "serve_models"
--   local L7, L3, MI, MX = SM.models()      Llama-2-7B, Llama-3-8B, Mistral-7B, Mixtral-8x7B
--   SM.models(600)                          the same with Mistral's window 600 tokens
local dlb = require "dlbench"
local S = dlb.serve

local M = {}

function M.models(window)
  local L7 = S.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 })
  -- Llama-3-8B (meta-llama/Meta-Llama-3-8B config.json): 8 KV heads (GQA)
  local L3 = S.model(dlb.models.llama { layers = 32, hidden = 4096, heads = 32, kv_heads = 8,
    ffn = 14336, vocab = 128256, batch = 1, seq = 16 })
  -- Mistral-7B-v0.1 config.json: sliding_window 4096 (another window: its own name, so that
  -- the graphs kept per model fields stay apart)
  local MI = S.model { name = window and "mistral-7b-w" .. window or "mistral-7b", layers = 32,
    hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336, vocab = 32000, mlp = "swiglu",
    window = window or 4096 }
  local MX = S.model(dlb.models.moe { size = "mixtral-8x7b", batch = 1, seq = 16 })
  return L7, L3, MI, MX
end

-- |a - b| relative to the larger magnitude.
function M.rel(a, b) return math.abs(a - b) / math.max(math.abs(a), math.abs(b), 1e-300) end

return M
