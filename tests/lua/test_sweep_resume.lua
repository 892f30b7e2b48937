-- test_sweep_resume.lua — a sweep resumed from its checkpoint gives the rows of an
-- uninterrupted run (review 8): the parameters of resumed rows are this run's values (not
-- the CSV reader's doubles: 1.0 for 1 under Lua 5.4), and integer parameters beyond 2^53
-- resume instead of running again and adding a duplicate line to the checkpoint on every
-- run. Runs under both backends (LuaJIT has no integers: the same checks hold trivially).
local T = require "harness"
local dlb = require "dlbench"

local quiet = { quiet = true, progress = false }
local function with(extra) local r = {}; for k, v in pairs(quiet) do r[k] = v end; for k, v in pairs(extra) do r[k] = v end; return r end
local tmpdir = os.getenv("TMPDIR") or "/tmp"
local function tmpname(tag)
  return string.format("%s/dlb_test_resume_%s_%d_%d.csv", tmpdir, tag, os.time(), math.random(1, 1e9))
end
local function lines(path)
  local n = 0
  for _ in io.lines(path) do n = n + 1 end
  return n
end

for _, jobs in ipairs { 1, 2 } do
  T.test("resume: the parameters of resumed rows are the run's values (jobs = " .. jobs .. ")", function()
    local ck = tmpname("params" .. jobs)
    local space = { x = { 1, 2, 3 }, s = { "a", "1" }, f = { 0.5 }, b = { true } }
    local fn = function(p) return { y = p.x + 0.25 } end
    local a = dlb.sweep(space, fn, with { jobs = jobs })
    -- half the configs first (a shard), as an interrupted run leaves them, then all
    dlb.sweep(space, fn, with { jobs = jobs, checkpoint = ck, shard = "1/2" })
    local ran = 0
    local b = dlb.sweep(space, function(p) ran = ran + 1; return fn(p) end,
      with { jobs = 1, checkpoint = ck })
    T.eq(ran, 3, "the other half ran")
    T.eq(b:count(), a:count(), "rows")
    T.eq(table.concat(b:columns(), ","), table.concat(a:columns(), ","), "columns")
    local csv = require("dlbench.table").csvtext
    T.eq(csv(b, ","), csv(a, ","), "the CSV text")
    for i = 1, a:count() do
      local ra, rb = a:row(i), b:row(i)
      for _, k in ipairs { "x", "s", "f", "b", "y" } do
        T.eq(tostring(rb[k]), tostring(ra[k]), string.format("row %d column %s", i, k))
        if math.type then T.eq(math.type(rb[k]), math.type(ra[k]), "subtype of " .. k) end
      end
    end
    os.remove(ck)
  end)
end

T.test("resume: integer parameters beyond 2^53 resume (none run twice, no duplicate lines)", function()
  local ck = tmpname("big")
  local xs = { 1, 2 }
  if math.type then xs = { 9007199254740992, 9007199254740993, math.maxinteger } end
  local n = 0
  local fn = function(p) n = n + 1; return { y = 1 } end
  dlb.sweep({ x = xs }, fn, with { jobs = 1, checkpoint = ck })
  T.eq(n, #xs, "first run")
  local before = lines(ck)
  n = 0
  local t = dlb.sweep({ x = xs }, fn, with { jobs = 1, checkpoint = ck })
  T.eq(n, 0, "nothing runs again")
  T.eq(lines(ck), before, "the checkpoint keeps one line per config")
  for i, x in ipairs(xs) do T.eq(t:row(i).x, x, "row " .. i) end
  os.remove(ck)
end)

T.done()
