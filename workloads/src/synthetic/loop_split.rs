//! The loop-splitting benchmark of seed 001 (Carrillo, Siegel & Li, §4.1, fig. 5).
//!
//! Fig. 5a is a loop whose body has two independent parts, the first working through `ptr1`,
//! `ptr2` and the second through `ptr3`, `ptr4`; fig. 5b splits it into two loops so that only
//! one part's values are live at a time. The paper gives pseudo-code only. Here each part keeps
//! [`ACCUMULATORS`] independent 32-bit accumulators (the paper's live pointers, made many
//! enough to matter on a GPU with 65,536 registers per SM), each updated in every iteration by
//! a multiply / xor / rotate mix with constants of its own, so the compiler can merge none of
//! them. The fused loop therefore needs both parts' accumulators live at once; each split loop
//! needs one part's (the other part's start values are constants, materialised when its loop
//! begins). When loop A ends its accumulators are hashed into one 64-bit carry
//! ([`SplitLoop::finish_a`]), so only that carry stays live through loop B; the output hashes
//! the carry with part B's accumulators, a function of all of them, bitwise equal under every
//! strategy and backend (wrapping integer arithmetic only).

use reconverge_simt::Region;
use reconverge_transforms::{SplitLoop, SplitLoopRegion, SplitLoopRegions};

use super::item_hash;

/// Independent accumulators of each part.
pub const ACCUMULATORS: usize = 12;

/// One iteration of part A (fig. 5a: the operations on `ptr1`, `ptr2`).
pub const PART_A: Region = SplitLoopRegion::PartA.region("part A (ptr1, ptr2)", 0);
/// One iteration of part B (the operations on `ptr3`, `ptr4`).
pub const PART_B: Region = SplitLoopRegion::PartB.region("part B (ptr3, ptr4)", 0);
/// Starting an item and storing its output.
pub const LSPLIT_ITEM: Region = SplitLoopRegion::Item.region("start / store", 4);

/// Instructions of one iteration of a part: deriving the iteration's value (multiply, xor)
/// and four per accumulator (add, xor, rotate, multiply).
pub const PART_INSTRUCTIONS: u32 = 2 + 4 * ACCUMULATORS as u32;

const A_ADD: [u32; ACCUMULATORS] = [
    0x243F_6A88,
    0x85A3_08D3,
    0x1319_8A2E,
    0x0370_7344,
    0xA409_3822,
    0x299F_31D0,
    0x082E_FA98,
    0xEC4E_6C89,
    0x4528_21E6,
    0x38D0_1377,
    0xBE54_66CF,
    0x34E9_0C6C,
];
const A_MUL: [u32; ACCUMULATORS] = [
    0x9E37_79B1,
    0x85EB_CA77,
    0xC2B2_AE3D,
    0x27D4_EB2F,
    0x1656_67B1,
    0xCC9E_2D51,
    0x1B87_3593,
    0xE654_6B65,
    0x85EB_CA6B,
    0xC2B2_AE35,
    0x2545_F491,
    0x9E37_79B9 | 1,
];
const A_ROT: [u32; ACCUMULATORS] = [5, 7, 11, 13, 17, 19, 23, 3, 9, 15, 21, 27];
const B_ADD: [u32; ACCUMULATORS] = [
    0xC0AC_29B7,
    0xC97C_50DD,
    0x3F84_D5B5,
    0xB547_0917,
    0x9216_D5D9,
    0x8979_FB1B,
    0xD131_0BA6,
    0x98DF_B5AC,
    0x2FFD_72DB,
    0xD01A_DFB7,
    0xB8E1_AFED,
    0x6A26_7E96,
];
const B_MUL: [u32; ACCUMULATORS] = [
    0xBA7C_9045,
    0xF12C_7F99,
    0x24A1_9947,
    0xB391_6CF7,
    0x0801_F2E3,
    0x858E_FC17,
    0x6369_2A8B,
    0x5F9A_3B1D,
    0x7B54_A41D,
    0xC25A_5C4F,
    0x4B5E_2F35,
    0xA1E3_8B93,
];
const B_ROT: [u32; ACCUMULATORS] = [29, 25, 22, 18, 14, 10, 6, 2, 31, 26, 12, 8];

