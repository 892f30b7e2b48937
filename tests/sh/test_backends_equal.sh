# test_backends_equal.sh — both backends print the same text: five fast notebooks run under
# the dlbench host (Lua 5.4, C API) and under LuaJIT's FFI, their stdout and stderr compared
# line for line (the output folder's name made the same) and their figures byte for byte.
# It would have caught notebooks/deepbench.lua's 62% / 63% (a halfway value, rounded to even
# by Lua 5.4's printf and away from zero by LuaJIT's formatter; lua/dlbench/ffi_format.lua).
# The notebooks print no timings. About 4 s (both backends, five notebooks, 2-core VM).
# usage: bash tests/sh/test_backends_equal.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"
dlb=$1
root=$PWD
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if ! command -v luajit >/dev/null 2>&1; then
  echo "skip: no luajit"; t_done; exit
fi
for n in deepbench lecture hardware hestness_compute import; do
  "$dlb" run "notebooks/$n.lua" "$tmp/capi/$n" >"$tmp/$n.capi.out" 2>"$tmp/$n.capi.err"; rc1=$?
  env LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;;" LD_LIBRARY_PATH="$root/build/lib" \
    DLB_BACKEND=ffi luajit "notebooks/$n.lua" "$tmp/ffi/$n" >"$tmp/$n.ffi.out" 2>"$tmp/$n.ffi.err"; rc2=$?
  for s in out err; do
    sed -i "s|$tmp/capi/|OUT/|g; s|$tmp/ffi/|OUT/|g" "$tmp/$n.capi.$s" "$tmp/$n.ffi.$s"
  done
  if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
    t_fail "$n: runs on both backends" "exit $rc1 (capi) / $rc2 (ffi): $(tail -3 "$tmp/$n.capi.err" "$tmp/$n.ffi.err")"
    continue
  fi
  d=$(diff "$tmp/$n.capi.out" "$tmp/$n.ffi.out"; diff "$tmp/$n.capi.err" "$tmp/$n.ffi.err")
  [ -z "$d" ] && [ -s "$tmp/$n.capi.out" ] && t_ok "$n: the same text on both backends" \
    || t_fail "$n: the same text on both backends" "$(echo "$d" | head -20)"
  if [ -d "$tmp/capi/$n" ]; then
    d=$(diff -r "$tmp/capi/$n" "$tmp/ffi/$n" 2>&1)
    [ -z "$d" ] && t_ok "$n: the same figures on both backends" \
      || t_fail "$n: the same figures on both backends" "$d"
  fi
done
t_done
