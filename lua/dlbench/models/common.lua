-- dlbench.models.common — what every zoo builder shares: option checking against a spec
-- (defaults, kinds, the list of valid names in every error), the model's metadata on the
-- graph, and a default optimizer applied by g:stats when the caller names none.
local graph = require "dlbench.graph"
local poly = require "dlbench.poly"
local doc = require "dlbench.doc"

local M = {}
M.MAX_COUNT = 10000   -- bound on layer/step/block counts: graphs are built op by op

-- The names a model's `optimizer=` accepts, in the order of the C enum DLB_OPT_*
-- (graphs/ir/dlb_graph.h, through core.enum: never copied by hand).
do
  local byname = require("dlbench.backend").enum_names("DLB_OPT_")
  M.OPTIMIZERS = {}
  for name in pairs(byname) do M.OPTIMIZERS[#M.OPTIMIZERS + 1] = name end
  table.sort(M.OPTIMIZERS, function(a, b) return byname[a] < byname[b] end)
end

-- A spec is a list of {name, default, kind, help}. Kinds:
--   "dim"   a positive integer or a symbolic dim (a name like "b" or a poly string "4*h")
--   "int"   a positive integer                "int0" a non-negative integer
--   "count" a positive integer up to MAX_COUNT (layers, steps, blocks)
--   "num"   a number                          "bool" true/false
--   {"a", "b", ...}  one of these strings     "table" any table
--   "int|str" a positive integer or a string (e.g. a size name)
-- A fifth field lists aliases a researcher may guess ({"seq"} for steps); they are
-- accepted and shown in the option list as "steps (seq)".
local function valid_names(spec)
  local r = {}
  for i, s in ipairs(spec) do
    r[i] = s[5] and (s[1] .. " (" .. table.concat(s[5], ", ") .. ")") or s[1]
  end
  return table.concat(r, ", ")
end
M.valid_names = valid_names

local function isint(v) return type(v) == "number" and v == math.floor(v) and v > 0 and v < 2 ^ 53 end

-- A value as it appears in messages: strings quoted, so that 1.1 and "1.1" differ.
local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end
M.show = show

-- Every error of the zoo is raised with level 0 (no location): the public builders
-- (dlb.models.<name>, init.lua) add exactly one location, the caller's line.
local function checkkind(what, name, v, kind, spec)
  local function bad(expect)
    local hint = ""
    if type(v) == "string" and tonumber(v) and kind ~= "str" then
      hint = "; give it as a number, without quotes"
    end
    error(string.format("%s: option %s=%s must be %s%s (accepted: %s)", what, name, show(v),
      expect, hint, valid_names(spec)), 0)
  end
  if type(kind) == "table" then
    for _, k in ipairs(kind) do if v == k then return v end end
    -- number/string confusion: version=1.1 means "1.1", image="64" means 64
    local nv = (type(v) == "number" or type(v) == "string") and tonumber(v)
    if nv then
      for _, k in ipairs(kind) do if tonumber(k) == nv then return k end end
    end
    local r = {}
    for i, k in ipairs(kind) do r[i] = show(k) end
    bad("one of " .. table.concat(r, ", "))
  elseif kind == "dim" then
    if type(v) == "string" then
      local ok, err = pcall(poly.new, v)
      if not ok then bad("a positive integer or a dim name (" .. tostring(err) .. ")") end
      return v
    end
    if poly.is(v) then return tostring(v) end
    if not isint(v) then bad("a positive integer or a dim name like \"b\"") end
  elseif kind == "int" then
    if not isint(v) then bad("a positive integer") end
  elseif kind == "count" then
    if not isint(v) or v > M.MAX_COUNT then
      bad("a positive integer up to " .. M.MAX_COUNT .. " (layers and steps are built op by op)")
    end
  elseif kind == "int0" then
    if not (type(v) == "number" and v == math.floor(v) and v >= 0) then bad("a non-negative integer") end
  elseif kind == "num" then
    if type(v) ~= "number" or v ~= v then bad("a number") end
  elseif kind == "pos" then
    if type(v) ~= "number" or not (v > 0) or v == math.huge then bad("a positive number") end
  elseif kind == "bool" then
    if type(v) ~= "boolean" then bad("true or false") end
  elseif kind == "table" then
    if type(v) ~= "table" then bad("a table") end
  elseif kind == "int|str" then
    if type(v) ~= "string" and not isint(v) then bad("a positive integer or a name") end
  elseif kind == "str" then
    if type(v) ~= "string" then bad("a string") end
  end
  return v
end

-- The options the caller gave (canonical names), by the table M.options returned.
local given = setmetatable({}, { __mode = "k" })

-- Check opts against spec; returns a fresh table with defaults filled in. Unknown names
-- and bad values raise "<what>: ... (accepted: a, b, c)".
function M.options(opts, spec, what)
  if opts == nil then opts = {} end
  if type(opts) ~= "table" then
    error(string.format("%s: options must be a table like {batch=32}, got %s (accepted: %s)", what,
      type(opts), valid_names(spec)), 0)
  end
  local known, canon = {}, {}
  for _, s in ipairs(spec) do
    known[s[1]] = s
    for _, a in ipairs(s[5] or {}) do known[a] = s end
  end
  local bad = require("dlbench.options").unknown(opts, known, what, nil, valid_names(spec))
  if bad then error(bad, 0) end
  -- in the spec's order, each name before its aliases: pairs() order named the two the other
  -- way round from run to run under Lua 5.4 (its string hashes are seeded per run) and
  -- between backends ("options steps and seq" / "options seq and steps")
  for _, s in ipairs(spec) do
    local names = s[5] or {}
    for i = 0, #names do
      local k = i == 0 and s[1] or names[i]
      if opts[k] ~= nil then
        if canon[s[1]] then
          error(string.format("%s: options %s and %s name the same thing (accepted: %s)", what,
            canon[s[1]], k, valid_names(spec)), 0)
        end
        canon[s[1]] = k
      end
    end
  end
  local o = {}
  for _, s in ipairs(spec) do
    local v = opts[canon[s[1]] or s[1]]
    if v == nil then v = s[2] end
    if v ~= nil then o[s[1]] = checkkind(what, s[1], v, s[3], spec) end
  end
  local set = {}
  for c in pairs(canon) do set[c] = true end
  given[o] = set
  return o
end

-- Whether the caller gave option `name` (or its alias) rather than taking the default.
function M.given(o, name) return given[o] ~= nil and given[o][name] == true end

-- An error about option values that depend on each other, listing the options.
function M.fail(what, spec, msg)
  require("dlbench.errors").raise(string.format("%s: %s (accepted: %s)", what, msg, valid_names(spec)))
end

-- The input-size checks of the image models, one message each: "image=N is too small (why)"
-- below lo, "image=N must be n (the net is built for nxn inputs)" for a net built for one size.
-- image_min checks option `key` (default "image"; Faster R-CNN's image_w too).
function M.image_min(what, spec, o, lo, why, key)
  key = key or "image"
  if o[key] < lo then M.fail(what, spec, key .. "=" .. o[key] .. " is too small (" .. why .. ")") end
end
function M.image_only(what, spec, o, n)
  if o.image ~= n then
    M.fail(what, spec, string.format("image=%s must be %d (the net is built for %dx%d inputs)", tostring(o.image), n, n, n))
  end
end

-- The text of a spec for documentation: "name=default  help" lines.
function M.spec_text(spec)
  local r = {}
  for _, s in ipairs(spec) do
    local d = s[2]
    if type(d) == "string" then d = string.format("%q", d) else d = tostring(d) end
    r[#r + 1] = string.format("  %-10s = %-10s %s", s[1], d, s[4] or "")
  end
  return table.concat(r, "\n")
end

-- g:stats of a zoo graph: dlb.graph's g:stats, whose one default rule
-- (dlb.graph.default_optimizer, lua/dlbench/graph_setups.lua) counts the model's default
-- optimizer (g.model.optimizer) unless the call names one. One shared function (not a
-- closure per graph), so help(g.stats) finds its text; g:flops, g:params, g:ops, g:summary
-- go through it. (Before issue [18] item 2 this filled the optimizer in itself, so a zoo
-- graph's and an imported graph's defaults were two rules.)
local base_stats = graph.Graph.stats
function M.stats(self, b)
  return base_stats(self, b)   -- a tail call: its errors name the caller's line
end

-- Run builder f(opts) with LoRA adapters lora = {rank=, targets=} (or nil) set for the graph
-- it makes (M.graph applies them): pcall's results. The zoo's wrapper and from_hf's T5.
-- fname (optional) names the call in a refused lora's message ("dlb.models.gpt"; default
-- "dlb.models." and the graph's name, which is not the builder's: gpt's graph is "gpt2").
function M.build_with_lora(f, opts, lora, fname)
  M.pending_lora, M.pending_fname = lora, fname
  local ok, g = pcall(f, opts)
  M.pending_lora, M.pending_fname = nil, nil
  return ok, g
end

-- A model option quantize = "nf4" | {dtype=, skip=}: g:quantize on the built graph (the
-- zoo's wrapper and dlb.models.from_hf apply it once the builder has run).
function M.quantize(g, quant)
  local dt, qo = quant, nil
  if type(quant) == "table" then
    dt, qo = quant.dtype, {}
    for k, v in pairs(quant) do
      if k ~= "dtype" then qo[k] = v end
    end
  end
  return g:quantize(dt, qo)
end

-- A fresh graph carrying g.model = {name=, options=, optimizer=}; g:stats (and everything
-- built on it: flops, params, ops, summary) uses `optimizer` unless the caller names one.
function M.graph(name, o, optimizer)
  local g = graph.new(name)
  if M.pending_lora ~= nil then -- dlb.models.<name>{..., lora = {rank=, targets=}}
    local ok, err = pcall(g.lora, g, M.pending_lora)
    if not ok then
      error((M.pending_fname or ("dlb.models." .. name)) .. ": lora: "
        .. require("dlbench.errors").strip(err):gsub("^g:lora: ", ""), 0)
    end
  end
  g.model = { name = name, options = o, optimizer = optimizer }
  if optimizer then g.stats = M.stats end
  return g
end

-- A dim as text for arithmetic: numbers stay numbers.
-- L identical blocks: block(l, x) builds block l (1..L) from x in the layer name(l) (its
-- first act: g:layer(name(l))) and returns its output; every name it gives starts with
-- name(l) ("h3", "h3/attn/q/w"). The first is built; each next one is a copy of the one before
-- (core.graph_repeat, graphs/ir/graph_repeat.c: the graph block(l, x) would make, renamed),
-- so a 32-layer model runs its Lua builder once. Where the engine refuses a copy (a name not
-- under the layer's, a read of another tensor from before the block) the rest are built one
-- by one; so are all of them when LoRA targets names (g:lora before the build) or
-- M.copy_blocks is false (the reference the tests compare with).
M.copy_blocks = true
local Tensor = require("dlbench.graph_base").Tensor
local backend = require "dlbench.backend"
function M.blocks(g, x, L, name, block)
  if L < 2 or not M.copy_blocks or rawget(g, "_lora") then
    for l = 1, L do x = block(l, x) end
    return x
  end
  local t0, o0 = backend.graph_counts(g._h)
  local xin = x
  x = block(1, x)
  for l = 2, L do
    g:layer(name(l))
    local t1, o1 = backend.graph_counts(g._h)
    local id = backend.graph_repeat(g._h, o0, t0, xin.id, x.id, name(l - 1), name(l))
    if id < 0 then
      for k = l, L do x = block(k, x) end
      return x
    end
    t0, o0, xin, x = t1, o1, x, setmetatable({ graph = g, id = id }, Tensor)
  end
  return x
end

function M.d(v) if poly.is(v) then return tostring(v) end return v end

-- k * v for dims that are numbers or text (a product with text is text).
function M.mul(k, v)
  if type(k) == "number" and type(v) == "number" then return k * v end
  return tostring(poly.new(M.d(k)) * poly.new(M.d(v)))
end

-- Output size of a convolution/pool along one axis: floor((n + 2p - d(k-1) - 1)/s) + 1.
function M.conv_out(n, k, s, p, dil)
  dil = dil or 1
  return math.floor((n + 2 * p - dil * (k - 1) - 1) / s) + 1
end

-- Split x [b, q, h] into q steps [b, h] (q a number). Like nn.unstack, but in chunks of at
-- most 200 slices, so any length works whatever the engine's split limit (255 parts in its
-- first version, 1024 now).
function M.unstack(g, x, name)
  local nn = require "dlbench.nn"
  local d = x:dims()
  local q = tonumber(d[2])
  if not q then error("unstack: the time dim of " .. tostring(x) .. " must be a number", 2) end
  if q <= 255 then return nn.unstack(g, x, name) end
  local r = {}
  local start = 0
  while start < q do
    local n = math.min(200, q - start)
    local part = g:slice(x, 2, start, n)
    for _, t in ipairs(nn.unstack(g, part, name)) do r[#r + 1] = t end
    start = start + n
  end
  return r
end

-- g:concat of any number of tensors (the engine bounds the inputs per op: 256 in its first
-- version, 1024 now; chunks of 200 work under both).
function M.concat(g, xs, axis)
  if #xs == 1 then return xs[1] end
  if #xs <= 256 then return g:concat(xs, axis) end
  local parts = {}
  for i = 1, #xs, 200 do
    local chunk = {}
    for j = i, math.min(i + 199, #xs) do chunk[#chunk + 1] = xs[j] end
    parts[#parts + 1] = #chunk == 1 and chunk[1] or g:concat(chunk, axis)
  end
  return M.concat(g, parts, axis)
end

-- Nearest-neighbour 2x upsampling of x [n, c, h, w] -> [n, c, 2h, 2w], modelled as a gather
-- of feature vectors (0 FLOPs, the bytes of the gathered rows); the index is an input.
function M.upsample2(g, x, name)
  local d = x:dims()
  local n, c, h, w = d[1], d[2], tonumber(d[3]), tonumber(d[4])
  local flat = g:reshape(g:transpose(x, { 1, 3, 4, 2 }), { M.mul(h * w, n), c })
  local ids = g:input(name .. "/index", { n, 2 * h, 2 * w }, "int32")
  return g:transpose(g:embedding(ids, flat, name), { 1, 4, 2, 3 })
end

doc.doc(M.options, "common.options(opts, spec, what) -> opts", "check an options table against a spec; fill defaults")
doc.doc(M.fail, "common.fail(what, spec, msg)", "raise an option error that lists the options")
doc.doc(M.stats, "g:stats{bindings..., optimizer=g.model.optimizer, precision=, recompute=, inference=} -> stats",
  "a zoo graph's g:stats: a graph's params, flops (fwd/bwd/update), bytes, io, footprint, ..., "
  .. "with the model's default optimizer (g.model.optimizer) unless optimizer= is given")
doc.doc(M.graph, "common.graph(name, options, optimizer) -> graph", "a graph with g.model and a default optimizer")
doc.doc(M.unstack, "common.unstack(g, x, name) -> {steps}", "split [b, q, h] into q steps (any q)")
doc.doc(M.concat, "common.concat(g, xs, axis) -> tensor", "concat any number of tensors")
doc.doc(M.upsample2, "common.upsample2(g, x, name) -> tensor", "nearest 2x upsampling as a gather")
doc.doc(M.mul, "common.mul(a, b) -> dim", "product of dims given as numbers or text")
doc.doc(M.blocks, "common.blocks(g, x, L, name, block) -> tensor",
  "L identical blocks: block(l, x) builds block l in layer name(l); the first is built, the "
  .. "rest copied from it (dlb_graph_repeat), the same graph as building each")
doc.doc(M, "dlbench.models.common", "helpers shared by the zoo's builders")

return M
