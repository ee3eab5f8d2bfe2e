//! SYN-BRDIS, the synthetic benchmark of branch distribution (seed 002, Han & Abdelrahman,
//! §4.1.2, fig. 7; results in fig. 12).
//!
//! Every item runs `iterations` iterations of fig. 7a:
//!
//! ```text
//! for i in 0..iterations {
//!     val = mwc()                                  // random number generation, 19 PTX
//!     if (item + i) & 1 {                          // divergent in every iteration
//!         code_segment_1(val -> vin_1..vin_M)      // 20 FMA
//!         code_factored_out(vin -> vout)           // each vin_j self-updated 2N times
//!         code_segment_3(vout_1..vout_M -> val)    // 20 FMA
//!     } else {
//!         code_segment_2 / code_factored_out / code_segment_4
//!     }
//! }
//! ```
//!
//! Branch distribution (fig. 7b,
//! [`Strategy::BRANCH_DISTRIBUTION`](reconverge_transforms::Strategy::BRANCH_DISTRIBUTION))
//! runs `code_factored_out` once for all lanes between the divergent prologues and epilogues.
//! The paper's condition is `(threadIdx.x + i) & 1`; here it is `(item + i) & 1`, which is the
//! same for the baseline's one-item-per-thread launch and keeps outputs independent of the
//! lane that runs an item.
//!
//! # Parameters
//!
//! - `M` (`SynBrDis::m`, 1 to 20): inputs and outputs of the factored code;
//! - `N` ([`SynBrDis::n`]): the factored code self-updates each of its `M` values `2N` times,
//!   `2NM` instructions;
//! - `R = N·M/20`: the size of the factored code relative to one path's divergent code
//!   (`2NM / (20 + 20)`), fig. 12's x axis; the paper's theoretical speedup is
//!   `2(1+R)/(2+R)` (it also notes the measured one is ~10 % lower because of the 19 RNG
//!   instructions per iteration);
//! - `iterations` (the paper's `N_ITERATIONS`, not stated) and `seed`.
//!
//! # Arithmetic
//!
//! Plain f32 `*` and `+` only (no `mul_add`), so every backend gives the same bits. Values stay
//! in `(-1, 0]`, where the paper's `vin_(j+1) = vin_j * vin_j + vin_j` is a contraction (no
//! overflow, no denormals in 20 steps): `val` is drawn in `[-0.75, 0)`, the prologues'
//! `20 - M` self-updates are `val·0.5 - 0.25` (segment 1) and `val·0.75 - 0.125` (segment 2),
//! the factored self-update pairs are SYN-ITDELAY's `×2 +1, ×0.5 -0.5`, and the epilogues fold
//! the `vout`s in with `val·0.5 + vout` (segment 3) or `val·0.25 + vout` (segment 4). Since
//! `val` is redrawn each iteration, the non-branch code also folds each iteration's final `val`
//! into a running `sum = sum·0.5 + val`, and the output is `(val, sum)`.

use rand_core::RngCore;
use reconverge_simt::Region;
use reconverge_transforms::{FactoredBranchLoop, FactoredRegion, FactoredRegions, Tally};

use super::item_mwc;
use crate::rng::{Mwc64, u32_to_f32_oc};

/// The largest `M`.
pub const MAX_M: usize = 20;
/// Instructions of each prologue and epilogue segment.
pub const SEGMENT: u32 = 20;

/// Random number generation and the condition (19 PTX + 2).
pub const CONDITION: Region =
    FactoredRegion::Condition.region("MWC random val, (item + i) & 1", 21);
/// code_segment_1.
pub const SEG1: Region = FactoredRegion::PrologueTaken.region("code_segment_1 (20 FMA)", SEGMENT);
/// code_segment_2.
pub const SEG2: Region =
    FactoredRegion::PrologueNotTaken.region("code_segment_2 (20 FMA)", SEGMENT);
/// code_factored_out; its cost is set to `2NM`.
pub const FACTORED: Region = FactoredRegion::Factored.region("code_factored_out (2NM FMA)", 0);
/// code_segment_3.
pub const SEG3: Region = FactoredRegion::EpilogueTaken.region("code_segment_3 (20 FMA)", SEGMENT);
/// code_segment_4.
pub const SEG4: Region =
    FactoredRegion::EpilogueNotTaken.region("code_segment_4 (20 FMA)", SEGMENT);
/// The running sum and the loop increment.
pub const AFTER: Region = FactoredRegion::AfterBranch.region("sum, ++i", 2);
/// Seeding and storing.
pub const ITEM: Region = FactoredRegion::Item.region("seed / store", 8);

/// SYN-BRDIS's parameters (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SynBrDis {
    /// Seed of the items' generators.
    pub seed: u64,
    /// `M`, 1 to 20.
    pub m: u32,
    /// `N`.
    pub n: u32,
    /// Loop iterations per item.
    pub iterations: u32,
}

