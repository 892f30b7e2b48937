-- bench_lstm_step.lua — the Catamount LSTM LM step alone (4 layers x 2004, 320 steps, B=64,
-- V=10004; the row of bench_graph.lua): graph build (nn.lstm_lm) and analysis (g:stats{}),
-- CPU time (os.clock) of each, median and best of N fresh graphs after one warm-up, a full
-- collection before each. Uses only what commit 081a973 already had, so the same file runs
-- on an older build for an interleaved comparison (BENCHMARKS.md, "The per-configuration
-- path"): build/bin/dlbench run tests/bench/bench_lstm_step.lua [N]
local nn = require "dlbench.nn"
local N = tonumber(arg and arg[1] or "") or 20
local tb, ta = {}, {}
local s
for i = 1, N + 1 do
  collectgarbage()
  local t0 = os.clock()
  local g = nn.lstm_lm{ batch = 64, steps = 320, layers = 4, hidden = 2004, vocab = 10004 }
  local t1 = os.clock()
  s = g:stats{}
  local t2 = os.clock()
  if i > 1 then tb[#tb + 1] = t1 - t0; ta[#ta + 1] = t2 - t1 end
end
local function med(t) table.sort(t); return t[math.floor((#t + 1) / 2)], t[1] end
local mb, bb = med(tb)
local ma, ba = med(ta)
print(string.format("LSTM LM step (%d ops): build median %.2f best %.2f ms | analyse median %.2f best %.2f ms | best sum %.2f ms",
  s.nops, mb * 1e3, bb * 1e3, ma * 1e3, ba * 1e3, (bb + ba) * 1e3))
