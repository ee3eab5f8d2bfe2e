//! Seed 004's dynamic work assignment experiment (fig. 11 / A-1) on the CPU backend.

mod common;

use common::*;
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{ItemLoopKernel, Kernel, Strategy};
use reconverge_workloads::synthetic::DynamicWork;
use reconverge_workloads::synthetic::kato::DWA_BODY;

/// The shape's list, and occlusion-query loops of one pass per iteration and of a period
/// that does not divide the trip counts.
fn strategies() -> Vec<Strategy> {
    listed_and(
        <ItemLoopKernel<DynamicWork>>::STRATEGIES,
        [1, 7].map(Strategy::occlusion_query_loop),
    )
}

#[test]
fn every_strategy_matches_baseline_and_model() {
    for (loop_num, max_trips) in [(1, 16), (4, 3)] {
        let w = DynamicWork::new(loop_num, max_trips, 4);
        check_all(&ItemLoopKernel(w), &strategies(), 1000, |i| w.reference(i));
    }
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let w = DynamicWork::new(2, 20, 6);
    check_threads(
        &ItemLoopKernel(w),
        &strategies(),
        6000,
        Launch::new(64, 11).expect("launch"),
    );
}

/// Seed 004 figs. 2–3: a static warp issues the body as often as its longest lane's trips
/// sum to; with blocks that own many elements each, dynamic assignment lets a lane take the
/// next element as soon as it finishes, so the warp issues close to the lane-average.
#[test]
fn dynamic_assignment_issues_fewer_bodies() {
    let w = DynamicWork::new(8, 32, 1);
    let k = ItemLoopKernel(w);
    let n = 32 * 1024;
    // Two blocks of 128 threads: each lane handles 128 elements.
    let launch = Launch::new(128, 2).expect("launch");
    let cpu = CpuBackend::new();
    let body = |s| {
        slots(
            &cpu_run(&cpu, &k, s, n, launch).counters.expect("counted"),
            DWA_BODY,
        )
    };
    let (base, dyn_) = (
        body(Strategy::BASELINE),
        body(Strategy::DYNAMIC_WORK_ASSIGNMENT),
    );
    // Lower bound: total trips / 32 lanes, times the body's cost.
    let total_trips: u64 = (0..n).map(|i| u64::from(w.trips(i))).sum();
    let cost: u64 = 8 * 3 + 2;
    let ideal = total_trips * cost / 32;
    eprintln!("body issue slots: ideal {ideal}, baseline {base}, dynamic {dyn_}");
    assert!(dyn_ < base);
    assert!(
        dyn_ as f64 <= 1.05 * ideal as f64,
        "dynamic {dyn_} vs ideal {ideal}"
    );
    assert!(dyn_ >= ideal);
}