/// What a lane carries through SYN-BRDIS's loop.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct BrDisState {
    /// The item's generator.
    pub rng: Mwc64,
    /// The item (for the condition).
    pub item: u32,
    /// The iteration `i`.
    pub i: u32,
    /// `val`.
    pub val: f32,
    /// The running sum of each iteration's `val`.
    pub sum: f32,
    /// `vin_1..vin_M`, updated in place into `vout_1..vout_M`.
    pub v: [f32; MAX_M],
}

/// An item's result.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct BrDisOutput {
    /// `val` after the last iteration (fig. 7's `result[threadIdx.x]`).
    pub val: f32,
    /// `sum = sum·0.5 + val` over all iterations.
    pub sum: f32,
}

impl SynBrDis {
    /// `M` (clamped to 1..=20), `N`, `iterations`.
    pub fn new(m: u32, n: u32, iterations: u32, seed: u64) -> Self {
        Self {
            seed,
            m: m.clamp(1, MAX_M as u32),
            n,
            iterations,
        }
    }

    /// `R = N·M/20`.
    pub fn r(&self) -> f64 {
        f64::from(self.n) * f64::from(self.m()) / 20.0
    }

    /// The paper's theoretical speedup of branch distribution, `2(1+R)/(2+R)`.
    pub fn theoretical_speedup(&self) -> f64 {
        let r = self.r();
        2.0 * (1.0 + r) / (2.0 + r)
    }

    fn m(&self) -> u32 {
        self.m.clamp(1, MAX_M as u32)
    }

    /// Item `item` run as plain scalar code (fig. 7a).
    pub fn reference(&self, item: u32) -> BrDisOutput {
        self.run_item(item)
    }
}

impl FactoredBranchLoop for SynBrDis {
    type State = BrDisState;
    type Output = BrDisOutput;

    fn regions(&self) -> FactoredRegions {
        let factored = FACTORED.with_cost(self.n.saturating_mul(2).saturating_mul(self.m()));
        FactoredRegions::new([CONDITION, SEG1, SEG2, factored, SEG3, SEG4, AFTER, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> BrDisState {
        BrDisState {
            rng: item_mwc(self.seed, item),
            item,
            i: 0,
            val: 0.0,
            sum: 0.0,
            v: [0.0; MAX_M],
        }
    }

    #[inline]
    fn running(&self, s: &BrDisState) -> bool {
        s.i < self.iterations
    }

    #[inline]
    fn condition(&self, s: &mut BrDisState) -> bool {
        s.val = -u32_to_f32_oc(s.rng.next_u32()) * 0.75;
        (s.item.wrapping_add(s.i)) & 1 != 0
    }

    #[inline]
    fn prologue<T: Tally>(&self, taken: bool, s: &mut BrDisState, _: &mut T) {
        let m = self.m();
        let (mult, add) = if taken { (0.5, -0.25) } else { (0.75, -0.125) };
        let mut val = s.val;
        for _ in 0..SEGMENT - m {
            val = val * mult + add;
        }
        s.val = val;
        let mut x = val;
        for vin in s.v.iter_mut().take(m as usize) {
            x = x * x + x;
            *vin = x;
        }
    }

    #[inline]
    fn factored<T: Tally>(&self, s: &mut BrDisState, _: &mut T) {
        let (m, n) = (self.m(), self.n);
        for v in s.v.iter_mut().take(m as usize) {
            let mut x = *v;
            for _ in 0..n {
                x = x * 2.0 + 1.0;
                x = x * 0.5 + -0.5;
            }
            *v = x;
        }
    }

    #[inline]
    fn epilogue<T: Tally>(&self, taken: bool, s: &mut BrDisState, _: &mut T) {
        let m = self.m();
        let (fold, mult, add) = if taken {
            (0.5, 0.5, -0.25)
        } else {
            (0.25, 0.75, -0.125)
        };
        let mut val = s.val;
        for vout in s.v.iter().take(m as usize) {
            val = val * fold + *vout;
        }
        for _ in 0..SEGMENT - m {
            val = val * mult + add;
        }
        s.val = val;
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut BrDisState, _: &mut T) {
        s.sum = s.sum * 0.5 + s.val;
        s.i += 1;
    }

    #[inline]
    fn finish(&self, s: &BrDisState) -> BrDisOutput {
        BrDisOutput {
            val: s.val,
            sum: s.sum,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_finite_and_in_range() {
        for m in [1, 7, 20] {
            let w = SynBrDis::new(m, 5, 50, 3);
            for item in 0..200 {
                let o = w.reference(item);
                assert!(o.val.is_finite() && o.val <= 0.0 && o.val > -1.0, "{o:?}");
                assert!(o.sum.is_finite(), "{o:?}");
            }
        }
    }

    #[test]
    fn r_and_theoretical_speedup() {
        let w = SynBrDis::new(4, 10, 1, 0);
        assert_eq!(w.r(), 2.0);
        assert_eq!(w.theoretical_speedup(), 1.5);
        assert_eq!(w.regions().factored.cost, 80);
        assert_eq!(SynBrDis::new(40, 1, 1, 0).m, 20);
    }
}
