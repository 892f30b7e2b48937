-- dlbench.models — the model zoo: graph builders for every model the seed papers analyse,
-- plus today's transformers. Each builder takes an options table with documented defaults
-- (docs/models.md), rejects unknown options with the list of valid ones, and returns a
-- dlb.graph with its loss marked:
--   local g = dlb.models.resnet{depth=50, batch=32}
--   g:stats{}.params            --> 25557032
--   dlb.models.list()           -- one line per model
-- Families live in one file each (resnet.lua, classic.lua, mobile.lua, rnn.lua,
-- transformer.lua, tbd.lua, paradnn.lua).
local doc = require "dlbench.doc"

local M = {}

-- name, module, one-line description (the order of dlb.models.list()).
local REG = {
  { "word_lm", "rnn", "Hestness §2/§4: word LM, embedding + l LSTM layers (+projection) + softmax" },
  { "char_lm", "rnn", "Hestness §2: character LM with a recurrent highway network (RHN)" },
  { "nmt", "rnn", "Hestness §2: NMT, bi-LSTM encoder, LSTM decoder, Luong attention" },
  { "speech", "rnn", "Hestness §2: speech encoder-decoder, pooled bi-LSTM encoder, attention" },
  { "resnet", "resnet", "ResNet 18/34/50/101/152/200, deeper/wider (width=, blocks=)" },
  { "inception_v3", "classic", "TBD/Szegedy 2016: Inception-v3 (299x299, optional aux head)" },
  { "seq2seq", "rnn", "TBD: Seq2Seq (TF NMT IWSLT'15: bi-LSTM encoder, LSTM decoder, attention)" },
  { "transformer", "transformer", "Vaswani 2017: encoder-decoder Transformer, base or big" },
  { "faster_rcnn", "resnet", "TBD: Faster R-CNN, ResNet-101 backbone, RPN, RoI head (approx.)" },
  { "deepspeech2", "rnn", "TBD/Amodei 2016: Deep Speech 2, 2 conv + GRU/RNN layers + CTC" },
  { "wgan", "tbd", "TBD/Gulrajani 2017: WGAN-GP with residual generator and critic" },
  { "a3c", "tbd", "TBD/Mnih 2016: A3C Atari conv net, policy + value heads" },
  { "alexnet", "classic", "Krizhevsky 2012 (torchvision variant)" },
  { "vgg", "classic", "Simonyan 2014: VGG-11/13/16/19" },
  { "googlenet", "classic", "Szegedy 2015: GoogLeNet / Inception-v1 (torchvision, no aux)" },
  { "densenet", "mobile", "Huang 2017: DenseNet-121/169/201/161" },
  { "mobilenet", "mobile", "Howard 2017 / Sandler 2018: MobileNet v1 and v2" },
  { "squeezenet", "mobile", "Iandola 2016: SqueezeNet 1.0 / 1.1" },
  { "retinanet", "resnet", "Lin 2017: RetinaNet, ResNet-50 + FPN + focal-loss heads" },
  { "bert", "transformer", "Devlin 2019: BERT base/large, masked LM + NSP heads" },
  { "gpt", "transformer", "GPT-2 (small..xl) and GPT-3 (small..175B) decoder, tied embeddings" },
  { "llama", "transformer", "Llama-style decoder: RMSNorm, SwiGLU, GQA, rotary (7B/13B/70B)" },
  { "vit", "transformer", "Dosovitskiy 2021: ViT-B/16, L/16, H/14" },
  { "moe", "transformer", "mixture-of-experts decoder, GPT or Mixtral style (top-k routing; routed FLOPs only)" },
  { "paradnn.fc", "paradnn", "ParaDnn: fully connected family {layers, nodes, input, output}" },
  { "paradnn.cnn", "paradnn", "ParaDnn: residual/bottleneck CNN family {blocks, filters, image}" },
  { "paradnn.rnn", "paradnn", "ParaDnn: RNN/LSTM/GRU family {layers, embed, length, vocab}" },
}
M.names = {}
local where = {}
for i, r in ipairs(REG) do
  M.names[i] = r[1]
  where[r[1]] = r
end

