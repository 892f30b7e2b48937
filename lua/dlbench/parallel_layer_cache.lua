-- dlbench.parallel_layer_cache — the layer lists a plan or evaluate call times (issue [18]/[20],
-- branch plan-cache): layers_of turns a call's `layers=` or `graph=` into per-layer costs
-- (dlb.parallel.layers.from_graph for a graph), cached per graph (weak keys) and per every
-- option from_graph reads; cache_key is the same key for the planner's other per-graph caches
-- (the model FLOPs of parallel_plan's fb_per_sample). Split out of parallel_plan.lua.
local layers = require "dlbench.parallel_layers"
local M = {}

-- The layer array of a plan's `layers=`/`graph=` option: a list of layer costs, or a
-- dlb.graph (a dlb.models graph or any graph built in g:layer scopes), whose per-layer costs
-- come from dlb.parallel.layers.from_graph (bind= and precision= are passed on).
function M.is_graph(g)
  return type(g) == "table" and type(g.layers) == "function" and type(g.ops) == "function"
    and type(g.stats) == "function"
end

-- The exact text of a value, for a cache key: numbers with %.17g (distinct doubles, distinct
-- texts), strings quoted, tables by their sorted entries, recursively (a binding's, a fusion
-- list's, a profile's contents: a table edited in place is another key), functions and
-- userdata by identity. A table met again inside itself is named by identity.
local function keytext(v, seen)
  local t = type(v)
  if t == "number" then return string.format("%.17g", v) end
  if t == "string" then return string.format("%q", v) end
  if t == "boolean" or t == "nil" then return tostring(v) end
  if t ~= "table" then return t .. ":" .. tostring(v) end
  seen = seen or {}
  if seen[v] then return "<" .. tostring(v) .. ">" end
  seen[v] = true
  -- the entries are collected before keytext recurses, so no pairs loop runs inside another
  -- (LuaJIT #827, docs/security.md: an outer loop ended early would give two tables one key)
  local ks, xs = {}, {}
  for k, x in pairs(v) do ks[#ks + 1] = k; xs[#xs + 1] = x end
  local es = {}
  for i = 1, #ks do es[i] = keytext(ks[i], seen) .. "=" .. keytext(xs[i], seen) end
  seen[v] = nil
  table.sort(es)
  return "{" .. table.concat(es, ",") .. "}"
end

-- A cache key for what graph g's costs under options o are (the layer list of layers_of, the
-- model FLOPs of fb_per_sample): (generation, key text), or nil for a graph-like table without
-- g:generation() (not cached). The graph is mutable (g:freeze, g:lora, g:quantize, new
-- ops ...): its generation (dlb_graph_generation) is bumped by every change an analysis sees;
-- the Lua fields the costs also read (g.model: the zoo options of mfu and the tensor-parallel
-- fields; g.hf; the family) are in the text, as is every option (o, a profile by content;
-- layers_of also holds its entry to the very profile table, which the list keeps).
function M.cache_key(g, o)
  local gen = type(g.generation) == "function" and g:generation() or nil
  if not gen then return nil end
  local fw = require "dlbench.frameworks"
  return gen, keytext(o) .. "|" .. keytext(g.model) .. "|" .. keytext(g.hf) .. "|"
    .. tostring(fw.family(g))
end

-- The layer lists of graphs (layers_of), weak-keyed: a graph's entry goes with it.
local layer_cache = setmetatable({}, { __mode = "k" })

function M.layers_of(fname, g, o, fuse, prof)
  if M.is_graph(g) then
    -- a profile that adds memory beyond the graph's tensors (its `memory` table) or whose
    -- RMSNorm keeps its fp32 upcast (its `norm`, counted in the step's tensors) builds the
    -- layers under itself, so their activations carry it (dlbench.framework_memory,
    -- graphs/step/train.c); the others pass their fusion passes, the same step
    local byprof = prof and (prof.memory or require("dlbench.frameworks").norm_upcast(prof))
      and o.fuse == nil
    if prof and type(prof.memory) == "table" and prof.memory.optimizer_in_backward then
      error(fname .. ": the profile's memory.optimizer_in_backward is not modelled by the "
        .. "parallel memory rule (every layout holds its gradients to the step); time the "
        .. "one-device step with g:stats + dlb.roofline.time", 3)
    end
    local lo = { bind = o.bind, precision = o.precision, batch_dim = o.batch_dim,
      fuse = not byprof and fuse or nil, framework = byprof and prof or nil }
    -- cached per graph (weak keys) and per everything from_graph reads (cache_key): a plan
    -- or evaluate call reuses the list, never edits it (w_bytes= copies it, setup)
    local gen, key = M.cache_key(g, lo)
    local c = key and layer_cache[g]
    local e = c and c.gen == gen and c[key]
    -- (the same profile table: an equal copy of it gets a list of its own)
    if e and rawequal(e.prof, lo.framework) then return e.ls end
    local ls = layers.from_graph(g, lo)
    if key then
      -- entries of older generations are dropped: they can never be asked for again
      if not c or c.gen ~= gen then c = { gen = gen }; layer_cache[g] = c end
      c[key] = { ls = ls, prof = lo.framework }
    end
    return ls
  end
  if type(g) ~= "table" then
    error(fname .. ": option 'layers' (or graph) is required: a list of per-layer costs "
      .. "(dlb.parallel.layers.transformer{...}) or a dlb.graph with g:layer scopes", 3)
  end
  if g[1] ~= nil then return g end
  error(fname .. ": layers must be a non-empty list of layer costs, or graph= a dlb.graph "
    .. "(dlb.models.gpt{...})", 3)
end

return M
