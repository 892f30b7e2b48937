-- dlbench.dataload — evaluate a Lua *data* file (a device catalogue) without trusting it.
-- Scripts are code and run with full privileges; a catalogue from a colleague is data, so
--   * only source text is loaded (load mode "t"): precompiled bytecode, which can crash
--     the VM when mutated, is refused before it reaches load;
--   * it runs in an empty environment: no os, io, require, load, debug, string library;
--     the string metatable's methods ("x"):rep(...) are hidden while it runs;
--   * it is bounded: a hook on every VM instruction stops it after M.max_instructions
--     or once it holds more than M.max_kb KiB (an endless loop or a memory bomb gets a
--     clear error, never a hang). One instruction can still concatenate up to ~200
--     operands, so the worst case is ~200 x M.max_kb before the next check. LuaJIT runs
--     no hooks in compiled code, so the JIT is off while the file runs.
-- See docs/security.md.
local M = {}

M.max_instructions = 5000000
M.max_kb = 16 * 1024

-- Evaluate text (named name in messages) and return its value; raises with a message
-- that starts with name.
function M.eval(text, name)
  if type(text) ~= "string" then error("dataload: text must be a string", 2) end
  if text:byte(1) == 27 then
    error(name .. ": is precompiled Lua bytecode; a catalogue must be Lua source text (data)", 0)
  end
  local env = {}
  local chunk, err
  if setfenv then -- LuaJIT: load(text, name, mode) then an empty environment
    chunk, err = load(text, "@" .. name, "t")
    if chunk then setfenv(chunk, env) end
  else
    chunk, err = load(text, "@" .. name, "t", env)
  end
  if not chunk then error(err, 0) end
  local smt = getmetatable("")
  local index = smt and smt.__index
  local jit = rawget(_G, "jit")
  local hadjit = jit and jit.status()
  local base = collectgarbage("count")
  local steps, maxsteps, maxkb = 0, M.max_instructions, M.max_kb
  local why
  local function hook()
    -- raise once: the chunk has no pcall to catch it, and the instructions between the
    -- pcall below and the removal of the hook must not raise again
    if why then return end
    steps = steps + 1
    if steps > maxsteps then
      why = string.format("%s: stopped after %d VM instructions (a data file must not loop)",
        name, M.max_instructions)
      error(why, 0)
    end
    if collectgarbage("count") - base > maxkb then
      why = string.format("%s: stopped after allocating more than %d KiB", name, maxkb)
      error(why, 0)
    end
  end
  local prev, mask, count = debug.gethook()
  if smt then smt.__index = {} end
  if hadjit then jit.off(); jit.flush() end
  debug.sethook(hook, "", 1)
  local ok, res = pcall(chunk)
  if type(prev) == "function" then debug.sethook(prev, mask, count) else debug.sethook() end
  if hadjit then jit.on() end
  if smt then smt.__index = index end
  if why then error(why, 0) end
  if not ok then
    local msg = type(res) == "string" and res or "(error object)"
    error(string.format("%s: %s (catalogues run as data, in an empty environment: no os, io, "
      .. "require or string functions)", name, msg), 0)
  end
  return res
end

return M
