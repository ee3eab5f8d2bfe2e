//! SYN-ITDELAY, the synthetic benchmark of iteration delaying (seed 002, Han & Abdelrahman,
//! §4.1.1; figs. 10 and 11, table 1).
//!
//! Every item (thread) runs `iterations` iterations of the loop of seed 002 fig. 4:
//!
//! ```text
//! for i in 0..iterations {
//!     cond = mwc() < f            // MCML's multiply-with-carry generator, 19 PTX instructions
//!     if cond { N FMA pairs } else { N FMA pairs }   // "code segment 1" / "code segment 2"
//!     ++i                          // the loop's own bookkeeping
//! }
//! ```
//!
//! Each path is `N` pairs `val = val * MULT1 + ADD1; val = val * MULT2 + ADD2;` whose constants
//! leave `val` unchanged, as in the paper. Here they leave it unchanged *exactly*: `val` is an
//! integer below 2^20 and the constants are powers of two, so every product and sum is exact in
//! f32 (taken: `×2 +1`, `×0.5 −0.5`; not taken: `×4 +3`, `×0.25 −0.75`). The arithmetic is plain
//! `*` and `+` (never `mul_add`), so no backend may contract it and every backend gives the same
//! bits. Since `val` never changes, the output also carries how many iterations took the branch
//! and an order-sensitive hash of the branch directions, so that a strategy that ran an
//! iteration twice, skipped one or reordered an item's iterations is caught.
//!
//! # Parameters, as the paper defines them
//!
//! - `N` ([`SynItDelay::n_pairs`]): FMA pairs per path; each path is `2N` instructions.
//! - the **branch ratio** `r` (fig. 10): "the ratio of the size of each branch path to that of
//!   the non-branch code". The non-branch code is the random number generator (19 PTX
//!   instructions) and the loop increment: [`NON_BRANCH_INSTRUCTIONS`] = 20, which matches the
//!   paper's "each branch path has 160 FMA instructions" at `r = 8`. So `r = 2N / 20 = N / 10`
//!   ([`SynItDelay::branch_ratio`], [`SynItDelay::with_branch_ratio`]); the paper sweeps `r`
//!   from 1 to 50.
//! - the **branch frequency** `f` (fig. 11): "the fraction of time the branch is taken", the
//!   probability that an iteration takes the if path, swept from 0 % to 100 %
//!   ([`SynItDelay::taken_q16`], in 1/65536). Fig. 10 uses randomised directions (`f = 50 %`);
//!   table 1 uses `r = 8`, `f = 10 %`.
//! - `iterations`: loop trips per item (the paper's `N_ITERATIONS`, not stated; all items run
//!   the same number, so only the branch diverges).
//! - `seed`: item `i`'s generator is seeded from `(seed, i)` ("each thread uses a unique seed").

use rand_core::RngCore;
use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::{Q16, item_mwc, probability_to_q16, q16_to_probability};
use crate::rng::Mwc64;

/// Instructions of the non-branch code per iteration: the MWC generator (19 PTX instructions,
/// seed 002 §4.1.1) and the loop increment.
pub const NON_BRANCH_INSTRUCTIONS: u32 = 20;

/// The generator's region: 19 instructions as the paper counts them.
pub const CONDITION: Region = LoopRegion::Condition.region("MWC random number", 19);
/// The taken path ("code segment 1"); its cost is set to `2N`.
pub const TAKEN: Region = LoopRegion::Taken.region("taken: N FMA pairs", 0);
/// The not-taken path ("code segment 2"); its cost is set to `2N`.
pub const NOT_TAKEN: Region = LoopRegion::NotTaken.region("not taken: N FMA pairs", 0);
/// The loop's own bookkeeping (`++i`).
pub const LOOP: Region = LoopRegion::AfterBranch.region("loop increment", 1);
/// Seeding an item's generator and storing its result.
pub const ITEM: Region = LoopRegion::Item.region("seed / store", 8);

/// SYN-ITDELAY's parameters (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SynItDelay {
    /// Seed of the items' generators.
    pub seed: u64,
    /// `N`: FMA pairs per path.
    pub n_pairs: u32,
    /// Loop iterations per item.
    pub iterations: u32,
    /// Branch frequency `f` in 1/65536 (`0..=65536`).
    pub taken_q16: u32,
}

/// What one lane carries through SYN-ITDELAY's loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct ItDelayState {
    /// The item's generator.
    pub rng: Mwc64,
    /// The FMA chain's variable (bits of an f32).
    pub val: u32,
    /// Iterations still to run.
    pub remaining: u32,
    /// Iterations that took the branch.
    pub taken: u32,
    /// Order-sensitive hash of the directions taken so far.
    pub trace: u32,
}

/// An item's result.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ItDelayOutput {
    /// `val` after all iterations (always its start value: the FMA pairs leave it unchanged).
    pub val: f32,
    /// Iterations that took the branch.
    pub taken: u32,
    /// Order-sensitive hash of the item's branch directions.
    pub trace: u32,
}

impl SynItDelay {
    /// `n_pairs` FMA pairs per path, `iterations` per item, branch frequency `f` (0 to 1).
    pub fn new(n_pairs: u32, iterations: u32, f: f64, seed: u64) -> Self {
        Self {
            seed,
            n_pairs,
            iterations,
            taken_q16: probability_to_q16(f),
        }
    }

