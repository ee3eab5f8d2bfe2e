//! The walk under every strategy its shape lists, one test per (strategy, launch): on the CPU
//! backend and, built with `--features cuda` on a machine with a GPU, on the GPU too, each
//! strategy's outputs equal to the CPU baseline's bit for bit (strategies the crate compiled no
//! entry point for are skipped on the GPU and counted). `cargo test -p user-workload` (CPU),
//! `cargo test -p user-workload --features cuda` (CPU and GPU 0).

use reconverge::prelude::*;
use user_workload::Walk;

const WALK: Walk = Walk {
    max_steps: 400,
    trap: 3,
    escape: 24,
    seed: 7,
};

/// GPU 0 with this crate's entry points, if there is one.
#[cfg(feature = "cuda")]
fn gpu() -> Option<CudaBackend> {
    let names: Vec<&str> = user_workload::WALK_ENTRY_POINTS
        .iter()
        .chain(user_workload::WALK_PLAIN_KERNELS)
        .copied()
        .collect();
    CudaBackend::with_ptx(0, reconverge::this_crate_ptx!(), &names).ok()
}

/// No GPU without feature `cuda`.
#[cfg(not(feature = "cuda"))]
fn gpu() -> Option<CpuBackend> {
    None
}

reconverge::conformance::conformance_tests! {
    walk:
        kernel = BranchLoopKernel(WALK),
        items = 4096,
        backends = [CpuBackend::new()],
        launches = [
            small = Launch::new(64, 4).expect("valid"),
            wide = Launch::new(128, 16).expect("valid"),
        ],
        optional_backends = [gpu()],
}
