-- test_options.lua — the one option checker (lua/dlbench/options.lua): one message form,
--   unknown option 'x' for f (did you mean 'y'?); accepted: a, b, c
-- a suggestion only when one accepted name is close, the same answer on both backends, and
-- no module of the library that writes an unknown-option message of its own.
local T = require "harness"
local options = require "dlbench.options"
local dlb = require "dlbench"

T.test("the message form, with and without a suggestion", function()
  local valid = { width = true, height = true, dpi = true }
  T.eq(options.message("widht", valid, "plot.figure"),
    "unknown option 'widht' for plot.figure (did you mean 'width'?); accepted: dpi, height, width")
  T.eq(options.message("colour", valid, "plot.figure"),
    "unknown option 'colour' for plot.figure; accepted: dpi, height, width")
  -- a list is accepted as well as a set; the noun and the list as shown may be given
  T.eq(options.message("sise", { "name", "size", "bw" }, "levels[1]", "field"),
    "unknown field 'sise' for levels[1] (did you mean 'size'?); accepted: bw, name, size")
  T.eq(options.message("--thread", { "--threads", "--reps" }, "dlbench measure", "option"),
    "unknown option '--thread' for dlbench measure (did you mean '--threads'?); accepted: --reps, --threads")
  T.eq(options.message("seqq", { steps = true, seq = true }, "m", nil, "steps (seq)"),
    "unknown option 'seqq' for m (did you mean 'seq'?); accepted: steps (seq)")
end)

T.test("did you mean: only when close, by edit distance, case ignored", function()
  local v = { optimizer = true, precision = true, recompute = true, b = true, hw = true }
  T.eq(options.suggest("optimiser", v), "optimizer", "one substitution")
  T.eq(options.suggest("Precision", v), "precision", "case")
  T.eq(options.suggest("recompte", v), "recompute", "one deletion")
  T.eq(options.suggest("optmizr", v), "optimizer", "two edits on a long name")
  T.eq(options.suggest("optmzr", v), nil, "three edits: too far")
  T.eq(options.suggest("hx", v), "hw", "one edit on a short name")
  T.eq(options.suggest("xy", v), nil, "two edits on a short name: too far")
  T.eq(options.suggest("c", v), nil, "a one-letter key is never all edits")
  T.eq(options.suggest(3, v), nil, "non-string keys get no suggestion")
end)

T.test("check: the first unknown key in sorted order, at the user's line", function()
  local valid = { a = true, b = true }
  T.eq(options.unknown({ a = 1 }, valid, "f"), nil)
  T.eq(options.unknown({ zz = 1, c = 2, a = 1 }, valid, "f"), "unknown option 'c' for f; accepted: a, b")
  T.eq(options.unknown({ [1] = true }, valid, "f"), "unknown option '1' for f; accepted: a, b")
  local function f(o) local r = options.check(o, valid, "f"); return r end
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, e = pcall(function() f({ bb = 1 }) end)
  assert(not ok and e:find("test_options.lua:" .. line .. ": unknown option 'bb' for f (did you mean 'b'?)", 1, true), e)
  T.checkerr("f: options must be a table, got number", options.check, 5, valid, "f")
  T.eq(next(options.check(nil, valid, "f")), nil, "nil is {}")
  T.checkerr("options must be a table, got nil", options.check, nil, valid, "f", 2, true)
end)

T.test("the library's options go through it (a sample of the routed checks)", function()
  T.checkerr("unknown option 'jobz' for dlb.sweep (did you mean 'jobs'?); accepted: ", dlb.sweep,
    { a = { 1 } }, function() return {} end, { jobz = 2 })
  T.checkerr("unknown option 'tukee' for dlb.stats.box (did you mean 'tukey'?); accepted: percentiles, tukey",
    dlb.stats.box, { 1, 2, 3 }, { tukee = true })
  T.checkerr("unknown option 'rnak' for g:lora", function() return dlb.graph("x"):lora { rnak = 2 } end)
  T.checkerr("unknown option 'hw' for dlb.paradnn.evaluate; accepted: optimizer, per_op, platforms",
    dlb.paradnn.evaluate, "fc", { hw = 1 })
  T.checkerr("unknown field 'mem_bandwidth' for a device", dlb.hw.define,
    { name = "opt-test", peak = { fp32 = 1e12 }, mem_bw = 1e9, mem = 1e9, mem_bandwidth = 1 })
  T.checkerr("unknown field 'latncy' for links.intra (did you mean 'latency'?); accepted: bw, latency",
    dlb.hw.define, { name = "opt-test", peak = { fp32 = 1e12 }, mem_bw = 1e9, mem = 1e9,
      links = { intra = { bw = 1, latncy = 1 } } })
  T.checkerr("unknown option 'sepp' for dlb.read_csv (did you mean 'sep'?)", require("dlbench.table").parse_csv,
    "a\n1\n", { sepp = ";" })
end)

