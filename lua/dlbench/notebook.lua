-- dlbench.notebook — the small things every seed notebook does the same way: its output
-- folder, saving a figure (with the layout check), observation verdicts with a summary, and a
-- deterministic random generator (the same numbers on both backends).
--   local nb = require "dlbench.notebook"
--   local outdir = nb.outdir(arg)              -- arg[1] or "out", created (the one rule)
--   nb.save(f, outdir, "fig.png")              -- prints "wrote ..." or why not
--   local V = nb.verdicts()
--   V:add("AGREE", "Obs 1 (Fig 4)", "the claim", "our numbers")  -- prints the line
--   V:summary()                                 -- counts per verdict (printed), returns them
local doc = require "dlbench.doc"

local M = {}

-- The one rule for a notebook's output folder: its first argument (`dlbench run
-- notebooks/x.lua DIR`, arg[1]), else "out" (relative to where it runs; a Jupyter kernel has
-- no arguments), created with its parents. A folder that cannot be made is an error naming
-- it and mkdir's reason, before the notebook computes anything.
function M.outdir(args)
  local d = (type(args) == "table" and args[1]) or "out"
  if type(d) ~= "string" or d == "" then
    error("notebook.outdir: the output folder (arg[1]) must be a non-empty path, got "
      .. (type(d) == "string" and '""' or type(d)), 2)
  end
  local E = require("dlbench.errors")
  local out, ok = E.shell_capture("mkdir -p -- " .. E.shell_quote(d))
  if not ok then
    local why = out:match(": ([^:\n]+)\n?$")
    error("notebook.outdir: cannot create the output folder " .. d .. (why and (": " .. why) or ""), 2)
  end
  return d
end
doc.doc(M.outdir, "notebook.outdir(arg) -> dir",
  "the notebook's output folder: arg[1], else \"out\"; created (an error naming it when it cannot be)")

function M.save(f, dir, name)
  local bad = f:layout_check()
  if #bad > 0 then print(string.format("  %s: %d overlapping text boxes", name, #bad)) end
  local ok, err = f:save(dir .. "/" .. name)
  print(ok and ("wrote " .. dir .. "/" .. name) or ("could not write " .. name .. ": " .. tostring(err)))
  return ok, err
end
doc.doc(M.save, "notebook.save(fig, dir, name) -> ok[, err]", "save a figure after its layout check, printing what happened")

-- A deterministic generator of numbers in [0, 1): seed' = (1103515245 seed + 12345) mod 2^31
-- (the example rand() of the C standard, ISO C 7.20.2.2, with a 31-bit modulus), divided by
-- 2^31; the same sequence as integer arithmetic gives it (Lua 5.4's integers, Python's
-- tests/bench/bench_plot_mpl.py). The product is taken in two halves, 1103515245 =
-- 16838 x 2^16 + 20077, so every intermediate stays below 2^46: exact under LuaJIT's doubles
-- too, where the whole product (up to 2^61) was rounded and the gallery drew other points.
local A_HI, A_LO, TWO31 = 16838, 20077, 2147483648
function M.lcg(seed)
  if type(seed) ~= "number" or seed ~= math.floor(seed) or seed < 0 or seed >= TWO31 then
    error("notebook.lcg: seed must be an integer in [0, 2^31), got " .. tostring(seed), 2)
  end
  return function()
    seed = ((seed * A_HI) % 32768 * 65536 + seed * A_LO + 12345) % TWO31
    return seed / TWO31
  end
end
doc.doc(M.lcg, "notebook.lcg(seed) -> rand; rand() -> number in [0, 1)",
  "a deterministic generator (the C standard's example LCG, mod 2^31), the same sequence on both backends")

local Verdicts = {}
Verdicts.__index = Verdicts
local KINDS = { AGREE = true, PARTLY = true, DISAGREE = true }

function Verdicts:add(v, obs, claim, ours)
  if not KINDS[v] then error("notebook verdict: expected AGREE, PARTLY or DISAGREE, got " .. tostring(v), 2) end
  local line = obs and string.format("%-8s %s: %s -- ours: %s", v, obs, claim, ours)
    or string.format("%-8s %s -- ours: %s", v, claim, ours)
  self[#self + 1] = line
  print(line)
  return line
end

function Verdicts:summary(what)
  local n = { AGREE = 0, PARTLY = 0, DISAGREE = 0 }
  for _, l in ipairs(self) do local v = l:match("^(%u+)"); n[v] = n[v] + 1 end
  print(string.format("%d agree, %d partly, %d disagree%s", n.AGREE, n.PARTLY, n.DISAGREE, what or ""))
  return n
end

function M.verdicts() return setmetatable({}, Verdicts) end
doc.doc(M.verdicts, "notebook.verdicts() -> V; V:add(verdict, obs, claim, ours); V:summary([text])",
  "observation verdicts (AGREE / PARTLY / DISAGREE) printed one per line, and their counts")

doc.doc(M, "dlbench.notebook", "helpers shared by the seed notebooks: outdir, save, verdicts, lcg")
return M
