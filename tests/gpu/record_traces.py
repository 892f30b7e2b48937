#!/usr/bin/env python3
"""record_traces.py — issue [19] item 4: a small measured set of GPT-style training steps on
one GPU, with PyTorch's profiler, for dlbench's host-side model and trace reader.

For each configuration (hidden size x micro-batch; 8 layers, 64-wide heads, sequence 1024,
vocabulary 50257, bf16 autocast, AdamW fused when the build has it) it runs warm-up steps,
times `--steps` steps with the device synchronised (the measured step time: median and
min), then records ONE step under torch.profiler (CPU + CUDA activities) and writes the
Chrome/Kineto trace gzip'd, trimmed to that step (Kineto writes one step's events only when
the schedule is wait 0, warmup 1, active 1). Configurations that run out of memory are
recorded as such. It stops starting configurations once `--budget` seconds have passed
(default 420: the device tool's quarter hour includes the machine's start; the issue asks
for a script that ends within 8 minutes), so it always ends with what it finished.

Writes into OUT (default $OUT, the device tool's output folder, else ./gpu_traces):
  measured.csv           one row per configuration: device, torch, hidden, layers, heads,
                         seq, micro_batch, step_ms_median, step_ms_min, steps, status
  trace_h{H}_mb{B}.json.gz   the profiled step's trace
  meta.json              the machine and software (device name, capability, CUDA, torch)
The fixtures committed from it live in tests/fixtures/traces/gpu/ (see that README), read
by the suite without a GPU.

Sizes (SIZES below; each option overrides one): --layers, --seq, --vocab, --warmup, --steps,
--hidden (comma-separated) and --mb (comma-separated micro-batches). On the GPU: 8 layers,
sequence 1024, vocabulary 50257, 3 warm-up and 10 timed steps, hidden 512,1024,2048 x
micro-batch 1,2,4,8,16,32. With --cpu: 2 layers, sequence 64, vocabulary 512, 1 warm-up and
2 timed steps, hidden 64,128 x micro-batch 1,2, one thread (about a second of CPU, torch's
import included). The suite (tests/sh/test_record_traces.sh) runs `--cpu --steps 5` and reads
every trace with dlbench (tests/gpu/check_traces.lua). A torch built without Kineto (Debian's
python3-torch 1.13) writes the legacy trace: a bare JSON array of host events in whole
microseconds, pid "CPU functions"; one with Kineto writes its object form (traceEvents, with
schemaVersion, deviceProperties, ... around it).

  python3 tests/gpu/record_traces.py                       # on the GPU machine
  python3 tests/gpu/record_traces.py --cpu --out /tmp/x    # a dry run on CPU (tiny sizes)
  python3 tests/gpu/record_traces.py --cpu --hidden 64 --mb 1 --steps 3 --out /tmp/x
"""
import argparse
import csv
import gc
import gzip
import json
import math
import os
import shutil
import statistics
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


# The sizes of each mode; --layers, --seq, --vocab, --warmup, --steps, --hidden and --mb
# override them one by one.
SIZES = {
    "gpu": dict(layers=8, seq=1024, vocab=50257, warmup=3, steps=10,
                hidden=[512, 1024, 2048], mb=[1, 2, 4, 8, 16, 32]),
    "cpu": dict(layers=2, seq=64, vocab=512, warmup=1, steps=2, hidden=[64, 128], mb=[1, 2]),
}


