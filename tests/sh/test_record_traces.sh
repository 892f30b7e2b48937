# test_record_traces.sh — tests/gpu/record_traces.py's out-of-memory cleanup without a GPU
# (tests/gpu/oom_check.py: the CUDA cache is emptied after the failed configuration's model is
# freed). Uses Debian's python3-torch; skipped with the reason printed where it is not installed.
# usage: bash tests/sh/test_record_traces.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"

if ! t_python "import torch"; then
  echo "skip: no python3 with torch (apt-get install python3-torch)"
  t_done; exit 0
fi

t_add oom_check.py "$("$py" tests/gpu/oom_check.py 2>&1)"
t_done
