//! GPU Gems 2 ch. 34 (Harris & Buck), figs. 34-1 and 34-2: the cost of a branch against the
//! probability of taking it, for a random and a spatially coherent condition. Prints, per
//! probability, each strategy's time, issue slots (the model's cost) and SIMD efficiency.
//! The book: with locality, cost follows the probability; at random, branching costs about
//! as much as predication (both paths) for any probability away from 0 and 1.

use clap::Parser;
use reconverge_backend::BackendError;
use reconverge_benches::{ExampleArgs, GEMS34_STRATEGIES, gems34_branch};
use reconverge_transforms::TwoPathKernel;

/// Branch cost against probability, random vs coherent.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    shared: ExampleArgs,
    /// Items (fragments).
    #[arg(long, default_value_t = 1 << 18)]
    items: u32,
    /// Items per coherent run.
    #[arg(long, default_value_t = 1024)]
    run: u32,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let sweeper = a.shared.per_thread(a.items, 2)?;
    let probabilities = [0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0];
    for (coherent, title) in [
        (false, "Random condition (figs. 34-1/34-2, \"random\")"),
        (true, "Coherent condition (figs. 34-1/34-2, \"coherent\")"),
    ] {
        let points = probabilities.into_iter().map(|p| {
            let w = gems34_branch(coherent, p, a.run);
            (format!("p={p}"), TwoPathKernel(w))
        });
        sweeper.sweep(title, "p(taken)", points, &GEMS34_STRATEGIES)?;
    }
    Ok(())
}
