-- test_sweep_model_checkpoint.lua — dlb.sweep.model's checkpoint= (docs/sweep.md "Checkpoints
-- of dlb.sweep.model"): a run stopped after some chunks (a builder error, a C error in a later
-- chunk, a torn last line) and rerun gives the result of an uninterrupted run, bit for bit:
-- kept rows, Pareto fronts, top lists, group_by tables (sums included), heat maps (min and
-- mean bins), their order and provenance; finished chunks are not evaluated again; another
-- sweep's checkpoint, or a file that is not one, is refused and left unchanged; a second
-- process on the same checkpoint is refused. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local ckpt = require "dlbench.sweep_model_checkpoint"

local U = require "sweep_checkpoint_cases"
local core = require "dlbench.backend"
local slurp, nlines, diff, grid = U.slurp, U.nlines, U.diff, U.grid
local function tmpname(tag) return U.tmpname("model_ck", tag) end

-- small chunks (each C call is one structure's grid of 2 x 3 x 2 x 2 = 24 configurations):
-- 2 calls a chunk, 4 chunks over the 8 structures
local saved_chunk = ckpt.chunk_configs
ckpt.chunk_configs = 48

-- the sweep, as text: this file and the child process of the Ctrl-C test load the same
local DEF = [[
local dlb = require "dlbench"
local SPACE = { hidden = { 128, 256 }, heads = { 2, 4 }, ffn = { 256, 512 }, layers = { 1, 3 },
  seq = { 32, 64, 128 }, batch = { 1, 2 }, device = { "H100-SXM", "V100-SXM2-16GB" } }
local function build(p)
  return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.heads, ffn = p.ffn,
    context = 256, vocab = 500, seq = p.seq, batch = p.batch }
end
local OPTS = { bind = { "batch", "seq" }, throughput = { "batch", "seq" }, keep = true, threads = 2,
  quiet = true,
  pareto = { { minimize = { "time", "memory" }, where = "fits" },
             { maximize = { "throughput" }, minimize = { "memory" } } },
  top = { { k = 7 }, { k = 4, by = "-util" } },
  heatmap = { { x = "layers", y = "hidden", agg = "min" }, { x = "seq", y = "batch", agg = "mean", value = "memory" } },
  group_by = { keys = { "heads", "device" }, values = { "time", "memory" } } }
return SPACE, build, OPTS
]]
local SPACE, build, OPTS = assert((loadstring or load)(DEF))()
local function with(extra)
  local o = {}
  for k, v in pairs(OPTS) do o[k] = v end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

