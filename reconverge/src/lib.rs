#![doc = include_str!("../README.md")]
//!
//! # Crates
//!
//! | module | crate |
//! |---|---|
//! | [`backend`] | the [`Backend`](prelude::Backend) trait, [`Launch`](prelude::Launch), [`Run`](prelude::Run) |
//! | [`transforms`] | the shapes and every [`Strategy`](prelude::Strategy), `no_std` |
//! | [`simt`] | lane masks, regions, the `Warp` trait and the reference SIMT model, `no_std` |
//! | [`conformance`] | the conformance kit: every strategy against the baseline on any backend, `conformance_tests!` |
//! | [`occupancy`] | the occupancy calculator and the papers' speedup models |
//! | `cpu` (feature `cpu`) | `CpuBackend` |
//! | `gpu` (feature `cuda`) | `CudaBackend`, the CUDA runtime and the device entry points |

pub use reconverge_backend as backend;
pub use reconverge_conformance as conformance;
#[cfg(feature = "cpu")]
pub use reconverge_cpu as cpu;
#[cfg(feature = "cuda")]
pub use reconverge_gpu as gpu;
pub use reconverge_occupancy as occupancy;
pub use reconverge_simt as simt;
pub use reconverge_transforms as transforms;

/// What a program that runs its own workload needs: `use reconverge::prelude::*;`.
pub mod prelude {
    pub use reconverge_backend::{Backend, BackendError, Launch, Run};
    #[cfg(feature = "cpu")]
    pub use reconverge_cpu::CpuBackend;
    #[cfg(feature = "cuda")]
    pub use reconverge_gpu::CudaBackend;
    pub use reconverge_simt::Region;
    pub use reconverge_transforms::{
        BranchLoop, BranchLoopKernel, Decision, FactoredBranchLoop, FactoredBranchLoopKernel,
        FactoredRegion, FactoredRegions, ItemLoop, ItemLoopKernel, ItemLoopRegion, ItemLoopRegions,
        Kernel, LoopRegion, LoopRegions, SplitLoop, SplitLoopKernel, SplitLoopRegion,
        SplitLoopRegions, Strategy, StrategyError, Tally, TwoPath, TwoPathKernel, TwoPathRegion,
        TwoPathRegions,
    };
}

/// Compiles and runs the workspace README's Rust examples as doctests, so that the first
/// example a user sees cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct WorkspaceReadmeDoctests;
