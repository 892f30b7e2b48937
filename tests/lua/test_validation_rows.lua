-- test_validation_rows.lua — notebooks/lib/validation_rows.lua, how the validation notebook
-- turns a row into a prediction (issue [21]/[18], branch zero-default):
--   1. a row that states nothing but its layout runs with exactly the settings a user's plain
--      dlb.parallel.evaluate call with the row's framework profile gets: the resolved
--      options (ZeRO stage, schedule, recompute, sequence parallelism through the time and
--      memory, the defaults text) and the same step and memory. For every profile a row's
--      framework text can reach. Before this branch the set-up passed `zero = L.zero or 0`,
--      so the NeMo / Megatron-Core rows ran without the distributed optimizer their profile
--      (and their recipes) state, and `sequence_parallel = false` became the profile's true;
--   2. what a row does state wins (zero, sequence_parallel = false);
--   3. the notes of the worst rows (notebooks/data/validation_notes.lua) name only settings
--      the row ran with: each note's text is checked against its `uses`, and every row of
--      the table gets a note whose `uses` are its settings.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local ROOT = here .. "/../.."
local V = dofile(ROOT .. "/notebooks/lib/validation_rows.lua")(dlb)

local MODEL = { builder = "gpt", opts = { layers = 2, hidden = 512, heads = 8, seq = 512, vocab = 1000 } }

local function row(framework, layout)
  return { id = "plain-" .. framework, hw = "H100-SXM", precision = "bf16", framework = framework,
    model = MODEL, devices = 16, layout = layout, measured = { samples_per_s = 1 } }
end

-- the settings of an evaluate row compared (exactly: step and memory carry what the
-- defaults text does not spell out, e.g. a caller's seq_par)
local FIELDS = { "zero", "schedule", "recompute", "dp", "tp", "pp", "cp", "ep", "etp", "v", "m",
  "cp_algo", "moe_dispatcher", "moe_a2a_overlap", "attention_kernel", "framework", "defaults",
  "step", "mem", "tp_comm", "dp_comm", "mem_act", "mem_opt" }

T.test("a row stating only its layout = a plain evaluate call with its profile", function()
  local seen = {}
  for _, p in ipairs(V.PROFILE) do
    local r = row(p[1], { dp = 8, tp = 2, micro_batch = 1, global_batch = 32 })
    local s = assert(V.setup(r))
    T.eq(s.profile, dlb.frameworks.get(p[2]).name, "the row's profile")
    local _, got = V.predict(s, s.hw)
    local plain = P.evaluate { layers = s.ls, hw = "H100-SXM", cluster = V.cluster(s), framework = p[2],
      precision = "bf16", dp = 8, tp = 2, m = 4, batch = 32 }
    for _, k in ipairs(FIELDS) do
      T.eq(got[k], plain[k], p[2] .. ": " .. k)
    end
    -- the profile's ZeRO stage, where it states one (nemo, megatron-core: the distributed
    -- optimizer; fsdp, torchtitan, maxtext: 3; the notebook ran them all at 0 before)
    local pz = dlb.frameworks.get(p[2]).zero
    T.eq(got.zero, pz or 0, p[2] .. ": the profile's ZeRO stage")
    seen[s.profile] = true
  end
  -- the profiles the table's rows use, all reached
  for _, n in ipairs { "nemo", "megatron-core", "megatron-lm", "fsdp", "fsdp2", "torchtitan",
    "deepspeed-zero1", "deepspeed-zero3", "maxtext", "ngc", "pytorch1-ddp", "tensorflow1" } do
    assert(seen[n], "profile " .. n .. " reached by a row's framework text")
  end
end)

T.test("what a row states wins over the profile", function()
  -- nemo: ZeRO-1 and sequence parallelism by default
  local function run(layout)
    local s = assert(V.setup(row("NeMo 24.07", layout)))
    local _, r = V.predict(s, s.hw)
    return r, s
  end
  local base = { dp = 8, tp = 2, micro_batch = 1, global_batch = 32 }
  local function with(extra)
    local l = {}
    for k, v in pairs(base) do l[k] = v end
    for k, v in pairs(extra) do l[k] = v end
    return l
  end
  local r0 = run(base)
  T.eq(r0.zero, 1, "nemo's distributed optimizer")
  assert(r0.defaults:find("seq_par true", 1, true), r0.defaults)
  local rz = run(with { zero = 0 })
  T.eq(rz.zero, 0, "a stated ZeRO stage")
  assert(rz.mem_opt > r0.mem_opt, "ZeRO-1 shards the optimizer state over dp")
  local rs = run(with { sequence_parallel = false })
  assert(not rs.defaults:find("seq_par", 1, true), "a stated false is not the profile's true: " .. rs.defaults)
  local plain_off = P.evaluate { layers = select(2, run(base)).ls, hw = "H100-SXM", framework = "nemo",
    cluster = V.cluster(select(2, run(base))), precision = "bf16", dp = 8, tp = 2, m = 4, batch = 32,
    seq_par = false }
  T.eq(rs.step, plain_off.step, "seq_par false as a plain call's"); T.eq(rs.mem, plain_off.mem, "and memory")
  assert(rs.mem_act > r0.mem_act, "without sequence parallelism: more activation memory")
end)

