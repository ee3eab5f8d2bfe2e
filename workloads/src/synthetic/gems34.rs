//! The branch-probability experiment of GPU Gems 2, ch. 34 (Harris & Buck, "GPU Flow-Control
//! Idioms"), §34.2.3–34.2.4, figs. 34-1 and 34-2: the cost of a branch against the
//! probability of taking it, for a **random** condition and a **spatially coherent** one.
//!
//! Each item (a fragment) evaluates a Boolean condition; if it holds, the item runs an
//! expensive path (`work` instructions), otherwise a cheap one (`cheap`: writing a constant).
//! In the book the random condition comes from a texture of random values and the coherent one
//! from "a rectangular region set to a constant Boolean value"; here the coherent condition is
//! constant over runs of `run` consecutive items (one draw per run), which keeps the same
//! probability of taking the branch while making warps agree. With `run = 1` the condition is
//! random per item. The book's finding: with coherence, cost grows with the probability; at
//! random, any probability away from 0 and 1 costs about both paths (predication's cost),
//! "the GPU will effectively fall back to predication".
//!
//! # Parameters
//!
//! - `taken_q16`: probability of taking the branch, in 1/65536 (the figures' x axis);
//! - `run`: items per coherent run (1 = random, [`Gems34Branch::random`]; the default coherent
//!   run is 1024 items, [`Gems34Branch::coherent`]);
//! - `work`, `cheap`: instructions of the taken and not-taken paths (defaults 64 and 4).
//!
//! Strategies: baseline (branching instructions, fig. 34-2), predication (§34.2.1), z-cull
//! masking (the condition precomputed into a mask, whole warps culled, fig. 34-1), and its
//! relatives static branch resolution and branch splitting.

use reconverge_simt::Region;
use reconverge_transforms::{TwoPath, TwoPathRegion, TwoPathRegions};

use super::{happens, item_hash, probability_to_q16, q16_to_probability};

/// Evaluating the condition.
pub const DECIDE: Region = TwoPathRegion::Decide.region("condition", 2);
/// The expensive taken path; its cost is set to `work`.
pub const WORK: Region = TwoPathRegion::PathA.region("taken: expensive shading", 0);
/// The cheap not-taken path; its cost is set to `cheap`.
pub const CHEAP: Region = TwoPathRegion::PathB.region("not taken: write constant", 0);
/// Writing the output.
pub const ITEM: Region = TwoPathRegion::Item.region("store", 1);

/// The experiment's parameters (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Gems34Branch {
    /// Seed of the condition and the data.
    pub seed: u64,
    /// Probability of taking the branch in 1/65536.
    pub taken_q16: u32,
    /// Items sharing one draw of the condition (1 = random).
    pub run: u32,
    /// Instructions of the taken path.
    pub work: u32,
    /// Instructions of the not-taken path.
    pub cheap: u32,
}

impl Gems34Branch {
    /// A random condition taken with probability `p`.
    pub fn random(p: f64, seed: u64) -> Self {
        Self {
            seed,
            taken_q16: probability_to_q16(p),
            run: 1,
            work: 64,
            cheap: 4,
        }
    }

    /// A coherent condition: runs of 1024 items share their outcome.
    pub fn coherent(p: f64, seed: u64) -> Self {
        Self {
            run: 1024,
            ..Self::random(p, seed)
        }
    }

    /// The same experiment with runs of `run` items (at least 1).
    pub fn with_run(self, run: u32) -> Self {
        Self {
            run: run.max(1),
            ..self
        }
    }

    /// The probability of taking the branch.
    pub fn probability(&self) -> f64 {
        q16_to_probability(self.taken_q16)
    }

    /// Item `item` run as plain scalar code.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

impl TwoPath for Gems34Branch {
    type Output = u32;

    fn regions(&self) -> TwoPathRegions {
        TwoPathRegions::new([
            DECIDE,
            WORK.with_cost(self.work),
            CHEAP.with_cost(self.cheap),
            ITEM,
        ])
    }

    #[inline]
    fn decide(&self, item: u32) -> bool {
        let cell = item / self.run.max(1);
        happens((item_hash(self.seed, cell) >> 40) as u32, self.taken_q16)
    }

    #[inline]
    fn path_a(&self, item: u32) -> u32 {
        // `work` dependent xorshift-multiply steps on the item's data.
        let mut v = item_hash(self.seed ^ 2, item) as u32;
        for _ in 0..self.work {
            v ^= v >> 15;
            v = v.wrapping_mul(0x2C1B_3C6D);
        }
        v
    }

    #[inline]
    fn path_b(&self, _item: u32) -> u32 {
        0xFFFF_FFFF
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coherent_runs_share_the_outcome() {
        let g = Gems34Branch::coherent(0.5, 1);
        for run in 0..20u32 {
            let first = g.decide(run * 1024);
            assert!((0..1024).all(|i| g.decide(run * 1024 + i) == first));
        }
        let taken = (0..1 << 20).filter(|i| g.decide(*i)).count();
        assert!((taken as f64 / f64::from(1u32 << 20) - 0.5).abs() < 0.1);
    }

    #[test]
    fn random_condition_has_the_probability() {
        let g = Gems34Branch::random(0.3, 1);
        let taken = (0..100_000).filter(|i| g.decide(*i)).count();
        assert!((taken as f64 / 1e5 - 0.3).abs() < 0.01);
    }
}
