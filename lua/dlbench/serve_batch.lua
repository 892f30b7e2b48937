-- dlbench.serve_batch — the request-stream side of dlb.serve: continuous batching (a
-- steady-state model of a request stream), chunked prefill, the request rate at a latency
-- target, speculative decoding, the throughput-latency sweep and the validation helpers
-- (predict a published row, calibrate on fit rows). Installed into dlb.serve by serve.lua;
-- see docs/serve.md.
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local B = {}

function B.install(M, H)
  local step, pipelined, decode_sum = H.step, H.pipelined, H.decode_sum
  local posint, length, posnum, fail = H.posint, H.length, H.posnum, H.fail

  -- A length distribution: a number, or a list of samples (the requests' lengths).
  -- (errors at the user's line: callers sit at different depths, and level 3 named a line
  -- of this file)
  local function lengths(fn, what, v)
    local raise = require("dlbench.errors").raise
    if type(v) == "number" then
      local ok, e = pcall(length, fn, what, v, 1)
      if not ok then raise(require("dlbench.errors").strip(e)) end
      return { v }, v
    end
    if type(v) ~= "table" or #v == 0 then
      raise(fn .. ": " .. what .. " must be a length or a non-empty list of lengths, got "
        .. (type(v) == "table" and "a table without a list of lengths" or (type(v) .. " " .. tostring(v))))
    end
    local sum = 0
    for i, x in ipairs(v) do
      local ok, e = pcall(length, fn, what .. "[" .. i .. "]", x, 1)
      if not ok then raise(require("dlbench.errors").strip(e)) end
      sum = sum + x
    end
    return v, sum / #v
  end

  -- numpy's linear percentile: the one rule, graphs/stats/stats.c
  local core = require "dlbench.backend"
  local function percentile(xs, p) return core.stats_percentiles(xs, { p })[1] end

  local CONT = { rate = true, prompt = true, output = true, max_batch = true, chunk = true,
    percentiles = true }
  for k in pairs(H.CFG) do CONT[k] = true end

  -- The steady state of a request stream at `rate` requests/s (s: spec, c: config).
  -- Decode runs as one batch of the N sequences in flight (Little's law: N = rate x
  -- output x TPOT); prefills either run as their own iterations, stalling decode for a
  -- fraction rho = rate x prefill time (no chunking, as vLLM's default scheduler), or ride
  -- in each iteration as chunks (chunk = prefill tokens per iteration at most): an
  -- iteration then carries N decode tokens and rate x prompt x t prefill tokens.
  local function steady(s, c, rate, P, O, chunk, nmax, t0, tpre)
    local ctx = math.max(1, math.floor(P + O / 2))
    tpre = tpre or pipelined(s, c, 1, math.max(1, math.floor(P + 0.5)), 0).time
    -- a decode iteration of N sequences (through the pipeline when pp > 1)
    local function dec(N) return (c.pp > 1 and pipelined(s, c, N, 1, ctx) or step(s, c, N, 1, ctx)).time end
    local t = t0 or dec(1)  -- t0: a warm start (the previous rate's iteration time)
    local N, rho = 1, 0
    -- the fixed point t = f(t), f the iteration time of the load t implies: secant steps on
    -- f(t) - t, a damped step (the mean of t and f(t)) where the secant has no slope or
    -- leaves [min(t, f(t)) / 2, 2 max(t, f(t))]; converged when |f(t) - t| <= 1e-7 t
    local tp, gp
    for _ = 1, 200 do
      N = math.max(1, rate * O * t)
      if N > nmax then return nil end
      local tn
      if chunk then
        local x = rate * P * t  -- prefill tokens per iteration
        local pieces = math.max(1, math.ceil(x / chunk))
        local mix = x > 0 and { { pieces, x / pieces, P / 2 } } or nil
        tn = step(s, c, N, 1, ctx, { mix = mix }).time
        rho = 0
      else
        rho = rate * tpre
        if rho >= 1 then return nil end
        tn = dec(N) / (1 - rho)
      end
      if not (tn < 1e6) then return nil end
      if math.abs(tn - t) <= 1e-7 * t then t = tn break end
      local g, nt = tn - t, nil
      if gp and g ~= gp then
        nt = t - g * (t - tp) / (g - gp)
        if not (nt >= 0.5 * math.min(t, tn) and nt <= 2 * math.max(t, tn)) then nt = nil end
      end
      tp, gp = t, g
      t = nt or 0.5 * (t + tn)
    end
    N = math.max(1, rate * O * t)
    if N > nmax then return nil end
    return { tpot = t, batch = N, rho = rho, tprefill = tpre, ctx = ctx }
  end

  local function stream_setup(model, opts, fn)
    opts = options.check(opts, CONT, fn, 3, true)
    local cfg = {}
    for k, v in pairs(opts) do if H.CFG[k] then cfg[k] = v end end
    local s = M.model(model)
    local c = M.config(cfg, fn, s)
    local Ps, P = lengths(fn, "prompt", opts.prompt or 512)
    local Os, O = lengths(fn, "output", opts.output or 128)
    if #Ps > 1 and #Os > 1 and #Ps ~= #Os then
      fail(fn, "prompt and output lists must pair up (same length), got " .. #Ps .. " and " .. #Os, 3)
    end
    local chunk = opts.chunk and posint(fn, "chunk", opts.chunk, 3) or nil
    if chunk and c.pp > 1 then
      fail(fn, "chunk (chunked prefill) with pp > 1 is not modelled; use tp, or leave chunk out", 3)
    end
    H.sequence(fn, P, O, 3)
    local ccfg = { context = math.max(1, math.floor(P + O)) }
    for k, v in pairs(cfg) do ccfg[k] = v end
    local cap = M.capacity(s, ccfg)
    local nmax = math.min(opts.max_batch and posint(fn, "max_batch", opts.max_batch, 3) or 256, cap.batch)
    return s, c, Ps, Os, P, O, chunk, nmax, opts
  end

  -- The largest rate with a steady state (bisection; the stream saturates above it).
  local function max_rate(s, c, P, O, chunk, nmax)
    if nmax < 1 then return 0 end
    local lo, hi = 0, 1
    while steady(s, c, hi, P, O, chunk, nmax) and hi < 1e7 do lo, hi = hi, hi * 2 end
    for _ = 1, 30 do  -- to 1e-9 of the bracket
      local mid = 0.5 * (lo + hi)
      if steady(s, c, mid, P, O, chunk, nmax) then lo = mid else hi = mid end
    end
    return lo
  end

  local function latencies(st, Ps, Os, chunk, pcts)
    local n = math.max(#Ps, #Os)
    local ttft, e2e = {}, {}
    local t = st.tpot
    -- prefill queueing (no chunking): M/D/1 mean wait rho / (2 (1 - rho)) x service
    local wq = (not chunk and st.rho > 0) and st.rho / (2 * (1 - st.rho)) * st.tprefill or 0
    for i = 1, n do
      local p = Ps[#Ps > 1 and i or 1]
      local o = Os[#Os > 1 and i or 1]
      local f
      if chunk then
        f = t / 2 + math.ceil(p / chunk) * t
      else
        f = t / 2 + wq + st.tprefill * p / math.max(1, st.P)
      end
      ttft[i] = f
      e2e[i] = f + (o - 1) * t
    end
    local r = { ttft = {}, e2e = {} }
    for _, q in ipairs(pcts) do
      -- the queueing wait's tail: exponential with the mean wait (an approximation)
      local extra = wq > 0 and wq * (-math.log(1 - q / 100) - 1) or 0
      r.ttft[q] = percentile(ttft, q) + math.max(0, extra)
      r.e2e[q] = percentile(e2e, q) + math.max(0, extra)
    end
    return r
  end

  -- dlb.serve.continuous(model, {hw=, rate=, prompt=, output=, max_batch=256, chunk=,
  -- percentiles={50, 90, 99}, ...}) -> result
  function M.continuous(model, opts)
    local fn = "dlb.serve.continuous"
    local s, c, Ps, Os, P, O, chunk, nmax, o = stream_setup(model, opts, fn)
    if o.rate == nil then fail(fn, "rate (requests/s) is required") end
    local rate = posnum(fn, "rate", o.rate)
    local pcts = o.percentiles or { 50, 90, 99 }
    -- each a number in [0, 100] (the rule of dlb.stats.percentiles, in C), named as the
    -- option: {"50"} was read as 50 and keyed "50", {150} extrapolated past the largest
    if type(pcts) ~= "table" or #pcts == 0 then
      fail(fn, "percentiles must be a non-empty list of numbers in [0, 100], got "
        .. (type(pcts) == "table" and "an empty table" or (type(pcts) .. " " .. tostring(pcts))))
    end
    local okp, ep = pcall(require("dlbench.stats").percentiles, { 0 }, pcts)
    if not okp then
      fail(fn, (require("dlbench.errors").strip(tostring(ep)):gsub("^dlb%.stats%.percentiles: p", "percentiles")))
    end
    local rmax = max_rate(s, c, P, O, chunk, nmax)
    local r = { rate = rate, max_rate = rmax, prompt = P, output = O, chunk = chunk,
      max_batch = nmax, model = s.name, device = c.dev.name, gpus = c.tp * c.pp }
    local st = rate <= rmax and steady(s, c, rate, P, O, chunk, nmax) or nil
    if not st then
      r.saturated = true
      r.tokens_per_s = rmax * O
      r.tokens_per_s_gpu = r.tokens_per_s / r.gpus
      r.requests_per_s = rmax
      local at = rmax > 0 and steady(s, c, rmax * 0.999, P, O, chunk, nmax)
      r.tpot = at and at.tpot or math.huge
      r.ttft = { }
      r.e2e = { }
      for _, q in ipairs(pcts) do r.ttft[q], r.e2e[q] = math.huge, math.huge end
      return r
    end
    st.P = P
    r.saturated = false
    r.tpot, r.batch, r.prefill_share = st.tpot, st.batch, st.rho
    r.requests_per_s = rate
    r.tokens_per_s = rate * O
    r.tokens_per_s_gpu = r.tokens_per_s / r.gpus
    local lat = latencies(st, Ps, Os, chunk, pcts)
    r.ttft, r.e2e = lat.ttft, lat.e2e
    local d = step(s, c, math.max(1, st.batch), 1, st.ctx)
    -- serve.lua's energy rule (power x time / tokens; nil without a power figure)
    local e = M._energy(c, d.flops, d.bytes, st.tpot, math.max(1, st.batch))
    r.energy_per_token = e and e.per_token
    return r
  end
  doc.doc(M.continuous, "dlb.serve.continuous(model, {hw=, rate=, prompt=512 | {lengths}, output=128 | {lengths}, max_batch=256, chunk=, percentiles={50,90,99}, ...}) -> result",
    "continuous batching in steady state: tpot, batch in flight, ttft[p], e2e[p] (s), tokens_per_s, max_rate, saturated")

  -- dlb.serve.max_rate(model, {hw=, prompt=, output=, target={ttft=, tpot=, e2e=},
  -- percentile=90, ...}) -> requests/s: the largest rate meeting every target.
  function M.max_rate(model, opts)
    local fn = "dlb.serve.max_rate"
    opts = opts or {}
    local target, pct = opts.target, opts.percentile or 90
    -- percentile: a number in [0, 100] (dlb.stats.percentiles' rule, in C) that applies to
    -- a target (NaN reached the core as "percentile: p must be ...", without this function's
    -- name; without target= it was dropped without a word)
    if opts.percentile ~= nil then
      if target == nil then fail(fn, "percentile= applies to target=") end
      local okp, ep = pcall(require("dlbench.stats").percentiles, { 0 }, { pct })
      if type(pct) ~= "number" or not okp then
        fail(fn, "percentile must be a number in [0, 100], got " .. (type(pct) == "number"
          and (pct ~= pct and "nan" or tostring(pct)) or type(pct)))
      end
    end
    local rest = {}
    for k, v in pairs(opts) do if k ~= "target" and k ~= "percentile" then rest[k] = v end end
    local s, c, Ps, Os, P, O, chunk, nmax = stream_setup(model, rest, fn)
    local rmax = max_rate(s, c, P, O, chunk, nmax)
    if target == nil then return rmax end
    if type(target) ~= "table" then fail(fn, "target must be a table {ttft=, tpot=, e2e=} (seconds)") end
    for _, k in ipairs(options.keys(target)) do -- sorted: the first refused key is named
      local v = target[k]
      if k ~= "ttft" and k ~= "tpot" and k ~= "e2e" then
        fail(fn, "unknown target '" .. tostring(k) .. "' (accepted: e2e, tpot, ttft)")
      end
      posnum(fn, "target." .. k, v)
    end
    local function ok(rate)
      local st = steady(s, c, rate, P, O, chunk, nmax)
      if not st then return false end
      st.P = P
      local lat = latencies(st, Ps, Os, chunk, { pct })
      if target.tpot and st.tpot > target.tpot then return false end
      if target.ttft and lat.ttft[pct] > target.ttft then return false end
      if target.e2e and lat.e2e[pct] > target.e2e then return false end
      return true
    end
    if not ok(rmax * 1e-6) then return 0 end
    local lo, hi = rmax * 1e-6, rmax
    if ok(hi) then return hi end
    for _ = 1, 40 do
      local mid = 0.5 * (lo + hi)
      if ok(mid) then lo = mid else hi = mid end
    end
    return lo
  end
  doc.doc(M.max_rate, "dlb.serve.max_rate(model, {hw=, prompt=, output=, target={ttft=, tpot=, e2e=}, percentile=90, chunk=, max_batch=, ...}) -> requests/s",
    "the largest request rate of a replica whose latencies meet the targets (continuous batching)")

  -- dlb.serve.closed_loop(model, {hw=, concurrency=, prompt=, output=, ...}) -> result: a
  -- closed-loop load (benchmark clients that each send the next request when the last one
  -- finishes, as genai-perf/AIPerf's --concurrency): the rate is the concurrency over the
  -- mean end-to-end latency, solved as a fixed point with the steady state at that rate.
  -- itl (= tpot), ttft (mean, s), e2e (mean, s), tokens_per_s (output tokens), rate.
  local CL = { concurrency = true }
  for k in pairs(CONT) do if k ~= "rate" then CL[k] = true end end
  -- memo, mkey (dlb.serve.predict): the largest sustainable rate kept in memo[mkey], a key
  -- that names the model, load and configuration without the concurrency (max_rate does not
  -- depend on it: the rows of one table share it across their concurrency levels)
  local function closed_loop(model, opts, memo, mkey)
    local fn = "dlb.serve.closed_loop"
    opts = options.check(opts, CL, fn, 2, true)
    if opts.concurrency == nil then fail(fn, "concurrency (clients in flight) is required") end
    local conc = posint(fn, "concurrency", opts.concurrency)
    local rest = {}
    for k, v in pairs(opts) do if k ~= "concurrency" then rest[k] = v end end
    local s, c, Ps, Os, P, O, chunk, nmax = stream_setup(model, rest, fn)
    local tpre = pipelined(s, c, 1, math.max(1, math.floor(P + 0.5)), 0).time
    local warm
    local function mean_lat(rate)
      local st = steady(s, c, rate, P, O, chunk, nmax, warm, tpre)
      if not st then return nil end
      warm = st.tpot
      local wq = (not chunk and st.rho > 0) and st.rho / (2 * (1 - st.rho)) * st.tprefill or 0
      local ttft = chunk and (st.tpot / 2 + math.ceil(P / chunk) * st.tpot) or (st.tpot / 2 + wq + st.tprefill)
      return ttft, ttft + (O - 1) * st.tpot, st
    end
    local r = { concurrency = conc, prompt = P, output = O, model = s.name,
      device = c.dev.name, gpus = c.tp * c.pp }
    -- rate = conc / e2e(rate): e2e grows with the rate, so the map rate -> conc / e2e(rate)
    -- falls and its fixed point is unique; damped iteration from the one-client rate
    local t1 = step(s, c, 1, 1, math.max(1, math.floor(P + O / 2))).time
    local rate = conc / (tpre + (O - 1) * t1)
    local saturated = false
    for _ = 1, 100 do
      local _, e2e = mean_lat(rate)
      if not e2e then saturated = true break end
      local new = conc / e2e
      if math.abs(new - rate) <= 1e-7 * rate then rate = new break end
      rate = 0.5 * (rate + new)
    end
    if saturated then
      -- past the largest sustainable rate: is the fixed point beyond it?
      local rmax = memo and memo[mkey]
      if not rmax then
        rmax = max_rate(s, c, P, O, chunk, nmax)
        if memo then memo[mkey] = rmax end
      end
      r.max_rate = rmax
      warm = nil
      local _, e2e = mean_lat(rmax * 0.999999)
      if e2e and conc / e2e < rmax then
        local lo, hi = 0, rmax
        for _ = 1, 40 do
          local mid = 0.5 * (lo + hi)
          local _, e = mean_lat(mid)
          if e and conc / e > mid then lo = mid else hi = mid end
        end
        rate, saturated = lo, false
      else
        rate = rmax
      end
    end
    r.saturated = saturated
    r.rate = rate
    warm = nil
    local ttft, e2e, st = mean_lat(math.max(r.rate * (saturated and 0.999999 or 1), 1e-12))
    r.ttft, r.e2e = ttft, e2e
    r.itl = st and st.tpot
    if r.saturated and st then
      -- the extra clients wait in the queue: Little's law for the closed loop gives the
      -- mean end-to-end time, concurrency / rate; the wait lands on the first token
      r.e2e = conc / r.rate
      r.ttft = r.e2e - (O - 1) * st.tpot
    end
    r.tpot = r.itl
    r.batch = st and st.batch
    r.tokens_per_s = r.rate * O
    r.tokens_per_s_gpu = r.tokens_per_s / r.gpus
    return r
  end
  function M.closed_loop(model, opts) return closed_loop(model, opts) end  -- a tail call: error levels as before
  doc.doc(M.closed_loop, "dlb.serve.closed_loop(model, {hw=, concurrency=, prompt=, output=, chunk=, max_batch=, ...}) -> {rate=, itl=, ttft=, e2e=, tokens_per_s=, saturated=}",
    "a closed-loop load of `concurrency` clients (genai-perf/AIPerf --concurrency): continuous batching at the rate the clients sustain; means in seconds")

  -- dlb.serve.speculative(model, {hw=, draft=, k=4, accept=0.7, batch=1, context=1024})
  -- -> result. Each step the draft proposes k tokens one by one and the target verifies
  -- them in one pass of k + 1 tokens; with acceptance rate a the step yields
  -- (1 - a^(k+1)) / (1 - a) tokens on average (Leviathan et al. 2023, eq. 1).
  local SPEC = { draft = true, k = true, accept = true, batch = true, context = true }
  for k in pairs(H.CFG) do SPEC[k] = true end
  function M.speculative(model, opts)
    local fn = "dlb.serve.speculative"
    opts = options.check(opts, SPEC, fn, 2, true)
    local cfg = {}
    for k, v in pairs(opts) do if H.CFG[k] and k ~= "draft" then cfg[k] = v end end
    local s = M.model(model)
    local c = M.config(cfg, fn, s)
    if opts.draft == nil then fail(fn, "draft (a model: graph, config or fields) is required") end
    -- the draft's errors named as this function's, at the caller's line (not this file's)
    local okd, ds = pcall(M.model, opts.draft)
    if not okd then fail(fn, "draft: " .. require("dlbench.errors").strip(ds), 2) end
    local dcfg = {}
    for k, v in pairs(cfg) do dcfg[k] = v end
    dcfg.tp, dcfg.pp = 1, 1
    local dc = M.config(dcfg, fn, ds)
    local k = opts.k and posint(fn, "k", opts.k) or 4
    local a = opts.accept or 0.7
    if type(a) ~= "number" or a < 0 or a > 1 or a ~= a then
      fail(fn, "accept must be in [0, 1], got " .. tostring(a))
    end
    local Bn = opts.batch and posint(fn, "batch", opts.batch) or 1
    local C = opts.context and length(fn, "context", opts.context) or 1024
    local tdraft = 0
    for i = 0, k - 1 do tdraft = tdraft + step(ds, dc, Bn, 1, C + i).time end
    local tverify = pipelined(s, c, Bn, k + 1, C).time
    local expected = a < 1 and (1 - a ^ (k + 1)) / (1 - a) or (k + 1)
    local plain = pipelined(s, c, Bn, 1, C).time
    local r = { k = k, accept = a, tokens_per_step = expected, draft_time = tdraft,
      verify_time = tverify, step_time = tdraft + tverify, plain_tpot = plain }
    r.tpot = r.step_time / expected
    r.speedup = plain / r.tpot
    r.tokens_per_s = Bn / r.tpot
    return r
  end
  doc.doc(M.speculative, "dlb.serve.speculative(model, {hw=, draft=, k=4, accept=0.7, batch=1, context=1024, ...}) -> {tpot=, speedup=, tokens_per_step=, ...}",
    "speculative decoding: k draft steps + one verify pass of k+1 tokens; (1-a^(k+1))/(1-a) tokens per step")

  -- == the sweep =================================================================

  local SWEEP = { model = true, batch = true, prompt = true, output = true, tp = true,
    weights = true, kv = true, cuda_graphs = true, compiled = true }
  for k in pairs(H.CFG) do SWEEP[k] = true end

  local function list(fn, what, v, dflt)
    if v == nil then return { dflt } end
    if type(v) ~= "table" then return { v } end
    if #v == 0 then fail(fn, what .. " must not be an empty list", 3) end
    return v
  end

  -- dlb.serve.sweep{model=, hw=, batch={...}, prompt={...}, output={...}, tp={...},
  -- weights={...}, kv={...}, cuda_graphs={...}, compiled=true, ...} -> dlb.table: every
  -- combination as a static batch (ttft, tpot, latency, tokens/s per replica and per GPU,
  -- fits). The configuration (device roof, dtypes, links) is resolved once per (tp,
  -- weights, kv, cuda_graphs); the steps come from their compiled programs
  -- (serve_graph.lua's M.compiled; compiled = false: from their graphs, as every other
  -- dlb.serve call), the decode phase a closed form of the batch, prompt and output.
  function M.sweep(opts)
    local fn = "dlb.serve.sweep"
    opts = options.check(opts, SWEEP, fn, 2, true)
    H.flag(fn, "compiled", opts.compiled)
    if opts.model == nil then fail(fn, "model is required") end
    local s = M.model(opts.model)
    local bs = list(fn, "batch", opts.batch, 1)
    local ps = list(fn, "prompt", opts.prompt, 512)
    local os_ = list(fn, "output", opts.output, 128)
    -- every length before any work (a bad last one failed after the others ran)
    for k, vs in pairs { prompt = ps, output = os_ } do
      for i, x in ipairs(vs) do length(fn, type(opts[k]) == "table" and (k .. "[" .. i .. "]") or k, x) end
    end
    local pmax, omax = 0, 0
    for _, P in ipairs(ps) do pmax = math.max(pmax, P) end
    for _, O in ipairs(os_) do omax = math.max(omax, O) end
    H.sequence(fn, pmax, omax)
    local tps = list(fn, "tp", opts.tp, 1)
    local ws = list(fn, "weights", opts.weights, false)  -- false: the config's default
    local kvs = list(fn, "kv", opts.kv, false)
    local cgs = list(fn, "cuda_graphs", opts.cuda_graphs, false)
    local cols = { batch = {}, prompt = {}, output = {}, tp = {}, weights = {}, kv = {},
      cuda_graphs = {}, ttft = {}, tpot = {}, latency = {}, tokens_per_s = {},
      tokens_per_s_gpu = {}, fits = {} }
    local n = 0
    for _, tp in ipairs(tps) do for _, w in ipairs(ws) do for _, kv in ipairs(kvs) do
      for _, cg in ipairs(cgs) do
        local cfg = {}
        for k, v in pairs(opts) do
          if H.CFG[k] and k ~= "tp" and k ~= "weights" and k ~= "kv" and k ~= "cuda_graphs" then cfg[k] = v end
        end
        cfg.tp, cfg.cuda_graphs = tp, cg
        if w then cfg.weights = w end
        if kv then cfg.kv = kv end
        local c = M.config(cfg, fn, s)
        local wb = H.weight_bytes(s, c)
        local kvt = H.kv_per_token_gpu(s, c)
        local cap = c.dev.mem * c.mem_util
        local cache = {}
        -- the steps compiled (serve_graph.lua's M.compiled: the step graphs compiled over
        -- batch, context and touched experts, timed per configuration in C); their graphs
        -- where the devices cannot be compiled, or with compiled = false
        local cs = opts.compiled ~= false and H.compiled(s, c) or nil
        for _, P in ipairs(ps) do
          for _, Bn in ipairs(bs) do
            posint(fn, "batch", Bn)
            local pre = (cs and cs.pipelined(Bn, P, 0) or pipelined(s, c, Bn, P, 0)).time
            for _, O in ipairs(os_) do
              local dt = decode_sum(s, c, Bn, P, O - 1, cache, cs)
              local lat = pre + dt
              n = n + 1
              cols.batch[n], cols.prompt[n], cols.output[n], cols.tp[n] = Bn, P, O, tp
              cols.weights[n], cols.kv[n], cols.cuda_graphs[n] = c.weights, c.kv, cg and true or false
              cols.ttft[n], cols.latency[n] = pre, lat
              cols.tpot[n] = O > 1 and dt / (O - 1) or 0
              cols.tokens_per_s[n] = Bn * O / lat
              cols.tokens_per_s_gpu[n] = Bn * O / lat / (c.tp * c.pp)
              cols.fits[n] = wb + Bn * H.cached_tokens(s, c, P + O) * kvt <= cap
            end
          end
        end
      end
    end end end
    return require("dlbench.table").from_columns(cols, { "batch", "prompt", "output", "tp",
      "weights", "kv", "cuda_graphs", "ttft", "tpot", "latency", "tokens_per_s",
      "tokens_per_s_gpu", "fits" })
  end
  doc.doc(M.sweep, "dlb.serve.sweep{model=, hw=, batch={...}, prompt={...}, output={...}, tp={...}, weights={...}, kv={...}, cuda_graphs={...}, compiled=true, ...} -> dlb.table",
    "static-batch serving over every combination: ttft, tpot, latency (s), tokens_per_s, tokens_per_s_gpu, fits; the steps compiled (compiled = false: their graphs)")

  -- == validation ================================================================

  -- The prediction for one published row (notebooks/data/serving_runs.lua): the row's
  -- model fields, device and configuration, with calibration `cal` ({flops_eff=, bw_eff=,
  -- kernel_overhead=}); returns the predicted value in the row's metric.
  local closed_cache, closed_n, rmax_cache = {}, 0, {}
  function M.predict(row, cal)
    local fn = "dlb.serve.predict"
    if type(row) ~= "table" or type(row.model) ~= "table" or type(row.config) ~= "table" then
      fail(fn, "expected a row {model = {...}, hw = , config = {...}, metric = }")
    end
    cal = cal or {}
    local cfg = { hw = row.hw }
    for k, v in pairs(row.config) do
      if H.CFG[k] then cfg[k] = v end
    end
    for k, v in pairs(cal) do cfg[k] = v end
    local s = rawget(row, "_spec")
    if not s then
      local m = row.model
      if m.builder then
        local o = {}
        for k, v in pairs(m.opts or {}) do o[k] = v end
        o.batch, o.seq = 1, 16
        s = M.model(require("dlbench.models")[m.builder](o))
      else
        s = M.model(m.fields or m)
      end
      rawset(row, "_spec", s)
    end
    local c = M.config(cfg, fn, s)
    local own = { batch = row.config.batch, prompt = row.config.prompt, output = row.config.output }
    if row.config.concurrency then
      local cl = { concurrency = row.config.concurrency, prompt = own.prompt, output = own.output }
      for k, v in pairs(cfg) do cl[k] = v end
      -- rows of one table share a run (TTFT, ITL and throughput of the same load): one
      -- closed-loop solution per model, load and configuration
      local keys = {}
      for k, v in pairs(cl) do
        if k ~= "concurrency" then
          local txt = tostring(v)
          if type(v) == "table" then  -- a device (its name) or a link ({bw=, latency=})
            txt = v.name and tostring(v.name) or (tostring(v.bw) .. "/" .. tostring(v.latency))
          end
          keys[#keys + 1] = k .. "=" .. txt
        end
      end
      table.sort(keys)
      local lkey = s.name .. "|" .. table.concat(keys, ",")  -- the load without its concurrency
      local key = lkey .. "|concurrency=" .. tostring(cl.concurrency)
      local r = closed_cache[key]
      if not r then
        r = closed_loop(s, cl, rmax_cache, lkey)
        closed_n = closed_n + 1
        if closed_n > 4096 then closed_cache, closed_n, rmax_cache = {}, 0, {} end
        closed_cache[key] = r
      end
      if row.metric == "ttft_ms" then return r.ttft * 1e3
      elseif row.metric == "itl_ms" then return r.itl * 1e3
      elseif row.metric == "out_tok_s" then return r.tokens_per_s end
    elseif row.metric == "ttft_ms" then
      return pipelined(s, c, own.batch or 1, own.prompt, 0).time * 1e3
    elseif row.metric == "out_tok_s_gpu" then
      return M._generate(s, c, own, fn).tokens_per_s_gpu
    elseif row.metric == "out_tok_s" then
      return M._generate(s, c, own, fn).tokens_per_s
    end
    fail(fn, "row '" .. tostring(row.id) .. "': unknown metric '" .. tostring(row.metric)
      .. "' (accepted: out_tok_s, out_tok_s_gpu, ttft_ms, itl_ms with concurrency)")
  end
  doc.doc(M.predict, "dlb.serve.predict(row[, cal]) -> number", "the prediction for a published serving row (notebooks/data/serving_runs.lua) in its metric")

  -- |predicted / measured - 1| of rows whose split is `split` ("fit", "held" or nil: all)
  function M.errors(rows, cal, split)
    local errs, out = {}, {}
    for _, row in ipairs(rows) do
      if split == nil or row.split == split then
        local p = M.predict(row, cal)
        local e = p / row.measured - 1
        errs[#errs + 1] = math.abs(e)
        out[#out + 1] = { id = row.id, predicted = p, measured = row.measured, error = e, split = row.split }
      end
    end
    local med = #errs > 0 and percentile(errs, 50) or nil
    return med, out
  end
  doc.doc(M.errors, "dlb.serve.errors(rows, cal[, split]) -> median |error|, {{id=, predicted=, measured=, error=, split=}, ...}",
    "prediction errors on published rows (split \"fit\" or \"held\")")

  -- Calibration on the fit rows only: four device-side parameters of the per-op rule
  -- (flops_eff, bw_eff, the per-kernel launch cost, the engine's per-step overhead),
  -- each on a grid, by coordinate descent (rounds passes, one parameter at a time),
  -- minimising the median |log(predicted / measured)| over the fit rows. Returns cal and
  -- the fit rows' median |error|.
  local GRID = {
    flops_eff = { 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 },
    bw_eff = { 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0 },
    kernel_overhead = { 0, 2e-6, 4e-6, 6e-6, 8e-6, 1e-5, 1.5e-5, 2e-5 },
    step_overhead = { 0, 5e-4, 1e-3, 2e-3, 3e-3, 5e-3 },
  }
  -- (no collective latency: the tensor-parallel allreduces are NCCL's model on the device's
  -- fabric, collectives = "nccl", which has its own latencies from NCCL's tuning tables; a
  -- grid = {comm_latency = {...}} calibrates an alpha-beta link instead)
  local ORDER = { "flops_eff", "bw_eff", "kernel_overhead", "comm_latency", "step_overhead" }
  function M.calibrate(rows, opts)
    opts = options.check(opts, { grid = true, rounds = true, start = true, calibration = true },
      "dlb.serve.calibrate")
    local grid = opts.grid or GRID
    -- calibration = "validated": flops_eff is the chip's CALIBRATED value (dlb.serve.config),
    -- not fitted here; the other parameters are
    local validated = opts.calibration ~= nil
      and require("dlbench.frameworks").check_calibration(opts.calibration, "dlb.serve.calibrate") == "validated"
    local fit = {}
    for _, r in ipairs(rows) do if r.split == "fit" then fit[#fit + 1] = r end end
    if #fit == 0 then fail("dlb.serve.calibrate", "no row has split = \"fit\"") end
    -- checked by name (review 20: measured = 0 returned a calibration with fit error inf, a
    -- negative or NaN one "percentile: element 1 is NaN"; an unknown grid key was dropped
    -- without a word, rounds = "3" ran)
    for i, r in ipairs(fit) do
      local m = r.measured
      if type(m) ~= "number" or not (m > 0) or m == math.huge then
        fail("dlb.serve.calibrate", string.format("fit row %d ('%s'): measured must be a finite "
          .. "number > 0 in the row's metric, got %s", i, tostring(r.id),
          type(m) == "number" and (m ~= m and "nan" or tostring(m)) or tostring(m)))
      end
    end
    for _, k in ipairs(options.keys(grid)) do -- sorted: the first refused key is named
      local known = false
      for _, o in ipairs(ORDER) do known = known or o == k end
      if not known then
        fail("dlb.serve.calibrate", "unknown grid parameter '" .. tostring(k) .. "' (accepted: "
          .. table.concat(ORDER, ", ") .. ")")
      end
    end
    local rounds = opts.rounds or 3
    if type(rounds) ~= "number" or rounds ~= math.floor(rounds) or rounds < 1 or rounds == math.huge then
      fail("dlb.serve.calibrate", "rounds must be a whole number >= 1, got "
        .. (type(rounds) == "string" and string.format("the string %q", rounds) or tostring(rounds)))
    end
    -- a point of the descent is scored once: a later round comes back to points an
    -- earlier one scored (the key: every calibrated field's value)
    local scored = {}
    local function score(cal)
      local kk = {}
      for i, k in ipairs(ORDER) do kk[i] = string.format("%.17g", cal[k] or -1) end
      local key = table.concat(kk, ",")
      if scored[key] then return scored[key] end
      local e = {}
      for i, r in ipairs(fit) do e[i] = math.abs(math.log(M.predict(r, cal) / r.measured)) end
      local sc = percentile(e, 50)
      scored[key] = sc
      return sc
    end
    local cal = {}
    for k, v in pairs(opts.start or { flops_eff = 0.8, bw_eff = 0.7, kernel_overhead = 5e-6,
      step_overhead = 1e-3 }) do cal[k] = v end
    if validated then cal.flops_eff, cal.calibration = nil, "validated" end
    local best = score(cal)
    for _ = 1, rounds do
      local moved = false
      for _, k in ipairs(ORDER) do
        if grid[k] and not (validated and k == "flops_eff") then
          for _, v in ipairs(grid[k]) do
            local old = cal[k]
            if v ~= old then
              cal[k] = v
              local sc = score(cal)
              if sc < best then best, moved = sc, true else cal[k] = old end
            end
          end
        end
      end
      if not moved then break end  -- a round that changed nothing ends the descent
    end
    return cal, math.exp(best) - 1
  end
  doc.doc(M.calibrate, "dlb.serve.calibrate(rows[, {grid=, rounds=3, start=, calibration=}]) -> cal, fit_error",
    "fit flops_eff, bw_eff, kernel_overhead and step_overhead (and comm_latency when grid= gives one: alpha-beta collectives) on the rows marked split = \"fit\" (coordinate descent on grids; median |log error|); calibration = \"validated\": flops_eff is each chip's CALIBRATED value (dlb.serve.config), the other three are fitted")

  M._percentile = percentile
end

return B
