-- plan_rows_dump.lua — every row of a set of plan searches, written field by field with
-- %.17g (bit-exact doubles), so that two builds' answers can be compared with diff (not a
-- benchmark and not a test: a tool for changes that must not move any plan row).
-- Run:  dlbench run tests/bench/plan_rows_dump.lua > /tmp/a.txt   (build A)
--       dlbench run tests/bench/plan_rows_dump.lua > /tmp/b.txt   (build B);  diff /tmp/a.txt /tmp/b.txt
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/plan_rows_dump.lua). An argument
-- "quick" leaves out the two large searches of bench_plan_moe_cp.lua.
-- The cases: bench_plan_moe_cp.lua's three (offload = "search", every layout back from C),
-- the 405B case with cp_max left to the default, a graph= plan (the dlb.table path), a
-- stack with its own memory terms (hf_trainer: framework_memory), a fixed offload with
-- keep_unfit, Megatron-Core's MoE layer with its optimizer launch model, and plans that
-- keep only the layouts that fit (keep_unfit off).
local dlb = require "dlbench"
local P = dlb.parallel
local quick = (arg and arg[1]) == "quick"

local function val(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  if type(v) == "table" then
    local ks = {}
    for k in pairs(v) do ks[#ks + 1] = tostring(k) end
    table.sort(ks)
    local t = {}
    for _, k in ipairs(ks) do t[#t + 1] = k .. "=" .. val(v[k] ~= nil and v[k] or v[tonumber(k)]) end
    return "{" .. table.concat(t, ",") .. "}"
  end
  return tostring(v)
end

local function dump(name, t, evaluated)
  io.write(string.format("== %s: %d rows, %s evaluated\n", name, #t, val(evaluated)))
  for i = 1, #t do
    local r = t[i]
    local ks = {}
    for k in pairs(r) do ks[#ks + 1] = k end
    table.sort(ks)
    local parts = {}
    for _, k in ipairs(ks) do parts[#parts + 1] = k .. "=" .. val(r[k]) end
    io.write(i, " ", table.concat(parts, " "), "\n")
  end
end

local mixtral = dlb.models.moe { style = "llama", layers = 56, hidden = 6144, heads = 48,
  kv_heads = 8, ffn = 16384, experts = 8, top_k = 2, vocab = 32768, seq = 4096 }
local mls = P.layers.from_graph(mixtral, { framework = "megatron-core" })
if not quick then
  local big = dlb.models.llama { layers = 126, hidden = 16384, heads = 128, kv_heads = 8,
    ffn = 53248, vocab = 128256, seq = 131072 }
  local bls = P.layers.from_graph(big, { framework = "megatron-core" })
  for _, c in ipairs {
    { "mixtral 2048", mls, { devices = 2048, batch = 1024 } },
    { "405B cp 32", bls, { devices = 16384, batch = 128, cp_max = 32 } },
    { "405B cp default", bls, { devices = 16384, batch = 128 } },
    { "mixtral 2048 deepep", mls, { devices = 2048, batch = 1024, moe_dispatcher = "deepep" } },
  } do
    local o = { layers = c[2], hw = "H100-SXM", seq_par = true, offload = "search", table = false }
    for k, v in pairs(c[3]) do o[k] = v end
    dump(c[1], P.plan(o))
  end
end

-- smaller searches: each path of plan's Lua side
local gpt = dlb.models.gpt { layers = 24, hidden = 2048, heads = 16, seq = 2048, context = 2048, vocab = 50257 }
dump("gpt graph table", P.plan { graph = gpt, hw = "A100-SXM4-80GB", devices = 64, batch = 256 })
dump("gpt graph cp", P.plan { graph = dlb.models.gpt { layers = 24, hidden = 2048, heads = 16,
  seq = 16384, context = 16384, vocab = 50257 }, hw = "H100-SXM", devices = 64, batch = 64, table = false })
local gls = P.layers.from_graph(gpt, { framework = "hf-trainer" })
dump("gpt hf-trainer stack memory", P.plan { layers = gls, hw = "A100-SXM4-40GB", devices = 16,
  batch = 64, table = false })
dump("gpt hf-trainer stack memory, search offload", P.plan { layers = gls, hw = "A100-SXM4-40GB",
  devices = 8, batch = 64, offload = "search", table = false })
dump("gpt fixed offload keep_unfit", P.plan { layers = gls, hw = "A100-SXM4-40GB", devices = 8,
  batch = 64, offload = { "optimizer" }, keep_unfit = true, table = false })
dump("mixtral mcore 256", P.plan { layers = mls, hw = "H100-SXM", devices = 256, batch = 256,
  seq_par = true, moe_impl = "mcore", framework = "megatron-core", table = false })
dump("mixtral mcore 256 offload search", P.plan { layers = mls, hw = "H100-SXM", devices = 128,
  batch = 128, seq_par = true, moe_impl = "mcore", offload = "search", table = false })
dump("gpt layers torchtitan", P.plan { layers = P.layers.from_graph(gpt, { framework = "torchtitan" }),
  hw = "H100-SXM", devices = 32, batch = 128, recompute = "selective_op", table = false })
