//! The advisor's held-out set (issue 27): workloads written to check the advisor's
//! predictions on code it was not developed on. The advisor's model and its calibration were
//! built on the papers' workloads only; these were written before the model was evaluated and
//! were run through it once, to score it (`docs/results/advisor/`). Do not tune the advisor on
//! them: a model fitted here says nothing about the next user's kernel.
//!
//! | workload | shape | items | what diverges |
//! |---|---|---|---|
//! | [`HEAVY_TAIL`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`HEAVY_TAIL_ITEMS`] = 2^20 | Pareto trip counts (4 to 4096, `P(trips > t) = 4 / t`); a 25 % costly branch |
//! | [`COST_MAP`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`COST_MAP_ITEMS`] = 1024 · 1024 | an image: iterations per pixel from smooth bumps (2 to about 600), a costly branch taken more often in hot regions |
//! | [`VARIABLE_TRIPS`] | [`ItemLoop`](reconverge_transforms::ItemLoop) | [`VARIABLE_TRIPS_ITEMS`] = 2^20 | bimodal trips: 92 % of items 1-4, 8 % 40-64 |
//! | [`BISECT`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`BISECT_ITEMS`] = 2^20 | a binary search per item over a range of 2^2 to 2^16 (geometric: half at the smallest), its branch either way |
//! | [`ESCAPE_WALK`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`ESCAPE_WALK_ITEMS`] = 2^20 | a random walk per item until it leaves a disc whose radius (4 to 32) is shared by bands of 16,384 items; an eighth of the steps costly |
//! | [`SUNSET_MAP`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`SUNSET_MAP_ITEMS`] = 2048 · 512 | an image whose iterations rise toward the bottom rows (4 to 304, quadratic in the row) and along a diagonal ridge (up to 160 more: 4 to 463 in all); a costly branch taken up to 50 % on the ridge, never off it |
//! | [`GEOMETRIC_JOBS`] | [`ItemLoop`](reconverge_transforms::ItemLoop) | [`GEOMETRIC_JOBS_ITEMS`] = 2^20 | geometric (memoryless) trips: another trip with probability 0.95 after each, mean 20, at most 512 |
//! | [`TWO_PATH_RUNS`] | [`TwoPath`](reconverge_transforms::TwoPath) | [`TWO_PATH_RUNS_ITEMS`] = 2^20 | a heavy path in runs of 64 items (30 % of runs), 10 % of items flipped |
//!
//! Every computation is integer arithmetic (`wrapping_mul`, shifts, xors): every backend gives
//! the same bits.

pub mod bisect;
pub mod cost_map;
pub mod escape_walk;
pub mod geometric_jobs;
pub mod heavy_tail;
pub mod sunset_map;
pub mod two_path_runs;
pub mod variable_trips;

pub use bisect::{Bisect, BisectState};
pub use cost_map::{CostMap, CostMapState};
pub use escape_walk::{EscapeWalk, EscapeWalkState};
pub use geometric_jobs::{GeometricJobs, GeometricJobsState};
pub use heavy_tail::{HeavyTail, HeavyTailState};
pub use sunset_map::{SunsetMap, SunsetMapState};
pub use two_path_runs::TwoPathRuns;
pub use variable_trips::{VariableTrips, VariableTripsState};

/// Instructions of one [`mix`]: three shift-xors and two multiplies (`IMAD` counts as one).
pub const MIX_INSTRUCTIONS: u32 = 8;

/// A 32-bit integer hash (Chris Wellons' `lowbias32`): each output bit depends on every input
/// bit, so nearby items get unrelated values.
#[inline(always)]
pub const fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// `rounds` rounds of `x = mix(x + 1)`: the costly path of the loops whose branch runs extra
/// hash rounds ([`HeavyTail`], [`EscapeWalk`], [`SunsetMap`]).
#[inline(always)]
pub fn mix_rounds(mut x: u32, rounds: u32) -> u32 {
    for _ in 0..rounds {
        x = mix(x.wrapping_add(1));
    }
    x
}

/// Instructions of [`mix_rounds`]: each round a [`mix`], the add and the loop's count.
pub const fn mix_rounds_instructions(rounds: u32) -> u32 {
    rounds.saturating_mul(MIX_INSTRUCTIONS + 2)
}

/// `mix` of an item under a seed.
#[inline(always)]
pub const fn item_hash(seed: u32, item: u32) -> u32 {
    mix(item ^ mix(seed))
}

