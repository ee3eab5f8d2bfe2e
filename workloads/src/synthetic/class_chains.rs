//! Items of two classes, each running its own long chain for every iteration: the workload
//! thread-data remapping (Zhang et al., G-Streamline, ASPLOS 2011) is for, and two it cannot
//! help.
//!
//! Each item runs `iterations` iterations; in each, a class-0 item runs a float chain
//! (`rounds` exact pairs `v = v · 2 + 1; v = v · 0.5 − 0.5`, SYN-ITDELAY's taken path) and a
//! class-1 item an integer chain (`rounds` rounds of
//! [`super::itdelay_distinct::integer_rounds`]), which no select can merge. An item's class is
//! known from its index ([`BranchLoop::remap_key`]), so the key predicts its path exactly:
//! - [`ClassChains::interleaved`] (favourable): the class is a hash bit of the index, so a
//!   warp's lanes disagree under the identity map (the plain kernel issues both chains in every
//!   iteration with about half its lanes busy) and agree once the items are grouped by key;
//! - [`ClassChains::grouped`] (unfavourable): the class is bit 5 of the index, so the classes
//!   already come in warp-sized runs: there is nothing to regroup, and remapping adds its pass
//!   and a load per item;
//! - [`ClassChains::unpredictable`] (unfavourable): the key is the hash bit, but each
//!   iteration's path is another hash bit of the index and the iteration, so the key says
//!   nothing about the paths and grouping by it leaves the warps as mixed as before.
//!
//! Exact float and integer arithmetic only, so every strategy, CPU and GPU agree bit for bit;
//! the output records both chains and the order of the item's iterations.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::itdelay_distinct::integer_rounds;

/// The class test (a register compare; a hash in the unpredictable layout).
pub const CONDITION: Region = LoopRegion::Condition.region("class (or hash of item, i)", 4);
/// The float chain (cost: 4 instructions per round).
pub const FLOAT_CHAIN: Region = LoopRegion::Taken.region("class 0: float chain", 0);
/// The integer chain (cost: 4 instructions per round).
pub const INTEGER_CHAIN: Region = LoopRegion::NotTaken.region("class 1: integer chain", 0);
/// The loop increment.
pub const LOOP: Region = LoopRegion::AfterBranch.region("loop increment", 1);
/// Item start and store.
pub const ITEM: Region = LoopRegion::Item.region("seed / store", 8);

/// The class is a hash bit of the index.
pub const INTERLEAVED: u32 = 0;
/// The class is bit 5 of the index: runs of 32 items of one class.
pub const GROUPED: u32 = 1;
/// The key is the hash bit, each iteration's path another hash bit.
pub const UNPREDICTABLE: u32 = 2;

/// The workload's parameters (a kernel argument on the GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct ClassChains {
    /// Iterations per item.
    pub iterations: u32,
    /// Rounds of each chain per iteration.
    pub rounds: u32,
    /// [`INTERLEAVED`], [`GROUPED`] or [`UNPREDICTABLE`] (any other value reads as
    /// [`INTERLEAVED`]).
    pub layout: u32,
}

/// An item's state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ClassChainsState {
    /// Iterations run.
    pub i: u32,
    /// The item's index (the unpredictable layout's paths hash it).
    pub item: u32,
    /// The item's class.
    pub class: u32,
    /// The integer chain's value.
    pub x: u32,
    /// The float chain's value.
    pub v: f32,
}

/// A 32-bit mix of the item index.
#[inline(always)]
pub const fn mix(item: u32) -> u32 {
    let x = item.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
    (x ^ (x >> 15)).wrapping_mul(0x2C1B_3C6D)
}

impl ClassChains {
    /// The favourable workload: classes interleaved at random.
    pub const fn interleaved(iterations: u32, rounds: u32) -> Self {
        Self {
            iterations,
            rounds,
            layout: INTERLEAVED,
        }
    }

    /// Classes in warp-sized runs already.
    pub const fn grouped(iterations: u32, rounds: u32) -> Self {
        Self {
            layout: GROUPED,
            ..Self::interleaved(iterations, rounds)
        }
    }

    /// A key that says nothing about the paths.
    pub const fn unpredictable(iterations: u32, rounds: u32) -> Self {
        Self {
            layout: UNPREDICTABLE,
            ..Self::interleaved(iterations, rounds)
        }
    }

    /// The class of item `item`: the key, and in the predictable layouts its path.
    #[inline(always)]
    pub const fn class(&self, item: u32) -> u32 {
        if self.layout == GROUPED {
            (item >> 5) & 1
        } else {
            (mix(item) >> 16) & 1
        }
    }

