# test_faults.sh — fault injection (issue 18): sweeps killed (SIGKILL of a worker and of the
# parent, Ctrl-C, SIGTERM), a full disk, special-file and unwritable destinations, and
# concurrent sweeps on one checkpoint. After each fault the sweep is run again on its
# checkpoint; every config must then have exactly one finished row (none lost, none
# duplicated), no temporary file may be left, and a file beside the checkpoint must be
# unchanged. usage: bash tests/sh/test_faults.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
dlb=$1
tmp=$(mktemp -d)
mnt=""
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
  tm_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
set -m # background jobs keep SIGINT (not ignored), so Ctrl-C can be sent to them

N=24
# The sweep: x = 1..N, each config taking ~DELAY s (waiting in a poll on no descriptors, not
# spinning: the signals reach the sweep's processes as they would mid-computation, and the
# suite's CPU is not spent on waiting; a `sleep` child a config before, ~1,700 processes a
# run); progress goes to the checkpoint.
cat >"$tmp/sweep.lua" <<'LUA'
local dlb = require "dlbench"
local ck, jobs, delay = arg[1], tonumber(arg[2]), tonumber(arg[3] or "0.05")
local xs = {}
for i = 1, tonumber(os.getenv("FAULT_N")) do xs[i] = i end
local t = dlb.sweep({ x = xs }, function(p)
  dlb.core._proc_poll({}, delay)
  return { y = p.x * p.x }
end, { jobs = jobs, checkpoint = ck, quiet = true, progress = false })
local bad = 0
for _, r in t:rows() do if r._error or r.y ~= r.x * r.x then bad = bad + 1 end end
print(string.format("done %d rows, %d bad", t:count(), bad))
LUA
export FAULT_N=$N

# rows_ok CK: every x in 1..N has exactly one finished (error-free) row, and y = x^2.
rows_ok() {
  "$dlb" -e "
    local t = dlb.read_csv('$1')
    local seen, dup, wrong = {}, 0, 0
    for _, r in t:rows() do
      if r._error == nil then
        if seen[r.x] then dup = dup + 1 end
        seen[r.x] = true
        if r.y ~= r.x * r.x then wrong = wrong + 1 end
      end
    end
    local missing = 0
    for x = 1, $N do if not seen[x] then missing = missing + 1 end end
    if dup + wrong + missing > 0 then
      io.stderr:write(('lost %d, duplicated %d, wrong %d\n'):format(missing, dup, wrong)) os.exit(1)
    end" 2>"$tmp/rows_err"
}
# progress CK: finished rows in the checkpoint so far (lines minus the header)
progress() { local n; n=$({ wc -l <"$1"; } 2>/dev/null || echo 0); echo $((n > 0 ? n - 1 : 0)); }
# wait_rows CK K: until the checkpoint holds K rows (10 s at most)
wait_rows() {
  local i=0
  while [ $i -lt 200 ]; do
    [ "$(progress "$1")" -ge "$2" ] && return 0
    t_nap 0.05; i=$((i + 1))
  done
  return 1
}
# no_tmp DIR: no temporary file of the writer left in DIR
no_tmp() { ! ls -a "$1" | grep -q '\.tmp'; }
sentinel() { printf 'x,y\n1,1\nunrelated' >"$1/other.csv"; }
sentinel_ok() { [ "$(cat "$1/other.csv")" = "$(printf 'x,y\n1,1\nunrelated')" ]; }

