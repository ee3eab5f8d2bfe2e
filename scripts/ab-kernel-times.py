#!/usr/bin/env python3
"""The page of an A/B kernel-time run (scripts/ab-kernel-times.sh): per kernel, the median time
of each build over its rounds, their ratio and the before build's spread, then the registers
and SASS instruction counts of the kernels whose code differs.

    python3 scripts/ab-kernel-times.py AB_DIR BEFORE_PTXAS_LOG AFTER_PTXAS_LOG \
        BEFORE_SASS AFTER_SASS > page.md

The ptxas logs are `ptxas -v -arch=sm_90 kernels.ptx` of each build, the SASS `cuobjdump -sass`
of its cubin."""
import csv, glob, re, statistics as st, sys

ab, b_log, a_log, b_sass, a_sass = sys.argv[1:6]


def timings(build, name, key, value):
    runs = []
    for d in sorted(glob.glob(f"{ab}/{build}[0-9]*")):
        if not d[-1].isdigit():
            continue
        with open(f"{d}/{name}") as f:
            runs.append({key(r): float(r[value]) for r in csv.DictReader(f) if r.get(value)})
    keys = set().union(*runs) if runs else set()
    return {k: [r[k] for r in runs if k in r] for k in keys}


def per_kernel(path, starts, counts):
    """A number per kernel of a ptxas log or a SASS dump: a line matching `starts` names the
    kernel; `counts(line, number so far)` gives its number after each later line."""
    out, kernel = {}, None
    for line in open(path):
        m = re.search(starts, line)
        if m:
            kernel = m.group(1)
            out[kernel] = 0
        elif kernel:
            out[kernel] = counts(line, out[kernel])
    return out


def registers(log):
    used = lambda line, n: int(m.group(1)) if (m := re.search(r"Used (\d+) registers", line)) else n
    return per_kernel(log, r"Compiling entry function '(\w+)'", used)


def sass_sizes(path):
    one_more = lambda line, n: n + 1 if re.match(r"\s+/\*[0-9a-f]{4}\*/\s+\S", line) else n
    return per_kernel(path, r"^\s+Function : (\w+)", one_more)


rows = []
for name, key, value in [
    ("workloads.csv", lambda r: (r["workload"], r["entry_points"]), "gpu_kernel_ms"),
    ("mcml.csv", lambda r: ("mcml " + r["input"], r["entry_point"]), "kernel_s"),
]:
    before, after = timings("before", name, key, value), timings("after", name, key, value)
    unit = "ms" if value.endswith("ms") else "s"
    for k in sorted(set(before) & set(after)):
        mb, ma = st.median(before[k]), st.median(after[k])
        rows.append((k[0], k[1], unit, mb, ma, ma / mb, (max(before[k]) - min(before[k])) / mb, len(before[k])))

ratios = [r[5] for r in rows]
steady = [r for r in rows if r[6] <= 0.02]
print("| workload | entry point(s) | before | after | after / before | before's spread (max - min) / median |")
print("|---|---|---:|---:|---:|---:|")
for w, e, unit, mb, ma, ratio, spread, n in rows:
    flag = " **" if abs(ratio - 1) > 0.02 and spread <= 0.02 else ""
    print(f"| {w} | {e} | {mb:.4f} {unit} | {ma:.4f} {unit} | {ratio:.3f}{flag} | {spread:.3f} |")
print()
print(f"{len(rows)} kernels, medians of {rows[0][7] if rows else 0} alternated rounds each; after / before: "
      f"median {st.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}. "
      f"Of the {len(steady)} whose before-runs spread at most 2 %: "
      f"{sum(1 for r in steady if r[5] > 1.02)} more than 2 % slower, "
      f"{sum(1 for r in steady if r[5] < 0.98)} more than 2 % faster (marked **).")
print()
rb, ra = registers(b_log), registers(a_log)
sb, sa = sass_sizes(b_sass), sass_sizes(a_sass)
changed = sorted(k for k in set(rb) | set(ra) if rb.get(k) != ra.get(k) or sb.get(k) != sa.get(k))
print(f"Registers and SASS instructions (ptxas -v, cuobjdump -sass, sm_90): {len(set(ra))} kernels, "
      f"{sum(1 for k in ra if rb.get(k) == ra[k])} with the same registers, "
      f"{sum(1 for k in sa if sb.get(k) == sa[k])} with the same SASS size; those that differ:")
print()
print("| kernel | registers before | after | SASS instructions before | after |")
print("|---|---:|---:|---:|---:|")
for k in changed:
    print(f"| {k} | {rb.get(k, '-')} | {ra.get(k, '-')} | {sb.get(k, '-')} | {sa.get(k, '-')} |")
