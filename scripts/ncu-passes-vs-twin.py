#!/usr/bin/env python3
"""Multi-pass strategies against their hand-written twins by Nsight Compute's kernel duration
(no host time in it), from `ncu --csv --metrics gpu__time_duration.sum,smsp__inst_executed.sum
... techniques --only zcull|split --repeats N`:

    python3 scripts/ncu-passes-vs-twin.py zcull NCU.csv > zcull.md
    python3 scripts/ncu-passes-vs-twin.py split NCU.csv > split.md

Per setting (in the order the techniques example runs them) and pass: the median duration of
reconverge's kernel and of its twin's over the setting's launches, their ratio and the ratio
of their warp instructions. Only the standard library."""
import collections
import csv
import statistics as st
import sys

SHAPES = {
    # (kernel prefix, twin prefix, passes, settings in run order)
    "zcull": ("gems34_zcull_", "gems34_twin_zcull_", ["mask", "a", "b"],
              [f"{c}, p = {p}" for c in ("random", "coherent") for p in (0.05, 0.25, 0.5, 0.95)]),
    "split": ("bsdistinct_split_", "bsdistinct_twin_split_", ["a", "b"],
              [f"else {e}, heavy path {h}" for e, h in ((0.1, 32), (0.5, 32), (0.1, 256), (0.5, 256))]),
}


def passes_vs_twin(kind, path):
    """Per setting, in run order: (name, reconverge's µs over all passes, the twin's, and per
    pass (reconverge's µs, the twin's, reconverge's warp instructions, the twin's))."""
    ours, twin, passes, settings = SHAPES[kind]
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    head, rows = rows[0], rows[1:]
    i_id, i_name = head.index("ID"), head.index("Kernel Name")
    i_metric, i_value = head.index("Metric Name"), head.index("Metric Value")
    launches = collections.defaultdict(dict)
    for r in rows:
        launches[int(r[i_id])]["name"] = r[i_name]
        launches[int(r[i_id])][r[i_metric]] = float(r[i_value].replace(",", ""))
    by_kernel = collections.defaultdict(list)
    for i in sorted(launches):
        by_kernel[launches[i]["name"]].append(launches[i])

    def median(kernel, s, metric):
        runs = by_kernel[kernel]
        n = len(runs) // len(settings)
        return st.median(r[metric] for r in runs[s * n:(s + 1) * n])

    out = []
    for s, name in enumerate(settings):
        per_pass = [(median(ours + p, s, "gpu__time_duration.sum") / 1e3,
                     median(twin + p, s, "gpu__time_duration.sum") / 1e3,
                     median(ours + p, s, "smsp__inst_executed.sum"),
                     median(twin + p, s, "smsp__inst_executed.sum")) for p in passes]
        out.append((name, sum(c[0] for c in per_pass), sum(c[1] for c in per_pass), per_pass))
    return out


if __name__ == "__main__":
    kind, path = sys.argv[1:3]
    passes = SHAPES[kind][2]
    cols = ["setting", "all passes: reconverge / twin µs", "ratio"]
    cols += [f"pass {p}: µs, ratio, instructions ratio" for p in passes]
    print("| " + " | ".join(cols) + " |")
    print("|---|---|---:|" + "---|" * len(passes))
    for name, total_ours, total_twin, per_pass in passes_vs_twin(kind, path):
        cells = [f"{a:.1f} / {b:.1f}, {a / b:.3f}, {ia / ib:.2f}" for a, b, ia, ib in per_pass]
        print(f"| {name} | {total_ours:.1f} / {total_twin:.1f} | {total_ours / total_twin:.3f} | "
              + " | ".join(cells) + " |")
