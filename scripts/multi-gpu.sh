#!/usr/bin/env bash
# MCML on every GPU of one machine against one GPU, from the `mcml` binary that
# scripts/build-device.sh puts in .device/ (feature cuda). On the GPU machine:
#   bash scripts/multi-gpu.sh OUTDIR [PHOTONS]      (default 10^9 photons)
# The fastest configurations, fast math and bit-identical (each thread's photon loop over one
# grid-wide counter, `--strategy grid-dynamic`), for skin and slab: one GPU, then
# `--devices all` (photons split, tallies summed by NCCL); checks the .mco files are equal bit
# for bit (all but MCML's time line) and writes OUTDIR/multi-gpu.md with per-GPU times and the
# speed-up. NCCL comes from the
# nvidia-nccl-cu13 Python package where one is installed (its lib folder goes on
# LD_LIBRARY_PATH). NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dev="${DEV:-$root/.device}"
out="${1:-$root/multi-gpu-results}"
photons="${2:-1000000000}"
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH" NCCL_NVLS_ENABLE=0
nccl_lib="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)"
[[ -n "$nccl_lib" ]] && export LD_LIBRARY_PATH="$nccl_lib:${LD_LIBRARY_PATH:-}"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
cubin="$(mktemp -d)/kernels.cubin"
ptxas -arch="sm_${cap:-90}" "$dev/kernels.ptx" -o "$cubin" && export RECONVERGE_GPU_CUBIN="$cubin"
gpus="$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)"
name="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
md="$out/multi-gpu.md"
{
    echo "# MCML on $gpus x $name: one GPU against all of them"
    echo
    echo "$(date -u +%F), \`scripts/multi-gpu.sh\`, $photons photons per run, f32, each thread's photon loop over one grid-wide counter (\`--strategy grid-dynamic\`), fast math and bit-identical; whole-process wall time of \`mcml --backend cuda\`, and each GPU's kernel time (CUDA events) and wall time from its report."
    echo
    echo "| mode | input | GPUs | whole process (s) | M photons/s | speed-up | per GPU | .mco equal to 1 GPU's |"
    echo "|---|---|---:|---:|---:|---:|---|---|"
} > "$md"
status=0
for mode in fast-math bit-identical; do
flags=(--strategy grid-dynamic)
[[ $mode == fast-math ]] && flags+=(--fast-math)
for input in skin slab; do
    one=""
    for devices in 0 all; do
        log="$out/$mode-$input-$devices.log"
        t0=$(date +%s.%N)
        # Each run's .mco is run.mco in a folder of its own: `--output` names the run inside the
        # .mco too (InParm's output file), so the two compare only under one name.
        mkdir -p "$out/$mode-$input-$devices"
        "$dev/mcml" --backend cuda --f32 "${flags[@]}" --builtin "$input" \
            --photons "$photons" --devices "$devices" --output "$out/$mode-$input-$devices/run.mco" > "$log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        secs=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
        [[ $devices == 0 ]] && one=$secs
        n=$([[ $devices == 0 ]] && echo 1 || echo "$gpus")
        per="$(grep -o '[^:;(]*#[0-9] ([^)]*)' "$log" | sed 's/^ *//' | paste -sd ';' -)"
        same="-"
        if [[ $devices == all ]]; then
            if cmp -s <(grep -v "User time" "$out/$mode-$input-0/run.mco") <(grep -v "User time" "$out/$mode-$input-all/run.mco"); then
                same="yes"
            else
                same="NO"; status=1
            fi
        fi
        [[ $rc == 0 ]] || { same="FAILED (rc $rc): $(tail -1 "$log")"; status=1; }
        echo "| $mode | $input | $n | $secs | $(python3 -c "print(f'{$photons / $secs / 1e6:.1f}')") | $(python3 -c "print(f'{$one / $secs:.2f}x')") | $per | $same |" >> "$md"
    done
done
done
# Per-GPU speed-ups: the one-GPU kernel time over the slowest GPU's of the all-GPU run.
for mode in fast-math bit-identical; do
for input in skin slab; do
    python3 - "$out/$mode-$input-0.log" "$out/$mode-$input-all.log" "$mode, $input" >> "$md" <<'PY'
import re, sys
def times(path, what):
    return [float(x) for x in re.findall(what + r" ([0-9.]+) s", open(path).read())]
one_k, all_k = times(sys.argv[1], "kernel time"), times(sys.argv[2], "kernel time")
one_w, all_w = times(sys.argv[1], ","), times(sys.argv[2], ",")
if one_k and all_k:
    print(f"\n{sys.argv[3]}: per-GPU kernel time {one_k[0]:.3f} s on one GPU, at most {max(all_k):.3f} s on each of "
          f"{len(all_k)}: {one_k[0] / max(all_k):.2f}x", end="")
    if one_w and all_w:
        print(f"; per-GPU wall time {one_w[-1]:.3f} s against {max(all_w):.3f} s: {one_w[-1] / max(all_w):.2f}x.")
    else:
        print(".")
PY
done
done
rm -rf "$out"/*-0 "$out"/*-all
cat "$md"
exit $status
