#!/usr/bin/env bash
# tests/fuzz/api_run.sh — run the random API fuzzer (tests/fuzz/api_fuzz.lua) on one backend
# under the sanitizer build, in a scratch folder, and report "N passed, N failed".
#   tests/fuzz/api_run.sh capi|ffi [CALLS [SEED [ROUNDS]]]   (defaults 20000, 1, 1)
# ROUNDS > 1 runs seeds SEED..SEED+ROUNDS-1 (one process each), the long form:
#   tests/fuzz/api_run.sh capi 100000 1 10   # a million calls
# capi: build/asan/bin/dlbench (ASan+UBSan, leaks checked). ffi: LuaJIT with libasan
# preloaded and build/asan/lib/libdlbench.so (ASan+UBSan; leaks not checked: LuaJIT does
# not run cdata finalizers at exit, so every live object would be reported). A crash, a
# sanitizer report or a hang fails; the failing call is then named by a traced re-run.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
backend=${1:-capi} calls=${2:-20000} seed=${3:-1} rounds=${4:-1}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export DLBENCH_HISTORY=""
luapath="$root/lua/?.lua;$root/lua/?/init.lua;;"
one() { # one SEED [trace]
  (cd "$scratch" && rm -rf ./* 2>/dev/null
   if [ "$backend" = ffi ]; then
     FUZZ_TRACE=${2:-0} ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:abort_on_error=0 \
     LD_PRELOAD=$(gcc -print-file-name=libasan.so) LUA_PATH="$luapath" \
     LD_LIBRARY_PATH="$root/build/asan/lib" DLB_BACKEND=ffi \
       timeout 900 luajit "$root/tests/fuzz/api_fuzz.lua" "$calls" "$1"
   else
     FUZZ_TRACE=${2:-0} ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:abort_on_error=0 LUA_PATH="$luapath" \
       timeout 900 "$root/build/asan/bin/dlbench" run "$root/tests/fuzz/api_fuzz.lua" "$calls" "$1"
   fi)
}
passed=0 failed=0
for ((s = seed; s < seed + rounds; s++)); do
  out=$(one "$s" 2>"$scratch.err"); rc=$?
  if [ $rc -eq 0 ] && grep -q '^1 passed, 0 failed' <<<"$out"; then
    passed=$((passed + 1))
    echo "ok   api_fuzz $backend seed $s: $(grep '^api_fuzz' "$scratch.err" | tail -n 1)"
  else
    failed=$((failed + 1))
    echo "not ok api_fuzz $backend seed $s (exit $rc)"
    grep -E 'ERROR: AddressSanitizer|runtime error|SUMMARY' "$scratch.err" | head -n 5 | sed 's/^/     | /'
    one "$s" 1 >/dev/null 2>"$scratch.trace"
    echo "     | crashed in: $(grep -a '^call ' "$scratch.trace" | tail -n 1 | cut -c1-200)"
  fi
done
rm -f "$scratch.err" "$scratch.trace"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
