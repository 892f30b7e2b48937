-- dlbench.measure — the measuring half of the workbench (docs/measure.md):
-- dlb.measure.host{...}: this machine's empirical roofline (OpenBLAS GEMM, STREAM-style
-- memory kernels per cache level, an elementwise kernel; one thread and all threads) as a
-- dlb.hw device; dlb.measure.ops(stats): every distinct GEMM and elementwise shape of a
-- training step timed on the host (DeepBench style) and the step time they add up to;
-- dlb.measure.figure(dev, rec): the cache-aware roofline in the Empirical Roofline
-- Toolkit's style; dlb.measure.cli(arg): `dlbench measure`.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local hw = require "dlbench.hw"

local M = {}

-- Kernel ids of dlb_measure_stream (graphs/hw/dlb_measure.h, enum DLB_MEASURE_*).
M.kernels = { copy = 0, triad = 1, relu = 2, add = 3 }


-- Physical memory from /proc/meminfo (bytes), or nil.
local function memtotal()
  local f = io.open("/proc/meminfo", "r")
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  local kb = text:match("MemTotal:%s*(%d+)%s*kB")
  return kb and tonumber(kb) * 1024 or nil
end

-- The working set per thread that exercises each level: half of a private cache, half of
-- a shared last level split among the threads, and four times the last level for memory.
local function level_sizes(caches, nlev, threads)
  local out = {}
  for l = 1, nlev do
    local c = caches[l]
    if c and c > 0 then
      local per = c / 2
      if l == nlev and l >= 3 then per = c / (2 * threads) end
      out[#out + 1] = { name = "L" .. l, size = c, bytes = per }
    end
  end
  local last = (#out > 0) and out[#out].size or 8 * 1024 * 1024
  out[#out + 1] = { name = "DRAM", bytes = math.max(4 * last, 64 * 1024 * 1024) / threads }
  return out
end

-- The 1, 5 and 15 minute load averages of /proc/loadavg, or nil: stored with a measured
-- device, so a reader can tell a quiet measurement from one taken beside other jobs.
local function loadavg()
  local f = io.open("/proc/loadavg", "r")
  if not f then return nil end
  local text = f:read("*l") or ""
  f:close()
  local a, b, c = text:match("^(%S+)%s+(%S+)%s+(%S+)")
  a, b, c = tonumber(a), tonumber(b), tonumber(c)
  if not (a and b and c) then return nil end
  return { a, b, c }
end

-- The fp32 SIMD lanes of this CPU from the flags of /proc/cpuinfo (AVX-512F: 16, AVX: 8,
-- SSE: 4; Intel 64 and IA-32 Architectures Optimization Reference Manual), or nil. It
-- switches on the CPU branch of the per-op rule (dlb_gemm_efficiency, graphs/hw/roofline.c).
local function simd_lanes()
  local f = io.open("/proc/cpuinfo", "r")
  if not f then return nil end
  local flags
  for line in f:lines() do
    flags = line:match("^flags%s*:%s*(.*)$")
    if flags then break end
  end
  f:close()
  if not flags then return nil end
  flags = " " .. flags .. " "
  if flags:find(" avx512f ", 1, true) then return 16, "avx512f" end
  if flags:find(" avx ", 1, true) then return 8, "avx" end
  if flags:find(" sse ", 1, true) then return 4, "sse" end
  return nil
end

local host_opts = { threads = true, seconds = true, name = true, reps = true, gemm = true,
  stat = true }

-- The settings of dlb.measure.host, checked (fn names the caller in messages; level: as
-- error's, counted from host_settings's caller; -1: no position): threads, seconds, reps,
-- stat, name, sizes, cores.
local function host_settings(opts, fn, level)
  opts = options.check(opts, host_opts, fn, level + 1)
  local cores = core.sys_cores()
  local threads = opts.threads or 0
  if type(threads) ~= "number" or threads ~= math.floor(threads) or threads < 0 or threads > 1024 then
    error(fn .. ": threads must be 0 (all " .. cores .. " processors) or a count 1..1024, got "
      .. tostring(threads), level + 1)
  end
  if threads == 0 then threads = cores end
  local seconds = opts.seconds or 3
  if type(seconds) ~= "number" or not (seconds >= 0.05 and seconds <= 600) then
    error(fn .. ": seconds must be a budget of 0.05 .. 600 s, got " .. tostring(seconds), level + 1)
  end
  local reps = opts.reps or 5
  if type(reps) ~= "number" or reps ~= math.floor(reps) or reps < 1 or reps > 101 then
    error(fn .. ": reps must be a whole number 1..101, got " .. tostring(reps), level + 1)
  end
  -- the ceilings: each measurement's median repetition, or its fastest ("min": the least
  -- disturbed on a shared machine, as dlb.measure.ops{stat = "min"}; the ERT reports maxima)
  local stat = opts.stat or "median"
  if stat ~= "median" and stat ~= "min" then
    error(fn .. ": stat must be \"median\" or \"min\", got " .. tostring(stat), level + 1)
  end
  local name = opts.name or "host"
  if type(name) ~= "string" or name == "" then error(fn .. ": name must be a non-empty string", level + 1) end
  local sizes = opts.gemm or { 64, 128, 256, 512, 1024 }
  if type(sizes) ~= "table" or #sizes == 0 then error(fn .. ": gemm must be a list of sides n (n x n x n)", level + 1) end
  for i, n in ipairs(sizes) do
    if type(n) ~= "number" or n ~= math.floor(n) or n < 1 or n > 8192 then
      error(fn .. ": gemm[" .. i .. "] must be a side 1..8192, got " .. tostring(n), level + 1)
    end
  end
  return threads, seconds, reps, stat, name, sizes, cores
end

-- Measure this host. Returns a device (name "host" unless given; peak fp32/fp64 = the best
-- measured GEMM rate on all threads, mem_bw = the all-thread triad from memory, levels =
-- the all-thread triad ceiling of each cache level, flops_eff = bw_eff = 1 since the
-- ceilings are measured, achievable rates) and the record {gemm = table, stream = table,
-- caches = {...}, threads =, seconds = elapsed}.
function M.host(opts)
  local threads, seconds, reps, stat, name, sizes, cores = host_settings(opts, "dlb.measure.host", 2)

  local t0 = core.sys_now()
  local load0 = loadavg()
  local caches, nlev = core.measure_caches()
  local tcounts = threads > 1 and { 1, threads } or { 1 }
  local levels = level_sizes(caches, nlev, threads)
  -- the budget, shared among the timed rounds (each ~ reps + 2 rounds of min_time)
  local nmeas = #sizes * #tcounts + 2 * #tcounts + 2 * #levels * #tcounts + #levels
  local min_time = seconds / (nmeas * (reps + 3))
  -- the budget self-corrects: each measurement gets its share of what is left (fixed costs
  -- such as one 1024^3 GEMM or allocating the DRAM arrays eat into it on a busy machine)
  local done = 0
  local function share()
    local left = seconds - (core.sys_now() - t0)
    local t = left / (math.max(nmeas - done, 1) * (reps + 3))
    done = done + 1
    return math.max(t, 1e-4)
  end

  local gemm = {}
  local function add_gemm(dp, n, th)
    local med, lo, hi = core.measure_gemm(dp, n, n, n, 1, th, reps, share())
    local flops = 2 * n * n * n  -- a multiply-accumulate is 2 FLOPs
    local elem = dp and 8 or 4
    gemm[#gemm + 1] = { precision = dp and "fp64" or "fp32", m = n, n = n, k = n, threads = th,
      flops = flops, bytes = elem * 3 * n * n, intensity = flops / (elem * 3 * n * n),
      time = med, time_min = lo, time_max = hi, rate = flops / med, rate_min = flops / hi,
      rate_max = flops / lo }
  end
  for _, th in ipairs(tcounts) do
    for _, n in ipairs(sizes) do add_gemm(false, n, th) end
    add_gemm(true, sizes[#sizes], th)
  end
  -- fp64 at the largest size counts once more at the second largest, for a spread of points
  for _, th in ipairs(tcounts) do add_gemm(true, sizes[math.max(1, #sizes - 1)], th) end

  local stream = {}
  local function add_stream(kname, lv, th)
    local med, lo, hi, moved = core.measure_stream(M.kernels[kname], lv.bytes, th, reps, share())
    stream[#stream + 1] = { kernel = kname, level = lv.name, bytes = lv.bytes, threads = th,
      moved = moved, time = med, bw = moved / med, bw_min = moved / hi, bw_max = moved / lo }
  end
  for _, lv in ipairs(levels) do
    for _, th in ipairs(tcounts) do
      add_stream("copy", lv, th)
      add_stream("triad", lv, th)
    end
    add_stream("relu", lv, threads)
  end

  local rate = stat == "min" and "rate_max" or "rate"
  local bwk = stat == "min" and "bw_max" or "bw"
  local function best(prec, th)
    local b
    for _, r in ipairs(gemm) do
      if r.precision == prec and r.threads == th and (b == nil or r[rate] > b[rate]) then b = r end
    end
    return b
  end
  local function triad(level, th)
    for _, r in ipairs(stream) do
      if r.kernel == "triad" and r.level == level and r.threads == th then return r end
    end
  end
  local f32, f64 = best("fp32", threads), best("fp64", threads)
  local spec_levels = {}
  for i, lv in ipairs(levels) do
    spec_levels[i] = { name = lv.name, size = lv.size, bw = triad(lv.name, threads)[bwk] }
  end
  local dram = triad("DRAM", threads)
  local when = os.date("!%Y-%m-%d %H:%M UTC")
  local how = string.format("measured by dlb.measure.host on %s, %d thread(s), %s of %d", when,
    threads, stat == "min" and "fastest" or "median", reps)
  local lanes, flag = simd_lanes()
  local spec = {
    name = name, kind = "cpu", peak = { fp32 = f32[rate], fp64 = f64[rate] },
    mem_bw = dram[bwk], mem = memtotal() or 1e9, flops_eff = 1, bw_eff = 1,
    levels = spec_levels, vector_width = lanes,
    note = string.format("this host, measured %s: %d thread(s), OpenBLAS GEMM and STREAM triad%s",
      when, threads, load0 and string.format("; load average %.2f %.2f %.2f at the start", load0[1],
        load0[2], load0[3]) or ""),
    source = {
      peak = string.format("%s: OpenBLAS sgemm/dgemm n=%d (best of sides %s)", how, f32.n,
        table.concat(sizes, ",")),
      mem_bw = string.format("%s: STREAM triad over %.3g MB per thread", how, dram.bytes / 1e6),
      levels = how .. ": STREAM triad, working set half of each cache (sysfs sizes)",
      mem = memtotal() and "MemTotal of /proc/meminfo" or "unknown: /proc/meminfo unreadable, 1 GB placeholder",
      flops_eff = "1: the ceilings are measured achievable rates",
      vector_width = lanes and ("/proc/cpuinfo flag " .. flag .. ": " .. lanes .. " fp32 lanes") or nil,
    },
  }
  local last = levels[#levels - 1]
  if last and last.size then
    spec.cache = last.size
    spec.source.cache = "sysfs: /sys/devices/system/cpu/cpu0/cache (last level)"
  end
  local dev = hw.device(spec, fn)
  local T = require "dlbench.table"
  local rec = {
    gemm = T.new(gemm, { "precision", "threads", "m", "n", "k", "flops", "bytes", "intensity",
      "time", "time_min", "time_max", "rate", "rate_min", "rate_max" }),
    stream = T.new(stream, { "kernel", "level", "threads", "bytes", "moved", "time", "bw",
      "bw_min", "bw_max" }),
    caches = caches, levels = nlev, threads = threads, reps = reps, min_time = min_time,
    seconds = core.sys_now() - t0, load = load0, load_end = loadavg(), date = when,
  }
  return dev, rec
end
doc.doc(M.host, "dlb.measure.host{threads=0, seconds=3, name=\"host\", reps=5, gemm={64,...,1024}, "
  .. "stat=\"median\"|\"min\"} -> device, record",
  "measure this machine: OpenBLAS SGEMM/DGEMM, STREAM copy/triad per cache level (L1..DRAM) and "
  .. "an elementwise kernel, on 1 and all threads, median of reps; returns a dlb.hw device with "
  .. "the measured ceilings (peak, mem_bw, levels) and the record of every measurement")

-- == per-op measurement of a training step ===========================================

local ops_opts = { threads = true, reps = true, min_time = true, bind = true, max_shapes = true,
  stat = true }

-- Time every distinct GEMM and elementwise shape of a training step on this host,
-- DeepBench style: a matmul-like op (matmul, batched matmul, and a convolution as its
-- im2col GEMM: the implicit-GEMM shape of graphs/step/analysis.c) runs as OpenBLAS GEMM of its
-- (m, n, k, batch) in the step's precision (fp64 -> dgemm, anything else sgemm); any other
-- op with bytes runs as the elementwise add kernel over the op's algorithmic bytes
-- (3 fp32 arrays; split among the threads). Ops with no bytes and no FLOPs take 0.
-- `s` is stats of a graph (g:stats{...}) or a graph with opts.bind = {dims}. Returns the
-- table of distinct shapes {key, class, m, n, k, batch, flops, bytes, count, time (s per
-- op), total, rate} and {step_time = sum over the step's ops, points = roofline points,
-- shapes =, ops =}: the lecture's (seed 002) profile-based estimate, from this host's kernels.
function M.ops(s, opts)
  local fn = "dlb.measure.ops"
  opts = options.check(opts, ops_opts, fn, 2)
  if type(s) == "table" and type(s.stats) == "function" then
    s = s:stats(opts.bind or {})
  end
  if type(s) ~= "table" or rawget(s, "analysis") == nil then
    error(fn .. ": expected the stats of a graph with every dim bound (g:stats{...}), or a graph "
      .. "with bind = {dims}", 2)
  end
  local threads = opts.threads or 0
  if type(threads) ~= "number" or threads ~= math.floor(threads) or threads < 0 or threads > 1024 then
    error(fn .. ": threads must be 0 (all) or 1..1024, got " .. tostring(threads), 2)
  end
  local nt = threads == 0 and core.sys_cores() or threads
  local reps = opts.reps or 3
  local min_time = opts.min_time or 0.002
  local max_shapes = opts.max_shapes or 500
  -- which of the repetitions stands for a shape: the median, or the fastest ("min": on a
  -- shared machine another job only ever adds time, so the fastest repetition is the one
  -- least disturbed; the ERT and DeepBench report best times for the same reason)
  local stat = opts.stat or "median"
  if stat ~= "median" and stat ~= "min" then
    error(fn .. ": stat must be \"median\" or \"min\", got " .. tostring(stat), 2)
  end
  if type(reps) ~= "number" or reps ~= math.floor(reps) or reps < 1 or reps > 101 then
    error(fn .. ": reps must be a whole number 1..101, got " .. tostring(reps), 2)
  end
  local dp = s.precision == "fp64"
  local trace = require "dlbench.trace"
  local a = s.analysis
  local F, B, _, _, K = core.analysis_arrays(a)
  local shapes, order, opkey = {}, {}, {}
  for i = 1, #F do
    local tname = core.graph_op_type_name(K[i])
    local m, n, k, b = core.analysis_gemm(a, i - 1)
    local key, sh
    -- a matmul without FLOPs or bytes runs inside another (the fused QKV's k and v: the
    -- first GEMM's shape holds the three widths, graphs/step/analysis.c op_gemm): no kernel
    if m and (F[i] > 0 or B[i] > 0) then
      key = string.format("gemm %dx%dx%d x%d", m, n, k, b or 1)
      sh = { kind = "gemm", class = trace.op_class(tname), m = m, n = n, k = k, batch = b or 1 }
    elseif B[i] > 0 then
      key = string.format("elementwise %.17g B", B[i])
      sh = { kind = "elementwise", class = trace.op_class(tname), bytes = B[i] }
    else
      key = "none"
      sh = { kind = "none", class = trace.op_class(tname) }
    end
    local e = shapes[key]
    if not e then
      if #order >= max_shapes then
        error(string.format("%s: more than %d distinct op shapes (raise max_shapes)", fn, max_shapes), 2)
      end
      e = sh
      e.key, e.count, e.flops, e.bytes = key, 0, F[i], B[i]
      shapes[key] = e
      order[#order + 1] = e
    end
    e.count = e.count + 1
    opkey[i] = key
  end
  local skipped = {}
  for _, e in ipairs(order) do
    local ok, t, lo = true, 0, 0
    if e.kind == "gemm" then
      ok, t, lo = pcall(core.measure_gemm, dp, e.m, e.n, e.k, e.batch, nt, reps, min_time)
    elseif e.kind == "elementwise" then
      ok, t, lo = pcall(core.measure_stream, M.kernels.add, math.max(64, e.bytes / nt), nt, reps, min_time)
    end
    if ok and stat == "min" then t = lo end
    if ok then
      e.time = t
      e.total = t * e.count
      e.rate = t > 0 and e.flops / t or 0
    else
      skipped[#skipped + 1] = e.key .. ": " .. tostring(t)
    end
  end
  local step, pts = 0, {}
  for i = 1, #F do
    local e = shapes[opkey[i]]
    if e.time then step = step + e.time end
  end
  for _, e in ipairs(order) do
    if e.time and e.time > 0 and e.flops > 0 and e.bytes > 0 then
      pts[#pts + 1] = { intensity = e.flops / e.bytes, flops = e.flops / e.time,
        group = "measured " .. e.kind }
    end
  end
  table.sort(order, function(x, y) return (x.total or 0) > (y.total or 0) end)
  local T = require "dlbench.table"
  local t = T.new(order, { "key", "kind", "class", "m", "n", "k", "batch", "flops", "bytes",
    "count", "time", "total", "rate" })
  return t, { step_time = step, points = pts, shapes = #order, ops = #F, threads = nt,
    complete = #skipped == 0, skipped = skipped }
end
doc.doc(M.ops, "dlb.measure.ops(stats | graph[, {bind=, threads=0, reps=3, min_time=0.002, max_shapes=500, "
  .. "stat=\"median\"|\"min\"}]) "
  .. "-> table, {step_time=, points=, complete=, skipped=}",
  "time each distinct GEMM shape (OpenBLAS; a conv as its im2col GEMM) and elementwise size "
  .. "(the add kernel over the op's bytes) of a training step on this host; step_time sums "
  .. "them over the step's ops (profile-based estimation, seed 002)")

-- == the figure ====================================================================

-- The cache-aware empirical roofline of a measured device, in the style of the Empirical
-- Roofline Toolkit: one bandwidth ceiling per level (all threads, STREAM triad), the
-- measured GEMM rate as the compute ceiling, and the measured GEMM points (intensity =
-- 2n^3 FLOPs over the 3n^2 elements of A, B and C). extra = more points
-- {{intensity=, flops=, group=}, ...} (dlb.measure.ops, dlb.trace.compare). Returns the figure.
function M.figure(dev, rec, extra, opts)
  opts = options.check(opts, { title = true, width = true, height = true }, "dlb.measure.figure", 2)
  if type(dev) ~= "table" or dev.peak == nil then error("dlb.measure.figure: expected a measured device", 2) end
  local plot = require "dlbench.plot"
  local f = plot.figure { width = opts.width or 4.5, height = opts.height or 3.2,
    title = opts.title or ("Empirical roofline: " .. dev.name) }
  local roofs = {}
  local lv = dev:level_list()
  if #lv == 0 then lv = { { name = "memory", bw = dev.mem_bw } } end
  for i, l in ipairs(lv) do
    roofs[i] = { name = string.format("%s %.3g GB/s", l.name, l.bw / 1e9),
      peak = { fp32 = dev.peak.fp32 }, mem_bw = l.bw }
  end
  local pts = {}
  if rec and rec.gemm then
    for i = 1, rec.gemm:count() do
      local r = rec.gemm:row(i)
      pts[#pts + 1] = { intensity = r.intensity, flops = r.rate,
        group = string.format("%s GEMM, %d thr", r.precision, r.threads) }
    end
  end
  for _, p in ipairs(extra or {}) do pts[#pts + 1] = p end
  f:roofline { hw = roofs, points = pts }
  return f
end
doc.doc(M.figure, "dlb.measure.figure(dev, record[, points[, {title=, width=, height=}]]) -> figure",
  "the cache-aware empirical roofline (ERT style): a ceiling per measured level, the GEMM "
  .. "points of dlb.measure.host's record, and any extra points")

-- == the command line ================================================================

local USAGE = [[usage: dlbench measure [--threads N] [--seconds S] [--name NAME] [--reps R]
                       [--stat median|min] [--csv FILE] [--figure FILE]
Measure this host (OpenBLAS GEMM, STREAM copy/triad per cache level, an elementwise kernel),
print the device, and write it as a catalogue file (default out/host.csv, read back with
dlb.hw.load) and its empirical roofline (default out/host_roofline.png).]]

-- The options of `dlbench measure` (the shared parser, dlbench.cli_plan.parse).
local cli_spec = { threads = "value", seconds = "value", reps = "value", name = "value",
  stat = "value", csv = "value", figure = "value" }

-- Make path's folder (mkdir -p) and check it is a folder this process may write, before
-- the measurement spends its seconds: raises "dlbench measure: --FLAG PATH: why".
local function check_destination(flag, path)
  local sh = require("dlbench.errors").shell -- the exit status alike on both backends
  local q = require("dlbench.errors").shell_quote
  if path == "" then error("dlbench measure: --" .. flag .. " needs a file name", 0) end
  local dir = path:match("^(.*)/[^/]*$")
  if dir == nil then dir = "." elseif dir == "" then dir = "/" end
  if path:sub(-1) == "/" then
    error(string.format("dlbench measure: --%s %s names a folder, not a file", flag, path), 0)
  end
  sh("mkdir -p " .. q(dir) .. " 2>/dev/null")
  if not sh("test -d " .. q(dir)) then
    error(string.format("dlbench measure: --%s %s: cannot create the folder %s", flag, path, dir), 0)
  end
  if not sh("test -w " .. q(dir) .. " -a -x " .. q(dir)) then
    error(string.format("dlbench measure: --%s %s: the folder %s is not writable", flag, path, dir), 0)
  end
  if sh("test -d " .. q(path)) then
    error(string.format("dlbench measure: --%s %s is a folder, not a file", flag, path), 0)
  end
  if sh("test -e " .. q(path) .. " -a ! -w " .. q(path)) then
    error(string.format("dlbench measure: --%s %s exists and is not writable", flag, path), 0)
  end
  -- a file written for real beside it (review 20: `test -w` answers for the permission bits,
  -- which root passes where no file can be made, /proc/x.csv; and a figure's extension was
  -- refused by its save, after the seconds of measuring): the catalogue file by opening a
  -- probe of its folder, the figure by saving an empty figure as a probe of the same
  -- extension (the one rule of plots/render.c), both removed
  local probe = string.format("%s/dlbench-measure-probe-%s-%d", dir, flag, os.time())
  local why
  if flag == "figure" then
    probe = probe .. (path:match("(%.[^./]*)$") or "")
    local f = require("dlbench.plot").figure {}
    local okc, ok, err = pcall(f.save, f, probe)
    if not okc then why = require("dlbench.errors").strip(tostring(ok))
    elseif not ok then why = tostring(err) end
  else
    local ok, err = core.file_write(probe, "") -- the one writer (graphs/base/file.c)
    if not ok then why = tostring(err) end
  end
  os.remove(probe)
  if why then
    -- the probe's name in the message is the destination's
    local at = why:find(probe, 1, true)
    while at do
      why = why:sub(1, at - 1) .. path .. why:sub(at + #probe)
      at = why:find(probe, at + #path, true)
    end
    error(string.format("dlbench measure: --%s %s cannot be written: %s", flag, path, why), 0)
  end
end

-- The options of `dlbench measure ...` (arg: the argument list), checked: o (the files) and
-- opts (for M.host), or nil after --help. Every error here is a usage error.
local function cli_options(arg)
  local pos, given = require("dlbench.cli_plan").parse("measure", arg, cli_spec, USAGE, true)
  if pos == nil then return nil end
  if pos[1] ~= nil then
    error("dlbench measure: unexpected argument '" .. tostring(pos[1]) .. "'\n" .. USAGE, 0)
  end
  local o = { csv = given.csv or "out/host.csv", figure = given.figure or "out/host_roofline.png" }
  local opts = { name = given.name, stat = given.stat }
  for _, k in ipairs { "threads", "seconds", "reps" } do
    local v = given[k]
    if v ~= nil then
      opts[k] = tonumber(v)
      if opts[k] == nil then error("dlbench measure: --" .. k .. " needs a number, got '" .. v .. "'", 0) end
    end
  end
  host_settings(opts, "dlbench measure", -1) -- -1: messages without a position
  return o, opts
end

-- `dlbench measure ...`: arg is the argument list. Returns the device (nil after --help).
-- Bad options and destinations that cannot be written are errors before anything is
-- measured. usage_exit (the host's `dlbench measure`, dlbench.cli_plan.measure) is called
-- with the message of a usage error (a bad option or value) instead of raising it, so the
-- command exits 2 for those and 1 for the others, as `plan` and `info` do (docs/cli.md).
function M.cli(arg, usage_exit)
  local okc, o, opts = pcall(cli_options, arg or {})
  if not okc then
    if usage_exit then usage_exit(o) end
    error(o, 0)
  end
  if o == nil then print(USAGE) return nil end
  check_destination("csv", o.csv)
  check_destination("figure", o.figure)
  local dev, rec = M.host(opts)
  print(dev:describe())
  print(string.format("measured in %.2f s; GEMM and memory kernels:", rec.seconds))
  print(rec.gemm:select("precision", "threads", "n", "time", "rate", "rate_min", "rate_max"))
  print(rec.stream:select("kernel", "level", "threads", "bytes", "bw", "bw_min", "bw_max"))
  local ok, err = hw.save_csv(o.csv, { dev })
  if not ok then error("dlbench measure: " .. tostring(err), 0) end
  print("catalogue file: " .. o.csv .. " (dlb.hw.load(\"" .. o.csv .. "\"))")
  local f = M.figure(dev, rec)
  -- save raises for a name it cannot take (--figure x.jpg): one line, without the library's
  -- position (the catalogue file above is written already)
  local sok, fok, ferr = pcall(f.save, f, o.figure)
  if not sok then fok, ferr = nil, require("dlbench.errors").strip(fok) end
  if not fok then error("dlbench measure: " .. tostring(ferr), 0) end
  print("figure: " .. o.figure)
  return dev
end
doc.doc(M.cli, "dlb.measure.cli(args) -> device", "`dlbench measure [--threads N] [--seconds S] "
  .. "[--name NAME] [--reps R] [--stat median|min] [--csv FILE] [--figure FILE]`: measure, print, save")

doc.doc(M, "dlb.measure", "measure this host: host (empirical roofline as a device), ops "
  .. "(time a step's GEMM and elementwise shapes), figure, cli (docs/measure.md)")
return M