    /// The configuration of branch ratio `r` (`N = 10 r`, rounded; at least one pair).
    pub fn with_branch_ratio(r: f64, iterations: u32, f: f64, seed: u64) -> Self {
        let n = (r * f64::from(NON_BRANCH_INSTRUCTIONS) / 2.0 + 0.5).max(1.0) as u32;
        Self::new(n, iterations, f, seed)
    }

    /// The branch ratio `r = 2N / 20`.
    pub fn branch_ratio(&self) -> f64 {
        f64::from(self.path_instructions()) / f64::from(NON_BRANCH_INSTRUCTIONS)
    }

    /// The branch frequency `f` (0 to 1).
    pub fn branch_frequency(&self) -> f64 {
        q16_to_probability(self.taken_q16)
    }

    /// Instructions of one path: `2N`.
    pub fn path_instructions(&self) -> u32 {
        self.n_pairs.saturating_mul(2)
    }

    /// Item `item` run as one plain scalar loop: the same work as any strategy, no warp.
    pub fn reference(&self, item: u32) -> ItDelayOutput {
        self.run_item(item)
    }
}

/// `n` pairs `v = v * m1 + a1; v = v * m2 + a2`, dependent back to back, plain mul and add.
#[inline(always)]
fn fma_pairs(mut v: f32, n: u32, m1: f32, a1: f32, m2: f32, a2: f32) -> f32 {
    for _ in 0..n {
        v = v * m1 + a1;
        v = v * m2 + a2;
    }
    v
}

#[inline(always)]
pub(crate) fn record(trace: u32, taken: bool) -> u32 {
    trace
        .wrapping_mul(0x9E37_79B1)
        .wrapping_add(if taken { 0x68E3_1DA4 } else { 0x1B56_C4E9 })
}

impl BranchLoop for SynItDelay {
    type State = ItDelayState;
    type Output = ItDelayOutput;

    fn regions(&self) -> LoopRegions {
        let path = self.path_instructions();
        LoopRegions::new([
            CONDITION,
            TAKEN.with_cost(path),
            NOT_TAKEN.with_cost(path),
            LOOP,
            ITEM,
        ])
    }

    #[inline]
    fn start(&self, item: u32) -> ItDelayState {
        let mut rng = item_mwc(self.seed, item);
        // An integer below 2^20: every step of the FMA pairs is exact.
        let val = (rng.next_u32() >> 12) as f32;
        ItDelayState {
            rng,
            val: val.to_bits(),
            remaining: self.iterations,
            taken: 0,
            trace: 0,
        }
    }

    #[inline]
    fn running(&self, s: &ItDelayState) -> bool {
        s.remaining > 0
    }

    #[inline]
    fn condition(&self, s: &mut ItDelayState) -> bool {
        // The top 16 bits of the MWC output: its low bits are the weaker ones.
        let bits = s.rng.next_u32() >> 16;
        self.taken_q16 >= Q16 || bits < self.taken_q16
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut ItDelayState, _: &mut T) {
        let v = fma_pairs(f32::from_bits(s.val), self.n_pairs, 2.0, 1.0, 0.5, -0.5);
        s.val = v.to_bits();
        s.taken += 1;
        s.trace = record(s.trace, true);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut ItDelayState, _: &mut T) {
        let v = fma_pairs(f32::from_bits(s.val), self.n_pairs, 4.0, 3.0, 0.25, -0.75);
        s.val = v.to_bits();
        s.trace = record(s.trace, false);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut ItDelayState, _: &mut T) {
        s.remaining = s.remaining.saturating_sub(1);
    }

    #[inline]
    fn finish(&self, s: &ItDelayState) -> ItDelayOutput {
        ItDelayOutput {
            val: f32::from_bits(s.val),
            taken: s.taken,
            trace: s.trace,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fma_pairs_leave_val_unchanged_exactly() {
        for v in [0.0f32, 1.0, 12345.0, 1_048_575.0] {
            assert_eq!(
                fma_pairs(v, 100, 2.0, 1.0, 0.5, -0.5).to_bits(),
                v.to_bits()
            );
            assert_eq!(
                fma_pairs(v, 100, 4.0, 3.0, 0.25, -0.75).to_bits(),
                v.to_bits()
            );
        }
    }

    #[test]
    fn branch_ratio_matches_the_paper() {
        // r = 8 is "each branch path has 160 FMA instructions".
        let w = SynItDelay::with_branch_ratio(8.0, 10, 0.5, 1);
        assert_eq!(w.n_pairs, 80);
        assert_eq!(w.path_instructions(), 160);
        assert_eq!(w.branch_ratio(), 8.0);
        assert_eq!(w.regions().taken.cost, 160);
    }

    #[test]
    fn frequency_ends_are_convergent() {
        for item in 0..50 {
            let all = SynItDelay::new(1, 40, 1.0, 3).reference(item);
            assert_eq!(all.taken, 40);
            let none = SynItDelay::new(1, 40, 0.0, 3).reference(item);
            assert_eq!(none.taken, 0);
        }
    }

    #[test]
    fn frequency_is_the_fraction_taken() {
        let w = SynItDelay::new(1, 100, 0.1, 7);
        let taken: u32 = (0..1000).map(|i| w.reference(i).taken).sum();
        let f = f64::from(taken) / 100_000.0;
        assert!((f - 0.1).abs() < 0.01, "f = {f}");
    }
}
