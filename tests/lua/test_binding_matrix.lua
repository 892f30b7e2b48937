-- test_binding_matrix.lua — one matrix of good and bad arguments through the backend
-- (`dlbench.core`): every call's results or error message is written as one canonical line,
-- and the transcript must equal tests/golden/binding_matrix.txt. The test runs under both
-- backends (dlbench's C API and LuaJIT's FFI), so both must give identical results and
-- identical errors, and no bad argument may crash either. Rewrite the golden file (after
-- checking the differences) with DLB_MATRIX_WRITE=1 build/bin/dlbench run <this file>.
-- Also: the regression cases of issue 18 items 1-3 (crashes on nil handles, on numbers in
-- name arrays under a collecting GC, on unchecked array lengths).
local T = require "harness"
local dlb = require "dlbench"
local core = dlb.core

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local golden = here .. "/../golden/binding_matrix.txt"

---------------------------------------------------------------- canonical text
local names = {}
local function esc(s)
  return '"' .. s:gsub('[%c"\\\128-\255]', function(c) return string.format("\\%03d", c:byte()) end) .. '"'
end
local function show(v, depth)
  depth = depth or 0
  if names[v] then return names[v] end
  local t = type(v)
  if t == "number" then
    if v ~= v then return "nan" end
    local t15 = string.format("%.15g", v)
    if tonumber(t15) == v then return t15 end
    return string.format("%a", v) -- exact (LuaJIT's %.17g rounds decimal ties another way)
  elseif t == "string" then
    return esc(v)
  elseif t == "table" then
    if depth > 3 then return "{...}" end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      if type(a) == type(b) then return a < b end
      return type(a) < type(b)
    end)
    local parts = {}
    for _, k in ipairs(keys) do
      local ks = type(k) == "number" and "" or (k .. "=")
      parts[#parts + 1] = ks .. show(v[k], depth + 1)
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  elseif t == "userdata" or t == "cdata" then
    return "<handle>"
  end
  return tostring(v)
end

-- stress: the matrix's collector stress (below) is on; the collector then runs only around
-- the binding call itself, not while this file formats the transcript
local stress = false
local function call(name, args, n)
  local parts = {}
  for i = 1, n do parts[i] = show(args[i]) end
  local text = name .. "(" .. table.concat(parts, ", ") .. ")"
  local function pack(...) return { n = select("#", ...), ... } end -- nils among results count
  if stress then
    collectgarbage("restart")
    repeat until collectgarbage("step", 0) -- a whole cycle ends just before the call
  end
  local r = pack(pcall(core[name], (table.unpack or unpack)(args, 1, n)))
  if stress then collectgarbage("stop") end
  if r[1] then
    local out = {}
    for i = 2, r.n do out[#out + 1] = show(r[i]) end
    return text .. " -> " .. table.concat(out, ", ")
  end
  return text .. " !! " .. tostring(r[2])
end

---------------------------------------------------------------- the objects
local P = core.poly_parse("2*h^2 + b")
local G = core.graph_new("m")
local X = core.graph_tensor(G, "x", 0, 0, { "b", 4 })
local W = core.graph_tensor(G, "w", 2, 0, { 4, 3 })
local MATMUL = core.graph_op_type("matmul")
core.graph_op(G, MATMUL, "mm", { X, W })
local A = core.graph_analyze(G, 0, 0, 0, 0, true, { "b" }, { 2 })
local OC = core.roofline_opcosts_new({ 1e9, 2e9 }, { 1e6, 1e8 })
local F = core.plot_figure_new(4, 3, 1, 1)
local DEV = { peak = 1e12, bw = 1e11 }
local LINK = { bw = 1e10, latency = 1e-6 }
names[P], names[G], names[A], names[OC], names[F] = "<P>", "<G>", "<A>", "<OC>", "<F>"
local LAYER = { flops_fwd = 1e9, flops_bwd = 2e9, bytes_sample = 1e6, params = 1e6, act_out = 1e4,
  act_kept = 1e5, tp_bytes = 1e4, tp_colls = 2, tp_div = 4 }
local LAYERS = { LAYER, LAYER, LAYER, LAYER }
local CLUSTER = { per_node = 4, nodes = 2, intra = LINK, inter = { bw = 1e9, latency = 1e-5 } }
names[DEV], names[LINK], names[LAYERS], names[CLUSTER] = "<DEV>", "<LINK>", "<LAYERS>", "<CLUSTER>"
-- one op per layer for the planner's per-op timing: 20 numbers each (dlb_par_op's fields)
local OPS = {}
for l = 0, 3 do
  for _, v in ipairs { l, 0, 1e9, 0, 1e6, 0, 64, 64, 64, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0 } do OPS[#OPS + 1] = v end
end
local TR = core.trace_parse('{"traceEvents": [{"name": "mm", "ph": "X", "cat": "kernel", "ts": 1, ' ..
  '"dur": 2, "pid": 0, "tid": 1}, {"name": "relu", "ph": "X", "ts": 4, "dur": 1, "pid": 0, "tid": 1}]}')
local G2 = core.graph_new("f") -- its own graph: G gains unbound dims from the calls below
core.graph_op(G2, MATMUL, "mm", { core.graph_tensor(G2, "x", 0, 0, { "b", 4 }),
  core.graph_tensor(G2, "w", 2, 0, { 4, 3 }) })
names[G2] = "<G2>"
local MZ = core.minimizer_new({ 0 }, { 1 }, { -1 }, { 1 }, 1e-9, 10)
local ONNX = here .. "/../fixtures/onnx/output_shape.onnx"
local HF = here .. "/../fixtures/hf/gpt2.json"
names[OPS], names[TR], names[MZ], names[ONNX], names[HF] = "<OPS>", "<TR>", "<MZ>", "<ONNX>", "<HF>"
-- a compiled program over G2 (forward only: G2 has no loss) and reductions
local INF = { optimizer = 0, precision = 0, recompute = 0, recompute_k = 0, inference = 1, fuse = 0 }
local SP = core._sweep_prog_new({ "b" }, false)
core._sweep_prog_add(SP, G2, INF, 1)
core.sweep_prog_finish(SP)
-- an unfinished program with one graph, for sweep_prog_logits
local SPL = core._sweep_prog_new({ "b" }, false)
core._sweep_prog_add(SPL, G2, INF, 1)
local PL = core.poly_parse("1000*b")
local RD = core.reduce_new(3)
-- a row of dlb_sweep_eval over SP: 1 symbol, the device, the DLB_SWC_ outputs
local RDROW = core.reduce_new(2 + #require("dlbench.desc").enum("DLB_SWC_"))
names[INF], names[SP], names[RD], names[RDROW] = "<INF>", "<SP>", "<RD>", "<RDROW>"
names[SPL], names[PL] = "<SPL>", "<PL>"

-- Good calls: every argument of each is then replaced by each of BAD in turn.
local good = {
  { "poly_parse", "2*h + 1" }, { "poly_number", 3.5 }, { "poly_add", P, P }, { "poly_sub", P, P },
  { "poly_mul", P, P }, { "poly_scale", P, 2 }, { "poly_pow", P, 2 }, { "poly_tostring", P },
  { "poly_vars", P }, { "poly_evalv", P, { 1, 2 } }, { "poly_evalt", P, { b = 1, h = 2 } },
  { "poly_bind", P, { "h" }, { 3 } }, { "poly_number_value", P }, { "poly_equal", P, P },
  { "poly_degree", P }, { "poly_terms", P },
  { "hw_precision_id", "fp16" }, { "hw_precision_bytes", "bf16" }, { "hw_precisions" },
  { "graph_new", "g" }, { "graph_tensor", G, "t", 0, 0, { "b", 4 } },
  { "graph_op", G, MATMUL, "mm2", { X, W }, nil, nil }, { "graph_op1", G, MATMUL, nil, X, W },
  { "graph_opx", G, core.graph_op_type("reshape"), nil, X, nil, nil, { "b", 2, 2 } },
  { "graph_linear", G, X, 5, true, "lin", 1 },
  { "graph_norm", G, core.graph_op_type("layernorm"), X, "ln", 2 },
  { "graph_op_type", "relu" }, { "graph_op_type_name", MATMUL }, { "graph_layer", G, "l1" },
  { "graph_repeat", G, 0, 1, 0, 1, "none", "l1" }, -- refused (no layer "none"): G unchanged
  { "graph_checkpoint", G, X }, { "graph_counts", G }, { "graph_vars", G }, { "graph_generation", G }, { "graph_tensor_info", G, X },
  { "graph_dot", G }, { "graph_convention" },
  { "graph_analyze", G, 0, 0, 0, 0, true, { "b" }, { 2 } },
  { "graph_symbolic", G, 0, 0, 0, 0, true, {}, {} },
  { "graph_symbolic_type", G, "matmul", {}, {} },
  { "graph_attention_count", G }, { "graph_symbolic_attention", G, -1, {}, {} },
  { "graph_symbolic_attention", G, 2, {}, {} }, -- refused: which is -1, 0 or 1
  { "analysis_totals", A }, { "analysis_arrays", A }, { "analysis_op_name", A, 0 }, { "analysis_op_match", A, "mm" },
  { "analysis_gemm", A, 0 }, { "analysis_gemms", A }, { "table_new", 4 }, { "analysis_layers", A }, { "analysis_layer", A, 0 },
  { "analysis_update_tensors", A, 0, 65536 }, { "analysis_update_tensors", A, 1, 65536 }, { "analysis_step_peak", A }, { "analysis_act_peak", A }, { "analysis_step_loss", A },
  { "analysis_schedule", A }, { "analysis_exact", A }, { "analysis_op_layer_placed", A }, { "analysis_op_saved", A },
  { "analysis_op_more", A },
  { "roofline_ridge", DEV, true }, { "roofline_attainable", DEV, 10 },
  { "roofline_time", DEV, 1e12, 1e9 }, { "gemm_traffic", 64, 64, 64, 1, 4, 1e6 },
  { "roofline_opcosts_new", { 1, 2 }, { 3, 4 } }, { "roofline_opcosts_from_analysis", A },
  { "roofline_opcosts_set_gemm", OC, 1, 8, 8, 8 }, { "roofline_opcosts_n", OC },
  { "roofline_opcosts_set_optim", OC, 1, 10, 11, true },
  { "roofline_opcosts_set_phase_sync", OC, true },
  { "roofline_ops", OC, DEV, true },
  { "stats_percentiles", { 3, 1, 2 }, { 50 } }, { "stats_mean", { 1, 2, 4 }, 1 },
  { "stats_box", { 1, 2, 3, 4, 100 }, 5, 25, 75, 95, false },
  { "stats_regress", { { 1, 2, 3, 4 } }, { 2, 4, 6, 8.5 }, { "x" }, { false }, 0 },
  { "stats_csv_parse", "a,b\n1,2\n", "," },
  { "scaling_fit", 0, { 1, 2, 4, 8 }, { 1, 0.5, 0.25, 0.125 }, nil },
  { "scaling_eval", 0, { 1, -1 }, 2 }, { "scaling_invert", 0, { 1, -1 }, 0.5 },
  { "scaling_bootstrap", 0, { 1, 2, 4, 8 }, { 1, 0.5, 0.26, 0.125 }, nil, 20, 1 },
  { "scaling_linfit", { 1, 1, 1, 2, 1, 3 }, 2, { 1, 2, 3 }, nil },
  { "scaling_compute_optimal", 1.69, 406.4, 410.7, 0.34, 0.28, 1e21, 6 },
  { "plot_series_new", F, 0, 0 }, { "plot_figure_num", F, "dpi", 100 },
  { "plot_panel_str", F, 0, "title", "t" }, { "plot_panel_ticks", F, 0, 0, { 1, 2 } },
  { "plot_series_options", 0, -1 }, { "plot_palette", 1 }, { "plot_cmap", "viridis", 0.5 },
  { "plot_ticks", 0, 1, 5 }, { "plot_tick_format", 0.5, 0.1, "plain" },
  { "plot_to_point", F, 0, 0.5, 0.5 }, { "plot_png_size", "/nonexistent/x.png" },
  { "proc_signame", 9 }, { "proc_isatty", -1 }, { "proc_read", -1, 16 },
  { "parallel_collective", 0, 0, 1e6, 8, 0, LINK },
  { "parallel_allreduce_hier", 1e6, 4, 2, 0, LINK, LINK },
  { "parallel_allreduce_cluster", 1e6, 8, 0, { per_node = 4, nodes = 2, intra = LINK, inter = LINK } },
  { "parallel_nccl", 0, 1e6, { ranks = 16, nodes = 2, bw_intra = 300e9, bw_inter = 100e9, nvlink = 3 } },
  { "parallel_nccl_topo", { per_node = 8, nodes = 2, intra = LINK, inter = LINK, nics = 4, nvlink = 3 }, 16, 8 },
  { "parallel_alltoall_cluster", 1e6, 8, 1, { per_node = 4, nodes = 2, intra = LINK, inter = LINK } },
  { "parallel_partition", { 1, 2, 3, 4 }, 2 }, { "parallel_bubble", 0, 4, 8, 1 },
  { "parallel_model_new", LAYERS, OPS },
  { "parallel_model_evaluate", core.parallel_model_new(LAYERS, OPS), { peak = 1e12, mem_bw = 1e11, mem = 16e9 }, CLUSTER,
    { batch = 32, w_bytes = 2, g_bytes = 2, o_bytes = 12 }, { dp = 2, tp = 1, pp = 2, m = 4, v = 1 } },
  { "parallel_evaluate", LAYERS, { peak = 1e12, mem_bw = 1e11, mem = 16e9 }, CLUSTER,
    { batch = 32, w_bytes = 2, g_bytes = 2, o_bytes = 12 }, { dp = 2, tp = 1, pp = 2, m = 4, v = 1 } },
  { "parallel_plan", LAYERS, { peak = 1e12, mem_bw = 1e11, mem = 16e9 }, CLUSTER,
    { batch = 32, w_bytes = 2, g_bytes = 2, o_bytes = 12 } },
  { "parallel_amdahl", 0.1, 8 }, { "parallel_amdahl_fit", { 1, 2, 4 }, { 1, 1.8, 3 } },
  { "parallel_zero_split", 2, 8 }, { "parallel_zero_split", 3, 1 },
  { "parallel_evaluate", LAYERS, { peak = 1e12, mem_bw = 1e11, mem = 16e9 }, CLUSTER,
    { batch = 32, w_bytes = 2, g_bytes = 2, o_bytes = 12 }, { dp = 2, tp = 1, pp = 2, m = 4, v = 1 }, OPS },
  { "parallel_plan", LAYERS, { peak = 1e12, mem_bw = 1e11, mem = 16e9 }, CLUSTER,
    { batch = 32, w_bytes = 2, g_bytes = 2, o_bytes = 12 }, OPS },
  { "parallel_data", { flops_sample = 1e9, bytes_sample = 1e6, grad_bytes = 1e8 },
    { peak = 1e12, mem_bw = 1e11 }, CLUSTER, { workers = 8, batch = 64 } },
  { "graph_analyze", G2, 0, 0, 0, 0, true, { "b" }, { 2 }, 7 },
  { "roof_defaults" }, { "roof_check", DEV }, { "roofline_op_time", DEV, 1e9, 1e6, { 64, 64, 64, 1 } },
  { "roofline_ops_attn", DEV, { 1e9, 1e8 }, { 1e6, 1e7 }, { 64, 64, 64, 1, 0, 0, 0, 0 }, { 0, 1 } },
  { "roofline_op_time_run", DEV, 1e6, 1e3, 1e5, 1e4, 0, 100, 50, true, 1e-6 },
  { "roofline_step_memory", 0, 1e9, 1e9, 2e9, 1e9, 0 },
  { "roofline_step_temporaries", 3e9, 1e9 }, { "proc_term_width", -1 },
  { "optim_chunk" }, { "optim_mta_launches", 40, 700, 4, false },
  { "optim_launches", 2, 40, 700, 0, 0, false }, { "optim_launches", 1, 40, 700, 10, 11, true },
  { "energy_tables" }, { "energy_precisions", "45nm" }, { "energy_cost", "45nm", "fp32" },
  { "energy_step", 0.9, 3.7, 1, 5, 640, 4, 1e9, 1e6, 1e6, 1e6 },
  { "trace_parse", '{"traceEvents": []}' }, { "trace_read", "/nonexistent/trace.json" },
  { "trace_count", TR }, { "trace_numbers", TR, 1 }, { "trace_strings", TR, 1 },
  { "trace_check_event", 3, "mm", 1.5 },
  { "minimizer_new", { 0, 0 }, { 1, 1 }, { -1, -1 }, { 1, 1 }, 1e-9, 10 },
  { "minimizer_ask", MZ }, { "minimizer_tell", MZ, 1 }, { "minimizer_best", MZ },
  { "onnx_read", ONNX, 0, 0 }, { "json_read", HF },
  -- (the file writers are left out: BAD's strings would be written as files here)
  { "file_read", HF, 64 }, { "file_read", here .. "/../fixtures/no-such-file", 64 },
  { "text_checksum", "" }, { "text_checksum", "a" }, { "text_checksum", "foobar" },
  { "json_parse", '{"a": [1, 2, {"b": null, "c": "x"}], "d": true}', "doc" },
  -- last: it changes G
  { "graph_freeze", G, W, true }, { "graph_own_type", G, W, true }, { "graph_set_dtype", G, W, 9 },
  { "optimizer_update_flops", 2 }, { "optimizer_state_bytes", 5, { 64, 32 } },
  { "_sweep_prog_new", { "b", "q" }, true }, { "_sweep_prog_add", core._sweep_prog_new({ "b" }, false), G2, INF, 1 },
  { "sweep_prog_logits", SPL, PL }, { "sweep_prog_optim", SP, 2 },
  { "sweep_prog_phase_sync", SP, true },
  { "sweep_prog_finish", SP }, { "sweep_prog_nclasses", SP }, { "sweep_prog_totals", SP, { 2 } },
  { "sweep_prog_time", SP, { 2 }, DEV }, { "sweep_prog_serve", SP, { 2 }, DEV, DEV, 1e-6 },
  { "sweep_serve_refusal", DEV },
  { "_sweep_eval", SP, { 2 }, { 2, 4 }, { DEV }, { 0, 0, 4, 1e10, 0, 0, 0, 0 }, {}, 1, 0, RDROW, 1 },
  -- refused (RDROW keeps no rows): the arguments' checks still run first
  { "_sweep_keep", SP, { 2 }, { 2, 4 }, { DEV }, { 0, 0, 4, 1e10, 0, 0, 0, 0 }, {}, 1, 0, RDROW, string.rep("0", 128) },
  { "reduce_new", 3 }, { "reduce_keep", RD, 100 }, { "_reduce_pareto", RD, { 0, 1 }, { 0, 1 }, -1 },
  { "_reduce_top", RD, 2, 0, false, -1 }, { "_reduce_bins", RD, 0, { 0, 1, 2 }, -1, nil, 1, 2, -1 },
  { "_reduce_group", RD, { 0 }, { 1 }, -1 }, { "_reduce_push", RD, 1, { 1, 2, 3 }, 0 },
  { "_reduce_add", RD, 2, 0, 1, { 7, 1, 2, 3 } },
  { "_reduce_keep_text", RD, 0, 1 }, -- RD's first kept (pushed) row: its index and 3 numbers
  { "_reduce_keep_add_text", RD, 1, string.rep("0", 64) }, -- a row of zeros at index 0
  { "reduce_seen", RD }, { "_reduce_size", RD, 1, 0 }, { "_reduce_column", RD, 1, 0, 0, 0, 1 },
  { "sys_malloc_tune" },
}

local BAD = { nil, true, "x", 1.5, -1, {}, { 1, "a" }, P, G }
local NBAD = 9 -- BAD holds a nil: count by hand

local lines = {}
T.test("the matrix runs on this backend without a crash", function()
  -- The collector runs between every few allocations of a binding call (setpause 0: it
  -- never pauses, each allocation runs it), so that a temporary a binding leaves
  -- unanchored is freed while the call still uses it. ASan (the sanitizer flavour:
  -- ASAN_OPTIONS is set by tests/run.sh) reports such a use at once, and LuaJIT's collector
  -- makes the stress cheap (0.4 s); under the release Lua 5.4 host, where a use after free
  -- could only show as a changed transcript line, it cost 7.5 s, so that run takes
  -- generational minor collections instead (about one every six calls, freeing the young
  -- objects, which such temporaries are). Under ASan (Lua 5.4) the collector is stopped
  -- while this file formats each call's arguments and results (`stress` in call): it ran
  -- 126,000 whole cycles there against 14,000 inside the 4,759 calls, about 10 of the
  -- sanitizer run's 15 CPU-s. A cycle ends just before each call (every call then sees at
  -- least one whole cycle inside it: 4,759 calls against 4,742 before; BENCHMARKS.md "The
  -- whole suite"). LuaJIT keeps the plain stress: its cycle before each call cost more
  -- than its stress saved (1.5 -> 2.9 CPU-s).
  if os.getenv("ASAN_OPTIONS") or dlb.backend == "ffi" then
    collectgarbage("setpause", 0)
    if dlb.backend ~= "ffi" then
      collectgarbage("stop")
      stress = true
    end
  else
    collectgarbage("generational", 1, 100)
  end
  local ok, err = xpcall(function()
    for _, c in ipairs(good) do
      local name, n = c[1], #c - 1
      for i = 1, 8 do if c[i + 1] ~= nil then n = math.max(n, i) end end
      local args = {}
      for i = 1, n do args[i] = c[i + 1] end
      lines[#lines + 1] = call(name, args, n)
      for i = 1, n do
        for b = 1, NBAD do
          local bad = {}
          for k = 1, n do bad[k] = args[k] end
          bad[i] = BAD[b]
          lines[#lines + 1] = call(name, bad, n)
        end
      end
    end
  end, debug.traceback)
  stress = false
  collectgarbage("restart")
  pcall(collectgarbage, "incremental") -- Lua 5.4's default mode back (LuaJIT has one)
  collectgarbage("setpause", 200)
  if not ok then error(err, 0) end
end)

---------------------------------------------------------------- the derived lists
-- The lists the Lua library derives from the one description (lua/dlbench/desc.lua over the
-- generated desc_gen.lua, and the C functions behind the backend) go into the transcript,
-- so a header change shows here on both backends; each is also checked against C.
T.test("the lists derived from the headers equal what C says", function()
  local desc = require "dlbench.desc"
  local function same(a, b, what)
    T.eq(table.concat(a, ","), table.concat(b, ","), what)
  end
  local function line(what, list) lines[#lines + 1] = "derived " .. what .. " = " .. show(list) end
  -- enums: the names in value order, and the library's own names for them
  local prec = desc.enum("DLB_PREC_")
  line("desc.enum DLB_PREC_", prec)
  same(prec, core.hw_precisions(), "precisions: the enum's names are dlb_precision_name's")
  same(dlb.hw.precisions, prec, "dlb.hw.precisions")
  local opt = desc.enum("DLB_OPT_")
  line("desc.enum DLB_OPT_", opt)
  same(require("dlbench.models.common").OPTIMIZERS, opt, "the zoo's optimizers")
  for _, prefix in ipairs { "DLB_POLICY_", "DLB_SCHED_", "DLB_ROLE_", "DLB_DT_", "DLB_PHASE_",
                            "DLB_COLL_", "DLB_ALGO_", "DLB_FORM_", "DLB_ONNX_LOSS_", "DLB_SERIES_" } do
    local list, byname = desc.enum(prefix)
    line("desc.enum " .. prefix, list)
    local cbyname = core.enum_names(prefix)
    for name, v in pairs(cbyname) do T.eq(byname[name], v, prefix .. name) end
  end
  for k, name in ipairs(desc.enum("DLB_SERIES_")) do
    T.eq(core.plot_series_options(k - 1, -1), name, "series kind " .. (k - 1))
  end
  line("desc.block DLB_ONNX_OPSET", desc.block("DLB_ONNX_OPSET", "DLB_ONNX_"))
  line("desc.block DLB_TRACE_TS", desc.block("DLB_TRACE_TS", "DLB_TRACE_"))
  line("desc.block DLB_TRACE_NAME", desc.block("DLB_TRACE_NAME", "DLB_TRACE_"))
  line("desc.fields dlb_par_work", desc.fields("dlb_par_work"))
  line("desc.fields dlb_par_row", desc.fields("dlb_par_row"))
  for _, c in ipairs(dlb.trace.columns) do
    assert(desc.const("DLB_TRACE_" .. c:upper()), "trace column " .. c .. " is a DLB_TRACE_ constant")
  end
  -- struct fields: the generated description has every field C's defaults fill
  local roof = desc.fields("dlb_roof")
  line("desc.fields dlb_roof", roof)
  local dflt, nd = core.roof_defaults(), 0
  for _ in pairs(dflt) do nd = nd + 1 end
  T.eq(nd, #roof, "dlb_roof: as many fields as roof_defaults returns")
  for _, f in ipairs(roof) do assert(dflt[f] ~= nil, "roof_defaults has " .. f) end
  line("desc.struct dlb_roof annotations", { init = desc.struct("dlb_roof").init,
    required = desc.struct("dlb_roof").required, alias = desc.struct("dlb_roof").alias })
  -- the Lua library's lists derived from them
  line("dlb.hw.roof_fields", dlb.hw.roof_fields)
  line("dlb.hw.csv_columns", dlb.hw.csv_columns)
  local r = dlb.hw.get("H100"):roof("bf16")
  for _, f in ipairs(dlb.hw.roof_fields) do
    assert(f == "mem" or r[f] ~= nil, "hw:roof sets " .. f)
  end
  local pd = dlb.parallel.device { peak = 1e12, mem_bw = 1e9, sm_count = 3, gemm_tile_m = 64 }
  T.eq(pd.sm_count, 3, "dlb.parallel.device reads dlb_roof's fields by name")
  T.eq(pd.gemm_tile_m, 64, "gemm_tile_m")
end)

T.test("both backends: identical results and errors (tests/golden/binding_matrix.txt)", function()
  local text = table.concat(lines, "\n") .. "\n"
  if os.getenv("DLB_MATRIX_WRITE") == "1" then
    local f = assert(io.open(golden, "wb"))
    f:write(text)
    f:close()
  end
  local f = assert(io.open(golden, "rb"))
  local want = f:read("*a")
  f:close()
  if text == want then return end
  local got = {}
  for l in text:gmatch("[^\n]*") do got[#got + 1] = l end
  local i = 0
  for l in want:gmatch("[^\n]*") do
    i = i + 1
    if got[i] ~= l then
      error(string.format("line %d differs (%s backend):\n  want %s\n  got  %s", i, core.name, l,
        tostring(got[i])), 0)
    end
  end
  error("transcripts differ in length", 0)
end)

---------------------------------------------------------------- issue 18, items 1-3
T.test("nil handles and strings raise clear errors (no crash)", function()
  local g = dlb.graph("m")
  local x = g:input("x", { "b", 4 })
  g:matmul(x, g:weight("w", { 4, 2 }))
  -- dot for colon: the module names the mistake; the backend below it refuses the nil handle
  T.checkerr("g:stats: call it as g:stats(...) with a colon", g.stats, { b = 32 })
  T.checkerr("bad argument #1 to 'graph_analyze' (dlbench.Graph expected, got nil)",
    core.graph_analyze, nil, 0, 0, 0, 0, true, { "b" }, { 32 })
  T.checkerr("bad argument #1 to 'graph_op_type' (string expected, got nil)", g.type_flops, g, nil)
  T.checkerr("g:nops: call it as g:nops(...) with a colon", g.nops, {})
  T.checkerr("bad argument #1 to 'graph_ntensors' (dlbench.Graph expected, got nil)", core.graph_counts, nil)
  T.checkerr("g:dot: call it as g:dot(...) with a colon", g.dot, {})
  T.checkerr("bad argument #1 to 'graph_dot' (dlbench.Graph expected, got nil)", core.graph_dot, nil)
  T.checkerr("bad argument #1 to 'poly_tostring' (dlbench.Poly expected, got nil)",
    core.poly_tostring, nil)
  local w = dlb.poly.wrap(nil)
  T.checkerr("dlbench.Poly expected, got nil", function() return tostring(w) end)
  T.checkerr("dlbench.Poly expected, got nil", function() return w + w end)
  T.checkerr("dlbench.Poly expected, got nil", function() return w:vars() end)
end)

T.test("numbers among binding names live until the call returns", function()
  local p = core.poly_parse("a + b")
  local names, values = {}, {}
  for i = 1, 2000 do names[i] = i + 0.5; values[i] = i end
  collectgarbage("setpause", 0)
  collectgarbage("setstepmul", 1000)
  for _ = 1, 5 do
    local q = core.poly_bind(p, names, values)
    T.eq(core.poly_tostring(q), "a + b", "no name matches")
  end
  collectgarbage("setpause", 200)
  collectgarbage("setstepmul", 200)
end)

-- Review 10: a numeric string ("2") in a table of numbers was read as the number on both
-- backends (Lua's coercion in the C API, tonumber in the FFI runtime), where a number
-- argument refuses it; now both refuse it, in the same words (the matrix's bad list holds
-- {1, "a"}, not a numeric string).
T.test("a numeric string in a table of numbers is refused, in the same words", function()
  T.checkerr("list[2] is a string, not a number", core.stats_mean, { 1, "2", 3 }, 1)
  T.checkerr("list[2] is a string, not a number", core.stats_percentiles, { 3, "1", 2 }, { 50 })
  T.checkerr("[1] is a string, not a number", core.stats_percentiles, { 3, 1, 2 }, { "50" })
  T.checkerr("[3] is a string, not a number", core.poly_evalv, core.poly_parse("a + b"), { 1, 2, "3" })
  T.checkerr("dlb.stats.median: list[1] is a string, not a number", dlb.stats.median, { "1", 2, 3 })
end)

T.test("array arguments are checked against what C expects", function()
  local p = core.poly_parse("a + b")
  T.checkerr("table of strings expected, got string", core.poly_bind, p, "abcdef", { 1 })
  T.checkerr("values has 1 values but names has 2", core.poly_bind, p, { "a", "b" }, { 1 })
  T.checkerr("table of strings expected, got string", core.graph_analyze, core.graph_new("g"),
    0, 0, 0, 0, false, "abc", "def")
  T.checkerr("table of numbers expected, got number", core.poly_evalv, p, 12)
  T.checkerr("1 values, 2 expected", core.poly_evalv, p, { 1 })
  local many = {}
  for i = 1, 100000 do many[i] = i end
  T.checkerr("more than 16 values", core.poly_evalv, p, many)
  -- a __len of -1 (or any) is not trusted: arrays are read by their raw length
  local dims = setmetatable({ "b", 4 }, { __len = function() return -1 end })
  local g = core.graph_new("g")
  local x = core.graph_tensor(g, "x", 0, 0, { "b", 4 })
  local ok = pcall(core.graph_op, g, core.graph_op_type("reshape"), nil, { x }, nil, dims)
  T.eq(ok, true, "reshape with a __len -1 dims table reads its 2 raw entries")
end)

T.test("table_new's n is a hint: a huge one does not commit gigabytes", function()
  -- table_new(2^30) made room for 2^30 slots (16 GiB faulted in: 90 s of the API fuzzer's
  -- run); the room is capped at 2^24 slots, the table grows past it as any table. Checked
  -- by the collector's byte count (deterministic, unlike a wall-time bound): with the
  -- collector stopped, a table's array part adds its slots' bytes to collectgarbage("count")
  -- (Lua 5.4: 16 bytes a slot, LuaJIT: 8). First that the count sees the room at all
  -- (table_new(2^20): at least 2^20 x 8 bytes; the bytes a slot measured from it), then that
  -- 2^30 makes at most the cap's 2^24 slots (+ 1 MiB for the table itself): 256 MiB under
  -- Lua 5.4, 128 MiB under LuaJIT; uncapped it would be 16 GiB (a cap of 2^25 fails too).
  local function grown_kib(n)
    collectgarbage("collect")
    collectgarbage("stop")
    local before = collectgarbage("count")
    local t = core.table_new(n)
    local grew = collectgarbage("count") - before
    collectgarbage("restart")
    return grew, t
  end
  local small = grown_kib(2 ^ 20)
  assert(small >= 2 ^ 20 * 8 / 1024, "table_new(2^20) grew the heap by only " .. small .. " KiB")
  local slot = small * 1024 / 2 ^ 20   -- bytes a slot (and a little of the table's header)
  local big, t = grown_kib(2 ^ 30)
  assert(big <= (2 ^ 24 * slot + 2 ^ 20) / 1024, "table_new(2^30) grew the heap by " .. big
    .. " KiB (the cap, 2^24 slots of " .. slot .. " bytes, is " .. 2 ^ 24 * slot / 1024 .. " KiB)")
  T.eq(next(t), nil, "empty")
  t[2 ^ 24 + 1] = 1
  T.eq(t[2 ^ 24 + 1], 1, "grows past the cap")
  t = nil
  collectgarbage("collect")
  T.checkerr("table_new", core.table_new, -1)
end)

T.done()
