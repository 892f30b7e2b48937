-- dlbench.graph_analysis — what dlb.graph counts about a training step: g:stats{...} and
-- g:train{...} (options parsed and checked, bindings, fusion passes, offload, symbolic
-- results), g:flops, g:params, g:type_flops, g:ops, g:layers, g:summary, g:footprint_exact
-- and dlb.graph.si. docs/graph.md "The training step", "Results". graph.lua (which builds
-- the graph: tensors and ops) copies FUSE and si into dlb.graph and M.methods into its
-- graphs' methods.
-- The engine is C (graphs/step/train.c, footprint.c, analysis*.c).
local core = require "dlbench.backend"
local memory = require "dlbench.memory"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local poly = require "dlbench.poly"
local pretty = require "dlbench.pretty"

local base = require "dlbench.graph_base"
local setups = require "dlbench.graph_setups"
local setmetatable, getmetatable, type, error = setmetatable, getmetatable, type, error
local TYPE, OPTIMIZERS, PRECISIONS, PHASES = base.TYPE, base.OPTIMIZERS, base.PRECISIONS, base.PHASES
local isint, keys, numtext = base.isint, base.keys, base.numtext
local apply_lora, offload_of = setups.apply_lora, setups.offload_of

local M = {}
M.methods = {} -- graph methods (g:stats, g:train, g:ops, g:summary, ...)
local Graph = M.methods

local OPTKEYS = { optimizer = true, precision = true, recompute = true, inference = true,
  fuse = true, offload = true, framework = true, schedule = true, accumulation = true }
local frameworks = require "dlbench.frameworks"
local fwmemory = require "dlbench.framework_memory"
-- dlb_analysis_step_loss's DLB_ENOTFOUND (graphs/step/analysis.c): the step has no
-- softmax_xent with a backward op
local NO_LOSS_BWD = "has no softmax_xent loss with a backward op"

-- Fusion passes (graphs/step/fusion.c, DLB_FUSE_*): g:stats{fuse = {"attention", "elementwise",
-- "optimizer"}} or fuse = true (all); the default is the unfused algorithmic graph. The
-- optimizer implementation's passes (a profile's optimizer_impl; docs/frameworks.md):
-- "optimizer_foreach" (PyTorch's foreach AdamW traffic), "optimizer_loop" (a per-parameter
-- loop of elementwise ops, Composer's DecoupledAdamW), "grad_clip" (gradient-norm clipping);
-- the trainer's: "lm_metrics" (a profile's train_metrics: Composer's two language-model train
-- metrics, each an eager cross-entropy over the logits every micro-batch); the loss's:
-- "xent_fp32" (Megatron-LM's vocab-parallel cross-entropy, eager passes over fp32 logits); the
-- attention's projections: "qkv" (Q, K, V as one GEMM h -> 3h, the bias in its epilogue) and
-- "qkv_views" (with qkv: q, k, v read as strided views of its output, no transpose copies);
-- the causal softmax's: "softmax_causal" (Megatron's upper-triangular softmax kernels read the
-- lower triangle; the attention dropout's backward its own kernel); the gradient
-- accumulation's: "grad_accum" (Megatron-LM's local DDP adds every parameter's gradient into
-- its grad buffer after every micro-batch's backward: 3 x the gradient's bytes, one host op
-- and one kernel per parameter tensor; graphs/step/fusion_grad.c).
local C = require("dlbench.desc").const
local FUSE = { attention = C("DLB_FUSE_ATTENTION"), elementwise = C("DLB_FUSE_ELEMENTWISE"),
  optimizer = C("DLB_FUSE_OPTIMIZER"), optimizer_foreach = C("DLB_FUSE_OPT_FOREACH"),
  optimizer_loop = C("DLB_FUSE_OPT_LOOP"), grad_clip = C("DLB_FUSE_GRAD_CLIP"),
  lm_metrics = C("DLB_FUSE_LM_METRICS"), xent_fp32 = C("DLB_FUSE_XENT_FP32"),
  qkv = C("DLB_FUSE_QKV"), qkv_views = C("DLB_FUSE_QKV_VIEWS"),
  softmax_causal = C("DLB_FUSE_SOFTMAX_CAUSAL"), grad_accum = C("DLB_FUSE_GRAD_ACCUM") }
local FUSE_NAMES = "attention, elementwise, optimizer, optimizer_foreach, optimizer_loop, grad_clip, "
  .. "lm_metrics, xent_fp32, qkv, qkv_views, softmax_causal, grad_accum"
