//! SYN-BRDIS (seed 002 §4.1.2, fig. 7) on the CPU backend.

mod common;

use common::*;
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{FactoredBranchLoopKernel, Kernel, Strategy};
use reconverge_workloads::synthetic::SynBrDis;
use reconverge_workloads::synthetic::brdis::{FACTORED, SEG1, SEG2, SEG3, SEG4};

/// The shape's list, and every parameter the branch-loop tests use (through `Unfactored`).
fn strategies() -> Vec<Strategy> {
    listed_and(
        <FactoredBranchLoopKernel<SynBrDis>>::STRATEGIES,
        loop_strategies(),
    )
}

#[test]
fn every_strategy_matches_baseline_and_model() {
    for (m, n) in [(1, 1), (4, 3), (20, 2)] {
        let w = SynBrDis::new(m, n, 6, 12);
        check_all(&FactoredBranchLoopKernel(w), &strategies(), 700, |i| {
            w.reference(i)
        });
    }
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let w = SynBrDis::new(5, 4, 10, 1);
    check_threads(
        &FactoredBranchLoopKernel(w),
        &strategies(),
        3000,
        Launch::new(128, 9).expect("launch"),
    );
}

/// Fig. 7: the condition `(item + i) & 1` splits every full warp 16/16 in every iteration, so
/// the baseline issues the factored code twice per iteration (once per path) and branch
/// distribution once; the segments are issued once per path either way. Hand counts for 8
/// warps of 12 iterations.
#[test]
fn branch_distribution_halves_the_factored_issues() {
    let (m, n, iters) = (6u32, 5u32, 12u32);
    let w = SynBrDis::new(m, n, iters, 2);
    let k = FactoredBranchLoopKernel(w);
    let launch = Launch::new(128, 2).expect("launch");
    let cpu = CpuBackend::new();
    let base = cpu_run(&cpu, &k, Strategy::BASELINE, 256, launch)
        .counters
        .expect("counted");
    let dist = cpu_run(&cpu, &k, Strategy::BRANCH_DISTRIBUTION, 256, launch)
        .counters
        .expect("counted");
    let warp_iters = 8 * u64::from(iters);
    let factored = u64::from(2 * n * m);
    assert_eq!(slots(&base, FACTORED), 2 * warp_iters * factored);
    assert_eq!(slots(&dist, FACTORED), warp_iters * factored);
    for seg in [SEG1, SEG2, SEG3, SEG4] {
        assert_eq!(slots(&base, seg), warp_iters * 20);
        assert_eq!(slots(&dist, seg), warp_iters * 20);
    }
    // Half the lanes in every path issue, all lanes in the factored code.
    assert_eq!(base.simd_efficiency_of(&[FACTORED]), 0.5);
    assert_eq!(dist.simd_efficiency_of(&[FACTORED]), 1.0);
    // The model's speedup on the branch code alone is the paper's 2(1+R)/(2+R).
    let branch = [SEG1, SEG2, FACTORED, SEG3, SEG4];
    let sum = |c: &reconverge_backend::Counters| branch.iter().map(|r| slots(c, *r)).sum::<u64>();
    let speedup = sum(&base) as f64 / sum(&dist) as f64;
    assert!(
        (speedup - w.theoretical_speedup()).abs() < 1e-12,
        "{speedup}"
    );
}
