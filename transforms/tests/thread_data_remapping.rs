//! Thread-data remapping (Zhang et al., G-Streamline, ASPLOS 2011) on the reference model:
//! every item runs exactly once and gives the plain scalar loop's output under every path
//! schedule it pairs with; on items of two classes interleaved at random the model's issues of
//! each chain fall to what a hand count of the grouped warps gives, and on classes already in
//! warp runs nothing changes but the permutation pass; a workload without a key is refused
//! with a typed error.

mod common;

use common::{Launch, Run, launches, run, run_complete};
use proptest::prelude::*;
use reconverge_transforms::{
    Assignment, BranchLoopKernel, ItemLoopKernel, PAPER_MAJORITY_VOTE, Strategy, StrategyError,
};
use reconverge_workloads::synthetic::class_chains::{ClassChains, FLOAT_CHAIN, INTEGER_CHAIN};
use reconverge_workloads::synthetic::{DynamicWork, PeriodicBlockLoop};

const SCHEDULES: [Strategy; 3] = [
    Strategy::THREAD_DATA_REMAPPING,
    Strategy::iteration_delaying(PAPER_MAJORITY_VOTE).over(Assignment::Remapped),
    Strategy::speculative_reconvergence(16, 8).over(Assignment::Remapped),
];

fn check_outputs(w: ClassChains, launch: Launch) {
    for s in SCHEDULES {
        let r = run_complete(&BranchLoopKernel(w), &s, launch);
        for (item, out) in r.outputs.iter().enumerate() {
            assert_eq!(*out, Some(w.reference(item as u32)), "{s}, item {item}");
        }
    }
}

