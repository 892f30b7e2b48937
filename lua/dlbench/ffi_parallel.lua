-- dlbench.ffi_parallel — FFI wrappers of the parallel area: the same functions, names, arguments
-- and results as host/lparallel.c adds to `dlbench.core`. Structs travel as Lua tables with
-- the C field names; missing fields are 0.
return function(core, C, ffi) -- luacheck: ignore
  local F = {
    link = { "bw", "latency", "eff" },
    coll = { "time", "bytes", "total", "steps" },
    work = { "flops_sample", "flops_fixed", "bytes_sample", "bytes_fixed", "bwd_frac",
             "grad_bytes", "mem_fixed", "mem_sample", "samples_epoch" },
    dpo = { "workers", "subbatch", "batch", "algo", "bucket", "overlap", "async", "shards",
            "compute" },
    dpr = { "step", "compute", "comm", "exposed", "batch", "subbatch", "throughput", "util",
            "mem", "epoch", "wire", "buckets", "fits", "shortfall" },
    layer = { "flops_fwd", "flops_bwd", "bytes_sample", "bytes_fixed", "params", "act_out",
              "act_kept", "act_rep", "act_in", "tp_bytes", "tp_colls", "shardable", "tp_div" },
    opts = { "batch", "w_bytes", "g_bytes", "o_bytes", "overlap", "dp_algo", "tp_max",
             "pp_max", "m_max", "zero_max", "sched", "v", "seq_par", "recompute", "balance",
             "shard", "devices", "keep_unfit", "mem_schedule", "slack", "fsdp_overlap",
             "gather_tensors" },
    row = { "dp", "tp", "pp", "v", "m", "mb", "sched", "recompute", "zero", "step", "compute",
            "comm", "bubble", "tp_comm", "pp_comm", "dp_comm", "mem", "mem_weights",
            "mem_grads", "mem_opt", "mem_act", "fits", "util", "throughput", "update", "mfu",
            "hfu" },
  }

  -- Fill cdata c from table t by field names (as the C binding's getfields).
  local function fill(c, t, names, what)
    if type(t) ~= "table" then
      error(string.format("%s: table expected, got %s", what, type(t)), 3)
    end
    for _, k in ipairs(names) do
      local v = t[k]
      if type(v) == "number" then c[k] = v
      elseif type(v) == "boolean" then c[k] = v and 1 or 0
      elseif v ~= nil then
        error(string.format("%s.%s must be a number, got %s", what, k, type(v)), 0)
      end
    end
    return c
  end

  local function totable(c, names)
    local t = {}
    for _, k in ipairs(names) do t[k] = tonumber(c[k]) end
    return t
  end

  local function cluster(t)
    local c = ffi.new("dlb_par_cluster")
    if type(t) ~= "table" then error("cluster: table expected, got " .. type(t), 0) end
    if t.per_node ~= nil then c.per_node = assert(tonumber(t.per_node), "cluster.per_node") end
    if t.nodes ~= nil then c.nodes = assert(tonumber(t.nodes), "cluster.nodes") end
    if type(t.intra) == "table" then fill(c.intra, t.intra, F.link, "intra") end
    if type(t.inter) == "table" then fill(c.inter, t.inter, F.link, "inter") end
    return c
  end

  local function layers(t)
    if type(t) ~= "table" or #t < 1 then
      error("bad argument #1 (layers: a non-empty array of layer tables)", 0)
    end
    local n = #t
    local a = ffi.new("dlb_par_layer[?]", n)
    for i = 1, n do
      if type(t[i]) ~= "table" then error(string.format("layers[%d] must be a table", i), 0) end
      fill(a[i - 1], t[i], F.layer, "layer")
    end
    return a, n
  end

  -- A device table as the roofline's dlb_roof (ffi_roofline.lua reads it, as the C binding).
  local function device(dev)
    if type(dev) ~= "table" then error("device: table expected, got " .. type(dev), 0) end
    return core.roof_cdata(dev)
  end

  -- The optional flat array of ops (12 numbers per op, dlb_par_op's fields in order).
  local function ops_of(t)
    if t == nil then return nil, 0 end
    if type(t) ~= "table" then error("bad argument (ops: a flat array of numbers)", 0) end
    local len = #t
    if len % 12 ~= 0 then error("bad argument (ops: a flat array of 12 numbers per op)", 0) end
    local n = len / 12
    local a = ffi.new("dlb_par_op[?]", n > 0 and n or 1)
    local p = ffi.cast("double *", a)
    for i = 1, len do
      local v = t[i]
      if type(v) ~= "number" then error(string.format("ops[%d] must be a number", i), 0) end
      p[i - 1] = v
    end
    return a, n
  end

  local function int(x, what)
    if type(x) ~= "number" or x ~= math.floor(x) then
      error(string.format("bad argument (%s: integer expected, got %s)", what, type(x)), 0)
    end
    return x
  end

  function core.parallel_collective(op, algo, bytes, n, shards, link)
    local c = ffi.new("dlb_par_coll")
    local lk = fill(ffi.new("dlb_par_link"), link, F.link, "link")
    core.check(C.dlb_par_collective(int(op, "op"), int(algo, "algo"), bytes, n, shards or 0, lk, c))
    return totable(c, F.coll)
  end

  function core.parallel_allreduce_hier(bytes, g, nodes, algo, intra, inter)
    local c = ffi.new("dlb_par_coll")
    local a = fill(ffi.new("dlb_par_link"), intra, F.link, "intra")
    local b = fill(ffi.new("dlb_par_link"), inter, F.link, "inter")
    core.check(C.dlb_par_allreduce_hier(bytes, g, nodes, int(algo, "algo"), a, b, c))
    return totable(c, F.coll)
  end

  function core.parallel_allreduce_cluster(bytes, n, algo, cl)
    local c = ffi.new("dlb_par_coll")
    core.check(C.dlb_par_allreduce_cluster(bytes, n, int(algo, "algo"), cluster(cl), c))
    return totable(c, F.coll)
  end

  function core.parallel_data(work, dev, cl, opts)
    local w = fill(ffi.new("dlb_par_work"), work, F.work, "work")
    local d = device(dev)
    local c = cluster(cl)
    local o = fill(ffi.new("dlb_par_dp_opts"), opts, F.dpo, "opts")
    local r = ffi.new("dlb_par_dp_result")
    core.check(C.dlb_par_data(w, d, c, o, r))
    return totable(r, F.dpr)
  end

  function core.parallel_partition(weights, k)
    local n = #weights
    if n < 1 then error("bad argument #1 (a non-empty array of weights)", 0) end
    if type(k) ~= "number" or k < 1 or k > n then
      error("bad argument #2 (stages must be in 1..#weights)", 0)
    end
    local w = ffi.new("double[?]", n)
    for i = 1, n do
      local x = tonumber(weights[i])
      if not x then error(string.format("partition: weights[%d] must be a number", i), 0) end
      w[i - 1] = x
    end
    local first = ffi.new("int[?]", k)
    core.check(C.dlb_par_partition(w, n, k, first))
    local t = {}
    for s = 0, k - 1 do t[s + 1] = first[s] + 1 end
    return t
  end

  function core.parallel_bubble(sched, p, m, v)
    return tonumber(C.dlb_par_bubble(int(sched, "sched"), p, m, v or 1))
  end

  function core.parallel_evaluate(ls, dev, cl, opts, cfg, ops)
    local d = device(dev)
    local c = cluster(cl)
    local o = fill(ffi.new("dlb_par_opts"), opts, F.opts, "opts")
    local g = fill(ffi.new("dlb_par_row"), cfg, F.row, "config")
    local a, n = layers(ls)
    local p = (g.pp >= 1 and g.pp <= 4096) and math.floor(tonumber(g.pp)) or 1
    local sm = ffi.new("double[?]", p)
    local r = ffi.new("dlb_par_row")
    local oa, no = ops_of(ops)
    core.check(C.dlb_par_evaluate_ops(a, n, oa, no, d, c, o, g, r, sm))
    local t = {}
    for i = 0, p - 1 do t[i + 1] = tonumber(sm[i]) end
    return totable(r, F.row), t
  end

  function core.parallel_plan(ls, dev, cl, opts, ops)
    local d = device(dev)
    local c = cluster(cl)
    local o = fill(ffi.new("dlb_par_opts"), opts, F.opts, "opts")
    local a, n = layers(ls)
    local oa, no = ops_of(ops)
    local P = C.dlb_par_plan_new_ops(a, n, oa, no, d, c, o)
    if P == nil then core.error() end
    P = ffi.gc(P, C.dlb_par_plan_free)
    local rows, r = {}, ffi.new("dlb_par_row")
    for i = 0, C.dlb_par_plan_count(P) - 1 do
      C.dlb_par_plan_row(P, i, r)
      rows[i + 1] = totable(r, F.row)
    end
    local ev = tonumber(C.dlb_par_plan_evaluated(P))
    local sm = nil
    if C.dlb_par_plan_smallest(P, r) == 0 then sm = totable(r, F.row) end
    C.dlb_par_plan_free(ffi.gc(P, nil))
    return rows, ev, sm
  end

  function core.parallel_amdahl(f, n)
    return tonumber(C.dlb_par_amdahl(f, n))
  end

  function core.parallel_amdahl_fit(ns, ss)
    local n = #ns
    if n ~= #ss then error("bad argument #2 (as many speedups as worker counts)", 0) end
    if n < 1 then error("bad argument #1 (at least one measurement)", 0) end
    local a, b = ffi.new("double[?]", n), ffi.new("double[?]", n)
    for i = 1, n do
      a[i - 1] = tonumber(ns[i]) or error(string.format("amdahl fit: entry %d is not a number", i), 0)
      b[i - 1] = tonumber(ss[i]) or error(string.format("amdahl fit: entry %d is not a number", i), 0)
    end
    local f, r2 = ffi.new("double[1]"), ffi.new("double[1]")
    core.check(C.dlb_par_amdahl_fit(a, b, n, f, r2))
    return f[0], r2[0]
  end
end
