# test_install.sh — `./build.sh install-only PREFIX` into a temporary folder: the installed
# dlbench finds its Lua library under PREFIX/share/lua/5.4 (not the source tree) from any
# folder, the headers and static library build a C program (flags from dlbench.pc), LuaJIT's
# FFI loads PREFIX/lib, the shared library carries its SONAME and exports only dlb_*, and
# DESTDIR stages the same layout under another root.
# Reuses the built binaries (install-only does not build): about 3 s, most of it the five C
# programs it compiles.
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
         include/dlbench/dlbplot.h share/lua/5.4/dlbench/init.lua \
         share/lua/5.4/dlbench/pretty.lua share/lua/5.1/dlbench/ffi_cdef.lua \
         lib/pkgconfig/dlbench.pc share/man/man1/dlbench.1 share/doc/dlbench/LICENSE \
         lib/libdlbench_proc.a include/dlbench/dlb_proc.h include/dlbench/dlb_sys.h \
         lib/pkgconfig/dlbench-proc.pc share/lua/5.1/dlbench/ffi_cdef_proc.lua; do
  [ -f "$prefix/$f" ] || { t_fail "layout" "$f missing"; }
done
# the Jupyter kernel's spec points at the installed wrapper and dlbench
spec=$prefix/share/jupyter/kernels/dlbench/kernel.json
[ -f "$prefix/share/dlbench/jupyter/dlbench_kernel.py" ] && grep -q "\"$prefix/share/dlbench/jupyter/dlbench_kernel.py\"" "$spec" \
  && grep -q "\"DLBENCH\": \"$prefix/bin/dlbench\"" "$spec" && grep -q '"{connection_file}"' "$spec" \
  && t_ok "the Jupyter kernel spec (share/jupyter/kernels/dlbench)" || t_fail "kernel spec" "$(cat "$spec" 2>&1)"
internal=$(cd "$prefix/include/dlbench" && ls dlb_runtime.h ./*_impl.h plot_internal.h 2>/dev/null | tr '\n' ' ')
[ -f "$prefix/include/dlbench/dlb_base.h" ] && [ -z "$internal" ] \
  && t_ok "layout (dlb_base.h installed, no internal header)" \
  || t_fail "layout (dlb_base.h installed, no internal header)" "installed: $internal"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
out=$(env -u DLBENCH_LUA_DIR -u LUA_PATH "$prefix/bin/dlbench" -e \
  'print(package.searchpath("dlbench", package.path)) print(require("dlbench").version())' 2>&1)
want="$(cd "$prefix" && pwd -P)/share/lua/5.4/dlbench/init.lua"
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
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
if cc -std=c11 -Wall -Werror $(pkg-config --cflags dlbench) "$tmp/v.c" \
     $(pkg-config --libs --static dlbench | sed "s|-ldlbench|$prefix/lib/libdlbench.a|") \
     -o "$tmp/v" 2>"$tmp/cc.log"; then
  out=$("$tmp/v")
  echo "$out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+ [0-9]+$' && t_ok "C program against the install" \
    || t_fail "C program against the install" "$out"
else
  t_fail "C program against the install" "$(cat "$tmp/cc.log")"
fi

# The same program against the shared library (QA): plain `pkg-config --libs` links
# libdlbench.so, the program needs the SONAME and runs from PREFIX/lib.
if [ -f "$root/build/lib/libdlbench.so" ]; then
  if cc -std=c11 -Wall -Werror $(pkg-config --cflags dlbench) "$tmp/v.c" $(pkg-config --libs dlbench) \
       -o "$tmp/vs" 2>"$tmp/ccs.log" \
     && objdump -p "$tmp/vs" | grep -q "NEEDED *libdlbench.so.[0-9]" \
     && LD_LIBRARY_PATH="$prefix/lib" "$tmp/vs" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+ [0-9]+$'; then
    t_ok "C program against the installed shared library"
  else
    t_fail "C program against the installed shared library" "$(cat "$tmp/ccs.log"; objdump -p "$tmp/vs" 2>&1 | grep NEEDED)"
  fi
fi

# libdlbench_proc (the worker pool, proc/) through its own .pc: a C program forks a worker,
# reads its word and reaps it, against the archives and (QA) the shared libraries.
cat >"$tmp/p.c" <<'EOF2'
#include <stdio.h>
#include "dlbench.h"
#include "dlb_proc.h"
int main(void) {
  int pid, wfd, rfd, state, code;
  char buf[8];
  size_t got = 0;
  if (dlb_proc_spawn(&pid, &wfd, &rfd) != DLB_OK) return 1;
  if (pid == 0) { dlb_proc_write(wfd, "ok", 2); dlb_proc_exit(7); }
  dlb_proc_read(rfd, buf, sizeof buf, &got);
  dlb_proc_wait(pid, 1, &state, &code);
  printf("%.*s %d %d\n", (int)got, buf, state == DLB_PROC_EXITED, code);
  /* the pool's failures are read from libdlbench's error slot */
  if (dlb_proc_kill(0, 9) == DLB_OK) return 2;
  printf("%s\n", dlb_last_error());
  return 0;
}
EOF2
want_p="ok 1 7
proc: refusing to signal pid 0"
if cc -std=c11 -Wall -Werror $(pkg-config --cflags dlbench-proc) "$tmp/p.c" \
     $(pkg-config --libs --static dlbench-proc | sed "s|-ldlbench_proc|$prefix/lib/libdlbench_proc.a|; s|-ldlbench |$prefix/lib/libdlbench.a |") \
     -o "$tmp/p" 2>"$tmp/ccp.log" && [ "$("$tmp/p")" = "$want_p" ]; then
  t_ok "C program using the pool against the installed archives (dlbench-proc.pc)"
