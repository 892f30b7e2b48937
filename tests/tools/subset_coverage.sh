#!/usr/bin/env bash
# tests/tools/subset_coverage.sh NAME... : for each notebook test tests/lua/NAME.lua, run it
# twice with a `dlbench` built with gcc --coverage (tests/tools/coverage_build.sh), once in
# full (DLB_NOTEBOOK_SUBSET=0, as the release and FFI flavours run it) and once in the subset
# mode the sanitizer flavour runs (DLB_NOTEBOOK_SUBSET=1, notebooks/lib/subset.lua), and
# compare the C lines and branches each executed in graphs/, plots/, host/ and proc/ (gcov's
# JSON: a line counts when its count is > 0, a branch arc when it was taken). Prints per test
# the CPU seconds of each run (user+sys, of the instrumented build: the ratio, not the
# figure, carries to the sanitizer build) and "IDENTICAL: N lines, M branches", or the
# lines and branches only one run covered, each either EXPLAINED (listed below with why,
# and the sanitizer test that covers it) or not. Exit 1 if any difference is unexplained.
#   COV=/tmp/dlb_cov tests/tools/subset_coverage.sh test_validation_notebook
# Not part of the suite (it builds a flavour of its own); BENCHMARKS.md, "The whole suite".
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd)
cov=${COV:-/tmp/dlb_cov}
nice bash tests/tools/coverage_build.sh "$cov"
export LUA_PATH="$root/tests/lua/?.lua;;" DLBENCH_HISTORY="" DLBENCH_LUA_DIR="$root/lua"
status=0
# Differences explained: "L|B file:line[#arc]  why; the sanitizer test that covers it"
explained='
L graphs/stats/minimize.c:79    dlb_minimizer_free: a finalizer, run only when a GC cycle collects the minimizer before the test exits (os.exit does not close the Lua state); asan C test_measure
L graphs/stats/minimize.c:80    (the same)
B graphs/stats/minimize.c:80#1  (the same)
L graphs/stats/minimize.c:81    (the same)
L graphs/stats/minimize.c:82    (the same)
B plots/series.c:61#3           dlbp_series_data: a data array whose name is a proper prefix of the name looked up; a series holds its arrays in the order of a pairs() traversal (lua/dlbench/plot.lua), which changes run to run (Lua seeds its string hashes per process): one of two full serving runs took it; asan C test_plot
'
for name in "$@"; do
  for mode in 0 1; do
    find "$cov/obj" -name '*.gcda' -delete
    t0=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)   # this shell's children's CPU, ticks
    DLB_NOTEBOOK_SUBSET=$mode nice "$cov/bin/dlbench" run "tests/lua/$name.lua" >"$cov/$name.$mode.out" 2>&1 ||
      { echo "$name (DLB_NOTEBOOK_SUBSET=$mode) failed:"; tail -n 20 "$cov/$name.$mode.out"; status=1; continue 2; }
    t1=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
    cpu[$mode]=$(( (t1 - t0) ))
    # every object's gcov JSON, to stdout, reduced to covered lines and taken branch arcs
    (cd "$cov/obj" && find . -name '*.gcda' -print0 | xargs -0 -r nice gcov -b -j -t 2>/dev/null) |
      python3 -c '
import json, sys
dec = json.JSONDecoder(); text = sys.stdin.read(); i = 0; out = set()
while i < len(text):
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    doc, i = dec.raw_decode(text, i)
    for f in doc["files"]:
        p = f["file"]
        if not p.startswith(("graphs/", "plots/", "host/", "proc/")): continue
        for l in f["lines"]:
            if l["count"] > 0: out.add("L %s:%d" % (p, l["line_number"]))
            for k, b in enumerate(l.get("branches", [])):
                if b["count"] > 0: out.add("B %s:%d#%d" % (p, l["line_number"], k))
sys.stdout.write("".join(sorted(x + "\n" for x in out)))
' >"$cov/$name.$mode.cov"
  done
  hz=$(getconf CLK_TCK)
  printf '%s: CPU-s (coverage build) full %.1f, subset %.1f\n' "$name" \
    "$(echo "${cpu[0]} / $hz" | bc -l)" "$(echo "${cpu[1]} / $hz" | bc -l)"
  if cmp -s "$cov/$name.0.cov" "$cov/$name.1.cov"; then
    printf '  IDENTICAL: %d lines, %d branches\n' "$(grep -c '^L' "$cov/$name.0.cov")" "$(grep -c '^B' "$cov/$name.0.cov")"
  else
    echo "  DIFFERENT: full $(grep -c '^L' "$cov/$name.0.cov") lines $(grep -c '^B' "$cov/$name.0.cov") branches," \
      "subset $(grep -c '^L' "$cov/$name.1.cov") lines $(grep -c '^B' "$cov/$name.1.cov") branches"
    while read -r side kind at; do
      why=$(printf '%s\n' "$explained" | awk -v k="$kind" -v a="$at" '$1 == k && $2 == a { $1 = ""; $2 = ""; sub(/^ +/, ""); print }')
      if [ -n "$why" ]; then echo "  only $side: $kind $at  EXPLAINED: $why"
      else echo "  only $side: $kind $at  NOT EXPLAINED"; status=1; fi
    done < <(diff "$cov/$name.0.cov" "$cov/$name.1.cov" | sed -n 's/^< /full /p; s/^> /subset /p')
  fi
done
exit $status
