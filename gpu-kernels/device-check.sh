#!/usr/bin/env bash
# Self-test of the CUDA backend on a GPU machine, in two steps:
#
#   1. here (Rust, no GPU):    gpu-kernels/device-check.sh build
#      builds the device_check example with --features cuda (nightly builds the PTX) and puts
#      it, with the PTX, in .device/ at the repository root (git-ignored via .git/info/exclude);
#   2. on the GPU machine (no Rust; driver and CUDA toolkit):   bash gpu-kernels/device-check.sh
#      prints the GPU, `ptxas -v` resource usage of every kernel (if ptxas is there), then runs
#      the self-tests (warp votes/shuffles/block atomics against the CPU SIMT model, libm f64/f32
#      bit for bit against the CPU) with one PASS/FAIL line per check.
#
# Exit status: that of device_check (0 all passed, 1 a check failed, 2 no usable GPU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.device"

if [[ "${1:-}" == "build" ]]; then
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target-gpu}"
    arch="${RECONVERGE_GPU_ARCH:-sm_80}"
    RECONVERGE_GPU_ARCH="$arch" cargo build --release --manifest-path "$root/Cargo.toml" \
        -p reconverge-gpu --features cuda --example device_check
    mkdir -p "$out"
    cp "$CARGO_TARGET_DIR/release/examples/device_check" "$out/device_check"
    strip --strip-debug "$out/device_check" 2>/dev/null || true
    cp "$0" "$out/device-check.sh"
    "$out/device_check" --write-ptx "$out/kernels.ptx"
    echo "built $out/device_check (PTX for $arch: $out/kernels.ptx)"
    ls -l "$out"
    exit 0
fi

bin="$out/device_check"
if [[ ! -x "$bin" ]]; then
    echo "FAIL $bin missing: run 'gpu-kernels/device-check.sh build' on the build machine first"
    exit 1
fi
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader || true

ptxas="$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)"
if [[ -x "$ptxas" && -f "$out/kernels.ptx" ]]; then
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')"
    echo "ptxas -v for sm_${cap:-90}:"
    "$ptxas" -v -arch="sm_${cap:-90}" "$out/kernels.ptx" -o /tmp/reconverge-kernels.cubin 2>&1 \
        | grep -E "Compiling entry|Used|spill" | sed 's/^ptxas info *: */  /' || true
fi

"$bin"