class Block(nn.Module):
    """A GPT-2 style pre-LayerNorm decoder block: causal attention, GELU MLP (4h)."""

    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc1 = nn.Linear(h, 4 * h)
        self.fc2 = nn.Linear(4 * h, h)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v))
        if hasattr(F, "scaled_dot_product_attention"):   # PyTorch >= 2.0: fused kernels
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:                                             # 1.13: the unfused attention
            w = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
            a = w.masked_fill(mask, float("-inf")).softmax(-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, h, layers, heads, vocab, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, h)
        self.pos = nn.Embedding(seq, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(h)
        self.head = nn.Linear(h, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def make_step(model, opt, idx, tgt, dev):
    amp = dev.type == "cuda"

    def step():
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=amp):
            logits = model(idx)
            loss = F.cross_entropy(logits.float().view(-1, logits.shape[-1]), tgt.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def run_config(dev, h, mb, a, out):
    heads = h // 64
    model = GPT(h, a.layers, heads, a.vocab, a.seq).to(dev)
    try:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    except (TypeError, RuntimeError):   # builds without the fused AdamW
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    idx = torch.randint(0, a.vocab, (mb, a.seq), device=dev)
    tgt = torch.randint(0, a.vocab, (mb, a.seq), device=dev)
    step = make_step(model, opt, idx, tgt, dev)
    for _ in range(a.warmup):
        step()
    sync(dev)
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        sync(dev)
        times.append(time.perf_counter() - t0)
    acts = [torch.profiler.ProfilerActivity.CPU]
    if dev.type == "cuda":
        acts.append(torch.profiler.ProfilerActivity.CUDA)
    tmp = tempfile.mkdtemp()
    try:
        with torch.profiler.profile(activities=acts,
                                    schedule=torch.profiler.schedule(wait=0, warmup=1, active=1),
                                    on_trace_ready=torch.profiler.tensorboard_trace_handler(tmp)) as prof:
            for _ in range(2):
                step()
                sync(dev)
                prof.step()
        files = [f for f in os.listdir(tmp) if f.endswith(".json")]
        if files:
            name = os.path.join(out, "trace_h%d_mb%d.json.gz" % (h, mb))
            with open(os.path.join(tmp, files[0]), "rb") as src, gzip.open(name + ".tmp", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.replace(name + ".tmp", name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    del model, opt
    return statistics.median(times), min(times)


def measure(dev, h, mb, a, row, free=None):
    """Run configuration (h, mb) into row: its step times, or status "out of memory" (the run
    goes on). True when it ran out of memory. The out-of-memory exception's traceback holds
    run_config's frames, and with them the model, the optimizer state and the activations:
    emptying the CUDA cache inside the except block freed none of that. So the cleanup comes
    after the block, once the exception and its traceback are gone, with a gc.collect() for
    reference cycles among what they held. free: the cache's emptying (a test's stand-in)."""
    oom = False
    try:
        med, mn = run_config(dev, h, mb, a, a.out)
        row.update(step_ms_median="%.4f" % (1e3 * med), step_ms_min="%.4f" % (1e3 * mn), status="ok")
    except RuntimeError as e:   # out of memory: recorded, the run goes on
        if "out of memory" not in str(e):
            raise
        row.update(step_ms_median="", step_ms_min="", status="out of memory")
        oom = True
    # here `e` and its traceback are deleted (Python deletes the name at the block's end)
    if oom and dev.type == "cuda":
        gc.collect()
        (free or torch.cuda.empty_cache)()
    return oom


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.environ.get("OUT") or "gpu_traces")
    p.add_argument("--budget", type=float, default=420, help="seconds after which no configuration starts")
    p.add_argument("--cpu", action="store_true", help="a dry run on CPU with tiny sizes")
    # the sizes: given, else the mode's defaults (SIZES); --cpu's are tiny
    def dflt(k):
        g, c = SIZES["gpu"][k], SIZES["cpu"][k]
        if isinstance(g, list):
            g, c = ",".join(map(str, g)), ",".join(map(str, c))
        return "default %s (--cpu: %s)" % (g, c)
    p.add_argument("--hidden", default=None, help="comma-separated hidden sizes (multiples of 64), " + dflt("hidden"))
    p.add_argument("--mb", default=None, help="comma-separated micro-batches, " + dflt("mb"))
    what = {"layers": "decoder blocks", "seq": "sequence length", "vocab": "vocabulary",
            "warmup": "warm-up steps", "steps": "timed steps (median and min)"}
    for k in ("layers", "seq", "vocab", "warmup", "steps"):
        p.add_argument("--" + k, type=int, default=None, help="%s, %s" % (what[k], dflt(k)))
    a = p.parse_args()
    mode = "cpu" if a.cpu else "gpu"
    for k in ("layers", "seq", "vocab", "warmup", "steps"):
        if getattr(a, k) is None:
            setattr(a, k, SIZES[mode][k])
        elif getattr(a, k) < (0 if k == "warmup" else 1):
            p.error("--%s must be %s, got %d" % (k, ">= 0" if k == "warmup" else ">= 1", getattr(a, k)))
    hidden, mbs = SIZES[mode]["hidden"], SIZES[mode]["mb"]

    def ints(opt, text):
        try:
            return [int(x) for x in text.split(",")]
        except ValueError:
            p.error("%s: comma-separated whole numbers, got %r" % (opt, text))
    if a.hidden:
        hidden = ints("--hidden", a.hidden)
    if a.mb:
        mbs = ints("--mb", a.mb)
    for h in hidden:
        if h < 64 or h % 64:
            p.error("--hidden: each size must be a multiple of 64 (64-wide heads), got %d" % h)
    if min(mbs) < 1:
        p.error("--mb: each micro-batch must be >= 1, got %d" % min(mbs))
    if a.cpu:
        dev = torch.device("cpu")
        # one thread: the suite runs the dry run beside its other tests on few cores, and
        # the tiny ops gain nothing from an intra-op team
        torch.set_num_threads(1)
    else:
        if not torch.cuda.is_available():
            raise SystemExit("record_traces.py: no CUDA device (use --cpu for a dry run)")
        dev = torch.device("cuda")
    os.makedirs(a.out, exist_ok=True)
    name = torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu"
    meta = {"device": name, "torch": torch.__version__,
            "cuda": getattr(torch.version, "cuda", None),
            "capability": list(torch.cuda.get_device_capability(0)) if dev.type == "cuda" else None,
            "layers": a.layers, "seq": a.seq, "vocab": a.vocab, "head_dim": 64,
            "precision": "bf16 autocast" if dev.type == "cuda" else "fp32",
            "warmup": a.warmup, "steps": a.steps}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    t_start = time.time()
    rows = []
    path = os.path.join(a.out, "measured.csv")
    cols = ["device", "torch", "hidden", "layers", "heads", "seq", "micro_batch",
            "step_ms_median", "step_ms_min", "steps", "status"]
    for h in hidden:
        for mb in mbs:
            if time.time() - t_start > a.budget:
                break
            row = {"device": name, "torch": torch.__version__, "hidden": h, "layers": a.layers,
                   "heads": h // 64, "seq": a.seq, "micro_batch": mb, "steps": a.steps}
            measure(dev, h, mb, a, row)
            rows.append(row)
            # written whole after every configuration: an interrupted run keeps what it finished
            with open(path + ".tmp", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=cols)
                w.writeheader()
                w.writerows(rows)
            os.replace(path + ".tmp", path)
            print("%-6s h %5d mb %3d  %s ms" % (row["status"], h, mb, row["step_ms_median"]), flush=True)
    print("record_traces.py: %d configurations in %.0f s -> %s" % (len(rows), time.time() - t_start, a.out))


if __name__ == "__main__":
    main()
