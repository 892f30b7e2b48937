-- dlbench.hw_csv — the catalogue files of dlb.hw: the CSV columns, dlb.hw.parse_csv, the
-- specs of a .csv or data-only .lua file (read) and the CSV text of devices (format).
-- hw.lua, which owns the devices (the catalogue, the read-only proxies), gives
-- csv_columns and parse_csv as dlb.hw's and builds dlb.hw.load, to_csv and save_csv on
-- read and format; a spec's check is dlbench.hw_spec's.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local levels = require "dlbench.hw_levels"
local desc = require "dlbench.desc"
local options = require "dlbench.options"
local hw_spec = require "dlbench.hw_spec"
local csvnumber, csvfield = require("dlbench.table_io").csvnumber, require("dlbench.table_io").csvfield
local validate, is_prec = hw_spec.validate, hw_spec.is_prec

local M = {}

-- == loading catalogues from files ===============================================

-- The CSV columns a catalogue file may have (header row; any order; name, mem, mem_bw and
-- at least one peak column are required), in the order to_csv writes them. They are a
-- device's fields flattened, deliberately not a copy of one C list: name and kind; one
-- peak per precision (the C enum DLB_PREC_*); the memory, cache and efficiencies; each
-- link tier's bw and latency; power and cores; the kernel model (dlb_roof's fields from
-- kernel_overhead on, but mem, written above, and the level pairs, one cell at the end);
-- then note, source and levels ("name:size:bw;...", lua/dlbench/hw_levels.lua).
M.csv_columns = { "name", "kind" }
local function column(c) M.csv_columns[#M.csv_columns + 1] = c end
for _, p in ipairs(desc.enum("DLB_PREC_")) do column(p) end
for _, c in ipairs { "mem", "mem_bw", "cache", "flops_eff", "bw_eff" } do column(c) end
for _, tier in ipairs { "intra", "inter", "host" } do column(tier .. "_bw"); column(tier .. "_latency") end
for _, c in ipairs { "power", "cores", "mem_per_core" } do column(c) end
-- the fabric as NCCL sees it (issue [19]; hw_catalog.lua FABRIC, source key "fabric")
for _, c in ipairs { "nvlink", "nvls", "nics" } do column(c) end
-- NCCL's CTAs per collective (lua/dlbench/contention.lua, source key "nccl_ctas")
column("nccl_ctas")
local kernel = false
for _, f in ipairs(desc.fields("dlb_roof")) do
  kernel = kernel or f == "kernel_overhead"
  -- attn_work and head_peak are the step's (a framework profile's causal masking and fp8
  -- recipe), not a device's columns
  if kernel and f ~= "mem" and f ~= "attn_work" and f ~= "head_peak" and not f:match("^level%d+_") then
    column(f)
  end
end
-- toy: "true" for a deliberate toy device (the units' plausibility check skipped: hw_spec.lua)
for _, c in ipairs { "toy", "note", "source", "levels" } do column(c) end
local csv_col = {}
for _, c in ipairs(M.csv_columns) do csv_col[c] = true end
-- a link tier's column ("intra_bw", "host_latency"): tier and field, else nil (dlb_roof's
-- host_op and host_layer are the host-side model's, not the host link's)
local TIERS = { intra = true, inter = true, host = true }
local function link_col(c)
  local tier, k = c:match("^(%a+)_(%a+)$")
  if tier and TIERS[tier] and (k == "bw" or k == "latency") then return tier, k end
end