# fault NAME JOBS SIGNAL WHO: start the sweep, send SIGNAL to WHO (parent|worker) once a few
# rows are done, then resume and check.
fault() {
  local name=$1 jobs=$2 sig=$3 who=$4 d="$tmp/$1"
  mkdir -p "$d"; sentinel "$d"
  "$dlb" run "$tmp/sweep.lua" "$d/ck.csv" "$jobs" >"$d/out1" 2>"$d/err1" &
  local pid=$!; pids+=("$pid")
  if ! wait_rows "$d/ck.csv" 4; then t_fail "$name: sweep started" "$(cat "$d/err1")"; return; fi
  if [ "$who" = worker ]; then
    local w; w=$(pgrep -P "$pid" | head -n 1)
    [ -n "$w" ] && kill -"$sig" "$w"
    wait "$pid"
  else
    kill -"$sig" "$pid"; wait "$pid"
  fi
  local rc=$?
  sleep 0.2
  # no worker outlives its parent
  if [ "$who" = parent ] && pgrep -f "$tmp/sweep.lua" >/dev/null; then
    t_fail "$name: workers gone" "$(pgrep -af "$tmp/sweep.lua")"
  fi
  "$dlb" run "$tmp/sweep.lua" "$d/ck.csv" "$jobs" >"$d/out2" 2>"$d/err2"
  if grep -q "^done $N rows, 0 bad" "$d/out2" && rows_ok "$d/ck.csv" && no_tmp "$d" && sentinel_ok "$d"; then
    t_ok "$name (first run exit $rc): resumed, every row once, nothing else changed"
  else
    t_fail "$name" "out: $(cat "$d/out2") err: $(cat "$d/err2" "$tmp/rows_err" 2>/dev/null | head -5) files: $(ls -a "$d" | tr '\n' ' ')"
  fi
}

fault "SIGKILL of a worker" 2 KILL worker
fault "SIGKILL of the parent (jobs=2)" 2 KILL parent
fault "SIGKILL of a serial sweep" 1 KILL parent
fault "Ctrl-C (jobs=2)" 2 INT parent
fault "Ctrl-C (jobs=1)" 1 INT parent
fault "SIGTERM (jobs=2)" 2 TERM parent

# -- concurrent sweeps on one checkpoint: one runs, the other is told; nothing lost
for trial in 1 2 3 4; do
  d="$tmp/conc$trial"; mkdir -p "$d"; sentinel "$d"
  "$dlb" run "$tmp/sweep.lua" "$d/ck.csv" 1 0.01 >"$d/a" 2>"$d/ea" &
  a=$!
  "$dlb" run "$tmp/sweep.lua" "$d/ck.csv" 1 0.01 >"$d/b" 2>"$d/eb" &
  b=$!
  pids+=("$a" "$b")
  wait "$a"; ra=$?; wait "$b"; rb=$?
  ok=$(cat "$d/a" "$d/b" | grep -c "^done $N rows, 0 bad")
  locked=$(cat "$d/ea" "$d/eb" | grep -c "in use by another process")
  # the second either got the lock error or started after the first had finished
  if [ $((ok + locked)) -eq 2 ] && [ "$ok" -ge 1 ] && rows_ok "$d/ck.csv" && no_tmp "$d" && sentinel_ok "$d"; then
    t_ok "concurrent sweeps $trial: $ok ran, $locked refused (exit $ra/$rb), every row once"
  else
    t_fail "concurrent sweeps $trial" "$(cat "$d/a" "$d/b" "$d/ea" "$d/eb" "$tmp/rows_err" 2>/dev/null | head -8)"
  fi
done

# -- concurrent writers of one file: every version whole (a reader never sees half of one),
# the last rename wins, no temporary file left
d="$tmp/writers"; mkdir -p "$d"; sentinel "$d"
cat >"$tmp/writer.lua" <<'LUA'
local dlb = require "dlbench"
local rows = {}
for i = 1, 2000 do rows[i] = { who = arg[2], i = i } end
local t = dlb.table.new(rows, { "who", "i" })
for _ = 1, 30 do assert(t:to_csv(arg[1])) end
LUA
"$dlb" run "$tmp/writer.lua" "$d/t.csv" A & wa=$!
"$dlb" run "$tmp/writer.lua" "$d/t.csv" B & wb=$!
pids+=("$wa" "$wb")
torn=0
while kill -0 "$wa" 2>/dev/null || kill -0 "$wb" 2>/dev/null; do
  if [ -f "$d/t.csv" ]; then
    n=$(wc -l <"$d/t.csv"); [ "$n" -eq 2001 ] || torn=$((torn + 1))
  fi
  t_nap 0.01 # (lib.sh: a read timeout; a `sleep` process a look was ~960 processes)
done
wait "$wa"; ra=$?; wait "$wb"; rb=$?
kinds=$(tail -n +2 "$d/t.csv" | cut -d, -f1 | sort -u | tr -d '\n')
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ $torn -eq 0 ] && { [ "$kinds" = A ] || [ "$kinds" = B ]; } \
   && no_tmp "$d" && sentinel_ok "$d"; then
  t_ok "concurrent writers of one file: every read saw a whole version ($kinds won), no temporary left"
