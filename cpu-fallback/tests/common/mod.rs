//! Helpers shared by the workload tests: conformance of every strategy and backend, strategy
//! equivalence over launch shapes, and thread-count independence.
#![allow(dead_code)]

use std::fmt::Debug;

use reconverge_backend::{Backend, Counters, Launch, Run};
use reconverge_cpu::CpuBackend;
use reconverge_cpu::block::InOrderBackend;
use reconverge_cpu::conformance::Check;
use reconverge_transforms::{Assignment, Decision, Kernel, Strategy};

/// `listed` (a kernel's [`Kernel::STRATEGIES`]) followed by those of `extra` it lacks.
pub fn listed_and(listed: &[Strategy], extra: impl IntoIterator<Item = Strategy>) -> Vec<Strategy> {
    let mut s = listed.to_vec();
    for e in extra {
        if !s.contains(&e) {
            s.push(e);
        }
    }
    s
}

/// Every strategy a [`reconverge_transforms::BranchLoopKernel`] supports: its
/// [`Kernel::STRATEGIES`] (the papers' parameters) and many other parameters.
pub fn loop_strategies() -> Vec<Strategy> {
    let mut s = Vec::new();
    for threshold in [1, 8, 16, 32] {
        for stop in [false, true] {
            s.push(Strategy::iteration_delaying(Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes: stop,
            }));
        }
    }
    for (num_zeros, num_ones) in [(1, 1), (3, 1), (1, 9)] {
        for remove_idle in [false, true] {
            s.push(Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            }));
        }
    }
    // Delaying over dynamic work assignment: thresholds that delay little and much, with and
    // without the anti-starvation stop, and a round robin with and without idle removal.
    for threshold in [1, 4, 32] {
        for stop in [false, true] {
            s.push(
                Strategy::iteration_delaying(Decision::MajorityVote {
                    threshold,
                    stop_when_a_lane_finishes: stop,
                })
                .over(Assignment::Dynamic),
            );
        }
    }
    for remove_idle in [false, true] {
        s.push(
            Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros: 3,
                num_ones: 1,
                remove_idle,
            })
            .over(Assignment::Dynamic),
        );
    }
    listed_and(
        <reconverge_transforms::BranchLoopKernel<reconverge_workloads::synthetic::SynItDelay>>::STRATEGIES,
        s,
    )
}

/// Launch shapes that exercise one and many blocks, blocks with more items than threads
/// (static striding), partial warps and empty blocks.
pub fn launches() -> Vec<Launch> {
    [(32, 1), (64, 3), (128, 2), (256, 1), (96, 7), (32, 40)]
        .into_iter()
        .filter_map(|(t, b)| Launch::new(t, b).ok())
        .collect()
}

/// Runs on the CPU backend.
pub fn cpu_run<K>(
    backend: &CpuBackend,
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
) -> Run<K::Output>
where
    K: Kernel + Sync,
{
    backend
        .run(kernel, strategy, items, launch)
        .unwrap_or_else(|e| panic!("{} on {launch:?}: {e}", strategy.name()))
}

/// For every strategy and launch shape of [`launches`]: the CPU backend's outputs and tallies
/// equal the baseline's (and the baseline's equal the workload's scalar reference), and its
/// counters equal those of the reference executor run on one thread ([`InOrderBackend`]).
pub fn check_all<K>(
    kernel: &K,
    strategies: &[Strategy],
    items: u32,
    reference: impl Fn(u32) -> K::Output,
) where
    K: Kernel + Sync,
    K::Output: PartialEq + Debug,
{
    let cpu = CpuBackend::new();
    let expected: Vec<K::Output> = (0..items).map(reference).collect();
    let launches = launches();
    for launch in &launches {
        let base = cpu_run(&cpu, kernel, Strategy::BASELINE, items, *launch);
        assert_eq!(
            base.outputs, expected,
            "baseline vs scalar reference, {launch:?}"
        );
    }
    let check = Check {
        strategies,
        items,
        launches: &launches,
        counters: true,
    };
    let report = check.run(kernel, &[&cpu, &InOrderBackend]);
    assert!(report.passed(), "{report}");
}

/// Outputs, tallies and counters with one thread equal those with two.
pub fn check_threads<K>(kernel: &K, strategies: &[Strategy], items: u32, launch: Launch)
where
    K: Kernel + Sync,
    K::Output: PartialEq + Debug,
{
    let one = CpuBackend::with_threads(1).expect("pool");
    let two = CpuBackend::with_threads(2).expect("pool");
    let check = Check {
        strategies,
        items,
        launches: &[launch],
        counters: true,
    };
    let report = check.run(kernel, &[&one, &two]);
    assert!(report.passed(), "{report}");
}

/// Issue slots of `region`'s row.
pub fn slots(c: &Counters, region: reconverge_simt::Region) -> u64 {
    c.region(region).map_or(0, |r| r.issue_slots)
}
