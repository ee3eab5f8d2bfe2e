//! Which strategy should I use? The advisor on the papers' synthetic workloads, by name: the
//! baseline's divergence, every applicable strategy's predicted speedup with its reasons, the
//! recommendation, and with `--tune` the best parameters of each parameterised strategy.
//!
//! ```text
//! cargo run --release -p reconverge-advisor --example advise -- syn-itdelay --f 0.1 --tune
//! cargo run --release -p reconverge-advisor --example advise -- dynamic-work --max-trips 64
//! ```

use std::error::Error;

use clap::{Parser, ValueEnum};
use reconverge_advisor::{Family, Options, Registers, advise, tune};
use reconverge_backend::Launch;
use reconverge_occupancy::Device;
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, TwoPathKernel,
};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, MaskLayout, PathUnification, SynBrDis, SynItDelay,
};

/// The papers' synthetic workloads.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Workload {
    /// Seed 002's SYN-ITDELAY (iteration delaying): `--r`, `--f`, `--iterations`.
    SynItdelay,
    /// Seed 002's SYN-BRDIS (branch distribution): `--m`, `--n`, `--iterations`.
    SynBrdis,
    /// Seed 004's loop with varying trip counts (dynamic work assignment): `--max-trips`.
    DynamicWork,
    /// Seed 004's two-path kernel (branch path unification): `--loop-count`.
    PathUnification,
    /// Seed 001's two-path kernel with a light and a heavy path (branch splitting): `--f`
    /// is the else fraction.
    BranchSplit,
    /// GPU Gems 2 ch. 34's branch taken with probability `--f` (random per item).
    Gems34,
}

/// Predicts each strategy's speedup on the reference SIMT model and recommends one.
#[derive(Parser, Debug)]
struct Args {
    /// The workload.
    #[arg(value_enum)]
    workload: Workload,
    /// Items of the sample the model runs.
    #[arg(long, default_value_t = 4096)]
    items: u32,
    /// Threads per block.
    #[arg(long, default_value_t = 128)]
    threads_per_block: u32,
    /// Blocks (default: one item per thread; for two-path workloads, threads for 64 items
    /// each, so that branch path unification has items to unify).
    #[arg(long)]
    blocks: Option<u32>,
    /// Cost of each launch beyond the baseline's, as a fraction of the baseline's time.
    #[arg(long, default_value_t = 0.01)]
    launch_overhead: f64,
    /// GPU whose occupancy to model (`h100`, `8800gtx`, ...), with `--baseline-registers`.
    #[arg(long, requires = "baseline_registers")]
    device: Option<String>,
    /// Registers per thread of the baseline's kernel (`ptxas -v`).
    #[arg(long, requires = "device")]
    baseline_registers: Option<u32>,
    /// Registers per thread of a strategy's passes, as `NAME=R1[,R2...]` with the strategy's
    /// short name (`branch-splitting=24,32`); repeatable. Every listed strategy of that name
    /// gets them.
    #[arg(long = "registers", requires = "device")]
    strategy_registers: Vec<String>,
    /// Also tune every parameterised strategy on the model.
    #[arg(long)]
    tune: bool,
    /// SYN-ITDELAY's branch ratio r.
    #[arg(long, default_value_t = 8.0)]
    r: f64,
    /// Branch frequency (SYN-ITDELAY, Gems 34) or else fraction (branch split), 0 to 1.
    #[arg(long, default_value_t = 0.5)]
    f: f64,
    /// Loop iterations per item (SYN-ITDELAY, SYN-BRDIS).
    #[arg(long, default_value_t = 16)]
    iterations: u32,
    /// SYN-BRDIS's M (1 to 20).
    #[arg(long, default_value_t = 4)]
    m: u32,
    /// SYN-BRDIS's N.
    #[arg(long, default_value_t = 20)]
    n: u32,
    /// Largest trip count of dynamic-work.
    #[arg(long, default_value_t = 64)]
    max_trips: u32,
    /// LOOP of path-unification (steps per path).
    #[arg(long, default_value_t = 100)]
    loop_count: u32,
    /// Seed of the workload's data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> Result<(), Box<dyn Error>> {
    let a = Args::parse();
    let per_thread = |k: u32| (a.items / (k * a.threads_per_block)).max(1);
    let blocks = |k| a.blocks.unwrap_or_else(|| per_thread(k));
    match a.workload {
        Workload::SynItdelay => run(
            &BranchLoopKernel(SynItDelay::with_branch_ratio(
                a.r,
                a.iterations,
                a.f,
                a.seed,
            )),
            &a,
            blocks(1),
        ),
        Workload::SynBrdis => run(
            &FactoredBranchLoopKernel(SynBrDis::new(a.m, a.n, a.iterations, a.seed)),
            &a,
            blocks(1),
        ),
        Workload::DynamicWork => run(
            &ItemLoopKernel(DynamicWork::new(8, a.max_trips, a.seed)),
            &a,
            blocks(1),
        ),
        Workload::PathUnification => run(
            &TwoPathKernel(PathUnification::new(a.loop_count, a.seed)),
            &a,
            blocks(64),
        ),
        Workload::BranchSplit => run(
            &TwoPathKernel(BranchSplitBench::new(
                a.items,
                a.f,
                MaskLayout::Random,
                a.seed,
            )),
            &a,
            blocks(64),
        ),
        Workload::Gems34 => run(
            &TwoPathKernel(Gems34Branch::random(a.f, a.seed)),
            &a,
            blocks(64),
        ),
    }
}

fn run<K: Kernel>(kernel: &K, a: &Args, blocks: u32) -> Result<(), Box<dyn Error>> {
    let launch = Launch::new(a.threads_per_block, blocks)?;
    let options = Options {
        launch_overhead: a.launch_overhead,
        registers: registers::<K>(a)?,
        ..Options::default()
    };
    let advice = advise(kernel, a.items, launch, &options)?;
    println!("{advice}");
    if a.tune {
        println!();
        let mut families: Vec<Family> = K::STRATEGIES.iter().filter_map(Family::of).collect();
        families.dedup();
        for family in families {
            let tuned = tune(kernel, a.items, launch, family, &options)?;
            println!(
                "tuned {}: {} ({:.3}x predicted, {} model runs)",
                family.name(),
                tuned.best,
                tuned.speedup,
                tuned.model_runs
            );
        }
    }
    Ok(())
}

/// The occupancy input of `--device`, `--baseline-registers` and `--registers`.
fn registers<K: Kernel>(a: &Args) -> Result<Option<Registers>, Box<dyn Error>> {
    let (Some(device), Some(baseline)) = (&a.device, a.baseline_registers) else {
        return Ok(None);
    };
    let arch = *Device::lookup(device)?.limits()?;
    let mut strategies = Vec::new();
    for spec in &a.strategy_registers {
        let (name, values) = spec
            .split_once('=')
            .ok_or_else(|| format!("--registers {spec}: expected NAME=R1[,R2...]"))?;
        let values = values
            .split(',')
            .map(|v| v.trim().parse::<u32>())
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|e| format!("--registers {spec}: {e}"))?;
        let matching: Vec<_> = K::STRATEGIES
            .iter()
            .filter(|s| s.name() == name.trim())
            .collect();
        if matching.is_empty() {
            return Err(format!(
                "--registers {spec}: no strategy of this workload is named {name}"
            )
            .into());
        }
        strategies.extend(matching.into_iter().map(|&s| (s, values.clone())));
    }
    Ok(Some(Registers {
        arch,
        baseline,
        strategies,
    }))
}