/// The heavy-tailed branch loop at its held-out setting.
pub const HEAVY_TAIL: HeavyTail = HeavyTail {
    min_trips: 4,
    max_trips: 4096,
    heavy_rounds: 6,
    seed: 27,
};
/// Items of [`HEAVY_TAIL`].
pub const HEAVY_TAIL_ITEMS: u32 = 1 << 20;

/// The image-like cost map at its held-out setting.
pub const COST_MAP: CostMap = CostMap {
    width: 1024,
    height: 1024,
    base_iterations: 2,
    peak_iterations: 600,
    seed: 27,
};
/// Items of [`COST_MAP`]: one per pixel.
pub const COST_MAP_ITEMS: u32 = 1024 * 1024;

/// The bimodal item loop at its held-out setting.
pub const VARIABLE_TRIPS: VariableTrips = VariableTrips {
    long_percent: 8,
    short_max: 4,
    long_min: 40,
    long_max: 64,
    seed: 27,
};
/// Items of [`VARIABLE_TRIPS`].
pub const VARIABLE_TRIPS_ITEMS: u32 = 1 << 20;

/// The two-path kernel with runs at its held-out setting.
pub const TWO_PATH_RUNS: TwoPathRuns = TwoPathRuns {
    run_length: 64,
    heavy_percent: 30,
    flip_percent: 10,
    heavy_rounds: 24,
    seed: 27,
};
/// Items of [`TWO_PATH_RUNS`].
pub const TWO_PATH_RUNS_ITEMS: u32 = 1 << 20;

/// The per-item binary search at its held-out setting: ranges of 2^2 to 2^16 (3 to 17
/// iterations), half the items at the smallest.
pub const BISECT: Bisect = Bisect {
    min_log: 2,
    step_log: 2,
    levels: 7,
    seed: 27,
};
/// Items of [`BISECT`].
pub const BISECT_ITEMS: u32 = 1 << 20;

/// The escaping random walk at its held-out setting.
pub const ESCAPE_WALK: EscapeWalk = EscapeWalk {
    min_radius: 4,
    band_items: 16384,
    cap_factor: 8,
    scatter_rounds: 5,
    seed: 61,
};
/// Items of [`ESCAPE_WALK`].
pub const ESCAPE_WALK_ITEMS: u32 = 1 << 20;

/// The bottom-heavy image with a diagonal ridge at its held-out setting.
pub const SUNSET_MAP: SunsetMap = SunsetMap {
    width: 2048,
    height: 512,
    base_iterations: 4,
    peak_iterations: 300,
    ridge_iterations: 160,
    ridge_log: 7,
    glow_rounds: 5,
    seed: 27,
};
/// Items of [`SUNSET_MAP`]: one per pixel.
pub const SUNSET_MAP_ITEMS: u32 = 2048 * 512;

/// The geometric item loop at its held-out setting: p = 62,259 / 65,536 ≈ 0.95.
pub const GEOMETRIC_JOBS: GeometricJobs = GeometricJobs {
    continue_q16: 62259,
    max_trips: 512,
    seed: 27,
};
/// Items of [`GEOMETRIC_JOBS`].
pub const GEOMETRIC_JOBS_ITEMS: u32 = 1 << 20;

/// Item `item` of a branch loop stepped as the scalar loop does, with what a test checks
/// besides the output: the final state, the iterations and how many took the branch.
#[cfg(test)]
pub(crate) fn step_item<L: reconverge_transforms::BranchLoop>(
    w: &L,
    item: u32,
) -> (L::State, u32, u32) {
    let mut t = reconverge_transforms::NoTally;
    let (mut s, mut iterations, mut taken) = (w.start(item), 0, 0);
    while w.running(&s) {
        if w.condition(&mut s) {
            taken += 1;
            w.taken(&mut s, &mut t);
        } else {
            w.not_taken(&mut s, &mut t);
        }
        w.after_branch(&mut s, &mut t);
        iterations += 1;
    }
    (s, iterations, taken)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_matches_lowbias32_reference_values() {
        // lowbias32 as published (Wellons, "Hash Prospector", 2018): computed by hand from
        // its five steps for 0 and 1 with the constants 0x7feb352d and 0x846ca68b.
        assert_eq!(mix(0), 0);
        let mut x: u64 = 1;
        x ^= x >> 16;
        x = (x * 0x7feb_352d) & 0xFFFF_FFFF;
        x ^= x >> 15;
        x = (x * 0x846c_a68b) & 0xFFFF_FFFF;
        x ^= x >> 16;
        assert_eq!(u64::from(mix(1)), x);
        assert_ne!(mix(1), mix(2));
    }
}
