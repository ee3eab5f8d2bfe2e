//! SYN-ITDELAY with paths of distinct shape: the loop of seed 002 fig. 4 whose two paths the
//! compiler cannot merge, so that the plain kernel really diverges.
//!
//! The paper's SYN-ITDELAY ([`super::itdelay`]) gives both paths the same instructions with
//! other constants, which a compiler is free to merge into one path whose constants are
//! selected per lane (issue 24 found SYN-BRDIS's paths merged so: 32.0 active threads per warp
//! instruction, nothing for a technique to win); whether it does depends on the compiler.
//! Here the taken path is SYN-ITDELAY's float chain (`N` pairs `v = v · 2 + 1;
//! v = v · 0.5 − 0.5`, exact) and the not-taken path an integer chain of the same length
//! (`N` rounds `x = (rotl(x, 5) ^ K) · M + A`, a rotate, a xor and a multiply-add), which no
//! select can share with it. Everything else (the generator, the
//! branch frequency `f`, the branch ratio `r = 2N / 20`, the items' seeds) is SYN-ITDELAY's.
//!
//! The integer chain runs on the item's direction trace, so the output's `trace` is still an
//! order-sensitive record of every direction the item took (a strategy that ran an iteration
//! twice, skipped one or reordered an item's iterations changes it), and `taken` counts the
//! taken iterations as before.

use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::itdelay::{ItDelayOutput, ItDelayState, NOT_TAKEN, SynItDelay, record};

/// SYN-ITDELAY with an integer not-taken path (see the module docs). `#[repr(transparent)]`:
/// on the GPU it is the same kernel argument as [`SynItDelay`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct SynItDelayDistinct(pub SynItDelay);

/// The not-taken path's region: `N` integer rounds.
pub const INTEGER_PATH: reconverge_simt::Region =
    LoopRegion::NotTaken.region("not taken: N integer rounds", NOT_TAKEN.cost);

impl SynItDelayDistinct {
    /// Branch ratio `r`, `iterations` per item, branch frequency `f` (0 to 1), as
    /// [`SynItDelay::with_branch_ratio`].
    pub fn with_branch_ratio(r: f64, iterations: u32, f: f64, seed: u64) -> Self {
        Self(SynItDelay::with_branch_ratio(r, iterations, f, seed))
    }

    /// Item `item` run as one plain scalar loop: the same work as any strategy, no warp.
    pub fn reference(&self, item: u32) -> ItDelayOutput {
        self.run_item(item)
    }
}

/// `n` dependent rounds `x = (rotl(x, 5) ^ 0x6A09_E667) · 0x9E37_79B1 + 0x7F4A_7C15`.
#[inline(always)]
pub fn integer_rounds(mut x: u32, n: u32) -> u32 {
    for _ in 0..n {
        x = (x.rotate_left(5) ^ 0x6A09_E667)
            .wrapping_mul(0x9E37_79B1)
            .wrapping_add(0x7F4A_7C15);
    }
    x
}

impl BranchLoop for SynItDelayDistinct {
    type State = ItDelayState;
    type Output = ItDelayOutput;

    fn regions(&self) -> LoopRegions {
        let mut regions = self.0.regions();
        regions.not_taken = INTEGER_PATH.with_cost(self.0.path_instructions());
        regions
    }

    #[inline]
    fn start(&self, item: u32) -> ItDelayState {
        self.0.start(item)
    }

    #[inline]
    fn running(&self, s: &ItDelayState) -> bool {
        self.0.running(s)
    }

    #[inline]
    fn condition(&self, s: &mut ItDelayState) -> bool {
        self.0.condition(s)
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut ItDelayState, tally: &mut T) {
        self.0.taken(s, tally);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut ItDelayState, _: &mut T) {
        s.trace = integer_rounds(record(s.trace, false), self.0.n_pairs);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut ItDelayState, tally: &mut T) {
        self.0.after_branch(s, tally);
    }

    #[inline]
    fn finish(&self, s: &ItDelayState) -> ItDelayOutput {
        self.0.finish(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_integer_path_changes_the_trace_and_only_it() {
        let original = SynItDelay::with_branch_ratio(4.0, 32, 0.5, 9);
        let distinct = SynItDelayDistinct(original);
        let mut differs = 0;
        for item in 0..64 {
            let (a, b) = (original.reference(item), distinct.reference(item));
            // Same generator: the same directions, the same taken count, the same float chain.
            assert_eq!(a.taken, b.taken);
            assert_eq!(a.val.to_bits(), b.val.to_bits());
            differs += u32::from(a.trace != b.trace);
        }
        assert_eq!(differs, 64);
    }

    #[test]
    fn the_trace_records_the_order_of_directions() {
        // Two orders of one taken and one not-taken iteration give two traces.
        let w = SynItDelayDistinct(SynItDelay::new(5, 2, 0.5, 1));
        let mut one = w.0.start(0);
        let mut two = one;
        let mut t = reconverge_transforms::NoTally;
        w.taken(&mut one, &mut t);
        w.not_taken(&mut one, &mut t);
        w.not_taken(&mut two, &mut t);
        w.taken(&mut two, &mut t);
        assert_ne!(one.trace, two.trace);
        assert_eq!(integer_rounds(7, 0), 7);
        assert_ne!(integer_rounds(7, 1), integer_rounds(7, 2));
    }
}
