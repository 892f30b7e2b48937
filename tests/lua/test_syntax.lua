-- test_syntax.lua — every Lua file of the library, the notebooks and the tests compiles
-- under the interpreter running this test. The suite runs it inside dlbench (Lua 5.4) and
-- under LuaJIT, so a file outside the common subset (`//`, bit operators, <const>, goto
-- labels LuaJIT rejects) fails here rather than in a user's study (DESIGN.md).
local T = require "harness"

local function here()
  local src = debug.getinfo(1, "S").source
  return (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
end
local root = here() .. "/../.."

local function lua_files()
  local p = io.popen('find "' .. root .. '/lua" "' .. root .. '/notebooks" "' .. root
    .. '/tests" -name "*.lua" -not -name "ffi_cdef.lua" 2>/dev/null | sort')
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
end

T.test("every Lua file compiles under " .. (jit and jit.version or _VERSION), function()
  local files = lua_files()
  assert(#files > 40, "found only " .. #files .. " Lua files under " .. root)
  local bad = {}
  for _, f in ipairs(files) do
    local fn, err = loadfile(f)
    if not fn then bad[#bad + 1] = err end
  end
  assert(#bad == 0, table.concat(bad, "\n"))
end)

T.done()
