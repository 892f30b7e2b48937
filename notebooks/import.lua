-- import.lua — bring your own model (docs/import.md): torchvision's ResNet-50 and a
-- torch.nn.TransformerEncoder imported from ONNX files (tests/fixtures/onnx, exported by
-- tests/fixtures/make_onnx.py with weights stripped) beside the zoo's builders, then a
-- Hugging Face Llama config imported and its training planned on a cluster.
-- Run: build/bin/dlbench run notebooks/import.lua   (from the source tree)
local dlb = require "dlbench"
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")
local nn = require "dlbench.nn"
local tr = require "dlbench.models.transformer"
local si = require("dlbench.graph").si

local function row(what, a, b, unit)
  print(string.format("  %-22s %16s %16s %9s", what, unit and si(a, unit) or string.format("%.0f", a),
    unit and si(b, unit) or string.format("%.0f", b), b ~= 0 and string.format("%.4f", a / b) or "-"))
end
local function header(a, b)
  print(string.format("  %-22s %16s %16s %9s", "", a, b, "ratio"))
end

-- == ResNet-50: ONNX export of torchvision vs dlb.models.resnet ==
do
  print("ResNet-50, batch 32, momentum SGD, fp32 (ours: computed by dlbench for both graphs)")
  local g = dlb.models.from_onnx("tests/fixtures/onnx/resnet50.onnx", { optimizer = "momentum" })
  local z = dlb.models.resnet { depth = 50, batch = 32 }
  local a, b = g:stats{ batch = 32 }, z:stats{}
  header("ONNX import", "zoo builder")
  row("parameters", a.params, b.params)
  row("forward FLOPs", a.flops_fwd, b.flops_fwd, "FLOP")
  row("training-step FLOPs", a.flops, b.flops, "FLOP")
  row("footprint", a.footprint, b.footprint, "B")
  print(string.format("  BatchNorm running statistics in the file (not trained): %.0f", g.import.bn_stats))
  print("  torchvision: 25,557,032 parameters, 4.09 GMACs forward per image")
  print()
end

-- == Every torchvision export in the fixtures against its zoo builder ==
do
  print("torchvision exports vs the zoo, batch 8 (forward FLOPs; VGG-11's export keeps its 1x1 adaptive pool)")
  print(string.format("  %-16s %14s %14s %12s %12s %9s", "model", "params (ONNX)", "params (zoo)", "fwd (ONNX)", "fwd (zoo)", "ratio"))
  local rows = {
    { "resnet18_opset9", function() return dlb.models.resnet { depth = 18, batch = 8 } end },
    { "resnet50", function() return dlb.models.resnet { depth = 50, batch = 8 } end },
    { "mobilenet_v2", function() return dlb.models.mobilenet { version = 2, batch = 8 } end },
    { "googlenet", function() return dlb.models.googlenet { batch = 8 } end },
    { "inception_v3", function() return dlb.models.inception_v3 { batch = 8, aux = false } end },
    { "densenet121", function() return dlb.models.densenet { depth = 121, batch = 8 } end },
    { "vgg11", function() return dlb.models.vgg { depth = 11, batch = 8 } end },
  }
  for _, r in ipairs(rows) do
    local a = dlb.models.from_onnx("tests/fixtures/onnx/" .. r[1] .. ".onnx"):stats{ batch = 8 }
    local b = r[2]():stats{}
    print(string.format("  %-16s %14.0f %14.0f %12s %12s %9.6f", r[1], a.params, b.params,
      si(a.flops_fwd, "FLOP"), si(b.flops_fwd, "FLOP"), a.flops_fwd / b.flops_fwd))
  end
  print()
end

-- == torch.nn.TransformerEncoder: ONNX export vs the same encoder from the zoo's parts ==
do
  -- Encoder(vocab 1000, d 128, 4 heads, ffn 512, 2 post-LN layers, ReLU, dropout 0.1) + a
  -- linear head, as in make_onnx.py; rebuilt op by op with dlbench.nn, with torch's four
  -- dropouts per layer (attention weights, after attention, in and after the FFN) or without
  local V, d, H, ff, L = 1000, 128, 4, 512, 2
  local function zoo_encoder(b, s, drop)
    local g = dlb.graph("encoder")
    local x = nn.embedding(g, g:input("ids", { b, s }, "int32"), V, d, { name = "emb" })
    local dh = d / H
    local function D(t) if drop then return g:dropout(t) end return t end
    local function heads(t) return g:transpose(g:reshape(t, { b, s, H, dh }), { 1, 3, 2, 4 }) end
    for l = 1, L do
      local p = "layer" .. l
      g:layer(p)
      local q, k, v = heads(nn.linear(g, x, d, { name = p .. "/q" })), heads(nn.linear(g, x, d, { name = p .. "/k" })),
        heads(nn.linear(g, x, d, { name = p .. "/v" }))
      local pr = D(g:softmax(g:scale(g:matmul(q, k, { transpose_b = true }))))
      local c = g:reshape(g:transpose(g:matmul(pr, v), { 1, 3, 2, 4 }), { b, s, d })
      x = nn.layernorm(g, g:add(x, D(nn.linear(g, c, d, { name = p .. "/o" }))), { name = p .. "/ln1" })
      local h = D(g:relu(nn.linear(g, x, ff, { name = p .. "/fc1" })))
      x = nn.layernorm(g, g:add(x, D(nn.linear(g, h, d, { name = p .. "/fc2" }))), { name = p .. "/ln2" })
    end
    g:loss(g:softmax_xent(nn.linear(g, x, V, { name = "head" }), g:label("labels", { b, s })))
    return g
  end
  local b, s = 32, 128
  print(string.format("torch.nn.TransformerEncoder, batch %.0f, seq %.0f, SGD, fp32", b, s))
  local z = zoo_encoder(b, s, true)
  local za = z:stats{}
  for _, f in ipairs { "transformer_encoder", "transformer_encoder_opset17" } do
    local g = dlb.models.from_onnx("tests/fixtures/onnx/" .. f .. ".onnx")
    local ga = g:stats{ batch = b, seq = s }
    print("  " .. f .. ".onnx (symbolic forward FLOPs: " .. tostring(g:stats{}.flops_fwd) .. ")")
    header("ONNX import", "zoo parts")
    row("parameters", ga.params, za.params)
    row("matmul FLOPs (fwd)", g:type_flops("matmul", { batch = b, seq = s }):number(),
      z:type_flops("matmul"):number(), "FLOP")
    row("forward FLOPs", ga.flops_fwd, za.flops_fwd, "FLOP")
    row("training-step FLOPs", ga.flops, za.flops, "FLOP")
    row("footprint", ga.footprint, za.footprint, "B")
  end
  print(string.format("  without the dropouts the zoo parts' footprint is %s: torch's exports, made in",
    si(zoo_encoder(b, s, false):stats{}.footprint, "B")))
  print("  training mode, keep the dropout masks for the backward pass. What is left: the export")
  print("  scales q before the scores (bytes, no FLOPs); its Transpose of each Linear's weight is")
  print("  the GEMM's transpose flag, not a copy (docs/import.md, as ONNX Runtime and cuBLAS run it).")
  print("  The opset-14 export spells LayerNorm as ReduceMean/Sub/Pow/Sqrt/Div; the importer fuses")
  print("  it, so both exports give the same step.")
  print()
