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
# review 14: a docs example pasted into a script (a REPL line, an expression alone) is named
printf 'local g = {n = 3}\ng.n              --> 3\nprint(g)\n' >"$tmp/bare.lua"
"$dlb" run "$tmp/bare.lua" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "bare.lua:3: .*(line 2, \`g.n\`, is an expression alone: .*print(...))" "$tmp/e" \
  && t_ok "an expression alone in a script is named" \
  || t_fail "an expression alone in a script is named" "rc=$rc: $(cat "$tmp/e")"
# not for a line inside a multi-line call, nor for an error with no such line
printf 'print(\n  1\n  2)\n' >"$tmp/call.lua"
"$dlb" run "$tmp/call.lua" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && ! grep -q "expression alone" "$tmp/e" && t_ok "no hint for a line inside a call" \
  || t_fail "no hint for a line inside a call" "rc=$rc: $(cat "$tmp/e")"

"$dlb" run "$tmp/nope.lua" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "cannot open .*nope.lua: No such file or directory" "$tmp/e" \
  && t_ok "missing file: one-line error" || t_fail "missing file: one-line error" "$(cat "$tmp/e")"

"$dlb" -e 'os.exit(7)'; rc=$?
[ $rc -eq 7 ] && t_ok "os.exit(n)" || t_fail "os.exit(n)" "rc=$rc"

out=$(echo 'print(dlb.version())' | "$dlb" 2>&1)
echo "$out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' && t_ok "stdin script, dlb preloaded" \
  || t_fail "stdin script, dlb preloaded" "got '$out'"

"$dlb" plan "$tmp/nope.json" --hw H100 --gpus 8 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "^dlbench plan: cannot open .*nope.json: No such file or directory$" "$tmp/e" \
  && t_ok "plan: a missing model file says why" || t_fail "plan: a missing model file says why" "rc=$rc: $(cat "$tmp/e")"

# review 8: `-` with arguments and `run -` read the script from stdin, as lua.c's `-` (the
# first was "unknown command '-'", the second "cannot open -")
for form in "-" "run -"; do
  out=$(printf 'print(select("#", ...), arg[0], arg[1], ...)\n' | "$dlb" $form a b 2>&1)
  [ "$out" = "$(printf '2\t-\ta\ta\tb')" ] && t_ok "'$form a b' runs stdin with arguments" \
    || t_fail "'$form a b' runs stdin with arguments" "got '$out'"
done

# review 8: output that cannot be written is an error (exit 1, a message), not a lost answer
# with exit 0 (stdout on a full disk: /dev/full)
if [ -w /dev/full ]; then
  for form in "-e print(1)" "-e io.write(1)os.exit(0)" "--help" "plan gpt --hw H100 --gpus 8 --json"; do
    "$dlb" $form >/dev/full 2>"$tmp/e"; rc=$?
    [ $rc -eq 1 ] && grep -q "cannot write standard output" "$tmp/e" && t_ok "stdout on a full disk: '$form' fails" \
      || t_fail "stdout on a full disk: '$form' fails" "rc=$rc: $(cat "$tmp/e")"
  done
  "$dlb" -e 'os.exit(3)' >/dev/full 2>"$tmp/e"; rc=$?
  [ $rc -eq 3 ] && [ ! -s "$tmp/e" ] && t_ok "nothing written to stdout: the status stays" \
    || t_fail "nothing written to stdout: the status stays" "rc=$rc: $(cat "$tmp/e")"
fi

out=$("$dlb" --version)
echo "$out" | grep -q "Lua 5.4" && echo "$out" | grep -q "ABI" && t_ok "--version" \
  || t_fail "--version" "got '$out'"

"$dlb" --bogus 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown command" "$tmp/e" && t_ok "unknown option" \
  || t_fail "unknown option" "rc=$rc: $(cat "$tmp/e")"
# review 12: usage errors exit 2 in every command (docs/cli.md, docs/host.md); these exited 1
"$dlb" run 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "run needs a script file" "$tmp/e" && t_ok "run without FILE: exit 2" \
  || t_fail "run without FILE: exit 2" "rc=$rc: $(cat "$tmp/e")"
"$dlb" -e 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "\-e needs a Lua chunk" "$tmp/e" && t_ok "-e without a chunk: exit 2" \
  || t_fail "-e without a chunk: exit 2" "rc=$rc: $(cat "$tmp/e")"

