-- dlbench.ffi_stats — FFI wrappers of the stats area: the same functions, names, arguments
-- and results as host/lstats.c adds to `dlbench.core`.
return function(core, C, ffi)
  local function numbers(list, what)
    assert(type(list) == "table", what .. ": table expected")
    local n = #list
    local v = ffi.new("double[?]", n + 1)
    for i = 1, n do
      local x = list[i]
      if type(x) ~= "number" then
        x = type(x) == "string" and tonumber(x) or nil
        if x == nil then
          error(string.format("%s[%d] is a %s, not a number", what, i, type(list[i])), 0)
        end
      end
      v[i - 1] = x
    end
    return v, n
  end

  function core.stats_regress(xcols, y, names, logs, options)
    local p = #xcols
    if #names ~= p or #logs ~= p then error("regress: names and logs must match the inputs", 0) end
    local yv, n = numbers(y, "regress: y")
    local x = ffi.new("double[?]", n * p + 1)
    local cnames = ffi.new("const char *[?]", p + 1)
    local flags = ffi.new("int[?]", p + 1)
    for j = 1, p do
      local col, nm = xcols[j], names[j]
      if type(nm) ~= "string" then error(string.format("regress: input %d has no name", j), 0) end
      cnames[j - 1] = nm
      flags[j - 1] = logs[j] and C.DLB_REGRESS_LOG or 0
      if type(col) ~= "table" or #col ~= n then
        error(string.format("regress: '%s' must have %d numbers, like y", nm, n), 0)
      end
      for i = 1, n do
        local v = tonumber(col[i])
        if v == nil then error(string.format("regress: '%s', row %d is not a number", nm, i), 0) end
        x[(j - 1) * n + i - 1] = v
      end
    end
    local r = C.dlb_regress(n, p, x, yv, cnames, flags, options)
    if r == nil then core.error() end
    r = ffi.gc(r, C.dlb_regression_free)
    local k = tonumber(C.dlb_regression_terms(r))
    local terms = {}
    local nm, d = ffi.new("const char *[1]"), ffi.new("double[5]")
    for j = 0, k - 1 do
      C.dlb_regression_term(r, j, nm, d + 0, d + 1, d + 2)
      C.dlb_regression_scaling(r, j, d + 3, d + 4)
      terms[j + 1] = { name = ffi.string(nm[0]), weight = d[0], se = d[1], t = d[2],
                       shift = d[3], scale = d[4] }
    end
    local f = ffi.new("dlb_regress_fit")
    C.dlb_regression_fit(r, f)
    return { terms = terms, intercept = f.intercept, intercept_se = f.intercept_se,
             intercept_t = f.intercept_t, r2 = f.r2, adj_r2 = f.adj_r2, rss = f.rss,
             sigma = f.sigma, n = f.n, k = f.k }
  end

  function core.stats_percentiles(list, ps)
    local x, n = numbers(list, "percentile: list")
    local p, np = numbers(ps, "percentile: p")
    local out = ffi.new("double[?]", np + 1)
    core.check(C.dlb_percentiles(x, n, p, np, out))
    local r = {}
    for i = 1, np do r[i] = out[i - 1] end
    return r
  end

  function core.stats_mean(list, kind)
    local x, n = numbers(list, "mean: list")
    local out = ffi.new("double[1]")
    core.check(C.dlb_mean(x, n, kind, out))
    return out[0]
  end

  function core.stats_box(list, lw, lq, hq, hw, tukey)
    local x, n = numbers(list, "box: list")
    local b = ffi.new("dlb_box")
    core.check(C.dlb_box_stats(x, n, lw, lq, hq, hw, tukey and 1 or 0, b))
    return { whisker_lo = b.whisker_lo, q_lo = b.q_lo, median = b.median, q_hi = b.q_hi,
             whisker_hi = b.whisker_hi, mean = b.mean, min = b.min, max = b.max, n = b.n,
             outliers = b.outliers }
  end

  function core.stats_csv_parse(text, sep)
    if type(text) ~= "string" then error("csv: text must be a string, got " .. type(text), 0) end
    if sep == nil then sep = "," end
    if type(sep) ~= "string" or #sep ~= 1 then error("csv: separator must be one character", 0) end
    local c = C.dlb_csv_parse(text, #text, sep:byte())
    if c == nil then core.error() end
    c = ffi.gc(c, C.dlb_csv_free)
    local n, w = tonumber(C.dlb_csv_records(c)), tonumber(C.dlb_csv_fields(c))
    local len, line, isq = ffi.new("size_t[1]"), ffi.new("size_t[1]"), ffi.new("int[1]")
    local records, lines, quoted = {}, {}, {}
    for i = 0, n - 1 do
      local rec, q = {}, nil
      for j = 0, w - 1 do
        local f = C.dlb_csv_field(c, i, j, len, isq, line, nil)
        rec[j + 1] = ffi.string(f, len[0])
        if j == 0 then lines[i + 1] = tonumber(line[0]) end
        if isq[0] ~= 0 then q = q or {}; q[j + 1] = true end
      end
      records[i + 1] = rec
      quoted[i + 1] = q
    end
    return records, lines, quoted
  end
end
