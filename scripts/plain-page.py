#!/usr/bin/env python3
"""docs/results/plain/README.md from one run of `gpu-all.sh` part `plain` (the unpacked
plain.tar.gz folder): reconverge against the plain kernels of the reference workloads.

usage: plain-page.py DIR > README.md
"""
import csv
import io
import statistics
import sys
from collections import defaultdict
from pathlib import Path

d = Path(sys.argv[1])
# The plain tool's workload names, the prefixes of their entry points, and the walk's.
PREFIX = {"walk": "walk", "collatz": "collatz", "escape-time": "escape",
          "syn-itdelay": "itdelay", "dynamic-work": "dwa",
          "syn-brdis-distinct": "brdistinct", "syn-brdis-distinct-twin": "brdistinct_twin"}


def read_tsv(path):
    if not path.exists():
        return []
    text = path.read_text()
    # user-workload.txt holds other lines before its table; keep from the header on.
    start = text.find("workload\t")
    return list(csv.DictReader(io.StringIO(text[start:]), delimiter="\t")) if start >= 0 else []


rust = {}
for w in PREFIX:
    rows = read_tsv(d / f"{w}.tsv")
    if rows:
        rust[w] = rows
cuda = defaultdict(list)
for r in read_tsv(d / "cuda.tsv") if (d / "cuda.tsv").exists() else []:
    cuda[r["workload"]].append(r)
# cuda.tsv has no header line: read it by position.
if not cuda and (d / "cuda.tsv").exists():
    for line in (d / "cuda.tsv").read_text().splitlines():
        f = line.split("\t")
        if len(f) >= 8:
            cuda[f[0]].append({"workload": f[0], "schedule": f[2], "threads_per_block": f[3],
                               "blocks": f[4], "median_ms": f[5], "identical": f[6],
                               "registers": f[7]})

items = {}
summary = (d / "summary.md").read_text() if (d / "summary.md").exists() else ""
for line in summary.splitlines():
    cells = [c.strip() for c in line.strip("|").split("|")]
    if len(cells) > 2 and cells[1].isdigit():
        items[cells[0]] = int(cells[1])
items.setdefault("walk", 65536)

