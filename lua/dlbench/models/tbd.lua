-- dlbench.models.tbd — the two TBD models (Zhu et al. 2018, seeds/001 Table II) that are
-- neither CNN classifiers nor sequence models: WGAN-GP's residual GAN and A3C's Atari net.
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local doc = require "dlbench.doc"

local M = {}
local OPT = C.OPTIMIZERS -- the C enum DLB_OPT_*, in its order

local WGAN = {
  { "batch", "b", "dim", "images per step" },
  { "image", 64, { 32, 64 }, "output height = width (TBD: downsampled ImageNet 64x64)" },
  { "dim", 64, "int", "base channels (Gulrajani et al.'s DIM)" },
  { "latent", 128, "int", "noise vector size" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats (WGAN-GP: Adam)" },
}

-- WGAN-GP (Gulrajani et al. 2017) with the residual generator and critic of its 64x64
-- ImageNet model: generator z -> linear 4x4x8d -> 4 up-blocks (8d, 4d, 2d, d; BN, ReLU,
-- nearest 2x upsample, 3x3 conv, BN, ReLU, 3x3 conv; 1x1 conv shortcut on the upsampled
-- input) -> BN, ReLU, 3x3 conv to RGB, tanh. Critic: 3x3 conv to d -> 4 down-blocks (2d,
-- 4d, 8d, 8d; ReLU, 3x3 conv, ReLU, 3x3 conv, 2x2 mean pool; 1x1 conv shortcut on the
-- pooled input) -> linear to 1. One training step = the critic on real, generated and
-- interpolated images plus the generator, with one backward pass through everything.
-- Approximations: the gradient penalty's double backpropagation is counted as one more
-- critic forward/backward (on the interpolates), the critic's layer norm is left out, and
-- the n_critic = 5 critic iterations per generator step are one step here.
function M.wgan(opts)
  local what = "dlb.models.wgan"
  local o = C.options(opts, WGAN, what)
  local b, d = o.batch, o.dim
  local g = C.graph("wgan_gp", o, o.optimizer)
  local function W(name, cout, cin, k)
    return { g:weight(name .. "/w", { cout, cin, k, k }), g:weight(name .. "/b", { cout, 1, 1 }) }
  end
  local function conv(x, w, pad) return g:add(g:conv2d(x, w[1], { padding = pad }), w[2]) end
  -- generator
  local nup = o.image == 64 and 4 or 3
  local gch = o.image == 64 and { 8 * d, 8 * d, 4 * d, 2 * d, d } or { 4 * d, 4 * d, 2 * d, d }
  g:layer("generator")
  local z = g:input("z", { b, o.latent })
  local x = g:reshape(nn.linear(g, z, 16 * gch[1], { name = "G/fc" }), { b, gch[1], 4, 4 })
  for i = 1, nup do
    local name = "G/block" .. i
    g:layer(name)
    local cin, cout = gch[i], gch[i + 1]
    local y = g:relu(nn.batchnorm(g, x, { name = name .. "/bn1" }))
    y = C.upsample2(g, y, name .. "/up")
    y = nn.conv2d(g, y, cout, 3, { padding = 1, bias = true, name = name .. "/conv1" })
    y = g:relu(nn.batchnorm(g, y, { name = name .. "/bn2" }))
    y = nn.conv2d(g, y, cout, 3, { padding = 1, bias = true, name = name .. "/conv2" })
    local s = nn.conv2d(g, C.upsample2(g, x, name .. "/up_short"), cout, 1, { bias = true, name = name .. "/shortcut" })
    x = g:add(y, s)
    local _ = cin
  end
  g:layer("G/out")
  x = g:relu(nn.batchnorm(g, x, { name = "G/bn" }))
  local fake = g:tanh(nn.conv2d(g, x, 3, 3, { padding = 1, bias = true, name = "G/out" }))
  -- critic weights, shared by its three applications
  g:layer("critic")
  local dch = o.image == 64 and { d, 2 * d, 4 * d, 8 * d, 8 * d } or { d, 2 * d, 4 * d, 4 * d }
  local Dw = { stem = W("D/conv_in", d, 3, 3), blocks = {} }
  for i = 1, #dch - 1 do
    local cin, cout = dch[i], dch[i + 1]
    Dw.blocks[i] = { W("D/block" .. i .. "/conv1", cin, cin, 3), W("D/block" .. i .. "/conv2", cout, cin, 3),
                     W("D/block" .. i .. "/shortcut", cout, cin, 1) }
  end
  local fcw = g:weight("D/fc/w", { 16 * dch[#dch], 1 })
  local fcb = g:weight("D/fc/b", { 1 })
  local function critic(img, tag)
    g:layer("critic/" .. tag)
    local y = conv(img, Dw.stem, 1)
    for i, w in ipairs(Dw.blocks) do
      local h = conv(g:relu(y), w[1], 1)
      h = g:avgpool(conv(g:relu(h), w[2], 1), { kernel = 2, stride = 2 })
      local s = conv(g:avgpool(y, { kernel = 2, stride = 2 }), w[3], 0)
      y = g:add(h, s)
      local _ = i
    end
    return g:mean(g:add(g:matmul(g:reshape(y, { b, 16 * dch[#dch] }), fcw), fcb))
  end
  local real = g:input("images", { b, 3, o.image, o.image })
  local eps = g:input("epsilon", { b, 1, 1, 1 })
  local interp = g:add(real, g:mul(eps, g:sub(fake, real)))
  local l_real = critic(real, "real")
  local l_fake = critic(fake, "fake")
  local l_gp = critic(interp, "interp")
  g:layer(nil)
  g:loss(g:add(g:sub(l_fake, l_real), g:scale(l_gp), "loss"))
  return g
end
doc.doc(M.wgan, "dlb.models.wgan{batch=\"b\", image=64, dim=64, latent=128} -> graph",
  "WGAN-GP residual generator and critic (approximations in docs/models.md)")

local A3C = {
  { "batch", "b", "dim", "frames per update (A3C: t_max = 5 per worker)" },
  { "actions", 6, "dim", "action space (Pong: 6)" },
  { "frames", 4, "int", "stacked frames (input channels)" },
  { "image", 84, "int", "frame height = width" },
  { "hidden", 256, "dim", "fully connected units" },
  { "optimizer", "rmsprop", OPT, "default optimizer (A3C: shared RMSProp)" },
}

-- A3C (Mnih et al. 2016) with the Atari network of Mnih et al. 2013: conv 16 8x8/4, conv
-- 32 4x4/2, FC 256, a softmax policy and a linear value head. Loss: policy cross-entropy
-- (the log-probability of the taken action; the advantage weight is 1 FLOP per sample,
-- not modelled) plus value MSE. The entropy bonus is left out.
function M.a3c(opts)
  local what = "dlb.models.a3c"
  local o = C.options(opts, A3C, what)
  C.image_min(what, A3C, o, 36, "at least 36 for the 8x8/4 and 4x4/2 convs")
  local b = o.batch
  local g = C.graph("a3c", o, o.optimizer)
  g:layer("conv")
  local x = g:input("frames", { b, o.frames, o.image, o.image })
  x = g:relu(nn.conv2d(g, x, 16, 8, { stride = 4, bias = true, name = "conv1" }))
  x = g:relu(nn.conv2d(g, x, 32, 4, { stride = 2, bias = true, name = "conv2" }))
  local d = x:dims()
  g:layer("fc")
  x = g:relu(nn.linear(g, g:reshape(x, { b, 32 * d[3] * d[4] }), o.hidden, { name = "fc" }))
  g:layer("heads")
  local pi = nn.linear(g, x, o.actions, { name = "policy" })
  local v = nn.linear(g, x, 1, { name = "value" })
  local lp = g:softmax_xent(pi, g:label("actions", { b }), "policy_loss")
  local lv = g:mse(v, g:label("returns", { b, 1 }, "fp32"), "value_loss")
  g:loss(g:add(lp, g:scale(lv), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.a3c, "dlb.models.a3c{batch=\"b\", actions=6, frames=4, image=84, hidden=256} -> graph",
  "A3C Atari conv net with policy and value heads (Pong: 677,943 params)")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["wgan"] = WGAN, ["a3c"] = A3C }

return M