else
  t_fail "concurrent writers" "exit $ra/$rb, torn reads $torn, writers in the file: $kinds, $(ls -a "$d" | tr '\n' ' ')"
fi

# -- special files: refused, never replaced
mkfifo "$tmp/fifo"
"$dlb" -e "
  local t = dlb.table.new({ { a = 1 } }, { 'a' })
  for _, p in ipairs { '/dev/null', '$tmp/fifo' } do
    local ok, err = t:to_csv(p); assert(not ok and err:find('dlbench replaces only regular files'), err)
    ok, err = dlb.hw.save_csv(p); assert(not ok, 'save_csv ' .. p)
    ok, err = pcall(dlb.sweep, { x = { 1 } }, function() return {} end, { jobs = 1, checkpoint = p })
    assert(not ok and err:find('not a regular file'), err)
    ok, err = pcall(dlb.read_csv, p); assert(not ok and err:find('not a regular file'), err)
  end
  local f = dlb.plot.figure {}
  f:line { x = { 1, 2 }, y = { 1, 2 } }
  local ok, err = pcall(f.save, f, '$tmp/fifo.png')
  print('special files refused')" >"$tmp/sp.out" 2>"$tmp/sp.err"
if grep -q "special files refused" "$tmp/sp.out" && [ -c /dev/null ] && [ -p "$tmp/fifo" ]; then
  t_ok "special files refused: /dev/null is still a device, the FIFO still a FIFO"
else
  t_fail "special files refused" "$(cat "$tmp/sp.err")"
fi
# a history that is a device or a FIFO is not used (it used to be read until memory ran out)
# (the REPL needs a terminal: tmux, as in test_repl.sh)
for h in /dev/full /dev/zero "$tmp/fifo"; do
  tm_start "env DLBENCH_HISTORY=$h $dlb"
  if tm_wait "dlbench> " 1 10 && tm_line "print(6*7)" && tm_wait "42" 1 10 \
     && tm_screen | grep -q "not a regular file"; then
    t_ok "DLBENCH_HISTORY=$h: a warning, then the REPL answers"
  else
    t_fail "DLBENCH_HISTORY=$h" "$(tm_screen | head -5)"
  fi
  tm_stop
done

# Review 8: the history file holds whole entries only. An entry that does not fit (here the
# file size limit, as a full disk) is cut off again: it left a torn line the next entry was
# glued to. A torn last line found at load (a crash mid-write) is dropped, the file repaired.
hist=$tmp/hist_fsize
python3 -c "open('$hist', 'w').write(''.join('x = %03d -- %s\n' % (i, 'p' * 28) for i in range(25)))"
tm_start "bash -c 'trap \"\" XFSZ; ulimit -f 1; DLBENCH_HISTORY=$hist INPUTRC=/dev/null HOME=$tmp exec $dlb'"
long=$(printf 'a%.0s' $(seq 80))
if tm_wait "dlbench> " 1 10 && tm_line "y = \"$long\"" && tm_wait "File too large" 1 10 \
   && tm_line "print(6*7)" && tm_wait "42" 1 10; then
  tm_stop
  if [ "$(head -c 1000 "$hist" | md5sum)" = "$(python3 -c "import sys; sys.stdout.write(''.join('x = %03d -- %s\n' % (i, 'p' * 28) for i in range(25)))" | md5sum)" ] \
     && ! grep -q "aaaa" "$hist" && grep -qx 'print(6\*7)' "$hist"; then
    t_ok "history past the file size limit: no torn entry, the next entry on its own line"
  else
    t_fail "history past the file size limit" "$(tail -c 120 "$hist" | cat -A)"
  fi
else
  t_fail "history past the file size limit" "$(tm_screen | grep -v '^$' | tail -5)"
fi
tm_stop
hist=$tmp/hist_torn
printf 'a = 1\nb = 2\nc = "tor' >"$hist"
tm_start "env DLBENCH_HISTORY=$hist INPUTRC=/dev/null HOME=$tmp $dlb"
if tm_wait "dlbench> " 1 10 && tm_line "print(6*7)" && tm_wait "42" 1 10; then
  tm_stop
  if [ "$(head -3 "$hist")" = "$(printf 'a = 1\nb = 2\nprint(6*7)')" ]; then
    t_ok "history with a torn last line: dropped at load, the next entry on its own line"
  else
    t_fail "history with a torn last line" "$(cat -A "$hist")"
  fi
