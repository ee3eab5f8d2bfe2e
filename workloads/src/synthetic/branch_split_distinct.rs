//! Seed 001's branch-splitting benchmark with paths of distinct shape, so that the branched
//! kernel really diverges.
//!
//! The paper's if and else branches ([`super::branch_split`]) are the same integer LCG chain
//! with other constants and lengths, which a compiler may merge into one loop with the
//! constants and the trip count selected per lane. Here the heavy else branch is a float chain
//! (`heavy` steps `v = v · 0.999 + 1` in IEEE single precision from the element's data, the
//! same bits on every backend; [`float_chain`](super::path_unification_distinct::float_chain)'s
//! step), which no select can share with the light integer if branch. The mask, its layouts
//! and the fraction of else elements are the paper's.

use reconverge_transforms::{TwoPath, TwoPathRegions};

use super::branch_split::BranchSplitBench;

/// Seed 001's benchmark with a float else branch (see the module docs).
/// `#[repr(transparent)]`: on the GPU it is the same kernel argument as [`BranchSplitBench`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct BranchSplitDistinct(pub BranchSplitBench);

impl BranchSplitDistinct {
    /// Element `item` run as plain scalar code.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

/// `steps` steps `v = v · 0.999 + 1` from `v = start mod 2^16` (exact), the result's bits.
#[inline(always)]
fn heavy_float_chain(start: u32, steps: u32) -> u32 {
    super::path_unification_distinct::float_chain(start, steps)
}

impl TwoPath for BranchSplitDistinct {
    type Output = u32;

    fn regions(&self) -> TwoPathRegions {
        let mut r = self.0.regions();
        // Two instructions per float step against one per LCG step.
        r.path_b = r.path_b.with_cost(self.0.heavy.saturating_mul(2));
        r
    }

    #[inline]
    fn decide(&self, item: u32) -> bool {
        self.0.decide(item)
    }

    #[inline]
    fn path_a(&self, item: u32) -> u32 {
        self.0.path_a(item)
    }

    #[inline]
    fn path_b(&self, item: u32) -> u32 {
        heavy_float_chain(self.0.path_start(item), self.0.heavy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::MaskLayout;

    #[test]
    fn the_else_branch_is_a_float_chain_and_the_rest_the_papers() {
        let paper = BranchSplitBench::new(4096, 0.3, MaskLayout::Random, 5);
        let w = BranchSplitDistinct(paper);
        let mut elses = 0;
        for item in 0..4096 {
            assert_eq!(w.decide(item), paper.decide(item));
            if w.decide(item) {
                assert_eq!(w.reference(item), paper.reference(item));
            } else {
                elses += 1;
                let mut v = (paper.path_start(item) & 0xFFFF) as f32;
                for _ in 0..paper.heavy {
                    v = v * 0.999 + 1.0;
                }
                assert_eq!(w.reference(item), v.to_bits());
            }
        }
        assert!((1000..1500).contains(&elses), "{elses}");
    }
}