M.FUSE = FUSE
local function fuse_bits(v, what)
  if v == nil or v == false then return 0, nil end
  if v == true then return 7, { "attention", "elementwise", "optimizer" } end
  if type(v) ~= "table" then
    error(what .. ": fuse must be true, false or a list of passes (" .. FUSE_NAMES .. "), got "
      .. type(v), 4)
  end
  local bits, names, seen = 0, {}, {}
  for i, name in ipairs(v) do
    local b = FUSE[name]
    if not b then
      error(string.format("%s: fuse[%d] '%s' is not a fusion pass (%s)", what, i,
        tostring(name), FUSE_NAMES), 4)
    end
    if not seen[name] then bits = bits + b; seen[name] = true; names[#names + 1] = name end
  end
  if seen.optimizer_foreach and seen.optimizer_loop then
    error(what .. ": fuse: the optimizer runs either optimizer_foreach or optimizer_loop, not both", 4)
  end
  if seen.qkv_views and not seen.qkv then
    error(what .. ": fuse: qkv_views (q, k, v as views of the fused QKV output) needs qkv", 4)
  end
  for _, k in ipairs(options.keys(v)) do -- sorted: the first refused key is named
    if type(k) ~= "number" then
      error(what .. ": fuse must be a list of passes, got the key '" .. tostring(k) .. "'", 4)
    end
  end
  return bits, names
end

-- Split an options table into engine options and bindings.
local function parse(opts, what)
  opts = opts or {}
  if type(opts) ~= "table" then error(what .. ": options must be a table", 3) end
  local o = { optimizer = 0, precision = 0, recompute = 0, k = 0, inference = false }
  local names, values = {}, {}
  for k, v in pairs(opts) do
    if OPTKEYS[k] then
      -- handled below
    elseif type(k) == "string" and type(v) == "number" then
      names[#names + 1] = k; values[#values + 1] = v
    elseif type(k) == "string" and type(v) == "string" and tonumber(v) then
      error(string.format("%s: binding %s must be a number (a positive integer dim), got the string '%s'",
        what, k, v), 3)
    else
      -- a dim bound to a non-number read as a bad option name alone (review 14: b="x")
      local got = type(k) == "string" and string.format(" (got %s = %s)", k,
        type(v) == "string" and string.format("%q", v) or type(v)) or ""
      error(options.message(k, OPTKEYS, what, nil, options.names(OPTKEYS)
        .. "; bindings: name=number" .. got), 3)
    end
  end
  if opts.optimizer ~= nil then
    o.optimizer = OPTIMIZERS[opts.optimizer]
    if not o.optimizer then error(what .. ": unknown optimizer '" .. tostring(opts.optimizer) .. "' (" .. keys(OPTIMIZERS) .. ")", 3) end
  end
  if opts.precision ~= nil then
    o.precision = PRECISIONS[opts.precision]
    if not o.precision then error(what .. ": unknown precision '" .. tostring(opts.precision) .. "' (" .. keys(PRECISIONS) .. ")", 3) end
  end
  local r = opts.recompute
  if r == nil or r == false or r == "none" then o.recompute = 0
  elseif r == "sqrt" then o.recompute = 2
  elseif r == "marked" then o.recompute = 3
  elseif type(r) == "number" or (type(r) == "table" and type(r.every) == "number") then
    o.recompute, o.k = 1, type(r) == "number" and r or r.every
    if not isint(o.k, 1) then
      error(string.format("%s: recompute = k (layers per segment) must be an integer >= 1, got %s",
        what, numtext(o.k)), 3)
    end
  else
    error(what .. ": recompute must be \"none\", \"sqrt\", \"marked\", k or {every=k} (layers per segment)", 3)
  end
  if opts.inference ~= nil and type(opts.inference) ~= "boolean" then
    error(what .. ": inference must be true or false, got " .. type(opts.inference), 3)
  end
  o.inference = opts.inference and true or false
  -- the memory schedule of a profile's step: "framework" (every gradient held with the
  -- activations of the peak) or "walk" (the backward pass walked: dlb_analysis_step_peak)
  if opts.schedule ~= nil and opts.schedule ~= "framework" and opts.schedule ~= "walk" then
    error(what .. ": schedule must be \"framework\" or \"walk\", got " .. tostring(opts.schedule), 3)
  end
  o.walk = opts.schedule == "walk"
  local acc = opts.accumulation
  if acc ~= nil and (type(acc) ~= "number" or not (acc >= 1 and acc < math.huge)
      or acc ~= math.floor(acc)) then
    error(what .. ": accumulation must be a whole number >= 1 (micro-batches per optimizer "
      .. "step), got " .. tostring(acc), 3)
  end
  if acc ~= nil and not o.walk then
    error(what .. ": accumulation is read by schedule = \"walk\" (the framework schedule holds "
      .. "every gradient already); give schedule = \"walk\" or leave it out", 3)
  end
  o.accumulation = acc or 1
  o.fuse, o.fuse_names = fuse_bits(opts.fuse, what)
    o.fuse_given = opts.fuse ~= nil
    if opts.framework == "auto" then
      -- the default profile (the session's, else the family's): what the time models apply
      if o.fuse_given then error(what .. ": give framework= or fuse=, not both", 3) end
      o.framework = "auto"
    elseif opts.framework ~= nil then
      local ok, p = pcall(frameworks.get, opts.framework, what)
      if not ok then error(p, 0) end -- at the user's line already (frameworks.get)
      if o.fuse_given then
        error(what .. ": give framework= or fuse=, not both (the profile '" .. p.name
          .. "' sets the fusion passes)", 3)
      end
      o.framework = p -- the profile table (a derived one keeps its fields)
    end
  local off = opts.offload
  if off ~= nil and off ~= false then
    o.offload = setups.offload_set(what, off, 4)
    if opts.inference then error(what .. ": offload is for training steps (inference = true given)", 3) end
  end
  o.precision_name = opts.precision or "fp32"
  o.precision_given = opts.precision ~= nil
  -- nil until optimizer_of applies the one default rule (graph_setups.default_optimizer)
  o.optimizer_name, o.optimizer_given = opts.optimizer, opts.optimizer ~= nil
  return o, names, values
end

local function unboundmsg(names, values, g)
  local ok, err = pcall(core.graph_analyze, g._h, 0, 0, 0, 0, true, names, values)
  if ok then return nil end
  return tostring(err)
end

-- g:ops, g:layers, g:summary, g:footprint_exact need numbers: name the call and the dims.
local function needbound(g, s, what)
  if s.symbolic then
    error(string.format("%s: graph '%s' needs every dim bound; no value for %s (pass them, e.g. %s{%s = ...})",
      what, g.name, s.unbound, what, (s.unbound:match("^[%w_]+") or "b")), 3)
  end
end

-- What a printed footprint is: under a framework profile the one memory rule (every
-- trainable gradient held to the optimizer step, as roofline.time's need and the planner's
-- mem), said by nothing; the algorithmic step's is the graph scheduler's own peak, which
-- the line names (roofline.time of these stats prints the framework rule's).
-- inner: the words alone, for a line that puts them in its own parentheses.
local function footprint_label(s, inner)
  local wk = rawget(s, "footprint_walk")
  -- schedule = "walk": says so, and where the peak is
  local dw = type(wk) == "table" and ("backward pass walked, peak at the " .. wk.peak) or nil
  local fm = rawget(s, "framework_memory")
  -- the profile's RMSNorm keeps its fp32 upcast (s.norm_upcast, graphs/step/train.c)
  local nu = rawget(s, "norm_upcast") and "the eager RMSNorm's saved fp32 upcast" or nil
  if type(fm) == "table" or dw or nu then -- the stack's terms, by name (dlbench.framework_memory)
    local d = type(fm) == "table" and fwmemory.describe(fm) or "none"
    d = d ~= "none" and ("with the stack's " .. d) or nil
    if nu then d = d and (d .. "; " .. nu) or ("with " .. nu) end
    if dw then d = d and (dw .. ", " .. d) or dw end
    if d == nil then return "" end
    return inner and (d .. "; ") or (" (" .. d .. ")")
  end
  if rawget(s, "footprint_graph") ~= nil or rawget(s, "offload") ~= nil then return "" end
  if rawget(s, "inference") then return "" end
  if inner then return "graph schedule, each gradient applied as made: " end
  return " (graph schedule: each gradient applied as made)"
end
local stats_tostring -- one line with units (defined after si below)

local SYMBOLIC_ONLY = { footprint = true, breakdown = true, intensity = true, analysis = true,
  footprint_order = true, footprint_heuristic = true }

-- The fusion bits of a list of pass names.
local function bits_of(list)
  local b = 0
  for _, n in ipairs(list) do b = b + FUSE[n] end
  return b
end

-- Whether analysis a holds a fused attention kernel (the attention pass found a pattern).
local function has_attention(a)
  local _, _, _, _, _, K = core.analysis_arrays(a)
  for j = 1, #K do if K[j] == 1 then return true end end
  return false
end

-- The graph's family for the default profile: the zoo's model name, or (a hand-built or
-- imported graph) found once from the step: a transformer when the attention pass finds
-- an attention pattern. Cached per graph generation (dlb_graph_generation: a graph that
-- changes is asked again).
local function family_of(g, names, values, o)
  local f = frameworks.family(g)
  if f then return f end
  local gen = g:generation()
  if rawget(g, "_family_gen") == gen then return rawget(g, "_family") end
  local ok, a = pcall(core.graph_analyze, g._h, o.optimizer, o.precision, o.recompute, o.k,
    o.inference, names, values, FUSE.attention)
  if not ok and tostring(a):find("needs every dim bound", 1, true) then
    -- the family is the step's structure, not its sizes: the dims left unbound (an
    -- imported graph's dim_params) bound to 64 for the look alone, so a symbolic g:stats
    -- picks the default optimizer a bound one does (issue [18] item 2)
    local n2, v2 = {}, {}
    for i = 1, #names do n2[i], v2[i] = names[i], values[i] end
    for v in (tostring(a):match("no value for (.*)$") or ""):gmatch("[%a_][%w_]*") do
      n2[#n2 + 1], v2[#v2 + 1] = v, 64
    end
    ok, a = pcall(core.graph_analyze, g._h, o.optimizer, o.precision, o.recompute, o.k,
      o.inference, n2, v2, FUSE.attention)
  end
  if not ok then return nil end
  f = has_attention(a) and "transformer" or "other"
  rawset(g, "_family", f); rawset(g, "_family_gen", gen)
  return f
end

-- The optimizer of a call that names none: the one default rule (graph_setups.
-- default_optimizer: the model's own, else its family's), the family found as the default
-- profile's is (family_of) only when the model states none. Fills o.optimizer,
-- o.optimizer_name and o.optimizer_source ("given" when the call names one).
local function optimizer_of(self, o, names, values, fam)
  if o.optimizer_given then o.optimizer_source = "given"; return end
  local m = rawget(self, "model")
  if not (type(m) == "table" and m.optimizer ~= nil) then
    fam = fam or family_of(self, names, values, o)
  end
  local name, src = setups.default_optimizer(self, fam)
  o.optimizer = OPTIMIZERS[name]
  if not o.optimizer then
    error("g:stats: the model's default optimizer '" .. tostring(name) .. "' is unknown ("
      .. keys(OPTIMIZERS) .. ")", 3)
  end
  o.optimizer_name, o.optimizer_source = name, src
end

-- The defaults list of a g:stats result's provenance (dlb.frameworks.provenance): the
-- optimizer when the call named none, as dlb.roofline.time says the profile it chose.
local function stats_defaults(o)
  if o.optimizer_given then return {} end
  return { "optimizer " .. o.optimizer_name .. " (" .. o.optimizer_source .. ")" }
end

-- The framework profile of a g:stats call (issue [18]) and, under a profile, its fusion
-- passes into o.fuse: g:stats counts the algorithmic step unless framework= names a profile
-- (fuse= alone: the caller's own switches, as before profiles); the time models
-- (roofline.time, parallel.evaluate/plan) apply the default profile to an algorithmic step
-- they are given (frameworks.origin keeps its graph). Returns prof, psource, fam.
local function profile_of(self, o, names, values)
  local fam = o.framework and family_of(self, names, values, o) or nil
  local prof, psource
  if o.framework == "auto" then
    prof, psource = frameworks.resolve(nil, fam, false, "g:stats")
  elseif o.framework then
    prof, psource = frameworks.resolve(o.framework, fam, false, "g:stats")
  else
    prof = frameworks.get("none")
    psource = o.fuse_given and "explicit switches (fuse=)" or frameworks.ALGORITHMIC
  end
  if o.framework then
    o.fuse_names = frameworks.fuse_of(prof, fam, require("dlbench.mfu").causal(self))
    o.fuse = bits_of(o.fuse_names)
    if #o.fuse_names == 0 then o.fuse_names = nil end
  end
  -- the profile's statement of its norm (prof.norm.upcast: eager model code's RMSNorm keeps
  -- its fp32 upcast for the backward; dlb_train_opts.norm_upcast, counted in
  -- graphs/step/train.c); absent or false: the fused norm's saved tensors, as before
  o.norm_upcast = o.framework and frameworks.norm_upcast(prof) or false
  return prof, psource, fam
end

-- What g:stats(opts) would analyse, without analysing: the training options as the C
-- struct dlb_train_opts (fusion passes of the profile included) and the profile's name,
-- precision and optimizer names (dlb.sweep.model compiles the same step).
function Graph:step_options(opts)
  local o, names, values = parse(opts, "g:step_options")
  apply_lora(self)
  local prof, psource, fam = profile_of(self, o, names, values)
  optimizer_of(self, o, names, values, fam)
  return { optimizer = o.optimizer, precision = o.precision, recompute = o.recompute,
    recompute_k = o.k, inference = o.inference and 1 or 0, fuse = o.fuse,
    norm_upcast = o.norm_upcast and 1 or 0 },
    { framework = prof.name, framework_source = psource, precision = o.precision_name,
      optimizer = o.optimizer_name, optimizer_source = o.optimizer_source,
      precision_given = o.precision_given,
      -- the family the profile was resolved for (family_of): nil under no framework, or
      -- when a hand-built / imported graph's step could not be analysed (a dim unbound)
      family = fam, family_unknown = o.framework ~= nil and fam == nil }
end
doc.doc(Graph.step_options, "g:step_options{g:stats options and bindings} -> train_opts, {framework=, framework_source=, precision=, optimizer=, precision_given=, family=, family_unknown=}",
  "what g:stats would analyse, without analysing: the C training options (the profile's fusion "
  .. "passes included) and the names; family_unknown: a profile applies but the graph's family "
  .. "(a hand-built or imported graph's, found from the step) needs every dim bound; "
  .. "dlb.sweep.model compiles the same step")

function Graph:stats(opts)
  local o, names, values = parse(opts, "g:stats")
  apply_lora(self)
  local prof, psource, fam = profile_of(self, o, names, values)
  optimizer_of(self, o, names, values, fam)
  if o.walk and (not o.framework or prof.name == "none" or o.inference) then
    error("g:stats: schedule = \"walk\" walks a training stack's backward pass: it needs a "
      .. "framework profile other than \"none\" and a training step", 2)
  end
  local ok, a = pcall(core.graph_analyze, self._h, o.optimizer, o.precision, o.recompute, o.k,
    o.inference, names, values, o.fuse, o.norm_upcast)
  local pnote = nil
  if not ok and not o.fuse_given and o.fuse ~= 0
      and tostring(a):find("needs every dim bound", 1, true) then
    -- symbolic counts: the profile's fusion passes need numbers; the algorithmic step
    pnote = "symbolic counts are the unfused step (the profile's fusion passes need every dim bound)"
    o.fuse, o.fuse_names = 0, nil
    ok, a = pcall(core.graph_analyze, self._h, o.optimizer, o.precision, o.recompute, o.k,
      o.inference, names, values, 0, o.norm_upcast)
  end
  if not ok then
    if not tostring(a):find("needs every dim bound", 1, true) then error(a, 2) end
    local unbound = tostring(a)
    if o.fuse ~= 0 then
      error("g:stats: fuse needs every dim bound (the fusion passes work on numbers): "
        .. unbound, 2)
    end
    local p = core.graph_symbolic(self._h, o.optimizer, o.precision, o.recompute, o.k,
      o.inference, names, values, o.norm_upcast)
    local s = { params = poly.wrap(p[1]), flops_fwd = poly.wrap(p[2]), flops_bwd = poly.wrap(p[3]),
      flops_update = poly.wrap(p[4]), flops_recompute = poly.wrap(p[5]), flops = poly.wrap(p[6]),
      bytes = poly.wrap(p[7]), io = poly.wrap(p[8]), precision = o.precision_name,
      optimizer = o.optimizer_name, optimizer_source = o.optimizer_source,
      symbolic = true, convention = core.graph_convention(),
      unbound = unbound:match("no value for (.*)$") or unbound,
        nlayers = self._layers and #self._layers or 0, layers = {}, nops = p.nops,
        framework = prof.name, framework_source = psource, framework_note = pnote,
        norm_upcast = o.norm_upcast or nil,
        provenance = frameworks.provenance(prof, psource, "none (no device)", stats_defaults(o)) }
    for i, l in ipairs(self._layers or {}) do s.layers[i] = l end
    return setmetatable(s, { __index = function(_, k)
      if SYMBOLIC_ONLY[k] then error("s." .. k .. ": " .. unbound, 2) end
    end, __tostring = stats_tostring })
  end
  memory.account()
  local t = core.analysis_totals(a)
  local R = require "dlbench.roofline"
  -- activation offload keeps the output layer's saved tensors (the logits and what the
  -- fused loss saves, 2 activation elements per logit: graph_setups.offload_of)
  local head = o.offload and o.offload.activations
    and 2 * (R.grad_elem(o.precision_name) or 4) * fwmemory.logit_elements(self, names, values) or 0
  local offload = o.offload and offload_of(o, t, a, head) or nil
  -- a stack whose optimizer offload leaves each device gradient in place until zero_grad
  -- (memory.offload_gradients = false: torchao's CPUOffloadOptimizer default) holds them all
  if offload and offload.optimizer and o.framework and fwmemory.offload_keeps_gradients(prof) then
    offload.keeps_gradients = true
  end
  -- the framework schedule (below): every trainable gradient held with the step's largest
  -- activations + workspace (dlb_analysis_act_peak), not those live at the peak of all bytes:
  -- under full recompute that peak is late in the backward with no activation live, and the
  -- rule lost the checkpoints and the layers that run once (issue [18] item 5: GPT-2 under
  -- pytorch-ddp 1.991 GB against the planner's 2.219; dlb_par_layout_eval keeps them). tm:
  -- the totals the memory terms read (the stack's temporaries beyond those activations too)
  local in_bwd = o.framework and type(prof.memory) == "table" and prof.memory.optimizer_in_backward
    and not o.inference or nil
  local fw_rule = o.framework and prof.name ~= "none" and not in_bwd
    and R.holds_all_gradients(offload, o.inference)
  local moved = offload and (offload.params or offload.activations)
  local fw_kept = fw_rule and (not o.walk or moved
    or (type(prof.grad_buffer) == "table" and prof.grad_buffer.persistent))
  local tm, act_peak = t, nil
  if not o.inference and not in_bwd and not moved and R.holds_all_gradients(offload, o.inference) then
    -- (every step the time models may hold under the framework schedule: s.act_peak, read
    -- by dlb.roofline.core_footprint and the planner's layers, framework_memory.sample_bytes)
    local ap = { core.analysis_act_peak(a) }
    act_peak = math.max(ap[5] + ap[6], t.activations + t.workspace)
    if fw_kept and ap[5] + ap[6] > t.activations + t.workspace then
      tm = setmetatable({ activations = ap[5], workspace = ap[6] }, { __index = t })
    end
  end
  local fp, bd = t.footprint, { weights = t.weights, gradients = t.gradients, optimizer = t.optimizer,
                  activations = tm.activations, workspace = tm.workspace }
  if offload then -- the device's footprint; the whole step's stays in offload.footprint_full
    offload.footprint_full = fp
    fp = offload.footprint
    if offload.optimizer then bd.optimizer = 0 end
    if offload.params then bd.weights = offload.working_set end
    if offload.activations then bd.activations = offload.activations_kept end
  end
  -- what the stack allocates beyond the graph's tensors (the profile's memory table): in the
  -- breakdown and the footprint, so every memory rule sees it (dlbench.framework_memory)
  local fwmem = o.framework and fwmemory.terms(prof, self, o.precision_name, names, values,
    o.inference, o.optimizer_name, tm, offload and offload.optimizer) or nil
  if fwmem then
    bd.activations = bd.activations + fwmem.activations
    bd.workspace = bd.workspace + fwmem.workspace
    fp = fp + fwmem.activations + fwmem.workspace
  end
  -- under a framework profile the step is the stack's: every gradient of a weight that
  -- trains is held until the optimizer step (dlb_step_memory's framework schedule, as
  -- PyTorch, DeepSpeed and Megatron-LM run), so the footprint is the one rule roofline.time's
  -- need and the planner's mem apply; the graph scheduler's own peak (each gradient applied
  -- as it is made) stays in s.footprint_graph. The algorithmic step (no profile) keeps it.
  -- Offload: activation or parameter offload keeps every gradient on the device (the rule
  -- roofline.time's need applies: dlb.roofline.holds_all_gradients); optimizer offload sends
  -- each to the host as it is made, and a stack that steps the optimizer in the backward pass
  -- (memory.optimizer_in_backward) frees each as it is applied: both keep the graph
  -- schedule's peak.
  -- schedule = "walk" (branch mem-sched, opt-in): the backward pass walked in the graph's
  -- own op order (dlb_analysis_step_peak: each gradient held from the op that makes it to
  -- the optimizer step, every saved tensor freed at its last use, a recomputed block's
  -- tensors made and freed inside its backward), against the loss's moment (the graph
  -- schedule's peak, at the start of the backward pass, with the stack's loss tensors);
  -- with accumulation > 1 micro-batches the loss moment holds every gradient (autograd
  -- accumulates into .grad across them). A profile whose stack keeps its gradients in a
  -- buffer allocated once (grad_buffer.persistent) and parameter or activation offload keep
  -- the framework schedule. docs/frameworks.md "The backward pass walked".
  local fp_graph
  local walk, walk_kept
  if fw_rule then
    fp_graph = fp
    if fw_kept then
      -- a stack that keeps every gradient in a buffer allocated once (the profile's
      -- grad_buffer: Megatron's contiguous grad buffer, DeepSpeed's gradient partitions) holds
      -- them at every moment of the step; parameter or activation offload: the same rule (the
      -- walk below does not see what the offload moves)
      if o.walk then
        walk_kept = (offload and (offload.params or offload.activations))
          and "parameter or activation offload" or ("the profile's persistent gradient buffer ("
          .. prof.grad_buffer.source .. ")")
      end
      bd.gradients = R.gradients_held(bd.gradients, tonumber(t.trainable), tonumber(t.params),
        o.precision_name, nil)
      -- (activations and workspace: the step's largest, tm above)
      fp = core.roofline_step_memory(0, bd.weights, bd.gradients, bd.optimizer,
        bd.activations + bd.workspace, 0)
    else
      -- the backward pass walked block by block (dlb_analysis_step_peak: each gradient kept
      -- from its making to the optimizer step, saved tensors freed as their backward runs),
      -- and the loss's moment: the graph schedule's peak (the start of the backward pass)
      -- with the stack's loss tensors; the step holds the larger
      local pk = { core.analysis_step_peak(a) }
      local fw_ws = fwmem and fwmem.workspace or 0
      local at_walk = core.roofline_step_memory(0, bd.weights, pk[3], bd.optimizer,
        pk[5] + pk[6] + fw_ws, 0)
      -- gradient accumulation (o.accumulation micro-batches a step): every gradient made by
      -- the first micro-batch's backward stays for the next ones (autograd adds into .grad),
      -- so from the second on the loss moment holds them all
      local held = o.accumulation > 1 and R.gradients_held(bd.gradients, tonumber(t.trainable),
        tonumber(t.params), o.precision_name, nil) or nil
      local g_loss = held or bd.gradients
      local at_loss = core.roofline_step_memory(0, bd.weights, g_loss, bd.optimizer,
        bd.activations + bd.workspace, 0)
      local loss_at = { gradients = g_loss, activations = bd.activations, workspace = bd.workspace }
      -- the loss's two moments (branch walk-loss), where the step has a softmax_xent and the
      -- stack a loss term: the walk's live bytes while the loss op and its backward op run
      -- (dlb_analysis_step_loss), the graph's two logit-sized tensors (2a per element) there
      -- replaced by what the stack's loss holds at that moment (framework_memory's forward
      -- and backward counts); they replace the graph schedule's peak as the loss's moment
      local lt = fwmem and fwmem.terms.loss
      local moment
      -- (a softmax_xent whose logits get no gradient, a metric beside another loss, has no
      -- backward op: no moments to walk, DLB_ENOTFOUND; the graph schedule's peak stays)
      local lm = lt and lt.elements > 0 and { pcall(core.analysis_step_loss, a) } or nil
      if lm and not lm[1] then
        if not tostring(lm[2]):find(NO_LOSS_BWD, 1, true) then error(lm[2], 0) end
        lm = nil
      end
      if lm then
        table.remove(lm, 1)
        local ga = lt.graph_per_element * lt.elements
        local function at(base, per)
          local m = { gradients = held or lm[base + 3],
            activations = lm[base + 5] - ga + per * lt.elements, workspace = lm[base + 6] + fw_ws }
          m.bytes = core.roofline_step_memory(0, bd.weights, m.gradients, bd.optimizer,
            m.activations + m.workspace, 0)
          return m
        end
        local f, b = at(0, lt.forward), at(6, lt.backward)
        moment = b.bytes >= f.bytes and "backward" or "forward"
        loss_at = moment == "backward" and b or f
        at_loss = loss_at.bytes
        lt.at_forward, lt.at_backward = f.bytes, b.bytes
        f.bytes, b.bytes = nil, nil
      end
      walk = { walk = at_walk, loss = at_loss, peak = at_walk >= at_loss and "backward pass" or "loss",
        loss_moment = moment,
        at_walk = { gradients = pk[3], activations = pk[5], workspace = pk[6] + fw_ws },
        at_loss = loss_at, accumulation = o.accumulation }
      if at_walk >= at_loss then
        bd.gradients, bd.activations, bd.workspace = pk[3], pk[5], pk[6] + fw_ws
      else
        bd.gradients, bd.activations, bd.workspace = loss_at.gradients, loss_at.activations,
          loss_at.workspace
      end
      fp = math.max(at_walk, at_loss)
    end
    if offload then offload.footprint = fp end -- the device's, one number
  end
  local saved = nil
  if o.recompute ~= 0 and not o.inference then -- what the recompute policy buys
    local base = core.analysis_totals(core.graph_analyze(self._h, o.optimizer, o.precision, 0, 0,
      false, names, values, o.fuse, o.norm_upcast))
    saved = base.footprint - t.footprint
  end
  local res = pretty.object({
    footprint_saved = saved, offload = offload, optimizer_in_backward = in_bwd, framework_memory = fwmem and fwmem.terms or nil,
    params = t.params, flops = t.flops, flops_fwd = t.flops_fwd, flops_bwd = t.flops_bwd,
    flops_update = t.flops_update, flops_recompute = t.flops_recompute, bytes = t.bytes,
    io = t.io, intensity = t.intensity, footprint = fp, footprint_graph = fp_graph,
    footprint_rule = fp_graph and (walk and "framework schedule, the backward pass walked "
      .. "(each gradient held from its making to the optimizer step, saved tensors freed as "
      .. "their backward runs), peak at the " .. walk.peak or ("framework schedule: weights + "
      .. "every trainable gradient + optimizer + activations + workspace" .. (walk_kept
      and "; schedule = \"walk\" not applied: " .. walk_kept or ""))) or nil,
    footprint_walk = walk, trainable = t.trainable, act_peak = act_peak,
    opt_states = t.opt_states,
    precision_given = o.precision_given,
    footprint_order = t.footprint_order, footprint_heuristic = t.footprint_heuristic,
    breakdown = bd,
    analysis = a, precision = o.precision_name, optimizer = o.optimizer_name,
    optimizer_source = o.optimizer_source, nops = math.floor(t.nops),
    fuse = o.fuse_names, norm_upcast = o.norm_upcast or nil,
    framework = prof.name, framework_source = psource, attention_kernel = prof.attention,
    provenance = frameworks.provenance(prof, psource, "none (no device)", stats_defaults(o)),
    nlayers = math.floor(t.nlayers), layers = core.analysis_layers(a), symbolic = false,
    convention = core.graph_convention(),
    inference = o.inference or nil,
  }, stats_tostring)
  -- (the generation: whether the graph is still the one these stats count)
  frameworks.origin[res] = { graph = self, opts = opts or {}, family = fam, generation = self:generation() }
  return res
end
doc.doc(Graph.stats, "g:stats{bindings..., optimizer=, precision=, recompute=, inference=, fuse=, offload=, framework=, schedule=, accumulation=} -> stats",
  "the step as built (the algorithmic counts) unless framework= names a profile "
  .. "(dlb.frameworks; \"auto\": the default one) whose fusion passes apply; "
  .. "params, flops (fwd/bwd/update/recompute), bytes, io, intensity, footprint, breakdown "
  .. "(and footprint_saved under a recompute policy); optimizer: sgd, momentum, rmsprop, adam, "
  .. "adamw, adafactor, adam8bit; precision: fp32, tf32, fp16, bf16, mixed, mixed_bf16, fp8; "
  .. "offload = \"optimizer\" | \"params\" | both (ZeRO-Offload: s.offload has host_bytes, "
  .. "traffic per step; s.footprint is the device's); schedule = \"walk\" (under a profile): "
  .. "the backward pass walked, each gradient held from its making to the optimizer step "
  .. "(s.footprint_walk; accumulation = micro-batches per step); trainable = params not frozen; "
  .. "polynomials when dims are unbound (footprint then needs every dim bound)")

-- g:train{loss=t, optimizer=..., ...}: mark the loss (if given) and analyse the training
-- step; the same as g:stats once a loss is marked.
function Graph:train(opts)
  opts = opts or {}
  local o = {}
  for k, v in pairs(opts) do if k ~= "loss" then o[k] = v end end
  if opts.loss ~= nil then self:loss(opts.loss) end
  o.inference = nil
  return self:stats(o)
end
doc.doc(Graph.train, "g:train{loss=t, optimizer=, precision=, recompute=, bindings...} -> stats",
  "mark the loss and analyse the expanded training step (g:stats does it once a loss is marked)")

-- g:flops and g:params count the algorithmic step: no framework profile unless one is given
-- (a profile's fused kernels may recompute, e.g. FlashAttention's backward: hardware FLOPs)
local function algorithmic(b)
  if type(b) ~= "table" or b.framework ~= nil or b.fuse ~= nil then return b end
  local c = { framework = "none" }
  for k, v in pairs(b) do c[k] = v end
  return c
end
function Graph:flops(b) return self:stats(algorithmic(b or {})).flops end
function Graph:params(b) return self:stats(algorithmic(b or {})).params end
doc.doc(Graph.flops, "g:flops{bindings} -> number or poly", "FLOPs of the algorithmic training step "
  .. "(s.flops with framework = \"none\" unless framework= or fuse= is given)")
doc.doc(Graph.params, "g:params{bindings} -> number or poly", "parameter count")

-- Forward FLOPs of the ops of one type, as a poly (bindings optional).
function Graph:type_flops(tname, b)
  local names, values = {}, {}
  if b ~= nil and type(b) ~= "table" then error("g:type_flops: bindings must be a table", 2) end
  for k, v in pairs(b or {}) do
    if type(k) ~= "string" or type(v) ~= "number" then
      error(string.format("g:type_flops: binding %s must be a number (a positive integer dim), got %s",
        tostring(k), type(v)), 2)
    end
    names[#names + 1] = k; values[#values + 1] = v
  end
  TYPE = TYPE -- validate the name with a clear error
  local _ = TYPE[tname]
  return poly.wrap(core.graph_symbolic_type(self._h, tname, names, values))
end
doc.doc(Graph.type_flops, "g:type_flops(type[, bindings]) -> poly", "forward FLOPs of the ops of one type, e.g. \"matmul\"")

-- The attention patterns (the chains g:stats{fuse = {"attention"}} fuses: scores = Q K^T, scale,
-- at most one mask, softmax, dropout, P V; graphs/step/fusion.c): how many, how many with a
-- mask the ONNX importer read as causal (docs/import.md "Causal attention"), and the forward
-- FLOPs of their two matmuls (all, and the causal ones' alone) as polys.
function Graph:attention(b)
  local names, values = {}, {}
  if b ~= nil and type(b) ~= "table" then error("g:attention: bindings must be a table", 2) end
  for k, v in pairs(b or {}) do
    if type(k) ~= "string" or type(v) ~= "number" then
      error(string.format("g:attention: binding %s must be a number (a positive integer dim), got %s",
        tostring(k), type(v)), 2)
    end
    names[#names + 1] = k; values[#values + 1] = v
  end
  local n, c = core.graph_attention_count(self._h)
  return { count = n, causal = c,
    flops = poly.wrap(core.graph_symbolic_attention(self._h, -1, names, values)),
    flops_causal = poly.wrap(core.graph_symbolic_attention(self._h, 1, names, values)) }
end
doc.doc(Graph.attention, "g:attention([bindings]) -> {count=, causal=, flops=poly, flops_causal=poly}",
  "the attention patterns the attention fusion finds: how many, how many with a causal mask read "
  .. "from an ONNX file, and the forward FLOPs of their score and value matmuls")

function Graph:ops(opts)
  local s = self:stats(opts)
  needbound(self, s, "g:ops")
  local a = s.analysis
  local F, B, P, L, T = core.analysis_arrays(a)
  -- the further host ops and kernels a profile's pass counts on an op (its eager ops:
  -- dlb_analysis_op_more): an op that does work issues one of each and those
  local Mo = core.analysis_op_more(a)
  local layers = s.layers
  local rows = {}
  for i = 1, #F do
    local l = L[i]
    local w = (F[i] > 0 or B[i] > 0) and 1 or 0
    rows[i] = { name = core.analysis_op_name(a, i - 1), type = core.graph_op_type_name(T[i]),
      phase = PHASES[P[i]], flops = F[i], bytes = B[i],
      intensity = B[i] > 0 and F[i] / B[i] or 0, layer = l + 1, layer_name = l >= 0 and layers[l + 1] or nil,
      -- (whole counts: math.floor gives Lua 5.4 an integer, so both backends print 11, not 11.0)
      host_ops = w > 0 and math.floor(w + Mo[2 * i - 1]) or 0,
      kernels = w > 0 and math.floor(w + Mo[2 * i]) or 0 }
  end
  return rows
end
doc.doc(Graph.ops, "g:ops{bindings...} -> {{name=, type=, phase=, flops=, bytes=, intensity=, layer=, host_ops=, kernels=}, ...}",
  "per-op rows of the training step (all dims bound); host_ops, kernels: what the host issues "
  .. "and the device launches for the op (1 each for an op that does work, more where a "
  .. "profile's pass counts a stack's eager ops on it: lm_metrics, xent_fp32, grad_accum; 0 without "
  .. "work)")

-- Per-layer costs for pipeline partitioning.
function Graph:layers(opts)
  local s = self:stats(opts)
  needbound(self, s, "g:layers")
  local rows = {}
  for i, name in ipairs(s.layers) do
    local p, f, b, u, act, wb = core.analysis_layer(s.analysis, i - 1)
    rows[i] = { name = name, index = i, params = p, flops_fwd = f, flops_bwd = b,
      flops_update = u, activations_out = act, weight_bytes = wb }
  end
  return rows
end
doc.doc(Graph.layers, "g:layers{bindings...} -> {{name=, params=, flops_fwd=, flops_bwd=, flops_update=, activations_out=, weight_bytes=}, ...}",
  "per-layer costs of the step (g:layer scopes): activations_out = bytes of forward activations sent to other layers")

-- Rounding done here, not by the C library's printf (Lua 5.4) or LuaJIT's own formatter,
-- which round halfway cases (0.125) differently: both backends print the same text.
local function round2(x)
  if x ~= x or x == math.huge or x == -math.huge then return x end
  return (x < 0 and -math.floor(-x * 100 + 0.5) or math.floor(x * 100 + 0.5)) / 100
end
local si = pretty.si
M.si = si

-- "stats: training step (adam, fp32), 25.6 M params, 784 GFLOP (fwd 264 G, bwd 520 G), 27 GB
-- moved (29.1 FLOP/B), footprint 2.93 GB": what the REPL shows for g:stats{...}.
stats_tostring = function(s)
  local function n(x) return type(x) == "number" and x or nil end
  local what = string.format("stats: %s step (%s, %s)", rawget(s, "inference") and "inference" or "training",
    tostring(rawget(s, "optimizer")), tostring(rawget(s, "precision")))
  if rawget(s, "symbolic") then
    return string.format("%s, symbolic (unbound %s): params %s, FLOPs %s; dlb.pretty.full(s) for every field",
      what, tostring(rawget(s, "unbound")), tostring(rawget(s, "params")), tostring(rawget(s, "flops")))
  end
  local p = (si(n(s.params) or 0, ""):gsub("%s+$", "")) .. " params"
  if n(s.trainable) and s.trainable ~= s.params then
    p = p .. " (" .. si(s.trainable, "") .. " trainable)"
  end
  local out = { what, p,
    string.format("%s (fwd %s, bwd %s)", si(s.flops, "FLOP"), si(s.flops_fwd, "FLOP"), si(s.flops_bwd, "FLOP")),
    string.format("%s moved (%.3g FLOP/B)", si(s.bytes, "B"), s.intensity),
    "footprint " .. si(s.footprint, "B") .. footprint_label(s) }
    local fw = rawget(s, "framework")
    if fw then
      local src = tostring(rawget(s, "framework_source") or "")
      out[#out + 1] = src == frameworks.ALGORITHMIC and "algorithmic step (framework none)"
        or ("framework " .. fw)
    end
  return table.concat(out, ", ")
end

function Graph:summary(opts)
  local s = self:stats(opts)
  needbound(self, s, "g:summary")
  local F, B, P, _, T = core.analysis_arrays(s.analysis)
  local by, order = {}, {}
  for i = 1, #F do
    local k = core.graph_op_type_name(T[i])
    local r = by[k]
    if not r then r = { type = k, n = 0, flops = 0, bytes = 0, fwd = 0, bwd = 0 }; by[k] = r; order[#order + 1] = r end
    r.n = r.n + 1
    r.flops = r.flops + F[i]
    r.bytes = r.bytes + B[i]
    if P[i] == 0 then r.fwd = r.fwd + F[i] else r.bwd = r.bwd + F[i] end
  end
  table.sort(order, function(x, y) return x.flops > y.flops or (x.flops == y.flops and x.type < y.type) end)
  local out = {}
  local bind = {}
  for k, v in pairs(opts or {}) do bind[#bind + 1] = tostring(k) .. "=" .. tostring(v) end
  table.sort(bind)
  out[#out + 1] = string.format("graph '%s': %s step, %d ops%s", self.name,
    (opts or {}).inference and "inference" or "training", #F,
    #bind > 0 and (" (" .. table.concat(bind, " ") .. ")") or "")
  out[#out + 1] = string.format("%-20s %7s %12s %7s %12s %7s %8s", "op type", "count", "FLOPs",
    "share", "bytes", "share", "FLOP/B")
  for _, r in ipairs(order) do
    out[#out + 1] = string.format("%-20s %7d %12s %6.2f%% %12s %6.2f%% %8.2f", r.type, r.n,
      si(r.flops, "FLOP"), round2(s.flops > 0 and 100 * r.flops / s.flops or 0), si(r.bytes, "B"),
      round2(s.bytes > 0 and 100 * r.bytes / s.bytes or 0), round2(r.bytes > 0 and r.flops / r.bytes or 0))
  end
  out[#out + 1] = string.format("%-20s %7d %12s %7s %12s %7s %8.2f", "total", #F, si(s.flops, "FLOP"),
    "100%", si(s.bytes, "B"), "100%", round2(s.intensity))
  out[#out + 1] = string.format("FLOPs fwd %s, bwd %s, update %s, recompute %s; params %.0f; io %s",
    si(s.flops_fwd, "FLOP"), si(s.flops_bwd, "FLOP"), si(s.flops_update, "FLOP"),
    si(s.flops_recompute, "FLOP"), s.params, si(s.io, "B"))
  local b = s.breakdown
  out[#out + 1] = string.format("footprint %s (%sweights %s, gradients %s, optimizer %s, activations %s, workspace %s)",
    si(s.footprint, "B"), footprint_label(s, true), si(b.weights, "B"), si(b.gradients, "B"), si(b.optimizer, "B"),
    si(b.activations, "B"), si(b.workspace, "B"))
  out[#out + 1] = s.convention
  local text = table.concat(out, "\n")
  print(text)
  return pretty.shown(text) -- printed: the REPL does not echo it
end
doc.doc(Graph.summary, "g:summary{bindings...} -> text",
  "print a profiler-style table by op type with FLOP and byte shares, and the FLOP convention; "
  .. "returns the text (the REPL does not print it twice)")

function Graph:dot() return core.graph_dot(self._h) end
doc.doc(Graph.dot, "g:dot() -> string", "Graphviz DOT text of the forward graph")

-- The exact minimal footprint by exhaustive search (steps of at most 20 ops).
function Graph:footprint_exact(opts)
  local s = self:stats(opts)
  needbound(self, s, "g:footprint_exact")
  return core.analysis_exact(s.analysis)
end
doc.doc(Graph.footprint_exact, "g:footprint_exact{bindings...} -> bytes",
  "minimal footprint over all op orders (exhaustive; at most 20 ops in the step)")

-- The fusion passes of a fuse= value (true, false or a list of pass names), checked: bits and
-- names; errors name `what`. dlb.frameworks.derive checks a profile's fuse with it.
M.fuse_bits = fuse_bits

return M
