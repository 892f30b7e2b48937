-- validation_stats.lua — the validation study's summary statistics of its |errors|, in one
-- place for notebooks/validation.lua and the scripts that report figures of the same kind
-- (tests/lua/fsdp_rows.lua and its benches, tests/bench/vtrain_gemm_tile.lua).
-- Counting convention: nearest rank, no interpolation (the "nearest-rank method" of
-- Wikipedia's "Percentile": the P-th percentile of N sorted values is the ceil(P/100 N)-th
-- smallest; tests/lua/test_validation_rows.lua checks its worked examples):
--   pct(xs, q)  the ceil(q n)-th smallest (at least the first), q in (0, 1]; q = 0.9: the p90
--               the study reports;
--   median(xs)  pct(xs, 0.5): the ceil(n / 2)-th smallest, i.e. the LOWER median for even n
--               (not the mean of the two middle values).
-- Both are NaN for an empty list; xs is not changed.
--   local S = dofile("notebooks/lib/validation_stats.lua");  S.median(xs), S.pct(xs, 0.9)
local function pct(xs, q)
  local t = {}
  for i, x in ipairs(xs) do t[i] = x end
  table.sort(t)
  if #t == 0 then return 0 / 0 end
  return t[math.max(1, math.ceil(q * #t))]
end
local function median(xs) return pct(xs, 0.5) end
return { pct = pct, median = median }
