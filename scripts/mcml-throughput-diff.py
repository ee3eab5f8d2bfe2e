#!/usr/bin/env python3
"""Two mcml_bench CSVs (`mcml-throughput-cuda.csv`) side by side: kernel photons/s of every
strategy in both, the ratio now / before, and now over the per-thread loop (dynamic work
assignment) of the same run. Usage: mcml-throughput-diff.py BEFORE.csv NOW.csv > table.md"""
import csv
import sys


def load(path):
    return {(r["input"], r["strategy"]): r for r in csv.DictReader(open(path))}


before, now = load(sys.argv[1]), load(sys.argv[2])
print("| input | strategy | before (M photons/s) | now (M photons/s) | now / before | now / per-thread loop |")
print("|---|---|---:|---:|---:|---:|")
for key, row in now.items():
    if key not in before:
        continue
    b = float(before[key]["kernel_photons_per_second"]) / 1e6
    n = float(row["kernel_photons_per_second"]) / 1e6
    loop = float(now[(key[0], "dynamic work assignment")]["kernel_photons_per_second"]) / 1e6
    print(f"| {key[0]} | {key[1]} | {b:.1f} | {n:.1f} | {n / b:.2f} | {n / loop:.2f} |")
