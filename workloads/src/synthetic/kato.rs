//! The two experiments of seed 004 (Kato, Suda & Tamada): dynamic work assignment (fig. 11,
//! appendix fig. A-1, table 1, fig. 12) and branch path unification (fig. 13, appendix
//! fig. A-2, tables 2–4, fig. 14).
//!
//! Both use the paper's `function`: `LOOP` steps of `tmp = 0xffff & (tmp * tmp + tmp)` on a
//! 32-bit integer (`tmp < 2^16`, so `tmp² + tmp < 2^32`: no overflow, the same on every
//! backend). Region costs count three instructions per step (multiply, add, and).

use reconverge_simt::Region;
use reconverge_transforms::{
    ItemLoop, ItemLoopRegion, ItemLoopRegions, Tally, TwoPath, TwoPathRegion, TwoPathRegions,
};

use super::item_hash;

/// Instructions of one step of `function` (`mul`, `add`, `and`).
pub const STEP_INSTRUCTIONS: u32 = 3;

/// `loop_num` steps of `tmp = 0xffff & (tmp * tmp + tmp)` (fig. 11; functionB of fig. A-2).
#[inline(always)]
pub fn function(mut tmp: u32, loop_num: u32) -> u32 {
    for _ in 0..loop_num {
        tmp = 0xFFFF & (tmp & 0xFFFF).wrapping_mul(tmp & 0xFFFF).wrapping_add(tmp);
    }
    tmp
}

/// functionA of fig. A-2: the OCR of the paper reads `(tmp * tmp) -+ tmp`; we take it as a
/// subtraction, so that the two paths compute different values (wrapping, masked to 16 bits).
#[inline(always)]
pub fn function_a(mut tmp: u32, loop_num: u32) -> u32 {
    for _ in 0..loop_num {
        tmp = 0xFFFF & (tmp & 0xFFFF).wrapping_mul(tmp & 0xFFFF).wrapping_sub(tmp);
    }
    tmp
}

// ---- Dynamic work assignment (fig. 11 / A-1) ----------------------------------------------

/// One call of `function` (`LOOP_NUM` steps) and the trip-count decrement.
pub const DWA_BODY: Region = ItemLoopRegion::Body.region("function (LOOP_NUM steps)", 0);
/// Loading the element, `preparation()`, storing the result.
pub const DWA_ITEM: Region = ItemLoopRegion::Item.region("load / store", 4);

/// Fig. A-1's kernel: element `i` has a trip count `input_val` (1 to `max_trips`, random per
/// element, as the paper's `input_array`), starts with `num = input_val` and runs
/// `num = function(num)` `input_val` times; the output is `num`.
///
/// Parameters: `loop_num` (LOOP_NUM, table 1: 1 to 512) and `max_trips` (the largest
/// trip count; the paper does not state its input's range). As an
/// [`ItemLoop`], it runs under the baseline (fig. A-1 `kernel`) and
/// [`Strategy::DYNAMIC_WORK_ASSIGNMENT`](reconverge_transforms::Strategy::DYNAMIC_WORK_ASSIGNMENT)
/// (`kernelEnhanced`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct DynamicWork {
    /// Seed of the trip counts.
    pub seed: u64,
    /// LOOP_NUM: steps of `function` per trip.
    pub loop_num: u32,
    /// Largest trip count.
    pub max_trips: u32,
}

/// A lane's element in fig. A-1's loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct DwaState {
    /// `num`.
    pub num: u32,
    /// `input_val`: trips left.
    pub left: u32,
}

impl DynamicWork {
    /// LOOP_NUM `loop_num`, trip counts uniform in `1..=max_trips`.
    pub fn new(loop_num: u32, max_trips: u32, seed: u64) -> Self {
        Self {
            seed,
            loop_num,
            max_trips: max_trips.max(1),
        }
    }

    /// Element `item`'s trip count.
    pub fn trips(&self, item: u32) -> u32 {
        1 + ((item_hash(self.seed, item) >> 32) as u32) % self.max_trips.max(1)
    }

    /// Element `item` run as plain scalar code.
    pub fn reference(&self, item: u32) -> u32 {
        let t = self.trips(item);
        (0..t).fold(t, |num, _| function(num, self.loop_num))
    }
}

