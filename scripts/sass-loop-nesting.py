#!/usr/bin/env python3
"""Which entry points' plain loops reconverge after each item, read from their SASS.

Usage: sass-loop-nesting.py FILE.sass   (from `cuobjdump -sass` of a cubin that ptxas built
from the PTX, e.g. `ptxas -arch=sm_90 -e heavy_baseline ... kernels.ptx -o k.cubin`);
sass-loop-nesting.py --self-test        (three entry points' shapes, as ncu measured them).

For each function: its loops (backward branches) and whether one loop sits inside another with
a convergence barrier (BSSY) opened just before the inner loop and closed (its reconvergence
point) after the inner loop's back-edge and within the outer loop: the threads of a warp then
wait for each other at the inner loop's exit, i.e. after every item, as a nested
`for item { while running { step } }` runs. One loop, or no such barrier: the loop stays flat,
and a thread that finishes its item takes the next at once. A YIELD inside the inner loop
undoes the barrier (threads waiting at it go on once another yields): read as flat too. A heuristic on the SASS's shape,
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


# The shapes of three entry points' SASS (their loops, barriers and YIELD, addresses kept),
# with what ncu counted them doing on an H100 (docs/results/advisor/schedule-model/drift.md):
# costmap_baseline's threads waited for each other after each item (its stores at 32 threads),
# costmap_dynamic's did not (its stores at 4.3 threads, 7.4 per warp: a YIELD in the step
# loop), vtrips_dynamic's did (a YIELD at the head of its item loop, outside the step loop).
SHAPES = {
    "costmap_baseline": (True, """
        /*0e90*/ BSSY B0, 0x1260 ;
        /*0fa0*/ BSSY B1, 0x1230 ;
        /*1000*/ @P0 BRA 0x1220 ;
        /*1220*/ BSYNC B1 ;
        /*1240*/ @P1 BRA 0xf80 ;
        /*1250*/ BSYNC B0 ;
        /*12a0*/ STG.E desc[UR6][R4.64], R2 ;
        /*12b0*/ @!P0 EXIT ;
        /*12f0*/ @!P0 BRA 0x120 ;
        /*1300*/ EXIT ;"""),
    "costmap_dynamic": (False, """
        /*11b0*/ BSSY B0, 0x14b0 ;
        /*11c0*/ LOP3.LUT R11, R3, 0xff, RZ, 0xc0, !PT ;
        /*11e0*/ YIELD ;
        /*1200*/ BSSY B1, 0x1480 ;
        /*1250*/ @P0 BRA 0x1470 ;
        /*1470*/ BSYNC B1 ;
        /*1490*/ @P1 BRA 0x11c0 ;
        /*14a0*/ BSYNC B0 ;
        /*15e0*/ ATOMS.ADD R10, [UR5], R10 ;
        /*1680*/ @!P0 STG.E desc[UR8][R2.64], R0 ;
        /*16c0*/ @P1 EXIT ;
        /*2550*/ BRA 0x11b0 ;"""),
    "vtrips_dynamic": (True, """
        /*05d0*/ BSSY B0, 0x15a0 ;
        /*07f0*/ YIELD ;
        /*0800*/ BSSY B1, 0x0db0 ;
        /*0810*/ @!P0 BRA 0x0da0 ;
        /*0860*/ BSSY B3, 0x09e0 ;
        /*09c0*/ @P0 BRA 0x0880 ;
        /*09d0*/ BSYNC B3 ;
        /*0d90*/ @P0 BRA 0x0a20 ;
        /*0da0*/ BSYNC B1 ;
        /*0e70*/ @!P0 STG.E desc[UR6][R8.64], R7 ;
        /*1580*/ BRA 0x07e0 ;
        /*1590*/ BSYNC B0 ;"""),
}


def self_test():
    for name, (expected, body) in SHAPES.items():
        sass = "\n        Function : %s\n%s\n" % (name, body)
        (_, ins), = functions(sass)
        _, per_item = nested(ins)
        assert per_item == expected, "%s: read %s, measured %s" % (name, per_item, expected)
    print("sass-loop-nesting.py: %d shapes read as ncu measured them" % len(SHAPES))


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
