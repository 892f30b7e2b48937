-- dlbench.cli_plan — the command line's one-question answers (host/main.c dispatches):
--   dlbench plan MODEL --hw DEVICE --gpus N [--tokens T] [--batch B] [--seq S]
--                [--framework F] [--price USD_PER_GPU_HOUR] [--precision P] [--json]
--   dlbench info FILE [name=value ...] [--hw DEVICE] [--precision P] [--framework F]
-- MODEL: a zoo name (gpt, llama:7b, gpt:gpt3-175b — the part after ':' is size=), an .onnx
-- file or a Hugging Face config.json. plan answers with dlb.parallel.plan's best layout;
-- every default it applied is named in its output (docs/cli.md).
local doc = require "dlbench.doc"
local tbl_numtext = require("dlbench.table").numtext
local csvnumber = require("dlbench.table_io").csvnumber

local M = {}

-- A command-line failure: one line on stderr, exit status 1 (usage errors: 2).
local function fail(cmd, msg, status)
  io.stderr:write("dlbench " .. cmd .. ": " .. msg .. "\n")
  io.stderr:flush()
  os.exit(status or 1, true)
end

-- Strip "file:line: " positions of library frames from an error for a one-line message,
-- and the host's own chunk's (`[string "require('dlbench.cli_plan').info({...})"]:1: `, an
-- error raised at the caller's level from a call of that chunk: review 11 saw it on
-- `dlbench info FILE --framework NAME` with a name that is not a profile).
local function clean(err)
  return (require("dlbench.errors").strip(err):match("^[^\n]*"))
end

