-- dlbench.table_text — a dlb.table as aligned text (what the REPL prints): cell text,
-- UTF-8 widths, the terminal's width, t:format. Split out of table.lua (one concept a
-- file); table.lua installs format as a method and re-exports ulen and termwidth.
local core = require "dlbench.backend"
local floor = math.floor
local M = {}

-- Width of a string in UTF-8 code points: its bytes that are not continuation bytes
-- (0x80-0xBF). No utf8 library: LuaJIT has none. (East Asian wide characters take two
-- terminal columns and combining marks none; a code point is one column here.)
local function ulen(s)
  local _, cont = s:gsub("[\128-\191]", "")
  return #s - cont
end
-- The first n code points of s.
local function usub(s, n)
  local count = 0
  for i = 1, #s do
    local b = s:byte(i)
    if b < 128 or b >= 192 then
      count = count + 1
      if count > n then return s:sub(1, i - 1) end
    end
  end
  return s
end

-- Text of a cell for printing.
local function celltext(v)
  if v == nil then return "" end
  if type(v) == "number" then
    if v ~= v then return "nan" end
    if v == floor(v) and math.abs(v) < 1e15 then return string.format("%.0f", v) end
    return string.format("%.6g", v)
  end
  local s = tostring(v)
  s = s:gsub("[\r\n\t]", " ")
  if ulen(s) > 40 then s = usub(s, 37) .. "..." end
  return s
end

-- The width tables are printed to: $COLUMNS when set, else the terminal's on stdout, else
-- unlimited (a file or pipe gets every column).
local function termwidth()
  local c = tonumber(os.getenv("COLUMNS") or "")
  if c and c > 0 then return c end
  local ok, w = pcall(core.proc_term_width, 1)
  if ok and type(w) == "number" and w > 0 then return w end
  return math.huge
end

-- Aligned text: at most max_rows rows (default 20: the first 10 and the last 5 of larger
-- tables), numbers right-aligned; at most `width` columns of text (default: the terminal's,
-- see termwidth): middle columns that do not fit are replaced by one "…" column and a
-- closing note names them ("… 24 more columns: t:select{...}").
local function T_format(self, max_rows, width)
  max_rows = max_rows or 20
  width = width or termwidth()
  local n, cols = #self._rows, self._cols
  local show = {}
  if n <= max_rows then
    for i = 1, n do show[#show + 1] = i end
  else
    local head = math.max(1, floor(max_rows / 2))
    local tail = math.max(1, floor(max_rows / 4))
    for i = 1, head do show[#show + 1] = i end
    show[#show + 1] = false
    for i = n - tail + 1, n do show[#show + 1] = i end
  end
  local wid, numeric, cells = {}, {}, {}
  for c, name in ipairs(cols) do
    wid[c] = ulen(name)
    numeric[c] = true
  end
  for k, i in ipairs(show) do
    if i then
      local r, line = self._rows[i], {}
      for c, name in ipairs(cols) do
        local v = r[name]
        if v ~= nil and type(v) ~= "number" then numeric[c] = false end
        line[c] = celltext(v)
        local w = ulen(line[c])
        if w > wid[c] then wid[c] = w end
      end
      cells[k] = line
    end
  end
  if #cols == 0 then
    return string.format("[%d row%s x 0 columns]", n, n == 1 and "" or "s")
  end
  -- the columns shown: all when they fit; else from both ends inwards, alternately, while
  -- they fit beside a one-character "…" column (the first column always)
  local shown, hidden = {}, {}
  local total = -2
  for c = 1, #cols do total = total + wid[c] + 2 end
  if total <= width then
    for c = 1, #cols do shown[#shown + 1] = c end
  else
    local left, right = { 1 }, {}
    local used = wid[1] + 2 + 1  -- first column, separator, the "…" column
    local l, r = 2, #cols
    local side = "right"
    while l <= r do
      local c = side == "left" and l or r
      if used + 2 + wid[c] > width then break end
      used = used + 2 + wid[c]
      if side == "left" then left[#left + 1] = c; l = l + 1; side = "right"
      else table.insert(right, 1, c); r = r - 1; side = "left" end
    end
    for _, c in ipairs(left) do shown[#shown + 1] = c end
    shown[#shown + 1] = 0 -- the "…" column
    for _, c in ipairs(right) do shown[#shown + 1] = c end
    for c = l, r do hidden[#hidden + 1] = cols[c] end
  end
  local function fmtline(vals, dots)
    local parts = {}
    for j, c in ipairs(shown) do
      if c == 0 then parts[j] = dots
      else
        local v = vals[c]
        local pad = string.rep(" ", wid[c] - ulen(v))
        parts[j] = numeric[c] and (pad .. v) or (v .. pad)
      end
    end
    return (table.concat(parts, "  "):gsub("%s+$", ""))
  end
  local out = { fmtline(cols, "…") }
  local rule = {}
  for c = 1, #cols do rule[c] = string.rep("-", wid[c]) end
  out[2] = fmtline(rule, "-")
  for k, i in ipairs(show) do
    if i then out[#out + 1] = fmtline(cells[k], "…")
    else out[#out + 1] = string.format("... (%d more rows)", n - (#show - 1)) end
  end
  out[#out + 1] = string.format("[%d row%s x %d column%s]", n, n == 1 and "" or "s", #cols,
    #cols == 1 and "" or "s")
  if #hidden > 0 then
    local names = {}
    for i, h in ipairs(hidden) do names[i] = string.format("%q", h) end
    local note = string.format("… %d more column%s: t:select{%s}", #hidden,
      #hidden == 1 and "" or "s", table.concat(names, ", "))
    if ulen(note) > width and width > 40 then
      -- the names that fit, then "..."
      local cut = string.format("… %d more column%s: t:select{", #hidden, #hidden == 1 and "" or "s")
      for i, nm in ipairs(names) do
        if ulen(cut) + #nm + 8 > width then cut = cut .. ", ...}"; break end
        cut = cut .. (i > 1 and ", " or "") .. nm
        if i == #names then cut = cut .. "}" end
      end
      note = cut
    end
    out[#out + 1] = note
  end
  return table.concat(out, "\n")
end

M.ulen, M.termwidth = ulen, termwidth
M.methods = { format = T_format }
return M
