#!/usr/bin/env python3
"""Which entry points' plain loops reconverge after each item, read from their SASS.

Usage: sass-loop-nesting.py FILE.sass   (from `cuobjdump -sass` of a cubin that ptxas built
from the PTX, e.g. `ptxas -arch=sm_90 -e heavy_baseline ... kernels.ptx -o k.cubin`);
sass-loop-nesting.py --self-test        (the fixtures of gpu-kernels/build-support/sass-fixtures/,
                                         shared with the Rust reader: reconverge_gpu_build::loop_nesting).

For each function: its loops (backward branches) and whether one loop sits inside another with
a convergence barrier (BSSY) opened just before the inner loop and closed (its reconvergence
point) after the inner loop's back-edge and within the outer loop: the threads of a warp then
wait for each other at the inner loop's exit, i.e. after every item, as a nested
`for item { while running { step } }` runs. One loop, or no such barrier: the loop stays flat,
and a thread that finishes its item takes the next at once. A YIELD inside the inner loop
undoes the barrier (threads waiting at it go on once another yields): read as flat too. A heuristic on the SASS's shape,
not a proof.

The same reading, as a library: `reconverge_gpu_build::loop_nesting` (and `cubin_sass` /
`ptx_sass`, which run cuobjdump), which `reconverge_advisor::advise_compiled` uses.
"""
import os
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
    yields = [addr for addr, text in ins if text.startswith("YIELD")]
    for t1, s1 in backs:
        for t2, s2 in backs:
            if (t2, s2) != (t1, s1) and t1 <= t2 and s2 <= s1:
                if any(b < t2 and t2 - b < 0x200 and s2 < r <= s1 for b, r in barriers):
                    # A YIELD in the inner loop lets the threads that left it pass the barrier
                    # without the others (independent thread scheduling's forward progress):
                    # ncu counted costmap_dynamic's code after the barrier at 4 threads per
                    # execution, 7.4 executions per warp, where loops without one ran it at 32.
                    if any(t2 <= y <= s2 for y in yields):
                        return len(backs), False
                    return len(backs), True
    return len(backs), False


# The fixtures the self-test reads, shared with the Rust reader (reconverge-gpu-build's
# `loop_nesting`, src/loops.rs), whose tests check the same table: three entry points' shapes as
# ncu measured them, and a whole cuobjdump listing of the user workload's entry points.
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu-kernels",
                        "build-support", "sass-fixtures")


def self_test():
    expected = {}
    for line in open(os.path.join(FIXTURES, "expected.tsv")):
        if line.strip() and not line.startswith("#"):
            name, instructions, loops, per_item = line.rstrip("\n").split("\t")
            expected[name] = (int(instructions), int(loops), per_item == "yes")
    read = {}
    for fixture in sorted(os.listdir(FIXTURES)):
        if fixture.endswith(".sass"):
            for name, ins in functions(open(os.path.join(FIXTURES, fixture)).read()):
                loops, per_item = nested(ins)
                read[name] = (len(ins), loops, per_item)
    assert read == expected, "read %s, expected %s" % (read, expected)
    print("sass-loop-nesting.py: %d functions read as expected.tsv says (ncu's measurements among them)"
          % len(read))


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    sass = open(sys.argv[1]).read()
    print("| entry point | SASS instructions | loops | reconverges per item |")
    print("|---|---:|---:|---|")
    for name, ins in functions(sass):
        loops, per_item = nested(ins)
        print("| %s | %d | %d | %s |" % (name, len(ins), loops, "yes" if per_item else "no"))


if __name__ == "__main__":
    main()
