-- test_ux.lua — what a user meets first (issue [14], "At the prompt"): values a function
-- printed are not echoed again, one-line results with units and the full table one call
-- away, tables cut to a width, boolean pivots, the rows of a stopped sweep, and errors at
-- the user's line.
local T = require "harness"
local dlb = require "dlbench"
local pretty = require "dlbench.pretty"

local function tiny()
  local g = dlb.graph("m")
  local x = g:input("x", { 4, 8 })
  g:loss(g:sum(g:matmul(x, g:weight("w", { 8, 2 }))))
  return g
end

local function quietly(f, ...)
  local p = print
  print = function() end
  local ok, a, b = pcall(f, ...)
  print = p
  if not ok then error(a, 0) end
  return a, b
end

T.test("g:summary: printed once (the REPL skips the echo), header without an empty ()", function()
  local g = tiny()
  local text = quietly(g.summary, g, {})
  assert(text:match("^graph 'm': training step, %d+ ops\n"), text)
  T.eq(pretty.values(text), nil, "the echo of what summary printed")
  T.eq(pretty.values(text), text, "asked for again: printed")
  quietly(g.summary, g, {})
  pretty.forget() -- what the REPL does before the next chunk
  T.eq(pretty.values(text), text, "after forget")
  local t2 = quietly(g.summary, g, { optimizer = "adam" })
  assert(t2:match("^graph 'm': training step, %d+ ops %(optimizer=adam%)\n"), t2)
end)

