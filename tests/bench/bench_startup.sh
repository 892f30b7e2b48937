#!/usr/bin/env bash
# bench_startup.sh — REPL/interpreter cold start: `dlbench -e ''` (state, standard
# libraries, package.path, require "dlbench"), median of many runs. Target: under 20 ms.
# usage: tests/bench/bench_startup.sh [path/to/dlbench] [runs]   (default build/bin/dlbench, 200)
set -eu
cd "$(dirname "$0")/../.."
dlb=${1:-build/bin/dlbench}
runs=${2:-200}
[ -x "$dlb" ] || { echo "bench_startup: $dlb not built (./build.sh build)" >&2; exit 1; }
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 10 --runs "$runs" --export-json /tmp/bench_startup.$$.json "$dlb -e ''" >/dev/null 2>&1
  median=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f %.2f %.2f" % (r["median"]*1e3, r["min"]*1e3, r["max"]*1e3))' /tmp/bench_startup.$$.json)
  rm -f /tmp/bench_startup.$$.json
  set -- $median
  echo "dlbench -e '': median $1 ms (min $2 ms, max $3 ms) over $runs runs (hyperfine -N)"
else # a plain loop: wall time per run, median
  for _ in $(seq "$runs"); do
    s=$(date +%s%N); "$dlb" -e '' ; e=$(date +%s%N); echo $(( (e - s) / 1000 ))
  done | sort -n | awk '{a[NR]=$1} END {printf "dlbench -e '"''"': median %.2f ms over %d runs (shell loop)\n", a[int((NR+1)/2)]/1000, NR}'
fi
