//! A two-path kernel whose paths come in runs: items are grouped in runs of `run_length`
//! consecutive items; `heavy_percent` % of the runs take the heavy path A (`heavy_rounds` hash
//! rounds), the rest the light path B (one round), and `flip_percent` % of the items take the
//! other path than their run. Warps inside a run mostly agree; warps on a run's edge, and the
//! flipped items, diverge.

use reconverge_simt::Region;
use reconverge_transforms::{TwoPath, TwoPathRegion, TwoPathRegions};

use super::{MIX_INSTRUCTIONS, item_hash, mix};

/// The two-path kernel's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct TwoPathRuns {
    /// Items per run (0 is read as 1).
    pub run_length: u32,
    /// Percent of runs on the heavy path.
    pub heavy_percent: u32,
    /// Percent of items that take the other path than their run.
    pub flip_percent: u32,
    /// Hash rounds of the heavy path.
    pub heavy_rounds: u32,
    /// Seed.
    pub seed: u32,
}

impl TwoPathRuns {
    /// The output item `item` should have: one plain scalar branch.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

const DECIDE: Region = TwoPathRegion::Decide.region("run, flip", 2 * MIX_INSTRUCTIONS + 6);
const PATH_A: Region = TwoPathRegion::PathA.region("heavy rounds", 0);
const PATH_B: Region = TwoPathRegion::PathB.region("one round", MIX_INSTRUCTIONS + 2);
const ITEM: Region = TwoPathRegion::Item.region("store", 2);

impl TwoPath for TwoPathRuns {
    type Output = u32;

    fn regions(&self) -> TwoPathRegions {
        TwoPathRegions::new([
            DECIDE,
            PATH_A.with_cost(self.heavy_rounds.saturating_mul(MIX_INSTRUCTIONS + 1) + 2),
            PATH_B,
            ITEM,
        ])
    }

    #[inline]
    fn decide(&self, item: u32) -> bool {
        let run = item / self.run_length.max(1);
        let heavy = item_hash(self.seed, run) % 100 < self.heavy_percent;
        let flip = item_hash(self.seed ^ 0xF11F, item) % 100 < self.flip_percent;
        heavy != flip
    }

    #[inline]
    fn path_a(&self, item: u32) -> u32 {
        let mut x = item_hash(self.seed ^ 0xA, item);
        for r in 0..self.heavy_rounds {
            x = mix(x ^ r);
        }
        x
    }

    #[inline]
    fn path_b(&self, item: u32) -> u32 {
        mix(item_hash(self.seed ^ 0xB, item)) | 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held_out::{TWO_PATH_RUNS, TWO_PATH_RUNS_ITEMS};

    #[test]
    fn paths_come_in_runs_with_flips() {
        let w = TWO_PATH_RUNS;
        let n = TWO_PATH_RUNS_ITEMS / 4;
        let heavy = (0..n).filter(|&i| w.decide(i)).count() as f64 / f64::from(n);
        // 0.3 · 0.9 + 0.7 · 0.1 = 0.34 expected.
        assert!((0.30..0.38).contains(&heavy), "{heavy}");
        // Neighbours agree far more often than independent draws would (0.34² + 0.66² ≈ 0.55).
        let agree =
            (1..n).filter(|&i| w.decide(i) == w.decide(i - 1)).count() as f64 / f64::from(n - 1);
        assert!(agree > 0.75, "{agree}");
        assert_ne!(w.path_a(3), w.path_b(3));
        assert_eq!(
            w.reference(3),
            if w.decide(3) {
                w.path_a(3)
            } else {
                w.path_b(3)
            }
        );
    }
}
