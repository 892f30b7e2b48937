#!/usr/bin/env bash
# tests/tools/coverage_build.sh DIR: a `dlbench` built with gcc --coverage at -O0 in DIR
# (DIR/bin/dlbench; objects and their .gcno/.gcda under DIR/obj), from the library's, the
# host's and proc/'s sources as the release flavour lists them (premake5.lua), for
# tests/tools/subset_coverage.sh. Needs ./build.sh build first (build/gen/'s generated C).
# Incremental: make -j2 with a small Makefile of its own in DIR. Not part of the suite.
set -eu
cd "$(dirname "$0")/../.."
dir=${1:?usage: tests/tools/coverage_build.sh DIR}
mkdir -p "$dir"
root=$(pwd)
[ -f build/gen/lbind_gen.c ] && [ -f build/gen/onnx.pb-c.c ] || { echo "run ./build.sh build first" >&2; exit 2; }
srcs=$(ls graphs/*.c graphs/*/*.c plots/*.c host/*.c proc/*.c build/gen/lbind_gen.c build/gen/onnx.pb-c.c 2>/dev/null || true)
incs="-Igraphs $(for d in graphs/*/; do printf -- '-I%s ' "${d%/}"; done) -Iplots -Ibuild/gen -Ihost -Iproc"
incs="$incs $(pkg-config --cflags-only-I cairo lua5.4)"
{
  echo "CFLAGS = -std=c11 -D_GNU_SOURCE -DDLB_READLINE_GNU -O0 -g --coverage $incs"
  echo "LIBS = -llua5.4 -lreadline -lcairo -lm -lpthread -lyajl -lz -lprotobuf-c -ldl"
  objs=""
  for s in $srcs; do
    o="$dir/obj/${s%.c}.o"; objs="$objs $o"
    echo "$o: $root/$s"; printf '\t@mkdir -p $(@D) && cd %s && $(CC) $(CFLAGS) -MMD -c %s -o $@\n' "$root" "$s"
    echo "-include ${o%.o}.d"
  done
  echo "$dir/bin/dlbench:$objs"
  printf '\t@mkdir -p $(@D) && $(CC) --coverage -Wl,-E -o $@ $^ $(LIBS)\n'
} >"$dir/Makefile"
nice make -s -f "$dir/Makefile" -j2 "$dir/bin/dlbench"
