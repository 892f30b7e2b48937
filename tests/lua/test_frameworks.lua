-- test_frameworks.lua — issue [18]: framework profiles as data (items 1, 2), calibrated
-- efficiencies (3), provenance (6) and the one MFU convention (7), on both backends.
local T = require "harness"
local dlb = require "dlbench"
local F, R, P = dlb.frameworks, dlb.roofline, dlb.parallel
local H100 = dlb.hw.get("H100-SXM")

local function root()
  local src = debug.getinfo(1, "S").source
  local dir = (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
  return dir .. "/../.."
end
local function gpt2() return dlb.models.gpt { size = "gpt2", seq = 1024, batch = 4 } end

T.test("profiles: the issue's stacks, each with sources, listed and reachable from help", function()
  local names = {}
  for _, p in ipairs(F.list()) do names[p.name] = p end
  for _, n in ipairs { "none", "megatron-lm", "megatron-core", "nemo", "pytorch-ddp", "fsdp",
      "fsdp2", "deepspeed-zero1", "deepspeed-zero2", "deepspeed-zero3", "torchtitan", "maxtext",
      "tensorflow1" } do
    assert(names[n], "profile " .. n)
    local p = F.get(n)
    assert(#p.sources >= 1 and type(p.title) == "string", n .. ": sources and title")
    for _, k in ipairs { "attention", "fuse", "gather", "recompute" } do
      assert(p[k] ~= nil, n .. ": " .. k)
    end
  end
  assert(tostring(F.list()):find("default: transformers torchtitan", 1, true))
  T.eq(F.get("zero3").name, "deepspeed-zero3", "alias")
  T.eq(F.get("JAX").name, "maxtext", "alias, any case")
  local e = T.checkerr("unknown framework 'fsdp3'", F.get, "fsdp3")
  assert(e:find("did you mean 'fsdp'", 1, true) and e:find("torchtitan", 1, true), e)
  local help = require "dlbench.help"
  assert(help.text("dlb.frameworks.list"):find("profiles", 1, true))
  T.checkerr("unknown framework", gpt2().stats, gpt2(), { framework = "pytorch-4" })
  T.checkerr("give framework= or fuse=, not both", gpt2().stats, gpt2(), { framework = "fsdp", fuse = true })
end)

T.test("g:stats: the algorithmic step by default; framework= applies the profile's passes", function()
  local g = gpt2()
  local s0 = g:stats { precision = "mixed" }
  T.eq(s0.framework, "none"); T.eq(s0.framework_source, F.ALGORITHMIC)
  local sf = g:stats { precision = "mixed", framework = "fsdp" }
  -- fsdp (llm-foundry on Composer): attention and elementwise fusion, Composer's
  -- per-parameter AdamW loop and gradient clipping (optimizer_impl), no multi-tensor merge,
  -- and the trainer's two language-model train metrics (train_metrics)
  local st = g:stats { precision = "mixed", fuse = { "attention", "elementwise", "qkv",
    "optimizer_loop", "grad_clip", "lm_metrics" } }
  T.eq(sf.framework, "fsdp")
  T.eq(sf.bytes, st.bytes, "fsdp = its fusion passes and its optimizer implementation")
  -- parameter counts and algorithmic FLOPs never move (FlashAttention's recompute is in
  -- flops_recompute: hardware FLOPs)
  T.eq(sf.params, s0.params); T.eq(sf.flops_fwd, s0.flops_fwd); T.eq(sf.flops_bwd, s0.flops_bwd)
  assert(sf.flops_recompute > 0 and s0.flops_recompute == 0, "the kernel's recompute")
  T.eq(g:flops { precision = "mixed" }, s0.flops, "g:flops counts the algorithmic step")
  -- megatron-lm 2021: no FlashAttention, fused elementwise kernels and optimizer, the loss
  -- over fp32 logits (vocab_parallel_cross_entropy(output.float()): xent_fp32), one QKV GEMM
  -- whose output q, k, v are views of (qkv, qkv_views), a causal decoder's upper-triangular
  -- softmax kernels with the attention dropout's backward its own (softmax_causal), local
  -- DDP's per-micro-batch main_grad.add_ of every gradient (grad_accum)
  local sm = g:stats { precision = "mixed", framework = "megatron-lm" }
  T.eq(sm.bytes, g:stats { precision = "mixed", fuse = { "elementwise", "optimizer", "xent_fp32",
    "qkv", "qkv_views", "softmax_causal", "grad_accum" } }.bytes)
  -- CNNs under pytorch-ddp: the foreach optimizer only (BN + ReLU stay separate)
  local rn = dlb.models.resnet { depth = 18, batch = 2, image = 64 }
  T.eq(rn:stats { framework = "pytorch-ddp" }.bytes, rn:stats { fuse = { "optimizer", "optimizer_foreach" } }.bytes)
  -- a hand-built graph: the family is found from the step (no attention: "other")
  local h = dlb.graph("mlp")
  local x = h:input("x", { "b", 16 })
  h:loss(h:softmax_xent(h:matmul(h:relu(h:matmul(x, h:weight("w1", { 16, 16 }))),
    h:weight("w2", { 16, 4 })), h:input("y", { "b" }, "int32")))
  T.eq(h:stats { b = 2, framework = "auto" }.framework, "pytorch-ddp")
  T.eq(g:stats { precision = "mixed", framework = "auto" }.framework, "torchtitan")
  -- dlb.frameworks.family: a graph's family; anything but a graph is refused by name (review
  -- 14: family(5) answered false)
  T.eq(dlb.frameworks.family(g), "transformer")
  T.eq(dlb.frameworks.family(rn), "other")
  T.checkerr("dlb.frameworks.family: g must be a graph (dlb.graph, a dlb.models builder's, or dlb.models.from_hf/from_onnx), got number 5",
    dlb.frameworks.family, 5)
  T.checkerr("dlb.frameworks.family: g must be a graph", dlb.frameworks.family, nil)
end)

T.test("roofline.time: the default profile, none = before profiles, provenance", function()
  local g = gpt2()
  local s = g:stats { precision = "mixed" }
  local r = R.time(s, H100)
  T.eq(r.framework, "torchtitan"); assert(r.framework_source:find("^default"), r.framework_source)
  -- (gpt2 is a causal decoder; FlashAttention-2's skip is not applied: CAUSAL_SKIP_NOT_APPLIED)
  T.eq(r.attention_kernel, "flash2")
  local rt = R.time(g:stats { precision = "mixed", framework = "torchtitan" }, H100)
  T.near(r.time, rt.time, 1e-12, "the default = the profile named")
  -- framework = "none": exactly the graph as built
  dlb.frameworks.default("none")
  local before = R.time(g:stats { precision = "mixed" }, H100)
  dlb.frameworks.default(nil)
  local rn = R.time(s, H100, { framework = "none" })
  T.eq(rn.time, before.time, "none reproduces the pre-profile time")
  T.eq(rn.need, before.need, "and memory")
  assert(r.time < rn.time and r.need < rn.need, "FlashAttention: faster, less memory")
  -- provenance: version, profile, calibration, the defaults applied
  local pv = r.provenance
  T.eq(pv.dlbench, dlb.version()); T.eq(pv.framework, "torchtitan"); T.eq(pv.calibration, "catalogue")
  assert(table.concat(pv.defaults, ","):find("framework torchtitan", 1, true))
  assert(tostring(r):find("framework torchtitan (default), calibration catalogue", 1, true), tostring(r))
  -- a plan row's defaults in one order on every run (the profile's, by name, then the
  -- call's): megatron-lm sets its optimizer's launches (apex FusedAdam), overlap, phase_sync,
  -- pp_scatter, tp_async and its ZeRO stage (0: no distributed optimizer)
  local rp = dlb.parallel.evaluate { graph = g, hw = "A100-SXM4-80GB", dp = 1, batch = 2, m = 1,
    framework = "megatron-lm" }
  T.eq(rp.defaults, "optimizer_impl apex, overlap 0, phase_sync true, pp_scatter true, tp_async true, zero 0, "
    .. "calibration catalogue, "
    .. "attention_flops causal, precision mixed (fp16 peak)", "the defaults' text")
  -- CNNs get the current PyTorch profile
  local c = R.time(dlb.models.resnet { depth = 18, batch = 2, image = 64 }:stats {}, "A100")
  T.eq(c.framework, "pytorch-ddp")
  T.checkerr("calibration must be", R.time, s, H100, { calibration = "tuned" })
  T.checkerr("attention_flops must be", R.time, s, H100, { attention_flops = "half" })
end)

T.test("attention kernel: device x kernel family", function()
  local g = gpt2()
  local s = g:stats { precision = "mixed" }
  -- FlashAttention-3 on the H100 (hw_kernels.lua: Shah et al. 2024 Fig. 5/6, hdim 128, 16k,
  -- no causal mask: 648 TFLOP/s forward, 561 backward) is faster than FlashAttention-2 (0.34)
  local function fwdbwd(f, b) return 3.5 / (989.5 / f + 2.5 * 989.5 / b) end
  local p2 = F.get("torchtitan")
  local e2 = F.attention_eff(p2, H100, "fp16")
  local fake = setmetatable({ attention = "flash3" }, { __index = p2 })
  local e3, k3 = F.attention_eff(fake, H100, "fp16")
  T.near(e2, 0.34, 1e-12, "flash2 on H100"); T.near(e3, 0.59, 1e-12, "flash3 on H100"); T.eq(k3, "flash3")
  T.near(e3, fwdbwd(648, 561), 0.005, "flash3: the paper's forward and backward rates")
  -- Transformer Engine on Hopper runs cuDNN's fused attention (nemo, megatron-core): the same
  -- figures' cuDNN bars, 595 forward and 516 backward
  local ec, kc = F.attention_eff(F.get("nemo"), H100, "fp16")
  T.near(ec, 0.54, 1e-12, "cudnn on H100"); T.eq(kc, "cudnn")
  T.near(ec, fwdbwd(595, 516), 0.005, "cudnn: the paper's forward and backward rates")
  T.near(F.attention_eff(F.get("megatron-core"), H100, "fp16"), 0.54, 1e-12)
  -- (gpt2 is a causal decoder: cuDNN skips its masked blocks, said so)
  T.eq(R.time(s, H100, { framework = "nemo" }).attention_kernel,
    "cudnn (causal: masked blocks skipped, at 0.91 of the non-causal rate)")
  -- a modified copy (hw:with, as the CALIBRATED flops_eff makes) keeps its device's kernels
  T.near(F.attention_eff(F.get("nemo"), H100:with { flops_eff = 0.7 }, "fp16"), 0.54, 1e-12)
  -- ... unless the change is its attn_eff: the caller's number stands
  local ew, kw = F.attention_eff(F.get("nemo"), H100:with { attn_eff = 0.45 }, "fp16")
  T.near(ew, 0.45, 1e-12); assert(kw:find("no measured efficiency", 1, true), kw)
  -- a family without a measured number: the device's FlashAttention-2 value, said so
  local A100 = dlb.hw.get("A100-SXM4-80GB")
  local e, k = F.attention_eff(F.get("nemo"), A100, "fp16")
  T.near(e, 0.66, 1e-12); assert(k:find("no measured efficiency", 1, true), k)
  T.eq(R.time(s, A100, { framework = "nemo" }).attention_kernel, k .. " (causal: masked blocks "
    .. "skipped, no published causal rate on A100-SXM4-80GB: at the non-causal rate)")
end)

T.test("attention kernel on the B200: cuDNN from NVIDIA's own SDPA benchmark (issue [21])", function()
  local B = dlb.hw.get("B200")
  local PK = B.peak.bf16   -- 2250 TFLOP/s dense
  local function fwdbwd(f, b) return 3.5 / (PK / 1e12 / f + 2.5 * PK / 1e12 / b) end
  -- NVIDIA/cudnn-frontend sdpa_bf16_benchmark_results_NVIDIA_B200.csv, PyTorch cuDNN backend,
  -- hdim 128, 16k, causal (FLOPs counted half): 1332.4 forward, 1074.8 backward TFLOP/s
  local causal_eff = fwdbwd(1332.4, 1074.8)
  T.near(causal_eff, 0.506, 0.001)
  -- the causal over non-causal ratio: the same benchmark on GB200 (cuDNN 9.22, 16k),
  -- causal 1708 / 1328 against no mask 1697 / 1374 (forward / backward TFLOP/s)
  local ratio = fwdbwd(1708, 1328) / fwdbwd(1697, 1374)
  local K = require "dlbench.hw_kernels"
  T.near(K.B200.cudnn.causal[1], ratio, 0.005, "cuDNN causal ratio on Blackwell")
  T.near(K.B200.cudnn[1], causal_eff / ratio, 0.005, "cuDNN non-causal, derived")
  assert(K.B200.cudnn[2]:find("1332.4", 1, true) and K.B200.cudnn[2]:find("1074.8", 1, true))
  assert(K.B200.cudnn.causal[2]:find("1708", 1, true) and K.B200.cudnn.causal[2]:find("1374", 1, true))
  -- the profiles that name cuDNN (Transformer Engine: nemo, megatron-core) get it
  local ec, kc = F.attention_eff(F.get("nemo"), B, "bf16")
  T.eq(ec, 0.52); T.eq(kc, "cudnn")
  -- fp8 steps run attention in bf16: the same TFLOP/s as a fraction of the fp8 peak
  T.near(F.attention_eff(F.get("megatron-core"), B, "fp8"), 0.52 * 2250 / 4500, 1e-12)
  -- a causal decoder's kernels: half the FLOPs at the causal rate, eff x ratio = the B200 figure
  T.eq(F.causal_rate(F.get("nemo"), B), 0.98)
  -- absolute: 0.52 and 0.98 are catalogue figures rounded to 2 decimals, so their product is
  -- within 0.005 x 0.98 + 0.52 x 0.005 = 0.0075 of the benchmark's 0.5056; 0.006 as the test
  -- always allowed (harness.lua's old rule made it absolute; relative it would need 0.008)
  T.near_abs(0.52 * F.causal_rate(F.get("nemo"), B), causal_eff, 0.006)
  T.near(F.attn_work(F.get("nemo"), true, B), 0.5 / 0.98, 1e-12)
  -- FlashAttention-2 (torchtitan's family) is the device's attn_eff; FlashAttention-3 does
  -- not run on Blackwell: no entry, the FA2 value, said so
  local e2, k2 = F.attention_eff(F.get("torchtitan"), B, "bf16")
  T.eq(e2, 0.16); T.eq(k2, "flash2")
  local fa3 = setmetatable({ attention = "flash3" }, { __index = F.get("torchtitan") })
  local e3, k3 = F.attention_eff(fa3, B, "bf16")
  T.eq(e3, 0.16); assert(k3:find("no measured efficiency on B200", 1, true), k3)
  -- a roofline step under nemo reports the kernel and its causal rate
  local s = gpt2():stats { precision = "mixed" }
  T.eq(R.time(s, B, { framework = "nemo" }).attention_kernel,
    "cudnn (causal: masked blocks skipped, at 0.98 of the non-causal rate)")
end)

T.test("causal masking: the kernels skip the masked blocks at their published causal rate (roofline.time and the planner)", function()
  -- each family's evidence (the papers' causal panels, FLOPs counted half; FA2's source)
  assert(F.causal_skip(F.get("nemo")):find("Shah et al. 2024", 1, true))
  assert(F.causal_skip(F.get("megatron-core")))
  T.eq(F.causal_skip(F.get("megatron-lm")), nil)   -- unfused: no fused kernel to skip in
  -- FlashAttention-2 skips by its source and paper, but its skip is not applied (the held-out
  -- llm-foundry rows went from 4.3% to 20.2%, docs/validation.md): its evidence and why kept
  T.eq(F.causal_skip(F.get("torchtitan")), nil)
  local na = F.CAUSAL_SKIP_NOT_APPLIED.flash2
  assert(na.evidence:find("Dao 2023", 1, true) and na.why:find("20.2%", 1, true))
  -- the causal rate over the non-causal one, by hand from the figures (hw_kernels.lua):
  -- H100 cuDNN 539/595 and FA2 335/370 (Shah et al. 2024 Fig. 5), A100 FA2 189/203 (Dao 2023
  -- Fig. 4, forward + backward); the kernels are timed on 0.5 / ratio of the counted FLOPs
  local A100 = dlb.hw.get("A100-SXM4-80GB")
  -- (the table's entries against the figures' bars, to the two decimals it keeps; it was
  -- the bare quotients against constants, which held whatever the table said)
  local K = require "dlbench.hw_kernels"
  for _, c in ipairs { { "H100-SXM", "cudnn", 539, 595 }, { "H100-SXM", "flash2", 335, 370 },
    { "H100-SXM", "flash3", 616, 648 }, { "H200-SXM", "cudnn", 539, 595 },
    { "H200-SXM", "flash2", 335, 370 }, { "H200-SXM", "flash3", 616, 648 },
    { "A100-SXM4-80GB", "flash2", 189, 203 }, { "A100-SXM4-40GB", "flash2", 189, 203 } } do
    local r = K[c[1]][c[2]].causal[1]
    assert(math.abs(r - c[3] / c[4]) <= 0.005, c[1] .. " " .. c[2] .. ": " .. r .. " against "
      .. c[3] .. " / " .. c[4])
    local src = K[c[1]][c[2]].causal[2]
    assert(src:find(tostring(c[3]), 1, true) and src:find(tostring(c[4]), 1, true), c[1] .. " " .. c[2] .. ": its source")
  end
  T.near(F.attn_work(F.get("nemo"), true, H100), 0.5 / 0.91, 1e-12)
  T.eq(F.attn_work(F.get("torchtitan"), true, H100), nil)
  -- ... a user who knows the step ran FA2 applies it: its published rate on the device
  F.CAUSAL_SKIP.flash2 = na.evidence   -- switched off again before anything can fail
  local ok, w2h, w2a, c2 = pcall(function()
    return F.attn_work(F.get("torchtitan"), true, H100), F.attn_work(F.get("torchtitan"), true, A100),
      F.causal_rate(F.get("torchtitan"), H100)
  end)
  F.CAUSAL_SKIP.flash2 = nil
  assert(ok, w2h)
  T.near(w2h, 0.5 / 0.91, 1e-12); T.near(w2a, 0.5 / 0.93, 1e-12); T.eq(c2, 0.91)
  local fa3 = setmetatable({ attention = "flash3" }, { __index = F.get("torchtitan") })
  T.near(F.attn_work(fa3, true, H100), 0.5 / 0.95, 1e-12)
  -- every catalogue causal rate is a published ratio with its source, near 1 (a kernel at
  -- half its non-causal rate would gain nothing by skipping): (0.5, 1.1]
  for dname, fams in pairs(require("dlbench.hw_kernels")) do
    for fam, e in pairs(fams) do
      local c = e.causal
      if c ~= nil then
        assert(type(c[1]) == "number" and c[1] > 0.5 and c[1] <= 1.1, dname .. " " .. fam)
        assert(type(c[2]) == "string" and #c[2] > 20, dname .. " " .. fam .. ": a source")
      end
    end
  end
  -- the CALIBRATED copy keeps its catalogue device's causal rate; a changed attn_eff does not
  T.near(F.attn_work(F.get("nemo"), true, H100:with { flops_eff = 0.7 }), 0.5 / 0.91, 1e-12)
  local w1, n1 = F.attn_work(F.get("nemo"), true, H100:with { attn_eff = 0.45 })
  T.eq(w1, 0.5); assert(n1:find("no published causal rate", 1, true), n1)
  -- no device, or one without a published causal figure: half the FLOPs at the non-causal rate
  T.eq(F.attn_work(F.get("nemo"), true), 0.5); T.eq(F.attn_work(F.get("nemo"), false, H100), nil)
  T.eq(F.attn_work(F.get("megatron-lm"), true, H100), nil)
  T.eq(F.causal_rate(F.get("nemo"), A100), 1)
  T.eq(F.causal_rate(F.get("nemo"), H100), 0.91); T.eq(F.causal_rate(F.get("torchtitan"), H100), nil)
  -- one device: the fused attention kernels of a causal decoder run at the family's
  -- efficiency on 0.5 / ratio of their counted FLOPs, so their utilisation of the counted
  -- FLOPs is eff x ratio / 0.5: cuDNN 0.54 x 0.91 / 0.5 = 0.983 (less a kernel launch); FA2
  -- (not skipping) 0.34 on all of them
  local g = dlb.models.llama { layers = 1, hidden = 1024, heads = 8, kv_heads = 8, ffn = 2048,
    vocab = 1000, seq = 4096, batch = 2 }
  local s = g:stats { precision = "mixed_bf16" }
  local function ctx_util(fwn)
    local r = R.time(s, H100, { framework = fwn, detail = true })
    local p, u = r.per_op, nil
    for i = 1, #p.op_time do
      if p.op_name[i]:find("attn/context", 1, true) and p.op_time[i] > 0 then u = p.op_util[i]; break end
    end
    return u, r
  end
  local un, rn = ctx_util("nemo")
  local ut = ctx_util("torchtitan")
  T.near(un, 0.54 * 0.91 / 0.5, 0.05, "cuDNN, masked blocks skipped at its causal rate")
  -- 0.34 less a kernel launch (0.3359 here): at most 0.34, within 1.5% (relative; the old
  -- rule's 0.01 was absolute, 2.9% of 0.34)
  assert(ut <= 0.34, ut)
  T.near(ut, 0.34, 0.015, "FA2 on all the FLOPs")
  assert(rn.attention_kernel:find("masked blocks skipped", 1, true), rn.attention_kernel)
  -- the model FLOPs (MFU) stay whole: the same under both
  T.eq(rn.model_flops, R.time(s, H100, { framework = "torchtitan" }).model_flops)
  -- a non-causal model (BERT) under nemo: all the FLOPs
  local b = dlb.models.bert { size = "base", seq = 128, batch = 2 }:stats { precision = "mixed_bf16" }
  assert(not R.time(b, H100, { framework = "nemo" }).attention_kernel:find("skipped", 1, true))
  -- the planner: layer lists say whether the model is causal; evaluate applies the rule
  local PL = P.layers.from_graph
  T.eq(PL(g, { precision = "mixed_bf16", framework = "nemo" }).causal, true)
  -- false: known not causal (nil is a list that does not say: dlbench.mfu, test_mfu_layers)
  T.eq(PL(dlb.models.bert { size = "base", seq = 128, batch = 2 }, { precision = "mixed_bf16" }).causal, false)
  local o = { graph = g, hw = H100, precision = "mixed_bf16", dp = 1, tp = 1, pp = 1, batch = 2, m = 1,
    framework = "nemo" }
  local r1 = P.evaluate(o)
  assert(r1.attention_kernel:find("masked blocks skipped", 1, true), r1.attention_kernel)
  local keep = F.CAUSAL_SKIP.cudnn
  F.CAUSAL_SKIP.cudnn = nil   -- the same step without the rule
  local ok, r0 = pcall(P.evaluate, o)
  F.CAUSAL_SKIP.cudnn = keep
  assert(ok, r0)
  assert(r1.compute < r0.compute, "skipping the masked blocks is faster")
end)

T.test("the kernel rules take a profile or its name, a device or its name; bad ones are named", function()
  -- a name gave a silent nil (no skip, no policy: nemo's cuDNN skip lost), a device name the
  -- non-causal rate ("none given"), a nil profile or a name to attention_eff a Lua error
  local nemo = F.get("nemo")
  T.eq(F.causal_skip("nemo"), F.causal_skip(nemo))
  T.eq(F.causal_rate("nemo", "H100-SXM"), 0.91)
  local w, n = F.attn_work("nemo", true, "H100-SXM")
  T.near(w, 0.5 / 0.91, 1e-12); assert(n:find("at 0.91", 1, true), n)
  T.eq(F.offers("torchtitan", "selective_op"), true)
  T.eq(F.attention_eff("nemo", "H100-SXM", "fp16"), F.attention_eff(nemo, H100, "fp16"))
  T.checkerr("dlb.frameworks.causal_skip: framework must be a profile name", F.causal_skip, nil)
  T.checkerr("unknown framework", F.attn_work, "nemmo", true, H100)
  T.checkerr("unknown device 'H1000'", F.attn_work, nemo, true, "H1000")
  T.checkerr("dlb.frameworks.causal_rate: hw must be a device (dlb.hw.get) or its name, got number",
    F.causal_rate, nemo, 100)
  T.checkerr("dlb.frameworks.attention_eff: hw is required", F.attention_eff, nemo, nil, "fp16")
  -- (no profile: no kernel to skip in, as before)
  T.eq(F.attn_work(nil, true, H100), nil)
end)

T.test("calibration: validated takes the CALIBRATED flops_eff with its rows, and says so", function()
  local C = require "dlbench.hw_calibrated"
  local e = C.flops_eff["H100-SXM"].tensor
  assert(e[1] > 0 and e[1] <= 1 and #e[2] >= 3, "a value and its rows")
  local s = dlb.models.gpt { size = "gpt2-xl", seq = 1024, batch = 8 }:stats { precision = "mixed" }
  local rc = R.time(s, H100)
  local rv = R.time(s, H100, { calibration = "validated" })
  T.eq(rv.calibration, "validated")
  assert(rv.calibration_note:find("CALIBRATED flops_eff", 1, true), rv.calibration_note)
  assert(rv.time > rc.time, "0.70 < 0.80: slower")
  -- a device without calibration rows keeps its catalogue value, said so
  local rm = R.time(s, "MI300X", { calibration = "validated" })
  assert(rm.calibration_note:find("no CALIBRATED flops_eff", 1, true), rm.calibration_note)
  T.eq(rm.time, R.time(s, "MI300X").time)
end)

T.test("MFU: model FLOPs without recompute, causal attention half, 6N on request", function()
  local g = gpt2()   -- batch 4, seq 1024, 12 layers, 12 heads x 64
  local s = g:stats { precision = "mixed" }
  local full = R.time(s, H100, { attention_flops = "full" })
  local fl = full.mfu * full.time * full.peak
  T.near(fl, s.flops_fwd + s.flops_bwd, 1e-9, "full: forward + backward, no recompute")
  assert(full.hfu > full.mfu, "FlashAttention's recompute counts in HFU only")
  local causal = R.time(s, H100)
  local a = 4 * 12 * 1024 * 1024 * 12 * 64 * 4   -- 4 L q^2 H dh per sample x batch
  T.near(causal.mfu * causal.time * causal.peak, s.flops_fwd + s.flops_bwd - 1.5 * a, 1e-9,
    "causal: the score and value matmuls count half")
  assert(causal.mfu_convention:find("causal attention counted half", 1, true))
  local n6 = R.time(s, H100, { mfu = "6N" })
  T.near(n6.mfu * n6.time * n6.peak, 6 * s.params * 4 * 1024, 1e-9, "6 N tokens")
  assert(tostring(n6):find("MFU [%d.]+%% %(6N"), tostring(n6))
  -- a non-causal encoder counts its attention whole either way
  local b = dlb.models.bert { size = "base", seq = 128, batch = 2 }:stats { precision = "mixed" }
  assert(R.time(b, H100).mfu_convention:find("non-causal", 1, true))
end)

T.test("a hand-built attention graph is a transformer for the default profile", function()
  local g = dlb.graph("attn")
  local x = g:input("x", { "b", 64, 32 })
  g:layer("attention")
  local q = g:matmul(x, g:weight("wq", { 32, 32 }))
  local k = g:matmul(x, g:weight("wk", { 32, 32 }))
  local v = g:matmul(x, g:weight("wv", { 32, 32 }))
  local o = g:matmul(g:softmax(g:matmul(q, g:transpose(k))), v)
  g:layer("head")
  g:loss(g:softmax_xent(g:matmul(o, g:weight("wo", { 32, 10 })), g:input("y", { "b", 64 }, "int32")))
  T.eq(P.evaluate { graph = g, hw = H100, batch = 4, dp = 1 }.framework, "torchtitan")
  T.eq(R.time(g:stats { b = 4, precision = "mixed" }, H100).framework, "torchtitan")
end)

T.test("plan: Llama-3-8B on 1,024 H100s with defaults, MFU 37.96% (issue [18]'s 38-48% NOT MET)", function()
  -- Llama 3 8B (Llama Team 2024, Table 3): 32 layers, 4096, 32 heads, 8 KV heads, FFN 14336
  local g = dlb.models.llama { layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336,
    vocab = 128256, seq = 8192 }
  local t = P.plan { graph = g, hw = H100, devices = 1024, batch = 1024, tokens = 15e12 }
  local r = t[1]
  io.write(string.format("# Llama-3-8B, 1024 x H100, defaults: %s\n", tostring(r)))
  -- Issue [18]'s target band is 38-48% MFU: NOT MET. The plan was at 38.41% (inside the band,
  -- at its lower edge) until the catalogue's per-tile GEMM cost (gemm_tile_overhead 0.94 us on
  -- the H100-SXM, branch gemm-adopt, fitted on published GEMM tables, not on this plan) made
  -- its short-K GEMMs slower: 37.96%. Nothing was tuned to get back into the band (docs/
  -- validation.md "Current status"). This asserts the value the model now gives, in the
  -- convention below (model FLOPs: forward + backward, no recompute, causal attention
  -- counted half; r.mfu_convention, checked below), within 0.1 points: a change of the
  -- model that moves it must say so here. With the stack's overlap at the contention rule's
  -- cost (dlb.frameworks.overlapped("torchtitan"), branch overlap) it is 43.46%: examined,
  -- not the profile's default (it failed its adoption rule: docs/validation.md), so the
  -- plan keeps the 174 ms gradient reduction exposed (tests/lua/test_contention.lua).
  T.near_abs(r.mfu, 0.3796, 0.001, "Llama-3-8B default plan MFU (issue [18] band 38-48%: NOT MET)")
  T.eq(r.framework, "torchtitan"); T.eq(r.calibration, "catalogue"); T.eq(r.dlbench, dlb.version())
  assert(r.mfu_convention:find("causal attention counted half", 1, true))
  T.near(r.tokens_per_s, r.throughput * 8192, 1e-12, "tokens/s")
  T.near(r.days, 15e12 / r.tokens_per_s / 86400, 1e-12, "days for the tokens")
  T.near(r.mem_gb, r.mem / 1e9, 1e-12, "GB")
  local line = tostring(r)
  assert(line:find("tokens/s", 1, true) and line:find("days to train", 1, true)
    and line:find("GB per device", 1, true) and line:find("MFU [%d.]+%% %(model FLOPs"), line)
  -- before profiles: the s x s scores in memory and traffic, a slower plan
  local n = P.plan { graph = g, hw = H100, devices = 1024, batch = 1024, framework = "none" }[1]
  assert(n.step > 1.3 * r.step, "framework none is the 2019 step")
  -- columns of the plan table carry the provenance
  T.eq(t:column("framework")[1], "torchtitan")
end)

T.test("the FSDP rows: a plain user call = the validation notebook's path", function()
  package.path = root() .. "/tests/lua/?.lua;" .. package.path
  local FR = require "fsdp_rows"
  local rows = FR.rows(dlb, root())
  assert(#rows >= 30, "FSDP rows: " .. #rows)
  -- every fourth row (the bench script runs them all: BENCHMARKS.md)
  local stated = 0
  for i = 1, #rows, 4 do
    local pn, pp, meas, e = FR.predict(dlb, rows[i])
    -- the notebook's profile is Composer's (fsdp: a per-parameter AdamW loop, 22 tensor
    -- passes, and two eager cross-entropy train metrics over the logits); the plain call gets
    -- the default torchtitan's fused AdamW (7 passes) and no train metrics: with the fsdp
    -- profile's update made torchtitan's and its metrics off, the two paths agree (below),
    -- so the plain call differs from the notebook by Composer's optimizer step and metrics
    -- (x2.profile: the notebook's set-up with this profile in place of the row's,
    -- notebooks/lib/validation_rows.lua setup's profile option)
    -- (the fsdp profile also runs MPT's one Wqkv projection, qkv: llm-foundry's model code,
    -- which torchtitan's profile does not: compared with it kept, then the plain call without)
    local function as_titan(qkv)
      local tf = {}
      for k, v in ipairs(F.get("torchtitan").fuse) do tf[k] = v end
      if qkv then tf[#tf + 1] = "qkv" end
      return { row = rows[i].row, profile = F.derive("fsdp", { fuse = tf,
        optimizer_impl = F.get("torchtitan").optimizer_impl,
        train_metrics = { lm_xent = false, source = "test: torchtitan computes none" } }) }
    end
    -- (the notebook path only: FR.predict's plain call is the row's own, made above)
    local pu = FR.notebook(dlb, as_titan(true))
    -- the metrics' share is largest on the smallest model (125M: 2 x 7 bytes per bf16 logit
    -- of a 50,368 vocabulary against 12 layers of width 768), about 17% of its step
    assert(pu >= pn and pu < 1.25 * pn, rows[i].row.id .. ": Composer's loop and metrics are slower: " .. pn .. " vs " .. pu)
    pn = FR.notebook(dlb, as_titan(false))
    if rows[i].reduce_stated then
      -- the row states a bf16 reduction (MP Mode PURE): the plain call reduces in the
      -- profile's fp32, so it is slower, by the reduce-scatter's extra bytes only
      stated = stated + 1
      assert(pp < pn and pp > 0.9 * pn, rows[i].row.id .. ": " .. pp .. " vs " .. pn)
    else
      T.near(pp, pn, 1e-9, rows[i].row.id)
    end
    T.eq(e.framework, "torchtitan", "the plain call gets the default profile")
    assert(meas > 0)
  end
  assert(stated > 0 and stated < #rows / 4, "rows stating a bf16 reduction: " .. stated)
end)

T.test("sweeps and scaling.project take framework=, rows carry provenance", function()
  local t = dlb.sweep({ b = { 2, 4 } }, function(p)
    local r = R.time(dlb.models.gpt { size = "gpt2", seq = 256, batch = p.b }:stats { precision = "mixed" }, H100)
    return { time = r.time }
  end, { jobs = 1, framework = "fsdp", quiet = true })
  T.eq(t:column("framework")[1], "fsdp"); T.eq(t:column("calibration")[2], "catalogue")
  T.eq(t:column("dlbench")[1], dlb.version())
  T.eq(F.session(), nil, "the sweep's default is restored")
  T.checkerr("unknown framework", dlb.sweep, { b = { 1 } }, function() return {} end, { framework = "x" })
  local spec = dlb.scaling.domains.word_lm
  local pr = dlb.scaling.project(spec, { graph = function(h) return dlb.models.word_lm { hidden = h } end,
    subbatch = 32, framework = "pytorch-ddp", stats = { b = 32 } })
  T.eq(pr.framework, "pytorch-ddp")
end)

T.test("scaling.project{graph=} names the profile applied, not the default's rule (review 11)", function()
  -- before: framework = "default by family (transformers torchtitan, other graphs
  -- pytorch-ddp)" whatever the graph; the stats that gave the costs name their profile
  local spec = dlb.scaling.domains.word_lm
  local lm = dlb.scaling.project(spec, { graph = function(h) return dlb.models.word_lm { hidden = h } end,
    subbatch = 32 })
  T.eq(lm.framework, F.DEFAULTS.other, "an LSTM LM: the other graphs' default")
  T.eq(lm.provenance.framework, F.DEFAULTS.other, "provenance")
  T.eq(lm.framework_source, "default: " .. F.DEFAULTS_WHY.other, "source")
  T.eq(lm.provenance.defaults[1], "framework " .. F.DEFAULTS.other, "defaults")
  local tr = dlb.scaling.project(spec, { graph = function(h)
      return dlb.models.gpt { layers = 2, hidden = 64 * math.max(1, math.floor(h / 64)), heads = 2,
        seq = 16, vocab = 100, batch = "b" } end, subbatch = 4, lo = 64, hi = 4096, params = 1e6 })
  T.eq(tr.framework, F.DEFAULTS.transformer, "a GPT: the transformers' default")
  T.eq(tr.provenance.framework, F.DEFAULTS.transformer, "provenance")
  F.default("fsdp")
  local ok, ss = pcall(dlb.scaling.project, spec, { graph = function(h) return dlb.models.word_lm { hidden = h } end,
    subbatch = 32 })
  F.default("auto")
  assert(ok, ss)
  T.eq(ss.framework, "fsdp", "the session's default")
  T.eq(ss.provenance.framework, "fsdp", "provenance")
end)

T.test("derive: the fields a profile is used by are checked when derived (review7)", function()
  local D = dlb.frameworks.derive
  -- before: fuse = {"zz"} raised "attempt to perform arithmetic on a nil value" inside g:stats,
  -- attention = "zz" timed FlashAttention-2's rate, zero = 7, slack = NaN and pp_scatter = 0
  -- waited for (or passed) the planner
  T.checkerr("dlb.frameworks.derive: fuse[1] 'zz' is not a fusion pass", D, "fsdp", { fuse = { "zz" } })
  T.checkerr("unknown attention kernel family 'zz' for dlb.frameworks.derive", D, "fsdp", { attention = "zz" })
  T.checkerr("dlb.frameworks.derive: zero must be a whole number in 0..3, got 7", D, "fsdp", { zero = 7 })
  T.checkerr("dlb.frameworks.derive: slack must be a number >= 0 (finite)", D, "fsdp", { slack = 0 / 0 })
  T.checkerr("dlb.frameworks.derive: overlap must be a number in 0..1, got 2", D, "megatron-lm", { overlap = 2 })
  T.checkerr("dlb.frameworks.derive: recompute must be a list of", D, "fsdp", { recompute = { "zz" } })
  T.checkerr("dlb.frameworks.derive: option 'pp_scatter' must be true or false, got number 0", D,
    "megatron-lm", { pp_scatter = 0 })
  T.checkerr("dlb.frameworks.derive: name must be a string", D, "fsdp", { name = 5 })
  local p = D("fsdp", { fuse = { "attention" }, attention = "flash2", zero = 3, slack = 0.1 })
  T.eq(p.zero, 3, "good fields as before")
end)

-- The profile readers took a name as a profile without fields (host_of("megatron-lm") 0 s,
-- phase_sync("megatron-lm") false, plan_defaults("nemo") {}), and plan_defaults(nil) was an
-- index error (review 13): a name now reads its profile, anything else is refused by name.
T.test("profile readers: a name reads the profile; a bad argument is a clear error", function()
  local F = dlb.frameworks
  T.eq(F.host_of("megatron-lm"), (F.host_of(F.get("megatron-lm"))), "host_of by name")
  assert(F.host_of("megatron-lm") > 0, "megatron-lm has a host cost per op")
  T.eq(F.phase_sync("megatron-lm"), true, "phase_sync by name")
  T.eq(F.plan_defaults("nemo").zero, F.plan_defaults(F.get("nemo")).zero, "plan_defaults by name")
  T.eq(F.plan_defaults("nemo").seq_par, true, "nemo: seq_par, by name")
  T.eq(select(2, F.step_launch("fsdp")), select(2, F.step_launch(F.get("fsdp"))), "step_launch by name")
  T.eq(F.cpu_optimizer("deepspeed-zero3"), F.cpu_optimizer(F.get("deepspeed-zero3")), "cpu_optimizer")
  T.eq(F.norm_upcast("torchtitan"), F.norm_upcast(F.get("torchtitan")), "norm_upcast")
  -- nil stays "no profile" for the readers that answer for none
  T.eq(F.host_of(nil), 0); T.eq(F.phase_sync(nil), false)
  T.checkerr("dlb.frameworks.plan_defaults: framework must be a profile name", F.plan_defaults)
  T.checkerr("dlb.frameworks.plan_defaults: framework must be a profile name", F.plan_defaults, 3)
  T.checkerr("dlb.frameworks.plan_defaults: unknown framework 'nemoo'", F.plan_defaults, "nemoo")
  T.checkerr("dlb.frameworks.plan_defaults: zero must be a ZeRO stage", F.plan_defaults,
    "deepspeed-zero3", "3")
  T.checkerr("dlb.frameworks.host_of: framework must be a profile name", F.host_of, 7)
  T.checkerr("dlb.frameworks.phase_sync: unknown framework", F.phase_sync, "bogus")
end)

-- review 13: fuse_of("nemo", fam) was an index error; optimizer_launches' bad counts the
-- binding's "bad argument #2 to 'optim_launches'" or the C rule's text without the function;
-- attention_eff's unknown device dlb.hw.get's message at a line of frameworks.lua
T.test("fuse_of, optimizer_launches, attention_eff: names and bad arguments", function()
  local F = dlb.frameworks
  T.eq(table.concat(F.fuse_of("nemo", "transformer"), ","), table.concat(F.fuse_of(F.get("nemo"), "transformer"), ","),
    "fuse_of by name")
  T.checkerr("dlb.frameworks.fuse_of: framework must be a profile name", F.fuse_of, 5)
  T.checkerr("dlb.frameworks.optimizer_launches: tensors must be a number, got string", F.optimizer_launches, "fsdp", "x")
  T.checkerr("dlb.frameworks.optimizer_launches: chunks must be a number, got string", F.optimizer_launches, "fsdp", 10, "y")
  local e = T.checkerr("dlb.frameworks.optimizer_launches: optimizer launches: tensors must be a whole number >= 0, got -1",
    F.optimizer_launches, "fsdp", -1)
  assert(not e:find("optim_launches'", 1, true), e)
  T.eq(F.optimizer_launches("fsdp", 148).launches, F.optimizer_launches(F.get("fsdp"), 148).launches, "as before")
  -- calibrate by a device's name: that device's CALIBRATED value (the name was read as a
  -- device without one); provenance by a profile's name: that profile (it read "none")
  local d1, n1 = F.calibrate("H100-SXM", "bf16", "validated")
  local d2, n2 = F.calibrate(dlb.hw.get("H100-SXM"), "bf16", "validated")
  T.eq(n1, n2, "calibrate by name"); T.eq(d1.flops_eff, d2.flops_eff)
  T.checkerr("dlb.frameworks.calibrate: hw is required", F.calibrate, nil, "bf16", "validated")
  T.eq(F.provenance("nemo").framework, "nemo", "provenance by name")
  e = T.checkerr("dlb.frameworks.attention_eff: unknown device 'H1000'", F.attention_eff, "nemo", "H1000", "bf16")
  assert(not e:find("frameworks.lua:", 1, true), "no library line: " .. e)
end)

T.done()
