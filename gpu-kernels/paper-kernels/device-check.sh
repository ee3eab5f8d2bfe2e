#!/usr/bin/env bash
# The CUDA backend's device check, in two steps:
#
#   1. here (Rust, no GPU):    gpu-kernels/paper-kernels/device-check.sh build
#      builds the device_check example with --features cuda (nightly builds the PTX for
#      $RECONVERGE_GPU_ARCH, default sm_90) and puts it, with the PTX and this script, in
#      .device/ at the repository root (git-ignored via .git/info/exclude);
#   2. on the GPU machine (no Rust; driver and CUDA toolkit):   bash .device/device-check.sh
#      - ptxas -arch=sm_<cc> of the PTX into a cubin (loaded instead of JIT-compiling the PTX;
#        falls back to the PTX when ptxas is missing), with registers/spills per kernel;
#      - device_check: self-tests, occupancy prediction vs driver, every workload x strategy
#        GPU = CPU bitwise, throughput table, MCML skin/slab tallies and photons/s
#        (tables as CSV/JSON in $OUT, or .device/results);
#      - device_check --sanitize under compute-sanitizer memcheck, racecheck, synccheck, each
#        with its error-summary line;
#      - a final summary.
#
# Exit status: 0 if the full check and every sanitizer passed, 1 otherwise, 2 with no GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ "$(basename "$here")" == ".device" ]]; then root="$(dirname "$here")"; else root="$(cd "$here/../.." && pwd)"; fi
dev="${DEVICE_DIR:-$root/.device}"

if [[ "${1:-}" == "build" ]]; then
    set -e
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target-gpu}"
    arch="${RECONVERGE_GPU_ARCH:-sm_90}"
    RECONVERGE_GPU_ARCH="$arch" cargo build --release --manifest-path "$root/Cargo.toml" \
        -p reconverge-apps --features cuda --example device_check
    mkdir -p "$dev"
    cp "$CARGO_TARGET_DIR/release/examples/device_check" "$dev/device_check"
    strip --strip-debug "$dev/device_check" 2>/dev/null || true
    cp "$root/gpu-kernels/paper-kernels/device-check.sh" "$dev/device-check.sh"
    "$dev/device_check" --write-ptx "$dev/kernels.ptx"
    echo "built $dev/device_check (PTX for $arch: $dev/kernels.ptx)"
    ls -l "$dev"
    exit 0
fi

bin="$dev/device_check"
if [[ ! -x "$bin" ]]; then
    echo "FAIL $bin missing: run 'gpu-kernels/paper-kernels/device-check.sh build' on the build machine first"
    exit 1
fi
results="${OUT:-$dev/results}"
mkdir -p "$results"
work="$(mktemp -d)"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader || true

export PATH="$PATH:/usr/local/cuda/bin"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')"
cap="${cap:-90}"
if command -v ptxas >/dev/null && [[ -f "$dev/kernels.ptx" ]]; then
    t0=$(date +%s)
    if ptxas -v -arch="sm_$cap" "$dev/kernels.ptx" -o "$work/kernels.cubin" >"$work/ptxas.log" 2>&1; then
        export RECONVERGE_GPU_CUBIN="$work/kernels.cubin"
        echo "ptxas sm_$cap: $(( $(date +%s) - t0 )) s; the cubin is loaded instead of JIT-compiling the PTX"
    else
        echo "WARN ptxas failed (the driver JIT-compiles the PTX instead):"; tail -5 "$work/ptxas.log"
    fi
    cp "$work/ptxas.log" "$results/ptxas.log" 2>/dev/null || true
    # One line per kernel: registers, stack frame and spills.
    awk -F"'" '/Compiling entry function/ { k = $2; next }
        k != "" && /stack frame/ { st = $0; sub(/^ */, "", st); next }
        k != "" && /Used [0-9]+ registers/ {
            match($0, /Used [0-9]+ registers/); r = substr($0, RSTART + 5, RLENGTH - 15)
            printf "  %-22s %4s regs  %s\n", k, r, st; k = "" }' "$work/ptxas.log" | sort
else
    echo "WARN ptxas not found: the driver JIT-compiles the PTX"
fi

echo
echo "== device_check (full)"
timeout 330 "$bin" --out "$results" --budget "${BUDGET:-270}" 2>&1 | tee "$results/device_check.log"
full_rc=${PIPESTATUS[0]}
if [[ $full_rc -eq 2 ]]; then exit 2; fi

san_rc=0
san_lines=()
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)"
if [[ -x "$sanitizer" ]]; then
    for tool in memcheck racecheck synccheck; do
        echo
        echo "== compute-sanitizer --tool $tool device_check --sanitize"
        log="$results/sanitize-$tool.log"
        timeout "${SANITIZE_TIMEOUT:-45}" "$sanitizer" --tool "$tool" --print-limit 10 \
            "$bin" --sanitize >"$log" 2>&1
        rc=$?
        summary="$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
        checks="$(grep -E '^SUMMARY' "$log" | tail -1)"
        if [[ $rc -eq 124 ]]; then summary="timed out after ${SANITIZE_TIMEOUT:-45} s; ${summary:-no summary}"; fi
        grep -E '^(FAIL|=========.*(Invalid|Race|Barrier|Error|error))' "$log" | head -8
        line="$tool: ${summary:-no summary line} | device_check: ${checks:-no summary} (rc $rc)"
        echo "$line"
        san_lines+=("$line")
        if [[ $rc -ne 0 ]] || ! grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log"; then
            san_rc=1
        fi
    done
else
    echo "WARN compute-sanitizer not found: sanitizer runs skipped"
    san_rc=1
fi

echo
echo "== device check summary"
grep -E '^SUMMARY' "$results/device_check.log" | tail -1 | sed 's/^/full run: /'
grep -E '^  FAILED' "$results/device_check.log" | head -20
for l in "${san_lines[@]}"; do echo "sanitizer $l"; done
echo "tables: $results/{workloads,occupancy,mcml}.csv, summary.json; logs: device_check.log, sanitize-*.log, ptxas.log"
rm -rf "$work"
if [[ $full_rc -eq 0 && $san_rc -eq 0 ]]; then echo "DEVICE CHECK: ALL PASS"; exit 0; fi
echo "DEVICE CHECK: FAILURES (full rc $full_rc, sanitizers rc $san_rc)"
exit 1
