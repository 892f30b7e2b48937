-- bindings.lua — the one description of the backend functions (`dlbench.core`) both
-- backends offer. host/gen_bindings.lua turns it, with the enums and structs of the public
-- headers' marked regions, into the C-API glue (build/gen/lbind_gen.c) and the FFI glue
-- (lua/dlbench/ffi_gen.lua), whose checks live in host/lbind.c and lua/dlbench/ffi_rt.lua
-- with the same messages. See docs/architecture.md, "One area, one description".
--
-- A function:   name(arg: kind, ...) [-> result, ...] = [check [soft|soft(CODE)|nil(CODE)]] CALL
-- Argument kinds (every one checked before C sees it; "bad argument #i to 'name' (...)"):
--   poly graph analysis opcosts figure   a live handle of that type (never nil, never closed)
--   string                a string without NUL (a number is written as an integer or %.17g)
--   string?               a string, or nil (NULL)          bytes  a string and its length #x
--   number                a number; int / size: an integer within int / [0, 2^53]
--   int(LO..HI)           an integer in [LO, HI] (C expressions of earlier arguments; the
--                         message names the argument: "kernel must be 0..3")
--   bool                  any value, as Lua truth (0/1 for C)
--   numbers[MAX] ints[MAX] strings[MAX]   a flat array (raw length, at most MAX; numbers
--                         and ints hold numbers only, a numeric string "1" is refused as a
--                         number argument refuses it; [MIN..MAX]: at least MIN, "<label> is empty" for MIN 1; `?` after
--                         the kind: nil is NULL; `~` after strings: when the value is not a
--                         plain list of strings and numbers the function returns nil, so the
--                         caller can convert); `== #other`: as long as array other;
--                         `== EXPR`: exactly EXPR elements; <label> names it in messages
--   suffix(x)             an optional integer appended to string argument x ("lin", 3: "lin3")
--   values(h)             {name = number} for the variables of poly h (one missing: the
--                         function returns nil)
--   struct NAME           a table read into the header's struct NAME (B.structs below)
--   structs NAME[MAX]     an array of such tables (#x of them)
--   ... = DEFAULT         the value when the argument is nil
-- Calls: cast<TYPE>(x) converts a pointer (a flat numbers array read as all-double structs).
-- Results: a handle kind (a new handle owning the returned pointer; NULL raises the core's
--   message), number, int, size, bool, string (NULL: nil), int? (negative: nil), int! (negative:
--   raise), text (CALL writes TEXT = buf, size and returns the full length); or outputs
--   `name: double|int|size|bool|cstr`, `name: double[N]` (N values), `name: char[N]` (a
--   string), `name: struct NAME` (a table), `name: owned(FREE, len)` (a buffer C allocates, of
--   len bytes, len another output; returned as a string, then freed with FREE) that CALL
--   fills through &name.
-- `check CALL`: CALL returns a status; not DLB_OK raises the core's message; `soft`: returns
--   nil, the message and the status instead (true on success when nothing else is
--   returned); soft(CODE) only for that code (true on success); nil(CODE):
--   nil for that code.
-- B.lua: backend functions written once in Lua over the generated ones (both backends run
--   this same text); names starting with _ are the generated pieces they use.
local B = {}

B.handles = {
  poly = { "dlb_poly", "dlbench.Poly", free = "dlb_poly_free", tostring = "poly_tostring" },
  graph = { "dlb_graph", "dlbench.Graph", free = "dlb_graph_free" },
  analysis = { "dlb_analysis", "dlbench.Analysis", free = "dlb_analysis_free" },
  opcosts = { "dlb_opcosts", "dlbench.OpCosts", free = "dlb_opcosts_free" },
  figure = { "dlb_figure", "dlbench.Figure", free = "dlb_figure_free" },
  regression = { "dlb_regression", "dlbench.Regression", free = "dlb_regression_free" },
  plan = { "dlb_par_plan", "dlbench.Plan", free = "dlb_par_plan_free" },
  parmodel = { "dlb_par_model", "dlbench.ParModel", free = "dlb_par_model_free" },
  trace = { "dlb_trace", "dlbench.Trace", free = "dlb_trace_free" },
  minimizer = { "dlb_minimizer", "dlbench.Minimizer", free = "dlb_minimizer_free" },
  onnx = { "dlb_onnx", "dlbench.Onnx", free = "dlb_onnx_free" },
  json = { "dlb_json", "dlbench.Json", free = "dlb_json_free" },
  sweepprog = { "dlb_sweep_prog", "dlbench.SweepProg", free = "dlb_sweep_prog_free" },
  reduce = { "dlb_reduce", "dlbench.Reduce", free = "dlb_reduce_free" },
}

-- Structs travel as tables keyed by the C field names. label: the message prefix of a field
-- ("%s" is the argument's name), close: text after the field's name; default, required,
-- shown (name in messages), rename (table key), skip, count (the field holding an array's
-- length), whole (whole numbers come back as integers), init (a C function that fills the
-- defaults first; absent fields keep them), alias (a second key read when the first is absent).
local par = { label = "%s.", whole = true }
B.structs = {
  -- a device: absent fields keep dlb_roof_init's defaults (their one home); bw may be spelled
  -- mem_bw (a dlb.hw device's name)
  dlb_roof = { label = "roofline: device field '", close = "'", required = { peak = true, bw = true },
               init = "dlb_roof_init", alias = { bw = "mem_bw" }, shown = { bw = "mem_bw" } },
  dlb_scaling_fit = { skip = { form = true }, count = { params = "np", se = "np" } },
  dlb_cost_fit = { rename = { gamma_c = "gamma" } },
  dlb_par_link = par, dlb_par_coll = par, dlb_par_work = par,
  dlb_par_dp_opts = par, dlb_par_dp_result = par, dlb_par_cluster = par, dlb_par_opts = par,
  dlb_par_row = par, dlb_par_layer = { label = "layer.", whole = true },
  dlb_nccl_topo = par, dlb_nccl_result = par,
}

B.functions = {
  -- the library (graphs/dlbench.h)
  "version() -> string = dlb_version()",
  "abi_version() -> int = dlb_abi_version()",
  "memory_in_use() -> number = dlb_memory_in_use()",
  -- poly (graphs/ir/dlb_poly.h)
  "poly_parse(text: string) -> poly = dlb_poly_parse(text)",
  "poly_number(c: number) -> poly = dlb_poly_number(c)",
  "poly_add(a: poly, b: poly) -> poly = dlb_poly_add(a, b)",
  "poly_sub(a: poly, b: poly) -> poly = dlb_poly_sub(a, b)",
  "poly_mul(a: poly, b: poly) -> poly = dlb_poly_mul(a, b)",
  "poly_scale(a: poly, c: number) -> poly = dlb_poly_scale(a, c)",
  "poly_pow(a: poly, n: int) -> poly = dlb_poly_pow(a, n)",
  "poly_tostring(h: poly) -> text = dlb_poly_tostring(h, TEXT)",
  "poly_evalv(h: poly, values: numbers[DLB_POLY_MAXVARS] == dlb_poly_nvars(h)) -> number = dlb_poly_evalv(h, values)",
  "poly_bind(h: poly, names: strings, values: numbers == #names) -> poly = dlb_poly_bind(h, #names, names, values)",
  "poly_evalt(h: poly, t: values(h)) -> number = dlb_poly_evalv(h, t)",
  "poly_equal(a: poly, b: poly) -> bool = dlb_poly_equal(a, b)",
  "poly_degree(h: poly) -> int = dlb_poly_degree(h)",
  "_poly_nvars(h: poly) -> size = dlb_poly_nvars(h)",
  "_poly_varname(h: poly, i: size) -> string = dlb_poly_varname(h, i)",
  "_poly_nterms(h: poly) -> size = dlb_poly_nterms(h)",
  "_poly_term(h: poly, i: size) -> c: double, e: int[DLB_POLY_MAXVARS] = check dlb_poly_term(h, i, &c, e)",
  "_poly_is_number(h: poly) -> bool, v: double = dlb_poly_is_number(h, &v)",
  -- hw (graphs/hw/dlb_hw.h)
  "hw_precision_id(name: string) -> int! = dlb_precision_id(name)",
  "_hw_precision_bytes(id: int) -> number = dlb_precision_bytes(id)",
  "_hw_precision_name(id: int) -> string = dlb_precision_name(id)",
  -- graph (graphs/ir/dlb_graph.h)
  'graph_new(name: string = "graph") -> graph = dlb_graph_new(name)',
  "graph_tensor(g: graph, name: string, role: int, dtype: int, dims: strings~[1024] <dims>) -> id: int = check dlb_graph_tensor(g, name, role, dtype, #dims, dims, &id)",
  "graph_op(g: graph, type: int, name: string?, inputs: ints[1024] <inputs>, attrs: ints?[16] <attrs>, dims: strings?[1024] <dim>) -> outs: int{1024, _nout}, _nout: size = check dlb_graph_op(g, type, name, #inputs, inputs, #attrs, attrs, #dims, dims, outs, 1024, &_nout)",
  "graph_op1(g: graph, type: int, name: string?, a: int, b: int = -1, x: int = 0, y: int = 0) -> out: int = check dlb_graph_op1(g, type, name, a, b, x, y, &out)",
  "graph_linear(g: graph, x: int, nout: string, bias: bool, name: string, n: suffix(name)) -> out: int = check dlb_graph_linear(g, x, nout, bias, name, &out)",
  "_graph_conv(g: graph, x: int, wdims: strings[1024] <dim>, attrs: ints[8] == 8, bias: bool, name: string) -> out: int = check dlb_graph_conv(g, x, #wdims, wdims, attrs, bias, name, &out)",
  "graph_norm(g: graph, type: int, x: int, name: string, n: suffix(name)) -> out: int = check dlb_graph_norm(g, type, x, name, &out)",
  "graph_embedding_layer(g: graph, ids: int, vocab: string, dim: string, name: string, n: suffix(name)) -> out: int = check dlb_graph_embedding_layer(g, ids, vocab, dim, name, &out)",
  "graph_lstm_cell(g: graph, x: int, h: int, c: int, w: int, b: int) -> ho: int, co: int = check dlb_graph_lstm_cell(g, x, h, c, w, b, &ho, &co)",
  "graph_gru_cell(g: graph, x: int, h: int, w: int, b: int, wn: int, un: int, bn: int) -> ho: int = check dlb_graph_gru_cell(g, x, h, w, b, wn, un, bn, &ho)",
  "graph_rnn_cell(g: graph, x: int, h: int, w: int, b: int) -> ho: int = check dlb_graph_rnn_cell(g, x, h, w, b, &ho)",
  "graph_highway(g: graph, x: int, s: int, w: int, b: int) -> so: int = check dlb_graph_highway(g, x, s, w, b, &so)",
  "graph_op_type(name: string) -> int? = dlb_graph_op_type(name)",
  "graph_op_type_name(type: int) -> string = dlb_graph_op_type_name(type)",
  "optimizer_update_flops(optimizer: int) -> number = dlb_optimizer_update_flops(optimizer)",
  "optimizer_state_bytes(optimizer: int, dims: numbers) -> b: double = check dlb_optimizer_state_bytes(optimizer, #dims, dims, &b)",
  "graph_set_loss(g: graph, t: int) = check dlb_graph_set_loss(g, t)",
  "graph_layer(g: graph, name: string?) = check dlb_graph_layer(g, name)",
  "graph_checkpoint(g: graph, t: int) = check dlb_graph_checkpoint(g, t)",
  "graph_freeze(g: graph, t: int, frozen: bool) = check dlb_graph_freeze(g, t, frozen)",
  "graph_own_type(g: graph, t: int, own: bool) = check dlb_graph_own_type(g, t, own)",
  "graph_set_dtype(g: graph, t: int, dtype: int) = check dlb_graph_set_dtype(g, t, dtype)",
  "graph_repeat(g: graph, op0: size, t0: size, xin: int, xout: int, from: string, to: string) -> out: int = check dlb_graph_repeat(g, op0, t0, xin, xout, from, to, &out)",
  "graph_generation(g: graph) -> size = dlb_graph_generation(g)",
  "_graph_ntensors(g: graph) -> size = dlb_graph_ntensors(g)",
  "_graph_nops(g: graph) -> size = dlb_graph_nops(g)",
  "_graph_tensor_info(g: graph, t: int) -> nd: int, dt: int, role: int, prod: int = check dlb_graph_tensor_info(g, t, &nd, &dt, &role, &prod)",
  "_graph_tensor_name(g: graph, t: int) -> text = dlb_graph_tensor_name(g, t, TEXT)",
  "_graph_tensor_dim(g: graph, t: int, i: int) -> text = dlb_graph_tensor_dim(g, t, i, TEXT)",
  "_graph_nvars(g: graph) -> size = dlb_graph_nvars(g)",
  "_graph_varname(g: graph, i: size) -> text = dlb_graph_varname(g, i, TEXT)",
  "graph_dot(g: graph) -> text = dlb_graph_dot(g, TEXT)",
  "graph_convention() -> string = dlb_graph_convention()",
  "_graph_analyze(g: graph, o: struct dlb_train_opts, names: strings, values: numbers == #names) -> analysis = dlb_graph_analyze(g, &o, #names, names, values)",
  "_graph_symbolic(g: graph, o: struct dlb_train_opts, names: strings, values: numbers == #names) -> out: poly[DLB_SYM_COUNT] = check dlb_graph_symbolic(g, &o, #names, names, values, out)",
  "_graph_step_nops(g: graph, o: struct dlb_train_opts) -> n: size = check dlb_graph_step_nops(g, &o, &n)",
  "graph_symbolic_type(g: graph, type: string, names: strings, values: numbers == #names) -> poly = dlb_graph_symbolic_type(g, type, #names, names, values)",
  "graph_attention_count(g: graph) -> n: size, causal: size = check dlb_graph_attention_count(g, &n, &causal)",
  "graph_symbolic_attention(g: graph, which: int, names: strings, values: numbers == #names) -> poly = dlb_graph_symbolic_attention(g, which, #names, names, values)",
  "analysis_totals(a: analysis) -> t: struct dlb_totals = check dlb_analysis_totals(a, &t)",
  "_analysis_op_flops(a: analysis) -> doubles(dlb_analysis_nops(a)) = dlb_analysis_op_flops(a)",
  "_analysis_op_bytes(a: analysis) -> doubles(dlb_analysis_nops(a)) = dlb_analysis_op_bytes(a)",
  "_analysis_op_phase(a: analysis) -> ints(dlb_analysis_nops(a)) = dlb_analysis_op_phase(a)",
  "_analysis_op_layer(a: analysis) -> ints(dlb_analysis_nops(a)) = dlb_analysis_op_layer(a)",
  "_analysis_op_type(a: analysis) -> ints(dlb_analysis_nops(a)) = dlb_analysis_op_type(a)",
  "_analysis_op_kernel(a: analysis) -> ints(dlb_analysis_nops(a)) = dlb_analysis_op_kernel(a)",
  "analysis_op_more(a: analysis) -> doubles(2 * dlb_analysis_nops(a)) = dlb_analysis_op_more(a)",
  "analysis_op_layer_placed(a: analysis) -> ints(dlb_analysis_nops(a)) = dlb_analysis_op_layer_placed(a)",
  "analysis_schedule(a: analysis) -> ints(dlb_analysis_nops(a)) = dlb_analysis_schedule(a)",
  "analysis_op_name(a: analysis, i: size) -> text = dlb_analysis_op_name(a, i, TEXT)",
  "analysis_op_match(a: analysis, sub: string) -> o: int{dlb_analysis_nops(a)} = check dlb_analysis_op_match(a, sub, o, dlb_analysis_nops(a))",
  "analysis_gemm(a: analysis, i: size) -> o: double[4] = check nil(DLB_ENOTFOUND) dlb_analysis_op_gemm(a, i, o)",
  "analysis_gemms(a: analysis) -> o: double{4 * dlb_analysis_nops(a)} = check dlb_analysis_op_gemms(a, o, 4 * dlb_analysis_nops(a))",
  "analysis_op_saved(a: analysis) -> o: double{dlb_analysis_nops(a)} = check dlb_analysis_op_saved(a, o, dlb_analysis_nops(a))",
  "_analysis_nlayers(a: analysis) -> size = dlb_analysis_nlayers(a)",
  "_analysis_layer_name(a: analysis, i: size) -> string = dlb_analysis_layer_name(a, i)",
  "analysis_layer(a: analysis, i: size) -> o: double[6] = check dlb_analysis_layer(a, i, o)",
  "analysis_update_tensors(a: analysis, i: size, chunk: number) -> o: double[2] = check dlb_analysis_update_tensors(a, i, chunk, o)",
  "analysis_layer_rerun(a: analysis) -> o: int{dlb_analysis_nlayers(a)} = check dlb_analysis_layer_rerun(a, o, dlb_analysis_nlayers(a))",
  "analysis_exact(a: analysis) -> v: double = check dlb_analysis_footprint_exact(a, &v)",
  "analysis_step_peak(a: analysis) -> o: double[6] = check dlb_analysis_step_peak(a, o)",
  "analysis_step_loss(a: analysis) -> o: double[12] = check dlb_analysis_step_loss(a, o)",
  "analysis_act_peak(a: analysis) -> o: double[6] = check dlb_analysis_act_peak(a, o)",
  -- roofline (graphs/hw/dlb_roofline.h)
  "roof_defaults() -> d: struct dlb_roof = dlb_roof_init(&d)",
  "_roof_check(dev: struct dlb_roof) = check dlb_roof_check(&dev)",
  "_roofline_op_time(dev: struct dlb_roof, flops: number, bytes: number, gemm: numbers?[4] == 4 <gemm>) -> t: double, b: int = check dlb_op_time(&dev, flops, bytes, gemm, &t, &b)",
  "roofline_step_memory(schedule: int, weights: number, grads: number, opt: number, act: number, slack: number = 0) -> out: double = check dlb_step_memory(schedule, weights, grads, opt, act, slack, &out)",
  "roofline_step_temporaries(temps: number, live: number) -> out: double = check dlb_step_temporaries(temps, live, &out)",
  "optim_chunk() -> number = dlb_optim_chunk()",
  "optim_mta_launches(tensors: number, chunks: number, depth: int(1..5), scalarlist: bool = false) -> number = dlb_optim_mta_launches(tensors, chunks, depth, scalarlist)",
  "optim_launches(kind: int, tensors: number, chunks: number, kernels: number = 0, ops: number = 0, sync: bool = false) -> r: struct dlb_optim_count = check dlb_optim_launches(kind, kernels, ops, sync, tensors, chunks, &r)",
  "roofline_ridge(dev: struct dlb_roof, achievable: bool) -> r: double = check dlb_roof_ridge(&dev, achievable, &r)",
  "roofline_attainable(dev: struct dlb_roof, intensity: number) -> r: double = check dlb_roof_attainable(&dev, intensity, &r)",
  "_roofline_time(dev: struct dlb_roof, flops: number, bytes: number) -> r: struct dlb_roof_result = check dlb_roofline_time(&dev, flops, bytes, &r)",
  "gemm_traffic(m: number, n: number, k: number, batch: number, elem: number, cache: number, tile_m: number = 0, tile_n: number = 0) -> r: double = check dlb_gemm_traffic_tiled(m, n, k, batch, elem, cache, tile_m, tile_n, &r)",
  "_roofline_opcosts_new(flops: numbers <roofline: flops>, bytes: numbers == #flops <roofline: bytes>) -> opcosts = dlb_opcosts_new(#flops, flops, bytes)",
  "roofline_opcosts_from_analysis(a: analysis) -> opcosts = dlb_opcosts_from_analysis(a)",
  "roofline_opcosts_set_gemm(c: opcosts, i: int(1..2147483647), m: number, n: number, k: number, batch: number = 1) = check dlb_opcosts_set_gemm(c, i - 1, m, n, k, batch)",
  "roofline_opcosts_n(c: opcosts) -> size = dlb_opcosts_n(c)",
  "roofline_opcosts_set_optim(c: opcosts, kind: int, kernels: number = 0, ops: number = 0, sync: bool = false) = check dlb_opcosts_set_optim(c, kind, kernels, ops, sync)",
  "roofline_opcosts_set_phase_sync(c: opcosts, on: bool) = check dlb_opcosts_set_phase_sync(c, on)",
  "_roofline_ops(c: opcosts, dev: struct dlb_roof) -> r: struct dlb_roof_result = check dlb_opcosts_roofline(c, &dev, NULL, NULL, &r)",
  "_roofline_ops_per(c: opcosts, dev: struct dlb_roof) -> r: struct dlb_roof_result, t: double{dlb_opcosts_n(c)}, b: int{dlb_opcosts_n(c)} = check dlb_opcosts_roofline(c, &dev, t, b, &r)",
  "_roofline_ops_attn(dev: struct dlb_roof, flops: numbers <roofline: flops>, bytes: numbers == #flops <roofline: bytes>, gemm: numbers == 4 * #flops <gemm>, attention: ints == #flops <attention>) -> r: struct dlb_roof_result, t: double{#flops}, b: int{#flops} = check dlb_roofline_ops_attn(&dev, flops, bytes, gemm, attention, #flops, t, b, &r)",
  "_roofline_op_time_run(dev: struct dlb_roof, flops0: number, flops1: number, bytes0: number, bytes1: number, lo: number, hi: number, cap: number, attention: bool, min_time: number = 0) -> r: struct dlb_roof_result = check dlb_op_time_run(&dev, flops0, flops1, bytes0, bytes1, lo, hi, cap, attention, min_time, &r)",
  -- compiled sweeps and reductions (graphs/sweep/dlb_sweep.h)
  "_sweep_prog_new(vars: strings[15], layered: bool) -> sweepprog = dlb_sweep_prog_new(#vars, vars, layered)",
  "_sweep_prog_add(p: sweepprog, g: graph, o: struct dlb_train_opts, layers: number) = check dlb_sweep_prog_add(p, g, &o, layers)",
  "sweep_prog_logits(p: sweepprog, n: poly) = check dlb_sweep_prog_logits(p, n)",
  "sweep_prog_optim(p: sweepprog, kind: int, kernels: number = 0, ops: number = 0, sync: bool = false) = check dlb_sweep_prog_optim(p, kind, kernels, ops, sync)",
  "sweep_prog_phase_sync(p: sweepprog, on: bool) = check dlb_sweep_prog_phase_sync(p, on)",
  "sweep_prog_finish(p: sweepprog) = check dlb_sweep_prog_finish(p)",
  "sweep_prog_nclasses(p: sweepprog) -> size = dlb_sweep_prog_nclasses(p)",
  "sweep_prog_totals(p: sweepprog, vals: numbers == dlb_sweep_prog_nvars(p) <sweep: values>) -> out: double{DLB_SWT_COUNT} = check dlb_sweep_prog_totals(p, vals, out)",
  "sweep_prog_time(p: sweepprog, vals: numbers == dlb_sweep_prog_nvars(p) <sweep: values>, dev: struct dlb_roof) -> t: double, f: double, b: double, m: double = check dlb_sweep_prog_time(p, vals, &dev, &t, &f, &b, &m)",
  "sweep_serve_refusal(dev: struct dlb_roof) -> string = dlb_sweep_serve_refusal(&dev)",
  "sweep_prog_serve(p: sweepprog, vals: numbers == dlb_sweep_prog_nvars(p) <serve: values>, op: struct dlb_roof, attn: struct dlb_roof, min_time: number) -> out: double{DLB_SVT_COUNT} = check dlb_sweep_prog_serve(p, vals, &op, &attn, min_time, out)",
  "_sweep_eval(p: sweepprog, nvalues: numbers == dlb_sweep_prog_nvars(p) <sweep: counts>, values: numbers <sweep: values>, roofs: structs dlb_roof[4096], mem: numbers == 8 * #roofs <sweep: memory rules>, tags: numbers[64], per: int, first: number, sink: reduce, threads: int(0..64)) -> n: double = check dlb_sweep_eval(p, #nvalues, nvalues, #values, values, #roofs, roofs, mem, #tags, tags, per, first, sink, threads, &n)",
  "_sweep_keep(p: sweepprog, nvalues: numbers == dlb_sweep_prog_nvars(p) <sweep: counts>, values: numbers <sweep: values>, roofs: structs dlb_roof[4096], mem: numbers == 8 * #roofs <sweep: memory rules>, tags: numbers[64], per: int, first: number, sink: reduce, text: bytes) = check dlb_sweep_keep(p, #nvalues, nvalues, #values, values, #roofs, roofs, mem, #tags, tags, per, first, sink, #text, text)",
  "reduce_new(ncols: int(1..4096)) -> reduce = dlb_reduce_new(ncols)",
  "reduce_keep(r: reduce, maxrows: number) = check dlb_reduce_keep(r, maxrows)",
  "_reduce_pareto(r: reduce, cols: ints[1024], maximize: ints == #cols, where: int) -> id: int = check dlb_reduce_pareto(r, #cols, cols, maximize, where, &id)",
  "_reduce_top(r: reduce, k: int(1..1000000), col: int, maximize: bool, where: int) -> id: int = check dlb_reduce_top(r, k, col, maximize, where, &id)",
  "_reduce_bins(r: reduce, x: int, xe: numbers[100000], y: int, ye: numbers?[100000], z: int, agg: int, where: int) -> id: int = check dlb_reduce_bins(r, x, #xe, xe, y, #ye, ye, z, agg, where, &id)",
  "_reduce_group(r: reduce, keys: ints[1024], cols: ints[1024], where: int) -> id: int = check dlb_reduce_group(r, #keys, keys, #cols, cols, where, &id)",
  "_reduce_push(r: reduce, n: size, rows: numbers == n * dlb_reduce_ncols(r) <reduce: rows>, first: number) = check dlb_reduce_push(r, n, rows, first)",
  "_reduce_add(r: reduce, kind: int, id: int, n: size, data: numbers <reduce: state>) = check dlb_reduce_add(r, kind, id, n, #data, data)",
  "_reduce_keep_text(r: reduce, start: size, n: size) -> text: owned(dlb_reduce_text_free, _len), _len: size = check dlb_reduce_keep_text(r, start, n, &text, &_len)",
  "_reduce_keep_add_text(r: reduce, n: size, text: bytes) = check dlb_reduce_keep_add_text(r, n, text, #text)",
  "reduce_seen(r: reduce) -> number = dlb_reduce_seen(r)",
  "_reduce_size(r: reduce, kind: int, id: int) -> size = dlb_reduce_size(r, kind, id)",
  "_reduce_column(r: reduce, kind: int, id: int, col: int, start: size, n: size) -> out: double{n} = check dlb_reduce_column(r, kind, id, col, start, n, out)",
  -- stats (graphs/stats/dlb_stats.h)
  "stats_percentiles(list: numbers <percentile: list>, ps: numbers <percentile: p>) -> out: double{#ps} = check dlb_percentiles(list, #list, ps, #ps, out)",
  "stats_mean(list: numbers <mean: list>, kind: int) -> v: double = check dlb_mean(list, #list, kind, &v)",
  "stats_box(list: numbers <box: list>, lw: number, lq: number, hq: number, hw: number, tukey: bool) -> b: struct dlb_box = check dlb_box_stats(list, #list, lw, lq, hq, hw, tukey, &b)",
  "_stats_regress(x: numbers == #y * #names, y: numbers <regress: y>, names: strings, flags: ints == #names, options: int) -> regression = dlb_regress(#y, #names, x, y, names, flags, options)",
  "_regression_terms(r: regression) -> size = dlb_regression_terms(r)",
  "_regression_term(r: regression, j: size) -> name: cstr, w: double, se: double, t: double = check dlb_regression_term(r, j, &name, &w, &se, &t)",
  "_regression_scaling(r: regression, j: size) -> shift: double, scale: double = check dlb_regression_scaling(r, j, &shift, &scale)",
  "_regression_fit(r: regression) -> f: struct dlb_regress_fit = dlb_regression_fit(r, &f)",
  -- scaling (graphs/stats/dlb_scaling.h)
  "scaling_fit(form: int, xs: numbers, ys: numbers == #xs, weights: numbers? == #xs) -> f: struct dlb_scaling_fit = check dlb_scaling_fit_curve(form, #xs, xs, ys, weights, &f)",
  "_scaling_form_params(form: int) -> int! = dlb_scaling_form_params(form)",
  "_scaling_eval(form: int, params: numbers[5] == dlb_scaling_form_params(form), x: number) -> y: double = check dlb_scaling_eval(form, params, x, &y)",
  "_scaling_invert(form: int, params: numbers[5] == dlb_scaling_form_params(form), y: number) -> x: double = check dlb_scaling_invert(form, params, y, &x)",
  "_scaling_bootstrap(form: int, xs: numbers, ys: numbers == #xs, weights: numbers? == #xs, reps: int(2..1000000), seed: number = 1) -> samples: double{reps * 5}, used: int = check dlb_scaling_bootstrap_samples(form, #xs, xs, ys, weights, reps, seed, samples, &used)",
  "_scaling_bootstrap_stats(samples: numbers, np: int(1..5), used: int(0..#samples / np)) -> se: double[5], lo: double[5], hi: double[5] = check dlb_scaling_bootstrap_stats(np, used, samples, se, lo, hi)",
  "_scaling_linfit(X: numbers, k: int(1..8), y: numbers, weights: numbers? == #y) -> c: double[8], se: double[8], r2: double = check dlb_scaling_linfit(#y, k, X, y, weights, c, se, &r2)",
  "scaling_fit_costs(params: numbers, batch: numbers == #params, flops: numbers? == #params, bytes: numbers? == #params, footprint: numbers? == #params) -> c: struct dlb_cost_fit = check dlb_scaling_fit_costs(#params, params, batch, flops, bytes, footprint, &c)",
  "scaling_fit_joint(N: numbers, D: numbers == #N, L: numbers == #N, huber: number = 0) -> f: struct dlb_joint_fit = check dlb_scaling_fit_joint(#N, N, D, L, huber, &f)",
  "_scaling_compute_optimal(E: number, A: number, B: number, alpha: number, beta: number, C: number, k: number) -> N: double, D: double, loss: double, a: double, b: double = check dlb_scaling_compute_optimal(E, A, B, alpha, beta, C, k, &N, &D, &loss, &a, &b)",
  -- plot (plots/dlbplot.h); panels and series are 0-based
  "plot_figure_new(width: number, height: number, rows: int, cols: int) -> figure = dlb_figure_new(width, height, rows, cols)",
  "plot_figure_num(f: figure, key: string, value: number) = check dlb_figure_num(f, key, value)",
  "plot_figure_str(f: figure, key: string, value: string) = check dlb_figure_str(f, key, value)",
  "plot_panel_num(f: figure, panel: int, key: string, value: number) = check dlb_panel_num(f, panel, key, value)",
  "plot_panel_str(f: figure, panel: int, key: string, value: string) = check dlb_panel_str(f, panel, key, value)",
  "_plot_panel_ticks(f: figure, panel: int, axis: int, values: numbers <ticks>) = check dlb_panel_ticks(f, panel, axis, values, #values)",
  "plot_panel_ticklabel(f: figure, panel: int, axis: int, i: size, label: string) = check dlb_panel_ticklabel(f, panel, axis, i, label)",
  "plot_series_new(f: figure, panel: int, kind: int) -> id: int = check dlb_series_new(f, panel, kind, &id)",
  "plot_series_data(f: figure, id: int, name: string, values: numbers <values>) = check dlb_series_data(f, id, name, values, #values)",
  "_plot_series_addstr(f: figure, id: int, name: string, s: string) = check dlb_series_addstr(f, id, name, s)",
  "plot_series_num(f: figure, id: int, key: string, value: number) = check dlb_series_num(f, id, key, value)",
  "plot_series_str(f: figure, id: int, key: string, value: string) = check dlb_series_str(f, id, key, value)",
  "_plot_series_commit(f: figure, id: int) = check dlb_series_commit(f, id)",
  "_plot_figure_warning(f: figure) -> string = dlb_figure_warning(f)",
  "plot_series_drop(f: figure, id: int) = check dlb_series_drop(f, id)",
  "plot_series_options(kind: int, which: int) -> string? = dlb_series_options(kind, which)",
  "_plot_layout(f: figure) = check dlb_figure_layout(f)",
  "_plot_layout_warning(f: figure) -> string = dlb_figure_layout_warning(f)",
  "_plot_overlaps(f: figure) -> n: size = check dlb_figure_overlaps(f, &n)",
  "_plot_overlap_text(f: figure, i: size) -> s: char[256] = check dlb_figure_overlap_text(f, i, s, 256)",
  "plot_to_point(f: figure, panel: int, x: number, y: number) -> px: double, py: double = check dlb_panel_to_point(f, panel, x, y, &px, &py)",
  "_plot_tick_count(f: figure, panel: int, axis: int) -> n: int = check dlb_panel_tick_count(f, panel, axis, &n)",
  "_plot_tick(f: figure, panel: int, axis: int, i: int) -> v: double, s: char[64] = check dlb_panel_tick(f, panel, axis, i, &v, s, 64)",
  "plot_save(f: figure, path: string, dpi: number = 0) = check soft(DLB_EIO) dlb_figure_save(f, path, dpi)",
  "_plot_cmap_lookup(name: string) -> c: int = check dlb_cmap_lookup(name, &c)",
  "_plot_cmap_eval(c: int, t: number) -> rgb: double[3] = check dlb_cmap_eval(c, t, rgb)",
  "plot_palette(i: int) -> rgb: double[3] = dlb_palette(i, rgb)",
  "plot_png_size(path: string) -> w: int, h: int = check dlb_png_size(path, &w, &h)",
  "plot_png_pixel(path: string, x: int, y: int) -> c: double[4] = check dlb_png_pixel(path, x, y, c)",
  "plot_ticks(lo: number, hi: number, target: int) -> t: double{256, _n}, _n: size = check dlb_ticks_linear(lo, hi, target, t, 256, &_n)",
  "plot_tick_format(v: number, step: number, style: string) -> s: char[64] = check dlb_tick_format(v, step, style, s, 64)",
  -- sys (graphs/base/dlb_sys.h): the clock and processor count of the core
  "sys_cores() -> int = dlb_sys_cores()",
  "sys_now() -> number = dlb_sys_now()",
  "sys_malloc_tune() -> int = dlb_sys_malloc_tune()",
  -- proc (proc/dlb_proc.h: libdlbench_proc, the worker pool beside the host); descriptors
  -- and pids are integers
  "proc_cputime(children: bool) -> number = dlb_proc_cputime(children)",
  "proc_isatty(fd: int) -> bool = dlb_proc_isatty(fd)",
  "proc_term_width(fd: int) -> int = dlb_proc_term_width(fd)",
  "proc_spawn() -> pid: int, wfd: int, rfd: int = check dlb_proc_spawn(&pid, &wfd, &rfd)",
  "proc_write(fd: int, s: bytes) = check dlb_proc_write(fd, s, #s)",
  "proc_read(fd: int, max: int(1..16777216) = 65536) -> s: char{max, _got}, _got: size = check dlb_proc_read(fd, s, max, &_got)",
  "_proc_poll(fds: ints[DLB_PROC_MAXPOLL] <fds>, timeout: number) -> ready: int{#fds} = check dlb_proc_poll(fds, #fds, timeout, ready)",
  "_proc_wait(pid: int, block: bool) -> state: int, code: int = check dlb_proc_wait(pid, block, &state, &code)",
  "proc_kill(pid: int, sig: int) = check dlb_proc_kill(pid, sig)",
  "proc_signame(sig: int) -> string = dlb_proc_signame(sig)",
  "proc_close(fd: int) = check dlb_proc_close(fd)",
  "proc_exit(code: int = 0) = dlb_proc_exit(code)",
  "proc_open_append(path: string) -> fd: int = check soft dlb_proc_open_append(path, &fd)",
  "proc_fsync(fd: int) = check dlb_proc_fsync(fd)",
  -- parallel (graphs/parallel/dlb_parallel.h): structs as tables, missing fields 0
  "parallel_collective(op: int, algo: int, bytes: number, n: number, shards: number = 0, link: struct dlb_par_link) -> c: struct dlb_par_coll = check dlb_par_collective(op, algo, bytes, n, shards, &link, &c)",
  "parallel_allreduce_hier(bytes: number, per_node: number, nodes: number, algo: int, intra: struct dlb_par_link, inter: struct dlb_par_link) -> c: struct dlb_par_coll = check dlb_par_allreduce_hier(bytes, per_node, nodes, algo, &intra, &inter, &c)",
  "parallel_allreduce_cluster(bytes: number, n: number, algo: int, cluster: struct dlb_par_cluster) -> c: struct dlb_par_coll = check dlb_par_allreduce_cluster(bytes, n, algo, &cluster, &c)",
  "parallel_nccl(op: int, bytes: number, topo: struct dlb_nccl_topo, algo: int = -1, proto: int = -1) -> r: struct dlb_nccl_result = check dlb_par_nccl(op, bytes, &topo, algo, proto, &r)",
  "parallel_nccl_topo(cluster: struct dlb_par_cluster, ranks: number, per_node: number) -> t: struct dlb_nccl_topo = check dlb_par_nccl_topo(&cluster, ranks, per_node, &t)",
  "parallel_alltoall_cluster(bytes: number, n: number, stride: number, cluster: struct dlb_par_cluster) -> c: struct dlb_par_coll = check dlb_par_alltoall_cluster(bytes, n, stride, &cluster, &c)",
  "parallel_data(work: struct dlb_par_work, device: struct dlb_roof, cluster: struct dlb_par_cluster, opts: struct dlb_par_dp_opts) -> r: struct dlb_par_dp_result = check dlb_par_data(&work, &device, &cluster, &opts, &r)",
  "_parallel_partition(weights: numbers[1..1000000] <partition: weights>, k: int(1..#weights)) -> first: int{k} = check dlb_par_partition(weights, #weights, k, first)",
  -- ops: a flat array, the 20 doubles of each dlb_par_op in order (dlb.parallel.layers.OP)
  "_parallel_evaluate(layers: structs dlb_par_layer[1000000], device: struct dlb_roof, cluster: struct dlb_par_cluster, opts: struct dlb_par_opts, config: struct dlb_par_row, p: int(1..4096), ops: numbers?[120000000] <ops>) -> r: struct dlb_par_row, sm: double{p} = check dlb_par_evaluate_ops(layers, #layers, cast<const dlb_par_op *>(ops), #ops / 20, &device, &cluster, &opts, &config, &r, sm)",
  "_parallel_model_new(layers: structs dlb_par_layer[1000000], ops: numbers?[120000000] <ops>) -> parmodel = dlb_par_model_new(layers, #layers, cast<const dlb_par_op *>(ops), #ops / 20)",
  "_parallel_model_evaluate(m: parmodel, device: struct dlb_roof, cluster: struct dlb_par_cluster, opts: struct dlb_par_opts, config: struct dlb_par_row, p: int(1..4096)) -> r: struct dlb_par_row, sm: double{p} = check dlb_par_model_evaluate(m, &device, &cluster, &opts, &config, &r, sm)",
  "_parallel_plan_new(layers: structs dlb_par_layer[1000000], device: struct dlb_roof, cluster: struct dlb_par_cluster, opts: struct dlb_par_opts, ops: numbers?[120000000] <ops>) -> plan = dlb_par_plan_new_ops(layers, #layers, cast<const dlb_par_op *>(ops), #ops / 20, &device, &cluster, &opts)",
  "_parallel_plan_count(p: plan) -> int = dlb_par_plan_count(p)",
  "_parallel_plan_row(p: plan, i: int) -> r: struct dlb_par_row = check dlb_par_plan_row(p, i, &r)",
  "_parallel_plan_evaluated(p: plan) -> number = dlb_par_plan_evaluated(p)",
  "_parallel_plan_smallest(p: plan) -> r: struct dlb_par_row = check nil(DLB_EINVAL) dlb_par_plan_smallest(p, &r)",
  "parallel_bubble(sched: int, p: number, m: number, v: number = 1) -> number = dlb_par_bubble(sched, p, m, v)",
  "parallel_amdahl(f: number, n: number) -> number = dlb_par_amdahl(f, n)",
  "parallel_zero_split(zero: int, n: number) -> w: double, g: double, o: double = check dlb_par_zero_split(zero, n, &w, &g, &o)",
  -- energy (graphs/hw/dlb_energy.h); tables and precisions by name
  "_energy_table_count() -> int = dlb_energy_table_count()",
  "_energy_table_name(i: int) -> string = dlb_energy_table_name(i)",
  "_energy_table_note(i: int) -> string = dlb_energy_table_note(i)",
  "_energy_precision_count(table: string) -> int = dlb_energy_precision_count(table)",
  "_energy_precision_name(table: string, i: int) -> string = dlb_energy_precision_name(table, i)",
  "_energy_cost(table: string, precision: string) -> c: struct dlb_energy_cost = check dlb_energy_cost_get(table, precision, &c)",
  "_energy_source(table: string, precision: string, field: string) -> string = dlb_energy_source(table, precision, field)",
  "_energy_step(c: struct dlb_energy_cost, flops: number, rf_bytes: number, sram_bytes: number, dram_bytes: number) -> s: struct dlb_energy_split = check dlb_energy_step(&c, flops, rf_bytes, sram_bytes, dram_bytes, &s)",
  -- measure (graphs/hw/dlb_measure.h): host microbenchmarks
  "_measure_caches() -> c: double[4], levels: int = check dlb_measure_caches(c, &levels)",
  "measure_gemm(dp: bool, m: number, n: number, k: number, batch: number, threads: int(0..1024), reps: int(1..1000), min_time: number) -> out: double[3] = check dlb_measure_gemm(dp, m, n, k, batch, threads, reps, min_time, out)",
  "measure_stream(kernel: int(0..3), bytes: number, threads: int(0..1024), reps: int(1..1000), min_time: number) -> out: double[4] = check dlb_measure_stream(kernel, bytes, threads, reps, min_time, out)",
  -- trace (graphs/io/dlb_trace.h): a profiler trace as columns
  "_trace_read(path: string, lim: struct dlb_trace_limits) -> trace = dlb_trace_read_limits(path, &lim)",
  "_trace_parse(text: bytes, lim: struct dlb_trace_limits) -> trace = dlb_trace_parse_limits(text, #text, &lim)",
  "_trace_open(path: string, lim: struct dlb_trace_limits) -> trace = dlb_trace_open(path, &lim)",
  "_trace_next(t: trace, batch: size) -> n: size = check dlb_trace_next(t, batch, &n)",
  "_trace_string_id(t: trace, column: int(0..DLB_TRACE_NSTRINGS - 1), i: size) -> size = dlb_trace_string_id(t, column, i)",
  "_trace_text(t: trace, id: size) -> string = dlb_trace_text(t, id)",
  "_trace_count(t: trace) -> size = dlb_trace_count(t)",
  "_trace_bytes(t: trace) -> number = dlb_trace_bytes(t)",
  "trace_check_event(i: size, name: string?, dur: number) = check dlb_trace_check_event(i, name, dur)",
  "_trace_numbers(t: trace, column: int(0..DLB_TRACE_NNUMBERS - 1)) -> doubles(dlb_trace_count(t)) = dlb_trace_numbers(t, column)",
  "_trace_string(t: trace, column: int(0..DLB_TRACE_NSTRINGS - 1), i: size) -> string = dlb_trace_string(t, column, i)",
  -- minimize (graphs/stats/dlb_minimize.h): Nelder-Mead by reverse communication, 1..64 variables
  "_minimizer_new(x0: numbers[64] <x0>, step: numbers[64] == #x0 <step>, lo: numbers[64] == #x0 <lo>, hi: numbers[64] == #x0 <hi>, tol: number, max_evals: int(1..1000000)) -> minimizer = dlb_minimizer_new(#x0, x0, step, lo, hi, tol, max_evals)",
  "_minimizer_ask(m: minimizer) -> bool, x: double{64} = dlb_minimizer_ask(m, x)",
  "minimizer_tell(m: minimizer, f: number) = check dlb_minimizer_tell(m, f)",
  "_minimizer_best(m: minimizer) -> x: double{64}, f: double, evals: int = check dlb_minimizer_best(m, x, &f, &evals)",
  -- import (graphs/io/dlb_onnx.h, graphs/io/dlb_json.h): ONNX models and JSON documents
  "_onnx_read(path: string, unknown: int, loss: int) -> onnx = dlb_onnx_read(path, unknown, loss)",
  "_onnx_nreport(m: onnx) -> size = dlb_onnx_nreport(m)",
  "_onnx_report(m: onnx, i: size) -> string, kind: int, count: double = dlb_onnx_report(m, i, &kind, &count)",
  "_onnx_facts(m: onnx) -> f: double{DLB_ONNX_NFACTS} = check dlb_onnx_facts(m, f, DLB_ONNX_NFACTS)",
  "_onnx_take_graph(m: onnx) -> graph = dlb_onnx_take_graph(m)",
  "_json_read(path: string) -> json = dlb_json_read(path)",
  '_json_parse(text: bytes, name: string = "<text>") -> json = dlb_json_parse(text, #text, name)',
  "_json_count(j: json) -> size = dlb_json_count(j)",
  "_json_node(j: json, i: size) -> type: int, parent: int, num: double, key: cstr, str: cstr = check dlb_json_node(j, i, &type, &parent, &num, &key, &str)",
  -- file (graphs/base/dlb_file.h): the one writer and the capped reader
  "file_write(path: string, text: bytes) = check soft dlb_file_write(path, text, #text)",
  "_file_read(path: string, max: size = 1073741824) -> data: owned(dlb_file_free, _len), _len: size = check soft dlb_file_read(path, max, &data, &_len)",
  "file_lock_append(path: string) -> fd: int = check soft dlb_file_lock_append(path, &fd)",
  "file_write_locked(path: string, text: bytes) -> fd: int = check soft dlb_file_write_locked(path, text, #text, &fd)",
  "text_checksum(text: bytes) -> h: char[17] = check dlb_text_checksum(text, #text, h, 17)",
  "_parallel_amdahl_fit(workers: numbers[10000000] <amdahl fit: workers>, speedups: numbers == #workers <amdahl fit: speedups>) -> f: double, r2: double = check dlb_par_amdahl_fit(workers, speedups, #workers, &f, &r2)",
}

B.lua = [==[
local core = ...
local E = core.enum
local unpack = table.unpack or unpack

-- enum_names("DLB_DT_") -> {fp32 = 1, ...}, {[1] = "fp32", ...}: the constants of one C enum
-- by lower-case name (rename: {SUFFIX = "name"}); count markers (..._COUNT, DLB_X_NXS) left out
function core.enum_names(prefix, rename)
  local byname, byvalue = {}, {}
  for k, v in pairs(E) do
    local suffix = k:sub(1, #prefix) == prefix and k:sub(#prefix + 1)
    if suffix and suffix ~= "COUNT" and not suffix:match("^N%u+S$") then
      local name = rename and rename[suffix] or suffix:lower()
      byname[name], byvalue[v] = v, name
    end
  end
  return byname, byvalue
end

-- {get(h, 0), ..., get(h, n - 1)}: a list read item by item
local function list(n, get, h)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = get(h, i) end
  return t
end

-- poly
function core.poly_vars(h) return list(core._poly_nvars(h), core._poly_varname, h) end

function core.poly_number_value(h)
  local is, v = core._poly_is_number(h)
  if is then return v end
  return nil
end

-- {{coef, {exponent per variable in poly_vars order}}, ...}
function core.poly_terms(h)
  local nv, out = core._poly_nvars(h), {}
  for i = 0, core._poly_nterms(h) - 1 do
    local r = { core._poly_term(h, i) }
    local e = {}
    for v = 1, nv do e[v] = r[v + 1] end
    out[i + 1] = { r[1], e }
  end
  return out
end

-- graph
local graph_op = core.graph_op
local in1, in2 = { 0 }, { 0, 0 } -- graph_op copies its inputs: one list each, reused
function core.graph_opx(g, t, name, a, b, attrs, dims)
  if type(dims) == "table" and #dims > E.DLB_GRAPH_MAXRANK then
    error("more than " .. E.DLB_GRAPH_MAXRANK .. " dims", 0)
  end
  local inputs
  if b == nil then in1[1] = a; inputs = in1 else in2[1], in2[2] = a, b; inputs = in2 end
  return graph_op(g, t, name, inputs, attrs, dims)[1]
end
function core.graph_conv(g, x, wdims, attrs, bias, name)
  local a = {}
  if type(attrs) == "table" then for i = 1, 8 do a[i] = attrs[i] or 0 end end
  return core._graph_conv(g, x, wdims, type(attrs) == "table" and a or attrs, bias, name)
end
function core.graph_counts(g) return core._graph_ntensors(g), core._graph_nops(g) end
-- the graph's symbolic dims (the names a binding may bind), in first-use order
function core.graph_vars(g) return list(core._graph_nvars(g), core._graph_varname, g) end
function core.graph_tensor_info(g, t)
  local nd, dt, role, prod = core._graph_tensor_info(g, t)
  local dims = {}
  for i = 0, nd - 1 do dims[i + 1] = core._graph_tensor_dim(g, t, i) end
  return core._graph_tensor_name(g, t), dims, dt, role, prod
end
local function opts(opt, prec, rec, k, inf, fuse, upcast)
  return { optimizer = opt, precision = prec, recompute = rec, recompute_k = k, inference = inf and 1 or 0,
           fuse = fuse, norm_upcast = upcast and 1 or 0 }
end
-- fuse: DLB_FUSE_* bits (default 0); upcast: dlb_train_opts.norm_upcast (true: each rmsnorm
-- keeps eager model code's fp32 upcast for its backward; default false)
function core.graph_analyze(g, opt, prec, rec, k, inf, names, values, fuse, upcast)
  return core._graph_analyze(g, opts(opt, prec, rec, k, inf, fuse, upcast), names, values)
end
function core.graph_symbolic(g, opt, prec, rec, k, inf, names, values, upcast)
  local o = opts(opt, prec, rec, k, inf, nil, upcast)
  local r = core._graph_symbolic(g, o, names, values)
  r.nops = core._graph_step_nops(g, o)
  return r
end
-- flops, bytes, phases, layers, op types, kernel classes (DLB_KERNEL_*: 1 fused attention)
function core.analysis_arrays(a)
  return core._analysis_op_flops(a), core._analysis_op_bytes(a), core._analysis_op_phase(a),
    core._analysis_op_layer(a), core._analysis_op_type(a), core._analysis_op_kernel(a)
end
function core.analysis_layers(a) return list(core._analysis_nlayers(a), core._analysis_layer_name, a) end

-- roofline
local function bound(r)
  r.bound = r.bound == E.DLB_BOUND_MEMORY and "memory" or "compute"
  return r
end
function core.roof_check(dev)
  core._roof_check(dev)
  return true
end
-- gemm: {m, n, k, batch} (absent entries 0, batch 1) -> seconds, "memory" | "compute"
function core.roofline_op_time(dev, flops, bytes, gemm)
  local g = gemm
  if type(gemm) == "table" then g = { gemm[1] or 0, gemm[2] or 0, gemm[3] or 0, gemm[4] or 1 } end
  local t, b = core._roofline_op_time(dev, flops, bytes, g)
  return t, b == E.DLB_BOUND_MEMORY and "memory" or "compute"
end
function core.roofline_time(dev, flops, bytes) return bound(core._roofline_time(dev, flops, bytes)) end
function core.roofline_ops(c, dev, per_op)
  if not per_op then return bound(core._roofline_ops(c, dev)) end
  local r, t, b = core._roofline_ops_per(c, dev)
  for i = 1, #b do b[i] = b[i] == E.DLB_BOUND_MEMORY and "memory" or "compute" end
  return bound(r), t, b
end

-- flops, bytes: n numbers; gemm: 4n numbers (m, n, k, batch; m = 0 for an op that is not a
-- matmul); attention: n flags (1: a fused attention kernel) -> result, times, bounds
function core.roofline_ops_attn(dev, flops, bytes, gemm, attention)
  local r, t, b = core._roofline_ops_attn(dev, flops, bytes, gemm, attention)
  for i = 1, #b do b[i] = b[i] == E.DLB_BOUND_MEMORY and "memory" or "compute" end
  return bound(r), t, b
end
-- the rule summed over ops j = lo..hi of flops0 + flops1 min(j, cap) FLOPs and bytes0 +
-- bytes1 min(j, cap) bytes (cap < 0: none), each at least min_time -> result (sums)
function core.roofline_op_time_run(dev, flops0, flops1, bytes0, bytes1, lo, hi, cap, attention, min_time)
  return bound(core._roofline_op_time_run(dev, flops0, flops1, bytes0, bytes1, lo, hi, cap, attention, min_time))
end

function core.roofline_opcosts_new(flops, bytes)
  if type(flops) == "table" and type(bytes) == "table" and #flops ~= #bytes then
    error(string.format("roofline: %d flops but %d bytes entries", #flops, #bytes), 0)
  end
  return core._roofline_opcosts_new(flops, bytes)
end

-- stats
-- xcols: p arrays of n numbers (as many as y); logs: p booleans -> the fit and its terms
local function istable(v, i, want)
  if type(v) ~= "table" then
    error(string.format("bad argument #%d to 'stats_regress' (%s expected, got %s)", i, want,
      core._typename(v)), 0)
  end
end
function core.stats_regress(xcols, y, names, logs, options)
  istable(xcols, 1, "table"); istable(y, 2, "table of numbers")
  istable(names, 3, "table"); istable(logs, 4, "table")
  local p, n = #xcols, #y
  if #names ~= p or #logs ~= p then error("regress: names and logs must match the inputs", 0) end
  local x, flags = {}, {}
  for j = 1, p do
    local col, nm = xcols[j], names[j]
    if type(nm) ~= "string" then error(string.format("regress: input %d has no name", j), 0) end
    flags[j] = logs[j] and E.DLB_REGRESS_LOG or 0
    if type(col) ~= "table" or #col ~= n then
      error(string.format("regress: '%s' must have %d numbers, like y", nm, n), 0)
    end
    for i = 1, n do
      local v = col[i]
      if type(v) == "string" then v = tonumber(v) end
      if type(v) ~= "number" then error(string.format("regress: '%s', row %d is not a number", nm, i), 0) end
      x[(j - 1) * n + i] = v
    end
  end
  local r = core._stats_regress(x, y, names, flags, options)
  local terms = {}
  for j = 0, core._regression_terms(r) - 1 do
    local nm, w, se, t = core._regression_term(r, j)
    local sh, sc = core._regression_scaling(r, j)
    terms[j + 1] = { name = nm, weight = w, se = se, t = t, shift = sh, scale = sc }
  end
  local f = core._regression_fit(r)
  f.terms = terms
  return f
end

-- scaling
local function formparams(form, params)
  local need = core._scaling_form_params(form)
  if type(params) == "table" and #params ~= need then
    error(string.format("params has %d values, the form needs %d", #params, need), 0)
  end
end
function core.scaling_eval(form, params, x)
  formparams(form, params)
  return core._scaling_eval(form, params, x)
end
function core.scaling_invert(form, params, y)
  formparams(form, params)
  return core._scaling_invert(form, params, y)
end
local function first(n, ...)
  local t = { ... }
  for i = n + 1, #t do t[i] = nil end
  return t
end
-- -> {se=, lo=, hi=, used=, samples=} (samples: used x np parameters, resample by resample)
function core.scaling_bootstrap(form, xs, ys, ws, reps, seed)
  local s, used = core._scaling_bootstrap(form, xs, ys, ws, reps, seed)
  local np = core._scaling_form_params(form)
  for i = #s, used * np + 1, -1 do s[i] = nil end
  local r = { core._scaling_bootstrap_stats(s, np, used) }
  return { se = first(np, unpack(r, 1, 5)), lo = first(np, unpack(r, 6, 10)),
           hi = first(np, unpack(r, 11, 15)), used = used, samples = s }
end
function core.scaling_linfit(X, k, y, w)
  if type(X) == "table" and type(y) == "table" and type(k) == "number" and k == math.floor(k)
     and #X ~= k * #y then
    error(string.format("X has %d values, expected %d columns x %d rows", #X, k, #y), 0)
  end
  local r = { core._scaling_linfit(X, k, y, w) }
  return { coef = first(k, unpack(r, 1, 8)), se = first(k, unpack(r, 9, 16)), r2 = r[17] }
end
function core.scaling_compute_optimal(...)
  local N, D, loss, a, b = core._scaling_compute_optimal(...)
  return { N = N, D = D, loss = loss, a = a, b = b }
end

-- plot
function core.plot_series_strs(f, id, name, t)
  if type(t) ~= "table" then
    error("bad argument #4 to 'plot_series_strs' (table expected, got " .. core._typename(t) .. ")", 0)
  end
  for i = 1, #t do
    local s = t[i]
    if type(s) ~= "string" and type(s) ~= "number" then
      error(string.format("%s[%d] is a %s, not a string", tostring(name), i, core._typename(s)), 0)
    end
    core._plot_series_addstr(f, id, name, s)
  end
end
function core.plot_panel_ticks(f, p, ax, t)
  if type(t) == "table" then
    for i = 1, #t do
      if type(t[i]) ~= "number" then
        error(string.format("%s[%d] is a %s, not a number", ax == 1 and "yticks" or "xticks", i,
          core._typename(t[i])), 0)
      end
    end
  end
  return core._plot_panel_ticks(f, p, ax, t)
end
function core.plot_series_commit(f, id)
  core._plot_series_commit(f, id)
  local w = core._plot_figure_warning(f)
  if w ~= "" then return w end
  return nil
end
function core.plot_layout_warning(f)
  core._plot_layout(f)
  return core._plot_layout_warning(f)
end
function core.plot_overlaps(f)
  core._plot_layout(f)
  local out = {}
  for i = 0, core._plot_overlaps(f) - 1 do out[i + 1] = core._plot_overlap_text(f, i) end
  return out
end
function core.plot_ticks_of(f, p, ax)
  local vs, ls = {}, {}
  for i = 0, core._plot_tick_count(f, p, ax) - 1 do vs[i + 1], ls[i + 1] = core._plot_tick(f, p, ax, i) end
  return vs, ls
end
function core.plot_cmap(name, t) return core._plot_cmap_eval(core._plot_cmap_lookup(name), t) end

-- proc
function core.proc_poll(fds, timeout)
  local r = core._proc_poll(fds, timeout)
  for i = 1, #r do r[i] = r[i] ~= 0 end
  return r
end
local states = { [E.DLB_PROC_RUNNING] = "running", [E.DLB_PROC_EXITED] = "exited",
                 [E.DLB_PROC_SIGNALED] = "signaled" }
function core.proc_wait(pid, block)
  local st, code = core._proc_wait(pid, block)
  return states[st], code
end

-- parallel
function core.parallel_amdahl_fit(ns, ss)
  if type(ns) == "table" and type(ss) == "table" and #ns ~= #ss then
    error("bad argument #2 to 'parallel_amdahl_fit' (as many speedups as worker counts)", 0)
  end
  return core._parallel_amdahl_fit(ns, ss)
end
local function layers(ls, fn)
  if type(ls) ~= "table" or #ls < 1 then
    error("bad argument #1 to '" .. fn .. "' (layers: a non-empty array of layer tables)", 0)
  end
  return ls
end
-- ops (optional): a flat array, 20 numbers per op (the fields of dlb_par_op in order)
local function ops_of(ops, i, fn)
  if type(ops) == "table" and #ops % 20 ~= 0 then
    error(string.format("bad argument #%d to '%s' (ops: a flat array of 20 numbers per op)", i, fn), 0)
  end
  return ops
end
function core.parallel_evaluate(ls, dev, cl, opts, cfg, ops)
  local pp = type(cfg) == "table" and type(cfg.pp) == "number" and cfg.pp or 0
  local p = (pp >= 1 and pp <= 4096) and math.floor(pp) or 1
  return core._parallel_evaluate(layers(ls, "parallel_evaluate"), dev, cl, opts, cfg, p,
    ops_of(ops, 6, "parallel_evaluate"))
end
-- a model prepared for many evaluations (dlb_par_model): layers and ops copied into C once
function core.parallel_model_new(ls, ops)
  return core._parallel_model_new(layers(ls, "parallel_model_new"), ops_of(ops, 2, "parallel_model_new"))
end
function core.parallel_model_evaluate(m, dev, cl, opts, cfg)
  local pp = type(cfg) == "table" and type(cfg.pp) == "number" and cfg.pp or 0
  local p = (pp >= 1 and pp <= 4096) and math.floor(pp) or 1
  return core._parallel_model_evaluate(m, dev, cl, opts, cfg, p)
end
-- -> {row...}, evaluated, smallest row (the evaluated layout with the least memory; nil when
-- none was evaluated)
function core.parallel_plan(ls, dev, cl, opts, ops)
  local P = core._parallel_plan_new(layers(ls, "parallel_plan"), dev, cl, opts, ops_of(ops, 5, "parallel_plan"))
  local rows = {}
  for i = 0, core._parallel_plan_count(P) - 1 do rows[i + 1] = core._parallel_plan_row(P, i) end
  return rows, core._parallel_plan_evaluated(P), core._parallel_plan_smallest(P)
end
function core.parallel_partition(w, k)
  local r = core._parallel_partition(w, k)
  for i = 1, #r do r[i] = r[i] + 1 end
  return r
end

-- energy
function core.energy_tables()
  local t = {}
  for i = 0, core._energy_table_count() - 1 do
    t[i + 1] = { name = core._energy_table_name(i), note = core._energy_table_note(i) }
  end
  return t
end
function core.energy_precisions(tname)
  local n = core._energy_precision_count(tname)
  if n < 0 then core._energy_cost(tname, "") end -- the library's message (it lists the tables)
  local r = {}
  for i = 0, n - 1 do r[i + 1] = core._energy_precision_name(tname, i) end
  return r
end
-- -> {add=, mul=, rf=, sram=, dram=, word_bytes=, source={add=, ...}} (pJ)
function core.energy_cost(tname, prec)
  local c = core._energy_cost(tname, prec)
  c.source = {}
  for _, f in ipairs { "add", "mul", "rf", "sram", "dram" } do c.source[f] = core._energy_source(tname, prec, f) end
  return c
end
-- -> {compute=, rf=, sram=, dram=, total=} (joules)
function core.energy_step(add, mul, rf, sram, dram, word_bytes, flops, rfb, sramb, dramb)
  return core._energy_step({ add = add, mul = mul, rf = rf, sram = sram, dram = dram, word_bytes = word_bytes },
    flops, rfb, sramb, dramb)
end

-- measure, trace, minimize
function core.measure_caches()
  local a, b, c, d, levels = core._measure_caches()
  return { a, b, c, d }, levels
end
function core.trace_count(t) return core._trace_count(t), core._trace_bytes(t) end
-- a column as an array, nil where the event has no value (iterate 1..count)
function core.trace_numbers(t, col)
  local v = core._trace_numbers(t, col)
  for i = 1, #v do if v[i] ~= v[i] then v[i] = nil end end
  return v
end
-- lim: {max_bytes=, max_events=, max_string=} (graphs/io/dlb_trace.h), nil or absent: defaults
function core.trace_read(path, lim) return core._trace_read(path, lim or {}) end
function core.trace_parse(text, lim) return core._trace_parse(text, lim or {}) end
-- a trace read in batches: core.trace_next(h, batch) -> events in the batch (0: the end)
function core.trace_open(path, lim) return core._trace_open(path, lim or {}) end
core.trace_next = core._trace_next
-- each distinct text made once (a long name repeated in every event is one string)
function core.trace_strings(t, col)
  local v, text = {}, {}
  for i = 0, core._trace_count(t) - 1 do
    local id = core._trace_string_id(t, col, i)
    if id > 0 then
      local s = text[id]
      if s == nil then s = core._trace_text(t, id); text[id] = s end
      v[i + 1] = s
    end
  end
  return v
end
local NVARS = setmetatable({}, { __mode = "k" }) -- a minimiser's variable count
local function firstn(t, n)
  for i = #t, n + 1, -1 do t[i] = nil end
  return t
end
function core.minimizer_new(x0, step, lo, hi, tol, max_evals)
  if type(x0) == "table" and type(step) == "table" and type(lo) == "table" and type(hi) == "table"
     and not (#step == #x0 and #lo == #x0 and #hi == #x0) then
    error("bad argument #2 to 'minimizer_new' (x0, step, lo and hi need the same length)", 0)
  end
  local m = core._minimizer_new(x0, step, lo, hi, tol, max_evals)
  NVARS[m] = #x0
  return m
end
-- -> {x...}, or nil when the search has finished
function core.minimizer_ask(m)
  local more, x = core._minimizer_ask(m)
  if not more then return nil end
  return firstn(x, NVARS[m])
end
-- -> {x...}, f, evaluations
function core.minimizer_best(m)
  local x, f, evals = core._minimizer_best(m)
  return firstn(x, NVARS[m]), f, evals
end

-- import: the model's graph, its report {{text, kind, count}, ...} and facts
function core.onnx_read(path, unknown, loss)
  local m = core._onnx_read(path, unknown, loss)
  local rep = {}
  for i = 0, core._onnx_nreport(m) - 1 do
    local t, k, c = core._onnx_report(m, i)
    rep[i + 1] = { t, k, c }
  end
  local f = core._onnx_facts(m)
  return core._onnx_take_graph(m), rep, f
end
-- a JSON document as Lua values: arrays are 1-based sequences; an object's null leaves the
-- key out (a config reader sees it absent, its default); an array's null item is
-- core.json_null, so that the items after it keep their positions (dropping it shifted
-- them: [1,null,3] read as {1,3}, a silent wrong value at index 2). json_null is one
-- read-only empty table; tostring gives "null", getmetatable "dlbench.json_null", and
-- dlbench.json writes it back as null.
core.json_null = setmetatable({}, { __metatable = "dlbench.json_null",
  __tostring = function() return "null" end,
  __newindex = function() error("dlb.core.json_null is read-only", 2) end })
local function json_tree(j)
  local refs, root = {}, nil
  for i = 0, core._json_count(j) - 1 do
    local t, parent, num, key, str = core._json_node(j, i)
    local v
    if t == E.DLB_JSON_FALSE or t == E.DLB_JSON_TRUE then v = t == E.DLB_JSON_TRUE
    elseif t == E.DLB_JSON_NUMBER then v = num
    elseif t == E.DLB_JSON_STRING then v = str
    elseif t ~= E.DLB_JSON_NULL then v = {}; refs[i] = v
    elseif parent >= 0 and key == nil then v = core.json_null end
    if v ~= nil then
      if parent < 0 then root = v
      elseif key ~= nil then refs[parent][key] = v
      else local a = refs[parent]; a[#a + 1] = v end
    end
  end
  return root
end
function core.json_read(path) return json_tree(core._json_read(path)) end
function core.json_parse(text, name) return json_tree(core._json_parse(text, name)) end

-- file: text, or nil, message, "missing" | "error"
function core.file_read(path, max)
  local s, msg, st = core._file_read(path, max)
  if s == nil then return nil, msg, st == E.DLB_ENOTFOUND and "missing" or "error" end
  return s
end

-- hw
function core.hw_precision_bytes(name) return core._hw_precision_bytes(core.hw_precision_id(name)) end
function core.hw_precisions()
  return list(E.DLB_PREC_COUNT, function(_, i) return core._hw_precision_name(i) end)
end
]==]

return B
