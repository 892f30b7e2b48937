#!/usr/bin/env bash
# tests/run.sh — run the whole test suite against built flavours and print one closing line
# "N passed, N failed". Usage: tests/run.sh [release] [asan]   (default: both)
#   release: C unit tests, Lua tests inside dlbench, the Lua tests under LuaJIT's FFI,
#            FFI symbol resolution, REPL tests through a pseudo-terminal (tmux), CLI tests
#   asan:    C unit tests and Lua tests built with -fsanitize=address,undefined; the random
#            API fuzzer on both backends and the libFuzzer harnesses (tests/fuzz/)
# The tests are independent programs: they run DLB_TEST_JOBS at a time (default: the core
# count + 1, since several wait on terminals and sleeps), each with its own output files,
# and their lines are printed in the order they were queued, as soon as the ones before
# them are done. The longest ones (by tests/durations.txt) are queued first so that the
# short ones fill the cores around them. DLB_TEST_JOBS=1 runs them one after another.
# DLB_TEST_TIMES=FILE appends each test's start, end (epoch seconds), CPU-s and name.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
# the notebooks write their figures to out/ (as ./build.sh tour does), whichever test runs first
mkdir -p out
flavours=("$@")
[ ${#flavours[@]} -eq 0 ] && flavours=(release asan)
for fl in "${flavours[@]}"; do
  case $fl in release|asan) ;; *) echo "tests/run.sh: unknown flavour '$fl' (release, asan)"; exit 2 ;; esac
done
jobs=${DLB_TEST_JOBS:-$(( $(nproc 2>/dev/null || echo 2) + 1 ))}

log=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$log"' EXIT
n=0          # tests queued
running=0    # tests running now

