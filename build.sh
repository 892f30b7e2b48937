#!/usr/bin/env bash
# dlbench's two commands (see README.md):
#   ./build.sh        install what is missing, build, run the tour (writes figures to out/)
#   ./build.sh test   install what is missing, build release + sanitizer flavours, run all tests
# Other targets: ./build.sh build | gallery | bench | install [PREFIX] | install-only PREFIX
# (install honours PREFIX, default /usr/local, and DESTDIR, and never runs apt-get)
set -euo pipefail
cd "$(dirname "$0")"

# Every dependency is a Debian 12 package (README.md lists them by role: build, run, test).
PACKAGES="build-essential pkg-config liblua5.4-dev libcairo2-dev libreadline-dev premake4 luajit
fonts-dejavu-core tmux poppler-utils libxml2-utils libedit-dev
libopenblas-dev libyajl-dev zlib1g-dev protobuf-c-compiler libprotobuf-c-dev libonnx-dev
clang libclang-rt-14-dev"

# Test-only packages: what `./build.sh test` adds for the tests of the places researchers
# work (tests/sh/test_slurm.sh: a real single-node Slurm; tests/sh/test_kernel.sh: the
# Jupyter kernel run by nbclient) and of traces from a real profiler
# (tests/sh/test_record_traces.sh: PyTorch on CPU records training steps that dlbench reads).
# The tour (`./build.sh`) never installs them; where they cannot be installed those tests
# print why and skip.
TEST_PACKAGES="slurmctld slurmd slurm-client munge python3-ipykernel python3-nbclient python3-nbformat
python3-torch"

# Benchmark-only packages: what `./build.sh bench` adds (tests/bench/bench_plot.sh times
# figures as whole processes with hyperfine against Debian's matplotlib).
BENCH_PACKAGES="hyperfine python3-matplotlib"

# missing_packages [LIST] (default $PACKAGES): those dpkg does not have installed (one
# dpkg-query for the whole list: a process per package cost a second and a half).
missing_packages() {
  local p s have=" "
  while read -r p s; do
    [ "$s" = installed ] && have+="$p "
  done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' ${1:-$PACKAGES} 2>/dev/null)
  for p in ${1:-$PACKAGES}; do
    [[ $have == *" $p "* ]] || echo "$p"
  done
}

need_packages() { # need_packages [LIST] (default $PACKAGES)
  local missing=()
  mapfile -t missing < <(missing_packages "${1:-$PACKAGES}")
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "build.sh: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "build.sh: missing packages; run as root, or first:"
    echo "  sudo apt-get install -y ${missing[*]}"
    exit 1
  fi
}

jobs=$(nproc 2>/dev/null || echo 2)

# The ONNX reader's protobuf code, generated from the onnx.proto Debian's libonnx-dev ships
# (into build/gen, never committed); redone when the .proto is newer.
gen_onnx() {
  local proto=/usr/include/onnx/onnx.proto
  mkdir -p build/gen
  if [ ! -f build/gen/onnx.pb-c.c ] || [ "$proto" -nt build/gen/onnx.pb-c.c ]; then
    (cd /usr/include/onnx && protoc-c --c_out="$OLDPWD/build/gen" onnx.proto)
  fi
}

# Development and CI builds treat warnings as errors; `install` (what a distribution runs)
# does not. DLB_PREMAKE_FLAGS adds premake options (--static-only, --readline=libedit|none).
WERROR=--werror
generate() {
  gen_onnx
  local premake=premake4
  command -v premake5 >/dev/null 2>&1 && premake=premake5
  # shellcheck disable=SC2086
  "$premake" --file=premake5.lua $WERROR ${DLB_PREMAKE_FLAGS:-} gmake >/dev/null
}

# ar only adds and replaces members, so an archive updated in place keeps the object of a
# source file that was removed or moved (graphs/proc.c went to proc/): the library would
# carry code it no longer has. Drop any archive holding such a member; make remakes it.
drop_stale_archives() {
  local a m
  for a in build/lib/static/*.a build/*/lib/static/*.a; do
    [ -f "$a" ] || continue
    for m in $(ar t "$a"); do
      m=${m%.o}
      if [ -z "$(ls graphs/*/"$m.c" plots/"$m.c" proc/"$m.c" build/gen/"$m.c" 2>/dev/null)" ]; then
        echo "build.sh: $a holds $m.o, whose source is gone: remaking the archive" >&2
        rm -f "$a"
        break
      fi
    done
  done
}

