//! Seed 002 (Han & Abdelrahman), figures 2 and 3: exact FMA counts of iteration delaying on a
//! warp of three threads whose branch paths are 100 FMA each.

use reconverge_simt::ModelWarp;
use reconverge_transforms::{
    BranchLoopKernel, Decision, Discard, Kernel, NoTally, Strategy, WarpProgram, WarpTask,
};
use reconverge_workloads::synthetic::fig2::{FIG2, FIG3, NOT_TAKEN, Pattern, TAKEN};

/// Runs the three threads as one 3-lane warp; returns the FMA count and each thread's trace.
fn run(pattern: Pattern, strategy: Strategy) -> (u64, [u32; 3]) {
    let kernel = BranchLoopKernel(pattern);
    let mut warp = ModelWarp::with_width(3);
    let task = WarpTask::new(3, 1, 0, 3, 0);
    let mut program = kernel
        .program(&warp, &strategy, 0, task, &[])
        .expect("strategy applies");
    let mut out = [0u32; 3];
    struct Out<'a>(&'a mut [u32; 3]);
    impl reconverge_transforms::Sink<u32> for Out<'_> {
        fn put(&mut self, item: u32, v: u32) {
            self.0[item as usize] = v;
        }
    }
    let mut guard = 0;
    while program.step(&mut warp, &mut Out(&mut out), &mut NoTally) {
        guard += 1;
        assert!(guard < 100, "the warp must finish");
    }
    let _ = Discard;
    let c = warp.counters();
    let fma = [TAKEN, NOT_TAKEN]
        .iter()
        .map(|r| c.region(*r).map_or(0, |row| row.issue_slots))
        .sum();
    (fma, out)
}

fn majority(stop: bool) -> Strategy {
    // "The direction that at least half of the threads take": 2 of 3.
    Strategy::iteration_delaying(Decision::MajorityVote {
        threshold: 2,
        stop_when_a_lane_finishes: stop,
    })
}

#[test]
fn figure_2a_original_execution_costs_600() {
    assert_eq!(run(FIG2, Strategy::BASELINE).0, 600);
}

#[test]
fn figure_2b_majority_vote_costs_400() {
    let (fma, out) = run(FIG2, majority(false));
    assert_eq!(fma, 400);
    assert_eq!(out, run(FIG2, Strategy::BASELINE).1);
}

#[test]
fn figure_2c_minority_first_costs_500() {
    // Round robin with one iteration per direction starts on the not-taken path: the
    // minority choice of the first iteration.
    let rr = Strategy::iteration_delaying(Decision::RoundRobin {
        num_zeros: 1,
        num_ones: 1,
        remove_idle: false,
    });
    let (fma, out) = run(FIG2, rr);
    assert_eq!(fma, 500);
    assert_eq!(out, run(FIG2, Strategy::BASELINE).1);
}

#[test]
fn figure_3_original_costs_400_and_majority_vote_600() {
    assert_eq!(run(FIG3, Strategy::BASELINE).0, 400);
    let (fma, out) = run(FIG3, majority(false));
    assert_eq!(fma, 600);
    assert_eq!(out, run(FIG3, Strategy::BASELINE).1);
    // The anti-starvation stop does not rescue this case: thread 2 still runs alone.
    assert_eq!(run(FIG3, majority(true)).0, 600);
}
