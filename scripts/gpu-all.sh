#!/usr/bin/env bash
# Everything reconverge measures on a GPU, in one run (about 9 minutes on an H100; PARTS="check
# mcml" and PARTS="profile reproduce benches" split it in two under 10 minutes each), from the
# binaries scripts/build-device.sh put in .device/. Writes into OUTDIR (default ./gpu-results):
#   device-check.tar.gz  the device check (GPU = CPU bitwise for every workload x strategy,
#                        occupancy calculator = driver, compute-sanitizer, MCML photons/s)
#   mcml.tar.gz          MCML throughput per strategy, 10^8 photons, skin and slab (and of the
#                        binaries in .device/before/, if built: scripts/build-device.sh with
#                        BEFORE_REV), whole-process times, and where the fastest kernel's time
#                        goes (ncu, when installed)
#   results.tar.gz       the papers' experiments (reproduce tool), if built
#   bench-*.txt          criterion benches with the CUDA backend
#   tune.tar.gz          the measured tuner against the full grid of strategies and their numbers
#                        (SYN-ITDELAY, dynamic work, path unification, MCML skin/slab)
#   gpumcml.tar.gz       MCML against GPU-MCML (a binary you build from its public source,
#                        GPUMCML_DIR; never committed): kernel time (ncu) and whole process
#   first-process/       the first mcml process on the machine against later ones, SASS
#                        shipped against PTX (scripts/first-process.sh)
#   fixed-cost/          what every CUDA process pays around its kernels here: each driver call
#                        of a context's life (scripts/fixed-cost.c) and mcml's on 1,000 photons
#   advise-techniques.tar.gz  issue 44's seven technique workloads swept (every strategy at
#                        every candidate launch), for `advise <workload> --score`
#   user-advise.txt      the advisor over the user workload's compiled entry points
#                        (advise_compiled: registers from the driver, loops from the SASS)
#   plain.tar.gz         reconverge against the plain kernels of the reference workloads: every
#                        strategy at its default launch and a sweep beside the plain Rust and
#                        CUDA C++ kernels (one thread per item, grid-stride, persistent), ncu
#                        instructions per item, SASS sizes; docs/results/plain/ is made from it
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dev="${DEVICE_DIR:-$root/.device}"
out="${1:-$root/gpu-results}"
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
# PARTS picks what to run (a device call has a time limit): default all of them.
parts=" ${PARTS:-first fixedcost plain techniques ccc user advise techadvise check mcml gpumcml profile reproduce benches tune} "
want() { [[ "$parts" == *" $1 "* ]]; }

# First, while the driver's JIT cache is as the machine came: the first mcml process against
# later ones, SASS shipped against PTX (scripts/first-process.sh; about 15 s).
if want first && [[ -x "$dev/mcml" ]]; then
    bash "$root/scripts/first-process.sh" "$out"
fi

if want plain && [[ -x "$dev/plain" ]]; then
    echo "== reconverge against the plain kernels (reference workloads)"
    mkdir -p "$out/plain"
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
    # The cubin the device check loads saves the JIT; made here in case that step comes later.
    pcubin="$(mktemp -d)/kernels.cubin"
    ptxas -arch="sm_$cap" "$dev/kernels.ptx" -o "$pcubin" 2>/dev/null && export RECONVERGE_GPU_CUBIN="$pcubin"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/plain/device.txt"
    "$dev/plain" --backend cuda --out "$out/plain" 2>&1 | tail -7
    "$dev/user-workload" --compare "$out/plain" > "$out/plain/user-workload.txt" 2>&1
    tail -3 "$out/plain/user-workload.txt"
    # The CUDA C++ references, built here with the flags their README gives, checked against
    # the CPU outputs the two Rust tools wrote.
    nvcc -O3 -fmad=false -arch="sm_$cap" -o "$out/plain/plain_cuda" "$dev/plain.cu" \
        && "$out/plain/plain_cuda" "$out/plain/expected" > "$out/plain/cuda.tsv" 2> "$out/plain/cuda.err"
    echo "CUDA C++ references: exit $? ($(grep -c yes "$out/plain/cuda.tsv") of $(wc -l < "$out/plain/cuda.tsv") identical)"
    # Where the time goes: ncu on every plain kernel and every strategy at its default launch.
    if command -v ncu > /dev/null; then
        timeout 400 ncu --csv --metrics smsp__thread_inst_executed.sum,smsp__inst_executed.sum,smsp__average_thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum,launch__grid_size,launch__block_size \
            "$dev/plain" --backend cuda --out "$out/plain/ncu-run" --repeats 1 --no-sweep \
            > "$out/plain/ncu.csv" 2> "$out/plain/ncu.err"
        rm -rf "$out/plain/ncu-run"
    fi
    # SASS instructions per entry point: the reconverge baseline beside the plain kernels.
    if command -v cuobjdump > /dev/null; then
        for k in $(grep -o '\.entry [a-z_0-9]*' "$dev/kernels.ptx" | awk '{print $2}' \
                | grep -E '^(collatz|escape|itdelay|dwa|brdistinct)_'); do
            printf "%s\t%s\n" "$k" "$(cuobjdump -sass -fun "$k" "$pcubin" | grep -cE '^\s+/\*[0-9a-f]{4}\*/')"
        done > "$out/plain/sass-sizes.tsv"
        for k in escape_baseline escape_grid_stride escape_one_per_item escape_grid; do
            cuobjdump -sass -fun "$k" "$pcubin" > "$out/plain/sass-$k.txt"
        done
    fi
    rm -f "$out/plain/plain_cuda"
    # The CPU outputs the references were checked against stay here: they are megabytes, and
    # the tables say whether every output was identical.
    tar -czf "$out/plain.tar.gz" --exclude='plain/expected' --exclude='plain/plain_cuda' \
        -C "$out" plain && rm -rf "$out/plain"
