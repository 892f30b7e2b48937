# test_layers.sh — the numeric core holds no process control (issue [13], deliverable 5):
# libdlbench (the shared library and the archive, as built in build/lib of the flavour
# whose dlbench is given) neither calls nor defines the worker pool's system calls and
# functions, which live in libdlbench_proc (proc/), and the graphs/ and plots/ sources
# include no header of proc/. The same checks on libdlbench_proc must find them (so the
# test cannot pass by reading nothing).
# usage: bash tests/sh/test_layers.sh path/to/dlbench
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=$(cd "$(dirname "$1")" && pwd)
lib=$(cd "$bindir/../lib" && pwd)

# process control: creating, waiting for, signalling processes, their channels, and the
# parent-death signal; and the pool's own functions
calls='fork|vfork|clone|execve|execvp|posix_spawn|socketpair|pipe|pipe2|waitpid|wait4|kill|prctl|sigaction|signal|poll'
defs='dlb_proc_[a-z0-9_]+'

# symbols FILE KIND: the undefined (calls) or defined (defs) symbol names of a library
symbols() {
  case $2 in
    undefined) nm -u "$1" 2>/dev/null | awk '$1 == "U" {print $2}' | sed 's/@.*//' ;;
    defined) nm --defined-only "$1" 2>/dev/null | awk 'NF == 3 {print $3}' ;;
  esac
}
shared() { # the dynamic symbol table of a shared library
  case $2 in
    undefined) nm -D -u "$1" | awk '$1 == "U" {print $2}' | sed 's/@.*//' ;;
    defined) nm -D --defined-only "$1" | awk 'NF == 3 {print $3}' ;;
  esac
}

check() { # NAME LISTER FILE: FILE calls none of $calls and defines none of $defs
  local name=$1 lister=$2 f=$3 bad
  [ -f "$f" ] || { t_fail "$name" "$f missing"; return; }
  bad=$({ "$lister" "$f" undefined | grep -xE "$calls"; "$lister" "$f" defined | grep -xE "$defs"; } \
    | sort -u | tr '\n' ' ')
  [ -z "$bad" ] && t_ok "$name: no process control" || t_fail "$name: no process control" "$bad"
}
expect() { # NAME LISTER FILE: FILE does call fork and define dlb_proc_spawn
  local name=$1 lister=$2 f=$3
  [ -f "$f" ] || { t_fail "$name" "$f missing"; return; }
  "$lister" "$f" undefined | grep -qx fork && "$lister" "$f" defined | grep -qx dlb_proc_spawn \
    && t_ok "$name: the pool is here" || t_fail "$name: the pool is here" "no fork / dlb_proc_spawn in $f"
}

if [ -f "$lib/libdlbench.so" ]; then
  check "libdlbench.so" shared "$lib/libdlbench.so"
  expect "libdlbench_proc.so" shared "$lib/libdlbench_proc.so"
  soname=$(objdump -p "$lib/libdlbench_proc.so" | awk '$1 == "SONAME" {print $2}')
  abi=$(sed -n 's/^enum { DLB_ABI_VERSION = \([0-9]*\) };$/\1/p' "$root/graphs/base/dlb_base.h")
  [ "$soname" = "libdlbench_proc.so.$abi" ] && t_ok "libdlbench_proc SONAME $soname" \
    || t_fail "libdlbench_proc SONAME" "got '$soname' for ABI '$abi'"
  others=$(shared "$lib/libdlbench_proc.so" defined | grep -v '^dlb_proc_' | tr '\n' ' ')
  [ -z "$others" ] && t_ok "libdlbench_proc.so exports only dlb_proc_*" \
    || t_fail "libdlbench_proc.so exports only dlb_proc_*" "$others"
fi
check "libdlbench.a" symbols "$lib/static/libdlbench.a"
expect "libdlbench_proc.a" symbols "$lib/static/libdlbench_proc.a"
# the executable reaches the pool through libdlbench_proc.a (linked statically)
nm "$1" | grep -q ' T dlb_proc_spawn$' && t_ok "dlbench links the pool" \
  || t_fail "dlbench links the pool" "no dlb_proc_spawn in $1"

# the sources: graphs/ and plots/ include nothing of proc/
inc=$(cd "$root" && grep -ln '#include *"\(dlb_proc\|proc_internal\)\.h"' graphs/* graphs/*/* plots/* 2>/dev/null | tr '\n' ' ')
[ -z "$inc" ] && t_ok "graphs/ and plots/ include no proc/ header" \
  || t_fail "graphs/ and plots/ include no proc/ header" "$inc"
t_done
