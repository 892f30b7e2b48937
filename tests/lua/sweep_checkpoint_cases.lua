-- sweep_checkpoint_cases.lua — what the checkpoint tests of dlb.sweep.model and
-- dlb.sweep.layouts share (test_sweep_model_checkpoint.lua, test_sweep_layouts_checkpoint.lua):
-- temporary names, a file's text and lines, a result table's or grid's text bit for bit, and
-- the cases both sweeps pass the same way (a real dlbench process stopped from outside, a torn
-- last line, a file of another kind, a held lock, bad names). Not a test itself.
local core = require "dlbench.backend"

local M = {}

local tmpdir = os.getenv("TMPDIR") or "/tmp"
-- A fresh temporary file name (prefix: the test's, tag: the case's).
function M.tmpname(prefix, tag)
  return string.format("%s/dlb_test_%s_%s_%d_%d.ck", tmpdir, prefix, tag, os.time(), math.random(1, 1e9))
end
function M.slurp(path) return (core.file_read(path)) end
function M.nlines(path)
  local n = 0
  for _ in (M.slurp(path) or ""):gmatch("\n") do n = n + 1 end
  return n
end

-- A value's text: a number as %.17g (bit-exact but for the sign of a NaN's payload and the
-- integer/float subtype), anything else as tostring.
local function vtext(v)
  return type(v) == "number" and string.format("%.17g", v) or tostring(v)