    /// Item `item` run as one plain scalar loop: the same work as any strategy, no warp.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

impl BranchLoop for ClassChains {
    type State = ClassChainsState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        let chain = self.rounds.saturating_mul(4).max(1);
        LoopRegions::new([
            CONDITION,
            FLOAT_CHAIN.with_cost(chain),
            INTEGER_CHAIN.with_cost(chain),
            LOOP,
            ITEM,
        ])
    }

    const REMAP_BUCKETS: u32 = 2;

    #[inline(always)]
    fn remap_key(&self, item: u32) -> u32 {
        self.class(item)
    }

    #[inline]
    fn start(&self, item: u32) -> ClassChainsState {
        let h = mix(item);
        ClassChainsState {
            i: 0,
            item,
            class: self.class(item),
            x: h,
            // Below 2^20, so that `v · 2 + 1` (21 bits) and every step after it is exact.
            v: (h >> 12) as f32,
        }
    }

    #[inline]
    fn running(&self, s: &ClassChainsState) -> bool {
        s.i < self.iterations
    }

    #[inline]
    fn condition(&self, s: &mut ClassChainsState) -> bool {
        if self.layout == UNPREDICTABLE {
            (mix(s.item ^ s.i.wrapping_mul(0x632B_E5AB)) >> 16) & 1 == 0
        } else {
            s.class == 0
        }
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut ClassChainsState, _: &mut T) {
        let mut v = s.v;
        for _ in 0..self.rounds {
            v = v * 2.0 + 1.0;
            v = v * 0.5 - 0.5;
        }
        s.v = v;
        s.x = s.x.rotate_left(1) ^ s.i;
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut ClassChainsState, _: &mut T) {
        s.x = integer_rounds(s.x ^ s.i, self.rounds);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut ClassChainsState, _: &mut T) {
        s.i += 1;
    }

    #[inline]
    fn finish(&self, s: &ClassChainsState) -> u32 {
        s.x ^ s.v.to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classes_are_mixed_grouped_or_unrelated_to_the_paths() {
        let mixed = ClassChains::interleaved(4, 2);
        let grouped = ClassChains::grouped(4, 2);
        // Interleaved: both classes in the first warp; grouped: one class per run of 32.
        let first_warp: u32 = (0..32).map(|i| mixed.class(i)).sum();
        assert!(first_warp > 4 && first_warp < 28, "{first_warp}");
        assert!((0..32).all(|i| grouped.class(i) == 0));
        assert!((32..64).all(|i| grouped.class(i) == 1));
        // Unpredictable: an item's paths change from one iteration to the next.
        let u = ClassChains::unpredictable(64, 1);
        let mut s = u.start(3);
        let taken: u32 = (0..64)
            .map(|i| {
                s.i = i;
                u32::from(u.condition(&mut s))
            })
            .sum();
        assert!(taken > 8 && taken < 56, "{taken}");
    }

    #[test]
    fn the_float_chain_is_exact_and_the_output_records_both_chains() {
        let w = ClassChains::interleaved(3, 5);
        let item = (0..64).find(|&i| w.class(i) == 0).unwrap_or(0);
        let mut s = w.start(item);
        let v0 = s.v;
        w.taken(&mut s, &mut reconverge_transforms::NoTally);
        assert_eq!(s.v.to_bits(), v0.to_bits());
        // Different items, different outputs.
        assert_ne!(w.reference(1), w.reference(2));
    }

    #[test]
    fn outputs_are_the_cuda_twins() {
        // `run_item` of references/cuda/thread_data_remapping.cu compiled for the host (g++),
        // items 0, 977, ..., 4885 at 64 iterations of 16 rounds, per layout.
        let twin: [[u32; 6]; 3] = [
            [
                2139505267, 1660357261, 3084013903, 2466258532, 2091330555, 863550943,
            ],
            [
                2139505267, 1660357261, 836204229, 2466258532, 23659003, 3686392717,
            ],
            [
                3940251868, 4178836334, 2275063803, 825563792, 1447405199, 95856440,
            ],
        ];
        for (layout, want) in (0u32..).zip(twin) {
            let w = ClassChains {
                iterations: 64,
                rounds: 16,
                layout,
            };
            for (i, want) in (0u32..).zip(want) {
                assert_eq!(
                    w.reference(i * 977),
                    want,
                    "layout {layout}, item {}",
                    i * 977
                );
            }
        }
    }
}
