//! The TwoPath workloads (seed 001 §5, seed 004 fig. 13 / A-2, GPU Gems 2 ch. 34) on the CPU
//! backend: every strategy gives the baseline's outputs, counters equal the hand-stepped
//! model's, results do not depend on the thread count, and the papers' shapes show.

mod common;

use common::*;
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{Kernel, Strategy, TwoPathKernel};
use reconverge_workloads::synthetic::branch_split::{ELSE_HEAVY, IF_LIGHT};
use reconverge_workloads::synthetic::kato::{BPU_A, BPU_B};
use reconverge_workloads::synthetic::{
    BranchSplitBench, Gems34Branch, MaskLayout, PathUnification,
};

/// The shape's list, and branch path unification at every DATA_PER_THREAD of seed 004
/// table 4.
fn two_path_strategies() -> Vec<Strategy> {
    listed_and(
        <TwoPathKernel<PathUnification>>::STRATEGIES,
        [1, 4, 16, 64].map(Strategy::branch_path_unification),
    )
}

#[test]
fn branch_splitting_benchmark_matches_baseline_and_model() {
    for layout in [MaskLayout::Linear, MaskLayout::Random] {
        for p in [0.0, 0.1, 0.5, 1.0] {
            let w = BranchSplitBench::new(1000, p, layout, 8);
            check_all(&TwoPathKernel(w), &two_path_strategies(), 1000, |i| {
                w.reference(i)
            });
        }
    }
}

#[test]
fn gems34_matches_baseline_and_model() {
    for w in [
        Gems34Branch::random(0.3, 1),
        Gems34Branch::coherent(0.3, 1).with_run(64),
    ] {
        check_all(&TwoPathKernel(w), &two_path_strategies(), 1000, |i| {
            w.reference(i)
        });
    }
}

#[test]
fn path_unification_matches_baseline_and_model() {
    let w = PathUnification::new(5, 2);
    check_all(&TwoPathKernel(w), &two_path_strategies(), 1000, |i| {
        w.reference(i)
    });
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let launch = Launch::new(128, 13).expect("launch");
    let w = BranchSplitBench::new(5000, 0.12, MaskLayout::Random, 3);
    check_threads(&TwoPathKernel(w), &two_path_strategies(), 5000, launch);
    let w = PathUnification::new(3, 3);
    check_threads(&TwoPathKernel(w), &two_path_strategies(), 5000, launch);
    let w = Gems34Branch::random(0.5, 3);
    check_threads(&TwoPathKernel(w), &two_path_strategies(), 5000, launch);
}

/// Seed 001 fig. 10: with a random mask the branched (baseline) version is worst between 8 %
/// and 16 % else, where "it is pretty much guaranteed that at least one thread per warp
/// executes the else-branch". The model's SIMD efficiency is lowest there too.
#[test]
fn random_mask_efficiency_is_lowest_near_ten_percent_else() {
    let cpu = CpuBackend::new();
    let n = 1 << 15;
    let launch = Launch::one_item_per_thread(n, 256).expect("launch");
    let sweep: Vec<(u32, f64)> = (0..=50)
        .map(|pct| {
            let w = BranchSplitBench::new(n, f64::from(pct) / 100.0, MaskLayout::Random, 1);
            let run = cpu_run(&cpu, &TwoPathKernel(w), Strategy::BASELINE, n, launch);
            (pct, run.simd_efficiency().expect("counted"))
        })
        .collect();
    let (worst, eff) = sweep
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("non-empty");
    assert!(
        (4..=20).contains(&worst),
        "lowest efficiency {eff} at {worst} % else"
    );
    // The ends are convergent: every warp runs one path.
    assert_eq!(sweep[0].1, 1.0);
    // The linear mask of fig. 7 diverges in one warp only: efficiency stays near 1.
    let w = BranchSplitBench::new(n, f64::from(worst) / 100.0, MaskLayout::Linear, 1);
    let lin = cpu_run(&cpu, &TwoPathKernel(w), Strategy::BASELINE, n, launch);
    assert!(lin.simd_efficiency().expect("counted") > 0.99);
}

