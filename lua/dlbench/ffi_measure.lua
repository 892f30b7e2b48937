-- dlbench.ffi_measure — FFI wrappers of the measure and trace areas: the same functions,
-- names, arguments and results as host/lmeasure.c adds to `dlbench.core`.
return function(core, C, ffi)
  local function int(v, i, lo, hi, what)
    if type(v) ~= "number" or v ~= math.floor(v) or v < lo or v > hi then
      error(string.format("bad argument #%d (%s must be %d..%d)", i, what, lo, hi), 0)
    end
    return v
  end
  local function num(v, i)
    if type(v) ~= "number" then
      error(string.format("bad argument #%d (number expected, got %s)", i, type(v)), 0)
    end
    return v
  end

  function core.measure_caches()
    local c, lv = ffi.new("double[4]"), ffi.new("int[1]")
    core.check(C.dlb_measure_caches(c, lv))
    return { c[0], c[1], c[2], c[3] }, tonumber(lv[0])
  end

  function core.measure_gemm(dp, m, n, k, batch, threads, reps, min_time)
    local out = ffi.new("double[3]")
    core.check(C.dlb_measure_gemm(dp and 1 or 0, num(m, 2), num(n, 3), num(k, 4), num(batch, 5),
      int(threads, 6, 0, 1024, "threads"), int(reps, 7, 1, 1000, "reps"), num(min_time, 8), out))
    return out[0], out[1], out[2]
  end

  function core.measure_stream(kernel, bytes, threads, reps, min_time)
    local out = ffi.new("double[4]")
    core.check(C.dlb_measure_stream(int(kernel, 1, 0, 3, "kernel"), num(bytes, 2),
      int(threads, 3, 0, 1024, "threads"), int(reps, 4, 1, 1000, "reps"), num(min_time, 5), out))
    return out[0], out[1], out[2], out[3]
  end

  local function checktrace(t)
    if not ffi.istype("dlb_trace *", t) or t == nil then
      error("bad argument #1 (dlbench.Trace expected, got " .. type(t) .. ")", 0)
    end
    return t
  end

  function core.trace_read(path)
    if type(path) ~= "string" then error("bad argument #1 (string expected, got " .. type(path) .. ")", 0) end
    local t = C.dlb_trace_read(path)
    if t == nil then core.error() end
    return ffi.gc(t, C.dlb_trace_free)
  end

  function core.trace_parse(text)
    if type(text) ~= "string" then error("bad argument #1 (string expected, got " .. type(text) .. ")", 0) end
    local t = C.dlb_trace_parse(text, #text)
    if t == nil then core.error() end
    return ffi.gc(t, C.dlb_trace_free)
  end

  function core.trace_count(t)
    checktrace(t)
    return tonumber(C.dlb_trace_count(t)), tonumber(C.dlb_trace_bytes(t))
  end

  function core.trace_numbers(t, col)
    checktrace(t)
    int(col, 2, 0, C.DLB_TRACE_NNUMBERS - 1, "numeric trace column")
    local n = tonumber(C.dlb_trace_count(t))
    local v = C.dlb_trace_numbers(t, col)
    local out = {}
    for i = 0, n - 1 do
      local x = v[i]
      if x == x then out[i + 1] = x end
    end
    return out
  end

  function core.trace_strings(t, col)
    checktrace(t)
    int(col, 2, 0, C.DLB_TRACE_NSTRINGS - 1, "text trace column")
    local n = tonumber(C.dlb_trace_count(t))
    local out = {}
    for i = 0, n - 1 do
      local s = C.dlb_trace_string(t, col, i)
      if s ~= nil then out[i + 1] = ffi.string(s) end
    end
    return out
  end

  local function numbers(t, i, what)
    if type(t) ~= "table" then
      error(string.format("bad argument #%d (%s: table of numbers expected, got %s)", i, what, type(t)), 0)
    end
    local n = #t
    if n > 64 then error(string.format("bad argument #%d (%s: at most 64 values)", i, what), 0) end
    local a = ffi.new("double[?]", n > 0 and n or 1)
    for j = 1, n do
      if type(t[j]) ~= "number" then
        error(string.format("bad argument #%d (%s[%d] must be a number)", i, what, j), 0)
      end
      a[j - 1] = t[j]
    end
    return a, n
  end

  local boxes = setmetatable({}, { __mode = "k" }) -- minimizer cdata -> n
  function core.minimizer_new(x0, step, lo, hi, tol, max_evals)
    local a, n = numbers(x0, 1, "x0")
    local s, ns = numbers(step, 2, "step")
    local l, nl = numbers(lo, 3, "lo")
    local h, nh = numbers(hi, 4, "hi")
    if ns ~= n or nl ~= n or nh ~= n then
      error("bad argument #2 (x0, step, lo and hi need the same length)", 0)
    end
    int(max_evals, 6, 1, 1000000, "max_evals")
    local m = C.dlb_minimizer_new(n, a, s, l, h, num(tol, 5), max_evals)
    if m == nil then core.error() end
    m = ffi.gc(m, C.dlb_minimizer_free)
    boxes[m] = n
    return m
  end

  local function checkmin(m)
    local n = boxes[m]
    if n == nil then error("bad argument #1 (dlbench.Minimizer expected, got " .. type(m) .. ")", 0) end
    return n
  end

  function core.minimizer_ask(m)
    local n = checkmin(m)
    local x = ffi.new("double[64]")
    if C.dlb_minimizer_ask(m, x) == 0 then return nil end
    local out = {}
    for j = 1, n do out[j] = x[j - 1] end
    return out
  end

  function core.minimizer_tell(m, f)
    checkmin(m)
    core.check(C.dlb_minimizer_tell(m, num(f, 2)))
  end

  function core.minimizer_best(m)
    local n = checkmin(m)
    local x, f, e = ffi.new("double[64]"), ffi.new("double[1]"), ffi.new("int[1]")
    core.check(C.dlb_minimizer_best(m, x, f, e))
    local out = {}
    for j = 1, n do out[j] = x[j - 1] end
    return out, f[0], tonumber(e[0])
  end
end
