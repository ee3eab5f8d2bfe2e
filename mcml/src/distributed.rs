//! One run over several processes: each takes a contiguous share of the photons and the
//! integer tallies are summed, so any number of processes gives the tallies of one process, bit
//! for bit (photon `i` draws from stream `(seed, first_photon + i)` wherever it runs).
//!
//! [`share`] is the split; with feature `mpi`, `combine` sums the shares' tallies over an MPI
//! communicator (`MPI_Reduce` with `MPI_SUM` on `u64`, through the `mpi` crate, rsmpi) and
//! rebuilds the whole run's result on rank 0. Processes are started by `mpirun`; see the
//! `mcml` example (`--features mpi`).

use crate::{RunInput, Streams};

/// The photons of process `rank` of `ranks` in a run of `photons`: the first photon's index
/// within the run and how many. Shares are contiguous, cover the run exactly once, and differ
/// in size by at most one photon (the first `photons % ranks` processes take one more).
pub fn share(photons: u64, rank: u32, ranks: u32) -> (u64, u64) {
    let ranks = u64::from(ranks.max(1));
    let rank = u64::from(rank).min(ranks - 1);
    let (base, extra) = (photons / ranks, photons % ranks);
    let start = rank * base + rank.min(extra);
    (start, base + u64::from(rank < extra))
}

/// `input` and `streams` restricted to the share of process `rank` of `ranks`.
pub fn share_of_run(
    input: &RunInput,
    streams: Streams,
    rank: u32,
    ranks: u32,
) -> (RunInput, Streams) {
    let (start, count) = share(input.photons, rank, ranks);
    let mut mine = input.clone();
    mine.photons = count;
    (
        mine,
        Streams {
            seed: streams.seed,
            first_photon: streams.first_photon.wrapping_add(start),
        },
    )
}

#[cfg(feature = "mpi")]
pub use with_mpi::combine;

#[cfg(feature = "mpi")]
mod with_mpi {
    use mpi::collective::SystemOperation;
    use mpi::traits::{Communicator, Root};

    use crate::{RunInput, RunResult};

    /// Sums the tallies of every process's share (`part`, this process's result) over `world`
    /// and returns, on rank 0, the result of the whole run `input` (its photon count, `part`'s
    /// seed, specular reflectance and layout); `None` on the other ranks. Every rank must call
    /// it, with tallies of one layout.
    pub fn combine<C: Communicator>(
        world: &C,
        input: &RunInput,
        part: &RunResult,
    ) -> Option<RunResult> {
        let root = world.process_at_rank(0);
        if world.rank() != 0 {
            root.reduce_into(&part.tally[..], SystemOperation::sum());
            return None;
        }
        let mut tally = vec![0u64; part.tally.len()];
        root.reduce_into_root(&part.tally[..], &mut tally[..], SystemOperation::sum());
        Some(RunResult::from_tally(
            input.clone(),
            input.photons,
            part.seed,
            part.rsp,
            part.layout,
            tally,
            part.elapsed,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every photon in exactly one share, shares contiguous and balanced, for many splits.
    #[test]
    fn shares_cover_the_run_once() {
        for photons in [0u64, 1, 2, 7, 100, 1_000_003] {
            for ranks in 1u32..=9 {
                let mut next = 0;
                let sizes: Vec<u64> = (0..ranks)
                    .map(|r| {
                        let (start, count) = share(photons, r, ranks);
                        assert_eq!(start, next, "{photons} over {ranks}: rank {r}");
                        next = start + count;
                        count
                    })
                    .collect();
                assert_eq!(next, photons);
                let (min, max) = (sizes.iter().min(), sizes.iter().max());
                assert!(max.zip(min).is_some_and(|(a, b)| a - b <= 1), "{sizes:?}");
            }
        }
        assert_eq!(share(10, 5, 0), (0, 10), "no ranks counts as one");
    }

    /// Running the shares one after another on the CPU gives the one-process tallies.
    #[test]
    fn shares_run_separately_sum_to_the_whole_run() {
        let mut input = crate::builtin::builtin("vandehulst").expect("built-in");
        input.photons = 3_001;
        let streams = Streams::new(11);
        let whole =
            crate::run_streams::<f32>(&input, input.photons, streams, None).expect("whole run");
        let mut sum = vec![0u64; whole.tally.len()];
        for rank in 0..3 {
            let (mine, s) = share_of_run(&input, streams, rank, 3);
            let part = crate::run_streams::<f32>(&mine, mine.photons, s, None).expect("share");
            crate::add_tally(&mut sum, &part.tally);
        }
        assert_eq!(sum, whole.tally);
    }
}
