-- import.lua — bring your own model (docs/import.md): torchvision's ResNet-50 and a
-- torch.nn.TransformerEncoder imported from ONNX files (tests/fixtures/onnx, exported by
-- tests/fixtures/make_onnx.py with weights stripped) beside the zoo's builders, then a
-- Hugging Face Llama config imported and its training planned on a cluster.
-- Run: build/bin/dlbench run notebooks/import.lua   (from the source tree)
local dlb = require "dlbench"
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

-- == torch.nn.TransformerEncoder: ONNX export vs the same encoder from the zoo's parts ==
do
  -- Encoder(vocab 1000, d 128, 4 heads, ffn 512, 2 post-LN layers, ReLU) + linear head,
  -- as in make_onnx.py; rebuilt with dlbench.nn and the zoo's attention
  local V, d, H, ff, L = 1000, 128, 4, 512, 2
  local function zoo_encoder(b, s)
    local g = dlb.graph("encoder")
    local x = nn.embedding(g, g:input("ids", { b, s }, "int32"), V, d, { name = "emb" })
    local a = { b = b, q = s, d = d, heads = H, dh = d / H, bias = true }
    for l = 1, L do
      g:layer("layer" .. l)
      a.name = "layer" .. l .. "/attn"
      x = nn.layernorm(g, g:add(x, tr.attention(g, x, a)), { name = "layer" .. l .. "/ln1" })
      local h = g:relu(nn.linear(g, x, ff, { name = "layer" .. l .. "/fc1" }))
      x = nn.layernorm(g, g:add(x, nn.linear(g, h, d, { name = "layer" .. l .. "/fc2" })), { name = "layer" .. l .. "/ln2" })
    end
    g:loss(g:softmax_xent(nn.linear(g, x, V, { name = "head" }), g:label("labels", { b, s })))
    return g
  end
  local b, s = 32, 128
  print(string.format("torch.nn.TransformerEncoder, batch %.0f, seq %.0f, SGD, fp32", b, s))
  for _, f in ipairs { "transformer_encoder", "transformer_encoder_opset17" } do
    local g = dlb.models.from_onnx("tests/fixtures/onnx/" .. f .. ".onnx")
    local z = zoo_encoder(b, s)
    local ga, za = g:stats{ batch = b, seq = s }, z:stats{}
    print("  " .. f .. ".onnx (symbolic forward FLOPs: " .. tostring(g:stats{}.flops_fwd) .. ")")
    header("ONNX import", "zoo parts")
    row("parameters", ga.params, za.params)
    row("matmul FLOPs (fwd)", g:type_flops("matmul", { batch = b, seq = s }):number(),
      z:type_flops("matmul"):number(), "FLOP")
    row("forward FLOPs", ga.flops_fwd, za.flops_fwd, "FLOP")
    row("footprint", ga.footprint, za.footprint, "B")
  end
  print("  (the exports were made in training mode: their 8 Dropout ops keep masks for the backward")
  print("   pass, which the zoo parts do not model: hence the larger footprint; the opset-14 export")
  print("   also spells LayerNorm as ReduceMean/Sub/Pow/Sqrt/Div, opset 17 has the fused op)")
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
  local t = dlb.parallel.plan { graph = g, hw = hw, devices = 64, batch = 256 }
  local best = t[1]
  print(string.format("  plan (predicted) on 64 x %s, batch 256 sequences: %.0f layouts fit; best dp %.0f x tp %.0f x pp %.0f,"
    .. " m %.0f, %s, ZeRO %.0f, recompute %s", hw.name, #t, best.dp, best.tp, best.pp, best.m, best.schedule,
    best.zero, tostring(best.recompute)))
  print(string.format("  predicted step %.2f s (compute %.2f s, communication %.2f s, bubble %.2f s), %s per device, utilisation %.0f%%",
    best.step, best.compute, best.comm, best.bubble, si(best.mem, "B"), 100 * best.util))
  print(string.format("  predicted throughput %.0f tokens/s", best.throughput * 4096))
end
