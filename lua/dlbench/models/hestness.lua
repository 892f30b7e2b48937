-- dlbench.models.hestness — Hestness, Ardalani, Diamos (PPoPP'19) Table 2, first column,
-- from the zoo's graphs: algorithmic training FLOPs per parameter per sample for each
-- domain at the paper's large sizes (Table 3's projected parameter counts and subbatches;
-- sequence lengths of §4: word LM 80, character LM 150, NMT 26, speech 300 encoder steps).
-- Recurrent models are built once with a symbolic hidden size "h" and evaluated at the h
-- whose parameter count is the target; ResNet-152 is grown in width (numeric graphs).
-- Used by notebooks/hestness_compute.lua and tests/lua/test_models_hestness.lua.
local models = require "dlbench.models"
local doc = require "dlbench.doc"

local M = {}

-- The paper's numbers: Table 2 FLOPs/param, Table 3 params and subbatch.
M.paper = {
  { key = "word_lm", name = "Word LMs (LSTM)", flops_per_param = 481, params = 23.8e9, batch = 128 },
  { key = "char_lm", name = "Character LMs (RHN)", flops_per_param = 900, params = 146e9, batch = 96 },
  { key = "nmt", name = "NMT (enc/dec+attn)", flops_per_param = 149, params = 18.9e9, batch = 96 },
  { key = "speech", name = "Speech Recogn. (enc/dec+attn)", flops_per_param = 775, params = 727e6, batch = 128 },
  { key = "resnet", name = "Image Classification (ResNet)", flops_per_param = 1111, params = 732e6, batch = 32 },
}

-- Smallest x in [lo, hi] with f(x) >= target (f increasing), by bisection on integers.
local function solve(f, target, lo, hi)
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if f(mid) < target then lo = mid else hi = mid end
  end
  return hi
end

local BUILD = {
  word_lm = function(b) return models.word_lm { hidden = "h", batch = b } end,
  char_lm = function(b) return models.char_lm { hidden = "h", batch = b } end,
  nmt = function(b) return models.nmt { hidden = "h", batch = b } end,
  speech = function(b) return models.speech { hidden = "h", batch = b } end,
}

-- One row {key=, name=, paper=, ours=, params=, size=, diff=} per domain. opts.params and
-- opts.batch override the paper's (e.g. {params=1e8} for a smaller point).
function M.table2(opts)
  opts = opts or {}
  local rows = {}
  for i, p in ipairs(M.paper) do
    local target, b = opts.params or p.params, opts.batch or p.batch
    local r = { key = p.key, name = p.name, paper = p.flops_per_param, batch = b }
    if BUILD[p.key] then
      local s = BUILD[p.key](b):stats {}
      local h = solve(function(h) return s.params { h = h } end, target, 1, 1e7)
      r.size, r.params, r.flops = "hidden " .. h, s.params { h = h }, s.flops { h = h }
    else
      -- ResNet-152 with base channels c (width c/64)
      local function build(c) return models.resnet { depth = 152, width = c / 64, batch = b } end
      local c = solve(function(c) return build(c):stats {}.params end, target, 1, 4096)
      local s = build(c):stats {}
      r.size, r.params, r.flops = string.format("width %g (base %d channels)", c / 64, c), s.params, s.flops
    end
    r.ours = r.flops / b / r.params
    r.diff = (r.ours - r.paper) / r.paper
    rows[i] = r
  end
  return rows
end
doc.doc(M.table2, "require(\"dlbench.models.hestness\").table2([{params=, batch=}]) -> rows",
  "Hestness et al. Table 2 FLOPs/param/sample from the zoo's graphs beside the paper's")

return M
