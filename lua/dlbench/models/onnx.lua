-- dlbench.models.onnx — bring your own model: dlb.models.from_onnx(path, opts) imports an
-- ONNX file as a dlbench graph (the parser and the operator mapping are C:
-- graphs/onnx*.c), and dlb.models.info(path) prints one screen about an .onnx file or a
-- Hugging Face config.json (the face of `dlbench info FILE`). docs/import.md.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local graph = require "dlbench.graph"
local options = require "dlbench.options"
local desc = require "dlbench.desc"
local strip = require("dlbench.errors").strip

local M = {}

-- The importer's choices, report kinds and facts, and the optimizers: the C enums of
-- graphs/io/dlb_onnx.h and graphs/ir/dlb_graph.h (dlbench.desc), never copied by hand.
local _, UNKNOWN = desc.enum("DLB_ONNX_UNKNOWN_")
local _, LOSS = desc.enum("DLB_ONNX_LOSS_")
local OPTIMIZERS = desc.set((desc.enum("DLB_OPT_")))
local KIND = {}
do
  local _, byname = desc.enum("DLB_ONNX_R_")
  for name, v in pairs(byname) do KIND[v] = name end
end
local FACTS = desc.block("DLB_ONNX_OPSET", "DLB_ONNX_", { FUSED = "fused_layernorms" })
local VALID = { unknown = true, loss = true, optimizer = true, name = true, quiet = true }

local function oneof(v, set, what, fname)
  if set[v] == nil then
    error(string.format("%s: %s=%s must be one of %s", fname, what,
      type(v) == "string" and string.format("%q", v) or tostring(v), options.names(set)), 3)
  end
  return set[v]
end