end

-- == A GPT-2 as Hugging Face writes it: its masked attention is an attention pattern ==
-- modeling_gpt2.py applies the causal mask with torch.where (an ONNX Where); the attention
-- pass takes that mask as part of the pattern (review 18), so the import is a transformer
-- (the FlashAttention default profile applies) and its fused attention moves the zoo's bytes;
-- the mask is read as causal (issue [18] item 7), so its MFU convention is the zoo's.
do
  local b = { batch = 4, sequence = 64 }
  local g = dlb.models.from_onnx("tests/fixtures/onnx/gpt2_like.onnx")
  local z = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, context = 128, vocab = 1000,
    seq = "sequence", batch = "batch" }
  g:stats{ batch = b.batch, sequence = b.sequence, framework = "auto" } -- finds the family
  local fam = dlb.frameworks.family(g)
  print(string.format("gpt2_like.onnx (2 layers, d 64, 4 heads), batch %.0f, seq %.0f, fp32: family %s",
    b.batch, b.sequence, fam))
  print(string.format("  (its default profile, unpinned: %s)", dlb.frameworks.DEFAULTS[fam]))
  local function kernel(gr, name)
    for _, o in ipairs(gr:ops{ batch = b.batch, sequence = b.sequence, fuse = { "attention" } }) do
      if o.name == name then return o.bytes end
    end
  end
  header("ONNX import", "zoo gpt")
  row("fused attention fwd", kernel(g, "/h.0/MatMul_1"), kernel(z, "h0/attn/context"), "B")
  row("fused attention bwd", kernel(g, "/h.0/MatMul_1/grad_a"), kernel(z, "h0/attn/context/grad_a"), "B")
  -- its causal mask is read from the file (docs/import.md "Causal attention"): the tril
  -- buffer, sliced to the sequence and applied by Where, makes both attention patterns
  -- causal, so MFU counts the masked half of the attention as it does for the zoo's GPT-2
  local a = g:attention(b)
  row("attention matmuls fwd", a.flops_causal:number(), b.batch * require("dlbench.mfu").attention_fwd(z, b), "FLOP")
  local hw = dlb.hw.get("H100-SXM")
  print(string.format("  causal attention patterns: %d of %d; MFU convention: %s", a.causal, a.count,
    dlb.roofline.time(g:stats(b), hw).mfu_convention))
  print()
end

-- == A Llama config: import and plan its training ==
do
  local g = dlb.models.from_hf("tests/fixtures/hf/llama-2-7b.json", { seq = 4096 })
  local s = g:stats{ b = 1 }
  print(string.format("Llama-2-7B from config.json: %.0f parameters (released checkpoint: 6,738,415,616)", s.params))
  print(string.format("  per sequence of 4096 tokens: %s per training step (forward %s)",
    si(s.flops, "FLOP"), si(s.flops_fwd, "FLOP")))
  local hw = dlb.hw.get("A100-SXM4-80GB")
  -- MFU with the attention counted whole, as this notebook printed it before issue [18]
  local t = dlb.parallel.plan { graph = g, hw = hw, devices = 64, batch = 256, attention_flops = "full" }
  local best = t[1]
  print(string.format("  plan (predicted) on 64 x %s, batch 256 sequences: %.0f layouts fit; best dp %.0f x tp %.0f x pp %.0f,"
    .. " m %.0f, %s, ZeRO %.0f, recompute %s", hw.name, #t, best.dp, best.tp, best.pp, best.m, best.schedule,
    best.zero, tostring(best.recompute)))
  print(string.format("  predicted step %.2f s (compute %.2f s, communication %.2f s, bubble %.2f s), %s per device, utilisation %.0f%% (%s)",
    best.step, best.compute, best.comm, best.bubble, si(best.mem, "B"), 100 * best.util, best.mfu_convention))
  print(string.format("  predicted throughput %.0f tokens/s", best.throughput * 4096))
end
