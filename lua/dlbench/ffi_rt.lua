-- dlbench.ffi_rt — the argument checks and conversions of the generated FFI glue
-- (lua/dlbench/ffi_gen.lua, made by host/gen_bindings.lua from host/bindings.lua). Every
-- message is the twin of one in host/lbind.c, word for word, so both backends raise the same
-- errors (tests/lua/test_binding_matrix.lua). Arrays are read raw (no __index, no __len),
-- as the C-API backend reads them.
local ffi = require "ffi"
local R = {}
local floor, fmt, rawget, type, tonumber = math.floor, string.format, rawget, type, tonumber
local cfmt = require("dlbench.ffi_format").cfmt

R.handles = {} -- {ctype, metatable name} of every handle kind (filled by ffi_gen)

function R.typename(v)
  local t = type(v)
  if t == "cdata" then
    for _, h in ipairs(R.handles) do
      if ffi.istype(h[1], v) then return h[2] end
    end
  end
  return t
end

local function argerror(i, fn, msg)
  error(fmt("bad argument #%d to '%s' (%s)", i, fn, msg), 0)
end
R.argerror = argerror

local function typeerror(i, fn, want, v)
  argerror(i, fn, want .. " expected, got " .. R.typename(v))
end

function R.handle(v, i, fn, ct, meta)
  if type(v) ~= "cdata" or not ffi.istype(ct, v) or v == nil then typeerror(i, fn, meta, v) end
  return v
end

