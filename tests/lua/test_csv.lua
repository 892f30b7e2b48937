-- test_csv.lua — dlb.read_csv on the real DeepBench kernel CSVs (../shared/data beside the
-- repository; skipped when absent), type inference, errors with line and column, and a
-- fuzz: random bytes and mutations of valid CSV give a table or a clear error.
local T = require "harness"
local dlb = require "dlbench"
local tbl = require "dlbench.table"

local function here()
  local src = debug.getinfo(1, "S").source
  return (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
end
-- the repository root is tests/lua/../..; DLB_DATA overrides (a worktree elsewhere)
local data = (os.getenv("DLB_DATA") or (here() .. "/../../../shared/data")) .. "/deepbench"
local function exists(p) local f = io.open(p, "rb"); if f then f:close() end; return f ~= nil end

T.test("DeepBench CSVs (shared/data) read with inferred types", function()
  if not exists(data .. "/gemm.csv") then print("# skipped: " .. data .. " is absent"); return end
  -- row counts: `wc -l` minus the header line
  local g = dlb.read_csv(data .. "/gemm.csv")
  T.eq(g:count(), 248, "gemm rows")
  T.eq(table.concat(g:columns(), ","), "set,m,n,k,a_t,b_t", "gemm columns")
  T.eq(g:row(1).m, 1760, "first GEMM m (DeepBench training_set 1760x16x1760)")
  T.eq(type(g:row(1).a_t), "boolean", "transposes are booleans")
  T.eq(g:row(1).set, "training_set", "strings")
  local flops = 0
  for _, r in g:rows() do flops = flops + 2 * r.m * r.n * r.k end -- a MAC is 2 FLOPs
  assert(flops > 0)
  local c = dlb.read_csv(data .. "/conv.csv")
  T.eq(c:count(), 218, "conv rows")
  T.eq(c:row(1).w, 700, "conv w")
  local r = dlb.read_csv(data .. "/rnn.csv")
  T.eq(r:count(), 125, "rnn rows")
  T.eq(table.concat(r:unique("cell"), ","), "gru,lstm,vanilla", "cells")
  local a = dlb.read_csv(data .. "/allreduce.csv")
  T.eq(a:count(), 7, "allreduce rows")
  T.eq(a:row(1).floats, 100000, "floats")
  -- measured-style analysis on real data: the by-set GEMM counts
  local by = g:group_by("set", { n = "count" })
  local total = 0
  for _, row in by:rows() do total = total + row.n end
  T.eq(total, 248, "grouped")
end)

T.test("measured results: a CSV of examples/s analysed like predictions", function()
  -- a run log as a profiler or a training script would write it (CRLF, quoted device names)
  local lines = { "device,layers,nodes,batch,examples_per_s\r\n" }
  for _, dev in ipairs { "TPU v2", "V100" } do
    for _, l in ipairs { 4, 8 } do
      for _, n in ipairs { 32, 64, 128 } do
        for _, b in ipairs { 64, 128 } do
          local eps = (dev == "V100" and 0.5 or 1) * b * 1000 / (l * n)
          lines[#lines + 1] = string.format('"%s",%d,%d,%d,%.17g\r\n', dev, l, n, b, eps)
        end
      end
    end
  end
  local t = tbl.parse_csv(table.concat(lines), nil, "runs.csv")
  T.eq(t:count(), 24, "rows")
  local tpu = t:where { device = "TPU v2" }
  local xs, ys, z = tpu:where { layers = 4 }:pivot("nodes", "batch", "examples_per_s")
  T.eq(#xs * #ys, 6, "grid")
  T.near(z[2][3], 128 * 1000 / (4 * 128), 1e-12, "z[j][i]: batch 128, nodes 128")
  local reg = dlb.stats.regress(tpu, { "layers", "nodes", "batch" }, "examples_per_s",
    { log = { "layers", "nodes", "batch", "examples_per_s" } })
  T.near(reg.r2, 1, 1e-12, "log-linear exactly")
  assert(reg.weights.batch > 0 and reg.weights.layers < 0 and reg.weights.nodes < 0, "signs")
  local speed = t:where { device = "TPU v2" }:join(t:where { device = "V100" }, { "layers", "nodes", "batch" })
  T.eq(speed:count(), 12, "joined")
  T.near(speed:row(1).examples_per_s / speed:row(1).examples_per_s_2, 2, 1e-12, "TPU/GPU")
end)

T.test("type inference and options", function()
  local t = tbl.parse_csv("a,b,c,d\n1,x,true,\n2.5e3,,FALSE,\n-inf,y,true,\n")
  T.eq(t:row(2).a, 2500, "number")
  T.eq(t:row(3).a, -math.huge, "inf")
  T.eq(t:row(2).b, nil, "empty is nil")
  T.eq(t:row(2).c, false, "boolean")
  T.eq(t:column("d")[1], nil, "empty column")
  local s = tbl.parse_csv("id,v\n007,1\n008,2\n", { types = { id = "string" } })
  T.eq(s:row(1).id, "007", "types override")
  local h = tbl.parse_csv("1;2\n3;4\n", { header = false, sep = ";" })
  T.eq(h:row(2)["2"], 4, "no header, semicolons")
  local m = tbl.parse_csv("a\n1\nx\n")
  T.eq(m:row(1).a, "1", "mixed column stays text")
  T.checkerr("unknown option 'delim'", tbl.parse_csv, "a\n1\n", { delim = ";" })
end)

T.test("errors name the file, line and column", function()
  T.checkerr("f.csv: line 3, column 3: quoted field is never closed", tbl.parse_csv, 'a,b\n1,2\n3,"4\n', nil, "f.csv")
  T.checkerr("line 2, column 4: quote inside an unquoted field", tbl.parse_csv, 'a,b\n1,2"\n')
  T.checkerr("line 3, column 1: record has 1 field, the first record has 2", tbl.parse_csv, "a,b\n1,2\n3\n")
  T.checkerr("line 1, field 2: column 'a' appears twice", tbl.parse_csv, "a,a\n1,2\n")
  T.checkerr("line 1, field 2: empty column name", tbl.parse_csv, "a,\n1,2\n")
  T.checkerr("line 2, field 1 ('n'): 'x' is not a number", tbl.parse_csv, "n\nx\n", { types = { n = "number" } })
  local e = tbl.parse_csv("")
  T.eq(e:count() + #e:columns(), 0, "empty text is an empty table")
  -- review 10: an empty file (or blank lines only) was 0 rows without a word; now an error
  -- naming it; a header line alone is a table of no rows
  local dir = os.tmpname()
  local function file(name, text)
    local f = assert(io.open(dir .. name, "wb")); f:write(text); f:close(); return dir .. name
  end
  T.checkerr("dlb.read_csv: " .. dir .. "e.csv holds no header line (an empty file): a table with columns "
    .. "and no rows is its header line alone", dlb.read_csv, file("e.csv", ""))
  T.checkerr("holds no header line (3 bytes without a field)", dlb.read_csv, file("b.csv", "\n\r\n"))
  T.checkerr("holds no record (an empty file)", dlb.read_csv, file("e.csv", ""), { header = false })
  local h = dlb.read_csv(file("h.csv", "a,b\n"))
  T.eq(h:count(), 0, "header only: no rows")
  T.eq(table.concat(h:columns(), ","), "a,b", "header only: its columns")
  for _, n in ipairs { "", "e.csv", "b.csv", "h.csv" } do os.remove(dir .. n) end
  T.checkerr("dlb.read_csv: cannot open /no/such/file.csv: No such file or directory", dlb.read_csv, "/no/such/file.csv")
end)

T.test("fuzz: random bytes and mutations never crash", function()
  math.randomseed(12345)
  local valid = 'set,m,n,k,name\ntraining,1760,16,1760,"a, ""b"""\ninference,5124,700,2048,c\r\n"x\ny",1,2,3,d\n'
  local alphabet = { ",", '"', "\n", "\r", "a", "1", ".", "e", "-", " ", ";", "\0", "\255" }
  local ok_n, err_n = 0, 0
  local function try(text)
    local ok, r = pcall(tbl.parse_csv, text, nil, "fuzz")
    if ok then
      assert(tbl.is_table(r), "a table")
      ok_n = ok_n + 1
    else
      r = tostring(r)
      if not (r:find("^fuzz: line %d+, column %d+: ") or r:find("^fuzz: line %d+, field %d+")
) then
        error("unclear error for " .. string.format("%q", text) .. ": " .. r)
      end
      err_n = err_n + 1
    end
  end
  for _ = 1, 1500 do
    local n = math.random(0, 80)
    local b = {}
    for i = 1, n do b[i] = string.char(math.random(0, 255)) end
    try(table.concat(b))
  end
  for _ = 1, 1500 do
    local s = valid
    for _ = 1, math.random(1, 4) do
      local at = math.random(1, #s)
      local op = math.random(3)
      if op == 1 then s = s:sub(1, at - 1) .. alphabet[math.random(#alphabet)] .. s:sub(at + 1)
      elseif op == 2 then s = s:sub(1, at - 1) .. s:sub(at + 1)
      else s = s:sub(1, at) .. alphabet[math.random(#alphabet)] .. s:sub(at + 1) end
      if #s == 0 then break end
    end
    try(s)
  end
  assert(ok_n > 50 and err_n > 50, string.format("both outcomes exercised (%d ok, %d errors)", ok_n, err_n))
end)

T.test("read_csv: header is true or false (review7)", function()
  -- before: header = 0 read the header row (Lua's truth) and a list of names was ignored
  local p = os.tmpname()
  assert(dlb.table.write_atomic(p, "a,b\n1,2\n"))
  T.checkerr("dlb.read_csv: option 'header' must be true or false (false: columns named 1, 2, ...), got number 0",
    dlb.read_csv, p, { header = 0 })
  T.checkerr("must be true or false (false: columns named 1, 2, ...), got a table", dlb.read_csv, p,
    { header = { "x", "y" } })
  T.eq(dlb.read_csv(p, { header = false }):count(), 2, "header = false as before")
  T.eq(dlb.read_csv(p):row(1).a, 1, "the header row as before")
  os.remove(p)
end)

T.done()
