-- test_train_setups.lua — training set-ups people use (issue [14]): the optimizers
-- (adamw, adafactor, adam8bit beside sgd/momentum/rmsprop/adam), frozen weights, LoRA
-- adapters, ZeRO-Offload of optimizer state and parameters, fp8 and tf32, and the
-- device's natural precision when none is given. Goldens are hand derivations (comments).
local T = require "harness"
local dlb = require "dlbench"

-- x [b, 512] -> w1 [512, 1024] -> relu -> w2 [1024, 10] -> sum; params 512*1024 + 1024*10 = 534528
local function mlp()
  local g = dlb.graph("mlp")
  local x = g:input("x", { "b", 512 })
  g:loss(g:sum(g:matmul(g:relu(g:matmul(x, g:weight("w1", { 512, 1024 }))), g:weight("w2", { 1024, 10 }))))
  return g
end
local P = 534528

T.test("optimizers: state bytes and update FLOPs per parameter", function()
  local g = mlp()
  -- state bytes per parameter (fp32 states): docs/graph.md "Optimizers"
  local want = { sgd = 0, momentum = 4, rmsprop = 4, adam = 8, adamw = 8, adam8bit = 2 }
  local flops = { sgd = 2, momentum = 4, rmsprop = 9, adam = 12, adamw = 14, adafactor = 11, adam8bit = 20 }
  for name, f in pairs(flops) do
    local s = g:stats{ b = 32, optimizer = name }
    T.eq(s.flops_update, f * P, name .. " update FLOPs")
    T.eq(dlb.graph.optimizers[name].update_flops, f, name .. ": dlb.graph.optimizers has C's count")
    T.eq(s.optimizer, name)
    if want[name] then T.eq(s.breakdown.optimizer, want[name] * P, name .. " state bytes") end
  end
  -- adafactor: per matrix a row (r) and a column (c) vector of fp32:
  -- (512 + 1024) * 4 + (1024 + 10) * 4 = 6144 + 4136 = 10280 bytes
  T.eq(g:stats{ b = 32, optimizer = "adafactor" }.breakdown.optimizer, 10280)
  -- the per-shape function: 4 (r + c) / (r c)
  T.near(dlb.graph.optimizer_state_bytes("adafactor", { 512, 1024 }), 4 * 1536 / (512 * 1024), 1e-15)
  T.eq(dlb.graph.optimizer_state_bytes("adafactor", { 1024 }), 4)
  T.eq(dlb.graph.optimizer_state_bytes("adam8bit", { 10, 10 }), 2)
  T.checkerr("unknown optimizer 'lion'", dlb.graph.optimizer_state_bytes, "lion", {})
  T.checkerr("unknown optimizer 'lion'", g.stats, g, { b = 1, optimizer = "lion" })
  -- mixed precision adds the fp32 master copy: adamw 8 + 4
  T.eq(g:stats{ b = 32, optimizer = "adamw", precision = "mixed" }.breakdown.optimizer, 12 * P)
end)

T.test("fp8 and tf32 precisions: element bytes 1 and 4", function()
  local g = mlp()
  local s8 = g:stats{ b = 32, precision = "fp8", optimizer = "adam" }
  T.eq(s8.breakdown.weights, P)                -- 1 byte per weight
  T.eq(s8.breakdown.optimizer, 12 * P)         -- fp32 m, v and master copy
  T.eq(s8.precision, "fp8")
  local s32 = g:stats{ b = 32, precision = "tf32" }
  T.eq(s32.breakdown.weights, 4 * P)
  T.eq(s32.bytes, g:stats{ b = 32 }.bytes, "tf32 moves fp32 bytes")
  -- the peak follows the precision: H100 fp8 1979 TFLOP/s, tf32 494.5 (catalogue)
  local h = dlb.hw.get("H100-SXM")
  T.eq(dlb.roofline.time(s8, h).peak, 1979e12)
  T.eq(dlb.roofline.time(s32, h).peak, 494.5e12)
end)

T.test("frozen weights: no gradient, update or optimizer state; trainable counts the rest", function()
  local g = mlp()
  T.eq(g:freeze("^w1$"), 1)
  local s = g:stats{ b = 32, optimizer = "adam" }
  T.eq(s.params, P)
  T.eq(s.trainable, 10240)                       -- w2: 1024 * 10
  T.eq(s.flops_update, 12 * 10240)
  T.eq(s.breakdown.optimizer, 8 * 10240)
  assert(tostring(s):find("(10.2 k trainable)", 1, true), tostring(s))
  for _, r in ipairs(g:ops{ b = 32, optimizer = "adam" }) do
    assert(not (r.phase == "update" and r.name:find("matmul_1", 1, true)), "no update of w1")
  end
  T.eq(g:unfreeze(), 2)
  T.eq(g:stats{ b = 32 }.trainable, P)
  T.checkerr("g:freeze: no weight's name matches 'nope'", g.freeze, g, "nope")
  T.checkerr("g:freeze: expected a weight tensor", g.freeze, g, 3)
  local x = g:input("z", { 2 })
  T.checkerr("is not a weight", g.freeze, g, x)
end)

