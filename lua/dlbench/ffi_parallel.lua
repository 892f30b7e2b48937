-- dlbench.ffi_parallel — the hand-written part of the parallel area under FFI: evaluate and
-- plan, as host/lparallel.c (which says why they are not generated). Structs travel as Lua tables with
-- the C field names; missing fields are 0.
return function(core, C, ffi) -- luacheck: ignore
  local F = {
    link = { "bw", "latency", "eff" },
    device = { "peak", "mem_bw", "mem", "flops_eff", "bw_eff" },
    layer = { "flops_fwd", "flops_bwd", "bytes_sample", "bytes_fixed", "params", "act_out",
              "act_kept", "act_rep", "act_in", "tp_bytes", "tp_colls", "shardable", "tp_div" },
    opts = { "batch", "w_bytes", "g_bytes", "o_bytes", "overlap", "dp_algo", "tp_max",
             "pp_max", "m_max", "zero_max", "sched", "v", "seq_par", "recompute", "balance",
             "shard", "devices", "keep_unfit" },
    row = { "dp", "tp", "pp", "v", "m", "mb", "sched", "recompute", "zero", "step", "compute",
            "comm", "bubble", "tp_comm", "pp_comm", "dp_comm", "mem", "mem_weights",
            "mem_grads", "mem_opt", "mem_act", "fits", "util", "throughput" },
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









  function core.parallel_evaluate(ls, dev, cl, opts, cfg)
    local d = fill(ffi.new("dlb_par_device"), dev, F.device, "device")
    local c = cluster(cl)
    local o = fill(ffi.new("dlb_par_opts"), opts, F.opts, "opts")
    local g = fill(ffi.new("dlb_par_row"), cfg, F.row, "config")
    local a, n = layers(ls)
    local p = (g.pp >= 1 and g.pp <= 4096) and math.floor(tonumber(g.pp)) or 1
    local sm = ffi.new("double[?]", p)
    local r = ffi.new("dlb_par_row")
    core.check(C.dlb_par_evaluate(a, n, d, c, o, g, r, sm))
    local t = {}
    for i = 0, p - 1 do t[i + 1] = tonumber(sm[i]) end
    return totable(r, F.row), t
  end

  function core.parallel_plan(ls, dev, cl, opts)
    local d = fill(ffi.new("dlb_par_device"), dev, F.device, "device")
    local c = cluster(cl)
    local o = fill(ffi.new("dlb_par_opts"), opts, F.opts, "opts")
    local a, n = layers(ls)
    local P = C.dlb_par_plan_new(a, n, d, c, o)
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


end
