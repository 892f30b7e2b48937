# test_sweep_repl.sh — Ctrl-C of a parallel sweep inside pcall at the dlbench REPL (a real
# pseudo-terminal through tmux): the workers are killed and reaped at once, no zombie is
# left until the next sweep or the end of the session (a QA regression, docs/sweep.md).
# usage: bash tests/sh/test_sweep_repl.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
dlb=$1
command -v tmux >/dev/null || { echo "tmux missing"; t_fail tmux "tmux is not installed"; t_done; exit 1; }
command -v ps >/dev/null || { echo "# skipped: needs ps"; t_done; exit 0; }
tmp=$(mktemp -d)
trap 'tm_stop; rm -rf "$tmp"' EXIT
tm_start "DLBENCH_HISTORY= INPUTRC=/dev/null HOME=$(printf %q "$tmp") $(printf %q "$dlb")"
tm_wait "dlbench>" 1 10 || { t_fail "repl started" "$(tm_screen | tail -n 5)"; t_done; exit 1; }
tm_line 'f = io.popen("echo $PPID"); me = f:read("*l"); f:close()'
for jobs in 2 4; do
  tm_line "pcall(dlb.sweep, {k = dlb.range(1, 4000, \"+1\")}, function(p) dlb.core._proc_poll({}, 0.005) return {v = p.k} end, {jobs = $jobs, quiet = true, progress = false}) print(\"NOT \" .. \"INTERRUPTED\")"
  # wait until the workers run, then Ctrl-C
  i=0
  while [ $i -lt 100 ] && [ "$(tm_screen | grep -c 'interrupted!')" -lt $((jobs / 2)) ]; do
    t_nap 0.05; i=$((i + 1))   # (a read timeout, not a sleep process: lib.sh)
    [ $i -eq 20 ] && tm_keys C-c
  done
  # the children of the REPL: only the shell of os.execute below may remain
  tm_line "os.execute(\"echo CHILDREN$jobs=[\$(ps -o stat= --ppid \" .. me .. \" | tr -d ' \\\\n')]\")"
  if tm_wait "CHILDREN$jobs=[S" 1 5 && ! tm_screen | grep -q "CHILDREN$jobs=\[.*Z"; then
    t_ok "jobs=$jobs: Ctrl-C in pcall leaves no zombie worker"
  else
    t_fail "jobs=$jobs: Ctrl-C in pcall leaves no zombie worker" "$(tm_screen | grep -v '^$' | tail -n 8)"
  fi
done
tm_screen | grep -q "NOT INTERRUPTED" && t_fail "the sweep was interrupted" "$(tm_screen | tail -n 8)"
tm_line 'os.exit(0)'
t_done
