# test_record_traces.sh — tests/gpu/record_traces.py without a GPU, on Debian's python3-torch
# (a test package of build.sh): its out-of-memory cleanup (tests/gpu/oom_check.py: the CUDA
# cache is emptied after the failed configuration's model is freed), then a dry run on CPU
# (`--cpu --steps 5`: 4 configurations of a 2-layer GPT, about a second of CPU) whose traces
# of a real profiler dlbench reads: each against Python's json (tests/fixtures/check_trace.py:
# events, aten:: totals per name, both backends), then measured.csv's schema and each trace's
# content on both backends (tests/gpu/check_traces.lua: the model's ops in their phases, the
# step's span against the measured step time, the summary, streamed and whole), the two
# backends printing the same figures. Skipped, with the reason printed, where torch is not
# installed.
# usage: bash tests/sh/test_record_traces.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"
dlb=${1:-build/bin/dlbench}
export PYTHONDONTWRITEBYTECODE=1 # (oom_check.py imports record_traces.py: no __pycache__ in the tree)

# (torch found, not imported: importing it here too took 2.3 of the test's 5 CPU-s, before
# oom_check.py imports it again; a torch that is found but cannot import fails that check)
if ! t_python "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)"; then
  echo "skip: no python3 with torch (apt-get install python3-torch)"
  t_done; exit 0
fi

t_add oom_check.py "$("$py" tests/gpu/oom_check.py 2>&1)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if out=$("$py" tests/gpu/record_traces.py --cpu --steps 5 --out "$tmp" 2>&1); then
  t_ok "record_traces.py --cpu: ran ($(echo "$out" | tail -1 | sed 's/ -> .*//'))"
else
  t_fail "record_traces.py --cpu: ran" "$out"
fi
traces=("$tmp"/trace_*.json.gz)
[ -f "${traces[0]}" ] && t_ok "record_traces.py --cpu: ${#traces[@]} traces written" \
  || t_fail "record_traces.py --cpu: traces written" "$(ls -la "$tmp")"

# Python's json module, the reference reader: the same events and aten:: totals, exactly
if [ -f "${traces[0]}" ]; then
  if ref=$("$py" tests/fixtures/check_trace.py "${traces[@]}" 2>&1); then
    t_ok "check_trace.py: each trace reads as Python's json reads it, both backends ($(echo "$ref" \
      | sed -n 's/.*layout \([^;]*\);.*/\1/p' | sort -u | tr '\n' ' ' | sed 's/ $//'))"
  else
    t_fail "check_trace.py: each trace reads as Python's json reads it, both backends" "$ref"
  fi
fi

# the content, on both backends, and the same figures from each
capi=$(LUA_PATH="$PWD/tests/lua/?.lua;;" "$dlb" run tests/gpu/check_traces.lua "$tmp" "${traces[@]}" 2>&1)
t_add "check_traces.lua (capi)" "$capi"
echo "$capi" | grep '^figures '
lib="$(dirname "$dlb")/../lib"
if command -v luajit >/dev/null && [ -f "$lib/libdlbench.so" ]; then
  ffi=$(LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;$PWD/tests/lua/?.lua;;" LD_LIBRARY_PATH="$lib" \
    DLB_BACKEND=ffi luajit tests/gpu/check_traces.lua "$tmp" "${traces[@]}" 2>&1)
  t_add "check_traces.lua (ffi)" "$ffi"
  fc=$(echo "$capi" | grep '^figures ') ff=$(echo "$ffi" | grep '^figures ')
  if [ -n "$fc" ] && [ "$fc" = "$ff" ]; then
    t_ok "both backends print the same figures ($(echo "$fc" | wc -l) traces)"
  else
    t_fail "both backends print the same figures" "$(diff <(echo "$fc") <(echo "$ff") | head -20)"
  fi
else
  echo "note: the FFI backend not checked here (no luajit or no $lib/libdlbench.so)"
fi
t_done
