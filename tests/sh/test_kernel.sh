# test_kernel.sh — the Jupyter kernel `dlbench` (docs/jupyter.md): a notebook executed by
# nbclient through the kernel (a value, an image/png, an HTML table, an error with its line,
# SVG by display(), help and print), completion and help over the protocol, an interrupted
# sweep keeping its rows, the first cell's latency, and one seed notebook. Uses Debian's
# python3-ipykernel and python3-nbclient (build.sh's TEST_PACKAGES); skipped with the reason
# printed where they are not installed.
# usage: bash tests/sh/test_kernel.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"
dlb=$1
case $dlb in /*) ;; *) dlb=$(pwd)/$dlb ;; esac
root=$(pwd)

# The request reader (host/kernel.c readrequest; fuzzed by tests/fuzz/fuzz_kernel.c), no
# Python needed: a request the wrapper never writes stops the kernel with a message naming
# the request. Before fuzz-long a length of -1 wrapped malloc(len + 1) to malloc(0) (then a
# read of SIZE_MAX bytes into it) and 100000000000000 was allocated as claimed (an ASan
# abort; 3000000000 took 3 GB and waited), both silent.
kreq() { # kreq NAME BYTES PATTERN: the kernel fed BYTES exits 1 saying PATTERN
  local out rc
  out=$(printf "$2" | "$dlb" kernel 0 3 3>/dev/null 2>&1); rc=$?
  if [ "$rc" -eq 1 ] && grep -q "$3" <<<"$out"; then t_ok "kernel refuses $1"
  else t_fail "kernel refuses $1" "exit $rc: $out"; fi
}
kreq "a negative length" 'execute -1\nAAAAAAAA' "request 1: a length that is not decimal digits"
kreq "a huge length" 'execute 100000000000000\nAAAA' "request 1: a request of more than 67108864 bytes"
kreq "a cut body" 'execute 3\n1\nxexecute 40\n1\n' "request 2: the input ends inside a request of 40 bytes"
kreq "a header without a length" 'execute\n' "request 1: a malformed header"
kreq "a long header" "$(printf 'x%.0s' $(seq 80))" "request 1: a header longer than 62 bytes"
out=$(printf 'execute 3\n1\n1' | "$dlb" kernel 0 3 3>/dev/null 2>&1) \
  && t_ok "kernel: a whole request, then the end of input: exit 0" \
  || t_fail "kernel: a whole request, then the end of input: exit 0" "$out"

if ! t_python "import ipykernel, nbclient, nbformat"; then
  echo "skip: no python3 with ipykernel and nbclient (apt-get install python3-ipykernel python3-nbclient; ./build.sh test does)"
  t_done; exit 0
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the kernel spec ./build.sh install writes, pointing at this build
mkdir -p "$tmp/jupyter/kernels/dlbench"
sed -e "s|@PYTHON@|$py|" -e "s|@KERNEL@|$root/host/jupyter/dlbench_kernel.py|" -e "s|@DLBENCH@|$dlb|" \
  host/jupyter/kernel.json.in >"$tmp/jupyter/kernels/dlbench/kernel.json"
export JUPYTER_PATH=$tmp/jupyter JUPYTER_RUNTIME_DIR=$tmp/runtime JUPYTER_DATA_DIR=$tmp/data
export IPYTHONDIR=$tmp/ipython JUPYTER_CONFIG_DIR=$tmp/config
export PYDEVD_DISABLE_FILE_VALIDATION=1

# the seed notebooks shipped as .ipynb are the generator's output (checked in, not stale)
"$py" host/jupyter/gen_ipynb.py --check notebooks "$tmp/gen" >"$tmp/gen.out" 2>&1 \
  && t_ok "notebooks/*.ipynb are what host/jupyter/gen_ipynb.py makes of notebooks/*.lua" \
  || t_fail "generated notebooks up to date" "$(cat "$tmp/gen.out")"

# shellcheck disable=SC2086
out=$(cd "$tmp" && "$py" "$root/tests/sh/kernel_check.py" "$tmp/out.ipynb" "$root/notebooks/deepbench.ipynb" 2>&1)
t_add kernel_check.py "$out"
t_done
