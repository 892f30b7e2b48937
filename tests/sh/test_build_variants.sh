# test_build_variants.sh — the builds a distribution makes: a copy of the sources generated
# with `--static-only --readline=none` (no shared library, so no LuaJIT and no FFI files;
# no line editor, so nothing GPL linked) and without --werror builds a dlbench that runs a
# script and answers at a prompt read from a pipe; `--readline=libedit` compiles the REPL
# against libedit's readline emulation where libedit-dev is installed.
# usage: bash tests/sh/test_build_variants.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"
# timestamps kept (cp -p), so that make can reuse the release build's library objects below
cp -rp "$root/graphs" "$root/plots" "$root/proc" "$root/host" "$root/lua" "$root/premake5.lua" "$root/build.sh" \
  "$root/LICENSE" "$root/README.md" "$src/"
mkdir -p "$src/docs" && cp "$root/docs/dlbench.1" "$src/docs/"
mkdir -p "$src/tests" # no test programs: the variant builds the library and the executable
mkdir -p "$src/build" && cp -rp "$root/build/gen" "$src/build/" # protoc-c's ONNX code (build.sh)
# The library's objects and archives of the release build already made (same compiler, same
# flags but -Werror, which changes no code): make reuses them where no source or header is
# newer, so the variant compiles only what it changes (the host, without a line editor) and
# links. Without a release build it compiles everything, as a distribution's build does.
for d in obj/static/release obj/proc_static/release obj/host/release lib/static; do
  [ -d "$root/build/$d" ] && mkdir -p "$src/build/$d" && cp -rp "$root/build/$d/." "$src/build/$d/"
done
# the host's objects too, but not those of the sources that include the line editor's header
# (host/lineedit.h): the variant compiles those with its own DLB_READLINE_ choice
for f in $(grep -l 'lineedit\.h' "$root"/host/*.c); do
  f=${f##*/}; rm -f "$src/build/obj/host/release/${f%.c}".[od]
done
premake=premake4
command -v premake5 >/dev/null 2>&1 && premake=premake5

cd "$src" || exit 1
if "$premake" --file=premake5.lua --static-only --readline=none gmake >"$tmp/gen.log" 2>&1; then
  t_ok "generate --static-only --readline=none"
else
  t_fail "generate --static-only --readline=none" "$(cat "$tmp/gen.log")"; t_done; exit 1
fi
grep -rq "luajit\|dlbench_shared" build/*.make build/Makefile 2>/dev/null \
  && t_fail "static-only needs no LuaJIT" "$(grep -rl "luajit\|dlbench_shared" build)" \
  || t_ok "static-only needs no LuaJIT"
grep -q -- "-Werror" build/*.make && t_fail "no -Werror without --werror" "found -Werror" \
  || t_ok "no -Werror without --werror"
if nice make -s -C build config=release dlbench -j2 >"$tmp/make.log" 2>&1; then
  t_ok "static-only build"
else
  t_fail "static-only build" "$(tail -n 30 "$tmp/make.log")"; t_done; exit 1
fi
ldd build/bin/dlbench | grep -q "readline\|libedit" \
  && t_fail "--readline=none links no line editor" "$(ldd build/bin/dlbench)" \
  || t_ok "--readline=none links no line editor"
out=$(build/bin/dlbench -e 'print(require("dlbench").version())' 2>&1)
echo "$out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' && t_ok "static-only dlbench runs" \
  || t_fail "static-only dlbench runs" "$out"
out=$(printf 'x = 6 * 7\nprint(x)\n' | build/bin/dlbench 2>&1)
[ "$out" = "42" ] && t_ok "script from a pipe without a line editor" \
  || t_fail "script from a pipe without a line editor" "$out"

# Installing the static-only build (QA): a libdlbench.so left in build/lib by an earlier
# default build is not installed, and dlbench.pc makes the archive's dependencies public so
# a C program using the figure API (cairo, libm) links with plain `pkg-config --libs`.
cp "$root/build/lib/libdlbench.so" build/lib/ 2>/dev/null || : >build/lib/libdlbench.so
if ./build.sh install-only "$tmp/prefix" >"$tmp/inst.log" 2>&1 && [ -f "$tmp/prefix/lib/libdlbench.a" ] \
   && [ ! -e "$tmp/prefix/lib/libdlbench.so" ] && grep -q "left from an earlier build" "$tmp/inst.log"; then
  t_ok "static-only install ships no stale shared library"
else
  t_fail "static-only install ships no stale shared library" "$(cat "$tmp/inst.log"; ls "$tmp/prefix/lib")"
fi
cat >"$tmp/fig.c" <<'EOF2'
#include <stdio.h>
#include "dlbench.h"
#include "dlbplot.h"
int main(void) {
  dlb_figure *f = dlb_figure_new(4, 3, 1, 1);
  printf("%d\n", dlb_figure_npanels(f));
  dlb_figure_free(f);
  return 0;
}
EOF2
if PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" sh -c 'cc -std=c11 $(pkg-config --cflags dlbench) "$1" \
     $(pkg-config --libs dlbench) -o "$2"' _ "$tmp/fig.c" "$tmp/fig" >"$tmp/fig.log" 2>&1 \
   && [ "$("$tmp/fig")" = 1 ]; then
  t_ok "static-only install: pkg-config --libs links the figure API"
else
  t_fail "static-only install: pkg-config --libs links the figure API" "$(head -c 600 "$tmp/fig.log")"
fi

if [ -f /usr/include/editline/readline.h ]; then
  ok=1
  for f in repl history complete; do
    gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -DDLB_READLINE_LIBEDIT -Igraphs $(printf -- "-I%s " graphs/*/) -Iplots -Iproc \
      $(pkg-config --cflags-only-I lua5.4) -c "host/$f.c" -o "$tmp/$f.o" 2>>"$tmp/edit.log" || ok=0
  done
  [ $ok = 1 ] && t_ok "REPL compiles against libedit" \
    || t_fail "REPL compiles against libedit" "$(cat "$tmp/edit.log")"
fi
t_done