-- CSV records through the library's RFC 4180 reader (the one behind dlb.read_csv): each
-- record is an array of field strings with its line number in .line. Comment lines (first
-- non-blank character '#') are blanked first, so line numbers stay those of the file.
-- Errors name file:line:column.
local function csv_records(text, file)
  text = text:gsub("[^\r\n]*", function(l) if l:match("^%s*#") then return "" end end)
  local ok, recs, lines = pcall(core.stats_csv_parse, text, ",")
  if not ok then
    local msg = tostring(recs):gsub("^line (%d+), column (%d+): ", "%1:%2: ")
    error(file .. ":" .. msg, 0)
  end
  for i, r in ipairs(recs) do r.line = lines[i] end
  return recs
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- The source cell back into {field = text}: M.to_csv writes "field: text; field: text"
-- (fields sorted). A text may itself hold "; ", so a cut is made only before a known
-- field's name; a cell that does not start with one (a hand-written catalogue's free
-- text) is the device's source as a whole (source.all). A field named twice is an error
-- naming it (before fuzz-long the later text replaced the earlier one silently).
local function csv_sources(s, where)
  local known = { peak = true, links = true, gemm_tile = true, all = true, fabric = true }
  for _, c in ipairs(M.csv_columns) do known[c] = true end
  local key = s:match("^([%w_]+): ")
  if not (key and known[key]) then return { all = s } end
  local out, seen, start = {}, {}, #key + 3
  while true do
    local i, cut, nextkey, nextstart = start, nil, nil, nil
    while true do
      local a, b, k = s:find("; ([%w_]+): ", i)
      if not a then break end
      if known[k] then cut, nextkey, nextstart = a, k, b + 1; break end
      i = a + 1
    end
    if seen[key] then
      error(string.format("%s: column 'source': field '%s' appears twice", where, key), 0)
    end
    seen[key] = true
    -- each text trimmed, as the cell is (the writer sorts the fields, so a text that ended
    -- inside the cell may end it next time); an empty one says nothing and is left out
    local text = trim(s:sub(start, cut and cut - 1 or -1))
    if text ~= "" then out[key] = text end
    if not cut then return out end
    key, start = nextkey, nextstart
  end
end

