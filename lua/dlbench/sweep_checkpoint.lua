-- dlbench.sweep_checkpoint — a sweep's checkpoint file (opts.checkpoint, docs/sweep.md):
-- the file itself (locked for one process, read, a torn last line dropped, lines appended
-- whole, closed however the run ends), shared by dlb.sweep (lua/dlbench/sweep.lua: CSV rows)
-- and dlb.sweep.model (lua/dlbench/sweep_model.lua: one line per finished chunk); then
-- dlb.sweep's rows: the header check before anything touches the file, loading the finished
-- rows (a torn last row dropped), and the writer that appends one CSV line per row with a
-- bounded fsync rate. Internal.
local core = require "dlbench.backend"
local tbl = require "dlbench.table"
local errors = require "dlbench.errors"
local C = require "dlbench.sweep_config"

local cfgkey, errtext, on_collect = C.cfgkey, C.errtext, C.on_collect

local M = {}

-- ---------------------------------------------------------------- the file

-- Lock checkpoint path for this process (the file is created when missing) before anything
-- reads it: a second process on the same file gets an error, not lost lines. Returns the
-- box {fd = } the other functions take (fd: open and locked). fname names the caller in
-- messages; level: error's level for a bad name (the caller's caller: the user's line).
function M.lock(path, fname, level)
  if type(path) ~= "string" then error(fname .. ": checkpoint must be a file name", level and level + 1 or 0) end
  local why = errors.unwritable_name(path)
  if why then error(fname .. ": checkpoint: " .. why, level and level + 1 or 0) end
  local fd, err = core.file_lock_append(path)
  if not fd then
    error(fname .. ": checkpoint: " .. err:gsub("in use by another process", "in use by another "
      .. "process (another sweep writing this checkpoint?)"), 0)
  end
  return { fd = fd, synced = core.sys_now() }
end

-- The checkpoint's text ("" when it is missing or empty).
function M.read(path, fname)
  local text, rerr, why = core.file_read(path)
  if text == nil and why ~= "missing" then error(fname .. ": checkpoint: " .. rerr, 0) end
  return text or ""
end

-- Replace the file whole with s (written beside it, renamed over it, locked before it
-- replaces the old one); box.fd then names the new file.
function M.replace(path, box, s, fname)
  local nfd, err = core.file_write_locked(path, s)
  if not nfd then error(fname .. ": checkpoint: " .. err, 0) end
  if box.fd then pcall(core.proc_close, box.fd) end
  box.fd = nfd
end

