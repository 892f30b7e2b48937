#!/bin/sh
# bench_notebooks.sh — wall time of every seed notebook (target: each under 30 s).
# Usage: tests/bench/bench_notebooks.sh [path/to/dlbench]   (from the repository root)
bin=${1:-build/bin/dlbench}
out=$(mktemp -d) || exit 1
status=0
for n in hestness_compute hestness_roofline hestness_scaling hestness_parallel tbd lecture hardware deepbench paradnn; do
  start=$(date +%s.%N)
  if ! "$bin" run "notebooks/$n.lua" "$out" > /dev/null 2>&1; then echo "$n: FAILED"; status=1; continue; fi
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc)
  printf '%-18s %6.2f s\n' "$n" "$t"
  if [ "$(echo "$t > 30" | bc)" = 1 ]; then status=1; fi
done
rm -rf "$out"
exit $status
