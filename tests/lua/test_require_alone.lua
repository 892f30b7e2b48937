-- test_require_alone.lua — every module under lua/dlbench can be `require`d on its own
-- (issue [16] item 5): with every dlbench module but the backend unloaded, require(name)
-- succeeds and gives the module's table, not an installer waiting for a parent's private
-- helpers (what a parent and its parts share lives in a module below both: graph_base,
-- parallel_base, hw_spec, scaling_fit). Runs on both backends; the FFI backend's own modules (ffi*.lua) only under
-- LuaJIT, where they can load.
local T = require "harness"
require "dlbench"

-- The backend stays loaded: it holds the library (under FFI, ffi.cdef cannot run twice).
local KEEP = { ["dlbench.backend"] = true, ["dlbench.core"] = true }
for name in pairs(package.loaded) do
  if name:match("^dlbench%.ffi") then KEEP[name] = true end
end

-- Generated files that are not module tables: ffi_gen.lua is glue installed over the FFI
-- backend's table (made by host/gen_bindings.lua with the C glue's dlbG_open); ffi_cdef.lua
-- and ffi_cdef_proc.lua are the declarations' text (host/gen_cdef.lua).
local INSTALLER = { ["dlbench.ffi_gen"] = true, ["dlbench.ffi_cdef"] = true,
  ["dlbench.ffi_cdef_proc"] = true }


local function modules()
  local p = assert(io.popen("cd lua && ls dlbench/*.lua dlbench/models/*.lua"))
  local out = {}
  for f in p:lines() do
    local name = f:gsub("%.lua$", ""):gsub("/init$", ""):gsub("/", ".")
    out[#out + 1] = name
  end
  p:close()
  table.sort(out)
  assert(#out > 50, "the modules are listed (run from the repository root)")
  return out
end

local function unload()
  for name in pairs(package.loaded) do
    if (name == "dlbench" or name:match("^dlbench%.")) and not KEEP[name] then
      package.loaded[name] = nil
    end
  end
end

T.test("each module under lua/dlbench requires on its own (" .. (jit and "LuaJIT" or _VERSION) .. ")", function()
  local n = 0
  for _, name in ipairs(modules()) do
    if name:match("^dlbench%.ffi") and not jit then
      -- the FFI backend's modules need LuaJIT's ffi
    else
      unload()
      local ok, m = pcall(require, name)
      assert(ok, name .. " does not require on its own: " .. tostring(m))
      if INSTALLER[name] then
        assert(m ~= nil, name)
      else
        assert(type(m) == "table", name .. " gives a " .. type(m) .. ", not its module table")
      end
      n = n + 1
    end
  end
  unload()
  assert(n > 50, "modules checked: " .. n)
end)

T.test("the converted area modules work alone", function()
  unload()
  if jit then
    local s = require "dlbench.ffi_stats"
    local recs = s.stats_csv_parse("a,b\n1,2\n", ",")
    T.eq(recs[2][2], "2", "ffi_stats alone parses CSV")
    local p = require "dlbench.ffi_proc"
    assert(type(p.proc_encode_row) == "function" and type(p.proc_decode_row) == "function")
  end
  local desc = require "dlbench.desc"
  T.eq(desc.enum("DLB_OPT_")[1], "sgd", "dlbench.desc alone")
  unload()
  -- table_io makes its table with dlb.table.new, looked up when called
  local t = require("dlbench.table_io").parse_csv("a,b\n1,x\n")
  T.eq(t:count(), 1, "table_io alone parses CSV into a table")
  unload()
  local specs = require("dlbench.hw_csv").parse_csv("name,fp32,mem,mem_bw\nX,1e12,1e9,1e11\n")
  T.eq(specs[1].name, "X", "hw_csv alone parses a catalogue")
  unload()
  assert(require("dlbench.graph_setups").optimizers.adam, "graph_setups alone")
  unload()
  assert(type(require("dlbench.parallel_plan").plan) == "function", "parallel_plan alone")
  unload()
end)

T.done()
