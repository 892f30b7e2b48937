-- test_notebook_outdir.lua — the one rule for a notebook's output folder (dlbench.notebook
-- .outdir: arg[1], else "out", created): a notebook run with a fresh, not yet existing folder
-- as its argument creates it, writes its files there and nowhere else. Each notebook runs
-- in a process of its own (T.lua_cmd: this test's backend) from an empty working folder,
-- so a file written to a fixed relative path ("out/x.png": tour.lua, hestness_roofline.lua,
-- hestness_parallel.lua before branch notebook-outdir) shows up there. The fast notebooks
-- (under a second each); the others take the same line, nb.outdir(arg).
local T = require "harness"
local E = require "dlbench.errors"
local nb = require "dlbench.notebook"

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local root = (E.shell_capture("cd " .. E.shell_quote(here .. "/../..") .. " && pwd")):gsub("\n$", "")

-- The plain files under dir, relative to it, sorted, one per line.
local function files(dir)
  local out = E.shell_capture("cd " .. E.shell_quote(dir) .. " && find . -type f | sort")
  return (out:gsub("%./", ""):gsub("\n$", ""))
end

-- notebook -> the files it writes (graphviz's rendering of the tour's graph when `dot` is
-- installed is dropped from the listing before comparing)
local CASES = {
  { "tour", "tour_heatmap.pdf\ntour_heatmap.png\ntour_mlp.dot\ntour_sweep_heatmap.png" },
  { "hestness_roofline", "hestness_roofline_zoo.png" },
  { "hestness_parallel", "gpt3_plans.csv\nhestness_fig12.csv\nhestness_fig12.png\n"
    .. "plan_breakdown.png\ntbd_obs12.csv\ntbd_obs12.png" },
}

for _, c in ipairs(CASES) do
  T.test(c[1] .. ".lua DIR: creates DIR, writes there and nowhere else", function()
    local cmd, why = T.lua_cmd()
    if not cmd then print("  skip: " .. why); return end
    local tmp = T.tmpdir()
    local cwd, out = tmp .. "/cwd", tmp .. "/not yet/made"   -- a space: quoted through
    assert(os.execute("mkdir " .. E.shell_quote(cwd)))
    local text, ok = E.shell_capture("cd " .. E.shell_quote(cwd) .. " && " .. cmd .. " "
      .. E.shell_quote(root .. "/notebooks/" .. c[1] .. ".lua") .. " " .. E.shell_quote(out))
    assert(ok, c[1] .. " failed:\n" .. text)
    T.eq(files(cwd), "", "nothing written in the working folder")
    local got = files(out):gsub("tour_mlp%.pdf\n?", ""):gsub("\n$", "")
    T.eq(got, c[2], "the files in the folder given")
    -- everything under tmp is the folder given (nothing beside it, nothing in cwd)
    local all = files(tmp):gsub("tour_mlp%.pdf\n?", ""):gsub("\n$", "")
    T.eq(all, (c[2]:gsub("[^\n]+", function(f) return "not yet/made/" .. f end)), "nothing beside it")
    -- the paths it prints are the folder given, never the default out/
    assert(text:find(out .. "/", 1, true), "the folder is named in the output")
    assert(not text:find("%f[%w]out/"), "no fixed out/ path printed")
    os.execute("rm -rf " .. E.shell_quote(tmp))
  end)
end

T.test("notebook.outdir: arg[1], else out; a folder it cannot make is an error naming it", function()
  local tmp = T.tmpdir()
  local d = tmp .. "/a/b"
  T.eq(nb.outdir { d }, d)
  T.eq(files(tmp), "", "made, empty")
  assert(E.shell("test -d " .. E.shell_quote(d)), "the folder exists")
  T.eq(nb.outdir { d }, d, "an existing folder is fine")
  -- a path under a regular file cannot be a folder
  assert(os.execute(": > " .. E.shell_quote(tmp .. "/file")))
  T.checkerr("notebook.outdir: cannot create the output folder " .. tmp .. "/file/x", nb.outdir, { tmp .. "/file/x" })
  T.checkerr('must be a non-empty path, got ""', nb.outdir, { "" })
  os.execute("rm -rf " .. E.shell_quote(tmp))
end)

T.done()
