-- test_precision_default.lua — review 21 (issue [18] item 6, "the defaults that were
-- applied"): a call that names no precision is timed at the one rule's choice
-- (hw:defaulted_precision: the path's default, "mixed" for the planner's graph, else the
-- device's hw:default_precision, fp32 where it has an fp32 peak, else bf16), and every
-- result names it, on every device class: a GPU (H100-SXM), a TPU (TPUv4: bf16 and int8
-- peaks only, Cloud TPU v4 docs), a CPU host (Skylake-n1-32: fp64 and fp32). Before, only a
-- TPU's bf16 was named; a GPU's or a CPU's fp32 and the layers' "mixed" were not, and
-- "precision mixed" did not say which peak. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local R, P = dlb.roofline, dlb.parallel

local function has(list, entry)
  for _, e in ipairs(list) do if e == entry then return true end end
  return false
end

T.test("roofline.time: the precision chosen for costs that say none is named, on a GPU, a TPU, a CPU", function()
  for _, c in ipairs { { "H100-SXM", "fp32" }, { "TPUv4", "bf16" }, { "Skylake-n1-32", "fp32" } } do
    local h = dlb.hw.get(c[1])
    T.eq(h:default_precision(), c[2], c[1] .. ": the device's default")
    local r = R.time({ flops = 1e12, bytes = 1e9 }, h)
    T.eq(r.precision, c[2], c[1])
    T.eq(r.precision_source, "device", c[1])
    assert(has(r.provenance.defaults, "precision " .. c[2]), c[1] .. ": " .. table.concat(r.provenance.defaults, "; "))
    assert(tostring(r):find("(" .. c[2] .. ": the device's natural precision", 1, true), tostring(r))
    -- the time is the one it was: 1e12 FLOP at 0.8 x the peak (Hestness et al. 5.2's flops_eff)
    -- or the bytes at 0.7 x mem_bw, whichever is longer
    local want = math.max(1e12 / (h.flops_eff * h.peak[c[2]]), 1e9 / (h.bw_eff * h.mem_bw))
    T.near(r.time, want, 1e-12, c[1] .. " time")
    -- named by the call (option or the stats): not a default, not in the list
    local ro = R.time({ flops = 1e12, bytes = 1e9 }, h, { precision = c[2] })
    T.eq(ro.precision_source, "option")
    assert(not has(ro.provenance.defaults, "precision " .. c[2]))
    local rs = R.time({ flops = 1e12, bytes = 1e9, precision = c[2] }, h)
    T.eq(rs.precision_source, "stats")
    assert(not has(rs.provenance.defaults, "precision " .. c[2]))
  end
  -- g:stats without precision= (counted at fp32, precision_given false): the device chooses
  -- and says so, the GPU's fp32 too (it was "stats" and unsaid)
  local g = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, context = 32, vocab = 100, seq = 32 }
  local s = g:stats { b = 2 }
  local r = R.time(s, "H100-SXM")
  T.eq(r.precision_source, "device")
  assert(has(r.provenance.defaults, "precision fp32"), table.concat(r.provenance.defaults, "; "))
end)

T.test("evaluate and plan: the default precision names its peak; a layer list's is named as the layers'", function()
  local g = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, context = 32, vocab = 100, seq = 32 }
  local function last(d) return d:match("([^,]*)$"):gsub("^ ", "") end
  -- "mixed" runs on the 16-bit peak: fp16 where the device has it (hw:precision), else bf16
  for _, c in ipairs { { "H100-SXM", "fp16" }, { "TPUv4", "bf16" } } do
    local r = P.evaluate { graph = g, hw = c[1], dp = 2, batch = 4, bw = 1e11 }
    T.eq(last(r.defaults), "precision mixed (" .. c[2] .. " peak)", c[1])
    local t = P.plan { graph = g, hw = c[1], devices = 2, batch = 4, bw = 1e11, table = false }
    T.eq(last(t[1].defaults), "precision mixed (" .. c[2] .. " peak)", c[1] .. " plan")
    local ls = P.layers.transformer { layers = 2, d = 64, seq = 8 }
    T.eq(ls.precision, "mixed")
    local rl = P.evaluate { layers = ls, hw = c[1], dp = 2, batch = 4, bw = 1e11 }
    T.eq(last(rl.defaults), "precision mixed (" .. c[2] .. " peak; the layers')", c[1] .. " layers")
    -- named by the call: no entry
    local rp = P.evaluate { graph = g, hw = c[1], dp = 2, batch = 4, bw = 1e11, precision = c[2] }
    assert(not rp.defaults:find("precision", 1, true), rp.defaults)
  end
  -- a CPU host has no 16-bit peak: the default cannot run there, and the error says it was
  -- the default (it said "has no fp16 peak" to a call that named no fp16)
  T.checkerr("parallel.evaluate: no precision was given and the default, mixed, cannot run on device "
    .. "'Skylake-n1-32' (it has fp64, fp32): pass precision = one of those",
    P.evaluate, { graph = g, hw = "Skylake-n1-32", dp = 2, batch = 4, bw = 1e11 })
  local rc = P.evaluate { graph = g, hw = "Skylake-n1-32", dp = 2, batch = 4, bw = 1e11, precision = "fp32" }
  assert(rc.step > 0)
  T.eq(dlb.hw.precision_entry("mixed", "bf16", "the layers'"), "precision mixed (bf16 peak; the layers')")
  T.eq(dlb.hw.precision_entry("fp32", "fp32"), "precision fp32")
end)

T.test("sweeps and parallel.data carry the same words", function()
  -- dlb.sweep: a row of a fn that times with dlb.roofline.time keeps its defaults
  local rows = dlb.sweep({ device = { "H100-SXM", "TPUv4" } }, function(p)
    return { time = R.time({ flops = 1e12, bytes = 1e9 }, p.device).time }
  end, { jobs = 1, quiet = true })
  for i = 1, rows:count() do
    local row = rows:row(i)
    local want = row.device == "TPUv4" and "precision bf16" or "precision fp32"
    assert(row.defaults:find(want, 1, true), row.device .. ": " .. row.defaults)
  end
  -- parallel.data: the compute's precision and who chose it
  local g = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, context = 32, vocab = 100, seq = 32 }
  local s = g:stats { b = 2 }
  for _, c in ipairs { { "H100-SXM", "fp32" }, { "TPUv4", "bf16" } } do
    local d = P.data { stats = s, hw = c[1], workers = 2, subbatch = 2, bw = 1e11 }
    T.eq(d.precision, c[2]); T.eq(d.precision_source, "device")
    assert(tostring(d):find(c[2] .. ": the device's natural precision", 1, true), tostring(d))
    assert(has(d.roofline.defaults, "precision " .. c[2]))
  end
end)

T.done()
