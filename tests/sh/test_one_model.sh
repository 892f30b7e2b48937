# test_one_model.sh — the one step model (issue [20] item 1): the per-configuration path
# (graphs/hw/roofline.c's roofline_ops) and the compiled sweep (graphs/sweep/) time a step
# through dlb_step_time (graphs/hw/step_time.c) alone, so the step-level terms are written
# once: in graphs/hw and graphs/sweep, only step_time.c reads the device's step_overhead
# (hw.c, which checks the device's fields, apart) or
# ends a timeline (dlb_timeline_end, defined in roofline.c), and both paths call
# dlb_step_time. (tests/test_sweep.c's test_one_step_model checks that a changed term moves
# both paths' numbers alike.)
# usage: bash tests/sh/test_one_model.sh [path/to/dlbench]   (the argument is not used)
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

code() { # the C code of the files, comments removed
  for f in "$@"; do sed 's|/\*.*\*/||g; /\/\*/,/\*\//d' "$f"; done
}
bad=$(for f in graphs/hw/*.c graphs/sweep/*.c; do
  case $f in graphs/hw/step_time.c|graphs/hw/hw.c) continue ;; esac  # hw.c checks the field
  code "$f" | grep -q 'step_overhead' && echo "$f"
done)
[ -z "$bad" ] && t_ok "only step_time.c reads step_overhead in graphs/hw and graphs/sweep" \
  || t_fail "only step_time.c reads step_overhead in graphs/hw and graphs/sweep" "also: $bad"
bad=$(for f in graphs/hw/*.c graphs/sweep/*.c; do
  [ "$f" = graphs/hw/step_time.c ] && continue
  code "$f" | grep -v '^double dlb_timeline_end\|^void dlb_timeline_sync' | grep -q 'dlb_timeline_end(' && echo "$f"
done)
# roofline.c defines dlb_timeline_end and dlb_timeline_sync (which calls it)
bad=$(echo "$bad" | grep -v '^graphs/hw/roofline.c$')
[ -z "$bad" ] && t_ok "only step_time.c ends a step's timeline" \
  || t_fail "only step_time.c ends a step's timeline" "also: $bad"
code graphs/hw/roofline.c | grep -q 'dlb_step_time(' && t_ok "roofline_ops calls dlb_step_time" \
  || t_fail "roofline_ops calls dlb_step_time" "no call in graphs/hw/roofline.c"
code graphs/sweep/sweep_eval.c | grep -q 'dlb_step_time(' && t_ok "the compiled sweep calls dlb_step_time" \
  || t_fail "the compiled sweep calls dlb_step_time" "no call in graphs/sweep/sweep_eval.c"
code graphs/sweep/*.c | grep -q 'dlb_timeline_op(' && t_fail "the compiled sweep runs no timeline of its own" "dlb_timeline_op in graphs/sweep" \
  || t_ok "the compiled sweep runs no timeline of its own"
t_done