-- --framework and --precision checked before any work, the message naming the flag (review
-- 13: "dlbench plan: parallel.layers.from_graph: g:stats: unknown precision 'fp3' ...",
-- "dlbench info: g:stats: unknown framework 'bogus' ..."): the library's own lists
-- (dlb.frameworks.get; the graph engine's precisions, dlbench.graph_base), status 1 as
-- --hw's unknown device.
local function check_names(cmd, o)
  if o.framework ~= nil then
    local ok, e = pcall(require("dlbench.frameworks").get, o.framework, "--framework")
    if not ok then fail(cmd, clean(e)) end
  end
  if o.precision ~= nil then
    local P = require("dlbench.graph_base").PRECISIONS
    if not P[o.precision] then
      fail(cmd, string.format("--precision: unknown precision '%s' (%s)", o.precision,
        require("dlbench.options").names(P)))
    end
  end
end

-- Parse argv: positional words and --name value / --name=value / --flag options.
-- spec: {name = "value" | "flag"}. Returns positional list and option table. With raise
-- (a library caller: dlb.measure.cli), errors are raised as "dlbench CMD: message" and
-- --help returns nil instead of printing and exiting.
local function parse(cmd, args, spec, usage, raise)
  local fail = fail
  if raise then
    fail = function(c, msg) error("dlbench " .. c .. ": " .. msg, 0) end
  end
  local pos, o = {}, {}
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--help" or a == "-h" then
      if raise then return nil end
      io.stdout:write(usage, "\n"); os.exit(0, true)
    end
    local name, val = a:match("^%-%-([%w%-_]+)=(.*)$")
    if not name then name = a:match("^%-%-([%w%-_]+)$") end
    if name then
      local kind = spec[name]
      if kind == nil then
        -- the one message form of dlbench.options, with the flags spelled as typed
        local flags = {}
        for k in pairs(spec) do flags["--" .. k] = true end
        fail(cmd, require("dlbench.options").message("--" .. name, flags, "dlbench " .. cmd)
          .. "\n" .. usage, 2)
      end
      if kind == "flag" then
        if val then fail(cmd, "--" .. name .. " takes no value", 2) end
        o[name] = true
      else
        if not val then
          i = i + 1
          val = args[i]
          if val == nil then fail(cmd, "--" .. name .. " needs a value", 2) end
        end
        o[name] = val
      end
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  return pos, o
end

-- A positive number from an option ("15e12", "1024"); whole when `whole`. Decimal only, by
-- the one rule of every dlbench number text (dlb.read_csv's and hw_csv's, table_io.csvnumber):
-- tonumber took hexadecimal, which Lua 5.4 wraps to 64-bit integers (--gpus
-- 0x10000000000000008 was 8 there, 1.8e19 under LuaJIT) and binary under LuaJIT only
-- ("0b101"). A whole number is an integer under Lua 5.4 (as tonumber("8") was), when it fits.
local function number(cmd, name, s, whole)
  local v = type(s) == "string" and csvnumber(s) or nil
  if v and whole and math.tointeger then v = math.tointeger(v) or v end
  if not v or v ~= v or v <= 0 or v == math.huge or (whole and v ~= math.floor(v)) then
    fail(cmd, string.format("--%s must be a %s, got '%s'", name,
      whole and "whole number >= 1" or "number > 0", tostring(s)), 2)
  end
  return v
end

-- The graph of MODEL and what it is: {graph=, name=, kind=, seq=}. seq: tokens per sample
-- (nil for models without a sequence).
local function load_model(cmd, model, seq, defaults)
  local dlb = require "dlbench"
  local fh, oerr = io.open(model, "rb")
  if fh then fh:close() end
  if fh and model:match("%.onnx$") then
    local ok, g = pcall(dlb.models.from_onnx, model, { unknown = "skip", quiet = true })
    if not ok then fail(cmd, clean(g)) end
    -- the file's symbolic dims: the batch one (named like it, or the only one) is the
    -- planner's batch dim; sequence-like ones take --seq (default 128), others 1
    local names = {}
    for v in tostring(g:stats{}.unbound or ""):gmatch("[%a_][%w_]*") do names[#names + 1] = v end
    local bdim
    for _, v in ipairs(names) do if v:lower():find("batch") then bdim = v end end
    if not bdim and #names == 1 then bdim = names[1] end
    if not bdim then
      fail(cmd, string.format("%s: no batch dim among its symbolic dims (%s); export it with a "
        .. "dynamic batch axis named like 'batch'", model, #names > 0 and table.concat(names, ", ") or "none"))
    end
    local bind, s = {}, nil
    for _, v in ipairs(names) do
      if v ~= bdim then
        local l = v:lower()
        if l:find("seq") or l:find("len") or l:find("token") then
          s = seq or 128
          bind[v] = s
          if not seq then defaults[#defaults + 1] = v .. "=128 (a sequence dim of the file; --seq sets it)" end
        else
          bind[v] = 1
          defaults[#defaults + 1] = v .. "=1 (a symbolic dim of the file)"
        end
      end
    end
    return { graph = g, name = model, kind = "ONNX", seq = s, bind = bind, batch_dim = bdim }
  elseif fh and require("dlbench.models.onnx")._is_json(model) then
    local ok, g = pcall(dlb.models.from_hf, model, { seq = seq })
    if not ok then fail(cmd, clean(g)) end
    if not seq then defaults[#defaults + 1] = string.format("seq=%.0f (the config's context, at most 4096)", g.hf.options.seq) end
    return { graph = g, name = model, kind = "Hugging Face config, " .. tostring(g.hf.model_type), seq = g.hf.options.seq }
  end
  if model:find("/", 1, true) or model:match("%.onnx$") or model:match("%.json$") then
    -- say why (io.open's "name: reason"): missing, no permission
    local why = oerr and oerr:match(": ([^:]+)$")
    fail(cmd, "cannot open " .. model .. (why and (": " .. why) or ""))
  end
  local name, size = model:match("^([%w_%.]+):(.+)$")
  name = name or model
  local family = name:match("^paradnn%.(.+)$")
  local builder = family and dlb.models.paradnn[family] or rawget(dlb.models, name)
  if type(builder) ~= "function" and type(builder) ~= "table" then
    fail(cmd, string.format("'%s' is neither a file nor a zoo model (dlb.models.list() names them; "
      .. "a .onnx file or a Hugging Face config.json also work)", model))
  end
  local opts = { size = size }
  if seq then opts.seq = seq end
  local ok, g = pcall(builder, opts)
  if not ok then fail(cmd, clean(g)) end
  local o = g.model and g.model.options or {}
  local s = o.seq
  if type(s) ~= "number" then s = o.context end   -- gpt: seq defaults to its context
  if type(s) ~= "number" then s = nil end
  if not seq and s then defaults[#defaults + 1] = string.format("seq=%s (the model's default)", tostring(s)) end
  if not size and o.size then defaults[#defaults + 1] = string.format("size=%s (the zoo's default)", tostring(o.size)) end
  return { graph = g, name = model, kind = "zoo", seq = s }
end

local function commas(n)
  local s = string.format("%.0f", n)
  local r = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (r:gsub("^,", ""))
end

M.plan_usage = [[usage: dlbench plan MODEL --hw DEVICE --gpus N [--tokens T] [--batch B] [--seq S]
                    [--framework F] [--price USD_PER_GPU_HOUR] [--precision P] [--json]
  MODEL       a zoo name (llama, llama:70b, gpt:gpt3-175b), a model.onnx or a config.json
  --hw        a catalogue device (dlb.hw.list()), e.g. H100, A100-SXM4-80GB
  --gpus      devices in all (nodes of the device's per-node count)
  --tokens    tokens (samples for models without a sequence) to train on: time, energy, cost
  --batch     global batch in sequences (default: one per device)
  --seq       sequence length (default: the config's or the model's)
  --price     US dollars per device-hour: the cost of the run
  --precision training precision (default mixed: 16-bit tensors, fp32 master weights)
  --framework a framework profile (dlb.frameworks.list(); default: the family's, named in the output)
  --json      one JSON object on stdout, for pipelines]]

-- `dlbench plan ...` (args: the words after "plan"). Returns the result table (also when
-- printed), so tests can call it.
function M.plan(args, out)
  local cmd = "plan"
  out = out or io.stdout
  local pos, o = parse(cmd, args, { hw = "value", gpus = "value", tokens = "value", batch = "value",
    seq = "value", framework = "value", price = "value", precision = "value", json = "flag" }, M.plan_usage)
  if #pos ~= 1 then fail(cmd, (#pos == 0 and "a MODEL is required" or "one MODEL expected, got " .. #pos) .. "\n" .. M.plan_usage, 2) end
  if not o.hw then fail(cmd, "--hw DEVICE is required (dlb.hw.list() names the catalogue)", 2) end
  if not o.gpus then fail(cmd, "--gpus N is required", 2) end
  local dlb = require "dlbench"
  local defaults = {}
  local gpus = number(cmd, "gpus", o.gpus, true)
  local seq = o.seq and number(cmd, "seq", o.seq, true)
  local tokens = o.tokens and number(cmd, "tokens", o.tokens)
  local price = o.price and number(cmd, "price", o.price)
  check_names(cmd, o)
  local fw = o.framework
  local okh, hw = pcall(dlb.hw.get, o.hw)
  if not okh then fail(cmd, "--hw: " .. clean(hw)) end
  local m = load_model(cmd, pos[1], seq, defaults)
  local batch
  if o.batch then batch = number(cmd, "batch", o.batch, true)
  else
    batch = gpus
    defaults[#defaults + 1] = string.format("batch=%.0f (one %s per device)", batch, m.seq and "sequence" or "sample")
  end
  local precision = o.precision or "mixed"
  -- the optimizer whose state the footprint holds: g:stats' one default rule (the model's
  -- own, else its family's: dlb.graph.default_optimizer), asked of the graph at the plan's
  -- bindings (review 11: the line said "Adam state" for every model; issue [18] item 2: it
  -- said "sgd (the model's)" for an imported graph the library then counted otherwise)
  local so = {}
  for k, v in pairs(m.bind or {}) do so[k] = v end
  local oko, _, sinfo = pcall(m.graph.step_options, m.graph, so)
  if not oko then fail(cmd, clean(_)) end
  if not o.precision then
    -- the one rule's entry names the peak "mixed" runs at (hw:defaulted_precision; review 21)
    local okd, res = pcall(function() return select(2, hw:defaulted_precision("mixed")) end)
    if not okd then fail(cmd, (clean(res):gsub("pass precision = ", "pass --precision "))) end
    defaults[#defaults + 1] = "precision=mixed (16-bit tensors on the " .. res
      .. " peak, fp32 master weights and optimizer state)"
  end
  defaults[#defaults + 1] = "optimizer=" .. tostring(sinfo.optimizer) .. " (" .. tostring(sinfo.optimizer_source) .. ")"
  local popts = { graph = m.graph, hw = hw, devices = gpus, batch = batch, precision = precision,
    framework = fw }
  -- the per-layer costs once (their sum is the parameter count), then the search over them
  -- (the plan itself takes the graph: --framework, else the library's default profile for
  -- the model's family, which the plan row names, with the MFU convention of dlbench.mfu)
  local okl, ls = pcall(dlb.parallel.layers.from_graph, m.graph, { precision = precision,
    bind = m.bind, batch_dim = m.batch_dim })
  if not okl then fail(cmd, clean(ls)) end
  popts.bind, popts.batch_dim = m.bind, m.batch_dim
  local params
  if ls then
    params = 0
    for _, l in ipairs(ls) do params = params + (l.params or 0) end
  end
  local okp, t = pcall(dlb.parallel.plan, popts)
  if not okp then
    -- the planner's advice names Lua options (zero=3, offload="search", keep_unfit=true); the
    -- command line has none of them (review 14): --gpus here, the rest through the library
    local e = clean(t)
    local head, try = e:match("^(.-no layout fits.-); try more devices,? ?(.*)$")
    if head then
      e = head .. "; try more --gpus" .. (try ~= "" and (", or dlb.parallel.plan in Lua with " .. try) or "")
    end
    fail(cmd, e)
  end
  local r = t[1]
  local per = m.seq or 1
  local unit = m.seq and "tokens" or "samples"
  local tps = batch * per / r.step
  local pprec = hw:precision(precision)   -- the peak the step runs at ("mixed": fp16/bf16)
  local peak = hw.peak[pprec]
  local res = {
    model = m.name, model_kind = m.kind, params = params,
    hw = hw.name, gpus = gpus, per_node = hw.links and hw.links.per_node or nil,
    batch = batch, seq = m.seq, precision = precision, precision_peak = pprec, optimizer = sinfo.optimizer, framework = fw,
    layout = { dp = r.dp, tp = r.tp, pp = r.pp, v = r.v, m = r.m, mb = r.mb, schedule = r.schedule,
               zero = r.zero, recompute = r.recompute, cp = r.cp, ep = r.ep, cp_algo = r.cp_algo,
               hsdp = r.hsdp, offload = r.offload },
    all_to_all_s = r.ep_comm, cp_comm_s = r.cp_comm, less_certain = r.less_certain,
    step_s = r.step, mfu = r.mfu or r.util, hfu = r.hfu,
    mfu_convention = tostring(r.mfu_convention) .. " / (step time x the device's dense " .. pprec
      .. " peak, " .. tbl_numtext(peak) .. " FLOP/s, x devices)",
    framework_used = r.framework, framework_source = r.framework_source, calibration = r.calibration,
    mem_per_device_bytes = r.mem, mem_device_bytes = hw.mem,
    mem_breakdown_bytes = { weights = r.mem_weights, gradients = r.mem_grads, optimizer = r.mem_opt,
                            activations = r.mem_act },
    throughput = tps, throughput_unit = unit .. "/s", layouts_fitting = #t, defaults = defaults,
  }
  if tokens then
    res.tokens = tokens
    res.train_s = tokens / tps
    if hw.power then
      res.energy_j = res.train_s * gpus * hw.power
      res.energy_convention = string.format("devices x %g W board power (datasheet, at full load) x time; "
        .. "host, network and cooling not counted", hw.power)
    else
      -- why energy_j is absent (null to jq), the text's line word for word (review 21)
      res.energy_note = "unknown: " .. hw.name .. " has no power figure in the catalogue"
    end
    if price then res.cost_usd = res.train_s / 3600 * gpus * price; res.price_usd_per_gpu_hour = price end
  elseif price then
    res.cost_usd_per_hour = gpus * price; res.price_usd_per_gpu_hour = price
  end
  if not tokens then
    res.energy_note = "per-step figures only: --tokens T gives the training time, energy and cost"
  end
  if o.json then
    out:write(require("dlbench.json").encode(res), "\n")
    return res
  end
  local P = dlb.pretty
  local L = {}
  local function line(k, v) L[#L + 1] = string.format("%-16s%s", k, v) end
  line("model", string.format("%s (%s)%s", m.name, m.kind,
    type(params) == "number" and string.format(", %s parameters", commas(params)) or ""))
  -- %.0f, not %d: a count past 2^63 (--gpus 1e300) has no integer form in Lua 5.4
  line("cluster", string.format("%.0f x %s, batch %.0f %s%s", gpus, hw.name, batch,
    m.seq and "sequences" or "samples", m.seq and string.format(" x seq %.0f = %s tokens/step", m.seq, P.si(batch * m.seq, "")) or ""))
  local extra = ""   -- issue [21]: context and expert degrees, hybrid sharding, offload
  if (r.cp or 1) > 1 then extra = extra .. string.format(" x cp %d (%s)", r.cp, tostring(r.cp_algo)) end
  if (r.ep or 1) > 1 then extra = extra .. string.format(", ep %d", r.ep) end
  local zx = (r.hsdp or 0) > 0 and string.format(" (HSDP, shard group %d)", r.hsdp) or ""
  if r.offload and r.offload ~= "none" then zx = zx .. ", offload " .. tostring(r.offload) end
  line("layout", string.format("dp %d x tp %d x pp %d%s, %d micro-batch%s of %d, %s%s, ZeRO %d%s, recompute %s",
    r.dp, r.tp, r.pp, extra, r.m, r.m == 1 and "" or "es", r.mb, r.schedule, r.schedule == "interleaved" and (" v " .. r.v) or "",
    r.zero, zx, r.recompute == "selective" and "selective (the attention core)"
      or (r.recompute == "selective_op" and "per-op selective AC (torchtitan)") or (r.recompute and "on" or "off")))
  line("step time", P.seconds(r.step) .. (((r.ep_comm or 0) > 0 or (r.cp_comm or 0) > 0) and
    string.format(" (all-to-all %s, context-parallel exchange %s)", P.seconds(r.ep_comm or 0),
      P.seconds(r.cp_comm or 0)) or ""))
  if r.less_certain then line("LESS CERTAIN", r.less_certain) end
  line("MFU", string.format("%.1f%% (%s / (step x %s %s peak x %d devices); HFU %.1f%% counts recompute)",
    100 * res.mfu, tostring(r.mfu_convention), P.si(peak, "FLOP/s"), pprec, gpus, 100 * (r.hfu or res.mfu)))
  line("framework", string.format("%s (%s), calibration %s", tostring(r.framework),
    tostring(r.framework_source), tostring(r.calibration)))
  line("footprint", string.format("%s of %s per device (weights %s, gradients %s, optimizer %s, activations %s%s)",
    P.si(r.mem, "B"), P.si(hw.mem, "B"), P.si(r.mem_weights, "B"), P.si(r.mem_grads, "B"),
    P.si(r.mem_opt, "B"), P.si(r.mem_act, "B"),
    (r.mem_framework or 0) > 0 and (", stack " .. tostring(r.mem_terms)) or ""))
  line("throughput", string.format("%s %s/s (%s per device)", P.si(tps, ""), unit, P.si(tps / gpus, unit .. "/s")))
  if tokens then
    line("train", string.format("%s %s in %s", P.si(tokens, ""), unit, P.seconds(res.train_s)))
    if res.energy_j then
      line("energy", string.format("%s = %s (%s)", P.si(res.energy_j / 3600, "Wh"),
        P.si(res.energy_j, "J"), res.energy_convention))
    else
      line("energy", res.energy_note)
    end
    if res.cost_usd then line("cost", string.format("$%s at $%g per device-hour", commas(res.cost_usd), price)) end
  elseif price then
    line("cost", string.format("$%s per hour at $%g per device-hour (--tokens T gives the run's cost)", commas(res.cost_usd_per_hour), price))
  end
  line("layouts", string.format("%d fit the %s of %s (dlb.parallel.plan; best by step time)", #t, P.si(hw.mem, "B"), hw.name))
  line("defaults", #defaults > 0 and table.concat(defaults, "; ") or "none")
  out:write(table.concat(L, "\n"), "\n")
  return res
end
doc.doc(M.plan, "require(\"dlbench.cli_plan\").plan(args) -> result",
  "`dlbench plan MODEL --hw D --gpus N [--tokens T] [--json]`: the best layout, step time, MFU, memory, tokens/s, time, energy and cost")

M.info_usage = [[usage: dlbench info FILE [name=value ...] [--hw DEVICE] [--precision P] [--framework F]
  FILE        a model.onnx or a Hugging Face config.json
  name=value  bind a dim (batch=8); unbound sequence-like dims default to 128, others to 1
  --hw        also the step's roofline time on this device
  --precision fp32 (default), fp16, bf16, mixed
  --framework a framework profile (dlb.frameworks.list(); default: the family's, named in the output)]]

-- `dlbench info FILE [name=value ...] [--hw D] [--precision P] [--framework F]`.
function M.info(args)
  local cmd = "info"
  local pos, o = parse(cmd, args, { hw = "value", precision = "value", framework = "value" }, M.info_usage)
  local path = pos[1]
  if not path then fail(cmd, "a FILE is required\n" .. M.info_usage, 2) end
  local b, bad = require("dlbench.models.onnx").parse_bindings(pos, 2)
  if not b then fail(cmd, bad, 2) end
  check_names(cmd, o)
  local fw = o.framework
  local dlb = require "dlbench"
  local hw
  if o.hw then
    local ok, h = pcall(dlb.hw.get, o.hw)
    if not ok then fail(cmd, "--hw: " .. clean(h)) end
    hw = h
  end
  local ok, err = pcall(dlb.models.info, path, { bindings = b, precision = o.precision, hw = hw,
    framework = fw })
  if not ok then fail(cmd, clean(err)) end
end

M.parse = parse -- the command line's one option parser (dlb.measure.cli uses it too)

-- `dlbench measure [...]` (host/main.c): dlb.measure.cli with its errors as one message on
-- stderr (no Lua traceback): exit status 2 for a usage error, 1 for the others (docs/cli.md).
function M.measure(args)
  local function out(err, status)
    io.stderr:write(tostring(err), "\n")
    io.stderr:flush()
    os.exit(status, true)
  end
  local ok, err = pcall(require("dlbench.measure").cli, args, function(e) out(e, 2) end)
  if not ok then out(err, 1) end
end

return M