# ncu: one row per (launch, metric); keep each kernel's last launch (after its warm-up).
ncu = {}
if (d / "ncu.csv").exists():
    text = (d / "ncu.csv").read_text()
    start = text.find('"ID"')
    if start >= 0:
        per_launch = defaultdict(dict)
        for r in csv.DictReader(io.StringIO(text[start:])):
            key = (int(r["ID"]), r["Kernel Name"])
            try:
                per_launch[key][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except ValueError:
                pass
        for (_, name), m in sorted(per_launch.items()):
            ncu[name] = m
sass = {}
if (d / "sass-sizes.tsv").exists():
    for line in (d / "sass-sizes.tsv").read_text().splitlines():
        k, n = line.split("\t")
        sass[k] = int(n)

device = (d / "device.txt").read_text().strip() if (d / "device.txt").exists() else "?"
out = []
p = out.append
p("# reconverge against the plain kernels\n")
p(f"One run of `scripts/gpu-all.sh` (part `plain`) on {device}. Kernel times are CUDA events, "
  "the median of 15 runs after one untimed run (the CUDA C++ references: 20 after 2), every "
  "run's outputs compared bit for bit with the CPU backend's. \"Plain\" kernels are the loop a "
  "CUDA programmer writes first, with none of reconverge's machinery: in Rust for nvptx64 (the "
  "same compiler as reconverge's kernels; `reconverge_device::plain_kernels!`) and in CUDA C++ "
  "(`references/cuda/plain.cu`, `nvcc -O3 -fmad=false`), each in three schedules: one thread "
  "per item, a grid-stride loop, persistent threads on one global atomic counter (and in Rust "
  "a fourth, persistent threads on their block's counter, the twin of dynamic work assignment). reconverge's "
  "strategies run at the launch the backend picks (`Backend::launch_for`, \"default\") and at "
  "three others: one item per thread (256 threads per block), one resident wave of 256-thread "
  "blocks, and 128 threads x one block per multiprocessor (the kind of launch the examples "
  "used to teach).\n")
p("Made by `scripts/plain-page.py` from the run's `plain.tar.gz`.\n")

p("## Summary\n")
p("| workload | items | fastest plain kernel (ms) | reconverge baseline, default launch | "
  "reconverge's fastest at its default launch | reconverge's fastest at any launch | identical |")
p("|---|---:|---|---:|---|---|---|")
for w, rows in rust.items():
    plain_rows = [r for r in rows if r["code"].startswith("plain")]
    best_rust = min(plain_rows, key=lambda r: float(r["median_ms"]))
    best = (float(best_rust["median_ms"]), f"Rust {best_rust['code'][6:]}")
    for r in cuda.get(w, []):
        if float(r["median_ms"]) < best[0]:
            best = (float(r["median_ms"]), f"CUDA C++ {r['schedule']}")
    strat = [r for r in rows if not r["code"].startswith("plain")]
    base = next((r for r in strat if r["code"] == "baseline" and r["launch"] == "default"), None)
    best_default = min((r for r in strat if r["launch"] == "default"),
                       key=lambda r: float(r["median_ms"]))
    best_any = min(strat, key=lambda r: float(r["median_ms"]))
    ident = all(r["identical"] == "yes" for r in rows) and all(
        r["identical"] == "yes" for r in cuda.get(w, []))

    def cell(r, with_code=True):
        ms = float(r["median_ms"])
        s = f"{ms:.4f} ({ms / best[0]:.2f}x)"
        return s + (f" {r['code']}" + ("" if r["launch"] == "default" else f", {r['launch']}")
                    if with_code else "")
    p(f"| {w} | {items.get(w, '?')} | {best[0]:.4f} ({best[1]}) | "
      f"{cell(base, False) if base else '-'} | {cell(best_default)} | {cell(best_any)} | "
      f"{'yes' if ident else 'NO'} |")
p("\n(x: time over the fastest plain kernel of the workload, Rust or CUDA C++; below 1.00 is "
  "faster than it.)\n")

p("## Zero-cost machinery: the same schedule, with and without reconverge\n")
p("reconverge's strategies at the launch of the plain Rust kernel with the same item schedule: "
  "the baseline against one thread per item (the plain `one-per-item` kernel at 256 x "
  "items/256); grid-wide dynamic work against persistent threads on one global counter (the "
  "plain `persistent` kernel); dynamic work assignment against persistent threads on their "
  "block's counter (the plain `block-persistent` kernel, seed 004's fig. 5 as written); the "
  "last two in one resident wave of 256-thread blocks.\n")
p("| workload | plain one per item (ms) | baseline | ratio | plain persistent (ms) | "
  "grid-wide dynamic work | ratio | plain block-persistent (ms) | dynamic work assignment | ratio |")
p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for w, rows in rust.items():
    def find(code, launch):
        return next((r for r in rows if r["code"] == code and r["launch"] == launch), None)
    one = find("plain one-per-item", "default")
    base = find("baseline", "one item per thread")
    pers = find("plain persistent", "default")
    grid = find("dynamic work assignment, one grid-wide counter", "one resident wave")
    block = find("plain block-persistent", "default")
    dwa = find("dynamic work assignment", "one resident wave")
    def ms(r):
        return float(r["median_ms"]) if r else float("nan")
    p(f"| {w} | {ms(one):.4f} | {ms(base):.4f} | {ms(base) / ms(one):.3f} | {ms(pers):.4f} | "
      f"{ms(grid):.4f} | {ms(grid) / ms(pers):.3f} | {ms(block):.4f} | {ms(dwa):.4f} | "
      f"{ms(dwa) / ms(block):.3f} |")
p("")

if ncu:
    p("## Where the time goes (Nsight Compute, each kernel's default launch)\n")
    p("Thread instructions per item (`smsp__thread_inst_executed.sum` / items), warp "
      "instructions per item, average active threads per warp instruction, achieved "
      "occupancy, registers and SASS instructions (`cuobjdump -sass`). ncu locks the base "
      "clock, so its durations are longer than the events' above.\n")
    p("| kernel | grid x block | thread instr. / item | warp instr. / item | active threads "
      "/ warp | achieved occupancy | registers | SASS instructions | ncu ms |")
    p("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for w, prefix in PREFIX.items():
        n = items.get(w)
        for k in sorted(x for x in ncu if x.startswith(prefix + "_")):
            m = ncu[k]
            if not n:
                continue
            p(f"| {k} | {int(m.get('launch__grid_size', 0))} x {int(m.get('launch__block_size', 0))} | "
              f"{m.get('smsp__thread_inst_executed.sum', 0) / n:.1f} | "
              f"{m.get('smsp__inst_executed.sum', 0) / n:.2f} | "
              f"{m.get('smsp__average_thread_inst_executed_per_inst_executed.ratio', 0):.1f} | "
              f"{m.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.0f} % | "
              f"{int(m.get('launch__registers_per_thread', 0))} | {sass.get(k, '-')} | "
              f"{m.get('gpu__time_duration.sum', 0) / 1e6:.4f} |")
    p("")

for w, rows in rust.items():
    p(f"## {w}\n")
    p("| code | launch | threads x blocks | median ms | over fastest plain (Rust) | identical | registers | occupancy |")
    p("|---|---|---|---:|---:|---|---:|---:|")
    for r in rows:
        p(f"| {r['code']} | {r['launch']} | {r['threads_per_block']} x {r['blocks']} | "
          f"{float(r['median_ms']):.4f} | {float(r['over_best_plain']):.2f} | {r['identical']} | "
          f"{r['registers']} | {r['occupancy']} |")
    if cuda.get(w):
        p("\nCUDA C++ (`references/cuda/plain.cu`):\n")
        p("| schedule | threads x blocks | median ms | identical | registers |")
        p("|---|---|---:|---|---:|")
        for r in cuda[w]:
            p(f"| {r['schedule']} | {r['threads_per_block']} x {r['blocks']} | "
              f"{float(r['median_ms']):.4f} | {r['identical']} | {r['registers']} |")
    p("")
print("\n".join(out))
