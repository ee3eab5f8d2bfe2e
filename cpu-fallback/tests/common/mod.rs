//! Helpers shared by the workload tests: an independent reference run of the model, strategy
//! equivalence over launch shapes, and thread-count independence.
#![allow(dead_code)]

use std::fmt::Debug;
use std::sync::atomic::AtomicU32;

use reconverge_backend::{Backend, Counters, Launch, Run};
use reconverge_cpu::CpuBackend;
use reconverge_simt::{BlockShared, ModelWarp, WARP_SIZE};
use reconverge_transforms::{
    Decision, Kernel, NoTally, PassPlan, Sink, Strategy, WarpProgram, WarpTask,
    initial_block_counters,
};

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

/// A sink that checks every item is written exactly once.
struct Collect<'a, O> {
    out: &'a mut [Option<O>],
}

impl<O: Copy + Debug> Sink<O> for Collect<'_, O> {
    fn put(&mut self, item: u32, value: O) {
        let slot = self
            .out
            .get_mut(item as usize)
            .unwrap_or_else(|| panic!("item {item} out of range"));
        assert!(slot.is_none(), "item {item} written twice");
        *slot = Some(value);
    }
}

/// The reference model's run, stepped by hand: for each pass and block, one [`ModelWarp`]
/// per warp sharing one [`BlockShared`], stepped round robin one loop iteration at a time (as a
/// GPU's warps interleave), counters merged at the end. Returns the outputs and counters.
pub fn model_run<K: Kernel>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
) -> (Vec<K::Output>, Counters)
where
    K::Output: Debug,
{
    let passes = kernel.passes(&strategy).expect("strategy applies");
    let mut out: Vec<Option<K::Output>> = vec![None; items as usize];
    let mut total = Counters::new(WARP_SIZE);
    let scratch: Vec<AtomicU32> = (0..kernel.scratch_words(&strategy, items))
        .map(|_| AtomicU32::new(0))
        .collect();
    let warps = launch.threads_per_block / WARP_SIZE;
    let mut plan = PassPlan::new(passes, kernel.repeat_last_pass_while(&strategy));
    while let Some(pass) = plan.next_pass_in(&scratch) {
        for block in 0..launch.blocks {
            let shared = BlockShared::new();
            for (i, v) in initial_block_counters(launch.threads_per_block)
                .iter()
                .enumerate()
            {
                shared.set(i, *v);
            }
            let mut ws: Vec<_> = (0..warps)
                .map(|w| {
                    let warp = ModelWarp::in_block(&shared);
                    let task =
                        WarpTask::new(items, launch.blocks, block, launch.threads_per_block, w);
                    let p = kernel
                        .program(&warp, &strategy, pass, task, &scratch)
                        .expect("program builds");
                    (warp, p, true)
                })
                .collect();
            let mut steps = 0u64;
            while ws.iter().any(|w| w.2) {
                for (warp, p, alive) in ws.iter_mut() {
                    if *alive {
                        *alive = p.step(warp, &mut Collect { out: &mut out }, &mut NoTally);
                    }
                }
                steps += 1;
                assert!(steps < 100_000_000, "a warp never finishes");
            }
            for (warp, _, _) in &ws {
                total.merge(warp.counters());
            }
        }
    }
    let outputs = out
        .into_iter()
        .enumerate()
        .map(|(i, o)| o.unwrap_or_else(|| panic!("item {i} never written")))
        .collect();
    (outputs, total)
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
