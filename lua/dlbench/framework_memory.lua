-- dlbench.framework_memory — what a training stack allocates beyond the tensors of the step's
-- graph (issue [18] item 4), from a framework profile's `memory` table; g:stats adds it to
-- the breakdown and the footprint when a profile is applied, so footprint, need and
-- roofline.time say the same number. docs/frameworks.md "Memory a stack adds".
--   memory.loss = {autocast = true|false}: a causal LM's loss as Hugging Face model code
--     writes it (QWenLMHeadModel / LlamaForCausalLM.forward: lm_logits, then
--     shift_logits = lm_logits[..., :-1, :].contiguous(), then CrossEntropyLoss). At the end
--     of the forward pass the logits, their shifted contiguous copy and log_softmax's output
--     (saved for its backward) are live; under autocast log_softmax runs in fp32 (PyTorch AMP
--     docs: log_softmax, nll_loss and cross_entropy autocast to float32), so the upcast
--     logits (fp32) are live while it runs: logits a + copy a + upcast 4 + output 4 bytes per
--     logit element (a: the 16-bit activation type), 12 under bf16/fp16 autocast; without
--     autocast (a DeepSpeed fp16/bf16 engine) logits + copy + output, 3a. The graph's fused
--     softmax_xent keeps two logit-sized tensors (its input and the probabilities it saves,
--     graphs/ir/graph_ops.c loss2): 2a. The difference is added to the activations at the
--     peak: the peak of a recomputed LM step is at the loss, where every checkpoint is live
--     (an upper bound where another moment is the peak).
--   memory.loss = {upcast = true[, chunks = c]}: torchtune's loss (torchtune/modules/
--     transformer.py TransformerDecoder.unembed: output = self.output(h).float(); the recipes
--     shift the labels, not the logits, and `del logits` before loss.backward()). Unchunked:
--     the peak is log_softmax's backward, where its saved fp32 output, the incoming fp32
--     gradient and the fp32 gradient it makes are live: 3 x 4 = 12 B per logit element (the
--     forward holds 4 + 4). With CEWithChunkedOutputLoss (c = num_output_chunks, 8): the model
--     returns c chunks of 16-bit logits (a bytes, all live in the forward) and the loss upcasts
--     one chunk at a time, keeping every chunk's fp32 log_softmax output for the backward (4 B):
--     a + 4 + 4/c while the last chunk's log_softmax runs; the backward, once the chunks are
--     freed, holds the log-probs and one chunk's fp32 gradient pair, 4 + 8/c. (Before branch
--     walk-loss the two were added at one moment, a + 4 + 8/c = 7 B under bf16; 6.5 now.)
--   The loss's two moments, tensor by tensor (branch walk-loss; sources: torchtune
--     recipes/full_finetune_single_device.py _loss_step (stored version 01067f61; the
--     README's a9ea6d5 runs the same `logits.reshape`, `self._loss_fn(logits, labels)`,
--     `del logits`, `loss.backward()`), torchtune/modules/loss/ce_chunked_output_loss.py
--     (stored 10ff7cd2: F.cross_entropy(logits.float(), ...) per chunk); PyTorch
--     tools/autograd/derivatives.yaml (stored d327a787): _log_softmax saves only its result
--     (`self: _log_softmax_backward_data(grad, result, dim, self.scalar_type())`),
--     nll_loss saves its input (that same log-probs tensor), _to_copy saves no tensor (its
--     backward casts the gradient back to the input's dtype); aten/src/ATen/native/LossNLL.cpp
--     (stored 0321fa77): cross_entropy with class targets is nll_loss_nd(log_softmax(self,
--     1)), TORCH_META_FUNC(nll_loss_backward) allocates grad_input of the input's sizes,
--     zeroed before the target entries are written; aten/src/ATen/native/SoftMax.cpp
--     TORCH_META_FUNC(_log_softmax_backward_data): a new grad_input of grad's sizes (the
--     index's stored copy names no commit). The autograd engine runs the
--     loss's nodes (higher sequence numbers) before the output projection's, and frees a
--     node's input gradient and saved tensors once it has run (retain_graph=False).
--     Per logit element, a the activation bytes, u = 4 the fp32 copy (0 when a = 4:
--     .float() of an fp32 tensor returns it):
--     upcast, unchunked  forward: logits a + .float() copy u, then fp32 logits 4 + log-probs
--                        4 -> 8 (logits freed by `del logits`: nothing saved them)
--                        backward: log-probs 4 + nll's grad_input 4 + log_softmax's grad_input
--                        4 -> 12; then the fp32 gradient 4 + its bf16 cast a; then the
--                        output projection's backward holds the bf16 gradient a (+ dW, dh)
--     upcast, c chunks   forward: every chunk's bf16 logits a + the log-probs so far + the
--                        running chunk's copy u/c and log-probs -> a + 4 + u/c at the last
--                        backward: chunk by chunk (the engine runs each chunk's nll,
--                        log_softmax and cast backward before the next chunk's): at the first,
--                        every chunk's log-probs 4 + its gradient pair 8/c -> 4 + 8/c; later
--                        chunks hold fewer log-probs and the earlier chunks' a/c gradients
--     autocast (HF)      forward: logits a + shifted copy a + autocast's fp32 cast 4 +
--                        log-probs 4 -> 2a + 8 (a != 4); backward (the Trainer's compute_loss
--                        returns only the loss: logits and copy freed) log-probs 4 + nll's
--                        grad_input 4 + log_softmax's 4 -> 12; then the cast back 4 + a and
--                        slice_backward's zero-filled full gradient a + a
--     no autocast        forward logits a + copy a + log-probs a -> 3a; backward log-probs a
--                        + nll's grad_input a + log_softmax's a -> 3a
--     Under the walk (g:stats{schedule = "walk"}) each moment is counted at its own op of the
--     walked step (dlb_analysis_step_loss: the softmax_xent op and its backward op, where the
--     graph holds two logit-sized tensors, 2a), the stack's tensors replacing the graph's;
--     the framework schedule, the planner and the sweep add the larger moment's bytes beyond
--     2a to the activations of the peak.
--   memory.loss = {vocab_parallel = true}: Megatron-LM's loss (2021-22, --fp16-lm-cross-entropy
--     off, its default): megatron/model/gpt_model.py post_language_model_processing calls
--     mpu.vocab_parallel_cross_entropy(output.float(), labels) with the 16-bit `output` still
--     referenced in that frame; megatron/mpu/cross_entropy.py _VocabParallelCrossEntropy
--     subtracts the row maxima, takes exp (out=) and divides in place in that fp32 copy and
--     saves it as the softmax; its backward turns the saved softmax into the gradient in
--     place (grad_input = softmax; grad_2d[...] -= ...; grad_input.mul_(grad_output)), and the
--     .float() cast's backward makes the gradient's a-byte copy. Per logit element: forward
--     a + 4 (the logits and their fp32 copy), backward 4 + a (the fp32 gradient and its cast),
--     6 under fp16; fp32 logits (a = 4): .float() makes no copy, 4 each way.
--   memory.optimizer_in_backward = true: the optimizer steps each parameter in its
--     post-accumulate-grad hook and frees its gradient (torchtune's optimizer_in_bwd,
--     training.register_optim_in_bwd_hooks; PyTorch tutorial "How to save memory by fusing
--     the optimizer step into the backward pass"): no step holds every gradient, so g:stats
--     keeps the graph schedule's peak (each gradient applied as it is made) as the footprint
--     and roofline.time's need counts the gradients live at that peak (s.optimizer_in_backward).
--   memory.offload_gradients = false: under optimizer offload the stack copies each gradient
--     to the host as the backward pass makes it but leaves the device gradient in place until
--     zero_grad (torchao's CPUOffloadOptimizer with its default offload_gradients=False,
--     torchao/prototype/low_bit_optim/cpu_offload.py: the post-accumulate-grad hook copies
--     p_device.grad to the pinned host gradient and frees it only when offload_gradients is
--     set): every trainable gradient is held at the peak, as without offload (the framework
--     schedule; s.offload.keeps_gradients). true, or no term: the gradients leave as they are
--     made (ZeRO-Offload, Ren et al. 2021 sec. 4.1; torchao with offload_gradients=True).
--     Without optimizer offload the term changes nothing.
--   memory.context = bytes: what the process holds on the device before any tensor (the
--     CUDA context with the framework's kernels loaded), as nvidia-smi sees it: workspace.
--   memory.adam_temporaries = k: torch.optim.AdamW's foreach step (_multi_tensor_adamw:
--     exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs), then in-place ops) holds k lists
--     the size of one moment while it runs, when the activations are gone: the step's peak
--     is weights + gradients + states + k moments, counted as the workspace the step needs
--     beyond the activations (max(0, k moments - activations - workspace)). Adam/AdamW only.
--   memory.zero_fp32_grads = true: DeepSpeed ZeRO-1/2's step makes an fp32 copy of the
--     gradient partition (stage_1_and_2.py, step: single_grad_partition =
--     flatten(averaged_gradients).to(fp32), the fp32 master's .grad): 4 B per trainable
--     parameter on one device, with the step's temporaries above (the 16-bit flat copy it
--     passes through is left out: a lower bound).
--   memory.fp32_grad_copy = true: Megatron-LM's fp16 step (megatron/optimizer/optimizer.py,
--     Float16OptimizerWithFloat16Params._copy_model_grads_to_main_grads: main_param.grad =
--     model_param.main_grad.float(), every fp32 master's .grad made before the unscale, clip
--     and step, freed by the next iteration's optimizer.zero_grad(set_to_none=True)): the
--     16-bit gradient buffer (--accumulate-allreduce-grads-in-fp32 off, the fp16 default;
--     bf16 forces it on and .float() is then the buffer itself) is copied to fp32, 4 B per
--     trainable parameter on one device while the step runs: the same rate and rule as
--     zero_fp32_grads (one line below), without ZeRO's partition (the device's share of the
--     trainable parameters, as the planner passes it).
--   memory.buckets = {count =, elements =}: DeepSpeed ZeRO-1/2's contiguous gradient buffers
--     (stage_1_and_2.py, DeepSpeedZeroOptimizer.backward: `count` buffers of reduce_bucket_size
--     `elements` of the gradient type, allocated before loss.backward()): workspace.
local M = {}