-- The import report as tables: optypes/unsupported lists of {type=, count=}, warnings,
-- layers, the Trilu nodes {node=, upper=, k=} (k nil: not a constant) and the model's
-- metadata (key -> value).
local function report(rep, facts)
  local r = { optypes = {}, unsupported = {}, warnings = {}, layers = {}, trilu = {}, metadata = {} }
  for i, name in ipairs(FACTS) do r[name] = facts[i] end
  for _, e in ipairs(rep) do
    local kind = KIND[e[2]]
    if kind == "optype" then r.optypes[#r.optypes + 1] = { type = e[1], count = e[3] }
    elseif kind == "unsupported" then r.unsupported[#r.unsupported + 1] = { type = e[1], count = e[3] }
    elseif kind == "layer" then r.layers[#r.layers + 1] = e[1]
    elseif kind == "tril" or kind == "triu" then
      r.trilu[#r.trilu + 1] = { node = e[1], upper = kind == "triu", k = e[3] == e[3] and e[3] or nil }
    elseif kind == "meta" then
      -- count: the key's length (a key may hold '=': split there, not at the first '=')
      local n = e[3]
      r.metadata[e[1]:sub(1, n)] = e[1]:sub(n + 2)
    else r.warnings[#r.warnings + 1] = e[1] end
  end
  table.sort(r.optypes, function(a, b) return a.count > b.count or (a.count == b.count and a.type < b.type) end)
  return r
end

local function listtext(l)
  local t = {}
  for i, e in ipairs(l) do t[i] = string.format("%s (%.0f)", e.type, e.count) end
  return table.concat(t, ", ")
end

function M.from_onnx(path, opts)
  local fname = "dlb.models.from_onnx"
  if type(path) ~= "string" then
    error(fname .. "(path, opts): path must be a string, got " .. type(path), 2)
  end
  opts = options.check(opts, VALID, fname)
  options.switches(opts, { "quiet" }, fname, 2)   -- quiet = 0 silenced the warnings
  local unknown = oneof(opts.unknown or "error", UNKNOWN, "unknown", fname)
  local loss = oneof(opts.loss or "auto", LOSS, "loss", fname)
  if opts.optimizer ~= nil then oneof(opts.optimizer, OPTIMIZERS, "optimizer", fname) end
  if opts.name ~= nil and type(opts.name) ~= "string" then error(fname .. ": name= must be a string", 2) end
  local ok, h, rep, facts = pcall(core.onnx_read, path, unknown, loss)
  if not ok then error(fname .. ": " .. tostring(h), 2) end
  local name = opts.name or path:match("([^/]+)%.onnx$") or path:match("([^/]+)$") or "onnx"
  local g = setmetatable({ _h = h, name = name }, graph.Graph)
  g.model = { name = name, options = opts, optimizer = opts.optimizer, source = path }
  if opts.optimizer then g.stats = require("dlbench.models.common").stats end
  g.import = report(rep, facts)
  -- the layer scopes the importer opened (module paths), as g:layer would record them
  g._layers, g._layerset = {}, {}
  for i, l in ipairs(g.import.layers) do g._layers[i] = l; g._layerset[l] = true end
  if not opts.quiet then
    if #g.import.unsupported > 0 then
      io.stderr:write(string.format("%s: warning: '%s': costed as element-wise ops (1 FLOP per element): %s\n",
        fname, path, listtext(g.import.unsupported)))
    end
    for _, w in ipairs(g.import.warnings) do
      io.stderr:write(string.format("%s: warning: '%s': %s\n", fname, path, w))
    end
  end
  return g
end
doc.doc(M.from_onnx, "dlb.models.from_onnx(path[, {unknown=\"error\"|\"skip\", loss=\"auto\"|\"xent\"|\"mse\"|\"none\", optimizer=, name=, quiet=false}]) -> graph",
  "import an ONNX file (torchvision, torch.nn, Hugging Face exports, opsets 9-19) as a graph with a loss; "
  .. "dim_param dims become symbols; g.import holds the report (op types, unsupported ops, BatchNorm running statistics)")

-- -- dlbench info FILE --

local function commas(n)
  local s = string.format("%.0f", n)
  local r = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (r:gsub("^,", ""))
end

-- Default bindings for the symbols left in a graph: sequence-like names 128, others 1.
local function defaults(unbound, given)
  local b = {}
  for k, v in pairs(given or {}) do b[k] = v end
  for v in tostring(unbound or ""):gmatch("[%a_][%w_]*") do
    if b[v] == nil then
      local l = v:lower()
      b[v] = (l:find("seq") or l:find("len") or l:find("token") or l == "q" or l == "s") and 128 or 1
    end
  end
  return b
end
M._defaults = defaults -- dlb.serve reads an imported decoder's structure at these bindings

-- Whether path names a JSON file (a Hugging Face config.json): by its name, else by its
-- first non-blank byte. `dlbench plan` asks it too (cli_plan.lua kept a copy until review 20).
local function is_json(path)
  if path:match("%.json$") then return true end
  local f = io.open(path, "rb")
  if not f then return false end
  local head = f:read(64) or ""
  f:close()
  return head:match("^%s*{") ~= nil
end

M._is_json = is_json

-- The lines of the info screen for graph g with bindings b.
local function screen(path, g, kind, b, opts)
  local si = graph.si
  local out = {}
  local imp = g.import
  if kind == "onnx" then
    out[#out + 1] = string.format("%s: ONNX opset %.0f (IR %.0f), %.0f nodes, %.0f initializers", path,
      imp.opset, imp.ir_version, imp.nodes, imp.initializers)
  else
    local b = g.hf.builder == "t5" and "dlbench.models.transformer.t5" or ("dlb.models." .. g.hf.builder)
    -- the seq as an integer on both backends (a JSON number is a float under Lua 5.4, whose
    -- tostring wrote "seq 4096.0" where LuaJIT writes "seq 4096")
    local seq = g.hf.options.seq
    out[#out + 1] = string.format("%s: Hugging Face config, model_type \"%s\" -> %s (seq %s)",
      path, g.hf.model_type, b, (type(seq) == "number" and seq == math.floor(seq) and math.abs(seq) < 2^53)
        and string.format("%.0f", seq) or tostring(seq))
  end
  local sym = g:stats{}
  local bind, names = defaults(sym.unbound, opts.bindings), {}
  local applied = {}   -- every default this screen applied, named on its last line
  for k, v in pairs(bind) do
    names[#names + 1] = k .. "=" .. tostring(v)
    if not (opts.bindings and opts.bindings[k]) then applied[#applied + 1] = k .. "=" .. tostring(v) end
  end
  table.sort(names)
  table.sort(applied)
  local sopts = {}
  for k, v in pairs(bind) do sopts[k] = v end
  sopts.precision = opts.precision
  sopts.framework = opts.framework
  local s = g:stats(sopts)
  out[#out + 1] = string.format("bindings        %s (training step, optimizer %s, precision %s)",
    #names > 0 and table.concat(names, " ") or "none", s.optimizer, s.precision)
  local extra = imp and imp.bn_stats and imp.bn_stats > 0
    and string.format(" (+ %s BatchNorm running statistics, not trained)", commas(imp.bn_stats)) or ""
  out[#out + 1] = string.format("parameters      %s%s", commas(s.params), extra)
  out[#out + 1] = string.format("FLOPs per step  %s (forward %s, backward %s, update %s)",
    si(s.flops, "FLOP"), si(s.flops_fwd, "FLOP"), si(s.flops_bwd, "FLOP"), si(s.flops_update, "FLOP"))
  local bd = s.breakdown
  out[#out + 1] = string.format("footprint       %s (weights %s, gradients %s, optimizer %s, activations %s, workspace %s)",
    si(s.footprint, "B"), si(bd.weights, "B"), si(bd.gradients, "B"), si(bd.optimizer, "B"),
    si(bd.activations, "B"), si(bd.workspace, "B"))
  local F, _, _, _, T = core.analysis_arrays(s.analysis)
  local by, order = {}, {}
  for i = 1, #F do
    local k = core.graph_op_type_name(T[i])
    if not by[k] then by[k] = { type = k, flops = 0 }; order[#order + 1] = by[k] end
    by[k].flops = by[k].flops + F[i]
  end
  table.sort(order, function(x, y) return x.flops > y.flops or (x.flops == y.flops and x.type < y.type) end)
  local top = {}
  for i = 1, math.min(6, #order) do
    top[i] = string.format("%s %.1f%%", order[i].type, s.flops > 0 and 100 * order[i].flops / s.flops or 0)
  end
  out[#out + 1] = "top ops (FLOPs) " .. table.concat(top, ", ")
  if kind == "onnx" then
    local t = {}
    for i = 1, math.min(8, #imp.optypes) do t[i] = string.format("%s %.0f", imp.optypes[i].type, imp.optypes[i].count) end
    out[#out + 1] = "top ops (file)  " .. table.concat(t, ", ")
    out[#out + 1] = "unsupported     " .. (#imp.unsupported > 0
      and (listtext(imp.unsupported) .. " (costed as element-wise)") or "none")
    for _, w in ipairs(imp.warnings) do out[#out + 1] = "warning         " .. w end
  else
    out[#out + 1] = "config keys not read: " .. (#g.hf.ignored > 0 and table.concat(g.hf.ignored, ", ") or "none")
  end
  -- the time model applies a profile where the counts above have none (docs/frameworks.md,
  -- "Defaults"): the line names the one it used (review 11: the screen timed the family's
  -- default profile and its defaults line said framework=none)
  local timed_fw, timed_prec
  if opts.hw then
    local r = require("dlbench.roofline").time(s, opts.hw)
    timed_fw = r.framework
    -- the time's precision when the device chose another (a TPU's bf16 for fp32 counts)
    if r.precision_source == "device" and r.precision ~= s.precision then timed_prec = r.precision end
    out[#out + 1] = string.format("on %-12s %s per step (%s-bound, %.0f%% of the %s peak, framework %s), %s",
      opts.hw.name, require("dlbench.pretty").seconds(r.time), r.bound, 100 * r.util, r.precision or s.precision,
      tostring(r.framework),
      r.fits and "fits its memory" or ("does not fit its memory (short by " .. si(r.shortfall or 0, "B") .. ")"))
  end
  if #applied > 0 then applied[1] = "bindings " .. applied[1] .. " (unbound dims: sequence-like 128, others 1)" end
  if not opts.precision then
    -- review 21: a TPU timed the fp32 counts at bf16 while this line said fp32 only
    applied[#applied + 1] = "precision=" .. s.precision .. (timed_prec and (" for the counts, "
      .. timed_prec .. " for the time (" .. opts.hw.name .. "'s default precision)") or "") .. " (--precision)"
  end
  -- g:stats' one default rule (dlb.graph.default_optimizer), the source as the stats say it
  if s.optimizer_source ~= "given" then
    applied[#applied + 1] = "optimizer=" .. s.optimizer .. " (" .. tostring(s.optimizer_source) .. ")"
  end
  if not opts.hw then applied[#applied + 1] = "no device (--hw adds the roofline time)" end
  if not opts.framework then
    applied[#applied + 1] = (timed_fw and timed_fw ~= "none")
      and ("framework=none for the counts (the step as built), " .. timed_fw
        .. " for the time (the family's default; --framework)")
      or "framework=none (--framework)"
  end
  out[#out + 1] = "defaults        " .. table.concat(applied, "; ")
  return out
end

-- dlb.models.info(path[, {bindings=, out=}]) prints one screen about an .onnx file or a
-- config.json and returns {lines=, graph=, stats=}.
function M.info(path, opts)
  local fname = "dlb.models.info"
  if type(path) ~= "string" then error(fname .. "(path): path must be a string, got " .. type(path), 2) end
  opts = options.check(opts, { bindings = true, out = true, precision = true, hw = true, framework = true }, fname)
  local g, kind
  local ok, err = pcall(function()
    if is_json(path) then
      g, kind = require("dlbench.models.hf").from_hf(path), "hf"
    else
      g, kind = M.from_onnx(path, { unknown = "skip", quiet = true }), "onnx"
    end
  end)
  if not ok then error(strip(err), 2) end
  -- a bad binding or profile is the caller's: raised at its line, not inside lua/dlbench
  -- (review 11: "onnx.lua:156: graph 'gpt': no dim 'batch' to bind")
  local oks, lines = pcall(screen, path, g, kind, nil, opts)
  if not oks then error(strip(lines), 2) end
  local out = opts.out or print
  for _, l in ipairs(lines) do out(l) end
  return { lines = lines, graph = g }
end
doc.doc(M.info, "dlb.models.info(path[, {bindings={batch=8}, precision=, hw=, framework=, out=print}]) -> {lines=, graph=}",
  "one screen about an .onnx file or a Hugging Face config.json: parameters, FLOPs per step, footprint, top ops, unsupported ops (`dlbench info FILE`)")

-- `dlbench info FILE [name=value ...]` of old callers: args is the list after "info". A bad
-- file or argument raises "dlbench info: ..." (never exits: it is on the dlb.* surface). The
-- command itself (with --hw, --precision, --framework) is dlbench.cli_plan.info.
-- The bindings of `dlbench info`'s words from index `first` on ("batch=8"): a table, or nil
-- and the message for the first word that is not name=integer (the one rule of both
-- info_cli and the command, dlbench.cli_plan.info).
function M.parse_bindings(words, first)
  local b = {}
  for i = first, #words do
    local w = words[i]
    local k, v
    if type(w) == "string" then k, v = w:match("^([%a_][%w_]*)=(%d+)$") end
    -- (a word that is not a string, from dlb.models.info_cli's caller: named, not indexed)
    if not k then
      return nil, (type(w) == "string" and ("'" .. w .. "'") or ("argument " .. i .. " (a " .. type(w) .. ")"))
        .. " is not name=integer (a binding such as batch=8)"
    end
    b[k] = tonumber(v)
  end
  return b
end

function M.info_cli(args)
  local function fail(msg) error("dlbench info: " .. msg, 0) end
  if type(args) ~= "table" then fail("expected the argument list, got " .. type(args)) end
  local path = args[1]
  if not path then fail("usage: dlbench info FILE [name=value ...]  (FILE: model.onnx or config.json)") end
  local b, bad = M.parse_bindings(args, 2)
  if not b then fail(bad) end
  local ok, err = pcall(M.info, path, { bindings = b })
  if not ok then fail(strip(err)) end
end

return M
