//! Every published branch-divergence strategy, written once over [`reconverge_simt::Warp`].
//!
//! A workload implements one of the shape traits of [`shape`] (a loop with a divergent branch,
//! a per-item two-path branch, …), is wrapped in that shape's [`Kernel`] (for instance
//! [`BranchLoopKernel`]), and a backend runs it under any [`Strategy`] the shape supports.
//! Every strategy computes exactly the outputs of [`Strategy::Baseline`]; what changes is how
//! many instructions the warp issues and how many of its lanes do useful work.
//!
//! # Example: iteration delaying on the three threads of seed 002, fig. 2
//!
//! See `tests/seed002_fig2.rs` for the exact counts (600 / 400 / 500 FMA) the paper reports.
#![no_std]

pub mod io;
pub mod kernel;
pub mod programs;
pub mod shape;
pub mod strategy;

pub use io::{Discard, NoTally, Sink, Tally, WarpTask};
pub use kernel::{Kernel, WarpProgram, initial_block_counters};
pub use programs::{
    Assignment, BranchLoopKernel, BranchLoopProgram, FactoredBranchLoopKernel,
    FactoredBranchLoopProgram, ItemLoopKernel, ItemLoopProgram, Lane, SplitLoopKernel,
    SplitLoopProgram, TwoPathKernel, TwoPathProgram, Unfactored,
};
pub use shape::{
    BranchLoop, FactoredBranchLoop, FactoredRegions, ItemLoop, ItemLoopRegions, LoopRegions,
    SplitLoop, SplitLoopRegions, TwoPath, TwoPathRegions,
};
pub use strategy::{Decision, Strategy, StrategyError};
