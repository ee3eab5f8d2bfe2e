//! Loop splitting (seed 001 fig. 5): the same outputs and the same instruction counts as
//! the fused loop.

mod common;

use common::{Launch, beside_baseline, draw, hand_trips, launches, mix, run};
use proptest::prelude::*;
use reconverge_simt::Region;
use reconverge_transforms::{
    SplitLoop, SplitLoopKernel, SplitLoopRegion, SplitLoopRegions, Strategy, StrategyError,
};

const PART_A: Region = SplitLoopRegion::PartA.region("ptr1, ptr2", 3);
const PART_B: Region = SplitLoopRegion::PartB.region("ptr3, ptr4", 5);
const ITEM: Region = SplitLoopRegion::Item.region("item", 1);

#[derive(Clone, Copy, Debug)]
struct Work {
    seed: u64,
    max_trips: u32,
    hand: bool,
}

impl SplitLoop for Work {
    type A = u64;
    type B = u32;
    type Carry = u64;
    type Output = (u64, u32);

    fn regions(&self) -> SplitLoopRegions {
        SplitLoopRegions::new([PART_A, PART_B, ITEM])
    }
    fn trips(&self, item: u32) -> u32 {
        if self.hand {
            hand_trips(item)
        } else {
            draw(self.seed, item.into(), 3, u64::from(self.max_trips) + 1) as u32
        }
    }
    fn start_a(&self, item: u32) -> u64 {
        u64::from(item)
    }
    fn start_b(&self, item: u32) -> u32 {
        item ^ 0x5555
    }
    fn part_a(&self, a: &mut u64, i: u32) {
        // Order-dependent, so that a wrong iteration order shows.
        *a = mix(*a ^ self.seed ^ u64::from(i));
    }
    fn part_b(&self, b: &mut u32, i: u32) {
        *b = b.rotate_left(3).wrapping_mul(31).wrapping_add(i);
    }
    fn finish_a(&self, a: &u64) -> u64 {
        // Not the identity, so that a program skipping it shows.
        a.rotate_left(17) ^ 0x0123_4567_89AB_CDEF
    }
    fn finish(&self, carry: &u64, b: &u32) -> (u64, u32) {
        (*carry, *b)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn loop_splitting_matches_the_fused_loop(
        seed in any::<u64>(),
        max_trips in 0u32..40,
        l in launches(800, 6),
    ) {
        let k = SplitLoopKernel(Work { seed, max_trips, hand: false });
        let (fused, split) = beside_baseline(&k, &Strategy::LOOP_SPLITTING, l);
        // The fused loop as plain scalar code.
        let expected: Vec<_> = (0..l.items).map(|i| Some(k.0.run_item(i))).collect();
        prop_assert_eq!(&fused.outputs, &expected);
        prop_assert_eq!(&split.outputs, &fused.outputs);
        // Same instructions: each part issued max-trip-count times per round in both.
        for r in [PART_A, PART_B] {
            prop_assert_eq!(split.counters.region(r), fused.counters.region(r));
        }
    }
}

/// One warp, items 0..63 with `7 i mod 23` trips: two rounds (items 0..31, then 32..63),
/// each containing an item with 22 trips, so each part issues 2 · 22 = 44 times, fused or
/// split.
#[test]
fn seed001_fig5_split_loops_issue_what_the_fused_loop_issues() {
    let k = SplitLoopKernel(Work {
        seed: 9,
        max_trips: 0,
        hand: true,
    });
    let l = Launch::new(64, 1, 32);
    for s in [Strategy::BASELINE, Strategy::LOOP_SPLITTING] {
        let r = run(&k, &s, l).unwrap();
        assert_eq!(r.counters.region(PART_A).unwrap().issues, 44);
        assert_eq!(r.counters.region(PART_B).unwrap().issues, 44);
    }
    assert!(matches!(
        run(&k, &Strategy::BRANCH_SPLITTING, l),
        Err(StrategyError::NotApplicable { .. })
    ));
}
