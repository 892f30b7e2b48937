-- test_fp8_output.lua — the output layer under an fp8 recipe (issues [18]/[21], branch
-- fp8-head; dlbench.fp8_output, graphs/step/output_layer.c): which ops are the output layer's
-- GEMMs (the analysis' DLB_KERNEL_HEAD), the profile field fp8.output and its default, the
-- peak those GEMMs run at (dlb.frameworks.head_peak: the 16-bit peak of an fp8 step whose
-- recipe leaves the output layer in bf16), and one configuration, one time: dlb.roofline.time,
-- dlb.parallel.evaluate (dp 1, the graph's layers) and dlb.sweep.model's compiled program
-- agree within 1e-9 at fp8 under every profile that reads the field. Both backends.
local T = require "harness"
local dlb = require "dlbench"
local fw = dlb.frameworks
local core = require "dlbench.backend"

local H = dlb.hw.get("H100-SXM")
local HEAD = select(2, require("dlbench.desc").enum("DLB_KERNEL_")).head

local function gpt(o)
  local p = { hidden = 256, heads = 4, layers = 2, context = 256, vocab = 1000, batch = "b" }
  for k, v in pairs(o or {}) do p[k] = v end
  return dlb.models.gpt(p)
end

-- the ops of stats s marked as the output layer's GEMMs, by name
local function head_ops(s)
  local a = s.analysis
  local _, _, _, _, _, K = core.analysis_arrays(a)
  local r = {}
  for i = 1, #K do if K[i] == HEAD then r[#r + 1] = core.analysis_op_name(a, i - 1) end end
  table.sort(r)
  return r
end

T.test("the output layer's GEMMs: the logits matmul and its two backward matmuls", function()
  T.eq(HEAD, 2, "DLB_KERNEL_HEAD")
  -- untied (nn.linear) and tied (matmul with the embedding, transpose_b) heads alike
  for _, tied in ipairs { false, true } do
    local s = gpt { tied = tied }:stats { b = 2, precision = "fp8", framework = "nemo" }
    local h = head_ops(s)
    T.eq(#h, 3, "tied " .. tostring(tied) .. ": " .. table.concat(h, ", "))
    T.eq(h[1], "lm_head")
    T.eq(h[2], "lm_head/grad_a")
    T.eq(h[3], "lm_head/grad_b")
  end
  -- without the fusion passes (framework none), with full recompute: the same three (the
  -- output layer is not recomputed by the per-block checkpoints)
  local s = gpt():stats { b = 2, precision = "fp8", framework = "none", recompute = 1 }
  T.eq(#head_ops(s), 3, "framework none, recompute")
  -- a regression graph (MSE loss) has no logits: nothing marked
  local g = dlb.graph("regression")
  local x = g:input("x", { 4, 16 })
  local y = g:matmul(x, g:weight("w", { 16, 8 }))
  g:loss(g:mse(y, g:label("t", { 4, 8 })))
  T.eq(#head_ops(g:stats {}), 0, "no softmax cross-entropy, no output layer")
end)

T.test("fp8.output: stated by the read profiles, the default for the others, none quantised", function()
  for _, n in ipairs { "megatron-core", "megatron-core-cudagraphs", "nemo", "torchtitan", "maxtext" } do
    local q, src, stated = fw.fp8_output(n)
    T.eq(q, false, n)
    T.eq(stated, true, n .. " states it")
    assert(type(src) == "string" and #src > 20, n .. " gives a source")
  end
  local q, src, stated = fw.fp8_output("fsdp")
  T.eq(q, false, "fsdp: the default, 16-bit")
  T.eq(stated, false)
  assert(src:find("default", 1, true), src)
  T.eq((fw.fp8_output("none")), true, "none: the graph engine's own fp8 step")
  T.eq((fw.fp8_output(nil)), true, "no profile")
end)

T.test("head_peak: the 16-bit peak at fp8 only, nil where the output layer is fp8", function()
  local p, note = fw.head_peak("nemo", H, "fp8")
  T.eq(p, H.peak.bf16, "nemo at fp8: H100's bf16 peak")
  assert(note:find("bf16 peak", 1, true), note)
  T.eq(fw.head_peak("nemo", H, "mixed_bf16"), nil, "a 16-bit step: the step's peak")
  T.eq(fw.head_peak("nemo", H, "bf16"), nil)
  T.eq(fw.head_peak("none", H, "fp8"), nil, "none")
  T.eq(fw.head_peak("torchtitan", "H100-SXM", "fp8"), H.peak.bf16, "a device name")
  local q = fw.derive("nemo", { fp8 = { scaling = "delayed", output = { quantized = true, source = "test" } } })
  T.eq(fw.head_peak(q, H, "fp8"), nil, "a derived recipe that quantises the output layer")
  -- a device without a 16-bit peak keeps the step's, said so
  local d = H:with { peak = { fp8 = H.peak.fp8, fp32 = H.peak.fp32 } }
  local p2, n2 = fw.head_peak("nemo", d, "fp8")
  T.eq(p2, nil)
  assert(n2:find("no 16-bit peak", 1, true), n2)
  T.checkerr("fp8.output must be {quantized", fw.derive, "nemo", { fp8 = { output = { quantized = "no" } } })
  T.checkerr("fp8 must be a table", fw.derive, "nemo", { fp8 = 8 })
  T.checkerr("unknown framework", fw.head_peak, "nemmo", H, "fp8")
  T.checkerr("unknown device 'H1000'", fw.head_peak, "nemo", "H1000", "fp8")
end)

-- the three GEMMs by hand: per-op detail of roofline.time under nemo at fp8 against the same
-- step with a recipe that quantises the output layer; only those three ops move, each by the
-- per-op rule at the bf16 peak (dlb.roofline.op_time on the device with peak = head_peak)
T.test("roofline.time: the three GEMMs at the bf16 peak, every other op as it was", function()
  local g = gpt { hidden = 512, vocab = 32000 }
  local q = fw.derive("nemo", { fp8 = { scaling = "delayed", output = { quantized = true, source = "test" } } })
  local a = dlb.roofline.time(g:stats { b = 4, precision = "fp8", framework = "nemo" }, H, { detail = true })
  local b = dlb.roofline.time(g:stats { b = 4, precision = "fp8", framework = q }, H, { detail = true })
  local moved = {}
  for i, t in ipairs(a.per_op.op_time) do
    if t ~= b.per_op.op_time[i] then moved[#moved + 1] = a.per_op.op_name[i] end
  end
  table.sort(moved)
  T.eq(table.concat(moved, ","), "lm_head,lm_head/grad_a,lm_head/grad_b")
  T.eq(a.flops, b.flops, "the same FLOPs")
  assert(a.time > b.time, "the bf16 GEMMs are slower")
  -- the forward GEMM by hand: the one per-op rule on the device whose peak is the bf16 one
  local roof = dlb.roofline.roof_of(H, fw.get("nemo"), "fp8", true, {}, "catalogue", "test")
  local s = g:stats { b = 4, precision = "fp8", framework = "nemo" }
  local j
  for i, nm in ipairs(a.per_op.op_name) do if nm == "lm_head" then j = i end end
  local m, n, k, bb = core.analysis_gemm(s.analysis, j - 1)
  local F, By = core.analysis_arrays(s.analysis)
  local hd = {}
  for key, v in pairs(roof) do hd[key] = v end
  hd.peak, hd.head_peak = roof.head_peak, 0
  local t = core.roofline_op_time(hd, F[j], By[j], { m, n, k, bb })
  T.near(a.per_op.op_time[j], t, 1e-12, "lm_head: the per-op rule at the bf16 peak")
  -- MFU keeps the fp8 peak (the step precision's): util = flops / (time x peak.fp8)
  T.near(a.util, a.flops / (a.time * H.peak.fp8), 1e-9, "util at the fp8 peak")
end)

-- one configuration, one time at fp8: roofline.time, evaluate (dp 1) and the compiled sweep
T.test("one configuration, one time at fp8: roofline.time = evaluate = compiled, 1e-9", function()
  local build = function(p) return dlb.models.gpt(p) end
  local st = { hidden = 512, heads = 8, context = 512, vocab = 32000 }
  local q = fw.derive("nemo", { fp8 = { scaling = "delayed", output = { quantized = true, source = "test" } } })
  local n, moved, steps = 0, 0, {}
  for _, prof in ipairs { "nemo", "megatron-core", "torchtitan", "fsdp", "none", q } do
    local pname = type(prof) == "table" and "nemo (output quantised)" or prof
    local P = dlb.sweep.compile(build, st, { "batch", "seq" }, "layers", { framework = prof, precision = "fp8" })
    for _, pt in ipairs { { 1, 128, 2 }, { 4, 512, 3 } } do
      local o = {}
      for k, v in pairs(st) do o[k] = v end
      o.batch, o.seq, o.layers = "batch", "seq", pt[3]
      local g = build(o)
      local s = g:stats { batch = pt[1], seq = pt[2], framework = prof, precision = "fp8" }
      local r = dlb.roofline.time(s, H)
      local p = type(prof) == "table" and prof or fw.get(prof)
      local roof, _, _, _, _, _, _, cdev = dlb.roofline.roof_of(H, p, s.precision,
        s.precision_given, {}, "catalogue", "test")
      roof.attn_work = fw.attn_work(p, require("dlbench.mfu").causal(g), cdev)
      local what = pname .. " at " .. table.concat(pt, ",")
      T.near(P.time(pt, roof), r.time, 1e-9, what .. ": compiled")
      local g2 = build { hidden = 512, heads = 8, context = 512, vocab = 32000, batch = "b",
        seq = pt[2], layers = pt[3] }
      local e = dlb.parallel.evaluate { graph = g2, hw = H, devices = 1, dp = 1, batch = pt[1],
        precision = "fp8", framework = prof }
      -- (the numeric-seq graph: its own stats, a positions slice fewer than the symbolic one's)
      local r2 = dlb.roofline.time(g2:stats { b = pt[1], framework = prof, precision = "fp8" }, H)
      T.near(e.step, r2.time, 1e-9, what .. ": evaluate")
      if roof.head_peak then moved = moved + 1 end
      steps[pname .. table.concat(pt, ",")] = { r.time, e.step }
      n = n + 1
    end
  end
  T.eq(n, 12)
  T.eq(moved, 8, "four profiles leave the output layer in bf16")
  -- nemo's output layer in bf16 against the same recipe with it in fp8: slower in both paths
  -- at 2,048 tokens (at 128 the host's issue of the ops, 10 us each, hides the difference)
  local a, b = steps["nemo4,512,3"], steps["nemo (output quantised)4,512,3"]
  assert(a[1] > b[1] * 1.01 and a[2] > b[2] * 1.01, a[1] .. " " .. b[1] .. " " .. a[2] .. " " .. b[2])
  a, b = steps["nemo1,128,2"], steps["nemo (output quantised)1,128,2"]
  assert(a[1] >= b[1] and a[2] >= b[2], a[1] .. " " .. b[1] .. " " .. a[2] .. " " .. b[2])
end)

-- the planner's flag: an output-layer GEMM is attention 5 in dlb_par_op; one without a matmul
-- shape is refused
T.test("the planner's op flag 5: the output layer's GEMMs, with their shape", function()
  local ls = dlb.parallel.layers.from_graph(gpt(), { precision = "mixed_bf16", framework = "nemo" })
  local OP = require("dlbench.parallel_layers").OP
  local c = 0
  for j = 1, math.floor(#ls.ops / OP) do
    local k = (j - 1) * OP
    if ls.ops[k + 13] == 5 then
      c = c + 1
      assert(ls.ops[k + 7] > 0, "a matmul shape")
      T.eq(ls.ops[k + 1], #ls - 1, "in the output layer")
    end
  end
  T.eq(c, 3, "three GEMMs")
end)

T.done()
