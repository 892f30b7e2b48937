-- test_validation_notebook.lua — notebooks/validation.lua runs to the end under this
-- backend: every published row is predicted, calibration and held-out rows are disjoint,
-- the CALIBRATED parameters are labelled, the held-out error is printed (and stays where it
-- is: a regression guard, not the issue's target), and the scatter is written.
local T = require "harness"

local function root()
  local src = debug.getinfo(1, "S").source
  local dir = (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
  return dir .. "/../.."
end

T.test("validation notebook: predictions, calibration on a subset, held-out error", function()
  local out = T.tmpdir()
  local lines, saved, saved_arg = {}, print, arg
  print = function(...) -- luacheck: ignore
    local t = {}
    for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(t, "\t")
  end
  arg = { out } -- luacheck: ignore
  local cwd = root()
  local ok, err = pcall(function()
    -- the notebook finds its data next to itself
    dofile(cwd .. "/notebooks/validation.lua")
  end)
  print, arg = saved, saved_arg -- luacheck: ignore
  assert(ok, err)
  local text = table.concat(lines, "\n")
  local rows = dofile(cwd .. "/notebooks/data/validation_runs.lua")
  local npred, ncal, nheld = text:match("(%d+) rows predicted %((%d+) calibration, (%d+) held out%)")
  assert(npred, "summary line")
  npred, ncal, nheld = tonumber(npred), tonumber(ncal), tonumber(nheld)
  assert(npred >= 40 and npred <= #rows, "at least 40 rows predicted, got " .. npred)
  T.eq(ncal + nheld, npred, "every row is either calibration or held out")
  assert(ncal < nheld, "calibrate on a subset")
  local cal, held = 0, 0
  for _, l in ipairs(lines) do
    if l:match("^%S+%s+%S+%s+cal%s") then cal = cal + 1 end
    if l:match("^%S+%s+%S+%s+held%s") then held = held + 1 end
  end
  T.eq(cal, ncal, "calibration rows marked"); T.eq(held, nheld, "held-out rows marked")
  assert(text:find("CALIBRATED flops_eff per chip", 1, true), "calibrations labelled")
  local md, pd = text:match("held%-out |error|, CALIBRATED: +median ([%d.]+)%%, p90 ([%d.]+)%%")
  assert(md and pd, "held-out error printed")
  io.write(string.format("# held-out |error| after calibration: median %s%%, p90 %s%%\n", md, pd))
  -- the issue's target (<= 10% / <= 25%), met since the third round: a regression guard
  assert(tonumber(md) <= 10, "held-out median |error| " .. md .. "%")
  assert(tonumber(pd) <= 25, "held-out p90 |error| " .. pd .. "%")
  assert(text:find("(target <= 10% / <= 25%)  MET", 1, true), "the verdict is printed")
  -- every fitted collective efficiency is labelled with the rows it was fitted on
  assert(text:find("CALIBRATED collective-bandwidth efficiency per framework profile", 1, true),
    "collective efficiency labelled")
  assert(text:find("DeepSpeed ZeRO%-3 +[%d.]+ of the links' bandwidth, %d+ calibration rows %(megatron%-t2%-zero3"),
    "fitted on the ZeRO-3 calibration rows, named")
  -- rows excluded for their source are still shown with their error, and the score
  -- counting them is printed next to the one that does not
  assert(text:find("the excluded rows as predicted anyway (NOT scored", 1, true), "excluded rows shown")
  assert(text:match("counting the %d+ held%-out rows excluded for their source too: median [%d.]+%%, p90 [%d.]+%%"),
    "the score with the excluded rows")
  -- rows left out of scoring are counted and each says why
  local nex = tonumber(text:match("(%d+) excluded from scoring"))
  assert(nex, "excluded rows counted")
  local listed = 0
  for _ in text:gmatch("\n  excluded [%w%.%-]+: %S") do listed = listed + 1 end
  T.eq(listed, nex, "every excluded row names its reason")
  T.eq(npred + nex, #rows, "every row predicted or excluded")
  -- the vTrain rows the notebook scores: all of them, or under DLB_NOTEBOOK_SUBSET=1 (the
  -- sanitizer flavour, tests/run.sh) the subset notebooks/lib/subset.lua keeps, whose
  -- numbers are not the published ones: the release and FFI flavours check those
  local SUB = dofile(cwd .. "/notebooks/lib/subset.lua")
  local vrows = SUB.keep(nil, dofile(cwd .. "/notebooks/data/vtrain_runs.lua")(cwd .. "/notebooks/data"), SUB.vtrain)
  local vn, vheld = {}, 0
  for _, r in ipairs(vrows) do
    vn[r.set] = (vn[r.set] or 0) + 1
    if r.role == "held" then vheld = vheld + 1 end
  end
  if SUB.on then
    assert(text:find("SUBSET (DLB_NOTEBOOK_SUBSET=1, the sanitizer tests' mode): vTrain rows: " .. #vrows
      .. " of 1549 rows", 1, true), "the subset is said")
  else
    T.eq(#vrows, 1549, "every vTrain row"); T.eq(vheld, 1294, "the held-out vTrain rows")
    assert(not text:find("SUBSET", 1, true), "no subset by default")
  end
  -- issue [19]: the vTrain sets scored apart, their CALIBRATED host cost and cluster
  -- flops_eff labelled, the one-node set's held-out target (a regression guard)
  assert(text:find("The vTrain sets (issue [19]", 1, true), "the vTrain section")
  assert(text:find("CALIBRATED host seconds per op, profile megatron%-lm: %d+ us %(fitted on %d+ vTrain"),
    "the host cost labelled with its rows")
  assert(text:find("CALIBRATED flops_eff of the vTrain cluster's A100s", 1, true), "the cluster's flops_eff labelled")
  local m1, p1 = text:match("one node, GPT hidden 1024, 2%-8 GPUs +held out +%d+: catalogue median +[%d.]+%% p90 +[%d.]+%%; "
    .. "CALIBRATED median +([%d.]+)%% p90 +([%d.]+)%%")
  assert(m1, "the one-node set's held-out error")
  io.write(string.format("# vTrain one node, held out, CALIBRATED: median %s%%, p90 %s%%\n", m1, p1))
  assert(SUB.on or tonumber(m1) <= 10 and tonumber(p1) <= 30, "one-node held-out " .. m1 .. "% / " .. p1 .. "%")
  assert(text:find("64%-256 GPUs, GPT 3.6B and 18.4B +held out +%d+"), "the multi-node set's held-out error")
  -- each multi-node row with its CALIBRATED parts and what the model misses per micro-batch
  local parts = 0
  for _ in text:gmatch("vtrain%-multinode%-[%w%-]+ +%a+ +dp[^\n]-%(%S+%%%)  [%d.]+ / [%d.]+ / [%d.]+  missed +[%+%-][%d.]+ ms") do
    parts = parts + 1
  end
  T.eq(parts, vn.multinode, "every multi-node row in parts")
  -- issue [19] target 2: the same study's unshared rows scored as sets of their own, every
  -- row predicted and held out, against the target, with their memory flags and worst rows
  for _, st in ipairs { { "one node, GPT hidden 2048, 2%-8 GPUs", vn["unshared-1node"] },
                     { "512 GPUs, GPT 39.1B and 175B", vn["unshared-multinode"] } } do
    local n, of, verdict = text:match(st[1] .. " +held out +(%d+) of +(%d+) rows: catalogue median +[%d.]+%% p90 +[%d.]+%%; "
      .. "CALIBRATED median +[%d.]+%% p90 +[%d.]+%% %(target <= 10%% / <= 30%%%)  (N?O?T? ?MET)")
    assert(n, "the unshared set line: " .. st[1])
    T.eq(tonumber(n), st[2], st[1] .. ": every row predicted")
    T.eq(tonumber(of), st[2], st[1] .. ": rows in the set")
    assert(verdict == "MET" or verdict == "NOT MET")
  end
  local nmem = 0
  for _ in text:gmatch("memory: %d+ rows with a modelled peak within 10%% of the 80 GB") do nmem = nmem + 1 end
  T.eq(nmem, 2, "each unshared set's memory flags")
  local worst = 0
  for _ in text:gmatch("\n      vtrain%-unshared%-[%w%-]+ +dp +%d+ tp %d+ pp +%d+ mb +%d+  measured") do worst = worst + 1 end
  T.eq(worst, math.min(10, vn["unshared-1node"]) + math.min(10, vn["unshared-multinode"]),
    "the 10 worst rows of each unshared set")
  -- NCCL's all-reduce as modelled against the source's measured nccl-tests: 9 sizes for each
  -- of 2, 4 and 8 GPUs, catalogue -> CALIBRATED; a collective model off by 2x or more (units,
  -- a lost factor) fails, and the node tier CALIBRATED on these rows (dlb.parallel.
  -- calibrate_collective) brings every GPU count's median within 20%
  local ce, cl = text:match("CALIBRATED node tier of vTrain's A100 nodes %(dlb%.parallel%.calibrate_collective "
    .. "on the source's nccl%-tests, 27 rows, least squares in log time%): NVLink eff ([%d.]+) of 300 GB/s, "
    .. "nccl_latency ([%d.]+) us added per collective")
  assert(ce, "the node tier's calibration labelled")
  assert(tonumber(ce) > 0.3 and tonumber(ce) <= 1 and tonumber(cl) >= 0 and tonumber(cl) < 200,
    "node tier eff " .. ce .. ", latency " .. cl .. " us")
  for _, g in ipairs { 2, 4, 8 } do
    local n, r, rc = text:match("\n    " .. g .. " GPUs %((%d+) sizes, median ([%d.]+) %-> ([%d.]+)%)")
    assert(n, "the NCCL check for " .. g .. " GPUs")
    T.eq(tonumber(n), 9, g .. " GPUs: 9 measured sizes")
    assert(tonumber(r) > 0.5 and tonumber(r) < 2, g .. " GPUs: modelled / measured " .. r)
    assert(tonumber(rc) > 0.8 and tonumber(rc) < 1.25, g .. " GPUs: CALIBRATED / measured " .. rc)
  end
  assert(text:find("every held%-out vTrain row %(" .. vheld .. ", the four sets%): CALIBRATED median [%d.]+%% p90"),
    "the four vTrain sets pooled")
  assert(text:find("Korthikanti et al. 2022 (9 rows", 1, true), "the Korthikanti mean")
  assert(text:find("wrote " .. out .. "/validation.png", 1, true), "the scatter is written")
  os.remove(out .. "/validation.png")
  os.remove(out)
end)

T.done()
