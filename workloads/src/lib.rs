//! The workloads of reconverge: the papers' synthetic benchmarks and MCML photon transport,
//! as `no_std` impls of the shapes of `reconverge-transforms`, shared by the CPU backend, the
//! GPU kernels, the benches and the examples.
//!
//! - [`synthetic`]: SYN-ITDELAY and SYN-BRDIS (seed 002), the branch-splitting benchmark
//!   (seed 001 §5), the dynamic-work and path-unification experiments (seed 004), and GPU Gems
//!   34's branch-probability experiment. Each cites its figure and has a scalar `reference`.
//! - [`mcml`]: MCML 1.2 photon transport (Wang, Jacques & Zheng), generic over `f32`/`f64`,
//!   with integer tallies and one random stream per photon, as the loop strategies' real workload
//!   ([`mcml::McmlKernel`]).
//! - [`reference`](mod@reference): workloads the strategies were not developed on (Collatz, an escape-time
//!   image with a rare costly branch) and the reference settings of the comparison against plain
//!   hand-written CUDA kernels (`references/cuda/plain.cu`).
//! - [`rng`]: Philox4x32-10, the per-photon MWC64X streams seeded by it, and MCML's
//!   multiply-with-carry: `rand_core` generators that give the
//!   same streams on the CPU and the GPU.
//!
//! # Example: SYN-ITDELAY under iteration delaying, on the reference model
//!
//! ```
//! use reconverge_simt::ModelWarp;
//! use reconverge_transforms::{
//!     BranchLoop, BranchLoopKernel, Decision, Discard, Kernel, NoTally, Strategy, WarpProgram,
//!     WarpTask,
//! };
//! use reconverge_workloads::synthetic::SynItDelay;
//!
//! // 80 FMA pairs per path (the paper's r = 8), 32 iterations, branch taken half of the time.
//! let workload = SynItDelay::new(80, 32, 0.5, 1);
//! let paths = [workload.regions().taken, workload.regions().not_taken];
//! let kernel = BranchLoopKernel(workload);
//! let efficiency = |strategy: Strategy| {
//!     let mut warp = ModelWarp::new();
//!     let task = WarpTask::new(32, 1, 0, 32, 0);
//!     let mut program = kernel.program(&warp, &strategy, 0, task, &[]).expect("applies");
//!     while program.step(&mut warp, &mut Discard, &mut NoTally) {}
//!     // SIMD efficiency of the branch paths: the share of their lane-slots doing work.
//!     warp.counters().simd_efficiency_of(&paths)
//! };
//! let base = efficiency(Strategy::BASELINE);
//! let delayed = efficiency(Strategy::iteration_delaying(Decision::RoundRobin {
//!     num_zeros: 1, num_ones: 1, remove_idle: false }));
//! assert!(delayed > base, "{delayed} vs {base}");
//! ```
// The papers' entry list (`paper_entries!`) expands one macro level per entry point.
#![recursion_limit = "512"]
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]

// The host's fused multiply-add (`f32::mul_add`, for `mcml`'s exact f32) and its run-time
// check for the FMA instruction are std's.
#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

/// This package's source folder (the one with its `Cargo.toml`), for a build script that
/// compiles the package for the GPU in a device crate of its own
/// (`reconverge_gpu_build::PtxBuilder::template_path`): the same sources in a workspace and
/// from the registry.
pub const SOURCE_DIR: &str = env!("CARGO_MANIFEST_DIR");

pub mod gpu_entries;
pub mod held_out;
pub mod mcml;
pub mod reference;
pub mod rng;
pub mod synthetic;
