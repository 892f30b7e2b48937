-- dlbench.models.classic — the ImageNet classics of the lecture (seeds/002): AlexNet,
-- VGG, GoogLeNet, and TBD's Inception-v3, each as torchvision defines it, so the parameter
-- counts are torchvision's exactly (tests/lua/test_models.lua).
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local R = require "dlbench.models.resnet"
local doc = require "dlbench.doc"

local M = {}
local OPT = C.OPTIMIZERS -- the C enum DLB_OPT_*, in its order

local function classify(g, f, classes, b)
  return g:softmax_xent(f, g:label("labels", { b }), "loss")
end

local function conv_relu(g, x, cout, k, o)
  return g:relu(nn.conv2d(g, x, cout, k, { stride = o.stride, padding = o.padding, bias = true, name = o.name }))
end

local ALEX = {
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width" },
  { "classes", 1000, "dim", "output classes" },
  { "optimizer", "momentum", OPT, "default optimizer for g:stats" },
}

-- AlexNet, torchvision's single-tower variant (64-192-384-256-256 filters; 61,100,840
-- parameters) — the original two-GPU net had 96-256-384-384-256 with grouped convs.
function M.alexnet(opts)
  local what = "dlb.models.alexnet"
  local o = C.options(opts, ALEX, what)
  C.image_min(what, ALEX, o, 63, "the classifier needs a 6x6 map: image 223..254")
  local b = o.batch
  local g = C.graph("alexnet", o, o.optimizer)
  g:layer("features")
  local x = g:input("images", { b, 3, o.image, o.image })
  x = conv_relu(g, x, 64, 11, { stride = 4, padding = 2, name = "conv1" })
  x = g:maxpool(x, { kernel = 3, stride = 2 })
  x = conv_relu(g, x, 192, 5, { padding = 2, name = "conv2" })
  x = g:maxpool(x, { kernel = 3, stride = 2 })
  x = conv_relu(g, x, 384, 3, { padding = 1, name = "conv3" })
  x = conv_relu(g, x, 256, 3, { padding = 1, name = "conv4" })
  x = conv_relu(g, x, 256, 3, { padding = 1, name = "conv5" })
  x = g:maxpool(x, { kernel = 3, stride = 2 })
  local d = x:dims()
  if tonumber(d[3]) ~= 6 then
    -- torchvision's AdaptiveAvgPool2d((6, 6)); only 224-ish inputs give 6x6 directly
    C.fail(what, ALEX, "image=" .. o.image .. " gives a " .. d[3] .. "x" .. d[4] .. " map; the classifier needs 6x6 (image 223..254)")
  end
  g:layer("classifier")
  x = g:reshape(x, { b, 256 * 36 })
  x = g:relu(nn.linear(g, g:dropout(x), 4096, { name = "fc6" }))
  x = g:relu(nn.linear(g, g:dropout(x), 4096, { name = "fc7" }))
  x = nn.linear(g, x, o.classes, { name = "fc8" })
  g:loss(classify(g, x, o.classes, b))
  g:layer(nil)
  return g
end
doc.doc(M.alexnet, "dlb.models.alexnet{batch=\"b\", image=224, classes=1000} -> graph", "AlexNet (torchvision: 61,100,840 params)")

local VGG_CFG = {
  [11] = { 1, 1, 2, 2, 2 }, [13] = { 2, 2, 2, 2, 2 }, [16] = { 2, 2, 3, 3, 3 }, [19] = { 2, 2, 4, 4, 4 },
}
local VGG = {
  { "depth", 16, "count", "11, 13, 16 or 19 weight layers" },
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width (the classifier expects 7x7 after 5 pools)" },
  { "classes", 1000, "dim", "output classes" },
  { "bn", false, "bool", "batch norm after every conv (vgg16_bn)" },
  { "optimizer", "momentum", OPT, "default optimizer for g:stats" },
}

