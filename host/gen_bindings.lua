-- gen_bindings.lua — generate both backends' glue from one description.
-- usage: luajit host/gen_bindings.lua host/bindings.lua graphs/dlbench.h OUT.c OUT.lua DESC.lua [LIB=HEADER...]
-- Reads the backend functions described in host/bindings.lua and the enums and structs of
-- the marked regions of the public headers (host/gen_regions.lua), and writes
--   OUT.c    the Lua 5.4 C-API glue (dlbG_open, called by host/lcore.c), checks in host/lbind.c
--   OUT.lua  the LuaJIT FFI glue (loaded by lua/dlbench/ffi.lua), checks in ffi_rt.lua
--   DESC.lua the description as data for the Lua library, whichever backend runs it: every
--            enum block and every struct of the regions, with its fields (name, C type,
--            array length) and the annotations of host/bindings.lua (init, required,
--            alias, ...); read through lua/dlbench/desc.lua (dlbench.desc_gen)
-- Each LIB=HEADER names a library built on libdlbench with its own header (proc=proc/dlb_proc.h:
-- libdlbench_proc): its functions are described in the same file; the C glue includes the
-- header, the FFI glue calls them through that library's namespace (libs.LIB, which
-- lua/dlbench/ffi.lua loads). Each file is written whole, and only when its text changes.
-- The description's grammar is documented at the top of host/bindings.lua.
local descfile, header, out_c, out_lua, out_desc = arg[1], arg[2], arg[3], arg[4], arg[5]
if not out_desc or out_desc:find("=", 1, true) then
  io.stderr:write("usage: gen_bindings.lua BINDINGS.lua HEADER OUT.c OUT.lua DESC.lua [LIB=HEADER...]\n")
  os.exit(2)