local function provtext(list)
  local out = {}
  for _, pv in ipairs(list) do
    out[#out + 1] = table.concat({ pv.dlbench, pv.framework, pv.calibration, table.concat(pv.defaults, ", ") }, "|")
  end
  return table.concat(out, ";")
end
-- every result of a, b the same; sums: whether group sums and mean bins are compared too
local function same(a, b, what, sums)
  T.eq(a.count, b.count, what .. ": count")
  T.eq(diff(a.rows, b.rows), nil, what .. ": kept rows")
  for i = 1, 2 do T.eq(diff(a.paretos[i], b.paretos[i]), nil, what .. ": pareto " .. i) end
  for i = 1, 2 do T.eq(diff(a.tops[i], b.tops[i]), nil, what .. ": top " .. i) end
  T.eq(grid(a.heatmaps[1].z), grid(b.heatmaps[1].z), what .. ": heat map (min)")
  T.eq(grid(a.bins[1].count), grid(b.bins[1].count), what .. ": heat map counts")
  T.eq(provtext(a.provenance), provtext(b.provenance), what .. ": provenance")
  T.eq(provtext(a.bins[1].provenance), provtext(b.bins[1].provenance), what .. ": heat map provenance")
  if sums then
    T.eq(grid(a.heatmaps[2].z), grid(b.heatmaps[2].z), what .. ": heat map (mean)")
    T.eq(diff(a.group, b.group), nil, what .. ": group_by")
  else
    T.eq(a.group:count(), b.group:count(), what .. ": groups")
  end
end

local REF = dlb.sweep.model(build, SPACE, with())              -- no checkpoint
local CK0 = tmpname("ref")
local FULL = dlb.sweep.model(build, SPACE, with { checkpoint = CK0 }) -- uninterrupted, checkpointed
-- the sweep under the shared cases (tests/lua/sweep_checkpoint_cases.lua)
local S = { fn = "dlb.sweep.model", full = FULL, file = CK0, chunks = 4, tmpname = tmpname, same = same,
  run = function(ck, extra)
    local o = with(extra)
    o.checkpoint = ck
    return dlb.sweep.model(build, SPACE, o)
  end }

T.test("checkpoint: an uninterrupted run writes every chunk and gives the run without one", function()
  T.eq(FULL.count, 8 * 24, "configurations") -- 8 structures x 12 grid points x 2 devices
  T.eq(FULL.chunks, 4, "chunks")
  T.eq(FULL.resumed, 0, "none resumed")
  T.eq(nlines(CK0), 1 + 4, "the identifying line and one line per chunk")
  -- everything but the sums (bins' and groups' additions in another order) equals the run
  -- without a checkpoint
  same(FULL, REF, "checkpointed vs none", false)
  T.eq(FULL.group:count(), REF.group:count(), "groups")
  local gc, rc = FULL.group:column("count"), REF.group:column("count")
  for i = 1, #gc do T.eq(gc[i], rc[i], "group count " .. i) end
  -- a rerun resumes every chunk (nothing evaluated) and appends nothing
  local before = slurp(CK0)
  local again = dlb.sweep.model(build, SPACE, with { checkpoint = CK0 })
  T.eq(again.resumed, 4, "every chunk resumed")
  T.eq(slurp(CK0), before, "the file as it was")
  same(again, FULL, "resumed whole", true)
end)

T.test("checkpoint: interrupted after some chunks, then resumed, equals the uninterrupted run", function()
  local ck = tmpname("stop")
  local n = 0
  -- the builder fails at the 6th structure: chunks 1 and 2 (structures 1-4) are on disk, the
  -- 5th structure's call (chunk 3, in flight) is lost
  T.checkerr("stop here", dlb.sweep.model, function(p)
    n = n + 1
    if n > 5 * 3 then error("stop here") end -- 3 builds a structure (layers 1, 2, 3)
    return build(p)
  end, SPACE, with { checkpoint = ck })
  T.eq(nlines(ck), 1 + 2, "two chunks finished")
  local r = dlb.sweep.model(build, SPACE, with { checkpoint = ck })
  T.eq(r.resumed, 2, "two chunks resumed")
  T.eq(nlines(ck), 1 + 4, "the other two appended")
  same(r, FULL, "resumed", true)
  T.eq(slurp(ck), slurp(CK0), "the same file as the uninterrupted run's")
  os.remove(ck)
end)

T.test("checkpoint: a C error in a later chunk keeps the chunks before it", function()
  local ck = tmpname("cerr")
  -- keep = 100 rows: the third chunk's rows (from 96) pass the cap, in C
  T.checkerr("100", dlb.sweep.model, build, SPACE, with { checkpoint = ck, keep = 100 })
  T.eq(nlines(ck), 1 + 2, "the chunks before the failing one")
  local before = slurp(ck)
  T.checkerr("100", dlb.sweep.model, build, SPACE, with { checkpoint = ck, keep = 100 })
  T.eq(slurp(ck), before, "a rerun fails at the same chunk, the file as it was")
  os.remove(ck)
end)

-- A real process stopped from outside after two chunks: Ctrl-C (SIGINT to its process group,
-- as a terminal sends it) and kill -9; then this process resumes its checkpoint.
T.test("checkpoint: a dlbench process stopped by Ctrl-C or kill -9 loses only the chunk in flight", function()
  -- each build takes 0.2 s: a chunk (2 structures, 3 builds each) every 1.2 s
  U.signals(T, S, function(ck)
    return U.slow_script(DEF, "dlb.sweep.model", 0.2, ck, "require('dlbench.sweep_model_checkpoint').chunk_configs = 48\n")
  end, 3)
end)

T.test("checkpoint: a torn last line is dropped and the run resumes", function()
  -- the identifying line, chunk 1, and half of chunk 2's line
  U.torn(T, S, 1)
end)

T.test("checkpoint: another sweep's checkpoint, or not a checkpoint, is refused and left unchanged", function()
  local before = slurp(CK0)
  local other = {}
  for k, v in pairs(SPACE) do other[k] = v end
  other.seq = { 32, 64 }
  T.checkerr("is not a checkpoint of this sweep", dlb.sweep.model, build, other, with { checkpoint = CK0 })
  T.eq(slurp(CK0), before, "unchanged (another space)")
  T.checkerr("left unchanged", dlb.sweep.model, build, SPACE, with { checkpoint = CK0, top = { k = 3 } })
  T.eq(slurp(CK0), before, "unchanged (another reduction)")
  T.checkerr("left unchanged", dlb.sweep.model, build, SPACE, with { checkpoint = CK0, keep = false })
  T.eq(slurp(CK0), before, "unchanged (no kept rows)")
  -- another session default profile or calibration: another sweep
  U.session_defaults(T, S)
  -- a dlb.sweep CSV checkpoint, or any other file, with or without a final line break
  U.other_kinds(T, S, { "x,y\n1,2\n", "x,y\n1,2" })
  -- a chunk line that is not one (a damaged file): named, unchanged
  local bad = tmpname("bad")
  local f = assert(io.open(bad, "wb"))
  local meta, rest = before:match("^([^\n]*\n)(.*)$")
  f:write(meta, (rest:gsub("^1 2 ", "1 2 x ")))
  f:close()
  local b0 = slurp(bad)
  T.checkerr("line 2 (chunk 1)", dlb.sweep.model, build, SPACE, with { checkpoint = bad })
  T.eq(slurp(bad), b0, "the damaged file unchanged")
  -- a number edited to another number (a time's last digit): the line's checksum (its last
  -- 16 hex digits, after " #") no longer matches: named, unchanged
  local l1, tail = rest:match("^([^\n]*)(\n.*)$")
  local body = l1:match("^(.*) #%x+$")
  T.eq(l1, body .. " #" .. core.text_checksum(body), "a chunk line ends with its checksum")
  f = assert(io.open(bad, "wb"))
  f:write(meta, body:sub(1, -2), body:sub(-1) == "0" and "1" or "0", l1:sub(#body + 1), tail)
  f:close()
  b0 = slurp(bad)
  T.checkerr("line 2 (chunk 1): its checksum does not match its text", dlb.sweep.model, build,
    SPACE, with { checkpoint = bad })
  T.eq(slurp(bad), b0, "unchanged (an edited number)")
  -- a kept row's stored number that is not hex (the line's last digit), the checksum made
  -- again (a forged line): named by C, the line named here
  f = assert(io.open(bad, "wb"))
  local forged = body:sub(1, -2) .. "g"
  f:write(meta, forged, " #", core.text_checksum(forged), tail)
  f:close()
  b0 = slurp(bad)
  T.checkerr("line 2 (chunk 1): stored values: character", dlb.sweep.model, build, SPACE,
    with { checkpoint = bad })
  T.eq(slurp(bad), b0, "unchanged")
  os.remove(bad)
end)

T.test("checkpoint: a second process on the same checkpoint is refused", function() U.lock(T, S) end)
T.test("checkpoint: bad names are errors naming the option", function() U.names(T, S) end)

os.remove(CK0)
ckpt.chunk_configs = saved_chunk
T.done()
