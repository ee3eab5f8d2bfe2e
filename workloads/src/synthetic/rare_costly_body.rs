//! A loop with intra-warp load imbalance and a rare costly body: collaborative context
//! collection's favourable case (Khorasani, Gupta & Bhuyan, MICRO 2015, §2: a few lanes per
//! iteration reach the costly task, the warp issues it for them alone), and with the body taken
//! by every iteration, its unfavourable one (the warp already agrees; saving and restoring
//! contexts is pure overhead).
//!
//! Item `i` runs `8 + i % 7` iterations (lanes finish at different times: load imbalance). An
//! iteration takes the costly body, 64 rounds of an integer hash, when a hash of the seed, the
//! item and the iteration falls under `rate_q32 / 2^32` (a `u64` so that every iteration can
//! take it); otherwise it adds the iteration to its accumulator. Integer only: every backend
//! and schedule computes the same outputs bit for bit.

use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

/// The workload's parameters (a kernel argument on the GPU).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RareCostlyBody {
    /// The probability that an iteration takes the costly body, in units of 2^-32 (2^32: every
    /// iteration).
    pub rate_q32: u64,
    /// Varies the items' paths.
    pub seed: u32,
}

impl RareCostlyBody {
    /// Favourable: one iteration in 32 takes the body, about one lane of a warp per iteration.
    pub const FAVOURABLE: Self = Self {
        rate_q32: 1 << 27,
        seed: 1,
    };
    /// Unfavourable: every iteration takes the body, every lane of a warp together.
    pub const EVERY_ITERATION: Self = Self {
        rate_q32: 1 << 32,
        seed: 1,
    };

    /// Item `item` as one plain scalar loop (the tests' oracle).
    pub fn reference(&self, item: u32) -> u32 {
        let mut s = self.start(item);
        while s.iteration < s.iterations {
            if u64::from(mix(self.key(&s))) < self.rate_q32 {
                for r in 0..64 {
                    s.acc = mix(s.acc ^ r);
                }
            } else {
                s.acc = s.acc.wrapping_add(s.iteration);
            }
            s.iteration += 1;
        }
        s.acc
    }

    fn key(&self, s: &RareBodyState) -> u32 {
        s.item.wrapping_mul(1000) ^ s.iteration ^ self.seed.wrapping_mul(0x9e37_79b9)
    }
}

/// An item's live context: what collaborative context collection saves to shared memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RareBodyState {
    item: u32,
    iteration: u32,
    iterations: u32,
    acc: u32,
}

/// A 32-bit integer hash (the "lowbias32" mix).
#[inline(always)]
fn mix(x: u32) -> u32 {
    let mut x = x ^ (x >> 16);
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

impl BranchLoop for RareCostlyBody {
    type State = RareBodyState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions {
            condition: LoopRegion::Condition.region("rare condition", 12),
            taken: LoopRegion::Taken.region("costly body", 64 * 7),
            not_taken: LoopRegion::NotTaken.region("cheap add", 1),
            after_branch: LoopRegion::AfterBranch.region("next iteration", 1),
            item: LoopRegion::Item.region("item", 4),
        }
    }

    fn start(&self, item: u32) -> RareBodyState {
        RareBodyState {
            item,
            iteration: 0,
            iterations: 8 + item % 7,
            acc: item,
        }
    }

    fn running(&self, s: &RareBodyState) -> bool {
        s.iteration < s.iterations
    }

    fn condition(&self, s: &mut RareBodyState) -> bool {
        u64::from(mix(self.key(s))) < self.rate_q32
    }

    fn taken<T: Tally>(&self, s: &mut RareBodyState, _: &mut T) {
        for r in 0..64 {
            s.acc = mix(s.acc ^ r);
        }
    }

    fn not_taken<T: Tally>(&self, s: &mut RareBodyState, _: &mut T) {
        s.acc = s.acc.wrapping_add(s.iteration);
    }

    fn after_branch<T: Tally>(&self, s: &mut RareBodyState, _: &mut T) {
        s.iteration += 1;
    }

    fn finish(&self, s: &RareBodyState) -> u32 {
        s.acc
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use reconverge_transforms::NoTally;
    use reconverge_transforms::strategies::collaborative_context_collection::{
        baseline_body_issues, collaborative_warp_loop,
    };

    use super::*;

    fn collected(w: &RareCostlyBody, n: u32) -> Vec<u32> {
        let mut out = vec![0; n as usize];
        let mut items = 0..n;
        collaborative_warp_loop(w, || items.next(), |i, o| out[i as usize] = o, &mut NoTally)
            .expect("within the stacks' bound");
        out
    }

    #[test]
    fn collection_computes_the_reference_on_both_workloads() {
        for w in [RareCostlyBody::FAVOURABLE, RareCostlyBody::EVERY_ITERATION] {
            let expected: Vec<u32> = (0..2000).map(|i| w.reference(i)).collect();
            assert_eq!(collected(&w, 2000), expected, "{w:?}");
            let run: Vec<u32> = (0..2000).map(|i| w.run_item(i)).collect();
            assert_eq!(run, expected);
        }
    }

    /// The CUDA C++ twin (`references/cuda/collaborative_context_collection.cu`) computes the
    /// same items: its host `run_item`, compiled with g++, printed these outputs for both rates.
    #[test]
    fn the_cuda_twins_items_are_these() {
        for (item, favourable, every) in [
            (0, 2_009_390_529, 3_551_046_951),
            (1, 3_989_207_369, 2_826_147_427),
            (5, 83, 2_557_829_895),
            (999, 1_981_565_844, 921_140_542),
            (123_456, 1_797_778_519, 933_533_844),
        ] {
            assert_eq!(RareCostlyBody::FAVOURABLE.reference(item), favourable);
            assert_eq!(RareCostlyBody::EVERY_ITERATION.reference(item), every);
        }
    }

    /// Favourable: about 1.57 lanes per body issue in the baseline (32p / (1 - (1 - p)^32) at
    /// p = 1/32); unfavourable: every issue already full.
    #[test]
    fn the_favourable_workload_leaves_the_baseline_body_nearly_empty() {
        let items: Vec<u32> = (0..4096).collect();
        let fav = baseline_body_issues(&RareCostlyBody::FAVOURABLE, &items);
        assert!((1.3..1.9).contains(&fav.lanes_per_body_issue()), "{fav:?}");
        let every = baseline_body_issues(&RareCostlyBody::EVERY_ITERATION, &items);
        assert!(every.lanes_per_body_issue() > 31.0, "{every:?}");
    }
}
