# test_measure_cli.sh — `dlbench measure`: prints the measured device, writes a catalogue
# file dlb.hw.load reads back and the roofline figure; bad options are one clear error.
# usage: bash tests/sh/test_measure_cli.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
dlb=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$dlb" measure --seconds 0.2 --reps 3 --name cli-host --csv "$tmp/h/host.csv" \
  --figure "$tmp/h/roof.png" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 0 ] && grep -q "^cli-host (cpu)" "$tmp/o" && grep -q "level DRAM" "$tmp/o" \
  && t_ok "measure prints the device" || t_fail "measure prints the device" "rc=$rc: $(cat "$tmp/e")"
[ -s "$tmp/h/roof.png" ] && t_ok "measure writes the figure" || t_fail "measure writes the figure" "no png"
out=$("$dlb" -e "local d = dlb.hw.load('$tmp/h/host.csv')[1]; print(d.name, #d:level_list() > 0)" 2>&1)
[ "$out" = "$(printf 'cli-host\ttrue')" ] && t_ok "the catalogue file loads back" \
  || t_fail "the catalogue file loads back" "got '$out'"

"$dlb" measure --bogus 1 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--bogus' for dlbench measure; accepted: --csv" "$tmp/e" && t_ok "unknown option" \
  || t_fail "unknown option" "rc=$rc: $(cat "$tmp/e")"
# review 8: a command-line error is its message, not a Lua traceback into measure.lua
! grep -q "traceback\|measure\.lua" "$tmp/e" && t_ok "unknown option: no traceback" \
  || t_fail "unknown option: no traceback" "$(cat "$tmp/e")"
"$dlb" measure --threads -3 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/e")" = "dlbench measure: threads must be 0 (all $(nproc) processors) or a count 1..1024, got -3" ] \
  && t_ok "bad --threads: one line" || t_fail "bad --threads: one line" "rc=$rc: $(cat "$tmp/e")"
# review 8: a destination that cannot be written is refused before the seconds of measuring
# (it failed after them, the measurement lost); nothing measured, nothing written
ro=$tmp/ro; mkdir -p "$ro"; chmod 555 "$ro"
for dest in "--csv /proc/nope/host.csv" "--figure $tmp/h" "--csv $ro/host.csv"; do
  # root writes anywhere: that case has nothing to refuse (asked before the command, which
  # would measure for the 5 s and write the file)
  if [ -w "$ro" ] && [ "${dest#*$ro}" != "$dest" ]; then continue; fi
  "$dlb" measure --seconds 5 $dest >"$tmp/o" 2>"$tmp/e"; rc=$?
  [ $rc -eq 1 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] \
    && grep -q "^dlbench measure: ${dest%% *} ${dest#* }" "$tmp/e" && [ ! -e "$ro/host.csv" ] \
    && t_ok "unwritable ${dest%% *} refused before measuring" \
    || t_fail "unwritable ${dest%% *} refused before measuring" "rc=$rc: $(cat "$tmp/e") / $(head -2 "$tmp/o")"
done
chmod 755 "$ro"
"$dlb" measure --seconds x >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "needs a number" "$tmp/e" && t_ok "bad number" \
  || t_fail "bad number" "rc=$rc: $(cat "$tmp/e")"
"$dlb" measure --stat mean --seconds 0.1 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'stat must be "median" or "min"' "$tmp/e" && t_ok "bad --stat" \
  || t_fail "bad --stat" "rc=$rc: $(cat "$tmp/e")"
"$dlb" measure --threads 1 --stat min --seconds 0.2 --reps 3 --csv "$tmp/h/h1.csv" \
  --figure "$tmp/h/r1.png" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 0 ] && grep -q "1 thread(s), fastest of 3" "$tmp/o" && t_ok "--threads 1 --stat min" \
  || t_fail "--threads 1 --stat min" "rc=$rc: $(cat "$tmp/e")"
# review 12: usage errors exit 2, as `plan` and `info` do (docs/cli.md); they exited 1
"$dlb" measure extra >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "^dlbench measure: unexpected argument 'extra'" "$tmp/e" \
  && t_ok "extra argument: usage error, exit 2" || t_fail "extra argument: usage error, exit 2" "rc=$rc: $(cat "$tmp/e")"
"$dlb" measure --seconds >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "^dlbench measure: --seconds needs a value" "$tmp/e" \
  && t_ok "missing value: exit 2" || t_fail "missing value: exit 2" "rc=$rc: $(cat "$tmp/e")"
out=$("$dlb" measure --help 2>&1)
echo "$out" | grep -q "usage: dlbench measure" && t_ok "help" || t_fail "help" "got '$out'"

t_done