local backend -- the C rules (dlb_step_temporaries), loaded on first use
local function core() backend = backend or require "dlbench.backend"; return backend end

-- The CUDA context with PyTorch's kernels loaded, as nvidia-smi (pynvml) sees it after the
-- first tensor: 1343 MiB (Hugging Face transformers docs, "Model training anatomy",
-- model_memory_anatomy.md: after torch.ones((1, 1)).to("cuda"), "GPU memory occupied:
-- 1343 MB ... the kernels alone take up 1.3GB"; it varies with the GPU and CUDA version).
-- The profiles of PyTorch stacks give it as memory.context.
M.PYTORCH_CONTEXT = 1343 * 1048576

-- Bytes of an activation (and gradient) element under a graph precision policy: the
-- engine's one table, dlb.roofline.grad_elem (2 under fp16, bf16, mixed, mixed_bf16; 4 fp32).
local function act_bytes(prec) return require("dlbench.roofline").grad_elem(prec) or 4 end

-- The tensors whose elements the loss term counts: the logits of every softmax_xent the
-- graph's Lua builder made (g._xent), as lists of dims (numbers or polynomial text).
local poly -- loaded on first use
local function logit_dims(g)
  local xs, out = rawget(g, "_xent"), {}
  for i, t in ipairs(xs or {}) do out[i] = t:dims() end
  return out
end

-- Elements of those logits, dims bound by the stats call's bindings (names, values) or
-- numeric already.
local function logit_elements(g, names, values)
  poly = poly or require "dlbench.poly"
  local b = {}
  for i, n in ipairs(names) do b[n] = values[i] end
  local total = 0
  for _, dims in ipairs(logit_dims(g)) do
    local n = 1
    for _, d in ipairs(dims) do
      n = n * (tonumber(d) or poly.new(d):eval(b))
    end
    total = total + n
  end
  return total
end

M.logit_elements = logit_elements

-- Whether profile prof's optimizer offload keeps every device gradient until zero_grad (its
-- memory table's offload_gradients = false, above); g:stats and the planner both ask here.
function M.offload_keeps_gradients(prof)
  return type(prof) == "table" and type(prof.memory) == "table" and prof.memory.offload_gradients == false
end

-- A memory table's fields (the terms above), checked by name where a profile is derived
-- (dlb.frameworks.derive): unknown keys are refused; flags must be booleans.
local MEMORY_KEYS = { loss = true, context = true, adam_temporaries = true, zero_fp32_grads = true,
  fp32_grad_copy = true, buckets = true, optimizer_in_backward = true, offload_gradients = true }
local LOSS_KEYS = { autocast = true, upcast = true, chunks = true, vocab_parallel = true }
function M.check(m, fname, level)
  local options = require "dlbench.options"
  level = (level or 2) + 1
  options.check(m, MEMORY_KEYS, fname .. " memory", level, true)
  if m.loss ~= nil then options.check(m.loss, LOSS_KEYS, fname .. " memory.loss", level, true) end
  for _, k in ipairs { "optimizer_in_backward", "zero_fp32_grads", "fp32_grad_copy", "offload_gradients" } do
    if m[k] ~= nil and type(m[k]) ~= "boolean" then
      error(string.format("%s: memory.%s must be true or false, got %s", fname, k, tostring(m[k])), level)
    end
  end
  return m
end

-- The same elements as a polynomial over the graph's symbolic dims (the compiled sweep
-- evaluates it per configuration: dlb_sweep_prog_logits); nil without logits.
function M.logit_poly(g)
  poly = poly or require "dlbench.poly"
  local total
  for _, dims in ipairs(logit_dims(g)) do
    local n = poly.new(1)
    for _, d in ipairs(dims) do n = n * poly.new(d) end
    total = total and total + n or n
  end
  return total
