-- test_sweep_model_precision.lua — dlb.sweep.model over a space of precision x device where
-- some pair has no peak (bf16 on a V100: fp64, fp32, fp16 in the catalogue; fp32 on a TPUv4:
-- bf16, int8). Before, the first such pair met while the structures ran stopped the call with
-- that one pair's message (hw:precision's), after compiling the structures before it. The
-- compiled sweep times every structure on every device (the device column is the roof's
-- place in the array), so an impossible pair cannot yet be a failed row: the call is refused
-- before anything runs (no structure compiled, no checkpoint file written), naming every
-- pair, and the split it names runs and gives the rows the possible pairs give.
local T = require "harness"
local dlb = require "dlbench"

local built = 0
local function build(p)
  built = built + 1
  return dlb.models.gpt { layers = 2, hidden = 256, heads = 4, context = 1024, vocab = 1000,
    seq = 64, batch = p.batch }
end
local DEVS = { "H100-SXM", "V100-SXM2-16GB", "TPUv4" }

T.test("sweep.model: a (precision, device) pair without a peak is refused up front, every pair named", function()
  local path = os.tmpname()
  os.remove(path)
  built = 0
  local e = T.checkerr("dlb.sweep.model: 2 (precision, device) pairs cannot be timed: "
    .. "precision fp32 on device[3] TPUv4 (device 'TPUv4' has no fp32 peak (it has bf16, int8)); "
    .. "precision bf16 on device[2] V100-SXM2-16GB (device 'V100-SXM2-16GB' has no bf16 peak "
    .. "(it has fp64, fp32, fp16)). No row was computed", dlb.sweep.model, build,
    { precision = { "fp32", "bf16" }, batch = { 1, 2 }, device = DEVS },
    { bind = { "batch" }, keep = true, checkpoint = path })
  -- the split that runs, each precision over the devices that have it
  assert(tostring(e):find('precision = {"fp32"} over device = {"H100-SXM", "V100-SXM2-16GB"}; '
    .. 'precision = {"bf16"} over device = {"H100-SXM", "TPUv4"}', 1, true), tostring(e))
  T.eq(built, 0, "nothing built before the refusal")
  T.eq(io.open(path, "r"), nil, "no checkpoint file written")
  -- stats.precision (one precision for every structure): the same check
  local e2 = T.checkerr("1 (precision, device) pair cannot be timed: precision fp32 on device[3] TPUv4",
    dlb.sweep.model, build, { batch = { 1 }, device = DEVS },
    { bind = { "batch" }, stats = { framework = "auto", precision = "fp32" } })
  assert(e2:find('stats.precision = "fp32" over device = {"H100-SXM", "V100-SXM2-16GB"}', 1, true), e2)
  -- "mixed" is hw:precision's rule: fp16 on the V100, bf16 on the TPU: every pair times
  local m = dlb.sweep.model(build, { precision = { "mixed" }, batch = { 1 }, device = DEVS },
    { bind = { "batch" }, keep = true })
  T.eq(m.rows:count(), 3, "mixed on all three devices")
  -- an unknown precision is still g:stats' to name
  T.checkerr("unknown precision", dlb.sweep.model, build,
    { precision = { "zz" }, batch = { 1 }, device = DEVS }, { bind = { "batch" } })
end)

T.test("sweep.model: the split the message names gives the possible pairs' rows", function()
  local split = {}
  for _, c in ipairs { { "fp32", { "H100-SXM", "V100-SXM2-16GB" } }, { "bf16", { "H100-SXM", "TPUv4" } } } do
    local r = dlb.sweep.model(build, { precision = { c[1] }, batch = { 1, 2 }, device = c[2] },
      { bind = { "batch" }, keep = true })
    T.eq(r.rows:count(), 4, c[1] .. ": two batches on two devices")
    for i = 1, r.rows:count() do
      local row = r.rows:row(i)
      assert(row.time > 0, c[1] .. " row " .. i .. " timed")
      split[c[1] .. " " .. row.device .. " " .. row.batch] = row.time
    end
  end
  -- each row is the per-configuration path's (g:stats + dlb.roofline.time) within 1e-9
  for key, t in pairs(split) do
    local prec, dev, b = key:match("^(%S+) (%S+) (%S+)$")
    local g = build { batch = tonumber(b) }
    local r = dlb.roofline.time(g:stats { framework = "auto", precision = prec }, dev)
    T.near(t, r.time, 1e-9, key)
  end
end)

T.test("sweep.layouts: a device without plan.precision's peak is refused before any plan runs", function()
  -- before: the H100's plans ran, then the V100's plan call raised hw:precision's message
  local path = os.tmpname()
  os.remove(path)
  built = 0
  local e = T.checkerr("dlb.sweep.layouts: 1 (precision, device) pair cannot be timed: precision "
    .. "bf16 on device[2] V100-SXM2-16GB (device 'V100-SXM2-16GB' has no bf16 peak (it has fp64, "
    .. "fp32, fp16)). No row was computed", dlb.sweep.layouts, build,
    { batch = { 8 }, gpus = { 8 }, device = { "H100-SXM", "V100-SXM2-16GB" } },
    { plan = { precision = "bf16", batch = 64 }, checkpoint = path })
  assert(e:find('plan.precision = "bf16" over device = {"H100-SXM"}', 1, true), e)
  T.eq(built, 0, "no model built")
  T.eq(io.open(path, "r"), nil, "no checkpoint file written")
  -- the split runs
  local r = dlb.sweep.layouts(build, { batch = { 8 }, gpus = { 8 }, device = { "H100-SXM" } },
    { plan = { precision = "bf16", batch = 64 }, keep = true })
  assert(r.count > 0, "the H100's layouts")
end)

T.done()
