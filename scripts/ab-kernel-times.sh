#!/usr/bin/env bash
# Kernel times of two builds side by side on one GPU: the device check's timed concerns
# (throughput: every workload x listed strategy; mcml: every MCML entry point at 10^7 photons)
# run ROUNDS times, the two builds alternated, each with its own cubin. On the GPU machine:
#   bash scripts/ab-kernel-times.sh BEFORE_DIR AFTER_DIR OUTDIR
# where each DIR holds a device_check binary (gpu-kernels/paper-kernels/device-check.sh build)
# and its kernels.cubin (ptxas -arch=sm_90 of the PTX it embeds; without one the driver JITs).
# Then, anywhere with Python: python3 scripts/ab-kernel-times.py OUTDIR ... (see its header).
# NCU_KERNELS="k1 k2" adds Nsight Compute runs of the named kernels (see the end).
set -uo pipefail
before=$1 after=$2 out=$3 rounds=${ROUNDS:-5}
mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
    for v in before after; do
        dir=$before; [[ $v == after ]] && dir=$after
        cubin=(); [[ -f "$dir/kernels.cubin" ]] && cubin=(env RECONVERGE_GPU_CUBIN="$dir/kernels.cubin")
        "${cubin[@]}" timeout 100 "$dir/device_check" --only throughput --only mcml \
            --out "$out/$v$i" > "$out/$v$i.log" 2>&1 || echo "$v$i rc $?"
    done
done
# NCU_KERNELS="k1 k2": also where each named kernel's time goes, one launch of each build under
# Nsight Compute (time, warp and thread instructions, registers, warps active), as CSV.
for k in ${NCU_KERNELS:-}; do
    for v in before after; do
        dir=$before; [[ $v == after ]] && dir=$after
        RECONVERGE_GPU_CUBIN="$dir/kernels.cubin" timeout 120 ncu --kernel-name "$k" --launch-count 1 --csv \
            --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,gpu__time_duration.sum,sm__cycles_elapsed.max,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
            "$dir/device_check" --only throughput > "$out/ncu-$k-$v.csv" 2>/dev/null || echo "ncu $k $v rc $?"
    done
done