end

-- The loss term of memory table m at activation bytes a: the bytes per logit element the
-- stack's loss holds at its forward moment and at its backward moment (the counts above),
-- the larger of the two, and what that holds beyond the fused graph's 2a (the term's rate).
-- Returns per, rate, forward, backward.
local function loss_rates(m, a)
  local fwd, bwd
  local u = a == 4 and 0 or 4 -- .float() of an fp32 tensor makes no copy
  if m.loss.vocab_parallel then
    -- Megatron-LM's vocab-parallel cross-entropy over output.float() (below)
    fwd, bwd = a + u, 4 + (u > 0 and a or 0)
  elseif m.loss.upcast then
    local c = m.loss.chunks or 1
    if type(c) ~= "number" or c < 1 or c % 1 ~= 0 then
      error("framework memory.loss.chunks must be a whole number >= 1, got " .. tostring(c), 0)
    end
    if c > 1 then
      fwd, bwd = a + 4 + u / c, 4 + 8 / c
    else
      fwd, bwd = math.max(a + u, 8), 12
    end
  elseif m.loss.autocast and a ~= 4 then
    fwd, bwd = a + a + 4 + 4, 12
  else
    fwd, bwd = 3 * a, 3 * a
  end
  local per = math.max(fwd, bwd)
  return per, math.max(0, per - 2 * a), fwd, bwd
