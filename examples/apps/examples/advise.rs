//! Which strategy should I use? The advisor's command line: the baseline's divergence, every
//! applicable strategy's predicted speedup with its reasons and the recommendation (on the CPU
//! model, in a second or two); with `--measure`, every strategy timed on the backend beside its
//! prediction; with `--tune`, the best parameters of each parameterised strategy on the model;
//! with `--tune-measured`, the measured tuner (successive halving) against timing every
//! strategy the backend has (on `--backend cuda`: every compiled entry point's strategy).
//!
//! ```text
//! cargo run --release -p reconverge-apps --example advise -- syn-itdelay --f 0.1 --tune
//! cargo run --release -p reconverge-apps --example advise -- dynamic-work --max-trips 64
//! cargo run --release -p reconverge-apps --features cuda --example advise -- \
//!     syn-itdelay --f 0.5 --backend cuda --measure --tune-measured --measure-items 1048576
//! cargo run --release -p reconverge-apps --features cuda --example advise -- \
//!     mcml-skin --backend cuda --tune-measured --measure-items 100000000
//! ```

use std::error::Error;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use reconverge_advisor::accuracy::{Point, Scored, spearman_of};
use reconverge_advisor::{
    Family, Halving, Options, Registers, advise_strategies, backend_time, grid_measured, tune,
    tune_measured,
};
use reconverge_backend::{Backend, BackendError, Launch};
use reconverge_occupancy::Device;
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, Strategy, TwoPathKernel,
};
use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, MaskLayout, PathUnification, SynBrDis, SynItDelay,
};

type DynError = Box<dyn Error>;

/// What the CUDA backend adds: its strategies, the driver's registers, persistent launches.
/// Without feature `cuda` every kernel is a `GpuKernel` and `--backend cuda` is refused.
#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    pub use reconverge_gpu::DeviceKernel as GpuKernel;
    use reconverge_gpu::{CudaBackend, WarmUp};

    pub fn open() -> Result<CudaBackend, DynError> {
        // Each entry point warms up once (its first run, untimed): the tuner's first round
        // warms every candidate on a short prefix, so the grid's long runs are not doubled.
        Ok(reconverge_paper_kernels::backend(0)?.with_warm_up(WarmUp::FirstUse))
    }

    pub fn describe(gpu: &CudaBackend) -> String {
        let d = gpu.gpu().device();
        format!(
            "{} (compute capability {}.{}, {} SMs)",
            d.name, d.major, d.minor, d.multiprocessors
        )
    }

    /// Registers of each strategy's entry points from the driver, on the device's limits.
    pub fn registers<K: GpuKernel>(gpu: &CudaBackend) -> Result<Option<Registers>, DynError> {
        let d = gpu.gpu().device();
        let arch = *reconverge_occupancy::ArchLimits::for_compute_capability(
            reconverge_occupancy::ComputeCapability::new(
                u32::try_from(d.major)?,
                u32::try_from(d.minor)?,
            ),
        )?;
        let per_pass = |s: &Strategy| -> Vec<u32> {
            (0..)
                .map_while(|pass| K::entry_point(s, pass))
                .filter_map(|n| gpu.gpu().attributes(n).ok().map(|a| a.registers_per_thread))
                .collect()
        };
        let Some(&baseline) = per_pass(&Strategy::Baseline).first() else {
            return Ok(None);
        };
        Ok(Some(Registers {
            arch,
            baseline,
            strategies: K::strategies().iter().map(|s| (*s, per_pass(s))).collect(),
        }))
    }

    /// Blocks of `threads` that fill the GPU once with `strategy`'s first entry point.
    pub fn resident_blocks<K: GpuKernel>(
        gpu: &CudaBackend,
        strategy: Strategy,
        threads: u32,
    ) -> u32 {
        let sms = u32::try_from(gpu.gpu().device().multiprocessors).unwrap_or(1);
        K::entry_point(&strategy, 0)
            .and_then(|e| gpu.gpu().resident_blocks(e, threads).ok())
            .unwrap_or(4 * sms)
    }
}

#[cfg(not(feature = "cuda"))]
mod gpu {
    /// Every kernel, where there is no GPU backend to ask.
    pub trait GpuKernel {}
    impl<K> GpuKernel for K {}
}

use gpu::GpuKernel;

/// The backend that `--measure` and `--tune-measured` time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// The CPU backend (rayon, warps emulated): wall time.
    Cpu,
    /// The CUDA GPU (feature `cuda`): kernel time from CUDA events.
    Cuda,
}

/// How a workload's items map to threads.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// `k` items per thread (1 for loops; 64 for two-path kernels, so that branch path
    /// unification has items to unify).
    PerThread(u32),
    /// Lanes that run items until none is left (MCML's photons): a grid that fills the device.
    Persistent,
}

