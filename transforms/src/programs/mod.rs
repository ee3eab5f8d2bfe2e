//! The per-warp programs, one module per workload shape.

pub mod branch_loop;
mod deal;
pub mod factored;
pub mod item_loop;
pub mod pass_loop;
pub mod split_loop;
pub mod two_path;

pub use branch_loop::{BranchLoopKernel, BranchLoopProgram};
pub use deal::{Assignment, Lane};
pub use factored::{FactoredBranchLoopKernel, FactoredBranchLoopProgram, Unfactored};
pub use item_loop::{DealtProgram, ItemLoopKernel, ItemLoopProgram};
pub use pass_loop::PassLoopProgram;
pub use split_loop::{SplitLoopKernel, SplitLoopProgram};
pub use two_path::{TwoPathKernel, TwoPathProgram};
