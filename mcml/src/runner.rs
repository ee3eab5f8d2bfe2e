//! The scalar CPU driver: rayon over fixed chunks of photon indices.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use reconverge_workloads::mcml::{McmlFloat, ParamError, SliceTally, simulate_photon};

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
    let params = input.params::<F>().map_err(RunError::Params)?;
    let layout = params.layout();
    let len = layout.len();
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
                    simulate_photon(&params, seed, i, &mut t);
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
                for (x, y) in a.iter_mut().zip(&b) {
                    *x = x.wrapping_add(*y);
                }
                a
            },
        );
    let elapsed = start.elapsed();
    let mut input = input.clone();
    input.photons = photons;
    Ok(RunResult::from_tally(
        input,
        photons,
        seed,
        params.rsp.as_f64(),
        layout,
        tally,
        elapsed,
    ))
}
