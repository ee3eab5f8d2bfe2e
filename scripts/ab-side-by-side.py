#!/usr/bin/env python3
"""The table of an MCML side-by-side run: builds of `mcml` run in alternating rounds in one
device job, each line `round<TAB>input<TAB>mode<TAB>build<TAB>kernel time X s, Y s wall`
(the program's own CUDA-event kernel time and its wall time).

    python3 scripts/ab-side-by-side.py SIDE_BY_SIDE.tsv [BUILD ...] > table.md

Per input and mode: each build's median kernel time over the rounds (and its range), then each
build's speed-up over the previous build named and over the first. Builds default to the
order they first appear in. Only the standard library."""
import re
import statistics as st
import sys
from collections import defaultdict

path, order = sys.argv[1], sys.argv[2:]
times = defaultdict(list)
for line in open(path):
    cols = line.rstrip("\n").split("\t")
    m = re.search(r"kernel time ([0-9.]+) s", line)
    if len(cols) < 5 or not m:
        continue
    _, inp, mode, build = cols[:4]
    times[(inp, mode, build)].append(float(m.group(1)))
    if build not in order:
        order.append(build)
settings = sorted({(i, m) for i, m, _ in times}, key=lambda s: (s[0] != "skin", s[1] != "exact"))
mode_name = {"exact": "bit-identical", "fast": "fast math"}
head = ["input", "mode"] + [f"{b} s (range)" for b in order]
head += [f"speed-up {b} over {a}" for a, b in zip(order, order[1:])]
if len(order) > 2:
    head.append(f"speed-up {order[-1]} over {order[0]}")
print("| " + " | ".join(head) + " |")
print("|" + "---|" * 2 + "---:|" * (len(head) - 2))
for inp, mode in settings:
    med = {b: st.median(times[(inp, mode, b)]) for b in order if times[(inp, mode, b)]}
    row = [inp, mode_name.get(mode, mode)]
    for b in order:
        v = times[(inp, mode, b)]
        row.append(f"{med[b]:.3f} ({min(v):.3f}-{max(v):.3f}, {len(v)} runs)" if v else "-")
    pairs = list(zip(order, order[1:])) + ([(order[0], order[-1])] if len(order) > 2 else [])
    for a, b in pairs:
        row.append(f"{med[a] / med[b]:.3f}x" if a in med and b in med else "-")
    print("| " + " | ".join(row) + " |")
