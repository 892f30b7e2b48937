-- dlbench.graph_setups — the training set-ups of dlb.graph (issue [14]): the optimizers
-- g:stats{optimizer=} knows (state bytes and update FLOPs per parameter), frozen weights
-- (g:freeze), LoRA adapters (g:lora, used by dlbench.nn.linear) and the ZeRO-Offload
-- accounting of g:stats{offload=}. docs/graph.md "Optimizers", "Frozen weights and LoRA",
-- "Offload". graph.lua copies optimizers, optimizer_state_bytes and lora_target into
-- dlb.graph and M.methods (g:freeze, g:unfreeze, g:lora) into its graphs' methods;
-- graph_analysis.lua uses M.apply_lora(g) and M.offload_of(o, totals, analysis).
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local base = require "dlbench.graph_base"
local Tensor, ROLES, isint = base.Tensor, base.ROLES, base.isint

local M = {}
M.methods = {} -- graph methods (g:freeze, g:unfreeze, g:lora)
local Graph = M.methods

-- The optimizers g:stats{optimizer=} knows: update FLOPs per parameter (C's, from
-- graphs/ir/op_cost.c through dlb_optimizer_update_flops) and optimizer-state bytes per
-- parameter of a weight of shape `dims` with fp32 states (mixed precision adds a 4-byte fp32
-- master copy; fp16/bf16 policies store the states at 2 bytes). docs/graph.md "Optimizers"
-- gives the sources.
-- Both counts come from C, where the training step keeps them (graphs/ir/op_cost.c's update
-- FLOPs, graphs/step/train.c's optimizer states): state_bytes(dims) per parameter, fp32 states.
local function optimizer(name, source)
  local id = base.OPTIMIZERS[name]
  assert(id, "graph_setups: DLB_OPT_ has no " .. name)
  return { update_flops = core.optimizer_update_flops(id), source = source,
    state_bytes = function(dims) return core.optimizer_state_bytes(id, dims) end }
end
M.optimizers = {
  sgd = optimizer("sgd", "w -= lr*g"),
  momentum = optimizer("momentum", "heavy-ball momentum, one velocity per parameter"),
  rmsprop = optimizer("rmsprop", "Tieleman & Hinton 2012: one mean square per parameter"),
  adam = optimizer("adam", "Kingma & Ba 2015, Alg. 1: m and v per parameter"),
  adamw = optimizer("adamw", "Loshchilov & Hutter 2019, Alg. 2: Adam's m, v + decoupled decay (2 FLOPs)"),
  adafactor = optimizer("adafactor", "Shazeer & Stern 2018, Alg. 4 (beta1 = 0): row and column second moments"),
  adam8bit = optimizer("adam8bit", "Dettmers et al. 2022: Adam's m, v block-wise quantised to 8 bits "
    .. "(+4 bytes of scale per 2048-element block, left out)"),
}
-- The default optimizer of a training step whose caller names none (issue [18] item 2: one
-- rule for every graph source: zoo, ONNX, Hugging Face config.json, hand-built dlb.graph,
-- and for g:stats, the time models and the CLI alike). In order:
-- 1. a model that states its own keeps it: g.model.optimizer, a zoo builder's optimizer=
--    (its spec's default, often its paper's; dlb.models.from_onnx / from_hf optimizer=);
-- 2. else today's practice for the graph's family (dlb.frameworks.family, the rule the
--    default profiles follow; a graph not from the zoo: found from the step's attention):
--    transformer: AdamW (torchtitan's job config optimizer.name = "AdamW"; Hugging Face
--      Trainer's default optim "adamw_torch"; Megatron-LM's --optimizer adam runs Apex
--      FusedAdam with adam_w_mode=True, the decoupled decay); the profile's optimizer
--      implementation (optimizer_impl) applies to it as to the zoo's Adam(W);
--    other (CNNs, RNNs, an MLP): SGD with momentum 0.9 (torchvision's reference recipes,
--      references/classification/train.py: --opt sgd --momentum 0.9);
-- 3. a family that cannot be found (nil): the "other" rule, said so.
-- Returns the optimizer's name and the words the results carry (s.optimizer_source).
M.FAMILY_OPTIMIZER = {
  transformer = { "adamw", "torchtitan, HF Trainer, Megatron-LM" },
  other = { "momentum", "torchvision's reference recipes: SGD, momentum 0.9" },
}
function M.default_optimizer(g, family)
  local m = type(g) == "table" and rawget(g, "model") or nil
  if type(m) == "table" and m.optimizer ~= nil then
    return m.optimizer, "the model's: " .. tostring(m.builder or m.name or "g.model")
  end
  local r = M.FAMILY_OPTIMIZER[family]
  if r then return r[1], "the " .. family .. " family's default, " .. r[2] end
  r = M.FAMILY_OPTIMIZER.other
  return r[1], "the family not found: the other family's default, " .. r[2]
end
doc.doc(M.default_optimizer, "dlb.graph.default_optimizer(g, family) -> name, source",
  "the optimizer g:stats counts when the call names none (one rule for every graph source): "
  .. "the model's own (g.model.optimizer: a zoo builder's or an importer's optimizer=), else "
  .. "the family's: transformer adamw, other (CNNs, RNNs) momentum (torchvision's recipe); "
  .. "family as dlb.frameworks.family gives it (g:stats finds a hand-built graph's from its step)")

-- Optimizer-state bytes per parameter of a weight of shape dims (numbers) under optimizer
-- `name`, fp32 states.
function M.optimizer_state_bytes(name, dims)
  local o = M.optimizers[name]
  if not o then
    local ks = {}
    for k in pairs(M.optimizers) do ks[#ks + 1] = k end
    table.sort(ks)
    require("dlbench.errors").raise("dlb.graph.optimizer_state_bytes: unknown optimizer '"
      .. tostring(name) .. "' (" .. table.concat(ks, ", ") .. ")")
  end
  if type(dims) ~= "table" then dims = {} end
  return o.state_bytes(dims)
end
doc.doc(M.optimizer_state_bytes, "dlb.graph.optimizer_state_bytes(optimizer, dims) -> bytes",
  "optimizer-state bytes per parameter of a weight of shape dims (fp32 states): sgd 0, "
  .. "momentum 4, rmsprop 4, adam 8, adamw 8, adam8bit 2, adafactor 4(r+c)/(rc) for an r x c "
  .. "matrix (4 for vectors)")

-- The weights a freeze target names: a tensor, a Lua pattern matched against weight names,
-- or a list of those; nil: every weight. Returns their ids (an unmatched pattern is an
-- error naming it).
-- Whether tensor t is a weight, without the text of its name and dims (the scans below
-- visit every tensor of a graph; formatting each dim was most of a LoRA model's build).
local function is_weight(g, t)
  local _, _, role = core._graph_tensor_info(g._h, t)
  return role == ROLES.weight
end

local function weights_of(g, what, fname)
  local nt = core.graph_counts(g._h)
  local ids, list = {}, what
  if what == nil then list = { "" } -- every weight: the empty pattern matches every name
  elseif type(what) ~= "table" or getmetatable(what) == Tensor then list = { what } end
  for _, w in ipairs(list) do
    if type(w) == "table" and getmetatable(w) == Tensor then
      if w.graph ~= g then error(fname .. ": tensor of another graph", 3) end
      ids[#ids + 1] = w.id
    elseif type(w) == "string" or w == nil then
      local n = 0
      for t = 0, nt - 1 do
        if is_weight(g, t) and (w == nil or core._graph_tensor_name(g._h, t):find(w)) then
          ids[#ids + 1] = t; n = n + 1
        end
      end
      if n == 0 and w ~= nil then
        error(string.format("%s: no weight's name matches '%s' (a Lua pattern)", fname, w), 3)
      end
    else
      error(fname .. ": expected a weight tensor, a name pattern or a list of them, got " .. type(w), 3)
    end
  end
  return ids
end

function Graph:freeze(what)
  local ids = weights_of(self, what, "g:freeze")
  for _, t in ipairs(ids) do core.graph_freeze(self._h, t, true) end
  return #ids
end
-- Weight-only quantisation: the storage types a frozen weight may take (docs/graph.md
-- "Quantised weights"; element sizes with their block scales in graphs/ir/op_cost.c).
local QUANT = { int8 = true, fp8 = true, nf4 = true, int4 = true, fp16 = true, bf16 = true,
  fp32 = true }
-- What bitsandbytes/transformers leave in 16 bits when they quantise a model: the
-- embeddings (not nn.Linear) and the output head (transformers' get_keys_to_not_convert).
M.quantize_skip = { "wte", "wpe", "embed", "lm_head", "/lora_[AB]$" }
local QUANT_OPTS = { skip = true }
function Graph:quantize(dtype, what, o)
  local fname = "g:quantize"
  if type(dtype) ~= "string" or not QUANT[dtype] then
    error(fname .. ": dtype must be one of int8, fp8, nf4, int4, fp16, bf16, fp32, got "
      .. tostring(dtype), 2)
  end
  if type(what) == "table" and getmetatable(what) ~= Tensor and what[1] == nil and o == nil then
    o, what = what, nil -- g:quantize("nf4", {skip = {...}})
  end
  o = o or {}
  require("dlbench.options").check(o, QUANT_OPTS, fname)
  local skip = o.skip or M.quantize_skip
  if type(skip) == "string" then skip = { skip } end
  if type(skip) ~= "table" then error(fname .. ": skip must be a list of Lua patterns", 2) end
  local dt = core.enum["DLB_DT_" .. dtype:upper()]
  local ids
  if what ~= nil then ids = weights_of(self, what, fname)
  else -- every matrix (rank >= 2) but the skipped names: the linear layers' weights
    ids = {}
    local nt = core.graph_counts(self._h)
    for t = 0, nt - 1 do
      local nd, _, role = core._graph_tensor_info(self._h, t)   -- the rank, without dim text
      if role == ROLES.weight and nd >= 2 then
        local name = core._graph_tensor_name(self._h, t)
        local keep = true
        for _, p in ipairs(skip) do if name:find(p) then keep = false; break end end
        if keep then ids[#ids + 1] = t end
      end
    end
  end
  for _, t in ipairs(ids) do
    core.graph_set_dtype(self._h, t, dt)
    core.graph_freeze(self._h, t, true) -- a quantised weight does not train (QLoRA, sec. 3)
  end
  return #ids
end
doc.doc(Graph.quantize, "g:quantize(dtype[, weight | \"pattern\" | {...}][, {skip=}]) -> count",
  "weight-only quantisation: store weights as int8, fp8, nf4 or int4 (block scales counted: "
  .. "nf4 4.127 bits, int4 4.156 bits per weight) and freeze them; by default every matrix "
  .. "but the embeddings, the output head and LoRA adapters (skip = Lua patterns). QLoRA: "
  .. "dlb.models.llama{..., lora = {...}, quantize = \"nf4\"}")

-- g:unfreeze(what, {own_type =, copy =}): own_type trains the weights in their own element
-- type (their optimizer states in that type, no fp32 master copy: torch.optim on a 16-bit
-- parameter, AdamW's exp_avg = zeros_like(p); dlb_graph_own_type); copy trains them as
-- copies beside their frozen originals, which stay in memory (PEFT's modules_to_save:
-- ModulesToSaveWrapper deep-copies the module and trains the copy): each weight gets a
-- frozen twin "<name>/original" that no op reads.
local UNFREEZE_OPTS = { own_type = true, copy = true }
function Graph:unfreeze(what, o)
  local fname = "g:unfreeze"
  local ids = weights_of(self, what, fname)
  o = require("dlbench.options").check(o, UNFREEZE_OPTS, fname)
  for _, k in ipairs { "own_type", "copy" } do
    if o[k] ~= nil and type(o[k]) ~= "boolean" then
      error(string.format("%s: %s must be true or false, got %s", fname, k, type(o[k])), 2)
    end
  end
  for _, t in ipairs(ids) do
    core.graph_freeze(self._h, t, false)
    core.graph_own_type(self._h, t, o.own_type == true)
    if o.copy then
      local name, dims, dt = core.graph_tensor_info(self._h, t)
      local d = {}
      for i, x in ipairs(dims) do d[i] = tonumber(x) or x end
      local twin = self:weight(name .. "/original", d)
      if dt ~= core.enum.DLB_DT_DEFAULT then core.graph_set_dtype(self._h, twin.id, dt) end
      core.graph_freeze(self._h, twin.id, true)
    end
  end
  return #ids
end
doc.doc(Graph.freeze, "g:freeze([weight | \"pattern\" | {...}]) -> count",
  "freeze weights (all when none is named): no gradient, update or optimizer state for them; "
  .. "gradients still flow through them to what needs them; s.trainable counts the others")
doc.doc(Graph.unfreeze, "g:unfreeze([weight | \"pattern\" | {...}][, {own_type=, copy=}]) -> count",
  "undo g:freeze; own_type = true: train in the weight's own type (optimizer states in it, "
  .. "no fp32 master: torch.optim on a 16-bit parameter); copy = true: train a copy beside a "
  .. "frozen original that stays in memory (PEFT's modules_to_save)")

local LORA_OPTS = { rank = true, targets = true, alpha = true }
-- LoRA (Hu et al. 2021): linear layers built afterwards whose name is a target (the whole
-- name, or its last "/" part) get trainable adapters A [nin, r] and B [r, nout] beside
-- their weight, y = x W + (alpha / r) (x A) B, and every other weight is frozen when the
-- step is analysed.
function Graph:lora(o)
  if type(o) ~= "table" then error("g:lora: options table {rank=, targets={...}[, alpha=]} expected", 2) end
  require("dlbench.options").check(o, LORA_OPTS, "g:lora")
  if not isint(o.rank, 1) then error("g:lora: rank must be an integer >= 1, got " .. tostring(o.rank), 2) end
  local targets = o.targets or { "q", "v" }
  if type(targets) == "string" then targets = { targets } end
  if type(targets) ~= "table" or #targets == 0 then
    error("g:lora: targets must be a list of layer names like {\"q\", \"v\"}", 2)
  end
  local set = {}
  for i, t in ipairs(targets) do
    if type(t) ~= "string" then error("g:lora: targets[" .. i .. "] must be a string", 2) end
    set[t] = true
  end
  if o.alpha ~= nil and type(o.alpha) ~= "number" then error("g:lora: alpha must be a number", 2) end
  local lo = { rank = o.rank, targets = set, alpha = o.alpha or o.rank, list = targets, done = 0, adapters = 0 }
  -- Adapters are made as the target layers are built (nn.linear, the zoo's experts): a target
  -- built before g:lora has none, and would be frozen with the rest (trainable 0 when all are).
  -- Its weight is <layer>/w (nn.linear) or the target's own name (experts, "h0/experts/w1").
  local nt = core.graph_counts(self._h)
  for t = 0, nt - 1 do
    if is_weight(self, t) then
      local wn = core._graph_tensor_name(self._h, t)
      local layer = wn:match("^(.*)/[^/]+$")
      local hit = (layer and M.lora_target({ _lora = lo }, layer) and layer)
        or (M.lora_target({ _lora = lo }, wn) and wn)
      if hit then
        error("g:lora: layer '" .. hit .. "' (a target) was built before g:lora, so it would get "
          .. "no adapters and be frozen: call g:lora before building the layers (or give a zoo "
          .. "model lora = {rank=, targets=})", 2)
      end
    end
  end
  self._lora = lo
  return self
end
doc.doc(Graph.lora, "g:lora{rank=, targets={\"q\", \"v\"}[, alpha=rank]} -> g",
  "LoRA adapters (Hu et al. 2021) on the linear layers built afterwards whose name (or its "
  .. "last /part) is a target: A [nin, rank], B [rank, nout], y = xW + alpha/rank (xA)B; all "
  .. "other weights are frozen. Call it before building: a target built before it, or none "
  .. "built after it, is an error. Zoo models: dlb.models.<name>{..., lora = {rank=, targets=}}")

-- Whether a linear layer named `name` gets LoRA adapters.
function M.lora_target(g, name)
  local lo = rawget(g, "_lora")
  if not lo or type(name) ~= "string" then return false end
  return lo.targets[name] or lo.targets[name:match("[^/]+$") or name] or false
end
doc.doc(M.lora_target, "dlb.graph.lora_target(g, name) -> boolean", "whether nn.linear gives layer `name` LoRA adapters")

-- Under LoRA: freeze the weights made since the last call that are not adapters.
local function apply_lora(g)
  local lo = rawget(g, "_lora")
  if not lo then return end
  local nt = core.graph_counts(g._h)
  for t = lo.done, nt - 1 do
    if is_weight(g, t) then
      lo.weights = true
      if core._graph_tensor_name(g._h, t):find("/lora_[AB]$") then
        lo.adapters = lo.adapters + 1
      else
        core.graph_freeze(g._h, t, true)
      end
    end
  end
  lo.done = nt
  -- weights but no adapter: a step that trains nothing (every weight frozen), never silently;
  -- raised at the user's line (the analysis that asked: g:stats, a plan ...)
  if lo.weights and lo.adapters == 0 then
    require("dlbench.errors").fail("g:lora: no layer built after g:lora is a target (targets: " .. table.concat(lo.list, ", ")
      .. "; a target is a linear layer's name or its last /part), so every weight is frozen and "
      .. "nothing trains: call g:lora before building the target layers, or name layers that exist")
  end
end


-- ZeRO-Offload (Ren et al. 2021) and parameter offload (ZeRO-Infinity, Rajbhandari et al.
-- 2021) of a step with totals t: what leaves the device's memory for the host's, the bytes
-- crossing the host link each step and the device footprint left. Optimizer offload: the
-- optimizer state and fp32 master weights live in host memory and the update runs on the
-- CPU; each step sends the gradients down (trainable params x gradient bytes) and the
-- updated weights back (trainable params x weight bytes) (Ren et al. sec. 4.1). Parameter
-- offload: the weights live in host memory and are fetched for the forward and again for
-- the backward pass (2 x weight bytes); the device keeps the largest layer's weights as a
-- working set (the largest weight tensor without layers). Both are persistent for the
-- whole step, so the footprint drops by their bytes at the peak.
local BYTES = { [0] = 4, 2, 2, 2, 2, 1, 4 } -- element bytes by policy (fp32 ... tf32)
local function offload_of(o, t, a, head)
  local eb = BYTES[o.precision] or 4
  local r = { optimizer = o.offload.optimizer or false, params = o.offload.params or false,
    activations = false, host_bytes = 0, traffic = 0, device_saved = 0 }
  if r.optimizer then
    r.host_bytes = r.host_bytes + t.optimizer
    r.device_saved = r.device_saved + t.optimizer
    r.opt_traffic = t.trainable * (eb + eb) -- gradients down, updated weights up
    r.traffic = r.traffic + r.opt_traffic
    r.cpu_update_flops = t.flops_update
    r.cpu_params = t.trainable               -- what the host's optimizer steps
    r.delayed_update = o.offload.delayed_update or false
  end
  if r.params then
    local keep = 0
    for i = 0, t.nlayers - 1 do
      local _, _, _, _, _, wb = core.analysis_layer(a, i)
      if wb > keep then keep = wb end
    end
    r.host_bytes = r.host_bytes + t.weights
    r.device_saved = r.device_saved + math.max(0, t.weights - keep)
    r.traffic = r.traffic + 2 * t.weights
    r.working_set = keep
  end
  if o.offload.activations then
    -- activation offload (torchtune's and Megatron's CPU offloading of the tensors saved
    -- for backward): they go to the host in the forward pass and come back in the
    -- backward; the device keeps about one layer's, estimated as the activations at the
    -- peak times the largest layer's share of the bytes the layers save (dlb_analysis_op_saved,
    -- the rule of dlb.parallel.layers.from_graph's kept bytes; before issue [19]'s memory fix,
    -- of their forward bytes) (without layers: all stay),
    -- and the output layer's: `head` bytes, what the logits and the loss save (torchtune's
    -- get_act_offloading_ctx_manager wraps the output head in a NoOpManager, "all but the
    -- last output Linear in every step will be offloaded", and the recipe computes the loss
    -- outside the offloading context)
    local _, _, _, Ly = core.analysis_arrays(a)
    local Sv = core.analysis_op_saved(a)
    local per, tot = {}, 0
    for j = 1, #Sv do
      if Sv[j] > 0 and Ly[j] >= 0 then
        per[Ly[j]] = (per[Ly[j]] or 0) + Sv[j]; tot = tot + Sv[j]
      end
    end
    -- the output layer (the last) is kept whole: the largest of the others' shares of the
    -- rest stays with it
    local hd = math.min(t.activations, head or 0)
    local last = -1
    if hd > 0 then for l in pairs(per) do if l > last then last = l end end end
    local big, rest = 0, tot - (per[last] or 0)
    for l, b in pairs(per) do if l ~= last and b > big then big = b end end
    local keep = hd + (rest > 0 and (t.activations - hd) * big / rest or t.activations - hd)
    r.activations = true
    r.activations_kept = keep
    r.device_saved = r.device_saved + (t.activations - keep)
    r.host_bytes = r.host_bytes + (t.activations - keep)
    r.traffic = r.traffic + 2 * (t.activations - keep)
  end
  r.footprint = t.footprint - r.device_saved
  return r
end

-- The offload option of g:stats and dlb.parallel.evaluate/plan: "optimizer", "params",
-- "activations", a list of them or a plan row's "a+b" -> the set {name = true}; nil for nil,
-- false and "none". Anything
-- else is an error naming fname, at error() level `level`: a table with named fields too
-- ({optimizer = true} was read as a list of none, so no offload, with no word).
local OFFLOAD = { optimizer = true, params = true, activations = true, delayed_update = true }
local function offload_set(fname, off, level)
  -- "none" and "optimizer+activations" are how a plan row says what it chose
  -- (parallel_memory.lua), so a row's offload can be given back (review 11: evaluate refused
  -- "none" as an unknown offload)
  if off == nil or off == false or off == "none" then return nil end
  if type(off) == "string" and off:find("+", 1, true) then
    local parts = {}
    for w in off:gmatch("[^+]+") do parts[#parts + 1] = w end
    off = parts
  end
  local function bad(v)
    error(fname .. ": offload must be \"optimizer\", \"params\", \"activations\" or a list of "
      .. "them, got " .. tostring(v) .. " (and with \"optimizer\": \"delayed_update\")", level + 1)
  end
  local list = type(off) == "table" and off or { off }
  local named = {}
  for k in pairs(list) do
    if type(k) ~= "number" or k < 1 or k > #list or k ~= math.floor(k) then named[#named + 1] = tostring(k) end
  end
  table.sort(named) -- the first by name, so both backends name the same one
  if named[1] then bad("a table with the field '" .. named[1] .. "'") end
  local set = {}
  for _, v in ipairs(list) do
    if not OFFLOAD[v] then bad(v) end
    set[v] = true
  end
  -- ZeRO-Offload's one-step delayed parameter update (Ren et al. 2021 sec. 5.2) overlaps the
  -- host's optimizer step with the device's next step: an option of optimizer offload
  if set.delayed_update and not set.optimizer then
    error(fname .. ": offload \"delayed_update\" delays the host's optimizer step: give it with "
      .. "\"optimizer\" ({\"optimizer\", \"delayed_update\"})", level + 1)
  end
  return set
end

M.apply_lora, M.offload_of, M.offload_set = apply_lora, offload_of, offload_set
return M
