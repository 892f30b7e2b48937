-- dlbench build: `premake4 --file=premake5.lua gmake` (Debian 12) or `premake5 gmake`.
-- Written in the premake5 API; the shim below maps it onto premake 4.3 when `workspace` is nil.

if workspace == nil then
  workspace = solution
  function filter(f)
    if type(f) == "table" then f = f[1] end -- filter {} resets
    if f == nil then configuration {} else configuration((f:gsub("^configurations:", ""))) end
  end
  function symbols(v) if v == "On" then flags { "Symbols" } end end
  function optimize(v) if v ~= "Off" then flags { "OptimizeSpeed" } end end
end

-- Options (premake4 and premake5 alike): build.sh passes --werror for development and CI
-- builds; a distribution's build leaves it off. --static-only builds libdlbench.a and the
-- dlbench executable without the shared library, so neither LuaJIT nor the FFI files are
-- needed. --readline=gnu|libedit|none chooses the REPL's line editor (docs/host.md).
newoption { trigger = "werror", description = "Treat compiler warnings as errors (CI, development)" }
newoption { trigger = "static-only", description = "Build only the static library and the executable" }
newoption { trigger = "readline", value = "LIB", description = "REPL line editor: gnu (default), libedit or none" }

-- The version and the ABI version are written once, in graphs/base/dlb_base.h; the SONAME is
-- libdlbench.so.ABI, so an incompatible change (a new DLB_ABI_VERSION) is a new SONAME.
local function header_abi()
  local f = assert(io.open("graphs/base/dlb_base.h", "r"))
  local text = f:read("*a")
  f:close()
  return assert(text:match("enum { DLB_ABI_VERSION = (%d+) };"), "DLB_ABI_VERSION not found")
end
local abi = header_abi()