/// The papers' workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
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
    /// MCML (f32) on the built-in 7-layer skin (GPU-MCML's 600 nm input); items are photons.
    McmlSkin,
    /// MCML (f32) on the built-in thick slab (CUDAMCML's "Simulation 1").
    McmlSlab,
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
    /// The backend `--measure` and `--tune-measured` time.
    #[arg(long, value_enum, default_value = "cpu")]
    backend: BackendArg,
    /// Time every strategy on the backend (`--measure-items` items) beside its prediction;
    /// on `--backend cuda` the predictions use the driver's register counts.
    #[arg(long)]
    measure: bool,
    /// Search the strategies the backend has by timing them (successive halving), and time
    /// all of them too (the grid), to compare choice and cost.
    #[arg(long)]
    tune_measured: bool,
    /// Items of each timed run (a full run; the measured tuner times prefixes of it).
    #[arg(long, default_value_t = 1 << 20)]
    measure_items: u32,
    /// The measured tuner keeps the fastest 1/keep of each round.
    #[arg(long, default_value_t = 3)]
    keep: u32,
    /// The measured tuner's item-runs, as a fraction of the grid's.
    #[arg(long, default_value_t = 0.1)]
    budget: f64,
    /// The measured tuner's shortest prefix.
    #[arg(long, default_value_t = 65536)]
    min_items: u32,
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

fn main() -> Result<(), DynError> {
    let a = Args::parse();
    let one = Layout::PerThread(1);
    let unify = Layout::PerThread(64);
    match a.workload {
        Workload::SynItdelay => run(
            &BranchLoopKernel(SynItDelay::with_branch_ratio(
                a.r,
                a.iterations,
                a.f,
                a.seed,
            )),
            &a,
            one,
        ),
        Workload::SynBrdis => run(
            &FactoredBranchLoopKernel(SynBrDis::new(a.m, a.n, a.iterations, a.seed)),
            &a,
            one,
        ),
        Workload::DynamicWork => run(
            &ItemLoopKernel(DynamicWork::new(8, a.max_trips, a.seed)),
            &a,
            one,
        ),
        Workload::PathUnification => run(
            &TwoPathKernel(PathUnification::new(a.loop_count, a.seed)),
            &a,
            unify,
        ),
        Workload::BranchSplit => run(
            &TwoPathKernel(BranchSplitBench::new(
                a.items.max(a.measure_items),
                a.f,
                MaskLayout::Random,
                a.seed,
            )),
            &a,
            unify,
        ),
        Workload::Gems34 => run(&TwoPathKernel(Gems34Branch::random(a.f, a.seed)), &a, unify),
        Workload::McmlSkin | Workload::McmlSlab => {
            let input = if a.workload == Workload::McmlSkin {
                reconverge_mcml::builtin::skin()
            } else {
                reconverge_mcml::builtin::slab()
            };
            let kernel = McmlKernel(McmlLoop {
                params: input.params::<f32>().map_err(|e| format!("{e:?}"))?,
                seed: a.seed,
                first_photon: 0,
            });
            run(&kernel, &a, Layout::Persistent)
        }
    }
}

/// The launch of `items` on the model: `k` items per thread, or 4 blocks of persistent lanes.
fn model_launch(a: &Args, layout: Layout, items: u32) -> Result<Launch, BackendError> {
    match layout {
        Layout::PerThread(k) => {
            let blocks = a
                .blocks
                .unwrap_or_else(|| items.div_ceil(k * a.threads_per_block).max(1));
            Launch::new(a.threads_per_block, blocks)
        }
        Layout::Persistent => Launch::new(64, 4),
    }
}

fn run<K>(kernel: &K, a: &Args, layout: Layout) -> Result<(), DynError>
where
    K: Kernel + Sync + GpuKernel,
    K::Output: Default + Send + Sync,
{
    match a.backend {
        BackendArg::Cpu => {
            let cpu = reconverge_cpu::CpuBackend::new();
            let launch = |_: Strategy, items| model_launch(a, layout, items);
            report(
                kernel,
                a,
                layout,
                &cpu,
                "CPU backend",
                K::STRATEGIES.to_vec(),
                None,
                launch,
            )
        }
        #[cfg(feature = "cuda")]
        BackendArg::Cuda => {
            let gpu = gpu::open()?;
            let registers = gpu::registers::<K>(&gpu)?;
            let name = gpu::describe(&gpu);
            let launch = |s: Strategy, items: u32| match layout {
                Layout::PerThread(_) => model_launch(a, layout, items),
                Layout::Persistent => Launch::new(128, gpu::resident_blocks::<K>(&gpu, s, 128)),
            };
            report(
                kernel,
                a,
                layout,
                &gpu,
                &name,
                K::strategies(),
                registers,
                launch,
            )
        }
        #[cfg(not(feature = "cuda"))]
        BackendArg::Cuda => Err("--backend cuda needs the apps built with --features cuda".into()),
    }
}

