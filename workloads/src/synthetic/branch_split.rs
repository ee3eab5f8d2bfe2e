//! The artificial benchmark of branch splitting (seed 001, Carrillo et al., §5; figs. 7–10).
//!
//! Every element of a data set takes, according to a **decision mask**, either the *if*
//! branch (light: few instructions, few registers: 6 in the paper) or the *else* branch
//! (heavy: 13 registers in the paper). The single kernel (fig. 6a) is
//! [`Strategy::BASELINE`](reconverge_transforms::Strategy::BASELINE); the split two-kernel
//! version (fig. 6b) is
//! [`Strategy::BRANCH_SPLITTING`](reconverge_transforms::Strategy::BRANCH_SPLITTING). The
//! fraction of *else* elements is swept from 0 % to 100 %.
//!
//! # Parameters
//!
//! - [`MaskLayout`]: `Linear` is the two-section mask of fig. 7 (the first elements take the
//!   if branch, the last `else_fraction · n` the else branch: only the warp at the boundary
//!   diverges, fig. 8); `Random` is fig. 9's mask, each element drawing its branch with
//!   probability `else_fraction` (fig. 10: the branched version is worst between 8 % and 16 %
//!   else, where almost every warp holds at least one else element).
//! - `else_q16`: the fraction of else elements, in 1/65536.
//! - `items`: the data-set size `n` (the linear mask needs it; the paper uses 2^22).
//! - `light`, `heavy`: instructions of the if and else paths. The paper gives register counts,
//!   not instruction counts; the defaults (`16` and `32`, a heavy path twice as long) put the
//!   reference model's lowest SIMD efficiency near 10 % else, inside fig. 10's 8–16 % (for a
//!   heavy/light ratio `h` the model's efficiency is
//!   `((1-p) + h p) / ((1 - p^32) + h (1 - (1-p)^32))`, lowest at 8–11 % for `h` from 1.5 to 3).
//!
//! Each path is a chain of 32-bit integer LCG steps (`v = v · A + C`, wrapping), one
//! instruction each as the region costs count them; the output is the element's final value.

use reconverge_simt::Region;
use reconverge_transforms::{TwoPath, TwoPathRegion, TwoPathRegions};

use super::{happens, item_hash, probability_to_q16, q16_to_probability};

/// Which elements take the else branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum MaskLayout {
    /// Two sections: if elements first, then else elements (seed 001 fig. 7).
    Linear = 0,
    /// Each element independently with probability `else_fraction` (seed 001 fig. 9).
    Random = 1,
}

/// Computing the element's decision (reading the mask).
pub const DECIDE: Region = TwoPathRegion::Decide.region("read decision mask", 2);
/// The light if branch; its cost is set to `light`.
pub const IF_LIGHT: Region = TwoPathRegion::PathA.region("if branch (light)", 0);
/// The heavy else branch; its cost is set to `heavy`.
pub const ELSE_HEAVY: Region = TwoPathRegion::PathB.region("else branch (heavy)", 0);
/// Load and store of the element.
pub const ITEM: Region = TwoPathRegion::Item.region("load / store", 2);

/// The branch-splitting benchmark's parameters (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct BranchSplitBench {
    /// Seed of the random mask and of the data.
    pub seed: u64,
    /// Fraction of else elements in 1/65536.
    pub else_q16: u32,
    /// Data-set size (the linear mask's length).
    pub items: u32,
    /// Instructions of the if (light) path.
    pub light: u32,
    /// Instructions of the else (heavy) path.
    pub heavy: u32,
    /// Layout of the decision mask.
    pub layout: MaskLayout,
}

impl BranchSplitBench {
    /// `items` elements, a fraction `else_fraction` taking the else branch, default path
    /// lengths (16 and 32 instructions).
    pub fn new(items: u32, else_fraction: f64, layout: MaskLayout, seed: u64) -> Self {
        Self {
            seed,
            else_q16: probability_to_q16(else_fraction),
            items,
            light: 16,
            heavy: 32,
            layout,
        }
    }

    /// The same benchmark with other path lengths.
    pub fn with_paths(self, light: u32, heavy: u32) -> Self {
        Self {
            light,
            heavy,
            ..self
        }
    }

    /// The fraction of else elements.
    pub fn else_fraction(&self) -> f64 {
        q16_to_probability(self.else_q16)
    }

    /// Elements of the linear mask's if section.
    fn if_section(&self) -> u32 {
        let n = u64::from(self.items);
        let else_n = (n * u64::from(self.else_q16) + u64::from(super::Q16 / 2)) >> 16;
        (n - else_n.min(n)) as u32
    }

    /// Element `item` run as plain scalar code.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }

    /// The element's data, where either path's chain starts.
    #[inline(always)]
    pub(crate) fn path_start(&self, item: u32) -> u32 {
        item_hash(self.seed ^ 1, item) as u32
    }
}

#[inline(always)]
fn lcg_chain(mut v: u32, n: u32, a: u32, c: u32) -> u32 {
    for _ in 0..n {
        v = v.wrapping_mul(a).wrapping_add(c);
    }
    v
}

impl TwoPath for BranchSplitBench {
    type Output = u32;

    fn regions(&self) -> TwoPathRegions {
        TwoPathRegions::new([
            DECIDE,
            IF_LIGHT.with_cost(self.light),
            ELSE_HEAVY.with_cost(self.heavy),
            ITEM,
        ])
    }

    /// `true` (path A) is the if branch.
    #[inline]
    fn decide(&self, item: u32) -> bool {
        match self.layout {
            MaskLayout::Linear => item < self.if_section(),
            MaskLayout::Random => {
                !happens((item_hash(self.seed, item) >> 40) as u32, self.else_q16)
            }
        }
    }

    #[inline]
    fn path_a(&self, item: u32) -> u32 {
        lcg_chain(self.path_start(item), self.light, 1_664_525, 1_013_904_223)
    }

    #[inline]
    fn path_b(&self, item: u32) -> u32 {
        lcg_chain(self.path_start(item), self.heavy, 22_695_477, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_mask_has_two_sections() {
        let b = BranchSplitBench::new(1000, 0.25, MaskLayout::Linear, 0);
        let ifs = (0..1000).filter(|i| b.decide(*i)).count();
        assert_eq!(ifs, 750);
        assert!(b.decide(749) && !b.decide(750));
        assert!(
            (0..1000).all(|i| BranchSplitBench::new(1000, 0.0, MaskLayout::Linear, 0).decide(i))
        );
        assert!(
            (0..1000).all(|i| !BranchSplitBench::new(1000, 1.0, MaskLayout::Random, 0).decide(i))
        );
    }

    #[test]
    fn random_mask_has_the_fraction() {
        let b = BranchSplitBench::new(100_000, 0.1, MaskLayout::Random, 3);
        let elses = (0..100_000).filter(|i| !b.decide(*i)).count();
        assert!((elses as f64 / 1e5 - 0.1).abs() < 0.005, "{elses}");
    }
}
