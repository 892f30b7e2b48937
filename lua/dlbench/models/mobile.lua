-- dlbench.models.mobile — ParaDnn's real CNNs beyond ResNet (seeds/004 Table 2): DenseNet,
-- MobileNet v1/v2 and SqueezeNet, as torchvision (v2, SqueezeNet, DenseNet) and Keras
-- (MobileNet v1) define them, so parameter counts match those references exactly.
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local R = require "dlbench.models.resnet"
local doc = require "dlbench.doc"

local M = {}
local OPT = C.OPTIMIZERS -- the C enum DLB_OPT_*, in its order

-- A ceil-mode max pool (torchvision's SqueezeNet/GoogLeNet) as a floor-mode pool with the
-- padding that gives the same output size.
local function ceilpool(g, x, k, s)
  local n = tonumber(x:dims()[3])
  local floor = math.floor((n - k) / s) + 1
  local ceil = math.ceil((n - k) / s) + 1
  return g:maxpool(x, { kernel = k, stride = s, padding = ceil > floor and 1 or 0 })
end

local DENSE_CFG = {
  [121] = { 32, { 6, 12, 24, 16 }, 64 }, [169] = { 32, { 6, 12, 32, 32 }, 64 },
  [201] = { 32, { 6, 12, 48, 32 }, 64 }, [161] = { 48, { 6, 12, 36, 24 }, 96 },
}
local DENSE = {
  { "depth", 121, "count", "121, 169, 201 or 161" },
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width" },
  { "classes", 1000, "dim", "output classes" },
  { "growth", nil, "int", "growth rate k (default: 32; 48 for 161)" },
  { "bn_size", 4, "int", "bottleneck width factor (1x1 conv to bn_size*k)" },
  { "optimizer", "momentum", OPT, "default optimizer for g:stats" },
}

-- DenseNet-BC (Huang et al. 2017), torchvision: pre-activation dense layers (BN, ReLU, 1x1
-- conv to 4k, BN, ReLU, 3x3 conv to k) whose outputs are concatenated, transitions halving
-- channels (BN, ReLU, 1x1 conv, 2x2 average pool), final BN, global pool, linear.
function M.densenet(opts)
  local what = "dlb.models.densenet"
  local o = C.options(opts, DENSE, what)
  local cfg = DENSE_CFG[o.depth]
  if not cfg then C.fail(what, DENSE, "depth=" .. o.depth .. " is not one of 121, 169, 201, 161") end
  C.image_min(what, DENSE, o, 32, "at least 32: the net downsamples 32x")
  local k, blocks, init = o.growth or cfg[1], cfg[2], cfg[3]
  local b = o.batch
  local g = C.graph("densenet" .. o.depth, o, o.optimizer)
  g:layer("stem")
  local x = g:input("images", { b, 3, o.image, o.image })
  x = R.conv_bn(g, x, init, 7, { stride = 2, padding = 3, name = "conv0" })
  x = g:maxpool(x, { kernel = 3, stride = 2, padding = 1 })
  local c = init
  for s = 1, 4 do
    for i = 1, blocks[s] do
      local name = string.format("denseblock%d/layer%d", s, i)
      g:layer(name)
      local y = g:relu(nn.batchnorm(g, x, { name = name .. "/norm1" }))
      y = nn.conv2d(g, y, o.bn_size * k, 1, { name = name .. "/conv1" })
      y = g:relu(nn.batchnorm(g, y, { name = name .. "/norm2" }))
      y = nn.conv2d(g, y, k, 3, { padding = 1, name = name .. "/conv2" })
      x = g:concat({ x, y }, 2)
      c = c + k
    end
    if s < 4 then
      local name = "transition" .. s
      g:layer(name)
      x = g:relu(nn.batchnorm(g, x, { name = name .. "/norm" }))
      c = math.floor(c / 2)
      x = nn.conv2d(g, x, c, 1, { name = name .. "/conv" })
      x = g:avgpool(x, { kernel = 2, stride = 2 })
    end
  end
  g:layer("classifier")
  x = g:relu(nn.batchnorm(g, x, { name = "norm5" }))
  x = nn.linear(g, g:global_avgpool(x), o.classes, { name = "classifier" })
  g:loss(g:softmax_xent(x, g:label("labels", { b }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.densenet, "dlb.models.densenet{depth=121, batch=\"b\", image=224, classes=1000, growth=32, bn_size=4} -> graph",
  "DenseNet-BC (torchvision densenet121: 7,978,856 params)")

local function divisible(v, d)
  local n = math.max(d, math.floor((v + d / 2) / d) * d)
  if n < 0.9 * v then n = n + d end
  return math.floor(n)
end

local MOB = {
  { "version", 2, { 1, 2 }, "1 (Howard et al. 2017) or 2 (Sandler et al. 2018)" },
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width" },
  { "classes", 1000, "dim", "output classes" },
  { "width", 1, "pos", "width multiplier alpha" },
  { "optimizer", "rmsprop", OPT, "default optimizer (both papers: RMSProp)" },
}

-- MobileNet v1 (Keras applications' definition: conv-BN-ReLU stem, 13 depthwise-separable
-- blocks, global pool, 1x1 conv classifier with bias = a linear layer) and v2
-- (torchvision's mobilenet_v2: inverted residuals with expansion 6, linear bottlenecks,
-- a 1280-channel last conv, dropout and linear classifier). ReLU6 costs as ReLU.
function M.mobilenet(opts)
  local what = "dlb.models.mobilenet"
  local o = C.options(opts, MOB, what)
  C.image_min(what, MOB, o, 32, "at least 32: the net downsamples 32x")
  if o.version == 1 and 32 * o.width < 1 then
    C.fail(what, MOB, "width=" .. o.width .. " leaves the version 1 stem no channels (32*width < 1)")
  end
  local b, a = o.batch, o.width
  local g = C.graph("mobilenet_v" .. o.version, o, o.optimizer)
  local x = g:input("images", { b, 3, o.image, o.image })
  local n = 0
  local function cbr(y, cout, k, stride, groups, relu)
    n = n + 1
    return R.conv_bn(g, y, cout, k, { stride = stride, groups = groups, relu = relu, name = "conv" .. n })
  end
  local c
  if o.version == 1 then
    g:layer("stem")
    c = math.floor(32 * a)
    x = cbr(x, c, 3, 2)
    local cfg = { { 64, 1 }, { 128, 2 }, { 128, 1 }, { 256, 2 }, { 256, 1 }, { 512, 2 }, { 512, 1 },
                  { 512, 1 }, { 512, 1 }, { 512, 1 }, { 512, 1 }, { 1024, 2 }, { 1024, 1 } }
    for i, e in ipairs(cfg) do
      g:layer("block" .. i)
      x = cbr(x, c, 3, e[2], c)                      -- depthwise
      c = math.floor(e[1] * a)
      x = cbr(x, c, 1, 1)                            -- pointwise
    end
  else
    g:layer("stem")
    c = divisible(32 * a, 8)
    x = cbr(x, c, 3, 2)
    local cfg = { { 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 }, { 6, 64, 4, 2 }, { 6, 96, 3, 1 },
                  { 6, 160, 3, 2 }, { 6, 320, 1, 1 } }
    local blk = 0
    for _, e in ipairs(cfg) do
      local t, cout = e[1], divisible(e[2] * a, 8)
      for i = 1, e[3] do
        blk = blk + 1
        g:layer("block" .. blk)
        local stride = i == 1 and e[4] or 1
        local hidden = c * t
        local y = x
        if t ~= 1 then y = cbr(y, hidden, 1, 1) end
        y = cbr(y, hidden, 3, stride, hidden)
        y = cbr(y, cout, 1, 1, nil, false)
        if stride == 1 and c == cout then y = g:add(x, y) end
        x, c = y, cout
      end
    end
    g:layer("last")
    c = divisible(1280 * math.max(1, a), 8)
    x = cbr(x, c, 1, 1)
  end
  g:layer("classifier")
  x = nn.linear(g, g:dropout(g:global_avgpool(x)), o.classes, { name = "classifier" })
  g:loss(g:softmax_xent(x, g:label("labels", { b }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.mobilenet, "dlb.models.mobilenet{version=2, batch=\"b\", image=224, classes=1000, width=1} -> graph",
  "MobileNet v1 (Keras: 4,231,976 trainable params) or v2 (torchvision: 3,504,872 params)")

local SQ = {
  { "version", "1.0", { "1.0", "1.1" }, "SqueezeNet version" },
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width" },
  { "classes", 1000, "int", "output classes" },
  { "optimizer", "momentum", OPT, "default optimizer for g:stats" },
}

-- SqueezeNet (Iandola et al. 2016), torchvision: fire modules (1x1 squeeze, 1x1 and 3x3
-- expands, all with bias and ReLU), ceil-mode max pools, a 1x1 conv classifier + ReLU +
-- global average pool.
function M.squeezenet(opts)
  local what = "dlb.models.squeezenet"
  local o = C.options(opts, SQ, what)
  C.image_min(what, SQ, o, 32, "at least 32: the net downsamples 16x with 3x3 pools")
  local b = o.batch
  local g = C.graph("squeezenet" .. o.version, o, o.optimizer)
  local n = 0
  local function conv(x, cout, k, o2)
    n = n + 1
    return g:relu(nn.conv2d(g, x, cout, k, { stride = o2 and o2.stride, padding = o2 and o2.padding, bias = true, name = "conv" .. n }))
  end
  local f = 0
  local function fire(x, s, e1, e3)
    f = f + 1
    g:layer("fire" .. f)
    local sq = conv(x, s, 1)
    return g:concat({ conv(sq, e1, 1), conv(sq, e3, 3, { padding = 1 }) }, 2)
  end
  g:layer("stem")
  local x = g:input("images", { b, 3, o.image, o.image })
  if o.version == "1.0" then
    x = conv(x, 96, 7, { stride = 2 })
    x = ceilpool(g, x, 3, 2)
    x = fire(x, 16, 64, 64); x = fire(x, 16, 64, 64); x = fire(x, 32, 128, 128)
    x = ceilpool(g, x, 3, 2)
    x = fire(x, 32, 128, 128); x = fire(x, 48, 192, 192); x = fire(x, 48, 192, 192); x = fire(x, 64, 256, 256)
    x = ceilpool(g, x, 3, 2)
    x = fire(x, 64, 256, 256)
  else
    x = conv(x, 64, 3, { stride = 2 })
    x = ceilpool(g, x, 3, 2)
    x = fire(x, 16, 64, 64); x = fire(x, 16, 64, 64)
    x = ceilpool(g, x, 3, 2)
    x = fire(x, 32, 128, 128); x = fire(x, 32, 128, 128)
    x = ceilpool(g, x, 3, 2)
    x = fire(x, 48, 192, 192); x = fire(x, 48, 192, 192); x = fire(x, 64, 256, 256); x = fire(x, 64, 256, 256)
  end
  g:layer("classifier")
  x = g:global_avgpool(conv(g:dropout(x), o.classes, 1))
  g:loss(g:softmax_xent(x, g:label("labels", { b }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.squeezenet, "dlb.models.squeezenet{version=\"1.0\"|\"1.1\", batch=\"b\", image=224, classes=1000} -> graph",
  "SqueezeNet (torchvision squeezenet1_0: 1,248,424 params)")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["densenet"] = DENSE, ["mobilenet"] = MOB, ["squeezenet"] = SQ }

return M
