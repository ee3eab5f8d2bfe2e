#!/usr/bin/env python3
"""reconverge's MCML against GPU-MCML, from one run of scripts/gpu-all.sh (part gpumcml).

usage: mcml-vs-gpu-mcml.py DIR > mcml-vs-gpu-mcml.md

Reads DIR/times.tsv (code, input, measure, seconds; measure is ncu_kernel: ncu's
gpu__time_duration summed over the code's kernel launches at the base clock; wall: the whole
process, GPU_MCML_RUNS runs (5); fixed_1000: the same process on 1,000 photons) and DIR/device.txt.
Only the standard library (the GPU machine has no packages).
"""
import csv
import os
import statistics
import sys

d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "times.tsv")), delimiter="\t"))
device = open(os.path.join(d, "device.txt")).read().strip()
photons = 1e8
times = {}
for r in rows:
    try:
        times.setdefault((r["code"], r["input"], r["measure"]), []).append(float(r["seconds"]))
    except ValueError:
        pass

names = {
    "gpumcml": "GPU-MCML 2010 \"fast\" (its makefile's flags, sm_90)",
    "fast-math_dynamic": "reconverge fast math, dynamic work assignment (per thread)",
    "fast-math_grid-dynamic": "reconverge fast math, dynamic work from one grid-wide counter (per thread)",
    "fast-math_branch-distribution-cost-balanced": "reconverge fast math, branch distribution + cost-balanced delaying + dynamic work",
    "dynamic": "reconverge bit-identical, dynamic work assignment (per thread)",
    "grid-dynamic": "reconverge bit-identical, dynamic work from one grid-wide counter (per thread)",
    "branch-distribution-cost-balanced": "reconverge bit-identical, branch distribution + cost-balanced delaying + dynamic work",
}


def med(code, inp, measure):
    v = times.get((code, inp, measure))
    return statistics.median(v) if v else None


def spread(code, inp, measure):
    v = times.get((code, inp, measure))
    return f"{min(v):.3f}-{max(v):.3f}" if v else "n/a"


print(f"# reconverge's MCML against GPU-MCML on one GPU ({device})\n")
print("10^8 photons, GPU-MCML's 7-layer skin at 600 nm and CUDAMCML's slab, the same physics and")
print("grid for every code. Kernel: ncu's `gpu__time_duration` summed over the code's kernel")
print("launches (ncu locks the base clock for both codes alike); whole process: wall clock of the")
runs = len(times.get(("gpumcml", "skin", "wall"), []))
print(f"command, median of {runs} (range). Ratio = GPU-MCML's time / ours (above 1: faster than GPU-MCML).\n")
print("| code | skin kernel s | ratio | slab kernel s | ratio | skin whole s | ratio | slab whole s | ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for code, label in names.items():
    cells = []
    for measure in ("ncu_kernel", "wall"):
        for inp in ("skin", "slab"):
            t = med(code, inp, measure)
            ref = med("gpumcml", inp, measure)
            if t is None:
                shown = "n/a"
            elif measure == "ncu_kernel":
                shown = f"{t:.3f}"
            else:
                shown = f"{t:.3f} ({spread(code, inp, measure)})"
            cells.append(shown)
            cells.append(f"{ref / t:.2f}x" if t and ref else "")
    print(f"| {label} | " + " | ".join(cells[0:2] + cells[2:4] + cells[4:6] + cells[6:8]) + " |")
print()
for code in ("gpumcml", "fast-math_dynamic"):
    f = med(code, "skin", "fixed_1000")
    if f is not None:
        print(f"- Fixed cost of a process ({names[code].split(' (')[0] if code == 'gpumcml' else 'reconverge'}, the skin input on 1,000 photons): {f:.3f} s (range {spread(code, 'skin', 'fixed_1000')}).")
print()
print("Against the issue's targets (fast math at least 1.0x GPU-MCML on both inputs, kernel and whole")
print("process; goal 1.25x; bit-identical goal 0.9x, kernel; the goal is checked for both measures):\n")
best = {}
for inp in ("skin", "slab"):
    for measure in ("ncu_kernel", "wall"):
        ref = med("gpumcml", inp, measure)
        for mode, fast in (("fast math", True), ("bit-identical", False)):
            codes = [c for c in names if c != "gpumcml" and c.startswith("fast-math_") == fast]
            ts = [(med(c, inp, measure), c) for c in codes if med(c, inp, measure)]
            if ts and ref:
                t, c = min(ts)
                # Three places: a ratio that rounds to a goal is not always at it.
                goal = 1.25 if fast else 0.9
                print(f"- {mode}, {inp}, {'kernel' if measure == 'ncu_kernel' else 'whole process'}: "
                      f"{ref / t:.3f}x GPU-MCML, goal {goal}x {'met' if ref / t >= goal else 'not met'} "
                      f"({names[c].replace('reconverge ', '')}; "
                      f"{photons / t / 1e6:.1f} M photons/s against {photons / ref / 1e6:.1f})")
