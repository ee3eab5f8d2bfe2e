//! SYN-BRDIS with paths of distinct shape: the loop of seed 002 fig. 7 whose two paths the
//! compiler cannot merge, so that the plain kernel really diverges through the factored code.
//!
//! The paper's SYN-BRDIS ([`super::brdis`]) gives both paths the same instructions with other
//! constants; LLVM merges them into one path whose constants are selected per lane (issue 24:
//! 32.0 active threads per warp instruction), so the code as written never diverges and branch
//! distribution has nothing to win. Here the not-taken path's prologue and epilogue are integer
//! chains (`20 − M` rounds of [`integer_rounds`], a rotate, a xor and a multiply-add, whose
//! result is drawn back into `[−0.75, 0)`), which no select can share with the taken path's
//! float chains; the code both paths share (`code_factored_out`) stays SYN-BRDIS's. As written,
//! a warp whose lanes take both paths issues the factored code twice; distributed (fig. 7b),
//! once. Everything else (the generator, `M`, `N`, `R = N·M/20`, the condition
//! `(item + i) & 1`) is SYN-BRDIS's.

use reconverge_transforms::{FactoredBranchLoop, FactoredRegions, Tally};

use super::brdis::{BrDisOutput, BrDisState, SEGMENT, SynBrDis};
use super::itdelay_distinct::integer_rounds;
use crate::rng::u32_to_f32_oc;

/// SYN-BRDIS with an integer not-taken path (see the module docs). `#[repr(transparent)]`: on
/// the GPU it is the same kernel argument as [`SynBrDis`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct SynBrDisDistinct(pub SynBrDis);

impl SynBrDisDistinct {
    /// `M` (clamped to 1..=20), `N`, `iterations`, as [`SynBrDis::new`].
    pub fn new(m: u32, n: u32, iterations: u32, seed: u64) -> Self {
        Self(SynBrDis::new(m, n, iterations, seed))
    }

    /// Item `item` run as plain scalar code (fig. 7a).
    pub fn reference(&self, item: u32) -> BrDisOutput {
        self.run_item(item)
    }

    /// `20 − M` integer rounds on `val`'s bits, drawn back into `[−0.75, 0)` as the generator's
    /// values are: the not-taken path's chain.
    #[inline(always)]
    fn integer_chain(&self, val: f32) -> f32 {
        let rounds = SEGMENT - self.0.m.clamp(1, SEGMENT);
        -u32_to_f32_oc(integer_rounds(val.to_bits(), rounds)) * 0.75
    }
}

impl FactoredBranchLoop for SynBrDisDistinct {
    type State = BrDisState;
    type Output = BrDisOutput;

    fn regions(&self) -> FactoredRegions {
        self.0.regions()
    }

    #[inline]
    fn start(&self, item: u32) -> BrDisState {
        self.0.start(item)
    }

    #[inline]
    fn running(&self, s: &BrDisState) -> bool {
        self.0.running(s)
    }

    #[inline]
    fn condition(&self, s: &mut BrDisState) -> bool {
        self.0.condition(s)
    }

    #[inline]
    fn prologue<T: Tally>(&self, taken: bool, s: &mut BrDisState, tally: &mut T) {
        if taken {
            self.0.prologue(true, s, tally);
            return;
        }
        // The integer chain, then the `vin`s as SYN-BRDIS draws them from `val`.
        let val = self.integer_chain(s.val);
        s.val = val;
        let mut x = val;
        for vin in s.v.iter_mut().take(self.0.m.clamp(1, SEGMENT) as usize) {
            x = x * x + x;
            *vin = x;
        }
    }

    #[inline]
    fn factored<T: Tally>(&self, s: &mut BrDisState, tally: &mut T) {
        self.0.factored(s, tally);
    }

    #[inline]
    fn epilogue<T: Tally>(&self, taken: bool, s: &mut BrDisState, tally: &mut T) {
        if taken {
            self.0.epilogue(true, s, tally);
            return;
        }
        // SYN-BRDIS's fold of the `vout`s, then the integer chain.
        let mut val = s.val;
        for vout in s.v.iter().take(self.0.m.clamp(1, SEGMENT) as usize) {
            val = val * 0.25 + *vout;
        }
        s.val = self.integer_chain(val);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut BrDisState, tally: &mut T) {
        self.0.after_branch(s, tally);
    }

    #[inline]
    fn finish(&self, s: &BrDisState) -> BrDisOutput {
        self.0.finish(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_not_taken_path_changes_and_values_stay_in_range() {
        let original = SynBrDis::new(4, 10, 16, 5);
        let distinct = SynBrDisDistinct(original);
        let mut differs = 0;
        for item in 0..64 {
            let (a, b) = (original.reference(item), distinct.reference(item));
            differs += u32::from(a != b);
            assert!(b.val.is_finite() && b.sum.is_finite(), "{b:?}");
            assert!((-1.0..=0.0).contains(&b.val), "{b:?}");
        }
        // Every item takes the not-taken path in half its iterations.
        assert_eq!(differs, 64);
        // A taken iteration alone is SYN-BRDIS's.
        let mut t = reconverge_transforms::NoTally;
        let (mut a, mut b) = (original.start(3), distinct.start(3));
        assert_eq!(original.condition(&mut a), distinct.condition(&mut b));
        original.prologue(true, &mut a, &mut t);
        distinct.prologue(true, &mut b, &mut t);
        assert_eq!(a, b);
    }
}
