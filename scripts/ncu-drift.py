#!/usr/bin/env python3
"""Do a plain loop's threads stay together? A summary of ncu's per-SASS-instruction counts.

Usage: ncu-drift.py FILE.csv.gz ...   (`ncu -i REPORT --page source --csv --print-source sass`,
gzipped, of reports taken with `--section SourceCounters`; scripts/ncu-drift.sh makes them).

For each profiled launch (a repeat of the same launch once): the warps that entered, the warp instructions, whether the code holds
a YIELD, and the output stores (STG) or tally atomics (REDG) executed after each item, with
their threads per execution: once per warp and item round at 31-32 threads where the warp's
threads wait for each other after each item, many times at few threads where they drift apart.
Where a step loop and the code after it are named in REGIONS below, the warp instructions of
each part too.
"""
import csv
import gzip
import sys

# Parts of costmap_dynamic and costmap_baseline (SASS offsets of the PTX in .devrun/r8, the
# advise build of 2026-11-26 16:00): first item's set-up, step loop, after the item, later set-up.
REGIONS = {
    "costmap_dynamic": [("set-up", 0, 0x11B0), ("step loop", 0x11B0, 0x14A0),
                        ("after item", 0x14A0, 0x16D0), ("later set-ups", 0x16D0, 0x2560)],
    "costmap_baseline": [("set-up", 0, 0x0E90), ("step loop", 0x0E90, 0x1250),
                         ("after item", 0x1250, 0x1310)],
}


def kernels(path):
    out, cur = [], None
    for row in csv.reader(gzip.open(path, "rt")):
        if not row:
            continue
        if row[0] == "Kernel Name":
            cur = []
            out.append((row[1], cur))
        elif row[0] != "Address" and cur is not None:
            cur.append(row)
    return out


def main():
    print("| kernel | warps | warp instructions, M | YIELD | stores or tally atomics after an item: executions @ threads each | parts, M |")
    print("|---|---:|---:|---|---|---|")
    for path in sys.argv[1:]:
        seen = set()
        for name, rows in kernels(path):
            warps = int(rows[0][5])
            total = sum(int(r[5]) for r in rows)
            if (name, warps, total) in seen:
                continue  # the same launch profiled again (the sweep's check and timed runs)
            seen.add((name, warps, total))
            has_yield = any(r[1].strip().startswith("YIELD") for r in rows)
            stores = [(int(r[5]), int(r[6])) for r in rows if "STG" in r[1] or "REDG" in r[1]]
            stores = ", ".join("%d @ %.1f" % (e, t / e) for e, t in stores if e)
            base = int(rows[0][0], 16)
            parts = []
            for label, lo, hi in REGIONS.get(name, []):
                n = sum(int(r[5]) for r in rows if lo <= int(r[0], 16) - base < hi)
                parts.append("%s %.1f" % (label, n / 1e6))
            print("| %s | %d | %.1f | %s | %s | %s |" % (
                name, warps, total / 1e6, "yes" if has_yield else "no", stores, "; ".join(parts)))


if __name__ == "__main__":
    main()
