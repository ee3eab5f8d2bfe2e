#!/usr/bin/env python3
"""Where an MCML kernel's time goes, from Nsight Compute's output (run by scripts/gpu-all.sh).

usage: ncu-where-time-goes.py DETAILS.txt SOURCE.csv SUM.csv STEPS.txt > page.md

- DETAILS.txt: `ncu -i R --page details --print-units base` of one large launch;
- SOURCE.csv:  `ncu -i R --page source --csv --print-source sass` of the same launch
  (per SASS instruction: warp-level and thread-level executions, stall samples);
- SUM.csv:     `ncu --metrics smsp__thread_inst_executed.sum,smsp__inst_executed.sum --csv`
  over every launch of a whole run of N photons;
- STEPS.txt:   `mcml_bench --count-steps N` of the same input and seed (the CPU counts the
  photon steps; photon i's life is the same on every backend, bit for bit).
Only the standard library: the GPU machine has python3 but no packages.
"""
import collections
import csv
import io
import re
import sys

details, source, sums, steps_file = sys.argv[1:5]

# Photon steps of the whole run.
steps_line = open(steps_file).read()
m = re.search(r"(\d+) photons \(seed 1\): (\d+) steps = (\d+) boundary", steps_line)
photons, steps, boundary = (int(m.group(i)) for i in (1, 2, 3))

# Instruction counts of the whole run.
text = open(sums).read()
rows = list(csv.DictReader(io.StringIO(text[text.find('"ID"'):])))
total = collections.Counter()
for r in rows:
    total[r["Metric Name"]] += float(r["Metric Value"].replace(",", ""))
thread_inst = total["smsp__thread_inst_executed.sum"]
warp_inst = total["smsp__inst_executed.sum"]
launches = len({r["ID"] for r in rows})

# The large launch's summary.
want = {
    "Registers Per Thread": "registers per thread",
    "Theoretical Occupancy": "theoretical occupancy (%)",
    "Achieved Occupancy": "achieved occupancy (%)",
    "Avg. Active Threads Per Warp": "active threads per warp",
    "Issued Ipc Active": "issued IPC (per SM, of 4)",
    "Warp Cycles Per Issued Instruction": "warp cycles per issued instruction",
    "Eligible Warps Per Scheduler": "eligible warps per scheduler",
    "No Eligible": "cycles with no eligible warp (%)",
    "Duration": "duration (ns)",
    "Grid Size": "blocks",
    "Block Size": "threads per block",
}
summary = {}
for line in open(details):
    for key, label in want.items():
        if line.strip().startswith(key) and label not in summary:
            summary[label] = line.split()[-1]

# Per SASS instruction of the large launch.
src_rows = list(csv.reader(open(source)))
hdr = src_rows[1]
data = src_rows[2:]
col = {name: hdr.index(name) for name in hdr}
iw, it = col["Instructions Executed"], col["Thread Instructions Executed"]
stall_cols = [n for n in hdr if n.startswith("stall_") and "Not Issued" not in n]


def opcode(sass):
    words = sass.split()
    op = words[1] if words[0].startswith("@") else words[0]
    return op.split(".")[0]


CLASSES = [
    ("FP32 arithmetic (FADD, FMUL, FFMA, FSETP, FSEL, FMNMX)", {"FADD", "FMUL", "FFMA", "FSETP", "FSEL", "FMNMX", "FCHK", "HFMA2"}),
    ("special function unit (MUFU: rcp/rsqrt seeds of div.rn, sqrt.rn)", {"MUFU"}),
    ("integer and logic (random numbers, indices, bit tricks)", {"IMAD", "IADD3", "LOP3", "SHF", "LEA", "ISETP", "SEL", "VIADD", "VIMNMX", "VIADDMNMX", "PRMT", "MOV", "IABS", "POPC", "FLO", "BREV", "PLOP3", "UMOV", "ULDC", "S2UR", "S2R", "CS2R", "UIADD3", "ULOP3", "USHF", "UISETP", "IMNMX"}),
    ("conversions (F2I, I2F)", {"F2I", "I2F", "I2FP", "F2F", "F2FP"}),
    ("control flow and warp votes (BRA, BSSY, BSYNC, VOTE, ...)", {"BRA", "BSSY", "BSYNC", "VOTE", "WARPSYNC", "BREAK", "EXIT", "CALL", "RET", "BRX", "YIELD", "NOP", "BAR", "BMOV", "MATCH", "SHFL"}),
    ("memory (LDG parameters, REDG/ATOMG tallies, LDC, shared)", {"LDG", "STG", "REDG", "ATOMG", "LDC", "LDS", "STS", "ATOMS", "LD", "ST", "RED", "ATOM", "LDL", "STL"}),
]
by_class = collections.Counter()
by_class_thread = collections.Counter()
sparse = 0
tot_w = tot_t = 0
stalls = collections.Counter()
for r in data:
    w, t = int(r[iw]), int(r[it])
    tot_w += w
    tot_t += t
    op = opcode(r[col["Source"]])
    name = next((c for c, ops in CLASSES if op in ops), "other")
    by_class[name] += w
    by_class_thread[name] += t
    if w and t / w <= 4:
        sparse += w
    for s in stall_cols:
        stalls[s] += int(r[col[s]] or 0)

