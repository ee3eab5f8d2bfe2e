//! The per-warp programs, one module per workload shape.

pub mod branch_loop;
mod deal;
pub mod factored;
pub mod item_loop;
pub mod pass_loop;
pub mod split_loop;
pub mod two_path;

use crate::strategy::Decision;

/// Seed 002's majority vote with the threshold of its table 1's best setting (8 of 32 lanes)
/// and the anti-starvation stop, shared by the shapes that run iteration delaying.
pub(crate) const PAPER_MAJORITY_VOTE: Decision = Decision::MajorityVote {
    threshold: 8,
    stop_when_a_lane_finishes: true,
};

/// Seed 002 fig. 5b's round robin: three else iterations, then one if iteration (a 75 %
/// cycle), with idle removal.
pub(crate) const PAPER_ROUND_ROBIN: Decision = Decision::RoundRobin {
    num_zeros: 3,
    num_ones: 1,
    remove_idle: true,
};

pub use branch_loop::{BranchLoopKernel, BranchLoopProgram};
pub use deal::{Assignment, Lane};
pub use factored::{FactoredBranchLoopKernel, FactoredBranchLoopProgram, Unfactored};
pub use item_loop::{DealtProgram, ItemLoopKernel, ItemLoopProgram};
pub use pass_loop::PassLoopProgram;
pub use split_loop::{SplitLoopKernel, SplitLoopProgram};
pub use two_path::{TwoPathKernel, TwoPathProgram};
