//! Seed 002 (Han & Abdelrahman) §4.2.1: iteration delaying on SYN-ITDELAY.
//!
//! - `fig10`: speedup against the branch ratio `r` (paper: 1 to 50; here 1, 8, 32) at
//!   randomised directions (`f` = 50 %), for majority vote (threshold 16, with the
//!   anti-starvation stop), round robin (cycle 50 %) and round robin with idle removal;
//! - `fig11`: against the branch frequency `f` (paper: 0–100 %; here 0, 10, 50, 100 %) at `r` = 8;
//! - `table1`: majority-vote thresholds 1, 16, 32 and round-robin cycles 10, 50, 90 % at
//!   `r` = 8, `f` = 10 %.
//!
//! Scaled down for a 2-core CPU: 2048 items of 16 iterations, 256-thread blocks.

mod common;

use criterion::Criterion;
use reconverge_backend::Strategy;
use reconverge_benches::{majority_vote, round_robin};
use reconverge_transforms::BranchLoopKernel;
use reconverge_workloads::synthetic::SynItDelay;

const ITEMS: u32 = 2048;
const ITERATIONS: u32 = 16;

fn strategies() -> [Strategy; 4] {
    [
        Strategy::BASELINE,
        majority_vote(16),
        round_robin(50, false),
        round_robin(50, true),
    ]
}

fn run(c: &mut Criterion, group: &str, points: &[(String, SynItDelay)], list: &[Strategy]) {
    let points = points
        .iter()
        .map(|(x, w)| (x.clone(), BranchLoopKernel(*w)));
    let launch = common::one_item_per_thread(ITEMS);
    common::bench_sweep(c, group, points, list, ITEMS, launch);
}

fn fig10(c: &mut Criterion) {
    let points: Vec<_> = [1.0, 8.0, 32.0]
        .into_iter()
        .map(|r| {
            (
                format!("r={r}"),
                SynItDelay::with_branch_ratio(r, ITERATIONS, 0.5, 1),
            )
        })
        .collect();
    run(c, "seed002_fig10_branch_ratio", &points, &strategies());
}

fn fig11(c: &mut Criterion) {
    let points: Vec<_> = [0.0, 0.1, 0.5, 1.0]
        .into_iter()
        .map(|f| {
            (
                format!("f={f}"),
                SynItDelay::with_branch_ratio(8.0, ITERATIONS, f, 2),
            )
        })
        .collect();
    run(c, "seed002_fig11_branch_frequency", &points, &strategies());
}

fn table1(c: &mut Criterion) {
    let w = SynItDelay::with_branch_ratio(8.0, ITERATIONS, 0.1, 3);
    let list = [
        Strategy::BASELINE,
        majority_vote(1),
        majority_vote(16),
        majority_vote(32),
        round_robin(10, false),
        round_robin(50, false),
        round_robin(90, false),
    ];
    run(
        c,
        "seed002_table1_parameters",
        &[("r=8,f=0.1".into(), w)],
        &list,
    );
}

common::bench_main!(fig10, fig11, table1);