T.test("stats, roofline results, plans and data-parallel results print one line with units", function()
  local g = tiny()
  local s = g:stats{}
  -- params: w is 8 x 2 = 16
  -- (the default optimizer: a hand-built graph of no attention, the "other" family's momentum)
  T.eq(tostring(s):match("^stats: training step %(momentum, fp32%), 16 params, ") ~= nil, true, tostring(s))
  assert(not tostring(s):find("\n"), tostring(s))
  assert(pretty.format(s) == tostring(s), "the REPL shows the line")
  local full = pretty.full(s)
  assert(full:find("flops_fwd = ", 1, true) and full:find("footprint = ", 1, true), full)
  -- 1e12 FLOP at the V100's 15.7 TFLOP/s fp32 x 0.8 default efficiency = 79.6 ms
  local r = dlb.roofline.time({ flops = 1e12, bytes = 1e9 }, "V100-SXM2-16GB")
  -- issue [18]: the utilisation names what it counts; the framework and calibration used
  -- (review 21: the precision the call did not name is said to be the device's)
  T.eq(tostring(r), "roofline: 79.6 ms on V100-SXM2-16GB (fp32: the device's natural precision, graph), compute-bound, "
    .. "1 TFLOP at 12.6 TFLOP/s (util 80% of executed FLOPs), framework none, calibration catalogue")
  assert(pretty.full(r):find("attainable = ", 1, true))
  local d = dlb.parallel.data { work = { flops_sample = 1e9, grad_bytes = 4e6 },
    hw = dlb.hw.get("V100-SXM2-16GB"), workers = 4, subbatch = 8 }
  assert(tostring(d):match("^data parallel: 4 workers, step [%d.]+ [^ ]*s %(compute "), tostring(d))
  local P = dlb.parallel
  local ls = P.layers.transformer { layers = 4, d = 256, seq = 64, heads = 8, vocab = 1000 }
  local plans = P.plan { layers = ls, hw = dlb.hw.get("H100-SXM"), devices = 4, batch = 16 }
  assert(tostring(plans[1]):match("^plan: dp %d+ x tp %d+ x pp %d+, m %d+, "), tostring(plans[1]))
  assert(tostring(plans[1]):find(" GB per device", 1, true) or tostring(plans[1]):find(" MB per device", 1, true))
end)

T.test("units: SI prefixes round up to the next prefix, durations µs/ms/s", function()
  T.eq(pretty.si(1e12, "FLOP"), "1 TFLOP")
  T.eq(pretty.si(999.6e9, "B"), "1 TB")   -- 3 significant digits: 1000 G is 1 T
  T.eq(pretty.si(150618038272, "B"), "151 GB")
  T.eq(pretty.seconds(5e-6), "5 µs")
  T.eq(pretty.seconds(0.0912), "91.2 ms")
  T.eq(pretty.seconds(7200), "120 min")
end)

T.test("a wide table is cut to the width: middle columns elided, named in a note", function()
  local r, cols = {}, {}
  for c = 1, 31 do r["c" .. c] = c * 1000; cols[c] = "c" .. c end
  local t = dlb.table.new({ r, r }, cols)
  local text = t:format(nil, 60)
  for line in text:gmatch("[^\n]+") do
    if not line:find("more columns", 1, true) then
      assert(dlb.table.ulen(line) <= 60, "line over 60 columns: " .. line)
    end
  end
  assert(text:find("c1 ", 1, true) and text:find("c31", 1, true), text)
  local hidden = text:match("… (%d+) more columns: t:select{")
  assert(hidden, text)
  -- shown + hidden = 31
  local header = text:match("^[^\n]+")
  local shown = 0
  for _ in header:gmatch("c%d+") do shown = shown + 1 end
  T.eq(shown + tonumber(hidden), 31, "shown + hidden")
  -- wide enough: every column, no note
  local all = t:format(nil, 1000)
  assert(not all:find("more columns", 1, true) and all:find("c16", 1, true))
end)

T.test("t:pivot takes a boolean value column (true 1, false 0)", function()
  local t = dlb.table { { x = 1, y = 1, fits = true }, { x = 2, y = 1, fits = false },
    { x = 1, y = 2, fits = true } }
  local xs, ys, z = t:pivot("x", "y", "fits")
  T.eq(#xs, 2); T.eq(#ys, 2)
  T.eq(z[1][1], 1); T.eq(z[1][2], 0); T.eq(z[2][1], 1)
  assert(z[2][2] ~= z[2][2], "missing cell NaN")
end)

T.test("dlb.sweep.last(): all rows, or those finished before the sweep stopped", function()
  T.eq(type(dlb.sweep), "table")
  local t = dlb.sweep({ k = { 1, 2, 3 } }, function(p) return { v = p.k * 2 } end, { jobs = 1, progress = false })
  T.eq(dlb.sweep.last(), t)
  -- strict: the third config fails and stops the sweep; the first two stay reachable
  local ok = pcall(dlb.sweep, { k = { 1, 2, 3, 4 } }, function(p)
    if p.k == 3 then error("boom") end
    return { v = p.k }
  end, { jobs = 1, strict = true, progress = false })
  T.eq(ok, false)
  local last = dlb.sweep.last()
  T.eq(last:count(), 2)
  T.eq(table.concat(last:column("v"), ","), "1,2")
end)

T.test("errors inside the library name the user's file:line", function()
  local g = tiny()
  local s = g:stats{}
  local tpu = dlb.hw.get("TPUv3-board")
  local function here(f, ...)
    local ok, e = pcall(f, ...)
    T.eq(ok, false)
    return tostring(e)
  end
  -- a TPU device has no fp32 peak; the stats were asked for at fp32
  s = g:stats{ precision = "fp32" }
  local e = here(function() local r = dlb.roofline.time(s, tpu); return r end)
  assert(e:match("^[^\n]-test_ux%.lua:%d+: device 'TPUv3%-board' has no fp32 peak"), e)
  e = here(function() return dlb.roofline.time(s, tpu) end) -- a tail call too
  assert(e:match("^[^\n]-test_ux%.lua:%d+: "), e)
  e = here(function() local r = dlb.parallel.data { stats = s, hw = tpu, workers = 2, subbatch = 4 }; return r end)
  assert(e:match("^[^\n]-test_ux%.lua:%d+: parallel%.device: device 'TPUv3%-board'"), e)
  e = here(function() local r = tpu:roof("fp32"); return r end)
  assert(e:match("^[^\n]-test_ux%.lua:%d+: "), e)
  e = here(function() local r = dlb.roofline.time(s, "V100-SXM2-16GB", { flops_eff = 2 }); return r end)
  assert(e:match("^[^\n]-test_ux%.lua:%d+: "), e)
  e = here(function() local r = dlb.sweep({ k = { 1 } }, function() end, { shard = "3/2" }); return r end)
  assert(e:match("^[^\n]-test_ux%.lua:%d+: dlb%.sweep: shard 3 of 2"), e)
  e = here(function() local r = dlb.scaling.fit({}, {}); return r end) -- a core error
  assert(e:match("^[^\n]-test_ux%.lua:%d+: dlb%.scaling%.fit: 0 points"), e)
  -- no precision anywhere: the TPU's natural bf16 (not an fp32 error) in subbatch too
  local gb = dlb.graph("mb")
  local xb = gb:input("x", { "b", 8 })
  gb:loss(gb:sum(gb:matmul(xb, gb:weight("w", { 8, 2 }))))
  local sb = dlb.roofline.subbatch(gb, tpu, { batches = { 1, 2 } })
  assert(sb.curve.time[1] > 0)
  -- a graph without the batch dim: before fixes9 the same stats at every b (tiny()'s batch is 4)
  e = here(function() local r = dlb.roofline.subbatch(g, tpu, { batches = { 1, 2 } }); return r end)
  assert(e:match("^[^\n]-test_ux%.lua:%d+: dlb%.roofline%.subbatch: the graph has no dim 'b' %(its dims: none"), e)
end)

T.done()
