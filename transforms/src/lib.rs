//! Every published branch-divergence strategy, written once over [`reconverge_simt::Warp`].
//!
//! A workload implements one of the shape traits of [`shape`] (a loop with a divergent branch,
//! a per-item two-path branch, …), is wrapped in that shape's [`Kernel`] (for instance
//! [`BranchLoopKernel`]), and a backend runs it under any [`Strategy`] the shape supports.
//! Every strategy computes exactly the outputs of [`Strategy::BASELINE`]; what changes is how
//! many instructions the warp issues and how many of its lanes do useful work.
//!
//! # Shapes and their strategies
//!
//! | shape | kernel | path schedules (each over the assignments it pairs with) |
//! |---|---|---|
//! | [`BranchLoop`] (seed 002 fig. 4) | [`BranchLoopKernel`] | as written, iteration delaying, speculative reconvergence; static, block-counter or grid-wide dealing, or thread-data remapping (2 passes, a permutation in [`Scratch`]) for a workload with a key |
//! | [`TwoPath`] (seed 004 fig. 6/9, seed 001 fig. 6, Gems 34) | [`TwoPathKernel`] | as written, predication, branch splitting (2 passes), z-cull masking (3 passes, a decision mask in [`Scratch`]), static branch resolution (warp compaction), branch path unification; static dealing |
//! | [`ItemLoop`] (seed 004 fig. 1/4, seed 002 fig. 1c) | [`ItemLoopKernel`] | as written over any dealing; occlusion-query loop (passes repeated until a query word reads 0, state in [`Scratch`]) over static dealing |
//! | [`FactoredBranchLoop`] (seed 002 fig. 7) | [`FactoredBranchLoopKernel`] | as written, branch distribution, iteration delaying (via [`Unfactored`]); any dealing |
//! | [`SplitLoop`] (seed 001 fig. 5) | [`SplitLoopKernel`] | as written, loop splitting; static dealing |
//!
//! A [`Strategy`] is one [`Assignment`] (how lanes get items) times one [`PathSchedule`] (how
//! a warp schedules the divergent paths): [`Strategy::pairing`] says whether a program pairs
//! them, [`Kernel::passes`] whether a shape runs the result.
//!
//! Each technique's code lives in one module of [`strategies`], named as its paper names it
//! and opening with the paper, the mechanism and the effect measured on an H100 (the README's
//! table maps technique → module → paper → results page); each shape's kernel, baseline and
//! dispatch live in [`shapes`]. A workload builds its regions from its shape's row list
//! ([`LoopRegion`], [`TwoPathRegion`], …), so the shape numbers them.
//!
//! Any other pair is [`StrategyError::NotApplicable`]. Each kernel lists representative
//! strategies of its row, with the papers' parameters, as data in [`Kernel::STRATEGIES`]
//! (`<BranchLoopKernel<MyWorkload>>::STRATEGIES`), and [`Strategy`]'s `Display` prints a
//! strategy with its parameters (`iteration delaying, majority vote, threshold 8, stop when a
//! lane finishes`).
//!
//! # Example: one warp, a 50/50 branch, baseline vs. branch path unification
//!
//! A backend builds one [`WarpProgram`] per warp and steps it until it returns `false`.
//! Here a single [`ModelWarp`](reconverge_simt::ModelWarp) runs 32 threads × 4 items whose
//! decisions alternate in runs of two (A A B B A A …).
//!
//! ```
//! use reconverge_simt::{ModelWarp, Region};
//! use reconverge_transforms::{
//!     Kernel, NoTally, Sink, Strategy, TwoPath, TwoPathKernel, TwoPathRegion, TwoPathRegions,
//!     WarpProgram, WarpTask,
//! };
//!
//! const A: Region = TwoPathRegion::PathA.region("path A", 100);
//! const B: Region = TwoPathRegion::PathB.region("path B", 100);
//!
//! #[derive(Clone, Copy)]
//! struct Pairs;
//! impl TwoPath for Pairs {
//!     type Output = u32;
//!     fn regions(&self) -> TwoPathRegions {
//!         TwoPathRegions {
//!             decide: TwoPathRegion::Decide.region("decide", 1),
//!             path_a: A,
//!             path_b: B,
//!             item: TwoPathRegion::Item.region("item", 1),
//!         }
//!     }
//!     fn decide(&self, item: u32) -> bool { (item / 2) % 2 == 0 }
//!     fn path_a(&self, item: u32) -> u32 { item * 2 }
//!     fn path_b(&self, item: u32) -> u32 { item * 3 }
//! }
//!
//! struct Out(Vec<u32>);
//! impl Sink<u32> for Out {
//!     fn put(&mut self, item: u32, v: u32) { self.0[item as usize] = v; }
//! }
//!
//! let kernel = TwoPathKernel(Pairs);
//! let task = WarpTask::new(128, 1, 0, 32, 0); // 128 items, 1 block of 32 threads, warp 0
//! let mut efficiency = Vec::new();
//! let mut results = Vec::new();
//! for strategy in [Strategy::BASELINE, Strategy::branch_path_unification(4)] {
//!     assert_eq!(kernel.passes(&strategy), Ok(1));
//!     let mut warp = ModelWarp::new();
//!     let mut program = kernel.program(&warp, &strategy, 0, task, &[]).unwrap();
//!     let mut out = Out(vec![0; 128]);
//!     while program.step(&mut warp, &mut out, &mut NoTally) {}
//!     efficiency.push(warp.counters().simd_efficiency_of(&[A, B]));
//!     results.push(out.0);
//! }
//! // Same outputs: item i gives 2i on path A, 3i on path B.
//! assert_eq!(results[0], results[1]);
//! assert_eq!((results[0][5], results[0][6]), (10, 18)); // 5 takes A, 6 takes B
//! // Baseline: lane t runs items t, t + 32, … — half the lanes on each path, 50 %.
//! assert_eq!(efficiency[0], 0.5);
//! // Unification: thread t owns items 4t..4t+4, exactly two A and two B, so two rounds run
//! // path A and path B with every lane busy.
//! assert_eq!(efficiency[1], 1.0);
//! ```
//!
//! `tests/seed002_fig2.rs` checks iteration delaying against the exact counts (600 / 400 / 500
//! FMA) of seed 002, fig. 2.
#![no_std]

