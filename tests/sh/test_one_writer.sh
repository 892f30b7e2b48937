# test_one_writer.sh — files are written whole or not at all through the one writer
# (dlb_file_write: core.file_write, dlb.table.write_atomic, t:to_csv, f:save; docs/security.md),
# never by io.open in a write or append mode, in the library (lua/dlbench/) and the notebooks
# (notebooks/*.lua, which users copy). The generators (host/*.lua, run by the build) keep
# their own temporary-file-and-rename writers. Branch review7: notebooks/tour.lua wrote
# out/tour_mlp.dot with io.open (a torn file on a full disk, nothing said when it could not
# write).
# usage: bash tests/sh/test_one_writer.sh [path/to/dlbench]   (the argument is not used)
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

# io.open(..., "w"), "wb", "a", "w+", ... (the mode as a string literal); comments skipped
bad=$(grep -nE 'io\.open\([^)]*,[[:space:]]*["'"'"'](w|a)' lua/dlbench/*.lua lua/dlbench/*/*.lua notebooks/*.lua 2>/dev/null \
  | grep -vE '^[^:]+:[0-9]+:[[:space:]]*--')
[ -z "$bad" ] && t_ok "no io.open writer in lua/dlbench/ and notebooks/" \
  || t_fail "no io.open writer in lua/dlbench/ and notebooks/" "found: $bad"
# the check sees a writer when there is one (a file of its own, outside the tree)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'local f = io.open("out/x.txt", "w")\n' >"$tmp/x.lua"
grep -qE 'io\.open\([^)]*,[[:space:]]*["'"'"'](w|a)' "$tmp/x.lua" && t_ok "the pattern finds a writer" \
  || t_fail "the pattern finds a writer" "missed: $(cat "$tmp/x.lua")"
t_done
