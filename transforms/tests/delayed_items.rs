//! Iteration delaying as each thread's plain loop with a warp vote (`Kernel::delayed_items`,
//! what the CUDA backend runs), run by 32 OS threads that vote through a shared ballot as the
//! lanes of one warp do: every decision and both orders of dealing give each item the output of
//! its plain scalar loop, every thread makes the same votes (else the ballot would never
//! complete and the test would time out), and seed 002's decisions run one path per iteration.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use reconverge_cpu::thread_warp::{Dealing, ThreadBallot};
use reconverge_transforms::{BranchLoop, BranchLoopKernel, Decision, Kernel, NoTally};
use reconverge_workloads::reference::Collatz;
use reconverge_workloads::synthetic::{SynItDelay, SynItDelayDistinct};

const LANES: u32 = 32;

/// Every item's output, and for each thread the vote rounds in which it ran a path, with the
/// path (true: taken).
type Ran = Vec<(usize, bool)>;

/// Runs `kernel` under `decision` on `items` items with 32 threads as one warp.
fn run_warp<L>(
    kernel: BranchLoopKernel<L>,
    decision: Decision,
    items: u32,
    dealing: Dealing,
) -> (Vec<Option<L::Output>>, Vec<Ran>)
where
    L: BranchLoop + Copy + Send + Sync + 'static,
    L::Output: Send + Sync + Default,
{
    let ballot = Arc::new(ThreadBallot::default());
    let counter = Arc::new(AtomicU32::new(LANES));
    let outputs = Arc::new(Mutex::new(vec![None; items as usize]));
    let (done, finished) = mpsc::channel();
    for lane in 0..LANES {
        let (ballot, counter, outputs, done) = (
            ballot.clone(),
            counter.clone(),
            outputs.clone(),
            done.clone(),
        );
        std::thread::spawn(move || {
            let mut ran = Ran::new();
            let mut dealt: Option<u32> = None;
            let next = || {
                let item = match (dealt, dealing) {
                    (None, _) => lane,
                    (Some(last), Dealing::Stride) => last + LANES,
                    (Some(_), Dealing::Counter) => counter.fetch_add(1, Ordering::SeqCst),
                };
                dealt = Some(item);
                (item < items).then_some(item)
            };
            // A vote's round number tells which iteration a path ran in: the two votes of an
            // iteration come just before its paths.
            let rounds = std::cell::Cell::new(0usize);
            let vote = |p: bool| {
                let mut r = rounds.get();
                let word = ballot.vote(&mut r, lane, p);
                rounds.set(r);
                word
            };
            let mut put = |item: u32, out: L::Output| {
                outputs.lock().unwrap()[item as usize] = Some(out);
            };
            let tracked = Tracked {
                inner: kernel.0,
                rounds: &rounds,
                ran: std::cell::RefCell::new(&mut ran),
            };
            let ok = BranchLoopKernel(&tracked).delayed_items(
                decision,
                lane,
                vote,
                next,
                &mut put,
                &mut NoTally,
            );
            done.send((lane, ok, ran)).unwrap();
        });
    }
    let mut ran = vec![Ran::new(); LANES as usize];
    for _ in 0..LANES {
        let (lane, ok, r) = finished.recv_timeout(Duration::from_secs(60)).expect(
            "a thread's votes never completed: the lanes voted a different number of times",
        );
        assert!(ok, "delayed_items refused {decision:?}");
        ran[lane as usize] = r;
    }
    let outputs = outputs.lock().unwrap().clone();
    (outputs, ran)
}

/// The workload with every path recorded (the vote round it ran in, which path), so that the
/// test can see which lanes shared an iteration.
struct Tracked<'a, L> {
    inner: L,
    rounds: &'a std::cell::Cell<usize>,
    ran: std::cell::RefCell<&'a mut Ran>,
}

