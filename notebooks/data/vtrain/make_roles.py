#!/usr/bin/env python3
"""Copy vTrain's measured Megatron-LM rows (../../../../shared/data/vtrain, from
VIA-Research/vTrain data/ground_truth_{single,multi}.csv at commit f8dda84, MIT licence)
and add each row's validation role, fixed by a hash of the row's key BEFORE any error was
looked at (issue [19] item 5): role = "fit" when hash(key) % 3 == 0, else "held".
key = the row's layout columns joined by '/', every column but the measured time;
hash = h <- (31 h + byte) mod 2147483647 over the key's bytes, from h = 0 (exact in
doubles; tests/lua/test_validation_data.lua recomputes it in Lua for every row).
Usage: python3 make_roles.py SRC_DIR   (writes the two CSVs beside this script)"""
import csv, os, sys

def role(key):
    h = 0
    for b in key.encode():
        h = (31 * h + b) % 2147483647
    return "fit" if h % 3 == 0 else "held"

src = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
for name in ("single_node_h1024.csv", "multi_node_3.6b_18.4b.csv"):
    with open(os.path.join(src, name), newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    out = [head + ["role"]]
    for r in body:
        out.append(r + [role("/".join(r[:-1]))])
    with open(os.path.join(here, name), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
