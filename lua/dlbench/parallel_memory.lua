-- parallel_memory.lua — a planner row's memory beyond the C rule: the framework profile's
-- stack terms on the fullest device (stack_memory) and offload to host memory (offload_set,
-- apply_offload, and offloaded: offload in the planner's search). Used by
-- dlbench.parallel_plan's plan and evaluate; split from parallel_plan.lua.
local core = require "dlbench.backend"
local M = {}

-- The per-device memory of the step's stack (a framework profile's memory table, carried by
-- layers built under it: ls.framework_memory, dlb.parallel.layers.from_graph) on a row's
-- fullest device: the CUDA context and ZeRO's buckets whole on every device, the optimizer
-- step's temporaries in the device's share of the trainable parameters (its optimizer
-- state's share: ZeRO-1/2 partition the fp32 gradient copy with the states), beyond its
-- activations. The terms are dlbench.framework_memory.device's, the rule g:stats applies
-- to the whole step on one device, so a dp = tp = pp = 1 row's mem is g:stats' footprint.
-- Sets r.mem_framework (bytes, a column beside mem_act), r.mem_terms (which terms, a
-- string), r.framework_memory (the terms), r.mem (the one memory rule with them in the
-- activations and workspace) and r.fits; a list without terms gets mem_framework 0, "none".
function M.stack_memory(r, ls, po, devmem)
  local fm = type(ls) == "table" and rawget(ls, "framework_memory") or nil
  if type(fm) ~= "table" then
    r.mem_framework, r.mem_terms = 0, "none"
    return r
  end
  local share = 0
  if po.o_bytes > 0 and fm.trainable > 0 then share = r.mem_opt / (po.o_bytes * fm.trainable)
  elseif po.g_bytes > 0 and fm.trainable > 0 then share = r.mem_grads / (po.g_bytes * fm.trainable) end
  local bytes, terms = require("dlbench.framework_memory").device(fm.memory, fm.act_bytes,
    fm.temporaries * share, r.mem_act)
  r.mem_framework, r.framework_memory = bytes, terms
  r.mem_terms = require("dlbench.framework_memory").describe(terms)
  r.mem = core.roofline_step_memory(po.mem_schedule, r.mem_weights, r.mem_grads, r.mem_opt,
    r.mem_act + bytes, po.slack)
  r.fits = ((devmem or 0) <= 0 or r.mem <= devmem) and 1 or 0
  return r
end

-- Offload of one layout (ZeRO-Offload, Ren et al. 2021; ZeRO-Infinity, Rajbhandari et al.
-- 2021; activation offload as torchtune/Megatron's CPU offloading): what leaves the
-- fullest device for host memory, and the bytes each device moves over its host link per
-- step, added to the step unhidden (an upper bound, as dlb.roofline.time). optimizer: the
-- optimizer state leaves and the update runs on the host; the gradients go down as the
-- backward pass makes them and the updated weights come back (the device's gradient and
-- weight bytes). params: the weights live on the host and are fetched for every
-- micro-batch's forward and backward; the device keeps the largest layer's. activations:
-- the activations kept for backward go to the host and come back; the device keeps one
-- layer's. ZeRO partitions what each device moves.
function M.offload_set(fname, off)
  -- the one rule, g:stats' too (graph_setups.offload_set)
  return require("dlbench.graph_setups").offload_set(fname, off, 5)
end
-- What a device keeps under offload, from the layer list alone: the largest layer's weight
-- bytes on a rank of tensor degree tp (params), and one layer's kept activations plus the
-- output layer's at micro-batch mb (activations). memo (may be nil): a table of earlier
-- answers of one search (its layouts share few tp and mb), keyed the same.
local function kept_weights(ls, po, tp, memo)
  local big = memo and memo.w[tp]
  if big then return big end
  big = 0
  for _, l in ipairs(ls) do
    local wb = l.weight_bytes or (l.params or 0) * (po.w_bytes > 0 and po.w_bytes or 2)
    wb = wb / ((l.tp_bytes or 0) > 0 and tp or 1)
    if wb > big then big = wb end
  end
  if memo then memo.w[tp] = big end
  return big
end
local function kept_activations(ls, tp, mb, memo)
  local m = memo and memo.a[tp]
  if m and m[mb] then return m[mb] end
  local big, head = 0, 0
  for i, l in ipairs(ls) do
    local a = ((l.act_kept or 0) / ((l.tp_bytes or 0) > 0 and tp or 1) + (l.act_rep or 0)) * mb
    if i == #ls and #ls > 1 then head = a elseif a > big then big = a end
  end
  big = big + head
  if memo then
    if not m then m = {}; memo.a[tp] = m end
    m[mb] = big
  end
  return big
end
-- oi: what the call knows of the host: keeps (the stack keeps the device gradients under
-- optimizer offload), cpu (its host optimizer, dlb.frameworks.cpu_optimizer), per_node (the
-- devices of a node, which share its host CPU: the node's CPUs step the partitions of all
-- of them, each device's process its own).
function M.apply_offload(r, off, ls, po, cfg, hw, fname, oi, memo)
  local R = require "dlbench.roofline"
  local bw, link = R.host_link(hw)
  local tp, dp, zero = cfg.tp, cfg.dp, cfg.zero
  local w, g, opt, act = r.mem_weights, r.mem_grads, r.mem_opt, r.mem_act
  local keeps = oi.keeps
  local traffic, otraffic, cpu = 0, 0, 0
  if off.optimizer then
    otraffic = g + w   -- gradients down, the updated weights up
    traffic = traffic + otraffic
    -- the host steps the parameters of the device's optimizer partition (its optimizer
    -- bytes over o_bytes a parameter), and those of the node's other devices
    local params = po.o_bytes > 0 and opt / po.o_bytes or 0
    local ndev = (r.dp or 1) * (r.tp or 1) * (r.pp or 1) * (r.cp or 1)
    local share = math.max(1, math.min((oi.per_node or 0) > 0 and oi.per_node or 1, ndev))
    cpu = R.cpu_update_time(params * share, oi.cpu or "torch")
    opt = 0
    -- the gradients leave as they are made, unless the stack keeps them on the device until
    -- zero_grad (the profile's memory.offload_gradients = false, as g:stats counts it)
    if not keeps then g = 0 end
  end
  if off.params then
    -- the largest layer's weights stay (a working set, split by tensor parallelism)
    local big = kept_weights(ls, po, tp, memo)
    traffic = traffic + 2 * cfg.m * w
    w = math.min(w, big)
  end
  if off.activations then
    -- one layer's kept activations stay (the largest per-sample share times the
    -- micro-batch), and the output layer's (the last: torchtune keeps the output head out
    -- of the offloading, as g:stats' rule, graph_setups.offload_of)
    local big = kept_activations(ls, tp, r.mb, memo)
    traffic = traffic + 2 * math.max(0, act - big) * cfg.m
    act = math.min(act, big)
  end
  local mem = core.roofline_step_memory(po.mem_schedule, w, g, opt, act, po.slack)
  r.offload = { optimizer = off.optimizer or false, params = off.params or false,
    activations = off.activations or false, delayed_update = off.delayed_update or false,
    traffic = traffic, host_bw = bw, host_link = link, mem_full = r.mem }
  r.mem, r.mem_weights, r.mem_grads, r.mem_opt, r.mem_act = mem, w, g, opt, act
  r.offload_time = traffic / bw
  local before, scale = r.step, nil
  if off.optimizer then
    -- the update runs on the host, not on the device (dlb.roofline.offload_step)
    local lo = otraffic / bw
    local dev = r.step - r.update
    r.step, r.offload_exposed, r.update_exposed =
      R.offload_step(dev, lo, r.offload_time - lo, cpu, off.delayed_update)
    -- where the update ran: update is the host's whole step, update_exposed its seconds on
    -- the step's path (step = the device's step without its update + offload_exposed +
    -- update_exposed)
    r.update_device_saved, r.update, r.cpu_update_time = r.update, cpu, cpu
    r.update_on = "host"
    r.cpu_optimizer, r.delayed_update = oi.cpu or "torch", off.delayed_update or false
    scale = before / r.step
  else
    r.step = r.step + r.offload_time
    r.offload_exposed = r.offload_time
    scale = (r.step - r.offload_time) / r.step
  end
  r.throughput = po.batch / r.step
  r.util, r.mfu, r.hfu = r.util * scale, r.mfu * scale, r.hfu * scale
  local devmem = type(hw) == "table" and hw.mem or 0
  r.fits = (devmem <= 0 or mem <= devmem) and 1 or 0   -- decorate makes it a boolean
  return r
end

-- Offload in the planner's space (offload= of plan): a fixed offload (as evaluate's) applied
-- to every layout, or "search": a layout that fits keeps everything on the device (offload
-- only adds host-link time), one that does not tries optimizer, activations, both, and all
-- three with the weights, lightest traffic first, and keeps the first that fits. Each row
-- says what it chose (offload: "none", "optimizer", "optimizer+activations" ...; its
-- offload_time and offload_traffic in bytes per step).
local SEARCH = { { optimizer = true }, { activations = true }, { optimizer = true, activations = true },
  { optimizer = true, activations = true, params = true } }
