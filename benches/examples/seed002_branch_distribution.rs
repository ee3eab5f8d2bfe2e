//! Seed 002 (Han & Abdelrahman) §4.2.2, fig. 12: branch distribution on SYN-BRDIS against
//! `R = N·M/20`, the size of the factored code relative to one path's divergent code, with the
//! paper's theoretical speedup `2(1+R)/(2+R)` beside the measured time and the model's
//! instruction-count speedup, for several M (the paper found no sensitivity to M).

use clap::Parser;
use reconverge_backend::{BackendError, Strategy};
use reconverge_benches::ExampleArgs;
use reconverge_transforms::FactoredBranchLoopKernel;
use reconverge_workloads::synthetic::SynBrDis;

/// Branch distribution on SYN-BRDIS.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    shared: ExampleArgs,
    /// Items.
    #[arg(long, default_value_t = 8192)]
    items: u32,
    /// Loop iterations per item.
    #[arg(long, default_value_t = 16)]
    iterations: u32,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let sweeper = a.shared.per_thread(a.items, 2)?;
    let strategies = [Strategy::BASELINE, Strategy::BRANCH_DISTRIBUTION];
    for m in [1u32, 4, 20] {
        let points: Vec<_> = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
            .into_iter()
            .filter_map(|r: f64| {
                let n = (r * 20.0 / f64::from(m)).round() as u32;
                (n >= 1).then(|| SynBrDis::new(m, n, a.iterations, 1))
            })
            .collect();
        let rows = sweeper.sweep(
            &format!("Fig. 12, M = {m}: speedup vs R = N*M/20"),
            "R",
            points
                .iter()
                .map(|w| (format!("R={:.2}", w.r()), FactoredBranchLoopKernel(*w))),
            &strategies,
        )?;
        for (w, (x, r)) in points.iter().zip(&rows) {
            if let Some(d) = r.get(1) {
                println!(
                    "M = {m}, {x}: theoretical 2(1+R)/(2+R) = {:.3}, model {}, measured {:.3}",
                    w.theoretical_speedup(),
                    d.model_speedup.map_or("-".into(), |v| format!("{v:.3}")),
                    d.speedup
                );
            }
        }
    }
    Ok(())
}
