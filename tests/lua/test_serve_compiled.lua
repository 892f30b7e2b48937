-- test_serve_compiled.lua — dlb.serve's sweep through the compiled path (serve_graph.lua's
-- M.compiled; graphs/sweep/sweep_serve.c, dlb_sweep_prog_serve): the prefill and decode
-- step graphs built with their batch, context and touched experts symbolic, compiled as the
-- training sweeps compile a step, and timed per configuration in C with serving's per-op
-- and launch model. The compiled answers must equal the per-configuration graph path
-- (dlb.serve.sweep{compiled = false}: each step's graph entries timed by time_list, the
-- reference) within 1e-9 relative, on a random sample of configurations (a fixed seed)
-- of a dense model (Llama-2-7B), a GQA model (Llama-3-8B), a sliding-window model
-- (Mistral-7B), an MoE model (Mixtral-8x7B), under tp = 2 and 4, pp = 2, int4 and fp8
-- weights, fp8 KV, CUDA graphs, serial launches. Also dlb_sweep_prog_serve's own rules on
-- a hand-built program, and its bad input. Runs on both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"
local S = dlb.serve

local SM = require "serve_models"
-- Mistral with a small window (600 tokens) so that the sampled contexts cross it
local L7, L3, MI, MX = SM.models(600)
local rel = SM.rel

-- A pseudo-random sample (a fixed linear congruential sequence: the same on both backends).
local seed = 12345
local function rand(lo, hi)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return lo + seed % (hi - lo + 1)
end

local COLS = { "ttft", "tpot", "latency", "tokens_per_s", "tokens_per_s_gpu" }
local function compare(what, opts)
  local a = S.sweep(opts)
  local o2 = {}
  for k, v in pairs(opts) do o2[k] = v end
  o2.compiled = false
  local b = S.sweep(o2)
  T.eq(a:count(), b:count(), what .. " rows")
  local worst = 0
  for _, col in ipairs(COLS) do
    local x, y = a:column(col), b:column(col)
    for i = 1, #x do
      local r = rel(x[i], y[i])
      if r > worst then worst = r end
      if r > 1e-9 then
        error(string.format("%s row %d %s: compiled %.17g, graph path %.17g", what, i, col, x[i], y[i]), 2)
      end
    end
  end
  for i, f in ipairs(a:column("fits")) do T.eq(f, b:column("fits")[i], what .. " fits") end
  return a:count(), worst
end

T.test("the compiled sweep equals the per-configuration graph path within 1e-9 (random sample)", function()
  local cases = {
    { "llama-2-7b", L7, {} },
    { "llama-3-8b GQA, int4 weights, fp8 KV", L3, { weights = "int4", kv = "fp8" } },
    { "llama-3-8b tp = 2", L3, { tp = 2 } },
    { "llama-2-7b tp = 4, fp8 weights, CUDA graphs", L7, { tp = 4, weights = "fp8", cuda_graphs = true } },
    { "llama-2-7b serial launches, fused", L7, { launch = "serial", fused = true } },
    { "llama-2-7b pp = 2", L7, { pp = 2 } },
    { "mistral sliding window", MI, { kv = "fp8" } },
    { "mixtral MoE", MX, { tp = 2 } },
    { "mixtral MoE int4", MX, { weights = "int4", tp = 4 } },
  }
  local rows = 0
  for _, cs in ipairs(cases) do
    local bs, ps, os_ = {}, {}, {}
    for i = 1, 3 do bs[i] = rand(1, 64) end
    for i = 1, 2 do ps[i] = rand(1, 1500) end
    for i = 1, 3 do os_[i] = rand(1, 700) end
    os_[4] = 1
    local o = { model = cs[2], hw = "H100-SXM", batch = bs, prompt = ps, output = os_ }
    for k, v in pairs(cs[3]) do o[k] = v end
    rows = rows + compare(cs[1], o)
  end
  T.eq(rows, 9 * 24, "rows compared")
  -- a sweep over tp, weights and kv lists, and a device of another vendor
  compare("lists", { model = L3, hw = "A100-80GB", batch = { 1, 8 }, prompt = { 128 },
    output = { 64 }, tp = { 1, 2 }, weights = { "fp16", "int8" }, kv = { "fp16", "fp8" } })
end)

