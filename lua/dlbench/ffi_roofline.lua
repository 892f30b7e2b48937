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

  local function roof(dev)
    if type(dev) ~= "table" then
      error("bad argument (table expected, got " .. type(dev) .. ")", 0)
    end
    local d = ffi.new("dlb_roof")
    d.peak = num(dev, "peak", 0)
    d.bw = num(dev, "bw", 0)
    d.flops_eff = num(dev, "flops_eff", 0.8)
    d.bw_eff = num(dev, "bw_eff", 0.7)
    d.cache = num(dev, "cache", 0)
    d.elem = num(dev, "elem", 4)
    d.cache_aware = num(dev, "cache_aware", 0) ~= 0 and 1 or 0
    d.bytes_scale = num(dev, "bytes_scale", 1)
    d.tile_m = num(dev, "tile_m", 0)
    d.tile_n = num(dev, "tile_n", 0)
    return d
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
end