/// Seed 001 fig. 5's loop: item `i` runs [`trips`](Self::trips) iterations of part A and part
/// B (each [`ACCUMULATORS`] accumulators), output [`SplitLoop::finish`] of part A's carry (a
/// 64-bit hash of its accumulators) and part B's accumulators.
///
/// As a [`SplitLoop`] it runs under
/// [`Strategy::BASELINE`](reconverge_transforms::Strategy::BASELINE) (fig. 5a, fused) and
/// [`Strategy::LOOP_SPLITTING`](reconverge_transforms::Strategy::LOOP_SPLITTING) (fig. 5b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct LoopSplitBench {
    /// Seed of the items' keys.
    pub seed: u64,
    /// Iterations per item (every item the same).
    pub trips: u32,
    /// Padding (keeps the layout explicit; always 0).
    pub pad: u32,
}

/// A part's state: the item's key (its derived input) and the accumulators.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PartState {
    /// The item's key for this part.
    pub key: u32,
    /// The running accumulators.
    pub acc: [u32; ACCUMULATORS],
}

impl LoopSplitBench {
    /// `trips` iterations per item.
    pub fn new(trips: u32, seed: u64) -> Self {
        Self {
            seed,
            trips,
            pad: 0,
        }
    }

    /// Item `item` run as plain scalar code: the fused loop of fig. 5a.
    pub fn reference(&self, item: u32) -> u64 {
        self.run_item(item)
    }

    #[inline(always)]
    fn key(&self, item: u32) -> u64 {
        item_hash(self.seed, item)
    }
}

impl SplitLoop for LoopSplitBench {
    type A = PartState;
    type B = PartState;
    type Carry = u64;
    type Output = u64;

    fn regions(&self) -> SplitLoopRegions {
        SplitLoopRegions::new([
            PART_A.with_cost(PART_INSTRUCTIONS),
            PART_B.with_cost(PART_INSTRUCTIONS),
            LSPLIT_ITEM,
        ])
    }

    #[inline]
    fn trips(&self, _item: u32) -> u32 {
        self.trips
    }

    #[inline]
    fn start_a(&self, item: u32) -> PartState {
        PartState {
            key: self.key(item) as u32,
            acc: A_ADD,
        }
    }

    #[inline]
    fn start_b(&self, item: u32) -> PartState {
        PartState {
            key: (self.key(item) >> 32) as u32,
            acc: B_ADD,
        }
    }

    // The accumulator loops index the arrays with a constant trip count so that LLVM unrolls
    // them fully and every accumulator becomes a register (a `zip` of iterators was left as
    // a loop on nvptx64, keeping both parts' accumulators in local memory).

    #[inline(always)]
    fn part_a(&self, a: &mut PartState, i: u32) {
        let v = a.key ^ i.wrapping_mul(0x9E37_79B9);
        for k in 0..ACCUMULATORS {
            a.acc[k] = (a.acc[k] ^ v.wrapping_add(A_ADD[k]))
                .rotate_left(A_ROT[k])
                .wrapping_mul(A_MUL[k]);
        }
    }

    #[inline(always)]
    fn part_b(&self, b: &mut PartState, i: u32) {
        let v = b.key ^ i.wrapping_mul(0x85EB_CA6B);
        for k in 0..ACCUMULATORS {
            b.acc[k] = b.acc[k]
                .wrapping_add(v ^ B_ADD[k])
                .wrapping_mul(B_MUL[k])
                .rotate_left(B_ROT[k]);
        }
    }

    /// A 64-bit hash of part A's accumulators: all the output needs of part A.
    #[inline]
    fn finish_a(&self, a: &PartState) -> u64 {
        let mut h = Hash64::new(0x6A09_E667_F3BC_C908);
        for k in 0..ACCUMULATORS {
            h.mix(a.acc[k]);
        }
        h.value()
    }

