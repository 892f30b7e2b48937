# tests/sh/lib.sh — shell test helpers: t_ok NAME, t_fail NAME WHY, t_done (summary line).
t_pass=0 t_failn=0
t_ok() { t_pass=$((t_pass + 1)); echo "ok $1"; }
t_fail() { t_failn=$((t_failn + 1)); echo "not ok $1"; echo "$1: $2" >&2; }
# t_check NAME COND-COMMAND...: pass when the command succeeds.
t_check() { local n=$1; shift; if "$@"; then t_ok "$n"; else t_fail "$n" "command failed: $*"; fi; }
t_done() { echo "$t_pass passed, $t_failn failed"; [ "$t_failn" -eq 0 ]; }