else
  t_fail "C program using the pool against the installed archives (dlbench-proc.pc)" "$(cat "$tmp/ccp.log"; "$tmp/p" 2>&1)"
fi
if [ -f "$root/build/lib/libdlbench_proc.so" ]; then
  if cc -std=c11 -Wall -Werror $(pkg-config --cflags dlbench-proc) "$tmp/p.c" $(pkg-config --libs dlbench-proc) \
       -o "$tmp/ps" 2>"$tmp/ccps.log" \
     && objdump -p "$tmp/ps" | grep -q "NEEDED *libdlbench_proc.so.[0-9]" \
     && [ "$(LD_LIBRARY_PATH="$prefix/lib" "$tmp/ps")" = "$want_p" ]; then
    t_ok "C program using the pool against the installed shared libraries"
  else
    t_fail "C program using the pool against the installed shared libraries" "$(cat "$tmp/ccps.log"; objdump -p "$tmp/ps" 2>&1 | grep NEEDED)"
  fi
fi

if command -v luajit >/dev/null; then
  lp="$prefix/share/lua/5.1/?.lua;$prefix/share/lua/5.1/?/init.lua;;"
  out=$(env -u LD_LIBRARY_PATH -u DLBENCH_LIB LUA_PATH="$lp" DLB_BACKEND=ffi luajit -e \
    'local d = require "dlbench" print(d.backend, d.version())' 2>&1)
  echo "$out" | grep -qE '^ffi	[0-9]+\.[0-9]+\.[0-9]+$' && t_ok "LuaJIT FFI loads PREFIX/lib" \
    || t_fail "LuaJIT FFI loads PREFIX/lib" "$out"
