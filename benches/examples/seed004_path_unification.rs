//! Seed 004 (Kato et al.) fig. 13 / A-2, tables 2–4 and fig. 14: branch path unification
//! against LOOP and DATA_PER_THREAD. Element `i` runs functionA or functionB (LOOP steps each)
//! on bit 2 of a random value; with unification, each thread owns DATA_PER_THREAD elements and
//! alternates its next A element and its next B element. Table 4 gives the rate of lanes on
//! the branch paths: 50 %, 51.8 %, 66.6 %, 79.5 % for 1, 4, 16, 64 (the "path eff" lines).

use clap::Parser;
use reconverge_backend::{BackendError, Launch, Strategy};
use reconverge_benches::{ExampleArgs, label};
use reconverge_transforms::TwoPathKernel;
use reconverge_workloads::synthetic::PathUnification;
use reconverge_workloads::synthetic::kato::{BPU_A, BPU_B};

/// Branch path unification on seed 004's fig. A-2 kernel.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    shared: ExampleArgs,
    /// Elements.
    #[arg(long, default_value_t = 65536)]
    items: u32,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let mut strategies = vec![Strategy::BASELINE];
    strategies.extend([1, 4, 16, 64].map(Strategy::branch_path_unification));
    // Each thread of the paper's enhanced kernel owns DATA_PER_THREAD elements. One launch
    // serves every strategy, so it has threads for the largest DATA_PER_THREAD (64): the
    // baseline's threads then run 64 elements each, block-stride, which changes nothing in
    // its outputs or its per-element divergence.
    let launch = Launch::new(a.shared.block, (a.items / (64 * a.shared.block)).max(1))?;
    let sweeper = a.shared.sweeper(a.items, launch, 2);
    let points = [1u32, 10, 100, 1000].into_iter().map(|l| {
        (
            format!("LOOP={l}"),
            TwoPathKernel(PathUnification::new(l, 1)),
        )
    });
    sweeper.sweep(
        &format!(
            "Tables 2-3 / fig. 14: {} elements, blocks of {}",
            a.items, a.shared.block
        ),
        "LOOP",
        points,
        &strategies,
    )?;
    println!("\nTable 4: rate of lanes on the branch paths (functionA, functionB), LOOP = 100");
    let w = TwoPathKernel(PathUnification::new(100, 1));
    let paper = ["50.0%", "50.0%", "51.8%", "66.6%", "79.5%"];
    for (s, p) in strategies.iter().zip(paper) {
        use reconverge_backend::Backend;
        let run = sweeper.counting.run(&w, *s, a.items, launch)?;
        if let Some(c) = run.counters {
            println!(
                "{:<28} path eff {:>6.1}%   (paper {p})",
                label(s),
                100.0 * c.simd_efficiency_of(&[BPU_A, BPU_B])
            );
        }
    }
    Ok(())
}
