-- dlbench.ffi_proc — FFI wrappers of the proc area: the same functions, names, arguments
-- and results as host/lproc.c adds to `dlbench.core`.
return function(core, C, ffi)
  local int3 = ffi.typeof("int[3]")
  local sizep = ffi.typeof("size_t[1]")

  function core.proc_cores() return tonumber(C.dlb_proc_cores()) end
  function core.proc_now() return tonumber(C.dlb_proc_now()) end
  function core.proc_isatty(fd) return C.dlb_proc_isatty(fd) ~= 0 end

  function core.proc_spawn()
    local v = int3()
    core.check(C.dlb_proc_spawn(v + 0, v + 1, v + 2))
    return tonumber(v[0]), tonumber(v[1]), tonumber(v[2])
  end

  function core.proc_write(fd, s)
    assert(type(s) == "string", "proc_write: string expected")
    core.check(C.dlb_proc_write(fd, s, #s))
  end

  local rbuf, rsize = nil, 0
  function core.proc_read(fd, max)
    max = max or 65536
    if max > rsize then rbuf, rsize = ffi.new("char[?]", max), max end
    local got = sizep()
    core.check(C.dlb_proc_read(fd, rbuf, max, got))
    return ffi.string(rbuf, tonumber(got[0]))
  end

  function core.proc_poll(fds, timeout)
    local n = #fds
    local f, r = ffi.new("int[?]", n + 1), ffi.new("int[?]", n + 1)
    for i = 1, n do f[i - 1] = fds[i] end
    core.check(C.dlb_proc_poll(f, n, timeout, r))
    local out = {}
    for i = 1, n do out[i] = r[i - 1] ~= 0 end
    return out
  end

  local states = { [0] = "running", [1] = "exited", [2] = "signaled" }
  function core.proc_wait(pid, block)
    local v = ffi.new("int[2]")
    core.check(C.dlb_proc_wait(pid, block and 1 or 0, v + 0, v + 1))
    return states[tonumber(v[0])], tonumber(v[1])
  end

  function core.proc_kill(pid, sig) core.check(C.dlb_proc_kill(pid, sig)) end
  function core.proc_signame(sig) return ffi.string(C.dlb_proc_signame(sig)) end
  function core.proc_close(fd) core.check(C.dlb_proc_close(fd)) end
  function core.proc_exit(code) C.dlb_proc_exit(code or 0) end

  function core.proc_open_append(path)
    local v = ffi.new("int[1]")
    if C.dlb_proc_open_append(path, v) ~= 0 then return nil, ffi.string(C.dlb_last_error()) end
    return tonumber(v[0])
  end

  function core.proc_fsync(fd) core.check(C.dlb_proc_fsync(fd)) end
end
