-- test_hostile.lua — regressions for issue 18 (hostile input, faults and files): catalogues
-- run as data, the one atomic writer, special files refused, checkpoints that belong to
-- another sweep left alone, overflow and blow-up limits. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"

local dir = T.tmpdir()

local function write(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function read(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("*a"); f:close(); return s
end
-- names in dir (sorted), to see that no temporary file was left behind
local function listing()
  local out, p = {}, io.popen("ls -a '" .. dir .. "'")
  for l in p:lines() do if l ~= "." and l ~= ".." then out[#out + 1] = l end end
  p:close()
  table.sort(out)
  return table.concat(out, " ")
end
local function has_fifo() return os.execute("command -v mkfifo >/dev/null") end

-- ---------------------------------------------------------------- item 4: catalogues are data

T.test("hw.load runs a .lua catalogue as data: no os, io or string library", function()
  local p = dir .. "/evil.lua"
  write(p, 'os.execute("touch ' .. dir .. '/pwned"); return {}')
  T.checkerr("empty environment", dlb.hw.load, p)
  write(p, 'os.exit(3)')
  T.checkerr("global 'os'", dlb.hw.load, p)
  write(p, 'return { name = ("x"):rep(2^40) }')
  T.checkerr("rep", dlb.hw.load, p)
  write(p, 'return require("os")')
  T.checkerr("require", dlb.hw.load, p)
  assert(read(dir .. "/pwned") == nil, "the catalogue ran os.execute")
  T.eq(("abc"):upper(), "ABC", "the string methods are back after the load")
end)

T.test("hw.load refuses bytecode and bounds loops and memory", function()
  local p = dir .. "/evil.lua"
  write(p, string.dump(function() return {} end))
  T.checkerr("precompiled Lua bytecode", dlb.hw.load, p)
  write(p, "while true do end")
  T.checkerr("a data file must not loop", dlb.hw.load, p)
  write(p, 'local s = "x" for i = 1, 60 do s = s .. s end return {}')
  T.checkerr("stopped after allocating more than", dlb.hw.load, p)
  write(p, "local t = {} for i = 1, 1e9 do t[i] = i end")
  T.checkerr(p .. ": stopped after", dlb.hw.load, p)
  -- a good catalogue with expressions and locals still loads
  write(p, [[local tf = 1e12
    return { name = "hostile-ok", peak = { fp32 = 19.5 * tf }, mem_bw = 1.5e12, mem = 4e10 }]])
  T.eq(dlb.hw.load(p)[1].name, "hostile-ok", "a plain catalogue loads")
  os.remove(p)
end)

-- ---------------------------------------------------------------- items 5, 10: files

T.test("writers refuse special files and leave no temporary file", function()
  local t = dlb.table.new({ { a = 1 } }, { "a" })
  local ok, err = t:to_csv("/dev/null")
  assert(not ok and err:find("is a character device", 1, true), tostring(err))
  ok, err = dlb.hw.save_csv("/dev/full", { "V100-SXM2-16GB" })
  assert(not ok and err:find("is a character device", 1, true), tostring(err))
  ok, err = t:to_json(dir)
  assert(not ok and err:find("is a directory", 1, true), tostring(err))
  if has_fifo() then
    local fifo = dir .. "/fifo"
    assert(os.execute("mkfifo '" .. fifo .. "'"))
    ok, err = t:to_csv(fifo)
    assert(not ok and err:find("is a FIFO", 1, true), tostring(err))
    -- a symlink to a FIFO is refused too, and both stay what they were
    assert(os.execute("ln -s '" .. fifo .. "' '" .. dir .. "/tofifo'"))
    ok, err = t:to_csv(dir .. "/tofifo")
    assert(not ok and err:find("is a symlink to a FIFO", 1, true), tostring(err))
    assert(os.execute("test -p '" .. fifo .. "' && test -L '" .. dir .. "/tofifo'"))
    os.remove(dir .. "/tofifo"); os.remove(fifo)
  end
  T.eq(listing(), "", "nothing left in the folder")
end)

T.test("a symlink to a regular file is followed: the target is replaced, the link stays", function()
  write(dir .. "/real.csv", "old\n")
  assert(os.execute("ln -s real.csv '" .. dir .. "/link.csv'"))
  assert(dlb.table.new({ { a = 1 } }, { "a" }):to_csv(dir .. "/link.csv"))
  T.eq(read(dir .. "/real.csv"), "a\n1\n", "target written")
  assert(os.execute("test -L '" .. dir .. "/link.csv'"), "still a link")
  -- a predictable temporary name planted as a symlink is not followed
  write(dir .. "/victim", "keep")
  assert(os.execute("ln -s victim '" .. dir .. "/out.csv.tmp'"))
  assert(dlb.table.new({ { a = 2 } }, { "a" }):to_csv(dir .. "/out.csv"))
  T.eq(read(dir .. "/victim"), "keep", "the planted symlink's target is untouched")
  T.eq(read(dir .. "/out.csv"), "a\n2\n", "written")
  T.eq(listing(), "link.csv out.csv out.csv.tmp real.csv victim", "no temporary left")
  for _, n in ipairs { "link.csv", "out.csv", "out.csv.tmp", "real.csv", "victim" } do os.remove(dir .. "/" .. n) end
end)

T.test("the build's generators write whole, through a unique temporary (no path..'.tmp')", function()
  local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local regions = dofile(here .. "/../../host/gen_regions.lua")
  write(dir .. "/victim", "keep")
  assert(os.execute("ln -s victim '" .. dir .. "/gen.lua.tmp'"))
  T.eq(regions.writefile(dir .. "/gen.lua", "return 1\n"), true, "written")
  T.eq(read(dir .. "/gen.lua"), "return 1\n", "whole")
  T.eq(read(dir .. "/victim"), "keep", "the planted symlink's target is untouched")
  T.eq(regions.writefile(dir .. "/gen.lua", "return 1\n"), false, "unchanged: left alone")
  T.eq(listing(), "gen.lua gen.lua.tmp victim", "no temporary left")
  -- a destination that cannot be replaced (a directory): an error naming it, no temporary left
  assert(os.execute("mkdir '" .. dir .. "/adir'"))
  T.checkerr("cannot write " .. dir .. "/adir", function() return regions.writefile(dir .. "/adir", "x") end)
  T.eq(listing(), "adir gen.lua gen.lua.tmp victim", "no temporary left after a failure")
  for _, n in ipairs { "adir", "gen.lua", "gen.lua.tmp", "victim" } do os.remove(dir .. "/" .. n) end
end)

T.test("an existing file keeps its permission bits", function()
  local p = dir .. "/mode.csv"
  write(p, "x\n")
  assert(os.execute("chmod 600 '" .. p .. "'"))
  assert(core.file_write(p, "y\n"))
  local h = io.popen("stat -c %a '" .. p .. "'"); local mode = h:read("*l"); h:close()
  T.eq(mode, "600", "mode kept")
  os.remove(p)
end)

T.test("readers refuse non-regular files instead of hanging or filling memory", function()
  T.checkerr("/dev/zero: is a character device", dlb.read_csv, "/dev/zero")
  T.checkerr("is a directory", dlb.read_csv, dir)
  T.checkerr("/dev/zero: is a character device", dlb.hw.load, "/dev/zero")
  if has_fifo() then
    local fifo = dir .. "/fifo.csv"
    assert(os.execute("mkfifo '" .. fifo .. "'"))
    T.checkerr("is a FIFO", dlb.read_csv, fifo)
    T.checkerr("is a FIFO", dlb.hw.load, fifo)
    os.remove(fifo)
  end
  local text, err, why = core.file_read(dir .. "/missing")
  assert(text == nil and why == "missing" and err:find("No such file", 1, true), tostring(err))
  write(dir .. "/big", string.rep("x", 100))
  text, err = core.file_read(dir .. "/big", 99)
  assert(text == nil and err:find("more than the limit of 99", 1, true), tostring(err))
  T.eq(#core.file_read(dir .. "/big", 100), 100, "at the limit")
  T.checkerr("NUL", core.file_write, dir .. "/a\0b", "x")
  os.remove(dir .. "/big")
end)

-- ---------------------------------------------------------------- items 6, 7: checkpoints

local function fn(p) return { y = p.x * 2 } end

T.test("checkpoint= leaves a file that is not this sweep's checkpoint byte for byte", function()
  local p = dir .. "/foreign.csv"
  local foreign = "name,value\nalpha,1\nbeta,2" -- no trailing newline: it used to lose 'beta,2'
  write(p, foreign)
  T.checkerr("has no column 'x'", dlb.sweep, { x = { 1, 2 } }, fn, { jobs = 1, checkpoint = p, quiet = true })
  T.eq(read(p), foreign, "the foreign CSV is unchanged")
  local bin = {}
  for i = 1, 4000 do bin[i] = string.char((i * 7919) % 256) end
  bin = table.concat(bin)
  write(p, bin)
  T.checkerr("left unchanged", dlb.sweep, { x = { 1, 2 } }, fn, { jobs = 1, checkpoint = p, quiet = true })
  T.eq(read(p), bin, "the binary file is unchanged")
  write(p, "\0\1\2")
  T.checkerr("is not a sweep checkpoint", dlb.sweep, { x = { 1, 2 } }, fn, { jobs = 1, checkpoint = p, quiet = true })
  T.eq(read(p), "\0\1\2", "unchanged")
  -- this sweep's own torn checkpoint is still repaired
  write(p, "x,y\n1,2\n2,")
  local t = dlb.sweep({ x = { 1, 2 } }, fn, { jobs = 1, checkpoint = p, quiet = true })
  T.eq(t:column("y")[2], 4, "resumed")
  T.eq(read(p), "x,y\n1,2\n2,4\n", "repaired and completed")
  os.remove(p)
  T.eq(listing(), "", "no temporary left")
end)

T.test("checkpoint= on a device or FIFO is refused; a locked checkpoint is a clear error", function()
  T.checkerr("/dev/full: is a character device", dlb.sweep, { x = { 1 } }, fn, { jobs = 1, checkpoint = "/dev/full" })
  if has_fifo() then
    local fifo = dir .. "/ck.fifo"
    assert(os.execute("mkfifo '" .. fifo .. "'"))
    T.checkerr("is a FIFO", dlb.sweep, { x = { 1 } }, fn, { jobs = 1, checkpoint = fifo })
    os.remove(fifo)
  end
  local p = dir .. "/ck.csv"
  local held = assert(core.file_lock_append(p)) -- another sweep holding it
  T.checkerr("in use by another process (another sweep writing this checkpoint?)", dlb.sweep,
    { x = { 1, 2 } }, fn, { jobs = 1, checkpoint = p, quiet = true })
  core.proc_close(held)
  local t = dlb.sweep({ x = { 1, 2 } }, fn, { jobs = 1, checkpoint = p, quiet = true })
  T.eq(t:count(), 2, "runs once the lock is gone")
  -- the lock follows the file through a rewrite (a new column rewrites it whole)
  local fd = assert(core.file_lock_append(dir .. "/other.csv"))
  local nfd = assert(core.file_write_locked(dir .. "/other.csv", "a\n"))
  core.proc_close(fd)
  local again, err = core.file_lock_append(dir .. "/other.csv")
  assert(again == nil and err:find("in use", 1, true), "the new file is locked: " .. tostring(err))
  core.proc_close(nfd)
  os.remove(p); os.remove(dir .. "/other.csv")
end)

-- ---------------------------------------------------------------- item 8: window arithmetic

T.test("conv/pool windows: huge dilation, padding or kernel are clear errors, not overflow", function()
  local g = dlb.graph("win")
  local x = g:input("x", { 1, 3, 32, 32 })
  local w = g:weight("w", { 8, 3, 3, 3 })
  -- dilation 2^30 used to give dims [1, 8, 2147483656, 2147483656] (int overflow)
  T.checkerr("dilation 1073741824 (each a whole number of at most 2^24", g.conv2d, g, x, w, { dilation = 2 ^ 30 })
  T.checkerr("padding 1073741824", g.conv2d, g, x, w, { padding = 2 ^ 30 })
  T.checkerr("kernel 2147483648", g.conv2d, g, x, g:weight("w2", { 8, 3, 2 ^ 31, 3 }))
  T.checkerr("padding 1073741824", g.maxpool, g, x, { kernel = 2, padding = 2 ^ 30 })
  T.checkerr("kernel 1073741824", g.maxpool, g, x, { kernel = 2 ^ 30 })
  -- at the limit the arithmetic is exact: (32 + 2*2^24 - 3)/1 + 1 = 33554462
  local y = g:conv2d(x, w, { padding = 2 ^ 24 })
  T.eq(tostring(y):match("%[(.-)%]"), "1, 8, 33554462, 33554462", "padding 2^24")
end)

-- ---------------------------------------------------------------- item 9: polynomials

T.test("polynomials: a term cap, no overflow to inf, NUL bytes refused, long sums fast", function()
  -- (a+...+p)^15 has C(30,15) = 155,117,520 terms: it took minutes and gigabytes
  T.checkerr("more than 100000 terms", dlb.poly, "(a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p)^15")
  T.checkerr("overflows to inf", dlb.poly, "2*1e308")
  T.checkerr("overflows to inf", function() return dlb.poly("x") * 1e308 * 10 end)
  T.checkerr("overflows to inf", function() local g = dlb.graph("o"); return g:input("x", { "2*1e308" }) end)
  T.checkerr("a NUL byte", dlb.poly, "h\0x")
  local g = dlb.graph("nul")
  T.checkerr("a NUL byte in the name", g.input, g, "h\0x", { 1 })
  T.checkerr("a NUL byte in dim 2", g.input, g, "y", { 1, "h\0x" })
  -- names are not cut at 511 bytes: too long is an error
  T.checkerr("a name of 600 bytes (at most 511)", g.input, g, string.rep("n", 600), { 1 })
  T.eq(#g:input(string.rep("n", 511), { 1 }):name(), 511, "511 bytes fit")
  -- (a+...+m)^5: C(17,5) = 6188 terms; its text parses back to the same polynomial
  local p = dlb.poly("(a+b+c+d+e+f+g+h+i+j+k+l+m)^5")
  T.eq(#p:terms(), 6188, "terms")
  assert(dlb.poly(tostring(p)) == p, "round trip")
end)

T.test("graph dims: products of long sums are refused at once, naming the op and tensor", function()
  -- (a+b+c+d+e)^15 has C(19,4) = 3876 terms; two such dims over disjoint names multiply to
  -- 3876^2 = 15,023,376 term products, past the 4e6 bound every polynomial product obeys
  -- (DLB_POLY_MAXPRODUCTS); the dims' product used to be formed whole (and a third such dim
  -- made 5.8e10 terms: minutes and gigabytes)
  local A, B, C = "(a+b+c+d+e)^15", "(f+g+h+i+j)^15", "(k+l+m+n+o)^15"
  local g = dlb.graph("blow")
  local x = g:input("x", { A, B, C })
  T.checkerr("reshape 'r': the element count of tensor 'x': dim: a product of 3876 x 3876 terms "
    .. "(more than 4000000 term products", g.reshape, g, x, { 7 }, "r")
  T.checkerr("reshape 'r2': the element count of the new shape: dim: a product of 3876 x 3876",
    g.reshape, g, g:input("y", { 2 }), { A, B }, "r2")
  -- the symbolic analysis multiplies the same dims into costs: refused, naming the op
  local y = g:relu(x, "act")
  g:loss(g:sum(y))
  T.checkerr("graph 'blow': relu 'act': the element count of tensor 'act:0' (dim 2): symbolic cost: "
    .. "a product of 3876 x 3876 terms", g.stats, g)
  -- a sum of dims obeys the term bound too: 3876 + 3876 terms fit, 100001 would not
  local c = g:concat({ g:input("u", { A }), g:input("v", { B }) })
  T.eq(#dlb.poly(tostring(c):match("%[(.-)%]")):terms(), 7752, "3876 + 3876 terms")
end)

-- ---------------------------------------------------------------- item 11: smaller items

T.test("sweeps: raising __pairs fails its row, empty names, 1e12 configs refused", function()
  local bad = setmetatable({}, { __pairs = function() error("no pairs for you") end })
  local t = dlb.sweep({ x = { 1, 2 } }, function(p) if p.x == 1 then return bad end return { y = 1 } end,
    { jobs = 1, quiet = true })
  if _VERSION == "Lua 5.4" and not rawget(_G, "jit") then
    assert(tostring(t:column("_error")[1]):find("no pairs for you", 1, true), "row 1 failed")
  end
  T.eq(t:column("y")[2], 1, "row 2 ran")
  t = dlb.sweep({ x = { 1 } }, function() return { [""] = 1 } end, { jobs = 1, quiet = true })
  assert(tostring(t:column("_error")[1]):find("empty name", 1, true), "an empty column name fails the row")
  T.checkerr("a parameter name is empty", dlb.sweep, { [""] = { 1 } }, fn, { jobs = 1 })
  local big = {}
  for i = 1, 12 do big["p" .. i] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } end
  T.checkerr("1000000000000 configs, more than dlb.sweep.max_configs", dlb.sweep, big, fn, { jobs = 1 })
  T.checkerr("in this shard", dlb.sweep, big, fn, { jobs = 1, shard = "1/2" })
end)

T.test("wrong self: a dot for a colon names the mistake", function()
  local t = dlb.table.new({ { a = 1 } }, { "a" })
  T.checkerr("t:count: call it as t:count(...) with a colon; got a nil as self", t.count)
  local g = dlb.graph("self")
  T.checkerr("g:stats: call it as g:stats(...) with a colon; got a table as self", g.stats, { b = 32 })
  local x = g:input("x", { 1, 2 })
  T.checkerr("x:dims: call it as x:dims(...) with a colon", x.dims)
  T.checkerr("p:eval: call it as p:eval(...) with a colon", dlb.poly("x").eval, { x = 1 })
  local f = dlb.plot.figure {}
  T.checkerr("f:save: call it as f:save(...) with a colon; got a string as self", f.save, "x.png")
  T.checkerr("f:line: call it as f:line(...) with a colon", f.line, { x = { 1 }, y = { 1 } })
  T.checkerr("ax:line: call it as ax:line(...) with a colon", f:panel(1, 1).line, { x = { 1 }, y = { 1 } })
  T.checkerr("d:with: call it as d:with(...) with a colon", dlb.hw.get("V100").with, { name = "x" })
  -- the op builders carry no wrapper (their argument check names a wrong self), at the
  -- caller's line as the wrapped methods do
  local w = g:weight("w", { 2, 2 })
  local cases = {
    { "g:add", function() local r = g.add(x, x); return r end, "table" },
    { "g:mul", function() local r = g.mul(nil, x); return r end, "nil" },
    { "g:relu", function() local r = g.relu(x); return r end, "table" },
    { "g:softmax", function() local r = g.softmax(5); return r end, "number" },
    { "g:matmul", function() local r = g.matmul(x, w); return r end, "table" },
    { "g:reshape", function() local r = g.reshape(x, { 2, 1 }); return r end, "table" },
    { "g:transpose", function() local r = g.transpose(x, { 2, 1 }); return r end, "table" },
    { "g:stats", function() local r = g.stats({ b = 1 }); return r end, "table" },
  }
  for _, c in ipairs(cases) do
    local ok, err = pcall(c[2])
    T.eq(ok, false, c[1] .. " with a dot fails")
    local want = c[1] .. ": call it as " .. c[1] .. "(...) with a colon; got a " .. c[3] .. " as self"
    T.eq(tostring(err):find(want, 1, true) ~= nil, true, c[1] .. ": " .. tostring(err))
    T.eq(tostring(err):find("test_hostile.lua:", 1, true) ~= nil, true,
      c[1] .. " at the caller's line: " .. tostring(err))
  end
  -- and a right self with a wrong argument keeps its own message
  T.checkerr("g:add: a tensor expected, got number", g.add, g, 5, x)
end)

T.test("hw.get: a 1 MB unknown name is fast and cut in the message; rawset is refused", function()
  local ok, msg = pcall(dlb.hw.get, string.rep("x", 2 ^ 20))
  assert(not ok and #msg < 300 and msg:find("(1048576 bytes)", 1, true), "message: " .. #msg)
  local d = dlb.hw.get("V100-SXM2-16GB"):with { name = "hostile-rawset" }
  dlb.hw.define { name = "hostile-rawset2", peak = { fp32 = 1e13 }, mem_bw = 1e12, mem = 1e10 }
  d = dlb.hw.get("hostile-rawset2")
  rawset(d, "mem_bw", 1)
  T.checkerr("was set with rawset", dlb.hw.get, "hostile-rawset2")
  T.checkerr("was set with rawset", dlb.roofline.time, dlb.graph("r"), d)
  rawset(d, "mem_bw", nil)
  rawset(d.peak, "fp32", 1)
  T.checkerr("was set with rawset", dlb.hw.get, d)
end)

T.test("partition and amdahl_fit: an __index that raises is an error, not a leak (ASan)", function()
  local proxy = setmetatable({}, { __len = function() return 3 end, __index = function() error("boom") end })
  -- LuaJIT ignores __len on tables: there the proxy is an empty list, also an error
  local want = rawget(_G, "jit") and "" or "boom"
  T.checkerr(want, dlb.parallel.partition, proxy, 2)
  T.checkerr(want, dlb.parallel.amdahl_fit, proxy, { 1, 2, 3 })
  T.checkerr(want, dlb.parallel.amdahl_fit, { 1, 2, 3 }, proxy)
  T.checkerr("speedups[2] must be a number", dlb.parallel.amdahl_fit, { 1, 2 }, { 1, "x" })
  local r = dlb.parallel.amdahl_fit({ 1, 2, 4 }, { 1, 2, 4 })
  -- speedup = n exactly: Amdahl's f = 0, a fitted value: absolute (relative to 0 is exact)
  T.near_abs(r.f, 0, 1e-9, "perfect scaling: f = 0")
end)

-- Review 8: a file name with a NUL byte (C strings end there) is a file that cannot be
-- written: nil and a message from every writer, an error from a checkpoint; the binding's
-- own "bad argument #1 to 'file_write' (string contains a NUL byte)" named neither.
T.test("writers: a file name with a NUL byte is 'cannot write', the same on both backends", function()
  local p = dir .. "/a\0b.csv"
  local want = "cannot write '" .. dir .. "/a\\0b.csv': the file name holds a NUL byte"
  local t = dlb.table.new({ { a = 1 } }, { "a" })
  local ok, err = t:to_csv(p)
  T.eq(ok, nil, "to_csv"); T.eq(err, want, "to_csv message")
  ok, err = t:to_json(p)
  T.eq(ok, nil, "to_json"); T.eq(err, want, "to_json message")
  ok, err = dlb.hw.save_csv(p, { dlb.hw.get("H100-SXM") })
  T.eq(ok, nil, "hw.save_csv"); T.eq(err, "dlb.hw.save_csv: " .. want, "hw.save_csv message")
  local f = dlb.plot.figure {}
  f:line { x = { 1, 2 }, y = { 1, 2 } }
  ok, err = f:save(dir .. "/a\0b.png")
  T.eq(ok, nil, "save"); T.eq(err, "save: " .. want:gsub("csv", "png"), "save message")
  T.checkerr("dlb.sweep: checkpoint: " .. want, dlb.sweep, { x = { 1 } }, function() return {} end,
    { checkpoint = p, quiet = true, progress = false })
  local ls = io.popen("ls -A '" .. dir .. "'"):read("a")
  assert(not ls:find("^a"), "nothing named a... was written: " .. ls)
end)

os.execute("rm -rf '" .. dir .. "'")
T.done()
