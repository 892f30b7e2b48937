-- dlbench.sweep_slurm — sweeps as Slurm job arrays (docs/sweep.md "Slurm"):
--   dlbench sweep submit study.lua --shards N [--dir DIR] [--merge] [sbatch options]
--   dlbench sweep merge DIR [-o merged.csv] [--allow-partial]   (dlb.sweep.merge(dir))
--   dlbench sweep status DIR
-- A task of the array runs `dlbench sweep task study.lua` with DLBENCH_SWEEP_DIR set: each
-- dlb.sweep in the study then runs its slice (SLURM_ARRAY_TASK_ID/COUNT) with a checkpoint of
-- its own in DIR, beside a meta file that records the sweep's space, so a merge needs no
-- study and refuses shards of another sweep. A task killed, pre-empted or requeued resumes
-- from its checkpoint; Slurm's signal before the time limit (SIGUSR1) stops it cleanly and
-- it requeues itself.
-- Files in DIR (LABEL: the sweep's label=, default "sweep"):
--   manifest.lua             written by submit: study, shards, job ids
--   task.sh, merge.sh        the batch scripts submit wrote
--   LABEL.shard-I.csv        shard I's checkpoint (docs/sweep.md "Checkpoints")
--   LABEL.shard-I.meta       shard I's space, slice, host, pid, job (a Lua table literal)
--   LABEL.shard-I.done       written when shard I's sweep returned
--   logs/shard-I.out         the task's stdout and stderr (appended across requeues)
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local tbl = require "dlbench.table"
local C = require "dlbench.sweep_config"

local M = {}

local q = require("dlbench.errors").shell_quote

-- A value as a Lua literal that reads back exactly (numbers: the table's exact text, with
-- a float mark under Lua 5.4 so the subtype survives).
local function literal(v, ind)
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t == "number" then
    if v ~= v then return "0/0" end
    if v == math.huge then return "math.huge" end
    if v == -math.huge then return "-math.huge" end
    local s = tbl.numtext(v)
    if math.type and math.type(v) == "float" and not s:find("[%.eEn]") then s = s .. ".0" end
    return s
  end
  if t == "boolean" then return tostring(v) end
  if t ~= "table" then error("sweep_slurm: cannot write a " .. t, 0) end
  ind = ind or ""
  local out = {}
  for i = 1, #v do out[#out + 1] = literal(v[i], ind .. "  ") end
  local keys = {}
  for k in pairs(v) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do out[#out + 1] = string.format("[%q] = %s", k, literal(v[k], ind .. "  ")) end
  return "{ " .. table.concat(out, ", ") .. " }"
end

local function write_lua(path, t)
  local ok, err = core.file_write(path, "-- written by dlbench (dlbench.sweep_slurm); do not edit\nreturn "
    .. literal(t) .. "\n")
  if not ok then error("dlb.sweep: " .. tostring(err), 0) end
end

-- Read a file written by write_lua: the table, or nil and a message.
local function read_lua(path)
  local text, err, why = core.file_read(path)
  if not text then return nil, err, why end
  local f, lerr = load(text, "@" .. path, "t", { math = { huge = math.huge } })
  if not f then return nil, path .. ": not a dlbench sweep file (" .. tostring(lerr) .. ")" end
  local ok, t = pcall(f)
  if not ok or type(t) ~= "table" then return nil, path .. ": not a dlbench sweep file" end
  return t
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

-- This process's id (/proc/self/stat is read by the process itself).
local function mypid()
  local f = io.open("/proc/self/stat", "rb")
  if not f then return nil end
  local l = f:read("*l") or ""
  f:close()
  return tonumber(l:match("^(%d+)"))
end

local function file_of(dir, label, i, ext)
  return string.format("%s/%s.shard-%d.%s", dir, label, i, ext)
end

-- The identity of a sweep's space: names in order and their values.
local function fingerprint(names, vals)
  local parts = {}
  for _, k in ipairs(names) do
    local vs = {}
    for j, v in ipairs(vals[k]) do vs[j] = type(v) == "number" and tbl.numtext(v) or tostring(v) end
    parts[#parts + 1] = k .. "=" .. table.concat(vs, ",")
  end
  return table.concat(parts, ";")
end

local function label_of(l)
  l = l or "sweep"
  if type(l) ~= "string" or not l:match("^[%w_%-%.]+$") then
    error("dlb.sweep: under DLBENCH_SWEEP_DIR the label names the checkpoint files: letters, digits, "
      .. "'_', '-', '.' only, got " .. tostring(l), 0)
  end
  return l
end

-- Called by dlb.sweep when DLBENCH_SWEEP_DIR is set and the sweep runs a shard: writes the
-- shard's meta file and returns the checkpoint path and a function to call when the sweep
-- returned. sh = {names=, vals=, first=, last=, total=, i=, n=, label=}.
function M.attach(dir, sh)
  local label = label_of(sh.label)
  local d = io.open(dir .. "/.", "rb")
  if not d then
    error(string.format("dlb.sweep: DLBENCH_SWEEP_DIR=%s is not a folder this task can use "
      .. "(dlbench sweep submit creates it)", dir), 0)
  end
  d:close()
  local fp = fingerprint(sh.names, sh.vals)
  local metapath = file_of(dir, label, sh.i, "meta")
  local old = read_lua(metapath)
  if old and (old.fingerprint ~= fp or old.shards ~= sh.n) then
    error(string.format("dlb.sweep: %s belongs to another sweep (%s); a study with several sweeps "
      .. "gives each its own label=, or use another DLBENCH_SWEEP_DIR", metapath,
      old.shards ~= sh.n and string.format("%d shards, this one %d", old.shards, sh.n)
        or "other parameters or values"), 0)
  end
  local values = {}
  for _, k in ipairs(sh.names) do values[k] = sh.vals[k] end
  local host = os.getenv("SLURMD_NODENAME") or os.getenv("HOSTNAME") or ""
  write_lua(metapath, {
    version = 1, label = label, shard = sh.i, shards = sh.n, first = sh.first, last = sh.last,
    total = sh.total, names = sh.names, values = values, fingerprint = fp,
    host = host, pid = mypid(),
    job = os.getenv("SLURM_JOB_ID"), array_job = os.getenv("SLURM_ARRAY_JOB_ID"),
    task = os.getenv("SLURM_ARRAY_TASK_ID"), restarts = tonumber(os.getenv("SLURM_RESTART_COUNT") or "0"),
    started = os.time(),
  })
  local donepath = file_of(dir, label, sh.i, "done")
  os.remove(donepath)
  return file_of(dir, label, sh.i, "csv"), function(rows, failed)
    write_lua(donepath, { rows = rows, failed = failed, finished = os.time() })
  end
end

-- After Slurm's signal before the time limit stopped the task (dlbench sweep task, SIGUSR1):
-- its checkpoint is closed; ask Slurm to run it again, where it resumes.
function M.requeue_self()
  local job, task = os.getenv("SLURM_ARRAY_JOB_ID"), os.getenv("SLURM_ARRAY_TASK_ID")
  local id = (job and task) and (job .. "_" .. task) or os.getenv("SLURM_JOB_ID")
  if not id then
    io.stderr:write("dlbench sweep task: stopped by SIGUSR1 outside Slurm; not requeued\n")
    return
  end
  io.stderr:write("dlbench sweep task: stopped before the time limit, checkpoint closed; requeueing " .. id .. "\n")
  io.stderr:flush()
  local ok = require("dlbench.errors").shell("scontrol requeue " .. q(id))
  if not ok then io.stderr:write("dlbench sweep task: scontrol requeue " .. id .. " failed; resubmit to resume\n") end
end

-- The shards of DIR's sweep: n, label, and each shard's meta (nil where missing).
local function shards_of(dir, label)
  local man = read_lua(dir .. "/manifest.lua")
  label = label or (man and man.label) or "sweep"
  local first, ferr, why = read_lua(file_of(dir, label, 1, "meta"))
  local n = (man and man.shards) or (first and first.shards)
  if not n then
    if why == "missing" or first == nil then
      local f = io.open(dir, "rb")
      if not f then error(string.format("dlb.sweep.merge: %s does not exist", dir), 0) end
      f:close()
      error(string.format("dlb.sweep.merge: %s holds no shard of a sweep labelled '%s' (no manifest.lua, "
        .. "no %s.shard-1.meta)%s", dir, label, label, ferr and why ~= "missing" and (": " .. ferr) or ""), 0)
    end
  end
  local metas = {}
  for i = 1, n do metas[i] = read_lua(file_of(dir, label, i, "meta")) end
  return n, label, metas, man
end

-- Is the checkpoint held by a running sweep (its flock)?
local function locked(path)
  if not exists(path) then return false end
  local fd, err = core.file_lock_append(path)
  if fd then pcall(core.proc_close, fd) return false end
  return tostring(err):find("in use", 1, true) ~= nil
end

-- The rows of one shard in config order: {k -> row}, and the counts.
local function shard_rows(dir, label, meta, index)
  local path = file_of(dir, label, meta.shard, "csv")
  local rows = {}
  if not exists(path) then return rows, 0 end
  local text, err = core.file_read(path)
  if not text then error("dlb.sweep.merge: " .. tostring(err), 0) end
  -- a torn last line (the task was killed mid-write) is not a row yet
  if text:sub(-1) ~= "\n" then text = text:match("^(.*\n)") or "" end
  if text == "" then return rows, 0 end
  local ok, t = pcall(tbl.parse_csv, text, nil, path)
  if not ok then error("dlb.sweep.merge: " .. tostring(t), 0) end
  local n = 0
  for _, r in t:rows() do
    local k = index[C.cfgkey(meta.names, r)]
    if not k or k < meta.first or k > meta.last then
      error(string.format("dlb.sweep.merge: %s holds a row of a config outside shard %d's slice "
        .. "(configs %d-%d): a checkpoint of another sweep?", path, meta.shard, meta.first, meta.last), 0)
    end
    local prev = rows[k]
    -- a config that failed and was run again on resume: its last row, a success first
    if prev == nil then n = n + 1 end
    if prev == nil or prev._error ~= nil or r._error == nil then rows[k] = r end
  end
  return rows, n
end

-- dlb.sweep.merge(dir[, {allow_partial=false, label="sweep"}]) -> dlb.table: the shards'
-- checkpoints joined into the table the whole sweep returns in one process (config order,
-- same columns).
function M.merge(dir, opts)
  local fname = "dlb.sweep.merge"
  if type(dir) ~= "string" then error(fname .. "(dir): a folder name expected, got " .. type(dir), 2) end
  opts = require("dlbench.options").check(opts, { allow_partial = true, label = true, quiet = true }, fname)
  local n, label, metas = shards_of(dir, opts.label)
  local ref
  local missing = {}
  for i = 1, n do
    if metas[i] then ref = ref or metas[i] else missing[#missing + 1] = i end
  end
  if not ref then error(string.format("%s: none of the %d shards in %s has started", fname, n, dir), 0) end
  for i = 1, n do
    local m = metas[i]
    if m and (m.fingerprint ~= ref.fingerprint or m.shards ~= ref.shards or m.total ~= ref.total) then
      error(string.format("%s: mixed set in %s: shard %d is of another sweep than shard %d (%s); "
        .. "merge only the shards of one submission", fname, dir, i, ref.shard,
        m.shards ~= ref.shards and string.format("%d shards vs %d", m.shards, ref.shards) or "other parameters or values"), 0)
    end
    if m and m.shard ~= i then error(string.format("%s: %s says it is shard %s", fname, file_of(dir, label, i, "meta"), tostring(m.shard)), 0) end
  end
  local names, vals = ref.names, ref.values
  -- config identity -> index, over the whole sweep
  local index = {}
  for k = 1, ref.total do index[C.cfgkey(names, C.params(names, vals, k))] = k end
  local results, incomplete = {}, {}
  for i = 1, n do
    local m = metas[i]
    if m then
      local rows, got = shard_rows(dir, label, m, index)
      for k, r in pairs(rows) do
        -- the parameters exactly as the space has them (a CSV cannot tell "64" from 64)
        local p = C.params(names, vals, k)
        for _, nm in ipairs(names) do r[nm] = p[nm] end
        results[k] = r
      end
      local want = m.last - m.first + 1
      if got < want then
        local state = locked(file_of(dir, label, i, "csv")) and "running" or "stopped"
        incomplete[#incomplete + 1] = string.format("shard %d: %d of %d configs (%s)", i, got, want, state)
      end
    end
  end
  if #missing > 0 or #incomplete > 0 then
    local parts = {}
    if #missing > 0 then
      local ms = {}
      for j, i in ipairs(missing) do ms[j] = tostring(i) end
      parts[#parts + 1] = string.format("shard%s %s never started", #missing > 1 and "s" or "", table.concat(ms, ", "))
    end
    for _, s in ipairs(incomplete) do parts[#parts + 1] = s end
    local msg = string.format("%s: %s is incomplete: %s", fname, dir, table.concat(parts, "; "))
    if not opts.allow_partial then
      error(msg .. "; wait, requeue the stopped shards (dlbench sweep requeue DIR), or take what "
        .. "finished with allow_partial (--allow-partial)", 0)
    end
    if not opts.quiet then io.stderr:write(msg .. " (partial merge)\n") end
  end
  -- the single-process table: parameters, results sorted, _error last
  return C.table_of(names, results, 1, ref.total)
end

-- dlb.sweep.status(dir) -> list of {shard=, state="done"|"running"|"stopped"|"missing", rows=, configs=}
function M.status(dir, opts)
  opts = opts or {}
  local n, label, metas, man = shards_of(dir, opts.label)
  local out = {}
  for i = 1, n do
    local m = metas[i]
    local s = { shard = i }
    if not m then s.state = "missing"
    else
      local _, got = shard_rows(dir, label, m, (function()
        local index = {}
        for k = m.first, m.last do index[C.cfgkey(m.names, C.params(m.names, m.values, k))] = k end
        return index
      end)())
      s.rows, s.configs, s.host, s.pid, s.job = got, m.last - m.first + 1, m.host, m.pid, m.job
      if locked(file_of(dir, label, i, "csv")) then s.state = "running"
      elseif exists(file_of(dir, label, i, "done")) and got == s.configs then s.state = "done"
      else s.state = "stopped" end
    end
    out[i] = s
  end
  return out, man
end

-- ---------------------------------------------------------------- the command line

local function fail(msg, status)
  io.stderr:write("dlbench sweep: " .. msg .. "\n")
  os.exit(status or 1, true)
end

local usage = [[usage: dlbench sweep submit STUDY.lua --shards N [--dir DIR] [--merge] [--signal-before S]
                            [--dry-run] [--arg A]... [sbatch options...]
       dlbench sweep merge DIR [-o|--output FILE.csv] [--allow-partial] [--label L]
       dlbench sweep status DIR [--label L]
       dlbench sweep requeue DIR [SHARD...]
  submit  writes DIR/task.sh (default DIR: STUDY.sweep) and submits it as sbatch --array=1-N;
          each task runs its slice with its own checkpoint in DIR; --merge adds a merge job
          (--dependency=afterok) writing DIR/merged.csv; Slurm signals a task S seconds
          (default 120) before its time limit: it checkpoints and requeues itself. Options
          that are not dlbench's (--time=1:00:00, -p gpu, --cpus-per-task=8) go to sbatch.
  merge   joins the shards' checkpoints in config order (refuses mixed or incomplete sets)
  status  done, running, stopped (killed or pre-empted: requeue it) or missing, per shard
  requeue scontrol requeue of the stopped shards (or those named); re-arms the merge job]]

-- the output and exit status, alike on both backends (a LuaJIT pipe's close is always true)
local capture = require("dlbench.errors").shell_capture

-- mkdir -p d, or one line saying why not (mkdir's own message, not a second line of it)
local function mkdir(d)
  local out, ok = capture("mkdir -p " .. q(d))
  if not ok then
    local why = out:match(": ([^:\n]+)\n?$")
    fail("cannot create " .. d .. (why and (": " .. why) or ""))
  end
end

local function abspath(p, cwd)
  if p:sub(1, 1) == "/" then return p end
  return cwd .. "/" .. p
end

local function submit(args)
  local study, shards, dir, merge, before, dry = nil, nil, nil, false, 120, false
  local sargs, sbatch = {}, {}
  local i = 1
  local function val(name)
    local a = args[i]
    local v = a:match("^%-%-[%w%-]+=(.*)$")
    if v then return v end
    i = i + 1
    if args[i] == nil then fail(name .. " needs a value", 2) end
    return args[i]
  end
  while i <= #args do
    local a = args[i]
    if a:match("^%-%-shards") then shards = tonumber(val("--shards"))
    elseif a:match("^%-%-dir") then dir = val("--dir")
    elseif a == "--merge" then merge = true
    elseif a == "--dry-run" then dry = true
    elseif a:match("^%-%-signal%-before") then before = tonumber(val("--signal-before"))
    elseif a:match("^%-%-arg") then sargs[#sargs + 1] = val("--arg")
    elseif a == "--help" or a == "-h" then io.stdout:write(usage, "\n") os.exit(0, true)
    elseif a:sub(1, 1) == "-" then
      sbatch[#sbatch + 1] = a
      -- "-p gpu", "--time 1:00:00": an sbatch option's separate value goes along
      local nxt = args[i + 1]
      if not a:find("=", 1, true) and nxt and nxt:sub(1, 1) ~= "-" and not nxt:match("%.lua$") then
        sbatch[#sbatch + 1] = nxt
        i = i + 1
      end
    elseif not study then study = a
    else fail("one STUDY expected, got '" .. study .. "' and '" .. a .. "'\n" .. usage, 2) end
    i = i + 1
  end
  if not study then fail("a STUDY.lua is required\n" .. usage, 2) end
  if not exists(study) then fail("cannot open " .. study) end
  if not shards or shards < 1 or shards ~= math.floor(shards) or shards > 100000 then
    fail("--shards N (a whole number >= 1) is required", 2)
  end
  if not before or before < 0 then fail("--signal-before takes seconds >= 0", 2) end
  local cwd = capture("pwd"):gsub("\n$", "")
  local name = study:match("([^/]+)%.lua$") or study:match("([^/]+)$")
  dir = abspath(dir or (name .. ".sweep"), cwd)
  local exe = os.getenv("DLBENCH_EXE") or "dlbench"
  mkdir(dir .. "/logs")
  local man = read_lua(dir .. "/manifest.lua")
  if man and man.shards ~= shards then
    fail(string.format("%s holds a %d-shard submission; use another --dir for %d shards", dir, man.shards, shards))
  end
  local studyabs = abspath(study, cwd)
  local sa = {}
  for j, a in ipairs(sargs) do sa[j] = q(a) end
  local task = table.concat({
    "#!/bin/sh",
    "# written by dlbench sweep submit: one task of the array runs one shard of the sweep",
    string.format("#SBATCH --array=1-%d", shards),
    "#SBATCH --job-name=dlb-" .. name:gsub("[^%w_%-]", "_"),
    "#SBATCH --output=" .. dir .. "/logs/shard-%a.out",
    "#SBATCH --open-mode=append",
    "#SBATCH --requeue",
    before > 0 and string.format("#SBATCH --signal=B:USR1@%d", before) or "# (no signal before the time limit)",
    "cd " .. q(cwd) .. " || exit 1",
    "export DLBENCH_SWEEP_DIR=" .. q(dir),
    -- exec: the task is dlbench itself, so Slurm's signals reach the sweep
    string.format("exec %s sweep task %s%s", q(exe), q(study), #sa > 0 and (" " .. table.concat(sa, " ")) or ""),
    "" }, "\n")
  local ok, err = core.file_write(dir .. "/task.sh", task)
  if not ok then fail(tostring(err)) end
  local mergesh = table.concat({
    "#!/bin/sh",
    "# written by dlbench sweep submit: joins the shards once every task succeeded",
    "cd " .. q(cwd) .. " || exit 1",
    string.format("exec %s sweep merge %s -o %s", q(exe), q(dir), q(dir .. "/merged.csv")),
    "" }, "\n")
  if merge then
    ok, err = core.file_write(dir .. "/merge.sh", mergesh)
    if not ok then fail(tostring(err)) end
  end
  local sb = {}
  for j, a in ipairs(sbatch) do sb[j] = q(a) end
  local cmd = "sbatch --parsable " .. table.concat(sb, " ") .. " " .. q(dir .. "/task.sh")
  local manifest = { version = 1, study = studyabs, shards = shards, cwd = cwd, dlbench = exe,
    args = sargs, sbatch = sbatch, signal_before = before, created = os.time() }
  if dry then
    io.stdout:write(cmd, "\n")
    write_lua(dir .. "/manifest.lua", manifest)
    return
  end
  local out, sok = capture(cmd)
  local job = out:match("^%s*(%d+)")
  if not sok or not job then fail("sbatch failed: " .. out:gsub("%s+$", "")) end
  manifest.job = job
  local mjob
  if merge then
    local mcmd = string.format("sbatch --parsable --dependency=afterok:%s --job-name=%s --output=%s %s",
      job, q("dlb-merge-" .. name), q(dir .. "/logs/merge.out"), q(dir .. "/merge.sh"))
    local mout, mok = capture(mcmd)
    mjob = mout:match("^%s*(%d+)")
    if not mok or not mjob then fail("the array was submitted as job " .. job .. ", but the merge job failed: " .. mout) end
    manifest.merge_job = mjob
  end
  write_lua(dir .. "/manifest.lua", manifest)
  io.stdout:write(string.format("submitted job %s: %d shards of %s, checkpoints in %s\n", job, shards, study, dir))
  if mjob then io.stdout:write(string.format("merge job %s runs after every shard succeeded: %s/merged.csv\n", mjob, dir)) end
  io.stdout:write(string.format("  dlbench sweep status %s\n  dlbench sweep merge %s -o merged.csv\n", dir, dir))
end

local function status_cli(args)
  local pos, o = require("dlbench.cli_plan").parse("sweep status", args, { label = "value" }, usage)
  if #pos > 1 then fail("one DIR expected\n" .. usage, 2) end
  local dir, label = pos[1], o.label
  if not dir then fail("status needs a DIR\n" .. usage, 2) end
  local ok, st, man = pcall(M.status, dir, { label = label })
  if not ok then fail((tostring(st):gsub("^dlb%.sweep%.merge: ", ""))) end
  local count = {}
  local lines = {}
  for _, s in ipairs(st) do
    count[s.state] = (count[s.state] or 0) + 1
    local extra = ""
    if s.state == "running" then extra = string.format(" on %s (pid %s, job %s)", tostring(s.host), tostring(s.pid), tostring(s.job))
    elseif s.state == "stopped" then extra = " (killed or pre-empted: dlbench sweep requeue resumes it)" end
    lines[#lines + 1] = string.format("shard %-4d %-8s %s%s", s.shard, s.state,
      s.rows and string.format("%d/%d configs", s.rows, s.configs) or "", extra)
  end
  io.stdout:write(string.format("%s: %d shards%s: %d done, %d running, %d stopped, %d missing\n", dir, #st,
    man and man.job and (" (job " .. man.job .. ")") or "", count.done or 0, count.running or 0,
    count.stopped or 0, count.missing or 0))
  io.stdout:write(table.concat(lines, "\n"), "\n")
end

-- `dlbench sweep requeue DIR [SHARD...]`: requeue the stopped shards (or those named) of a
-- submission, and re-arm its merge job: a task that failed (killed, a crashed node) leaves
-- an afterok dependency "never satisfied" even once the task is requeued.
local function requeue_cli(args)
  local dir, only = nil, {}
  for _, a in ipairs(args) do
    if not dir then dir = a
    elseif tonumber(a) then only[#only + 1] = tonumber(a)
    else fail("requeue takes DIR and shard numbers\n" .. usage, 2) end
  end
  if not dir then fail("requeue needs a DIR\n" .. usage, 2) end
  local ok, st, man = pcall(M.status, dir)
  if not ok then fail((tostring(st):gsub("^dlb%.sweep%.merge: ", ""))) end
  if not (man and man.job) then fail(dir .. " has no submitted job (manifest.lua): resubmit with dlbench sweep submit") end
  if #only == 0 then
    for _, s in ipairs(st) do if s.state == "stopped" or s.state == "missing" then only[#only + 1] = s.shard end end
  end
  for _, i in ipairs(only) do
    local out, rok = capture("scontrol requeue " .. q(man.job .. "_" .. i))
    if not rok then fail(string.format("scontrol requeue %s_%d: %s", man.job, i, out:gsub("%s+$", ""))) end
    io.stdout:write(string.format("requeued shard %d (%s_%d)\n", i, man.job, i))
  end
  if #only == 0 then io.stdout:write("no shard is stopped\n") end
  if man.merge_job then
    -- on each task: Slurm marks a whole-array afterok failed for good once a task failed
    local deps = {}
    for i = 1, man.shards do deps[i] = man.job .. "_" .. i end
    local out, uok = capture(string.format("scontrol update JobId=%s Dependency=afterok:%s", q(man.merge_job),
      table.concat(deps, ":")))
    if uok then io.stdout:write(string.format("merge job %s waits for job %s again\n", man.merge_job, man.job))
    else io.stderr:write(string.format("dlbench sweep: merge job %s not re-armed (%s); run dlbench sweep merge %s yourself\n",
      man.merge_job, out:gsub("%s+$", ""), dir)) end
  end
end

local function merge_cli(args)
  -- the command line's one parser (dlbench.cli_plan.parse: a value option without its value,
  -- an unknown option, --label=L are handled there); -o is --output
  local long = {}
  for i, a in ipairs(args) do long[i] = a == "-o" and "--output" or a end
  local pos, o = require("dlbench.cli_plan").parse("sweep merge", long,
    { output = "value", ["allow-partial"] = "flag", label = "value" }, usage)
  if #pos > 1 then fail("one DIR expected\n" .. usage, 2) end
  local dir, out, partial, label = pos[1], o.output, o["allow-partial"], o.label
  if not dir then fail("merge needs a DIR\n" .. usage, 2) end
  local ok, t = pcall(M.merge, dir, { allow_partial = partial, label = label })
  if not ok then fail((tostring(t):gsub("^dlb%.sweep%.merge: ", ""))) end
  if out then
    local wok, err = t:to_csv(out)
    if not wok then fail(tostring(err)) end
    io.stderr:write(string.format("dlbench sweep merge: %d rows, %d columns -> %s\n", t:count(), #t:columns(), out))
  else
    io.stdout:write(tbl.csvtext(t, ","))
  end
end

-- `dlbench sweep submit|merge|status ...` (args: the words after "sweep").
function M.cli(args)
  local sub = args[1]
  local rest = {}
  for i = 2, #args do rest[#rest + 1] = args[i] end
  if sub == "submit" then submit(rest)
  elseif sub == "merge" then merge_cli(rest)
  elseif sub == "status" then status_cli(rest)
  elseif sub == "requeue" then requeue_cli(rest)
  elseif sub == "--help" or sub == "-h" or sub == nil then io.stdout:write(usage, "\n")
    if sub == nil then os.exit(2, true) end
  else fail("unknown subcommand '" .. tostring(sub) .. "' (submit, merge, status, requeue)\n" .. usage, 2) end
end

return M
