#!/usr/bin/env bash
# tests/fuzz/run.sh — build every libFuzzer harness tests/fuzz/fuzz_<name>.c with clang
# (-fsanitize=fuzzer,address,undefined) and run it on its corpus tests/fuzz/corpus/<name>/.
#   tests/fuzz/run.sh [SECONDS] [NAME...]   run each harness SECONDS (default 6); one line
#                                           per harness and a closing "N passed, N failed"
#   FUZZ_RUNS=N tests/fuzz/run.sh 0 NAME    a long run: N executions (SECONDS 0 = no limit)
# The library is compiled once into build/fuzz/ (sources newer than their object are
# recompiled). A harness links libdlbench's sources plus what a line
# `/* fuzz-link: FILES AND FLAGS */` in it names (e.g. host/lutil.c -llua5.4).
# FUZZ_OUT=DIR builds and writes there instead (a long run beside the suite's short ones).
# FUZZ_JOBS=N runs N harnesses at once (default: the core count).
# FUZZ_ARGS="-max_len=4096 ..." adds libFuzzer options (recorded with a long run's command);
# the long runs of issue 23 use FUZZ_ARGS="-max_len=1048576 -rss_limit_mb=1024".
# Seeds: the committed corpus and the hostile files tests/lua/hostile_files.lua generates
# (deep ONNX, JSON and traces, up to 800 kB) into build/fuzz/seeds/<name>/ (made once, with
# whichever dlbench is built); libFuzzer reads them and never writes there.
# New inputs found by a run go to build/fuzz/found/<name>/, never into the committed
# corpus; a crash leaves its input in build/fuzz/crash-<name>-* and fails the harness.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
secs=${1:-6}; shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do n=${f##*/fuzz_}; names+=("${n%.c}"); done
fi
cc=${FUZZ_CC:-clang}
# FUZZ_NICE=1 runs the compiles and harnesses under nice (a long run beside other work); the
# suite's short runs are not niced, so that they do not trail the tests they run beside
nice=
[ -n "${FUZZ_NICE:-}" ] && nice=nice
out=${FUZZ_OUT:-build/fuzz}
mkdir -p "$out/obj"
incs=(-Igraphs $(printf -- "-I%s " graphs/*/) -Iplots -Iproc -Ihost -Ibuild/gen $(pkg-config --cflags-only-I cairo lua5.4))
# -gline-tables-only: all a sanitizer report's stack needs (file:line, inlined frames), as the
# ASan flavour's -g1; it compiles about a quarter faster than -g (planner.c: 2.5 -> 1.8 CPU-s)
flags=(-gline-tables-only -O1 -std=c11 -D_GNU_SOURCE -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined "${incs[@]}")
passed=0 failed=0
fail() { echo "not ok $1"; failed=$((failed + 1)); }

if ! command -v "$cc" >/dev/null 2>&1; then
  echo "tests/fuzz/run.sh: $cc not found (apt-get install clang libclang-rt-14-dev)"
  echo "0 passed, 1 failed"; exit 1
fi

# the library objects (recompiled when the source or any library header is newer)
newest_h=$(ls -t graphs/*.h graphs/*/*.h proc/*.h | head -n 1)
objs=()
pids=()
# What the harnesses reach, of the core (graphs/), the worker pool (proc/: libdlbench_proc)
# and protoc-c's ONNX code (build/gen/onnx.pb-c.c, made by build.sh); never the figures
# (plots/) nor the Lua glue (build/gen/lbind_gen.c). Where the release archives are newer
# than the sources and headers they are made from, gcc links the harnesses against them
# (all in one link: a stub main, a link map) and only the members that link pulls in are
# compiled here: 39 of 67 files (2026-11), since the harnesses reach the readers, not the
# planner or the roofline. Otherwise all of them.
lib_sources=(graphs/*/*.c proc/*.c build/gen/onnx.pb-c.c)
reached_sources() {
  local a=build/lib/static/libdlbench.a p=build/lib/static/libdlbench_proc.a newest h extra m
  [ -f "$a" ] && [ -f "$p" ] || return 1
  # each archive newer than what make rebuilds it from (libdlbench_proc: proc/ only; a core
  # header it does not include leaves it as it was)
  newest=$(ls -t "${lib_sources[@]}" "$newest_h" | head -n 1)
  [ "$a" -nt "$newest" ] && [ "$p" -nt "$(ls -t proc/*.c proc/*.h | head -n 1)" ] || return 1
  local tmp; tmp=$(mktemp -d) || return 1
  echo 'int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long);
int main(void) { return LLVMFuzzerTestOneInput(0, 0); }' >"$tmp/main.c"
  # one link of every harness at once (their extras together; each defines
  # LLVMFuzzerTestOneInput, so the first is kept): the same members as one link a harness
  # (the 39 files, diffed), in half the CPU (1.1 against 2.1 CPU-s for the seven)
  extra=$(sed -n 's#.*/\* fuzz-link: \(.*\) \*/.*#\1#p' tests/fuzz/fuzz_*.c | tr ' ' '\n' | sort -u | tr '\n' ' ')
  # shellcheck disable=SC2086
  gcc -std=c11 -D_GNU_SOURCE "${incs[@]}" "$tmp/main.c" tests/fuzz/fuzz_*.c $extra "$a" "$p" \
    -lcairo -lprotobuf-c -lyajl -lz -lm -lpthread -o "$tmp/a.out" -Wl,--allow-multiple-definition \
    -Wl,-Map="$tmp/map" 2>/dev/null || { rm -rf "$tmp"; return 1; }
  sed -n 's/.*libdlbench[_a-z]*\.a(\([^)]*\)\.o).*/\1/p' "$tmp/map" >"$tmp/members"
  for m in $(sort -u "$tmp/members"); do
    ls graphs/*/"$m.c" proc/"$m.c" build/gen/"$m.c" 2>/dev/null
  done
  rm -rf "$tmp"
}
reached=$(reached_sources) && [ -n "$reached" ] && mapfile -t lib_sources <<<"$reached"
for src in "${lib_sources[@]}"; do
  o="$out/obj/$(echo "$src" | tr / _).o"
  objs+=("$o")
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
    $nice "$cc" "${flags[@]}" -c "$src" -o "$o" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$(nproc)" ]; then wait "${pids[0]}" || { echo "not ok compiling $src"; }; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p" || echo "not ok compiling"; done
rm -f "$out/libdlbench_fuzz.a"
ar rcs "$out/libdlbench_fuzz.a" "${objs[@]}" || { echo "0 passed, 1 failed"; exit 1; }

seeds=build/fuzz/seeds
if [ ! -d "$seeds" ]; then
  for d in build/bin/dlbench build/asan/bin/dlbench; do
    if [ -x "$d" ]; then
      LUA_PATH="$root/tests/lua/?.lua;;" DLBENCH_HISTORY= "$d" run tests/lua/hostile_files.lua "$seeds.tmp" &&
        mv "$seeds.tmp" "$seeds"
      break
    fi
  done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Build every harness, then run them nproc at a time (each its own log), reporting in order.
built=()
# LLVM's linker where it is installed (clang's own; Debian's lld): a harness links in about
# two thirds of the CPU of GNU ld (0.5 against 0.73 CPU-s), the same objects and runtime
ld=()
command -v ld.lld >/dev/null 2>&1 && ld=(-fuse-ld=lld)
for n in "${names[@]}"; do
  h=tests/fuzz/fuzz_$n.c
  [ -f "$h" ] || { fail "$n: no $h"; continue; }
  extra=$(sed -n 's#.*/\* fuzz-link: \(.*\) \*/.*#\1#p' "$h" | head -n 1)
  # shellcheck disable=SC2086
  if ! $nice "$cc" "${flags[@]}" -fsanitize=fuzzer "${ld[@]}" "$h" $extra "$out/libdlbench_fuzz.a" \
       -lcairo -lprotobuf-c -lyajl -lz -lm -lpthread -o "$out/fuzz_$n" 2>"$out/$n.build.log"; then
    fail "$n: does not build"; sed 's/^/     | /' "$out/$n.build.log" | head -n 20; continue
  fi
  built+=("$n")
done
run_one() { # run_one NAME: the harness on its corpus; its exit status in $out/NAME.rc
  local n=$1 corpus=tests/fuzz/corpus/$1 found=$out/found/$1
  mkdir -p "$corpus" "$found"
  local args=(-rss_limit_mb=1024 -timeout=30 -artifact_prefix="$out/crash-$n-" -print_final_stats=1)
  [ "$secs" != 0 ] && args+=(-max_total_time="$secs")
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  [ -f "tests/fuzz/$n.dict" ] && args+=(-dict="tests/fuzz/$n.dict")
  # shellcheck disable=SC2206
  [ -n "${FUZZ_ARGS:-}" ] && args+=($FUZZ_ARGS)
  local extra_corpus=()
  [ -d "$seeds/$n" ] && extra_corpus=("$seeds/$n")
  $nice "$out/fuzz_$n" "${args[@]}" "$found" "$corpus" "${extra_corpus[@]}" >"$out/$n.log" 2>&1
  echo $? >"$out/$n.rc"
}
jobs_max=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
running=()
for n in "${built[@]}"; do
  rm -f "$out/$n.rc"
  run_one "$n" &
  running+=($!)
  if [ ${#running[@]} -ge "$jobs_max" ]; then wait "${running[0]}"; running=("${running[@]:1}"); fi
done
for p in "${running[@]}"; do wait "$p"; done
for n in "${built[@]}"; do
  log=$out/$n.log
  rc=$(cat "$out/$n.rc" 2>/dev/null || echo 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then
    echo "ok   fuzz_$n ${runs:-?} executions"
    passed=$((passed + 1))
  else
    fail "fuzz_$n (exit $rc after ${runs:-?} executions; log $log)"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 10 | sed 's/^/     | /'
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
