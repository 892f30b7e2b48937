-- validation_rows.lua — how notebooks/validation.lua turns a row of the validation data
-- (notebooks/data/validation_runs.lua, validation_runs_moe.lua, vtrain_runs.lua) into a
-- prediction: the row's framework profile, its model's per-layer costs (built once per
-- model, precision and profile), its layout as dlb.parallel.evaluate options (or the
-- planner's best layout when the source states none), the cluster, and the measured
-- samples/s per device in the row's own unit. Split out of validation.lua (which is the
-- study: calibration and report) so that each file holds one concept.
--   local V = dofile("notebooks/lib/validation_rows.lua")(dlb)
--   V.setup(row[, {unscored =, profile =}]) -> s | nil, why;  V.predict(s, hw[, ceff]) -> samples/s, row
--   V.measured(row, s) -> samples/s, how;  V.excluded(row) -> why | nil;  V.cluster(s, ceff)
--   V.settings(row, s) -> the settings it ran with;  V.note(notes, row, settings) -> text
--   V.nccl_allreduce(dir) -> the vTrain node's nccl-tests rows for calibrate_collective
return function(dlb)
local P = dlb.parallel

-- the graph engine's precision for a row's, and the device precision whose peak applies
local GRAPH_PREC = { mixed = "mixed", mixed_bf16 = "mixed_bf16", fp16 = "fp16", bf16 = "bf16",
  fp32 = "fp32", tf32 = "fp32", fp8 = "mixed_bf16" }
local DEV_PREC = { mixed = "mixed", mixed_bf16 = "mixed_bf16", fp16 = "fp16", bf16 = "bf16",
  fp32 = "fp32", tf32 = "tf32", fp8 = "fp8" }

-- The software stack of each row, as a framework profile (dlb.frameworks: one file each
-- under lua/dlbench/frameworks/, with sources). The profile gives the fusion passes
-- (FlashAttention and fused elementwise/optimizer kernels in the 2023-24 stacks: NeMo /
-- Transformer Engine, llm-foundry, torchtitan, MaxText/XLA, PaLM on XLA; Megatron-LM
-- 2021-22's fused softmax and bias-GeLU kernels and apex FusedAdam, no FlashAttention;
-- the NGC containers' apex/cuDNN fused kernels; PyTorch 1.x eager for the DeepLearningExamples
-- ResNet-50 rows (BN, ReLU and the residual add as separate kernels, torch.optim stepping
-- tensor by tensor); TBD's TensorFlow 1.x graphs unfused), the attention kernel, the
-- gradient-reduction overlap and how ZeRO-3 gathers parameters. Matched on the row's
-- framework text, first match wins.
local PROFILE = {
  -- NeMo AutoModel is NeMo's PyTorch-native stack (FSDP2 + Transformer Engine's kernels +
  -- DeepEP), not its Megatron-Core one: matched before "NeMo" (issue 27, set before any
  -- AutoModel row was predicted)
  { "AutoModel", "fsdp2" },
  { "NeMo", "nemo" },
  { "Megatron-LM + DeepSpeed ZeRO-3", "deepspeed-zero3" },
  { "Megatron-LM + DeepSpeed", "deepspeed-zero1" },   -- MT-NLG: DeepSpeed pipeline + Megatron TP
  { "Megatron-LM", "megatron-lm" },
  { "torchtitan", "torchtitan" },
  { "Megatron-Core", "megatron-core" },
  -- Llama 3's own stack (FSDP + TP + PP + CP in PyTorch): torchtitan is PyTorch's open
  -- version of the same 4-D parallelism, the nearest profile
  { "Llama 3 training stack", "torchtitan" },
  { "PyTorch FSDP", "fsdp" },
  { "PyTorch (NGC 21.03)", "pytorch1-ddp" },
  { "NGC", "ngc" },
  { "JAX", "maxtext" },
  { "TensorFlow", "tensorflow1" },
}
local function profile_of(r)
  local f = r.framework or ""
  for _, p in ipairs(PROFILE) do
    if f:find(p[1], 1, true) then return dlb.frameworks.get(p[2]) end
  end
  error("validation_rows.profile_of: row " .. tostring(r.id) .. ": no framework profile for its "
    .. "framework '" .. f .. "' (PROFILE above lists the texts matched)", 0)