    /// Part A's carry hashed with part B's accumulators.
    #[inline]
    fn finish(&self, carry: &u64, b: &PartState) -> u64 {
        let mut h = Hash64::new(*carry);
        for k in 0..ACCUMULATORS {
            h.mix(b.acc[k]);
        }
        h.value()
    }
}

/// The output hash: a 64-bit state kept as two 32-bit halves and updated with 32-bit
/// operations only. (Mixing 32-bit words into a `u64` made LLVM widen part B's accumulators to
/// 64 bits where loop B ends, doubling their registers there.) For a fixed word each step is a
/// bijection of the state, so a change in any mixed-in word changes the value.
#[derive(Clone, Copy)]
struct Hash64 {
    lo: u32,
    hi: u32,
}

impl Hash64 {
    #[inline(always)]
    fn new(seed: u64) -> Self {
        Self {
            lo: seed as u32,
            hi: (seed >> 32) as u32,
        }
    }

    #[inline(always)]
    fn mix(&mut self, x: u32) {
        self.lo = (self.lo ^ x).rotate_left(13).wrapping_mul(0xCC9E_2D51);
        self.hi = self
            .hi
            .wrapping_add(self.lo)
            .rotate_left(17)
            .wrapping_mul(0x1B87_3593);
        self.lo ^= self.hi >> 15;
    }

    #[inline(always)]
    fn value(self) -> u64 {
        (u64::from(self.hi) << 32) | u64::from(self.lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_loops_give_the_fused_result() {
        let w = LoopSplitBench::new(37, 5);
        for item in [0, 1, 77, 100_000] {
            let mut a = w.start_a(item);
            for i in 0..w.trips {
                w.part_a(&mut a, i);
            }
            let carry = w.finish_a(&a);
            let mut b = w.start_b(item);
            for i in 0..w.trips {
                w.part_b(&mut b, i);
            }
            assert_eq!(w.finish(&carry, &b), w.reference(item));
        }
        assert_ne!(w.reference(0), w.reference(1));
        assert_ne!(w.reference(0), LoopSplitBench::new(36, 5).reference(0));
    }

    /// Every accumulator of both parts reaches the output: changing any one changes it.
    #[test]
    fn the_output_depends_on_all_accumulators() {
        let w = LoopSplitBench::new(5, 9);
        let (mut a, mut b) = (w.start_a(3), w.start_b(3));
        for i in 0..w.trips {
            w.part_a(&mut a, i);
            w.part_b(&mut b, i);
        }
        let out = w.finish(&w.finish_a(&a), &b);
        for k in 0..ACCUMULATORS {
            // Part A's or part B's state with accumulator `k` flipped.
            let flip = |part: &PartState| {
                let mut flipped = *part;
                flipped.acc[k] ^= 1;
                flipped
            };
            let a2 = w.finish(&w.finish_a(&flip(&a)), &b);
            assert_ne!(a2, out, "part A accumulator {k}");
            let b2 = w.finish(&w.finish_a(&a), &flip(&b));
            assert_ne!(b2, out, "part B accumulator {k}");
        }
    }

    /// A split that runs loop A in the wrong order, or loop B one iteration short, gives
    /// another output (so the strategy tests comparing outputs can fail).
    #[test]
    fn a_wrong_split_shows() {
        let w = LoopSplitBench::new(8, 2);
        let item = 11;
        let mut a = w.start_a(item);
        for i in (0..w.trips).rev() {
            w.part_a(&mut a, i);
        }
        let mut b = w.start_b(item);
        for i in 0..w.trips {
            w.part_b(&mut b, i);
        }
        assert_ne!(w.finish(&w.finish_a(&a), &b), w.reference(item));
        // One iteration short in loop B.
        let mut a = w.start_a(item);
        let mut b = w.start_b(item);
        for i in 0..w.trips {
            w.part_a(&mut a, i);
        }
        for i in 0..w.trips - 1 {
            w.part_b(&mut b, i);
        }
        assert_ne!(w.finish(&w.finish_a(&a), &b), w.reference(item));
    }
}