end
-- A table's text: every column's values, numbers as %.17g (bit-exact), in row order.
function M.text(t)
  local out = { table.concat(t:columns(), ",") }
  for _, c in ipairs(t:columns()) do
    local col = t:column(c)
    for i = 1, t:count() do out[#out + 1] = vtext(col[i]) end
  end
  return table.concat(out, " ")
end
-- Where tables a and b differ (nil: nowhere): the columns (names, order), the row count, then
-- every value in column then row order, each as M.text writes it: the comparison of M.text(a)
-- and M.text(b), value by value (and stricter: a value holding the separator cannot shift
-- into the next). Values that are == and not 0 are taken as equal without their text (two
-- equal doubles other than 0 are the same bits, so their %.17g are equal); 0 (-0 prints
-- otherwise), NaN and unequal values are compared as text. M.text of a sweep's kept rows
-- formats every number; the layouts checkpoint test compared some 80 of them (2.9 of its 12
-- CPU-s under the sanitizers).
function M.diff(a, b)
  local ca, cb = a:columns(), b:columns()
  local ha, hb = table.concat(ca, ","), table.concat(cb, ",")
  if #ca ~= #cb or ha ~= hb then return "columns " .. ha .. " vs " .. hb end
  local n = a:count()
  if n ~= b:count() then return "rows " .. n .. " vs " .. b:count() end
  for _, c in ipairs(ca) do
    local xa, xb = a:column(c), b:column(c)
    for i = 1, n do
      local u, v = xa[i], xb[i]
      if not rawequal(u, v) or u == 0 then
        local tu, tv = vtext(u), vtext(v)
        if tu ~= tv then return string.format("column %s row %d: %s vs %s", c, i, tu, tv) end
      end
    end
  end
  return nil
end
-- A heat map's grid (rows of numbers) as text, bit-exact.
function M.grid(z)
  local out = {}
  for j = 1, #z do for i = 1, #z[j] do out[#out + 1] = string.format("%.17g", z[j][i]) end end
  return table.concat(out, " ")
end

-- Run body (a Lua script's text) in a dlbench process of its own and stop it with signal sig
-- ("INT": Ctrl-C to its process group, as a terminal sends it; "KILL") once checkpoint ck has
-- at least lines lines. Returns the process's exit status, or nil and a reason to skip (no
-- build/bin/dlbench or no bash).
function M.stopped_run(body, ck, sig, lines)
  local src = debug.getinfo(1, "S").source
  local root = ((src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or ".") .. "/../.."
  local exe = root .. "/build/bin/dlbench"
  if not io.open(exe, "rb") or not os.execute("command -v bash >/dev/null 2>&1") then
    return nil, "needs build/bin/dlbench and bash"
  end
  local script = ck .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(body)
  f:close()
  local p = io.popen(string.format("env -u DLB_BACKEND bash -c 'set -m; %q run %q 2>/dev/null & pid=$!; "
    .. "for i in $(seq 600); do [ $(cat %q 2>/dev/null | wc -l) -ge %d ] && break; sleep 0.05; done; "
    .. "kill -%s -$pid; wait $pid; echo rc=$?' 2>/dev/null", exe, script, ck, lines, sig))
  local out = p:read("*a")
  p:close()
  os.remove(script)
  local rc = tonumber(out:match("rc=(%d+)"))
  assert(rc and rc ~= 0, sig .. ": the run was stopped: " .. out)
  return rc
end

-- ---------------------------------------------------------------- the shared cases
-- S, the sweep under test: S.fn its name ("dlb.sweep.model"), S.run(ck[, extra]) its run with
-- checkpoint = ck (and extra options), S.full the uninterrupted checkpointed result, S.file
-- its checkpoint, S.chunks its chunk count, S.same(a, b, what, sums) the comparison,
-- S.tmpname(tag).

-- The script of a run in a process of its own: def (the test's sweep as text, returning
-- SPACE, build, OPTS) run by sweep (e.g. "dlb.sweep.model") with checkpoint ck, each build
-- taking delay seconds more; prelude: lines run first.
function M.slow_script(def, sweep, delay, ck, prelude)
  return table.concat {
    prelude or "",
    "local SPACE, build, OPTS = (function()\n", def, "\nend)()\n",
    "local dlb = require 'dlbench'\n",
    "local o = {}\nfor k, v in pairs(OPTS) do o[k] = v end\n",
    string.format("o.checkpoint = %q\n", ck),
    sweep, "(function(p)\n",
    -- (a wait that burns no CPU: poll on no descriptors; a Ctrl-C ends it early)
    string.format("  dlb.core._proc_poll({}, %g)\n", delay),
    "  return build(p)\n",
    "end, SPACE, o)\n" }
end

-- A process running body_of(ck) stopped by Ctrl-C and by kill -9 once ck has at least lines
-- lines, then resumed here: the finished chunks kept, the result and file the uninterrupted
-- run's.
function M.signals(T, S, body_of, lines)
  for _, sig in ipairs { "INT", "KILL" } do
    local ck = S.tmpname("sig" .. sig)
    local rc, skip = M.stopped_run(body_of(ck), ck, sig, lines)
    if not rc then print("# skipped: " .. skip); return end
    local n = M.nlines(ck)
    assert(n >= lines and n < 1 + S.chunks, sig .. ": some chunks on disk, not all: " .. n .. " lines")
    local r = S.run(ck)
    T.eq(r.resumed, n - 1, sig .. ": the finished chunks resumed")
    S.same(r, S.full, sig .. ": resumed", true)
    T.eq(M.slurp(ck), M.slurp(S.file), sig .. ": the uninterrupted run's file")
    os.remove(ck)
  end
end

-- The first line and k chunk lines, then half of the next (a process killed mid-write): the
-- torn line dropped, the run resumed, the file whole again.
function M.torn(T, S, k)
  local ck = S.tmpname("torn")
  local full = M.slurp(S.file)
  local l1 = full:match("^" .. ("[^\n]*\n"):rep(k + 1))
  local l2 = full:sub(#l1 + 1):match("^[^\n]*\n")
  local f = assert(io.open(ck, "wb"))
  f:write(l1, l2:sub(1, math.floor(#l2 / 2)))
  f:close()
  local r = S.run(ck)
  T.eq(r.resumed, k, k .. " chunks resumed, the torn one evaluated again")
  S.same(r, S.full, "after a torn line", true)
  T.eq(M.slurp(ck), full, "the file whole again")
  os.remove(ck)
end

-- Files that are no checkpoint of this kind (bodies: their texts): refused, unchanged.
function M.other_kinds(T, S, bodies)
  local path = S.tmpname("other")
  for _, body in ipairs(bodies) do
    local f = assert(io.open(path, "wb"))
    f:write(body)
    f:close()
    T.checkerr("is not a " .. S.fn .. " checkpoint; it was left unchanged", S.run, path)
    T.eq(M.slurp(path), body, "the file unchanged")
  end
  os.remove(path)
end

-- Another process holding the checkpoint: refused, the file unchanged; then it runs.
function M.lock(T, S)
  local held = assert(core.file_lock_append(S.file)) -- another sweep holding it
  local before = M.slurp(S.file)
  T.checkerr("in use by another process (another sweep writing this checkpoint?)", S.run, S.file)
  T.eq(M.slurp(S.file), before, "unchanged")
  core.proc_close(held)
  T.eq(S.run(S.file).resumed, S.chunks, "runs once the lock is gone")
end

-- The session's default profile and calibration decide the rows as the options do (where
-- the options leave them to it): a run under another session default is another sweep (it
-- resumed the first run's chunks, then ran the rest under the new default): refused, the
-- checkpoint S.file unchanged.
function M.session_defaults(T, S)
  local fw = require "dlbench.frameworks"
  local before = M.slurp(S.file)
  local saved_fw, saved_cal = fw.session(), fw.calibration_session()
  fw.default("megatron-lm")
  local okf, ef = pcall(S.run, S.file)
  fw.default(saved_fw)
  T.eq(okf, false, "another session profile refused")
  T.checkerr("is not a checkpoint of this sweep", error, tostring(ef))
  T.eq(M.slurp(S.file), before, "unchanged (another session profile)")
  fw.default_calibration("validated")
  local okc, ec = pcall(S.run, S.file)
  fw.default_calibration(saved_cal)
  T.eq(okc, false, "another session calibration refused")
  T.checkerr("is not a checkpoint of this sweep", error, tostring(ec))
  T.eq(M.slurp(S.file), before, "unchanged (another session calibration)")
end

-- A checkpoint that is no file name, or a device: named with the function.
function M.names(T, S)
  T.checkerr(S.fn .. ": checkpoint must be a file name", S.run, 3)
  T.checkerr(S.fn .. ": checkpoint: cannot use /dev/full: is a character device", S.run, "/dev/full")
end

return M