end

-- The optimizer step's temporaries of memory table m per byte of optimizer state (without
-- fp32 masters) and per trainable parameter: foreach AdamW's k moment-sized lists (k/2 of
-- the two moments) and the step's fp32 copy of the gradients (4 B a parameter: ZeRO-1/2's
-- partition, Megatron-LM's fp16 main grads).
function M.temporary_rates(m, optimizer)
  local per_state, per_trainable = 0, 0
  if m.adam_temporaries and (optimizer == "adam" or optimizer == "adamw") then
    per_state = m.adam_temporaries / 2
  end
  if m.zero_fp32_grads or m.fp32_grad_copy then per_trainable = 4 end
  return per_state, per_trainable
end

-- The optimizer step's temporaries of memory table m for the whole step (the totals t of
-- dlb_totals: opt_states, trainable), in bytes; 0 when the table has neither.
function M.step_temporaries(m, optimizer, t)
  local per_state, per_trainable = M.temporary_rates(m, optimizer)
  return per_state * (tonumber(t.opt_states) or 0) + per_trainable * (tonumber(t.trainable) or 0)
end

-- The per-device terms of memory table m (activation bytes a): on one device that holds
-- `temps` bytes of the step's temporaries (its share of the trainable parameters: ZeRO-1/2
-- partition them with the optimizer state, so they shard as the optimizer state does) and
-- `live` bytes of activations and workspace when the step runs. The CUDA context is per
-- device and the ZeRO buckets per rank: neither is divided. The one rule for g:stats
-- (one device: the whole step) and dlb.parallel.evaluate/plan (each layout's fullest
-- device). Returns bytes, terms ({optimizer_step =, context =, buckets =}, each with bytes).
function M.device(m, a, temps, live)
  local bytes, terms = 0, {}
  if temps > 0 then
    local extra = core().roofline_step_temporaries(temps, live) -- the one rule (C)
    bytes = bytes + extra
    terms.optimizer_step = { bytes = extra, temporaries = temps }
  end
  if m.context then
    bytes = bytes + m.context
    terms.context = { bytes = m.context }
  end
  if m.buckets then
    local b = m.buckets.count * m.buckets.elements * a
    bytes = bytes + b
    terms.buckets = { bytes = b, count = m.buckets.count, elements = m.buckets.elements }
  end
  return bytes, terms
