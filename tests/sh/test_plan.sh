# test_plan.sh — `dlbench plan MODEL --hw D --gpus N ...` and `dlbench info ... --hw
# --precision --framework` (docs/cli.md): a Hugging Face config, a zoo name and an .onnx
# file; --json for pipelines; every default named; one-line errors with exit status 1
# (usage errors 2); --framework passed on, an unknown profile named in one line.
# usage: bash tests/sh/test_plan.sh path/to/dlbench   (from the source tree's root)
. "$(dirname "$0")/lib.sh"
dlb=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$("$dlb" plan tests/fixtures/hf/llama-2-7b.json --hw H100 --gpus 1024 --tokens 15e12 --price 2 2>&1); rc=$?
# Llama-2-7B: 6,738,415,616 parameters (model card: 6.74 B)
[ $rc -eq 0 ] && echo "$out" | grep -q "^model .*6,738,415,616 parameters" \
  && echo "$out" | grep -q "^cluster *1024 x H100-SXM, batch 1024 sequences x seq 4096" \
  && echo "$out" | grep -qE "^layout *dp [0-9]+ x tp [0-9]+ x pp [0-9]+" \
  && echo "$out" | grep -qE "^step time *[0-9.]+ (ms|s)" \
  && echo "$out" | grep -qE "^MFU *[0-9.]+% \(model FLOPs \(fwd \+ bwd, no recompute; causal attention counted half\) / \(step x 990 TFLOP/s fp16 peak x 1024 devices\)" \
  && echo "$out" | grep -qE "^framework *torchtitan \(default" \
  && echo "$out" | grep -qE "^footprint *[0-9.]+ GB of 80 GB per device" \
  && echo "$out" | grep -qE "^throughput *[0-9.]+ M tokens/s" \
  && echo "$out" | grep -qE "^train *15 T tokens in [0-9.]+ days" \
  && echo "$out" | grep -qE "^energy .*700 W board power" \
  && echo "$out" | grep -qE '^cost *\$[0-9,]+ at \$2 per device-hour' \
  && echo "$out" | grep -q "^defaults .*seq=4096 (the config's context.*batch=1024 (one sequence per device).*precision=mixed" \
  && t_ok "plan config.json --hw H100 --gpus 1024 --tokens 15e12 --price 2" || t_fail "plan config.json" "rc=$rc: $out"
# the same run is docs/cli.md's example screen
t_doc_screen docs/cli.md "dlbench plan tests/fixtures/hf/llama-2-7b.json --hw H100 --gpus 1024 --tokens 15e12 --price 2" "$out"

