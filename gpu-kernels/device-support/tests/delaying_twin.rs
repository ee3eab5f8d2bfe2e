//! Iteration delaying's hand-written twin (`delaying_twin::delaying_thread`, what the
//! `iteration_delaying_twin!` kernels run per thread), run by 32 OS threads voting as one warp
//! (`reconverge_cpu::thread_warp::ThreadBallot`, `__ballot_sync` among threads): every item's
//! output is its plain scalar loop's, bit for bit, every lane votes the same number of times
//! (or the warp would hang on a GPU), and the warp's ballots are, vote for vote, those of
//! reconverge's own per-thread delaying under the same decision (`Kernel::delayed_items`), an
//! implementation written apart from the twin: the same schedule, iteration for iteration.

use std::sync::Mutex;

use reconverge_cpu::thread_warp::ThreadBallot;
use reconverge_device::delaying_twin::{
    COST_BALANCED, MAJORITY_VOTE, MAJORITY_VOTE_STOP, ROUND_ROBIN, ROUND_ROBIN_IDLE_REMOVAL,
    delaying_thread, taken_cost,
};
use reconverge_transforms::{BranchLoop, BranchLoopKernel, Decision, Kernel, NoTally};
use reconverge_workloads::reference::Collatz;
use reconverge_workloads::synthetic::SynItDelayDistinct;

/// Each item's output, each lane's vote count, and lane 0's ballot words in order (the
/// warp's whole schedule: every vote's result is the same in every lane).
type WarpRun<O> = (Vec<Option<O>>, Vec<usize>, Vec<u32>);

/// Runs `thread(lane, vote, put)` as the 32 lanes of one warp over items `0..items`.
fn warp<O: Send>(
    items: u32,
    thread: impl Fn(u32, &mut dyn FnMut(bool) -> u32, &mut dyn FnMut(u32, O)) + Sync,
) -> WarpRun<O> {
    let ballot = ThreadBallot::default();
    let outputs = Mutex::new((0..items).map(|_| None).collect::<Vec<_>>());
    let words = Mutex::new(Vec::new());
    let votes = std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..32u32)
            .map(|lane| {
                let (ballot, outputs, words, thread) = (&ballot, &outputs, &words, &thread);
                scope.spawn(move || {
                    let mut round = 0;
                    let mut vote = |p| {
                        let word = ballot.vote(&mut round, lane, p);
                        if lane == 0 {
                            words.lock().unwrap().push(word);
                        }
                        word
                    };
                    let mut put = |item: u32, out| {
                        let mut o = outputs.lock().unwrap();
                        assert!(o[item as usize].is_none(), "item {item} written twice");
                        o[item as usize] = Some(out);
                    };
                    thread(lane, &mut vote, &mut put);
                    round
                })
            })
            .collect();
        lanes.into_iter().map(|h| h.join().unwrap()).collect()
    });
    (
        outputs.into_inner().unwrap(),
        votes,
        words.into_inner().unwrap(),
    )
}

/// One warp of the twin over items `0..items` (at most 32, one per lane).
fn twin_warp<L, const D: u32>(w: &L, items: u32, a: u32, b: u32) -> WarpRun<L::Output>
where
    L: BranchLoop + Sync,
    L::Output: Send,
{
    warp(items, |lane, vote, put| {
        let item = (lane < items).then_some(lane);
        delaying_thread::<L, D>(w, item, a, b, vote, put);
    })
}

/// One warp of reconverge's own per-thread delaying (`Kernel::delayed_items`) under
/// `decision`, each lane dealt its one item.
fn reconverge_warp<L>(w: L, decision: Decision, items: u32) -> WarpRun<L::Output>
where
    L: BranchLoop + Sync + Copy,
    L::Output: Send,
{
    let kernel = BranchLoopKernel(w);
    warp(items, |lane, vote, put| {
        let mut dealt = false;
        let next = || {
            let first = !dealt;
            dealt = true;
            (first && lane < items).then_some(lane)
        };
        assert!(kernel.delayed_items(decision, lane, vote, next, put, &mut NoTally));
    })
}

