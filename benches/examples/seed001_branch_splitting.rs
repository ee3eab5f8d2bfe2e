//! Seed 001 (Carrillo et al.) §5, figs. 8 and 10: the branched single kernel against the split
//! two-kernel version over the fraction of else elements, with the linear (two-section, fig. 7)
//! and the random (fig. 9) decision mask. Prints time, model issue slots, SIMD efficiency and
//! speedups, and where the branched version's SIMD efficiency is lowest (fig. 10: 8–16 %).
//!
//! On the CPU model both versions issue the same path instructions (branch splitting gains
//! occupancy on a GPU, which the model does not time): its "model" speedup shows the extra
//! launch and decision work only. The GPU backend is where fig. 10's 6–13.5 % show.

use clap::Parser;
use reconverge_backend::{BackendError, Strategy};
use reconverge_benches::ExampleArgs;
use reconverge_transforms::TwoPathKernel;
use reconverge_workloads::synthetic::{BranchSplitBench, MaskLayout};

/// Branch splitting on seed 001's artificial benchmark.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    shared: ExampleArgs,
    /// Elements (the paper: 2^22).
    #[arg(long, default_value_t = 1 << 18)]
    items: u32,
    /// Instructions of the light if path.
    #[arg(long, default_value_t = 16)]
    light: u32,
    /// Instructions of the heavy else path.
    #[arg(long, default_value_t = 32)]
    heavy: u32,
    /// Step of the else-fraction sweep, in percent.
    #[arg(long, default_value_t = 2)]
    step: u32,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let sweeper = a.shared.per_thread(a.items, 2)?;
    let strategies = [Strategy::BASELINE, Strategy::BRANCH_SPLITTING];
    println!(
        "seed 001 §5: {} elements, blocks of {}, if path {} / else path {} instructions",
        a.items, a.shared.block, a.light, a.heavy
    );
    for (layout, title) in [
        (
            MaskLayout::Linear,
            "Fig. 8: linear (two-section) decision mask",
        ),
        (MaskLayout::Random, "Fig. 10: random decision mask"),
    ] {
        let points = (0..=100).step_by(a.step.max(1) as usize).map(|pct| {
            let w = BranchSplitBench::new(a.items, f64::from(pct) / 100.0, layout, 1)
                .with_paths(a.light, a.heavy);
            (format!("{pct}% else"), TwoPathKernel(w))
        });
        let rows = sweeper.sweep(title, "else", points, &strategies)?;
        let worst = rows
            .iter()
            .filter_map(|(x, r)| r.first().and_then(|b| b.simd_efficiency).map(|e| (x, e)))
            .min_by(|p, q| p.1.total_cmp(&q.1));
        if let Some((x, e)) = worst {
            println!(
                "{title}: the branched version's SIMD efficiency is lowest at {x} ({e:.4}); paper fig. 10: worst between 8 % and 16 % else"
            );
        }
    }
    Ok(())
}
