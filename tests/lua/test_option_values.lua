-- test_option_values.lua — options given values of the wrong kind (a number for a switch, a
-- fraction for a count, a string for a table, NaN and huge numbers) are errors naming the
-- option and the function, never a silent reading of them nor an index error from inside the
-- library; under both backends. Each case below was accepted, or failed elsewhere, before
-- branch review7 (the failure before the fix is said beside it).
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

local H100 = dlb.hw.get("H100")
local G = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, vocab = 100, seq = 16, batch = 4 }
local with = T.with
local EV = { graph = G, hw = H100, batch = 8, dp = 2, tp = 2, pp = 1, m = 1 }
local PL = { graph = G, hw = H100, devices = 4, batch = 8 }

T.test("parallel: switches are true or false (Lua reads 0 as true)", function()
  -- before: seq_par = 0 turned sequence parallelism on (the row's time and memory changed)
  for _, k in ipairs { "seq_par", "pp_scatter", "phase_sync", "shard" } do
    T.checkerr("parallel.evaluate: option '" .. k .. "' must be true or false, got number 0",
      P.evaluate, with(EV, k, 0))
    T.checkerr("parallel.plan: option '" .. k .. "' must be true or false, got string no",
      P.plan, with(PL, k, "no"))
  end
  T.checkerr("parallel.plan: option 'keep_unfit' must be true or false, got number 1", P.plan,
    with(PL, "keep_unfit", 1))
  -- before: plan read any number as true (hsdp = 4, 0 or NaN searched hybrid sharding)
  T.checkerr("parallel.plan: hsdp must be true or false (search hybrid sharding; default true), got number 0",
    P.plan, with(PL, "hsdp", 0))
  T.eq(#P.plan(with(PL, "hsdp", false)) <= #P.plan(PL), true, "hsdp = false searches no more")
  -- false and true as before: false is the default
  local r0, r1 = P.evaluate(EV), P.evaluate(with(EV, "seq_par", false))
  T.eq(r1.step, r0.step, "seq_par = false is the default")
  assert(P.evaluate(with(EV, "seq_par", true)).mem < r0.mem, "seq_par = true shards activations")
end)

T.test("parallel: the search's bounds and ZeRO stage are whole numbers", function()
  -- before: tp_max = 1.5 searched tp 1 only, zero = 1.5 searched stages 0 and 1, silently
  for _, k in ipairs { "tp_max", "pp_max", "m_max", "ep_max", "cp_max", "etp", "zero" } do
    T.checkerr("parallel.plan: option '" .. k .. "' must be a whole number >= 0, got 1.5", P.plan,
      with(PL, k, 1.5))
  end
  T.checkerr("parallel.evaluate: option 'zero' must be a whole number >= 0, got 0.5", P.evaluate,
    with(EV, "zero", 0.5))
  T.eq(#P.plan(with(PL, "tp_max", 0)), #P.plan(PL), "tp_max = 0: no bound, as before")
end)

T.test("parallel: devices, device and bind are checked by name first", function()
  -- before: evaluate took devices = 1.5; "x" failed inside the cluster code (an internal error)
  T.checkerr("parallel.evaluate: option 'devices' must be a whole number >= 1, got 1.5",
    P.evaluate, with(EV, "devices", 1.5))
  T.checkerr("parallel.evaluate: option 'devices' must be a finite number, got string x",
    P.evaluate, with(EV, "devices", "x"))
  -- before: "parallel.cluster: option 'nodes' must be a whole number >= 1, got 0"
  T.checkerr("parallel.plan: option 'devices' must be a whole number >= 1, got -3", P.plan,
    with(PL, "devices", -3))
  -- before: an internal error in frameworks.lua (attempt to index a number value)
  T.checkerr("parallel.plan: option 'device' must be a device table", P.plan, with(PL, "device", 5))
  T.checkerr("parallel.evaluate: option 'device' must be a device table", P.evaluate,
    with(EV, "device", "H100"))
  -- before: "bad argument #1 to 'for iterator' (table expected, got number)"
  T.checkerr("parallel.layers.from_graph: option 'bind' must be a table of dim values", P.plan,
    with(PL, "bind", 3))
end)

T.test("serve: link= is checked where it is given; a huge block is a number on both backends", function()
  local m = dlb.serve.model(dlb.models.llama { layers = 2, hidden = 64, heads = 4, kv_heads = 4,
    vocab = 100, seq = 16, batch = 1, ffn = 128 })
  local o = { hw = "H100", batch = 2, context = 64, tp = 2 }
  -- before: "parallel.allreduce: option 'bw' is required" (a string link), or accepted with tp 1
  T.checkerr("dlb.serve.decode: link must be a table {bw=, latency=}, got string zzz",
    dlb.serve.decode, m, with(o, "link", "zzz"))
  T.checkerr("dlb.serve.decode: link must be a table {bw=, latency=}, got string zzz",
    dlb.serve.decode, m, with(with(o, "tp", 1), "link", "zzz"))
  T.checkerr("dlb.serve.decode: option 'link.bw' is required", dlb.serve.decode, m,
    with(o, "link", {}))
  T.checkerr("dlb.serve.decode: option 'link.bw' must be a finite number", dlb.serve.decode, m,
    with(o, "link", { bw = 0 / 0 }))
  -- before: a misspelt latency was latency 0, and eff (which serving does not read) ignored
  T.checkerr("unknown option 'latncy' for dlb.serve.decode link (did you mean 'latency'?)",
    dlb.serve.decode, m, with(o, "link", { bw = 1e9, latncy = 1e-6 }))
  T.checkerr("unknown option 'eff' for dlb.serve.decode link", dlb.serve.decode, m,
    with(o, "link", { bw = 1e9, eff = 0.5 }))
  local r = dlb.serve.decode(m, with(o, "link", { bw = 1e9, latency = 1e-6 }))
  assert(r.tpot > 0 and r.tpot < 1, "a link that is given times the step")
  -- before: Lua 5.4 raised "bad argument #10 to 'format' (number has no integer
  -- representation)" from the step cache's key while LuaJIT answered
  local big = dlb.serve.decode(m, { hw = "H100", batch = 2, context = 64, block = 1e300 })
  T.eq(big.tpot, dlb.serve.decode(m, { hw = "H100", batch = 2, context = 64, block = 2 ^ 40 }).tpot,
    "one block holds the whole context either way")
end)

T.test("scaling.project: counts checked where given; graph= and bootstrap= options alone", function()
  local S = dlb.scaling
  local D = S.domains.word_lm
  local costs = function(p, b) return { flops = 6 * p * b, bytes = 2 * p, footprint = 16 * p } end
  local o = { subbatch = 32, costs = costs, epochs = 2, tokens_per_sample = 10 }
  -- before: a string reached the arithmetic ("attempt to mul a 'number' with a 'string'"),
  -- 0 made the steps infinite and NaN made them NaN, silently
  T.checkerr("dlb.scaling.project: tokens_per_sample must be a finite number > 0, got the string \"x\"", S.project, D,
    with(o, "tokens_per_sample", "x"))
  T.checkerr("dlb.scaling.project: tokens_per_sample must be a finite number > 0, got 0", S.project, D,
    with(o, "tokens_per_sample", 0))
  T.checkerr("dlb.scaling.project: subbatch must be a finite number > 0, got -3", S.project, D,
    with(o, "subbatch", -3))
  -- before: epochs = inf was taken (total_flops inf)
  T.checkerr("dlb.scaling.project: epochs must be a positive number (finite), got inf", S.project, D,
    with(o, "epochs", math.huge))
  -- before: ignored without graph= (as framework= is refused without it) or bootstrap=
  for _, k in ipairs { "dim", "lo", "hi", "integer", "stats" } do
    T.checkerr("dlb.scaling.project: " .. k .. "= applies to graph= costs", S.project, D, with(o, k, 1))
  end
  T.checkerr("dlb.scaling.project: seed= applies to bootstrap=", S.project, D, with(o, "seed", 3))
  local r = S.project(D, o)
  T.near(r.steps, r.data * 2 / (32 * 10), 1e-12, "steps = data x epochs / (subbatch x tokens)")
end)

T.test("hw:roof and roofline.time: efficiencies are numbers, tiling checked in hw:roof too", function()
  local s = G:stats {}
  -- before: the struct reader read true as 1 (a switch), so flops_eff = true timed the GEMMs
  -- at 100% of peak with no word
  T.checkerr("dlb.roofline.time: flops_eff must be a number in (0, 1], got boolean true",
    dlb.roofline.time, s, H100, { flops_eff = true })
  T.checkerr("bw_eff must be a number in (0, 1], got boolean true", H100.roof, H100, "bf16",
    { bw_eff = true })
  -- before: hw:roof took cache_fraction = -1 (a negative cache) and NaN, and "x" raised
  -- "attempt to mul a 'number' with a 'string'" (dlb.roofline.time checked them, hw:roof not)
  T.checkerr("cache_fraction must be a number in [0, 1], got -1", H100.roof, H100, "bf16",
    { cache_fraction = -1 })
  T.checkerr("cache_fraction must be a number in [0, 1], got x", H100.roof, H100, "bf16",
    { cache_fraction = "x" })
  T.checkerr("tile must be a side >= 1 (elements) or {tile_m, tile_n}, got -5", H100.roof, H100,
    "bf16", { tile = -5 })
  T.checkerr("dlb.roofline.time: cache_fraction must be a number in [0, 1], got -1",
    dlb.roofline.time, s, H100, { cache_fraction = -1, cache_aware = true })
  T.eq(H100:roof("bf16", { flops_eff = 0.5 }).flops_eff, 0.5, "a number as before")
end)

T.test("framework names: the error is at the caller's line, not a line of the library", function()
  -- before: "test_option_values.lua:N: /.../graph_analysis.lua:140: g:stats: unknown framework"
  -- (roofline.lua:260 for roofline.time), and scaling.project and dlb.sweep named only
  -- scaling.lua:491 / sweep.lua:313
  local s = G:stats {}
  local calls = {
    { "g:stats", function(v) local r = G:stats { framework = v }; return r end },
    { "dlb.roofline.time", function(v) local r = dlb.roofline.time(s, H100, { framework = v }); return r end },
    { "parallel.evaluate", function(v) local r = P.evaluate(with(EV, "framework", v)); return r end },
    { "dlb.scaling.project", function(v)
      local r = dlb.scaling.project(dlb.scaling.domains.word_lm, { framework = v }); return r end },
    { "dlb.sweep", function(v)
      local r = dlb.sweep({ a = { 1 } }, function() return { x = 1 } end, { framework = v }); return r end },
  }
  -- (each call in a closure that is not a tail call, so that its line is the caller's frame)
  for _, c in ipairs(calls) do
    for _, v in ipairs { "zzz", 5 } do
      local e = T.checkerr(c[1] .. ": ", c[2], v)
      assert(e:match("^[^\n:]*test_option_values%.lua:%d+: " .. c[1]:gsub("%.", "%%.") .. ": "), e)
      assert(not e:find("lua/dlbench/", 1, true), e)
    end
  end
end)

T.test("offload: a list of names; a table with named fields is an error (g:stats, evaluate)", function()
  -- before: {optimizer = true} was read as a list of none (no offload, no word), and named
  -- fields beside a list ({"optimizer", host_bw = -1}) were ignored; g:stats and the planner
  -- had a copy of the rule each
  local m = "offload must be \"optimizer\", \"params\", \"activations\" or a list of them, got "
  T.checkerr("g:stats: " .. m .. "a table with the field 'optimizer'", G.stats, G, { offload = { optimizer = true } })
  T.checkerr("parallel.evaluate: " .. m .. "a table with the field 'host_bw'", P.evaluate,
    with(EV, "offload", { "optimizer", host_bw = -1 }))
  T.checkerr("parallel.plan: " .. m .. "a table with the field 'optimizer'", P.plan,
    with(PL, "offload", { optimizer = true, zz = 1 }))
  T.checkerr("g:stats: " .. m .. "zz", G.stats, G, { offload = { "zz" } })
  -- the list form as before
  local full, off = G:stats {}, G:stats { offload = { "optimizer" } }
  assert(off.footprint < full.footprint, "optimizer offload lowers the device footprint")
  T.eq(G:stats { offload = "optimizer" }.footprint, off.footprint, "a name is a list of one")
end)

T.test("calibration names: dlb.sweep's error is at the caller's line", function()
  -- before: "/.../lua/dlbench/sweep.lua:317: dlb.sweep: calibration must be ..."
  local e = T.checkerr("dlb.sweep: calibration must be \"catalogue\" or \"validated\", got zz", function()
    local t = dlb.sweep({ a = { 1 } }, function() return { x = 1 } end, { calibration = "zz" })
    return t
  end)
  assert(e:match("^[^\n:]*test_option_values%.lua:%d+: dlb%.sweep: "), e)
end)

T.test("dlb.sweep.model: bind a list, a bad stats option named as the sweep's", function()
  local function b(p)
    return dlb.models.gpt { layers = p.layers, hidden = 64, heads = 4, vocab = 100, context = 64,
      seq = p.seq, batch = p.batch }
  end
  local sp = { layers = { 2 }, seq = { 16 }, batch = { 1, 2 }, device = { "H100" } }
  -- before: "attempt to index a number value" (Lua 5.4) or "bad argument #1 to 'ipairs'" (LuaJIT)
  T.checkerr("dlb.sweep.model: bind must be a list of dim names, got number 5", dlb.sweep.model, b, sp,
    { bind = 5, keep = true })
  -- before: ".../lua/dlbench/sweep_model.lua:120: g:step_options: unknown precision 'zz'"
  local e = T.checkerr("dlb.sweep.model: g:step_options: unknown precision 'zz'", dlb.sweep.model, b,
    with(sp, "precision", { "zz" }), { bind = { "batch", "seq" }, keep = true })
  assert(not e:find("sweep_model.lua", 1, true), e)
  T.eq(dlb.sweep.model(b, sp, { bind = { "batch", "seq" }, keep = true }).rows:count(), 2, "two rows")
end)

T.test("roofline.hestness and roofline.subbatch: NaN and inf are not positive", function()
  -- before: NaN passed "p <= 0" and was refused later as dlb.scaling.step_costs' params
  T.checkerr("dlb.roofline.hestness: p (parameters) and b (subbatch) must be positive finite numbers",
    dlb.roofline.hestness, "word_lm", 0 / 0, 32)
  T.checkerr("dlb.roofline.hestness: p (parameters) and b (subbatch) must be positive finite numbers, got 1e+09, inf",
    dlb.roofline.hestness, "word_lm", 1e9, math.huge)
  local model = function(b) return dlb.roofline.hestness("word_lm", 1e8, b) end
  T.checkerr("dlb.roofline.subbatch: batches[2] must be positive (finite)", dlb.roofline.subbatch,
    model, "V100", { batches = { 1, 0 / 0, 4 } })
  T.checkerr("dlb.roofline.subbatch: batches[3] must be positive (finite), got inf", dlb.roofline.subbatch,
    model, "V100", { batches = { 1, 2, math.huge } })
end)

T.test("roofline.time: per_op, cache_aware and detail are true or false", function()
  local s = G:stats {}
  -- before: per_op = 0 meant per-op (only false chose the whole graph), cache_aware = 0 and
  -- detail = "no" turned them on
  for _, k in ipairs { "per_op", "cache_aware", "detail" } do
    T.checkerr("dlb.roofline.time: option '" .. k .. "' must be true or false, got number 0",
      dlb.roofline.time, s, H100, { [k] = 0 })
  end
  T.eq(dlb.roofline.time(s, H100, { per_op = false }).mode, "graph", "per_op = false as before")
  T.eq(dlb.roofline.time(s, H100, { per_op = true }).mode, "per_op", "per_op = true as before")
end)

T.test("serve: tp must split the model's heads; stream and draft errors at the caller's line", function()
  local S = dlb.serve
  local m = S.model(dlb.models.llama { layers = 2, hidden = 64, heads = 4, kv_heads = 4, vocab = 100,
    seq = 16, batch = 1, ffn = 128 })
  -- before: decode and generate failed in the graph engine ("tensor 'layer1.attention.kv_cache'
  -- dim 3: 42.666666666666664 is not a positive integer"); memory and capacity counted 4/3 KV
  -- heads per GPU and answered
  for _, c in ipairs {
    { "decode", S.decode, { hw = "H100", batch = 2, context = 64, tp = 3 } },
    { "memory", S.memory, { hw = "H100", batch = 2, context = 64, tp = 3 } },
    { "capacity", S.capacity, { hw = "H100", context = 64, tp = 3 } },
  } do
    T.checkerr("dlb.serve." .. c[1] .. ": tp 3 does not divide the 4 attention heads", c[2], m, c[3])
  end
  -- KV heads sharded (tp divides them) or replicated (tp a multiple of them); 6 and 4: neither
  local gqa = S.model { layers = 2, hidden = 768, heads = 12, kv_heads = 4, ffn = 1024, vocab = 100 }
  T.checkerr("dlb.serve.memory: tp 6 and the 4 KV heads", S.memory, gqa, { hw = "H100", batch = 1, context = 64, tp = 6 })
  assert(S.memory(gqa, { hw = "H100", batch = 1, context = 64, tp = 12 }).total > 0, "KV heads replicated")
  T.checkerr("dlb.serve.memory: pp 3 is more stages than the 2 layers", S.memory, m,
    { hw = "H100", batch = 1, context = 64, pp = 3 })
  assert(S.memory(m, { hw = "H100", batch = 2, context = 64, tp = 2 }).total > 0, "tp 2 of 4 heads")
  -- before: ".../lua/dlbench/serve_batch.lua:162: dlb.serve.continuous: prompt[1] ..."
  local e = T.checkerr("dlb.serve.continuous: prompt[1] must be a whole number of tokens from 1 to 16777216 "
    .. "(dlb.serve.max_length), got nan", function()
    local r = S.continuous(m, { hw = "H100", rate = 5, prompt = { 0 / 0, 32 }, output = { 8, 4 } })
    return r
  end)
  assert(e:match("^[^\n:]*test_option_values%.lua:%d+: "), e)
  T.checkerr("dlb.serve.speculative: draft: dlb.serve.model: unknown model field 'zz'", S.speculative, m,
    { hw = "H100", draft = { zz = 1 }, k = 4, accept = 0.5 })
end)

T.test("parallel: latency= and eff= need bw=; data's async, device and samples_epoch by name", function()
  local WORK = P.layers.table2_work("word_lm", 23.8e9)
  local D = { work = WORK, hw = H100, workers = 8, subbatch = 4 }
  -- before: without bw= (the device's links used) latency and eff were ignored, whatever
  -- they held ("x", NaN); with cluster= a bw= was ignored
  T.checkerr("parallel.data: latency= and eff= describe one flat link tier with bw=", P.data,
    with(D, "latency", "x"))
  T.checkerr("parallel.evaluate: latency= and eff= describe one flat link tier with bw=", P.evaluate,
    with(EV, "eff", 0 / 0))
  T.checkerr("parallel.plan: latency= and eff= describe one flat link tier with bw=", P.plan,
    with(PL, "latency", 1e-6))
  local cl = P.cluster { per_node = 8, nodes = 1, intra = { bw = 300e9, latency = 2e-6 } }
  T.checkerr("parallel.data: give cluster= or bw= (one flat link tier), not both", P.data,
    with(with(D, "cluster", cl), "bw", 1e9))
  assert(P.data(with(with(D, "bw", 25e9), "latency", 5e-6)).step > 0, "bw= with latency= as before")
  -- before: async = 0 ran the parameter server; device = 5 was a bad argument to parallel_data;
  -- samples_epoch = NaN was "work costs must be finite and >= 0"
  T.checkerr("parallel.data: option 'async' must be true or false, got number 0", P.data, with(D, "async", 0))
  T.checkerr("parallel.data: option 'device' must be a device table", P.data, with(D, "device", 5))
  T.checkerr("parallel.data: option 'samples_epoch' must be a finite number", P.data,
    with(D, "samples_epoch", 0 / 0))
end)

T.test("graph and stats switches: transpose_a, keepdims, attention, tukey are true or false", function()
  local g = dlb.graph("t")
  local x, w = g:input("x", { 4, 8 }), g:weight("w", { 8, 16 })
  -- before: transpose_a = 0 transposed x (Lua's truth), keepdims = 0 kept them, tukey = 0
  -- drew Tukey's whiskers, attention = 0 marked a kernel as attention
  T.checkerr("g:matmul: option 'transpose_a' must be true or false, got number 0", g.matmul, g, x, w,
    { transpose_a = 0 })
  T.checkerr("g:sum: option 'keepdims' must be true or false, got number 0", g.sum, g, x,
    { axes = 1, keepdims = 0 })
  T.checkerr("g:kernel: option 'attention' must be true or false, got number 0", g.kernel, g, { x }, { 4 },
    { flops = 1, bytes = 1, attention = 0 })
  T.checkerr("dlb.stats.box: option 'tukey' must be true or false, got number 0", dlb.stats.box,
    { 1, 2, 3, 4, 5 }, { tukey = 0 })
  T.eq(#g:matmul(x, w, { transpose_a = false }):dims(), 2, "false as before")
  T.eq(dlb.stats.box({ 1, 2, 3, 4, 5 }, { tukey = true }).median, 3, "tukey = true as before")
end)

T.test("dlb.sweep: strict, quiet and progress are true or false", function()
  local fn = function(p) if p.a == 2 then error("boom") end return { x = p.a } end
  -- before: strict = 0 stopped the sweep at the first failed config (Lua's truth)
  for _, k in ipairs { "strict", "quiet", "progress" } do
    T.checkerr("dlb.sweep: option '" .. k .. "' must be true or false, got number 0", dlb.sweep,
      { a = { 1, 2 } }, fn, { jobs = 1, [k] = 0 })
  end
  local t = dlb.sweep({ a = { 1, 2 } }, fn, { jobs = 1, strict = false, quiet = true, progress = false })
  T.eq(t:count(), 2, "strict = false keeps the failed config as a row, as before")
end)

T.test("parallel.layers: dropout and tied are switches; from_graph's batch and batch_dim checked", function()
  local L = P.layers
  -- before: dropout = 0 (the rate of no dropout) built the layers with dropout (Lua's truth)
  T.checkerr("parallel.layers.transformer: option 'dropout' must be true or false, got number 0",
    L.transformer, { layers = 2, d = 64, seq = 16, heads = 4, vocab = 100, dropout = 0 })
  T.checkerr("parallel.layers.transformer_formula: option 'tied' must be true or false, got string no",
    L.transformer_formula, { layers = 2, d = 64, seq = 16, tied = "no" })
  -- before: batch = 8 of a graph built at 4 halved every per-sample cost; 1.5 was taken;
  -- batch_dim = 4 acted as batch = 4
  T.checkerr("batch = 8, but the graph was built with batch = 4", L.from_graph, G, { batch = 8 })
  T.checkerr("option 'batch' must be a whole number of samples >= 1, got 1.5", L.from_graph, G, { batch = 1.5 })
  T.checkerr("option 'batch_dim' must be the name of the graph's batch dim, got number 4", L.from_graph, G,
    { batch_dim = 4 })
  T.eq(L.from_graph(G, { batch = 4 })[1].flops_fwd, L.from_graph(G)[1].flops_fwd, "its own batch as before")
end)

T.test("parallel.data/work: the batch the stats were counted at is held to their graph's", function()
  local s = G:stats {}   -- G is built at batch 4
  -- before: subbatch = 16 took the stats as counted at 16 samples: the step of 4 samples a
  -- worker, silently (the same step as subbatch = 4)
  T.checkerr("parallel.data: the stats were counted at batch 4 (their graph's), not 16: give stats_batch = 4",
    P.data, { stats = s, hw = H100, workers = 8, subbatch = 16 })
  T.checkerr("parallel.work: the stats were counted at batch 4 (their graph's), not 2", P.work, s, 2)
  local r4 = P.data { stats = s, hw = H100, workers = 8, subbatch = 4 }
  local r16 = P.data { stats = s, hw = H100, workers = 8, subbatch = 16, stats_batch = 4 }
  assert(r16.step > 3 * r4.step, "16 samples a worker take longer than 4")
  -- a batch dim bound by g:stats counts too
  local gs = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, vocab = 100, seq = 16 }
  T.checkerr("counted at batch 2 (their graph's), not 8", P.data,
    { stats = gs:stats { b = 2 }, hw = H100, workers = 8, subbatch = 8 })
end)

T.test("nn and stats.regress switches: bias, interactions, drop_missing", function()
  local nn = require "dlbench.nn"
  local g = dlb.graph("t")
  local x = g:input("x", { 4, 8 })
  -- before: bias = 0 added a bias to nn.linear (its "~= false") and nn.conv2d (Lua's truth)
  T.checkerr("nn.linear: option 'bias' must be true or false, got number 0", nn.linear, g, x, 16, { bias = 0 })
  T.checkerr("nn.conv2d: option 'bias' must be true or false, got number 0", nn.conv2d, g,
    g:input("img", { 1, 3, 8, 8 }), 4, 3, { bias = 0 })
  T.eq(#nn.linear(g, x, 16, { bias = false }):dims(), 2, "bias = false as before")
  -- before: drop_missing = 0 skipped the rows with a missing value, interactions = 0 added terms
  local cols = { x = { 1, 2, 3, 4 }, z = { 2, 1, 4, 3 }, y = { 2, 4, 6, 8.5 } }
  T.checkerr("dlb.stats.regress: option 'drop_missing' must be true or false, got number 0",
    dlb.stats.regress, cols, { "x" }, "y", { drop_missing = 0 })
  T.checkerr("dlb.stats.regress: option 'interactions' must be true or false, got number 0",
    dlb.stats.regress, cols, { "x", "z" }, "y", { interactions = 0 })
end)

T.done()
