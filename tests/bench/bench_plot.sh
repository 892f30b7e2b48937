#!/usr/bin/env bash
# bench_plot.sh — figures as whole processes: dlbench vs matplotlib (Debian's
# python3-matplotlib, /usr/bin/python3), the same heat map with colour bar, the same
# 10,000-point box plot, a 1e6-point line and a 100,000-point scatter (legend "best"), PNG
# (200 dpi) and PDF, with the files' sizes. Prints a Markdown table for BENCHMARKS.md.
# Usage: tests/bench/bench_plot.sh [runs]   (from the repository root, after ./build.sh build)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
out=out/bench
mkdir -p "$out"
dlb=build/bin/dlbench
py=/usr/bin/python3
echo "| figure | format | dlbench (ms, mean ± sd) | matplotlib (ms, mean ± sd) | ratio | dlbench bytes | matplotlib bytes |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for what in heatmap boxplot line1m scatter100k; do
  for ext in png pdf; do
    json=$(mktemp)
    hyperfine -N -w 2 -r "$runs" --export-json "$json" \
      "$dlb run tests/bench/bench_plot_dlb.lua $what $out/dlb_$what.$ext" \
      "$py tests/bench/bench_plot_mpl.py $what $out/mpl_$what.$ext" >/dev/null 2>&1
    d=$(jq '.results[0].mean * 1000' "$json"); ds=$(jq '.results[0].stddev * 1000' "$json")
    m=$(jq '.results[1].mean * 1000' "$json"); ms=$(jq '.results[1].stddev * 1000' "$json")
    rm -f "$json"
    db=$(stat -c %s "$out/dlb_$what.$ext"); mb=$(stat -c %s "$out/mpl_$what.$ext")
    awk -v w="$what" -v e="$ext" -v d="$d" -v m="$m" -v ds="$ds" -v ms="$ms" -v db="$db" -v mb="$mb" \
      'BEGIN { printf "| %s | %s | %.1f ± %.1f | %.1f ± %.1f | %.1fx | %d | %d |\n", w, e, d, ds, m, ms, m / d, db, mb }'
  done
done
