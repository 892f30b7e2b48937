#!/usr/bin/env python3
"""oom_check.py — record_traces.py's out-of-memory cleanup, without a GPU (tests/sh/test_record_traces.sh).

A configuration that runs out of memory must leave nothing of itself on the device for the
next one: record_traces.measure empties the CUDA cache only after the except block, when the
exception's traceback (which holds run_config's frames: the model, the optimizer, the
activations) is gone and gc.collect() has broken their reference cycles. Before, it called
torch.cuda.empty_cache() inside the except block, while the traceback still held them.
Here run_config is a stand-in that makes a "model" (in a reference cycle, as autograd's and
nn.Module's objects often are) and raises CUDA's out-of-memory error; the stand-in for
empty_cache records whether the model was already freed when it ran.
Prints "ok ..." / "not ok ..." lines and "N passed, N failed".
"""
import os
import sys
import types
import weakref

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_traces as rt  # noqa: E402  (imports torch)

passed = failed = 0


def check(cond, name):
    global passed, failed
    if cond:
        passed += 1
        print("ok " + name)
    else:
        failed += 1
        print("not ok " + name)


class Model:
    pass


refs = []


def fake_run_config(dev, h, mb, a, out):
    model = Model()
    model.self = model          # a reference cycle: only gc.collect() frees it
    refs.append(weakref.ref(model))
    raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 139.72 GiB total capacity)")


def fake_ok(dev, h, mb, a, out):
    return 0.012, 0.011


freed_at_free = []


def free():
    freed_at_free.append(refs[-1]() is None)


cuda = types.SimpleNamespace(type="cuda")
args = types.SimpleNamespace(out="/nonexistent")
rt.run_config = fake_run_config
row = {}
oom = rt.measure(cuda, 512, 32, args, row, free=free)
check(oom is True and row.get("status") == "out of memory", "an out-of-memory configuration is recorded as such")
check(freed_at_free == [True], "the cache is emptied after the model is freed (not while the traceback holds it)")

refs.clear()
freed_at_free.clear()
rt.run_config = fake_run_config
row = {}
rt.measure(types.SimpleNamespace(type="cpu"), 64, 1, args, row, free=free)
check(freed_at_free == [] and row.get("status") == "out of memory", "on CPU: recorded, no CUDA cache to empty")

rt.run_config = fake_ok
row = {}
check(rt.measure(cuda, 64, 1, args, row, free=free) is False and row.get("status") == "ok"
      and row.get("step_ms_median") == "12.0000", "a configuration that runs: its times, no cleanup")


def other_error(dev, h, mb, a, out):
    raise RuntimeError("shape mismatch")


rt.run_config = other_error
try:
    rt.measure(cuda, 64, 1, args, {}, free=free)
    check(False, "another RuntimeError is raised, not recorded")
except RuntimeError as e:
    check("shape mismatch" in str(e), "another RuntimeError is raised, not recorded")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
