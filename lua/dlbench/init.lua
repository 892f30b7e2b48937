-- dlbench — the Lua library every study uses: `local dlb = require "dlbench"`.
-- The same files run under the Lua 5.4 host (`dlbench`) and under LuaJIT with the FFI
-- backend (DLB_BACKEND=ffi). Submodules load on first use, so start-up stays fast.

local core = require "dlbench.backend"
local doc = require "dlbench.doc"

local M = {
  backend = core.name,          -- "capi" (the dlbench host) or "ffi" (LuaJIT)
  core = core,                  -- the backend's low-level functions
}

-- name in dlb -> module, or {module, field}: the stable API of DESIGN.md.
local lazy = {
  graph = "dlbench.graph",       -- callable: dlb.graph(name); dlb.graph.stats is g:stats
  poly = "dlbench.poly",
  models = "dlbench.models",
  hw = "dlbench.hw",
  roofline = "dlbench.roofline",
  sweep = "dlbench.sweep",       -- callable: dlb.sweep(space, fn); dlb.sweep.last()
  range = { "dlbench.sweep", "range" },
  table = "dlbench.table",
  read_csv = { "dlbench.table", "read_csv" },
  stats = "dlbench.stats",
  paradnn = "dlbench.paradnn",
  scaling = "dlbench.scaling",
  parallel = "dlbench.parallel",
  plot = "dlbench.plot",
  pretty = "dlbench.pretty",
  doc = "dlbench.doc",
  memory = "dlbench.memory",
  energy = "dlbench.energy",
  measure = "dlbench.measure",
  trace = "dlbench.trace",
  serve = "dlbench.serve",       -- LLM serving: prefill, decode, KV cache, batching (docs/serve.md)
  frameworks = "dlbench.frameworks",
}
M.lazy_names = {}
for k in pairs(lazy) do M.lazy_names[#M.lazy_names + 1] = k end
table.sort(M.lazy_names)

function M.version()
  return core.version()
end
doc.doc(M.version, "dlb.version() -> string", "the library version, e.g. \"0.2.0\"")

M.write_errors = require("dlbench.errors").write_errors
doc.doc(M.write_errors, "dlb.write_errors([mode]) -> previous mode",
  "how writers (t:to_csv, t:to_json, f:save, dlb.hw.save_csv) report a failed write: "
  .. "\"return\" (default: true, or nil and a message, as Lua's io) or \"raise\" (an error "
  .. "at the caller's line, so a study cannot carry on past a full disk)")

setmetatable(M, {
  __index = function(t, k)
    local what = lazy[k]
    if what == nil then return nil end
    local v
    if type(what) == "table" then
      v = require(what[1])[what[2]]
    else
      v = require(what)
    end
    rawset(t, k, v)
    return v
  end,
})

doc.doc(M, "dlb", "the dlbench workbench: graphs, models, hw, roofline, sweep, table, "
  .. "stats, scaling, parallel, serve, plot, measure, trace, frameworks (help(dlb.<name>) for each)")
return M