fi

if want techniques && [[ -x "$dev/techniques" ]]; then
    echo "== the warp-level techniques where divergence is real (SYN-ITDELAY, paths of distinct shape)"
    t="$out/techniques"
    mkdir -p "$t"
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
    # The cubin an earlier part made saves the JIT; made here when this part runs alone.
    if [[ ! -f "${RECONVERGE_GPU_CUBIN:-}" ]]; then
        tcubin="$(mktemp -d)/kernels.cubin"
        ptxas -arch="sm_$cap" "$dev/kernels.ptx" -o "$tcubin" 2>/dev/null \
            && export RECONVERGE_GPU_CUBIN="$tcubin"
    fi
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$t/device.txt"
    # Every strategy and plain Rust kernel at its default launch, per setting, with the Rust
    # twins (iteration delaying's, unification's, splitting's, GPU Gems 2 ch. 34's z-cull
    # masking and occlusion-query loop); the CPU outputs for the CUDA C++ twins.
    "$dev/techniques" --backend cuda --out "$t" 2>&1 | grep -v "items on the CPU"
    # The hand-written twins (CUDA C++), checked against those outputs.
    nvcc -O3 -fmad=false -arch="sm_$cap" -o "$t/techniques_cuda" "$dev/techniques.cu" \
        && "$t/techniques_cuda" "$t" > "$t/cuda.tsv" 2> "$t/cuda.err"
    # Speculative reconvergence's twin (Damani et al. CGO 2020) on the periodic-block loop,
    # phased (favourable) and aligned (unfavourable), 2^20 items as the example's settings.
    if [[ -f "$dev/speculative_reconvergence.cu" ]] \
        && nvcc -O3 -fmad=false -arch="sm_$cap" -o "$t/specrecon_cuda" "$dev/speculative_reconvergence.cu"; then
        for phased in 1 0; do
            "$t/specrecon_cuda" 1048576 256 8 64 "$phased" | sed "s/^/periodic-phased$phased\t/"
        done > "$t/specrecon-cuda.tsv" 2> "$t/specrecon-cuda.err"
        rm -f "$t/specrecon_cuda"
    fi
    # Thread-data remapping's twin (G-Streamline, ASPLOS 2011) on the class-chains loop:
    # interleaved (favourable), grouped and unpredictable (unfavourable), the example's
    # settings (2^20 items, 64 iterations, 16 rounds); rows: setting kernel layout ms identical.
    # -fmad=false as for every twin: the Rust loop multiplies and adds (`v * 2 + 1`), and nvcc's
    # default would fuse the pair into one FFMA (the same bits here only because every step is
    # exact), half the float chain's instructions: another arithmetic, not the same code.
    if [[ -f "$dev/thread_data_remapping.cu" ]] \
        && nvcc -O3 -fmad=false -arch="sm_$cap" -o "$t/remap_cuda" "$dev/thread_data_remapping.cu"; then
        for layout in interleaved:0 grouped:1 unpredictable:2; do
            "$t/remap_cuda" 1048576 64 16 "${layout#*:}" | sed "s/^/classes-${layout%:*}\t/"
        done > "$t/remap-cuda.tsv" 2> "$t/remap-cuda.err"
    fi
    echo "CUDA C++ twins: exit $? ($(grep -c yes "$t/cuda.tsv") of $(wc -l < "$t/cuda.tsv") identical)"
    # Branch path unification's twins (seed 004 with paths of distinct shape), the same way.
    nvcc -O3 -fmad=false -arch="sm_$cap" -I"$dev" -o "$t/unification_cuda" "$dev/unification.cu" \
        && "$t/unification_cuda" "$t" > "$t/unify-cuda.tsv" 2> "$t/unify-cuda.err"
    echo "CUDA C++ unification twins: exit $? ($(grep -c yes "$t/unify-cuda.tsv") of $(wc -l < "$t/unify-cuda.tsv") identical)"
    # Branch splitting's twin (seed 001 with a float else branch).
    nvcc -O3 -fmad=false -arch="sm_$cap" -I"$dev" -o "$t/splitting_cuda" "$dev/splitting.cu" \
        && "$t/splitting_cuda" "$t" > "$t/split-cuda.tsv" 2> "$t/split-cuda.err"
    echo "CUDA C++ splitting twins: exit $? ($(grep -c yes "$t/split-cuda.tsv") of $(wc -l < "$t/split-cuda.tsv") identical)"
    # Where the time goes at f = 0.1, r = 8 (and r = 4): ncu on every kernel of those settings.
    if command -v ncu > /dev/null; then
        metrics=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__average_thread_inst_executed_per_inst_executed.ratio,launch__registers_per_thread,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
        mkdir -p "$t/ncu-run"
        # (The Rust twins of iteration delaying are among those kernels: 20 more launches.)
        for s in distinct-f0.1-r8 distinct-f0.5-r4; do
            timeout 240 ncu --csv --metrics "$metrics" "$dev/techniques" --backend cuda \
                --out "$t/ncu-run" --repeats 1 --only "$s" > "$t/ncu-rust-$s.csv" 2> "$t/ncu-rust-$s.err"
            grep "^$s" "$t/settings.tsv" > "$t/ncu-run/settings.tsv"
            cp "$t/$s.out" "$t/ncu-run/" 2>/dev/null
            TECHNIQUES_REPEATS=1 timeout 100 ncu --csv --metrics "$metrics" "$t/techniques_cuda" "$t/ncu-run" \
                > "$t/ncu-cuda-$s.csv" 2> "$t/ncu-cuda-$s.err"
        done
        # Branch path unification at LOOP = 100: reconverge's strategies, the plain kernels and
        # both twins.
        rm -rf "$t/ncu-run" && mkdir -p "$t/ncu-run"
        s=unify-loop100
        timeout 150 ncu --csv --metrics "$metrics" "$dev/techniques" --backend cuda \
            --out "$t/ncu-run" --repeats 1 --only "$s" > "$t/ncu-rust-$s.csv" 2> "$t/ncu-rust-$s.err"
        grep "^$s" "$t/unify-settings.tsv" > "$t/ncu-run/unify-settings.tsv"
        cp "$t/$s.out" "$t/ncu-run/" 2>/dev/null
        TECHNIQUES_REPEATS=1 timeout 100 ncu --csv --metrics "$metrics" "$t/unification_cuda" "$t/ncu-run" \
            > "$t/ncu-cuda-$s.csv" 2> "$t/ncu-cuda-$s.err"
        rm -rf "$t/ncu-run" && mkdir -p "$t/ncu-run"
        # Thread-data remapping on interleaved classes: reconverge's strategies, the plain
        # kernels and the twin's three kernels (active threads per warp instruction).
        s=classes-interleaved
        timeout 150 ncu --csv --metrics "$metrics" "$dev/techniques" --backend cuda \
            --out "$t/ncu-run" --repeats 1 --only "$s" > "$t/ncu-rust-$s.csv" 2> "$t/ncu-rust-$s.err"
        [[ -x "$t/remap_cuda" ]] && timeout 100 ncu --csv --metrics "$metrics" "$t/remap_cuda" \
            1048576 64 16 0 > "$t/ncu-cuda-$s.csv" 2> "$t/ncu-cuda-$s.err"
        rm -rf "$t/ncu-run"
        gzip -f "$t"/ncu-*.csv
    fi
    rm -f "$t"/*.out "$t/techniques_cuda" "$t/unification_cuda" "$t/splitting_cuda" "$t/remap_cuda"
    tar -czf "$out/techniques.tar.gz" -C "$out" techniques && rm -rf "$t"
fi

# Collaborative context collection's CUDA C++ twin (Khorasani et al., MICRO 2015) against the
# plain kernel on its favourable (rate 1/32) and unfavourable (every iteration) loop: kernel
# times, outputs against the CPU's, ptxas's registers and shared memory (about 10 s). 2^20
# items, as the techniques example's rare-body and rare-every-iteration settings (reconverge's
# strategy and the plain Rust kernels on the same workload, RareCostlyBody at seed 1).
if want ccc && [[ -f "$dev/collaborative_context_collection.cu" ]]; then
    echo "== collaborative context collection: CUDA C++ twin against the plain kernel"
    c="$out/ccc"
    mkdir -p "$c"
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
    nvcc -O3 -fmad=false -arch="sm_$cap" -Xptxas -v -o "$c/ccc_cuda" "$dev/collaborative_context_collection.cu" \
        > "$c/ccc-ptxas.txt" 2>&1 \
        && "$c/ccc_cuda" $((1 << 20)) 20 > "$c/ccc-cuda.tsv" 2> "$c/ccc-cuda.err"
    echo "exit $?" >> "$c/ccc-cuda.err"
    cat "$c/ccc-cuda.tsv"
    rm -f "$c/ccc_cuda"
    # reconverge's strategy (PathSchedule::CollaborativeContextCollection, stacks in dynamic
    # shared memory) and the plain Rust kernels on the same items: the techniques example's
    # rare-* settings (rare-body.tsv, rare-every-iteration.tsv, rare-entries.tsv). The techniques
    # part runs them too; copy this folder's files into its folder for the page.
    if [[ -x "$dev/techniques" ]]; then
        if [[ ! -f "${RECONVERGE_GPU_CUBIN:-}" ]]; then
            ccubin="$(mktemp -d)/kernels.cubin"
            ptxas -arch="sm_$cap" "$dev/kernels.ptx" -o "$ccubin" 2>/dev/null \
                && export RECONVERGE_GPU_CUBIN="$ccubin"
        fi
        "$dev/techniques" --backend cuda --out "$c" --only rare 2>&1 | grep -v "items on the CPU"
        rm -f "$c"/*settings.tsv
    fi
    tar -czf "$out/ccc.tar.gz" -C "$out" ccc && rm -rf "$c"
fi

if want user && [[ -x "$dev/user-workload" ]]; then
    echo "== a user's own workload (examples/user-workload): every listed strategy, GPU = CPU"
    "$dev/user-workload" > "$out/user-workload.txt" 2>&1
    tail -4 "$out/user-workload.txt"
fi

# The advisor over the user's compiled list (issue 42): one call, advise_compiled, reads each
# entry point's registers from the driver and its loop's shape from the module's SASS
# (cuobjdump, found beside ptxas or on PATH), on 2 CPU cores as a user's machine has them, at
# the issue's 786,432 items. Writes user-advise.txt (the SASS table, the ranking, the time).
if want advise && [[ -x "$dev/user-workload" ]]; then
    echo "== the advisor over the user's compiled entry points (advise_compiled), 2 cores"
    two=(env RAYON_NUM_THREADS=2)
    command -v taskset > /dev/null && two=(taskset -c 0,1 env RAYON_NUM_THREADS=2)
    timeout 400 "${two[@]}" "$dev/user-workload" --advise "${ADVISE_ITEMS:-786432}" \
        > "$out/user-advise.txt" 2>&1
    echo "exit $?" >> "$out/user-advise.txt"
    grep -E "^\| walk_|advised in|recommended|loops taken|exit" "$out/user-advise.txt"
fi

if want techadvise && [[ -x "$dev/advise" ]]; then
    # Issue 44: the advisor's pick on each technique's favourable and unfavourable workload,
    # scored offline against this sweep (every strategy at every candidate launch, outputs
    # checked against the CPU's): `advise <workload> --score <tsv>` on any machine.
    echo "== the techniques' workloads swept for the advisor (every strategy x launch)"
    mkdir -p "$out/advise-techniques"
    for w in rare-body rare-every-iteration periodic-phased periodic-aligned \
        classes-interleaved classes-grouped classes-unpredictable; do
        timeout 150 "$dev/advise" "$w" --backend cuda --sweep "$out/advise-techniques/$w.tsv" \
            --reps 5 > "$out/advise-techniques/$w.log" 2>&1
        echo "$w: exit $?, $(($(wc -l < "$out/advise-techniques/$w.tsv") - 1)) rows"
    done
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader \
        > "$out/advise-techniques/device.txt"
    tar -czf "$out/advise-techniques.tar.gz" -C "$out" advise-techniques
fi

if want fixedcost && [[ -x "$dev/mcml" ]] && command -v nvcc > /dev/null; then
    # What every CUDA process pays before and after its kernels on this machine, whatever its
    # code: each driver call of a context's life (scripts/fixed-cost.c, with the module mcml
    # loads, as a cubin) in fresh processes, the release made or left to the process's exit,
    # and mcml's own `--timings` on 1,000 photons. The whole-process goal against GPU-MCML
    # is read against it: both codes pay it, so it narrows every whole-process ratio.
    echo "== the fixed cost of a CUDA process"
    f="$out/fixed-cost"
    mkdir -p "$f"
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
    nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.max.sm --format=csv,noheader > "$f/device.txt"
    nvcc -O2 -o "$f/fixed-cost" "$root/scripts/fixed-cost.c" -lcuda \
        && ptxas -arch="sm_$cap" "$dev/mcml.ptx" -o "$f/mcml.cubin" \
        && printf "release\trun\tinit_s\tcontext_s\tmodule_s\tpooled_s\talloc_s\trelease_s\twall_s\n" > "$f/driver.tsv" \
        && for release in 1 0; do for run in 1 2 3 4 5; do
            t0=$(date +%s.%N)
            line="$("$f/fixed-cost" "$f/mcml.cubin" mcml_fast_grid $release)"
            t1=$(date +%s.%N)
            read -r _ init _ context _ module _ _ _ pooled _ alloc _ rel <<< "$line"
            printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $release $run "$init" "$context" "$module" \
                "$pooled" "$alloc" "$rel" \
                "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" >> "$f/driver.tsv"
        done; done
    printf "run\twall_s\tload_s\treleased_s\n" > "$f/mcml-1000.tsv"
    for run in 1 2 3 4 5; do
        t0=$(date +%s.%N)
        RECONVERGE_GPU_CUBIN="$f/mcml.cubin" "$dev/mcml" --backend cuda --f32 --fast-math --builtin skin \
            --photons 1000 --timings --output "$f/o.mco" > "$f/mcml-1000-$run.log" 2>&1
        t1=$(date +%s.%N)
        printf "%s\t%s\t%s\t%s\n" $run "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" \
            "$(awk '/load [0-9]* GPU/ {print $1}' "$f/mcml-1000-$run.log")" \
            "$(awk '/GPU contexts.*released/ {print $1}' "$f/mcml-1000-$run.log")" >> "$f/mcml-1000.tsv"
    done
    rm -f "$f/fixed-cost" "$f/mcml.cubin" "$f/o.mco"
    python3 - "$f" <<'PY' | tee "$f/summary.txt"
import csv, statistics, sys
d = sys.argv[1]
med = lambda rows, k: statistics.median(float(r[k]) for r in rows)
rows = list(csv.DictReader(open(f"{d}/driver.tsv"), delimiter="\t"))
for rel, said in (("1", "released by the process"), ("0", "left to the exit")):
    rs = [r for r in rows if r["release"] == rel]
    print(f"driver, context {said} (median of {len(rs)}): cuInit {med(rs, 'init_s'):.3f} s, "
          f"context {med(rs, 'context_s'):.3f} s, module {med(rs, 'module_s'):.3f} s, "
          f"first stream-ordered allocation {med(rs, 'pooled_s') * 1e3:.1f} ms (cuMemAlloc "
          f"{med(rs, 'alloc_s') * 1e3:.1f} ms), release {med(rs, 'release_s'):.3f} s, "
          f"whole process {med(rs, 'wall_s'):.3f} s")
ms = list(csv.DictReader(open(f"{d}/mcml-1000.tsv"), delimiter="\t"))
print(f"mcml, 1,000 photons (median of {len(ms)}): whole process {med(ms, 'wall_s'):.3f} s, "
      f"load {med(ms, 'load_s'):.3f} s, release {med(ms, 'released_s'):.3f} s")
PY
fi

if want check; then
echo "== device check"
mkdir -p "$out/check"
OUT="$out/check" BUDGET=200 SANITIZE_TIMEOUT=90 bash "$dev/device-check.sh" > "$out/check/full.log" 2>&1
grep -E "SUMMARY|DEVICE CHECK|sanitizer|occupancy prediction" "$out/check/full.log"
# MCML's exact f32 runs div.rn's and sqrt.rn's steps without their range checks where its
# operands are in range: the evidence that they give IEEE's bits there.
if [[ -f "$dev/fast_paths.cu" ]] && command -v nvcc > /dev/null; then
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
    nvcc -O3 -arch="sm_$cap" -o "$out/check/fast_paths" "$dev/fast_paths.cu" \
        && "$out/check/fast_paths" > "$out/check/fast-paths.txt" 2>&1
    grep -v "^div ea" "$out/check/fast-paths.txt"; rm -f "$out/check/fast_paths"
fi
tar -czf "$out/device-check.tar.gz" -C "$out" check && rm -rf "$out/check"
fi

if want mcml; then
echo "== MCML throughput, 10^8 photons per strategy"
"$dev/mcml_bench" --backend cuda --photons 100000000 --out "$out/mcml" 2>&1 | grep photons/s
if [[ -x "$dev/before/mcml_bench" ]]; then
    echo "== MCML throughput before ($(cat "$dev/before/REV" 2>/dev/null))"
    mkdir -p "$out/mcml/before"
    "$dev/before/mcml_bench" --backend cuda --photons 100000000 --out "$out/mcml/before" 2>&1 | grep photons/s
fi
echo "== MCML whole process (mcml --backend cuda, 10^8 photons), kernel time from its own report"
# The cubin the device check made saves the JIT; rebuilt here in case that step was skipped.
cubin="$(mktemp -d)/kernels.cubin"
ptxas -arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')" \
    "$dev/kernels.ptx" -o "$cubin" 2>/dev/null && export RECONVERGE_GPU_CUBIN="$cubin"
printf "version\tinput\tstrategy\tphotons\twall_s\tkernel_s\n" > "$out/mcml/whole-process.tsv"
for v in after before; do
    bin="$dev/mcml"; [[ $v == before ]] && bin="$dev/before/mcml"
    [[ -x "$bin" ]] || continue
    if [[ $v == before ]]; then
        bcubin="$(mktemp -d)/before.cubin"
        RECONVERGE_GPU_CUBIN= ptxas -arch=sm_90 "$dev/before/kernels.ptx" -o "$bcubin" 2>/dev/null
        export RECONVERGE_GPU_CUBIN="$bcubin"
    fi
    # The fastest strategy (branch distribution over dynamic work) exists after this work only.
    strategies=("dynamic" "baseline")
    [[ $v == after ]] && strategies=("fast-math branch-distribution-cost-balanced"
        "fast-math branch-distribution --dynamic-work" "fast-math dynamic"
        "branch-distribution-cost-balanced" "branch-distribution --dynamic-work" "dynamic" "baseline")
    for input in skin slab; do
        for strategy in "${strategies[@]}"; do
            t0=$(date +%s.%N)
            # shellcheck disable=SC2086 # the strategy's flags split on purpose
            flags="--strategy $strategy"
            [[ $strategy == fast-math* ]] && flags="--fast-math --strategy ${strategy#fast-math }"
            line=$(timeout 120 "$bin" --backend cuda --f32 $flags --builtin $input \
                --photons 100000000 2>&1 | grep "kernel time")
            t1=$(date +%s.%N)
            k=$(sed -n 's/.*kernel time \([0-9.]*\) s.*/\1/p' <<< "$line")
            printf "%s\t%s\t%s\t100000000\t%s\t%s\n" $v $input "${strategy// /_}" \
                "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" "$k" >> "$out/mcml/whole-process.tsv"
        done
    done