T.test("LoRA: adapters' own params and FLOPs, everything else frozen (Hu et al. 2021)", function()
  local lo = { rank = 8, targets = { "q", "v" } }
  local g = dlb.models.gpt{ size = "gpt2", lora = lo }
  local g0 = dlb.models.gpt{ size = "gpt2" }
  local s = g:stats{ b = 1, optimizer = "adamw", precision = "mixed_bf16" }
  local s0 = g0:stats{ b = 1, optimizer = "adamw", precision = "mixed_bf16" }
  -- 12 layers x 2 targets x (A 768 x 8 + B 8 x 768) = 294912 trainable (Hu et al. sec. 4:
  -- |Theta| = 2 x L x d_model x r for W_q and W_v)
  T.eq(s.trainable, 294912)
  T.eq(s.params, s0.params + 294912)
  -- forward: per adapted matrix and token x A (2*768*8), (xA) B (2*8*768), the scale and
  -- the add (768 each): 24 matrices x 1024 tokens x (24576 + 1536) = 641728512
  T.eq(s.flops_fwd - s0.flops_fwd, 641728512)
  -- adamw updates only the adapters: 14 FLOPs and 8 + 4 (master) state bytes each (+1 FLOP
  -- for the bf16 copy)
  T.eq(s.flops_update, 15 * 294912)
  T.eq(s.breakdown.optimizer, 12 * 294912)
  assert(s.flops_bwd < s0.flops_bwd * 0.6, "no weight gradients of frozen matrices")
  T.checkerr("rank must be an integer >= 1", function() return dlb.models.gpt{ size = "gpt2", lora = { rank = 0 } } end)
  T.checkerr("unknown option 'ranks'", function() return dlb.graph("x"):lora{ ranks = 2 } end)
end)

-- g:lora's order (review): adapters are made as target layers are built, so g:lora after
-- the build used to freeze every weight silently (trainable 0, a step that trains nothing).
T.test("LoRA: called after the layers are built, or with no target built, is an error", function()
  local nn = require "dlbench.nn"
  local function build(g)
    local x = g:input("x", { "b", 64 })
    local h = nn.linear(g, x, 64, { name = "h0/attn/q" })
    g:loss(g:sum(nn.linear(g, h, 64, { name = "h0/mlp/fc" })))
  end
  local ok = dlb.graph("before"):lora{ rank = 4, targets = { "q" } }
  build(ok)
  -- q's adapters: A 64 x 4 + B 4 x 64 = 512 trainable; everything else frozen
  T.eq(ok:stats{ b = 2 }.trainable, 512)
  local late = dlb.graph("after")
  build(late)
  T.checkerr("g:lora: layer 'h0/attn/q' (a target) was built before g:lora", late.lora, late,
    { rank = 4, targets = { "q" } })
  T.eq(late:stats{ b = 2 }.trainable, 64 * 64 * 2 + 128, "the refused g:lora leaves the graph as it was")
  local none = dlb.graph("none"):lora{ rank = 4, targets = { "v" } }
  build(none)
  T.checkerr("no layer built after g:lora is a target (targets: v", none.stats, none, { b = 2 })
  -- at the user's line (the analysis that asked), not inside the library
  local ok, err = pcall(function() return none:stats { b = 2 } end)
  assert(not ok and tostring(err):find("^[^:]*test_train_setups%.lua:%d+: g:lora: no layer"), tostring(err))
  T.checkerr("no layer built after g:lora is a target", function()
    return dlb.models.gpt{ size = "gpt2", layers = 1, lora = { rank = 2, targets = { "nope" } } }:stats{ b = 1 }
  end)
end)

T.test("ZeRO-Offload: optimizer state and parameters in host memory, traffic over the host link", function()
  local g = mlp()
  local base = g:stats{ b = 32, optimizer = "adam", precision = "mixed" }
  local s = g:stats{ b = 32, optimizer = "adam", precision = "mixed", offload = "optimizer" }
  -- states 8 + master 4 bytes per parameter go to the host
  T.eq(s.offload.host_bytes, 12 * P)
  T.eq(s.breakdown.optimizer, 0)
  T.eq(s.footprint, base.footprint - 12 * P)
  -- fp16 gradients down and fp16 weights back: 4 bytes per parameter (Ren et al. 2021 sec. 4.1)
  T.eq(s.offload.traffic, 4 * P)
  local p = g:stats{ b = 32, optimizer = "adam", precision = "mixed", offload = { "optimizer", "params" } }
  -- + fp16 weights fetched for forward and backward: 2 x 2 bytes per parameter
  T.eq(p.offload.traffic, 8 * P)
  -- the time: the V100 SXM2's host link, PCIe Gen3 x16 in a DGX-1: 15.75 GB/s each way
  -- (catalogue; 8 GT/s x 16 x 128/130, PCI-SIG); a device without one: PCIe 4.0 x16
  local v = dlb.hw.get("V100-SXM2-16GB")
  local r0 = dlb.roofline.time(base, v)
  local r = dlb.roofline.time(s, v)
  T.near(r.offload_time, 4 * P / 15.75e9, 1e-12)
  T.near(dlb.roofline.time(s, dlb.hw.get("P100-SXM2")).offload_time, 4 * P / 32e9, 1e-12)
  -- the update runs on the host CPU (dlb.roofline.offload_step): the device's update phase
  -- leaves the step, the host's Adam over the P trainable parameters (no launch model: the
  -- algorithmic step's update op's own time) and the link join it
  T.near(r.cpu_update_time, dlb.roofline.cpu_update_time(P, "torch"), 1e-12)
  T.near(r.time, r0.time - r.update_device_saved + r.offload_time + r.cpu_update_time, 1e-12)
  assert(r.update_device_saved > 0, "a device update phase left the step")
  local fast = v:with{ links = { host = { bw = 64e9 } } }
  T.near(dlb.roofline.time(s, fast).offload_time, 4 * P / 64e9, 1e-12)
  T.checkerr("offload must be", g.stats, g, { b = 1, offload = "gradients" })
end)

T.done()
