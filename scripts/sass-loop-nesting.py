#!/usr/bin/env python3
"""Which entry points' plain loops reconverge after each item, read from their SASS.

Usage: sass-loop-nesting.py FILE.sass   (from `cuobjdump -sass` of a cubin that ptxas built
from the PTX, e.g. `ptxas -arch=sm_90 -e heavy_baseline ... kernels.ptx -o k.cubin`).

For each function: its loops (backward branches) and whether one loop sits inside another with
a convergence barrier (BSSY) opened just before the inner loop and closed (its reconvergence
point) after the inner loop's back-edge and within the outer loop: the threads of a warp then
wait for each other at the inner loop's exit, i.e. after every item, as a nested
`for item { while running { step } }` runs. One loop, or no such barrier: the loop stays flat,
and a thread that finishes its item takes the next at once. A heuristic on the SASS's shape,
not a proof.
"""
import re
import sys


def functions(sass):
    names = re.findall(r"Function : (\S+)", sass)
    for name in sorted(set(names)):
        m = re.search(r"Function : %s\n(.*?)(?=\n\s*Function :|\Z)" % re.escape(name), sass, re.S)
        ins = []
        for line in m.group(1).split("\n"):
            mm = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if mm:
                ins.append((int(mm.group(1), 16), mm.group(2).strip()))
        yield name, ins


def nested(ins):
    backs, barriers = [], []
    for addr, text in ins:
        b = re.search(r"\bBRA 0x([0-9a-f]+)", text)
        if b and int(b.group(1), 16) < addr - 16:
            backs.append((int(b.group(1), 16), addr))
        s = re.search(r"BSSY B\d+, 0x([0-9a-f]+)", text)
        if s:
            barriers.append((addr, int(s.group(1), 16)))
    for t1, s1 in backs:
        for t2, s2 in backs:
            if (t2, s2) != (t1, s1) and t1 <= t2 and s2 <= s1:
                if any(b < t2 and t2 - b < 0x200 and s2 < r <= s1 for b, r in barriers):
                    return len(backs), True
    return len(backs), False


def main():
    sass = open(sys.argv[1]).read()
    print("| entry point | SASS instructions | loops | reconverges per item |")
    print("|---|---:|---:|---|")
    for name, ins in functions(sass):
        loops, per_item = nested(ins)
        print("| %s | %d | %d | %s |" % (name, len(ins), loops, "yes" if per_item else "no"))


if __name__ == "__main__":
    main()
