-- test_sweep_layouts_checkpoint.lua — dlb.sweep.layouts' checkpoint= (docs/sweep.md
-- "Checkpoints of dlb.sweep.layouts"): a run stopped after some plan calls (a builder error,
-- an error raised by a later plan call, a C error in a later chunk, Ctrl-C or kill -9 of a
-- real process, a torn last line) and rerun gives the result of an uninterrupted run, bit for
-- bit: kept rows, Pareto fronts, top lists, group_by tables (sums included), heat maps (max and
-- mean bins), their order and provenance, the counts; finished plan calls are not planned
-- again (their models not even built); another sweep's checkpoint, or a file that is not
-- one, is refused and left unchanged; a second process on the same checkpoint is refused.
-- Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"

local U = require "sweep_checkpoint_cases"
local slurp, nlines, diff, grid = U.slurp, U.nlines, U.diff, U.grid
local function tmpname(tag) return U.tmpname("layouts_ck", tag) end

-- the sweep, as text: this file and the child process of the Ctrl-C test load the same.
-- 4 models x 2 device counts x 2 devices = 16 plan calls (chunks), in the order model,
-- device, device count; the 16-GB V100 fits fewer plans than the A100, under two schedules
local DEF = [[
local dlb = require "dlbench"
local SPACE = { layers = { 2, 4 }, hidden = { 256, 512 }, gpus = { 8, 16 },
  device = { "A100-SXM4-80GB", "V100-SXM2-16GB" } }
local function build(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = 4, context = 256, vocab = 1000 }
end
local OPTS = { plan = { batch = 64, precision = "mixed" }, keep = true, quiet = true,
  pareto = { { minimize = { "step", "gpus" } }, { maximize = { "mfu" }, minimize = { "mem" } } },
  top = { { k = 7 }, { k = 4, by = "-mfu" } },
  heatmap = { { x = "layers", y = "hidden", value = "mfu", agg = "max" }, { x = "gpus", agg = "mean" } },
  group_by = { keys = { "layers", "schedule" }, values = { "step", "mfu" } } }
return SPACE, build, OPTS
]]
local SPACE, build, OPTS = assert((loadstring or load)(DEF))()
local CALLS = 16
local function with(extra)
  local o = {}
  for k, v in pairs(OPTS) do o[k] = v end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

-- every result of a, b the same; sums: whether group sums and mean bins are compared too
local function same(a, b, what, sums)
  T.eq(a.count, b.count, what .. ": count")
  -- as text: Lua 5.4's number types too (the planner's count is a float)
  T.eq(tostring(a.evaluated), tostring(b.evaluated), what .. ": layouts evaluated")
  T.eq(tostring(a.models), tostring(b.models), what .. ": models")
  T.eq(tostring(a.count), tostring(b.count), what .. ": count's type")
  T.eq(diff(a.rows, b.rows), nil, what .. ": kept rows")
  for i = 1, 2 do T.eq(diff(a.paretos[i], b.paretos[i]), nil, what .. ": pareto " .. i) end
  for i = 1, 2 do T.eq(diff(a.tops[i], b.tops[i]), nil, what .. ": top " .. i) end
  T.eq(grid(a.heatmaps[1].z), grid(b.heatmaps[1].z), what .. ": heat map (max)")
  T.eq(grid(a.bins[1].count), grid(b.bins[1].count), what .. ": heat map counts")
  if sums then
    T.eq(grid(a.heatmaps[2].z), grid(b.heatmaps[2].z), what .. ": heat map (mean)")
    T.eq(diff(a.group, b.group), nil, what .. ": group_by")
  else
    T.eq(a.group:count(), b.group:count(), what .. ": groups")
    local ga, gb = a.group:column("count"), b.group:column("count")
    for i = 1, #ga do T.eq(ga[i], gb[i], what .. ": group count " .. i) end
  end
end

local REF = dlb.sweep.layouts(build, SPACE, with())                -- no checkpoint
local CK0 = tmpname("ref")
local FULL = dlb.sweep.layouts(build, SPACE, with { checkpoint = CK0 }) -- uninterrupted, checkpointed
-- the sweep under the shared cases (tests/lua/sweep_checkpoint_cases.lua)
local S = { fn = "dlb.sweep.layouts", full = FULL, file = CK0, chunks = CALLS, tmpname = tmpname,
  same = same, run = function(ck, extra)
    local o = with(extra)
    o.checkpoint = ck
    return dlb.sweep.layouts(build, SPACE, o)
  end }

