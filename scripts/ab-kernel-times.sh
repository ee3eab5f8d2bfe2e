#!/usr/bin/env bash
# Kernel times of two builds side by side on one GPU: the device check's timed concerns
# (throughput: every workload x listed strategy; mcml: every MCML entry point at 10^7 photons)
# run ROUNDS times, the two builds alternated, each with its own cubin. On the GPU machine:
#   bash scripts/ab-kernel-times.sh BEFORE_DIR AFTER_DIR OUTDIR
# where each DIR holds a device_check binary (gpu-kernels/paper-kernels/device-check.sh build)
# and its kernels.cubin (ptxas -arch=sm_90 of the PTX it embeds; without one the driver JITs).
# Then, anywhere with Python: python3 scripts/ab-kernel-times.py OUTDIR ... (see its header).
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
