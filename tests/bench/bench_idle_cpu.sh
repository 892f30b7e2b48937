#!/usr/bin/env bash
# bench_idle_cpu.sh — the CPU a process that loads dlbench spends while its script waits (0.5 s
# blocked on its standard input): what every test process and every user's run pays beside its
# own work, on both backends. Each is also run with OpenBLAS preloaded (LD_PRELOAD), as it was
# when libdlbench linked it: its thread pool, started as the library loads, spun on sched_yield
# about 0.1 s of CPU before sleeping. dlb.measure now loads OpenBLAS only when it first times
# a GEMM (graphs/hw/measure.c, docs/measure.md "OpenBLAS").
# usage: tests/bench/bench_idle_cpu.sh [runs]   (default 10; the median CPU-ms of each row)
set -eu
cd "$(dirname "$0")/../.."
runs=${1:-10}
root=$(pwd)
[ -x build/bin/dlbench ] && [ -f build/lib/libdlbench.so ] ||
  { echo "bench_idle_cpu: build first (./build.sh build)" >&2; exit 1; }
blas=$(ldconfig -p 2>/dev/null | awk '/libopenblas\.so\.0 /{print $NF; exit}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'io.read("a")' >"$tmp/wait.lua"
echo 'require("dlbench"); io.read("a")' >"$tmp/wait_ffi.lua"
row() { # row LABEL PRELOAD CMD...: median user+sys (ms) of runs runs
  local label=$1 pre=$2; shift 2
  for _ in $(seq "$runs"); do
    sleep 0.5 | LD_PRELOAD=$pre /usr/bin/time -o "$tmp/t" -f "%U %S" "$@" >/dev/null
    awk '{printf "%d\n", ($1 + $2) * 1000}' "$tmp/t"
  done | sort -n | awk -v l="$label" '{a[NR]=$1} END {printf "%-44s %4d CPU-ms (median of %d)\n", l, a[int((NR+1)/2)], NR}'
}
export LUA_PATH="$root/tests/lua/?.lua;;" DLBENCH_HISTORY=
row "dlbench run (capi), 0.5 s waiting" "" build/bin/dlbench run "$tmp/wait.lua"
ffi=(env LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;;" LD_LIBRARY_PATH="$root/build/lib" DLB_BACKEND=ffi)
row "luajit + require dlbench (ffi), 0.5 s waiting" "" "${ffi[@]}" luajit "$tmp/wait_ffi.lua"
if [ -n "$blas" ]; then
  row "the same capi, OpenBLAS preloaded" "$blas" build/bin/dlbench run "$tmp/wait.lua"
  row "the same ffi, OpenBLAS preloaded" "$blas" "${ffi[@]}" luajit "$tmp/wait_ffi.lua"
fi
