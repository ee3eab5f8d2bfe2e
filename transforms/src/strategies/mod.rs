//! One module per published technique, named as its paper names it. Each opens with the paper,
//! the mechanism and the effect measured on this project's H100 (`docs/results/`); the table
//! of the transforms README maps technique → module → paper → results page.
//!
//! A technique's code and its per-lane and per-warp state live in its module; the shape it
//! applies to ([`crate::shapes`]) picks it from the [`Strategy`](crate::Strategy).

pub mod branch_distribution;
pub mod branch_path_unification;
pub mod branch_splitting;
pub mod collaborative_context_collection;
pub mod dynamic_work_assignment;
pub mod iteration_delaying;
pub mod loop_splitting;
pub mod occlusion_query_loop;
pub mod predication;
pub mod speculative_reconvergence;
pub mod static_branch_resolution;
pub mod thread_data_remapping;
pub mod z_cull_masking;

pub use dynamic_work_assignment::{Assignment, Lane};
pub use occlusion_query_loop::PassLoopProgram;