T.test("checkpoint: an uninterrupted run writes every plan call and gives the run without one", function()
  assert(FULL.count > 50, "some plans: " .. FULL.count)
  T.eq(FULL.chunks, CALLS, "plan calls")
  T.eq(FULL.resumed, 0, "none resumed")
  T.eq(nlines(CK0), 1 + CALLS, "the identifying line and one line per plan call")
  -- two schedules and the provenance were interned: their levels are on the file
  assert(slurp(CK0):find(" sschedule s", 1, true), "the schedule levels on the file")
  assert(#FULL.group:column("schedule") >= 2, "two schedules at least")
  -- everything but the sums (bins' and groups' additions in another order) equals the run
  -- without a checkpoint
  same(FULL, REF, "checkpointed vs none", false)
  -- a rerun resumes every plan call (no model built) and appends nothing
  local before = slurp(CK0)
  local built = 0
  local again = dlb.sweep.layouts(function(p) built = built + 1; return build(p) end, SPACE,
    with { checkpoint = CK0 })
  T.eq(again.resumed, CALLS, "every plan call resumed")
  T.eq(built, 0, "no model built")
  T.eq(slurp(CK0), before, "the file as it was")
  same(again, FULL, "resumed whole", true)
end)

T.test("checkpoint: a builder error, then resumed, equals the uninterrupted run", function()
  local ck = tmpname("stop")
  local n = 0
  -- the 3rd model's build fails: models 1 and 2 (8 plan calls) are on disk
  T.checkerr("stop here", dlb.sweep.layouts, function(p)
    n = n + 1
    if n > 2 then error("stop here") end
    return build(p)
  end, SPACE, with { checkpoint = ck })
  T.eq(nlines(ck), 1 + 8, "two models' plan calls finished")
  local built = 0
  local r = dlb.sweep.layouts(function(p) built = built + 1; return build(p) end, SPACE, with { checkpoint = ck })
  T.eq(r.resumed, 8, "eight plan calls resumed")
  T.eq(built, 2, "only the two other models built")
  T.eq(nlines(ck), 1 + CALLS, "the others appended")
  same(r, FULL, "resumed", true)
  T.eq(slurp(ck), slurp(CK0), "the same file as the uninterrupted run's")
  os.remove(ck)
end)

T.test("checkpoint: an error raised by a later plan call keeps the calls before it", function()
  local ck = tmpname("plan")
  local n = 0
  -- the 4th model's graph is no graph: its first plan call raises (dlb.parallel.plan's error)
  local function b(p)
    n = n + 1
    if n == 4 then return { "not a graph" } end
    return build(p)
  end
  local ok, err = pcall(dlb.sweep.layouts, b, SPACE, with { checkpoint = ck })
  assert(not ok, "the plan call failed")
  T.eq(nlines(ck), 1 + 12, "three models' plan calls finished: " .. tostring(err))
  local r = dlb.sweep.layouts(build, SPACE, with { checkpoint = ck })
  T.eq(r.resumed, 12, "twelve resumed")
  same(r, FULL, "resumed", true)
  T.eq(slurp(ck), slurp(CK0), "the uninterrupted run's file")
  os.remove(ck)
  -- a C error (the keep cap passed while the rows of a later plan call are reduced): the
  -- calls before it kept, a rerun fails at the same call with the file as it was
  ck = tmpname("cerr")
  local cap = FULL.count - 1
  T.checkerr("more than " .. cap .. " rows to keep", dlb.sweep.layouts, build, SPACE,
    with { checkpoint = ck, keep = cap })
  local m = nlines(ck)
  assert(m > 1 and m < 1 + CALLS, "some plan calls finished: " .. m)
  local before = slurp(ck)
  T.checkerr("more than " .. cap .. " rows to keep", dlb.sweep.layouts, build, SPACE,
    with { checkpoint = ck, keep = cap })
  T.eq(slurp(ck), before, "the file as it was")
  os.remove(ck)
end)

-- A real process stopped from outside after some plan calls: Ctrl-C (SIGINT to its process
-- group, as a terminal sends it) and kill -9; then this process resumes its checkpoint.
T.test("checkpoint: a dlbench process stopped by Ctrl-C or kill -9 loses only the plan call in flight", function()
  -- each build takes 0.5 s: a model's 4 plan calls every 0.5 s and more
  U.signals(T, S, function(ck)
    return U.slow_script(DEF, "dlb.sweep.layouts", 0.5, ck)
  end, 5)
end)

