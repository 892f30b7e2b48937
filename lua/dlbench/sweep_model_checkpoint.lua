-- dlbench.sweep_model_checkpoint — dlb.sweep.model's checkpoint (opts.checkpoint,
-- docs/sweep.md "Checkpoints of dlb.sweep.model"): the sweep is evaluated in chunks (one C
-- evaluation call each: a structure's grid, or a slice of it), and after each chunk its
-- contribution to every reduction is appended as one line, so an interrupted run loses at
-- most the chunk in flight and a rerun adds the finished chunks' lines instead of evaluating
-- them. What a line holds is what the reductions of the union are rebuilt from exactly
-- (dlb_reduce_merge's algebra, graphs/sweep/sweep_reduce.c): the chunk's Pareto-front and
-- top-k rows with their indices (the front or top of the union is the front or top of the
-- parts' survivors, ties ordered by index), each heat-map bin's accumulator and count, each
-- group's keys, count, sum, min and max (numbers as %.17g text, exact), and each kept row's
-- four stored numbers (time, FLOPs, bytes, memory-bound time as 16 hex digits each, their
-- bits: dlb_reduce_keep_text; dlb_sweep_keep recomputes the other columns from the
-- structure's program, as a kept row's read does).
-- The file is dlb.sweep's machinery (lua/dlbench/sweep_checkpoint.lua: the lock, the
-- torn-line repair, the whole-line append, the close); its first line identifies the sweep.
-- dlb.sweep.layouts' checkpoint (M.open_layouts) is the same file and the same lines: its
-- chunk is one plan call, its line adds the text levels the call interned (schedules,
-- provenance), and its kept rows are pushed rows, held whole (each row's index and every
-- column as 16 hex digits: dlb_reduce_keep_text, read back by dlb_reduce_keep_add_text).
-- Internal, used by lua/dlbench/sweep_model.lua and lua/dlbench/sweep_layouts.lua.
local core = require "dlbench.backend"
local file = require "dlbench.sweep_checkpoint"
local desc = require "dlbench.desc"

local M = {}
local _, RED = desc.enum("DLB_RED_")
-- 2: each chunk line ends with its checksum (seal; a version 1 file is refused as another
-- sweep's)
-- the sweeps with a checkpoint of chunk lines: the name in messages, the first line's start,
-- the prefix of notes on stderr
local KINDS = {
  model = { fn = "dlb.sweep.model", magic = "dlb.sweep.model checkpoint 2 ", tag = "sweep.model",
    unit = "chunks" },
  layouts = { fn = "dlb.sweep.layouts", magic = "dlb.sweep.layouts checkpoint 2 ", tag = "sweep.layouts",
    unit = "plan calls" },
}
-- a chunk: C evaluation calls in sweep order until it holds this many configurations (a
-- call larger than that is a chunk of its own): what an interruption may lose, against the
-- cost of each chunk's line (BENCHMARKS.md, "dlb.sweep.model with checkpoint=")
M.chunk_configs = 250000

local function failk(K, msg) error(K.fn .. ": " .. msg, 0) end

-- ---------------------------------------------------------------- numbers as text

local fmt = string.format
local function num(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if v == 0 and 1 / v < 0 then return "-0.0" end
  return fmt("%.17g", v)
end
-- A number of a chunk line (what num wrote: %.17g, nan, inf, -inf), or nil: decimal text and
-- the special values only, read alike by both interpreters. tonumber alone took "-nan" and
-- binary ("0b101") under LuaJIT only and wrapped hexadecimal to 64 bits under Lua 5.4, so a
-- line (its seal forged) was read differently by the two backends (fuzz-long,
-- test_checkpoint_fuzz.lua seed 81). Floats, as LuaJIT reads them: a count of 2^62 read as
-- a Lua 5.4 integer wrapped in `2 + 2 * n` and `m * W` (table_io.csvnumber's rule).
local number = require("dlbench.table_io").csvnumber
-- a count read so (a float) as the integer the writer had, under Lua 5.4 (results compare
-- their types: 7744.0 is not 7744)
local tointeger = math.tointeger or function(x) return x end
local function int(x) return tointeger(x) or x end

-- ---------------------------------------------------------------- what identifies a sweep

-- One line of text for a value: tables with their keys sorted, strings escaped (no line
-- break), functions as "function" (a builder or derive function is not compared: give a
-- different one a different checkpoint, as dlb.sweep's fn).
local function canon(v, depth)
  local t = type(v)
  if t == "number" then return num(v) end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c) return fmt("\\%03d", c:byte()) end) .. '"'
  end
  if t == "boolean" or t == "nil" then return tostring(v) end
  if t ~= "table" then return t end
  if depth > 12 then return "..." end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = canon(k, depth + 1) .. "=" .. canon(v[k], depth + 1) end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- The first line of a sweep's checkpoint: the dlbench version, the row's columns, the space
-- (devices as their fields), the options that decide the rows and reductions, the chunking.
-- kind: "model" (the default) or "layouts".
function M.meta(fields, kind)
  return KINDS[kind or "model"].magic .. canon(fields, 0) .. "\n"
end

-- ---------------------------------------------------------------- a chunk's state

-- The numbers of one reduction's partial state in reducer r: entries and their width
-- (dlb_reduce_add's layout). R: sweep_model's reductions (wants), cols: the row's columns.
local function widths(R, cols)
  local out = {}
  for i, w in ipairs(R.wants) do
    if w.kind == "pareto" or w.kind == "top" then out[i] = #cols + 1
    elseif w.kind == "bins" then out[i] = 2
    else out[i] = #w.keys + 1 + 3 * #w.values end
  end
  return out
end

-- The state of chunk reducer r (n configurations, or rows): one flat list of numbers per
-- reduction, then (keep) the kept rows as C writes them (dlb_reduce_keep_text: 16 hex digits
-- a number, exact): a compiled sweep's stored numbers, or pushed rows whole (each row's index
-- and every column).
local function state_of(R, cols, r, n, keep)
  local st = {}
  for i, w in ipairs(R.wants) do
    local kind = RED[w.kind]
    local m = core._reduce_size(r, kind, w.id)
    local reads = {}
    if w.kind == "pareto" or w.kind == "top" then
      for c = -1, #cols - 1 do reads[#reads + 1] = c end
    elseif w.kind == "bins" then reads = { 2, 1 } -- the accumulator, the count
    else for c = 0, #w.keys + 3 * #w.values do reads[#reads + 1] = c end end
    local flat, width = {}, #reads
    if m > 0 then
      for j, c in ipairs(reads) do
        local a = core._reduce_column(r, kind, w.id, c, 0, m)
        for e = 1, m do flat[(e - 1) * width + j] = a[e] end
      end
    end
    st[i] = { m = m, v = flat }
  end
  if keep then st[#R.wants + 1] = { m = n, text = core._reduce_keep_text(r, 0, n) } end
  return st
end

-- A chunk's state (state_of's, or a line's) added to the sweep's reductions; keeprows: its
-- last part is pushed kept rows (a compiled sweep's are dlb_sweep_keep's, with the program).
local function add_state(R, st, keeprows)
  for i, w in ipairs(R.wants) do core._reduce_add(R.red, RED[w.kind], w.id, st[i].m, st[i].v) end
  if keeprows then
    local k = st[#R.wants + 1]
    core._reduce_keep_add_text(R.red, k.m, k.text)
  end
end

-- The parts of a chunk's line: per reduction "| entries numbers...", then the kept rows'
-- "| rows hex" (keep).
local function encode(st)
  local out = {}
  for _, part in ipairs(st) do
    if part.text then
      out[#out + 1] = "| " .. num(part.m) .. " " .. part.text
    else
      local t = { "|", num(part.m) }
      for j, x in ipairs(part.v) do t[j + 2] = num(x) end
      out[#out + 1] = table.concat(t, " ")
    end
  end
  return table.concat(out, " ")
end

-- A chunk line sealed: its text, " #" and the checksum of the text (16 hex digits:
-- dlb_text_checksum, 64-bit FNV-1a), then the line break. A changed byte, a number edited to
-- another valid number, two bytes swapped: the checksum no longer matches and the line is
-- refused by name instead of read into a silently different result.
local function seal(line)
  return line .. " #" .. core.text_checksum(line) .. "\n"
end
-- The text of a sealed line, or nil when its checksum is missing or does not match.
-- (the seal's place is fixed, the last 18 bytes: a pattern over a 16 MB line of kept rows
-- would backtrack through it, 86 ms a line under Lua 5.4)
local function unseal(line)
  local sum = line:sub(-16)
  if #line < 18 or line:sub(-18, -17) ~= " #" or not sum:match("^%x+$") then return nil end
  local body = line:sub(1, -19)
  if core.text_checksum(body) == sum then return body end
  return nil
end

-- ---------------------------------------------------------------- the file

-- Lock, read, check and repair the checkpoint of the sweep whose first line is meta (K: its
-- kind): returns the lock's box and the chunk lines after the first (without their breaks).
-- Another sweep's file, or one that is no checkpoint, is refused and left unchanged.
local function open_lines(path, meta, K, quiet)
  local box = file.lock(path, K.fn)
  local ok, lines = pcall(function()
    local text = file.read(path, K.fn)
    if text ~= "" then
      -- only this sweep's checkpoint is repaired or appended to: its first line first
      local first = text:match("^([^\n]*\n)")
      if first ~= meta then
        local what
        if (first or text):sub(1, #K.magic) ~= K.magic then
          what = "is not a " .. K.fn .. " checkpoint"
        else
          local a, b = first or text, meta
          local i = 1
          while i <= #a and a:sub(i, i) == b:sub(i, i) do i = i + 1 end
          what = fmt("is not a checkpoint of this sweep (its first line, which identifies the space "
            .. "and options, differs from this sweep's at character %d: ...%s... here, ...%s... there)",
            i, b:sub(math.max(1, i - 20), i + 20):gsub("\n", ""), a:sub(math.max(1, i - 20), i + 20):gsub("\n", ""))
        end
        failk(K, fmt("checkpoint %s %s; it was left unchanged", path, what))
      end
      text = file.drop_torn_line(path, box, text, quiet, K.fn, K.tag)
    end
    if text == "" then file.replace(path, box, meta, K.fn); text = meta end
    local ls = {}
    for line in text:sub(#meta + 1):gmatch("([^\n]*)\n") do ls[#ls + 1] = line end
    return ls
  end)
  if not ok then pcall(file.close, path, box, K.fn); error(lines, 0) end
  return box, lines
end

-- The reductions' parts ("| entries numbers..." each) of chunk k's line into st (a list of
-- {m =, v =}); W: each part's numbers an entry; bad(k, why) raises naming the line.
local function parse_parts(rest, W, st, k, bad)
  for part in rest:gmatch("|([^|]*)") do
    local i = #st + 1
    local v, m = {}, nil
    for tok in part:gmatch("%S+") do
      local x = number(tok)
      if x == nil then bad(k, "'" .. tok .. "' is not a number") end
      if m == nil then m = x else v[#v + 1] = x + 0.0 end
    end
    if m == nil or i > #W or #v ~= m * W[i] or m % 1 ~= 0 then
      bad(k, fmt("reduction %d holds %d numbers for %s entries of %s", i, #v, num(m or 0 / 0), tostring(W[i])))
    end
    st[i] = { m = int(m), v = v }
  end
  return st
end

-- The kept rows' part at the end of chunk k's line (rest: the line from its first "|"):
-- "| total " then digits hex digits a row. Returns it ({m =, text =}) and the rest before it.
local function split_kept(rest, total, digits, k, bad)
  local pre = "| " .. num(total) .. " "
  local at = #rest - digits * total - #pre + 1
  if at < 1 or rest:sub(at, at + #pre - 1) ~= pre then
    bad(k, fmt("its kept rows' part is not the count and %d hex digits a row", digits))
  end
  return { m = total, text = rest:sub(at + #pre) }, rest:sub(1, at - 1)
end

-- What a chunk's line says is wrong, naming the file and line (left unchanged).
local function badline(K, path)
  return function(k, why)
    failk(K, fmt("checkpoint %s, line %d (chunk %d): %s; it was left unchanged", path, k + 1, k, why))
  end
end

-- ck.run(fn): the sweep's loop fn run with checkpoint ck (K: its kind): the file closed
-- however it ends (ck.finish after, ck.abort on an error, raised again), a note on stderr of
-- the chunks resumed unless quiet.
local function runner(ck, K, path, quiet)
  return function(fn)
    local ok, err = pcall(fn)
    if not ok then ck.abort(); error(err, 0) end
    ck.finish()
    if ck.resumed > 0 and not quiet then
      io.stderr:write(fmt("%s: checkpoint %s: %d of %d %s resumed\n", K.tag, path, ck.resumed,
        ck.chunks, K.unit))
    end
  end
end

-- Open (lock, read, check, repair) the checkpoint of the sweep whose first line is meta.
-- Returns the checkpoint object: ck.call(ev, evaluate) runs or resumes one C call, ck.run.
-- R, cols: the sweep's reductions and row columns; keep: whether it keeps rows.
function M.open(path, meta, R, cols, keep, quiet)
  local K = KINDS.model
  local FN = K.fn
  local box, lines = open_lines(path, meta, K, quiet)
  local W = widths(R, cols)
  local nparts = #R.wants + (keep and 1 or 0)
  local ck = { resumed = 0, evaluated = 0, seconds = 0, chunks = 0, guard = file.guard(box) }
  local cur, res -- the chunk being evaluated, or the finished one being added call by call

  local bad = badline(K, path)
  -- chunk k's line parsed: its calls {{first =, n =}, ...} and its state
  local function parse(k)
    local line = unseal(lines[k])
    if not line then
      bad(k, "its checksum does not match its text (the line was changed or damaged)")
    end
    local head = line:match("^[^|]*")
    local rest = line:sub(#head + 1)
    local nums = {}
    for tok in head:gmatch("%S+") do
      nums[#nums + 1] = number(tok) or bad(k, "'" .. tok .. "' is not a number")
    end
    if nums[1] ~= k then bad(k, "it names chunk " .. num(nums[1])) end
    local calls = {}
    if not nums[2] or #nums ~= 2 + 2 * nums[2] or nums[2] < 1 or nums[2] % 1 ~= 0 then
      bad(k, "not a chunk line")
    end
    for i = 1, nums[2] do calls[i] = { first = int(nums[1 + 2 * i]), n = int(nums[2 + 2 * i]) } end
    local st, kept = {}, nil
    if keep then
      -- the kept rows: the count, then 64 hex digits a row (checked in C), the line's end
      local total = 0
      for _, c in ipairs(calls) do total = total + c.n end
      kept, rest = split_kept(rest, total, 64, k, bad)
    end
    parse_parts(rest, W, st, k, bad)
    st[#st + 1] = kept
    if #st ~= nparts then bad(k, fmt("%d reductions, this sweep has %d", #st, nparts)) end
    return { k = k, calls = calls, st = st, i = 1, off = 0 }
  end
  -- the kept rows' stored numbers of one call: rows off + 1 .. off + n of the chunk's
  local function keep_call(ev, text, off)
    core._sweep_keep(ev.prog, ev.counts, ev.vals, ev.roofs, ev.mem, ev.tags, ev.per, ev.first,
      R.red, text:sub(64 * off + 1, 64 * (off + ev.n)))
  end
  -- the chunk evaluated now, finished: its state added to the sweep's reductions, then its
  -- line appended (whole: one write)
  local function flush()
    local c = cur
    cur = nil
    local st = state_of(R, cols, c.r, c.n, keep)
    add_state(R, st)
    local off = 0
    if keep then
      for _, ev in ipairs(c.calls) do keep_call(ev, st[#R.wants + 1].text, off); off = off + ev.n end
    end
    local head = { num(c.k), num(#c.calls) }
    for _, ev in ipairs(c.calls) do head[#head + 1] = num(ev.first); head[#head + 1] = num(ev.n) end
    file.append(path, box, seal(table.concat(head, " ") .. " " .. encode(st)), FN)
    lines[c.k] = true
    ck.evaluated = ck.evaluated + 1
  end

  -- One C evaluation call of the sweep (ev: {prog, counts, vals, roofs, mem, tags, per,
  -- first, n}): in a finished chunk, its part of the file's state added; else evaluate(r)
  -- into the open chunk's own reducer, the chunk flushed once it holds chunk_configs
  -- configurations. ck.seconds: the time spent on the checkpoint (all but evaluate).
  function ck.call(ev, evaluate)
    local t0 = core.sys_now()
    if not cur and not res then
      ck.chunks = ck.chunks + 1
      local k = ck.chunks
      if lines[k] then
        res = parse(k)
        -- what C checks (a heat map's bin count, a state C refuses), named with the line
        local ok, err = pcall(add_state, R, res.st)
        if not ok then bad(k, (tostring(err):gsub("^compiled sweep: ", ""))) end
        ck.resumed = ck.resumed + 1
      else
        cur = { k = k, calls = {}, r = R.spawn(), n = 0 }
      end
    end
    if res then
      local c = res.calls[res.i]
      if not c or c.first ~= ev.first or c.n ~= ev.n then
        bad(res.k, fmt("its call %d holds configurations %s + %s, this sweep's is %s + %s: is it from "
          .. "another sweep?", res.i, c and num(c.first) or "-", c and num(c.n) or "-", num(ev.first), num(ev.n)))
      end
      if keep then
        local ok, err = pcall(keep_call, ev, res.st[#R.wants + 1].text, res.off)
        if not ok then bad(res.k, (tostring(err):gsub("^compiled sweep: ", ""))) end
      end
      res.off, res.i = res.off + ev.n, res.i + 1
      if res.i > #res.calls then res = nil end
    else
      local e0 = core.sys_now()
      evaluate(cur.r)
      t0 = t0 + (core.sys_now() - e0)
      cur.calls[#cur.calls + 1] = ev
      cur.n = cur.n + ev.n
      if cur.n >= M.chunk_configs then flush() end
    end
    ck.seconds = ck.seconds + (core.sys_now() - t0)
  end
  -- After the last call: the open chunk flushed, the file closed (synced); a file holding
  -- more than this sweep's chunks is refused (it is another sweep's).
  function ck.finish()
    local t0 = core.sys_now()
    if cur then flush() end
    local extra = res ~= nil or #lines > ck.chunks
    file.close(path, box, FN)
    ck.seconds = ck.seconds + (core.sys_now() - t0)
    if extra then
      failk(K, fmt("checkpoint %s holds more than this sweep's %d chunks: is it from another sweep?",
        path, ck.chunks))
    end
  end
  function ck.abort() pcall(file.close, path, box, FN) end
  ck.run = runner(ck, K, path, quiet)
  return ck
end

-- ---------------------------------------------------------------- dlb.sweep.layouts

-- A level (a text column's value) as one token: a string percent-escaped ("s" first), a
-- boolean "b0" / "b1"; and back.
local function level_token(v)
  if type(v) == "boolean" then return v and "b1" or "b0" end
  return "s" .. tostring(v):gsub("[^%w%._/,:()+-]", function(c) return fmt("%%%02X", c:byte()) end)
end
local function token_level(t)
  if t == "b0" then return false elseif t == "b1" then return true end
  if t:sub(1, 1) ~= "s" then return nil end
  return (t:sub(2):gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

-- Open (lock, read, check, repair) dlb.sweep.layouts' checkpoint whose first line is meta. A
-- chunk is one plan call (a model on one device and device count), its line
--   k evaluated rows nlevels (column level)... | state... [| kept rows]
-- evaluated: the layouts the call evaluated; rows: its rows (their indices follow the rows
-- before); the levels it interned (names: the text columns a plan call's rows add to, e.g.
-- schedule and provenance), so that a resumed run interns the same levels in the same order;
-- then each reduction's state (state_of) and, with keep, the kept rows whole (hex).
-- Returns ck: ck.resume(k) -> rows, evaluated (chunk k finished before: its levels interned,
-- its state added; nil when it did not), ck.begin() before a call's rows are pushed into a
-- reducer of its own (R.spawn()), ck.finish_chunk(k, r, rows, evaluated, mark) after (its
-- state added to the sweep's, its line appended), ck.run(fn) (the loop, the file closed).
function M.open_layouts(path, meta, R, cols, keep, names, quiet)
  local K = KINDS.layouts
  local box, lines = open_lines(path, meta, K, quiet)
  local W = widths(R, cols)
  local ck = { resumed = 0, evaluated = 0, seconds = 0, chunks = 0, guard = file.guard(box) }
  local bad = badline(K, path)
  local isname = {}
  for _, nm in ipairs(names) do isname[nm] = true end

  function ck.resume(k)
    ck.chunks = k
    if lines[k] == nil then return nil end
    local t0 = core.sys_now()
    local line = unseal(lines[k])
    if not line then
      bad(k, "its checksum does not match its text (the line was changed or damaged)")
    end
    local head = line:match("^[^|]*")
    local toks = {}
    for tok in head:gmatch("%S+") do toks[#toks + 1] = tok end
    local nums = {}
    for i = 1, 4 do nums[i] = number(toks[i] or "") end
    if nums[1] ~= k then bad(k, "it names chunk " .. tostring(toks[1])) end
    if not (nums[2] and nums[3] and nums[4]) or #toks ~= 4 + 2 * nums[4] then bad(k, "not a chunk line") end
    local lv = {}
    for i = 1, nums[4] do
      local nm, v = token_level(toks[3 + 2 * i]), token_level(toks[4 + 2 * i])
      if not (nm and isname[nm]) or v == nil then
        bad(k, "'" .. toks[3 + 2 * i] .. " " .. toks[4 + 2 * i] .. "' is not a column's level")
      end
      lv[i] = { nm, v }
    end
    -- with keep, the call's rows (every one is kept) at the line's end, 16 hex digits a number
    local rest, kept = line:sub(#head + 1), nil
    if keep then kept, rest = split_kept(rest, nums[3], 16 * (#cols + 1), k, bad) end
    local st = parse_parts(rest, W, {}, k, bad)
    if #st ~= #W then bad(k, fmt("%d reductions, this sweep has %d", #st, #W)) end
    st[#st + 1] = kept
    for _, x in ipairs(lv) do R.intern[x[1]](x[2]) end
    -- (C checks the kept rows' hex digits: named with the line)
    local ok, err = pcall(add_state, R, st, keep)
    if not ok then bad(k, (tostring(err):gsub("^compiled sweep: ", ""))) end
    ck.resumed = ck.resumed + 1
    ck.seconds = ck.seconds + (core.sys_now() - t0)
    return int(nums[3]), int(nums[2])
  end
  -- the levels interned so far: what a call adds is after these
  function ck.begin()
    local mark = {}
    for i, nm in ipairs(names) do mark[i] = #R.levels[nm] end
    return mark
  end
  function ck.finish_chunk(k, r, rows, evaluated, mark)
    local t0 = core.sys_now()
    local st = state_of(R, cols, r, rows, keep)
    add_state(R, st, keep)
    local lv = {}
    for i, nm in ipairs(names) do
      local l = R.levels[nm]
      for j = mark[i] + 1, #l do lv[#lv + 1] = level_token(nm) .. " " .. level_token(l[j]) end
    end
    local head = { num(k), num(evaluated), num(rows), num(#lv) }
    if #lv > 0 then head[#head + 1] = table.concat(lv, " ") end
    file.append(path, box, seal(table.concat(head, " ") .. " " .. encode(st)), K.fn)
    lines[k] = true
    ck.evaluated = ck.evaluated + 1
    ck.seconds = ck.seconds + (core.sys_now() - t0)
  end
  -- After the last call: the file closed (synced); one holding more than this sweep's
  -- chunks is refused (it is another sweep's).
  function ck.finish()
    local extra = #lines > ck.chunks
    file.close(path, box, K.fn)
    if extra then
      failk(K, fmt("checkpoint %s holds more than this sweep's %d chunks: is it from another sweep?",
        path, ck.chunks))
    end
  end
  function ck.abort() pcall(file.close, path, box, K.fn) end
  ck.run = runner(ck, K, path, quiet)
  return ck
end

return M
