//! The per-warp programs, one module per workload shape.

pub mod branch_loop;
mod deal;

pub use branch_loop::{BranchLoopKernel, BranchLoopProgram};
pub use deal::{Assignment, Lane};