T.test("checkpoint: a torn last line is dropped and the run resumes", function()
  -- the identifying line, 3 plan calls, and half of the 4th's line
  U.torn(T, S, 3)
end)

T.test("checkpoint: another sweep's checkpoint, or not a checkpoint, is refused and left unchanged", function()
  local before = slurp(CK0)
  local other = {}
  for k, v in pairs(SPACE) do other[k] = v end
  other.gpus = { 8, 32 }
  T.checkerr("is not a checkpoint of this sweep", dlb.sweep.layouts, build, other, with { checkpoint = CK0 })
  T.eq(slurp(CK0), before, "unchanged (another space)")
  T.checkerr("left unchanged", dlb.sweep.layouts, build, SPACE, with { checkpoint = CK0, top = { k = 3 } })
  T.eq(slurp(CK0), before, "unchanged (another reduction)")
  T.checkerr("left unchanged", dlb.sweep.layouts, build, SPACE,
    with { checkpoint = CK0, plan = { batch = 32, precision = "mixed" } })
  T.eq(slurp(CK0), before, "unchanged (another plan spec)")
  T.checkerr("left unchanged", dlb.sweep.layouts, build, SPACE, with { checkpoint = CK0, keep = false })
  T.eq(slurp(CK0), before, "unchanged (no kept rows)")
  -- another session default profile or calibration: another sweep
  U.session_defaults(T, S)
  -- a dlb.sweep.model checkpoint, a CSV: not this kind
  U.other_kinds(T, S, { "x,y\n1,2\n", "dlb.sweep.model checkpoint 2 {}\n" })
  -- a chunk line that is not one (a damaged file): named, unchanged
  local bad = tmpname("bad")
  local meta, rest = before:match("^([^\n]*\n)(.*)$")
  local f = assert(io.open(bad, "wb"))
  f:write(meta, (rest:gsub("^1 ", "1 x ")))
  f:close()
  local b0 = slurp(bad)
  T.checkerr("line 2 (chunk 1)", dlb.sweep.layouts, build, SPACE, with { checkpoint = bad })
  T.eq(slurp(bad), b0, "the damaged file unchanged")
  -- a number edited to another (the last kept digit): the line's checksum (its last 16 hex
  -- digits, after " #") no longer matches: named, unchanged
  local l1, tail = rest:match("^([^\n]*)(\n.*)$")
  local body = l1:match("^(.*) #%x+$")
  T.eq(l1, body .. " #" .. core.text_checksum(body), "a chunk line ends with its checksum")
  f = assert(io.open(bad, "wb"))
  f:write(meta, body:sub(1, -2), body:sub(-1) == "0" and "1" or "0", l1:sub(#body + 1), tail)
  f:close()
  b0 = slurp(bad)
  T.checkerr("line 2 (chunk 1): its checksum does not match its text", dlb.sweep.layouts, build,
    SPACE, with { checkpoint = bad })
  T.eq(slurp(bad), b0, "unchanged (an edited number)")
  -- forged lines (the checksum made again): a hex digit too few in the kept rows (the line's
  -- end), or one that is not hex: named
  for _, case in ipairs {
    { body:sub(1, -2), "line 2 (chunk 1): its kept rows' part is not the count and 432 hex digits a row" },
    { body:sub(1, -2) .. "g", "line 2 (chunk 1): stored values: character" } } do
    f = assert(io.open(bad, "wb"))
    f:write(meta, case[1], " #", core.text_checksum(case[1]), tail)
    f:close()
    b0 = slurp(bad)
    T.checkerr(case[2], dlb.sweep.layouts, build, SPACE, with { checkpoint = bad })
    T.eq(slurp(bad), b0, "unchanged")
  end
  -- more chunks than this sweep's
  f = assert(io.open(bad, "wb"))
  f:write(before, (rest:match("^[^\n]*\n"):gsub("^1 ", "17 ")))
  f:close()
  T.checkerr("holds more than this sweep's 16 chunks", dlb.sweep.layouts, build, SPACE, with { checkpoint = bad })
  os.remove(bad)
end)

T.test("checkpoint: a second process on the same checkpoint is refused", function() U.lock(T, S) end)
T.test("checkpoint: bad names are errors naming the option", function() U.names(T, S) end)

os.remove(CK0)
T.done()
