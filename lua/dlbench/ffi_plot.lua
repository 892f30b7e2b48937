-- dlbench.ffi_plot — FFI wrappers of the plot area: the same functions, names, arguments
-- and results as host/lplot.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
  local function str(s, what)
    if type(s) ~= "string" and type(s) ~= "number" then
      error(string.format("bad argument (%s): string expected, got %s", what, type(s)), 3)
    end
    return tostring(s)
  end
  local function num(v, what)
    if type(v) ~= "number" then
      error(string.format("bad argument (%s): number expected, got %s", what, type(v)), 3)
    end
    return v
  end
  local function fig(h)
    if type(h) ~= "cdata" or h == nil then error("dlbench.Figure expected, got " .. type(h), 3) end
    return h
  end

  function core.plot_figure_new(w, h, rows, cols)
    local f = C.dlb_figure_new(num(w, "width"), num(h, "height"), num(rows, "rows"),
                               num(cols, "cols"))
    if f == nil then core.error() end
    return ffi.gc(f, C.dlb_figure_free)
  end
  function core.plot_figure_num(f, k, v) core.check(C.dlb_figure_num(fig(f), str(k, "key"), num(v, "value"))) end
  function core.plot_figure_str(f, k, v) core.check(C.dlb_figure_str(fig(f), str(k, "key"), str(v, "value"))) end
  function core.plot_panel_num(f, p, k, v)
    core.check(C.dlb_panel_num(fig(f), num(p, "panel"), str(k, "key"), num(v, "value")))
  end
  function core.plot_panel_str(f, p, k, v)
    core.check(C.dlb_panel_str(fig(f), num(p, "panel"), str(k, "key"), str(v, "value")))
  end

  function core.plot_panel_ticks(f, p, ax, t)
    if type(t) ~= "table" then error("bad argument #4: table expected, got " .. type(t), 2) end
    local n = #t
    local v = ffi.new("double[?]", n > 0 and n or 1)
    for i = 1, n do
      if type(t[i]) ~= "number" then
        error(string.format("%s[%d] is %s, not a number", ax == 1 and "yticks" or "xticks", i,
          type(t[i])), 0)
      end
      v[i - 1] = t[i]
    end
    core.check(C.dlb_panel_ticks(fig(f), num(p, "panel"), num(ax, "axis"), v, n))
  end
  function core.plot_panel_ticklabel(f, p, ax, i, label)
    core.check(C.dlb_panel_ticklabel(fig(f), num(p, "panel"), num(ax, "axis"), num(i, "index"),
      str(label, "label")))
  end

  local idbuf = ffi.new("int[1]")
  function core.plot_series_new(f, p, kind)
    core.check(C.dlb_series_new(fig(f), num(p, "panel"), num(kind, "kind"), idbuf))
    return idbuf[0]
  end

  function core.plot_series_data(f, id, name, t)
    if type(t) ~= "table" then error("bad argument #4: table expected, got " .. type(t), 2) end
    local n = #t
    local v = ffi.new("double[?]", n > 0 and n or 1)
    for i = 1, n do
      local x = t[i]
      if type(x) ~= "number" then
        error(string.format("%s[%d] is %s, not a number", name, i, type(x)), 0)
      end
      v[i - 1] = x
    end
    core.check(C.dlb_series_data(fig(f), id, str(name, "name"), v, n))
  end

  function core.plot_series_strs(f, id, name, t)
    if type(t) ~= "table" then error("bad argument #4: table expected, got " .. type(t), 2) end
    for i = 1, #t do
      local s = t[i]
      if type(s) ~= "string" and type(s) ~= "number" then
        error(string.format("%s[%d] is %s, not a string", name, i, type(s)), 0)
      end
      core.check(C.dlb_series_addstr(fig(f), id, name, tostring(s)))
    end
  end

  function core.plot_series_num(f, id, k, v) core.check(C.dlb_series_num(fig(f), id, str(k, "key"), num(v, "value"))) end
  function core.plot_series_str(f, id, k, v) core.check(C.dlb_series_str(fig(f), id, str(k, "key"), str(v, "value"))) end

  function core.plot_series_commit(f, id)
    core.check(C.dlb_series_commit(fig(f), id))
    local w = ffi.string(C.dlb_figure_warning(f))
    if w ~= "" then return w end
    return nil
  end

  function core.plot_series_drop(f, id) core.check(C.dlb_series_drop(fig(f), id)) end

  function core.plot_series_options(kind, which)
    local s = C.dlb_series_options(kind, which)
    if s == nil then return nil end
    return ffi.string(s)
  end

  local nbuf = ffi.new("size_t[1]")
  local text = ffi.new("char[256]")
  function core.plot_overlaps(f)
    core.check(C.dlb_figure_layout(fig(f)))
    core.check(C.dlb_figure_overlaps(f, nbuf))
    local out = {}
    for i = 0, tonumber(nbuf[0]) - 1 do
      core.check(C.dlb_figure_overlap_text(f, i, text, 256))
      out[#out + 1] = ffi.string(text)
    end
    return out
  end

  function core.plot_layout_warning(f)
    core.check(C.dlb_figure_layout(fig(f)))
    return ffi.string(C.dlb_figure_layout_warning(f))
  end

  local d2 = ffi.new("double[4]")
  function core.plot_to_point(f, p, x, y)
    core.check(C.dlb_panel_to_point(fig(f), num(p, "panel"), num(x, "x"), num(y, "y"), d2, d2 + 1))
    return d2[0], d2[1]
  end

  local cnt, tv, tb = ffi.new("int[1]"), ffi.new("double[1]"), ffi.new("char[64]")
  function core.plot_ticks_of(f, p, ax)
    core.check(C.dlb_panel_tick_count(fig(f), num(p, "panel"), num(ax, "axis"), cnt))
    local vs, ls = {}, {}
    for i = 0, cnt[0] - 1 do
      core.check(C.dlb_panel_tick(f, p, ax, i, tv, tb, 64))
      vs[i + 1], ls[i + 1] = tv[0], ffi.string(tb)
    end
    return vs, ls
  end

  function core.plot_save(f, path, dpi)
    local st = C.dlb_figure_save(fig(f), str(path, "path"), dpi or 0)
    if st == C.DLB_EIO then return nil, ffi.string(C.dlb_last_error()) end
    core.check(st)
    return true
  end

  local cm = ffi.new("int[1]")
  function core.plot_cmap(name, t)
    core.check(C.dlb_cmap_lookup(str(name, "name"), cm))
    core.check(C.dlb_cmap_eval(cm[0], num(t, "t"), d2))
    return d2[0], d2[1], d2[2]
  end

  function core.plot_palette(i)
    C.dlb_palette(num(i, "index"), d2)
    return d2[0], d2[1], d2[2]
  end

  local wh = ffi.new("int[2]")
  function core.plot_png_size(path)
    core.check(C.dlb_png_size(str(path, "path"), wh, wh + 1))
    return wh[0], wh[1]
  end

  function core.plot_png_pixel(path, x, y)
    core.check(C.dlb_png_pixel(str(path, "path"), num(x, "x"), num(y, "y"), d2))
    return d2[0], d2[1], d2[2], d2[3]
  end

  local tk = ffi.new("double[256]")
  function core.plot_ticks(lo, hi, target)
    core.check(C.dlb_ticks_linear(num(lo, "lo"), num(hi, "hi"), num(target, "target"), tk, 256, nbuf))
    local out = {}
    for i = 0, tonumber(nbuf[0]) - 1 do out[#out + 1] = tk[i] end
    return out
  end

  local fb = ffi.new("char[64]")
  function core.plot_tick_format(v, step, style)
    core.check(C.dlb_tick_format(num(v, "value"), num(step, "step"), str(style, "style"), fb, 64))
    return ffi.string(fb)
  end
end
