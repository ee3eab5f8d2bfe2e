//! MCML (Monte Carlo for multi-layered media) on reconverge: MCML's file formats and a CPU
//! driver around the `no_std` photon physics of [`reconverge_workloads::mcml`].
//!
//! - [`mci`]: the `.mci` input format (parser with typed, line-numbered errors, and printer).
//! - [`mco`]: the `.mco` output format (writer in MCML's layout, reader for `RAT`).
//! - [`builtin`]: named inputs (the GPU-MCML 7-layer skin model, a thick slab, and the two
//!   published validation media).
//! - [`run`](run()): the scalar CPU driver (rayon over chunks of photon indices).
//! - [`limits`]: what makes an input impossible to run (float range, memory, photons that
//!   would not progress), checked before any work.
//! - [`finite_beam`]: responses to Gaussian and flat beams, by CONV's convolution of a
//!   pencil-beam run and by sampling the beam inside the simulation.
//! - `plot` (feature `plot`): Rd(r), Tt(r), A(z) and the fluence map Φ(r, z) of a run as SVG
//!   and PNG pictures (the `mcml` program's `--plot DIR`).
//! - [`batch`]: the runs of an `.mci` file, every input and output file checked before the
//!   first photon, each `.mco` written as soon as its run is done.
//!
//! Results are bitwise identical for any thread count: photon `i` draws from its own random
//! stream and tallies are integers.
//!
//! # Seeds across runs
//!
//! Photon `i` of a run draws from random stream `(seed, first_photon + i)` ([`Streams`]). The
//! runs of one `.mci` file continue one sequence, as MCML continues one random stream across
//! its runs: run `k` starts at the photons of the runs before it together
//! ([`batch::stream_offsets`]). Repeated runs of one input are independent estimates, and the
//! runs of a file together equal, bit for bit, one run of all their photons.
//!
//! # Validation, and MCML's `sample.mci`
//!
//! The tests compare against the MCML manual's published values and against adding-doubling
//! (`iadpython` 0.5.3, 48 quadrature points) for seven slabs with mismatched boundaries. On the
//! first run of MCML's own `sample.mci`, this port's Tt differs from MCML 1.2's by 7.8 standard
//! errors at 5 × 10⁷ photons; the top layer alone (n 1.37, µa 1, µs 100 /cm, g 0.9, d 0.2 cm,
//! in air) carries the difference. Adding-doubling gives R 0.279874, T 0.262641 for it; this
//! port gives 0.279881 ± 0.000025 / 0.262576 ± 0.000032 and agrees; MCML 1.2 gives
//! 0.279456 / 0.263658 ± 0.000049, about 0.001 off in T. See the crate's README.

pub mod batch;
pub mod builtin;
mod cfmt;
pub mod checkpoint;
pub mod distributed;
pub mod finite_beam;
pub mod limits;
pub mod mci;
pub mod mco;
pub mod mco_file;
mod on_backend;
#[cfg(feature = "plot")]
pub mod plot;
mod result;
mod runner;

pub use mci::{McInput, MciError, MciErrorKind, OutputFormat, RunInput, RunLines};
pub use on_backend::{
    BATCH_PHOTONS, BackendRun, BackendRunError, Batching, GPU_BLOCK_SIZES, RunOptions,
    gpu_dynamic_shared_bytes, gpu_launch, gpu_launch_for, run_on_backend, run_on_backend_streams,
};
pub use result::{RunResult, add_tally};
pub use runner::{CHUNK_PHOTONS, RunError, Streams, run, run_streams, run_with};
