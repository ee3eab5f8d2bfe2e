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
//! | `gpu` (feature `cuda`) | `CudaBackend`, the CUDA runtime |
//! | [`device`] | the device runtime your crate's GPU build runs, and the entry-point tables the host reads |
//!
//! [`gpu_entry_points!`] lists your crate's GPU entry points once; `this_crate_ptx!()` (feature
//! `cuda`) is the PTX that `reconverge_gpu_build::build_this_crate()` compiled from them, and
//! `this_crate_module!()` that PTX with the cubins (SASS) the build made from it where it found
//! CUDA's `ptxas`.

// The GPU build of a user's crate (nvptx64) compiles this crate too: there it is the workload
// traits and the device runtime, `no_std`; everything else is the host's.
#![cfg_attr(target_arch = "nvptx64", no_std)]

#[cfg(not(target_arch = "nvptx64"))]
pub use reconverge_backend as backend;
#[cfg(not(target_arch = "nvptx64"))]
pub use reconverge_conformance as conformance;
#[cfg(all(feature = "cpu", not(target_arch = "nvptx64")))]
pub use reconverge_cpu as cpu;
/// The device runtime your crate's GPU build runs (entry points, `run_warp_program`); on the
/// host it is empty but for [`gpu_entry_points!`]'s helpers.
pub use reconverge_device as device;
/// Declares a struct as GPU data (`#[repr(C)]` and `DeviceData`): what a workload of
/// [`gpu_entry_points!`] must be.
pub use reconverge_device::device_data;
#[cfg(all(feature = "cuda", not(target_arch = "nvptx64")))]
pub use reconverge_gpu as gpu;
#[cfg(not(target_arch = "nvptx64"))]
pub use reconverge_occupancy as occupancy;
pub use reconverge_simt as simt;
pub use reconverge_transforms as transforms;

mod entry_points;

/// What a program that runs its own workload needs: `use reconverge::prelude::*;`.
pub mod prelude {
    #[cfg(not(target_arch = "nvptx64"))]
    pub use reconverge_backend::{Backend, BackendError, Launch, Run};
    #[cfg(all(feature = "cpu", not(target_arch = "nvptx64")))]
    pub use reconverge_cpu::CpuBackend;
    #[cfg(all(feature = "cuda", not(target_arch = "nvptx64")))]
    pub use reconverge_gpu::CudaBackend;
    pub use reconverge_simt::Region;
    pub use reconverge_transforms::{
        Assignment, BranchLoop, BranchLoopKernel, CompositionError, Decision, FactoredBranchLoop,
        FactoredBranchLoopKernel, FactoredRegion, FactoredRegions, ItemLoop, ItemLoopKernel,
        ItemLoopRegion, ItemLoopRegions, Kernel, LoopRegion, LoopRegions, PathSchedule, SplitLoop,
        SplitLoopKernel, SplitLoopRegion, SplitLoopRegions, Strategy, StrategyError, Tally,
        TwoPath, TwoPathKernel, TwoPathRegion, TwoPathRegions,
    };
}

/// Compiles and runs the workspace README's Rust examples as doctests, so that the first
/// example a user sees cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct WorkspaceReadmeDoctests;
