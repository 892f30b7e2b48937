-- dlbench.ffi_proc — the hand-written part of the proc area under FFI: the row codec, as
-- host/lproc.c (which says why it is not generated). C is libdlbench_proc (proc/).
local L = require "dlbench.ffi_lib"
local ffi, C = L.ffi, L.P


local M = {}
do
  -- The row codec: the layout host/lproc.c describes, byte for byte. LuaJIT numbers are
  -- doubles, so rows it encodes use 'd' for every number; 'i' words decode to numbers.
  local u8p = ffi.typeof("const uint8_t *")
  local dbuf, dcap = ffi.new("double[64]"), 64        -- numbers of one row
  local obuf, ocap = ffi.new("char[1024]"), 1024      -- the encoded row
  local tagb = ffi.new("uint8_t[64]")
  local i64 = ffi.new("long long[1]")
  local D, I, S, T, F, A = 100, 105, 115, 116, 102, 45 -- 'd' 'i' 's' 't' 'f' '-'

  local function put32(p, o, x)
    p[o] = x % 256; x = (x - x % 256) / 256
    p[o + 1] = x % 256; x = (x - x % 256) / 256
    p[o + 2] = x % 256; x = (x - x % 256) / 256
    p[o + 3] = x
  end

  function M.proc_encode_row(row, cols, index)
    if type(row) ~= "table" or type(cols) ~= "table" or type(index) ~= "table" then
      error("encode_row: row, cols and index must be tables", 0)
    end
    local new, nkeys = nil, 0
    for k, v in pairs(row) do
      nkeys = nkeys + 1
      if type(k) ~= "string" then error("encode_row: a " .. type(k) .. " key (names are strings)", 0) end
      local tv = type(v)
      if tv ~= "number" and tv ~= "string" and tv ~= "boolean" then
        error(string.format("encode_row: column '%s' holds a %s (numbers, strings, booleans)", k, tv), 0)
      end
      if index[k] == nil then new = new or {}; new[#new + 1] = k end
    end
    local n0 = #cols
    local n = n0
    if new then
      for i = 1, #new do n = n + 1; cols[n] = new[i]; index[new[i]] = n end
    end
    if n > 4294967295 then error("encode_row: too many columns", 0) end
    if n > dcap then dbuf, tagb, dcap = ffi.new("double[?]", n), ffi.new("uint8_t[?]", n), n end
    local total, nw, strs, present = 8 + n, 0, nil, 0
    for c = n0 + 1, n do
      local nm = cols[c]
      if type(nm) ~= "string" then error("encode_row: cols[" .. c .. "] is not a name", 0) end
      total = total + 4 + #nm
    end
    for c = 1, n do
      local nm = cols[c]
      if type(nm) ~= "string" then error("encode_row: cols[" .. c .. "] is not a name", 0) end
      local v = rawget(row, nm)
      local tv = type(v)
      if v ~= nil then present = present + 1 end
      if v == nil then tagb[c - 1] = A
      elseif tv == "number" then tagb[c - 1] = D; dbuf[nw] = v; nw = nw + 1; total = total + 8
      elseif tv == "string" then
        tagb[c - 1] = S
        strs = strs or {}
        strs[#strs + 1] = v
        total = total + 4 + #v
      elseif v then tagb[c - 1] = T
      else tagb[c - 1] = F end
    end
    if present ~= nkeys then error("encode_row: index names a column that cols lacks", 0) end
    if total > ocap then
      ocap = math.max(total, 2 * ocap)
      obuf = ffi.new("char[?]", ocap)
    end
    local p = ffi.cast("uint8_t *", obuf)
    put32(p, 0, n - n0)
    local o = 4
    for c = n0 + 1, n do
      local nm = cols[c]
      put32(p, o, #nm)
      ffi.copy(p + o + 4, nm, #nm)
      o = o + 4 + #nm
    end
    put32(p, o, n)
    ffi.copy(p + o + 4, tagb, n)
    o = o + 4 + n
    C.dlb_proc_pack_f64(dbuf, nw, obuf + o)
    o = o + 8 * nw
    if strs then
      for i = 1, #strs do
        local v = strs[i]
        put32(p, o, #v)
        ffi.copy(p + o + 4, v, #v)
        o = o + 4 + #v
      end
    end
    return ffi.string(obuf, o)
  end

  function M.proc_decode_row(s, cols, pos, len)
    if type(s) ~= "string" then error("bad argument #1 to 'proc_decode_row' (string expected)", 0) end
    if type(cols) ~= "table" then error("bad argument #2 to 'proc_decode_row' (table expected)", 0) end
    pos = pos or 1
    if pos < 1 or pos > #s + 1 or pos ~= math.floor(pos) then
      error("bad argument #3 to 'proc_decode_row' (position out of range)", 0)
    end
    len = len or (#s - pos + 1)
    if len < 0 or len > #s - pos + 1 or len ~= math.floor(len) then
      error("bad argument #4 to 'proc_decode_row' (length out of range)", 0)
    end
    local p = ffi.cast(u8p, s) + (pos - 1)
    local q, e = 0, len
    local n0 = #cols
    local added = 0
    local why
    local function get32(at) return p[at] + 256 * (p[at + 1] + 256 * (p[at + 2] + 256 * p[at + 3])) end
    local row
    repeat
      if e - q < 4 then why = "truncated count of new names"; break end
      local nnew = get32(q); q = q + 4
      while added < nnew do
        if e - q < 4 then why = "truncated name length"; break end
        local l = get32(q); q = q + 4
        if e - q < l then why = "truncated name"; break end
        added = added + 1
        cols[n0 + added] = ffi.string(p + q, l)
        q = q + l
      end
      if why then break end
      if e - q < 4 then why = "truncated column count"; break end
      local n = get32(q)
      if n ~= n0 + nnew then why = "column count differs from the names sent"; break end
      q = q + 4
      if e - q < n then why = "truncated tags"; break end
      local tq, words = q, 0
      for c = 0, n - 1 do
        local t = p[tq + c]
        if t == D or t == I then words = words + 1
        elseif t ~= S and t ~= T and t ~= F and t ~= A then q = tq + c; why = "unknown tag"; break end
      end
      if why then break end
      q = tq + n
      if e - q < 8 * words then why = "truncated numbers"; break end
      if words > dcap then dbuf, tagb, dcap = ffi.new("double[?]", words), ffi.new("uint8_t[?]", words), words end
      C.dlb_proc_unpack_f64(ffi.cast("const char *", p + q), words, dbuf)
      local wq, wi = q, 0
      q = q + 8 * words
      row = {}
      for c = 1, n do
        local t = p[tq + c - 1]
        if t ~= A then
          local nm = cols[c]
          if type(nm) ~= "string" then why = "a column without a name"; break end
          if t == D then row[nm] = dbuf[wi]; wi = wi + 1
          elseif t == I then
            C.dlb_proc_unpack_i64(ffi.cast("const char *", p + wq + 8 * wi), 1, i64)
            row[nm] = tonumber(i64[0]); wi = wi + 1
          elseif t == T then row[nm] = true
          elseif t == F then row[nm] = false
          else
            if e - q < 4 then why = "truncated string length"; break end
            local l = get32(q); q = q + 4
            if e - q < l then why = "truncated string"; break end
            row[nm] = ffi.string(p + q, l)
            q = q + l
          end
        end
      end
      if why then break end
      if q ~= e then why = "bytes after the row"; break end
      return row
    until true
    for a = added, 1, -1 do cols[n0 + a] = nil end
    return nil, string.format("malformed row at byte %d: %s", pos + q, why)
  end
end

return M
