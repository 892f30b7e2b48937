-- dlbench.models.resnet — ResNets (He et al. 2016, torchvision's v1.5 definition: stride on
-- the 3x3 conv, projection shortcuts only where the shape changes, batch-norm affine
-- parameters counted), their "deeper and wider" generalisation (Hestness et al. §4: depth
-- via blocks per stage, width via a channel multiplier), and the detectors built on them:
-- Faster R-CNN (TBD) and RetinaNet (ParaDnn's real-model list).
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local doc = require "dlbench.doc"

local M = {}

-- conv (no bias) + batch norm [+ relu]; the building block of every CNN here.
function M.conv_bn(g, x, cout, k, o)
  local y = nn.conv2d(g, x, cout, k, { stride = o.stride, padding = o.padding or math.floor(((type(k) == "table" and k[1] or k) - 1) / 2),
    groups = o.groups, name = o.name, bias = o.bias })
  if o.bn ~= false then y = nn.batchnorm(g, y, { name = o.name .. "/bn" }) end
  if o.relu ~= false then y = g:relu(y) end
  return y
end
local conv_bn = M.conv_bn

local STAGES = {
  [18] = { "basic", { 2, 2, 2, 2 } }, [34] = { "basic", { 3, 4, 6, 3 } },
  [50] = { "bottleneck", { 3, 4, 6, 3 } }, [101] = { "bottleneck", { 3, 4, 23, 3 } },
  [152] = { "bottleneck", { 3, 8, 36, 3 } }, [200] = { "bottleneck", { 3, 24, 36, 3 } },
}

local function block(g, x, cin, planes, stride, kind, name, bn)
  local expansion = kind == "bottleneck" and 4 or 1
  local cout = planes * expansion
  local y
  if kind == "bottleneck" then
    y = conv_bn(g, x, planes, 1, { name = name .. "/conv1", bn = bn })
    y = conv_bn(g, y, planes, 3, { stride = stride, name = name .. "/conv2", bn = bn })
    y = conv_bn(g, y, cout, 1, { name = name .. "/conv3", relu = false, bn = bn })
  else
    y = conv_bn(g, x, planes, 3, { stride = stride, name = name .. "/conv1", bn = bn })
    y = conv_bn(g, y, planes, 3, { name = name .. "/conv2", relu = false, bn = bn })
  end
  local short = x
  if stride ~= 1 or cin ~= cout then
    short = conv_bn(g, x, cout, 1, { stride = stride, padding = 0, name = name .. "/downsample", relu = false, bn = bn })
  end
  return g:relu(g:add(y, short, name .. "/add")), cout
end

-- The ResNet trunk: returns the outputs of the four stages (C2..C5) and their channels.
-- o: {blocks=, block=, width=, image=, batch=, bn=}
function M.trunk(g, x, o)
  local base = math.floor(64 * o.width + 0.5)
  g:layer("stem")
  local y = conv_bn(g, x, base, 7, { stride = 2, padding = 3, name = "conv1", bn = o.bn })
  y = g:maxpool(y, { kernel = 3, stride = 2, padding = 1, name = "maxpool" })
  local cin, outs, chans = base, {}, {}
  for s = 1, 4 do
    local planes = base * 2 ^ (s - 1)
    for i = 1, o.blocks[s] do
      local name = string.format("layer%d.%d", s, i - 1)
      g:layer(name)
      y, cin = block(g, y, cin, planes, (i == 1 and s > 1) and 2 or 1, o.block, name, o.bn)
    end
    outs[s], chans[s] = y, cin
  end
  g:layer(nil)
  return outs, chans
end

local SPEC = {
  { "depth", 50, "count", "18, 34, 50, 101, 152 or 200 (or any depth with blocks= given)" },
  { "batch", "b", "dim", "images per step (symbolic by default)" },
  { "image", 224, "int", "input height = width in pixels" },
  { "classes", 1000, "dim", "output classes" },
  { "width", 1, "pos", "channel multiplier: stage channels 64w,128w,256w,512w (x4 for bottlenecks)" },
  { "blocks", nil, "table", "blocks per stage, e.g. {3, 4, 6, 3}; overrides depth's table" },
  { "block", nil, { "basic", "bottleneck" }, "block kind (default: basic below depth 50)" },
  { "channels", 3, "int", "input channels" },
  { "optimizer", "momentum", C.OPTIMIZERS, "default optimizer for g:stats" },
}
M.resnet_spec = SPEC

-- Resolve depth/blocks/block/width into a trunk config.
local function config(o, what, spec)
  local kind, blocks = o.block, o.blocks
  if blocks then
    if #blocks ~= 4 then C.fail(what, spec, "blocks= must list 4 stages, e.g. {3, 4, 6, 3}, got " .. #blocks) end
    for i = 1, 4 do
      local n = blocks[i]
      if type(n) ~= "number" or n < 1 or n ~= math.floor(n) or n > C.MAX_COUNT then
        C.fail(what, spec, "blocks[" .. i .. "]=" .. C.show(n) .. " must be a positive integer up to " .. C.MAX_COUNT)
      end
    end
    kind = kind or (o.depth >= 50 and "bottleneck" or "basic")
    local n = 0
    for i = 1, 4 do n = n + blocks[i] end
    local layers = n * (kind == "bottleneck" and 3 or 2) + 2
    if C.given(o, "depth") and layers ~= o.depth then
      C.fail(what, spec, string.format("depth=%d contradicts blocks={%d, %d, %d, %d}, which make a %d-layer "
        .. "%s net; give depth=%d or leave depth out", o.depth, blocks[1], blocks[2], blocks[3], blocks[4],
        layers, kind, layers))
    end
  else
    local st = STAGES[o.depth]
    if not st then C.fail(what, spec, "depth=" .. o.depth .. " is not one of 18, 34, 50, 101, 152, 200; give blocks={...} for others") end
    if kind and kind ~= st[1] and C.given(o, "depth") then
      C.fail(what, spec, string.format("depth=%d is a %s net; block=\"%s\" would make it %d layers deep "
        .. "(give blocks={...} for a %s net of other stages)", o.depth, st[1], kind,
        (st[2][1] + st[2][2] + st[2][3] + st[2][4]) * (kind == "bottleneck" and 3 or 2) + 2, kind))
    end
    kind, blocks = kind or st[1], st[2]
  end
  if math.abs(64 * o.width - math.floor(64 * o.width + 0.5)) > 1e-9 then
    C.fail(what, spec, "width=" .. o.width .. " must make 64*width an integer")
  end
  return { block = kind, blocks = blocks, width = o.width, bn = true }
end

function M.resnet(opts)
  local what = "dlb.models.resnet"
  local o = C.options(opts, SPEC, what)
  local cfg = config(o, what, SPEC)
  C.image_min(what, SPEC, o, 32, "at least 32: the net downsamples 32x")
  local nblocks = 0
  for i = 1, 4 do nblocks = nblocks + cfg.blocks[i] end
  local depth = nblocks * (cfg.block == "bottleneck" and 3 or 2) + 2
  local g = C.graph(string.format("resnet%d%s", depth, o.width ~= 1 and ("x" .. o.width) or ""), o, o.optimizer)
  local x = g:input("images", { o.batch, o.channels, o.image, o.image })
  local outs = M.trunk(g, x, cfg)
  g:layer("fc")
  local f = g:global_avgpool(outs[4], "avgpool")
  local logits = nn.linear(g, f, o.classes, { name = "fc" })
  g:loss(g:softmax_xent(logits, g:label("labels", { o.batch }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.resnet, "dlb.models.resnet{depth=50, batch=\"b\", image=224, classes=1000, width=1, blocks=, block=, channels=3, optimizer=\"momentum\"} -> graph",
  "ResNet (torchvision v1.5; resnet50 has 25,557,032 parameters); width= and blocks= grow it wider and deeper")

-- -- detectors --

local function sumloss(g, ls)
  local l = ls[1]
  for i = 2, #ls do l = g:add(l, ls[i]) end
  return l
end

-- Gather `rois` fixed-size crops from a feature map [N, C, H, W] -> [N*rois, C, k, k]:
-- RoI pooling modelled as a gather of k*k feature vectors per RoI (0 FLOPs, the bytes of
-- the gathered rows; bilinear interpolation's 4 reads per sample are not modelled).
local function roi_gather(g, feat, n, rois, k, name)
  local d = feat:dims()
  local c, h, w = d[2], d[3], d[4]
  local flat = g:reshape(g:transpose(feat, { 1, 3, 4, 2 }), { C.mul(h * w, n), c })
  local ids = g:input(name .. "/roi_index", { n, rois, k, k }, "int32")
  local crops = g:embedding(ids, flat, name .. "/gather")
  local r = C.mul(rois, n)
  return g:reshape(g:transpose(g:reshape(crops, { r, k * k, c }), { 1, 3, 2 }), { r, c, k, k })
end

local FRCNN = {
  { "batch", "b", "dim", "images per step" },
  { "image", 600, "int", "input height in pixels (shorter side, as in py-faster-rcnn)" },
  { "image_w", 1000, "int", "input width in pixels" },
  { "classes", 21, "int", "object classes incl. background (VOC 2007: 21)" },
  { "depth", 101, "count", "backbone ResNet depth (50, 101, 152)" },
  { "anchors", 9, "int", "anchors per feature-map position (3 scales x 3 ratios)" },
  { "rois", 128, "int", "sampled RoIs per image for the RoI head (TBD/py-faster-rcnn: 128)" },
  { "rpn_samples", 256, "int", "anchors sampled per image for the RPN loss" },
  { "pool", 14, "int", "RoI crop size before the conv5 head (7x7 after its stride 2)" },
  { "optimizer", "momentum", C.OPTIMIZERS, "default optimizer" },
}

-- Faster R-CNN (Ren et al. 2015) as TBD trains it: ResNet-101 C4 backbone (conv1..layer3,
-- stride 16), an RPN (3x3 conv 512 + objectness and box 1x1 convs over every position),
-- RoI crops of the stride-16 map, the layer4 stage applied per RoI, average pool, class
-- and box FC layers. Approximations: RoI pooling is a gather (see roi_gather); the RPN
-- losses are a softmax cross-entropy and an MSE stand-in for smooth-L1 over `rpn_samples`
-- anchors per image gathered from all of them; proposal generation and NMS (integer work)
-- are left out; batch norm is trainable here (py-faster-rcnn freezes it).
function M.faster_rcnn(opts)
  local what = "dlb.models.faster_rcnn"
  local o = C.options(opts, FRCNN, what)
  local st = STAGES[o.depth]
  if not st or st[1] ~= "bottleneck" then C.fail(what, FRCNN, "depth=" .. o.depth .. " must be 50, 101, 152 or 200") end
  if o.classes < 2 then C.fail(what, FRCNN, "classes=" .. o.classes .. " leaves no object class (it counts the background)") end
  for _, k in ipairs { "image", "image_w" } do
    C.image_min(what, FRCNN, o, 16, "at least 16: the C4 backbone downsamples 16x", k)
  end
  -- the stride-16 C4 map the RPN runs over: conv1, maxpool, layer2 and layer3 halve it
  local function c4(n)
    for _, kp in ipairs { { 7, 3 }, { 3, 1 }, { 3, 1 }, { 3, 1 } } do n = C.conv_out(n, kp[1], 2, kp[2]) end
    return n
  end
  local nanchors = c4(o.image) * c4(o.image_w) * o.anchors
  for _, k in ipairs { "rpn_samples", "rois" } do
    if o[k] > nanchors then
      C.fail(what, FRCNN, string.format("%s=%d exceeds the %d anchors of image=%d, image_w=%d (a %dx%d stride-16 "
        .. "map, anchors=%d per position)", k, o[k], nanchors, o.image, o.image_w, c4(o.image), c4(o.image_w), o.anchors))
    end
  end
  local g = C.graph("faster_rcnn_resnet" .. o.depth, o, o.optimizer)
  local x = g:input("images", { o.batch, 3, o.image, o.image_w })
  -- trunk to layer3 (C4): build stages 1..3 only
  local cfg = { block = "bottleneck", blocks = { st[2][1], st[2][2], st[2][3], 0 }, width = 1, bn = true }
  g:layer("stem")
  local y = conv_bn(g, x, 64, 7, { stride = 2, padding = 3, name = "conv1" })
  y = g:maxpool(y, { kernel = 3, stride = 2, padding = 1, name = "maxpool" })
  local cin = 64
  for s = 1, 3 do
    for i = 1, cfg.blocks[s] do
      local name = string.format("layer%d.%d", s, i - 1)
      g:layer(name)
      y, cin = block(g, y, cin, 64 * 2 ^ (s - 1), (i == 1 and s > 1) and 2 or 1, "bottleneck", name, true)
    end
  end
  local c4 = y
  -- RPN
  g:layer("rpn")
  local r = g:relu(nn.conv2d(g, c4, 512, 3, { padding = 1, bias = true, name = "rpn/conv" }))
  local obj = nn.conv2d(g, r, 2 * o.anchors, 1, { bias = true, name = "rpn/cls" })
  local box = nn.conv2d(g, r, 4 * o.anchors, 1, { bias = true, name = "rpn/bbox" })
  local d = obj:dims()
  local npos = d[3] * d[4] * o.anchors
  -- the RPN losses read `rpn_samples` sampled anchors per image, gathered from all of them
  local function sampled(t, k, name)
    local flat = g:reshape(g:transpose(g:reshape(t, { o.batch, k, npos }), { 1, 3, 2 }), { C.mul(npos, o.batch), k })
    return g:embedding(g:input(name .. "/sampled_anchors", { o.batch, o.rpn_samples }, "int32"), flat, name .. "/sample")
  end
  local l_obj = g:softmax_xent(sampled(obj, 2, "rpn/cls"), g:label("rpn/labels", { o.batch, o.rpn_samples }), "rpn/loss_cls")
  local sb = sampled(box, 4, "rpn/bbox")
  local l_box = g:mse(sb, g:label("rpn/targets", sb:dims(), "fp32"), "rpn/loss_bbox")
  -- RoI head: crops of C4, layer4 per RoI
  g:layer("roi_head")
  local crops = roi_gather(g, c4, o.batch, o.rois, o.pool, "roi")
  y = crops
  for i = 1, st[2][4] do
    local name = string.format("layer4.%d", i - 1)
    g:layer(name)
    y, cin = block(g, y, cin, 512, i == 1 and 2 or 1, "bottleneck", name, true)
  end
  g:layer("roi_head")
  local f = g:global_avgpool(y, "roi/avgpool")
  local cls = nn.linear(g, f, o.classes, { name = "cls_score" })
  local bb = nn.linear(g, f, 4 * o.classes, { name = "bbox_pred" })
  local nr = C.mul(o.rois, o.batch)
  local l_cls = g:softmax_xent(cls, g:label("roi/labels", { nr }), "roi/loss_cls")
  local l_bb = g:mse(bb, g:label("roi/targets", { nr, 4 * o.classes }, "fp32"), "roi/loss_bbox")
  g:layer(nil)
  g:loss(sumloss(g, { l_obj, l_box, l_cls, l_bb }))
  return g
end
doc.doc(M.faster_rcnn, "dlb.models.faster_rcnn{batch=\"b\", image=600, image_w=1000, classes=21, depth=101, anchors=9, rois=128, rpn_samples=256, pool=14} -> graph",
  "Faster R-CNN with a ResNet C4 backbone, RPN and RoI head (approximations in docs/models.md)")

local RETINA = {
  { "batch", "b", "dim", "images per step" },
  { "image", 640, "int", "input height = width (ParaDnn/TPU RetinaNet: 640)" },
  { "classes", 91, "int", "classes (torchvision COCO heads: 91; the paper's 80 also works)" },
  { "depth", 50, "count", "backbone ResNet depth (50, 101, 152)" },
  { "anchors", 9, "int", "anchors per position" },
  { "fpn", 256, "int", "FPN channels" },
  { "frozen_bn", true, "bool", "backbone batch norm frozen (torchvision): no BN ops or params" },
  { "optimizer", "momentum", C.OPTIMIZERS, "default optimizer" },
}

-- RetinaNet (Lin et al. 2017) as torchvision's retinanet_resnet50_fpn: ResNet trunk with
-- frozen batch norm, FPN P3..P5 (1x1 lateral + 3x3 output convs) plus P6, P7 (3x3 stride-2
-- convs from P5), shared class and box heads (4 x 3x3 conv 256 + relu, then 3x3 to A*K and
-- A*4) over all five levels. Losses: sigmoid focal loss approximated by an MSE on the class
-- logits (same element count; focal's extra ~10 FLOPs/element are not counted), MSE for
-- smooth-L1 box regression. The top-down adds use upsampling, modelled as a reshape-free
-- broadcast add of the coarser map is not expressible, so the top-down path is a nearest
-- upsample by gather (0 FLOPs) plus the add.
function M.retinanet(opts)
  local what = "dlb.models.retinanet"
  local o = C.options(opts, RETINA, what)
  local st = STAGES[o.depth]
  if not st or st[1] ~= "bottleneck" then C.fail(what, RETINA, "depth=" .. o.depth .. " must be 50, 101, 152 or 200") end
  if o.image % 128 ~= 0 then C.fail(what, RETINA, "image=" .. o.image .. " must be a multiple of 128 (P7 has stride 128)") end
  local g = C.graph("retinanet_resnet" .. o.depth .. "_fpn", o, o.optimizer)
  local x = g:input("images", { o.batch, 3, o.image, o.image })
  local outs, chans = M.trunk(g, x, { block = "bottleneck", blocks = st[2], width = 1, bn = not o.frozen_bn })
  g:layer("fpn")
  local F = o.fpn
  local lat = {}
  for s = 2, 4 do lat[s] = nn.conv2d(g, outs[s], F, 1, { bias = true, name = "fpn/inner" .. s }) end
  -- top-down: P5 = lat5; P4 = lat4 + up(P5); P3 = lat3 + up(P4); nearest 2x upsampling as a gather
  local function up(t, name)
    local d = t:dims()
    local n, c, h, w = d[1], d[2], d[3], d[4]
    local flat = g:reshape(g:transpose(t, { 1, 3, 4, 2 }), { C.mul(h * w, n), c })
    local ids = g:input(name .. "/index", { n, 2 * h, 2 * w }, "int32")
    return g:transpose(g:embedding(ids, flat, name), { 1, 4, 2, 3 })
  end
  local td = { [4] = lat[4] }
  td[3] = g:add(lat[3], up(td[4], "fpn/up4"))
  td[2] = g:add(lat[2], up(td[3], "fpn/up3"))
  local P = {}
  for s = 2, 4 do P[s - 1] = nn.conv2d(g, td[s], F, 3, { padding = 1, bias = true, name = "fpn/layer" .. s }) end
  P[4] = nn.conv2d(g, P[3], F, 3, { stride = 2, padding = 1, bias = true, name = "fpn/p6" })
  P[5] = nn.conv2d(g, g:relu(P[4]), F, 3, { stride = 2, padding = 1, bias = true, name = "fpn/p7" })
  -- shared heads: weights created once, applied per level
  g:layer("heads")
  local function headweights(name, nout)
    local ws = {}
    for i = 1, 4 do
      ws[i] = { g:weight(name .. "/conv" .. i .. "/w", { F, F, 3, 3 }), g:weight(name .. "/conv" .. i .. "/b", { F, 1, 1 }) }
    end
    ws[5] = { g:weight(name .. "/out/w", { nout, F, 3, 3 }), g:weight(name .. "/out/b", { nout, 1, 1 }) }
    return ws
  end
  local cw = headweights("cls_head", o.anchors * o.classes)
  local bw = headweights("box_head", o.anchors * 4)
  local function head(ws, p, name)
    local y = p
    for i = 1, 5 do
      y = g:add(g:conv2d(y, ws[i][1], { padding = 1, name = name .. "/conv" .. i }), ws[i][2])
      if i < 5 then y = g:relu(y) end
    end
    return y
  end
  local losses = {}
  for l = 1, 5 do
    local c = head(cw, P[l], "cls_head/p" .. (l + 2))
    local b = head(bw, P[l], "box_head/p" .. (l + 2))
    losses[#losses + 1] = g:mse(c, g:label("cls_targets/p" .. (l + 2), c:dims(), "fp32"))
    losses[#losses + 1] = g:mse(b, g:label("box_targets/p" .. (l + 2), b:dims(), "fp32"))
  end
  g:layer(nil)
  g:loss(sumloss(g, losses))
  return g
end
doc.doc(M.retinanet, "dlb.models.retinanet{batch=\"b\", image=640, classes=91, depth=50, anchors=9, fpn=256, frozen_bn=true} -> graph",
  "RetinaNet with ResNet + FPN P3-P7 and shared heads (torchvision retinanet_resnet50_fpn: 34,014,999 params)")

doc.doc(M.conv_bn, "resnet.conv_bn(g, x, cout, k, {stride=, padding=, groups=, name=, relu=true, bn=true}) -> tensor", "conv without bias + batch norm + ReLU")
doc.doc(M.trunk, "resnet.trunk(g, x, {block=, blocks=, width=, bn=}) -> {C2..C5}, {channels}", "the ResNet stem and four stages")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["resnet"] = SPEC, ["faster_rcnn"] = FRCNN, ["retinanet"] = RETINA }

return M
