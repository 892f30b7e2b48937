-- dlbench.notebook — the small things every seed notebook does the same way: its output
-- folder, saving a figure (with the layout check), and observation verdicts with a summary.
--   local nb = require "dlbench.notebook"
--   local outdir = nb.outdir(arg)              -- arg[1] or "out", created
--   nb.save(f, outdir, "fig.png")              -- prints "wrote ..." or why not
--   local V = nb.verdicts()
--   V:add("AGREE", "Obs 1 (Fig 4)", "the claim", "our numbers")  -- prints the line
--   V:summary()                                 -- counts per verdict (printed), returns them
local doc = require "dlbench.doc"

local M = {}

function M.outdir(args)
  local d = (type(args) == "table" and args[1]) or "out"
  os.execute("mkdir -p " .. require("dlbench.errors").shell_quote(d))
  return d
end
doc.doc(M.outdir, "notebook.outdir(arg) -> dir", "the notebook's output folder (arg[1] or \"out\"), created")

function M.save(f, dir, name)
  local bad = f:layout_check()
  if #bad > 0 then print(string.format("  %s: %d overlapping text boxes", name, #bad)) end
  local ok, err = f:save(dir .. "/" .. name)
  print(ok and ("wrote " .. dir .. "/" .. name) or ("could not write " .. name .. ": " .. tostring(err)))
  return ok, err
end
doc.doc(M.save, "notebook.save(fig, dir, name) -> ok[, err]", "save a figure after its layout check, printing what happened")

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

doc.doc(M, "dlbench.notebook", "helpers shared by the seed notebooks: outdir, save, verdicts")
return M
