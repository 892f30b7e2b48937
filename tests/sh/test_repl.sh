# test_repl.sh — the dlbench REPL driven through a real pseudo-terminal (tmux): expressions,
# multi-line chunks, completion, errors, Ctrl-C, `;`, `_`, `=expr`, help, history, exit.
# usage: bash tests/sh/test_repl.sh path/to/dlbench   (works with CI=true, no TERM, </dev/null)
. "$(dirname "$0")/lib.sh"
dlb=$1
command -v tmux >/dev/null || { echo "tmux missing"; t_fail tmux "tmux is not installed"; t_done; exit 1; }
tmp=$(mktemp -d)
trap 'tm_stop; rm -rf "$tmp"' EXIT
hist=$tmp/history
repl="DLBENCH_HISTORY=$(printf %q "$hist") INPUTRC=/dev/null HOME=$(printf %q "$tmp") $(printf %q "$dlb")"

# check NAME PATTERN [N [SECONDS]]: the screen shows PATTERN (on N lines).
check() {
  local name=$1; shift
  if tm_wait "$@"; then t_ok "$name"; else
    t_fail "$name" "screen lacks '$1':"; tm_screen | grep -v "^$" | tail -n 15 >&2
  fi
}
# refute NAME PATTERN: the screen does not show PATTERN.
refute() {
  if tm_screen | grep -qF -- "$2"; then t_fail "$1" "screen shows '$2'"; else t_ok "$1"; fi
}

tm_start "$repl"
check "banner and prompt" "dlbench> "

tm_line '6*7000+123'
check "expression prints its value" "42123"

tm_line 'function twice(x)'
check "continuation prompt" "    ...> "
tm_line '  return 2*x'
tm_line 'end'
tm_line 'twice(21021)'
check "multi-line function" "42042"

tm_line '=twice(3131)'
check "=expr" "6262"

tm_line '777+1;'
tm_line '_'
check "_ holds the last result" "778"
[ "$(tm_screen | grep -cx '778')" -eq 1 ] && t_ok "trailing ; suppresses printing" \
  || t_fail "trailing ; suppresses printing" "$(tm_screen | grep -n 778)"

tm_line '{b=2, a={1,2}, s="q"}'
check "tables pretty-printed, keys sorted" '{ a = { 1, 2 }, b = 2, s = "q" }'

tm_type 'dlb.ver'; tm_keys Tab; tm_type '()'; tm_keys Enter
check "completion of dlb.ver" "dlbench> dlb.version()"

tm_line 'obj = setmetatable({}, {__index = {greet = function() return "hello-" .. "obj" end}})'
tm_line 'holder = {inner = obj}'
tm_type 'holder.in'; tm_keys Tab; tm_type ':gr'; tm_keys Tab; tm_type '()'; tm_keys Enter
check "completion of a method chain" "hello-obj"
check "method chain completed on the line" "dlbench> holder.inner:greet()"

tm_line 'mt = {visible_m = function() end}; mt["__hid" .. "den_m"] = function() end'
tm_line 'tt = setmetatable({}, {__index = mt})'
tm_type 'tt:'; tm_keys Tab Tab
check "method completion lists methods" "visible_m"
refute "method completion hides __ names" "__hidden_m"
tm_keys C-u
tm_type 'tt:__hid'; tm_keys Tab
check "__ names complete once __ is typed" "tt:__hidden_m"
tm_keys C-u

tm_line 's = "abc"'
tm_type 's:up'; tm_keys Tab; tm_type '()'; tm_keys Enter
check "completion of a string method" "ABC"
tm_type 'io.stdout:wr'; tm_keys Tab; tm_type '("userdata-", "method\n")'; tm_keys Enter
check "completion of a userdata method" "userdata-method"
for w in 'nosuch.fi' 'a..b' '3.1' 'holder:inner:g' 'string.format:x' '_G._G._G.pri'; do
  tm_type_keys "$w" Tab Tab C-u
