#!/usr/bin/env bash
# bench_cli.sh — where researchers work (issue [22]):
#   1. `dlbench plan config.json --hw H100 --gpus 1024 --tokens 15e12` end to end (process
#      start, config read, graph, layer costs, the plan search, printing): median of RUNS
#      runs, wall and CPU time. Target: under 1 s.
#   2. the Jupyter kernel: from starting the kernel (jupyter_client's start_new_kernel: the
#      python wrapper, ipykernel, the dlbench process) to the first cell's result (`1 + 1`),
#      median of KRUNS starts. Target: under 2 s.
# usage: tests/bench/bench_cli.sh [path/to/dlbench] [runs] [kruns]   (defaults build/bin/dlbench, 20, 5)
set -eu
cd "$(dirname "$0")/../.."
dlb=${1:-build/bin/dlbench}
runs=${2:-20}
kruns=${3:-5}
[ -x "$dlb" ] || { echo "bench_cli: $dlb not built (./build.sh build)" >&2; exit 1; }
cfg=tests/fixtures/hf/llama-2-7b.json

for _ in $(seq "$runs"); do
  /usr/bin/time -f "%e %U %S" "$dlb" plan "$cfg" --hw H100 --gpus 1024 --tokens 15e12 2>&1 >/dev/null | tail -1
done >"${TMPDIR:-/tmp}/bench_cli.$$"
wall=$(awk '{print $1}' "${TMPDIR:-/tmp}/bench_cli.$$" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
cpu=$(awk '{print $2 + $3}' "${TMPDIR:-/tmp}/bench_cli.$$" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
rm -f "${TMPDIR:-/tmp}/bench_cli.$$"
echo "dlbench plan llama-2-7b.json --hw H100 --gpus 1024 --tokens 15e12: median $wall s wall, $cpu s CPU (user+sys) over $runs runs"

py=""
for p in /usr/bin/python3 python3; do
  if "$p" -c "import ipykernel, jupyter_client" 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
  echo "kernel first cell: skipped (no python3 with ipykernel: apt-get install python3-ipykernel)"
  exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/jupyter/kernels/dlbench"
root=$(pwd)
case $dlb in /*) ;; *) dlb=$root/$dlb ;; esac
sed -e "s|@PYTHON@|$py|" -e "s|@KERNEL@|$root/host/jupyter/dlbench_kernel.py|" -e "s|@DLBENCH@|$dlb|" \
  host/jupyter/kernel.json.in >"$tmp/jupyter/kernels/dlbench/kernel.json"
JUPYTER_PATH=$tmp/jupyter JUPYTER_RUNTIME_DIR=$tmp/rt PYDEVD_DISABLE_FILE_VALIDATION=1 "$py" - "$kruns" <<'EOF'
import resource, statistics, sys, time
from jupyter_client.manager import start_new_kernel
walls = []
for _ in range(int(sys.argv[1])):
    t0 = time.time()
    km, kc = start_new_kernel(kernel_name="dlbench")
    r = kc.execute_interactive("1 + 1", timeout=60, output_hook=lambda m: None)
    walls.append(time.time() - t0)
    assert r["content"]["status"] == "ok"
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    del kc, km
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("kernel start -> first cell's result: median %.2f s wall (min %.2f, max %.2f) over %d starts; "
      "kernel processes' CPU %.2f s per start" % (statistics.median(walls), min(walls), max(walls),
      len(walls), (ru.ru_utime + ru.ru_stime) / len(walls)))
EOF
