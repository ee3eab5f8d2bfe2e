//! The scalar CPU driver: rayon over fixed chunks of photon indices.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use reconverge_workloads::mcml::{McmlFloat, ParamError, SliceTally, simulate_photon};

use crate::limits::{LimitError, check_run, zeroed_tally};
use crate::{RunInput, RunResult};

/// Photons per work chunk. Fixed (not derived from the thread count) so the work split, and
/// with it nothing at all, depends on the machine; each chunk adds into its worker's tally.
pub const CHUNK_PHOTONS: u64 = 1024;

/// Why a run could not start.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The input breaks MCML's rules.
    #[error("invalid input: {0}")]
    Params(ParamError),
    /// The input cannot be run in this float type or in memory (see [`crate::limits`]).
    #[error("cannot run: {0}")]
    Limit(#[from] LimitError),
}

/// Which random streams a run draws: photon `i` of the run uses stream
/// `(seed, first_photon + i)`.
///
/// Runs of one `.mci` file continue one sequence of streams, as MCML continues one random
/// stream across its runs: run `k` starts at the sum of the photon counts of runs `0..k`
/// ([`crate::batch::stream_offsets`]), so its photons are independent of every earlier run's
/// and a run's result depends only on the seed and the runs before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Streams {
    /// The seed (the key of the Philox block that seeds each photon's MWC64X stream).
    pub seed: u64,
    /// Stream of the run's first photon.
    pub first_photon: u64,
}

impl Streams {
    /// Streams `(seed, 0..)`: a run on its own.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            first_photon: 0,
        }
    }
}

/// Runs `photons` photons of `input` in f64 with random streams keyed by `seed`.
///
/// Photon `i` uses stream `(seed, i)` and tallies are integers, so the result is bitwise the
/// same for any number of rayon threads.
pub fn run(input: &RunInput, photons: u64, seed: u64) -> Result<RunResult, RunError> {
    run_with::<f64>(input, photons, seed, None)
}

/// [`run`] in float type `F`, calling `progress(photons_done)` after each chunk.
pub fn run_with<F: McmlFloat>(
    input: &RunInput,
    photons: u64,
    seed: u64,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<RunResult, RunError> {
    run_streams::<F>(input, photons, Streams::new(seed), progress)
}

/// [`run_with`] on the streams `streams` (a later run of an `.mci` file continues the
/// earlier runs' streams). The input is checked ([`crate::limits::check_run`]) before any
/// work.
pub fn run_streams<F: McmlFloat>(
    input: &RunInput,
    photons: u64,
    streams: Streams,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<RunResult, RunError> {
    let mut checked = input.clone();
    checked.photons = photons;
    check_run::<F>(&checked)?;
    let params = input.params::<F>().map_err(RunError::Params)?;
    let layout = params.layout();
    let len = layout.len();
    // The limits bound `len`; this turns an allocation failure into an error as well.
    drop(zeroed_tally(layout)?);
    let Streams { seed, first_photon } = streams;
    let chunks = photons.div_ceil(CHUNK_PHOTONS);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let tally = (0..chunks)
        .into_par_iter()
        .fold(
            || vec![0u64; len],
            |mut acc, c| {
                let first = c * CHUNK_PHOTONS;
                let last = (first + CHUNK_PHOTONS).min(photons);
                let mut t = SliceTally {
                    layout,
                    data: &mut acc,
                };
                for i in first..last {
                    simulate_photon(&params, seed, first_photon.wrapping_add(i), &mut t);
                }
                let total = done.fetch_add(last - first, Ordering::Relaxed) + (last - first);
                if let Some(p) = progress {
                    p(total);
                }
                acc
            },
        )
        .reduce(
            || vec![0u64; len],
            |mut a, b| {
                crate::add_tally(&mut a, &b);
                a
            },
        );
    let elapsed = start.elapsed();
    Ok(RunResult::of_run(checked, &params, seed, tally, elapsed))
}
