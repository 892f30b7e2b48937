-- bench_frameworks.lua — issue [18]: the default plan (today's practice, framework profile
-- chosen by the model's family) for Llama-3-8B (seq 8192) on 1,024 H100s, global batch
-- 1,024 sequences, 15T tokens: time of the whole call (graph build, per-layer extraction,
-- model FLOPs, plan search), and the plan it picks with its MFU under each convention,
-- against framework = "none" (the pre-profile behaviour).
-- Run: dlbench run tests/bench/bench_frameworks.lua
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_frameworks.lua).
local dlb = require "dlbench"
local P = dlb.parallel
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")

-- Llama 3 8B (Llama Team 2024, "The Llama 3 Herd of Models", Table 3): 32 layers, d_model
-- 4096, 32 heads, 8 KV heads, FFN 14336, vocabulary 128,256
local function llama3_8b()
  return dlb.models.llama { layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336,
    vocab = 128256, seq = 8192 }
end
local hw = dlb.hw.get("H100-SXM")
local function plan(extra)
  local o = { graph = llama3_8b(), hw = hw, devices = 1024, batch = 1024, tokens = 15e12 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return P.plan(o)[1]
end

local med, best = time(3, function() plan() end)
print(string.format("default plan (graph build + layers + model FLOPs + search): median %.3f s, "
  .. "min %.3f s (CPU, %s backend)", med, best, dlb.backend))
local r = plan()
print(tostring(r))
print("  " .. r.provenance)
for _, c in ipairs { { attention_flops = "full" }, { mfu = "6N" } } do
  local x = plan(c)
  print(string.format("  MFU %.1f%% (%s)", 100 * x.mfu, x.mfu_convention))
end
print(tostring(plan { calibration = "validated" }))
local medn = time(3, function() plan { framework = "none" } end)
print(string.format("framework = \"none\" plan: median %.3f s", medn))
print(tostring(plan { framework = "none" }))

-- The plan search under each recompute policy (issue [18], branch sac: torchtitan's per-op
-- selective AC walks each block's ops per layout, uncached)
for _, rc in ipairs { "full", "selective_op" } do
  local m = time(3, function() plan { recompute = rc } end)
  local x = plan { recompute = rc }
  print(string.format("recompute = %q plan: median %.3f s; dp %d x tp %d x pp %d, m %d, step %s, "
    .. "%.1f GB, MFU %.1f%%", rc, m, x.dp, x.tp, x.pp, x.m, string.format("%.3f s", x.step), x.mem / 1e9, 100 * x.mfu))
end

-- Issue [18]'s first target: the FSDP rows of the validation table, the notebook's path
-- against a plain user call (tests/lua/fsdp_rows.lua): held-out |error| both ways.
local here = (arg and arg[0] and arg[0]:match("^(.*)/tests/bench/")) or "."
package.path = here .. "/tests/lua/?.lua;" .. package.path
local F = require "fsdp_rows"
local t0 = os.clock()
local en, ep, eb, worst, nrows = {}, {}, {}, 0, 0
for _, x in ipairs(F.rows(dlb, here)) do
  x.before = true
  local pn, pp, meas = F.predict(dlb, x)
  nrows = nrows + 1
  worst = math.max(worst, math.abs(pp / pn - 1))
  if not x.calib then
    en[#en + 1] = math.abs(pn / meas - 1); ep[#ep + 1] = math.abs(pp / meas - 1)
    eb[#eb + 1] = math.abs(x.before / meas - 1)
  end
end
print(string.format("FSDP rows, the same plain call before profiles (framework = \"none\"): "
  .. "held-out |error| median %.1f%%, p90 %.1f%%", 100 * F.median(eb), 100 * F.p90(eb)))
print(string.format("FSDP rows (%d, %d held out; catalogue values): notebook path held-out |error| "
  .. "median %.1f%%, p90 %.1f%%; plain user call median %.1f%%, p90 %.1f%%; largest "
  .. "plain/notebook difference %.2g; %.1f s", nrows, #en, 100 * F.median(en), 100 * F.p90(en),
  100 * F.median(ep), 100 * F.p90(ep), worst, os.clock() - t0))
