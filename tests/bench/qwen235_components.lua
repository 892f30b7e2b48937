-- tests/bench/qwen235_components.lua — the Qwen3-235B-A22B validation rows' predicted steps,
-- component by component (issue [21], branch qwen235; docs/validation.md, "branch qwen235"):
-- for each row, the evaluate fields (compute, the exposed and the hidden all-to-alls, the
-- tensor-, pipeline- and data-parallel collectives, bubble, host idle, update, memory) with
-- the split the row states (layout.pp_split: Megatron-Core's split by count) and with the
-- planner's split by FLOPs, against the measured step; and, where the combined 1F1B runs, the
-- share of the all-to-alls it hides (with the all-to-all kernels' SMs taken from the compute,
-- branch moe-a2a-overlap) and the step with nothing hidden (a bound, not a prediction).
-- Catalogue values (no calibration). A diagnostic, not a timed benchmark.
-- Run: build/bin/dlbench run tests/bench/qwen235_components.lua   (or under LuaJIT's FFI)
local dlb = dlb or require "dlbench"
local here = "notebooks"
local rows = dofile(here .. "/data/validation_runs.lua")
local V = dofile(here .. "/lib/validation_rows.lua")(dlb)
table.sort(rows, function(a, b) return a.id < b.id end)

local function fmt(e) return string.format("%7.2f", e) end
print("Qwen3-235B-A22B rows, catalogue values; seconds a step (step = compute + comm + bubble + update + host idle)")
print(string.format("%-48s %-6s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %6s", "row", "split", "meas",
  "step", "compute", "ep_exp", "ep_hid", "tp", "pp", "dp", "bubble", "host", "mem GB"))
for _, r in ipairs(rows) do
  -- the rows with a pipeline and a measured step (a step time, or tokens/s: GBS x seq / it)
  if r.id:match("qwen3%-235b") and (r.layout.pp or 1) > 1
    and (r.measured.step_time or r.measured.tokens_per_s) then
    local s = assert(V.setup(r))
    local meas = (r.measured.step_time or (s.batch * s.seq / (r.measured.tokens_per_s * r.devices)))
    for _, split in ipairs { "stated", "flops" } do
      if split == "flops" then s.cfg.balance = nil end
      local _, e = V.predict(s, s.hw)
      print(string.format("%-48s %-6s %s %s %s %s %s %s %s %s %s %s %6.1f", r.id:sub(1, 48),
        split == "stated" and (r.layout.pp_split or "flops") or "flops", fmt(meas), fmt(e.step),
        fmt(e.compute), fmt(e.ep_comm), fmt(e.ep_hidden), fmt(e.tp_comm), fmt(e.pp_comm),
        fmt(e.dp_comm), fmt(e.bubble), fmt(e.host_idle), e.mem / 1e9))
      s.cfg.balance = r.layout.pp_split
      if split == "stated" and e.ep_hidden > 0 then
        print(string.format("%-48s        combined 1F1B: %.0f%% of the all-to-alls hidden; nothing hidden: step %.2f",
          "", 100 * e.ep_hidden / (e.ep_hidden + e.ep_comm), e.step + e.ep_hidden))
      end
    end
  end
end
