//! The per-warp programs of the code shapes of [`crate::shape`], one module per shape: each
//! holds the shape's [`Kernel`](crate::Kernel), its baseline, and the dispatch from a
//! [`Strategy`](crate::Strategy) to the program of [`crate::strategies`] that runs it.

pub mod branch_loop;
pub mod factored;
pub mod item_loop;
pub mod split_loop;
pub mod two_path;

pub use branch_loop::{BranchLoopKernel, BranchLoopKernelProgram, BranchLoopProgram};
pub use factored::{
    DirectProgram, FactoredBranchLoopKernel, FactoredBranchLoopProgram, Unfactored,
};
pub use item_loop::{DealtProgram, ItemLoopKernel, ItemLoopProgram};
pub use split_loop::{SplitLoopKernel, SplitLoopProgram};
pub use two_path::{TwoPathBaseline, TwoPathKernel, TwoPathProgram};
