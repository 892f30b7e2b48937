# tests/sh/lib.sh — shell test helpers: t_ok NAME, t_fail NAME WHY, t_done (summary line).
t_pass=0 t_failn=0
t_ok() { t_pass=$((t_pass + 1)); echo "ok $1"; }
t_fail() { t_failn=$((t_failn + 1)); echo "not ok $1"; echo "$1: $2" >&2; }
# t_check NAME COND-COMMAND...: pass when the command succeeds.
t_check() { local n=$1; shift; if "$@"; then t_ok "$n"; else t_fail "$n" "command failed: $*"; fi; }
t_done() { echo "$t_pass passed, $t_failn failed"; [ "$t_failn" -eq 0 ]; }
# t_python "import x, y": $py set to the first python3 (Debian's, then PATH's) that runs the
# import; fails with $py empty when none does (the test then prints "skip: ..." and ends).
t_python() {
  py=""
  local p
  for p in /usr/bin/python3 python3; do
    if "$p" -c "$1" 2>/dev/null; then py=$p; return 0; fi
  done
  return 1
}
# t_add NAME OUTPUT: a checker's output (its "ok ..."/"not ok ..." lines, printed, and its
# closing "N passed, N failed", added to this test's counts); NAME fails when it has no
# closing line. The other lines of a failing checker go to stderr.
t_add() {
  local p f
  echo "$2" | grep -E '^(ok|not ok) '
  p=$(echo "$2" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(echo "$2" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  if [ -z "$p" ]; then
    t_fail "$1 ran to its end" "$(echo "$2" | tail -20)"
  else
    t_pass=$((t_pass + p)); t_failn=$((t_failn + f))
    [ "$f" -eq 0 ] || echo "$2" | grep -v -E '^(ok|not ok) ' | tail -20 >&2
  fi
}

# t_doc_screen DOC COMMAND OUTPUT: a documentation page's example screen kept honest. DOC
# shows `$ COMMAND` (after `$ `, the text of COMMAND exactly) at the top of a fenced block
# and the screen under it up to the closing fence; passes when OUTPUT (the test's own run of
# that command) is that screen line for line. A doc without the line fails too, so an
# example cannot drift from what the command prints nor silently disappear.
t_doc_screen() {
  local name="$1: its example screen" want
  want=$(awk -v c="\$ $2" '$0 == c { f = 1; next } f && /^```/ { exit } f { print }' "$1")
  if [ -z "$want" ]; then t_fail "$name" "no line '\$ $2' in $1"
  elif [ "$want" = "$3" ]; then t_ok "$name"
  else t_fail "$name" "$(diff <(echo "$want") <(echo "$3") | head -20) (regenerate the block from the command)"
  fi
}

# REPL tests through a real pseudo-terminal: an isolated tmux server (its own socket, no
# config), a fixed window size, and polling of the screen instead of long sleeps.
#   tm_start CMD   start CMD in a new server (TERM=xterm inside); the pane stays after CMD
#                  ends and shows "[exit N]"
#   tm_type TEXT   type TEXT literally;  tm_keys KEY...  send tmux key names (Enter, Tab, C-c)
#   tm_type_keys TEXT KEY...  both, in that order, from one tmux client
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
# tm_lit TEXT: TEXT as send-keys -l takes it, in $_t (a trailing ; would end the tmux
# command: escaped); a variable, not a command substitution, which would be a process
tm_lit() { _t=$1; case $_t in *\;) _t="${_t%;}\\;" ;; esac; }
tm_type() { tm_lit "$1"; tmux -L "$tm_sock" send-keys -l -- "$_t"; }
tm_keys() { tmux -L "$tm_sock" send-keys "$@"; }
# tm_type_keys TEXT KEY...: TEXT literally, then the keys, from one tmux client (each client
# is a process: the pane gets the same bytes in the same order as tm_type then tm_keys)
tm_type_keys() { tm_lit "$1"; shift; tmux -L "$tm_sock" send-keys -l -- "$_t" \; send-keys "$@"; }
tm_line() { tm_type_keys "$1" Enter; }
tm_screen() { tmux -L "$tm_sock" capture-pane -p -J -S -2000 -t 0 2>/dev/null; }
# Each look at the screen starts two processes (tmux, grep), which cost milliseconds of CPU
# on the suite's VM; tm_wait looks at once, then after 10, 20, 40, 80 ms and every 160 ms:
# a prompt that comes within 0.1 s is seen as soon as before, a slow answer with a fifth of
# the looks (with tm_type_keys, test_repl's CPU went from 12 to 6 s under load). Its pauses
# are read timeouts on a pipe nobody writes (t_nap), not sleep processes.
exec {t_napfd}<> <(:)
t_nap() { read -rt "$1" -u "$t_napfd" _ 2>/dev/null; return 0; }
tm_wait() {
  local pat=$1 n=${2:-1} secs=${3:-15} waited=0 nap=1
  while :; do
    [ "$(tm_screen | grep -cF -- "$pat")" -ge "$n" ] && return 0
    [ "$waited" -ge $((secs * 100)) ] && return 1
    t_nap "0.$(printf '%02d' "$nap")"
    waited=$((waited + nap))
    nap=$((nap * 2 > 16 ? 16 : nap * 2))
  done
}
tm_stop() { [ -n "$tm_sock" ] && tmux -L "$tm_sock" kill-server 2>/dev/null; tm_sock=""; }