impl ItemLoop for DynamicWork {
    type State = DwaState;
    type Output = u32;

    fn regions(&self) -> ItemLoopRegions {
        ItemLoopRegions::new([
            DWA_BODY.with_cost(self.loop_num.saturating_mul(STEP_INSTRUCTIONS) + 2),
            DWA_ITEM,
        ])
    }

    #[inline]
    fn start(&self, item: u32) -> DwaState {
        let t = self.trips(item);
        DwaState { num: t, left: t }
    }

    #[inline]
    fn running(&self, s: &DwaState) -> bool {
        s.left > 0
    }

    #[inline]
    fn body<T: Tally>(&self, s: &mut DwaState, _: &mut T) {
        s.num = function(s.num, self.loop_num);
        s.left -= 1;
    }

    #[inline]
    fn finish(&self, s: &DwaState) -> u32 {
        s.num
    }
}

// ---- Branch path unification (fig. 13 / A-2) ----------------------------------------------

/// Reading `length_ary[i] & 0x4`.
pub const BPU_DECIDE: Region = TwoPathRegion::Decide.region("length_ary[i] & 4", 2);
/// functionA; its cost is set to `3 · LOOP`.
pub const BPU_A: Region = TwoPathRegion::PathA.region("functionA (LOOP steps)", 0);
/// functionB; its cost is set to `3 · LOOP`.
pub const BPU_B: Region = TwoPathRegion::PathB.region("functionB (LOOP steps)", 0);
/// Storing the output.
pub const BPU_ITEM: Region = TwoPathRegion::Item.region("store", 1);

/// Fig. A-2's kernel: element `i` takes functionA when bit 2 of its random `length_ary[i]` is
/// set (probability 1/2), functionB otherwise, each `LOOP` steps starting from `tmp = i`.
///
/// Parameters: `loop_count` (LOOP, tables 2–3: 1 to 10000). DATA_PER_THREAD is the strategy's
/// parameter: [`Strategy::branch_path_unification`](reconverge_transforms::Strategy::branch_path_unification)
/// `{ items_per_thread }` (1, 4, 16, 64 in the paper); the baseline is fig. A-2's `kernel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct PathUnification {
    /// Seed of `length_ary`.
    pub seed: u64,
    /// LOOP: steps of each function.
    pub loop_count: u32,
}

impl PathUnification {
    /// LOOP `loop_count`.
    pub fn new(loop_count: u32, seed: u64) -> Self {
        Self { seed, loop_count }
    }

    /// Element `item` run as plain scalar code.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

impl TwoPath for PathUnification {
    type Output = u32;

    fn regions(&self) -> TwoPathRegions {
        let cost = self.loop_count.saturating_mul(STEP_INSTRUCTIONS);
        TwoPathRegions::new([
            BPU_DECIDE,
            BPU_A.with_cost(cost),
            BPU_B.with_cost(cost),
            BPU_ITEM,
        ])
    }

    #[inline]
    fn decide(&self, item: u32) -> bool {
        (item_hash(self.seed, item) >> 32) & 0x4 != 0
    }

    #[inline]
    fn path_a(&self, item: u32) -> u32 {
        function_a(item, self.loop_count)
    }

    #[inline]
    fn path_b(&self, item: u32) -> u32 {
        function(item, self.loop_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_stays_in_16_bits() {
        assert_eq!(function(3, 1), 12);
        assert_eq!(function(0xFFFF, 1), 0xFFFF & (0xFFFFu32 * 0xFFFF + 0xFFFF));
        assert!(function(12345, 1000) <= 0xFFFF);
        assert_eq!(function_a(3, 1), 6);
    }

    #[test]
    fn trips_are_in_range_and_reference_runs_them() {
        let d = DynamicWork::new(2, 8, 1);
        assert!((0..1000).all(|i| (1..=8).contains(&d.trips(i))));
        let t = d.trips(5);
        let mut num = t;
        for _ in 0..t {
            num = function(num, 2);
        }
        assert_eq!(d.reference(5), num);
    }

    #[test]
    fn half_the_elements_take_function_a() {
        let p = PathUnification::new(1, 4);
        let a = (0..100_000).filter(|i| p.decide(*i)).count();
        assert!((a as f64 / 1e5 - 0.5).abs() < 0.01);
    }
}
