# test_record_traces.sh — tests/gpu/record_traces.py's out-of-memory cleanup without a GPU
# (tests/gpu/oom_check.py: the CUDA cache is emptied after the failed configuration's model is
# freed). Uses Debian's python3-torch; skipped with the reason printed where it is not installed.
# usage: bash tests/sh/test_record_traces.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"

# (torch found, not imported: importing it here too took 2.3 of the test's 5 CPU-s, before
# oom_check.py imports it again; a torch that is found but cannot import fails that check)
if ! t_python "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)"; then
  echo "skip: no python3 with torch (apt-get install python3-torch)"
  t_done; exit 0
fi

t_add oom_check.py "$("$py" tests/gpu/oom_check.py 2>&1)"
t_done
