-- sweepck_seeds.lua — seeds for tests/fuzz/fuzz_sweepck.c from a real dlb.sweep.model
-- checkpoint: each chunk line's reduction parts and kept rows, trimmed small, in the
-- harness's input form (a first line naming the reducer, then the part as the line holds it).
-- usage: build/bin/dlbench run tests/fuzz/sweepck_seeds.lua CHECKPOINT OUTDIR [NCOLS]
--   NCOLS: the sweep's row columns (a Pareto or top entry holds NCOLS + 1 numbers; default:
--   the "columns" of the checkpoint's first line). The committed seeds
--   (tests/fuzz/corpus/sweepck/) come from the small sweep of
--   tests/lua/test_checkpoint_fuzz.lua (every kind of reduction, kept rows) and from
--   `build/bin/dlbench run tests/bench/bench_sweep_model.lua 1 1 auto /tmp/b.ck 5000`.
local core = require "dlbench.backend"
local path, outdir = arg[1], arg[2]
assert(path and outdir, "usage: sweepck_seeds.lua CHECKPOINT OUTDIR [NCOLS]")
local text = assert(core.file_read(path), "cannot read " .. path)
local first = text:match("^[^\n]*")
local ncols = tonumber(arg[3])
if not ncols then
  local cols = first:match('"columns"=(%b{})')
  ncols = 0
  for _ in cols:gmatch("=") do ncols = ncols + 1 end
end
local n = 0
local function seed(head, body)
  n = n + 1
  local f = assert(io.open(string.format("%s/%s-%03d", outdir, path:match("[^/]*$"), n), "wb"))
  f:write(head, "\n", body)
  f:close()
end
local k = 0
for line in text:gmatch("([^\n]*)\n") do
  k = k + 1
  if k > 1 then
    line = line:gsub(" #%x+$", "")
    local parts = {}
    for p in line:gmatch("|([^|]*)") do parts[#parts + 1] = p end
    for _, p in ipairs(parts) do
      local toks = {}
      for t in p:gmatch("%S+") do toks[#toks + 1] = t end
      local m = tonumber(toks[1])
      if #toks == 2 and toks[2]:match("^%x+$") then -- kept rows: the first 2 x NB rows
        local nb = math.min(8, math.floor(m / 2))
        if nb >= 1 then seed(string.format("K %d 1", nb), toks[2]:sub(1, 64 * 2 * nb)) end
      elseif m and m > 0 then
        local w = (#toks - 1) / m
        local keep = math.min(m, 3)
        local body = { tostring(keep) }
        for i = 2, 1 + keep * w do body[#body + 1] = toks[i] end
        body = table.concat(body, " ")
        if w == ncols + 1 then
          seed("P " .. ncols, body)
          seed("T " .. ncols, body)
        elseif w == 2 then
          seed(string.format("B %d 0 %d", keep, k % 5), body)
        elseif w >= 5 then
          seed(string.format("G %d %d 1", ncols, w - 4), body)
        end
      end
    end
  end
end
print(string.format("%d seeds from %s in %s", n, path, outdir))
