-- dlbench.table_io — the files of dlb.table: CSV (RFC 4180, exact numbers, type inference;
-- docs/csv.md) and JSON. table.lua copies these functions into the table module and
-- M.methods into its method table (t:to_csv, t:to_json); parse_csv makes its table with
-- dlb.table.new, looked up when called (dlbench.table requires this module). Usage errors
-- go through dlbench.errors.fail, which names the caller's line.
local core = require "dlbench.backend"
local options = require "dlbench.options"
local doc = require "dlbench.doc"
local errors = require "dlbench.errors"

-- NaN without its sign bit, so it prints "nan" under Lua 5.4 too (0/0 on x86 carries the
-- sign: Lua 5.4's tostring wrote a CSV's nan read back as "-nan", LuaJIT's never); fabs
-- clears the sign on every machine. The one NaN the tables use (table.lua, the sweeps'
-- checkpoint reader).
local NaN = math.abs(0 / 0)
local fail = errors.fail

local M = {}
M.methods = {} -- the table methods (t:to_csv, t:to_json)
local T = M.methods
errors.register(debug.getinfo(1, "S").source) -- errors raised here name the caller's line

-- ---------------------------------------------------------------- CSV (docs/csv.md)

-- Numbers as the shortest text that reads back exactly (%.15g, %.16g or %.17g), the same
-- text under Lua 5.4 and LuaJIT: integers (and integral floats below 1e15) without a
-- point; -0.0 as "-0.0" (tonumber("-0") is the integer 0 in Lua 5.4, without a sign);
-- nan, inf, -inf.
local function numtext(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if v == 0 and 1 / v < 0 then return "-0.0" end
  if math.type and math.type(v) == "integer" then return tostring(v) end
  for _, f in ipairs { "%.15g", "%.16g", "%.17g" } do
    local s = string.format(f, v)
    if tonumber(s) == v then return s end
  end
  return string.format("%.17g", v)
end
M.numtext = numtext
M.NaN = NaN

-- The numbers a CSV field can hold (decimal only, as C's strtod and Lua's tonumber read
-- them): optional spaces, an optional sign, digits with an optional point (5, 5., .5,
-- 5.25: at least one digit), an optional exponent (e5, E-3, e+7); or nan, inf, infinity in
-- any case with an optional sign. Not numbers: hexadecimal (0x10), "5e", "1,5", "1_000".
-- Out of range: 1e400 is inf, 1e-400 is 0 (IEEE rounding, like strtod). "-0" and "-0.0"
-- are -0.0. Returns the number or nil.
local specials = {
  nan = NaN, ["+nan"] = NaN, ["-nan"] = NaN,
  inf = math.huge, ["+inf"] = math.huge, ["-inf"] = -math.huge,
  infinity = math.huge, ["+infinity"] = math.huge, ["-infinity"] = -math.huge,
}
local function csvnumber(s)
  -- only digits, '.', e, E and signs (inside optional spaces) go to tonumber, which also
  -- takes hexadecimal (both interpreters) and binary (LuaJIT: "0b101"), not numbers here
  if s:find("^%s*[-+]?[%d.][%d.eE+-]*%s*$") then
    local v = tonumber(s)
    if v == 0 and s:find("^%s*%-") then return -0.0 end -- Lua 5.4: tonumber("-0") is integer 0
    -- floats under both interpreters, as LuaJIT reads them: Lua 5.4's 64-bit integers would
    -- wrap silently in arithmetic on large counts (a FLOPs column times 1e6)
    return v and v + 0.0
  end
  if #s > 12 then return nil end
  return specials[s:match("^%s*(.-)%s*$"):lower()]
end
M.csvnumber = csvnumber

local tf = { [116] = true, [84] = true, [102] = true, [70] = true } -- t T f F
local function csvboolean(s)
  if #s > 5 or #s < 4 or not tf[s:byte(1)] then return nil end
  local l = s:lower()
  if l == "true" then return true elseif l == "false" then return false end
  return nil
end

-- A field as RFC 4180 wants it: quoted when it is empty or holds the separator, a quote,
-- a line break or a NUL byte (read_csv takes NUL only inside quotes), or starts or ends
-- with white space.
local function quote_if_needed(v, sep)
  if v == "" or v:find('[\r\n"]') or v:find(sep, 1, true) or v:find("^%s") or v:find("%s$")
      or v:find("\0", 1, true) then
    return '"' .. v:gsub('"', '""') .. '"'
  end
  return v
end

-- One CSV field. Numbers and booleans are never quoted; strings are quoted when RFC 4180
-- needs it and also when they would read back as something else: "" (an empty unquoted
-- field is a missing value), and texts that look like a number or a boolean ("5", "nan",
-- "true"), since read_csv takes a quoted field for text.
local function csvfield(v, sep)
  if v == nil then return "" end
  local tv = type(v)
  if tv == "number" then return numtext(v) end
  if tv == "boolean" then return v and "true" or "false" end
  v = tostring(v)
  if csvnumber(v) ~= nil or csvboolean(v) ~= nil then return '"' .. v .. '"' end
  return quote_if_needed(v, sep)
end
M.csvfield = csvfield

-- One CSV record for the given columns (with its CRLF-free "\n" end).
function M.csvline(values, cols, sep)
  sep = sep or ","
  local f = {}
  for i, c in ipairs(cols) do f[i] = csvfield(values[c], sep) end
  return table.concat(f, sep) .. "\n"
end

local function csvtext(t, sep)
  if #t._cols == 0 then
    if #t._rows > 0 then
      fail(string.format("table:to_csv: the table has %d row%s but no columns, which CSV "
        .. "cannot hold", #t._rows, #t._rows == 1 and "" or "s"))
    end
    return "" -- no columns, no rows: empty text (parse_csv's empty table; to_csv refuses it)
  end
  local out = {}
  local hdr = {}
  for i, c in ipairs(t._cols) do hdr[i] = quote_if_needed(c, sep) end
  out[1] = table.concat(hdr, sep) .. "\n"
  for i, r in ipairs(t._rows) do out[i + 1] = M.csvline(r, t._cols, sep) end
  return table.concat(out)
end

M.csvtext = csvtext -- the CSV text of a table (sweep checkpoints write it locked)
doc.doc(M.csvtext, "dlb.table.csvtext(t[, sep]) -> string", "the CSV text t:to_csv writes "
  .. "(RFC 4180, exact numbers); sweep checkpoints write it under their lock")

-- Write text to path whole or not at all, through the one writer of graphs/base/file.c (a
-- mkstemp temporary file beside it, fsync, rename; a destination that is not a regular
-- file is refused). Returns true, or nil and a message.
function M.write_atomic(path, text)
  if type(path) ~= "string" then fail("dlb.table.write_atomic: a file name expected, got a " .. type(path)) end
  if type(text) ~= "string" then fail("dlb.table.write_atomic: text must be a string, got a " .. type(text)) end
  local errs = require "dlbench.errors"
  local why = errs.unwritable_name(path)
  if why then return errs.written(nil, why) end
  return errs.written(core.file_write(path, text))
end

-- Write the table as CSV (RFC 4180; numbers exact; written whole or not at all).
-- opts.sep (default ","). Returns true, or nil and a message.
function T:to_csv(path, opts)
  if type(path) ~= "string" then fail("table:to_csv: a file name expected, got a " .. type(path)) end
  opts = opts or {}
  if type(opts) ~= "table" then fail("table:to_csv: opts must be a table") end
  local bad = options.unknown(opts, { sep = true }, "table:to_csv")
  if bad then fail(bad) end
  local sep = opts.sep or ","
  if type(sep) ~= "string" or #sep ~= 1 or sep:find('[%w"\r\n%.%+%-\128-\255]') then
    fail("table:to_csv: sep must be one ASCII character other than a letter, a digit, '.', "
      .. "'+', '-', a quote or a line break (numbers are written unquoted), got "
      .. (type(sep) == "string" and string.format("%q", sep) or "a " .. type(sep)))
  end
  -- no columns: an empty file, which dlb.read_csv refuses (an empty file is more often a
  -- failed write than a table); the rows-without-columns case is csvtext's error
  if #self._cols == 0 and #self._rows == 0 then
    fail("table:to_csv: the table has no columns, which a CSV file cannot hold (it would be "
      .. "empty, and dlb.read_csv refuses an empty file)")
  end
  return M.write_atomic(path, csvtext(self, sep))
end


-- The table as JSON (an array of objects; NaN and infinities become null). With a path
-- the text is written there (whole or not at all) and true returned, or nil and a message.
function T:to_json(path)
  local J = require "dlbench.json" -- here: dlbench.json requires dlbench.table
  local out = {}
  for i, r in ipairs(self._rows) do
    local f = {}
    for _, c in ipairs(self._cols) do
      local v = r[c]
      if v ~= nil then -- a cell and a column name written by the one JSON writer
        f[#f + 1] = J.string(c) .. ":" .. J.encode(v)
      end
    end
    out[i] = "{" .. table.concat(f, ",") .. "}"
  end
  local text = "[" .. table.concat(out, ",\n ") .. "]\n"
  if path == nil then return text end
  return M.write_atomic(path, text)
end

-- Parse CSV text into a table; name is used in messages. See M.read_csv for opts. Errors
-- about the text name it, the line and the column; errors in the arguments name the
-- caller's line.
function M.parse_csv(text, opts, name)
  if type(text) ~= "string" then fail("dlb.table.parse_csv: text must be a string, got a " .. type(text)) end
  opts = opts or {}
  name = name or "csv"
  if type(opts) ~= "table" then fail("dlb.read_csv: opts must be a table, got a " .. type(opts)) end
  local bad = options.unknown(opts, { sep = true, types = true, header = true }, "dlb.read_csv")
  if bad then fail(bad) end
  -- header: true or false (0 read the header row as Lua's truth; a list of names was ignored)
  local hmsg = options.switch_error(opts, { "header" }, "dlb.read_csv", "false: columns named 1, 2, ...")
  if hmsg then fail(hmsg) end
  local sep = opts.sep or ","
  if type(sep) ~= "string" or #sep ~= 1 or sep:find('["\r\n\128-\255]') then
    fail("dlb.read_csv: sep must be one ASCII character other than a quote or a line break, got "
      .. (type(sep) == "string" and string.format("%q", sep) or "a " .. type(sep)))
  end
  local types = opts.types or {}
  if type(types) ~= "table" then fail("dlb.read_csv: types must be a table {column = type}") end
  for _, k in ipairs(options.keys(types)) do -- sorted: the first refused key is named
    local v = types[k]
    if v ~= "number" and v ~= "string" and v ~= "boolean" then
      fail(string.format("dlb.read_csv: type of '%s' must be \"number\", \"string\" or "
        .. "\"boolean\", got %s", tostring(k), tostring(v)))
    end
  end
  local ok, records, lines, quoted = pcall(core.stats_csv_parse, text, sep)
  if not ok then error(name .. ": " .. tostring(records), 0) end
  quoted = quoted or {}
  -- A writer that quoted every field, even a header name that needs no quotes ("m"),
  -- says nothing by quoting (Python's QUOTE_ALL): read its fields as if unquoted.
  -- Otherwise a quoted field is text. (to_csv quotes a header name only when it must.)
  local allq = false
  for _, h in ipairs(records[1] or {}) do
    if quote_if_needed(h, sep) == h then allq = true; break end
  end
  for i = 1, #records do
    local q = quoted[i]
    if q == nil then allq = false; break end
    for j = 1, #records[i] do if not q[j] then allq = false; break end end
    if not allq then break end
  end
  if allq then quoted = {} end
  local header
  local first = 1
  if opts.header == false then
    header = {}
    for j = 1, records[1] and #records[1] or 0 do header[j] = tostring(j) end
  else
    header = records[1]
    if header == nil then header = {} end -- an empty file: an empty table
    first = 2
    local seen = {}
    for j, h in ipairs(header) do
      if h == "" then error(string.format("%s: line %d, field %d: empty column name", name, lines[1], j), 0) end
      if seen[h] then
        error(string.format("%s: line %d, field %d: column '%s' appears twice (fields %d and %d)",
          name, lines[1], j, h, seen[h], j), 0)
      end
      seen[h] = j
    end
  end
  for _, k in ipairs(options.keys(types)) do
    local found
    for _, h in ipairs(header) do if h == k then found = true end end
    if not found then error(string.format("%s: types names column '%s', which the file lacks", name, tostring(k)), 0) end
  end
  local t = require("dlbench.table").new({}, header)
  local rows = t._rows
  for i = first, #records do rows[#rows + 1] = {} end
  local nrec = #records
  for j, h in ipairs(header) do
    local kind = types[h]
    local nums -- the column's numbers, converted while inferring
    if kind == nil then
      local num, bool, any = true, true, false
      nums = {}
      for i = first, nrec do
        local s = records[i][j]
        local q = quoted[i] and quoted[i][j]
        if q then -- a quoted field is text; a quoted "" decides nothing (QUOTE_NONNUMERIC
          -- writers use it for a missing number)
          if s ~= "" then any, num, bool = true, false, false; break end
        elseif s ~= "" then
          any = true
          if num then
            local v = csvnumber(s)
            if v == nil then num = false else nums[i] = v end
          end
          if bool and csvboolean(s) == nil then bool = false end
          if not num and not bool then break end
        end
      end
      kind = (any and num) and "number" or (any and bool) and "boolean" or "string"
      if kind ~= "number" then nums = nil end
    end
    for i = first, nrec do
      local s = records[i][j]
      local q = quoted[i] and quoted[i][j]
      local v
      if kind == "string" then
        if q or s ~= "" then v = s end
      elseif s ~= "" then -- a quoted "" in a number or boolean column is missing too
        if kind == "number" then
          v = nums and nums[i] or csvnumber(s)
          if v == nil then
            error(string.format("%s: line %d, field %d ('%s'): '%s' is not a number", name,
              lines[i], j, h, s), 0)
          end
        else
          v = csvboolean(s)
          if v == nil then
            error(string.format("%s: line %d, field %d ('%s'): '%s' is not true or false", name,
              lines[i], j, h, s), 0)
          end
        end
      end
      rows[i - first + 1][h] = v
    end
  end
  return t
end

-- The whole lines of text before line n (1-based), each with its line break.
local function lines_before(text, n)
  local keep, k = {}, 0
  for l in text:gmatch("([^\n]*\n)") do
    k = k + 1
    if k >= n then break end
    keep[k] = l
  end
  return table.concat(keep)
end

-- Read a CSV file (RFC 4180) into a table; see docs/csv.md. Column types are inferred
-- (all numbers -> numbers, all true/false -> booleans, else strings; a quoted field is
-- text; an empty unquoted field is nil, a quoted "" the empty string) unless opts.types =
-- {column = "number"|"string"|"boolean"}. opts.sep (default ","), opts.header = false
-- for files without a header line (columns "1", "2", ...). A file without a column (empty,
-- or only blank lines) is an error naming it; a header line alone is a table of no rows.
-- Errors name the file, line and column. A torn last line (no line break; with
-- opts.checkpoint = true any such line, else one that is not a whole record) is dropped
-- with a warning on stderr, so a sweep checkpoint reads at every moment.
local read_text
function M.read_csv(path, opts)
  if type(path) ~= "string" then fail("dlb.read_csv: a file name expected, got a " .. type(path)) end
  -- only a regular file, whole (a FIFO, /dev/zero or a directory is refused)
  local text, err = core.file_read(path)
  if not text then fail("dlb.read_csv: " .. err) end
  local t = read_text(path, text, opts)
  -- a file without a column (empty, blank lines only) is no table: a crashed or failed write
  -- reads so, and 0 rows would pass it on silently (review 10); parse_csv of text in memory
  -- still gives an empty table
  if #t._cols == 0 then
    local hdr = not (type(opts) == "table" and opts.header == false)
    fail(string.format("dlb.read_csv: %s holds no %s (%s): a table with columns and no rows "
      .. "is its header line alone", path, hdr and "header line" or "record", text == "" and "an empty file"
      or string.format("%d byte%s without a field", #text, #text == 1 and "" or "s")))
  end
  return t
end

-- The table of a CSV file's text (read_csv's opts; path names it in messages).
function read_text(path, text, opts)
  -- a torn append (a sweep checkpoint after a crash or a full disk: docs/sweep.md): the
  -- last line has no line break. With opts.checkpoint = true it is dropped (every line of
  -- a checkpoint ends with one); otherwise it is dropped when it is not a whole record
  -- (too few fields, an open quote) while the lines before it are. A warning says so;
  -- any other malformed file stays an error.
  local ckpt = false
  if type(opts) == "table" and opts.checkpoint ~= nil then
    ckpt = opts.checkpoint
    if type(ckpt) ~= "boolean" then fail("dlb.read_csv: checkpoint must be a boolean, got a " .. type(ckpt)) end
    local o = {}
    for k, v in pairs(opts) do if k ~= "checkpoint" then o[k] = v end end
    opts = o
  end
  if text ~= "" and text:sub(-1) ~= "\n" then
    local ok, t = pcall(M.parse_csv, text, opts, path)
    if ok and not ckpt then return t end
    -- where the torn record begins: the last line, or the line an open quote began on
    local cut = text:match("^(.*\n)")
    local line = not ok and (tostring(t):match("line (%d+), column %d+: record has %d+ fields?, the first record has")
      or tostring(t):match("line (%d+), column %d+: quoted field is never closed %(end of input%)"))
    if cut and line and not ckpt then
      cut = lines_before(text, tonumber(line))
    end
    if cut and (ckpt or line) and (cut:find("\n.") or (opts and opts.header == false)) then
      local ok2, t2 = pcall(M.parse_csv, cut, opts, path)
      if not ok2 and ckpt then -- a checkpoint torn inside a quoted line break
        local l2 = tostring(t2):match("line (%d+), column %d+: quoted field is never closed %(end of input%)")
        if l2 then
          cut = lines_before(cut, tonumber(l2))
          ok2, t2 = pcall(M.parse_csv, cut, opts, path)
        end
      end
      if ok2 then
        io.stderr:write(string.format("dlb.read_csv: %s: dropped an incomplete last line (%d "
          .. "bytes, no line break: a torn append, as a sweep checkpoint has after a crash or "
          .. "a full disk)\n", path, #text - #cut))
        return t2
      end
    end
    if ok then return t end
    error(t, 0)
  end
  return M.parse_csv(text, opts, path)
end

return M