impl<L: BranchLoop> BranchLoop for &Tracked<'_, L> {
    type State = L::State;
    type Output = L::Output;
    fn regions(&self) -> reconverge_transforms::LoopRegions {
        self.inner.regions()
    }
    fn start(&self, item: u32) -> L::State {
        self.inner.start(item)
    }
    fn running(&self, s: &L::State) -> bool {
        self.inner.running(s)
    }
    fn condition(&self, s: &mut L::State) -> bool {
        self.inner.condition(s)
    }
    fn taken<T: reconverge_transforms::Tally>(&self, s: &mut L::State, t: &mut T) {
        self.ran.borrow_mut().push((self.rounds.get(), true));
        self.inner.taken(s, t);
    }
    fn not_taken<T: reconverge_transforms::Tally>(&self, s: &mut L::State, t: &mut T) {
        self.ran.borrow_mut().push((self.rounds.get(), false));
        self.inner.not_taken(s, t);
    }
    fn after_branch<T: reconverge_transforms::Tally>(&self, s: &mut L::State, t: &mut T) {
        self.inner.after_branch(s, t);
    }
    fn finish(&self, s: &L::State) -> L::Output {
        self.inner.finish(s)
    }
}

const DECISIONS: &[Decision] = &[
    Decision::MajorityVote {
        threshold: 8,
        stop_when_a_lane_finishes: true,
    },
    Decision::MajorityVote {
        threshold: 16,
        stop_when_a_lane_finishes: false,
    },
    // Above the lanes left at the end: the vote must flip rather than idle for ever.
    Decision::MajorityVote {
        threshold: 32,
        stop_when_a_lane_finishes: false,
    },
    Decision::RoundRobin {
        num_zeros: 1,
        num_ones: 1,
        remove_idle: false,
    },
    Decision::RoundRobin {
        num_zeros: 3,
        num_ones: 1,
        remove_idle: true,
    },
    Decision::CostBalanced,
];

/// Whether `decision` runs one path per iteration until the end (no stop rule; cost-balanced
/// delaying runs the common path every iteration).
fn one_path_per_iteration(decision: Decision) -> bool {
    matches!(
        decision,
        Decision::MajorityVote {
            stop_when_a_lane_finishes: false,
            ..
        } | Decision::RoundRobin { .. }
    )
}

fn check<L>(kernel: BranchLoopKernel<L>, items: u32)
where
    L: BranchLoop + Copy + Send + Sync + 'static,
    L::Output: Send + Sync + Default + PartialEq + std::fmt::Debug,
{
    for &decision in DECISIONS {
        for dealing in [Dealing::Stride, Dealing::Counter] {
            let (outputs, ran) = run_warp(kernel, decision, items, dealing);
            for (item, out) in outputs.iter().enumerate() {
                assert_eq!(
                    out.as_ref(),
                    Some(&kernel.0.run_item(item as u32)),
                    "{decision:?} {dealing:?} item {item}"
                );
            }
            if one_path_per_iteration(decision) {
                let mut by_round = std::collections::HashMap::new();
                for &(round, path) in ran.iter().flatten() {
                    let first = *by_round.entry(round).or_insert(path);
                    assert_eq!(first, path, "{decision:?}: two paths in one iteration");
                }
            }
        }
    }
}

#[test]
fn the_delayed_loop_of_32_threads_gives_every_item_its_plain_output() {
    // Equal trips, paths of distinct shape, f = 0.3.
    check(
        BranchLoopKernel(SynItDelayDistinct(SynItDelay::new(2, 12, 0.3, 5))),
        150,
    );
    // Trips that vary from item to item, so lanes finish and are refilled at different times.
    check(BranchLoopKernel(Collatz { max_steps: 60 }), 200);
}

#[test]
fn delaying_issues_fewer_two_path_iterations_than_the_plain_loop() {
    // Under majority vote without the stop rule each iteration runs one path: the rounds in
    // which some lane ran a path outnumber the items' iterations per lane, because lanes wait.
    let kernel = BranchLoopKernel(SynItDelayDistinct(SynItDelay::new(2, 20, 0.5, 9)));
    let decision = Decision::MajorityVote {
        threshold: 16,
        stop_when_a_lane_finishes: false,
    };
    let (_, ran) = run_warp(kernel, decision, 32, Dealing::Stride);
    let rounds: std::collections::HashSet<usize> = ran.iter().flatten().map(|&(r, _)| r).collect();
    // Each lane ran its 20 iterations.
    assert!(ran.iter().all(|r| r.len() == 20));
    // With f = 0.5 the warp needs both paths about 20 times each: more than 20 iterations.
    assert!(rounds.len() > 20, "{} rounds", rounds.len());
    // And fewer than running every lane's iterations one at a time.
    assert!(rounds.len() < 20 * 32);
}