function M.offload_name(v)
  local t = {}
  for _, k in ipairs { "optimizer", "activations", "params", "delayed_update" } do
    if v[k] then t[#t + 1] = k end
  end
  return #t > 0 and table.concat(t, "+") or "none"
end
function M.offloaded(fname, rows, off, ls, po, o, dev, oi)
  local variants = off == "search" and SEARCH or { off }
  local names = {}
  for i, v in ipairs(variants) do names[i] = M.offload_name(v) end
  -- a variant is tried on a view of the row (its fields until set: no copy of every field
  -- for every variant), copied out when it is kept; the kept layers' bytes are shared by the
  -- rows of one tp and micro-batch (kept_weights, kept_activations)
  local memo, view = { w = {}, a = {} }, { __index = nil }
  local out = {}
  for _, r in ipairs(rows) do
    if off == "search" and r.fits == 1 then
      r.offload = "none"; r.offload_time = 0
      out[#out + 1] = r
    else
      local cfg = { tp = r.tp, dp = r.dp, zero = r.zero, m = r.m }
      view.__index = r
      for i, v in ipairs(variants) do
        local c = setmetatable({}, view)
        M.apply_offload(c, v, ls, po, cfg, o.hw, fname, oi, memo)
        M.stack_memory(c, ls, po, dev.mem)
        c.offload_traffic, c.offload = c.offload.traffic, names[i]
        if c.fits == 1 or o.keep_unfit then
          setmetatable(c, nil)
          for k, x in pairs(r) do if rawget(c, k) == nil then c[k] = x end end
          out[#out + 1] = c
          break
        end
      end
    end
  end
  table.sort(out, function(a, b) return a.step < b.step or (a.step == b.step and a.mem < b.mem) end)
  return out
end

return M
