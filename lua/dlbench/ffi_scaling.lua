-- dlbench.ffi_scaling — FFI wrappers of the scaling area: the same functions, names, arguments
-- and results as host/lscaling.c adds to `dlbench.core`.
return function(core, C, ffi)
  local function array(t, what, optional)
    if optional and t == nil then return nil, -1 end
    if type(t) ~= "table" then
      error(string.format("bad argument %s (table of numbers expected, got %s)", what, type(t)), 0)
    end
    local n = #t
    local v = ffi.new("double[?]", n > 0 and n or 1)
    for i = 1, n do
      local x = tonumber(t[i])
      if type(t[i]) ~= "number" and not (type(t[i]) == "string" and x) then
        error(string.format("%s[%d] is a %s, not a number", what, i, type(t[i])), 0)
      end
      v[i - 1] = x
    end
    return v, n
  end

  local function samelen(a, na, b, nb)
    if nb >= 0 and na ~= nb then
      error(string.format("%s has %d values but %s has %d", b, nb, a, na), 0)
    end
  end

  local function list(v, n)
    local t = {}
    for i = 1, n do t[i] = tonumber(v[i - 1]) end
    return t
  end

  local function integer(v, what)
    if type(v) ~= "number" or v ~= math.floor(v) then
      error(string.format("bad argument %s (integer expected, got %s)", what, tostring(v)), 0)
    end
    return v
  end

  local function nparams(form)
    local np = C.dlb_scaling_form_params(form)
    if np < 0 then core.error() end
    return np
  end

  function core.scaling_fit(form, xs, ys, ws)
    integer(form, "form")
    local x, nx = array(xs, "xs")
    local y, ny = array(ys, "ys")
    local w, nw = array(ws, "weights", true)
    samelen("xs", nx, "ys", ny)
    samelen("xs", nx, "weights", nw)
    local f = ffi.new("dlb_scaling_fit")
    core.check(C.dlb_scaling_fit_curve(form, nx, x, y, w, f))
    return { params = list(f.params, f.np), se = list(f.se, f.np), np = f.np, n = f.n,
             rss = f.rss, r2 = f.r2, iterations = f.iterations }
  end

  local out1 = ffi.new("double[1]")

  -- The parameter array, which must hold exactly what `form` takes.
  local function formparams(form, params)
    integer(form, "form")
    local q, np = array(params, "params")
    local need = nparams(form)
    if np ~= need then
      error(string.format("params has %d values, the form needs %d", np, need), 0)
    end
    return q
  end

  function core.scaling_eval(form, params, x)
    local q = formparams(form, params)
    core.check(C.dlb_scaling_eval(form, q, x, out1))
    return out1[0]
  end

  function core.scaling_invert(form, params, y)
    local q = formparams(form, params)
    core.check(C.dlb_scaling_invert(form, q, y, out1))
    return out1[0]
  end

  function core.scaling_bootstrap(form, xs, ys, ws, reps, seed)
    integer(form, "form")
    local x, nx = array(xs, "xs")
    local y, ny = array(ys, "ys")
    local w, nw = array(ws, "weights", true)
    integer(reps, "reps")
    samelen("xs", nx, "ys", ny)
    samelen("xs", nx, "weights", nw)
    local np = nparams(form)
    local se, lo, hi = ffi.new("double[5]"), ffi.new("double[5]"), ffi.new("double[5]")
    local used = ffi.new("int[1]")
    if reps < 2 or reps > 1000000 then error("bad argument #5 (2 to 1000000 resamples)", 0) end
    local samples = ffi.new("double[?]", reps * np)
    core.check(C.dlb_scaling_bootstrap_samples(form, nx, x, y, w, reps, seed or 1, samples, used))
    core.check(C.dlb_scaling_bootstrap_stats(np, used[0], samples, se, lo, hi))
    return { se = list(se, np), lo = list(lo, np), hi = list(hi, np), used = used[0],
      samples = list(samples, used[0] * np) }
  end

  function core.scaling_linfit(X, k, ys, ws)
    local xv, nX = array(X, "X")
    integer(k, "k")
    local y, ny = array(ys, "y")
    local w, nw = array(ws, "weights", true)
    if k < 1 or k > 8 then error("bad argument #2 (between 1 and 8 columns)", 0) end
    if nX ~= k * ny then
      error(string.format("X has %d values, expected %d columns x %d rows", nX, k, ny), 0)
    end
    samelen("y", ny, "weights", nw)
    local c, se, r2 = ffi.new("double[8]"), ffi.new("double[8]"), ffi.new("double[1]")
    core.check(C.dlb_scaling_linfit(ny, k, xv, y, w, c, se, r2))
    return { coef = list(c, k), se = list(se, k), r2 = r2[0] }
  end

  function core.scaling_fit_costs(params, batch, flops, bytes, footprint)
    local p, np = array(params, "params")
    local b, nb = array(batch, "batch")
    local f, nf = array(flops, "flops", true)
    local by, nby = array(bytes, "bytes", true)
    local fo, nfo = array(footprint, "footprint", true)
    samelen("params", np, "batch", nb)
    samelen("params", np, "flops", nf)
    samelen("params", np, "bytes", nby)
    samelen("params", np, "footprint", nfo)
    local c = ffi.new("dlb_cost_fit")
    core.check(C.dlb_scaling_fit_costs(np, p, b, f, by, fo, c))
    return { gamma = c.gamma_c, gamma_se = c.gamma_se, gamma_r2 = c.gamma_r2,
             lambda = c.lambda, lambda_se = c.lambda_se, mu = c.mu, mu_se = c.mu_se,
             bytes_r2 = c.bytes_r2, delta = c.delta, delta_se = c.delta_se,
             footprint_r2 = c.footprint_r2 }
  end

  function core.scaling_fit_joint(Ns, Ds, Ls, huber)
    local N, nN = array(Ns, "N")
    local D, nD = array(Ds, "D")
    local L, nL = array(Ls, "L")
    samelen("N", nN, "D", nD)
    samelen("N", nN, "L", nL)
    local f = ffi.new("dlb_joint_fit")
    core.check(C.dlb_scaling_fit_joint(nN, N, D, L, huber or 0, f))
    return { E = f.E, A = f.A, B = f.B, alpha = f.alpha, beta = f.beta, se = list(f.se, 5),
             rss = f.rss, r2 = f.r2, n = f.n, iterations = f.iterations }
  end

  function core.scaling_compute_optimal(E, A, B, alpha, beta, Cb, k)
    local args = { E, A, B, alpha, beta, Cb, k }
    for i = 1, 7 do
      if type(args[i]) ~= "number" then
        error(string.format("bad argument #%d (number expected, got %s)", i, type(args[i])), 0)
      end
    end
    local o = ffi.new("double[5]")
    core.check(C.dlb_scaling_compute_optimal(E, A, B, alpha, beta, Cb, k,
                                             o, o + 1, o + 2, o + 3, o + 4))
    return { N = o[0], D = o[1], loss = o[2], a = o[3], b = o[4] }
  end
end
