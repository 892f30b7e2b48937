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

-- The version and the ABI version are written once, in graphs/dlbench.h; the SONAME is
-- libdlbench.so.ABI, so an incompatible change (a new DLB_ABI_VERSION) is a new SONAME.
local function header_abi()
  local f = assert(io.open("graphs/dlbench.h", "r"))
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
-- dlb.measure and dlb.trace (graphs/measure.c, graphs/trace.c): OpenBLAS, yajl, zlib
for _, l in ipairs { "openblas", "yajl", "z" } do syslibs[#syslibs + 1] = l end

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
  includedirs { "graphs", "plots" }
  includedirs(pkg_includes("cairo lua5.4"))
  buildoptions(warn)
  filter "configurations:release"
    optimize "On"
    symbols "On"
    defines { "NDEBUG" }
  filter "configurations:asan"
    symbols "On"
    buildoptions(sanitize)
    linkoptions(sanitize)
  filter {}

-- Both backends' binding glue is generated from host/bindings.lua (host/gen_bindings.lua):
-- now, in premake's own Lua (a --static-only build needs no LuaJIT), so that the generated
-- C file exists when the project's files are listed, and again before every build of the
-- host when LuaJIT is there (the generator rewrites only changed files).
local genargs = { "host/bindings.lua", "graphs/dlbench.h", "build/gen/lbind_gen.c",
  "lua/dlbench/ffi_gen.lua" }
local genbind = "luajit host/gen_bindings.lua " .. table.concat(genargs, " ")
do
  local saved = arg
  arg = { [0] = path.getabsolute("host/gen_bindings.lua") }
  for i, f in ipairs(genargs) do arg[i] = path.getabsolute(f) end
  dofile(arg[0])
  arg = saved
end

-- libdlbench: the numeric core (graphs/) and the figures (plots/). No Lua in here.
local libfiles = { "graphs/*.c", "graphs/*.h", "plots/*.c", "plots/*.h" }

project "dlbench_static"
  kind "StaticLib"
  targetname "dlbench"
  files(libfiles)
  objdir "build/obj/static"
  outputs "lib/static" -- its own folder, so -ldlbench can only find the archive

if not _OPTIONS["static-only"] then
project "dlbench_shared"
  kind "SharedLib"
  targetname "dlbench"
  files(libfiles)
  objdir "build/obj/shared"
  links(syslibs)
  -- Only DLB_API functions (graphs/dlb_export.h) are exported from the shared library.
  buildoptions { "-fvisibility=hidden" }
  linkoptions { "-Wl,-soname,libdlbench.so." .. abi }
  outputs "lib"
  -- The FFI declarations are generated from the header's marked regions, never hand-copied.
  prebuildcommands { "luajit ../host/gen_cdef.lua ../graphs/dlbench.h ../lua/dlbench/ffi_cdef.lua" }
end

-- The `dlbench` executable: the Lua 5.4 host (REPL, batch runner) and the C-API bindings.
project "dlbench"
  kind "ConsoleApp"
  files { "host/*.c", "host/*.h", "build/gen/lbind_gen.c" }
  includedirs { "host" }
  objdir "build/obj/host"
  if not _OPTIONS["static-only"] then prebuildcommands { "cd .. && " .. genbind } end
  links { "dlbench_static", "lua5.4" }
  links(readline_libs[readline])
  defines { "DLB_READLINE_" .. readline:upper() }
  links(syslibs)
  linkoptions { "-Wl,-E" }
  outputs "bin"

-- One test program per tests/test_<area>.c, each linked against the static library.
for _, path in ipairs(os.matchfiles("tests/test_*.c")) do
  local name = path:match("tests/(test_[%w_]+)%.c$")
  project(name)
    kind "ConsoleApp"
    files { path, "tests/check.h" }
    objdir("build/obj/" .. name)
    links { "dlbench_static" }
    links(syslibs)
    outputs "tests"
end
