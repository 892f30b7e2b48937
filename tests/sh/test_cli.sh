# test_cli.sh — the dlbench command line: run, -e, stdin, errors with file:line, exit codes.
# usage: bash tests/sh/test_cli.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
dlb=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$("$dlb" -e 'print(1+1)' 2>&1)
[ "$out" = 2 ] && t_ok "-e prints" || t_fail "-e prints" "got '$out'"

printf 'print(select("#", ...), arg[0], arg[1], ...)\n' >"$tmp/args.lua"
out=$("$dlb" run "$tmp/args.lua" a b 2>&1)
[ "$out" = "$(printf '2\t%s\ta\ta\tb' "$tmp/args.lua")" ] && t_ok "run sets arg and ..." \
  || t_fail "run sets arg and ..." "got '$out'"

printf 'local x = 1\nlocal y = nil\nprint(x + y)\n' >"$tmp/bad.lua"
"$dlb" run "$tmp/bad.lua" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "bad.lua:3:" "$tmp/e" && grep -q "stack traceback" "$tmp/e" \
  && t_ok "script error: file:line, traceback, exit 1" \
  || t_fail "script error: file:line, traceback, exit 1" "rc=$rc: $(cat "$tmp/e")"

printf 'x = = 1\n' >"$tmp/syntax.lua"
"$dlb" run "$tmp/syntax.lua" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "syntax.lua:1:" "$tmp/e" && t_ok "syntax error names file:line" \
  || t_fail "syntax error names file:line" "rc=$rc: $(cat "$tmp/e")"

"$dlb" run "$tmp/nope.lua" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "cannot open" "$tmp/e" \
  && t_ok "missing file: one-line error" || t_fail "missing file: one-line error" "$(cat "$tmp/e")"

"$dlb" -e 'os.exit(7)'; rc=$?
[ $rc -eq 7 ] && t_ok "os.exit(n)" || t_fail "os.exit(n)" "rc=$rc"

out=$(echo 'print(dlb.version())' | "$dlb" 2>&1)
echo "$out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' && t_ok "stdin script, dlb preloaded" \
  || t_fail "stdin script, dlb preloaded" "got '$out'"

out=$("$dlb" --version)
echo "$out" | grep -q "Lua 5.4" && echo "$out" | grep -q "ABI" && t_ok "--version" \
  || t_fail "--version" "got '$out'"

"$dlb" --bogus 2>"$tmp/e"; rc=$?
[ $rc -ne 0 ] && grep -q "unknown command" "$tmp/e" && t_ok "unknown option" \
  || t_fail "unknown option" "$(cat "$tmp/e")"

out=$("$dlb" -e 'help(dlb.version) help(help)' 2>&1)
echo "$out" | grep -qF 'dlb.version() -> string' && echo "$out" | grep -qF 'help([x])' \
  && t_ok "global help in scripts" || t_fail "global help in scripts" "got '$out'"

out=$("$dlb" -e 'print(dlb.pretty({z = 1, a = {true}}))' 2>&1)
[ "$out" = "{ a = { true }, z = 1 }" ] && t_ok "dlb.pretty in scripts" \
  || t_fail "dlb.pretty in scripts" "got '$out'"

t_done
