//! Branch distribution (seed 002 §3.2, fig. 7, SYN-BRDIS): the same outputs as the baseline
//! under every strategy, and the instruction counts of the paper's hand analysis.

mod common;

use common::{Launch, beside_baseline, draw, launches, mix, run};
use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use reconverge_simt::Region;
use reconverge_transforms::{
    Assignment, Decision, FactoredBranchLoop, FactoredBranchLoopKernel, FactoredRegion,
    FactoredRegions, Strategy, StrategyError, Tally,
};

// SYN-BRDIS costs: code segments of 20 FMA; the factored code self-updates M values 2N times.
const N: u32 = 4;
const M: u32 = 5;
const F: u32 = 2 * N * M;
const PRO_T: Region = FactoredRegion::PrologueTaken.region("code_segment_1", 20);
const PRO_N: Region = FactoredRegion::PrologueNotTaken.region("code_segment_2", 20);
const FACT: Region = FactoredRegion::Factored.region("code_factored_out", F);
const EPI_T: Region = FactoredRegion::EpilogueTaken.region("code_segment_3", 20);
const EPI_N: Region = FactoredRegion::EpilogueNotTaken.region("code_segment_4", 20);
const COND: Region = FactoredRegion::Condition.region("condition", 0);
const AFTER: Region = FactoredRegion::AfterBranch.region("after", 0);
const ITEM: Region = FactoredRegion::Item.region("item", 0);
const PATHS: [Region; 5] = [PRO_T, PRO_N, FACT, EPI_T, EPI_N];

#[derive(Clone, Copy, Debug)]
struct Work {
    seed: u64,
    max_trips: u32,
    /// The condition of fig. 7: `(threadIdx.x + i) & 1`, with fixed `max_trips` iterations.
    syn_brdis: bool,
    /// Percentage of taken iterations when random.
    percent_taken: u32,
}

impl Work {
    /// SYN-BRDIS's condition over `max_trips` iterations (seed 0: the values, not the
    /// condition, depend on it).
    fn syn_brdis(max_trips: u32) -> Self {
        Self {
            seed: 0,
            max_trips,
            syn_brdis: true,
            percent_taken: 0,
        }
    }

    /// Random trip counts up to `max_trips` and random conditions, `percent_taken` % taken.
    fn random(seed: u64, max_trips: u32, percent_taken: u32) -> Self {
        Self {
            seed,
            max_trips,
            syn_brdis: false,
            percent_taken,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct S {
    item: u32,
    i: u32,
    trips: u32,
    val: u64,
    /// The prologue's outputs (`vin`), the factored code's outputs (`vout`).
    vin: u64,
    vout: u64,
}

impl FactoredBranchLoop for Work {
    type State = S;
    type Output = u64;

    fn regions(&self) -> FactoredRegions {
        FactoredRegions::new([COND, PRO_T, PRO_N, FACT, EPI_T, EPI_N, AFTER, ITEM])
    }
    fn tally_len(&self) -> usize {
        5
    }
    fn start(&self, item: u32) -> S {
        let trips = if self.syn_brdis {
            self.max_trips
        } else {
            draw(self.seed, item.into(), 0, u64::from(self.max_trips) + 1) as u32
        };
        S {
            item,
            i: 0,
            trips,
            val: mix(u64::from(item) ^ self.seed),
            vin: 0,
            vout: 0,
        }
    }
    fn running(&self, s: &S) -> bool {
        s.i < s.trips
    }
    fn condition(&self, s: &mut S) -> bool {
        if self.syn_brdis {
            (s.item + s.i) & 1 == 1
        } else {
            // A random draw that changes the state, as MCML's does.
            s.val = mix(s.val);
            s.val % 100 < u64::from(self.percent_taken)
        }
    }
    fn prologue<T: Tally>(&self, taken: bool, s: &mut S, _: &mut T) {
        s.vin = if taken {
            s.val.wrapping_mul(3).wrapping_add(1)
        } else {
            s.val.rotate_left(17) ^ 0xABCD
        };
    }
    fn factored<T: Tally>(&self, s: &mut S, _: &mut T) {
        s.vout = s
            .vin
            .rotate_left(5)
            .wrapping_mul(31)
            .wrapping_add(u64::from(s.i));
    }
    fn epilogue<T: Tally>(&self, taken: bool, s: &mut S, tally: &mut T) {
        s.val = if taken {
            s.val ^ s.vout
        } else {
            s.val.wrapping_add(s.vout)
        };
        tally.add((s.val % 5) as u32, u64::from(taken) + 1);
    }
    fn after_branch<T: Tally>(&self, s: &mut S, _: &mut T) {
        s.i += 1;
    }
    fn finish(&self, s: &S) -> u64 {
        s.val
    }
}

fn strategy() -> impl proptest::strategy::Strategy<Value = Strategy> {
    prop_oneof![
        Just(Strategy::BRANCH_DISTRIBUTION),
        Just(Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic)),
        Just(Strategy::DYNAMIC_WORK_ASSIGNMENT),
        (0u32..=40, any::<bool>()).prop_map(|(threshold, stop)| Strategy::iteration_delaying(
            Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes: stop
            }
        )),
        (1u32..6, 1u32..6, any::<bool>()).prop_map(|(num_zeros, num_ones, remove_idle)| {
            Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            })
        }),
        (0u32..=40, any::<bool>()).prop_map(|(threshold, stop)| {
            Strategy::iteration_delaying(Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes: stop,
            })
            .over(Assignment::Dynamic)
        }),
        (1u32..6, 1u32..6, any::<bool>()).prop_map(|(num_zeros, num_ones, remove_idle)| {
            Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            })
            .over(Assignment::Dynamic)
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_strategy_matches_the_baseline(
        seed in any::<u64>(),
        max_trips in 0u32..30,
        percent_taken in 0u32..=100,
        s in strategy(),
        l in launches(600, 6),
    ) {
        let k = FactoredBranchLoopKernel(Work::random(seed, max_trips, percent_taken));
        let (base, r) = beside_baseline(&k, &s, l);
        prop_assert_eq!(&r.outputs, &base.outputs);
        prop_assert_eq!(&r.tally, &base.tally);
    }
}

