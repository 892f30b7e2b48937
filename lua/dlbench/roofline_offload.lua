-- dlbench.roofline_offload — the host side of a step under offload (ZeRO-Offload, FSDP's
-- CPUOffload): the host link the offloaded bytes cross (host_link, DEFAULT_HOST_BW), the
-- optimizer step on the host CPU (CPU_OPTIMIZERS, cpu_update_time) and how the device's
-- step, the link and the CPU step compose (offload_step). Reached as dlb.roofline.* (this
-- module's names are installed there by dlbench.roofline); dlb.roofline.time and the
-- planner's apply_offload read them. See docs/hw.md.
local doc = require "dlbench.doc"

local M = {}

M.DEFAULT_HOST_BW = 32e9 -- PCIe 4.0 x16: 16 GT/s x 16 lanes, 128b/130b = 31.5 GB/s each way (PCI-SIG)

-- The host link of device dev under offload: bytes/s each way and what gave it (its
-- links.host; DEFAULT_HOST_BW when the catalogue gives none). The one reading of it
-- (dlb.roofline.time, the planner's apply_offload).
function M.host_link(dev)
  -- a device's name is that device (review 13: host_link("H100-SXM") gave the PCIe default,
  -- 32 GB/s, for a device whose links.host is 63 GB/s); anything else but a table is refused
  if type(dev) == "string" then
    local ok, d = pcall(require("dlbench.hw").get, dev)
    if not ok then error("dlb.roofline.host_link: " .. require("dlbench.errors").strip(d), 2) end
    dev = d
  elseif type(dev) ~= "table" then
    error("dlb.roofline.host_link: device must be a dlb.hw device or its name, got " .. type(dev), 2)
  end
  local host = dev.links and dev.links.host
  if host and host.bw then return host.bw, "links.host" end
  return M.DEFAULT_HOST_BW, "default PCIe 4.0 x16"
end
doc.doc(M.host_link, "dlb.roofline.host_link(device) -> bytes/s, label",
  "the host link offload moves its bytes over: the device's links.host, else DEFAULT_HOST_BW (PCIe 4.0 x16)")

-- The optimizer step on the host CPU under optimizer offload (ZeRO-Offload, FSDP's
-- CPUOffload): seconds per parameter of one Adam step, by implementation (a profile's
-- optimizer_impl.cpu, dlb.frameworks.cpu_optimizer). The CPU is the host's, as the host
-- link is: the catalogue's devices name no host CPU, so every device gets the host of the
-- measurement, Ren et al. 2021 (ZeRO-Offload, USENIX ATC '21) Table 4 on one DGX-2 node
-- (2 x Intel Xeon Platinum 8168, 24 cores each; their Table 2): Adam latency, CPU-Adam 2.57 s
-- and PyTorch's CPU Adam (PT-CPU) 14.76 s for 10 billion parameters, 0.22 s and 1.39 s for
-- 1 billion. (The stored copies of the paper hold Table 4 as an image: these values were
-- not checked against a text copy; the ratios the paper's text states, "6.4X" at 1 billion
-- and "over 5X" (sec. 6.2.4), and DeepSpeed's ZeRO-Offload tutorial, DeepSpeedCPUAdam "5X-7X
-- faster than the standard PyTorch implementation", agree with them within rounding.) The
-- rate is the 10-billion row's (the size ZeRO-Offload is for), not fitted: the 1-billion
-- row reads 0.22 and 1.39 s where this gives 0.257 and 1.476 (tests/lua/test_offload_update.lua). The CPUs of one node step the partitions of
-- all its devices (each device's process its own): the planner multiplies by the devices
-- sharing a node (apply_offload).
M.CPU_OPTIMIZERS = {
  cpu_adam = { per_param = 2.57 / 10e9, name = "DeepSpeedCPUAdam",
    source = "Ren et al. 2021 (ZeRO-Offload) Table 4: CPU-Adam 2.57 s for 10 billion parameters "
      .. "on a DGX-2 host (2 x Xeon Platinum 8168)" },
  torch = { per_param = 14.76 / 10e9, name = "torch.optim Adam on the CPU",
    source = "Ren et al. 2021 (ZeRO-Offload) Table 4: PT-CPU (PyTorch's CPU Adam) 14.76 s for "
      .. "10 billion parameters on a DGX-2 host (2 x Xeon Platinum 8168)" },
}

-- Seconds of the host CPU's optimizer step over `params` parameters under implementation
-- impl (a key of CPU_OPTIMIZERS).
function M.cpu_update_time(params, impl)
  local c = M.CPU_OPTIMIZERS[impl]
  if c == nil then
    local names = {}
    for k in pairs(M.CPU_OPTIMIZERS) do names[#names + 1] = k end
    table.sort(names)
    error("dlb.roofline.cpu_update_time: no CPU optimizer '" .. tostring(impl) .. "' (one of "
      .. table.concat(names, ", ") .. ")", 2)
  end
  -- a count (review 13: a string was "attempt to compare number with string", NaN gave 0 s)
  if type(params) ~= "number" or params ~= params or params == math.huge or params == -math.huge then
    error("dlb.roofline.cpu_update_time: params must be a finite number of parameters, got "
      .. type(params) .. " " .. tostring(params), 2)
  end
  return math.max(0, params) * c.per_param
end
doc.doc(M.cpu_update_time, "dlb.roofline.cpu_update_time(params, impl) -> seconds",
  "the host CPU's Adam step over params parameters under optimizer offload (impl \"cpu_adam\" or "
  .. "\"torch\": dlb.roofline.CPU_OPTIMIZERS, Ren et al. 2021 Table 4)")

-- The step of a device under optimizer offload: gpu the device's seconds without its
-- update phase (the update ops do not run there), link_opt the host link's seconds of the
-- optimizer's traffic (gradients down, updated weights up), link_other the rest of the
-- offload traffic (parameters, activations), cpu the host's update. Without the delayed
-- update the three follow one another (the link term unhidden, an upper bound as before);
-- with ZeRO-Offload's one-step delayed parameter update (Ren et al. 2021 sec. 5.2: step
-- i + 1's forward and backward run while the CPU steps with step i's gradients) the
-- optimizer's transfers and the CPU step overlap the device's step.
-- Also returns the step's split: the host link's and the host update's seconds on the step's
-- path (gpu + link + update = step). Serial: all of both. Delayed: link_other, and of the
-- host chain (link_opt, then the CPU step) the part that outlasts the device, max(0,
-- link_opt + cpu - gpu), counted from its end: the CPU step's first, then link_opt's (a
-- convention: which end of the chain the device hides is not modelled).
function M.offload_step(gpu, link_opt, link_other, cpu, delayed)
  if delayed then
    local over = math.max(0, link_opt + cpu - gpu)
    local upd = math.min(cpu, over)
    return link_other + math.max(gpu, link_opt + cpu), link_other + (over - upd), upd
  end
  return gpu + link_opt + link_other + cpu, link_opt + link_other, cpu
end
doc.doc(M.offload_step, "dlb.roofline.offload_step(gpu, link_opt, link_other, cpu[, delayed]) -> seconds, "
  .. "link_exposed, update_exposed",
  "a step under optimizer offload: serial, or with the delayed update (offload \"delayed_update\") "
  .. "link_other + max(gpu, link_opt + cpu); and the link's and the host update's seconds on the "
  .. "step's path (gpu + link_exposed + update_exposed = step)")

return M
