#!/usr/bin/env python3
"""How close a sampled schedule-model prediction comes to the whole launch's.

Reads the scored tables `advise <workload> --score ...` prints (one folder per sampler, files
`<workload>.md`; a sampler may lack some), and the whole launch's (`--sample-items` at least the workload's items,
`--resamples 1`) from the folder named first. For each workload and each other folder: the mean
of |ln(sampled median / whole)| over the rows both have, and Spearman's rho between the two
columns of predictions (ties get the mean of their ranks). Last, rho between the whole launch's
predictions and the measured times.

    scripts/sample-fidelity.py WHOLE_DIR SAMPLER_DIR [SAMPLER_DIR ...]
"""

import math
import pathlib
import sys


def rows(path):
    """(strategy, launch) -> (predicted median ms, measured ms) of a scored table."""
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.startswith("| ") or " x " not in line:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out[(cells[0], cells[1])] = (float(cells[3].split("/")[1]), float(cells[4]))
    return out


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va and vb else float("nan")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    whole_dir, samplers = pathlib.Path(sys.argv[1]), sys.argv[2:]
    print("| workload | " + " | ".join(f"{s}: mean abs ln, rho" for s in samplers)
          + " | whole launch vs measured: rho |")
    print("|---|" + "---|" * (len(samplers) + 1))
    for whole_file in sorted(whole_dir.glob("*.md")):
        whole = rows(whole_file)
        cells = []
        for s in samplers:
            path = pathlib.Path(s) / whole_file.name
            if not path.exists():
                cells.append("")
                continue
            sampled = rows(path)
            keys = [k for k in whole if k in sampled]
            err = sum(abs(math.log(sampled[k][0] / whole[k][0])) for k in keys) / len(keys)
            rho = spearman([sampled[k][0] for k in keys], [whole[k][0] for k in keys])
            cells.append(f"{err:.3f}, {rho:.3f}")
        measured = spearman([v[0] for v in whole.values()], [v[1] for v in whole.values()])
        print(f"| {whole_file.stem} | " + " | ".join(cells) + f" | {measured:.3f} |")


if __name__ == "__main__":
    main()