end

-- A row's failure, naming the helper and the row (review 13: a row with an unknown device or
-- model builder, or none at all, raised "attempt to call a nil value" or the device's error
-- without the row's id). Raised at level 0: the notebook prints it as the row's skip reason.
local function fail(fn, r, msg)
  error(string.format("validation_rows.%s: row %s: %s", fn, tostring(type(r) == "table" and r.id or r),
    require("dlbench.errors").strip(msg)), 0)
end

-- Per-row setup: model layers (cached), device, layout; nil and a reason when the row
-- cannot be predicted.
-- Rows whose source lacks what the model needs, excluded from scoring with the reason
-- printed (docs/validation.md lists them). Decided from the row's recorded facts only.
local function excluded(r)
  if r.note and r.note:find("--unpad", 1, true) then
    return "padding removed (--unpad): the source does not give the mean tokens per "
      .. "sequence the run computed, so its FLOPs per sample are unknown"
  end
  if r.note and r.note:find("LDDL sequence binning", 1, true) then
    return "binned phase 2 (the source's changelog, January 2022: 'Binned pretraining for "
      .. "phase2 with LDDL using a bin size of 64'): a batch is padded only to its 64-token "
      .. "bin, so the 512 phase computed fewer than 512 tokens per sequence (its tokens/s are "
      .. "1.45x the 128 phase's); the source does not give the mean, so its FLOPs per sample "
      .. "are unknown"
  end
end