T.test("options.specs: one spec or a list of them, a wrong one named (fixes7)", function()
  local V = { k = true, by = true }
  T.eq(#options.specs(nil, V, "f top"), 0)
  T.eq(#options.specs(false, V, "f top"), 0)
  T.eq(#options.specs({}, V, "f top"), 0)
  local one = { k = 3 }
  T.eq(options.specs(one, V, "f top")[1], one, "a table with named fields: one spec")
  local two = { { k = 1 }, { by = "x" } }
  T.eq(options.specs(two, V, "f top"), two, "a list of specs")
  T.checkerr("f top must be a table {by, k} or a list of them, got number 3", options.specs, 3, V, "f top")
  T.checkerr("f top must be a table {by, k} or a list of them, got string x", options.specs, "x", V, "f top")
  T.checkerr("f top[2] must be a table {by, k}, got number 5", options.specs, { { k = 1 }, 5 }, V, "f top")
  T.checkerr("got a list with the field 'k'", options.specs, { { k = 1 }, k = 2 }, V, "f top")
  T.checkerr("unknown option 'kk' for f top (did you mean 'k'?)", options.specs, { kk = 1 }, V, "f top")
  T.checkerr("unknown option 'bye' for f top[2] (did you mean 'by'?)", options.specs, { {}, { bye = 1 } }, V, "f top")
  T.checkerr("f top must be a number or a spec, got boolean true", options.specs, true, V, "f top", 2,
    "a number or a spec")
end)

T.test("no module of the library writes its own unknown-option message", function()
  local p = assert(io.popen("ls lua/dlbench/*.lua lua/dlbench/models/*.lua"))
  local files = {}
  for f in p:lines() do files[#files + 1] = f end
  p:close()
  assert(#files > 40, "the modules are listed (run from the repository root)")
  for _, f in ipairs(files) do
    if not f:match("/options%.lua$") then
      local h = assert(io.open(f, "rb"))
      local text = h:read("*a")
      h:close()
      local n = 0
      for line in text:gmatch("[^\n]*") do
        n = n + 1
        -- a message of its own: the words in a string literal
        if line:match("[\"']unknown option") or line:match("[\"'][^\"']*: unknown option") then
          error(f .. ":" .. n .. ": an unknown-option message outside dlbench.options: " .. line, 0)
        end
      end
    end
  end
end)

-- Review 11: a proxy whose keys only __pairs shows (a read-only dlb.hw device) given where an
-- options table goes was seen empty by LuaJIT's pairs: dlb.roofline.gemm(m, n, k, device)
-- then failed inside the library ("bad argument #1 to 'hw_precision_id'") where dlbench named
-- the device's first field. The checker walks __pairs itself, so both backends say the same.
T.test("options.check walks a proxy's __pairs on both backends", function()
  local H100 = dlb.hw.get("H100")
  T.checkerr("unknown option 'attn_eff' for dlb.roofline.gemm; accepted: batch, precision",
    dlb.roofline.gemm, 64, 64, 64, H100)
  local data = { a = 1, zz = 2 }
  local proxy = setmetatable({}, { __index = data, __pairs = function() return next, data, nil end })
  T.checkerr("unknown option 'zz' for f (did you mean 'z'?)", options.check, proxy, { a = true, z = true }, "f")
  T.eq(options.check(setmetatable({}, { __index = data, __pairs = function() return next, { a = 1 }, nil end }),
    { a = true }, "f").a, 1, "a proxy of known keys passes")
end)

T.test("checkers name the first of several bad keys in sorted order, not pairs() order", function()
  -- pairs() order differs between backends and, for string keys, between runs of Lua 5.4
  -- (its string hashes are seeded per run): options.keys sorts, numbers before strings
  local ks = options.keys({ b = 1, a = 2, [2] = 0, [1] = 0, B = 3 })
  T.eq(table.concat(ks, " "), "1 2 B a b", "options.keys")
  T.checkerr("got a list with the field 'aa'", options.specs, { {}, zz = 1, aa = 2, mm = 3 },
    { x = true }, "f", 0)
  local path = os.tmpname()
  local f = assert(io.open(path, "w")); f:write("a,b\n1,2\n"); f:close()
  T.checkerr("type of 'a' must be", dlb.read_csv, path, { types = { z = "int", a = "float", m = "x" } })
  T.checkerr("types names column 'c', which the file lacks", dlb.read_csv, path,
    { types = { z = "number", c = "number", m = "number" } })
  os.remove(path)
  local L7 = dlb.serve.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 })
  T.checkerr("unknown target 'a'", dlb.serve.max_rate, L7, { hw = "H100-SXM", target = { z = 1, a = 1, m = 1 } })
  T.checkerr("unknown model field 'a'", dlb.serve.model, { layers = 2, heads = 32, hidden = 64, z = 1, a = 1, m = 1 })
end)

T.done()