#[test]
fn every_item_once_at_the_edge_sizes() {
    for items in [0, 1, 31, 32, 33, 63, 65, 100] {
        for (blocks, threads) in [(1, 32), (3, 64), (2, 128)] {
            check_outputs(
                ClassChains::interleaved(3, 1),
                Launch::new(items, blocks, threads),
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_item_once_with_the_plain_loops_output(launch in launches(300, 6), layout in 0u32..3) {
        let w = ClassChains { iterations: 3, rounds: 1, layout };
        check_outputs(w, launch);
    }
}

/// Issues of the float and the integer chain.
fn chain_issues(r: &Run<u32>, w: &ClassChains) -> (u64, u64) {
    let cost = w.rounds * 4;
    let issues = |region: reconverge_simt::Region| {
        r.counters
            .region(region.with_cost(cost))
            .map_or(0, |row| row.issues)
    };
    (issues(FLOAT_CHAIN), issues(INTEGER_CHAIN))
}

/// Hand count of the chains' issues when one warp runs `order` (items, in the order its lanes
/// take them, 32 at a time) for `iterations` iterations each: a window of 32 issues each chain
/// its lanes hold once per iteration.
fn hand_count(w: &ClassChains, order: &[u32]) -> (u64, u64) {
    let mut float = 0;
    let mut integer = 0;
    for window in order.chunks(32) {
        let zeros = window.iter().filter(|&&i| w.class(i) == 0).count();
        float += u64::from(zeros > 0) * u64::from(w.iterations);
        integer += u64::from(zeros < window.len()) * u64::from(w.iterations);
    }
    (float, integer)
}

#[test]
fn interleaved_classes_are_issued_grouped_after_remapping() {
    // One block of one warp over 128 items: the identity map's four windows each hold both
    // classes (the hash), the remapped order holds the class-0 items first.
    let w = ClassChains::interleaved(8, 4);
    let launch = Launch::new(128, 1, 32);
    let base = run_complete(&BranchLoopKernel(w), &Strategy::BASELINE, launch);
    let remapped = run_complete(
        &BranchLoopKernel(w),
        &Strategy::THREAD_DATA_REMAPPING,
        launch,
    );
    let identity: Vec<u32> = (0..128).collect();
    let mut grouped: Vec<u32> = identity
        .iter()
        .copied()
        .filter(|&i| w.class(i) == 0)
        .collect();
    grouped.extend(identity.iter().copied().filter(|&i| w.class(i) == 1));
    let (hand_base, hand_remap) = (hand_count(&w, &identity), hand_count(&w, &grouped));
    // Every window mixed: 4 windows x 8 iterations of each chain.
    assert_eq!(hand_base, (32, 32));
    assert_eq!(chain_issues(&base, &w), hand_base);
    assert_eq!(chain_issues(&remapped, &w), hand_remap);
    // At most one window holds both classes after grouping: at most 5 window-chains of 8
    // iterations instead of 8 (here 4: 64 items of each class).
    assert!(hand_remap.0 + hand_remap.1 <= 5 * 8, "{hand_remap:?}");
    let eff = |r: &Run<u32>| r.counters.simd_efficiency();
    assert!(
        eff(&remapped) > eff(&base) + 0.2,
        "{} vs {}",
        eff(&remapped),
        eff(&base)
    );
    // The outputs are the baseline's.
    assert_eq!(remapped.outputs, base.outputs);
}

#[test]
fn grouped_classes_gain_nothing_and_pay_the_pass() {
    let w = ClassChains::grouped(8, 4);
    let launch = Launch::new(128, 1, 32);
    let base = run_complete(&BranchLoopKernel(w), &Strategy::BASELINE, launch);
    let remapped = run_complete(
        &BranchLoopKernel(w),
        &Strategy::THREAD_DATA_REMAPPING,
        launch,
    );
    // Runs of 32: each window one chain, as written and after the (stable) grouping alike.
    assert_eq!(chain_issues(&base, &w), (16, 16));
    assert_eq!(chain_issues(&remapped, &w), (16, 16));
    assert!(remapped.counters.total.issue_slots > base.counters.total.issue_slots);
    assert!(remapped.counters.simd_efficiency() <= base.counters.simd_efficiency());
}

#[test]
fn workloads_without_a_key_are_refused_with_a_typed_error() {
    let launch = Launch::new(64, 2, 32);
    let periodic = BranchLoopKernel(PeriodicBlockLoop::phased(8, 4, 2));
    for s in SCHEDULES {
        let e = run(&periodic, &s, launch).unwrap_err();
        assert!(
            matches!(e, StrategyError::NoRemapKey { strategy, .. } if strategy == s),
            "{e}"
        );
        assert!(e.to_string().contains("Assignment::Static"), "{e}");
    }
    let items = ItemLoopKernel(DynamicWork::new(4, 3, 4));
    let e = run(&items, &Strategy::THREAD_DATA_REMAPPING, launch).unwrap_err();
    assert!(matches!(e, StrategyError::NoRemapKey { .. }), "{e}");
    // A per-item schedule over remapping: no program pairs them.
    let e = run(
        &BranchLoopKernel(ClassChains::interleaved(2, 1)),
        &Strategy::PREDICATION.over(Assignment::Remapped),
        launch,
    )
    .unwrap_err();
    assert!(matches!(e, StrategyError::Unpaired(_)), "{e}");
}

#[test]
fn ids_name_the_remapping() {
    for s in SCHEDULES {
        let id = s.id().to_string();
        assert_eq!(id.parse::<Strategy>(), Ok(s), "{id}");
    }
    assert_eq!(
        Strategy::THREAD_DATA_REMAPPING.id().to_string(),
        "thread-data-remapping"
    );
    assert_eq!(
        SCHEDULES[1].id().to_string(),
        "delaying-majority-vote-8-stop-remapped"
    );
}

/// The GPU's permutation pass (`permute_as_lane`, each lane's own code with the warp's
/// ballots), run by 32 OS threads voting as a warp, writes for every block the block's chunk
/// stably sorted by key: what a stable sort of the chunk's items by class gives.
#[test]
fn the_lanes_permutation_pass_is_a_stable_sort_of_each_chunk() {
    use reconverge_cpu::thread_warp::ThreadBallot;
    use reconverge_transforms::strategies::thread_data_remapping::{Permutation, permute_as_lane};
    use reconverge_transforms::{BranchLoop, WarpTask};
    use std::sync::atomic::{AtomicU32, Ordering};

    for (items, blocks, layout) in [
        (0, 1, 0),
        (1, 1, 0),
        (33, 1, 0),
        (100, 3, 0),
        (300, 2, 1),
        (97, 4, 2),
    ] {
        let w = ClassChains {
            iterations: 3,
            rounds: 1,
            layout,
        };
        let words: Vec<AtomicU32> = (0..items).map(|_| AtomicU32::new(u32::MAX)).collect();
        for block in 0..blocks {
            // Warp 1 of each block returns at once; warp 0 sorts.
            for warp in [1, 0] {
                let task = WarpTask::new(items, blocks, block, 64, warp);
                let ballot = ThreadBallot::default();
                std::thread::scope(|s| {
                    for lane in 0..32 {
                        let (ballot, words, w) = (&ballot, &words[..], &w);
                        s.spawn(move || {
                            let mut round = 0;
                            let vote = |p| ballot.vote(&mut round, lane, p);
                            permute_as_lane(w, lane, vote, task, Permutation::new(words));
                        });
                    }
                });
            }
            let task = WarpTask::new(items, blocks, block, 64, 0);
            let mut want: Vec<u32> = (task.block_start..task.block_end).collect();
            want.sort_by_key(|&i| w.remap_key(i));
            let got: Vec<u32> = (task.block_start..task.block_end)
                .map(|s| words[s as usize].load(Ordering::Relaxed))
                .collect();
            assert_eq!(
                got, want,
                "{items} items, {blocks} blocks, layout {layout}, block {block}"
            );
        }
    }
}