fi
# The shared library: SONAME libdlbench.so.ABI (the header's DLB_ABI_VERSION), only dlb_*
# exported.
if [ -f "$root/build/lib/libdlbench.so" ]; then
  v=$(sed -n 's/^#define DLB_VERSION "\(.*\)"$/\1/p' "$root/graphs/base/dlb_base.h")
  abi=$(sed -n 's/^enum { DLB_ABI_VERSION = \([0-9]*\) };$/\1/p' "$root/graphs/base/dlb_base.h")
  soname=$(objdump -p "$prefix/lib/libdlbench.so" | awk '$1 == "SONAME" {print $2}')
  [ -n "$abi" ] && [ "$soname" = "libdlbench.so.$abi" ] && t_ok "SONAME $soname" \
    || t_fail "SONAME" "got '$soname' for ABI '$abi'"
  [ "$(readlink "$prefix/lib/libdlbench.so.$abi")" = "libdlbench.so.$v" ] \
    && t_ok "SONAME link" || t_fail "SONAME link" "$(ls -l "$prefix/lib")"
  soname=$(objdump -p "$prefix/lib/libdlbench_proc.so" | awk '$1 == "SONAME" {print $2}')
  [ "$soname" = "libdlbench_proc.so.$abi" ] \
    && [ "$(readlink "$prefix/lib/libdlbench_proc.so.$abi")" = "libdlbench_proc.so.$v" ] \
    && t_ok "libdlbench_proc: SONAME $soname and its link" \
    || t_fail "libdlbench_proc: SONAME and its link" "got '$soname'; $(ls -l "$prefix/lib")"
  others=$(nm -D --defined-only "$prefix/lib/libdlbench.so" | awk '{print $3}' | grep -v '^dlb_')
  n=$(nm -D --defined-only "$prefix/lib/libdlbench.so" | grep -c ' dlb_')
  [ -z "$others" ] && [ "$n" -gt 100 ] && t_ok "exports only dlb_* ($n symbols)" \
    || t_fail "exports only dlb_*" "also exported: $(echo $others | head -c 400); dlb_: $n"
fi
grep -q "^Version: $(sed -n 's/^#define DLB_VERSION "\(.*\)"$/\1/p' "$root/graphs/base/dlb_base.h")$" \
  "$prefix/lib/pkgconfig/dlbench.pc" && t_ok "dlbench.pc version" \
  || t_fail "dlbench.pc version" "$(cat "$prefix/lib/pkgconfig/dlbench.pc")"
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$prefix/share/man/man1/dlbench.1" 2>/dev/null | grep -q "dlbench run" \
  && t_ok "man page renders" || t_fail "man page renders" "man -l gave no 'dlbench run'"
else
  head -n 3 "$prefix/share/man/man1/dlbench.1" | grep -q "^\.TH DLBENCH 1" && t_ok "man page (no man to render it)" \
    || t_fail "man page" "no .TH line"
fi

# The static archive defines no unprefixed global names (issue [13]: a user's own check_opts
# used to clash with the library's at link time): dlb_ (graphs/), dlbp_ (plots/ internals) and
# the onnx__ names protoc-c gives onnx.proto's messages (build/gen, generated).
stray=$(nm -g --defined-only "$prefix/lib/libdlbench.a" "$prefix/lib/libdlbench_proc.a" | awk 'NF == 3 {print $3}' \
  | grep -v '^dlb_\|^dlbp_\|^onnx__' | head -n 5)
[ -z "$stray" ] && t_ok "static archive: only prefixed global names" \
  || t_fail "static archive: only prefixed global names" "$stray"
cat >"$tmp/mine.c" <<'EOF2'
#include <stdio.h>
#include "dlbench.h"
/* names the library used for internal functions before they were prefixed */
int check_opts(void) { return 1; }
int series_data = 2;
int text_draw(int x) { return x; }
int main(void) { printf("%s %d\n", dlb_version(), check_opts() + series_data + text_draw(0)); return 0; }
EOF2
if cc -std=c11 -I"$prefix/include/dlbench" "$tmp/mine.c" \
     $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs --static dlbench \
       | sed "s|-ldlbench|$prefix/lib/libdlbench.a|") -o "$tmp/mine" 2>"$tmp/mine.log" \
   && "$tmp/mine" | grep -q " 3$"; then
  t_ok "a program's own check_opts links beside libdlbench.a"
else
  t_fail "a program's own check_opts links beside libdlbench.a" "$(head -n 5 "$tmp/mine.log")"
fi

# DESTDIR stages the install under another root with the prefix inside it.
if DESTDIR="$tmp/stage" "$root/build.sh" install-only /usr/local >"$tmp/log2" 2>&1 \
   && [ -x "$tmp/stage/usr/local/bin/dlbench" ] \
   && grep -q "^prefix=/usr/local$" "$tmp/stage/usr/local/lib/pkgconfig/dlbench.pc"; then
  t_ok "DESTDIR staging"
else
  t_fail "DESTDIR staging" "$(cat "$tmp/log2"; ls -R "$tmp/stage" 2>&1 | head -20)"
fi
t_done
