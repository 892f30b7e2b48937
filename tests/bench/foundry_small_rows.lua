-- foundry_small_rows.lua — a check of the fsdp profile's train metrics (docs/validation.md,
-- branch small-fsdp) on published rows that neither calibration saw: every row of the
-- llm-foundry benchmark README (scripts/train/benchmarking/README.md at commit c90b9b3) in
-- its tables "A100 80GB ..." and "H100 80GB BF16" with 8 GPUs, for MPT-125M, 350M, 760M and
-- 1B, that notebooks/data/validation_runs.lua does not hold (the rule was fixed before any of
-- these rows was predicted). Each is predicted by the validation notebook's path
-- (tests/lua/fsdp_rows.lua, catalogue values: no fitted number) with the fsdp profile as
-- shipped and with its train metrics off; the script prints each row and the median / p90
-- |error| of both. Not a timed benchmark and not a test: a diagnostic with its command,
--   LUA_PATH="$PWD/tests/lua/?.lua;;" build/bin/dlbench run tests/bench/foundry_small_rows.lua
package.path = "tests/lua/?.lua;" .. package.path
local dlb = require "dlbench"
local FR = require "fsdp_rows"
local F = dlb.frameworks

local MPT = { ["125m"] = { 12, 768, 12 }, ["350m"] = { 24, 1024, 16 }, ["760m"] = { 24, 1536, 12 },
  ["1b"] = { 24, 2048, 16 } }
-- the README's columns: model, SeqLen, MicroBatchSize, GradAccum, GlobalBatchSize,
-- Throughput (T/s/GPU), Activation Checkpointing (8 GPUs, amp_bf16, DEFAULT, FULL_SHARD)
local A100 = {
  { "125m", 65536, 1, 2, 16, 20368, false }, { "125m", 32768, 2, 2, 32, 36407, false },
  { "125m", 8192, 8, 2, 128, 90392, false }, { "125m", 4096, 16, 2, 256, 118396, false },
  { "125m", 2048, 32, 2, 512, 141737, false }, { "125m", 1024, 64, 2, 1024, 156468, false },
  { "350m", 65536, 1, 2, 16, 7524, false }, { "350m", 32768, 2, 2, 32, 13652, false },
  { "350m", 16384, 4, 2, 64, 23559, false }, { "350m", 8192, 8, 2, 128, 36569, false },
  { "350m", 4096, 16, 2, 256, 49555, false }, { "350m", 1024, 64, 2, 1024, 64813, false },
  { "350m", 512, 128, 2, 2048, 69330, false },
  { "760m", 32768, 1, 2, 16, 8802, false }, { "760m", 16384, 3, 2, 48, 14274, false },
  { "760m", 8192, 6, 2, 96, 20933, false }, { "760m", 4096, 12, 2, 192, 27351, false },
  { "760m", 2048, 24, 2, 384, 32434, false }, { "760m", 1024, 48, 2, 768, 29765, false },
  { "760m", 512, 96, 2, 1536, 29446, false },
  { "1b", 65536, 1, 2, 16, 3044, true }, { "1b", 32768, 1, 4, 32, 6275, false },
  { "1b", 16384, 2, 4, 64, 9956, false }, { "1b", 8192, 3, 4, 96, 13814, false },
  { "1b", 4096, 7, 4, 224, 17807, false }, { "1b", 1024, 18, 4, 576, 22112, false },
  { "1b", 512, 56, 4, 1792, 23148, false },
}
local H100 = {
  { "760m", 32768, 1, 2, 16, 16291, false }, { "760m", 16384, 3, 2, 48, 27815, false },
  { "760m", 8192, 6, 2, 96, 41825, false }, { "760m", 4096, 12, 2, 192, 55459, false },
  { "760m", 1024, 48, 2, 768, 78581, false }, { "760m", 512, 96, 2, 1536, 83749, false },
  { "1b", 65536, 1, 2, 16, 5506, true }, { "1b", 32768, 1, 4, 32, 12025, false },
  { "1b", 8192, 3, 4, 96, 29157, false }, { "1b", 4096, 7, 4, 224, 38535, false },
  { "1b", 2048, 14, 1, 112, 45455, false }, { "1b", 1024, 18, 4, 576, 48910, false },
  { "1b", 512, 56, 4, 1792, 52275, false },
}

local function row(hw, t)
  local c = MPT[t[1]]
  return { id = string.format("mpt-%s-s%d-mb%d-8x%s", t[1], t[2], t[3], hw), hw = hw, devices = 8,
    model = { builder = "gpt", opts = { layers = c[1], hidden = c[2], heads = c[3], vocab = 50368,
      context = t[2], seq = t[2] } },
    layout = { dp = 8, micro_batch = t[3], grad_accum = t[4], global_batch = t[5], zero = 3,
      recompute = t[7] and "full" or nil, reduce_dtype = "fp32" },
    precision = "mixed_bf16", seq = t[2], framework = "Composer + PyTorch FSDP",
    measured = { tokens_per_s = t[6], per = "gpu" } }
end

-- the validation table's rows (id and micro-batch): a README row already there is not this
-- check's (the README's second 125M row at seq 2048, micro-batch 32, is not in the table)
local held = {}
for _, r in ipairs(dofile("notebooks/data/validation_runs.lua")) do
  held[r.id .. "/" .. tostring(r.layout and r.layout.micro_batch)] = true
end

local off = F.derive("fsdp", { train_metrics = { lm_xent = false, source = "this check: the profile without its metrics" } })
local e_on, e_off = {}, {}
local signed = {}   -- each row's device and signed error with the profile as shipped (returned)
print(string.format("%-30s %10s %10s %9s %10s %9s", "row", "measured", "fsdp", "error", "no metrics", "error"))
for _, set in ipairs { { "A100-SXM4-80GB", A100, "a100-80g" }, { "H100-SXM", H100, "h100" } } do
  for _, t in ipairs(set[2]) do
    local r = row(set[1], t)
    local vid = "foundry-mpt-" .. t[1] .. "-s" .. t[2] .. "-8x" .. set[3]
    if not held[vid .. "/" .. t[3]] then
      local on, _, meas = FR.predict(dlb, { row = r, profile = F.get("fsdp") })
      local no = FR.predict(dlb, { row = r, profile = off })
      local a, b = on / meas - 1, no / meas - 1
      e_on[#e_on + 1], e_off[#e_off + 1] = math.abs(a), math.abs(b)
      signed[#signed + 1] = { id = r.id, hw = set[1], err = a }
      print(string.format("%-30s %10.4g %10.4g %+8.1f%% %10.4g %+8.1f%%", r.id, meas, on, 100 * a, no, 100 * b))
    end
  end
end
print(string.format("%d rows: fsdp (train metrics counted) median |error| %.1f%%, p90 %.1f%%; "
  .. "without them %.1f%%, p90 %.1f%% (catalogue values)", #e_on, 100 * FR.median(e_on),
  100 * FR.p90(e_on), 100 * FR.median(e_off), 100 * FR.p90(e_off)))
return signed
