//! The GPU's form of the multi-pass strategies (`Kernel::pass_as_lane`: z-cull masking's mask
//! and path passes, the occlusion-query loop's passes, branch splitting's, each lane's own code
//! with the warp's ballots) run by 32 OS threads voting as each warp, every warp of a launch,
//! pass after pass as `PassPlan` orders them: every item is written exactly once, with the
//! baseline's output and tally, on launches whose windows end inside a warp, launches with
//! fewer threads than items and with more.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use common::{Launch, run_complete};
use reconverge_cpu::thread_warp::ThreadBallot;
use reconverge_transforms::{
    ItemLoopKernel, Kernel, PassPlan, Strategy, Tally, TwoPathKernel, WarpTask,
};
use reconverge_workloads::synthetic::{
    BranchSplitBench, BranchSplitDistinct, DynamicWork, Gems34Branch, MaskLayout,
};

/// Adds to shared accumulators, as the GPU's global atomics do.
struct SharedTally<'a>(&'a [AtomicU64]);

impl Tally for SharedTally<'_> {
    fn add(&mut self, index: u32, amount: u64) {
        if let Some(cell) = self.0.get(index as usize) {
            cell.fetch_add(amount, Ordering::Relaxed);
        }
    }
}

/// What the lane passes produced: each item's outputs in the order written, the tally, and
/// how many passes ran.
struct LaneRun<O> {
    outputs: Vec<Vec<O>>,
    tally: Vec<u64>,
    passes: u32,
}

/// Runs `strategy` on `kernel` as the GPU runs it: every pass of the plan, every warp of the
/// launch as 32 threads calling `pass_as_lane`, the query word zeroed before each pass.
fn run_lane_passes<K: Kernel + Sync>(
    kernel: &K,
    strategy: &Strategy,
    launch: Launch,
) -> LaneRun<K::Output>
where
    K::Output: Send,
{
    let Launch {
        items,
        blocks,
        threads_per_block,
    } = launch;
    let scratch: Vec<AtomicU32> = (0..kernel.scratch_words(strategy, items))
        .map(|_| AtomicU32::new(0))
        .collect();
    let tally: Vec<AtomicU64> = (0..kernel.tally_len()).map(|_| AtomicU64::new(0)).collect();
    let outputs = Mutex::new((0..items).map(|_| Vec::new()).collect::<Vec<_>>());
    let mut plan = PassPlan::of(kernel, strategy).unwrap();
    let mut passes = 0;
    while let Some(pass) = plan.next_pass_in(&scratch) {
        passes += 1;
        assert!(passes <= 200, "{strategy}: the passes do not end");
        for block in 0..blocks {
            for warp in 0..threads_per_block / 32 {
                let task = WarpTask::new(items, blocks, block, threads_per_block, warp);
                let ballot = ThreadBallot::default();
                std::thread::scope(|s| {
                    for lane in 0..32 {
                        let (ballot, scratch, tally, outputs) =
                            (&ballot, &scratch[..], &tally[..], &outputs);
                        s.spawn(move || {
                            let mut round = 0;
                            let vote = |p| ballot.vote(&mut round, lane, p);
                            let put = |item: u32, out| {
                                outputs.lock().unwrap()[item as usize].push(out);
                            };
                            let ran = kernel.pass_as_lane(
                                strategy,
                                pass,
                                lane,
                                vote,
                                task,
                                scratch,
                                put,
                                &mut SharedTally(tally),
                            );
                            assert!(ran, "{strategy}: no lane form for pass {pass}");
                        });
                    }
                });
            }
        }
    }
    LaneRun {
        outputs: outputs.into_inner().unwrap(),
        tally: tally.iter().map(|c| c.load(Ordering::Relaxed)).collect(),
        passes,
    }
}

const LAUNCHES: [Launch; 7] = [
    Launch::new(0, 1, 32),
    Launch::new(1, 1, 32),
    Launch::new(31, 1, 32),
    Launch::new(33, 1, 32),
    Launch::new(100, 3, 64),
    Launch::new(300, 2, 64),
    Launch::new(97, 4, 96),
];

fn check_against_baseline<K: Kernel + Sync>(kernel: &K, strategy: &Strategy) -> u32
where
    K::Output: Send + PartialEq + std::fmt::Debug,
{
    let mut most_passes = 0;
    for launch in LAUNCHES {
        let base = run_complete(kernel, &Strategy::BASELINE, launch);
        let lanes = run_lane_passes(kernel, strategy, launch);
        for (item, (want, got)) in base.outputs.iter().zip(&lanes.outputs).enumerate() {
            let want = want.unwrap();
            assert_eq!(got, &[want], "{strategy}, {launch:?}, item {item}");
        }
        assert_eq!(lanes.tally, base.tally, "{strategy}, {launch:?}");
        most_passes = most_passes.max(lanes.passes);
    }
    most_passes
}

#[test]
fn z_cull_masking_lane_passes_give_the_baselines_outputs() {
    for w in [
        Gems34Branch::random(0.3, 7),
        Gems34Branch::random(0.95, 8),
        Gems34Branch::coherent(0.5, 9),
    ] {
        let passes = check_against_baseline(&TwoPathKernel(w), &Strategy::Z_CULL_MASKING);
        assert_eq!(passes, 3);
    }
}

#[test]
fn occlusion_query_loop_lane_passes_give_the_baselines_outputs() {
    // Trip counts 1..=9: one iteration per pass takes nine passes, and a pass that leaves no
    // item unfinished ends the run (the first, at 16 per pass).
    let w = ItemLoopKernel(DynamicWork::new(2, 9, 11));
    for (per_pass, want_passes) in [(1, 9), (4, 3), (8, 2), (16, 1)] {
        let passes = check_against_baseline(&w, &Strategy::occlusion_query_loop(per_pass));
        assert_eq!(passes, want_passes, "{per_pass} iterations per pass");
    }
}

#[test]
fn branch_splitting_lane_passes_give_the_baselines_outputs() {
    // Seed 001's benchmark with its float else branch: a random mask at two fractions of else
    // items, and the linear one (the if items first, then the else items) with other path
    // lengths.
    for w in [
        BranchSplitDistinct(BranchSplitBench::new(300, 0.1, MaskLayout::Random, 5)),
        BranchSplitDistinct(BranchSplitBench::new(300, 0.5, MaskLayout::Random, 6)),
        BranchSplitDistinct(
            BranchSplitBench::new(300, 0.3, MaskLayout::Linear, 7).with_paths(8, 40),
        ),
    ] {
        let passes = check_against_baseline(&TwoPathKernel(w), &Strategy::BRANCH_SPLITTING);
        assert_eq!(passes, 2);
    }
}
