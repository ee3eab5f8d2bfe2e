#!/usr/bin/env python3
"""MCML on the GPU before and after, from one run of scripts/gpu-all.sh.

usage: mcml-before-after.py MCMLDIR > mcml-before-after.md

Reads MCMLDIR/whole-process.tsv (version, input, strategy, photons, wall_s, kernel_s: the
`mcml` command line timed as a whole process, with the kernel time it reports) and
MCMLDIR/before/REV if present. Only the standard library (the GPU machine has no packages).
"""
import csv
import os
import sys

d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "whole-process.tsv")), delimiter="\t"))
rev_file = os.path.join(d, "before", "REV")
rev = open(rev_file).read().strip() if os.path.exists(rev_file) else "the previous revision"
names = {
    "fast-math_branch-distribution-cost-balanced": "opt-in fast math, branch distribution + cost-balanced delaying + dynamic work",
    "fast-math_branch-distribution_--dynamic-work": "opt-in fast math, branch distribution + dynamic work",
    "fast-math_dynamic": "opt-in fast math, dynamic work assignment",
    "branch-distribution-cost-balanced": "branch distribution + cost-balanced delaying + dynamic work",
    "branch-distribution_--dynamic-work": "branch distribution + dynamic work",
    "dynamic": "dynamic work assignment",
    "baseline": "baseline",
}
table = {}
fixed = [r for r in rows if r["strategy"].startswith("fixed-cost")]
rows = [r for r in rows if not r["strategy"].startswith("fixed-cost")]
for r in rows:
    n = float(r["photons"])
    kernel = n / float(r["kernel_s"]) / 1e6 if r["kernel_s"] else float("nan")
    whole = n / float(r["wall_s"]) / 1e6
    table[(r["version"], r["strategy"], r["input"])] = (kernel, whole)

print("| code | skin: kernel / whole process | slab: kernel / whole process |")
print("|---|---:|---:|")
for version, label in (("after", "reconverge, this revision"), ("before", f"reconverge before ({rev})")):
    for strategy, name in names.items():
        cells = []
        for inp in ("skin", "slab"):
            v = table.get((version, strategy, inp))
            cells.append(f"{v[0]:.1f} / {v[1]:.1f}" if v else None)
        if any(cells):
            print(f"| {label}, {name} | {cells[0] or '-'} | {cells[1] or '-'} |")
print()
print("Million photons per second, 10^8 photons, f32: kernel time (CUDA events, summed over the"
      " run's launches) and the whole `mcml --backend cuda` process (CUDA start-up, module load,"
      " input checks and the result included). The exact rows give the CPU backend's tallies bit"
      " for bit; the fast-math rows (`--fast-math`: approximate PTX instructions) agree with them"
      " within the device check's statistical tolerance.")
for strategy, name in names.items():
    for inp in ("skin", "slab"):
        a, b = table.get(("after", strategy, inp)), table.get(("before", strategy, inp))
        if a and b:
            print(f"- {name}, {inp}: {a[0] / b[0]:.2f}x kernel time, {a[1] / b[1]:.2f}x whole process")
for r in fixed:
    print(f"- the same command on {r['photons']} photons ({r['input']}, {r['strategy'].split('_', 1)[1]}):"
          f" {float(r['wall_s']):.2f} s in all, the process's fixed cost")
