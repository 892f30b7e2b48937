-- dlbench.ffi_file — FFI wrappers of graphs/file.c: the same functions, names, arguments
-- and results as host/lfile.c adds to `dlbench.core`.
return function(core, C, ffi)
  local READ_MAX = 2 ^ 30
  local charpp = ffi.typeof("char *[1]")
  local sizep = ffi.typeof("size_t[1]")

  local function str(v, i, fname)
    if type(v) == "number" then return tostring(v) end
    if type(v) ~= "string" then
      error(string.format("bad argument #%d to '%s' (string expected, got %s)", i, fname,
        v == nil and "no value" or type(v)), 3)
    end
    if v:find("\0", 1, true) and i == 1 then
      error(string.format("bad argument #1 to '%s' (a file name with a NUL byte)", fname), 3)
    end
    return v
  end

  -- core.file_write(path, text) -> true | nil, message
  function core.file_write(path, text)
    path, text = str(path, 1, "file_write"), str(text, 2, "file_write")
    if C.dlb_file_write(path, text, #text) ~= 0 then return nil, ffi.string(C.dlb_last_error()) end
    return true
  end

  local intp = ffi.typeof("int[1]")

  -- core.file_lock_append(path) -> fd | nil, message
  function core.file_lock_append(path)
    path = str(path, 1, "file_lock_append")
    local fd = intp()
    if C.dlb_file_lock_append(path, fd) ~= 0 then return nil, ffi.string(C.dlb_last_error()) end
    return tonumber(fd[0])
  end

  -- core.file_write_locked(path, text) -> fd | nil, message
  function core.file_write_locked(path, text)
    path, text = str(path, 1, "file_write_locked"), str(text, 2, "file_write_locked")
    local fd = intp()
    if C.dlb_file_write_locked(path, text, #text, fd) ~= 0 then return nil, ffi.string(C.dlb_last_error()) end
    return tonumber(fd[0])
  end

  -- core.file_read(path[, max]) -> text | nil, message, "missing"|"error"
  function core.file_read(path, max)
    path = str(path, 1, "file_read")
    max = max == nil and READ_MAX or max
    if type(max) ~= "number" or not (max >= 0) or max ~= math.floor(max) or max > 2 ^ 53 then
      error("bad argument #2 to 'file_read' (a size limit >= 0 expected)", 2)
    end
    local data, len = charpp(), sizep()
    local st = C.dlb_file_read(path, max, data, len)
    if st ~= 0 then
      return nil, ffi.string(C.dlb_last_error()), st == C.DLB_ENOTFOUND and "missing" or "error"
    end
    local s = ffi.string(data[0], len[0])
    C.dlb_file_free(data[0])
    return s
  end
end
