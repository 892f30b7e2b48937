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

local warn = { "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-fPIC" }
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
  includedirs { "graphs", "plots", "/usr/include/cairo", "/usr/include/lua5.4" }
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

-- libdlbench: the numeric core (graphs/) and the figures (plots/). No Lua in here.
local libfiles = { "graphs/*.c", "graphs/*.h", "plots/*.c", "plots/*.h" }

project "dlbench_static"
  kind "StaticLib"
  targetname "dlbench"
  files(libfiles)
  objdir "build/obj/static"
  outputs "lib/static" -- its own folder, so -ldlbench can only find the archive

project "dlbench_shared"
  kind "SharedLib"
  targetname "dlbench"
  files(libfiles)
  objdir "build/obj/shared"
  links(syslibs)
  -- Only DLB_API functions (graphs/dlb_export.h) are exported from the shared library.
  buildoptions { "-fvisibility=hidden" }
  outputs "lib"
  -- The FFI declarations are generated from the header's marked regions, never hand-copied.
  prebuildcommands { "luajit ../host/gen_cdef.lua ../graphs/dlbench.h ../lua/dlbench/ffi_cdef.lua" }

-- The `dlbench` executable: the Lua 5.4 host (REPL, batch runner) and the C-API bindings.
project "dlbench"
  kind "ConsoleApp"
  files { "host/*.c", "host/*.h" }
  objdir "build/obj/host"
  links { "dlbench_static", "lua5.4", "readline" }
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
