//! Speculative reconvergence: Damani, Johnson, Stephenson, Keckler, Yan, McKeown and Giroux,
//! "Speculative Reconvergence for Improved SIMT Efficiency" (CGO 2020).
//!
//! In a loop whose expensive block is reached by a warp's lanes in *different* iterations
//! (each lane hits it every few iterations, at its own phase), the code as written issues the
//! block once per iteration in which any lane reaches it, each time with few lanes busy. The
//! paper moves the reconvergence point: a lane that reaches the block waits at a convergence
//! point placed before it, while the other lanes go on with their cheap iterations, until
//! enough lanes wait; then the block runs once for all of them. Here the block runs when at
//! least `threshold` lanes wait, when the oldest wait has lasted `max_wait` iterations (the
//! paper's bound, so that lanes are not starved and a warp whose lanes rarely meet still
//! progresses), or when no lane could progress otherwise (every live lane waits). The lanes
//! not waiting run their cheap iteration in every warp iteration, the block's issue included.
//!
//! How it differs from seed 002's iteration delaying ([`crate::strategies::iteration_delaying`]):
//! iteration delaying picks *one path per iteration* for the whole warp (majority vote, round
//! robin), so that when the taken path runs every lane wanting the other path idles, and a
//! lane's condition is pending for both paths alike. Speculative reconvergence treats the two
//! paths asymmetrically: the cheap path never waits, only lanes at the expensive block do, and
//! the block is released by a count of waiting lanes and a bound on waiting iterations rather
//! than a per-iteration vote on which path runs. The closest of seed 002's neighbours is this
//! crate's cost-balanced decision, which releases the rare path by accumulated waiting cost;
//! speculative reconvergence releases it by how many lanes it would run with (the block's
//! useful lanes per issue, the paper's SIMT efficiency) and bounds each lane's wait.
//!
//! It is a [`crate::PathSchedule`] of each thread's own loop, so it composes with every
//! [`crate::Assignment`] as iteration delaying does: a lane whose item finishes takes the next
//! one (whoever deals it) and the warp's vote is over the lanes that hold an item. Each item
//! runs its iterations in the same order as in the baseline, so outputs are the baseline's.
//!
//! The CUDA backend runs it as each thread's loop with a warp vote per iteration
//! ([`crate::Kernel::speculative_items`], through the same `speculative_paths` rule as the
//! warp program). Measured on an H200 (`docs/results/techniques/`): on blocks every 8
//! iterations at a per-item phase, 3.15x the best plain kernel at threshold 24 and 2.83x at 16,
//! 0.99x the time of the hand-written CUDA C++ twin at threshold 24 (0.8764 against 0.8821 ms); with
//! every item at phase 0 it loses (0.73x): the votes cost and there is nothing to gather. On
//! MCML's photon loop (lanes waiting at a face, threshold 16, at most 4 steps;
//! `docs/results/mcml/h200-wave10/`) it gathers the boundary path, 23.5 active threads per warp
//! instruction against 20.8, but a face is met in under 4 % of steps, so lanes wait long and the
//! loop's votes cost more than the lanes gained: 0.96x the per-thread loop on skin, 0.88x on the
//! slab.

use reconverge_simt::LaneMask;

use crate::strategy::StrategyError;

/// This crate's default numbers (the paper tunes its threshold per kernel): the block runs
/// with half a warp waiting, or once a lane has waited 8 iterations.
pub const DEFAULT_THRESHOLD: u32 = 16;
/// See [`DEFAULT_THRESHOLD`].
pub const DEFAULT_MAX_WAIT: u32 = 8;

/// Rejects numbers under which the schedule would never release a waiting lane on its own:
/// a threshold of 0 runs the block always (the code as written, allowed) but a bound of 0
/// would never let a lane wait, so it is refused to keep ids one-to-one with behaviour.
pub(crate) fn check(threshold: u32, max_wait: u32) -> Result<(), StrategyError> {
    if threshold == 0 || max_wait == 0 {
        return Err(StrategyError::InvalidParameter {
            name: "threshold, max_wait",
            requirement: "both at least 1 (0 would never let a lane wait)",
        });
    }
    Ok(())
}

/// What a warp carries between iterations (the same in every lane).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpecState {
    /// Iterations the oldest waiting lane has waited (0 when no lane waits).
    waited: u32,
}

/// The lanes that run the expensive block and the cheap path this iteration, given the lanes
/// `live` that hold an item and those of them that `want` (are at) the block. The cheap path
/// runs for every live lane not at the block; the block runs for every waiting lane once
/// `threshold` of them wait, once the oldest has waited `max_wait` iterations, or when every
/// live lane waits. Never an iteration in which no live lane runs. A function of the votes
/// alone, so that the warp program and the per-thread loop run the same schedule.
#[inline(always)]
pub(crate) fn speculative_paths(
    threshold: u32,
    max_wait: u32,
    state: &mut SpecState,
    live: LaneMask,
    want: LaneMask,
) -> (LaneMask, LaneMask) {
    let others = live & !want;
    if want != 0 && (others == 0 || want.count_ones() >= threshold || state.waited >= max_wait) {
        state.waited = 0;
        (want, others)
    } else {
        state.waited = if want != 0 {
            state.waited.saturating_add(1)
        } else {
            0
        };
        (0, others)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_waits_for_the_threshold_or_the_bound() {
        let live = 0xffff_ffff;
        let mut s = SpecState::default();
        // Two lanes at the block, threshold 3, bound 2: they wait two iterations, then run.
        assert_eq!(
            speculative_paths(3, 2, &mut s, live, 0b11),
            (0, live & !0b11)
        );
        assert_eq!(
            speculative_paths(3, 2, &mut s, live, 0b11),
            (0, live & !0b11)
        );
        assert_eq!(
            speculative_paths(3, 2, &mut s, live, 0b11),
            (0b11, live & !0b11)
        );
        // A third lane arrives at once: the threshold releases the block without waiting.
        assert_eq!(
            speculative_paths(3, 2, &mut s, live, 0b111),
            (0b111, live & !0b111)
        );
        // Every live lane waits: the block runs, nobody else could progress.
        assert_eq!(speculative_paths(32, 100, &mut s, 0b101, 0b101), (0b101, 0));
        // Nobody at the block: the cheap path alone, and no wait is counted.
        assert_eq!(speculative_paths(3, 2, &mut s, live, 0), (0, live));
    }

    #[test]
    fn zero_numbers_are_refused() {
        assert!(check(0, 1).is_err());
        assert!(check(1, 0).is_err());
        assert!(check(16, 8).is_ok());
    }
}