"$dlb" plan tests/fixtures/hf/llama-2-7b.json --hw H100 --gpus 64 --tokens 1e9 --json >"$tmp/p.json" 2>"$tmp/e"; rc=$?
out=$("$dlb" -e "local j = dlb.core.json_read('$tmp/p.json')
  assert(j.gpus == 64 and j.hw == 'H100-SXM' and j.batch == 64 and j.seq == 4096)
  assert(j.step_s > 0 and j.mfu > 0 and j.mfu < 1 and j.mem_per_device_bytes <= j.mem_device_bytes)
  assert(math.abs(j.throughput - 64 * 4096 / j.step_s) < 1e-6 * j.throughput)
  assert(math.abs(j.train_s - 1e9 / j.throughput) < 1e-9 * j.train_s)
  assert(math.abs(j.energy_j - j.train_s * 64 * 700) < 1e-6 * j.energy_j)
  assert(j.layout.dp * j.layout.tp * j.layout.pp == 64 and j.mfu_convention:find('no recompute', 1, true) and j.framework_used ~= nil)
  assert(j.optimizer == 'adamw', 'the config model trains with AdamW')
  print('ok')" 2>&1)
[ $rc -eq 0 ] && [ "$out" = ok ] && t_ok "plan --json: one object, consistent numbers" \
  || t_fail "plan --json" "rc=$rc $(cat "$tmp/e") $out"

out=$("$dlb" plan gpt:gpt3-175b --hw A100-SXM4-80GB --gpus 1024 --batch 1536 2>&1); rc=$?
# GPT-3 175B: 174.6 B parameters in the zoo (docs/models.md)
[ $rc -eq 0 ] && echo "$out" | grep -q "174,604,259,328 parameters" && echo "$out" | grep -q "seq 2048" \
  && echo "$out" | grep -q "^defaults .*seq=2048 (the model's default)" \
  && t_ok "plan zoo:size (gpt:gpt3-175b)" || t_fail "plan zoo name" "rc=$rc: $out"

out=$("$dlb" plan tests/fixtures/onnx/resnet50.onnx --hw V100 --gpus 8 --tokens 1.28e6 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "25,557,032 parameters" && echo "$out" | grep -q "batch 8 samples" \
  && echo "$out" | grep -qE "^train *1.28 M samples in" && t_ok "plan model.onnx (samples, not tokens)" \
  || t_fail "plan model.onnx" "rc=$rc: $out"

# the defaults name the optimizer whose state the footprint holds, the model's (review 11:
# "fp32 master weights and Adam state" for every model; the zoo ResNet trains with momentum)
out=$("$dlb" plan resnet --hw A100 --gpus 8 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -qE "^defaults .*fp32 master weights and optimizer state\); optimizer=momentum \(the model's: resnet\)" \
  && ! echo "$out" | grep -q "Adam" && t_ok "plan: the model's optimizer named" || t_fail "plan: optimizer named" "rc=$rc: $out"

# review 21: a device without power (TPU v5e: Cloud TPU docs give none) leaves energy_j
# null with the reason in energy_note, the text's words; the defaults name the peak "mixed"
# runs at (bf16: TPU v5e has no fp16 peak); a CPU host cannot run the default
out=$("$dlb" plan tests/fixtures/hf/llama-2-7b.json --hw TPUv5e --gpus 256 --tokens 1e9 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "^energy *unknown: TPUv5e has no power figure in the catalogue" \
  && echo "$out" | grep -q "^defaults .*precision=mixed (16-bit tensors on the bf16 peak" \
  && t_ok "plan: a device without power says so (text)" || t_fail "plan: no power (text)" "rc=$rc: $out"
"$dlb" plan tests/fixtures/hf/llama-2-7b.json --hw TPUv5e --gpus 256 --tokens 1e9 --json >"$tmp/t.json" 2>"$tmp/e"; rc=$?
out=$("$dlb" -e "local j = dlb.core.json_read('$tmp/t.json')
  assert(j.energy_j == nil, 'no power: no energy')
  assert(j.energy_note == 'unknown: TPUv5e has no power figure in the catalogue', tostring(j.energy_note))
  assert(j.precision == 'mixed' and j.precision_peak == 'bf16')
  print('ok')" 2>&1)
[ $rc -eq 0 ] && [ "$out" = ok ] && t_ok "plan --json: energy_note says why energy_j is null" \
  || t_fail "plan --json energy_note" "rc=$rc $(cat "$tmp/e") $out"
"$dlb" plan tests/fixtures/hf/llama-2-7b.json --hw H100 --gpus 64 --json >"$tmp/n.json" 2>"$tmp/e"; rc=$?
out=$("$dlb" -e "local j = dlb.core.json_read('$tmp/n.json')
  assert(j.energy_j == nil and j.energy_note:find('per-step figures only', 1, true), tostring(j.energy_note))
  print('ok')" 2>&1)
[ $rc -eq 0 ] && [ "$out" = ok ] && t_ok "plan --json without --tokens: energy_note" \
  || t_fail "plan --json no tokens" "rc=$rc $(cat "$tmp/e") $out"
"$dlb" plan tests/fixtures/hf/llama-2-7b.json --hw Skylake --gpus 8 >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] \
  && grep -q "no precision was given and the default, mixed, cannot run on device 'Skylake-n1-32' (it has fp64, fp32): pass --precision one of those" "$tmp/e" \
  && t_ok "plan: a CPU host cannot run the default mixed, said in one line" || t_fail "plan: CPU default" "rc=$rc $(cat "$tmp/e")"

"$dlb" plan nosuchmodel --hw H100 --gpus 8 >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "'nosuchmodel' is neither a file nor a zoo model" "$tmp/e" \
  && t_ok "plan: unknown model, one line" || t_fail "plan unknown model" "rc=$rc $(cat "$tmp/e")"
"$dlb" plan llama --hw H100 >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "gpus N is required" "$tmp/e" && t_ok "plan: --gpus required (exit 2)" \
  || t_fail "plan --gpus required" "rc=$rc $(cat "$tmp/e")"
"$dlb" plan llama --hw H100 --gpus 8 --tokns 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--tokns'" "$tmp/e" && t_ok "plan: unknown option named" \
  || t_fail "plan unknown option" "rc=$rc $(cat "$tmp/e")"
"$dlb" plan llama --hw H900 --gpus 8 >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "^dlbench plan: --hw: unknown device 'H900'" "$tmp/e" && t_ok "plan: unknown device" \
  || t_fail "plan unknown device" "rc=$rc $(cat "$tmp/e")"
"$dlb" plan gpt:gpt3-175b --hw V100 --gpus 8 >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "no layout fits" "$tmp/e" && t_ok "plan: nothing fits, said in one line" \
  || t_fail "plan nothing fits" "rc=$rc $(cat "$tmp/e")"
# its advice is the command line's (--gpus), the library's options said as such (review 14:
# it offered offload="search" and keep_unfit=true as if they were flags)
grep -q "; try more --gpus, or dlb.parallel.plan in Lua with .*offload=\"search\"" "$tmp/e" \
  && ! grep -q "try more devices" "$tmp/e" && t_ok "plan: nothing fits, advice for the command line" \
  || t_fail "plan nothing fits: advice" "$(cat "$tmp/e")"

# --framework: passed on as framework= (the library has always had dlb.frameworks since [18];
# review 11 dropped the refusal for a build without it, a branch no build could take); an
# unknown name is one line naming it, for plan and info alike (info's said
# '[string "require('dlbench.cli_plan').info({...})"]:1: g:stats: ...' before)
"$dlb" plan llama --hw H100 --gpus 8 --framework fsdp >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 0 ] && grep -qE "^framework *fsdp \(option\)" "$tmp/o" && t_ok "plan --framework fsdp" \
  || t_fail "plan --framework" "rc=$rc $(cat "$tmp/o" "$tmp/e")"
for c in "plan llama --hw H100 --gpus 8" "info tests/fixtures/hf/gpt2.json --hw H100"; do
  # shellcheck disable=SC2086
  "$dlb" $c --framework fsdpp >"$tmp/o" 2>"$tmp/e"; rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] \
    && grep -qE "^dlbench (plan|info): --framework: unknown framework 'fsdpp' \(did you mean 'fsdp'\?\)" "$tmp/e" \
    && ! grep -q '\[string' "$tmp/e" \
    && t_ok "${c%% *} --framework fsdpp: one line naming it" || t_fail "${c%% *} --framework fsdpp" "rc=$rc $(cat "$tmp/e")"
  # review 13: the flag named, not the library's inner calls ("parallel.layers.from_graph:
  # g:stats: unknown precision 'fp3'")
  # shellcheck disable=SC2086
  "$dlb" $c --precision fp3 >"$tmp/o" 2>"$tmp/e"; rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] \
    && grep -qE "^dlbench (plan|info): --precision: unknown precision 'fp3' \(bf16, .*mixed" "$tmp/e" \
    && t_ok "${c%% *} --precision fp3: one line naming the flag" || t_fail "${c%% *} --precision fp3" "rc=$rc $(cat "$tmp/e")"
done

out=$("$dlb" info tests/fixtures/hf/gpt2.json --hw A100 --precision bf16 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "precision bf16" && echo "$out" | grep -qE "^on A100-SXM4-80GB +[0-9.]+ (ms|s|µs) per step" \
  && echo "$out" | grep -q "^defaults *bindings b=1 (unbound dims" && ! echo "$out" | grep -q "precision=fp32" \
  && t_ok "info --hw --precision: roofline line, defaults named" || t_fail "info --hw" "rc=$rc: $out"
# the time line is dlb.roofline.time's, under the family's default profile where the counts
# have none: the line and the defaults say which (review 11: they said framework=none while
# the time was torchtitan's); with --framework the time is that profile's
out=$("$dlb" info tests/fixtures/hf/gpt2.json --hw H100 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -qE "^on H100-SXM .* peak, framework torchtitan\), fits" \
  && echo "$out" | grep -q "framework=none for the counts (the step as built), torchtitan for the time" \
  && t_ok "info --hw: the time's profile named" || t_fail "info --hw: the time's profile" "rc=$rc: $out"
out=$("$dlb" info tests/fixtures/hf/gpt2.json --hw H100 --framework fsdp 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -qE "^on H100-SXM .* peak, framework fsdp\)" \
  && ! echo "$out" | grep -q "framework=none" \
  && t_ok "info --hw --framework fsdp: that profile's time" || t_fail "info --framework fsdp" "rc=$rc: $out"
# counts past the planner's bounds: one line naming the bound, exit 1 (before review7: Lua 5.4
# raised "bad argument #2 to 'format' (number has no integer representation)" with a
# traceback for --gpus 1e300, and the planner said "must be a whole number >= 1, got 1e+300")
"$dlb" plan gpt --hw H100 --gpus 1e300 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "cluster nodes must be at most 1e9, got 1.25e+299" "$tmp/e" \
  && t_ok "plan: --gpus 1e300 is one line naming the bound" || t_fail "plan --gpus 1e300" "rc=$rc $(cat "$tmp/e")"
"$dlb" plan gpt --hw H100 --gpus 8 --batch 1e300 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 1 ] && grep -q "batch must be below 1e12 samples, got 1e+300" "$tmp/e" \
  && t_ok "plan: --batch 1e300 names the bound" || t_fail "plan --batch 1e300" "rc=$rc $(cat "$tmp/e")"

out=$("$dlb" info tests/fixtures/hf/gpt2.json 2>&1)
echo "$out" | grep -q "^defaults .*precision=fp32 (--precision).*no device (--hw adds the roofline time)" \
  && t_ok "info names the defaults it applied" || t_fail "info defaults" "$out"
# review 21: on a TPU (no fp32 peak, Cloud TPU v4 docs) the fp32 counts are timed at bf16,
# and the defaults say so; on a GPU the counts' fp32 is the time's
out=$("$dlb" info tests/fixtures/hf/gpt2.json --hw TPUv4 2>&1)
echo "$out" | grep -q "^on TPUv4 .* of the bf16 peak" \
  && echo "$out" | grep -q "^defaults .*precision=fp32 for the counts, bf16 for the time (TPUv4's default precision) (--precision)" \
  && t_ok "info --hw TPUv4: the time's precision named" || t_fail "info TPU precision" "$out"
out=$("$dlb" info tests/fixtures/hf/gpt2.json --hw H100 2>&1)
echo "$out" | grep -q "^defaults .*precision=fp32 (--precision)" && ! echo "$out" | grep -q "for the counts, " \
  && t_ok "info --hw H100: fp32 counts and time" || t_fail "info GPU precision" "$out"

t_done