-- Include folders from pkg-config, not hard-coded paths.
local function pkg_includes(pkgs)
  local p = io.popen("pkg-config --cflags-only-I " .. pkgs .. " 2>/dev/null")
  local out = p and p:read("*a") or ""
  if p then p:close() end
  local dirs = {}
  for d in out:gmatch("%-I(%S+)") do dirs[#dirs + 1] = d end
  return dirs
end

local readline = _OPTIONS["readline"] or "gnu"
local readline_libs = { gnu = { "readline" }, libedit = { "edit" }, none = {} }
assert(readline_libs[readline], "--readline must be gnu, libedit or none")

local warn = { "-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE", "-fPIC" }
if _OPTIONS["werror"] then warn[#warn + 1] = "-Werror" end
local sanitize = { "-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                   "-fno-sanitize-recover=undefined" }
local syslibs = { "cairo", "m", "pthread" }
-- dlb.trace (graphs/io/trace.c): yajl, zlib; dlb.models.from_onnx (graphs/onnx*.c): protobuf-c;
-- dlb.measure (graphs/hw/measure.c) loads OpenBLAS when it first measures a GEMM (dlopen: libdl
-- where the C library does not hold it), so that a program that never measures never starts
-- OpenBLAS's threads (docs/measure.md, "OpenBLAS")
for _, l in ipairs { "yajl", "z", "protobuf-c", "dl" } do syslibs[#syslibs + 1] = l end

-- Per-configuration output folders: build/bin, build/lib (release); build/asan/... (sanitizers).
local function outputs(kindof)
  filter "configurations:release"
    targetdir("build/" .. kindof)
  filter "configurations:asan"
    targetdir("build/asan/" .. kindof)
  filter {}
end

workspace "dlbench"
  location "build"
  configurations { "release", "asan" }
  language "C"
  -- the core's concept folders (graphs/*/, each with its README.md) and plots/: headers are
  -- included by basename, as they are once installed (include/dlbench/, flat)
  includedirs { "graphs" }
  includedirs(os.matchdirs("graphs/*"))
  includedirs { "plots", "build/gen" }
  includedirs(pkg_includes("cairo lua5.4"))
  buildoptions(warn)
  filter "configurations:release"
    optimize "On"
    -- line tables only (-g1, after symbols' -g: gcc takes the last -g level): a backtrace,
    -- perf or a debugger still names every function, file and line, inlined frames
    -- included; no variables or types. The library compiles about a fifth faster than at
    -- -g (BENCHMARKS.md, "The whole suite"); the code generated is the same (-g never
    -- changes it)
    symbols "On"
    buildoptions { "-g1" }
    defines { "NDEBUG" }
  filter "configurations:asan"
    -- symbols "On" keeps the symbols at the link (without it premake links with -s and a
    -- sanitizer report names no function of ours: addresses only); its -g is overridden by
    -- the -g1 below (gcc takes the last -g level). Line tables only (-g1): all a sanitizer
    -- report's stack needs (file:line, inlined frames), and the flavour compiles about an
    -- eighth faster than with -g
    symbols "On"
    buildoptions { "-g1" }
    buildoptions(sanitize)
    -- -O1, as AddressSanitizer's documentation advises for reasonable performance: the
    -- sanitizer tests of C-heavy work run about a third faster than at -O0
    buildoptions { "-O1" }
    linkoptions(sanitize)
  filter {}

-- Both backends' binding glue is generated from host/bindings.lua (host/gen_bindings.lua):
-- now, in premake's own Lua (a --static-only build needs no LuaJIT), so that the generated
-- C file exists when the project's files are listed, and again before every build of the
-- host when LuaJIT is there (the generator rewrites only changed files).
-- The functions of libdlbench_proc (proc/dlb_proc.h) are described there too (LIB=HEADER).
-- lua/dlbench/desc_gen.lua is the same description as data (enums, struct fields) for the
-- Lua library under either backend (lua/dlbench/desc.lua reads it).
local genargs = { "host/bindings.lua", "graphs/dlbench.h", "build/gen/lbind_gen.c",
  "lua/dlbench/ffi_gen.lua", "lua/dlbench/desc_gen.lua" }
local genlibs = { proc = "proc/dlb_proc.h" }
local genbind = "luajit host/gen_bindings.lua " .. table.concat(genargs, " ") .. " proc=" .. genlibs.proc
do
  local saved = arg
  arg = { [0] = path.getabsolute("host/gen_bindings.lua") }
  for i, f in ipairs(genargs) do arg[i] = path.getabsolute(f) end
  arg[#arg + 1] = "proc=" .. path.getabsolute(genlibs.proc)
  dofile(arg[0])
  arg = saved
end

-- libdlbench: the numeric core (graphs/) and the figures (plots/). No Lua in here.
-- build/gen/onnx.pb-c.c: generated by build.sh (protoc-c on libonnx-dev's onnx.proto).
local libfiles = { "graphs/**.c", "graphs/**.h", "plots/*.c", "plots/*.h", "build/gen/onnx.pb-c.c" }

-- Each flavour compiles the library's objects once, for the archive: position-independent
-- (-fPIC, above) and with only the DLB_API functions (graphs/base/dlb_export.h) visible. The
-- shared library is the whole archive linked as one (-Wl,--whole-archive), so both hold the
-- very same objects and none is compiled twice.
local function whole_archive(name)
  filter "configurations:release"
    linkoptions { "-Wl,--whole-archive", "lib/static/lib" .. name .. ".a", "-Wl,--no-whole-archive" }
  filter "configurations:asan"
    linkoptions { "-Wl,--whole-archive", "asan/lib/static/lib" .. name .. ".a", "-Wl,--no-whole-archive" }
  filter {}
end

project "dlbench_static"
  kind "StaticLib"
  targetname "dlbench"
  files(libfiles)
  objdir "build/obj/static"
  buildoptions { "-fvisibility=hidden" }
  outputs "lib/static" -- its own folder, so -ldlbench can only find the archive

if not _OPTIONS["static-only"] then
project "dlbench_shared"
  kind "SharedLib"
  targetname "dlbench"
  files { "graphs/dlbench.h" } -- no sources of its own: the archive's objects
  objdir "build/obj/shared"
  links { "dlbench_static" }
  whole_archive "dlbench"
  links(syslibs)
  linkoptions { "-Wl,-soname,libdlbench.so." .. abi }
  outputs "lib"
  -- The FFI declarations are generated from the header's marked regions, never hand-copied.
  prebuildcommands { "luajit ../host/gen_cdef.lua ../graphs/dlbench.h ../lua/dlbench/ffi_cdef.lua" }
end

-- libdlbench_proc: the worker pool of parallel sweeps (proc/: fork, channels, wait, signals;
-- the checkpoint appends and the terminal), a library of its own beside the host so that
-- libdlbench, the numeric core, holds no process control (docs/architecture.md, "Layers").
-- It reports failures through libdlbench's error slot (dlb_error_set), so it links it; its
-- SONAME carries the same ABI number, from graphs/base/dlb_base.h.
local procfiles = { "proc/*.c", "proc/*.h" }

project "dlbench_proc_static"
  kind "StaticLib"
  targetname "dlbench_proc"
  files(procfiles)
  includedirs { "proc" }
  objdir "build/obj/proc_static"
  outputs "lib/static"

if not _OPTIONS["static-only"] then
project "dlbench_proc_shared"
  kind "SharedLib"
  targetname "dlbench_proc"
  files(procfiles) -- three small files: compiled again here, so that -ldlbench below
  includedirs { "proc" } -- can only be the shared library (lib/static is not searched)
  objdir "build/obj/proc_shared"
  links { "dlbench_shared" }
  buildoptions { "-fvisibility=hidden" }
  linkoptions { "-Wl,-soname,libdlbench_proc.so." .. abi }
  outputs "lib"
  -- its FFI declarations (lua/dlbench/ffi_cdef_proc.lua), generated like libdlbench's:
  -- the marked region of proc/dlb_proc.h, without those of dlbench.h it includes
  prebuildcommands { "luajit ../host/gen_cdef.lua ../proc/dlb_proc.h ../lua/dlbench/ffi_cdef_proc.lua ../graphs/dlbench.h" }
end

-- The `dlbench` executable: the Lua 5.4 host (REPL, batch runner) and the C-API bindings.
project "dlbench"
  kind "ConsoleApp"
  files { "host/*.c", "host/*.h", "build/gen/lbind_gen.c" }
  includedirs { "host", "proc" }
  objdir "build/obj/host"
  if not _OPTIONS["static-only"] then prebuildcommands { "cd .. && " .. genbind } end
  links { "dlbench_proc_static", "dlbench_static", "lua5.4" }
  links(readline_libs[readline])
  defines { "DLB_READLINE_" .. readline:upper() }
  links(syslibs)
  linkoptions { "-Wl,-E" }
  outputs "bin"

-- The C tests: each tests/test_<area>.c is a program of its own to run (build/tests/test_<area>,
-- "N passed, N failed"), but all of them are one executable a flavour, linked once
-- (build/tests/dlb_ctests; build/tests/test_<area> are symbolic links to it, and it runs the
-- test its name says). Each file is still compiled alone: build/gen/ctests/run_<name>.c
-- includes it with its main renamed <name>_main (its static names stay its own), and
-- build/gen/ctests/main.c chooses by name. One link a flavour instead of one a test file
-- (each linked the static library: 0.4 instead of 3.9 CPU-s of links in the sanitizer
-- flavour; BENCHMARKS.md "The whole suite").
local ctests = {}
for _, path in ipairs(os.matchfiles("tests/test_*.c")) do
  ctests[#ctests + 1] = path:match("tests/(test_[%w_]+)%.c$")
end
table.sort(ctests)
local function write_if_changed(file, text)
  local f = io.open(file, "r")
  local old = f and f:read("*a")
  if f then f:close() end
  if old == text then return end
  local tmp = file .. ".tmp" .. tostring(os.time()) .. tostring(math.random(1e9))
  f = assert(io.open(tmp, "w"))
  f:write(text)
  f:close()
  assert(os.rename(tmp, file))
end
os.mkdir("build/gen/ctests")
local ctest_files, decls, rows = { "tests/check.h", "build/gen/ctests/main.c" }, {}, {}
for _, name in ipairs(ctests) do
  local wrapper = "build/gen/ctests/run_" .. name .. ".c"
  write_if_changed(wrapper, "/* generated by premake5.lua: tests/" .. name .. ".c, its main renamed */\n"
    .. "#define main " .. name .. "_main\n#include \"" .. name .. ".c\"\n")
  ctest_files[#ctest_files + 1] = wrapper
  decls[#decls + 1] = "int " .. name .. "_main(void);\n"
  rows[#rows + 1] = "  { \"" .. name .. "\", " .. name .. "_main },\n"
end
write_if_changed("build/gen/ctests/main.c", table.concat {
  "/* generated by premake5.lua: the C tests' one executable runs the test its name\n",
  "** (build/tests/test_<area>, a link to it) or its first argument says. */\n",
  "#include <stdio.h>\n#include <string.h>\n", table.concat(decls),
  "static const struct { const char *name; int (*run)(void); } tests[] = {\n", table.concat(rows), "};\n",
  "int main(int argc, char **argv) {\n",
  "  const char *n = argc > 1 ? argv[1] : strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];\n",
  "  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)\n",
  "    if (strcmp(n, tests[i].name) == 0) return tests[i].run();\n",
  "  fprintf(stderr, \"dlb_ctests: no C test named '%s'; run it as one of:\", n);\n",
  "  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) fprintf(stderr, \" %s\", tests[i].name);\n",
  "  fprintf(stderr, \" (or dlb_ctests NAME)\\n\");\n",
  "  return 2;\n}\n" })
local function link_all(dir)
  local cmds = {}
  for _, name in ipairs(ctests) do cmds[#cmds + 1] = "ln -sf dlb_ctests " .. dir .. "/" .. name end
  return table.concat(cmds, " && ")
end

if #ctests > 0 then -- (a source tree without tests/, as tests/sh/test_build_variants.sh copies)
project "dlb_ctests"
  kind "ConsoleApp"
  files(ctest_files)
  includedirs { "tests", "proc" }
  objdir "build/obj/ctests"
  links { "dlbench_proc_static", "dlbench_static" }
  links(syslibs)
  -- the test programs' own files at -O1 with line tables (gcc takes the last -O and -g): they
  -- are checks and fixtures, the code under test is the library's, compiled as shipped; the
  -- 20 programs compile in about half the CPU time of -O3 -g (the suite's budget)
  filter "configurations:release"
    buildoptions { "-O1", "-g1" }
    postbuildcommands { link_all("tests") }
  -- and at -O0 in the sanitizer flavour: every access of the test's own code instrumented
  -- (none optimized away), the library under test as it is; compiles in about 60% of the
  -- CPU of -O1, and the programs ran in the same CPU as at -O1 (BENCHMARKS.md, "The whole
  -- suite")
  filter "configurations:asan"
    buildoptions { "-O0" }
    postbuildcommands { link_all("asan/tests") }
  filter {}
  outputs "tests"
end
