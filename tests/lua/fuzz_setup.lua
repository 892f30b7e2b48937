-- fuzz_setup.lua — the Lua mutation fuzzers' one set-up (tests/lua/test_*_fuzz.lua): the case
-- count, seed and verbosity from DLB_<NAME>_CASES / DLB_<NAME>_SEED / DLB_<NAME>_VERBOSE, and a
-- Park-Miller generator (the same sequence under both backends, where math.random differs).
--   local F = require("fuzz_setup")("HWFUZZ")
--   F.cases (nil unless DLB_HWFUZZ_CASES is set), F.seed (default 1), F.verbose, F.rnd(n) (1 .. n),
--   F.pick(list)
return function(name)
  local cases = tonumber(os.getenv("DLB_" .. name .. "_CASES") or "")
  local seed = tonumber(os.getenv("DLB_" .. name .. "_SEED") or "") or 1
  local state = (seed * 7919) % 2147483647
  if state == 0 then state = 1 end
  local function rnd(n) -- 1 .. n
    state = (state * 48271) % 2147483647
    return state % n + 1
  end
  return { cases = cases, seed = seed, verbose = os.getenv("DLB_" .. name .. "_VERBOSE"), rnd = rnd,
    pick = function(list) return list[rnd(#list)] end }
end
