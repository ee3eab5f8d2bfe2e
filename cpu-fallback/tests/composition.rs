//! Every assignment times every path schedule on every shape: the pairing runs and gives the
//! baseline's outputs, or the backend refuses it before any work with a typed error that
//! names what pairs instead. Which pairs a shape runs is the rule the GPU entry-point lists
//! check at compile time (`reconverge_device::shape_runs`): a schedule the shape lists, an
//! assignment the shape lists, and a pairing some program implements.

use std::fmt::Debug;

use reconverge_backend::{Backend, BackendError, Launch};
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{
    Assignment, BranchLoopKernel, Decision, FactoredBranchLoopKernel, ItemLoopKernel, Kernel,
    PathSchedule, SplitLoopKernel, Strategy, StrategyError, TwoPathKernel,
};
use reconverge_workloads::synthetic::class_chains::ClassChains;
use reconverge_workloads::synthetic::{
    DynamicWork, LoopSplitBench, PathUnification, SynBrDis, SynItDelay, SynItDelayDistinct,
};

const ASSIGNMENTS: [Assignment; 4] = Assignment::ALL;

fn schedules() -> Vec<PathSchedule> {
    let mut out = PathSchedule::EVERY_KIND.to_vec();
    // Beside EVERY_KIND's seed 002 majority vote of 8 with its stop rule.
    for d in [
        Decision::majority_vote(4, true),
        Decision::majority_vote(16, false),
        Decision::round_robin(3, 1, true),
        Decision::round_robin(1, 2, false),
        Decision::CostBalanced,
    ] {
        out.push(PathSchedule::IterationDelaying(d));
        out.push(PathSchedule::BranchDistribution { delaying: Some(d) });
    }
    out
}

/// Whether the shape lists `s`'s kind of schedule and its assignment, and a program pairs them.
fn listed_rule<K: Kernel>(s: &Strategy) -> bool {
    K::STRATEGIES.iter().any(|l| l.paths.same_kind(&s.paths))
        && K::STRATEGIES.iter().any(|l| l.items == s.items)
        && s.pairing().is_ok()
}

/// Runs every pairing of `kernel`'s shape; returns how many ran.
fn every_pairing<K>(kernel: &K, items: u32) -> usize
where
    K: Kernel + Sync,
    K::Output: PartialEq + Debug,
{
    let cpu = CpuBackend::new();
    let mut ran = 0;
    for launch in [Launch::new(64, 3), Launch::new(32, 40)].map(Result::unwrap) {
        let base = cpu
            .run(kernel, Strategy::BASELINE, items, launch)
            .expect("baseline");
        for items_by in ASSIGNMENTS {
            for paths in schedules() {
                let s = Strategy::new(items_by, paths);
                match cpu.run(kernel, s, items, launch) {
                    Ok(run) => {
                        assert_eq!(run.outputs, base.outputs, "{s} on {launch:?}");
                        assert_eq!(run.tally, base.tally, "{s} on {launch:?}");
                        assert!(listed_rule::<K>(&s), "{s} runs but the rule says not");
                        ran += 1;
                    }
                    Err(BackendError::Strategy { source, .. }) => {
                        assert!(!listed_rule::<K>(&s), "{s} refused: {source}");
                        match source {
                            StrategyError::Unpaired(e) => {
                                assert_eq!(s.pairing(), Err(e));
                                assert!(!e.pairs_with.is_empty());
                            }
                            StrategyError::NotApplicable { strategy, .. } => {
                                assert_eq!(strategy, s);
                                assert!(s.pairing().is_ok(), "{s}: {source}");
                            }
                            // Thread-data remapping on a workload without a key.
                            StrategyError::NoRemapKey { strategy, .. } => {
                                assert_eq!(strategy, s);
                                assert_eq!(strategy.items, Assignment::Remapped);
                            }
                            other => panic!("{s}: unexpected {other}"),
                        }
                    }
                    Err(other) => panic!("{s}: unexpected {other}"),
                }
            }
        }
    }
    ran / 2
}

#[test]
fn a_loop_runs_each_of_its_schedules_over_every_assignment() {
    // As written, 6 delaying decisions, speculative reconvergence and collaborative context
    // collection, each over 3 assignments.
    let w = SynItDelayDistinct(SynItDelay::new(6, 10, 0.3, 5));
    assert_eq!(every_pairing(&BranchLoopKernel(w), 700), 3 * 9);
    // A loop whose workload gives a key runs them over thread-data remapping too (all but
    // collaborative context collection, which takes the three dealing assignments).
    let w = ClassChains::interleaved(6, 2);
    assert_eq!(every_pairing(&BranchLoopKernel(w), 700), 4 * 8 + 3);
    // The same (speculative reconvergence and collaborative context collection too, on the
    // unfactored loop), and branch distribution without delaying (the factored loop's own path).
    let w = SynBrDis::new(4, 3, 6, 12);
    assert_eq!(every_pairing(&FactoredBranchLoopKernel(w), 700), 3 * 10);
    // As written over 3 assignments; the occlusion-query loop over static assignment only.
    let w = DynamicWork::new(4, 3, 4);
    assert_eq!(every_pairing(&ItemLoopKernel(w), 700), 3 + 1);
}

#[test]
fn per_item_and_multi_pass_shapes_refuse_the_counters_with_a_typed_error() {
    // Baseline, predication, static branch resolution, branch splitting, z-cull masking and
    // path unification, each over static assignment.
    let w = PathUnification::new(6, 3);
    assert_eq!(every_pairing(&TwoPathKernel(w), 700), 6);
    // The fused and the split loop.
    let w = LoopSplitBench::new(7, 3);
    assert_eq!(every_pairing(&SplitLoopKernel(w), 700), 2);
}