-- VGG (Simonyan and Zisserman 2014, configurations A/B/D/E), torchvision's definition.
function M.vgg(opts)
  local what = "dlb.models.vgg"
  local o = C.options(opts, VGG, what)
  local cfg = VGG_CFG[o.depth]
  if not cfg then C.fail(what, VGG, "depth=" .. o.depth .. " is not one of 11, 13, 16, 19") end
  if o.image ~= 224 then C.fail(what, VGG, "image=" .. o.image .. " must be 224 (the classifier reads a 7x7x512 map)") end
  local b = o.batch
  local g = C.graph("vgg" .. o.depth .. (o.bn and "_bn" or ""), o, o.optimizer)
  local x = g:input("images", { b, 3, o.image, o.image })
  local ch = { 64, 128, 256, 512, 512 }
  local n = 0
  for s = 1, 5 do
    for _ = 1, cfg[s] do
      n = n + 1
      g:layer("conv" .. n)
      x = nn.conv2d(g, x, ch[s], 3, { padding = 1, bias = true, name = "conv" .. n })
      if o.bn then x = nn.batchnorm(g, x, { name = "conv" .. n .. "/bn" }) end
      x = g:relu(x)
    end
    x = g:maxpool(x, { kernel = 2, stride = 2 })
  end
  g:layer("classifier")
  x = g:reshape(x, { b, 512 * 49 })
  x = g:dropout(g:relu(nn.linear(g, x, 4096, { name = "fc6" })))
  x = g:dropout(g:relu(nn.linear(g, x, 4096, { name = "fc7" })))
  x = nn.linear(g, x, o.classes, { name = "fc8" })
  g:loss(classify(g, x, o.classes, b))
  g:layer(nil)
  return g
end
doc.doc(M.vgg, "dlb.models.vgg{depth=16, batch=\"b\", image=224, classes=1000, bn=false} -> graph", "VGG-11/13/16/19 (vgg16: 138,357,544 params)")

-- conv (no bias) + BN + ReLU, torchvision's BasicConv2d
local function bc(g, x, cout, k, name, stride, padding)
  return R.conv_bn(g, x, cout, k, { stride = stride, padding = padding or 0, name = name })
end

local GOOG = {
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width" },
  { "classes", 1000, "dim", "output classes" },
  { "aux", false, "bool", "the two auxiliary classifiers (training-time heads)" },
  { "optimizer", "momentum", OPT, "default optimizer for g:stats" },
}

-- GoogLeNet / Inception-v1 (Szegedy et al. 2015) as torchvision builds it: BasicConv2d
-- (conv + BN + ReLU) everywhere, the "5x5" branch uses a 3x3 conv (torchvision's known
-- deviation), ceil-mode pools modelled as padding 1 (same output sizes).
function M.googlenet(opts)
  local what = "dlb.models.googlenet"
  local o = C.options(opts, GOOG, what)
  C.image_only(what, GOOG, o, 224)
  local b = o.batch
  local g = C.graph("googlenet", o, o.optimizer)
  local function inception(x, name, c1, c3r, c3, c5r, c5, pp)
    g:layer(name)
    local b1 = bc(g, x, c1, 1, name .. "/b1")
    local b2 = bc(g, bc(g, x, c3r, 1, name .. "/b2a"), c3, 3, name .. "/b2b", 1, 1)
    local b3 = bc(g, bc(g, x, c5r, 1, name .. "/b3a"), c5, 3, name .. "/b3b", 1, 1)
    local b4 = bc(g, g:maxpool(x, { kernel = 3, stride = 1, padding = 1 }), pp, 1, name .. "/b4")
    return g:concat({ b1, b2, b3, b4 }, 2)
  end
  local function aux(x, name)
    g:layer(name)
    local y = g:avgpool(x, { kernel = 5, stride = 3 })          -- 14 -> 4
    y = bc(g, y, 128, 1, name .. "/conv")
    y = g:reshape(y, { b, 128 * 16 })
    y = g:dropout(g:relu(nn.linear(g, y, 1024, { name = name .. "/fc1" })))
    y = nn.linear(g, y, o.classes, { name = name .. "/fc2" })
    return g:scale(g:softmax_xent(y, g:label(name .. "/labels", { b }), name .. "/loss"))  -- x 0.3
  end
  g:layer("stem")
  local x = g:input("images", { b, 3, 224, 224 })
  x = bc(g, x, 64, 7, "conv1", 2, 3)
  x = g:maxpool(x, { kernel = 3, stride = 2, padding = 1 })
  x = bc(g, x, 64, 1, "conv2")
  x = bc(g, x, 192, 3, "conv3", 1, 1)
  x = g:maxpool(x, { kernel = 3, stride = 2, padding = 1 })
  x = inception(x, "inception3a", 64, 96, 128, 16, 32, 32)
  x = inception(x, "inception3b", 128, 128, 192, 32, 96, 64)
  x = g:maxpool(x, { kernel = 3, stride = 2, padding = 1 })
  x = inception(x, "inception4a", 192, 96, 208, 16, 48, 64)
  local a1 = o.aux and aux(x, "aux1")
  x = inception(x, "inception4b", 160, 112, 224, 24, 64, 64)
  x = inception(x, "inception4c", 128, 128, 256, 24, 64, 64)
  x = inception(x, "inception4d", 112, 144, 288, 32, 64, 64)
  local a2 = o.aux and aux(x, "aux2")
  x = inception(x, "inception4e", 256, 160, 320, 32, 128, 128)
  x = g:maxpool(x, { kernel = 2, stride = 2 })
  x = inception(x, "inception5a", 256, 160, 320, 32, 128, 128)
  x = inception(x, "inception5b", 384, 192, 384, 48, 128, 128)
  g:layer("fc")
  x = nn.linear(g, g:dropout(g:global_avgpool(x)), o.classes, { name = "fc" })
  local loss = classify(g, x, o.classes, b)
  if o.aux then loss = g:add(g:add(loss, a1), a2) end
  g:loss(loss)
  g:layer(nil)
  return g
