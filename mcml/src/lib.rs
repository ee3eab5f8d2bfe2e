//! MCML (Monte Carlo for multi-layered media) on reconverge: MCML's file formats and a CPU
//! driver around the `no_std` photon physics of [`reconverge_workloads::mcml`].
//!
//! - [`mci`]: the `.mci` input format (parser with typed, line-numbered errors, and printer).
//! - [`mco`]: the `.mco` output format (writer in MCML's layout, reader for `RAT`).
//! - [`builtin`]: named inputs (the GPU-MCML 7-layer skin model, a thick slab, and the two
//!   published validation media).
//! - [`run`](run()): the scalar CPU driver (rayon over chunks of photon indices).
//!
//! Results are bitwise identical for any thread count: photon `i` draws from its own Philox
//! stream and tallies are integers.

pub mod batch;
pub mod builtin;
mod cfmt;
pub mod limits;
pub mod mci;
pub mod mco;
mod on_backend;
mod result;
mod runner;

pub use mci::{McInput, MciError, MciErrorKind, OutputFormat, RunInput, RunLines};
pub use on_backend::{
    BATCH_PHOTONS, BackendRun, BackendRunError, run_on_backend, run_on_backend_streams,
};
pub use result::RunResult;
pub use runner::{CHUNK_PHOTONS, RunError, Streams, run, run_streams, run_with};
