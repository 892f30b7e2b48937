-- test_hw_csv_fuzz.lua — a mutation fuzzer for the device catalogue's CSV reader
-- (dlb.hw.parse_csv and dlb.hw.load of a .csv, lua/dlbench/hw_csv.lua over the library's CSV
-- reader; docs/hw.md "Catalogue files"). A valid catalogue text (the header and one to three
-- devices of dlb.hw.to_csv()) is mutated: a field replaced by a hostile number or text
-- (nan, inf, 1e999, -0, hexadecimal, binary, 2^64, spaces, quotes, NUL, CR), a levels or
-- source cell replaced by a random one, a byte flipped or replaced, the text truncated, a row
-- duplicated or cut short, a header name dropped, doubled, swapped or misspelt, a comment or
-- blank line inserted; sometimes two or three of these. Each outcome must be one of:
--   * an error naming the file ("fz.csv:LINE: ..." or "fz.csv: ..."), never a Lua runtime
--     error ("attempt to ...", "bad argument") nor a crash or a hang;
--   * specs that all make devices (dlb.hw.device: the same checks as the reader's), each
--     timing a cost to a finite positive time (dlb.roofline.time), whose CSV text
--     (dlb.hw.to_csv) reads back to devices with the very same text (the reader and the
--     writer agree); a file of the text loads (dlb.hw.load, replace=true) when the text
--     parses, and fails naming the file when it does not.
-- Deterministic (its own generator): both backends run the same cases and print the same
-- counts and digest (a digest that differs says the backends read a text differently: the
-- first finding of this fuzzer, hexadecimal numbers, which Lua 5.4 wrapped to 64 bits).
--   cases: DLB_HWFUZZ_CASES (default 300, about 1 s), seed DLB_HWFUZZ_SEED (default 1);
--   DLB_HWFUZZ_VERBOSE=1 names each case and its outcome on stderr. A long run:
--     DLB_HWFUZZ_CASES=100000 DLB_HWFUZZ_SEED=7 LUA_PATH="$PWD/tests/lua/?.lua;;" \
--       build/bin/dlbench run tests/lua/test_hw_csv_fuzz.lua
local T = require "harness"
local dlb = require "dlbench"

local F = require("fuzz_setup")("HWFUZZ") -- cases, seed, verbosity; Park-Miller rnd / pick
local CASES, SEED, VERBOSE, rnd, pick = F.cases or 300, F.seed, F.verbose, F.rnd, F.pick

-- ---------------------------------------------------------------- the base texts

-- The catalogue as records (fields unquoted), through the reader's own CSV parser.
local catalogue = dlb.hw.to_csv()
local recs = {}
do
  local core = require "dlbench.backend"
  local r = core.stats_csv_parse(catalogue, ",")
  for i, rec in ipairs(r) do recs[i] = rec end
end
local header = recs[1]
local NDEV = #recs - 1

local function cell(s)
  s = s or ""
  if s:find('[,"\r\n]') then return '"' .. s:gsub('"', '""') .. '"' end
  return s
end
local function text_of(rows)
  local lines = {}
  for i, r in ipairs(rows) do
    local f = {}
    for j = 1, #r do f[j] = cell(r[j]) end
    lines[i] = table.concat(f, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end
local function copy(r) local c = {} for i = 1, #r do c[i] = r[i] end return c end

-- ---------------------------------------------------------------- the mutations

local NUMS = { "nan", "-nan", "inf", "-inf", "infinity", "1e999", "-1e999", "1e-999", "-0", "-0.0",
  "0", "-1", "1e308", "4.9e-324", "18446744073709551617", "9007199254740993", "0x10", "0X1P4",
  "0x10000000000000001", "0xffffffffffffffff", "0b101", "1_000", "1,5", "5e", ".5", "5.", "+5",
  " 5 ", "\t7", "1e9", "2.5e12", "0.5", "1.5", "2", "", " ", "x", "\"", "\0", "1\0002", "\r" }
local WORDS = { "fp32", "fp16", "bf16", "mem", "mem_bw", "name", "kind", "note", "source", "levels",
  "gpu", "cpu", "accelerator", "A100", "L1", "L2", "DRAM", "HBM", ":", ";", ",", "\n", "#" }

local function levels_cell()
  local items = {}
  for i = 1, rnd(4) - 1 do
    local nm = pick { "L1", "L2", "DRAM", "", " ", "a:b", "x" }
    local sz = pick { "", "49152", "0", "-1", "nan", "1e999", "0x10", "1e6", "4.9e-324" }
    local bw = pick { "1.6e11", "0", "-5", "nan", "inf", "1e999", "0x10", "", "2e12", "1e-300" }
    local shape = rnd(6)
    if shape == 1 then items[i] = nm .. ":" .. sz
    elseif shape == 2 then items[i] = nm .. ":" .. sz .. ":" .. bw .. ":" .. bw
    else items[i] = nm .. ":" .. sz .. ":" .. bw end
  end
  return table.concat(items, pick { ";", "; ", ";;" })
end

local function source_cell()
  local parts = {}
  for i = 1, rnd(4) - 1 do
    parts[i] = pick { "peak", "mem", "links", "all", "gemm_tile", "fabric", "levels", "bogus", "" }
      .. pick { ": ", ":", " : " } .. pick { "seed 000", "a; b", "x: y", "", "; peak: 1" }
  end
  return table.concat(parts, "; ")
end

-- One mutation of (rows, text); returns the new rows and text (text nil: made from rows) and
-- what was done.
local function mutate(rows)
  local op = rnd(14)
  local r = 1 + rnd(#rows - 1) -- a device row
  if op <= 3 then
    local j = rnd(#header)
    local col = header[j]
    local v
    if col == "levels" and rnd(2) == 1 then v = levels_cell()
    elseif col == "source" and rnd(2) == 1 then v = source_cell()
    else v = rnd(4) == 1 and pick(WORDS) or pick(NUMS) end
    rows[r][j] = v
    return rows, nil, string.format("row %d %s = %q", r, col, v)
  elseif op == 4 then
    local j = 0
    for k = 1, #header do if header[k] == "levels" then j = k end end
    rows[r][j] = levels_cell()
    return rows, nil, string.format("row %d levels = %q", r, rows[r][j])
  elseif op == 5 then
    local j = 0
    for k = 1, #header do if header[k] == "source" then j = k end end
    rows[r][j] = source_cell()
    return rows, nil, string.format("row %d source = %q", r, rows[r][j])
  elseif op == 6 then -- a row twice (the same name)
    table.insert(rows, r, copy(rows[r]))
    return rows, nil, "row " .. r .. " twice"
  elseif op == 7 then -- a row cut short or grown
    if rnd(2) == 1 then rows[r][#rows[r]] = nil else rows[r][#rows[r] + 1] = "1" end
    return rows, nil, "row " .. r .. " of " .. #rows[r] .. " fields"
  elseif op == 8 then -- the header: a name dropped (and its column), doubled, swapped, misspelt
    local h, j = rows[1], rnd(#rows[1])
    local k = rnd(4)
    if k == 1 then
      local name = h[j]
      for _, row in ipairs(rows) do table.remove(row, j) end
      return rows, nil, "column " .. name .. " dropped"
    elseif k == 2 then
      h[j] = h[rnd(#h)]
      return rows, nil, "header " .. j .. " = " .. h[j]
    elseif k == 3 then
      local i2 = rnd(#h)
      h[j], h[i2] = h[i2], h[j]
      return rows, nil, "header " .. j .. " <-> " .. i2
    else
      h[j] = pick { h[j]:upper(), " " .. h[j] .. " ", h[j] .. "x", "", "\0", "fp64 ", "#name" }
      return rows, nil, string.format("header %d = %q", j, h[j])
    end
  elseif op == 9 then -- a comment or blank line
    local t = text_of(rows)
    local lines = {}
    for l in t:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
    local at = rnd(#lines + 1)
    table.insert(lines, at, pick { "# a comment", "  # indented", "", "   ", "#", "\r", "#,,," })
    return rows, table.concat(lines, "\n") .. "\n", "a line inserted at " .. at
  end
  local t = text_of(rows)
  if op == 10 or op == 11 then -- a byte flipped (one bit)
    local i = rnd(#t)
    local b = t:byte(i)
    local bit = 2 ^ (rnd(8) - 1)
    local nb = (math.floor(b / bit) % 2 == 1) and b - bit or b + bit
    return rows, t:sub(1, i - 1) .. string.char(nb) .. t:sub(i + 1), "byte " .. i .. " flipped"
  elseif op == 12 then -- a byte replaced by one the format uses
    local i = rnd(#t)
    local c = pick { ",", '"', "\n", "\r", "\0", " ", "#", ";", ":", "e", "-", ".", "0", "x" }
    return rows, t:sub(1, i - 1) .. c .. t:sub(i + 1), string.format("byte %d = %q", i, c)
  elseif op == 13 then -- truncated
    local i = rnd(#t + 1) - 1
    return rows, t:sub(1, i), "cut at byte " .. i
  end
  -- a byte deleted
  local i = rnd(#t)
  return rows, t:sub(1, i - 1) .. t:sub(i + 1), "byte " .. i .. " deleted"
end

-- ---------------------------------------------------------------- the oracle

local function runtime_error(msg)
  return msg:find("attempt to", 1, true) or msg:find("bad argument", 1, true)
    or msg:find("stack overflow", 1, true) or msg:find("%.lua:%d+:")
end

-- A digest of text: the same numbers under both backends (doubles, below 2^53).
local digest = 0
local function mix(s)
  for i = 1, #s do digest = (digest * 31 + s:byte(i)) % 2147483647 end
end

local path = T.tmpdir() .. "/fz.csv"
local accepted, refused, loaded = 0, 0, 0
local function spit(p, s) local f = assert(io.open(p, "wb")) f:write(s) f:close() end

local function one_case(n)
  local rows = { copy(header) }
  for _ = 1, rnd(3) do rows[#rows + 1] = copy(recs[1 + rnd(NDEV)]) end
  local text, what = nil, {}
  for _ = 1, (rnd(4) == 1 and 1 + rnd(2) or 1) do
    local t, w
    rows, t, w = mutate(rows)
    what[#what + 1] = w
    if t then text = t; break end -- a text mutation ends the series
  end
  text = text or text_of(rows)
  local desc = table.concat(what, "; ")
  local ok, specs = pcall(dlb.hw.parse_csv, text, "fz.csv")
  if not ok then
    local msg = tostring(specs)
    if VERBOSE then io.stderr:write(string.format("case %d: %s: refused: %s\n", n, desc, msg)) end
    if runtime_error(msg) or msg:sub(1, 6) ~= "fz.csv" then
      T.eq(msg, "an error naming fz.csv", "case " .. n .. " (" .. desc .. ")")
    end
    refused = refused + 1
  else
    accepted = accepted + 1
    local devs = {}
    for i, s in ipairs(specs) do
      local okd, d = pcall(dlb.hw.device, s, "fz")
      if not okd then
        T.eq(tostring(d), "a device", "case " .. n .. " (" .. desc .. "): spec " .. i .. " parsed but")
        return
      end
      devs[i] = d
      -- a time, or an error of dlbench's (a bandwidth of 4.9e-324 B/s: "time overflows")
      local okt, r = pcall(dlb.roofline.time, { flops = 1e12, bytes = 1e9 }, d)
      local tm = okt and type(r) == "table" and r.time
      if okt and not (type(tm) == "number" and tm > 0 and tm < math.huge)
          or not okt and runtime_error(tostring(r)) then
        T.eq(okt and tostring(tm) or tostring(r), "a finite positive time",
          "case " .. n .. " (" .. desc .. "): device " .. i)
      end
    end
    local t1 = dlb.hw.to_csv(devs)
    local ok2, specs2 = pcall(dlb.hw.parse_csv, t1, "fz2.csv")
    if not ok2 then
      T.eq(tostring(specs2), "the written text read back", "case " .. n .. " (" .. desc .. ")")
      return
    end
    local devs2 = {}
    for i, s in ipairs(specs2) do devs2[i] = dlb.hw.device(s, "fz2") end
    local t2 = dlb.hw.to_csv(devs2)
    if t2 ~= t1 then T.eq(t2, t1, "case " .. n .. " (" .. desc .. "): to_csv after reading it back") end
    mix(t1)
    if VERBOSE then io.stderr:write(string.format("case %d: %s: %d devices\n", n, desc, #devs)) end
  end
  if n % 10 == 0 then -- the file path: loads exactly when the text parses
    spit(path, text)
    local okl, r = pcall(dlb.hw.load, path, { replace = true })
    if okl ~= ok then
      T.eq(okl and "loaded" or tostring(r), ok and "loaded" or "refused", "case " .. n .. " (" .. desc .. "): dlb.hw.load")
    elseif not okl and not tostring(r):find(path, 1, true) then
      T.eq(tostring(r), "an error naming " .. path, "case " .. n .. ": dlb.hw.load")
    elseif okl then
      loaded = loaded + 1
    end
  end
end

T.test("mutated catalogue CSV: an error naming the file, or devices that read back", function()
  for n = 1, CASES do one_case(n) end
  T.eq(accepted + refused, CASES, "every case ran")
  -- both kinds of outcome are reached (the mutations are not all fatal, nor all harmless)
  T.eq(accepted > CASES / 20 and refused > CASES / 20, true,
    string.format("accepted %d, refused %d", accepted, refused))
  print(string.format("hw csv fuzz: seed %d, %d cases: %d accepted (%d loaded from a file), %d refused; digest %d",
    SEED, CASES, accepted, loaded, refused, digest))
end)

T.test("regressions: hexadecimal and binary numbers are not catalogue numbers", function()
  -- Lua 5.4's tonumber wrapped 0x10000000000000001 to 1 (1 FLOP/s), LuaJIT read 1.8e19 and
  -- took 0b101 as 5 (fuzz-long); dlb.read_csv never took them (table_io.csvnumber)
  for _, v in ipairs { "0x10", "0X1P4", "0x10000000000000001", "0xffffffffffffffff", "0b101" } do
    T.checkerr("fz.csv:2: column 'fp32': '" .. v .. "' is not a finite number", dlb.hw.parse_csv,
      "name,fp32,mem_bw,mem\nfz," .. v .. ",1e12,1e10\n", "fz.csv")
    T.checkerr("column 'levels': 'L1:" .. v .. ":1e12' is not name:size:bw", dlb.hw.parse_csv,
      "name,fp32,mem_bw,mem,levels\nfz,1e12,1e12,1e10,L1:" .. v .. ":1e12\n", "fz.csv")
    T.checkerr("column 'levels': 'L1:1:" .. v .. "' is not name:size:bw", dlb.hw.parse_csv,
      "name,fp32,mem_bw,mem,levels\nfz,1e12,1e12,1e10,L1:1:" .. v .. "\n", "fz.csv")
  end
  local s = dlb.hw.parse_csv("name,fp32,mem_bw,mem,levels\nfz, 2.5e12 ,1e12,1e10,L1:4e4:2e12;DRAM::1e11\n")
  T.eq(s[1].peak.fp32, 2.5e12, "a decimal number with spaces around it")
  T.eq(s[1].levels[1].size, 4e4, "levels: a decimal size")
  T.eq(s[1].levels[2].size, nil, "levels: memory has no size")
end)

T.test("regressions: source cells and texts read back as written (fuzz-long)", function()
  local function one(cell)
    return dlb.hw.parse_csv("name,fp32,mem_bw,mem,note,source\nfz,1e12,1e12,1e10,n," .. cell .. "\n", "fz.csv")[1]
  end
  local function again(spec) -- written by to_csv, read back
    local t = dlb.hw.to_csv({ dlb.hw.device(spec, "fz") })
    return dlb.hw.parse_csv(t, "fz2.csv")[1], t
  end
  -- a field twice: the later text replaced the earlier one silently
  T.checkerr("fz.csv:2: column 'source': field 'peak' appears twice", one, "peak: a; mem: b; peak: c")
  -- free text holding "; peak: " was written as "all: ..." and read back cut in two
  local s = one("see the paper; peak: 1 TFLOP/s")
  T.eq(s.source.all, "see the paper; peak: 1 TFLOP/s", "free text is the source as a whole")
  T.eq(again(s).source.all, "see the paper; peak: 1 TFLOP/s", "free text reads back whole")
  -- a text that ended the cell (trimmed) but not after sorting; an empty text
  s = one("mem: a; b; fabric : ; gemm_tile: x: y")
  local s2 = again(s)
  T.eq(s2.source.mem, "a; b; fabric :", "a text trimmed where it is read")
  T.eq(s2.source.gemm_tile, "x: y", "the other field")
  s = one("fabric: ; all: x: y; mem:")
  T.eq(s.source.fabric, nil, "an empty text says nothing")
  T.eq(again(s).source.all, "x: y; mem:", "the rest reads back")
  -- a NUL byte inside a quoted note: the reader takes it, the writer quoted it not
  local n = dlb.hw.parse_csv('name,fp32,mem_bw,mem,note\nfz,1e12,1e12,1e10,"a\0b"\n', "fz.csv")[1]
  T.eq(again(n).note, "a\0b", "a NUL byte in a note reads back")
  -- a field's text that would be cut on reading: an error naming the device and the field
  T.checkerr("device 'fz': source.mem holds '; NAME: '", dlb.hw.to_csv,
    { dlb.hw.device({ name = "fz", peak = { fp32 = 1e12 }, mem_bw = 1e12, mem = 1e10,
      source = { mem = "a; peak: b", note = "c" } }, "fz") })
end)

T.done()
