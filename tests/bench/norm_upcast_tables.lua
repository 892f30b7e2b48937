-- norm_upcast_tables.lua — the measured-memory tables with the eager RMSNorm term off and on
-- (branch rmsnorm-upcast; docs/frameworks.md "What eager RMSNorm saves"): every predicted row
-- of notebooks/data/memory_measured*.lua through its data file's build and roofline.time's
-- need. torchtune: before = no norm term, after = the data file (its eager rows with
-- torchtune's RMSNorm); PEFT, torchao: as the data files say (LayerNorm models: no term);
-- Qwen: kept (the data file: Qwen-1's norm not known, norm.upcast = false) and a what-if with
-- the upcast on every cell (not applied). Not a timed benchmark: a table for the docs.
-- Run: build/bin/dlbench run tests/bench/norm_upcast_tables.lua (or under LuaJIT, DLB_BACKEND=ffi)
local dlb = require "dlbench"
local R = dlb.roofline
local root = (debug.getinfo(1, "S").source:match("^@(.*)/tests/bench/[^/]*$") or ".")
local function pred(S, row, ...)
  local g, st = S.build(dlb, row, ...)
  return R.time(g:stats(st), S.hw).need
end
local TT = dofile(root .. "/notebooks/data/memory_measured_torchtune.lua")
local norm = TT.norm
local before, after = {}, {}
for i, row in ipairs(TT.rows) do
  TT.norm = nil; before[i] = pred(TT, row) / TT.unit
  TT.norm = norm; after[i] = pred(TT, row) / TT.unit
  print(string.format("torchtune %-32s before %6.2f (%+6.1f%%)  after %6.2f (%+6.1f%%)  measured %5.1f",
    row.name, before[i], 100 * (before[i] / row.gib - 1), after[i], 100 * (after[i] / row.gib - 1), row.gib))
end
for _, d in ipairs(TT.deltas) do
  local m = TT.rows[d.to].gib - TT.rows[d.from].gib
  local b, a = before[d.to] - before[d.from], after[d.to] - after[d.from]
  print(string.format("torchtune delta %-28s before %+6.2f  after %+6.2f  measured %+5.1f", d.switch, b, a, m))
end
for _, f in ipairs { "memory_measured_peft", "memory_measured_torchao" } do
  local S = dofile(root .. "/notebooks/data/" .. f .. ".lua")
  for _, row in ipairs(S.rows) do
    if row.predicted ~= false then
      local p = pred(S, row) / (S.unit or 1e9)
      print(string.format("%s %-40s %6.2f  measured %5.2f  %+6.1f%%", f, row.name, p, row.gb, 100 * (p / row.gb - 1)))
    end
  end
end
local Q = dofile(root .. "/notebooks/data/memory_measured.lua")
local qn = Q.setup.norm
local nb, na, within_b, within_a, errs_b, errs_a = 0, 0, 0, 0, {}, {}
for _, row in ipairs(Q.rows) do
  for i, seq in ipairs(Q.seqs) do
    Q.setup.norm = qn
    local b = pred(Q, row, seq) / 1e9
    Q.setup.norm = { upcast = true, source = "what-if" }
    local a = pred(Q, row, seq) / 1e9
    local eb, ea = b / row.gb[i] - 1, a / row.gb[i] - 1
    if math.abs(eb) <= 0.1 then within_b = within_b + 1 end
    if math.abs(ea) <= 0.1 then within_a = within_a + 1 end
    errs_b[#errs_b + 1] = math.abs(eb); errs_a[#errs_a + 1] = math.abs(ea)
    print(string.format("qwen %-9s %-8s %5d  kept %6.2f GB (%+5.1f%%)  with the upcast %6.2f GB (%+5.1f%%)  measured %5.1f",
      row.model, row.method, seq, b, 100 * eb, a, 100 * ea, row.gb[i]))
  end
end
table.sort(errs_b); table.sort(errs_a)
print(string.format("qwen: kept %d of %d within 10%% (median %.1f%%); with the upcast %d of %d (median %.1f%%)",
  within_b, #errs_b, 100 * errs_b[math.floor((#errs_b + 1) / 2)], within_a, #errs_a,
  100 * errs_a[math.floor((#errs_a + 1) / 2)]))
