-- dlbench.sweep_workers — a sweep's configs run in forked worker processes (opts.jobs > 1,
-- docs/sweep.md) over libdlbench_proc (proc/, through the backend's proc_* functions): the
-- queue, the channels and their row codec, timeouts, a worker that dies, Ctrl-C.
-- Internal, used by lua/dlbench/sweep.lua.
local core = require "dlbench.backend"
local C = require "dlbench.sweep_config"

local floor = math.floor
local params, mkrow, errtext, on_collect = C.params, C.mkrow, C.errtext, C.on_collect

local M = {}

-- Run the configs `todo` (array of indices) in `jobs` worker processes. deliver(k, row,
-- err) is called in the parent for each finished config, in completion order.
local function run_parallel(names, vals, fn, todo, jobs, deliver, opts, tick)
  local queue, qhead = {}, 1
  for i, k in ipairs(todo) do queue[i] = k end
  -- Configs a dead worker left unreported: the one it was running is among them but
  -- (results travel in batches) not known, so they run again one per chunk, which pins a
  -- second crash on its config exactly.
  local suspects = {}
  local workers = {}           -- alive: {pid=, wfd=, rfd=, buf=, chunk={...}, next=, started=}

  -- Close, kill and reap every worker. Re-entrant: each worker leaves the list once it is
  -- reaped, so a cleanup cut short (the host's Ctrl-C hook raises on every instruction)
  -- is finished by the next call. It runs from the message handler of the xpcall below,
  -- where Lua 5.4 and LuaJIT run no hooks when the error came from one.
  local function cleanup()
    while #workers > 0 do
      local w = workers[#workers]
      if w.wfd then pcall(core.proc_close, w.wfd); w.wfd = nil end
      if w.rfd then pcall(core.proc_close, w.rfd); w.rfd = nil end
      -- signal only a child of ours that still runs (never a reaped, reused pid)
      local ok, state = pcall(core.proc_wait, w.pid, false)
      if ok and state == "running" then
        pcall(core.proc_kill, w.pid, 9)
        pcall(core.proc_wait, w.pid, true)
      end
      workers[#workers] = nil
    end
  end
  local guard = on_collect(cleanup) -- if an error escapes before cleanup ran

  local function remaining()
    return #suspects + (#queue - qhead + 1)
  end

  local function chunk_size()
    local c = floor(remaining() / (jobs * 4))
    if c < 1 then c = 1 end
    if c > 64 then c = 64 end
    return c
  end

  local flush_every = 0.2
  local function child(rfd, wfd)
    -- the worker: read "k1 k2 ...\n" lines, run fn, write records; exit at end of file
    local buf = ""
    local cols, index = {}, {} -- the names this worker has sent (the parent's w.cols)
    while true do
      local nl = buf:find("\n", 1, true)
      while not nl do
        local s = core.proc_read(rfd, 4096)
        if s == "" then core.proc_exit(0) end
        buf = buf .. s
        nl = buf:find("\n", 1, true)
      end
      local line = buf:sub(1, nl - 1)
      buf = buf:sub(nl + 1)
      -- results go back in batches: at the end of the chunk or every flush_every seconds
      local pending, last = {}, core.sys_now()
      for ks in line:gmatch("%d+") do
        local k = tonumber(ks)
        local p = params(names, vals, k)
        local ok, res = pcall(fn, p)
        local rec
        if ok then
          local row, err = mkrow(names, p, res)
          if row then
            -- the whole row as the serial run makes it (parameters included), so the
            -- tables agree to the bit and to the number subtype
            local eok, payload = pcall(core.proc_encode_row, row, cols, index)
            if eok then rec = "R " .. ks .. " " .. #payload .. "\n" .. payload
            else err = errtext(payload) end
          end
          if not rec then rec = "E " .. ks .. " " .. #err .. "\n" .. err end
        else
          local msg = errtext(res)
          rec = "E " .. ks .. " " .. #msg .. "\n" .. msg
        end
        pending[#pending + 1] = rec
        local now = core.sys_now()
        if now - last >= flush_every then
          core.proc_write(wfd, table.concat(pending))
          pending, last = {}, now
        end
      end
      if #pending > 0 then core.proc_write(wfd, table.concat(pending)) end
    end
  end

  local function spawn()
    local pid, wfd, rfd = core.proc_spawn()
    if pid == 0 then
      -- in the worker: never return into the parent's code
      local ok, err = pcall(function()
        for _, w in ipairs(workers) do core.proc_close(w.wfd); core.proc_close(w.rfd) end
        child(rfd, wfd)
      end)
      if not ok then pcall(io.stderr.write, io.stderr, "dlb.sweep worker: " .. errtext(err) .. "\n") end
      core.proc_exit(ok and 0 or 3)
    end
    local w = { pid = pid, wfd = wfd, rfd = rfd, buf = "", chunk = {}, pos = 1, started = core.sys_now(),
      cols = {} }
    workers[#workers + 1] = w
    return w
  end

  local function send(w, chunk)
    local parts = {}
    for i, k in ipairs(chunk) do
      parts[i] = string.format("%.0f", k)
      w.chunk[#w.chunk + 1] = k
    end
    if w.broken then return end
    local ok = pcall(core.proc_write, w.wfd, table.concat(parts, " ") .. "\n")
    if not ok then
      -- the worker died under us (its end of file is on the way) or cannot be reached:
      -- make sure it is gone; its death hands the configs back
      w.broken = true
      pcall(core.proc_kill, w.pid, 9)
    end
  end

  -- Top up w's work: up to two chunks in flight, so it never waits for the parent; a
  -- suspect runs alone on an otherwise idle worker.
  local function feed(w)
    local inflight = #w.chunk - w.pos + 1
    if inflight == 0 then w.started = core.sys_now() end
    if w.alone and inflight > 0 then return end
    w.alone = false
    if #suspects > 0 then
      if inflight > 0 then return end
      w.alone = true
      send(w, { table.remove(suspects, 1) })
      return
    end
    local n = chunk_size()
    while inflight < 2 * n and qhead <= #queue do
      local chunk = {}
      while #chunk < n and qhead <= #queue do chunk[#chunk + 1] = queue[qhead]; qhead = qhead + 1 end
      send(w, chunk)
      inflight = inflight + #chunk
    end
  end

  local function idle(w) return w.pos > #w.chunk end

  local function retire(w, why)
    -- w died or was killed: one config left unreported is the culprit and fails; several
    -- become suspects
    local left = #w.chunk - w.pos + 1
    if left == 1 then
      deliver(w.chunk[w.pos], nil, why)
    elseif left > 1 then
      for i = w.pos, #w.chunk do suspects[#suspects + 1] = w.chunk[i] end
    end
    pcall(core.proc_close, w.wfd); w.wfd = nil
    pcall(core.proc_close, w.rfd); w.rfd = nil
    for i, x in ipairs(workers) do if x == w then table.remove(workers, i) break end end
  end

  local function death(w)
    local state, code = core.proc_wait(w.pid, true)
    if state == "signaled" then
      if code == 2 then error("interrupted!", 0) end -- Ctrl-C reached the workers
      return string.format("worker %d was killed by signal %d (%s) while running this config",
        w.pid, code, core.proc_signame(code))
    end
    return string.format("worker %d exited with status %d while running this config "
      .. "(os.exit in fn?)", w.pid, code)
  end

  -- w broke the protocol (a record that does not parse, or answers the wrong config): it is
  -- killed and, like a dead worker, fails the config it ran alone or hands its unanswered
  -- configs back to run one at a time, so the blame lands on the config that did it
  local function broken(w, why)
    pcall(core.proc_kill, w.pid, 9)
    pcall(core.proc_wait, w.pid, true)
    retire(w, string.format("worker %d %s", w.pid, why))
  end

  local function parse(w)
    -- consume complete records from w.buf (one trim per read, not per record)
    local buf, pos = w.buf, 1
    w.started = core.sys_now()
    while true do
      local nl = buf:find("\n", pos, true)
      if not nl then
        if #buf - pos >= 64 then return broken(w, "sent a malformed record header") end
        break
      end
      local kind, ks, lens = buf:match("^([RE]) (%d+) (%d+)\n", pos)
      local len = tonumber(lens)
      if not kind or len > 2 ^ 31 then return broken(w, "sent a malformed record header") end
      if #buf - nl < len then break end
      local k = tonumber(ks)
      if w.chunk[w.pos] ~= k then return broken(w, "answered config " .. ks .. " out of turn") end
      if kind == "R" then
        local row, err = core.proc_decode_row(buf, w.cols, nl + 1, len)
        if not row then return broken(w, "sent a malformed row: " .. err) end
        w.pos = w.pos + 1
        deliver(k, row, nil)
      else
        w.pos = w.pos + 1
        deliver(k, nil, buf:sub(nl + 1, nl + len))
      end
      pos = nl + len + 1
    end
    w.buf = buf:sub(pos)
    feed(w)
  end

  local ok, err = xpcall(function()
    local n = math.min(jobs, remaining())
    for _ = 1, n do
      local w = spawn()
      feed(w)
    end
    while #workers > 0 do
      local fds = {}
      for i, w in ipairs(workers) do fds[i] = w.rfd end
      local ready = core.proc_poll(fds, 0.1)
      local snapshot = {}
      for i, w in ipairs(workers) do snapshot[i] = w end
      for i, w in ipairs(snapshot) do
        if ready[i] then
          local s = core.proc_read(w.rfd, 65536)
          if s == "" then
            retire(w, death(w))
            if remaining() > 0 and #workers < jobs then
              local nw = spawn()
              feed(nw)
            end
          else
            w.buf = w.buf .. s
            parse(w)
          end
        elseif opts.timeout and not idle(w) and core.sys_now() - w.started > opts.timeout + flush_every then
          core.proc_kill(w.pid, 9)
          core.proc_wait(w.pid, true)
          retire(w, string.format("timed out after %g s (worker killed)", opts.timeout))
          if remaining() > 0 and #workers < jobs then
            local nw = spawn()
            feed(nw)
          end
        end
      end
      -- a worker broken or dead with work left is replaced
      while remaining() > 0 and #workers < jobs do feed(spawn()) end
      -- suspects wait for an idle worker; workers with nothing left to do are released
      for _, w in ipairs(workers) do if idle(w) then feed(w) end end
      for j = #workers, 1, -1 do
        local w = workers[j]
        if idle(w) then
          core.proc_close(w.wfd); w.wfd = nil
          core.proc_close(w.rfd); w.rfd = nil
          core.proc_wait(w.pid, true)
          table.remove(workers, j)
        end
      end
      tick()
    end
  end, function(e)
    -- every exit path reaps the workers, then the same error object goes on
    pcall(cleanup)
    return e
  end)
  cleanup()
  guard = nil -- luacheck: ignore
  if not ok then error(err, 0) end
end

M.run = run_parallel
return M