end
doc.doc(M.googlenet, "dlb.models.googlenet{batch=\"b\", image=224, classes=1000, aux=false} -> graph", "GoogLeNet (torchvision, no aux: 6,624,904 params)")

local INC = {
  { "batch", "b", "dim", "images per step" },
  { "image", 299, "int", "input height = width" },
  { "classes", 1000, "dim", "output classes" },
  { "aux", true, "bool", "the auxiliary classifier on Mixed_6e (training-time head)" },
  { "optimizer", "rmsprop", OPT, "default optimizer (the paper: RMSProp)" },
}

-- Inception-v3 (Szegedy et al. 2016), torchvision's Inception3 with its aux head.
function M.inception_v3(opts)
  local what = "dlb.models.inception_v3"
  local o = C.options(opts, INC, what)
  C.image_only(what, INC, o, 299)
  local b = o.batch
  local g = C.graph("inception_v3", o, o.optimizer)
  local function cat(xs) return g:concat(xs, 2) end
  local function A(x, name, pf)
    g:layer(name)
    local b1 = bc(g, x, 64, 1, name .. "/branch1x1")
    local b5 = bc(g, bc(g, x, 48, 1, name .. "/branch5x5_1"), 64, 5, name .. "/branch5x5_2", 1, 2)
    local b3 = bc(g, x, 64, 1, name .. "/branch3x3dbl_1")
    b3 = bc(g, b3, 96, 3, name .. "/branch3x3dbl_2", 1, 1)
    b3 = bc(g, b3, 96, 3, name .. "/branch3x3dbl_3", 1, 1)
    local bp = bc(g, g:avgpool(x, { kernel = 3, stride = 1, padding = 1 }), pf, 1, name .. "/branch_pool")
    return cat { b1, b5, b3, bp }
  end
  local function B(x, name)
    g:layer(name)
    local b3 = bc(g, x, 384, 3, name .. "/branch3x3", 2)
    local d = bc(g, x, 64, 1, name .. "/branch3x3dbl_1")
    d = bc(g, d, 96, 3, name .. "/branch3x3dbl_2", 1, 1)
    d = bc(g, d, 96, 3, name .. "/branch3x3dbl_3", 2)
    return cat { b3, d, g:maxpool(x, { kernel = 3, stride = 2 }) }
  end
  local function Cb(x, name, c7)
    g:layer(name)
    local b1 = bc(g, x, 192, 1, name .. "/branch1x1")
    local b7 = bc(g, x, c7, 1, name .. "/branch7x7_1")
    b7 = bc(g, b7, c7, { 1, 7 }, name .. "/branch7x7_2", 1, { 0, 3 })
    b7 = bc(g, b7, 192, { 7, 1 }, name .. "/branch7x7_3", 1, { 3, 0 })
    local d = bc(g, x, c7, 1, name .. "/branch7x7dbl_1")
    d = bc(g, d, c7, { 7, 1 }, name .. "/branch7x7dbl_2", 1, { 3, 0 })
    d = bc(g, d, c7, { 1, 7 }, name .. "/branch7x7dbl_3", 1, { 0, 3 })
    d = bc(g, d, c7, { 7, 1 }, name .. "/branch7x7dbl_4", 1, { 3, 0 })
    d = bc(g, d, 192, { 1, 7 }, name .. "/branch7x7dbl_5", 1, { 0, 3 })
    local bp = bc(g, g:avgpool(x, { kernel = 3, stride = 1, padding = 1 }), 192, 1, name .. "/branch_pool")
    return cat { b1, b7, d, bp }
  end
  local function D(x, name)
    g:layer(name)
    local b3 = bc(g, bc(g, x, 192, 1, name .. "/branch3x3_1"), 320, 3, name .. "/branch3x3_2", 2)
    local b7 = bc(g, x, 192, 1, name .. "/branch7x7x3_1")
    b7 = bc(g, b7, 192, { 1, 7 }, name .. "/branch7x7x3_2", 1, { 0, 3 })
    b7 = bc(g, b7, 192, { 7, 1 }, name .. "/branch7x7x3_3", 1, { 3, 0 })
    b7 = bc(g, b7, 192, 3, name .. "/branch7x7x3_4", 2)
    return cat { b3, b7, g:maxpool(x, { kernel = 3, stride = 2 }) }
  end
  local function E(x, name)
    g:layer(name)
    local b1 = bc(g, x, 320, 1, name .. "/branch1x1")
    local b3 = bc(g, x, 384, 1, name .. "/branch3x3_1")
    b3 = cat { bc(g, b3, 384, { 1, 3 }, name .. "/branch3x3_2a", 1, { 0, 1 }),
               bc(g, b3, 384, { 3, 1 }, name .. "/branch3x3_2b", 1, { 1, 0 }) }
    local d = bc(g, x, 448, 1, name .. "/branch3x3dbl_1")
    d = bc(g, d, 384, 3, name .. "/branch3x3dbl_2", 1, 1)
    d = cat { bc(g, d, 384, { 1, 3 }, name .. "/branch3x3dbl_3a", 1, { 0, 1 }),
              bc(g, d, 384, { 3, 1 }, name .. "/branch3x3dbl_3b", 1, { 1, 0 }) }
    local bp = bc(g, g:avgpool(x, { kernel = 3, stride = 1, padding = 1 }), 192, 1, name .. "/branch_pool")
    return cat { b1, b3, d, bp }
  end
  g:layer("stem")
  local x = g:input("images", { b, 3, 299, 299 })
  x = bc(g, x, 32, 3, "Conv2d_1a_3x3", 2)
  x = bc(g, x, 32, 3, "Conv2d_2a_3x3")
  x = bc(g, x, 64, 3, "Conv2d_2b_3x3", 1, 1)
  x = g:maxpool(x, { kernel = 3, stride = 2 })
  x = bc(g, x, 80, 1, "Conv2d_3b_1x1")
  x = bc(g, x, 192, 3, "Conv2d_4a_3x3")
  x = g:maxpool(x, { kernel = 3, stride = 2 })
  x = A(x, "Mixed_5b", 32); x = A(x, "Mixed_5c", 64); x = A(x, "Mixed_5d", 64)
  x = B(x, "Mixed_6a")
  x = Cb(x, "Mixed_6b", 128); x = Cb(x, "Mixed_6c", 160); x = Cb(x, "Mixed_6d", 160); x = Cb(x, "Mixed_6e", 192)
  local aux
  if o.aux then
    g:layer("AuxLogits")
    local y = g:avgpool(x, { kernel = 5, stride = 3 })            -- 17 -> 5
    y = bc(g, y, 128, 1, "AuxLogits/conv0")
    y = bc(g, y, 768, 5, "AuxLogits/conv1")                        -- 5 -> 1
    y = nn.linear(g, g:reshape(y, { b, 768 }), o.classes, { name = "AuxLogits/fc" })
    aux = g:scale(g:softmax_xent(y, g:label("aux_labels", { b }), "aux_loss"))   -- x 0.4
  end
  x = D(x, "Mixed_7a"); x = E(x, "Mixed_7b"); x = E(x, "Mixed_7c")
  g:layer("fc")
  x = nn.linear(g, g:dropout(g:global_avgpool(x)), o.classes, { name = "fc" })
  local loss = classify(g, x, o.classes, b)
  if aux then loss = g:add(loss, aux) end
  g:loss(loss)
  g:layer(nil)
  return g
end
doc.doc(M.inception_v3, "dlb.models.inception_v3{batch=\"b\", image=299, classes=1000, aux=true} -> graph",
  "Inception-v3 (torchvision, with aux: 27,161,264 params)")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["alexnet"] = ALEX, ["vgg"] = VGG, ["googlenet"] = GOOG, ["inception_v3"] = INC }

return M