T.test("setup's profile option: a caller's profile instead of the row's (tests/lua/fsdp_rows.lua)", function()
  local F = dlb.frameworks
  -- MPT's vocabulary (50,368): the fsdp profile's train metrics over the logits show in the step
  local function fsdp_row()
    local r = row("Composer + PyTorch FSDP", { dp = 8, tp = 2, micro_batch = 1, global_batch = 32 })
    r.precision = "mixed_bf16"
    r.model = { builder = "gpt", opts = { layers = 2, hidden = 512, heads = 8, seq = 512, vocab = 50368 } }
    return r
  end
  local r = fsdp_row()
  local s0 = assert(V.setup(r))
  T.eq(s0.profile, "fsdp", "the row's own profile")
  local p0 = V.predict(s0, s0.hw)
  -- by name: the same as the row's when it names the row's profile, another's otherwise
  T.eq(V.predict(assert(V.setup(r, { profile = "fsdp" })), s0.hw), p0, "profile = the row's own name")
  local st = assert(V.setup(r, { profile = "torchtitan" }))
  T.eq(st.profile, "torchtitan")
  local _, et = V.predict(st, st.hw)
  local plain = P.evaluate { layers = st.ls, hw = "H100-SXM", cluster = V.cluster(st), framework = "torchtitan",
    precision = "mixed_bf16", dp = 8, tp = 2, m = 4, batch = 32 }
  T.eq(et.step, plain.step, "the named profile's plain call")
  -- two derived profiles keep the name "fsdp" but not its fields: each gets its own layers
  -- (a cache by name gave the second the first's), and the row's own is untouched after them
  local off = F.derive("fsdp", { train_metrics = { lm_xent = false, source = "test" } })
  local loop = F.derive("fsdp", { optimizer_impl = F.get("torchtitan").optimizer_impl })
  local so, sl = assert(V.setup(r, { profile = off })), assert(V.setup(r, { profile = loop }))
  T.eq(so.prof, off, "the caller's profile itself"); T.eq(sl.prof, loop)
  local po, pl = V.predict(so, so.hw), V.predict(sl, sl.hw)
  assert(po > p0 and pl > p0 and po ~= pl, "no metrics / a fused update: faster, and not the same: "
    .. p0 .. " " .. po .. " " .. pl)
  T.eq(V.predict(assert(V.setup(r, { profile = off })), so.hw), po, "the same profile again")
  T.eq(V.predict(assert(V.setup(r)), s0.hw), p0, "the row's own profile again")
  -- a row's recipe derives from the caller's profile, keeping its fields
  local rm = fsdp_row()
  rm.moe = "mcore"
  local sm = assert(V.setup(rm, { profile = off }))
  T.eq(sm.prof.moe, "mcore", "the row's moe"); T.eq(sm.prof.train_metrics, off.train_metrics, "the caller's field")
  -- bad options, named
  T.checkerr("unknown option 'profil' for validation_rows.setup (did you mean 'profile'?)", V.setup, r, { profil = "fsdp" })
  T.checkerr("validation_rows.setup: options must be a table, got boolean", V.setup, r, true)
  T.checkerr("validation_rows.setup: option 'unscored' must be true or false", V.setup, r, { unscored = 1 })
  T.checkerr("unknown framework 'zz'", V.setup, r, { profile = "zz" })
  -- unscored: an excluded row is set up only when asked
  local rx = row("NeMo 24.07", { dp = 8, tp = 2, micro_batch = 1, global_batch = 32 })
  rx.note = "--unpad"
  local none, why = V.setup(rx)
  T.eq(none, nil); assert(why:find("--unpad", 1, true), why)
  assert(V.setup(rx, { unscored = true }), "unscored = true sets it up")
end)

T.test("s.micro: the micro-batch the set-up runs with (what the notebook prints)", function()
  local s = assert(V.setup(row("NeMo 24.07", { dp = 8, tp = 2, micro_batch = 2, global_batch = 32 })))
  T.eq(s.micro, 2); T.eq(s.cfg.m, 2, "32 = 8 x 2 x 2")
  -- 24 sequences over dp 8 do not split into micro-batches of 2: one sequence each, m 3
  s = assert(V.setup(row("NeMo 24.07", { dp = 8, tp = 2, micro_batch = 2, global_batch = 24 })))
  T.eq(s.micro, 1); T.eq(s.cfg.m, 3)
  T.eq(assert(V.setup(row("NeMo 24.07", { dp = 8, tp = 2, global_batch = 32 }))).micro, 1, "none stated")
end)

T.test("the study's statistics: nearest rank, the lower median (notebooks/lib/validation_stats.lua)", function()
  local S = dofile(ROOT .. "/notebooks/lib/validation_stats.lua")
  -- Wikipedia, "Percentile", worked examples of the nearest-rank method
  local a = { 50, 35, 15, 40, 20 }
  T.eq(S.pct(a, 0.05), 15); T.eq(S.pct(a, 0.30), 20); T.eq(S.pct(a, 0.40), 20)
  T.eq(S.pct(a, 0.50), 35); T.eq(S.pct(a, 1), 50)
  local b = { 20, 3, 6, 7, 8, 8, 10, 13, 15, 16 }
  T.eq(S.pct(b, 0.25), 7); T.eq(S.pct(b, 0.50), 8); T.eq(S.pct(b, 0.75), 15); T.eq(S.pct(b, 1), 20)
  -- the median of an even count is the lower middle value, not the mean of the two (8, 10: 9)
  T.eq(S.median(b), 8); T.eq(S.median(a), 35)
  T.eq(S.pct(b, 0.9), 16, "the p90 of 10: the 9th smallest")
  T.eq(b[1], 20, "the list is not sorted in place")
  local e = S.median({})
  assert(e ~= e, "an empty list: NaN")
end)

-- the settings a note's text names, and the `uses` it must then declare
local NAMED = {
  { "FlashAttention%-2", "attention", "flash2" }, { "FA2", "attention", "flash2" },
  { "cuDNN attention", "attention", "cudnn" }, { "cuDNN kernel", "attention", "cudnn" },
  { "moe mcore", "moe", "mcore" }, { "DeepEP", "moe_dispatcher", "deepep" },
  { "Hybrid%-EP", "moe_dispatcher", "hybridep" }, { "moe_a2a_overlap", "moe_a2a_overlap", true },
  { "ZeRO%-3 gathers", "zero", 3 }, { "DeepSpeed ZeRO%-3", "profile", "deepspeed-zero3" },
  { "fp8", "precision", "fp8" }, { "TF32", "precision", "tf32" }, { "%f[%w]fp32 on", "precision", "fp32" },
  { "Pascal fp32", "precision", "fp32" }, { "planner's best", "planned", true },
  { "torchtitan profile", "profile", "torchtitan" }, { "TensorFlow", "profile", "tensorflow1" },
}

T.test("the worst rows' notes name only settings the row ran with", function()
  local notes = dofile(ROOT .. "/notebooks/data/validation_notes.lua")
  for _, w in ipairs(notes) do
    for _, n in ipairs(NAMED) do
      if w[2]:find(n[1]) then
        T.eq(w.uses and w.uses[n[2]], n[3], "note '" .. w[1] .. "' names " .. n[1] .. ": uses." .. n[2])
      end
    end
  end
  -- every row of the table: its note's settings are its own, and an H100 row whose profile
  -- runs cuDNN's kernel is not told it ran FlashAttention-2 (the catch-all note before)
  -- The sanitizer flavour (tests/run.sh, DLB_NOTEBOOK_SUBSET=1) checks the first row of
  -- each kind (notebooks/lib/subset.lua's `runs` key: builder, device, precision, framework,
  -- recipe, the layout's fields, scored or not, the notes matching its id): the same C lines
  -- and branches as all rows (tests/tools/subset_coverage.sh, BENCHMARKS.md "The whole
  -- suite"); the release and FFI flavours check every row.
  local SUB = dofile(ROOT .. "/notebooks/lib/subset.lua")
  local all = dofile(ROOT .. "/notebooks/data/validation_runs.lua")
  local function kind(r) return SUB.runs(r, notes, V) end
  local rows = SUB.keep("validation_runs rows", all, kind)
  local kinds = {}
  for _, r in ipairs(all) do kinds[kind(r)] = true end
  local nk = 0
  for _ in pairs(kinds) do nk = nk + 1 end
  T.eq(#rows, SUB.on and nk or #all, "rows: one of each kind in the subset mode, else all")
  local n, cudnn_h100 = 0, 0
  for _, r in ipairs(rows) do
    local ok, s = pcall(V.setup, r)
    if ok and s then
      local set = V.settings(r, s)
      local text, w = V.note(notes, r, set)
      for k, v in pairs(w and w.uses or {}) do T.eq(set[k], v, r.id .. ": its note's " .. k) end
      if r.id:find("h100") and set.attention == "cudnn" then
        cudnn_h100 = cudnn_h100 + 1
        assert(not text:find("FlashAttention-2", 1, true), r.id .. ": " .. text)
      end
      n = n + 1
    end
  end
  -- the rows set up (the excluded ones are not): 150 of the 171; in the subset mode every
  -- kind's row but the excluded kinds'
  local nx = 0
  for _, r in ipairs(rows) do if V.excluded(r) then nx = nx + 1 end end
  if SUB.on then T.eq(n, #rows - nx, "subset rows checked") else assert(n >= 150, "rows checked: " .. n) end
  assert(cudnn_h100 > 0, "H100 rows on cuDNN's kernel checked")
  -- the selection itself: a note whose uses do not hold is passed over
  local fake = { { "x", "first", uses = { attention = "flash2" } }, { "x", "second" } }
  T.eq((V.note(fake, { id = "x" }, { attention = "cudnn" })), "second")
  T.eq((V.note(fake, { id = "x" }, { attention = "flash2" })), "first")
end)

-- V.nccl_allreduce: the vTrain node's nccl-tests rows, read once for the notebook's
-- calibration and bench_host_nccl.lua part (5) (review 13: two readers before). The file's
-- first data line: 2 GPUs, 1 MiB, 44,210 ns out of place (vTrain trace/a100/AR_GPU2_LUT);
-- 2/4/8 GPUs x 9 sizes = 27 rows. A line of another shape is refused, naming it.
T.test("V.nccl_allreduce: the vTrain node's nccl-tests rows, and a bad line named", function()
  local rows = V.nccl_allreduce(ROOT .. "/notebooks/data")
  T.eq(#rows, 27, "2/4/8 GPUs x 9 sizes")
  T.eq(rows[1].gpus, 2); T.eq(rows[1].bytes, 1048576); T.near(rows[1].time, 44210e-9, 1e-12, "seconds")
  T.eq(rows[27].gpus, 8)
  local dir = os.tmpname(); os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "/vtrain'"))
  local f = assert(io.open(dir .. "/vtrain/nccl_allreduce_a100.csv", "w"))
  f:write("gpus,bytes,time_out_of_place_ns,time_in_place_ns\n2,1048576,x,1\n"); f:close()
  T.checkerr("nccl_allreduce_a100.csv: line '2,1048576,x,1' is not", V.nccl_allreduce, dir)
  os.execute("rm -rf '" .. dir .. "'")
end)

-- Bad rows name the helper and the row (review 13): an unknown model builder was "attempt to
-- call a nil value", an unknown device its error without the row, no row at all an index error.
T.test("V.setup / V.predict / V.measured: a bad row is a clear error naming the row", function()
  local function with(k, v) return T.with(row("NeMo", { tp = 2 }), k, v) end
  T.checkerr("validation_rows.setup: row plain-NeMo: dlb.models.build: no model 'gptx'", V.setup,
    with("model", { builder = "gptx", opts = {} }))
  T.checkerr("validation_rows.setup: row plain-NeMo: unknown device 'H1000'", V.setup, with("hw", "H1000"))
  T.checkerr("validation_rows.setup: row nil: a row must be a table", V.setup, nil)
  T.checkerr("validation_rows.predict: s must be a row's set-up", V.predict, nil)
  local e = T.checkerr("validation_rows.profile_of: row plain-Caffe: no framework profile for its framework 'Caffe'",
    V.setup, row("Caffe", { tp = 2 }))
  assert(not e:find("validation_rows.lua:", 1, true), "no library line: " .. e)
  local r = row("NeMo", { tp = 2 })
  local s = assert(V.setup(r))
  T.checkerr("validation_rows.measured: row plain-NeMo: measured= must be a table", V.measured, with("measured", 5), s)
  local m, why = V.measured(with("measured", { hfu = 0.5 }), s)
  T.eq(m, nil, "no unit it converts: no throughput")
  assert(why:find("none of samples_per_s", 1, true), why)
  T.eq((V.measured(r, s)), 1, "samples/s as stated")
end)

T.done()
