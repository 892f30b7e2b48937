# test_record_traces.sh — tests/gpu/record_traces.py's out-of-memory cleanup without a GPU
# (tests/gpu/oom_check.py: the CUDA cache is emptied after the failed configuration's model is
# freed). Uses Debian's python3-torch; skipped with the reason printed where it is not installed.
# usage: bash tests/sh/test_record_traces.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"

py=""
for p in /usr/bin/python3 python3; do
  if "$p" -c "import torch" 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
  echo "skip: no python3 with torch (apt-get install python3-torch)"
  t_done; exit 0
fi

out=$("$py" tests/gpu/oom_check.py 2>&1)
echo "$out" | grep -E '^(ok|not ok) '
p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$p" ]; then
  t_fail "oom_check.py ran to its end" "$(echo "$out" | tail -20)"
else
  t_pass=$((t_pass + p)); t_failn=$((t_failn + f))
  [ "$f" -eq 0 ] || echo "$out" | grep -v -E '^(ok|not ok) ' | tail -20 >&2
fi
t_done
