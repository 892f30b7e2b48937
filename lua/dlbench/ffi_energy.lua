-- dlbench.ffi_energy — FFI wrappers of the energy area: the same functions, names,
-- arguments and results as host/lenergy.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
  local function str(v, i)
    if type(v) ~= "string" then
      error(string.format("bad argument #%d (string expected, got %s)", i, type(v)), 0)
    end
    return v
  end
  local function num(v, i)
    if type(v) ~= "number" then
      error(string.format("bad argument #%d (number expected, got %s)", i, type(v)), 0)
    end
    return v
  end

  function core.energy_tables()
    local t = {}
    for i = 0, C.dlb_energy_table_count() - 1 do
      t[i + 1] = { name = ffi.string(C.dlb_energy_table_name(i)),
                   note = ffi.string(C.dlb_energy_table_note(i)) }
    end
    return t
  end

  function core.energy_precisions(table_name)
    local t = str(table_name, 1)
    local n = C.dlb_energy_precision_count(t)
    if n < 0 then core.check(C.dlb_energy_cost_get(t, "", ffi.new("dlb_energy_cost"))) end -- the library's message
    local r = {}
    for i = 0, n - 1 do r[i + 1] = ffi.string(C.dlb_energy_precision_name(t, i)) end
    return r
  end

  function core.energy_cost(table_name, precision)
    local t, p = str(table_name, 1), str(precision, 2)
    local c = ffi.new("dlb_energy_cost")
    core.check(C.dlb_energy_cost_get(t, p, c))
    local r = { add = c.add, mul = c.mul, rf = c.rf, sram = c.sram, dram = c.dram,
                word_bytes = c.word_bytes, source = {} }
    for _, f in ipairs { "add", "mul", "rf", "sram", "dram" } do
      local s = C.dlb_energy_source(t, p, f)
      r.source[f] = s ~= nil and ffi.string(s) or nil
    end
    return r
  end

  function core.energy_step(add, mul, rf, sram, dram, word, flops, rfb, sramb, dramb)
    local c = ffi.new("dlb_energy_cost")
    c.add, c.mul, c.rf = num(add, 1), num(mul, 2), num(rf, 3)
    c.sram, c.dram, c.word_bytes = num(sram, 4), num(dram, 5), num(word, 6)
    local s = ffi.new("dlb_energy_split")
    core.check(C.dlb_energy_step(c, num(flops, 7), num(rfb, 8), num(sramb, 9), num(dramb, 10), s))
    return { compute = s.compute, rf = s.rf, sram = s.sram, dram = s.dram, total = s.total }
  end
end