fn issue_slots(c: &reconverge_simt::Counters, regions: &[Region]) -> u64 {
    regions
        .iter()
        .map(|r| c.region(*r).map_or(0, |row| row.issue_slots))
        .sum()
}

/// Seed 002 fig. 7 with N = 4, M = 5 (F = 2·N·M = 40) and 10 iterations of a condition that
/// splits every warp in half in every iteration: the baseline issues 2·(20 + 40 + 20) = 160
/// path instructions per iteration, branch distribution 20 + 20 + 40 + 20 + 20 = 120; the
/// ratio 4/3 is 2(1 + R)/(2 + R) with R = F/40 = 1 (§4.2.2).
#[test]
fn seed002_fig7_instruction_counts() {
    let k = FactoredBranchLoopKernel(Work::syn_brdis(10));
    let l = Launch::new(32, 1, 32);
    let base = run(&k, &Strategy::BASELINE, l).unwrap();
    let dist = run(&k, &Strategy::BRANCH_DISTRIBUTION, l).unwrap();
    assert_eq!(base.outputs, dist.outputs);
    assert_eq!(issue_slots(&base.counters, &PATHS), 10 * 160);
    assert_eq!(issue_slots(&dist.counters, &PATHS), 10 * 120);
    assert_eq!(base.counters.region(FACT).unwrap().issues, 20);
    assert_eq!(dist.counters.region(FACT).unwrap().issues, 10);
    // The factored code runs convergently after distribution, at half efficiency before.
    assert_eq!(dist.counters.simd_efficiency_of(&[FACT]), 1.0);
    assert_eq!(base.counters.simd_efficiency_of(&[FACT]), 0.5);
    let r = f64::from(F) / 40.0;
    let speedup =
        issue_slots(&base.counters, &PATHS) as f64 / issue_slots(&dist.counters, &PATHS) as f64;
    assert!((speedup - 2.0 * (1.0 + r) / (2.0 + r)).abs() < 1e-12);
    // Through the adapter, iteration delaying counts each whole path (80 instructions) in its
    // prologue row. Round robin with one iteration per direction starts on the not-taken path:
    // the 16 lanes with even items (whose iteration j is taken iff j is odd) run their
    // iteration 0 and the odd lanes delay theirs; from then on both halves want the same
    // direction in every warp iteration, so warp iterations 1..9 run all 32 lanes and
    // iteration 10 runs the odd lanes' last iteration: 11 issues, 11 · 80 = 880 instructions
    // instead of the baseline's 1600.
    let rr = run(
        &k,
        &Strategy::iteration_delaying(Decision::RoundRobin {
            num_zeros: 1,
            num_ones: 1,
            remove_idle: false,
        }),
        l,
    )
    .unwrap();
    assert_eq!(rr.outputs, base.outputs);
    assert_eq!(issue_slots(&rr.counters, &[PRO_T, PRO_N]), 11 * 80);
}

#[test]
fn other_strategies_are_not_applicable() {
    let k = FactoredBranchLoopKernel(Work::random(0, 3, 50));
    let l = Launch::new(10, 1, 32);
    for s in [
        Strategy::PREDICATION,
        Strategy::BRANCH_SPLITTING,
        Strategy::LOOP_SPLITTING,
        Strategy::STATIC_BRANCH_RESOLUTION,
        Strategy::branch_path_unification(2),
    ] {
        assert!(matches!(
            run(&k, &s, l),
            Err(StrategyError::NotApplicable { .. })
        ));
    }
}
