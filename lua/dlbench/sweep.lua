-- dlbench.sweep — run a function over the cartesian product of named value lists and
-- collect its rows into a result table (ParaDnn's methodology, seeds/004 §2).
--   local t = dlb.sweep({nodes = dlb.range(32, 8192, "x2"), batch = {64, 128}},
--                       function(p) return {util = ...} end, {jobs = 2})
-- Order: the keys sorted by name (or opts.order), the last key varying fastest, like
-- nested loops. Failed configs become rows with an _error message (unless opts.strict).
-- opts.jobs = N runs in N forked worker processes and returns the same table in the same
-- order; opts.shard = "i/n" runs one slice; opts.checkpoint = "file.csv" appends every
-- finished row and skips configs already done when run again.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local tbl = require "dlbench.table"
local errors = require "dlbench.errors"
local options = require "dlbench.options"
-- the parts of a sweep, one concept each: its configs and rows, checkpoints, workers
local C = require "dlbench.sweep_config"
local checkpoint = require "dlbench.sweep_checkpoint"
local workers = require "dlbench.sweep_workers"
local reserved, reserved_list, params, cfgkey, describe = C.reserved, C.reserved_list, C.params,
  C.cfgkey, C.describe
local mkrow, errtext, is_interrupt = C.mkrow, C.errtext, C.is_interrupt

local build_table = C.table_of -- sweep_config.lua: shared with the Slurm merge
local interrupt_note -- below M.sweep's helpers

local M = {}

local floor = math.floor

-- ---------------------------------------------------------------- ranges

-- Values from lo up to hi (inclusive bound; the last value may fall short of it): step
-- "x2" / "*2" multiplies, "+4" or a number adds. dlb.range(2, 1024, "x4") is
-- {2, 8, 32, 128, 512}, as ParaDnn's vocabulary sizes (seeds/004 Table 2(c)).
-- The most values a range may hold (a bigger one is a typo, e.g. math.huge for hi).
M.range_max = 1000000

function M.range(lo, hi, step)
  local function arg(v) return type(v) == "string" and string.format("%q", v) or tostring(v) end
  local call = string.format("dlb.range(%s, %s, %s)", arg(lo), arg(hi), arg(step))
  local function fail(msg) error(call .. ": " .. msg, 3) end
  local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end
  if not finite(lo) or not finite(hi) then fail("lo and hi must be finite numbers") end
  if hi < lo then fail(string.format("hi (%g) is below lo (%g)", hi, lo)) end
  step = step or 1
  local mul, add
  if type(step) == "number" then add = step
  elseif type(step) == "string" then
    local op, num = step:match("^%s*([x%*%+])%s*([%d%.eE%+%-]+)%s*$")
    num = num and tonumber(num)
    if not op or not num then
      fail("step must be \"xF\" (multiply), \"+S\" (add) or a number, got '" .. step .. "'")
    end
    if op == "+" then add = num else mul = num end
  else
    fail("step must be a string like \"x2\" or \"+4\", or a number")
  end
  local max = M.range_max
  local out = {}
  if add then
    if not finite(add) or not (add > 0) then fail("an added step must be a finite number > 0, got " .. tostring(add)) end
    local n = floor((hi - lo) / add + 1e-9)
    if not (n < max) then
      fail(string.format("would make %.0f values, more than dlb.range's maximum of %d", n + 1, max))
    end
    -- Lua 5.4 integers near 2^63 would wrap around: such ranges are floats
    if hi >= 2 ^ 62 then lo = lo + 0.0; add = add + 0.0 end
    for k = 0, n do out[#out + 1] = lo + k * add end
  else
    if not finite(mul) or not (mul > 1) then fail("a multiplying step must be a finite number > 1, got " .. tostring(mul)) end
    if not (lo > 0) then fail("a multiplying range needs lo > 0, got " .. tostring(lo)) end
    local v = lo
    while v <= hi * (1 + 1e-12) and v < math.huge do
      if #out >= max then fail(string.format("would make more than dlb.range's maximum of %d values", max)) end
      out[#out + 1] = v
      local nv = v * mul
      -- an integer product past 2^63 wraps around under Lua 5.4: go on in floats
      if math.type and math.type(nv) == "integer" and nv / mul ~= v then nv = (v + 0.0) * mul end
      v = nv
    end
  end
  return out
end

-- ---------------------------------------------------------------- the space

local function isarray(v)
  return type(v) == "table" and (v[1] ~= nil or next(v) == nil)
end

-- Names in order and their value lists; scalars are one-value lists.
local function plan(space, order)
  if type(space) ~= "table" then error("dlb.sweep: the space must be a table {name = {values}}", 3) end
  local names, vals = {}, {}
  for _, k in ipairs(options.keys(space)) do -- sorted: the first refused key is named
    local v = space[k]
    if type(k) ~= "string" then error("dlb.sweep: parameter names must be strings", 3) end
    if k == "" then error("dlb.sweep: a parameter name is empty (a CSV header cannot hold it)", 3) end
    if reserved[k] then
      error(string.format("dlb.sweep: parameter '%s' is a reserved column name (reserved: %s)", k, reserved_list()), 3)
    end
    if type(v) == "table" then
      if not isarray(v) then error("dlb.sweep: '" .. k .. "' must be a list of values", 3) end
      if #v == 0 then error("dlb.sweep: '" .. k .. "' has no values", 3) end
      for i, x in ipairs(v) do
        local tx = type(x)
        if tx ~= "number" and tx ~= "string" and tx ~= "boolean" then
          error(string.format("dlb.sweep: '%s' value %d is a %s (numbers, strings, booleans)", k, i, tx), 3)
        end
      end
      vals[k] = v
    elseif type(v) == "number" or type(v) == "string" or type(v) == "boolean" then
      vals[k] = { v }
    else
      error("dlb.sweep: '" .. k .. "' must be a list of values or one value", 3)
    end
  end
  local given = {}
  if order ~= nil then
    if type(order) ~= "table" then error("dlb.sweep: order must be a list of parameter names", 3) end
    for _, k in ipairs(order) do
      if vals[k] == nil then error("dlb.sweep: order names '" .. tostring(k) .. "', which is not in the space", 3) end
      if given[k] then error("dlb.sweep: order names '" .. k .. "' twice", 3) end
      given[k] = true
      names[#names + 1] = k
    end
  end
  local rest = {}
  for k in pairs(vals) do if not given[k] then rest[#rest + 1] = k end end
  table.sort(rest)
  for _, k in ipairs(rest) do names[#names + 1] = k end
  if #names == 0 then error("dlb.sweep: the space is empty", 3) end
  local total = 1
  for _, k in ipairs(names) do total = total * #vals[k] end
  return names, vals, total
end

-- ---------------------------------------------------------------- serialization
-- A row crosses the channel in the backend's binary row codec (host/lproc.c,
-- ffi_proc.lua): the names new to the receiver, then one tag byte per known column and the
-- values, numbers as exact 8-byte words. Each side of a channel keeps its list of names, so
-- a worker sends a column's name once. A record is "R <index> <len>\n<row>" or
-- "E <index> <len>\n<message>".

-- A self-contained encoding of one row (its names included).
function M.encode_row(row)
  return core.proc_encode_row(row, {}, {})
end

-- Decode encode_row's string; returns the row, or nil and a message naming the byte.
function M.decode_row(s)
  if type(s) ~= "string" then error("decode_row: a string expected", 2) end
  return core.proc_decode_row(s, {})
end

-- ---------------------------------------------------------------- progress

local function progress_bar(opts, total)
  local want = opts.progress
  if want == nil then want = core.proc_isatty(2) end
  if not want or total == 0 then
    return { update = function() end, finish = function() end, abort = function() end }
  end
  local start, last = core.sys_now(), -1
  local label = opts.label or "sweep"
  local function draw(done, failed, final)
    local now = core.sys_now()
    if not final and now - last < 0.1 then return end
    last = now
    local el = now - start
    local rate = el > 0 and done / el or 0
    local frac = done / total
    local w = 24
    local fill = floor(frac * w + 0.5)
    local eta = rate > 0 and (total - done) / rate or 0
    local function hms(s)
      if s >= 3600 then return string.format("%dh%02dm", floor(s / 3600), floor(s % 3600 / 60)) end
      if s >= 60 then return string.format("%dm%02ds", floor(s / 60), floor(s % 60)) end
      return string.format("%.0fs", s)
    end
    local ratetxt = rate >= 1000 and string.format("%.1fk/s", rate / 1000) or string.format("%.1f/s", rate)
    io.stderr:write(string.format("\r%s [%s%s] %d/%d %s %s %s%s\27[K", label,
      string.rep("#", fill), string.rep(".", w - fill), done, total, ratetxt,
      final and "in" or "ETA", hms(final and el or eta),
      failed > 0 and string.format(" (%d failed)", failed) or ""))
    if final then io.stderr:write("\n") end
    io.stderr:flush()
  end
  return { update = function(done, failed) draw(done, failed, false) end,
           finish = function(done, failed) draw(done, failed, true) end,
           abort = function() if last >= 0 then io.stderr:write("\n") end end }
end

-- ---------------------------------------------------------------- the sweep

-- opts.timeout in-process (jobs = 1): a count hook checks the clock every 1000 VM
-- instructions and raises once the config has run too long (again every 1000 instructions
-- if fn catches it). Returns a function(p) -> pcall's results. Hooks see only Lua code of
-- this coroutine: a long C call ends before the error, and a loop in a coroutine fn
-- resumes is not stopped. LuaJIT runs no hooks in compiled code, so the JIT is off (and
-- its traces flushed) while such a config runs.
local function timed(fn, limit)
  local msg = string.format("timed out after %g s (stopped in-process)", limit)
  local jit = rawget(_G, "jit")
  return function(p)
    local deadline = core.sys_now() + limit
    local late = false
    local function hook()
      if core.sys_now() > deadline then late = true; error(msg, 0) end
    end
    local hadjit = jit and jit.status()
    if hadjit then jit.off(); jit.flush() end
    local prev, mask, count = debug.gethook()
    debug.sethook(hook, "", 1000)
    local ok, res = pcall(fn, p)
    if type(prev) == "function" then debug.sethook(prev, mask, count) else debug.sethook() end
    if hadjit then jit.on() end
    if late then return false, msg end
    return ok, res
  end
end

-- The most configs one sweep (or one shard of it) runs: its to-do list and its result
-- rows live in memory, so 1e12 configs are refused up front, not built until memory ends.
M.max_configs = 1e7

local valid_opts = { jobs = true, order = true, strict = true, checkpoint = true, shard = true,
  progress = true, quiet = true, timeout = true, label = true, framework = true, calibration = true }

-- Provenance (issue [18] item 6): opts.framework / opts.calibration are the defaults of every
-- time-model call inside fn (dlb.frameworks.default for the sweep's duration), and every row
-- that fn returns as a table gets the columns dlbench (version), framework, calibration and
-- defaults: those of the last roofline.time / parallel.evaluate / plan call fn made
-- (dlb.frameworks.last), else the sweep's settings. A row's own values of these keys win.
-- A row of a fn that made no time-model call, in a sweep given neither option, has no
-- provenance to carry (a sweep of arithmetic keeps its columns).
-- Returns the wrapped fn and stamp(row): the provenance a failed config's row gets in a
-- sweep given either option (its fn returned no row to take it from; review 8: such rows
-- had none, so a CSV of the sweep left them blank).
local function with_provenance(fn, always)
  local fw = require "dlbench.frameworks"
  local function stamp(c, pv)
    if c.dlbench == nil then c.dlbench = core.version() end
    if c.framework == nil then c.framework = pv and pv.framework or (fw.session() or "auto") end
    if c.calibration == nil then
      c.calibration = pv and pv.calibration or fw.check_calibration(nil, "dlb.sweep")
    end
    if c.defaults == nil and pv then c.defaults = table.concat(pv.defaults or {}, ", ") end
    return c
  end
  return function(p)
    fw.last = nil
    local r = fn(p)
    if type(r) ~= "table" or (getmetatable(r) ~= nil and rawget(r, 1) ~= nil) then return r end
    if fw.last == nil and not always then return r end
    local c = {}
    for k, v in pairs(r) do c[k] = v end
    return stamp(c, fw.last)
  end, function(c) if always then stamp(c, nil) end return c end
end

local function shard_of(opts, total)
  local s = opts.shard
  if s == false then return 1, total, nil end
  local i, n
  if s == nil then
    local id, count = os.getenv("SLURM_ARRAY_TASK_ID"), os.getenv("SLURM_ARRAY_TASK_COUNT")
    if id and count then
      local min = tonumber(os.getenv("SLURM_ARRAY_TASK_MIN") or "0") or 0
      i, n = tonumber(id), tonumber(count)
      if not i or not n then errors.raise("dlb.sweep: SLURM_ARRAY_TASK_ID/COUNT are not numbers") end
      i = i - min + 1
      s = "Slurm"
    else
      return 1, total, nil
    end
  elseif type(s) == "string" then
    local a, b = s:match("^%s*(%d+)%s*/%s*(%d+)%s*$")
    i, n = tonumber(a), tonumber(b)
    if not i then errors.raise("dlb.sweep: shard must be \"i/n\" (1 <= i <= n), got '" .. s .. "'") end
  else
    errors.raise("dlb.sweep: shard must be \"i/n\" or false")
  end
  if not (n >= 1 and i >= 1 and i <= n) then
    errors.raise(string.format("dlb.sweep: shard %d of %d is out of range (1 <= i <= n)", i, n))
  end
  local first = floor((i - 1) * total / n) + 1
  local last = floor(i * total / n)
  return first, last, string.format("%s shard %d/%d", s == "Slurm" and "Slurm" or "", i, n), i, n
end

-- The most recent sweep's finished rows as a dlb.table: the whole result after a sweep
-- that returned, the rows finished so far after one that was interrupted (Ctrl-C) or
-- failed; nil before any sweep.
function M.last()
  if M._last then return M._last end
  local l = M._live
  if l == nil then return nil end
  return build_table(l.names, l.results, l.first, l.last)
end

-- What the host prints after Ctrl-C stopped a sweep (dlbench.errors.interrupt_note).
function interrupt_note()
  local l = M._live
  if l == nil then return nil end
  local n = 0
  for k = l.first, l.last do if l.results[k] ~= nil then n = n + 1 end end
  return string.format("sweep: %d of %d configs had finished; dlb.sweep.last() returns them "
    .. "as a table (checkpoint= keeps rows across runs)", n, l.count)
end

-- Run fn(params) over the cartesian product of the space; returns a dlb.table.
function M.sweep(space, fn, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("dlb.sweep: opts must be a table", 2) end
  require("dlbench.options").check(opts, valid_opts, "dlb.sweep")
  if type(fn) ~= "function" then error("dlb.sweep: fn must be a function(params) -> row", 2) end
  local fw = require "dlbench.frameworks"
  if opts.framework ~= nil and opts.framework ~= "auto" then
    local ok, e = pcall(fw.get, opts.framework, "dlb.sweep")
    if not ok then error(e, 0) end -- at the user's line already (frameworks.get)
  end
  if opts.calibration ~= nil then
    local ok, e = pcall(fw.check_calibration, opts.calibration, "dlb.sweep")
    if not ok then error(e, 0) end -- at the user's line already
  end
  local saved_fw, saved_cal = fw.session(), fw.calibration_session()
  local stamp
  fn, stamp = with_provenance(fn, opts.framework ~= nil or opts.calibration ~= nil)
  local names, vals, total = plan(space, opts.order)
  local jobs = opts.jobs
  -- at most the workers one poll watches (proc/dlb_proc.h), checked before any fork: a huge
  -- jobs forked min(jobs, configs) workers and failed at the first poll
  local maxjobs = core.enum.DLB_PROC_MAXPOLL
  -- a Slurm task uses the CPUs it was given, not the node's (a default: capped at the bound)
  if jobs == nil then
    -- the variable, when set, is the default: one that is not a whole number >= 1 is an
    -- error naming it ("0" was reported as the user's jobs = 0, "x" fell back to the cores)
    local env = os.getenv("SLURM_CPUS_PER_TASK")
    if env ~= nil and env ~= "" then
      jobs = tonumber(env)
      if not jobs or jobs < 1 or jobs ~= floor(jobs) then
        error(string.format("dlb.sweep: SLURM_CPUS_PER_TASK = %q (the default of jobs) is not a "
          .. "whole number >= 1; give jobs=", env), 2)
      end
    else
      jobs = core.sys_cores()
    end
    if jobs > maxjobs then jobs = maxjobs end
  end
  if type(jobs) ~= "number" or jobs < 1 or jobs ~= floor(jobs) or jobs > maxjobs then
    error(string.format("dlb.sweep: jobs must be a whole number from 1 to %d (the most workers "
      .. "one sweep polls), got %s", maxjobs, tostring(jobs)), 2)
  end
  -- switches: strict = 0 stopped at the first failed config, quiet = 0 silenced (Lua's truth)
  options.switches(opts, { "strict", "quiet", "progress" }, "dlb.sweep", 2)
  if opts.timeout ~= nil and (type(opts.timeout) ~= "number" or not (opts.timeout > 0)) then
    error("dlb.sweep: timeout must be a number of seconds > 0", 2)
  end
  local first, last, shardtxt, shard_i, shard_n = shard_of(opts, total)
  if last - first + 1 > M.max_configs then
    error(string.format("dlb.sweep: %.0f configs%s, more than dlb.sweep.max_configs = %.0f (each "
      .. "becomes a row in memory): sweep fewer values, or split it with shard = \"i/n\"",
      last - first + 1, shardtxt and " in this shard" or "", M.max_configs), 2)
  end
  local quiet = opts.quiet
  if shardtxt and not quiet then
    io.stderr:write(string.format("sweep: %s: configs %d-%d of %d\n", shardtxt, first, last, total))
  end

  -- a shard of a `dlbench sweep submit` job (DLBENCH_SWEEP_DIR): its own checkpoint there,
  -- beside a meta file recording the space (docs/sweep.md "Slurm")
  local sweepdir = os.getenv("DLBENCH_SWEEP_DIR")
  local finish_shard
  if shardtxt and sweepdir and sweepdir ~= "" and opts.checkpoint == nil then
    local path
    path, finish_shard = require("dlbench.sweep_slurm").attach(sweepdir, { names = names, vals = vals,
      first = first, last = last, total = total, i = shard_i, n = shard_n, label = opts.label })
    opts = setmetatable({ checkpoint = path }, { __index = opts })
  end

  -- checkpoint
  local done, oldrows, oldcols = {}, {}, nil
  local writer
  if opts.checkpoint ~= nil then
    -- lock first (a second sweep on the same file gets an error, not lost rows), then read
    local box = checkpoint.lock(opts.checkpoint, "dlb.sweep", 2)
    local lok, a, b, c = pcall(checkpoint.load, opts.checkpoint, names, quiet, box, vals)
    if not lok then pcall(core.proc_close, box.fd); error(a, 0) end
    done, oldrows, oldcols = a, b, c
    writer = checkpoint.writer(opts.checkpoint, names, oldrows, oldcols, box.fd)
  end

  local results = {}   -- k -> row
  local todo = {}
  local skipped = 0
  for k = first, last do
    local p = params(names, vals, k)
    local prev = writer and done[cfgkey(names, p)]
    if prev then
      -- the parameters as this run has them (the CSV reader gives floats: 1.0 for 1 under
      -- Lua 5.4), so a resumed row is the row an uninterrupted run makes
      for _, n in ipairs(names) do prev[n] = p[n] end
      results[k] = prev
      skipped = skipped + 1
    else
      todo[#todo + 1] = k
    end
  end
  local count = last - first + 1
  -- the finished rows stay reachable through dlb.sweep.last() however the sweep ends
  -- (Ctrl-C stops all Lua code at once, so this is set up before any config runs)
  M._live = { names = names, results = results, first = first, last = last, count = count }
  M._last = nil
  errors.interrupt_note = interrupt_note
  local bar = progress_bar(opts, count)
  local finished, failed = skipped, 0
  local failures = {}

  local function deliver(k, row, err)
    if err then
      if opts.strict then
        error(string.format("dlb.sweep: config %s failed: %s", describe(names, params(names, vals, k)), err), 0)
      end
      row = stamp(params(names, vals, k))
      row._error = err
      failed = failed + 1
      local first_line = err:match("^[^\n]*")
      failures[first_line] = (failures[first_line] or 0) + 1
    end
    results[k] = row
    finished = finished + 1
    if writer then writer.add(row) end
  end

  -- the sweep's framework and calibration: the defaults of the calls inside fn (the
  -- workers fork with them set), restored however the run ends
  if opts.framework ~= nil then fw.default(opts.framework) end
  if opts.calibration ~= nil then fw.default_calibration(opts.calibration) end
  -- Lua 5.4's generational collector while the configurations run (forked workers inherit
  -- it): a configuration's graph, stats and row tables die young, the case it is made for;
  -- a 32-layer GPT's build + g:stats + roofline.time per configuration 1.35 -> 1.08 ms
  -- (BENCHMARKS.md, "The per-configuration path"). The caller's mode comes back however the
  -- run ends. LuaJIT has no such mode (pcall: nothing changes there).
  local gc_ok, gc_was = pcall(collectgarbage, "generational")
  local ok, err = pcall(function()
    if jobs == 1 or #todo <= 1 then
      local call = opts.timeout and timed(fn, opts.timeout) or function(p) return pcall(fn, p) end
      for _, k in ipairs(todo) do
        local p = params(names, vals, k)
        local cok, res = call(p)
        if not cok then
          local msg = errtext(res)
          if is_interrupt(msg) then error(msg, 0) end
          deliver(k, nil, msg)
        else
          local row, merr = mkrow(names, params(names, vals, k), res)
          deliver(k, row, merr)
        end
        bar.update(finished, failed)
      end
    else
      workers.run(names, vals, fn, todo, math.min(jobs, #todo), deliver, opts,
        function() bar.update(finished, failed) end)
    end
  end)
  fw.default(saved_fw); fw.default_calibration(saved_cal)
  if gc_ok and gc_was == "incremental" then collectgarbage("incremental") end
  if writer then
    -- a failed close reports itself, unless an error is already on its way
    if ok then writer.close() else pcall(writer.close) end
  end
  if not ok then
    bar.abort()
    -- the note is for the Ctrl-C that stops this sweep; after any other error it would be
    -- printed under a later, unrelated Ctrl-C (dlb.sweep.last() still has the rows)
    if not is_interrupt(errtext(err)) and errors.interrupt_note == interrupt_note then
      errors.interrupt_note = nil
    end
    error(err, 0)
  end
  bar.finish(finished, failed)

  local t = build_table(names, results, first, last)
  M._live, M._last = nil, t
  if finish_shard then finish_shard(count, failed) end
  if errors.interrupt_note == interrupt_note then errors.interrupt_note = nil end

  if failed > 0 and not quiet then
    local msgs = {}
    for m, c in pairs(failures) do msgs[#msgs + 1] = { m, c } end
    table.sort(msgs, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end)
    local lines = { string.format("sweep: %d of %d configs failed (t:failures() lists them):", failed, count) }
    for i = 1, math.min(5, #msgs) do
      local m = msgs[i][1]
      if #m > 160 then m = m:sub(1, 157) .. "..." end
      lines[#lines + 1] = string.format("  %dx %s", msgs[i][2], m)
    end
    if #msgs > 5 then lines[#lines + 1] = string.format("  ... and %d other messages", #msgs - 5) end
    io.stderr:write(table.concat(lines, "\n"), "\n")
  end
  return t
end

-- Sweeps run as Slurm job arrays (dlbench sweep submit): lua/dlbench/sweep_slurm.lua.
function M.merge(dir, opts) return require("dlbench.sweep_slurm").merge(dir, opts) end
function M.status(dir, opts) return require("dlbench.sweep_slurm").status(dir, opts) end
doc.doc(M.merge, "dlb.sweep.merge(dir[, {allow_partial=false, label=\"sweep\"}]) -> table",
  "join the shard checkpoints of a `dlbench sweep submit` folder into the whole sweep's table, in config order; mixed or incomplete sets are errors")
doc.doc(M.status, "dlb.sweep.status(dir[, {label=}]) -> {{shard=, state=, rows=, configs=}, ...}",
  "each shard of a `dlbench sweep submit` folder: done, running, stopped or missing")
doc.doc(M.last, "dlb.sweep.last() -> table | nil",
  "the most recent sweep's rows: all of them, or those finished before Ctrl-C or an error stopped it")
doc.doc(M, "dlb.sweep", "parameter sweeps: dlb.sweep(space, fn[, opts]) -> dlb.table; dlb.sweep.last(), dlb.range")
-- dlb.sweep.model: a model family compiled and swept in C (lua/dlbench/sweep_model.lua)
function M.model(builder, space, opts) return require("dlbench.sweep_model").model(builder, space, opts) end
doc.doc(M.model, "dlb.sweep.model(builder, space, opts) -> result",
  "a model family through the full per-op model in C, reduced while it runs (docs/sweep.md)")
-- dlb.sweep.layouts: (model x layout) plans through the planner (lua/dlbench/sweep_layouts.lua)
function M.layouts(builder, space, opts) return require("dlbench.sweep_layouts").layouts(builder, space, opts) end
doc.doc(M.layouts, "dlb.sweep.layouts(builder, space, opts) -> result",
  "(model x layout) plans through dlb.parallel.plan, reduced while they stream (docs/sweep.md)")
function M.reduce(t, opts) return require("dlbench.sweep_model").reduce(t, opts) end
doc.doc(M.reduce, "dlb.sweep.reduce(t, {pareto=, top=, heatmap=, group_by=}) -> result",
  "the streaming reductions (Pareto, top-k, heat-map bins, grouped aggregates; C) over any dlb.table")
function M.compile(...) return require("dlbench.sweep_model").compile(...) end
doc.doc(M.compile, "dlb.sweep.compile(builder, options, bind[, layers_dim[, stats_opts[, ref]]]) -> program",
  "one structure's compiled program (dlb.sweep.model's): P.totals(values), P.time(values, roof); ref = {dim = value}: the bindings a hand-built or imported graph's family is found at "
  .. "(g:stats' rule; dlb.sweep.model gives the space's first values): without them such a graph is "
  .. "refused where the profile's passes depend on the family")
setmetatable(M, { __call = function(_, ...) return M.sweep(...) end })
doc.doc(M.range, "dlb.range(lo, hi, step) -> {values}",
  "values from lo up to hi: step \"x2\" multiplies, \"+4\" or 4 adds; hi bounds (may be unreached); finite bounds, at most 1e6 values")
doc.doc(M.sweep, "dlb.sweep(space, fn[, {jobs=, order=, strict=, checkpoint=, shard=, progress=, quiet=, timeout=, label=, framework=, calibration=}]) -> table",
  "run fn(params) over the cartesian product of {name = {values}} (sorted names, last fastest); rows carry the params")
doc.doc(M.encode_row, "dlb.sweep.encode_row(row) -> string", "the binary worker-channel encoding of a row, names included (exact numbers)")
doc.doc(M.decode_row, "dlb.sweep.decode_row(s) -> row | nil, msg", "inverse of encode_row; malformed input gives nil and a message naming the byte")
return M
