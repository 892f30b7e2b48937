-- notebook.lua — run a notebook from notebooks/ inside a test and return what it printed
-- (and what the notebook returned). Used by the notebook tests.
local M = {}

function M.root()
  local src = debug.getinfo(1, "S").source
  local dir = (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
  return dir .. "/../.."
end

-- Run notebooks/<name>.lua with its output going to out/ (arg[1]); returns text, result.
function M.run(name, outdir)
  local lines = {}
  local saved, saved_arg = print, arg
  print = function(...) -- luacheck: ignore
    local t = {}
    for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(t, "\t")
  end
  arg = { [0] = name, outdir or "out" } -- luacheck: ignore
  local ok, res = pcall(dofile, M.root() .. "/notebooks/" .. name .. ".lua")
  print, arg = saved, saved_arg -- luacheck: ignore
  assert(ok, res)
  return table.concat(lines, "\n"), res
end

-- The PNG exists and is not empty.
function M.png(path)
  local f = io.open(path, "rb")
  assert(f, "no figure " .. path)
  local head = f:read(8)
  local size = f:seek("end")
  f:close()
  assert(head == "\137PNG\r\n\26\n" and size > 1000, path .. " is not a PNG")
end

return M
