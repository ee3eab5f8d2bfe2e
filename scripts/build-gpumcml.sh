#!/usr/bin/env bash
# Builds GPU-MCML ("fast" version of ominux/gpumcml: Alerstam, Lo et al.) from its public source,
# for scripts/gpu-all.sh part `gpumcml`, which runs it beside reconverge's MCML in the same job.
#
#   bash scripts/build-gpumcml.sh GPUMCML_CHECKOUT OUTDIR [sm_XX]
#
# GPUMCML_CHECKOUT is a clone of https://github.com/ominux/gpumcml (its gpumcml/fast folder is
# built). OUTDIR receives `gpumcml`, its safe-primes table and `skin.mci` / `slab.mci` (the inputs
# of `mcml --builtin skin|slab`, 10^8 photons); point GPUMCML_DIR at it, or use .device/gpumcml.
# The architecture defaults to the first GPU's; nvcc comes from PATH or CUDA_PATH.
#
# GPU-MCML is GPL code of a peer: it and its build stay in git-ignored folders, never committed.
# What this script changes, each because a 2010 build cannot be reproduced on CUDA 13 as written:
# - cutil (the SDK's helper library; GPU-MCML ships 2010 binaries of it): replaced by a header
#   written here with the few calls the program makes (error checks, a timer, POSIX threads);
# - `cudaThreadSynchronize`, removed from CUDA: `cudaDeviceSynchronize`, its replacement;
# - the makefile picks its configuration by defining `__CUDA_ARCH__=200` for the host pass too,
#   which CUDA 13's headers refuse: the sources' switch is renamed `GPUMCML_ARCH` (200, the
#   Fermi configuration, its newest), and the kernels compile for the GPU at hand;
# - 64-bit only (its makefile built 32-bit binaries). Its flags are kept: -O3 -use_fast_math
#   -maxrregcount 36 (the makefile's for its newest GPUs).
set -euo pipefail
src="${1:?GPU-MCML checkout}/gpumcml/fast"
out="${2:?output folder}"
root="$(cd "$(dirname "$0")/.." && pwd)"
nvcc="$(command -v nvcc || echo "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc")"
arch="${3:-sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')}"
[[ -f "$src/gpumcml_main.cu" ]] || { echo "no $src/gpumcml_main.cu: not a GPU-MCML checkout" >&2; exit 2; }
mkdir -p "$out"
build="$(mktemp -d)"
cp "$src"/gpumcml_{main,kernel,mem,rng}.cu "$src"/gpumcml{,_kernel}.h "$src"/gpumcml_io.c "$build/"
sed -i 's/cudaThreadSynchronize/cudaDeviceSynchronize/g; s/__CUDA_ARCH__/GPUMCML_ARCH/g' "$build"/*
cat > "$build/cutil.h" <<'EOF'
// The cutil calls GPU-MCML makes, for a build without the 2010 SDK library (build-gpumcml.sh).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <sys/time.h>
#include <cuda_runtime.h>
#define CUDA_SAFE_CALL(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
    exit(1); } } while (0)
#define CUT_SAFE_CALL(call) (call)
static double cut_timer_start_ms, cut_timer_elapsed_ms;
static double cut_now_ms() { timeval t; gettimeofday(&t, nullptr); return t.tv_sec * 1e3 + t.tv_usec * 1e-3; }
static inline int cutCreateTimer(unsigned *t) { *t = 0; cut_timer_elapsed_ms = 0; return 1; }
static inline int cutStartTimer(unsigned) { cut_timer_start_ms = cut_now_ms(); return 1; }
static inline int cutStopTimer(unsigned) { cut_timer_elapsed_ms += cut_now_ms() - cut_timer_start_ms; return 1; }
static inline float cutGetTimerValue(unsigned) { return (float)cut_timer_elapsed_ms; }
static inline int cutDeleteTimer(unsigned) { return 1; }
EOF
cat > "$build/multithreading.h" <<'EOF'
// cutil's thread calls over POSIX threads (build-gpumcml.sh).
#pragma once
#include <pthread.h>
typedef pthread_t CUTThread;
typedef void *(*CUT_THREADROUTINE)(void *);
#define CUT_THREADPROC void
#define CUT_THREADEND
static inline CUTThread cutStartThread(CUT_THREADROUTINE f, void *data) {
    pthread_t t; pthread_create(&t, nullptr, f, data); return t; }
static inline void cutWaitForThreads(const CUTThread *threads, int n) {
    for (int i = 0; i < n; i++) pthread_join(threads[i], nullptr); }
EOF
# Its I/O in C++, as its makefile builds it (g++), linked with the CUDA part.
g++ -O3 -DUNIX -x c++ -c "$build/gpumcml_io.c" -o "$build/gpumcml_io.o"
"$nvcc" -O3 -DUNIX -use_fast_math -maxrregcount 36 -DGPUMCML_ARCH=200 -arch="$arch" \
    -I"$build" -o "$out/gpumcml" "$build/gpumcml_main.cu" "$build/gpumcml_io.o"
# Its table of multipliers (`safeprimes_base32.txt`, one per GPU thread) where the checkout has
# it; stored snapshots of the repository lack that large file, so otherwise the table is made by
# scripts/gpumcml-safeprimes.c as CUDAMCML's seeding note defines it (its first multiplier,
# 4294967118, is the one GPU-MCML's papers quote), one per thread GPU-MCML launches (896 per
# SM) and one for its seeding.
if [[ -s "$src/executable/safeprimes_base32.txt" ]]; then
    cp "$src/executable/safeprimes_base32.txt" "$out/"
else
    gcc -O2 -o "$build/safeprimes" "$root/scripts/gpumcml-safeprimes.c"
    # The GPU's multiprocessors, from the runtime (nvidia-smi does not report them); 160 where
    # no GPU answers.
    printf '%s\n' '#include <cstdio>' '#include <cuda_runtime.h>' \
        'int main() { cudaDeviceProp p; if (cudaGetDeviceProperties(&p, 0)) return 1;' \
        '             printf("%d\n", p.multiProcessorCount); }' > "$build/sms.cu"
    sms="$("$nvcc" -o "$build/sms" "$build/sms.cu" > /dev/null 2>&1 && "$build/sms" || true)"
    [[ "$sms" =~ ^[0-9]+$ ]] || sms=160
    "$build/safeprimes" $(( sms * 896 + 1 )) > "$out/safeprimes_base32.txt"
fi
for input in skin slab; do
    sed 's/@PHOTONS@/100000000/' "$root/scripts/mcml12-inputs/$input.mci" > "$out/$input.mci"
done
rm -rf "$build"
echo "built $out/gpumcml for $arch"
