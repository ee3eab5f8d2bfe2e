//! Helpers shared by the workload tests: the reference executor's run on one thread, strategy
//! equivalence over launch shapes, and thread-count independence.
#![allow(dead_code)]

use std::fmt::Debug;

use reconverge_backend::{Backend, Counters, Launch, Run};
use reconverge_cpu::CpuBackend;
use reconverge_cpu::block::{RunInOrder, run_in_order};
use reconverge_transforms::{Decision, Kernel, Strategy};

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
            s.push(Strategy::IterationDelaying(Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes: stop,
            }));
        }
    }
    for (num_zeros, num_ones) in [(1, 1), (3, 1), (1, 9)] {
        for remove_idle in [false, true] {
            s.push(Strategy::IterationDelaying(Decision::RoundRobin {
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
            s.push(Strategy::IterationDelayingWithDynamicWork(
                Decision::MajorityVote {
                    threshold,
                    stop_when_a_lane_finishes: stop,
                },
            ));
        }
    }
    for remove_idle in [false, true] {
        s.push(Strategy::IterationDelayingWithDynamicWork(
            Decision::RoundRobin {
                num_zeros: 3,
                num_ones: 1,
                remove_idle,
            },
        ));
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

/// The reference executor's run ([`run_in_order`]: for each pass and block, one [`ModelWarp`]
/// per warp sharing one block's counters, stepped round robin one loop iteration at a time as
/// a GPU's warps interleave), on one thread. Returns the outputs and counters, after checking
/// that every item was written exactly once.
///
/// [`ModelWarp`]: reconverge_simt::ModelWarp
pub fn model_run<K: Kernel>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
) -> (Vec<K::Output>, Counters)
where
    K::Output: Debug,
{
    let options = RunInOrder {
        counting: true,
        step_limit: Some(100_000_000),
    };
    let run = run_in_order(kernel, &strategy, items, launch, options)
        .unwrap_or_else(|e| panic!("{} on {launch:?}: {e}", strategy.name()));
    assert_eq!(run.stray_writes, 0, "items written past the last one");
    if let Some((item, writes)) = run.first_not_written_once() {
        panic!("item {item} written {writes} times");
    }
    let outputs = run.outputs.into_iter().flatten().collect();
    (outputs, run.counters)
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
    K::Output: Default + Send + Sync,
{
    backend
        .run(kernel, strategy, items, launch)
        .unwrap_or_else(|e| panic!("{} on {launch:?}: {e}", strategy.name()))
}

/// For every strategy and launch shape: the CPU backend's outputs equal the baseline's (and
/// the workload's scalar reference), and its merged counters equal the hand-stepped model's.
pub fn check_all<K>(
    kernel: &K,
    strategies: &[Strategy],
    items: u32,
    launches: &[Launch],
    reference: impl Fn(u32) -> K::Output,
) where
    K: Kernel + Sync,
    K::Output: Default + Send + Sync + PartialEq + Debug,
{
    let cpu = CpuBackend::new();
    let expected: Vec<K::Output> = (0..items).map(reference).collect();
    for launch in launches {
        let base = cpu_run(&cpu, kernel, Strategy::Baseline, items, *launch);
        assert_eq!(
            base.outputs, expected,
            "baseline vs scalar reference, {launch:?}"
        );
        for strategy in strategies {
            let run = cpu_run(&cpu, kernel, *strategy, items, *launch);
            assert_eq!(
                run.outputs,
                base.outputs,
                "{} vs baseline on {launch:?}",
                strategy.name()
            );
            let (model_out, model_counters) = model_run(kernel, *strategy, items, *launch);
            assert_eq!(model_out, base.outputs, "{} model outputs", strategy.name());
            assert_eq!(
                run.counters,
                Some(model_counters),
                "{} counters on {launch:?}",
                strategy.name()
            );
        }
    }
}

/// Outputs and counters with one thread equal those with two.
pub fn check_threads<K>(kernel: &K, strategies: &[Strategy], items: u32, launch: Launch)
where
    K: Kernel + Sync,
    K::Output: Default + Send + Sync + PartialEq + Debug,
{
    let one = CpuBackend::with_threads(1).expect("pool");
    let two = CpuBackend::with_threads(2).expect("pool");
    for strategy in strategies {
        let a = cpu_run(&one, kernel, *strategy, items, launch);
        let b = cpu_run(&two, kernel, *strategy, items, launch);
        assert_eq!(a.outputs, b.outputs, "{}: 1 vs 2 threads", strategy.name());
        assert_eq!(a.tally, b.tally);
        assert_eq!(
            a.counters,
            b.counters,
            "{}: counters, 1 vs 2 threads",
            strategy.name()
        );
    }
}

/// Issue slots of `region`'s row.
pub fn slots(c: &Counters, region: reconverge_simt::Region) -> u64 {
    c.region(region).map_or(0, |r| r.issue_slots)
}
