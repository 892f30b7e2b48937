# tests/sh/lib.sh — shell test helpers: t_ok NAME, t_fail NAME WHY, t_done (summary line).
t_pass=0 t_failn=0
t_ok() { t_pass=$((t_pass + 1)); echo "ok $1"; }
t_fail() { t_failn=$((t_failn + 1)); echo "not ok $1"; echo "$1: $2" >&2; }
# t_check NAME COND-COMMAND...: pass when the command succeeds.
t_check() { local n=$1; shift; if "$@"; then t_ok "$n"; else t_fail "$n" "command failed: $*"; fi; }
t_done() { echo "$t_pass passed, $t_failn failed"; [ "$t_failn" -eq 0 ]; }

# REPL tests through a real pseudo-terminal: an isolated tmux server (its own socket, no
# config), a fixed window size, and polling of the screen instead of long sleeps.
#   tm_start CMD   start CMD in a new server (TERM=xterm inside); the pane stays after CMD
#                  ends and shows "[exit N]"
#   tm_type TEXT   type TEXT literally;  tm_keys KEY...  send tmux key names (Enter, Tab, C-c)
#   tm_line TEXT   type TEXT and press Enter
#   tm_screen      the whole pane with its scrollback, wrapped lines joined
#   tm_wait PATTERN [N [SECONDS]]  wait until the fixed string PATTERN appears on N lines
#                  (default 1) of the screen; fails after SECONDS (default 5)
#   tm_stop        kill the server (call it from an EXIT trap too)
tm_sock=""
tm_start() {
  tm_sock="dlbt_$$_${RANDOM}"
  tmux -L "$tm_sock" -f /dev/null new-session -d -x 120 -y 40 \
    "env TERM=xterm $1; echo \"[exit \$?]\"; sleep 600"
}
tm_type() { # a trailing ; would end the tmux command: escape it
  local t=$1
  case $t in *\;) t="${t%;}\\;" ;; esac
  tmux -L "$tm_sock" send-keys -l -- "$t"
}
tm_keys() { tmux -L "$tm_sock" send-keys "$@"; }
tm_line() { tm_type "$1"; tm_keys Enter; }
tm_screen() { tmux -L "$tm_sock" capture-pane -p -J -S -2000 -t 0 2>/dev/null; }
tm_wait() {
  local pat=$1 n=${2:-1} secs=${3:-15} i=0
  local tries=$((secs * 20))
  while [ "$i" -lt "$tries" ]; do
    [ "$(tm_screen | grep -cF -- "$pat")" -ge "$n" ] && return 0
    sleep 0.05; i=$((i + 1))
  done
  return 1
}
tm_stop() { [ -n "$tm_sock" ] && tmux -L "$tm_sock" kill-server 2>/dev/null; tm_sock=""; }