end

-- The per-device bytes among a stats' framework_memory terms (context, optimizer_step,
-- buckets): what does not grow with the samples a device holds (dlb.parallel.data counts
-- them once per worker, not per sample). 0 without terms.
function M.device_bytes(terms)
  local b = 0
  if type(terms) ~= "table" then return 0 end
  for _, k in ipairs { "context", "optimizer_step", "buckets" } do
    if terms[k] then b = b + (tonumber(terms[k].bytes) or 0) end
  end
  return b
end

-- The bytes of stats s that grow with its samples: the activations and the workspace of its
-- breakdown (both at the schedule's peak; the workspace is the scratch of the op running
-- there, e.g. a norm backward's two fp32 per row: docs/graph.md "Workspace"), less the
-- stack's per-device terms, which a profile puts in the workspace once per device
-- (M.device_bytes). What dlb.parallel.data counts per sample and what
-- dlb.parallel.layers.from_graph spreads over the layers as their kept bytes (act_kept):
-- the one sum, so that a one-device row's mem is the stats' footprint. 0 without a breakdown.
-- The activations are the step's largest (s.act_peak: dlb_analysis_act_peak) where the
-- breakdown's are those at the peak of all bytes (the algorithmic step's: g:stats{fuse=},
-- which from_graph builds a profile's layers with), as the one memory rule holds every
-- gradient with them (issue [18] item 5: BERT-base's 40.5 MB at batch 1 were 0 in the plan,
-- its peak at the optimizer step); an offloaded or inference step has no s.act_peak.
function M.sample_bytes(s)
  local bd = s.breakdown
  if type(bd) ~= "table" then return 0 end
  local fm = type(s) == "table" and rawget(s, "framework_memory") or nil
  local act = (tonumber(bd.activations) or 0) + (tonumber(bd.workspace) or 0)
  local ap = tonumber(rawget(s, "act_peak"))   -- g:stats' s.act_peak (nil: not applied)
  if ap and ap > act then act = ap end
  return act - M.device_bytes(fm)
end

-- "context 1.41 GB + optimizer_step 0.27 GB": the terms a row or a step added, by name (a
-- plan row's are the per-device ones; g:stats' have the loss too).
function M.describe(terms)
  local t = {}
  for _, k in ipairs { "loss", "context", "optimizer_step", "buckets" } do
    if terms[k] then t[#t + 1] = string.format("%s %.3g GB", k, terms[k].bytes / 1e9) end
  end
  return #t > 0 and table.concat(t, " + ") or "none"
end

-- The extra bytes of profile `prof` for a step of graph g counted at precision `prec`
-- (a policy name) with bindings (names, values), the step's optimizer and its totals t
-- (dlb_totals: activations, workspace, opt_states): {activations =, workspace =, terms =}
-- or nil when the profile adds nothing. Inference steps have no loss backward: no terms.
-- `step_off`: the optimizer step runs on the host (optimizer offload): no step temporaries
-- on the device. The loss term is per sample (activations); the others are per device
-- (M.device), which dlb.parallel.evaluate/plan apply to each layout's own device.
function M.terms(prof, g, prec, names, values, inference, optimizer, t, step_off)
  local m = prof and prof.memory
  if type(m) ~= "table" or inference then return nil end
  local r = { activations = 0, workspace = 0, terms = {} }
  local a = act_bytes(prec)
  if m.loss then
    local per, rate, fwd, bwd = loss_rates(m, a)
    local n = logit_elements(g, names, values)
    local extra = rate * n
    r.activations = r.activations + extra
    r.terms.loss = { bytes = extra, per_element = per, graph_per_element = 2 * a, elements = n,
      forward = fwd, backward = bwd, moment = bwd >= fwd and "backward" or "forward" }
    if n == 0 then
      -- a graph whose loss was not built with g:softmax_xent (an ONNX import, mse, ctc)
      r.terms.loss.note = "no g:softmax_xent logits in this graph: no loss term"
    end
  end
  -- what the optimizer step holds beyond the states, when the activations are gone
  local temps = step_off and 0 or M.step_temporaries(m, optimizer, t)
  local live = (tonumber(t.activations) or 0) + r.activations + (tonumber(t.workspace) or 0)
  local bytes, dt = M.device(m, a, temps, live)
  r.workspace = r.workspace + bytes
  for k, v in pairs(dt) do r.terms[k] = v end
  return r
end

-- The stack's terms as the compiled sweep evaluates them per configuration (dlb.sweep.model:
-- the DLB_SWM_ entries of a device's memory rule, graphs/sweep/dlb_sweep.h), from the rules
-- above for a step under profile `prof` at precision `prec` with that optimizer: {loss =
-- bytes per logit element beyond the graph's, temp_states = temporaries per optimizer-state
-- byte, temp_trainable = per trainable parameter, fixed = per-device bytes (M.device's
-- context and buckets)}; all 0 without a memory table or for an inference step (as M.terms).
-- The sweep composes them as M.terms does: activations + loss x logits, then
-- dlb_step_temporaries of the temporaries over those, then the fixed bytes.
function M.compiled(prof, prec, inference, optimizer)
  local m = prof and prof.memory
  local r = { loss = 0, temp_states = 0, temp_trainable = 0, fixed = 0 }
  if type(m) ~= "table" or inference then return r end
  local a = act_bytes(prec)
  if m.loss then r.loss = select(2, loss_rates(m, a)) end
  r.temp_states, r.temp_trainable = M.temporary_rates(m, optimizer)
  r.fixed = M.device(m, a, 0, 0)
  return r
end

-- What a layer list built under profile `prof` (dlb.parallel.layers.from_graph) carries for
-- the planner's per-device terms, from the stats s of its step (g:stats under the profile):
-- the memory table, the activation bytes, the whole step's temporaries and its trainable
-- parameters; nil when the profile has no memory table or the step adds nothing per device.
function M.for_layers(prof, s)
  local m = prof and prof.memory
  local fm = s and rawget(s, "framework_memory")
  if type(m) ~= "table" or type(fm) ~= "table" then return nil end
  if not (m.context or m.buckets or fm.optimizer_step) then return nil end
  return { memory = m, act_bytes = act_bytes(s.precision),
    temporaries = fm.optimizer_step and fm.optimizer_step.temporaries or 0,
    trainable = tonumber(s.trainable) or 0 }
end

return M