/// This package's source folder (the one with its `Cargo.toml`), for a build script that
/// compiles the package for the GPU in a device crate of its own
/// (`reconverge_gpu_build::PtxBuilder::template_path`): the same sources in a workspace and
/// from the registry.
pub const SOURCE_DIR: &str = env!("CARGO_MANIFEST_DIR");

pub mod composition;
pub mod io;
pub mod kernel;
pub mod scratch;
pub mod shape;
pub mod shapes;
pub mod strategies;
pub mod strategy;
pub mod strategy_id;

/// The former home of the per-warp programs, kept so that paths written against it still
/// resolve: kernels and baselines now live in [`shapes`], techniques in [`strategies`].
#[deprecated(note = "use `shapes` (kernels, baselines) or `strategies` (techniques)")]
pub mod programs {
    pub use crate::shapes::*;
    pub use crate::strategies::{Assignment, Lane, PassLoopProgram};
}

pub use composition::{CompositionError, PathSchedule};
pub use io::{Discard, NoTally, Sink, Tally, WarpTask};
pub use kernel::{Kernel, PassPlan, WarpProgram, check_pass, initial_block_counters};
pub use scratch::{DecisionMask, ItemSlots, Scratch};
pub use shape::{
    BranchLoop, FactoredBranchLoop, FactoredRegion, FactoredRegions, ItemLoop, ItemLoopRegion,
    ItemLoopRegions, LoopRegion, LoopRegions, SplitLoop, SplitLoopRegion, SplitLoopRegions,
    TwoPath, TwoPathRegion, TwoPathRegions,
};
pub use shapes::{
    BranchLoopKernel, BranchLoopKernelProgram, BranchLoopProgram, DealtProgram,
    FactoredBranchLoopKernel, FactoredBranchLoopProgram, ItemLoopKernel, ItemLoopProgram,
    SplitLoopKernel, SplitLoopProgram, TwoPathKernel, TwoPathProgram, Unfactored,
};
pub use strategies::iteration_delaying::{PAPER_MAJORITY_VOTE, PAPER_ROUND_ROBIN};
pub use strategies::{Assignment, Lane, PassLoopProgram};
pub use strategy::{Decision, Strategy, StrategyError, StrategyParameters};
pub use strategy_id::{ParseStrategyError, StrategyId};
