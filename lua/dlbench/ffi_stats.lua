-- dlbench.ffi_stats — the hand-written part of the stats area under FFI: the CSV reader, as
-- host/lstats.c (which says why it is not generated).
local L = require "dlbench.ffi_lib"
local ffi, C = L.ffi, L.C


local M = {}
do
  function M.stats_csv_parse(text, sep)
    if type(text) ~= "string" then error("csv: text must be a string, got " .. require("dlbench.ffi_rt").typename(text), 0) end
    if sep == nil then sep = "," end
    if type(sep) ~= "string" or #sep ~= 1 then error("csv: separator must be one character", 0) end
    local c = C.dlb_csv_parse(text, #text, sep:byte())
    if c == nil then L.error() end
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

return M