end
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local regions = dofile(here .. "/gen_regions.lua")
local D = dofile(descfile)
local text = table.concat(regions.collect(header), "\n")
local extralibs, libof = {}, {} -- {name, header}; C function name -> library name
for i = 6, #arg do
  local lib, h = arg[i]:match("^([%a_][%w_]*)=(.+)$")
  if not lib then
    io.stderr:write("gen_bindings: bad library argument '" .. arg[i] .. "' (LIB=HEADER)\n")
    os.exit(2)
  end
  extralibs[#extralibs + 1] = { lib, h }
  local own = table.concat(regions.collect(h, header), "\n")
  for fname in own:gsub("/%*.-%*/", " "):gmatch("(dlb_[%w_]+)%s*%(") do libof[fname] = lib end
  text = text .. "\n" .. own
end
local fmt = string.format

local function fail(where, msg) error("gen_bindings: " .. where .. ": " .. msg, 0) end

---------------------------------------------------------------- header facts
local enums = {} -- {name, value} in header order
local enumval = {}
local enumblocks = {} -- one list of {name, value} per enum { ... } block, in header order
do
  local t = text:gsub("/%*.-%*/", " ")
  for body in t:gmatch("enum%s*{(.-)}") do
    local block = {}
    for name, v in body:gmatch("(DLB_[%w_]+)%s*=%s*(%-?%d+)") do
      enums[#enums + 1] = { name, tonumber(v) }
      enumval[name] = tonumber(v)
      block[#block + 1] = { name, tonumber(v) }
    end
    if #block > 0 then enumblocks[#enumblocks + 1] = block end
  end
end

local structs = {} -- name -> {{cname, ctype, count}, ...}
local structorder = {} -- their names in header order
do
  local t = text:gsub("/%*.-%*/", " ")
  for name, body in t:gmatch("struct%s+([%w_]+)%s*(%b{})") do
    local fields = {}
    for decl in body:sub(2, -2):gmatch("[^;]+") do
      local ty, rest = decl:match("^%s*([%w_]+)%s+(.-)%s*$")
      if ty then
        for item in rest:gmatch("[^,]+") do
          local nm, cnt = item:match("^%s*([%w_]+)%s*%[%s*(%d+)%s*%]%s*$")
          if not nm then nm = item:match("^%s*([%w_]+)%s*$") end
          if nm then fields[#fields + 1] = { nm, ty, tonumber(cnt) } end
        end
      end
    end
    if not structs[name] then structorder[#structorder + 1] = name end
    structs[name] = fields
  end
end

---------------------------------------------------------------- parsing the description
local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

local function splitcommas(s)
  local parts, depth, cur = {}, 0, {}
  for ch in s:gmatch(".") do
    if ch == "(" or ch == "[" or ch == "{" then depth = depth + 1 end
    if ch == ")" or ch == "]" or ch == "}" then depth = depth - 1 end
    if ch == "," and depth == 0 then
      parts[#parts + 1] = trim(table.concat(cur)); cur = {}
    else
      cur[#cur + 1] = ch
    end
  end
  if trim(table.concat(cur)) ~= "" then parts[#parts + 1] = trim(table.concat(cur)) end
  return parts
end

local handles = D.handles
local MAXARRAY = "100000000"

-- arg: {name, kind, opt, default, max, eq, struct, label, lo, hi}
local function parsearg(s, where)
  local name, spec = s:match("^([%w_]+)%s*:%s*(.+)$")
  if not name then fail(where, "bad argument '" .. s .. "'") end
  local a = { name = name, label = name }
  spec = spec:gsub("%s*<([^>]*)>$", function(l) a.label = l; return "" end)
  local eq, dflt
  spec = spec:gsub("%s*==%s*(.+)$", function(e) eq = e; return "" end)
  spec = spec:gsub("%s*=%s*(.-)$", function(d) dflt = d; return "" end)
  a.default, a.eq = dflt, eq
  local st = spec:match("^struct%s+([%w_]+)$")
  if st then
    if not structs[st] then fail(where, "no struct " .. st .. " in the header") end
    a.kind, a.struct = "struct", st
    return a
  end
  local sts, smax = spec:match("^structs%s+([%w_]+)%[(.*)%]$")
  if sts then
    if not structs[sts] then fail(where, "no struct " .. sts .. " in the header") end
    a.kind, a.struct, a.max = "structs", sts, smax ~= "" and smax or MAXARRAY
    return a
  end
  local vof = spec:match("^values%(([%w_]+)%)$")
  if vof then a.kind, a.of = "values", vof; return a end
  local sfx = spec:match("^suffix%(([%w_]+)%)$")
  if sfx then a.kind, a.of = "suffix", sfx; return a end
  local kind, q, rest = spec:match("^([%w_]+)([%?~]?)(.*)$")
  if not kind then fail(where, "bad kind '" .. spec .. "'") end
  a.kind, a.opt, a.plain = kind, q == "?", q == "~"
  local lo, hi = rest:match("^%((.-)%.%.(.+)%)$")
  local max = rest:match("^%[(.-)%]$")
  if lo then a.lo, a.hi = lo, hi
  elseif max then
    local mn, mx = max:match("^(%d+)%.%.(.*)$") -- [MIN..MAX]: at least MIN elements
    if mn then a.min, max = tonumber(mn), mx end
    a.max = max ~= "" and max or MAXARRAY
  elseif rest ~= "" then fail(where, "bad kind suffix '" .. rest .. "'") end
  if (kind == "numbers" or kind == "ints" or kind == "strings") and not a.max then a.max = MAXARRAY end
  if not (handles[kind] or kind == "string" or kind == "bytes" or kind == "number"
          or kind == "int" or kind == "size" or kind == "bool" or kind == "numbers"
          or kind == "ints" or kind == "strings") then
    fail(where, "unknown kind '" .. kind .. "'")
  end
  return a
end

-- result: {name|nil, type, count}
local function parseresult(s, where)
  local name, ty = s:match("^([%w_]+)%s*:%s*(.+)$")
  if not name then ty = s end
  local r = { name = name }
  local st = ty:match("^struct%s+([%w_]+)$")
  if st then
    if not structs[st] then fail(where, "no struct " .. st) end
    r.type, r.struct = "struct", st
    return r
  end
  local lb, lexpr = ty:match("^([%w_]+)(%b{})$")
  if lb then
    r.type, r.list = lb, lexpr:sub(2, -2)
    local e, cv = r.list:match("^(.-),%s*([%w_]+)$")
    if e then r.list, r.countvar = e, cv end
    return r
  end
  local ofree, ocount = ty:match("^owned%(([%w_]+),%s*([%w_]+)%)$")
  if ofree then r.type, r.free, r.countvar = "owned", ofree, ocount; return r end
  local bk, bexpr = ty:match("^(%a+)s(%b())$")
  if bk == "double" or bk == "int" then r.type, r.borrowed = bk, bexpr:sub(2, -2); return r end
  local base, cnt = ty:match("^([%w_]+)%[([%w_]+)%]$")
  if base then r.type, r.count = base, cnt else r.type = ty end
  return r
end

local function parsefn(line)
  local name, args, rest = line:match("^%s*([%w_]+)%s*(%b())%s*(.*)$")
  if not name then fail(line, "cannot parse") end
  local f = { name = name, args = {}, results = {} }
  for _, s in ipairs(splitcommas(args:sub(2, -2))) do f.args[#f.args + 1] = parsearg(s, name) end
  local res, call = rest:match("^%->%s*(.-)%s*=%s*(.+)$")
  if not res then call = rest:match("^=%s*(.+)$") end
  if not call then fail(name, "no '= call'") end
  for _, s in ipairs(res and splitcommas(res) or {}) do f.results[#f.results + 1] = parseresult(s, name) end
  local mode, code
  call = trim(call)
  local m = call:match("^check%s+")
  if m then
    mode = "check"
    call = call:sub(#m + 1)
    local how, c, rest2 = call:match("^(%a+)%((DLB_[%w_]+)%)%s+(.+)$")
    if how then mode, code, call = how, c, rest2
    elseif call:match("^soft%s+") then mode, call = "soft", call:match("^soft%s+(.+)$") end
  end
  f.mode, f.code, f.call = mode or "value", code, call
  f.argof, f.outof = {}, {}
  for i, a in ipairs(f.args) do a.index = i; f.argof[a.name] = a end
  for _, r in ipairs(f.results) do if r.name then f.outof[r.name] = r end end
  return f
end

---------------------------------------------------------------- shared by both emitters
-- The same decisions for both glues, each written in its language by templates: what a
-- status-returning call does with its status (the `check`, `soft`, `soft(CODE)`, `nil(CODE)`
-- forms of the grammar), and how many elements of an output list are returned.
local STATUS = {
  c = { soft = "  if (st != DLB_OK) { luaL_pushfail(L); lua_pushstring(L, dlb_last_error()); lua_pushinteger(L, st); return 3; }",
        nilcode = "  if (st == %s) { lua_pushnil(L); return 1; }",
        softcode = "  if (st == %s) { luaL_pushfail(L); lua_pushstring(L, dlb_last_error()); return 2; }",
        check = "  dlbL_check(L, st);" },
  lua = { soft = "  if st ~= 0 then return nil, ffi.string(C.dlb_last_error()), st end",
          nilcode = "  if st == C.%s then return nil end",
          softcode = "  if st == C.%s then return nil, ffi.string(C.dlb_last_error()) end",
          check = "  if st ~= 0 then core.error() end" },
}

-- The lines after `st = CALL` (language "c" or "lua"), in order.
local function status_lines(f, lang)
  local T, out = STATUS[lang], {}
  if f.mode == "soft" and not f.code then out[#out + 1] = T.soft end
  if f.code and f.mode == "nil" then out[#out + 1] = fmt(T.nilcode, f.code)
  elseif f.code then out[#out + 1] = fmt(T.softcode, f.code) end
  out[#out + 1] = T.check
  return out
end

-- The element count of output list r: its capacity c_NAME, or the count C reported in
-- output COUNTVAR when smaller.
-- (both formatted with COUNTVAR, NAME, COUNTVAR, NAME; string.format ignores the unused)
local LISTCOUNT = { c = "(o_%s < c_%s ? (size_t)o_%s : c_%s)", lua = "math.min(tonumber(o_%s[0]), c_%s)" }
local function listcount(r, lang)
  if not r.countvar then return "c_" .. r.name end
  return fmt(LISTCOUNT[lang], r.countvar, r.name, r.countvar, r.name)
end

---------------------------------------------------------------- C emission
local ctypes = { int = "int", double = "double", size = "size_t", bool = "int", char = "char",
                 cstr = "const char *", number = "double" }

-- cast<TYPE>(x) in a call: kept aside while names are rewritten
local function hidecasts(e)
  local casts = {}
  e = e:gsub("cast<([^>]*)>", function(t) casts[#casts + 1] = t; return "\1" .. #casts .. "\2" end)
  return e, casts
end

local function c_expr(f, e)
  local casts
  e, casts = hidecasts(e)
  e = e:gsub("#([%w_]+)", "n_%1")
  e = e:gsub("&?[%a_][%w_]*", function(id)
    local amp, nm = id:match("^(&?)(.*)$")
    if f.argof[nm] then return amp .. "a_" .. nm end
    if f.outof[nm] then return amp .. "o_" .. nm end
    return id
  end)
  e = e:gsub("TEXT", "buf, size")
  e = e:gsub("\1(%d+)\2(%b())", function(k, x) return "((" .. casts[tonumber(k)] .. ")" .. x .. ")" end)
  return e
end

local function lua_expr(f, e, numeric)
  local casts
  e, casts = hidecasts(e)
  if numeric then e = e:gsub("(dlb_[%w_]+%b())", "tonumber(%1)") end
  e = e:gsub("#([%w_]+)", "n_%1")
  e = e:gsub("&?[%a_][%w_]*", function(id)
    local nm = id:match("^&?(.*)$")
    if f.argof[nm] then return "a_" .. nm end
    if f.outof[nm] then return "o_" .. nm end
    if libof[nm] then return "LIB_" .. libof[nm] .. "." .. nm end
    if nm:match("^dlb_") or nm:match("^DLB_") then return "C." .. nm end
    if nm == "NULL" then return "nil" end
    if nm == "TEXT" then return "buf, size" end
    return id
  end)
  e = e:gsub("\1(%d+)\2(%b())", function(k, x) return fmt("ffi.cast(%q, %s)", casts[tonumber(k)], x) end)
  return e
end

local function cstr(s) return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"'):gsub("\n", "\\n") .. '"' end

-- struct field tables (C and Lua), made on first use
local cfields, lfields, cfield_order, lfield_order = {}, {}, {}, {}
local function structspec(name)
  local ann = (D.structs or {})[name] or {}
  return ann
end

local function cfieldtable(name, label)
  if cfields[name] then return "F_" .. name end
  local ann = structspec(name)
  local lines = {}
  local rename = ann.rename or {}
  for _, fld in ipairs(structs[name]) do
    local cname, ty, cnt = fld[1], fld[2], fld[3]
    if not (ann.skip or {})[cname] then
      local key = rename[cname] or cname
      local shown = (ann.shown or {})[cname] or key
      -- init: absent fields keep what the C init function set (NAN marks "keep")
      local dflt = (ann.default or {})[cname] or (ann.init and "NAN") or 0
      local req = (ann.required or {})[cname] and 1 or 0
      local alias = (ann.alias or {})[cname]
      local sub, sublabel = "NULL", "NULL"
      if structs[ty] then
        sub = "F_" .. cfieldtable(ty):gsub("^F_", "")
        sublabel = cstr(key .. ".")
      end
      local count, countoff = 0, "0"
      if cnt then
        count = cnt
        countoff = ann.count and ann.count[cname] and fmt("offsetof(%s, %s)", name, ann.count[cname]) or "(size_t)-1"
      end
      lines[#lines + 1] = fmt("  {%s, %s, %s, offsetof(%s, %s), %d, %s, %d, %s, %s, %d, %s, %d, %s},",
        cstr(key), cstr(shown), cstr(ann.close or ""), name, cname, ty == "int" and 1 or 0,
        tostring(dflt), req, sub, sublabel, count, countoff, ann.whole and 1 or 0,
        alias and cstr(alias) or "NULL")
    end
  end
  cfields[name] = fmt("static const dlbG_field F_%s[] = {\n%s\n  {NULL, NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, NULL}\n};",
    name, table.concat(lines, "\n"))
  cfield_order[#cfield_order + 1] = name
  return "F_" .. name
end

local function lfieldtable(name)
  if lfields[name] then return "S_" .. name end
  local ann = structspec(name)
  local rename = ann.rename or {}
  local ins, outs = {}, {}
  for _, fld in ipairs(structs[name]) do
    local cname, ty, cnt = fld[1], fld[2], fld[3]
    if not (ann.skip or {})[cname] then
      local key = rename[cname] or cname
      local shown = (ann.shown or {})[cname] or key
      local dflt = (ann.default or {})[cname] or (ann.init and "0/0") or 0
      local req = (ann.required or {})[cname] and "true" or "false"
      local alias = (ann.alias or {})[cname]
      local sub, sublabel = "nil", "nil"
      if structs[ty] then sub = lfieldtable(ty); sublabel = fmt("%q", key .. ".") end
      ins[#ins + 1] = fmt("{%q, %q, %q, %q, %s, %s, %s, %s, %s, %s}", key, shown, ann.close or "",
        cname, ty == "int" and "true" or "false", tostring(dflt), req, sub, sublabel,
        alias and fmt("%q", alias) or "nil")
      outs[#outs + 1] = fmt("{%q, %q, %s, %s, %s}", key, cname, ty == "int" and "true" or "false",
        cnt and tostring(cnt) or "nil", cnt and ann.count and ann.count[cname] and fmt("%q", ann.count[cname]) or "nil")
    end
  end
  lfields[name] = fmt("local S_%s = {%q, {%s}, %s}\nlocal P_%s = {%q, {%s}}", name, name,
    table.concat(ins, ", "), ann.init and "C." .. ann.init or "nil", name, name, table.concat(outs, ", "))
  lfield_order[#lfield_order + 1] = name
  return "S_" .. name
end

local function structlabel(f, a)
  local ann = structspec(a.struct)
  return fmt(ann.label or "%s.", a.name)
end

local C, L = {}, {}
local function cl(s) C[#C + 1] = s end
local function ll(s) L[#L + 1] = s end

local function emit_c(f)
  local fn = f.name:gsub("^_", "") -- messages name the function a composite stands for
  cl(fmt("/* -- core.%s */", f.name))
  cl(fmt("static int g_%s(lua_State *L) {", f.name))
  if #f.args > 0 then cl(fmt("  lua_settop(L, %d); /* scratch memory goes above the arguments */", #f.args)) end
  for _, a in ipairs(f.args) do
    local i, k, v = a.index, a.kind, "a_" .. a.name
    local function opt(expr, dflt)
      if a.default then return fmt("lua_isnoneornil(L, %d) ? %s : %s", i, dflt or a.default, expr) end
      if a.opt then return fmt("lua_isnoneornil(L, %d) ? %s : %s", i, dflt or "NULL", expr) end
      return expr
    end
    if handles[k] then
      local h = handles[k]
      cl(fmt("  %s *%s = dlbG_handle(L, %d, %s, &K_%s, %s);", h[1], v, i, cstr(h[2]), k, cstr(fn)))
    elseif k == "string" then
      cl(fmt("  const char *%s = %s;", v, opt(fmt("dlbG_string(L, %d, %s, NULL)", i, cstr(fn)),
        a.default and cstr(a.default:match('^"(.*)"$') or a.default))))
    elseif k == "bytes" then
      cl(fmt("  size_t n_%s; const char *%s = dlbG_string(L, %d, %s, &n_%s);", a.name, v, i, cstr(fn), a.name))
    elseif k == "number" then
      cl(fmt("  double %s = %s;", v, opt(fmt("dlbG_number(L, %d, %s)", i, cstr(fn)))))
    elseif k == "int" or k == "size" then
      local lo, hi = a.lo or (k == "size" and "0" or "-2147483647 - 1"), a.hi or "2147483647"
      if k == "size" and not a.hi then hi = "9007199254740992LL" end
      cl(fmt("  %s %s = (%s)%s;", ctypes[k], v, ctypes[k],
        opt(fmt("dlbG_integer(L, %d, %s, (long long)(%s), (long long)(%s), %s)", i, cstr(fn),
          c_expr(f, lo), c_expr(f, hi), a.lo and cstr(a.name) or "NULL"))))
    elseif k == "bool" then
      cl(fmt("  int %s = lua_toboolean(L, %d);", v, i))
    elseif k == "numbers" or k == "ints" or k == "strings" then
      local ty = ({ numbers = "double *", ints = "int *", strings = "const char **" })[k]
      local cmax = tonumber(a.max) or enumval[a.max]
      local buf = "NULL"
      cl(fmt("  size_t n_%s = 0;", a.name))
      if cmax and cmax <= 1024 then -- bounded arrays live on the C stack
        buf = "b_" .. a.name
        cl(fmt("  %s%s[%s + 1];", ty:gsub("%*$", ""), buf, a.max))
      end
      local call = fmt("dlbG_%s(L, %d, %s, %s, %s, &n_%s, %s)", k, i, cstr(fn), cstr(a.label), a.max, a.name, buf)
      if a.plain then -- not a plain list of strings and numbers: the function returns nil
        cl(fmt("  if (!dlbG_plainlist(L, %d)) { lua_pushnil(L); return 1; }", i))
      end
      if a.opt then
        cl(fmt("  %s%s = lua_isnoneornil(L, %d) ? NULL : %s;", ty, v, i, call))
      else
        cl(fmt("  %s%s = %s;", ty, v, call))
      end
      if a.min then
        cl(fmt("  if (n_%s < %d) dlbG_argerror(L, %d, %s, \"%%s\", %s);", a.name, a.min, i, cstr(fn),
          cstr(a.min == 1 and a.label .. " is empty" or fmt("%s needs at least %d values", a.label, a.min))))
      end
    elseif k == "structs" then
      cl(fmt("  size_t n_%s = 0;", a.name))
      local init, proto = structspec(a.struct).init, "NULL"
      if init then -- each element starts as one struct argument does (its init)
        cl(fmt("  %s proto_%s;", a.struct, a.name))
        cl(fmt("  %s(&proto_%s);", init, a.name))
        proto = "&proto_" .. a.name
      end
      cl(fmt("  %s *%s = dlbG_structs(L, %d, %s, %s, sizeof *%s, %s, %s, &n_%s, %s, %s);", a.struct, v,
        i, cstr(fn), cfieldtable(a.struct), v, proto, a.max, a.name, cstr(a.label),
        cstr(structlabel(f, a))))
    elseif k == "values" then -- {name = number} for the variables of poly a.of; else nil
      cl(fmt("  double %s[DLB_POLY_MAXVARS];", v))
      cl(fmt("  if (!dlbG_varvalues(L, %d, %s, a_%s, %s)) { lua_pushnil(L); return 1; }", i, cstr(fn), a.of, v))
    elseif k == "suffix" then -- an optional integer appended to string argument a.of
      cl(fmt("  char cat_%s[512];", a.of))
      cl(fmt("  if (!lua_isnoneornil(L, %d)) a_%s = dlbG_suffix(L, %d, %s, a_%s, cat_%s);", i, a.of, i,
        cstr(fn), a.of, a.of))
    elseif k == "struct" then
      cl(fmt("  %s %s;", a.struct, v))
      local init = structspec(a.struct).init
      if init then cl(fmt("  %s(&%s);", init, v)) else cl(fmt("  memset(&%s, 0, sizeof %s);", v, v)) end
      cl(fmt("  dlbG_getstruct(L, %d, %s, %s, &%s, %s);", i, cstr(fn), cfieldtable(a.struct), v,
        cstr(structlabel(f, a))))
    end
  end
  for _, a in ipairs(f.args) do
    if a.eq then
      local other = a.eq:match("^#([%w_]+)$")
      local guard = a.opt and fmt("a_%s && ", a.name) or ""
      if other then
        local og = f.argof[other].opt and fmt("a_%s && ", other) or ""
        cl(fmt("  if (%s%sn_%s != n_%s) dlbG_lenerror(L, %s, n_%s, %s, n_%s);", guard, og, a.name,
          other, cstr(a.label), a.name, cstr(f.argof[other].label), other))
      else
        cl(fmt("  if (%sn_%s != (size_t)(%s)) dlbG_argerror(L, %d, %s, \"%%I values, %%I expected\", (lua_Integer)n_%s, (lua_Integer)(%s));",
          guard, a.name, c_expr(f, a.eq), a.index, cstr(fn), a.name, c_expr(f, a.eq)))
      end
    end
  end
  for _, r in ipairs(f.results) do
    if r.name then
      if r.struct then
        cl(fmt("  %s o_%s;", r.struct, r.name))
        cl(fmt("  memset(&o_%s, 0, sizeof o_%s);", r.name, r.name))
      elseif r.list and tonumber(r.list) and tonumber(r.list) <= 1024 then
        cl(fmt("  size_t c_%s = %s;", r.name, r.list))
        cl(fmt("  %s o_%s[%s]; /* C fills what it counts */", ctypes[r.type], r.name, r.list))
      elseif r.list then
        cl(fmt("  size_t c_%s = (size_t)(%s);", r.name, c_expr(f, r.list)))
        cl(fmt("  %s *o_%s = lua_newuserdatauv(L, sizeof *o_%s * (c_%s ? c_%s : 1), 0);", ctypes[r.type],
          r.name, r.name, r.name, r.name))
        cl(fmt("  memset(o_%s, 0, sizeof *o_%s * (c_%s ? c_%s : 1));", r.name, r.name, r.name, r.name))
      elseif r.type == "owned" then
        cl(fmt("  char *o_%s = NULL;", r.name))
      elseif r.count and handles[r.type] then
        cl(fmt("  %s *o_%s[%s] = {0};", handles[r.type][1], r.name, r.count))
      elseif r.count then
        cl(fmt("  %s o_%s[%s] = {0};", ctypes[r.type], r.name, r.count))
      else
        cl(fmt("  %s o_%s = 0;", ctypes[r.type], r.name))
      end
    end
  end
  local call = c_expr(f, f.call)
  local first = f.results[1]
  local n = 0
  if f.mode == "value" and first and not first.name then
    if handles[first.type] then
      cl(fmt("  return dlbG_newhandle(L, %s, %s);", call, cstr(handles[first.type][2])))
      cl("}")
      return
    elseif first.type == "text" then
      cl("  char small[256], *buf = small;")
      cl("  size_t size = sizeof small;")
      cl(fmt("  size_t len = %s;", call))
      cl("  if (len >= sizeof small) {")
      cl("    size = len + 1;")
      cl("    buf = lua_newuserdatauv(L, size, 0);")
      cl(fmt("    %s;", call))
      cl("  }")
      cl("  lua_pushlstring(L, buf, len < size ? len : size - 1);")
    elseif first.borrowed then
      cl(fmt("  const %s *r = %s;", ctypes[first.type], call))
      cl(fmt("  size_t c = (size_t)(%s);", c_expr(f, first.borrowed)))
      cl("  lua_createtable(L, c < 0x7fffffff ? (int)c : 0, 0);")
      cl(fmt("  for (size_t k = 0; k < c; k++) { lua_push%s(L, r[k]); lua_rawseti(L, -2, (lua_Integer)k + 1); }",
        first.type == "int" and "integer" or "number"))
    else
      local rt = (first.type == "string" or first.type == "string?") and "const char *"
        or (first.type == "int?" or first.type == "int!") and "int" or ctypes[first.type] or "double"
      cl(fmt("  %s r = %s;", rt, call))
      local t = first.type
      if t == "number" or t == "double" then cl("  lua_pushnumber(L, r);")
      elseif t == "int" or t == "size" then cl("  lua_pushinteger(L, (lua_Integer)r);")
      elseif t == "int?" then cl("  if (r < 0) lua_pushnil(L); else lua_pushinteger(L, r);")
      elseif t == "int!" then cl("  if (r < 0) return dlbL_error(L);"); cl("  lua_pushinteger(L, r);")
      elseif t == "bool" then cl("  lua_pushboolean(L, r != 0);")
      elseif t == "string" or t == "string?" then cl("  lua_pushstring(L, r);")
      else fail(fn, "unknown result type " .. t) end
    end
    n = 1
  elseif f.mode == "value" then
    cl(fmt("  %s;", call))
  else
    cl(fmt("  int st = %s;", call))
    for _, l in ipairs(status_lines(f, "c")) do cl(l) end
  end
  for _, r in ipairs(f.results) do
    if r.name then
      local o = "o_" .. r.name
      if r.name:sub(1, 1) == "_" then -- not returned
      elseif r.struct then
        cl(fmt("  dlbG_pushstruct(L, %s, &%s);", cfieldtable(r.struct), o)); n = n + 1
      elseif r.type == "owned" then -- a buffer C allocated: copied, then freed
        cl(fmt("  lua_pushlstring(L, %s ? %s : \"\", %s ? (size_t)o_%s : 0);", o, o, o, r.countvar))
        cl(fmt("  %s(%s);", r.free, o)); n = n + 1
      elseif r.list and r.type == "char" then -- bytes
        local c = listcount(r, "c")
        cl(fmt("  lua_pushlstring(L, %s, %s);", o, c))
        n = n + 1
      elseif r.list then
        local c = listcount(r, "c")
        cl(fmt("  lua_createtable(L, %s < 0x7fffffff ? (int)%s : 0, 0);", c, c))
        cl(fmt("  for (size_t k = 0; k < %s; k++) { lua_push%s(L, %s[k]); lua_rawseti(L, -2, (lua_Integer)k + 1); }",
          c, r.type == "int" and "integer" or "number", o))
        n = n + 1
      elseif r.count and handles[r.type] then
        cl(fmt("  lua_createtable(L, %s, 0);", r.count))
        cl(fmt("  for (int k = 0; k < %s; k++) { dlbG_newhandle(L, %s[k], %s); lua_rawseti(L, -2, k + 1); }",
          r.count, o, cstr(handles[r.type][2])))
        n = n + 1
      elseif r.type == "char" then
        cl(fmt("  lua_pushstring(L, %s);", o)); n = n + 1
      elseif r.count then
        cl(fmt("  for (int k = 0; k < %s; k++) lua_push%s(L, %s[k]);", r.count,
          r.type == "int" and "integer" or "number", o))
        n = n + (tonumber(r.count) or enumval[r.count] or fail(fn, "count " .. r.count))
      elseif r.type == "double" then cl(fmt("  lua_pushnumber(L, %s);", o)); n = n + 1
      elseif r.type == "int" or r.type == "size" then cl(fmt("  lua_pushinteger(L, (lua_Integer)%s);", o)); n = n + 1
      elseif r.type == "bool" then cl(fmt("  lua_pushboolean(L, %s != 0);", o)); n = n + 1
      elseif r.type == "cstr" then cl(fmt("  lua_pushstring(L, %s);", o)); n = n + 1
      else fail(fn, "unknown out type " .. r.type) end
    end
  end
  if f.mode == "soft" and (f.code or n == 0) then
    cl("  lua_pushboolean(L, 1);")
    n = n + 1
  end
  cl(fmt("  return %d;", n))
  cl("}")
end

local function emit_lua(f)
  local fn = f.name:gsub("^_", "")
  local params = {}
  for _, a in ipairs(f.args) do params[#params + 1] = "p_" .. a.name end
  local pre = {}
  local function pl(s) pre[#pre + 1] = s end
  for _, r in ipairs(f.results) do
    if r.name then
      local o = fmt("o_%s_%s", fn, r.name)
      if r.list and tonumber(r.list) then pl(fmt("local %s = ffi.new(\"%s[%s]\")", o, ctypes[r.type], r.list))
      elseif r.list then -- sized per call
      elseif r.type == "owned" then pl(fmt("local %s = ffi.new(\"char *[1]\")", o))
      elseif r.count and handles[r.type] then pl(fmt("local %s = ffi.new(\"%s *[%s]\")", o, handles[r.type][1], tostring(tonumber(r.count) or enumval[r.count])))
      elseif r.struct then pl(fmt("local %s = ffi.new(%q)", o, r.struct))
      elseif r.count then pl(fmt("local %s = ffi.new(\"%s[%s]\")", o, ctypes[r.type], tostring(tonumber(r.count) or enumval[r.count])))
      else pl(fmt("local %s = ffi.new(\"%s[1]\")", o, ctypes[r.type])) end
    end
  end
  ll("do")
  local doat = #L
  for _, s in ipairs(pre) do ll(s) end
  ll(fmt("function core.%s(%s)", f.name, table.concat(params, ", ")))
  local anchors = {}
  for _, a in ipairs(f.args) do
    local i, k, v, p = a.index, a.kind, "a_" .. a.name, "p_" .. a.name
    local q = fmt("%q", fn)
    local function opt(expr, dflt)
      if a.default then return fmt("(%s == nil and %s or %s)", p, dflt or a.default, expr) end
      if a.opt then return fmt("(%s ~= nil and %s or nil)", p, expr) end
      return expr
    end
    if handles[k] then
      ll(fmt("  local %s = R.handle(%s, %d, %s, CT_%s, %q)", v, p, i, q, k, handles[k][2]))
    elseif k == "string" then
      ll(fmt("  local %s = %s", v, opt(fmt("R.string(%s, %d, %s)", p, i, q))))
    elseif k == "bytes" then
      ll(fmt("  local %s = R.string(%s, %d, %s, true)", v, p, i, q))
      ll(fmt("  local n_%s = #%s", a.name, v))
    elseif k == "number" then
      ll(fmt("  local %s = %s", v, opt(fmt("R.number(%s, %d, %s)", p, i, q))))
    elseif k == "int" or k == "size" then
      local lo, hi = a.lo or (k == "size" and "0" or "-2147483648"), a.hi or "2147483647"
      if k == "size" and not a.hi then hi = "9007199254740992" end
      lo, hi = lua_expr(f, lo, true), lua_expr(f, hi, true)
      ll(fmt("  local %s = %s", v, opt(fmt("R.integer(%s, %d, %s, %s, %s%s)", p, i, q, lo, hi,
        a.lo and fmt(", %q", a.name) or ""))))
    elseif k == "bool" then
      ll(fmt("  local %s = %s and 1 or 0", v, p))
    elseif k == "numbers" or k == "ints" or k == "strings" then
      local extra = k == "strings" and fmt(", k_%s", a.name) or ""
      local cmax = tonumber(a.max) or enumval[a.max]
      local buf = ""
      if cmax and cmax <= 1024 then -- bounded arrays: one buffer, reused (calls do not nest)
        buf = fmt(", B_%s_%s", fn, a.name)
        table.insert(L, doat + 1, fmt("local B_%s_%s = ffi.new(\"%s[%d]\")", fn, a.name,
          ({ numbers = "double", ints = "int", strings = "const char *" })[k], cmax + 1))
      end
      local call = fmt("R.%s(%s, %d, %s, %q, %s%s)", k, p, i, q, a.label, lua_expr(f, a.max, true), buf)
      if a.plain then ll(fmt("  if not R.plainlist(%s) then return nil end", p)) end
      ll(fmt("  local %s, n_%s%s = nil, 0", v, a.name, extra))
      if a.opt then
        ll(fmt("  if %s ~= nil then %s, n_%s%s = %s end", p, v, a.name, extra, call))
      else
        ll(fmt("  %s, n_%s%s = %s", v, a.name, extra, call))
      end
      if a.min then
        ll(fmt("  if n_%s < %d then R.argerror(%d, %q, %q) end", a.name, a.min, i, fn,
          a.min == 1 and a.label .. " is empty" or fmt("%s needs at least %d values", a.label, a.min)))
      end
      if k == "strings" then anchors[#anchors + 1] = "k_" .. a.name end
    elseif k == "struct" then
      ll(fmt("  local %s = R.getstruct(%s, %d, %s, %s, %q)", v, p, i, q, lfieldtable(a.struct),
        structlabel(f, a)))
    elseif k == "values" then
      table.insert(L, doat + 1, fmt("local V_%s = ffi.new(\"double[%d]\")", fn, enumval.DLB_POLY_MAXVARS))
      ll(fmt("  local %s = R.varvalues(%s, %d, %s, a_%s, V_%s, C)", v, p, i, q, a.of, fn))
      ll(fmt("  if %s == nil then return nil end", v))
    elseif k == "suffix" then
      ll(fmt("  if %s ~= nil then a_%s = a_%s .. string.format(\"%%d\", R.integer(%s, %d, %s, -9007199254740992, 9007199254740992)) end",
        p, a.of, a.of, p, i, q))
    elseif k == "structs" then
      ll(fmt("  local %s, n_%s = R.structs(%s, %d, %s, %s, %s, %q, %q)", v, a.name, p, i, q,
        lfieldtable(a.struct), lua_expr(f, a.max, true), a.label, structlabel(f, a)))
    end
  end
  for _, a in ipairs(f.args) do
    if a.eq then
      local other = a.eq:match("^#([%w_]+)$")
      local guard = a.opt and fmt("a_%s ~= nil and ", a.name) or ""
      if other then
        local og = f.argof[other].opt and fmt("a_%s ~= nil and ", other) or ""
        ll(fmt("  if %s%sn_%s ~= n_%s then R.lenerror(%q, n_%s, %q, n_%s) end", guard, og, a.name,
          other, a.label, a.name, f.argof[other].label, other))
      else
        local e = lua_expr(f, a.eq, true)
        ll(fmt("  if %sn_%s ~= tonumber(%s) then R.argerror(%d, %q, string.format(\"%%d values, %%d expected\", n_%s, tonumber(%s))) end",
          guard, a.name, e, a.index, fn, a.name, e))
      end
    end
  end
  for _, r in ipairs(f.results) do
    if r.name and r.list and tonumber(r.list) then
      ll(fmt("  local c_%s, o_%s = %s, o_%s_%s", r.name, r.name, r.list, fn, r.name))
    elseif r.name and r.list then
      ll(fmt("  local c_%s = %s", r.name, lua_expr(f, r.list, true)))
      ll(fmt("  local o_%s = ffi.new(\"%s[?]\", c_%s > 0 and c_%s or 1)", r.name, ctypes[r.type], r.name, r.name))
    elseif r.name then ll(fmt("  local o_%s = o_%s_%s", r.name, fn, r.name)) end
  end
  for j, k in ipairs(anchors) do ll(fmt("  ANCHOR[%d] = %s", j, k)) end
  local call = lua_expr(f, f.call)
  -- outputs passed as &x are 1-element arrays; in the C text they are addresses
  local first = f.results[1]
  local rets = {}
  local function clear() for j in ipairs(anchors) do ll(fmt("  ANCHOR[%d] = nil", j)) end end
  if f.mode == "value" and first and not first.name then
    local t = first.type
    if t == "text" then
      ll("  local buf, size = SMALL, 256")
      ll(fmt("  local len = tonumber(%s)", call))
      ll("  if len >= 256 then")
      ll("    size = len + 1")
      ll("    buf = ffi.new(\"char[?]\", size)")
      ll(fmt("    %s", call))
      ll("  end")
      clear()
      ll("  return ffi.string(buf, len < size and len or size - 1)")
      ll("end end")
      return
    end
    ll(fmt("  local r = %s", call))
    clear()
    if first.borrowed then
      ll(fmt("  local t = {}"))
      ll(fmt("  for k = 0, %s - 1 do t[k + 1] = tonumber(r[k]) end", lua_expr(f, first.borrowed, true)))
      ll("  return t")
      ll("end end")
      return
    end
    if handles[t] then
      ll(fmt("  if r == nil then core.error() end"))
      ll(fmt("  return ffi.gc(r, C.%s)", handles[t].free))
      ll("end end")
      return
    elseif t == "size" then rets[#rets + 1] = "tonumber(r)"
    elseif t == "number" or t == "double" then rets[#rets + 1] = "r"
    elseif t == "int" then rets[#rets + 1] = "r"
    elseif t == "int?" then rets[#rets + 1] = "(r >= 0 and r or nil)"
    elseif t == "int!" then ll("  if r < 0 then core.error() end"); rets[#rets + 1] = "r"
    elseif t == "bool" then rets[#rets + 1] = "r ~= 0"
    elseif t == "string" or t == "string?" then rets[#rets + 1] = "(r ~= nil and ffi.string(r) or nil)"
    else fail(fn, "unknown result " .. t) end
  elseif f.mode == "value" then
    ll(fmt("  %s", call))
    clear()
  else
    ll(fmt("  local st = %s", call))
    clear()
    for _, l in ipairs(status_lines(f, "lua")) do ll(l) end
  end
  for _, r in ipairs(f.results) do
    if r.name then
      local o = "o_" .. r.name
      if r.name:sub(1, 1) == "_" then -- not returned
      elseif r.list and r.type == "char" then
        local c = listcount(r, "lua")
        rets[#rets + 1] = fmt("ffi.string(%s, %s)", o, c)
      elseif r.list then
        local c = listcount(r, "lua")
        ll(fmt("  local l_%s = {}", r.name))
        ll(fmt("  for k = 0, %s - 1 do l_%s[k + 1] = tonumber(%s[k]) end", c, r.name, o))
        rets[#rets + 1] = "l_" .. r.name
      elseif r.count and handles[r.type] then
        ll(fmt("  local l_%s = {}", r.name))
        ll(fmt("  for k = 0, %s - 1 do l_%s[k + 1] = ffi.gc(%s[k], C.%s) end", tostring(tonumber(r.count) or enumval[r.count]), r.name, o, handles[r.type].free))
        rets[#rets + 1] = "l_" .. r.name
      elseif r.struct then rets[#rets + 1] = fmt("R.pushstruct(%s, P_%s)", o, r.struct); lfieldtable(r.struct)
      elseif r.type == "owned" then -- a buffer C allocated: copied, then freed
        ll(fmt("  local s_%s = %s[0] ~= nil and ffi.string(%s[0], tonumber(o_%s[0])) or \"\"", r.name, o, o, r.countvar))
        ll(fmt("  C.%s(%s[0])", r.free, o))
        ll(fmt("  %s[0] = nil", o))
        rets[#rets + 1] = "s_" .. r.name
      elseif r.type == "char" then rets[#rets + 1] = fmt("ffi.string(%s)", o)
      elseif r.count then
        local n = tonumber(r.count) or enumval[r.count]
        for k = 0, n - 1 do rets[#rets + 1] = fmt("tonumber(%s[%d])", o, k) end
      elseif r.type == "bool" then rets[#rets + 1] = fmt("%s[0] ~= 0", o)
      elseif r.type == "cstr" then rets[#rets + 1] = fmt("(%s[0] ~= nil and ffi.string(%s[0]) or nil)", o, o)
      elseif r.type == "size" then rets[#rets + 1] = fmt("tonumber(%s[0])", o)
      else rets[#rets + 1] = fmt("%s[0]", o) end -- int, double: already Lua numbers
    end
  end
  if f.mode == "soft" and (f.code or #rets == 0) then rets[#rets + 1] = "true" end
  if #rets > 0 then ll("  return " .. table.concat(rets, ", ")) end
  ll("end end")
end

---------------------------------------------------------------- output
local fns = {}
for _, line in ipairs(D.functions) do fns[#fns + 1] = parsefn(line) end

-- outputs &x in the Lua call: a 1-element array is already a pointer; struct outs too
for _, f in ipairs(fns) do
  f.call = f.call
  emit_c(f)
  emit_lua(f)
end

local writefile = regions.writefile -- whole or not at all, through a unique temporary

-- C file
local head = {
  "/* Generated by host/gen_bindings.lua from host/bindings.lua and the public headers: do not edit. */",
  "#include <math.h>", "#include <stddef.h>", "#include <string.h>", "", "#include <lua.h>", "#include <lauxlib.h>", "",
  '#include "dlbench.h"',
}
for _, l in ipairs(extralibs) do head[#head + 1] = fmt('#include "%s"', l[2]:match("[^/]*$")) end
head[#head + 1] = '#include "dlbL.h"'
head[#head + 1] = ""
for _, name in ipairs(cfield_order) do head[#head + 1] = cfields[name] end
do
  local ks = {}
  for k in pairs(handles) do ks[#ks + 1] = k end
  table.sort(ks)
  for _, k in ipairs(ks) do head[#head + 1] = fmt("static const char K_%s; /* registry key of the metatable */", k) end
end
local reg, meta = {}, {}
for _, f in ipairs(fns) do reg[#reg + 1] = fmt("  {%q, g_%s},", f.name, f.name) end
local hnames = {}
for k in pairs(handles) do hnames[#hnames + 1] = k end
table.sort(hnames)
for _, k in ipairs(hnames) do
  local h = handles[k]
  meta[#meta + 1] = fmt([[
static int gc_%s(lua_State *L) {
  void **b = luaL_checkudata(L, 1, %s);
  if (*b) %s(*b);
  *b = NULL;
  return 0;
}]], k, cstr(h[2]), h.free)
end
local lsrc = D.lua or ""
local tail = {}
tail[#tail + 1] = "static const luaL_Reg gfuncs[] = {\n" .. table.concat(reg, "\n") .. "\n  {NULL, NULL}\n};"
tail[#tail + 1] = "static const struct { const char *name; int value; } genums[] = {"
for _, e in ipairs(enums) do tail[#tail + 1] = fmt("  {%q, %s},", e[1], e[1]) end
tail[#tail + 1] = "  {NULL, 0}\n};"
tail[#tail + 1] = "/* Backend functions written once in Lua over the generated ones (host/bindings.lua). */"
tail[#tail + 1] = "static const char composites[] =\n  " .. cstr(lsrc):gsub("\\n", "\\n\"\n  \"") .. ";"
local open = { "", "/* Add the generated functions, handle metatables, enums (core.enum) and composites to",
  "** the backend table on top of the stack. */", "int dlbG_open(lua_State *L) {" }
for _, k in ipairs(hnames) do
  local h = handles[k]
  open[#open + 1] = fmt("  luaL_newmetatable(L, %s);", cstr(h[2]))
  open[#open + 1] = "  lua_pushvalue(L, -1);"
  open[#open + 1] = fmt("  lua_rawsetp(L, LUA_REGISTRYINDEX, &K_%s);", k)
  open[#open + 1] = fmt("  lua_pushcfunction(L, gc_%s); lua_setfield(L, -2, \"__gc\");", k)
  open[#open + 1] = fmt("  lua_pushcfunction(L, gc_%s); lua_setfield(L, -2, \"__close\");", k)
  if h.tostring then
    open[#open + 1] = fmt("  lua_pushcfunction(L, g_%s); lua_setfield(L, -2, \"__tostring\");", h.tostring)
  end
  open[#open + 1] = "  lua_pop(L, 1);"
end
open[#open + 1] = "  luaL_setfuncs(L, gfuncs, 0);"
open[#open + 1] = "  lua_pushcfunction(L, dlbG_typename_l);"
open[#open + 1] = "  lua_setfield(L, -2, \"_typename\");"
open[#open + 1] = "  lua_newtable(L);"
open[#open + 1] = "  for (int i = 0; genums[i].name; i++) {"
open[#open + 1] = "    lua_pushinteger(L, genums[i].value);"
open[#open + 1] = "    lua_setfield(L, -2, genums[i].name);"
open[#open + 1] = "  }"
open[#open + 1] = "  lua_setfield(L, -2, \"enum\");"
open[#open + 1] = "  if (luaL_loadbufferx(L, composites, sizeof composites - 1, \"=host/bindings.lua\", \"t\") != LUA_OK)"
open[#open + 1] = "    return lua_error(L);"
open[#open + 1] = "  lua_pushvalue(L, -2);"
open[#open + 1] = "  lua_call(L, 1, 0);"
open[#open + 1] = "  return 0;"
open[#open + 1] = "}"
writefile(out_c, table.concat(head, "\n") .. "\n\n" .. table.concat(meta, "\n\n") .. "\n\n"
  .. table.concat(C, "\n") .. "\n\n" .. table.concat(tail, "\n") .. "\n" .. table.concat(open, "\n") .. "\n")

-- Lua file
local lh = {
  "-- Generated by host/gen_bindings.lua from host/bindings.lua and the public headers: do not edit.",
  "return function(core, C, ffi, libs)",
  "local R = require \"dlbench.ffi_rt\"",
  "local ANCHOR = {} -- strings made from numbers, alive while their call runs",
  "local SMALL = ffi.new(\"char[256]\")",
}
for _, l in ipairs(extralibs) do
  lh[#lh + 1] = fmt("local LIB_%s = assert(libs and libs.%s, \"ffi_gen: library %s not loaded\")", l[1], l[1], l[1])
end
for _, k in ipairs(hnames) do
  lh[#lh + 1] = fmt("local CT_%s = ffi.typeof(%q)", k, handles[k][1] .. " *")
  lh[#lh + 1] = fmt("R.handles[#R.handles + 1] = {CT_%s, %q}", k, handles[k][2])
end
for _, name in ipairs(lfield_order) do lh[#lh + 1] = lfields[name] end
lh[#lh + 1] = "core._typename = R.typename"
local en = {}
for _, e in ipairs(enums) do en[#en + 1] = fmt("%s = %d", e[1], e[2]) end
lh[#lh + 1] = "core.enum = {" .. table.concat(en, ", ") .. "}"
local lt = { "local composites = assert((loadstring or load)(" .. fmt("%q", lsrc) .. ", \"=host/bindings.lua\"))",
  "composites(core)", "end" }
writefile(out_lua, table.concat(lh, "\n") .. "\n" .. table.concat(L, "\n") .. "\n" .. table.concat(lt, "\n") .. "\n")

-- The description as data (DESC.lua): enums and structs for the Lua library.
dofile(here .. "/gen_desc.lua")(out_desc, header, enumblocks, structorder, structs, D, writefile)
