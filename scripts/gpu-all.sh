#!/usr/bin/env bash
# Everything reconverge measures on a GPU, in one run (about 6 minutes on an H100), from the
# binaries scripts/build-device.sh put in .device/. Writes into OUTDIR (default ./gpu-results):
#   device-check.tar.gz  the device check (GPU = CPU bitwise for every workload x strategy,
#                        occupancy calculator = driver, compute-sanitizer, MCML photons/s)
#   mcml.tar.gz          MCML throughput per strategy, 10^8 photons, skin and slab
#   results.tar.gz       the papers' experiments (reproduce tool), if built
#   bench-*.txt          criterion benches with the CUDA backend
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dev="$root/.device"
out="${1:-$root/gpu-results}"
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"

echo "== device check"
mkdir -p "$out/check"
OUT="$out/check" BUDGET=200 SANITIZE_TIMEOUT=40 bash "$dev/device-check.sh" > "$out/check/full.log" 2>&1
grep -E "SUMMARY|DEVICE CHECK|sanitizer|occupancy prediction" "$out/check/full.log"
tar -czf "$out/device-check.tar.gz" -C "$out" check && rm -rf "$out/check"

echo "== MCML throughput, 10^8 photons per strategy"
"$dev/mcml_bench" --backend cuda --photons 100000000 --out "$out/mcml" 2>&1 | tail -14
# One archive per folder: the device tool brings back a handful of files per run.
tar -czf "$out/mcml.tar.gz" -C "$out" mcml && rm -rf "$out/mcml"

if [[ -x "$dev/reproduce" ]]; then
    echo "== the papers' experiments"
    timeout 300 "$dev/reproduce" --out "$out/results" 2>&1 | tail -20
    tar -czf "$out/results.tar.gz" -C "$out" results && rm -rf "$out/results"
fi

for b in seed002_iteration_delaying seed002_branch_distribution; do
    echo "== criterion bench $b (CUDA backend)"
    timeout 120 "$dev/bench_$b" --bench --warm-up-time 0.3 --measurement-time 1 > "$out/bench-$b.txt" 2>&1
    grep -E "time:" "$out/bench-$b.txt" | head -8
done
ls -la "$out"