out=$("$dlb" -e 'help(dlb.version) help(help)' 2>&1)
echo "$out" | grep -qF 'dlb.version() -> string' && echo "$out" | grep -qF 'help([x])' \
  && t_ok "global help in scripts" || t_fail "global help in scripts" "got '$out'"

out=$("$dlb" -e 'print(dlb.pretty({z = 1, a = {true}}))' 2>&1)
[ "$out" = "{ a = { true }, z = 1 }" ] && t_ok "dlb.pretty in scripts" \
  || t_fail "dlb.pretty in scripts" "got '$out'"

# Review 8: the help texts match what the commands accept. Every --flag a command's --help
# names is accepted by it (not "unknown option"), and the man page names it too.
man="$(dirname "$0")/../../docs/dlbench.1"
for cmd in plan info measure; do
  flags=$("$dlb" $cmd --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
  bad=""; unman=""
  for f in $flags; do
    "$dlb" $cmd $f 2>&1 </dev/null | grep -q "unknown option" && bad="$bad $f"
    grep -q -- "$(echo "$f" | sed 's/-/\\\\-/g')" "$man" || unman="$unman $f"
  done
  [ -n "$flags" ] && [ -z "$bad" ] && t_ok "$cmd --help: every flag accepted" \
    || t_fail "$cmd --help: every flag accepted" "refused:$bad"
  [ -z "$unman" ] && t_ok "$cmd: the man page names every flag" \
    || t_fail "$cmd: the man page names every flag" "missing in docs/dlbench.1:$unman"
done
# every command the top-level --help lists is one main.c knows (asked with --help, which
# main.c answers "unknown command" for a command it does not know: run bare, `measure`
# measured this machine for 3 s, 4.9 of the test's 7.5 CPU-s, to learn that it exists)
for cmd in $("$dlb" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | sort -u); do
  "$dlb" $cmd --help </dev/null 2>&1 | grep -q "unknown command" && t_fail "--help lists $cmd" "unknown command" \
    || t_ok "--help lists $cmd, which exists"
done

# ... and every command main.c dispatches is in --help
src="$(dirname "$0")/../../host/main.c"
for cmd in $(grep -o 'strcmp(argv\[[12]\], "[a-z-]*")' "$src" | sed 's/.*"\(.*\)")/\1/' | sort -u); do
  "$dlb" --help | grep -q -- "^  \(sweep \)\?$cmd\b\|^  --help, $cmd\b" && t_ok "--help names $cmd" \
    || t_fail "--help names $cmd" "main.c dispatches '$cmd', --help does not name it"
done

# Review 8: sweep merge/status read their options with the command line's one parser: an
# option without its value was silently dropped (merge -o wrote the CSV to stdout instead)
mkdir -p "$tmp/sw"
"$dlb" sweep merge "$tmp/sw" -o >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q "needs a value" "$tmp/e" && t_ok "sweep merge -o without a file" \
  || t_fail "sweep merge -o without a file" "rc=$rc: $(cat "$tmp/e")"
"$dlb" sweep status "$tmp/sw" --label >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "label needs a value" "$tmp/e" && t_ok "sweep status --label without a value" \
  || t_fail "sweep status --label without a value" "rc=$rc: $(cat "$tmp/e")"
"$dlb" sweep status "$tmp/sw" --bogus >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--bogus'" "$tmp/e" && t_ok "sweep status: unknown option named" \
  || t_fail "sweep status: unknown option named" "rc=$rc: $(cat "$tmp/e")"
"$dlb" sweep merge "$tmp/sw" --label=mylabel >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "labelled 'mylabel'" "$tmp/e" && t_ok "sweep merge --label=L" \
  || t_fail "sweep merge --label=L" "rc=$rc: $(cat "$tmp/e")"
# a submit folder that cannot be made: one line saying why (mkdir's own message was a second)
printf 'return 1\n' >"$tmp/study.lua"; : >"$tmp/afile"
"$dlb" sweep submit "$tmp/study.lua" --shards 2 --dry-run --dir "$tmp/afile/sub" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "cannot create .*afile/sub.*: Not a directory" "$tmp/e" \
  && t_ok "sweep submit: a folder that cannot be made, one line" \
  || t_fail "sweep submit: a folder that cannot be made, one line" "rc=$rc: $(cat "$tmp/e")"

t_done