# A dependency file (obj/.../x.d, written by the compiler) that names a source or header
# which was moved or removed stops make ("No rule to make target"): drop it with its
# object, and make compiles that file again.
drop_stale_depfiles() {
  local d f
  for d in $(find build/obj build/*/obj -name '*.d' 2>/dev/null); do
    for f in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$d"); do
      case $f in /*) ;; *) f=build/$f ;; esac  # the compiler writes them relative to build/
      if [ ! -e "$f" ]; then rm -f "$d" "${d%.d}.o"; break; fi
    done
  done
}

# build FLAVOUR...: the flavours side by side, each its own make -j$jobs. One after the other,
# each make's serial steps (the archive, the links, the generators) left a core idle; side
# by side the other flavour's compiles fill it (BENCHMARKS.md, "The whole suite"). They share
# no object or output folder; the generated files both write are written whole through a
# unique temporary, and only when changed (host/gen_regions.lua).
build() {
  generate
  drop_stale_archives
  drop_stale_depfiles
  local c pids=() rc=0
  for c in "$@"; do
    make -s -C build config="$c" -j"$jobs" &
    pids+=($!)
  done
  for c in "${pids[@]}"; do wait "$c" || rc=1; done
  return "$rc"
}

# The version and the ABI version (the SONAME's number), written once in graphs/base/dlb_base.h
# (premake5.lua reads them there too).
version() { sed -n 's/^#define DLB_VERSION "\(.*\)"$/\1/p' graphs/base/dlb_base.h; }
abi() { sed -n 's/^enum { DLB_ABI_VERSION = \([0-9]*\) };$/\1/p' graphs/base/dlb_base.h; }

# The public headers, listed: what a C user includes (no *_impl.h, nor graphs/base/dlb_runtime.h);
# proc/dlb_proc.h is libdlbench_proc's.
PUBLIC_HEADERS="graphs/dlbench.h graphs/base/dlb_base.h graphs/base/dlb_export.h
graphs/base/dlb_sys.h graphs/base/dlb_file.h graphs/ir/dlb_poly.h graphs/ir/dlb_graph.h
graphs/hw/dlb_hw.h graphs/hw/dlb_roofline.h graphs/sweep/dlb_sweep.h graphs/hw/dlb_energy.h graphs/hw/dlb_measure.h
graphs/stats/dlb_stats.h graphs/stats/dlb_scaling.h graphs/stats/dlb_minimize.h
graphs/parallel/dlb_parallel.h graphs/io/dlb_onnx.h graphs/io/dlb_json.h graphs/io/dlb_trace.h
plots/dlbplot.h proc/dlb_proc.h"

# install_into PREFIX: the layout of docs/host.md, staged under $DESTDIR when it is set.
#   bin/dlbench; lib/libdlbench.so.VERSION with the SONAME link libdlbench.so.MAJOR and the
#   development link libdlbench.so; lib/libdlbench.a; the same for libdlbench_proc (the
#   worker pool, proc/); lib/pkgconfig/dlbench.pc and dlbench-proc.pc;
#   include/dlbench/*.h; share/lua/5.4/dlbench (the dlbench host and Debian's Lua 5.4 look
#   there) and share/lua/5.1/dlbench (LuaJIT's path, for the FFI backend);
#   share/man/man1/dlbench.1; share/doc/dlbench/{LICENSE,README.md}; the Jupyter kernel:
#   share/jupyter/kernels/dlbench/kernel.json and share/dlbench/jupyter/dlbench_kernel.py.
# Never installs packages. A --static-only build installs no shared library.
install_into() {
  local prefix=$1 dest=${DESTDIR:-} f v major h
  v=$(version); major=$(abi)
  for f in build/bin/dlbench build/lib/static/libdlbench.a build/lib/static/libdlbench_proc.a; do
    [ -f "$f" ] || { echo "build.sh: $f is missing; run ./build.sh build first" >&2; exit 1; }
  done
  local root=$dest$prefix
  install -d "$root/bin" "$root/lib/pkgconfig" "$root/include/dlbench" "$root/share/man/man1" \
    "$root/share/doc/dlbench" "$root/share/lua/5.4" "$root/share/lua/5.1"
  install -m 755 build/bin/dlbench "$root/bin/"
  install -m 644 build/lib/static/libdlbench.a build/lib/static/libdlbench_proc.a "$root/lib/"
  # the generated Makefile says whether this build has a shared library: a --static-only
  # build after a default one leaves the old (stale) libdlbench.so in build/lib
  local shared=0
  grep -q '^PROJECTS.* dlbench_shared' build/Makefile 2>/dev/null && shared=1
  if [ $shared = 0 ] && [ -f build/lib/libdlbench.so ]; then
    echo "build.sh: not installing build/lib/libdlbench.so: left from an earlier build (this one is --static-only)" >&2
  fi
  local l
  for l in libdlbench libdlbench_proc; do
    if [ $shared = 1 ] && [ -f "build/lib/$l.so" ]; then
      install -m 755 "build/lib/$l.so" "$root/lib/$l.so.$v"
      ln -sf "$l.so.$v" "$root/lib/$l.so.$major"
      ln -sf "$l.so.$major" "$root/lib/$l.so"
    fi
  done
  # shellcheck disable=SC2086
  install -m 644 -t "$root/include/dlbench/" $PUBLIC_HEADERS
  # without a shared library, -ldlbench is the archive: its dependencies become public
  # (Requires: cairo, Libs: ... -lm -lpthread) so plain `pkg-config --libs dlbench` links
  local pcstatic=()
  [ $shared = 0 ] && pcstatic=(-e 's|^Requires.private:|Requires:|' -e '/^Libs.private:/d'
    -e "s|^Libs: \(.*\)$|Libs: \1 $(sed -n 's/^Libs.private: *//p' graphs/dlbench.pc.in)|")
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$v|g" "${pcstatic[@]}" graphs/dlbench.pc.in \
    >"$root/lib/pkgconfig/dlbench.pc"
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$v|g" proc/dlbench-proc.pc.in \
    >"$root/lib/pkgconfig/dlbench-proc.pc"
  chmod 644 "$root/lib/pkgconfig/dlbench.pc" "$root/lib/pkgconfig/dlbench-proc.pc"
  install -m 644 docs/dlbench.1 "$root/share/man/man1/dlbench.1"
  install -m 644 LICENSE README.md "$root/share/doc/dlbench/"
  # the Jupyter kernel `dlbench` (docs/jupyter.md): the wrapper kernel and its spec, where
  # Jupyter looks for PREFIX's kernels; its python is one that has ipykernel
  local py=/usr/bin/python3 p
  for p in /usr/bin/python3 python3; do
    if "$p" -c "import ipykernel" 2>/dev/null; then py=$(command -v "$p"); break; fi
  done
  install -d "$root/share/dlbench/jupyter" "$root/share/jupyter/kernels/dlbench"
  install -m 644 host/jupyter/dlbench_kernel.py "$root/share/dlbench/jupyter/"
  sed -e "s|@PYTHON@|$py|" -e "s|@KERNEL@|$prefix/share/dlbench/jupyter/dlbench_kernel.py|" \
    -e "s|@DLBENCH@|$prefix/bin/dlbench|" host/jupyter/kernel.json.in \
    >"$root/share/jupyter/kernels/dlbench/kernel.json"
  chmod 644 "$root/share/jupyter/kernels/dlbench/kernel.json"
  # one install per folder (a process per file made this the slowest part of an install)
  local d
  for luav in 5.4 5.1; do
    for d in $(cd lua && find dlbench -type d); do
      install -d "$root/share/lua/$luav/$d"
      find "lua/$d" -maxdepth 1 -name '*.lua' -exec install -m 644 -t "$root/share/lua/$luav/$d" {} +
    done
  done
  echo "installed into $root"
}

case "${1:-tour}" in
  tour)
    need_packages
    build release
    build/bin/dlbench run notebooks/tour.lua   # writes into out/, which it creates
    ;;
  test)
    need_packages
    # the test-only packages: a failure to install them skips their tests, not the suite
    (need_packages "$TEST_PACKAGES") || echo "build.sh: test packages not installed; the Slurm, Jupyter and PyTorch trace tests will skip"
    build release asan
    tests/run.sh release asan
    ;;
  build)
    need_packages
    build release
    ;;
  gallery)
    need_packages
    build release
    build/bin/dlbench run notebooks/gallery.lua out
    # the README's small copies, refreshed in the source tree
    cp out/gallery/readme/*.png docs/gallery/
    ;;
  bench)
    need_packages
    (need_packages "$BENCH_PACKAGES") || echo "build.sh: benchmark packages not installed; tests/bench/bench_plot.sh will fail"
    build release
    for b in tests/bench/bench_*; do
      case $b in
        *.lua) build/bin/dlbench run "$b" ;;
        *.sh) bash "$b" ;;
      esac
    done
    ;;
  install) # builds without -Werror if nothing is built yet; never runs apt-get
    prefix=${2:-${PREFIX:-/usr/local}}
    if [ ! -f build/bin/dlbench ]; then
      missing=$(missing_packages | tr '\n' ' ')
      if [ -n "${missing// /}" ]; then
        echo "build.sh: install builds first and needs: sudo apt-get install -y $missing" >&2
        exit 1
      fi
      WERROR=
      build release
    fi
    install_into "$prefix"
    ;;
  install-only) # install what `./build.sh build` made, without generating or building
    [ -n "${2:-}" ] || { echo "usage: ./build.sh install-only PREFIX" >&2; exit 2; }
    install_into "$2"
    ;;
  *)
    echo "usage: ./build.sh [tour|test|build|gallery|bench|install PREFIX|install-only PREFIX]" >&2
    exit 2
    ;;
esac
