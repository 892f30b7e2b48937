-- dlbench.ffi_format — string.format under the FFI backend prints numbers as the dlbench
-- host (Lua 5.4) does, so both backends print the same text. Installed process-wide when
-- dlbench.ffi loads (like its allocation policy and JIT limits; docs/architecture.md, "Small
-- rules and their one home").
--
-- Two differences of LuaJIT 2.1's own string.format from Lua 5.4's, both seen in notebooks:
--  * halfway values: LuaJIT's formatter rounds a value exactly halfway between two outputs
--    away from zero, C's printf (glibc), which Lua 5.4 calls for %e %f %g, to even:
--    ("%.0f"):format(62.5) was "63" under LuaJIT and "62" under Lua 5.4 (notebooks/deepbench.lua
--    printed 63% / 62%), ("%.1f"):format(218.25) "218.3" / "218.2" (notebooks/validation.lua).
--    Here %e %E %f %g %G go through the C library's snprintf, as Lua 5.4's lstrlib.c does;
--    NaN and infinities then print as printf prints them, as under Lua 5.4.
--  * %d %i %c %o %x %X of a number with a fraction (3.5): LuaJIT truncated, Lua 5.4 raises
--    "number has no integer representation"; here it raises the same.
-- Everything else (%s, %q, %a, the literal text, a bad format or argument and its message) is
-- LuaJIT's own string.format, called once with the float arguments already written as text.
-- A host that wants LuaJIT's formatter keeps `local native = string.format` from before
-- `require "dlbench"` and puts it back.
local ffi = require "ffi"

-- a name of our own for the C library's snprintf (a host may declare snprintf itself)
ffi.cdef [[int dlb_ffi_snprintf(char *s, size_t n, const char *fmt, ...) __asm__("snprintf");]]
local C = ffi.C
local native = string.format
local select, type, tonumber, unpack, pairs = select, type, tonumber, unpack, pairs
-- string functions held here, not called as methods: dlbench.dataload hides the string
-- metatable's methods while a catalogue runs, and its hook formats its message then
local sfind, ssub, smatch, concat = string.find, string.sub, string.match, table.concat

local M = { native = native }

local FLOAT = { e = true, E = true, f = true, g = true, G = true }
local INT = { d = true, i = true, c = true, o = true, x = true, X = true }

-- The plan of a format: false when it has no float or integer conversion (LuaJIT's own
-- formatter prints it as Lua 5.4 does), else {fmt = the format with each float conversion
-- replaced by %s, floats = {[argument index] = conversion spec}, ints = {argument indices}}.
-- A conversion LuaJIT would refuse (a width or precision over two digits) leaves the format
-- to LuaJIT, which raises its own message.
local function parse(fmt)
  if not sfind(fmt, "%", 1, true) then return false end
  local out, floats, ints, nf, arg, pos = {}, {}, {}, 0, 0, 1
  while true do
    local s = sfind(fmt, "%", pos, true)
    if not s then out[#out + 1] = ssub(fmt, pos); break end
    out[#out + 1] = ssub(fmt, pos, s - 1)
    if ssub(fmt, s + 1, s + 1) == "%" then
      out[#out + 1] = "%%"
      pos = s + 2
    else
      local flags, width, prec, conv, e = smatch(fmt, "^%%([-+ #0]*)(%d*)(%.?%d*)(.)()", s)
      if not conv or #width > 2 or #prec > 3 then return false end
      arg = arg + 1
      local spec = ssub(fmt, s, e - 1)
      if FLOAT[conv] then
        floats[arg], nf = "%" .. flags .. width .. prec .. conv, nf + 1
        out[#out + 1] = "%s"
      else
        if INT[conv] then ints[#ints + 1] = arg end
        out[#out + 1] = spec
      end
      pos = e
    end
  end
  if nf == 0 and #ints == 0 then return false end
  local f = concat(out)
  -- the whole format one float conversion ("%.17g": cache keys, CSV numbers): no table
  return { fmt = f, floats = nf > 0 and floats or nil, ints = ints, only = f == "%s" and floats[1] or nil }
end

local plans, nplans = {}, 0
local buf, bufsize = ffi.new("char[?]", 512), 512

-- x written by the C library's snprintf with one conversion spec
local function cfmt(spec, x)
  local n = C.dlb_ffi_snprintf(buf, bufsize, spec, x)
  if n >= bufsize then
    bufsize = n + 1
    buf = ffi.new("char[?]", bufsize)
    n = C.dlb_ffi_snprintf(buf, bufsize, spec, x)
  end
  return ffi.string(buf, n)
end
M.cfmt = cfmt

function M.format(fmt, ...)
  if type(fmt) ~= "string" then return native(fmt, ...) end
  local plan = plans[fmt]
  if plan == nil then
    if nplans >= 4096 then plans, nplans = {}, 0 end -- formats made on the fly: keep it small
    plan = parse(fmt)
    plans[fmt], nplans = plan, nplans + 1
  end
  if not plan then return native(fmt, ...) end
  local only = plan.only
  if only then
    local v = ...
    if type(v) == "number" then return cfmt(only, v) end
  end
  local n = select("#", ...)
  local ints = plan.ints
  for i = 1, #ints do
    local k = ints[i]
    if k <= n then
      local v = select(k, ...)
      if type(v) == "string" then v = tonumber(v) end
      if type(v) == "number" and v % 1 ~= 0 then -- a fraction, NaN or an infinity
        error(native("bad argument #%d to 'format' (number has no integer representation)", k + 1), 2)
      end
    end
  end
  local floats = plan.floats
  if not floats then return native(fmt, ...) end
  local args = { ... }
  for k, spec in pairs(floats) do
    local v = args[k]
    if type(v) ~= "number" then v = k <= n and tonumber(v) end
    if not v then return native(fmt, ...) end -- LuaJIT's message: no value, number expected
    args[k] = cfmt(spec, v)
  end
  return native(plan.fmt, unpack(args, 1, n))
end

-- string.format of the process (and so ("..."):format) becomes M.format
function M.install()
  string.format = M.format -- luacheck: ignore
end

return M
