//! A binary search per item with a data-dependent iteration count: item `i` finds, by
//! bisection over `[0, 2^k)`, the largest `x` with `f(x) = x² + (x >> 3) <= v` for a value `v`
//! drawn uniformly below `f(2^k)`. The range's exponent `k = min_log + step_log · j` grows with
//! a geometric `j` (`P(j >= n) = 2^-n`, capped at `levels`), so most items search a small
//! range in a few iterations and a few search a large one, and every iteration's branch (which
//! half holds the answer) goes either way, unpredictably, on paths of equal cost.
//!
//! ```text
//! lo = 0, hi = 2^k(item), v = value(item)
//! while lo < hi {
//!     mid = (lo + hi) / 2
//!     if f(mid) <= v { lo = mid + 1 }   // taken: the answer is above mid
//!     else           { hi = mid }       // not taken
//! }
//! output = lo   // the number of x in [0, 2^k) with f(x) <= v
//! ```
//!
//! Written for the advisor's held-out set (issue 27) after the first four had been scored, and
//! before the advisor's predictions on it were looked at.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::item_hash;

/// The bisection's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Bisect {
    /// log2 of the smallest range.
    pub min_log: u32,
    /// log2 added per level.
    pub step_log: u32,
    /// Largest level `j` (so the largest range is `2^(min_log + step_log · levels)`, cut at
    /// 2^16 so that a value's draw, a 31-bit number times `f(2^16)`, fits 64 bits).
    pub levels: u32,
    /// Seed of the items' values and levels.
    pub seed: u32,
}

/// One item's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct BisectState {
    /// Lower end: every x below it has `f(x) <= v`.
    pub lo: u32,
    /// Upper end: every x at or above it has `f(x) > v`.
    pub hi: u32,
    /// The midpoint being tested.
    pub mid: u32,
    /// The value searched for.
    pub v: u64,
}

/// The monotone function searched.
#[inline(always)]
const fn f(x: u32) -> u64 {
    (x as u64) * (x as u64) + (x >> 3) as u64
}

impl Bisect {
    /// Item `item`'s range exponent `k`.
    #[inline]
    pub fn range_log(&self, item: u32) -> u32 {
        let j = item_hash(self.seed ^ 0xb15e, item)
            .trailing_ones()
            .min(self.levels);
        (self.min_log + self.step_log * j).min(16)
    }

    /// Item `item`'s value: uniform below `f(2^k)`.
    #[inline]
    pub fn value(&self, item: u32) -> u64 {
        let top = f(1 << self.range_log(item));
        (u64::from(item_hash(self.seed, item) >> 1) * top) >> 31
    }

    /// Item `item` by counting, not searching: the x in `[0, 2^k)` with `f(x) <= v` (`f` is
    /// increasing, so they are the ones below the partition point).
    pub fn reference(&self, item: u32) -> u32 {
        let v = self.value(item);
        (0..1u32 << self.range_log(item))
            .filter(|&x| f(x) <= v)
            .count() as u32
    }

    /// Item `item` run as the branch loop, for tests.
    pub fn looped(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

const CONDITION: Region = LoopRegion::Condition.region("f(mid) <= v?", 5);
const TAKEN: Region = LoopRegion::Taken.region("lo = mid + 1", 1);
const NOT_TAKEN: Region = LoopRegion::NotTaken.region("hi = mid", 1);
const AFTER_BRANCH: Region = LoopRegion::AfterBranch.region("mid", 2);
const ITEM: Region = LoopRegion::Item.region("range, value, store", 30);

impl BranchLoop for Bisect {
    type State = BisectState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([CONDITION, TAKEN, NOT_TAKEN, AFTER_BRANCH, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> BisectState {
        let hi = 1u32 << self.range_log(item);
        BisectState {
            lo: 0,
            hi,
            mid: hi / 2,
            v: self.value(item),
        }
    }

    #[inline]
    fn running(&self, s: &BisectState) -> bool {
        s.lo < s.hi
    }

    #[inline]
    fn condition(&self, s: &mut BisectState) -> bool {
        f(s.mid) <= s.v
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut BisectState, _: &mut T) {
        s.lo = s.mid + 1;
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut BisectState, _: &mut T) {
        s.hi = s.mid;
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut BisectState, _: &mut T) {
        s.mid = s.lo + (s.hi - s.lo) / 2;
    }

    #[inline]
    fn finish(&self, s: &BisectState) -> u32 {
        s.lo
    }
}

#[cfg(test)]
mod tests {
    use crate::held_out::BISECT;

    #[test]
    fn the_loop_finds_the_partition_point() {
        let w = BISECT;
        for item in 0..2000 {
            assert_eq!(w.looped(item), w.reference(item), "item {item}");
        }
    }

    #[test]
    fn levels_are_geometric() {
        let w = BISECT;
        let n = 1 << 14;
        let small = (0..n).filter(|&i| w.range_log(i) == w.min_log).count();
        // P(j = 0) = 1/2: 8192 of 16,384 expected, binomial standard deviation 64.
        assert!((7900..8500).contains(&small), "{small}");
        let largest = w.min_log + w.step_log * w.levels;
        assert!((0..n).any(|i| w.range_log(i) == largest));
    }
}
