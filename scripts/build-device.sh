#!/usr/bin/env bash
# Builds, on a machine with Rust (no GPU needed), everything the GPU machine runs, into the
# git-ignored folder .device/ (add `/.device/` to .git/info/exclude): the device check, the
# MCML tools, the plain-kernel comparison, the GPU criterion benches and the reproduce tool,
# all with feature `cuda`. PARTS="check plain mcml" builds only what those gpu-all.sh parts run.
# Then, on the GPU machine (CUDA driver, no Rust): bash scripts/gpu-all.sh OUTDIR
# With BEFORE_REV=<commit>, that revision's MCML tools are built too (see below).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target-gpu}"
# SASS for sm_80 and sm_90 beside the PTX (reconverge-gpu-build looks in CUDA_PATH, on PATH and in
# /usr/local/cuda); where none of those has a ptxas, the one of PyPI's nvidia-cuda-nvcc-cu12, if
# installed. Without any the binaries ship PTX alone and the build warns.
if [[ -z "${RECONVERGE_PTXAS+set}" ]] && ! command -v ptxas > /dev/null \
    && [[ ! -x "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" ]]; then
    pip_ptxas="$(python3 -c 'import nvidia.cuda_nvcc as m, os; print(os.path.join(m.__path__[0], "bin", "ptxas"))' 2>/dev/null || true)"
    # `if`, not `&&`: under `set -e` a false test as the block's last command ended the script.
    if [[ -x "$pip_ptxas" ]]; then export RECONVERGE_PTXAS="$pip_ptxas"; fi
fi
echo "ptxas for SASS: ${RECONVERGE_PTXAS:-$(command -v ptxas || echo "none found: PTX only")}"
parts=" ${PARTS:-plain user check mcml profile reproduce benches tune} "
want() { [[ "$parts" == *" $1 "* ]]; }
# One architecture for every step: the paper kernels' build script reruns, and rebuilds all their
# PTX, whenever RECONVERGE_GPU_ARCH changes, set or unset; device-check.sh sets it (default
# sm_90) for its own step, so the steps after it saw it unset and rebuilt on every run.
export RECONVERGE_GPU_ARCH="${RECONVERGE_GPU_ARCH:-sm_90}"
bash "$root/gpu-kernels/paper-kernels/device-check.sh" build
# mcml: the installable program (reconverge-mcml-cli's binary; `--example mcml` runs the same code).
cargo build --release -p reconverge-mcml-cli --features cuda --bin mcml
cargo build --release -p reconverge-apps --features cuda --example mcml_bench --example advise \
    --example plain --example techniques
cp "$CARGO_TARGET_DIR"/release/mcml "$root/.device/"
# The MCML-only module the mcml program loads (reconverge_paper_kernels::MCML_PTX), for a cubin.
cp "$(ls -t "$CARGO_TARGET_DIR"/release/build/reconverge-paper-kernels-*/out/mcml.ptx | head -1)" \
    "$root/.device/mcml.ptx"
cp "$CARGO_TARGET_DIR"/release/examples/{mcml_bench,advise,plain,techniques} "$root/.device/"
# The CUDA C++ plain kernels and hand-written twins, built on the GPU machine by gpu-all.sh
# (parts plain and techniques) with nvcc.
cp "$root/references/cuda/plain.cu" "$root/references/cuda/techniques.cu" \
    "$root/references/cuda/unification.cu" "$root/references/cuda/splitting.cu" \
    "$root/references/cuda/speculative_reconvergence.cu" \
    "$root/references/cuda/thread_data_remapping.cu" "$root/.device/"
# Collaborative context collection's CUDA C++ twin (gpu-all.sh part ccc), built there with nvcc.
cp "$root/references/cuda/collaborative_context_collection.cu" "$root/.device/"
# The IEEE check of the division and square-root steps MCML's exact f32 runs (gpu-all.sh check).
cp "$root/references/cuda/fast_paths.cu" "$root/.device/"
if want reproduce && [[ -f "$root/examples/apps/examples/reproduce.rs" ]]; then
    cargo build --release -p reconverge-apps --features cuda --example reproduce
    cp "$CARGO_TARGET_DIR/release/examples/reproduce" "$root/.device/"
fi
want benches && for b in seed002_iteration_delaying seed002_branch_distribution; do
    exe=$(cargo bench --no-run -p reconverge-benches --features cuda --bench "$b" 2>&1 \
        | sed -n 's/.*Executable.*(\(.*\))/\1/p' | tail -1)
    cp "$exe" "$root/.device/bench_$b"
done
cargo build --release -p user-workload --features cuda
cp "$CARGO_TARGET_DIR/release/user-workload" "$root/.device/"
cp "$root/scripts/gpu-all.sh" "$root/.device/"
# BEFORE_REV=<commit>: also build that revision's MCML tools into .device/before/, so that
# gpu-all.sh measures before and after side by side in one run.
if [[ -n "${BEFORE_REV:-}" ]]; then
    wt="$(mktemp -d)/before"
    git -C "$root" worktree add --detach "$wt" "$BEFORE_REV"
    # The MCML tools moved from reconverge-mcml to the apps crate; build them where they are
    # (revisions with reconverge-mcml-cli keep an `mcml` example that runs its code).
    pkg=reconverge-apps
    [[ -d "$wt/examples/apps" ]] || pkg=reconverge-mcml
    CARGO_TARGET_DIR="$root/target-before" cargo build --release --manifest-path "$wt/Cargo.toml" \
        -p "$pkg" --features cuda --example mcml_bench --example mcml
    mkdir -p "$root/.device/before"
    cp "$root"/target-before/release/examples/{mcml,mcml_bench} "$root/.device/before/"
    # The PTX is built by reconverge-paper-kernels (reconverge-gpu before the crate split).
    cp "$(ls -t "$root"/target-before/release/build/reconverge-{paper-kernels,gpu}-*/out/kernels.ptx 2>/dev/null | head -1)" \
        "$root/.device/before/kernels.ptx"
    git -C "$root" rev-parse --short "$BEFORE_REV" > "$root/.device/before/REV"
    git -C "$root" worktree remove --force "$wt"
    strip --strip-debug "$root"/.device/before/mcml* 2>/dev/null || true
fi
strip --strip-debug "$root"/.device/* 2>/dev/null || true
du -sh "$root/.device"