-- text without a torn last line (the process died while appending it): dropped, the file
-- rewritten, a note on stderr unless quiet (tag: the note's prefix, "sweep").
function M.drop_torn_line(path, box, text, quiet, fname, tag)
  if text == "" or text:sub(-1) == "\n" then return text end
  local cut = text:match("^(.*\n)") or ""
  if not quiet then
    io.stderr:write(string.format("%s: checkpoint %s: dropped an incomplete last line (%d bytes)\n",
      tag or "sweep", path, #text - #cut))
  end
  M.replace(path, box, cut, fname)
  return cut
end

-- Append s (whole lines) with one write: a line is on the file once the write returns (a
-- process killed after it loses nothing); fsync (against a crash of the machine) at most every
-- M.sync_interval seconds, and at close. A failed write or fsync names the checkpoint (not
-- only its descriptor).
M.sync_interval = 0.5
local function ck(path, fname, f, ...)
  local ok, err = pcall(f, ...)
  if not ok then
    error(string.format("%s: checkpoint %s: %s", fname, path, (errtext(err):gsub("^proc: ", ""))), 0)
  end
end
function M.append(path, box, s, fname)
  if not box.fd then error(fname .. ": checkpoint " .. path .. " is closed", 0) end
  ck(path, fname, core.proc_write, box.fd, s)
  local now = core.sys_now()
  if now - (box.synced or 0) > M.sync_interval then
    ck(path, fname, core.proc_fsync, box.fd)
    box.synced = now
  end
end

-- Close the file (fsync first); a failed close reports itself. guard(box): an object whose
-- collection closes the file of an interrupted run (Ctrl-C raises on every instruction, so
-- the run itself cannot close it).
function M.close(path, box, fname)
  if box.fd then
    local fd = box.fd
    box.fd = nil
    local ok, err = pcall(core.proc_fsync, fd)
    ck(path, fname, core.proc_close, fd)
    if not ok then ck(path, fname, error, err, 0) end
  end
end
function M.guard(box)
  return on_collect(function() if box.fd then pcall(core.proc_close, box.fd); box.fd = nil end end)
end

-- ---------------------------------------------------------------- dlb.sweep's rows

-- The checkpoint's header line (up to the first line break outside quotes), or nil.
local function header_line(text)
  local pos, quoted = 1, false
  while true do
    local i = text:find(quoted and '"' or '["\n]', pos)
    if not i then return nil end
    if quoted then quoted = false
    elseif text:sub(i, i) == '"' then quoted = true
    else return text:sub(1, i) end
    pos = i + 1
  end
end

-- Check that text is a checkpoint of a sweep over names before anything touches the
-- file: its first line is a CSV header naming every parameter. Raises, leaving the file
-- as it is, when it is not.
local function check_header(path, text, names)
  local hdr = header_line(text)
  local ok, t = false, "it has no complete first line"
  if hdr then ok, t = pcall(tbl.parse_csv, hdr, nil, path) end
  if not ok then
    error(string.format("dlb.sweep: checkpoint %s is not a sweep checkpoint (%s); it was left "
      .. "unchanged", path, (tostring(t):gsub("^dlb%.read_csv: ", ""))), 0)
  end
  for _, k in ipairs(names) do
    if not t:has(k) then
      error(string.format("dlb.sweep: checkpoint %s has no column '%s': is it from another "
        .. "sweep? (left unchanged)", path, k), 0)
    end
  end
end

-- Whether a parameter value list holds a Lua 5.4 integer beyond 2^53, which the CSV reader
-- reads back as its nearest double (docs/csv.md): 2^53 and 2^53 + 1 would share a key.
local function has_big_integer(names, vals)
  if not (vals and math.type) then return false end
  for _, k in ipairs(names) do
    for _, v in ipairs(vals[k]) do
      if math.type(v) == "integer" and (v > 2 ^ 53 or v < -2 ^ 53) then return true end
    end
  end
  return false
end

-- Load a checkpoint (the file open and locked as fd.fd): returns {key -> row} of finished
-- configs, the rows in file order and its columns (nil when the file is empty). A torn
-- last row is dropped by rewriting the file (fd.fd then names the new file, locked).
-- vals: the sweep's value lists (integers beyond 2^53 make the keys from the parameters'
-- text as written, not from the doubles the reader gives).
local function load_checkpoint(path, names, quiet, fd, vals)
  local text = M.read(path, "dlb.sweep")
  if text == "" then return {}, {}, nil end
  -- repair only this sweep's checkpoint: the header first
  check_header(path, text, names)
  local function rewrite(s) M.replace(path, fd, s, "dlb.sweep") end
  -- a torn last line (the process died while writing it): dropped, the file rewritten
  text = M.drop_torn_line(path, fd, text, quiet, "dlb.sweep")
  if text == "" then return {}, {}, nil end
  local ok, t = pcall(tbl.parse_csv, text, nil, path)
  local torn = not ok and tostring(t):match("line (%d+), column %d+: quoted field is never closed %(end of input%)")
  if torn then
    -- a torn last row that ended inside a quoted line break: drop it from its line on
    local keep, n = {}, 0
    for line in text:gmatch("([^\n]*\n)") do
      n = n + 1
      if n >= tonumber(torn) then break end
      keep[#keep + 1] = line
    end
    local cut = table.concat(keep)
    if not quiet then
      io.stderr:write(string.format("sweep: checkpoint %s: dropped an incomplete last row (%d bytes)\n",
        path, #text - #cut))
    end
    text = cut
    rewrite(text)
    if text == "" then return {}, {}, nil end
    ok, t = pcall(tbl.parse_csv, text, nil, path)
  end
  if not ok then error("dlb.sweep: checkpoint " .. tostring(t), 0) end
  for _, k in ipairs(names) do
    if not t:has(k) then
      error(string.format("dlb.sweep: checkpoint %s has no column '%s': is it from another sweep?", path, k), 0)
    end
  end
  local keyrows = t._rows
  if has_big_integer(names, vals) then
    local types = {}
    for _, k in ipairs(names) do types[k] = "string" end
    keyrows = tbl.parse_csv(text, { types = types }, path)._rows
  end
  local done = {}
  for i, r in ipairs(t._rows) do
    if r._error == nil then done[cfgkey(names, keyrows[i])] = r end
  end
  return done, t._rows, t:columns()
end

-- A checkpoint writer: one CSV line per row, appended with a single write; fsync at most
-- every interval seconds and at close. A row with new columns rewrites the file whole
-- (locked before it replaces the old one). fd: the file, open and locked.
local function checkpoint_writer(path, names, oldrows, oldcols, fd)
  local box = { fd = fd, synced = core.sys_now() }
  local w = { cols = oldcols, rows = {} }
  for i, r in ipairs(oldrows) do w.rows[i] = r end
  local has = {}
  if w.cols then for _, c in ipairs(w.cols) do has[c] = true end end
  local function rewrite()
    M.replace(path, box, tbl.csvtext(tbl.new(w.rows, w.cols), ","), "dlb.sweep")
  end
  function w.add(row)
    w.rows[#w.rows + 1] = row
    local new = {}
    for k in pairs(row) do if not has[k] then new[#new + 1] = k end end
    if w.cols == nil or #new > 0 then
      if w.cols == nil then
        w.cols = {}
        for _, k in ipairs(names) do w.cols[#w.cols + 1] = k; has[k] = true end
      end
      table.sort(new, function(a, b)
        if a == "_error" then return false end
        if b == "_error" then return true end
        return a < b
      end)
      -- keep _error last
      local errlast = has["_error"]
      if errlast then
        for i, c in ipairs(w.cols) do if c == "_error" then table.remove(w.cols, i) break end end
      end
      for _, k in ipairs(new) do
        if not has[k] then
          if k ~= "_error" then w.cols[#w.cols + 1] = k end
          has[k] = true
        end
      end
      if has["_error"] then w.cols[#w.cols + 1] = "_error" end
      rewrite()
      return
    end
    M.append(path, box, tbl.csvline(row, w.cols), "dlb.sweep")
  end
  function w.close() M.close(path, box, "dlb.sweep") end
  w.guard = M.guard(box)
  return w
end

M.load, M.writer = load_checkpoint, checkpoint_writer
return M
