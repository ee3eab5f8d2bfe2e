//! The Collatz loop of the README's example, with a step limit: item `i` runs the Collatz
//! sequence of `i + 1` and outputs its number of steps.
//!
//! ```text
//! n = i + 1, steps = 0
//! while n != 1 && steps < max_steps {
//!     if n is odd { n = 3n + 1 } else { n = n / 2 }   // taken / not taken
//!     steps += 1
//! }
//! output = steps
//! ```
//!
//! Integer arithmetic only (`n` is a `u64`, `3n + 1` wraps instead of panicking; no start value
//! below 2^32 comes near 2^64), so every backend gives the same bits. The step limit makes the
//! loop end for any input, even one whose sequence would wrap or cycle.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

/// `n` odd? (one instruction, as in the README's example).
pub const CONDITION: Region = LoopRegion::Condition.region("odd?", 1);
/// `n = 3n + 1`.
pub const TAKEN: Region = LoopRegion::Taken.region("3n + 1", 2);
/// `n = n / 2`.
pub const NOT_TAKEN: Region = LoopRegion::NotTaken.region("n / 2", 1);
/// `steps += 1`.
pub const COUNT: Region = LoopRegion::AfterBranch.region("count", 1);
/// Starting (`n = i + 1`) and storing an item.
pub const ITEM: Region = LoopRegion::Item.region("item", 2);

/// The Collatz workload's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Collatz {
    /// Steps after which an item stops even if its sequence has not reached 1.
    pub max_steps: u32,
}

/// One item's place in its sequence.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct CollatzState {
    /// The current value of the sequence.
    pub n: u64,
    /// Steps taken so far.
    pub steps: u32,
}

impl Collatz {
    /// Item `item` (the sequence of `item + 1`) run as one plain scalar loop.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

impl BranchLoop for Collatz {
    type State = CollatzState;
    /// Steps until the sequence reached 1, or `max_steps`.
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([CONDITION, TAKEN, NOT_TAKEN, COUNT, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> CollatzState {
        CollatzState {
            n: u64::from(item) + 1,
            steps: 0,
        }
    }

    #[inline]
    fn running(&self, s: &CollatzState) -> bool {
        s.n != 1 && s.steps < self.max_steps
    }

    #[inline]
    fn condition(&self, s: &mut CollatzState) -> bool {
        s.n & 1 == 1
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut CollatzState, _: &mut T) {
        s.n = s.n.wrapping_mul(3).wrapping_add(1);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut CollatzState, _: &mut T) {
        s.n >>= 1;
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut CollatzState, _: &mut T) {
        s.steps += 1;
    }

    #[inline]
    fn finish(&self, s: &CollatzState) -> u32 {
        s.steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collatz step counts from OEIS A006577 ("number of halving and tripling steps to reach 1
    /// in the 3x+1 problem"), n = 1..=30.
    const A006577: [u32; 30] = [
        0, 1, 7, 2, 5, 8, 16, 3, 19, 6, 14, 9, 9, 17, 17, 4, 12, 20, 20, 7, 7, 15, 15, 10, 23, 10,
        111, 18, 18, 18,
    ];

    #[test]
    fn known_step_counts() {
        let c = Collatz { max_steps: 10_000 };
        // Item i runs the sequence of i + 1.
        assert_eq!(c.reference(0), 0, "1 is already 1");
        assert_eq!(c.reference(26), 111, "27 takes 111 steps");
        assert_eq!(c.reference(96), 118, "97 takes 118 steps");
        // 837799 has the longest sequence below one million: 524 steps.
        assert_eq!(c.reference(837_798), 524);
        for (i, &steps) in A006577.iter().enumerate() {
            assert_eq!(c.reference(i as u32), steps, "n = {}", i + 1);
        }
    }

    #[test]
    fn max_steps_caps_the_loop() {
        assert_eq!(Collatz { max_steps: 100 }.reference(26), 100);
        assert_eq!(Collatz { max_steps: 111 }.reference(26), 111);
        assert_eq!(Collatz { max_steps: 112 }.reference(26), 111);
        assert_eq!(Collatz { max_steps: 0 }.reference(26), 0);
        // The largest start value runs without overflow checks failing.
        assert!(Collatz { max_steps: 2000 }.reference(u32::MAX) > 0);
    }
}