-- The set-up's options (o, optional):
--   unscored = true: set up a row excluded from scoring too (the notebook shows them);
--   profile = a framework profile (a name, or a table from dlb.frameworks.get / derive):
--     used instead of the one the row's framework text picks (profile_of), e.g. a derived
--     profile that changes one field to measure its share (tests/lua/fsdp_rows.lua, its
--     callers). Everything else is the row's, as for the notebook.
local SETUP_OPTS = { unscored = true, profile = true }
-- the layers' cache (layers and causal model FLOPs) is by profile name; a caller's profile
-- (maybe derived: the same name, other fields) gets a cache of its own, by the table (weak
-- keys: under Lua 5.4 released with the profile)
local OWN = setmetatable({}, { __mode = "k" })
local ROWS_CACHE = { layers = {}, causal = {} }
local function setup(r, o)
  local opt = require "dlbench.options"
  if type(r) ~= "table" or type(r.model) ~= "table" then
    fail("setup", r, "a row must be a table {id=, hw=, precision=, framework=, model={builder=, opts=}, "
      .. "devices=, layout=, measured=} (notebooks/data/validation_runs.lua), got " .. type(r)
      .. (type(r) == "table" and " without model=" or ""))
  end
  o = opt.check(o, SETUP_OPTS, "validation_rows.setup", 2)
  opt.switches(o, { "unscored" }, "validation_rows.setup", 2)
  local why = excluded(r)
  if why and not o.unscored then return nil, why end
  local okh, hw = pcall(dlb.hw.get, r.hw)
  if not okh then fail("setup", r, hw) end
  local gp, dprec = GRAPH_PREC[r.precision], DEV_PREC[r.precision]
  if not gp then return nil, "precision " .. tostring(r.precision) end
  if not hw.peak[hw:precision(dprec) ] then return nil, "no peak" end
  local prof, cache = profile_of(r), ROWS_CACHE
  if o.profile ~= nil then
    prof = dlb.frameworks.get(o.profile, "validation_rows.setup: profile")
    OWN[prof] = OWN[prof] or { layers = {}, causal = {} }
    cache = OWN[prof]
  end
  -- an fp8 row runs Transformer Engine's quantisation kernels (dlbench.te_fp8, issue [21]
  -- fourth round): its profile's recipe, or the one the row's source states (r.fp8: the
  -- Megatron-Bridge FP8-CS / FP8-MX columns, Composer's amp_fp8), as a derived profile
  -- and the MoE layer's implementation the row's recipe states (r.moe: the planner's
  -- moe_impl, "mcore" for Megatron-Bridge's Qwen3 recipes; issue [21], branch finegrained)
  local te8, derived = nil, {}
  if r.moe then derived.moe = r.moe end
  if r.precision == "fp8" and r.fp8 then
    local f = {}
    for k, v in pairs(prof.fp8 or {}) do f[k] = v end
    for k, v in pairs(r.fp8) do f[k] = v end
    derived.fp8 = f
  end
  -- (derived from the profile itself: a caller's derived profile keeps its own fields)
  if next(derived) then prof = dlb.frameworks.derive(prof, derived) end
  if r.precision == "fp8" then
    local sc, wc = require("dlbench.te_fp8").recipe(prof, "validation")
    te8 = sc and (sc .. "/" .. wc) or nil
  end
  -- the model's layers, built once per model, precision and profile (the vTrain sets share
  -- a few dozen models over 1,549 rows)
  local mkey = r.model.builder .. "|" .. gp .. "|" .. prof.name .. "|" .. tostring(te8)
  local okeys = {}
  for k in pairs(r.model.opts) do okeys[#okeys + 1] = k end
  table.sort(okeys)
  for _, k in ipairs(okeys) do mkey = mkey .. "|" .. k .. "=" .. tostring(r.model.opts[k]) end
  local ls = cache.layers[mkey]
  if not ls then
    local okg, g = pcall(dlb.models.build, r.model.builder, r.model.opts)
    if not okg then fail("setup", r, g) end
    -- the profile's fusion passes, and its attention kernel's causal masking
    -- (dlb.frameworks.causal_skip); prepared: copied into C once, for the thousands of
    -- evaluations of the calibrations
    ls = P.prepare(P.layers.from_graph(g, { precision = gp, framework = prof,
      fp8 = te8 ~= nil }))
    cache.layers[mkey] = ls
    -- model FLOPs per sample with a causal decoder's attention matmuls counted half
    -- (dlbench.mfu's attention_flops = "causal"), for rows whose source counts so
    -- (the layers' forward + backward less the fused attention's backward recompute they
    -- hold: model FLOPs, dlbench.mfu.layers_fwdbwd)
    local mfu = require "dlbench.mfu"
    local _, causal = mfu.attention_fwd(g)
    local fb = mfu.layers_fwdbwd(ls)
    cache.causal[mkey] = causal and (mfu.model_flops(fb, 1, g, nil, nil, "model", "causal")) or false
  end
  local L = r.layout or {}
  local tp, pp = L.tp, L.pp
  if not tp and L.mp then
    tp = math.min(L.mp, 8); pp = L.mp / tp
  end
  local n = r.devices
  local seq = r.seq or (r.model.opts and r.model.opts.seq) or 1
  local fwd, bwd = 0, 0
  for _, l in ipairs(ls) do fwd = fwd + l.flops_fwd; bwd = bwd + l.flops_bwd end
  -- the row's recompute policy as the planner runs it (issue [19], third round): full; or
  -- selective where the profile's selective is Megatron's (Megatron-LM, Megatron-Core, NeMo:
  -- recompute_granularity "selective"), with the modules the row states
  -- (layout.recompute_modules, Megatron-Core's --recompute-modules: the planner's
  -- recompute_modules, issue 27; none stated: its default, core_attn, Korthikanti et al.
  -- 2022's attention core);
  -- torchtitan's layer-level selective AC (layout.recompute_every = k: every k-th block
  -- fully checkpointed) as full recompute on those blocks (issue [18]/[19], branch fsdp4);
  -- torchtitan's per-op selective AC (layout.recompute = "selective_op") as the planner's
  -- policy of that name where the profile offers it (issue [18], branch sac); MaxText's
  -- policies are other policies, not modelled (no recompute, as before)
  local rc = L.recompute == "full"
  local mods = L.recompute_modules
  local core_in = mods == nil
  for _, m in ipairs(mods or {}) do core_in = core_in or m == "core_attn" end
  if L.recompute == "selective" and prof.selective == "attention core" then
    rc = "selective"
  end
  if L.recompute == "selective" and L.recompute_every then rc = true end
  if L.recompute == "selective_op" and dlb.frameworks.offers(prof, "selective_op") then
    rc = "selective_op"
  end
  -- the attention core's forward FLOPs (selective recompute's, in HFU, when core_attn is
  -- among its modules; the per-op policy's and the other modules' recomputed FLOPs are the
  -- planner's, its hfu: hw_fps counts none of them, and no row of those states hardware
  -- FLOPs)
  local cfl = 0
  for _, l in ipairs(ls) do cfl = cfl + (l.flops_core or 0) end
  local s = { ls = ls, hw = hw, dprec = dprec, seq = seq, n = n, recompute = rc, fuse = prof.name,
    nics = r.nics,
    framework = r.framework, profile = prof.name, prof = prof, te8 = te8,
    -- model FLOPs: no recompute, the fused attention's backward recompute left out (it is
    -- in the layers' flops_bwd: hardware FLOPs, in hw_fps)
    model_fps = require("dlbench.mfu").layers_fwdbwd(ls),
    hw_fps = fwd + bwd + (rc == true and fwd / (L.recompute_every or 1)
      or ((rc == "selective" and core_in) and cfl or 0)) }
  s.model_causal_fps = cache.causal[mkey] or nil
  local micro = L.micro_batch or 1
  local gb = L.global_batch
  if tp or pp or L.dp then
    tp, pp = tp or 1, pp or 1
    local cp = L.cp or 1                  -- context parallelism: its own degree (issue [21])
    local dp = n / (tp * pp * cp)
    if dp ~= math.floor(dp) then return nil, "devices do not split into tp x pp x cp" end
    gb = gb or micro * dp * (L.grad_accum or 1)
    local m = gb / (dp * micro)
    if m ~= math.floor(m) or m < 1 then
      micro = 1; m = gb / dp
      if m ~= math.floor(m) or m < 1 then return nil, "batch does not split over dp" end
    end
    s.cfg = { dp = dp, tp = tp, pp = pp, m = m, batch = gb,
      -- what the row does not state is left nil: the planner's default, or the profile's
      -- (dlb.frameworks.plan_defaults: its ZeRO stage, sequence parallelism, reduce dtype ...),
      -- as a plain dlb.parallel.evaluate call with the profile gets it (tests/lua/
      -- test_validation_rows.lua). `zero = L.zero or 0` here ran the NeMo / Megatron-Core
      -- rows without their distributed optimizer (issue [21]/[18], branch zero-default)
      schedule = L.schedule, v = L.interleave, recompute = rc, zero = L.zero,
      recompute_every = L.recompute_every,
      recompute_modules = rc == "selective" and mods or nil,
      cp = cp, ep = L.ep, cp_algo = L.cp_algo, etp = L.etp,
      -- the MoE token dispatcher where the source states it (layout.moe_dispatcher: the
      -- Megatron-MoE-ModelZoo rows' DeepEP; issue [21], branch deepep)
      moe_dispatcher = L.moe_dispatcher,
      -- Megatron-Core's combined 1F1B all-to-all overlap where the source states it
      -- (layout.moe_a2a_overlap: a Megatron-Bridge preset's moe_a2a_overlap; issue 27,
      -- branch moe-bulk)
      moe_a2a_overlap = L.moe_a2a_overlap,
      -- the pipeline's split where the source states it (layout.pp_split = "layers":
      -- Megatron-Core's account_for_embedding_in_pipeline_split and
      -- account_for_loss_in_pipeline_split, the planner's balance "layers"; issue [21],
      -- branch qwen235); otherwise the planner's split balanced by the layers' FLOPs
      balance = L.pp_split,
      -- sequence parallelism where the source states it (issue [19], third round: its
      -- time, LayerNorm and dropout on 1/tp of the sequence and the reduce-scatter +
      -- all-gather pairs, as well as its memory)
      seq_par = L.sequence_parallel,   -- a stated false stays false (not the profile's)
      -- the gradients' reduce dtype where the source states it (the llm-foundry rows' MP
      -- Mode column); otherwise the profile's (dlb.frameworks plan defaults)
      reduce_dtype = L.reduce_dtype }
  else
    gb = gb or micro * n
    s.plan = { batch = gb, devices = n }
  end
  s.batch = gb
  s.micro = micro   -- the micro-batch it runs with (the row's; 1 where the batch does not split so)
  return s
end

-- ceff (default 1): the achieved fraction of the links' bandwidth the row's collectives
-- reach (a CALIBRATION per framework profile, below), applied to both tiers.
-- s.intra (a link table): the row's cluster's node tier as CALIBRATED from that cluster's
-- own collective measurements (the vTrain rows: notebooks/validation.lua), in place of the
-- device's links.intra.
local function cluster(s, ceff)
  local per = s.hw.kind == "tpu" and s.n or 8   -- a TPU slice is one ICI tier
  local o = { hw = s.hw, per_node = math.min(per, s.n), nodes = math.ceil(s.n / math.min(per, s.n)),
    nics = s.nics, intra = s.intra }
  if ceff and ceff < 1 then
    for _, tier in ipairs { "intra", "inter" } do
      local l = s.hw.links[tier]
      if l then o[tier] = { bw = l.bw, latency = l.latency, eff = ceff } end
    end
  end
  return P.cluster(o)
end

-- Predicted samples/s per device of a row's setup on device hw (maybe calibrated), its
-- collectives at ceff of the links' bandwidth (nil: 1).
local function predict(s, hw, ceff)
  if type(s) ~= "table" or s.ls == nil then
    error("validation_rows.predict: s must be a row's set-up (V.setup's), got " .. type(s), 2)
  end
  -- the profile's planner settings (overlap, how ZeRO-3 gathers) come with framework=
  local o = { layers = s.ls, hw = hw, precision = s.dprec, cluster = cluster(s, ceff),
    framework = s.prof }
  local r
  if s.cfg then
    for k, v in pairs(s.cfg) do o[k] = v end
    -- DeepSpeed's ZeRO-3 of 2021 gathered parameter by parameter (the deepspeed-zero3
    -- profile's gather = {unit = "tensor", tensors = 12}); FSDP one flat buffer per block
    r = P.evaluate(o)
  else
    o.batch, o.devices, o.table = s.plan.batch, s.plan.devices, false
    o.recompute = s.recompute or nil
    local ok, t = pcall(P.plan, o)
    if not ok then o.keep_unfit = true; t = P.plan(o) end
    r = t[1]
    s.chosen = string.format("planner: dp %d tp %d pp %d", r.dp, r.tp, r.pp)
  end
  return r.throughput / s.n, r
end

-- Measured samples/s per device, and how it was derived (nil and why: no unit it converts).
local function measured(r, s)
  local m = type(r) == "table" and r.measured
  if type(m) ~= "table" then fail("measured", r, "measured= must be a table, got " .. type(m)) end
  if type(s) ~= "table" or s.hw == nil then fail("measured", r, "s must be the row's V.setup, got " .. type(s)) end
  local function per_dev(x) return m.per == "system" and x / s.n or x end
  if m.samples_per_s then return per_dev(m.samples_per_s), "samples/s" end
  if m.tokens_per_s then return per_dev(m.tokens_per_s) / s.seq, "tokens/s" end
  if m.step_time then return s.batch / m.step_time / s.n, "step time" end
  if m.tflops_per_gpu then
    local fps = m.flops_kind == "hardware" and s.hw_fps
      or m.flops_kind == "model_causal" and s.model_causal_fps or s.model_fps
    if not fps then error("validation: row " .. r.id .. " counts causal attention half, but its "
      .. "model is not a causal decoder dlbench.mfu knows") end
    return m.tflops_per_gpu * 1e12 / fps, "TFLOP/s (" .. (m.flops_kind or "?") .. ")"
  end
  if m.mfu then
    local peak = s.hw.peak[s.hw:precision(s.dprec)]
    return m.mfu * peak / s.model_fps, "MFU"
  end
  -- none of the units it converts (a row stating only hfu, say): no throughput, and why (the
  -- notebook skips the row, "no measured throughput")
  return nil, "measured= states none of samples_per_s, tokens_per_s, step_time, tflops_per_gpu, mfu"
end

-- The settings a row's prediction ran with, as its evaluate (or plan) row resolved them: what
-- a note of notebooks/data/validation_notes.lua may name (its `uses`). attention: the kernel
-- family of the profile on the row's device (dlb.frameworks.attention_eff; "unfused": none);
-- moe: the planner's moe_impl (the row's recipe or the profile's; "graph": the graph's ops);
-- planned: the row states no layout (the planner's best is used).
local function settings(r, s)
  local _, row = predict(s, s.hw)
  return { attention = tostring(row.attention_kernel or "unfused"):match("^(%S+)"),
    precision = r.precision, profile = s.profile, hw = r.hw, zero = row.zero,
    moe = s.prof.moe or "graph", moe_dispatcher = row.moe_dispatcher,
    moe_a2a_overlap = row.moe_a2a_overlap == true, planned = s.plan ~= nil }
end

-- The note of notes (notebooks/data/validation_notes.lua) for row r whose settings are set
-- (settings above): the first whose Lua pattern matches the row's id and whose `uses` (the
-- settings its text names) are all the row's; "" when none.
local function note(notes, r, set)
  for _, w in ipairs(notes) do
    if r.id:find(w[1]) then
      local ok = true
      for k, v in pairs(w.uses or {}) do if set[k] ~= v then ok = false end end
      if ok then return w[2], w end
    end
  end
  return ""
end

-- The vTrain node's nccl-tests rows (notebooks/data/vtrain/nccl_allreduce_a100.csv: the
-- source's trace/a100/AR_GPU{2,4,8}_LUT, all_reduce_perf fp32; columns gpus, bytes,
-- time_out_of_place_ns (read), time_in_place_ns) as dlb.parallel.calibrate_collective's rows {gpus=, bytes=,
-- time= seconds}: the notebook's calibration and tests/bench/bench_host_nccl.lua part (5)
-- read them here (review 13: each had its own reader). dir: notebooks/data.
local function nccl_allreduce(dir)
  local rows = {}
  local f = assert(io.open(dir .. "/vtrain/nccl_allreduce_a100.csv", "r"))
  local head = true
  for line in f:lines() do
    if head then head = false
    else
      local g, b, t = line:match("^(%d+),(%d+),(%d+),")
      if not g then
        f:close()
        error("nccl_allreduce_a100.csv: line '" .. line .. "' is not gpus,size,time_ns,...")
      end
      rows[#rows + 1] = { gpus = tonumber(g), bytes = tonumber(b), time = tonumber(t) * 1e-9 }
    end
  end
  f:close()
  return rows
end

return { excluded = excluded, setup = setup, nccl_allreduce = nccl_allreduce, cluster = cluster, predict = predict,
  measured = measured, profile_of = profile_of, settings = settings, note = note,
  PROFILE = PROFILE }
end