kernel = re.search(r"^\s+(\S+) \(\d+, \d+, \d+\)x", open(details).read(), re.M)
print(f"Kernel `{kernel.group(1) if kernel else '?'}`, MCML skin.\n")
print(f"Photon steps of the whole run: {steps:,} for {photons:,} photons ({steps / photons:.1f} per photon, {100 * boundary / steps:.2f} % at a boundary), counted on the CPU for the same input and seed.\n")
print(f"Whole run ({launches} launches): **{thread_inst / steps:.0f} thread instructions per photon step** "
      f"(`smsp__thread_inst_executed.sum` / steps), {warp_inst / steps:.1f} warp instructions per step "
      f"({32 * warp_inst / steps:.0f} issued lane slots), {thread_inst / warp_inst:.1f} active threads per warp instruction.\n")
print("One large launch:\n")
print("| metric | value |\n|---|---:|")
for label in want.values():
    if label in summary:
        print(f"| {label} | {summary[label]} |")
print("\nIssued instructions of that launch by kind (share of warp-level issue slots, and of thread-level executions):\n")
print("| kind | issue slots | thread instructions | active threads |\n|---|---:|---:|---:|")
for name, _ in CLASSES + [("other", set())]:
    if by_class[name]:
        print(f"| {name} | {100 * by_class[name] / tot_w:.1f} % | {100 * by_class_thread[name] / tot_t:.1f} % | {by_class_thread[name] / by_class[name]:.1f} |")
print(f"\nIssue slots spent on instructions run by at most 4 of 32 lanes (mostly the boundary path, which a warp issues whenever any lane hits a face): {100 * sparse / tot_w:.1f} %.\n")
tot_s = sum(stalls.values()) or 1
print("Warp stall samples (top 6):\n")
print("| reason | share |\n|---|---:|")
for s, c in stalls.most_common(6):
    print(f"| {s.replace('stall_', '')} | {100 * c / tot_s:.1f} % |")

# Straight-line runs of the listing with one execution count: the kernel's basic blocks (what
# the warp issues together), the costliest first, per photon step of the profiled launch. Which
# code each is (the step length, the boundary path, the drop and scattering, the warp
# program's votes) is read off its instructions; the first one is shown.
blocks = []
for i, r in enumerate(data):
    w, t = int(r[iw]), int(r[it])
    if w == 0:
        continue
    if blocks and blocks[-1]["w"] == w and blocks[-1]["end"] == i - 1:
        blocks[-1]["end"] = i
        blocks[-1]["n"] += 1
        blocks[-1]["t"] += t
    else:
        blocks.append({"start": i, "end": i, "n": 1, "w": w, "t": t})
# The profiled launch ran every photon of the run (one batch), so its steps are the run's.
print("\nThe costliest straight-line blocks of that launch (instructions with one execution count),"
      " per photon step:\n")
print("| first instruction | instructions | executions per 1000 steps | active threads | warp instructions per step | share |")
print("|---|---:|---:|---:|---:|---:|")
for b in sorted(blocks, key=lambda b: -b["w"] * b["n"])[:14]:
    first = data[b["start"]][col["Source"]].strip()
    first = re.sub(r"0x[0-9a-f]{8,}", "…", first)[:48]
    per_step = b["w"] * b["n"] / steps
    print(f"| `{first}` | {b['n']} | {1000 * b['w'] / steps:.1f} | {b['t'] / (b['w'] * b['n']):.1f} | {per_step:.2f} | {100 * b['w'] * b['n'] / tot_w:.1f} % |")