/// Seed 001 fig. 6: with branch splitting each path's instructions are issued by its own
/// kernel; the heavy path is issued exactly as often as in the branched kernel (one issue per
/// warp that holds an else element), and the light path the same.
#[test]
fn branch_splitting_issues_each_path_once_per_warp_that_needs_it() {
    let cpu = CpuBackend::new();
    let n = 4096;
    let launch = Launch::one_item_per_thread(n, 128).expect("launch");
    let w = BranchSplitBench::new(n, 0.1, MaskLayout::Random, 5);
    let k = TwoPathKernel(w);
    let base = cpu_run(&cpu, &k, Strategy::BASELINE, n, launch)
        .counters
        .expect("counted");
    let split = cpu_run(&cpu, &k, Strategy::BRANCH_SPLITTING, n, launch)
        .counters
        .expect("counted");
    for r in [IF_LIGHT, ELSE_HEAVY] {
        assert_eq!(base.region(r), split.region(r));
    }
    // Hand count: a warp issues the heavy path iff one of its 32 elements takes else.
    let warps_with_else = (0..n / 32)
        .filter(|wi| (0..32).any(|l| !reconverge_transforms::TwoPath::decide(&w, wi * 32 + l)))
        .count() as u64;
    assert_eq!(slots(&base, ELSE_HEAVY), warps_with_else * 32);
}

/// GPU Gems 2 figs. 34-1/34-2: with a coherent condition the work issued grows with the
/// probability of taking the branch; with a random one it is near the cost of both paths
/// (predication's) for any probability away from 0 and 1.
#[test]
fn coherent_branches_cost_in_proportion_random_ones_cost_both_paths() {
    let cpu = CpuBackend::new();
    let n = 1 << 14;
    let launch = Launch::one_item_per_thread(n, 256).expect("launch");
    let issued = |w: Gems34Branch, s: Strategy| {
        let run = cpu_run(&cpu, &TwoPathKernel(w), s, n, launch);
        run.counters.expect("counted").issue_slots() as f64
    };
    let pred = issued(Gems34Branch::random(0.5, 1), Strategy::PREDICATION);
    for p in [0.25, 0.5, 0.75] {
        let random = issued(Gems34Branch::random(p, 1), Strategy::BASELINE);
        assert!(
            random > 0.95 * pred,
            "p = {p}: random {random} vs predication {pred}"
        );
        let coherent = issued(Gems34Branch::coherent(p, 1), Strategy::BASELINE);
        assert!(
            coherent < 0.9 * random,
            "p = {p}: coherent {coherent} vs random {random}"
        );
    }
    let lo = issued(Gems34Branch::coherent(0.1, 1), Strategy::BASELINE);
    let hi = issued(Gems34Branch::coherent(0.9, 1), Strategy::BASELINE);
    assert!(
        hi > 2.0 * lo,
        "coherent cost must grow with p: {lo} -> {hi}"
    );
}

/// Seed 004 table 4: the rate of lanes doing useful work on the two paths rises with
/// DATA_PER_THREAD (50 %, 51.8 %, 66.6 %, 79.5 % for 1, 4, 16, 64).
#[test]
fn path_unification_raises_the_useful_lane_rate() {
    let cpu = CpuBackend::new();
    let w = PathUnification::new(10, 9);
    let k = TwoPathKernel(w);
    let n = 64 * 1024;
    let launch = Launch::new(256, 4).expect("launch");
    let rate = |s| {
        let c = cpu_run(&cpu, &k, s, n, launch).counters.expect("counted");
        c.simd_efficiency_of(&[BPU_A, BPU_B])
    };
    let base = rate(Strategy::BASELINE);
    assert!((base - 0.5).abs() < 0.01, "baseline {base}");
    let rates: Vec<f64> = [1, 4, 16, 64]
        .into_iter()
        .map(|k| rate(Strategy::branch_path_unification(k)))
        .collect();
    eprintln!(
        "useful-lane rate for DATA_PER_THREAD 1/4/16/64: {rates:?} (paper 0.500/0.518/0.666/0.795)"
    );
    assert!((rates[0] - 0.5).abs() < 0.01);
    assert!(rates.windows(2).all(|p| p[1] > p[0]), "{rates:?}");
    assert!(rates[3] > 0.75, "{rates:?}");
}