# one I NAME CMD...: run a program that ends with "N passed, N failed" (in the background,
# within the test's environment); leave its counts and report in $log/I. Around the test
# itself only builtins run (a process costs about 5 ms of CPU on the suite's VM, and this
# runs 290 times): bash's `times` for the CPU, mapfile for the summary line, a marker file
# for "done".
one() {
  local i=$1 name=$2; shift 2
  local out="$log/$i.out" err="$log/$i.err" rc line p f k
  local t0=$SECONDS s0=$EPOCHREALTIME
  timeout 600 "$@" >"$out" 2>"$err"; rc=$?
  # this subshell's children's CPU time (bash's times: the second line, user then system,
  # as 1m2.345s), in whole seconds (written to a file first: `times` in a command
  # substitution would report that subshell's)
  local cpu u s
  times >"$log/$i.times"
  { read -r _; read -r u s; } <"$log/$i.times"
  ms "$u"; cpu=$_ms; ms "$s"; cpu=$(( (cpu + _ms + 500) / 1000 ))
  # the last "N passed, N failed" line
  local lines
  mapfile -t lines <"$out"
  line=""
  for ((k = ${#lines[@]} - 1; k >= 0; k--)); do
    if [[ ${lines[k]} =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
      line=${lines[k]}; p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}; break
    fi
  done
  if [ -z "$line" ]; then p=0; f=1; fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # a crash after the summary still fails
  {
    if [ "$f" -ne 0 ]; then
      printf 'FAIL %-40s %s passed, %s failed (exit %s, %ss, %s CPU-s)\n' "$name" "$p" "$f" "$rc" $((SECONDS - t0)) "$cpu"
      grep -E '^not ok' "$out" | sed 's/^/     /'
      sed 's/^/     | /' "$err" | tail -n 40
    else
      printf 'ok   %-40s %s passed (%ss, %s CPU-s)\n' "$name" "$p" $((SECONDS - t0)) "$cpu"
    fi
  } >"$log/$i.report"
  echo "$p $f" >"$log/$i.counts"
  # DLB_TEST_TIMES=FILE: one line a test, "START END CPU-s NAME" (epoch seconds), to see
  # when each test ran (BENCHMARKS.md, "The whole suite")
  [ -n "${DLB_TEST_TIMES:-}" ] && echo "$s0 $EPOCHREALTIME $cpu $name" >>"$DLB_TEST_TIMES"
  : >"$log/$i.done"   # last: flush reads the report and counts only after this exists
}
# ms 1m2.345s: milliseconds, in $_ms (no subshell)
ms() {
  local x=${1%s} m sec frac
  m=${x%%m*}; x=${x#*m}; sec=${x%.*}; frac=${x#*.}
  _ms=$(( 10#$m * 60000 + 10#$sec * 1000 + 10#$frac ))
}

# flush: print the reports of the finished tests that come next in queue order (so the
# log reads in order and shows progress while later tests still run).
printed=0 passed=0 failed=0
flush() {
  local p f
  while [ -f "$log/$((printed + 1)).done" ]; do
    printed=$((printed + 1))
    cat "$log/$printed.report"
    read -r p f <"$log/$printed.counts"
    passed=$((passed + p)); failed=$((failed + f))
  done
}

# run NAME CMD...: queue a test; wait for a free slot first.
run() {
  while [ "$running" -ge "$jobs" ]; do wait -n; running=$((running - 1)); flush; done
  n=$((n + 1))
  one "$n" "$@" &
  running=$((running + 1))
}

export LUA_PATH="$root/tests/lua/?.lua;;"
export DLBENCH_HISTORY=""
ffi=(env LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;$root/tests/lua/?.lua;;"
     LD_LIBRARY_PATH="$root/build/lib" DLB_BACKEND=ffi)
# The sanitizer runs' options (tests/fuzz/run.sh and api_run.sh add theirs after these).
# quarantine_size_mb=32 (ASan's default is 256) and malloc_context_size=8 (default 30): on
# this VM a page fault costs about 13 us, and a 256 MB quarantine keeps handing the Lua
# allocator fresh pages. On the ten heaviest sanitizer Lua tests: 2.08M -> 1.49M page faults,
# 87 -> 75 CPU-s (BENCHMARKS.md "The whole suite"). A use after free is still caught while
# the block is among the last 32 MB freed.
sanitizers=(env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:quarantine_size_mb=32:malloc_context_size=8
            LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
has() { local f; for f in "${flavours[@]}"; do [ "$f" = "$1" ] && return 0; done; return 1; }

# The queue: every test first listed (add NAME CMD...), then run longest first, so that the
# short ones fill the cores around the long ones and no long test starts last and runs
# alone at the end (it did: the FFI validation notebook, queued by kind and name, ran 5-18 s
# after every other test had finished). "Longest" is the test's wall seconds in
# tests/durations.txt (a quiet run's, NAME as tests/run.sh prints it); a test not listed
# there counts as $unlisted s. Ties keep the order listed below. Lines are printed in
# the order the tests start.
declare -A est=()
unlisted=1
while read -r w nm; do
  [[ $w =~ ^[0-9]+$ ]] && est[$nm]=$w
done <"$root/tests/durations.txt"
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$(printf '%q ' "$@")"); }

# hostile input (issue 18): the libFuzzer harnesses (they build their own instrumented
# library) and the random API fuzzer on both backends under the sanitizers. 2 s a harness
# since fuzz-long added three (kernel, tracefile, history): ten at 2 s fuzz for about the
# wall time seven did at 3 s (their corpora, with every regression input, replay whole
# either way; the long runs are BENCHMARKS.md's)
if has asan; then
  add "fuzz libFuzzer harnesses" "${sanitizers[@]}" bash tests/fuzz/run.sh 2
  add "asan fuzz api capi" "${sanitizers[@]}" bash tests/fuzz/api_run.sh capi 20000 1
  add "asan fuzz api ffi" "${sanitizers[@]}" bash tests/fuzz/api_run.sh ffi 20000 1
fi
# the shell tests (they wait on terminals, daemons and builds beside the others), the
# sanitizer flavour, the release one, the FFI backend
if has release; then
  for t in tests/sh/test_*.sh; do
    b=${t##*/}; [ -f "$t" ] && add "sh ${b%.sh}" bash "$t" "$root/build/bin/dlbench"
  done
fi
# The notebooks' subset mode (DLB_NOTEBOOK_SUBSET=1, notebooks/lib/subset.lua) in the
# sanitizer flavour only, for the notebook tests named in `subset`: of a long list of rows
# that run through the same C code (validation: the 1,549 vTrain rows; serving: the 73
# validation rows) each notebook keeps the first row of each kind, and its test checks what
# the subset prints, not the published errors (the release and FFI flavours run the notebooks
# whole, with every numeric check). This flavour exists to find memory errors in C code, and
# the subset run executes the same C lines and branches as the full one
# (tests/tools/subset_coverage.sh, gcc --coverage), but for two places reached in the full
# run only, each covered by another sanitizer test: a minimizer's finalizer that a GC cycle
# happens to run before exit (graphs/stats/minimize.c:79-82; "asan C test_measure") and one
# arc of a name lookup that a full run takes or not, as Lua's pairs() order falls
# (plots/series.c:61; "asan C test_plot"). Medians of three pairs
# under the sanitizers: validation 21.2 -> 13.5 CPU-s, serving 13.0 -> 5.1 (BENCHMARKS.md,
# "The whole suite"). A notebook joins the list only after that script shows the same.
# The same rule for the longest other sanitizer Lua tests (branch asan-subset2):
#   test_validation_rows: its note check over the 171 rows of notebooks/data/
#     validation_runs.lua, 91 rows (subset.lua's `runs` key); coverage IDENTICAL (4,416
#     lines, 3,833 branches); 7.6 -> 5.7 CPU-s (medians of three pairs).
#   test_finetune_memory: the 60 cells of notebooks/data/memory_measured.lua, 13 (`memory`
#     key: model, method, expected band); coverage IDENTICAL (4,311 lines, 3,608 branches);
#     9.5 -> 2.8 CPU-s.
# Left whole (BENCHMARKS.md says why for each): test_sweep_model, test_checkpoint_fuzz (random
# draws: their count is the check), and the others named there.
subset=" test_validation_notebook test_serving_notebook test_validation_rows test_finetune_memory "
if has asan; then
  for t in tests/lua/test_*.lua; do
    b=${t##*/}; b=${b%.lua}
    if [[ $subset == *" $b "* ]]; then
      add "asan lua $b" "${sanitizers[@]}" DLB_NOTEBOOK_SUBSET=1 build/asan/bin/dlbench run "$t"
    else
      add "asan lua $b" "${sanitizers[@]}" build/asan/bin/dlbench run "$t"
    fi
  done
  for t in build/asan/tests/test_*; do
    [ -x "$t" ] && add "asan C ${t##*/}" "${sanitizers[@]}" "$t"
  done
fi
if has release; then
  for t in tests/lua/test_*.lua; do
    b=${t##*/}; add "release lua ${b%.lua}" build/bin/dlbench run "$t"
  done
  for t in tests/lua/test_*.lua; do
    b=${t##*/}; add "ffi lua ${b%.lua}" "${ffi[@]}" luajit "$t"
  done
  add "ffi symbols" "${ffi[@]}" luajit tests/lua/ffi_symbols.lua
  for t in build/tests/test_*; do
    [ -x "$t" ] && add "release C ${t##*/}" "$t"
  done
fi
# longest first; equal estimates in the order listed (a stable sort on the estimate)
# (sorted into a file first: \`wait -n\` in run would also return for a process substitution)
for i in "${!names[@]}"; do echo "${est[${names[i]}]:-$unlisted} $i"; done >"$log/order"
sort -s -k1,1nr "$log/order" >"$log/sorted"
while read -r _ i; do
  eval "run \"\${names[$i]}\" ${cmds[i]}"
done <"$log/sorted"
wait
flush
[ "$printed" -eq "$n" ] || { echo "FAIL tests/run.sh: $((n - printed)) tests left no result"; failed=$((failed + n - printed)); }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
