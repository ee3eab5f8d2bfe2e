//! GPU Gems 2 ch. 34 (Harris & Buck), figs. 34-1 and 34-2: the cost of a branch against the
//! probability of taking it, for a random and a spatially coherent condition. Prints, per
//! probability, each strategy's time, issue slots (the model's cost) and SIMD efficiency.
//! The book: with locality, cost follows the probability; at random, branching costs about
//! as much as predication (both paths) for any probability away from 0 and 1.

use clap::Parser;
use reconverge_backend::{BackendError, Launch, Strategy};
use reconverge_benches::{counting_backend, sweep, timing_backend};
use reconverge_transforms::TwoPathKernel;
use reconverge_workloads::synthetic::Gems34Branch;

/// Branch cost against probability, random vs coherent.
#[derive(Parser, Debug)]
struct Args {
    /// Items (fragments).
    #[arg(long, default_value_t = 1 << 18)]
    items: u32,
    /// Threads per block.
    #[arg(long, default_value_t = 256)]
    block: u32,
    /// Items per coherent run.
    #[arg(long, default_value_t = 1024)]
    run: u32,
    /// CPU threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Timed repetitions per strategy.
    #[arg(long, default_value_t = 2)]
    reps: u32,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let (timing, counting) = (timing_backend(a.threads), counting_backend(a.threads));
    let launch = Launch::one_item_per_thread(a.items, a.block)?;
    let strategies = [
        Strategy::Baseline,
        Strategy::Predication,
        Strategy::BranchSplitting,
        Strategy::StaticBranchResolution,
        Strategy::ZCullMasking,
    ];
    let probabilities = [0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0];
    for (coherent, title) in [
        (false, "Random condition (figs. 34-1/34-2, \"random\")"),
        (true, "Coherent condition (figs. 34-1/34-2, \"coherent\")"),
    ] {
        let points = probabilities.into_iter().map(|p| {
            let w = if coherent {
                Gems34Branch::coherent(p, 1).with_run(a.run)
            } else {
                Gems34Branch::random(p, 1)
            };
            (format!("p={p}"), TwoPathKernel(w))
        });
        sweep(
            &timing,
            &counting,
            title,
            "p(taken)",
            points,
            &strategies,
            a.items,
            launch,
            a.reps,
        )?;
    }
    Ok(())
}
