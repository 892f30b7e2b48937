-- dlbench.ffi_roofline — FFI wrappers of the roofline area: the same functions, names,
-- arguments and results as host/lroofline.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
  local fields = { peak = true, bw = true }
  local user = { bw = "mem_bw" } -- the device field a user knows (a dlb.hw device's mem_bw)

  local function num(dev, k, dflt)
    local v = dev[k]
    if v == nil then
      if fields[k] then error("roofline: device field '" .. (user[k] or k) .. "' is required", 0) end
      return dflt
    end
    if type(v) == "boolean" then return v and 1 or 0 end
    if type(v) ~= "number" then
      error("roofline: device field '" .. (user[k] or k) .. "' must be a number, got " .. type(v), 0)
    end
    return v
  end

  -- the device fields read after peak and bw, with the C defaults (dlb_roof_init) for absent ones
  local OPTIONAL = { "flops_eff", "bw_eff", "cache", "elem", "bytes_scale", "tile_m", "tile_n",
    "kernel_overhead", "step_overhead", "half_bw_bytes", "sm_count", "gemm_tile_m",
    "gemm_tile_n", "systolic", "vector_width", "mem", "level1_size", "level1_bw", "level2_size",
    "level2_bw", "level3_size", "level3_bw", "level4_size", "level4_bw" }

  -- A device table as a dlb_roof (as host/lroofline.c's dlbL_checkroof: `bw` may be spelled
  -- `mem_bw`, a dlb.hw device's name).
  local function roof(dev)
    if type(dev) ~= "table" then
      error("bad argument (table expected, got " .. type(dev) .. ")", 0)
    end
    local d = ffi.new("dlb_roof")
    C.dlb_roof_init(d)
    d.peak = num(dev, "peak", 0)
    if dev.bw == nil and dev.mem_bw ~= nil then
      d.bw = num(dev, "mem_bw", 0)
    else
      d.bw = num(dev, "bw", 0)
    end
    for _, k in ipairs(OPTIONAL) do d[k] = num(dev, k, d[k]) end
    d.cache_aware = num(dev, "cache_aware", 0) ~= 0 and 1 or 0
    return d
  end
  core.roof_cdata = roof   -- for ffi_parallel.lua (one reader of device tables)

  function core.roof_defaults()
    local d = ffi.new("dlb_roof")
    C.dlb_roof_init(d)
    return { flops_eff = d.flops_eff, bw_eff = d.bw_eff, elem = d.elem, bytes_scale = d.bytes_scale }
  end

  function core.roof_check(dev)
    core.check(C.dlb_roof_check(roof(dev)))
    return true
  end

  local function result(r)
    return {
      time = r.time, compute_time = r.compute_time, memory_time = r.memory_time,
      flops = r.flops, bytes = r.bytes, util = r.util,
      memory_bound_time = r.memory_bound_time, n_memory_bound = r.n_memory_bound,
      bound = r.bound == C.DLB_BOUND_MEMORY and "memory" or "compute",
    }
  end

  local function checknum(v, i)
    if type(v) ~= "number" then
      error("bad argument #" .. i .. " (number expected, got " .. type(v) .. ")", 0)
    end
    return v
  end

  function core.roofline_ridge(dev, achievable)
    local out = ffi.new("double[1]")
    core.check(C.dlb_roof_ridge(roof(dev), achievable and 1 or 0, out))
    return out[0]
  end

  function core.roofline_attainable(dev, intensity)
    local out = ffi.new("double[1]")
    core.check(C.dlb_roof_attainable(roof(dev), checknum(intensity, 2), out))
    return out[0]
  end

  function core.roofline_time(dev, flops, bytes)
    local r = ffi.new("dlb_roof_result")
    core.check(C.dlb_roofline_time(roof(dev), checknum(flops, 2), checknum(bytes, 3), r))
    return result(r)
  end

  function core.gemm_traffic(m, n, k, batch, elem, cache, tile_m, tile_n)
    local out = ffi.new("double[1]")
    core.check(C.dlb_gemm_traffic_tiled(checknum(m, 1), checknum(n, 2), checknum(k, 3),
      checknum(batch, 4), checknum(elem, 5), checknum(cache, 6),
      checknum(tile_m or 0, 7), checknum(tile_n or 0, 8), out))
    return out[0]
  end

  local function readarray(t, what, buf, n)
    for j = 1, n do
      local v = t[j]
      if type(v) ~= "number" then
        error(string.format("roofline: %s[%d] must be a number, got %s", what, j, type(v)), 0)
      end
      buf[j - 1] = v
    end
  end

  function core.roofline_opcosts_new(flops, bytes)
    if type(flops) ~= "table" or type(bytes) ~= "table" then
      error("bad argument (tables of flops and bytes expected)", 0)
    end
    local n = #flops
    if #bytes ~= n then
      error(string.format("roofline: %d flops but %d bytes entries", n, #bytes), 0)
    end
    local f, b = ffi.new("double[?]", n > 0 and n or 1), ffi.new("double[?]", n > 0 and n or 1)
    readarray(flops, "flops", f, n)
    readarray(bytes, "bytes", b, n)
    local c = C.dlb_opcosts_new(n, f, b)
    if c == nil then core.error() end
    return ffi.gc(c, C.dlb_opcosts_free)
  end

  -- An op-cost set from a graph analysis handle (cdata dlb_analysis *).
  function core.roofline_opcosts_from_analysis(a)
    if type(a) ~= "cdata" then
      error("bad argument #1 (dlbench analysis expected, got " .. type(a) .. ")", 0)
    end
    local c = C.dlb_opcosts_from_analysis(a)
    if c == nil then core.error() end
    return ffi.gc(c, C.dlb_opcosts_free)
  end

  function core.roofline_opcosts_set_gemm(c, i, m, n, k, batch)
    if type(i) ~= "number" or i < 1 then error("bad argument #2 (op index starts at 1)", 0) end
    core.check(C.dlb_opcosts_set_gemm(c, i - 1, checknum(m, 3), checknum(n, 4),
      checknum(k, 5), batch == nil and 1 or checknum(batch, 6)))
  end

  function core.roofline_opcosts_n(c)
    return tonumber(C.dlb_opcosts_n(c))
  end

  function core.roofline_ops(c, dev, per_op)
    local n = tonumber(C.dlb_opcosts_n(c))
    local r = ffi.new("dlb_roof_result")
    local t, bd
    if per_op then
      t = ffi.new("double[?]", n > 0 and n or 1)
      bd = ffi.new("int[?]", n > 0 and n or 1)
    end
    core.check(C.dlb_opcosts_roofline(c, roof(dev), t, bd, r))
    local res = result(r)
    if not per_op then return res end
    local times, bounds = {}, {}
    for i = 0, n - 1 do
      times[i + 1] = t[i]
      bounds[i + 1] = bd[i] == C.DLB_BOUND_MEMORY and "memory" or "compute"
    end
    return res, times, bounds
  end

  function core.roofline_op_time(dev, flops, bytes, gemm)
    local d = roof(dev)
    local g
    if gemm ~= nil then
      if type(gemm) ~= "table" then error("bad argument #4 (table {m, n, k, batch} expected)", 0) end
      g = ffi.new("double[4]", 0, 0, 0, 1)
      for i = 1, 4 do
        if gemm[i] ~= nil then g[i - 1] = checknum(gemm[i], 4) end
      end
    end
    local t, bd = ffi.new("double[1]"), ffi.new("int[1]")
    core.check(C.dlb_op_time(d, checknum(flops, 2), checknum(bytes, 3), g, t, bd))
    return t[0], bd[0] == C.DLB_BOUND_MEMORY and "memory" or "compute"
  end

  function core.roofline_step_memory(schedule, w, g, o, act, slack)
    local out = ffi.new("double[1]")
    if type(schedule) ~= "number" or schedule ~= math.floor(schedule) then
      error("bad argument #1 (number has no integer representation)", 0)
    end
    core.check(C.dlb_step_memory(schedule, checknum(w, 2), checknum(g, 3), checknum(o, 4),
      checknum(act, 5), slack == nil and 0 or checknum(slack, 6), out))
    return out[0]
  end

end
