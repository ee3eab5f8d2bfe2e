//! A branch loop whose trip count is heavy-tailed: item `i` runs
//! `trips = min(max_trips, ⌊min_trips · 2^32 / (u + 1)⌋)` iterations for a uniform 32-bit `u`
//! (a Pareto law of index 1: `P(trips > t) ≈ min_trips / t`), so most items are short and a few
//! run thousands of iterations. Each iteration hashes its value; when the value's two low bits
//! are zero (a quarter of the iterations, unpredictably) it runs `heavy_rounds` extra rounds.
//!
//! ```text
//! x = hash(item), left = trips(item), acc = 0
//! while left > 0 {
//!     if x & 3 == 0 { repeat heavy_rounds: x = mix(x + 1) }   // taken: the costly path
//!     else          { x = x ^ (x >> 7) ... one round }          // not taken
//!     acc ^= x; left -= 1                                       // after the branch
//! }
//! output = acc
//! ```

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::{MIX_INSTRUCTIONS, item_hash, mix, mix_rounds, mix_rounds_instructions};

/// The heavy-tailed loop's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct HeavyTail {
    /// Smallest trip count (the Pareto law's scale), at least 1.
    pub min_trips: u32,
    /// Largest trip count (the tail is cut here).
    pub max_trips: u32,
    /// Hash rounds of the costly path.
    pub heavy_rounds: u32,
    /// Seed of the items' values.
    pub seed: u32,
}

/// One item's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct HeavyTailState {
    /// The running value.
    pub x: u32,
    /// Iterations left.
    pub left: u32,
    /// Xor of the values after each iteration.
    pub acc: u32,
}

impl HeavyTail {
    /// Item `item`'s trip count.
    #[inline]
    pub fn trips(&self, item: u32) -> u32 {
        let u = u64::from(item_hash(self.seed ^ 0x5eed, item));
        let t = (u64::from(self.min_trips.max(1)) << 32) / (u + 1);
        t.clamp(1, u64::from(self.max_trips.max(1))) as u32
    }
}

const CONDITION: Region = LoopRegion::Condition.region("x & 3 == 0?", 2);
const TAKEN: Region = LoopRegion::Taken.region("heavy rounds", 0);
const NOT_TAKEN: Region = LoopRegion::NotTaken.region("one round", MIX_INSTRUCTIONS);
const AFTER_BRANCH: Region = LoopRegion::AfterBranch.region("acc, left", 3);
const ITEM: Region = LoopRegion::Item.region("trips, store", 24);

impl BranchLoop for HeavyTail {
    type State = HeavyTailState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        let taken = TAKEN.with_cost(mix_rounds_instructions(self.heavy_rounds));
        LoopRegions::new([CONDITION, taken, NOT_TAKEN, AFTER_BRANCH, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> HeavyTailState {
        HeavyTailState {
            x: item_hash(self.seed, item),
            left: self.trips(item),
            acc: 0,
        }
    }

    #[inline]
    fn running(&self, s: &HeavyTailState) -> bool {
        s.left > 0
    }

    #[inline]
    fn condition(&self, s: &mut HeavyTailState) -> bool {
        s.x & 3 == 0
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut HeavyTailState, _: &mut T) {
        s.x = mix_rounds(s.x, self.heavy_rounds);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut HeavyTailState, _: &mut T) {
        s.x = mix(s.x);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut HeavyTailState, _: &mut T) {
        s.acc ^= s.x;
        s.left -= 1;
    }

    #[inline]
    fn finish(&self, s: &HeavyTailState) -> u32 {
        s.acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held_out::{HEAVY_TAIL, HEAVY_TAIL_ITEMS};

    #[test]
    fn trips_follow_a_pareto_tail() {
        let w = HEAVY_TAIL;
        let n = 1 << 16;
        let trips: u32 = (0..n).map(|i| w.trips(i * 16)).filter(|&t| t > 64).count() as u32;
        // P(trips > 64) = 4 / 64 = 1/16 under the Pareto law: 4096 of 65,536 expected; a
        // binomial's standard deviation is about 62.
        assert!((3800..4400).contains(&trips), "{trips}");
        let max = (0..HEAVY_TAIL_ITEMS).map(|i| w.trips(i)).max().unwrap_or(0);
        assert_eq!(max, w.max_trips);
        assert!((0..1000).all(|i| w.trips(i) >= w.min_trips));
    }

    #[test]
    fn reference_runs_its_trips_and_the_costly_path_changes_the_output() {
        let w = HEAVY_TAIL;
        let cheap = HeavyTail {
            heavy_rounds: 0,
            ..w
        };
        let differ = (0..200)
            .filter(|&i| w.run_item(i) != cheap.run_item(i))
            .count();
        assert!(differ > 150, "{differ}");
        // One trip, not taken: acc = mix(hash).
        let one = HeavyTail {
            min_trips: 1,
            max_trips: 1,
            ..w
        };
        let item = (0..100)
            .find(|&i| item_hash(w.seed, i) & 3 != 0)
            .unwrap_or(0);
        assert_eq!(one.run_item(item), mix(item_hash(w.seed, item)));
    }
}
