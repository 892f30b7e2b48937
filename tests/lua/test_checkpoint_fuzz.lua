-- test_checkpoint_fuzz.lua — a mutation fuzzer for the readers of both checkpoint kinds
-- (docs/sweep.md "Checkpoints" and "Checkpoints of dlb.sweep.model"): a valid checkpoint
-- written by a small uninterrupted sweep is mutated (truncated at a line boundary or inside
-- a line, a byte flipped or replaced, a line duplicated, dropped, swapped or added, a number
-- replaced by nan/inf/-0/1e308/a huge count, the first line changed) and the same sweep
-- resumed from it. Each outcome must be one of:
--   * the result of the uninterrupted run, identical (every column as %.17g text); a
--     truncation (at a line boundary or inside a line: a torn last line is dropped) must give
--     it, the lost rows or chunks evaluated again;
--   * an error raised by dlbench naming the checkpoint file (no Lua runtime error such as
--     "attempt to index a nil value", no "bad argument"), the file left as it was where the
--     message says so ("left unchanged");
--   * for dlb.sweep only, a mutation of a row's values that is itself a valid CSV value: the
--     CSV checkpoint is the rows' own text (dlb.read_csv reads it) and a resumed row's values
--     are taken from it, so an edited value is read as written (docs/sweep.md); the result
--     must still hold every configuration once, in the sweep's order, with the parameters
--     of this run, and differ only in the mutated row. Every other difference fails.
-- A crash or a hang fails the suite (the test's process, its timeout). Deterministic: its own
-- generator (the same cases under Lua 5.4 and LuaJIT).
--   cases: DLB_CKFUZZ_CASES per kind (default 150 dlb.sweep, 60 dlb.sweep.model: about 4 s),
--   seed DLB_CKFUZZ_SEED (default 1); DLB_CKFUZZ_VERBOSE=1 names each case on stderr.
--   A long run (docs/testing.md "Fuzzing"):
--     DLB_CKFUZZ_CASES=5000 DLB_CKFUZZ_SEED=7 LUA_PATH="$PWD/tests/lua/?.lua;;" \
--       build/bin/dlbench run tests/lua/test_checkpoint_fuzz.lua
local T = require "harness"
local dlb = require "dlbench"
local core = require "dlbench.backend"
local ckpt = require "dlbench.sweep_model_checkpoint"

-- (a resumed dlb.sweep.model run compiles its 3 structures again: about 45 ms a case, a
-- dlb.sweep run 4 ms, so the suite runs fewer of the first)
local F = require("fuzz_setup")("CKFUZZ") -- cases, seed, verbosity; Park-Miller rnd / pick
local SWEEP_CASES, MODEL_CASES = F.cases or 150, F.cases or 60
local SEED, VERBOSE, rnd, pick = F.seed, F.verbose, F.rnd, F.pick

-- the files on a RAM disk where there is one: every resumed run fsyncs its checkpoint at the end
local function isdir(d) local f = io.open(d .. "/."); if f then f:close() return true end return false end
local tmpdir = os.getenv("DLB_CKFUZZ_DIR") or (isdir("/dev/shm") and "/dev/shm") or os.getenv("TMPDIR") or "/tmp"
local function tmpname(tag)
  return string.format("%s/dlb_ckfuzz_%s_%d_%d", tmpdir, tag, os.time(), math.random(1, 1e9))
end
local function slurp(path) return (core.file_read(path)) or "" end
local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end
local function lines_of(s)
  local out = {}
  for l in s:gmatch("([^\n]*)\n") do out[#out + 1] = l end
  return out
end

-- ---------------------------------------------------------------- the mutations

local NUMS = { "nan", "-nan", "inf", "-inf", "-0", "-0.0", "1e308", "1e309", "-1e308", "4.9e-324",
  "1e19", "18446744073709551616", "9007199254740993", "4611686018427387904", "1e300", "-1", "0",
  "0.5", "2", "1e9", "0x10", "" }

-- A mutation of text (a checkpoint whose first line is line 1): the mutated text, what it
-- did, and its class: "trunc" (must give the uninterrupted result), "other".
local function mutate(text)
  local L = lines_of(text)
  local n = #L
  local op = rnd(12)
  if op == 1 then -- truncate at a line boundary (at least the first line kept)
    local k = rnd(n)
    return table.concat(L, "\n", 1, k) .. "\n", "keep the first " .. k .. " lines", "trunc"
  elseif op == 2 then -- truncate inside a line (not the first)
    if n < 2 then return text, "none", "trunc" end
    local k = 1 + rnd(n - 1)
    local pre = table.concat(L, "\n", 1, k - 1) .. "\n"
    local cut = rnd(#L[k] + 1) - 1
    return pre .. L[k]:sub(1, cut), string.format("cut line %d at byte %d", k, cut), "trunc"
  elseif op == 3 then -- a byte flipped (one bit)
    local i = rnd(#text)
    local b = text:byte(i)
    local bit = 2 ^ (rnd(8) - 1)
    local nb = (math.floor(b / bit) % 2 == 1) and b - bit or b + bit
    return text:sub(1, i - 1) .. string.char(nb) .. text:sub(i + 1),
      string.format("byte %d: %d -> %d", i, b, nb), "other"
  elseif op == 4 then -- a byte replaced by a character the formats use
    local i = rnd(#text)
    local c = pick { " ", "|", "\n", ",", '"', "0", "9", "-", ".", "e", "a", "f", "g", "x", "\0", "\r" }
    return text:sub(1, i - 1) .. c .. text:sub(i + 1), string.format("byte %d -> %q", i, c), "other"
  elseif op == 5 and n >= 2 then -- a line duplicated
    local k = 1 + rnd(n - 1)
    table.insert(L, k, L[k])
    return table.concat(L, "\n") .. "\n", "line " .. k .. " twice", "other"
  elseif op == 6 and n >= 3 then -- a line dropped (not the last: that is a truncation)
    local k = 1 + rnd(n - 2)
    table.remove(L, k)
    return table.concat(L, "\n") .. "\n", "line " .. k .. " dropped", "other"
  elseif op == 7 and n >= 3 then -- two lines swapped
    local a = 1 + rnd(n - 1)
    local b = 1 + rnd(n - 1)
    if a == b then b = a == n and 2 or a + 1 end
    L[a], L[b] = L[b], L[a]
    return table.concat(L, "\n") .. "\n", "lines " .. a .. ", " .. b .. " swapped", "other"
  elseif op == 8 or op == 9 then -- a number (a token of digits) replaced
    local spans = {}
    for s, e in text:gmatch("()[%-%d%.e+]+()") do spans[#spans + 1] = { s, e } end
    if #spans == 0 then return text, "none", "trunc" end
    local sp = pick(spans)
    local v = pick(NUMS)
    return text:sub(1, sp[1] - 1) .. v .. text:sub(sp[2]),
      string.format("'%s' at %d -> '%s'", text:sub(sp[1], sp[2] - 1), sp[1], v), "other"
  elseif op == 10 then -- the first line changed
    local l1 = L[1]
    local i = rnd(#l1 + 1)
    L[1] = pick { l1:sub(1, i - 1), l1 .. "x", l1:sub(1, i - 1) .. "Z" .. l1:sub(i + 1), "", l1:upper() }
    return table.concat(L, "\n") .. "\n", "first line changed at " .. i, "other"
  elseif op == 11 then -- a line added (garbage, or a copy of a line with a changed end)
    local g = pick { "", "|", "1 2 3", "x,y", string.rep("9", 40), (L[n] or "") .. " 1", "\0" }
    return text .. g .. "\n", "added line " .. ("%q"):format(g):sub(1, 40), "other"
  else -- the file emptied, or a part of a line repeated inside it
    if rnd(2) == 1 then return "", "emptied", "trunc" end
    local i, j = rnd(#text), rnd(#text)
    if i > j then i, j = j, i end
    j = math.min(j, i + 80)
    return text:sub(1, j) .. text:sub(i, j) .. text:sub(j + 1), string.format("bytes %d..%d repeated", i, j), "other"
  end
end

-- ---------------------------------------------------------------- the oracle

-- An error of the resumed run: a dlbench error naming the checkpoint, no Lua runtime error;
-- when it says "left unchanged", the file is the mutated text.
local function check_error(err, path, before, fname, what)
  err = tostring(err)
  local bad = err:find("attempt to", 1, true) or err:find("bad argument", 1, true) or
    err:find("%.lua:%d+:") or err:find("stack traceback", 1, true)
  if bad or err:sub(1, #fname + 1) ~= fname .. ":" or not err:find(path, 1, true) then
    error(string.format("%s: not a clean error naming the checkpoint: %s", what, err), 0)
  end
  if err:find("left unchanged", 1, true) and slurp(path) ~= before then
    error(string.format("%s: the file changed, the error says it was left unchanged: %s", what, err), 0)
  end
end

-- Run the fuzzer over one checkpoint kind: valid: the uninterrupted checkpoint's text;
-- run(path): the resumed result as text (and its rows); ref: the uninterrupted result's
-- text; tolerated(res, mtext, how): nil when a differing result is allowed, else why not.
local function fuzz(kind, cases, path, valid, run, ref, fname, tolerated, reseal)
  local stats = { same = 0, error = 0, tolerated = 0, cases = 0 }
  for c = 1, cases do
    local mtext, how, class = mutate(valid)
    local resealed = reseal and class ~= "trunc" and c % 2 == 0
    if resealed then mtext, how = reseal(mtext), how .. ", resealed" end
    local what = string.format("%s case %d (seed %d): %s", kind, c, SEED, how)
    if VERBOSE then io.stderr:write(what, "\n") end
    spit(path, mtext)
    local ok, res, extra = pcall(run, path)
    stats.cases = stats.cases + 1
    if VERBOSE then
      io.stderr:write("  -> ", ok and (res == ref and "the same result" or "another result")
        or ("error: " .. tostring(res):sub(1, 300)), "\n")
    end
    if ok and res == ref then
      stats.same = stats.same + 1
    elseif ok then
      local why = class == "trunc" and "a truncation must give the uninterrupted result"
        or (tolerated and tolerated(extra, mtext, resealed)) or (not tolerated and "no result may differ")
      if why then
        error(string.format("%s: a silently different result (%s)\n--- file:\n%s\n--- result:\n%s\n--- want:\n%s",
          what, why, mtext:sub(1, 2000), res:sub(1, 2000), ref:sub(1, 2000)), 0)
      end
      stats.tolerated = stats.tolerated + 1
    else
      if class == "trunc" then
        error(string.format("%s: a truncation must resume, got: %s", what, tostring(res)), 0)
      end
      check_error(res, path, mtext, fname, what)
      stats.error = stats.error + 1
    end
  end
  io.stderr:write(string.format("checkpoint fuzz %s (seed %d): %d cases: %d the same result, %d clean errors, %d accepted edits\n",
    kind, SEED, stats.cases, stats.same, stats.error, stats.tolerated))
  return stats
end

-- A table's text: every column's values, numbers as %.17g, in row order (the checkpoint
-- tests' one helper).
local text = require("sweep_checkpoint_cases").text

-- ---------------------------------------------------------------- dlb.sweep (CSV rows)

T.test("checkpoint fuzz: dlb.sweep's CSV checkpoint, mutated, resumes or is refused", function()
  local path = tmpname("sweep") .. ".csv"
  local space = { x = { 1, 2, 3, 4 }, s = { "a", "b c" } }
  local fn = function(p)
    if p.x == 3 and p.s == "a" then error("three") end -- one failed row (_error), run again
    return { y = p.x * 0.25, z = p.s .. p.x }
  end
  local o = { jobs = 1, quiet = true, progress = false, checkpoint = path }
  os.remove(path)
  local full = dlb.sweep(space, fn, o)
  local valid = slurp(path)
  local ref = text(full)
  T.eq(#lines_of(valid), 1 + full:count(), "a header and a line per row")
  local keys = {}
  for i = 1, full:count() do local r = full:row(i); keys[i] = tostring(r.x) .. "/" .. r.s end
  local function run(p)
    local t = dlb.sweep(space, fn, o)
    return text(t), t
  end
  -- a value as text: numbers (and number text: an edited value that is not a number makes the
  -- CSV reader read its column as text) as %.17g
  local function norm(v)
    local x = tonumber(v)
    return x and string.format("%.17g", x) or tostring(v)
  end
  -- an accepted edit: every configuration once, in order, every column but the edited row's
  -- values as the uninterrupted run's
  -- (an edited header may rename a result column, _error included: then only the
  -- configurations and their parameters are checked)
  local function tolerated(t, mtext)
    if t:count() ~= full:count() then return "rows: " .. t:count() .. ", want " .. full:count() end
    local cols, fcols = t:columns(), full:columns()
    if #cols ~= #fcols then return "columns " .. table.concat(cols, ",") end
    local header = mtext:match("^[^\n]*") ~= valid:match("^[^\n]*")
    local diff = 0
    for i = 1, t:count() do
      local r, f = t:row(i), full:row(i)
      if tostring(r.x) .. "/" .. r.s ~= keys[i] then return "row " .. i .. " is another configuration" end
      for j = 1, #fcols do
        if norm(r[cols[j]]) ~= norm(f[fcols[j]]) then diff = diff + 1; break end
      end
    end
    if not header and diff > 1 then
      return diff .. " rows differ (one line was mutated); columns " .. table.concat(cols, ",")
    end
    return nil
  end
  fuzz("dlb.sweep", SWEEP_CASES, path, valid, run, ref, "dlb.sweep", tolerated)
  os.remove(path)
end)

-- ---------------------------------------------------------------- dlb.sweep.model (chunks)

T.test("checkpoint fuzz: dlb.sweep.model's checkpoint, mutated, resumes or is refused", function()
  local path = tmpname("model") .. ".ck"
  local saved = ckpt.chunk_configs
  ckpt.chunk_configs = 16 -- each C call (a structure's grid: 2 layers x 2 x 2 x 2 devices) a chunk
  local SPACE = { hidden = { 64, 96, 128 }, heads = { 2 }, layers = { 1, 2 }, seq = { 16, 32 },
    batch = { 1, 2 }, device = { "H100-SXM", "V100-SXM2-16GB" } }
  local function build(p)
    return dlb.models.gpt { layers = p.layers, hidden = p.hidden, heads = p.heads, ffn = 128,
      context = 64, vocab = 100, seq = p.seq, batch = p.batch }
  end
  local OPTS = { bind = { "batch", "seq" }, throughput = { "batch", "seq" }, keep = true,
    threads = 1, quiet = true, checkpoint = path,
    pareto = { { minimize = { "time", "memory" } } },
    top = { { k = 3 } },
    heatmap = { { x = "seq", y = "batch", agg = "min" }, { x = "seq", agg = "mean", value = "memory" } },
    group_by = { keys = { "device" }, values = { "time" } } }
  local function rtext(r)
    local z = {}
    for _, h in ipairs(r.heatmaps) do
      for j = 1, #h.z do for i = 1, #h.z[j] do z[#z + 1] = string.format("%.17g", h.z[j][i]) end end
    end
    for _, b in ipairs(r.bins) do
      for j = 1, #b.count do for i = 1, #b.count[j] do z[#z + 1] = string.format("%.17g", b.count[j][i]) end end
    end
    return table.concat({ r.count, text(r.rows), text(r.paretos[1]), text(r.tops[1]),
      text(r.group), table.concat(z, " ") }, "\n")
  end
  os.remove(path)
  local full = dlb.sweep.model(build, SPACE, OPTS)
  local valid = slurp(path)
  T.eq(full.chunks, 3, "three chunks")
  T.eq(#lines_of(valid), 1 + full.chunks, "a first line and a line per chunk")
  local ref = rtext(full)
  local function run(p)
    local r = dlb.sweep.model(build, SPACE, OPTS)
    return rtext(r), r
  end
  -- every other case resealed: each chunk line's checksum made again after the mutation (a
  -- forged file), so that the parser behind the checksum is fuzzed too; a forged edit of a
  -- value may give another result, nothing else may
  local function reseal(text)
    local out = {}
    for i, l in ipairs(lines_of(text)) do
      if i > 1 then
        l = l:gsub(" #%x*$", "")
        l = l .. " #" .. core.text_checksum(l)
      end
      out[i] = l .. "\n"
    end
    return table.concat(out) .. (text:match("[^\n]+$") or "") -- a last line without its break as it was
  end
  local function tolerated(_, _, resealed)
    return not resealed and "an edit of a sealed line must be refused" or nil
  end
  fuzz("dlb.sweep.model", MODEL_CASES, path, valid, run, ref, "dlb.sweep.model", tolerated, reseal)
  -- forged lines (the checksum made again) whose numbers pass the count of numbers a part
  -- holds but not what C takes: each refused by name (line 2, chunk 1), the file unchanged
  local l1, l2, rest = valid:match("^([^\n]*\n)([^\n]*)\n(.*)$")
  local body = l2:gsub(" #%x+$", "")
  local parts = {}
  for p in body:gmatch("|[^|]*") do parts[#parts + 1] = p end
  local head = body:match("^[^|]*")
  local bins = parts[3] -- the first heat map: 2 x 2 bins, "| 4 acc count acc count ..."
  local acc = bins:match("^| 4 (%S+ %S+) ")
  T.eq(type(acc), "string", "the first heat map's part holds 4 bins")
  local forged = {
    { "3 bins for a heat map of 4", { parts[1], parts[2], "| 3 " .. acc .. " " .. acc .. " " .. acc .. " ",
      parts[4], parts[5], parts[6] }, "3 bins" },
    { "half an entry", { parts[1], parts[2], "| 0.5 " .. acc:match("^%S+") .. " ", parts[4], parts[5], parts[6] },
      "0.5 entries" },
    { "a count of calls that is not a whole number", { parts[1], parts[2], parts[3], parts[4], parts[5], parts[6] },
      "not a chunk line", head:gsub("^(%S+) 1 (%S+) (%S+) $", "%1 1.5 %2 %3 7 ") },
    -- numbers as the two interpreters read them alike (fuzz-long, seed 81): tonumber took
    -- hexadecimal (wrapped to 64 bits under Lua 5.4), binary and "-nan" under LuaJIT only,
    -- and a Lua 5.4 integer count of 2^62 wrapped in `m * W` to 0 numbers expected
    { "a hexadecimal count", { parts[1], parts[2], "| 0x4 " .. acc .. " " .. acc .. " " .. acc .. " " .. acc .. " ",
      parts[4], parts[5], parts[6] }, "'0x4' is not a number" },
    { "a binary count", { parts[1], parts[2], "| 0b100 " .. acc .. " " .. acc .. " " .. acc .. " " .. acc .. " ",
      parts[4], parts[5], parts[6] }, "'0b100' is not a number" },
    { "a count of 2^62 entries without numbers", { parts[1], parts[2], "| 4611686018427387904 ", parts[4], parts[5],
      parts[6] }, "reduction 3 holds 0 numbers for 4.6116860184273879e+18 entries" },
  }
  for _, f in ipairs(forged) do
    local line = (f[4] or head) .. table.concat(f[2])
    line = line:gsub(" $", "")
    local text = l1 .. line .. " #" .. core.text_checksum(line) .. "\n" .. rest
    spit(path, text)
    local ok, err = pcall(run, path)
    T.eq(ok, false, f[1] .. ": refused")
    check_error(err, path, text, "dlb.sweep.model", f[1])
    T.eq(tostring(err):find("line 2 (chunk 1)", 1, true) ~= nil, true, f[1] .. ": names the line: " .. tostring(err))
    T.eq(tostring(err):find(f[3], 1, true) ~= nil, true, f[1] .. ": says what: " .. tostring(err))
    T.eq(slurp(path), text, f[1] .. ": the file unchanged")
  end
  ckpt.chunk_configs = saved
  os.remove(path)
end)

T.done()
