//! Seed 002 (Han & Abdelrahman) §4.2.1 on SYN-ITDELAY: fig. 10 (speedup against the branch
//! ratio r), fig. 11 (against the branch frequency f) and table 1 (decision parameters), as
//! numbers: time per strategy, model issue slots, SIMD efficiency and speedups over the
//! baseline (measured time, and the instruction-count ratio the model predicts).
//!
//! ```text
//! cargo run --release -p reconverge-benches --example seed002_iteration_delaying -- --help
//! ```

use clap::{Parser, ValueEnum};
use reconverge_backend::{BackendError, Strategy};
use reconverge_benches::{ExampleArgs, majority_vote, round_robin};
use reconverge_transforms::BranchLoopKernel;
use reconverge_workloads::synthetic::SynItDelay;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Experiment {
    Fig10,
    Fig11,
    Table1,
    All,
}

/// Iteration delaying on SYN-ITDELAY (seed 002 figs. 10, 11, table 1).
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    shared: ExampleArgs,
    /// Which figure or table.
    #[arg(long, value_enum, default_value = "all")]
    experiment: Experiment,
    /// Items (threads of the paper's kernel).
    #[arg(long, default_value_t = 8192)]
    items: u32,
    /// Loop iterations per item.
    #[arg(long, default_value_t = 32)]
    iterations: u32,
    /// Seed of the items' generators.
    #[arg(long, default_value_t = 2011)]
    seed: u64,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let sweeper = a.shared.per_thread(a.items, 3)?;
    let delaying = [
        majority_vote(16),
        round_robin(50, false),
        round_robin(50, true),
    ];
    let table = |title: &str, sweep: &str, points: Vec<(String, SynItDelay)>, list: &[Strategy]| {
        let kernels = points.into_iter().map(|(x, w)| (x, BranchLoopKernel(w)));
        sweeper.sweep(title, sweep, kernels, list).map(drop)
    };
    println!(
        "SYN-ITDELAY: {} items x {} iterations, blocks of {} threads; paths are 2N FMA, non-branch code 20 instructions (r = N/10)",
        a.items, a.iterations, a.shared.block
    );
    if matches!(a.experiment, Experiment::Fig10 | Experiment::All) {
        let points = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 50.0]
            .into_iter()
            .map(|r| {
                let w = SynItDelay::with_branch_ratio(r, a.iterations, 0.5, a.seed);
                (format!("r={r}"), w)
            })
            .collect();
        table(
            "Fig. 10: speedup vs branch ratio r (f = 50 %). Paper: below 1 at small r, up to ~1.18x (majority vote) and ~1.30x (round robin)",
            "r",
            points,
            &delaying,
        )?;
    }
    if matches!(a.experiment, Experiment::Fig11 | Experiment::All) {
        let points = [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]
            .into_iter()
            .map(|f| {
                let w = SynItDelay::with_branch_ratio(8.0, a.iterations, f, a.seed);
                (format!("f={f}"), w)
            })
            .collect();
        table(
            "Fig. 11: speedup vs branch frequency f (r = 8). Paper: majority vote insensitive to f, ~10 % slowdown at f = 0 and 100 %",
            "f",
            points,
            &delaying,
        )?;
    }
    if matches!(a.experiment, Experiment::Table1 | Experiment::All) {
        let w = SynItDelay::with_branch_ratio(8.0, a.iterations, 0.1, a.seed);
        let list: Vec<Strategy> = [1, 8, 16, 24, 32]
            .into_iter()
            .map(majority_vote)
            .chain(
                [90, 70, 50, 30, 10]
                    .into_iter()
                    .map(|c| round_robin(c, false)),
            )
            .collect();
        table(
            "Table 1: decision parameters (r = 8, f = 10 %). Paper: MV 1/8/16/24/32 -> 0.89/1.15/1.11/0.95/0.73; RR 90/70/50/30/10 % -> 1.05/1.04/0.91/0.92/0.55",
            "r=8,f=0.1",
            vec![("r=8,f=0.1".into(), w)],
            &list,
        )?;
    }
    Ok(())
}