else
  t_fail "history with a torn last line" "$(tm_screen | grep -v '^$' | tail -5)"
fi
tm_stop

# -- a full disk: a small tmpfs (needs root); the old file survives, no temporary is left
mnt="$tmp/small"
mkdir -p "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  printf 'a\nold\n' >"$mnt/t.csv"
  "$dlb" -e "
    local rows = {}
    for i = 1, 20000 do rows[i] = { a = string.rep('z', 20) } end
    local ok, err = dlb.table.new(rows, { 'a' }):to_csv('$mnt/t.csv')
    assert(not ok and err:find('No space left'), tostring(err))
    print('refused')" >"$tmp/full.out" 2>"$tmp/full.err"
  if grep -q refused "$tmp/full.out" && [ "$(cat "$mnt/t.csv")" = "$(printf 'a\nold')" ] && no_tmp "$mnt"; then
    t_ok "full disk: to_csv fails clearly, the old file is intact, no temporary left"
  else
    t_fail "full disk: to_csv" "$(cat "$tmp/full.err") $(ls -a "$mnt")"
  fi
  rm -f "$mnt/t.csv"
  # a sweep whose checkpoint fills the disk stops with the error; its rows so far survive
  cat >"$tmp/fill.lua" <<'LUA'
local dlb = require "dlbench"
local xs = {}
for i = 1, 4000 do xs[i] = i end
local ok, err = pcall(dlb.sweep, { x = xs }, function(p) return { pad = string.rep("p", 100) } end,
  { jobs = 1, checkpoint = arg[1], quiet = true, progress = false })
print(ok and "finished" or ("stopped: " .. tostring(err)))
LUA
  "$dlb" run "$tmp/fill.lua" "$mnt/ck.csv" >"$tmp/fill.out" 2>&1
  n1=$(progress "$mnt/ck.csv")
  if grep -q "stopped: .*No space left" "$tmp/fill.out" && [ "$n1" -gt 10 ] && no_tmp "$mnt"; then
    # free the space (a bigger disk) and resume: all 4000 once
    mount -o remount,size=4m "$mnt" 2>/dev/null
    "$dlb" run "$tmp/fill.lua" "$mnt/ck.csv" >"$tmp/fill2.out" 2>&1
    dups=$("$dlb" -e "local t = dlb.read_csv('$mnt/ck.csv'); local s, d, n = {}, 0, 0
      for _, r in t:rows() do if not r._error then if s[r.x] then d = d + 1 end s[r.x] = true; n = n + 1 end end
      print(d, n)")
    if grep -q finished "$tmp/fill2.out" && [ "$dups" = "$(printf '0\t4000')" ]; then
      t_ok "full disk: the sweep stops clearly after $n1 rows and resumes to 4000 rows, none twice"
    else
      t_fail "full disk: resume" "$(cat "$tmp/fill2.out") dups/n: $dups"
    fi
  else
    t_fail "full disk: sweep" "$(cat "$tmp/fill.out") rows $n1 $(ls -a "$mnt")"
  fi
  # a read-only file system: unwritable, refused clearly
  mount -o remount,ro "$mnt" 2>/dev/null
  out=$("$dlb" -e "print(dlb.table.new({ { a = 1 } }, { 'a' }):to_csv('$mnt/ro.csv'))" 2>&1)
  if grep -q "Read-only file system" <<<"$out" && [ ! -e "$mnt/ro.csv" ]; then
    t_ok "unwritable destination: a clear error, nothing created"
  else
    t_fail "unwritable destination" "$out"
  fi
  umount "$mnt"; mnt=""
else
  echo "# skipped the full-disk and read-only checks (mounting a tmpfs needs root)"
fi
# a destination in a missing folder: a clear error
out=$("$dlb" -e "print(dlb.table.new({ { a = 1 } }, { 'a' }):to_csv('$tmp/no/such/dir/x.csv'))" 2>&1)
grep -q "No such file or directory" <<<"$out" && t_ok "missing folder: a clear error" \
  || t_fail "missing folder" "$out"

t_done