done
export RECONVERGE_GPU_CUBIN="$cubin"
# The process's fixed cost (CUDA start-up, module load, exit): the same command on 1,000 photons.
t0=$(date +%s.%N)
"$dev/mcml" --backend cuda --f32 --strategy dynamic --builtin skin --photons 1000 > /dev/null 2>&1
t1=$(date +%s.%N)
printf "after\tskin\tfixed-cost_dynamic\t1000\t%s\t\n" "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" \
    >> "$out/mcml/whole-process.tsv"
[[ -f "$dev/before/REV" ]] && cp "$dev/before/REV" "$out/mcml/before/REV"
python3 "$root/scripts/mcml-before-after.py" "$out/mcml" > "$out/mcml/mcml-before-after-h100.md"
cat "$out/mcml/mcml-before-after-h100.md"
fi

if want gpumcml; then
    # reconverge's MCML beside GPU-MCML (ominux/gpumcml, gpumcml/fast), run in the same job.
    # GPU-MCML is GPL code of a peer: neither it nor what builds it is part of this repository
    # (keep both in the git-ignored .peer/). Build it on this machine (nvcc) from its public
    # source, gpumcml/fast with its makefile's flags (-O3 -use_fast_math -maxrregcount 36) for
    # this GPU, 64-bit: on CUDA 13 its 2010 cutil library needs a stand-in for the few calls it
    # makes, `cudaThreadSynchronize` is `cudaDeviceSynchronize`, and the makefile's host-side
    # `-D__CUDA_ARCH__=200` must become a macro of another name. Where a checkout lacks its
    # `safeprimes_base32.txt`, make the table as CUDAMCML's seeding note defines it: multipliers
    # a < 2^32, descending, with a*2^32 - 1 and a*2^31 - 1 prime (the first is 4294967118), one
    # per thread it launches (896 per SM) and one more. Point GPUMCML_DIR (default
    # .device/gpumcml) at a folder holding
    # its binary `gpumcml`, its safe-primes table `safeprimes_base32.txt` and the inputs
    # `skin.mci` and `slab.mci` (the same physics and grids as `mcml --builtin skin|slab`,
    # 10^8 photons). Kernel time: ncu's gpu__time_duration summed over each code's kernel
    # launches (ncu locks the base clock for both alike); whole process: wall clock, GPU_MCML_RUNS
    # runs (default 5), each code's in turn.
    gm="${GPUMCML_DIR:-$dev/gpumcml}"
    if [[ -x "$gm/gpumcml" ]] && command -v ncu > /dev/null; then
        echo "== MCML against GPU-MCML, 10^8 photons, skin and slab"
        mkdir -p "$out/gpumcml"
        g="$out/gpumcml"
        cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
        # The module the mcml program loads (MCML's kernels alone), as a cubin: GPU-MCML's
        # binary holds SASS, so neither code pays the driver's JIT.
        gcubin="$(mktemp -d)/mcml.cubin"
        ptxas -arch="sm_$cap" "$dev/mcml.ptx" -o "$gcubin" 2>/dev/null && export RECONVERGE_GPU_CUBIN="$gcubin"
        nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$g/device.txt"
        printf "code\tinput\tmeasure\tseconds\n" > "$g/times.tsv"
        gm_run() { # input, workdir: GPU-MCML reads executable/safeprimes_base32.txt from its cwd
            mkdir -p "$2/executable" && ln -sf "$gm/safeprimes_base32.txt" "$2/executable/" \
                && cp "$gm/$1.mci" "$2/" && (cd "$2" && "${@:3}" "$gm/gpumcml" -S12345 "$1.mci")
        }
        ours=("fast-math dynamic" "dynamic" "fast-math grid-dynamic" "grid-dynamic"
            "fast-math branch-distribution-cost-balanced" "branch-distribution-cost-balanced")
        for input in skin slab; do
            for rep in $(seq 1 "${GPU_MCML_RUNS:-5}"); do
                t0=$(date +%s.%N); gm_run $input "$g/run-$input-$rep" > "$g/gpumcml-$input-$rep.log" 2>&1; t1=$(date +%s.%N)
                printf "gpumcml\t%s\twall\t%s\n" $input "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" >> "$g/times.tsv"
                for strategy in "${ours[@]}"; do
                    flags="--strategy $strategy"
                    [[ $strategy == fast-math* ]] && flags="--fast-math --strategy ${strategy#fast-math }"
                    t0=$(date +%s.%N)
                    # shellcheck disable=SC2086 # the strategy's flags split on purpose
                    "$dev/mcml" --backend cuda --f32 $flags --builtin $input --photons 100000000 \
                        --output "$g/ours.mco" > "$g/ours-$input-${strategy// /_}-$rep.log" 2>&1
                    t1=$(date +%s.%N)
                    printf "%s\t%s\twall\t%s\n" "${strategy// /_}" $input "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" >> "$g/times.tsv"
                done
            done
            ncu_sum() { awk -F'","' '/gpu__time_duration/ {gsub(/[",]/, "", $NF); s += $NF} END {printf "%.4f", s / 1e9}' "$1"; }
            gm_run $input "$g/run-$input-ncu" ncu --kernel-name regex:MCMLKernel --csv \
                --metrics gpu__time_duration.sum > "$g/ncu-gpumcml-$input.csv" 2>&1
            printf "gpumcml\t%s\tncu_kernel\t%s\n" $input "$(ncu_sum "$g/ncu-gpumcml-$input.csv")" >> "$g/times.tsv"
            for strategy in "${ours[@]}"; do
                flags="--strategy $strategy"; kernel=mcml_
                [[ $strategy == fast-math* ]] && flags="--fast-math --strategy ${strategy#fast-math }" && kernel=mcml_fast_
                case "${strategy#fast-math }" in
                    dynamic) kernel+=dynamic ;; grid-dynamic) kernel+=grid ;;
                    *) kernel+=distribution_balanced ;;
                esac
                # shellcheck disable=SC2086
                ncu --kernel-name $kernel --csv --metrics gpu__time_duration.sum \
                    "$dev/mcml" --backend cuda --f32 $flags --builtin $input --photons 100000000 \
                    --output "$g/ours.mco" > "$g/ncu-${strategy// /_}-$input.csv" 2>&1
                printf "%s\t%s\tncu_kernel\t%s\n" "${strategy// /_}" $input "$(ncu_sum "$g/ncu-${strategy// /_}-$input.csv")" >> "$g/times.tsv"
            done
            cp "$g/run-$input-1/"*.mco "$g/gpumcml-$input.mco" 2>/dev/null
            rm -rf "$g"/run-$input-* "$g/ours.mco"
        done
        # The process's fixed cost of each: the same inputs on 1,000 photons.
        for input in skin; do
            sed 's/^100000000\b/1000/' "$gm/$input.mci" > "$g/fixed.mci"
            for rep in 1 2 3; do
                mkdir -p "$g/fx/executable"; ln -sf "$gm/safeprimes_base32.txt" "$g/fx/executable/"; cp "$g/fixed.mci" "$g/fx/skin.mci"
                t0=$(date +%s.%N); (cd "$g/fx" && "$gm/gpumcml" -S12345 skin.mci > /dev/null 2>&1); t1=$(date +%s.%N)
                printf "gpumcml\t%s\tfixed_1000\t%s\n" $input "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" >> "$g/times.tsv"
                t0=$(date +%s.%N); "$dev/mcml" --backend cuda --f32 --fast-math --strategy dynamic --builtin $input --photons 1000 --output "$g/fx/ours.mco" > /dev/null 2>&1; t1=$(date +%s.%N)
                printf "fast-math_dynamic\t%s\tfixed_1000\t%s\n" $input "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" >> "$g/times.tsv"
            done
            rm -rf "$g/fx" "$g/fixed.mci"
        done
        python3 "$root/scripts/mcml-vs-gpu-mcml.py" "$g" > "$g/mcml-vs-gpu-mcml.md"
        cat "$g/mcml-vs-gpu-mcml.md"
        unset RECONVERGE_GPU_CUBIN
        tar -czf "$out/gpumcml.tar.gz" -C "$out" gpumcml && rm -rf "$g"
    else
        echo "== GPU-MCML: no $gm/gpumcml (or no ncu): skipped (see the part's comment)"
    fi
fi

if want profile && command -v ncu > /dev/null; then
    mkdir -p "$out/mcml"
    n=10000000
    "$dev/mcml_bench" --count-steps $n --inputs skin > "$out/mcml/steps.txt"
    # The fastest kernels on skin, exact and fast math: branch distribution over dynamic work
    # assignment, without and with cost-balanced delaying.
    # PROFILE_KERNELS picks others (mcml_[fast_]dynamic: per-thread dynamic work assignment).
    for kernel in ${PROFILE_KERNELS:-mcml_distribution_balanced mcml_distribution_dynamic \
        mcml_fast_distribution_balanced mcml_fast_distribution_dynamic}; do
    fast=(); [[ $kernel == mcml_fast_* ]] && fast=(--fast-math)
    strategy=(--strategy branch-distribution --dynamic-work)
    [[ $kernel == *_balanced ]] && strategy=(--strategy branch-distribution-cost-balanced)
    [[ $kernel == mcml_dynamic || $kernel == mcml_fast_dynamic ]] && strategy=(--strategy dynamic)
    [[ $kernel == mcml_grid || $kernel == mcml_fast_grid ]] && strategy=(--strategy grid-dynamic)
    [[ $kernel == *_ccc_grid ]] && strategy=(--strategy-id collaborative-context-collection-grid-wide)
    [[ $kernel == *_spec16w4_grid ]] && strategy=(--strategy-id speculative-reconvergence-16-4-grid-wide)
    # One batch: the same single launch in both profiler runs (mcml makes no warm-up launch).
    run=(--backend cuda --f32 "${fast[@]}" "${strategy[@]}"
        --builtin skin --photons $n --batch-photons $n)
    echo "== where MCML's time goes: ncu on $kernel, skin, 10^7 photons"
    timeout 300 ncu --kernel-name $kernel --csv \
        --metrics smsp__thread_inst_executed.sum,smsp__inst_executed.sum \
        "$dev/mcml" "${run[@]}" > "$out/mcml/ncu-sum.csv" 2>&1
    timeout 300 ncu --kernel-name $kernel --launch-count 1 --set full \
        --import-source no -o "$out/mcml/fastest" "$dev/mcml" "${run[@]}" > /dev/null 2>&1
    ncu -i "$out/mcml/fastest.ncu-rep" --page details --print-units base > "$out/mcml/ncu-details.txt"
    ncu -i "$out/mcml/fastest.ncu-rep" --page source --csv --print-source sass > "$out/mcml/ncu-source.csv"
    python3 "$root/scripts/ncu-where-time-goes.py" "$out/mcml/ncu-details.txt" \
        "$out/mcml/ncu-source.csv" "$out/mcml/ncu-sum.csv" "$out/mcml/steps.txt" \
        > "$out/mcml/where-time-goes-$kernel.md" && head -3 "$out/mcml/where-time-goes-$kernel.md"
    mv "$out/mcml/ncu-details.txt" "$out/mcml/ncu-details-$kernel.txt"
    mv "$out/mcml/ncu-sum.csv" "$out/mcml/ncu-sum-$kernel.csv"
    gzip -c "$out/mcml/ncu-source.csv" > "$out/mcml/ncu-source-$kernel.csv.gz"
    rm -f "$out/mcml/fastest.ncu-rep" "$out/mcml/ncu-source.csv"
    done
fi
# One archive per folder: the device tool brings back a handful of files per run.
if [[ -d "$out/mcml" ]]; then
    tar -czf "$out/mcml.tar.gz" -C "$out" mcml && rm -rf "$out/mcml"
fi

if want reproduce && [[ -x "$dev/reproduce" ]]; then
    echo "== the papers' experiments"
    timeout 300 "$dev/reproduce" --out "$out/results" 2>&1 | tail -20
    tar -czf "$out/results.tar.gz" -C "$out" results && rm -rf "$out/results"
fi

want benches && for b in seed002_iteration_delaying seed002_branch_distribution; do
    echo "== criterion bench $b (CUDA backend)"
    timeout 120 "$dev/bench_$b" --bench --warm-up-time 0.3 --measurement-time 1 > "$out/bench-$b.txt" 2>&1
    grep -E "time:" "$out/bench-$b.txt" | head -8
done
if want tune && [[ -x "$dev/advise" ]]; then
    echo "== the measured tuner (successive halving) against timing every candidate (the grid)"
    mkdir -p "$out/tune"
    # Candidates: every listed strategy and, with --parameters, the numbers of each technique
    # (every value of its ranges with `full`, a coarse grid with `coarse`), which run on the
    # technique's entry point whether or not a list names them.
    run_tune() {
        local label=$1; shift
        "$dev/advise" "$@" --backend cuda --tune-measured --budget 0.08 > "$out/tune/$label.txt" 2>&1
        local n; n=$(sed -n 's/^measured tuning on .*, \([0-9]*\) candidates.*/\1/p' "$out/tune/$label.txt")
        sed -n "s/^TUNE | /| $label | ${n:-?} | /p" "$out/tune/$label.txt"
    }
    {
        echo "| workload | candidates | device | grid's best | its ms | tuner's pick | its ms (grid run) | pick / best | grid GPU ms | tuner GPU ms | tuner / grid |"
        echo "|---|---:|---|---|---:|---|---:|---:|---:|---:|---:|"
        for f in 0.1 0.3 0.5 0.7 0.9; do
            run_tune "syn-itdelay-f$f" syn-itdelay --f $f --measure-items 16777216 --min-items 262144 --parameters full
        done
        run_tune dynamic-work dynamic-work --measure-items 4194304 --min-items 131072 --parameters full
        run_tune path-unification path-unification --measure-items 4194304 --min-items 131072 --parameters full
        run_tune mcml-skin mcml-skin --items 2048 --measure-items 20000000 --min-items 1000000 --parameters coarse
        run_tune mcml-slab mcml-slab --items 2048 --measure-items 20000000 --min-items 1000000 --parameters coarse
    } > "$out/tune/tuner-vs-grid.md"
    cat "$out/tune/tuner-vs-grid.md"
    # The MCML command line with the measured tuner picking its strategy on the GPU.
    for input in skin slab; do
        timeout 120 "$dev/mcml" --backend cuda --f32 --strategy tune --builtin $input \
            --photons 100000000 > "$out/tune/mcml-strategy-tune-$input.txt" 2>&1
        grep -E "strategy tune|kernel time" "$out/tune/mcml-strategy-tune-$input.txt"
    done
    tar -czf "$out/tune.tar.gz" -C "$out" tune && rm -rf "$out/tune"
fi
ls -la "$out"
