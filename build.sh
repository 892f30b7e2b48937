#!/usr/bin/env bash
# dlbench's two commands (see README.md):
#   ./build.sh        install what is missing, build, run the tour (writes figures to out/)
#   ./build.sh test   install what is missing, build release + sanitizer flavours, run all tests
# Other targets: ./build.sh build | gallery | bench | install PREFIX | install-only PREFIX
set -euo pipefail
cd "$(dirname "$0")"

# Every dependency is a Debian 12 package.
PACKAGES="build-essential pkg-config liblua5.4-dev libcairo2-dev libreadline-dev premake4 luajit
fonts-dejavu-core tmux poppler-utils libxml2-utils clang libclang-rt-14-dev"

need_packages() {
  local missing=() p
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
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

generate() {
  local premake=premake4
  command -v premake5 >/dev/null 2>&1 && premake=premake5
  "$premake" --file=premake5.lua gmake >/dev/null
}

build() { # build FLAVOUR...
  generate
  local c
  for c in "$@"; do
    make -s -C build config="$c" -j"$jobs"
  done
}

# install_into PREFIX: bin/dlbench, lib/libdlbench.{a,so}, include/dlbench/*.h,
# share/dlbench/lua/dlbench/*.lua (where the installed dlbench and LuaJIT's FFI find them).
install_into() {
  local prefix=$1 f
  for f in build/bin/dlbench build/lib/static/libdlbench.a build/lib/libdlbench.so; do
    [ -f "$f" ] || { echo "build.sh: $f is missing; run ./build.sh build first" >&2; exit 1; }
  done
  install -d "$prefix/bin" "$prefix/lib" "$prefix/include/dlbench" "$prefix/share/dlbench/lua/dlbench"
  install -m 755 build/bin/dlbench "$prefix/bin/"
  install -m 644 build/lib/static/libdlbench.a "$prefix/lib/"
  install -m 755 build/lib/libdlbench.so "$prefix/lib/"
  install -m 644 graphs/dlbench.h graphs/dlb_[a-hj-z]*.h plots/dlbplot.h "$prefix/include/dlbench/"
  (cd lua && find dlbench -name '*.lua' -exec install -D -m 644 {} "$prefix/share/dlbench/lua/{}" \;)
  echo "installed into $prefix"
}

case "${1:-tour}" in
  tour)
    need_packages
    build release
    mkdir -p out
    build/bin/dlbench run notebooks/tour.lua
    ;;
  test)
    need_packages
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
    build/bin/dlbench run notebooks/gallery.lua
    ;;
  bench)
    need_packages
    build release
    for b in tests/bench/bench_*; do
      case $b in
        *.lua) build/bin/dlbench run "$b" ;;
        *.sh) bash "$b" ;;
      esac
    done
    ;;
  install)
    prefix=${2:-${PREFIX:-/usr/local}}
    need_packages
    build release
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
