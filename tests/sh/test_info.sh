# test_info.sh — `dlbench info FILE [name=value ...]` (docs/import.md): one screen for an
# .onnx file and a config.json; one-line errors with exit status 1.
# usage: bash tests/sh/test_info.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"
dlb=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$("$dlb" info tests/fixtures/onnx/resnet50.onnx batch=32 2>&1); rc=$?
# torchvision's ResNet-50: 25,557,032 parameters
[ $rc -eq 0 ] && echo "$out" | grep -q "parameters      25,557,032 (+ 53,120 BatchNorm" \
  && echo "$out" | grep -q "bindings        batch=32" && echo "$out" | grep -q "unsupported     none" \
  && [ "$(echo "$out" | wc -l)" -le 24 ] \
  && t_ok "info model.onnx: one screen" || t_fail "info model.onnx: one screen" "rc=$rc: $out"
# the same run is docs/import.md's example screen
t_doc_screen docs/import.md "dlbench info tests/fixtures/onnx/resnet50.onnx batch=32" "$out"

out=$("$dlb" info tests/fixtures/hf/mistral-7b-v0.1.json 2>&1); rc=$?
# Mistral-7B-v0.1: 7,241,732,096 parameters (model card)
[ $rc -eq 0 ] && echo "$out" | grep -q "7,241,732,096" && echo "$out" | grep -q "dlb.models.llama" \
  && t_ok "info config.json" || t_fail "info config.json" "rc=$rc: $out"

out=$("$dlb" info tests/fixtures/onnx/custom_ops.onnx 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "Einsum (2), FancyAct (1), Pool8 (1) (costed as element-wise)" \
  && t_ok "info lists unsupported ops" || t_fail "info lists unsupported ops" "rc=$rc: $out"

head -c 300 tests/fixtures/onnx/small_cnn.onnx >"$tmp/cut.onnx"
"$dlb" info "$tmp/cut.onnx" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "onnx '.*cut.onnx'" "$tmp/e" \
  && t_ok "truncated file: one-line error, exit 1" || t_fail "truncated file: one-line error, exit 1" "rc=$rc: $(cat "$tmp/e")"

"$dlb" info >"$tmp/o" 2>"$tmp/e"; rc=$?
# usage errors exit 2, as docs/cli.md says and plan does (review 8: these exited 1)
[ $rc -eq 2 ] && grep -q "^dlbench info: a FILE is required" "$tmp/e" && grep -q "usage: dlbench info FILE" "$tmp/e" \
  && t_ok "info without a file: usage" \
  || t_fail "info without a file: usage" "rc=$rc: $(cat "$tmp/e")"

"$dlb" info tests/fixtures/hf/gpt2.json b=x >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "'b=x' is not name=integer" "$tmp/e" && t_ok "info: bad binding" \
  || t_fail "info: bad binding" "rc=$rc: $(cat "$tmp/e")"

t_done