-- Drop the "file.lua:12: " locations inside a message (raised in the zoo's or the
-- engine's files), so that the message carries exactly one: the caller's, added by error()
-- (errors.strip_inner: an internal error keeps its place).
local strip = require("dlbench.errors").strip_inner

-- Run builder f of model `name`: a graph error raised by options that pass the option
-- checks (an image too small for the net's downsampling, say) names the model and lists its
-- options. Errors are raised at `level` (the user's call) with that one location.
local function run(name, f, spec, opts, level)
  -- lora = {rank=, targets=} (every model): set for the graph the builder makes (g:lora)
  -- quantize = "nf4" | {dtype=, skip=} (every model): weight-only quantisation of the
  -- graph the builder makes (g:quantize), applied once it is built
  local C = require "dlbench.models.common"
  local lora, quant
  if type(opts) == "table" and (opts.lora ~= nil or opts.quantize ~= nil) then
    lora, quant = opts.lora, opts.quantize
    local c = {}
    for k, v in pairs(opts) do if k ~= "lora" and k ~= "quantize" then c[k] = v end end
    opts = c
  end
  local ok, g = C.build_with_lora(f, opts, lora, "dlb.models." .. name)
  if ok and quant ~= nil then
    local okq, err = pcall(C.quantize, g, quant)
    if not okq then
      error("dlb.models." .. name .. ": quantize: " .. strip(tostring(err)):gsub("^g:quantize: ", ""), level + 1)
    end
  end
  if ok then
    -- the builder and its family (the default framework profile follows it, issue [18])
    if type(g) == "table" and type(g.model) == "table" then
      g.model.builder = g.model.builder or name
      g.model.family = g.model.family or (where[name][2] == "transformer" and "transformer" or "other")
    end
    return g
  end
  local msg = strip(tostring(g))
  if msg:find("^internal error at ") then
    -- a bug of the library's, not of the options: said so, its place kept (review 13)
    error("dlb.models." .. name .. ": " .. msg, level + 1)
  end
  if not msg:find("dlb.models.", 1, true) then
    local C = require "dlbench.models.common"
    msg = string.format("dlb.models.%s: these options make an invalid graph: %s (accepted: %s)",
      name, msg, C.valid_names(spec))
  end
  error(msg, level + 1)
end

-- The builder of a model, wrapped by run (one wrapper per model, made once).
local loaded = {}
local function load(name)
  if loaded[name] then return loaded[name] end
  local r = where[name]
  local mod = require("dlbench.models." .. r[2])
  local short = name:match("^paradnn%.(.*)$") or name
  local f = mod[short]
  if type(f) ~= "function" then error("dlb.models: " .. name .. " is missing from " .. r[2] .. ".lua", 3) end
  local spec = mod.specs[name]
  local wrapped = function(opts) return (run(name, f, spec, opts, 2)) end
  doc.doc(wrapped, (doc.get(f) or {}).signature or ("dlb.models." .. name .. "{...}"),
    (doc.get(f) or {}).meaning or name)
  loaded[name] = wrapped
  return wrapped
end

-- dlb.models.paradnn.fc etc.
M.paradnn = setmetatable({}, { __index = function(t, k)
  if not where["paradnn." .. tostring(k)] then
    error("dlb.models.paradnn: no model '" .. tostring(k) .. "' (fc, cnn, rnn)", 2)
  end
  local f = load("paradnn." .. k)
  rawset(t, k, f)
  return f
end })
doc.doc(M.paradnn, "dlb.models.paradnn", "ParaDnn families: fc{}, cnn{}, rnn{} (Wang et al. 2020)")

-- dlb.models.list([{print=false, out=}]): prints the listing (unless print=false; through
-- out(line) if given) and returns {{name=, about=}, ...}. The returned list prints as one
-- line (its __tostring), so the REPL echo of dlb.models.list() does not repeat the listing.
local LIST_MT = { __tostring = function(t)
  return string.format("<list of %d zoo models, each {name=, about=}>", #t)
end }
function M.list(opts)
  if opts ~= nil and type(opts) ~= "table" then
    error("dlb.models.list: options must be a table like {print=false}, got " .. type(opts), 2)
  end
  opts = opts or {}
  require("dlbench.options").check(opts, { print = true, out = true }, "dlb.models.list")
  if opts.out ~= nil and type(opts.out) ~= "function" then
    error("dlb.models.list: out= must be a function(line)", 2)
  end
  local out = opts.out or print
  local r = {}
  for i, e in ipairs(REG) do
    r[i] = { name = e[1], about = e[3] }
    if opts.print ~= false then out(string.format("%-14s %s", e[1], e[3])) end
  end
  return setmetatable(r, LIST_MT)
end
doc.doc(M.list, "dlb.models.list([{print=false, out=}]) -> {{name=, about=}, ...}",
  "print one line per zoo model and return them (the list prints as one line)")

-- The options of a model: {{name, default, kind, help}, ...} in the order errors list them.
function M.options(name)
  local r = where[name]
  if not r then
    error("dlb.models.options: no model '" .. tostring(name) .. "' (" .. table.concat(M.names, ", ") .. ")", 2)
  end
  return require("dlbench.models." .. r[2]).specs[name]
end
doc.doc(M.options, "dlb.models.options(name) -> {{name, default, kind, help}, ...}",
  "a model's options with their defaults and meaning")

-- Build a model by its name: dlb.models.build("paradnn.fc", {...}).
function M.build(name, opts)
  if not where[name] then
    error("dlb.models.build: no model '" .. tostring(name) .. "' (" .. table.concat(M.names, ", ") .. ")", 2)
  end
  local r = where[name]
  local mod = require("dlbench.models." .. r[2])
  return (run(name, mod[name:match("^paradnn%.(.*)$") or name], mod.specs[name], opts, 2))
end
doc.doc(M.build, "dlb.models.build(name, opts) -> graph", "build a zoo model by name, e.g. \"paradnn.fc\"")

doc.doc(M, "dlb.models", "the model zoo: dlb.models.<name>{options} -> graph with its loss marked; "
  .. "dlb.models.list() names them all; options in docs/models.md")

-- Bring your own model (docs/import.md): ONNX files and Hugging Face configs.
M.from_onnx = require("dlbench.models.onnx").from_onnx
M.info = require("dlbench.models.onnx").info
M.info_cli = require("dlbench.models.onnx").info_cli
M.from_hf = require("dlbench.models.hf").from_hf
doc.doc(M.info_cli, "dlb.models.info_cli(args)", "`dlbench info FILE [name=value ...]`: dlb.models.info with bindings from the command line")

-- Load every family now (about 3 ms, paid when dlb.models is first touched), so the REPL
-- completes dlb.models.<tab> and help(dlb.models.resnet) shows the full signature.
for _, n in ipairs(M.names) do
  local short = n:match("^paradnn%.(.*)$")
  if short then rawset(M.paradnn, short, load(n)) else M[n] = load(n) end
end

return M
