//! The loop-splitting benchmark (seed 001 §4.1, fig. 5) on the CPU backend.

mod common;

use common::*;
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{Kernel, SplitLoopKernel, Strategy};
use reconverge_workloads::synthetic::LoopSplitBench;
use reconverge_workloads::synthetic::loop_split::{LSPLIT_ITEM, PART_A, PART_B, PART_INSTRUCTIONS};

fn strategies() -> &'static [Strategy] {
    <SplitLoopKernel<LoopSplitBench>>::STRATEGIES
}

/// Outputs equal to the scalar reference and the baseline, and the backend's counters equal
/// to the hand-stepped model's (empty blocks included: they vote once, as on a GPU).
#[test]
fn loop_splitting_matches_baseline_and_reference() {
    for (trips, seed) in [(0, 1), (1, 2), (7, 3), (33, 4)] {
        let w = LoopSplitBench::new(trips, seed);
        check_all(&SplitLoopKernel(w), strategies(), 700, |i| w.reference(i));
    }
}

#[test]
fn loop_splitting_results_do_not_depend_on_thread_count() {
    let w = LoopSplitBench::new(9, 7);
    check_threads(
        &SplitLoopKernel(w),
        strategies(),
        3000,
        Launch::new(128, 9).expect("launch"),
    );
}

/// Every item runs `trips` iterations, so each warp round issues each part `trips` times,
/// fused or split. 256 items on 2 blocks of 32 threads: 8 warp rounds (4 per block), so
/// each part issues 8 · trips times at `PART_INSTRUCTIONS` slots each, and the item region
/// once per round.
#[test]
fn seed001_fig5_loop_splitting_issues_the_same_part_slots() {
    let trips = 13u32;
    let k = SplitLoopKernel(LoopSplitBench::new(trips, 11));
    let launch = Launch::new(32, 2).expect("launch");
    let cpu = CpuBackend::new();
    let rounds = 8u64;
    let mut all = Vec::new();
    for &s in strategies() {
        let c = cpu_run(&cpu, &k, s, 256, launch).counters.expect("counted");
        for part in [PART_A, PART_B] {
            assert_eq!(
                c.region(part).map_or(0, |r| r.issues),
                rounds * u64::from(trips)
            );
            assert_eq!(
                slots(&c, part),
                rounds * u64::from(trips) * u64::from(PART_INSTRUCTIONS)
            );
        }
        assert_eq!(c.region(LSPLIT_ITEM).map_or(0, |r| r.issues), rounds);
        assert_eq!(c.simd_efficiency_of(&[PART_A, PART_B]), 1.0);
        all.push(c);
    }
    // The split loops' one extra loop-exit vote per round is the only other difference.
    assert!(all[1].issue_slots() >= all[0].issue_slots());
}

#[test]
fn other_strategies_do_not_apply() {
    let k = SplitLoopKernel(LoopSplitBench::new(3, 1));
    let cpu = CpuBackend::new();
    let launch = Launch::new(32, 1).expect("launch");
    use reconverge_backend::Backend;
    assert!(
        cpu.run(&k, Strategy::BRANCH_SPLITTING, 32, launch).is_err(),
        "branch splitting is not a split-loop strategy"
    );
}