T.test("dlb_sweep_prog_serve: the per-op rule per class, the launch floor, attention on its own device", function()
  -- one kernel of b x 1e9 FLOPs and 1e6 bytes and one attention kernel of p x 1e6 FLOPs,
  -- 2e6 bytes, counted twice: a hand-built graph compiled over b and p
  local g = dlb.graph("two")
  local x = g:input("x", { "b", 4 })
  local y = g:kernel({ x }, { "b", 4 }, { flops = "1000000000*b", bytes = 1e6 })
  local z = g:kernel({ y }, { "b", 4 }, { flops = "1000000*p", bytes = 2e6, attention = true })
  g:kernel({ z }, { "b", 4 }, { flops = "1000000*p", bytes = 2e6, attention = true })
  local prog = core._sweep_prog_new({ "b", "p" }, false)
  core._sweep_prog_add(prog, g._h, (g:step_options { inference = true }), 1)
  core.sweep_prog_finish(prog)
  local op = { peak = 1e12, bw = 1e11, flops_eff = 1, bw_eff = 1 }
  local at = { peak = 2e12, bw = 1e11, flops_eff = 1, bw_eff = 1, attn_eff = 0.5 }
  local out = core.sweep_prog_serve(prog, { 3, 5000 }, op, at, 0)
  -- op: max(3e9 / 1e12, 1e6 / 1e11) = 3e-3 s; attention: max(5e9 / (2e12 x 0.5), 2e6 / 1e11)
  -- = 5e-3 s, twice
  T.near(out[1], 3e-3 + 2 * 5e-3, 1e-12, "time")
  T.near(out[2], 3e9 + 2 * 5e9, 1e-12, "flops")
  T.near(out[3], 1e6 + 2 * 2e6, 1e-12, "bytes")
  T.near(out[4], 1e-2, 1e-12, "attention time")
  T.eq(out[5], 1, "one attention class"); T.eq(out[6], 5e9, "its FLOPs"); T.eq(out[7], 2e6, "its bytes")
  T.eq(out[8], 2, "two attention ops"); T.eq(out[9], 3, "three kernels")
  -- a launch floor of 4 ms: the op (3 ms) takes 4 ms, the attention kernels (5 ms) keep theirs
  T.near(core.sweep_prog_serve(prog, { 3, 5000 }, op, at, 4e-3)[1], 4e-3 + 1e-2, 1e-12, "floor")
  -- a context of 0 is a point (the attention then moves its bytes only: 2e6 / 1e11 s)
  T.near(core.sweep_prog_serve(prog, { 3, 0 }, op, at, 0)[1], 3e-3 + 2 * 2e-5, 1e-12, "p = 0")
  T.checkerr("p = -1 must be finite and >= 0", core.sweep_prog_serve, prog, { 3, -1 }, op, at, 0)
  T.checkerr("min_time = -1", core.sweep_prog_serve, prog, { 3, 1 }, op, at, -1)
  local host = { peak = 1e12, bw = 1e11, host_op = 1e-6 }
  T.checkerr("device op: host_op > 0 is not compiled", core.sweep_prog_serve, prog, { 3, 1 }, host, at, 0)
  -- host_layer alone (no host_op) is refused the same way, on either device
  T.checkerr("device attn: host_layer > 0 is not compiled", core.sweep_prog_serve, prog, { 3, 1 }, op,
    { peak = 1e12, bw = 1e11, host_layer = 1e-5 }, 0)
  T.checkerr("device op: host_layer > 0 is not compiled", core.sweep_prog_serve, prog, { 3, 1 },
    { peak = 1e12, bw = 1e11, host_layer = 1e-5 }, at, 0)
  T.checkerr("device attn: ", core.sweep_prog_serve, prog, { 3, 1 }, op, { peak = 1e12, bw = 1e11, flops_eff = 2 }, 0)
  local layered = core._sweep_prog_new({ "b" }, true)
  T.checkerr("not finished", core.sweep_prog_serve, layered, { 1, 1 }, op, at, 0)
end)

T.test("one refusal rule: core.sweep_serve_refusal is what sweep_prog_serve refuses by", function()
  -- serve_graph.lua asks the C rule (no Lua copy): each refused field's reason is the one the
  -- compiled step's message names, and a device without them is compiled
  T.eq(core.sweep_serve_refusal { peak = 1e12, bw = 1e11 }, nil, "plain device")
  T.eq(core.sweep_serve_refusal { peak = 1e12, bw = 1e11, host_op = 0, host_layer = 0 }, nil, "zeros")
  local g = dlb.graph("refusal")
  local x = g:input("x", { "b", 4 })
  g:kernel({ x }, { "b", 4 }, { flops = "1000000000*b", bytes = 1e6 })
  local prog = core._sweep_prog_new({ "b" }, false)
  core._sweep_prog_add(prog, g._h, (g:step_options { inference = true }), 1)
  core.sweep_prog_finish(prog)
  local ok = { peak = 1e12, bw = 1e11 }
  for _, f in ipairs { { "host_op", 1e-6, "host_op > 0" }, { "host_layer", 1e-5, "host_layer > 0" },
    { "cache_aware", true, "cache_aware" } } do
    local d = { peak = 1e12, bw = 1e11, [f[1]] = f[2] }
    T.eq(core.sweep_serve_refusal(d), f[3], f[1])
    T.checkerr("device op: " .. f[3] .. " is not compiled", core.sweep_prog_serve, prog, { 2 }, d, ok, 0)
  end
end)

T.test("calibration = \"validated\": the compiled sweep equals the graph path (issue 29)", function()
  -- the chip's CALIBRATED flops_eff (H100 fp8 and fp16, A100 fp16) and L40S, which has none
  local m = S.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 })
  for _, hw in ipairs { "H100-SXM", "A100-SXM4-80GB", "L40S" } do
    local n = compare(hw .. " validated", { model = m, hw = hw, batch = { 1, 16, 64 }, prompt = { 128, 2048 },
      output = { 1, 64 }, weights = { "fp16", "fp8" }, tp = { 1, 2 }, calibration = "validated" })
    T.eq(n, 48, hw .. " rows")
  end
end)

T.test("the sweep takes the compiled path; compiled = false the graphs'", function()
  local SG = require "dlbench.serve_graph"
  local m = S.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 }, { name = "fresh" })
  local n0 = SG.compiled_programs
  S.sweep { model = m, hw = "H100-SXM", batch = { 4, 8 }, prompt = { 100, 200 }, output = { 10 } }
  -- one decode program and one prefill program per prompt length
  T.eq(SG.compiled_programs - n0, 3, "programs compiled")
  S.sweep { model = m, hw = "H100-SXM", batch = { 4, 8 }, prompt = { 100, 200 }, output = { 10 } }
  T.eq(SG.compiled_programs - n0, 3, "kept")
  S.sweep { model = m, hw = "H100-SXM", batch = { 4 }, prompt = { 300 }, output = { 10 }, compiled = false }
  T.eq(SG.compiled_programs - n0, 3, "compiled = false compiles nothing")
  T.checkerr("unknown option 'compile'", S.sweep, { model = m, hw = "H100-SXM", compile = true })
end)

T.done()
