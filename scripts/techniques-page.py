#!/usr/bin/env python3
"""Makes docs/results/techniques/ from the `techniques` part of scripts/gpu-all.sh.

    python3 scripts/techniques-page.py RESULTS_DIR [PAGE_DIR]

RESULTS_DIR is the unpacked `techniques/` folder of techniques.tar.gz: one
`<setting>.tsv` per setting from the `techniques` example (every reconverge strategy at its
default launch and the plain Rust kernels), `cuda.tsv` from references/cuda/techniques.cu
(the plain CUDA C++ kernels and the hand-written twins; the Rust twins are rows `twin ...` of
`<setting>.tsv`), `ncu-*.csv.gz` and `device.txt`; for collaborative context collection's
section, the files of the `ccc` part's folder (ccc-cuda.tsv, ccc-ptxas.txt) copied in beside
its rare-*.tsv.
PAGE_DIR (default docs/results/techniques) gets README.md and raw/ (the inputs, as they
came). Every number on the page comes from those files.
"""

import collections
import csv
import gzip
import importlib.util
import os
import re
import shutil
import sys


def read_tsv(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def twin_of(code):
    """The hand-written twin's name (cuda.tsv) of a reconverge strategy on static lanes."""
    m = re.fullmatch(r"iteration delaying, majority vote, threshold (\d+)(, stop when a lane finishes)?", code)
    if m:
        return f"twin majority vote {m.group(1)}" + (", stop" if m.group(2) else "")
    m = re.fullmatch(r"iteration delaying, round robin (\d+):(\d+)(, idle removal)?", code)
    if m:
        return f"twin round robin {m.group(1)}:{m.group(2)}" + (m.group(3) or "")
    if code == "iteration delaying, cost-balanced":
        return "twin cost-balanced"
    return None


def warp_level(code):
    return code.startswith("iteration delaying")


def settings_in(results):
    names = sorted(f[:-4] for f in os.listdir(results) if f.endswith(".tsv") and f[0] in "do" and "-f" in f)
    key = lambda n: (n.split("-f")[0] != "distinct", float(n.split("-f")[1].split("-r")[0]), float(n.split("-r")[1]))
    return sorted(names, key=key)


def fr(setting):
    if setting.startswith("classes-"):
        return f"thread-data remapping, {setting[len('classes-'):]} classes"
    if setting.startswith("unify-loop"):
        return f"unification, LOOP = {setting[len('unify-loop'):]}"
    f, r = setting.split("-f")[1].split("-r")
    return f"{f}, {r}"


def remapping_section(results, w):
    """Thread-data remapping (G-Streamline, ASPLOS 2011) on the class-chains loop: reconverge's
    strategies and the plain Rust kernels (`classes-*.tsv`), the CUDA C++ twin
    (`remap-cuda.tsv`: setting, kernel, layout, ms, identical)."""
    names = [n for n in ("classes-interleaved", "classes-grouped", "classes-unpredictable")
             if os.path.exists(os.path.join(results, n + ".tsv"))]
    if not names:
        return
    w("## Thread-data remapping (Zhang et al., G-Streamline, ASPLOS 2011)\n")
    w("`reconverge_workloads::synthetic::ClassChains`: 64 iterations per item, each running a float chain "
      "(class 0) or an integer chain (class 1) of 16 rounds; the class is a hash bit of the index "
      "(*interleaved*, the favourable case: under the identity map every warp runs both chains), bit 5 "
      "of the index (*grouped*: runs of 32, nothing to regroup) or the key is unrelated to each "
      "iteration's path (*unpredictable*). Remapping (`Assignment::Remapped`) sorts each block's items "
      "by class in a first pass and runs the permutation's slots. Reconverge's strategies at their "
      "default launch and the plain Rust kernels (`<setting>.tsv`; a remapped strategy's time is both "
      "passes), and the hand-written CUDA C++ twin (`references/cuda/thread_data_remapping.cu`, "
      "`remap-cuda.tsv`: *remap2* the same two kernels, *remap_shared* the permutation in shared "
      "memory in one kernel).\n")
    twin = collections.defaultdict(list)
    tpath = os.path.join(results, "remap-cuda.tsv")
    if os.path.exists(tpath):
        for r in csv.reader(open(tpath), delimiter="\t"):
            if len(r) >= 5:
                twin[r[0]].append((r[1], float(r[3]), r[4] == "yes"))
    w("| setting | code | ms | x best plain | identical | registers | occupancy |")
    w("|---|---|---:|---:|---|---:|---:|")
    for n in names:
        rows = read_tsv(os.path.join(results, n + ".tsv"))
        best = min(float(r["median_ms"]) for r in rows if r["code"].startswith("plain"))
        for r in sorted(rows, key=lambda r: float(r["median_ms"])):
            ms = float(r["median_ms"])
            w(f"| {n} | Rust {r['code']} | {ms:.4f} | {best / ms:.3f} | {r['identical']} | "
              f"{r.get('registers', '')} | {r.get('occupancy', '')} |")
        for code, ms, ok in twin.get(n, []):
            w(f"| {n} | CUDA C++ {code} | {ms:.4f} | {best / ms:.3f} | {'yes' if ok else 'NO'} | | |")
    w("")


def splitting_section(results, w):
    """Seed 001's branch splitting with a float else branch: plain kernels, reconverge's
    strategies at their default launch and the Rust twin (two kernels)."""
    names = sorted(f[:-4] for f in os.listdir(results)
                   if f.startswith("split-else") and f.endswith(".tsv"))
    if not names:
        return []
    w("## Branch splitting where divergence is real (seed 001)\n")
    w("Seed 001's benchmark with a float else branch (`reconverge_workloads::synthetic::BranchSplitDistinct`: "
      "the light if branch the paper's integer LCG chain, the heavy else branch a float chain, which the "
      "compiler cannot merge), a random decision mask. The twin is branch splitting as a programmer writes "
      "it from fig. 6b: two kernels, a thread per item, each running its path for the items whose decision "
      "takes it (`reconverge_device::branch_splitting_twin!`), timed as the sum of the two launches. Branch "
      "splitting buys occupancy, not lanes: each kernel still idles the lanes of the other path.\n")
    w("| setting | best plain kernel (ms) | best reconverge strategy (x plain) | branch splitting (x plain) | "
      "Rust twin (x plain) | CUDA C++ twin (x plain) | splitting / Rust twin | all identical |")
    w("|---|---|---|---|---|---|---|---|")
    cuda = collections.defaultdict(dict)
    path = os.path.join(results, "split-cuda.tsv")
    if os.path.exists(path):
        for r in csv.reader(open(path), delimiter="\t"):
            cuda[r[0]][r[2]] = (float(r[5]), r[6] == "yes", r[7])
    details = []
    for name in names:
        rows = read_tsv(os.path.join(results, name + ".tsv"))
        by = {r["code"]: r for r in rows if r["launch"] == "default"}
        plain = [(float(r["median_ms"]), "Rust " + c) for c, r in by.items() if c.startswith("plain")]
        plain += [(t, "CUDA C++ " + c) for c, (t, _, _) in cuda[name].items() if c.startswith("plain")]
        best_ms, best_name = min(plain)
        strat = [(float(r["median_ms"]), c) for c, r in by.items() if not c.startswith(("plain", "twin"))]
        sb_ms, sb = min(strat)
        ms = lambda c: float(by[c]["median_ms"]) if c in by else float("nan")
        split, twin = ms("branch splitting"), ms("twin branch splitting")
        identical = all(r["identical"] == "yes" for r in rows) and all(v[1] for v in cuda[name].values())
        ctwin = cuda[name].get("twin branch splitting", (float("nan"),))[0]
        label = name.replace("split-else", "else ").replace("-heavy", ", heavy ")
        w(f"| {label} | {best_ms:.4f} ({best_name}) | {sb} ({best_ms / sb_ms:.3f}x) | {best_ms / split:.3f}x | "
          f"{best_ms / twin:.3f}x | {best_ms / ctwin:.3f}x | {split / twin:.3f} | {'yes' if identical else 'NO'} |")
        d = [f"### Branch splitting, {label}\n", "| code | ms | x plain | registers | occupancy | identical |",
             "|---|---:|---:|---:|---:|---|"]
        every = [(float(r["median_ms"]), ("Rust " if r["code"].startswith(("plain", "twin")) else "") + r["code"],
                  r["registers"], r["occupancy"], r["identical"]) for r in by.values()]
        every += [(t, "CUDA C++ " + c, regs, "-", "yes" if ok else "no") for c, (t, ok, regs) in cuda[name].items()]
        for t, c, regs, occ, ok in sorted(every):
            d.append(f"| {c} | {t:.4f} | {best_ms / t:.3f} | {regs} | {occ} | {ok} |")
        details.append("\n".join(d) + "\n")
    w("")
    return details


def unification_section(results, w):
    """Seed 004's branch path unification with paths of distinct shape: the plain kernels (Rust
    and CUDA C++), reconverge's strategies at their default launch, and unification's twins
    (Rust `unification_twin!`, CUDA C++ `references/cuda/unification.cu`)."""
    settings = [l.split() for l in open(os.path.join(results, "unify-settings.tsv")) if l.strip()]
    if not settings:
        return
    cuda = collections.defaultdict(dict)
    path = os.path.join(results, "unify-cuda.tsv")
    if os.path.exists(path):
        for r in csv.reader(open(path), delimiter="\t"):
            cuda[r[0]][r[2]] = (float(r[5]), r[6] == "yes", r[7])
    w("## Branch path unification where divergence is real (seed 004)\n")
    w(f"Seed 004's kernel of fig. A-2 with paths of distinct shape "
      f"(`reconverge_workloads::synthetic::PathUnificationDistinct`: path A a float chain of LOOP "
      f"steps, path B the paper's integer functionB, which the compiler cannot merge; the paper's "
      f"decision, a fair coin per item), {int(settings[0][3]):,} items. The twins are branch path "
      f"unification as a programmer writes it from fig. 10 (each thread's groups of n items, two "
      f"forward-scanning counters), in Rust (`reconverge_device::unification_twin!`, timed at the "
      f"launch reconverge's strategy of the same n runs with) and CUDA C++ "
      f"(`references/cuda/unification.cu`, 256 threads, a group per thread). reconverge runs "
      f"unification as each thread's program on a warp of one lane "
      f"(`Strategy::runs_as_thread_program`).\n")
    w("| LOOP | best plain kernel (ms) | best reconverge strategy, default launch (x plain) | "
      "unification 16 / 64 (x plain) | Rust twin 16 / 64 (x plain) | CUDA C++ twin 16 / 64 (x plain) | "
      "reconverge / Rust twin, 4 / 16 / 64 | all identical |")
    w("|---|---|---|---|---|---|---|---|")
    details = []
    for name, loop, _, _ in settings:
        rows = read_tsv(os.path.join(results, name + ".tsv"))
        rust = {r["code"]: r for r in rows if r["launch"] == "default"}
        plain = [(float(r["median_ms"]), "Rust " + c) for c, r in rust.items() if c.startswith("plain")]
        plain += [(ms, "CUDA C++ " + c) for c, (ms, _, _) in cuda[name].items() if c.startswith("plain")]
        best_ms, best_name = min(plain)
        strat = [(float(r["median_ms"]), c) for c, r in rust.items()
                 if not c.startswith("plain") and not c.startswith("twin")]
        sb_ms, sb = min(strat)
        ms = lambda c: float(rust[c]["median_ms"]) if c in rust else float("nan")
        uni = lambda n: f"branch path unification, {n} items per thread"
        twin = lambda n: f"twin branch path unification, {n} items per thread"
        cms = lambda n: cuda[name].get(twin(n), (float("nan"),))[0]
        x = lambda t: f"{best_ms / t:.3f}x"
        identical = all(r["identical"] == "yes" for r in rows) and all(v[1] for v in cuda[name].values())
        w(f"| {loop} | {best_ms:.4f} ({best_name}) | {sb} ({x(sb_ms)}) | {x(ms(uni(16)))} / {x(ms(uni(64)))} | "
          f"{x(ms(twin(16)))} / {x(ms(twin(64)))} | {x(cms(16))} / {x(cms(64))} | "
          f"{' / '.join(f'{ms(uni(n)) / ms(twin(n)):.3f}' for n in (4, 16, 64))} | {'yes' if identical else 'NO'} |")
        d = [f"### LOOP = {loop}\n", "| code | ms | x plain | registers | identical |", "|---|---:|---:|---:|---|"]
        every = [(float(r["median_ms"]), ("Rust " if r["code"].startswith(("plain", "twin")) else "") + c,
                  r["registers"], r["identical"]) for c, r in rust.items()]
        every += [(t, "CUDA C++ " + c, regs, "yes" if ok else "no") for c, (t, ok, regs) in cuda[name].items()]
        for t, c, regs, ok in sorted(every):
            d.append(f"| {c} | {t:.4f} | {best_ms / t:.3f} | {regs} | {ok} |")
        details.append("\n".join(d) + "\n")
    w("")
    return details


def ncu_passes_ratios(ncu_dir):
    """The all-passes ratios to the twin, per setting, of z-cull masking and of branch
    splitting in an ncu run of them (scripts/ncu-passes-vs-twin.py), or None without one."""
    files = [os.path.join(ncu_dir, f) for f in ("ncu-zcull.csv", "ncu-split.csv")]
    if not all(os.path.exists(f) for f in files):
        return None
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ncu-passes-vs-twin.py")
    spec = importlib.util.spec_from_file_location("ncu_passes_vs_twin", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Rounded as the table prints them.
    return [[round(ours / twin, 3) for _, ours, twin, _ in module.passes_vs_twin(kind, f)]
            for kind, f in zip(("zcull", "split"), files)]


def gems34_section(results, w, page):
    """GPU Gems 2 ch. 34's z-cull masking and occlusion-query loop beside their Rust twins
    (`zcull-*.tsv`, `occlusion-*.tsv` from the techniques example's gems34.rs), and, where
    PAGE/zcull-ncu/ holds an ncu run of them, their kernels' own durations from it."""
    zc = [f[:-4] for f in os.listdir(results) if f.startswith("zcull-") and f.endswith(".tsv")]
    oc = [f[:-4] for f in os.listdir(results) if f.startswith("occlusion-") and f.endswith(".tsv")]
    if not zc and not oc:
        return []
    details = []
    key = lambda n: (n.split("-")[1], float(n.split("-p")[1]))
    if zc:
        w("## Z-cull masking against its hand-written twin (GPU Gems 2 §34.2.3)\n")
        w("The branch-probability experiment of figs. 34-1 and 34-2 (`reconverge_workloads::synthetic::Gems34Branch`: "
          "an expensive taken path of 64 dependent steps, a cheap not-taken one; a random condition, or a coherent one "
          "shared by runs of 1024 items). The twin is z-cull masking as a CUDA programmer writes it from the book "
          "(`reconverge_device::zcull_twin!`): a mask kernel stores each warp's `__ballot_sync` of the condition, then "
          "one kernel per path in which a warp whose mask word has no lane on the path returns at once; a thread per "
          "item, 256 per block. *path passes*: the two path kernels alone (the mask reused, as the book's depth "
          "buffer is). Kernel times summed over a code's launches.\n")
        w("| condition, p | best plain kernel (ms) | z-cull (x plain) | Rust twin (x plain) | z-cull / twin | "
          "path passes: z-cull / twin (x plain) | best reconverge strategy (x plain) | all identical |")
        w("|---|---|---:|---:|---:|---|---|---|")
        for name in sorted(zc, key=key):
            rows = read_tsv(os.path.join(results, name + ".tsv"))
            by = {r["code"]: r for r in rows if r["launch"] == "default"}
            ms = lambda c: float(by[c]["median_ms"]) if c in by else float("nan")
            best_ms, best = min((float(r["median_ms"]), r["code"]) for r in by.values() if r["code"].startswith("plain"))
            strat = [(float(r["median_ms"]), c) for c, r in by.items()
                     if not c.startswith(("plain", "twin")) and not c.endswith("path passes")]
            sb_ms, sb = min(strat)
            z, t = ms("z-cull masking"), ms("twin z-cull masking")
            zp, tp = ms("z-cull masking, path passes"), ms("twin z-cull masking, path passes")
            identical = all(r["identical"] == "yes" for r in rows)
            label = name[len("zcull-"):].replace("-p", ", p = ")
            w(f"| {label} | {best_ms:.4f} (Rust {best}) | {best_ms / z:.3f}x | {best_ms / t:.3f}x | {z / t:.3f} | "
              f"{zp / tp:.3f} ({best_ms / zp:.3f}x / {best_ms / tp:.3f}x) | {sb} ({best_ms / sb_ms:.3f}x) | "
              f"{'yes' if identical else 'NO'} |")
            d = [f"### Z-cull masking, {label}\n", "| code | ms | x plain | registers | identical |", "|---|---:|---:|---:|---|"]
            for r in sorted(by.values(), key=lambda r: float(r["median_ms"])):
                c = ("Rust " if r["code"].startswith(("plain", "twin")) else "") + r["code"]
                d.append(f"| {c} | {float(r['median_ms']):.4f} | {best_ms / float(r['median_ms']):.3f} | {r['registers']} | {r['identical']} |")
            details.append("\n".join(d) + "\n")
        w("")
        ncu_ratios = ncu_passes_ratios(os.path.join(page, "zcull-ncu"))
        if ncu_ratios:
            z, sp = ncu_ratios
            w(f"By Nsight Compute's kernel duration instead of events ([`zcull-ncu/`](zcull-ncu/README.md), "
              f"an earlier run of the same kernels), z-cull masking takes {min(z):.2f}-{max(z):.2f}x its twin's "
              f"time and branch splitting {min(sp):.2f}-{max(sp):.2f}x: the gaps are the kernels' own, the "
              f"instructions of the grid-stride loop every lane pass runs.\n")
    for name in sorted(oc):
        rows = read_tsv(os.path.join(results, name + ".tsv"))
        by = {r["code"]: r for r in rows if r["launch"] == "default"}
        best_ms, best = min((float(r["median_ms"]), r["code"]) for r in by.values() if r["code"].startswith("plain"))
        w("## The occlusion-query loop against its hand-written twin (GPU Gems 2 §34.3)\n")
        w("Seed 004's loop (`reconverge_workloads::synthetic::DynamicWork`, LOOP_NUM 16, 1-32 trips per item) run "
          "as the book's passes: at most n iterations per launch, the host launching again while the count of "
          "unfinished items (the occlusion query) is not 0. The twin (`reconverge_device::occlusion_twin!`) is the "
          "kernel a CUDA programmer writes: a thread per item, 256 per block, each item's state kept in global "
          "memory between launches, each warp's word of lanes still running (a warp whose word is 0 returns at "
          "once: the z-culled tile), a warp-aggregated `atomicAdd` on the counter, which the host reads after each "
          "launch. Kernel times summed over the launches.\n")
        w("| iterations per launch | reconverge ms (x plain) | Rust twin ms (x plain) | reconverge / twin | identical |")
        w("|---:|---|---|---:|---|")
        for n in (1, 4, 8, 32):
            c, t = f"occlusion-query loop, {n} iterations per launch", f"twin occlusion-query loop, {n} iterations per launch"
            if c not in by or t not in by:
                continue
            cm, tm = float(by[c]["median_ms"]), float(by[t]["median_ms"])
            ok = by[c]["identical"] == by[t]["identical"] == "yes"
            w(f"| {n} | {cm:.4f} ({best_ms / cm:.3f}x) | {tm:.4f} ({best_ms / tm:.3f}x) | {cm / tm:.3f} | {'yes' if ok else 'NO'} |")
        w(f"\nBest plain kernel: Rust {best}, {best_ms:.4f} ms; every code of the setting: `raw/{name}.tsv`.\n")
    return details


# Bytes of shared memory one warp's stacks take for RareCostlyBody's 16-byte state
# (`shared_bytes_per_warp`: 64 item indices of 4 bytes, then 64 states of 16).
CCC_BYTES_PER_WARP = 64 * 4 + 64 * 16
# The rare-* settings of the techniques example and the twin's rate (ccc-cuda.tsv's rate_q32).
CCC_SETTINGS = [("rare-body", "134217728", "rare body, 1 iteration in 32"),
                ("rare-every-iteration", "4294967296", "body in every iteration")]


def ptxas_registers(path):
    """{entry name: registers} from `nvcc -Xptxas -v` output."""
    regs, cur = {}, None
    if os.path.exists(path):
        for line in open(path):
            m = re.search(r"Compiling entry function '(\w+)'", line)
            if m:
                cur = m.group(1)
            m = re.search(r"Used (\d+) registers", line)
            if m and cur:
                regs[cur] = int(m.group(1))
    return regs


def ccc_section(results, w):
    """Collaborative context collection (Khorasani et al., MICRO 2015) on RareCostlyBody: the
    plain kernels (Rust, and the twin's CUDA C++ one), reconverge's strategy at its default
    launch (`rare-*.tsv` of the techniques example) and the hand-written CUDA C++ twin
    (gpu-all.sh part ccc: its ccc-cuda.tsv and ccc-ptxas.txt, copied into this folder)."""
    names = [n for n in CCC_SETTINGS if os.path.exists(os.path.join(results, n[0] + ".tsv"))]
    twin_path = os.path.join(results, "ccc-cuda.tsv")
    twin = collections.defaultdict(dict)
    if os.path.exists(twin_path):
        for r in read_tsv(twin_path):
            twin[r["rate_q32"]][r["kernel"]] = r
    if not names and not twin:
        return
    regs = ptxas_registers(os.path.join(results, "ccc-ptxas.txt"))
    twin_regs = next((v for k, v in regs.items() if "ccc" in k), "-")
    w("## Collaborative context collection (Khorasani, Gupta & Bhuyan, MICRO 2015)\n")
    w("`reconverge_workloads::synthetic::RareCostlyBody`: items of 8-14 iterations whose costly body (64 "
      "hash rounds) an iteration takes with probability 1/32 (*rare body*, the favourable case: about "
      "1.6 lanes of a warp per body issue as written) or always (*every iteration*, the unfavourable "
      "one), 2^20 items. reconverge's `PathSchedule::CollaborativeContextCollection` at its default "
      "launch (each thread's loop with warp votes, a per-warp stack of 64 contexts in dynamic shared "
      "memory) beside the plain Rust kernels (`<setting>.tsv`), and the hand-written CUDA C++ twin "
      "(`references/cuda/collaborative_context_collection.cu`, the same items; `ccc-cuda.tsv`). "
      f"Shared memory: {CCC_BYTES_PER_WARP} bytes per warp for reconverge (64 contexts of 4 + 16 bytes), "
      "the twin's from its table.\n")
    w("| workload | best plain kernel (ms) | CUDA C++ twin (ms, x plain) | reconverge, default launch "
      "(ms, x plain) | reconverge / twin | registers reconverge / twin | shared bytes per block "
      "reconverge / twin | occupancy | identical |")
    w("|---|---|---|---|---:|---|---|---:|---|")
    details = []
    for name, rate, label in names:
        rows = read_tsv(os.path.join(results, name + ".tsv"))
        by = {r["code"]: r for r in rows if r["launch"] == "default"}
        plain = [(float(r["median_ms"]), "Rust " + c) for c, r in by.items() if c.startswith("plain")]
        t = twin.get(rate, {})
        if "plain" in t:
            plain.append((float(t["plain"]["median_ms"]), "CUDA C++ plain"))
        best_ms, best_name = min(plain)
        ccc = by.get("collaborative context collection")
        tw = t.get("ccc")
        tms = float(tw["median_ms"]) if tw else float("nan")
        if ccc:
            cms = float(ccc["median_ms"])
            shared = int(ccc["threads_per_block"]) // 32 * CCC_BYTES_PER_WARP
            rcell = f"{cms:.4f} ({best_ms / cms:.3f}x)"
            ratio = f"{cms / tms:.3f}" if tw else "-"
            rregs, occ = ccc["registers"], ccc["occupancy"]
        else:
            rcell, ratio, rregs, occ, shared = "-", "-", "-", "-", "-"
        tcell = f"{tms:.4f} ({best_ms / tms:.3f}x)" if tw else "-"
        identical = all(r["identical"] == "yes" for r in rows) and all(
            r["identical"] == "yes" for r in t.values())
        w(f"| {label} | {best_ms:.4f} ({best_name}) | {tcell} | {rcell} | {ratio} | {rregs} / {twin_regs} | "
          f"{shared} / {tw['shared_bytes'] if tw else '-'} | {occ} | {'yes' if identical else 'NO'} |")
        d = [f"### Collaborative context collection, {label}\n",
             "| code | threads x blocks | ms | x best plain | registers | occupancy | identical |",
             "|---|---|---:|---:|---:|---:|---|"]
        every = [(float(r["median_ms"]), ("Rust " if r["code"].startswith("plain") else "") + r["code"],
                  f"{r['threads_per_block']} x {r['blocks']}", r["registers"], r["occupancy"], r["identical"])
                 for r in by.values()]
        every += [(float(r["median_ms"]), "CUDA C++ " + k, f"{r['threads_per_block']} x {r['blocks']}",
                   next((v for n, v in regs.items() if k in n), "-"), "-", r["identical"]) for k, r in t.items()]
        for ms, c, launch, rg, oc, ok in sorted(every):
            d.append(f"| {c} | {launch} | {ms:.4f} | {best_ms / ms:.3f} | {rg} | {oc} | {ok} |")
        details.append("\n".join(d) + "\n")
    w("")
    for d in details:
        w(d)


def ncu_rows(path):
    """Per launch (in order): kernel name and metrics."""
    with gzip.open(path, "rt") as f:
        lines = [l for l in f if l.startswith('"')]
    by = collections.OrderedDict()
    for x in csv.DictReader(lines):
        d = by.setdefault(int(x["ID"]), {"kernel": x["Kernel Name"]})
        d[x["Metric Name"]] = float(x["Metric Value"].replace(",", "") or "nan")
    return list(by.values())


def num(x):
    return f"{x:,.0f}"


def main():
    results = sys.argv[1]
    page = sys.argv[2] if len(sys.argv) > 2 else "docs/results/techniques"
    os.makedirs(os.path.join(page, "raw"), exist_ok=True)
    twins = collections.defaultdict(dict)
    twin_regs = collections.defaultdict(dict)
    for r in csv.reader(open(os.path.join(results, "cuda.tsv")), delimiter="\t"):
        setting, _, code, _, _, ms, identical, regs = r
        twins[setting][code] = (float(ms), identical == "yes")
        twin_regs[setting][code] = regs
    device = open(os.path.join(results, "device.txt")).read().strip()
    settings = settings_in(results)
    items = {}
    for l in open(os.path.join(results, "settings.tsv")):
        name, q16, n, iters, seed, count = l.split()
        items[name] = (int(count), int(iters), int(n))

    out = []
    w = out.append
    w("# The warp-level techniques where divergence is real\n")
    w(f"Made by `scripts/techniques-page.py` from one run of `PARTS=techniques scripts/gpu-all.sh` on "
      f"{device.split(',')[0]} (driver {device.split(',')[1].strip()}); raw inputs in `raw/`.\n")
    any_setting = next(iter(items.values()))
    w(f"SYN-ITDELAY (seed 002 §4.1.1) with paths of distinct shape "
      f"(`reconverge_workloads::synthetic::SynItDelayDistinct`: the taken path SYN-ITDELAY's float "
      f"chain, the not-taken path an integer chain of the same length, which the compiler cannot "
      f"merge), {any_setting[0]:,} items, {any_setting[1]} iterations each, one call per setting, "
      f"swept over the branch frequency f and the branch ratio r as seed 002 figs. 10-11 and table 1 "
      f"sweep them. Beside each: the paper's original SYN-ITDELAY (both paths the same shape) at the "
      f"same setting.\n")
    w("Codes, all with outputs compared bit for bit with the CPU backend's:\n")
    w("- **plain kernels**: one loop per thread, no reconverge code, in Rust (`reconverge_device::plain_kernels!`) "
      "and CUDA C++ (`references/cuda/techniques.cu`): one thread per item, grid-stride, persistent threads on a "
      "grid-wide counter (and, in Rust, on a block counter). The best of them is the reference of every ratio.\n")
    w("- **hand-written twins**: iteration delaying as a CUDA programmer writes it from seed 002 fig. 5 "
      "(`__ballot_sync`, `__popc`, lanes of the path not picked keep their pending condition), one item "
      "per thread, 256 threads per block, the decision's numbers passed at launch: in CUDA C++ "
      "(`references/cuda/techniques.cu`, nvcc) and in plain Rust nvptx (`reconverge_device::iteration_delaying_twin!`, "
      "the same code line for line: `vote.ballot.sync` as LLVM's intrinsic, no reconverge code).\n")
    w("- **reconverge**: every strategy of the workload's entry points at the library's default launch "
      "(`CudaBackend::launch_for`), through `CudaBackend`. Iteration delaying runs as each thread's plain "
      "loop with a warp vote at the iteration point (`Kernel::delayed_items`).\n")
    w("Times are CUDA-event medians of 15 launches after a warm-up. *x plain* is the best plain "
      "kernel's time over the code's (above 1: faster than the plain kernel).\n")

    w("## Summary\n")
    w("| f, r | best plain kernel (ms) | best CUDA C++ twin (x plain) | best Rust twin (x plain) | "
      "best reconverge strategy, default launch (x plain) | reconverge / CUDA twin, worst over the decisions | "
      "reconverge / Rust twin, worst | Rust twin / CUDA twin, range | all identical |")
    w("|---|---|---|---|---|---|---|---|---|")
    details = []
    for s in settings:
        if not s.startswith("distinct"):
            continue
        rows = read_tsv(os.path.join(results, s + ".tsv"))
        rust = {r["code"]: r for r in rows if not r["code"].startswith("twin")}
        rtwins = {r["code"]: r for r in rows if r["code"].startswith("twin")}
        rtms = lambda c: float(rtwins[c]["median_ms"])
        plain = [(float(r["median_ms"]), "Rust " + c) for c, r in rust.items() if c.startswith("plain")]
        plain += [(ms, "CUDA C++ " + c) for c, (ms, _) in twins[s].items() if c.startswith("plain")]
        best_ms, best_name = min(plain)
        twin_rows = [(ms, c) for c, (ms, _) in twins[s].items() if c.startswith("twin")]
        tb_ms, tb = min(twin_rows)
        rt_rows = [(rtms(c), c) for c in rtwins]
        rtb = f"{min(rt_rows)[1]} ({best_ms / min(rt_rows)[0]:.3f}x)" if rt_rows else "-"
        strat = [(float(r["median_ms"]), c) for c, r in rust.items() if not c.startswith("plain")]
        sb_ms, sb = min(strat)
        ratios = []
        for c, r in rust.items():
            t = twin_of(c)
            if t and t in twins[s]:
                ratios.append((float(r["median_ms"]) / twins[s][t][0], c))
        worst, worst_code = max(ratios)
        rratios = [(float(r["median_ms"]) / rtms(twin_of(c)), c) for c, r in rust.items() if twin_of(c) in rtwins]
        rworst = "{:.3f} ({})".format(*max(rratios)) if rratios else "-"
        lang = [rtms(c) / twins[s][c][0] for c in rtwins if c in twins[s]]
        lang_range = f"{min(lang):.3f}-{max(lang):.3f}" if lang else "-"
        identical = all(r["identical"] == "yes" for r in rows) and all(ok for _, ok in twins[s].values())
        w(f"| {fr(s)} | {best_ms:.4f} ({best_name}) | {tb} ({best_ms / tb_ms:.3f}x) | {rtb} | {sb} ({best_ms / sb_ms:.3f}x) | "
          f"{worst:.3f} ({worst_code}) | {rworst} | {lang_range} | {'yes' if identical else 'NO'} |")
        # The setting's detail table.
        d = [f"### f, r = {fr(s)}\n",
             f"Best plain kernel: {best_name}, {best_ms:.4f} ms.\n",
             "| reconverge strategy | ms | x plain | registers | CUDA twin ms | CUDA twin x plain | CUDA twin registers | "
             "reconverge / CUDA twin | Rust twin ms | Rust twin x plain | Rust twin registers | reconverge / Rust twin |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for ms, c in sorted(strat):
            r = rust[c]
            t = twin_of(c)
            if t and t in twins[s]:
                tms = twins[s][t][0]
                tail = f"{tms:.4f} | {best_ms / tms:.3f} | {twin_regs[s][t]} | {ms / tms:.3f}"
            else:
                tail = "- | - | - | -"
            if t and t in rtwins:
                rt = rtms(t)
                tail += f" | {rt:.4f} | {best_ms / rt:.3f} | {rtwins[t]['registers']} | {ms / rt:.3f}"
            else:
                tail += " | - | - | - | -"
            d.append(f"| {c} | {ms:.4f} | {best_ms / ms:.3f} | {r['registers']} | {tail} |")
        details.append("\n".join(d) + "\n")
    w("")
    w("The papers' original SYN-ITDELAY at the same settings: paths of one shape with other "
      "constants. The build checked here compiles them as two loops (the SASS of "
      "`itdelay_one_per_item` multiplies by the immediates 4 and 2 in two separate loops), so the "
      "original diverges as well and iteration delaying wins on it too; where a compiler merges "
      "such paths into one (issue 24 found SYN-BRDIS's merged, 32.0 threads per warp "
      "instruction) nothing diverges and no technique can win:\n")
    w("| f, r | best plain kernel (ms) | best reconverge strategy, default launch (x plain) |")
    w("|---|---|---|")
    for s in settings:
        if not s.startswith("original"):
            continue
        rows = read_tsv(os.path.join(results, s + ".tsv"))
        plain = [(float(r["median_ms"]), r["code"]) for r in rows if r["code"].startswith("plain")]
        strat = [(float(r["median_ms"]), r["code"]) for r in rows if not r["code"].startswith("plain")]
        (pm, pc), (sm, sc) = min(plain), min(strat)
        w(f"| {fr(s)} | {pm:.4f} (Rust {pc}) | {sc} ({pm / sm:.3f}x) |")
    w("")

    ccc_section(results, w)

    # Speculative reconvergence (Damani et al. CGO 2020) on the periodic-block loop.
    spec = [n for n in ("periodic-phased", "periodic-aligned") if os.path.exists(os.path.join(results, n + ".tsv"))]
    if spec:
        w("## Speculative reconvergence (Damani et al., CGO 2020)\n")
        w("`reconverge_workloads::synthetic::PeriodicBlockLoop`: 256 iterations per item, an expensive block "
          "(64 integer rounds) every 8 iterations at a per-item phase (*phased*, the favourable case: lanes "
          "reach the block in different iterations) or at phase 0 for every item (*aligned*, the "
          "unfavourable case: lanes already reach it together). Reconverge's strategies at their default "
          "launch and the plain Rust kernels (`<setting>.tsv`), and the hand-written CUDA C++ twin "
          "(`references/cuda/speculative_reconvergence.cu`, `specrecon-cuda.tsv`: threshold, bound, ms).\n")
        twin = {}
        tpath = os.path.join(results, "specrecon-cuda.tsv")
        if os.path.exists(tpath):
            for r in csv.reader(open(tpath), delimiter="\t"):
                if len(r) >= 6:
                    name = "periodic-phased" if r[0] == "periodic-phased1" else "periodic-aligned"
                    twin[(name, r[1] if r[1] == "plain" else f"spec {r[2]} {r[3]}")] = (float(r[4]), r[5] == "yes")
        w("| setting | code | ms | x best plain | identical |")
        w("|---|---|---:|---:|---|")
        for n in spec:
            rows = read_tsv(os.path.join(results, n + ".tsv"))
            best = min(float(r["median_ms"]) for r in rows if r["code"].startswith("plain"))
            for r in sorted(rows, key=lambda r: float(r["median_ms"])):
                ms = float(r["median_ms"])
                w(f"| {n} | Rust {r['code']} | {ms:.4f} | {best / ms:.3f} | {r['identical']} |")
            for (tn, code), (ms, ok) in sorted(twin.items()):
                if tn == n:
                    w(f"| {n} | CUDA C++ {code} | {ms:.4f} | {best / ms:.3f} | {'yes' if ok else 'NO'} |")
        w("")
    remapping_section(results, w)
    split_details = splitting_section(results, w)
    gems_details = gems34_section(results, w, page)
    unify_details = []
    if os.path.exists(os.path.join(results, "unify-settings.tsv")):
        unify_details = unification_section(results, w) or []
        for l in open(os.path.join(results, "unify-settings.tsv")):
            name, _, _, count = l.split()
            items[name] = (int(count), 0, 0)

    # Where the time goes.
    ncu = sorted(f for f in os.listdir(results) if f.startswith("ncu-") and f.endswith(".csv.gz"))
    if ncu:
        w("## Where the time goes (ncu)\n")
        w("One profiled launch of each code (the second of two; the first is the warm-up). Warp "
          "instructions and thread instructions per item; *threads/inst*: "
          "`smsp__average_thread_inst_executed_per_inst_executed` (32: no lane idle); the three largest "
          "stall reasons in warps per issue (`smsp__average_warps_issue_stalled_*_per_issue_active`): "
          "`not_selected` high means the schedulers always had a ready warp (issue-bound), "
          "`math_pipe_throttle` that the FP32 pipe was the limit.\n")
        for s in sorted({f.split("-", 2)[2][:-7] for f in ncu}):
            n_items = items.get(s, (1, 0, 0))[0]
            w(f"### {fr(s)}\n")
            w("| code | warp inst / item | thread inst / item | threads/inst | registers | ms (ncu) | largest stalls |")
            w("|---|---:|---:|---:|---:|---:|---|")
            for lang in ("rust", "cuda"):
                path = os.path.join(results, f"ncu-{lang}-{s}.csv.gz")
                if not os.path.exists(path):
                    continue
                launches = ncu_rows(path)
                if s.startswith("classes"):
                    # Multi-pass strategies and the twin's repeats: the last launch of each kernel.
                    last = collections.OrderedDict()
                    for m in launches:
                        last[m["kernel"]] = m
                    launches = list(last.values())
                else:
                    launches = launches[1::2]
                names = ncu_names(lang, s, results, launches)
                for name, m in zip(names, launches):
                    stalls = {k.split("stalled_")[1].split("_per")[0]: v for k, v in m.items() if "stalled" in k}
                    top = ", ".join(f"{k} {v:.2f}" for k, v in sorted(stalls.items(), key=lambda kv: -kv[1])[:3])
                    w(f"| {name} | {m['smsp__inst_executed.sum'] / n_items:.0f} | "
                      f"{m['smsp__thread_inst_executed.sum'] / n_items:.0f} | "
                      f"{m['smsp__average_thread_inst_executed_per_inst_executed.ratio']:.2f} | "
                      f"{m['launch__registers_per_thread']:.0f} | {m['gpu__time_duration.sum'] / 1e6:.4f} | {top} |")
            w("")
    w("## Per setting\n")
    out.extend(details)
    out.extend(unify_details)
    out.extend(split_details)
    out.extend(gems_details)
    with open(os.path.join(page, "README.md"), "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    for f in os.listdir(results):
        if f.endswith((".tsv", ".csv.gz", ".txt")):
            shutil.copy(os.path.join(results, f), os.path.join(page, "raw", f))


def ncu_names(lang, setting, results, launches):
    """The code each profiled launch ran: CUDA C++ launches in cuda.tsv's order (the twins share
    kernels), Rust ones by entry-point name (`<prefix>-entries.tsv`, which the techniques
    example writes)."""
    if lang == "cuda" and setting.startswith("classes"):
        return ["CUDA C++ " + m["kernel"][:40] for m in launches]
    if lang == "cuda":
        table = "unify-cuda.tsv" if setting.startswith("unify") else "cuda.tsv"
        codes = ["CUDA C++ " + r[2] for r in csv.reader(open(os.path.join(results, table)), delimiter="\t")
                 if r[0] == setting]
        return codes + [m["kernel"][:40] for m in launches[len(codes):]]
    # The Rust twins share an entry point per decision: their launches come in the order of the
    # setting's `twin ...` rows.
    path = os.path.join(results, setting + ".tsv")
    twin_codes = [r["code"] for r in read_tsv(path) if r["code"].startswith("twin")] if os.path.exists(path) else []
    names = {}
    for f in os.listdir(results):
        if f.endswith("-entries.tsv"):
            for r in csv.reader(open(os.path.join(results, f)), delimiter="\t"):
                names[r[0]] = r[1] if not r[1].startswith("plain") else "Rust " + r[1]
    out = []
    for m in launches:
        if "_twin_" in m["kernel"] and m["kernel"] not in names and twin_codes:
            out.append("Rust " + twin_codes.pop(0))
        else:
            out.append(names.get(m["kernel"], m["kernel"][:40]))
    return out


if __name__ == "__main__":
    main()
