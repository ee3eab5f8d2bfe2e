//! Reference workloads: computations the divergence strategies were *not* developed on, used
//! to compare reconverge against plain hand-written kernels (`references/cuda/plain.cu` at the
//! workspace root computes the same outputs, bit for bit, with one thread per item, a
//! grid-stride loop and persistent threads on a global counter).
//!
//! The comparison's five workloads, each with its item count:
//!
//! | workload | shape | items | what diverges |
//! |---|---|---|---|
//! | [`COLLATZ`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`COLLATZ_ITEMS`] = 2^20 | odd/even steps; 0 to 524 steps per item |
//! | [`ESCAPE_TIME`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`ESCAPE_TIME_ITEMS`] = 1024 · 768 | 1 to 512 iterations per pixel; a rare (≈1.5 %) 80-instruction refinement |
//! | [`SYN_IT_DELAY`] | [`BranchLoop`](reconverge_transforms::BranchLoop) | [`SYN_IT_DELAY_ITEMS`] = 2^18 | two 160-instruction paths taken with probability ½ |
//! | [`DYNAMIC_WORK`] | [`ItemLoop`](reconverge_transforms::ItemLoop) | [`DYNAMIC_WORK_ITEMS`] = 2^18 | 1 to 32 trips of 64 steps per item |
//! | the walk | [`BranchLoop`](reconverge_transforms::BranchLoop) | 65,536 | a 48-instruction reaction inside the trap; walks of different lengths |
//!
//! The walk is a user's workload and lives in the library of its own crate,
//! `examples/user-workload` (`Walk { max_steps: 400, trap: 3, escape: 24, seed: 7 }` over 65,536 items); this crate
//! does not depend on it.
//!
//! [`SYN_IT_DELAY`] and [`DYNAMIC_WORK`] are the papers' synthetic benchmarks at one of their
//! settings (seed 002's fig. 10 at `r = 8`, `f = 50 %`; seed 004's table 1 at LOOP_NUM 64);
//! the struct literals here equal what their constructors return (a test checks it), so the
//! settings are usable in `const` context.

pub mod collatz;
pub mod escape_time;

pub use collatz::{Collatz, CollatzState};
pub use escape_time::{EscapeState, EscapeTime};

use crate::synthetic::{DynamicWork, Q16, SynItDelay};

/// The Collatz loop of `i + 1` for every item `i` below [`COLLATZ_ITEMS`]. No sequence
/// starting at or below 2^20 takes more than 524 steps (837,799's), so the limit of 1000
/// steps never cuts one short: the outputs are the true step counts.
pub const COLLATZ: Collatz = Collatz { max_steps: 1000 };
/// Items of [`COLLATZ`]: 2^20 (start values 1 to 1,048,576).
pub const COLLATZ_ITEMS: u32 = 1 << 20;

/// Width of [`ESCAPE_TIME`]'s image.
pub const ESCAPE_TIME_WIDTH: u32 = 1024;
/// Height of [`ESCAPE_TIME`]'s image.
pub const ESCAPE_TIME_HEIGHT: u32 = 768;
/// The Mandelbrot set over `[-2.5, 1.5) × [-1.5, 1.5)` at 256 pixels per unit (so `c = 0`,
/// `c = -1` and `c = 1` are pixel centres), 512 iterations at most, the costly refinement
/// while `0.24 < |z|² <= 0.25`. Pixels cost 1 to 512 iterations (12.6 % of them reach 512);
/// about 1.5 % of all iterations take the costly branch, most of them in the few thousand
/// pixels just inside the main cardioid's edge, which take it in almost every iteration.
pub const ESCAPE_TIME: EscapeTime = EscapeTime {
    width: ESCAPE_TIME_WIDTH,
    height: ESCAPE_TIME_HEIGHT,
    max_iter: 512,
    x0: -2.5,
    y0: -1.5,
    step: 1.0 / 256.0,
    band_lo: 0.24,
    band_hi: 0.25,
};
/// Items of [`ESCAPE_TIME`]: one per pixel, 1024 · 768 = 786,432.
pub const ESCAPE_TIME_ITEMS: u32 = ESCAPE_TIME_WIDTH * ESCAPE_TIME_HEIGHT;

/// SYN-ITDELAY as seed 002's fig. 10 runs it at branch ratio `r = 8` (`N = 80` FMA pairs,
/// 160 instructions per path), branch frequency `f = 50 %`, 32 iterations per item, and the
/// benches' seed 2011: `SynItDelay::new(80, 32, 0.5, 2011)`.
pub const SYN_IT_DELAY: SynItDelay = SynItDelay {
    seed: 2011,
    n_pairs: 80,
    iterations: 32,
    taken_q16: Q16 / 2,
};
/// Items of [`SYN_IT_DELAY`]: 2^18 (the paper's runs use 2^20).
pub const SYN_IT_DELAY_ITEMS: u32 = 1 << 18;

/// Seed 004's dynamic-work kernel (fig. A-1) at LOOP_NUM 64 with trip counts uniform in
/// 1 to 32 and the benches' seed 1: `DynamicWork::new(64, 32, 1)`.
pub const DYNAMIC_WORK: DynamicWork = DynamicWork {
    seed: 1,
    loop_num: 64,
    max_trips: 32,
};
/// Items of [`DYNAMIC_WORK`]: 2^18.
pub const DYNAMIC_WORK_ITEMS: u32 = 1 << 18;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consts_equal_the_constructors() {
        assert_eq!(SYN_IT_DELAY, SynItDelay::new(80, 32, 0.5, 2011));
        assert_eq!(
            SYN_IT_DELAY,
            SynItDelay::with_branch_ratio(8.0, 32, 0.5, 2011)
        );
        assert_eq!(SYN_IT_DELAY.branch_frequency(), 0.5);
        assert_eq!(DYNAMIC_WORK, DynamicWork::new(64, 32, 1));
        assert_eq!(ESCAPE_TIME_ITEMS, 786_432);
        assert_eq!(COLLATZ_ITEMS, 1_048_576);
    }

    #[test]
    fn collatz_limit_never_binds() {
        // The longest sequence from 1..=2^20 (known: 837,799 with 524 steps) is below the limit.
        let longest = (0..COLLATZ_ITEMS)
            .map(|i| (COLLATZ.reference(i), i))
            .max()
            .expect("items");
        assert_eq!(longest, (524, 837_798));
        assert!(longest.0 < COLLATZ.max_steps);
    }

    #[test]
    fn dynamic_work_trips_span_their_range() {
        let (mut lo, mut hi) = (u32::MAX, 0);
        for i in 0..DYNAMIC_WORK_ITEMS {
            let t = DYNAMIC_WORK.trips(i);
            lo = lo.min(t);
            hi = hi.max(t);
        }
        assert_eq!((lo, hi), (1, 32));
    }
}