done
# Random words of name characters and separators (fixed seed): completion must not break.
RANDOM=2026
chars='abdgilnorstuvxyz_.:.:019'
for ((wi = 0; wi < 60; wi++)); do
  w=""; for ((ci = RANDOM % 12 + 1; ci > 0; ci--)); do w+=${chars:$((RANDOM % ${#chars})):1}; done
  tm_type_keys "$w" Tab Tab C-u
done
tm_line '=4321+1'
check "odd words complete to nothing and break nothing" "4322"
refute "nosuch completes to nothing" "nosuch.find"
refute "a bad chain offers no globals" "collectgarbage"
tm_type 'x = "dlb.sca'; tm_keys Tab; tm_keys Enter # readline closes the quote
tm_line '=x .. "|" .. tostring(rawget(dlb, "scaling"))'
check "lazy names complete without loading" "dlb.scaling|nil"

tm_line 'local function boom() error("kaboom") end boom()'
check "error message" "stdin:1: kaboom"
check "error traceback" "in local 'boom'"
tm_line '=40+4'
check "REPL goes on after an error" "44"

# review 14: the docs' examples start `local g = ...` and use g on the next line; a chunk's
# leading `local a, b = ...` declares session variables (host/repl.c session_local)
tm_line 'local lv1, lv2 = 3000, 303'
tm_line 'lv1 + lv2 + 30'
check "a leading local outlives its line" "3333"
tm_line 'local lv3 <const> = 1; local lv4 = 5'
tm_line '=tostring(lv3) .. "|" .. tostring(lv4) .. "|lv"'
check "attributes and later locals stay local" "nil|nil|lv"

# Wait until the loop runs: a Ctrl-C that reached the terminal before the line was read
# would flush the typed input instead.
tm_line 'print("loop" .. "ing") while true do end'
tm_wait "looping"
tm_keys C-c
check "Ctrl-C interrupts a loop" "interrupted!"
tm_line '=123+321'
check "REPL goes on after Ctrl-C" "444"

tm_line 'print("pcall" .. "ing") while true do pcall(function() while true do end end) end'
tm_wait "pcalling"
tm_keys C-c
check "Ctrl-C cannot be swallowed by pcall" "interrupted!" 2
tm_line '=1000+1'
check "REPL goes on after an unswallowable Ctrl-C" "1001"

tm_type 'this is garbage'
tm_keys C-c
tm_line '=5005+5'
check "Ctrl-C at the prompt clears the line" "5010"
refute "cleared line not run" "syntax error near 'is'"

tm_line 'function half(x)'
tm_wait "    ...> " 3
tm_keys C-c
tm_line '=606+6'
check "Ctrl-C abandons a continued chunk" "612"

tm_line 'help(dlb)'
check "help(dlb)" "dlb.version() -> string"
tm_line 'help(print)'
check "help of a standard function" "Lua's standard library"
tm_line 'help(12345)'
check "help without help text" "no help for 12345"

tm_line '=[[p\nq\\r]] .. "|"'
check "backslashes typed" 'p\nq\\r|'
tm_line '=99*99'
check "last expression" "9801"
tm_line 'exit'
check "exit leaves" "[exit 0]"
tm_stop

grep -qxF '6*7000+123' "$hist" && t_ok "history file written" \
  || t_fail "history file written" "$(cat "$hist" 2>&1)"
grep -qxF 'function twice(x)\n  return 2*x\nend' "$hist" \
  && t_ok "multi-line chunk is one history entry" \
  || t_fail "multi-line chunk is one history entry" "$(cat "$hist" 2>&1)"
! grep -qx 'exit' "$hist" && t_ok "exit not in history" || t_fail "exit not in history" "$(cat "$hist")"

# A second session reads the history (Up recalls =99*99) and cuts the file to its newest
# 1000 entries; os.exit(n) sets the status.
# Random bytes in the file (a lone \ ending a line too) must not upset the loader.
grep -qxF '=[[p\\nq\\\\r]] .. "|"' "$hist" && t_ok "history escapes \\ and newlines" \
  || t_fail "history escapes \\ and newlines" "$(tail -n 3 "$hist")"
{ for i in $(seq 1500); do echo "old_entry_$i"; done
  head -c 4000 /dev/urandom; printf '\nends with a backslash\\\n'; cat "$hist"
  printf 'function sq(x)\\n  return x*x\\nend\n'; } >"$tmp/h2"
mv "$tmp/h2" "$hist"
tm_start "$repl"
check "second session" "dlbench> "
n=$(wc -l <"$hist")
[ "$n" -le 1000 ] && ! grep -qx 'old_entry_1' "$hist" && grep -qx '=99\*99' "$hist" \
  && t_ok "history file bounded (newest 1000 kept)" \
  || t_fail "history file bounded (newest 1000 kept)" "$n lines"
tm_keys Up; tm_keys Enter
tm_line 'sq(12)'
check "a multi-line entry is recalled whole" "144"
tm_keys Up; tm_keys Up; tm_keys Up; tm_keys Enter
check "history recalled with Up" "9801" 1
for _ in 1 2 3 4 5; do tm_keys Up; done; tm_keys Enter
check "an entry with backslashes comes back exactly" 'p\nq\\r|' 1
tm_line 'os.exit(3)'
check "os.exit(n)" "[exit 3]"
tm_stop

# Ctrl-D at an empty prompt leaves; DLBENCH_HISTORY="" disables the file.
rm -f "$hist"
tm_start "DLBENCH_HISTORY= INPUTRC=/dev/null HOME=$(printf %q "$tmp") $(printf %q "$dlb")"
check "third session" "dlbench> "
tm_line '=7*7'
check "third session runs" "49"
tm_keys C-d
check "Ctrl-D leaves" "[exit 0]"
tm_stop
[ ! -e "$hist" ] && [ ! -e "$tmp/.dlbench_history" ] && t_ok "empty DLBENCH_HISTORY disables" \
  || t_fail "empty DLBENCH_HISTORY disables" "a history file was written"

t_done