-- Device specs from CSV text (see M.csv_columns); `file` names the source in errors.
function M.parse_csv(text, file)
  file = file or "csv"
  if type(text) ~= "string" then error("dlb.hw.parse_csv: expected text, got " .. type(text), 2) end
  local kept = csv_records(text, file)
  if #kept == 0 then error(file .. ": empty catalogue (expected a header row)", 0) end
  local header = kept[1]
  local cols, seen = {}, {}
  for j, f in ipairs(header) do
    local c = trim(f):lower()
    if not csv_col[c] then
      error(string.format("%s:%d: %s", file, header.line,
        options.message(c, M.csv_columns, "a catalogue file", "column")), 0)
    end
    if seen[c] then error(string.format("%s:%d: column '%s' appears twice", file, header.line, c), 0) end
    seen[c] = true
    cols[j] = c
  end
  if not seen.name then error(file .. ":" .. header.line .. ": the header needs a 'name' column", 0) end
  local specs, first_line = {}, {}
  for r = 2, #kept do
    local rec = kept[r]
    local where = file .. ":" .. rec.line
    if #rec ~= #cols then
      error(string.format("%s: %d fields, but the header has %d", where, #rec, #cols), 0)
    end
    local spec = { peak = {}, source = {} }
    local links = {}
    for j, c in ipairs(cols) do
      local s = trim(rec[j])
      if s ~= "" then
        if c == "name" or c == "kind" or c == "note" then
          spec[c] = s
        elseif c == "source" then
          spec.source = csv_sources(s, where)
        elseif c == "levels" then
          spec.levels = levels.parse(s, where)
        elseif c == "toy" then
          if s ~= "true" and s ~= "false" then
            error(string.format("%s: column 'toy': '%s' is not true or false (empty: false)", where, s), 0)
          end
          spec.toy = s == "true" or nil
        else
          -- decimal only, as every CSV number of dlbench (dlb.read_csv's reader): tonumber
          -- took hexadecimal, which Lua 5.4 wraps to 64-bit integers (0x10000000000000001
          -- was 1 FLOP/s there, 1.8e19 under LuaJIT) and binary under LuaJIT only ("0b101")
          local v = csvnumber(s)
          if v == nil or v ~= v or v == math.huge or v == -math.huge then
            error(string.format("%s: column '%s': '%s' is not a finite number", where, c, s), 0)
          end
          if is_prec[c] then
            spec.peak[c] = v
          elseif c == "gemm_tile_m" or c == "gemm_tile_n" then
            spec.gemm_tile = spec.gemm_tile or {}
            spec.gemm_tile[c == "gemm_tile_m" and 1 or 2] = v
          elseif link_col(c) then
            local tier, k = link_col(c)
            links[tier] = links[tier] or {}
            links[tier][k] = v
          else
            spec[c] = v
          end
        end
      end
    end
    for _, tier in ipairs(options.keys(links)) do -- sorted: the first refused tier is named
      local l = links[tier]
      if l.bw == nil then
        error(string.format("%s: %s_latency given without %s_bw", where, tier, tier), 0)
      end
      spec.links = spec.links or {}
      spec.links[tier] = l
    end
    if next(spec.source) == nil then spec.source = nil end
    validate(spec, where)
    local prev = spec.name and first_line[spec.name]
    if prev then
      error(string.format("%s: device '%s' is already on line %d of %s (one row per device)",
        where, spec.name, prev, file), 0)
    end
    first_line[spec.name] = rec.line
    specs[#specs + 1] = spec
  end
  return specs
end
doc.doc(M.parse_csv, "dlb.hw.parse_csv(text[, file]) -> {specs}",
  "parse a CSV catalogue (header: name, fp32, ..., mem, mem_bw, ...); errors name file:line")

-- The specs of a catalogue file (.lua returning a spec or a list of specs, or .csv), not
-- yet checked as a whole (dlb.hw.load does that); nil and a message when the file cannot be
-- read or has another extension.
function M.read(path)
  -- a catalogue is data: a regular file of at most 64 MiB (no FIFO, no /dev/zero)
  local text, err = core.file_read(path, 64 * 2 ^ 20)
  if not text then return nil, err end
  local specs
  if path:match("%.csv$") then
    specs = M.parse_csv(text, path)
  elseif path:match("%.lua$") then
    -- data, not code: source text only, an empty environment, bounded (dlbench.dataload)
    local res = require("dlbench.dataload").eval(text, path)
    if type(res) ~= "table" then error(path .. ": must return a device table or a list of them", 0) end
    specs = res.name and { res } or res
  else
    return nil, path .. ": expected a .lua or .csv file"
  end
  return specs
end

local function csv_cell(v)
  if v == nil then return "" end
  if type(v) == "number" then return string.format("%.17g", v) end
  -- texts as every CSV writer of dlbench quotes them (table_io.csvfield: a NUL byte, which
  -- the reader takes only inside quotes, a separator, a quote, a line break, edge spaces)
  return csvfield(tostring(v), ",")
end

-- A device's source as a catalogue cell, "field: text; field: text" (fields sorted), which
-- csv_sources reads back to the same fields: a source that is only free text (source.all,
-- as a hand-written cell is read) is written as it is when it reads back whole. A text that
-- holds "; FIELD: " for a known field cannot be cut back where it was written: an error
-- naming the device and the field (before fuzz-long it read back as other fields).
local function source_text(d)
  local source = {} -- the fields with a text (an empty one is not written: it says nothing)
  for k, t in pairs(d:spec().source) do if t ~= "" then source[k] = t end end
  local keys = {}
  for k in pairs(source) do keys[#keys + 1] = k end
  table.sort(keys)
  if #keys == 0 then return nil end
  local parts = {}
  for i, k in ipairs(keys) do parts[i] = k .. ": " .. source[k] end
  local cell = table.concat(parts, "; ")
  local function same(text)
    local ok, back = pcall(csv_sources, text, "")
    if not ok then return false end
    for k, t in pairs(back) do if source[k] ~= t then return false end end
    for k in pairs(source) do if back[k] == nil then return false end end
    return true
  end
  if #keys == 1 and keys[1] == "all" and same(source.all) then return source.all end
  if same(cell) then return cell end
  for _, k in ipairs(keys) do
    if not same(k .. ": " .. source[k]) then
      error(string.format("dlb.hw.to_csv: device '%s': source.%s holds '; NAME: ' with NAME a "
        .. "catalogue field; it would read back cut there (reword it)", d.name, k), 0)
    end
  end
  error(string.format("dlb.hw.to_csv: device '%s': its source does not read back from a "
    .. "catalogue cell (a field's text holds '; NAME: ' with NAME a catalogue field)", d.name), 0)
end

-- The CSV text of a list of devices (dlb.hw devices), readable by dlb.hw.load.
function M.format(devices)
  local lines = { table.concat(M.csv_columns, ",") }
  for _, d in ipairs(devices) do
    local cells = {}
    for j, c in ipairs(M.csv_columns) do
      local v
      if is_prec[c] then v = d.peak[c]
      elseif c == "source" then
        v = source_text(d)
      elseif link_col(c) then
        local tier, k = link_col(c)
        v = d.links[tier] and d.links[tier][k]
      elseif c == "cache" then v = (d.cache or 0) > 0 and d.cache or nil
      elseif c == "gemm_tile_m" or c == "gemm_tile_n" then
        v = d.gemm_tile and d.gemm_tile[c == "gemm_tile_m" and 1 or 2]
      elseif c == "levels" then
        v = d.levels and levels.format(d:level_list()) or nil
      elseif c == "toy" then v = d.toy and "true" or nil
      else v = d[c] end
      cells[j] = csv_cell(v)
    end
    lines[#lines + 1] = table.concat(cells, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

return M