function R.numtext(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if v == floor(v) and math.abs(v) < 9007199254740992 then return fmt("%.0f", v) end
  -- C's snprintf, as host/lbind.c's dlbG_numtext: LuaJIT's own %.17g rounds a value exactly
  -- halfway at the 17th digit the other way (2^-25: ...312e-08 / ...313e-08; ffi_format.lua)
  return cfmt("%.17g", v)
end
local numtext = R.numtext

function R.string(v, i, fn, bytes)
  local t = type(v)
  if t == "number" then v = numtext(v)
  elseif t ~= "string" then typeerror(i, fn, "string", v) end
  if not bytes and v:find("\0", 1, true) then argerror(i, fn, "string contains a NUL byte") end
  return v
end

function R.number(v, i, fn)
  if type(v) ~= "number" then typeerror(i, fn, "number", v) end
  return v
end

-- what: the argument's name for a declared range ("kernel must be 0..3")
function R.integer(v, i, fn, lo, hi, what)
  if type(v) ~= "number" then typeerror(i, fn, "number", v) end
  if v ~= floor(v) or v >= 9223372036854775808 or v < -9223372036854775808 then
    argerror(i, fn, "number has no integer representation")
  end
  if (v < lo or v > hi) and what then
    argerror(i, fn, fmt("%s must be %.0f..%.0f", what, math.ceil(lo), floor(hi)))
  end
  if v < lo or v > hi then argerror(i, fn, "integer out of range") end
  return v
end

local function arraylen(t, i, fn, max, what)
  if type(t) ~= "table" then typeerror(i, fn, what, t) end
  local n = #t -- LuaJIT: the raw length
  if n > max then argerror(i, fn, fmt("more than %.0f values", max)) end
  return n
end

function R.numbers(t, i, fn, label, max, buf)
  local n = arraylen(t, i, fn, max, "table of numbers")
  local v = buf or ffi.new("double[?]", n > 0 and n or 1)
  for k = 1, n do
    local x = rawget(t, k)
    -- a numeric string ("1") too, as host/lbind.c's dlbG_numbers
    if type(x) ~= "number" then error(fmt("%s[%d] is a %s, not a number", label, k, R.typename(x)), 0) end
    v[k - 1] = x
  end
  return v, n
end

function R.ints(t, i, fn, label, max, buf)
  local n = arraylen(t, i, fn, max, "table of integers")
  local v = buf or ffi.new("int[?]", n > 0 and n or 1)
  for k = 1, n do
    local x = rawget(t, k)
    if type(x) ~= "number" or x ~= floor(x) or x < -2147483648 or x > 2147483647 then
      error(fmt("%s[%d] is not an integer", label, k), 0)
    end
    v[k - 1] = x
  end
  return v, n
end

-- Returns the C array, the count and a table holding the strings (keep it alive until the
-- call returns: the C array does not).
function R.strings(t, i, fn, label, max, buf)
  local n = arraylen(t, i, fn, max, "table of strings")
  local v = buf or ffi.new("const char *[?]", n + 1)
  local keep -- texts of numbers (the strings of t are held by t)
  for k = 1, n do
    local s = rawget(t, k)
    local ts = type(s)
    if ts == "number" then
      s = numtext(s)
      keep = keep or {}
      keep[k] = s
    elseif ts ~= "string" then
      error(fmt("%s[%d] is a %s, not a string", label, k, R.typename(s)), 0)
    end
    if s:find("\0", 1, true) then error(fmt("%s[%d] contains a NUL byte", label, k), 0) end
    v[k - 1] = s
  end
  v[n] = nil
  return v, n, keep
end

-- The values of poly p's variables from {name = number} t into buf (nil when one has none);
-- the names are read once per poly.
local varnames = setmetatable({}, { __mode = "k" })
function R.varvalues(t, i, fn, p, buf, C)
  if type(t) ~= "table" then typeerror(i, fn, "table", t) end
  local names = varnames[p]
  if not names then
    names = {}
    for k = 0, tonumber(C.dlb_poly_nvars(p)) - 1 do names[k + 1] = ffi.string(C.dlb_poly_varname(p, k)) end
    varnames[p] = names
  end
  for k = 1, #names do
    local v = t[names[k]]
    if type(v) ~= "number" then
      if v == nil then return nil end
      error(fmt("poly: value of %s must be a number, got %s", names[k], R.typename(v)), 0)
    end
    buf[k - 1] = v
  end
  return buf
end

-- true when t is a table without metatable holding only strings and numbers
function R.plainlist(t)
  if type(t) ~= "table" or getmetatable(t) ~= nil then return false end
  for k = 1, #t do
    local tk = type(rawget(t, k))
    if tk ~= "string" and tk ~= "number" then return false end
  end
  return true
end

function R.lenerror(b, nb, a, na)
  error(fmt("%s has %d values but %s has %d", b, nb, a, na), 0)
end

-- spec: {ctype, {{name, shown, close, cfield, isint, dflt, required, sub, sublabel, alias},
-- ...}, init}; dflt NaN: an absent field keeps what init set
local function fill(c, t, i, fn, spec, label)
  if type(t) ~= "table" then typeerror(i, fn, "table", t) end
  for _, f in ipairs(spec[2]) do
    local v = t[f[1]]
    if v == nil and f[10] then v = t[f[10]] end
    local tv = type(v)
    if tv == "table" and f[8] then
      fill(c[f[4]], v, i, fn, f[8], f[9])
    elseif not f[8] then
      if tv == "number" then -- as is
      elseif tv == "boolean" then v = v and 1 or 0
      elseif v == nil then
        if f[7] then error(fmt("%s%s%s is required", label, f[2], f[3]), 0) end
        v = f[6]
        if v ~= v then v = c[f[4]] end
      else
        error(fmt("%s%s%s must be a number, got %s", label, f[2], f[3], R.typename(v)), 0)
      end
      c[f[4]] = v
    end
  end
  return c
end

function R.getstruct(t, i, fn, spec, label)
  local c = ffi.new(spec[1])
  if spec[3] then spec[3](c) end
  return fill(c, t, i, fn, spec, label)
end

function R.structs(t, i, fn, spec, max, what, label)
  local n = arraylen(t, i, fn, max, "table of tables")
  local a = ffi.new(spec[1] .. "[?]", n > 0 and n or 1)
  for k = 1, n do
    local e = rawget(t, k)
    if type(e) ~= "table" then error(fmt("%s[%d] must be a table", what, k), 0) end
    if spec[3] then spec[3](a[k - 1]) end -- as one struct argument starts (R.getstruct)
    fill(a[k - 1], e, i, fn, spec, label)
  end
  return a, n
end

-- spec: {ctype, {{name, cfield, isint, count, countfield, whole}, ...}}
function R.pushstruct(c, spec)
  local r = {}
  for _, f in ipairs(spec[2]) do
    if f[4] then
      local a, n = {}, f[5] and tonumber(c[f[5]]) or f[4]
      for k = 1, math.min(n, f[4]) do a[k] = tonumber(c[f[2]][k - 1]) end
      r[f[1]] = a
    else
      r[f[1]] = tonumber(c[f[2]])
    end
  end
  return r
end

return R
