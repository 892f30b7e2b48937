#!/usr/bin/env python3
"""Select vTrain's measured Megatron-LM rows that are NOT in ../../../../shared/data/vtrain
(issue [19] target 2: "measured runs of the same studies that are not shared") from the
source's own files, VIA-Research/vTrain data/ground_truth_{single,multi}.csv at commit
f8dda84 (MIT licence), and store every one of them with role "held": these rows are an
out-of-sample check, fixed as held out BEFORE any prediction was run on them; nothing is
fitted on them (unlike make_roles.py's hash split of the shared rows).
  single_node_h2048.csv      the single-node file's rows with hidden size 2048 (720)
  multi_node_39.1b_175b.csv  the multi-node file's GPT 39.1B and 175B rows, 512 GPUs (68)
Rows are copied as published, in the source's order (byte-order mark and CR line ends
removed, as for the shared copies), with a "role" column added.
Usage: python3 make_unshared.py SRC_DIR   (SRC_DIR holds the two ground_truth_*.csv files;
writes the two CSVs beside this script)"""
import csv, os, sys

src = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
JOBS = (("ground_truth_single.csv", "single_node_h2048.csv", 720,
         lambda head, r: r[head.index("hidden size")] == "2048"),
        ("ground_truth_multi.csv", "multi_node_39.1b_175b.csv", 68,
         lambda head, r: r[head.index("Parameters (billion)")] in ("39.1", "175")))
for name, out_name, want, keep in JOBS:
    with open(os.path.join(src, name), newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    out = [head + ["role"]] + [r + ["held"] for r in body if keep(head, r)]
    if len(out) - 1 != want:
        sys.exit("%s: %d rows selected, expected %d" % (name, len(out) - 1, want))
    with open(os.path.join(here, out_name), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
