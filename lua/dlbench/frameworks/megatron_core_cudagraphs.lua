-- Megatron-Core with Transformer Engine and CUDA graphs (issue [19]): the megatron-core
-- profile with the step's kernels captured once and replayed as one graph launch
-- (--enable-cuda-graph / TE's make_graphed_callables), so the host issues no op one by one.
-- Everything else is megatron-core's (read from its file, not copied).
local base = require "dlbench.frameworks.megatron_core"
local p = {}
for k, v in pairs(base) do p[k] = v end
p.name = "megatron-core-cudagraphs"
p.title = "Megatron-Core + Transformer Engine with CUDA graphs: the step replayed as captured "
  .. "graphs, no per-op host dispatch"
p.dispatch = { per_op = 0, per_layer = 0, source = "CUDA graphs: a captured graph is launched "
  .. "once (cudaGraphLaunch), its kernels issued by the device (CUDA Programming Guide, 'CUDA "
  .. "Graphs'; NVIDIA Transformer Engine docs, make_graphed_callables)" }
local src = {}
for i, s in ipairs(base.sources) do src[i] = s end
src[#src + 1] = "NVIDIA Megatron-Core docs (TransformerConfig.enable_cuda_graph) and Transformer "
  .. "Engine's make_graphed_callables: per-layer CUDA graphs of forward and backward"
p.sources = src
return p