/// The advice on the model, then what `--tune`, `--measure` and `--tune-measured` ask for,
/// timed on `backend` (named `device`) over `candidates`.
#[allow(clippy::too_many_arguments)]
fn report<K, B>(
    kernel: &K,
    a: &Args,
    layout: Layout,
    backend: &B,
    device: &str,
    candidates: Vec<Strategy>,
    driver_registers: Option<Registers>,
    launch: impl Fn(Strategy, u32) -> Result<Launch, BackendError> + Copy,
) -> Result<(), DynError>
where
    K: Kernel,
    B: Backend<K>,
{
    let sample_launch = model_launch(a, layout, a.items)?;
    let options = Options {
        launch_overhead: a.launch_overhead,
        registers: match driver_registers {
            Some(r) => Some(r),
            None => registers::<K>(a)?,
        },
        ..Options::default()
    };
    let advice = advise_strategies(kernel, a.items, sample_launch, &candidates, &options)?;
    println!("{advice}");
    if a.tune {
        println!();
        let mut families: Vec<Family> = K::STRATEGIES.iter().filter_map(Family::of).collect();
        families.dedup();
        for family in families {
            let tuned = tune(kernel, a.items, sample_launch, family, &options)?;
            println!(
                "tuned {}: {} ({:.3}x predicted, {} model runs)",
                family.name(),
                tuned.best,
                tuned.speedup,
                tuned.model_runs
            );
        }
    }
    if a.measure {
        println!("\nmeasured on {device}, {} items per run:", a.measure_items);
        let mut time = backend_time(backend, kernel, launch);
        let times: Vec<_> = advice
            .predictions
            .iter()
            .map(|p| (p, time(p.strategy, a.measure_items)))
            .collect();
        let base = times
            .iter()
            .find(|(p, _)| p.strategy == Strategy::Baseline)
            .and_then(|(_, t)| t.as_ref().ok())
            .ok_or("the baseline did not run")?
            .as_secs_f64();
        let mut scored = Vec::new();
        println!("| strategy | predicted | measured | ms |\n|---|---:|---:|---:|");
        for (p, t) in times {
            match t {
                Ok(t) => {
                    let measured = base / t.as_secs_f64();
                    println!(
                        "| {} | {:.3} | {:.3} | {:.3} |",
                        p.strategy,
                        p.speedup,
                        measured,
                        ms(t)
                    );
                    scored.push(Scored {
                        strategy: p.strategy,
                        predicted: p.speedup,
                        measured,
                    });
                }
                Err(e) => println!("| {} | {:.3} | not run: {e} | |", p.strategy, p.speedup),
            }
        }
        let point = Point { scored };
        let pick = point.pick().map(|s| s.strategy);
        let best = point.measured_best().map(|s| s.strategy);
        println!(
            "Spearman {:.3}; pick {} ; measured best {}; pick within 5 %: {}",
            spearman_of(std::slice::from_ref(&point)).unwrap_or(f64::NAN),
            pick.map_or("-".into(), |s| s.to_string()),
            best.map_or("-".into(), |s| s.to_string()),
            point
                .pick_within(0.05)
                .map_or("-".into(), |w| w.to_string())
        );
    }
    if a.tune_measured {
        let halving = Halving {
            keep: a.keep,
            budget: a.budget,
            min_items: a.min_items,
        };
        let tuned = tune_measured(
            &candidates,
            a.measure_items,
            &halving,
            backend_time(backend, kernel, launch),
        )?;
        let grid = grid_measured(
            &candidates,
            a.measure_items,
            backend_time(backend, kernel, launch),
        )?;
        let best = grid
            .time_of(&grid.best)
            .ok_or("the grid's best has no time")?;
        let pick = grid
            .time_of(&tuned.best)
            .ok_or("the tuner's pick has no grid time")?;
        println!(
            "\nmeasured tuning on {device}, {} items, {} candidates (keep 1/{}, budget {}):",
            a.measure_items,
            candidates.len(),
            a.keep,
            a.budget
        );
        for t in &grid.timings {
            println!("  grid: {} {:.3} ms", t.strategy, ms(t.time));
        }
        let rounds: Vec<String> = tuned
            .timings
            .iter()
            .map(|t| format!("{} @{}: {:.3} ms", t.strategy, t.items, ms(t.time)))
            .collect();
        println!("  tuner runs: {}", rounds.join("; "));
        println!(
            "TUNE | {} | {} | {:.3} | {} | {:.3} | {:.4} | {:.1} | {:.1} | {:.4} |",
            device,
            grid.best,
            ms(best),
            tuned.best,
            ms(pick),
            pick.as_secs_f64() / best.as_secs_f64(),
            ms(grid.time_spent()),
            ms(tuned.time_spent()),
            tuned.time_spent().as_secs_f64() / grid.time_spent().as_secs_f64()
        );
    }
    Ok(())
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
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
