-- test_compiled_family.lua — review 17 (a): the compiled sweep decides a graph's family by
-- g:stats' rule or refuses. A profile's passes can depend on the family (dlb.frameworks.resolve,
-- fuse_of: fsdp's trainer runs lm_metrics on a transformer, not on another graph); a zoo or
-- Hugging Face graph says its family (dlb.frameworks.family), a hand-built or imported one is
-- found by g:stats from the step at bound dims (graph_analysis.lua family_of: a transformer
-- when the attention pass finds an attention pattern). dlb.sweep.compile without reference
-- bindings compiled an ONNX graph with no family: under fsdp its bytes were 7-26% above
-- g:stats' (lm_metrics in the compiled step only; review 16's finding). Now: refused where the
-- family changes the profile's passes, and with the reference bindings (dlb.sweep.model gives
-- the space's first values) compiled = g:stats (bytes, FLOPs) and = roofline.time (time) at
-- every point, for an ONNX graph and a from_hf graph under fsdp and megatron-lm.
local T = require "harness"
local dlb = require "dlbench"
local fw = require "dlbench.frameworks"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local ONNX = here .. "/../fixtures/onnx/gpt2_like.onnx"
local HF = here .. "/../fixtures/hf/gpt2.json"

local GRAPHS = {
  { name = "onnx gpt2_like", dims = { "batch", "sequence" },
    build = function() return dlb.models.from_onnx(ONNX) end },
  { name = "from_hf gpt2", dims = { "batch", "seq" },
    build = function(p) return dlb.models.from_hf(HF, { batch = p.batch, seq = p.seq }) end },
}
local POINTS = { { 1, 16 }, { 2, 64 }, { 4, 128 } }
local DEVICES = { "H100-SXM", "A100-80GB" }

local function symbolic(G)
  local p = {}
  for _, d in ipairs(G.dims) do p[d] = d end
  return G.build(p)
end

local function stats_at(G, prof, pt)
  local b = { framework = prof, precision = "mixed" }
  for i, d in ipairs(G.dims) do b[d] = pt[i] end
  return symbolic(G):stats(b)
end

T.test("an imported graph's family is not known without bound dims; a from_hf graph's is", function()
  T.eq(fw.family(symbolic(GRAPHS[1])), nil)
  T.eq(fw.family(symbolic(GRAPHS[2])), "transformer")
  -- g:stats finds the ONNX graph's from the step: its masked attention (Where on a sliced
  -- causal buffer) is an attention pattern (review 18; "other" before)
  local s = stats_at(GRAPHS[1], "fsdp", POINTS[2])
  T.eq(fw.origin[s].family, "transformer")
end)

T.test("dlb.sweep.compile without reference bindings: the family found from the step's structure", function()
  local G = GRAPHS[1]
  -- issue [18] item 2: g:stats finds an imported graph's family from its step with the
  -- unbound dims bound for the look alone (the family is the structure, not the sizes), so a
  -- compile without ref = no longer needs refusing (it did before: "its family (transformer
  -- or other) is not known from its model"); equal to g:stats at every point
  for _, prof in ipairs { "fsdp", "auto" } do
    local P = dlb.sweep.compile(G.build, {}, G.dims, nil, { framework = prof, precision = "mixed" })
    for _, pt in ipairs(POINTS) do
      T.near(P.totals(pt).bytes, stats_at(G, prof, pt).bytes, 1e-12, prof .. " at " .. table.concat(pt, ","))
    end
  end
  T.eq(symbolic(G):stats{}.optimizer, "adamw", "the family's default optimizer, dims unbound")
  -- megatron-lm applies the same passes to either family: compiled, and equal to g:stats
  local P = dlb.sweep.compile(G.build, {}, G.dims, nil, { framework = "megatron-lm", precision = "mixed" })
  for _, pt in ipairs(POINTS) do
    T.near(P.totals(pt).bytes, stats_at(G, "megatron-lm", pt).bytes, 1e-12, "megatron-lm at " .. table.concat(pt, ","))
  end
  -- a graph whose family its model says needs no reference bindings
  local H = GRAPHS[2]
  local Q = dlb.sweep.compile(H.build, {}, H.dims, nil, { framework = "fsdp", precision = "mixed" })
  for _, pt in ipairs(POINTS) do
    T.near(Q.totals(pt).bytes, stats_at(H, "fsdp", pt).bytes, 1e-12, "from_hf fsdp at " .. table.concat(pt, ","))
  end
end)

for _, G in ipairs(GRAPHS) do
  for _, prof in ipairs { "fsdp", "megatron-lm" } do
    T.test("compiled = g:stats / roofline.time: " .. G.name .. " under " .. prof, function()
      local ref = {}
      for i, d in ipairs(G.dims) do ref[d] = POINTS[1][i] end
      local P = dlb.sweep.compile(G.build, {}, G.dims, nil, { framework = prof, precision = "mixed" }, ref)
      for _, pt in ipairs(POINTS) do
        local s = stats_at(G, prof, pt)
        local tot = P.totals(pt)
        local what = G.name .. " " .. prof .. " at " .. table.concat(pt, ",")
        T.near(tot.bytes, s.bytes, 1e-12, what .. " bytes")
        T.near(tot.flops, s.flops, 1e-12, what .. " flops")
        T.near(tot.params, s.params, 1e-12, what .. " params")
        T.eq(P.info.family, fw.origin[s].family, what .. " family")
      end
      -- dlb.sweep.model (its reference bindings: the space's first values) row by row
      local space = { device = DEVICES }
      for i, d in ipairs(G.dims) do
        space[d] = {}
        for j, pt in ipairs(POINTS) do space[d][j] = pt[i] end
      end
      local res = dlb.sweep.model(G.build, space, { bind = G.dims, keep = true,
        stats = { framework = prof, precision = "mixed" } })
      local t = res.rows:to_table()
      T.eq(t:count(), #POINTS * #POINTS * #DEVICES)
      for i = 1, t:count() do
        local r = t:row(i)
        local pt = {}
        for k, d in ipairs(G.dims) do pt[k] = r[d] end
        local s = stats_at(G, prof, pt)
        local rt = dlb.roofline.time(s, r.device)
        local what = G.name .. " " .. prof .. " row " .. i
        T.eq(r.framework, prof, what .. " framework")
        T.near(r.bytes, s.bytes, 1e-9, what .. " bytes")
        T.near(r.flops, rt.flops, 1e-9, what .. " flops")
        T.near(r.time, rt.time, 1e-9, what .. " time")
      end
    end)
  end
end

T.done()
