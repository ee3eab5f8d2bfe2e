//! The SIMT vocabulary of reconverge: lane masks, code regions, the [`Warp`] trait, and the
//! reference SIMT model [`ModelWarp`].
//!
//! A GPU runs threads in warps of 32 that share one instruction stream. When the lanes of a
//! warp disagree on a branch, the warp runs every path with the disagreeing lanes masked off.
//! Divergence-reducing strategies (iteration delaying, branch distribution, dynamic work
//! assignment ...) are warp-level algorithms: they vote, mask and reorder work. They are written
//! once against [`Warp`], whose per-lane values are the generic associated type [`Warp::V`]:
//!
//! - on the GPU (`target_arch = "nvptx64"`, `GpuWarp`) `V<T>` is `T`, the calling thread's own
//!   lane, [`Warp::ballot`] is `vote.sync.ballot.b32` and [`Warp::branch`] really diverges;
//! - on the CPU ([`ModelWarp`]) `V<T>` is `[T; 32]`, `branch` runs its closure on the lanes of
//!   the mask, and the model counts one issue of that region per call with any active lane.
//!
//! The counters are named as Nsight Compute names them, so CPU-model and `ncu` numbers sit in
//! one table: [`Counters::average_active_threads_per_warp`] is
//! `smsp__average_thread_inst_executed_per_inst_executed` (0–32) and
//! [`Counters::simd_efficiency`] is that divided by the warp width.
//!
//! # Rules a strategy follows
//!
//! Since Volta the lanes of a warp are scheduled independently and do not reconverge by
//! themselves. A strategy is therefore written as a loop that the whole warp runs together,
//! deciding with votes over an explicit, known mask; per-lane work happens only inside
//! [`Warp::branch`]. Code outside `branch` must be warp-uniform.
//!
//! # Example: an if-then-else with half the lanes on each path
//!
//! ```
//! use reconverge_simt::{ModelWarp, Region, Warp};
//!
//! const THEN: Region = Region::new(0, "then", 10);
//! const ELSE: Region = Region::new(1, "else", 10);
//!
//! let mut warp = ModelWarp::new();
//! let lanes = warp.lane_ids();
//! let mut x = warp.splat(0i32);
//! let cond = warp.map(lanes, |lane| lane % 2 == 0);
//! let taken = warp.ballot(warp.full_mask(), cond);
//! warp.branch(THEN, taken, &mut x, |x| *x += 1);
//! warp.branch(ELSE, !taken & warp.full_mask(), &mut x, |x| *x -= 1);
//!
//! assert_eq!(x[0], 1);
//! assert_eq!(x[1], -1);
//! // Both paths issue 10 instructions each with 16 of 32 lanes active: 50 % SIMD efficiency
//! // (the vote, one instruction with every lane on, is counted in its own region).
//! assert_eq!(warp.counters().simd_efficiency_of(&[THEN, ELSE]), 0.5);
//! ```
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, stdarch_nvptx, link_llvm_intrinsics),
    // `link_llvm_intrinsics`: the warp vote as LLVM's convergent intrinsic (see `gpu.rs`).
    allow(internal_features)
)]

/// This package's source folder (the one with its `Cargo.toml`), for a build script that
/// compiles the package for the GPU in a device crate of its own
/// (`reconverge_gpu_build::PtxBuilder::template_path`): the same sources in a workspace and
/// from the registry.
pub const SOURCE_DIR: &str = env!("CARGO_MANIFEST_DIR");

mod counters;
mod mask;
mod model;
mod region;
mod warp;

#[cfg(target_arch = "nvptx64")]
mod gpu;

pub use counters::{Counters, MAX_REGIONS, RegionCounters, STRATEGY_REGIONS};
pub use mask::{LaneMask, WARP_SIZE, full_mask, lanes};
pub use model::{BlockShared, ModelWarp};
pub use region::Region;
pub use warp::Warp;

#[cfg(target_arch = "nvptx64")]
pub use gpu::{GpuWarp, ThreadWarp, sync_warp};
