# test_install.sh — `./build.sh install-only PREFIX` into a temporary folder: the installed
# dlbench finds its Lua library under PREFIX/share (not the source tree) from any folder,
# the headers and static library build a C program, and LuaJIT's FFI loads PREFIX/lib.
# Reuses the built binaries (install-only does not build), so it runs in well under a second.
# usage: bash tests/sh/test_install.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

if "$root/build.sh" install-only "$prefix" >"$tmp/log" 2>&1; then
  t_ok "install-only"
else
  t_fail "install-only" "$(cat "$tmp/log")"; t_done; exit 1
fi
for f in bin/dlbench lib/libdlbench.a lib/libdlbench.so include/dlbench/dlbench.h \
         include/dlbench/dlbplot.h share/dlbench/lua/dlbench/init.lua \
         share/dlbench/lua/dlbench/pretty.lua share/dlbench/lua/dlbench/ffi_cdef.lua; do
  [ -f "$prefix/$f" ] || { t_fail "layout" "$f missing"; }
done
[ ! -e "$prefix/include/dlbench/dlb_internal.h" ] && t_ok "layout (internal header not installed)" \
  || t_fail "layout (internal header not installed)" "dlb_internal.h installed"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
out=$(env -u DLBENCH_LUA_DIR -u LUA_PATH "$prefix/bin/dlbench" -e \
  'print(package.searchpath("dlbench", package.path)) print(require("dlbench").version())' 2>&1)
want="$(cd "$prefix" && pwd -P)/share/dlbench/lua/dlbench/init.lua"
[ "$(echo "$out" | head -n 1)" = "$want" ] && t_ok "installed dlbench uses PREFIX/share" \
  || t_fail "installed dlbench uses PREFIX/share" "got '$out', want '$want'"
echo "$out" | tail -n 1 | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' && t_ok "require dlbench (installed)" \
  || t_fail "require dlbench (installed)" "$out"

printf 'print(dlb.pretty({1, x = 2}))\n' >"$tmp/s.lua"
out=$(env -u DLBENCH_LUA_DIR "$prefix/bin/dlbench" run "$tmp/s.lua" 2>&1)
[ "$out" = "{ 1, x = 2 }" ] && t_ok "installed run" || t_fail "installed run" "$out"

cat >"$tmp/v.c" <<'EOF2'
#include <stdio.h>
#include "dlbench.h"
int main(void) { printf("%s %d\n", dlb_version(), dlb_abi_version()); return 0; }
EOF2
if cc -std=c11 -Wall -Werror -I"$prefix/include/dlbench" "$tmp/v.c" "$prefix/lib/libdlbench.a" \
     $(pkg-config --libs cairo) -lm -o "$tmp/v" 2>"$tmp/cc.log"; then
  out=$("$tmp/v")
  echo "$out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+ [0-9]+$' && t_ok "C program against the install" \
    || t_fail "C program against the install" "$out"
else
  t_fail "C program against the install" "$(cat "$tmp/cc.log")"
fi

if command -v luajit >/dev/null; then
  lp="$prefix/share/dlbench/lua/?.lua;$prefix/share/dlbench/lua/?/init.lua;;"
  out=$(env -u LD_LIBRARY_PATH -u DLBENCH_LIB LUA_PATH="$lp" DLB_BACKEND=ffi luajit -e \
    'local d = require "dlbench" print(d.backend, d.version())' 2>&1)
  echo "$out" | grep -qE '^ffi	[0-9]+\.[0-9]+\.[0-9]+$' && t_ok "LuaJIT FFI loads PREFIX/lib" \
    || t_fail "LuaJIT FFI loads PREFIX/lib" "$out"
fi
t_done
