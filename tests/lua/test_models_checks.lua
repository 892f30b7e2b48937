-- test_models_checks.lua — regressions for the zoo's QA report: options that contradict
-- each other are rejected with both names and values; every error carries exactly one
-- location (the caller's line); help(g.stats) of a zoo graph; enum options given as numbers
-- or strings; dlb.models.list()'s return prints as one line. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local models = dlb.models
local help = require "dlbench.help"

local THIS = "test_models_checks.lua"

-- f() raises an error containing every fragment; returns the message.
local function rejects(f, ...)
  local ok, e = pcall(f)
  assert(not ok, "expected an error, got success")
  e = tostring(e)
  for i = 1, select("#", ...) do
    local frag = select(i, ...)
    assert(e:find(frag, 1, true), "missing '" .. frag .. "' in: " .. e)
  end
  assert(e:find("(accepted: ", 1, true), "the option list: " .. e)
  return e
end

T.test("contradictory options are rejected, naming the options and values", function()
  -- the three of the QA report
  rejects(function() return models.bert { masked = 200, seq = 128 } end, "masked=200 exceeds seq=128")
  rejects(function() return models.deepspeech2 { label_len = 1000 } end,
    "label_len=1000 exceeds the 150 output frames of steps=300", "give steps >= 1999")
  rejects(function() return models.moe { every = 100 } end, "every=100 exceeds layers=12", "no block would be a MoE block")
  -- the bounds are exact: the largest consistent value builds
  assert(models.bert { masked = 128, seq = 128 })
  assert(models.deepspeech2 { label_len = 150, steps = 300, layers = 1 })
  assert(models.deepspeech2 { label_len = 1000, steps = 1999, layers = 1 })
  rejects(function() return models.deepspeech2 { label_len = 1000, steps = 1998, layers = 1 } end, "label_len=1000 exceeds the 999")
  -- every=12 of 12 layers: one MoE block (h11), eleven dense ones
  local p1 = models.moe { every = 1 }:stats { b = 1 }.params
  local p12 = models.moe { every = 12 }:stats { b = 1 }.params
  local p6 = models.moe { every = 6 }:stats { b = 1 }.params
  assert(p12 < p6 and p6 < p1, "fewer MoE blocks, fewer parameters")
  T.eq((p1 - p12) / (p6 - p12), 11, "every=1, 6, 12: 12, 2 and 1 MoE blocks")
  assert(models.moe { every = 3, layers = 3 })
  -- heads and hidden, kv_heads and heads, with where a preset value came from
  rejects(function() return models.gpt { hidden = 100, heads = 3 } end, "hidden=100 is not divisible by heads=3")
  rejects(function() return models.bert { hidden = 100 } end, "hidden=100 is not divisible by heads=12 (from size=\"base\")")
  rejects(function() return models.llama { heads = 12 } end, "hidden=4096 (from size=\"7b\") is not divisible by heads=12")
  rejects(function() return models.llama { heads = 32, kv_heads = 6 } end, "heads=32 must be a multiple of kv_heads=6")
  rejects(function() return models.llama { size = "70b", heads = 60, hidden = 7680 } end,
    "heads=60 must be a multiple of kv_heads=8 (from size=\"70b\")")
  rejects(function() return models.moe { hidden = 100, heads = 3 } end, "hidden=100 is not divisible by heads=3")
  rejects(function() return models.moe { heads = 12, kv_heads = 5 } end, "heads=12 must be a multiple of kv_heads=5")
  rejects(function() return models.moe { batch = 1, seq = 3 } end, "batch*seq*top_k = 1*3*2 = 6 is not divisible by experts=8")
  rejects(function() return models.gpt { seq = 2048 } end, "seq=2048 exceeds context=1024 (from size=\"gpt2\")")
  rejects(function() return models.vit { image = 200 } end, "image=200 must be a multiple of patch=16 (from size=\"b/16\")")
  rejects(function() return models.bert { seq = 1024 } end, "seq=1024 exceeds positions=512")
  -- images large enough for the downsampling
  for _, c in ipairs { { "resnet", 31 }, { "densenet", 31 }, { "mobilenet", 31 }, { "squeezenet", 31 },
                       { "paradnn.cnn", 31 } } do
    local e = rejects(function() return models.build(c[1], { image = c[2] }) end, "image=" .. c[2])
    assert(not e:find("invalid graph", 1, true), e)
    assert(models.build(c[1], { image = 32 }), c[1] .. " at 32")
  end
  -- Faster R-CNN: both sides against the C4 backbone's 16x (the same image_min rule)
  rejects(function() return models.faster_rcnn { image = 3 } end,
    "image=3 is too small (at least 16: the C4 backbone downsamples 16x)")
  rejects(function() return models.faster_rcnn { image_w = 15 } end,
    "image_w=15 is too small (at least 16")
  assert(models.faster_rcnn { image = 16 }, "faster_rcnn at image=16")
  rejects(function() return models.retinanet { image = 600 } end, "image=600 must be a multiple of 128")
  rejects(function() return models.alexnet { image = 222 } end, "image=222 gives a 5x5 map", "223..254")
  assert(models.alexnet { image = 223 } and models.alexnet { image = 254 })
  rejects(function() return models.alexnet { image = 255 } end, "image=255 gives a 7x7 map")
  rejects(function() return models.vgg { image = 100 } end, "image=100 must be 224")
  rejects(function() return models.speech { steps = 302 } end, "steps=302 must be divisible by 2^(layers-1)")
  rejects(function() return models.mobilenet { version = 1, width = 0.02 } end, "width=0.02 leaves the version 1 stem no channels")
  -- ResNet: depth against blocks= / block=, when depth is given
  rejects(function() return models.resnet { depth = 18, blocks = { 1, 1, 1, 1 } } end,
    "depth=18 contradicts blocks={1, 1, 1, 1}, which make a 10-layer basic net")
  rejects(function() return models.resnet { depth = 50, block = "basic" } end,
    "depth=50 is a bottleneck net; block=\"basic\" would make it 34 layers deep")
  T.eq(models.resnet { blocks = { 1, 1, 1, 1 } }.name, "resnet14", "blocks alone: bottlenecks (the default depth 50 is not checked)")
  T.eq(models.resnet { depth = 26, blocks = { 2, 2, 2, 2 }, block = "bottleneck" }.name, "resnet26", "consistent depth")
  T.eq(models.resnet { depth = 34, block = "basic" }.name, "resnet34", "block= agreeing with depth")
  -- Faster R-CNN: sampled anchors and RoIs come from the anchors of the C4 map
  rejects(function() return models.faster_rcnn { image = 64, image_w = 64 } end,
    "rpn_samples=256 exceeds the 144 anchors of image=64, image_w=64 (a 4x4 stride-16 map, anchors=9 per position)")
  rejects(function() return models.faster_rcnn { image = 64, image_w = 64, rpn_samples = 100, rois = 200 } end,
    "rois=200 exceeds the 144 anchors")
  assert(models.faster_rcnn { image = 64, image_w = 64, rpn_samples = 144, rois = 144, depth = 50 })
  rejects(function() return models.faster_rcnn { classes = 1 } end, "classes=1 leaves no object class")
end)

T.test("errors carry one location, the caller's line", function()
  local function loc_count(e)
    local n = 0
    for _ in e:gmatch("%.lua:%d+: ") do n = n + 1 end
    return n
  end
  local line
  local cases = {
    function() line = debug.getinfo(1, "l").currentline; local g = models.resnet { bogus = 1 }; return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.resnet { image = "224" }; return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.resnet { depth = 7 }; return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.resnet(5); return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.squeezenet { version = 2 }; return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.paradnn.fc { layers = 0 }; return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.build("bert", { masked = 500 }); return g end,
    function() line = debug.getinfo(1, "l").currentline; local g = models.build("resnet", { width = 0.001 }); return g end,
  }
  for i, f in ipairs(cases) do
    local ok, e = pcall(f)
    assert(not ok, "case " .. i)
    e = tostring(e)
    T.eq(loc_count(e), 1, "locations in case " .. i .. ": " .. e)
    assert(e:find(THIS .. ":" .. line .. ": ", 1, true) and e:find("dlb.models.", 1, true),
      "case " .. i .. " at the caller's line " .. line .. ": " .. e)
  end
end)

T.test("help(g.stats) of a zoo graph; the default optimizer is used and overridable", function()
  local g = models.resnet {}
  local s = help.text(g.stats)
  assert(not s:find("no help", 1, true), s)
  assert(s:find("g.model.optimizer", 1, true), s)
  assert(rawequal(g.stats, models.gpt {}.stats), "one shared function, not a closure per graph")
  T.eq(g:stats { b = 1 }.optimizer, "momentum", "resnet default")
  T.eq(g:stats { b = 1, optimizer = "adam" }.optimizer, "adam", "override")
  T.eq(g.model.optimizer, "momentum", "g.model")
  T.eq(models.resnet { optimizer = "sgd" }:stats { b = 1 }.optimizer, "sgd", "option")
  -- flops/params go through the same stats
  T.eq(g:flops { b = 1 }, g:stats { b = 1 }.flops, "g:flops uses the default optimizer")
  assert(g:flops { b = 1 } > g:flops { b = 1, optimizer = "sgd" }, "momentum costs more than sgd")
  local ok, e = pcall(g.stats, g, { bogus = {} })
  assert(not ok and tostring(e):find("unknown option 'bogus' for g:stats", 1, true), tostring(e))
end)

T.test("enum options: numbers and strings are not confused", function()
  T.eq(models.squeezenet { version = 1.1 }.name, "squeezenet1.1", "1.1 as a number")
  T.eq(models.squeezenet { version = 1 }.name, "squeezenet1.0", "1 as 1.0")
  T.eq(models.squeezenet { version = "1.1" }.model.options.version, "1.1", "stored as the string")
  T.eq(models.squeezenet { version = 1.1 }:stats { b = 1 }.params, 1235496, "1.1 params")
  rejects(function() return models.squeezenet { version = 1.2 } end, 'option version=1.2 must be one of "1.0", "1.1"')
  T.eq(models.mobilenet { version = "1" }.name, "mobilenet_v1", "version as a string")
  T.eq(models.mobilenet { version = "1" }:stats { b = 1 }.params, 4231976, "mobilenet v1 params")
  rejects(function() return models.mobilenet { version = 3 } end, "option version=3 must be one of 1, 2")
  T.eq(models.wgan { image = "32" }.model.options.image, 32, "wgan image as a string")
  rejects(function() return models.wgan { image = 48 } end, "option image=48 must be one of 32, 64")
  -- a string where a number is due says so, and quotes show which is which
  rejects(function() return models.resnet { image = "224" } end, 'option image="224" must be a positive integer',
    "give it as a number, without quotes")
  rejects(function() return models.resnet { depth = "50" } end, 'option depth="50"', "without quotes")
  rejects(function() return models.llama { size = 7 } end, 'option size=7 must be one of "7b", "13b", "70b"')
  rejects(function() return models.deepspeech2 { cell = "GRU" } end, 'option cell="GRU" must be one of "gru", "rnn", "lstm"')
  -- every enum of every model: the option check accepts each listed value
  for _, n in ipairs(models.names) do
    for _, s in ipairs(models.options(n)) do
      if type(s[3]) == "table" and s[1] ~= "optimizer" then
        for _, v in ipairs(s[3]) do
          local ok, e = pcall(models.build, n, { [s[1]] = v })
          assert(ok or not tostring(e):find("option " .. s[1] .. "=", 1, true), n .. " " .. s[1] .. ": " .. tostring(e))
        end
      end
    end
  end
end)

T.test("dlb.models.list(): prints the listing, returns a list that prints as one line", function()
  local lines = {}
  local r = models.list { out = function(l) lines[#lines + 1] = l end }
  T.eq(#lines, 27, "printed lines")
  T.eq(#r, 27, "entries")
  T.eq(r[1].name, "word_lm", "first entry")
  local s = tostring(r)
  assert(not s:find("\n", 1, true) and s:find("27 zoo models", 1, true), s)
  local p = dlb.pretty.format(r)
  assert(not p:find("\n", 1, true), "the REPL echo is one line: " .. p)
  lines = {}
  local q = models.list { print = false, out = function(l) lines[#lines + 1] = l end }
  T.eq(#lines, 0, "print=false")
  T.eq(#q, 27, "still returned")
  local saved, n = print, 0
  print = function() n = n + 1 end -- luacheck: ignore
  local ok, e = pcall(models.list)
  print = saved -- luacheck: ignore
  assert(ok, e)
  T.eq(n, 27, "default output is print")
  T.checkerr("unknown option 'bogus' for dlb.models.list; accepted: out, print", models.list, { bogus = 1 })
  T.checkerr("options must be a table", models.list, 5)
end)

-- A refused lora= named the graph, not the builder: dlb.models.gpt{lora = {rank = -1}} said
-- "dlb.models.gpt2: lora: ...", a function that does not exist (review 13).
T.test("lora=: a refused adapter names the builder called", function()
  local e = T.checkerr("dlb.models.gpt: lora: rank must be an integer >= 1, got -1", models.gpt, { lora = { rank = -1 } })
  assert(not e:find("gpt2", 1, true), e)
  T.checkerr("dlb.models.bert: lora: targets must be a list", models.bert, { lora = { rank = 2, targets = 5 } })
end)

T.done()
