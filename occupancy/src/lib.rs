//! CUDA occupancy calculator for compute capability 1.0 (G80) to 12.x (Blackwell), with the
//! speedup models of the branch-splitting and branch-distribution papers.
//!
//! Occupancy is the ratio of resident warps on a streaming multiprocessor (SM) to the most
//! it can hold. It is decided per block: a block needs warp slots, registers and shared
//! memory, each rounded up to the architecture's allocation unit, and the SM holds as many
//! blocks as its scarcest resource (or its block cap) allows. This crate reproduces NVIDIA's
//! rules without a GPU:
//!
//! - [`arch`]: the table of per-architecture limits ([`ArchLimits`]), one row per compute
//!   capability, sourced from `cuda_occupancy.h`, the CUDA C++ Programming Guide and the
//!   occupancy calculator spreadsheet (the module docs list the sources and where they
//!   disagree);
//! - [`devices`]: named GPUs ([`Device`]) with SM counts, looked up by name (`"h100"`);
//! - [`calculator`]: [`calculate_occupancy`] (blocks, warps, occupancy, every limiting
//!   resource, per-resource block limits, allocations) and [`next_steps`] (what change lifts
//!   the limit);
//! - [`sweeps`]: occupancy against block size, registers and shared memory, and the
//!   best-block-size search of `cuOccupancyMaxPotentialBlockSize`;
//! - [`models`]: branch splitting's speedup (Carrillo et al., eq. 1) and branch
//!   distribution's `2(1 + R)/(2 + R)` (Han & Abdelrahman);
//! - [`report`]: everything about one kernel, as text or JSON (used by the `occupancy`
//!   example);
//! - [`error`]: [`OccupancyError`]; impossible input is an error, never a panic.
//!
//! # Example
//!
//! The seed paper's G80 kernel: 256 threads at 13 registers per thread reach two thirds
//! occupancy; at 10 registers the SM is full.
//!
//! ```
//! use reconverge_occupancy::{Device, KernelResources, LaunchConfig, Limiter, calculate_occupancy};
//!
//! let g80 = Device::lookup("8800gtx")?.limits()?;
//! let config = LaunchConfig::default();
//!
//! let branched = calculate_occupancy(g80, &KernelResources::new(256, 13), &config)?;
//! assert_eq!(branched.active_blocks_per_sm, 2);
//! assert_eq!(branched.active_warps_per_sm, 16); // of 24
//! assert_eq!(branched.limited_by, vec![Limiter::Registers]);
//!
//! let lean = calculate_occupancy(g80, &KernelResources::new(256, 10), &config)?;
//! assert_eq!(lean.occupancy, 1.0);
//!
//! // Too many threads for the architecture is an error that names the limit.
//! let error = calculate_occupancy(g80, &KernelResources::new(1024, 10), &config).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "threads per block: 1024 exceeds the maximum of 512 on compute capability 1.0"
//! );
//! # Ok::<(), reconverge_occupancy::OccupancyError>(())
//! ```

pub mod arch;
pub mod calculator;
pub mod devices;
pub mod error;
pub mod models;
pub mod report;
pub mod sweeps;

pub use arch::{ArchLimits, ComputeCapability};
pub use calculator::{
    BlockLimits, CachePreference, KernelResources, LaunchConfig, Limiter, NextStep, Occupancy,
    calculate_occupancy, next_steps,
};
pub use devices::Device;
pub use error::OccupancyError;

/// Runs the README's example as a doctest so it cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