/// B of the workload as reconverge computes it from its regions.
fn b_of<L: BranchLoop>(w: &L) -> u32 {
    let r = w.regions();
    taken_cost(
        r.condition.cost,
        r.taken.cost,
        r.not_taken.cost,
        r.after_branch.cost,
    )
}

fn check<L>(w: L, items: u32)
where
    L: BranchLoop + Sync + Copy,
    L::Output: Send + PartialEq + std::fmt::Debug + Clone,
{
    let b = b_of(&w);
    let cases: Vec<(&str, Decision, WarpRun<L::Output>)> = vec![
        (
            "mv 4 stop",
            Decision::majority_vote(4, true),
            twin_warp::<L, MAJORITY_VOTE_STOP>(&w, items, 4, 0),
        ),
        (
            "mv 16 stop",
            Decision::majority_vote(16, true),
            twin_warp::<L, MAJORITY_VOTE_STOP>(&w, items, 16, 0),
        ),
        (
            "mv 24 stop",
            Decision::majority_vote(24, true),
            twin_warp::<L, MAJORITY_VOTE_STOP>(&w, items, 24, 0),
        ),
        (
            "mv 16",
            Decision::majority_vote(16, false),
            twin_warp::<L, MAJORITY_VOTE>(&w, items, 16, 0),
        ),
        (
            "rr 1:1",
            Decision::round_robin(1, 1, false),
            twin_warp::<L, ROUND_ROBIN>(&w, items, 1, 1),
        ),
        (
            "rr 3:1",
            Decision::round_robin(3, 1, false),
            twin_warp::<L, ROUND_ROBIN>(&w, items, 3, 1),
        ),
        (
            "rr 3:1 idle",
            Decision::round_robin(3, 1, true),
            twin_warp::<L, ROUND_ROBIN_IDLE_REMOVAL>(&w, items, 3, 1),
        ),
        (
            "rr 1:3 idle",
            Decision::round_robin(1, 3, true),
            twin_warp::<L, ROUND_ROBIN_IDLE_REMOVAL>(&w, items, 1, 3),
        ),
        (
            "cost-balanced",
            Decision::CostBalanced,
            twin_warp::<L, COST_BALANCED>(&w, items, b, 0),
        ),
    ];
    for (what, decision, (outputs, votes, words)) in cases {
        for (item, out) in outputs.iter().enumerate() {
            assert_eq!(
                out.as_ref(),
                Some(&w.run_item(item as u32)),
                "{what}: item {item}"
            );
        }
        assert!(
            votes.iter().all(|&v| v == votes[0]),
            "{what}: lanes out of step {votes:?}"
        );
        let (_, _, theirs) = reconverge_warp(w, decision, items);
        assert_eq!(
            words, theirs,
            "{what}: the warp's ballots differ from reconverge's"
        );
    }
}

#[test]
fn outputs_are_the_plain_loops_and_the_schedule_reconverges() {
    // The real-divergence SYN-ITDELAY at the paper's settings (equal lengths: the stop rule
    // never fires before the end), and Collatz, whose items run different lengths (the stop
    // rule and finished lanes), both in a full and a partial warp.
    for items in [32, 21] {
        check(
            SynItDelayDistinct::with_branch_ratio(8.0, 24, 0.1, 7),
            items,
        );
        check(
            SynItDelayDistinct::with_branch_ratio(4.0, 16, 0.5, 3),
            items,
        );
        check(Collatz { max_steps: 300 }, items);
    }
}

#[test]
fn cost_balanced_b_is_the_cuda_twins() {
    // techniques.cu computes B from N as ceil(32 · 2N / (19 + 2N + 1)): the generator's 19
    // instructions, the integer path's 2N, the loop's 1.
    for r in [4.0, 8.0, 32.0] {
        let w = SynItDelayDistinct::with_branch_ratio(r, 64, 0.1, 2011);
        let n = u64::from(w.0.n_pairs);
        let cuda = (32 * 2 * n).div_ceil(19 + 2 * n + 1) as u32;
        assert_eq!(b_of(&w), cuda.max(1), "r = {r}");
    }
}
