//! The variable-trip loop ([`ItemLoop`]): baseline and dynamic work assignment compute the
//! same outputs and tallies; a warp issues the body `max` trip count times (seed 002 §2.3).

mod common;

use common::{Launch, beside_baseline, draw, hand_trips, launches, mix, run, run_complete};
use proptest::prelude::*;
use reconverge_simt::Region;
use reconverge_transforms::{
    Decision, ItemLoop, ItemLoopKernel, ItemLoopRegion, ItemLoopRegions, Strategy, StrategyError,
    Tally,
};

const BODY: Region = ItemLoopRegion::Body.region("function()", 1);
const ITEM: Region = ItemLoopRegion::Item.region("preparation/settlement", 1);

#[derive(Clone, Copy, Debug)]
struct Work {
    seed: u64,
    max_trips: u32,
    /// Trip counts `(7 item) mod 23` instead of random ones.
    hand: bool,
}

#[derive(Clone, Copy, Debug)]
struct S {
    left: u32,
    acc: u64,
}

impl ItemLoop for Work {
    type State = S;
    type Output = u64;

    fn regions(&self) -> ItemLoopRegions {
        ItemLoopRegions::new([BODY, ITEM])
    }
    fn tally_len(&self) -> usize {
        7
    }
    fn start(&self, item: u32) -> S {
        let left = if self.hand {
            hand_trips(item)
        } else {
            // Skewed: most items short, a few long.
            let r = draw(self.seed, item.into(), 0, 100) as u32;
            let max = self.max_trips;
            if r < 10 { max } else { r % (max / 4 + 1) }
        };
        S {
            left,
            acc: u64::from(item),
        }
    }
    fn running(&self, s: &S) -> bool {
        s.left > 0
    }
    fn body<T: Tally>(&self, s: &mut S, tally: &mut T) {
        s.acc = mix(s.acc ^ self.seed);
        s.left -= 1;
        tally.add((s.acc % 7) as u32, s.acc >> 40);
    }
    fn finish(&self, s: &S) -> u64 {
        s.acc
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn dynamic_work_assignment_matches_the_baseline(
        seed in any::<u64>(),
        max_trips in 0u32..60,
        l in launches(900, 6),
    ) {
        let k = ItemLoopKernel(Work { seed, max_trips, hand: false });
        let (base, dyn_) = beside_baseline(&k, &Strategy::DYNAMIC_WORK_ASSIGNMENT, l);
        prop_assert_eq!(&dyn_.outputs, &base.outputs);
        prop_assert_eq!(&dyn_.tally, &base.tally);
        // Both run every iteration of every item exactly once.
        prop_assert_eq!(
            dyn_.counters.region(BODY).unwrap().active_lane_slots,
            base.counters.region(BODY).unwrap().active_lane_slots
        );
    }

    /// The occlusion-query loop: the same outputs, tallies and useful body slots as the
    /// baseline for any iterations per pass, in exactly as many passes as the longest item
    /// needs: ceil(max trips / k), and at least one.
    #[test]
    fn occlusion_query_loop_matches_the_baseline(
        seed in any::<u64>(),
        max_trips in 0u32..60,
        l in launches(900, 6),
        k in 1u32..20,
    ) {
        let w = Work { seed, max_trips, hand: false };
        let kernel = ItemLoopKernel(w);
        let base = run(&kernel, &Strategy::BASELINE, l).unwrap();
        let oq = run_complete(&kernel, &Strategy::occlusion_query_loop(k), l);
        prop_assert_eq!(&oq.outputs, &base.outputs);
        prop_assert_eq!(&oq.tally, &base.tally);
        let slots = |r: &common::Run<u64>| r.counters.region(BODY).map_or(0, |x| x.active_lane_slots);
        prop_assert_eq!(slots(&oq), slots(&base));
        let longest = (0..l.items).map(|i| w.start(i).left).max().unwrap_or(0);
        prop_assert_eq!(oq.pass_counters.len() as u32, longest.div_ceil(k).max(1));
    }
}

/// Pass `p` issues the body only in windows (32 consecutive items) that still hold an item
/// needing more than `4 p` iterations, 1 to 4 times each: with trip counts `7 i mod 23` and 4
/// iterations per pass, 6 passes.
#[test]
fn occlusion_query_loop_issues_the_body_only_for_running_windows() {
    let w = Work {
        seed: 1,
        max_trips: 0,
        hand: true,
    };
    let items = 32 * 40;
    let r = run(
        &ItemLoopKernel(w),
        &Strategy::occlusion_query_loop(4),
        Launch::new(items, 1, 64),
    )
    .unwrap();
    r.assert_complete();
    // Trip counts reach 22: ceil(22 / 4) = 6 passes.
    assert_eq!(r.pass_counters.len(), 6);
    for (p, c) in r.pass_counters.iter().enumerate() {
        // Windows of 32 consecutive items with an item needing more than 4 p iterations.
        let windows = (0..items / 32)
            .filter(|wi| (0..32).any(|j| w.start(wi * 32 + j).left > 4 * p as u32))
            .count() as u64;
        let issued_passes = c.region(BODY).map_or(0, |x| x.issues);
        // Each such window issues the body 1 to 4 times in this pass; the others 0 times.
        assert!(
            issued_passes >= windows && issued_passes <= 4 * windows,
            "pass {p}: {issued_passes} body issues for {windows} running windows"
        );
    }
    // Zero iterations per pass is a bad parameter, not a hang.
    assert!(matches!(
        run(
            &ItemLoopKernel(w),
            &Strategy::occlusion_query_loop(0),
            Launch::new(10, 1, 32)
        ),
        Err(StrategyError::InvalidParameter { .. })
    ));
}

/// Seed 002 §2.3 (fig. 1c): a warp runs `max` of its lanes' trip counts. Trip counts
/// `7 i mod 23` for items 0..31: items 0..22 take every value 0..22 once (sum 253), items
/// 23..31 take 0, 7, 14, 21, 5, 12, 19, 3, 10 (sum 91).
#[test]
fn seed002_variable_trip_loop_issues_the_max_trip_count() {
    let k = ItemLoopKernel(Work {
        seed: 1,
        max_trips: 0,
        hand: true,
    });
    let r = run(&k, &Strategy::BASELINE, Launch::new(32, 1, 32)).unwrap();
    let body = *r.counters.region(BODY).unwrap();
    assert_eq!(body.issues, 22);
    assert_eq!(body.active_lane_slots, 253 + 91);
}

#[test]
fn strategies_without_a_loop_branch_are_not_applicable() {
    let k = ItemLoopKernel(Work {
        seed: 1,
        max_trips: 4,
        hand: false,
    });
    for s in [
        Strategy::PREDICATION,
        Strategy::BRANCH_SPLITTING,
        Strategy::LOOP_SPLITTING,
        Strategy::BRANCH_DISTRIBUTION,
        Strategy::STATIC_BRANCH_RESOLUTION,
        Strategy::branch_path_unification(4),
        Strategy::iteration_delaying(Decision::RoundRobin {
            num_zeros: 1,
            num_ones: 1,
            remove_idle: false,
        }),
    ] {
        let l = Launch::new(10, 1, 32);
        assert!(matches!(
            run(&k, &s, l),
            Err(StrategyError::NotApplicable { .. })
        ));
    }
}
