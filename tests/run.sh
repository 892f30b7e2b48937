#!/usr/bin/env bash
# tests/run.sh — run the whole test suite against built flavours and print one closing line
# "N passed, N failed". Usage: tests/run.sh [release] [asan]   (default: both)
#   release: C unit tests, Lua tests inside dlbench, the Lua tests under LuaJIT's FFI,
#            FFI symbol resolution, REPL tests through a pseudo-terminal (tmux), CLI tests
#   asan:    C unit tests and Lua tests built with -fsanitize=address,undefined; the random
#            API fuzzer on both backends and the libFuzzer harnesses (tests/fuzz/)
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
flavours=("$@")
[ ${#flavours[@]} -eq 0 ] && flavours=(release asan)

passed=0 failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# run NAME CMD...: run a program that ends with "N passed, N failed"; add its counts.
run() {
  local name=$1; shift
  local out="$log/out" rc
  timeout 600 "$@" >"$out" 2>"$log/err"; rc=$?
  local line p f
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  if [ -n "$line" ]; then
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
  else
    p=0; f=1
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # a crash after the summary still fails
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -ne 0 ]; then
    printf 'FAIL %-40s %s passed, %s failed (exit %s)\n' "$name" "$p" "$f" "$rc"
    grep -E '^not ok' "$out" | sed 's/^/     /'
    sed 's/^/     | /' "$log/err" | tail -n 40
  else
    printf 'ok   %-40s %s passed\n' "$name" "$p"
  fi
}

export LUA_PATH="$root/tests/lua/?.lua;;"
export DLBENCH_HISTORY=""
for fl in "${flavours[@]}"; do
  case $fl in
    release) bin=build/bin; tst=build/tests ;;
    asan) bin=build/asan/bin; tst=build/asan/tests
          export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
          export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ;;
    *) echo "tests/run.sh: unknown flavour '$fl' (release, asan)"; exit 2 ;;
  esac
  echo "== $fl"
  for t in "$tst"/test_*; do
    [ -x "$t" ] && run "$fl C $(basename "$t")" "$t"
  done
  for t in tests/lua/test_*.lua; do
    run "$fl lua $(basename "$t" .lua)" "$bin/dlbench" run "$t"
  done
  if [ "$fl" = release ]; then
    for t in tests/lua/test_*.lua; do
      LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;$root/tests/lua/?.lua;;" \
      LD_LIBRARY_PATH="$root/build/lib" DLB_BACKEND=ffi \
        run "ffi lua $(basename "$t" .lua)" luajit "$t"
    done
    LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;$root/tests/lua/?.lua;;" \
    LD_LIBRARY_PATH="$root/build/lib" DLB_BACKEND=ffi \
      run "ffi symbols" luajit tests/lua/ffi_symbols.lua
    for t in tests/sh/test_*.sh; do
      [ -f "$t" ] && run "sh $(basename "$t" .sh)" bash "$t" "$root/$bin/dlbench"
    done
  fi
  if [ "$fl" = asan ]; then
    # hostile input (issue 18): the random API fuzzer on both backends under the sanitizers,
    # and every libFuzzer harness tests/fuzz/fuzz_*.c for a few seconds each
    run "asan fuzz api capi" bash tests/fuzz/api_run.sh capi 20000 1
    run "asan fuzz api ffi" bash tests/fuzz/api_run.sh ffi 20000 1
    run "fuzz libFuzzer harnesses" bash tests/fuzz/run.sh 6
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
