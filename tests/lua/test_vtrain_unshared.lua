-- test_vtrain_unshared.lua — vTrain's measured rows that are NOT in ../shared (issue [19]
-- target 2; notebooks/data/vtrain/single_node_h2048.csv and multi_node_39.1b_175b.csv, from
-- VIA-Research/vTrain data/ground_truth_{single,multi}.csv at commit f8dda84, selected by
-- notebooks/data/vtrain/make_unshared.py) parse through notebooks/data/vtrain_runs.lua into
-- the two sets the notebook scores: the source's row counts (720 and 68: 47 of GPT 39.1B,
-- 21 of 175B), every row held out (stored so before any prediction: nothing is fitted on
-- them), and fields a measured Megatron-LM run can have (a layout that multiplies out to the
-- GPU count, a batch that splits over the data ranks, the study's model shapes, a step time
-- in milliseconds to a minute). Not a test of the prediction errors.
local T = require "harness"

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local DIR = here .. "/../../notebooks/data"

local rows = dofile(DIR .. "/vtrain_runs.lua")(DIR)
local by = { ["unshared-1node"] = {}, ["unshared-multinode"] = {} }
for _, r in ipairs(rows) do
  if by[r.set] then table.insert(by[r.set], r) end
end

-- the cells of a CSV file: header, rows
local function csv(name)
  local f = assert(io.open(DIR .. "/vtrain/" .. name, "r"))
  local head, body = nil, {}
  for line in f:lines() do
    local t = {}
    for c in (line .. ","):gmatch("([^,]*),") do t[#t + 1] = c end
    if head then body[#body + 1] = t else head = t end
  end
  f:close()
  return head, body
end

T.test("the unshared files: the source's columns and row counts, every role held", function()
  for _, f in ipairs { { "single_node_h2048.csv", 720, 12 }, { "multi_node_39.1b_175b.csv", 68, 13 } } do
    local head, body = csv(f[1])
    T.eq(#body, f[2], f[1] .. ": rows")
    T.eq(#head, f[3], f[1] .. ": columns")
    T.eq(head[#head], "role", f[1] .. ": the role column last")
    T.eq(head[#head - 1], "iteration time (ms)", f[1] .. ": the measured column")
    for i, c in ipairs(body) do
      T.eq(#c, f[3], f[1] .. " row " .. i .. ": cells")
      T.eq(c[#c], "held", f[1] .. " row " .. i .. ": role")
    end
  end
end)

T.test("vtrain_runs.lua: two unshared sets of 720 and 68 rows, all held, plausible fields", function()
  T.eq(#by["unshared-1node"], 720, "one-node rows")
  T.eq(#by["unshared-multinode"], 68, "512-GPU rows")
  local ids, nparams = {}, {}
  for set, rs in pairs(by) do
    for _, r in ipairs(rs) do
      local L, o = r.layout, r.model.opts
      local what = set .. " " .. r.id
      assert(not ids[r.id], "duplicate id " .. r.id)
      ids[r.id] = true
      T.eq(r.role, "held", what .. ": role")
      T.eq(L.tp * L.dp * L.pp, r.devices, what .. ": tp x dp x pp = GPUs")
      T.eq(L.global_batch % (L.dp * L.micro_batch), 0, what .. ": the batch splits over the data ranks")
      T.eq(L.schedule, "1f1b", what)
      T.eq(L.recompute, "full", what)
      T.eq(r.hw, "A100-SXM4-80GB", what)
      T.eq(r.nics, 4, what)
      T.eq(r.precision, "mixed", what)
      T.eq(r.framework, "Megatron-LM", what)
      T.eq(o.vocab, 50257, what)
      T.eq(o.hidden % o.heads, 0, what .. ": heads divide the hidden size")
      local t = r.measured.step_time
      assert(type(t) == "number" and t > 0.01 and t < 100, what .. ": step time " .. tostring(t) .. " s")
      assert(r.source:find("f8dda84", 1, true), what .. ": source names the commit")
      if set == "unshared-1node" then
        T.eq(o.hidden, 2048, what); T.eq(o.heads, 16, what); T.eq(o.seq, 1024, what)
        assert(o.layers == 12 or o.layers == 16 or o.layers == 20 or o.layers == 24, what .. ": layers")
        assert(r.devices == 2 or r.devices == 4 or r.devices == 8, what .. ": one node")
        T.eq(r.params, nil, what)
      else
        T.eq(r.devices, 512, what); T.eq(L.global_batch, 1536, what); T.eq(o.seq, 2048, what)
        nparams[r.params] = (nparams[r.params] or 0) + 1
        local shape = r.params == 39.1e9 and { 8192, 64, 48 } or { 12288, 96, 96 }
        T.eq(o.hidden, shape[1], what); T.eq(o.heads, shape[2], what); T.eq(o.layers, shape[3], what)
      end
    end
  end
  T.eq(nparams[39.1e9], 47, "GPT 39.1B rows")
  T.eq(nparams[175e9], 21, "GPT 175B rows")
  -- the 175B file measures one layout twice: two rows, two ids
  assert(ids["vtrain-unshared-multinode-h12288-l96-g512-b1536-mb2-t4d4p32"]
    and ids["vtrain-unshared-multinode-h12288-l96-g512-b1536-mb2-t4d4p32-2"], "the repeated layout kept twice")
end)

T.test("the hidden-2048 rows have the hidden-1024 rows' layouts (the study's one grid)", function()
  local shared = {}
  for _, r in ipairs(rows) do
    if r.set == "1node" then
      local L, o = r.layout, r.model.opts
      shared[table.concat({ r.devices, L.global_batch, L.micro_batch, o.layers, L.tp, L.dp, L.pp }, "/")] = true
    end
  end
  local n = 0
  for _, r in ipairs(by["unshared-1node"]) do
    local L, o = r.layout, r.model.opts
    assert(shared[table.concat({ r.devices, L.global_batch, L.micro_batch, o.layers, L.tp, L.dp, L.pp }, "/")],
      r.id .. ": no hidden-1024 row of the same layout")
    n = n + 1
  end
  T.eq(n, 720)
end)

T.done()
