//! Which strategy and which launch should I use? The advisor's command line: every (strategy,
//! launch) pair ranked by the schedule model with the committed H100 calibration (or
//! `--calibration`), each strategy's best launch and the recommended pair, on the CPU model;
//! with `--slots`, the issue-slot model on one launch (the baseline's divergence, every
//! strategy's predicted speedup with its reasons); with `--measure`, every strategy timed on the backend beside its
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
    Family, Halving, Options, ParameterGrid, Registers, advise_strategies, backend_time,
    grid_measured, parameter_grid, tune, tune_measured,
};
use reconverge_backend::{Backend, BackendError, Launch};
use reconverge_benches::reproduce::advisor::rescore::CompiledFacts;
use reconverge_device::DeviceKernel;
use reconverge_occupancy::Device;
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, Strategy, TwoPathKernel,
};
use reconverge_workloads::held_out;
use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
use reconverge_workloads::synthetic::{
    BranchSplitBench, ClassChains, DynamicWork, Gems34Branch, MaskLayout, PathUnification,
    PeriodicBlockLoop, RareCostlyBody, SynBrDis, SynItDelay,
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
        let Some(&baseline) = per_pass(&Strategy::BASELINE).first() else {
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

/// `--parameters`: [`ParameterGrid`] on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Parameters {
    Listed,
    Coarse,
    Full,
}

impl From<Parameters> for ParameterGrid {
    fn from(p: Parameters) -> Self {
        match p {
            Parameters::Listed => ParameterGrid::Listed,
            Parameters::Coarse => ParameterGrid::Coarse,
            Parameters::Full => ParameterGrid::Full,
        }
    }
}

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
    /// Held-out (issue 27): a branch loop with Pareto trip counts (`held_out::HEAVY_TAIL`).
    HeavyTail,
    /// Held-out: an image-like cost map (`held_out::COST_MAP`).
    CostMap,
    /// Held-out: an item loop with bimodal trips (`held_out::VARIABLE_TRIPS`).
    VariableTrips,
    /// Held-out: a two-path kernel in runs (`held_out::TWO_PATH_RUNS`).
    TwoPathRuns,
    /// Held-out (the fifth, written after the first four were scored): a binary search per
    /// item with a variable range (`held_out::BISECT`).
    Bisect,
    /// Held-out (issue 27, written during revision 3 of the model, before its predictions were
    /// looked at): a random walk per item
    /// until it leaves a disc whose radius bands of items share (`held_out::ESCAPE_WALK`).
    EscapeWalk,
    /// Held-out (issue 27, revision 5: written after revision 5 of the model was fixed,
    /// measured once): an image whose cost rises toward its bottom rows and along a diagonal
    /// ridge, a costly branch taken only on the ridge (`held_out::SUNSET_MAP`).
    SunsetMap,
    /// Held-out (issue 27, revision 5: written after revision 5 of the model was fixed,
    /// measured once): an item loop with geometric (memoryless) trip counts, mean 20
    /// (`held_out::GEOMETRIC_JOBS`).
    GeometricJobs,
    /// The README's advisor example: a Collatz loop of 2^20 items (`reference::COLLATZ`, the
    /// example's loop with a step limit no item reaches), to measure its recommendation.
    Collatz,
    /// The escape-time image issue 27 was filed on (`reference::ESCAPE_TIME`, 1024 x 768
    /// pixels, 1-512 iterations, a rare costly refinement), measured after revision 7 was fixed.
    EscapeTime,
    /// Issue 44's techniques on the workloads of the techniques page: a costly body in 1 iteration of 32 (collaborative context collection's favourable
    /// case, `RareCostlyBody::FAVOURABLE`).
    RareBody,
    /// A costly body in every iteration (its unfavourable case).
    RareEveryIteration,
    /// An expensive block every 8 of 256 iterations at a per-item phase (speculative
    /// reconvergence's favourable case, `PeriodicBlockLoop::phased(256, 8, 64)`).
    PeriodicPhased,
    /// The same block at phase 0 for every item (its unfavourable case).
    PeriodicAligned,
    /// Float or integer chains by a hashed class (thread-data remapping's favourable case,
    /// `ClassChains::interleaved(64, 16)`).
    ClassesInterleaved,
    /// The classes in runs of 32 (nothing to regroup).
    ClassesGrouped,
    /// A key unrelated to each iteration's path.
    ClassesUnpredictable,
    /// The calibration set (papers' workloads only): SYN-ITDELAY at f = 0 and 0.5, seed 004's
    /// dynamic-work loop; with `--sweep` (GPU) or `--fit` (offline).
    Calibration,
    /// The papers' settings of the reproduce tool re-scored offline with the schedule model
    /// against the measured speedups of `--rescore` (the reproduce tool's
    /// `advisor-predicted-vs-measured.csv`).
    Papers,
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
    /// The numbers `--tune-measured` searches beside the listed strategies: each technique's
    /// coarse grid, every value of its ranges, or none. Any value runs on the GPU (its
    /// technique's `_any` entry point takes the numbers at run time).
    #[arg(long, value_enum, default_value = "coarse")]
    parameters: Parameters,
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
    /// Rank (strategy, launch) pairs on the schedule model with a device calibration: the
    /// best launch per strategy and the recommended pair, for `--full-items` items (the
    /// default, unless `--slots`, `--tune`, `--measure` or `--tune-measured` asks for the
    /// issue-slot model).
    #[arg(long)]
    launches: bool,
    /// The issue-slot model on one launch (`--items`, `--threads-per-block`, `--blocks`)
    /// instead of the schedule model's ranking.
    #[arg(long)]
    slots: bool,
    /// Items of the whole workload that `--launches` and `--score` predict for (default: the
    /// workload's own count for the held-out set, `--measure-items` otherwise).
    #[arg(long)]
    full_items: Option<u32>,
    /// Calibration file (JSON) of the device the schedule model predicts for (default: the
    /// committed H100 calibration, `advisor/calibration/h100.json`).
    #[arg(long)]
    calibration: Option<std::path::PathBuf>,
    /// Items the model runs per (strategy, launch) and resample. Default: 2^19 where the
    /// model runs of a ranking take about `reconverge_advisor::DEFAULT_MODEL_SECONDS` or less
    /// on this machine, fewer where they would take longer (the advice prints the sample it
    /// used); `--score`, `--sweep` and the papers' re-scoring always take 2^19.
    #[arg(long)]
    sample_items: Option<u32>,
    /// Resamples (different strided offsets) whose spread is reported.
    #[arg(long, default_value_t = 3)]
    resamples: u32,
    /// On `--backend cuda`: time every strategy at every candidate launch (and one
    /// quarter-filled launch), outputs checked against the CPU, into this TSV file.
    #[arg(long)]
    sweep: Option<std::path::PathBuf>,
    /// Timed repetitions of `--sweep` (the median is kept).
    #[arg(long, default_value_t = 5)]
    reps: u32,
    /// Score the schedule model against a `--sweep` TSV of this workload (offline).
    #[arg(long)]
    score: Option<std::path::PathBuf>,
    /// With `calibration`: fit a calibration to the `--sweep` TSVs in this folder (offline) and
    /// write it to `--calibration-out`.
    #[arg(long)]
    fit: Option<std::path::PathBuf>,
    /// With `papers`: the reproduce tool's `advisor-predicted-vs-measured.csv` to re-score.
    #[arg(long)]
    rescore: Option<std::path::PathBuf>,
    /// Where `--fit` writes the calibration.
    #[arg(long, default_value = "advisor/calibration/h100.json")]
    calibration_out: std::path::PathBuf,
    /// Which plain loops the GPU compiler left flat (no reconvergence after each item): the
    /// SASS table of `scripts/sass-loop-nesting.py` (committed:
    /// `docs/results/advisor/schedule-model/sass-loop-nesting.md`), read by the workload's
    /// entry-point names in the papers' list. Without it every plain loop is taken as nested.
    #[arg(long)]
    sass_loops: Option<std::path::PathBuf>,
    /// Each entry point's registers, from a device check's `summary.json` (committed:
    /// `docs/results/h100/summary.json`), for the occupancy of every strategy (`papers`, and
    /// the ranking of a workload; `--score` takes the registers its sweep recorded). Without
    /// it every entry point runs at the calibration's default registers.
    #[arg(long)]
    entry_registers: Option<std::path::PathBuf>,
}

/// `--sass-loops` and `--entry-registers`: what the compiler made of the entry points, read by
/// their names in the papers' list (nothing, where neither is given).
fn compiled_facts(a: &Args) -> Result<CompiledFacts, DynError> {
    let read = |flag: &str, p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|e| format!("{flag} {}: {e}", p.display()))
    };
    let sass_table = match &a.sass_loops {
        Some(p) => Some(read("--sass-loops", p)?),
        None => None,
    };
    let registers = match &a.entry_registers {
        Some(p) => CompiledFacts::registers_from_summary(&read("--entry-registers", p)?)
            .map_err(|e| format!("--entry-registers {}: {e}", p.display()))?,
        None => Default::default(),
    };
    Ok(CompiledFacts {
        registers,
        sass_table,
    })
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
        Workload::HeavyTail => run(&BranchLoopKernel(held_out::HEAVY_TAIL), &a, one),
        Workload::CostMap => run(&BranchLoopKernel(held_out::COST_MAP), &a, one),
        Workload::VariableTrips => run(&ItemLoopKernel(held_out::VARIABLE_TRIPS), &a, one),
        Workload::TwoPathRuns => run(&TwoPathKernel(held_out::TWO_PATH_RUNS), &a, one),
        Workload::Bisect => run(&BranchLoopKernel(held_out::BISECT), &a, one),
        Workload::EscapeWalk => run(&BranchLoopKernel(held_out::ESCAPE_WALK), &a, one),
        Workload::Collatz => run(
            &BranchLoopKernel(reconverge_workloads::reference::COLLATZ),
            &a,
            one,
        ),
        Workload::EscapeTime => run(
            &BranchLoopKernel(reconverge_workloads::reference::ESCAPE_TIME),
            &a,
            one,
        ),
        Workload::SunsetMap => run(&BranchLoopKernel(held_out::SUNSET_MAP), &a, one),
        Workload::GeometricJobs => run(&ItemLoopKernel(held_out::GEOMETRIC_JOBS), &a, one),
        Workload::RareBody => run(&BranchLoopKernel(RareCostlyBody::FAVOURABLE), &a, one),
        Workload::RareEveryIteration => {
            run(&BranchLoopKernel(RareCostlyBody::EVERY_ITERATION), &a, one)
        }
        Workload::PeriodicPhased => run(
            &BranchLoopKernel(PeriodicBlockLoop::phased(256, 8, 64)),
            &a,
            one,
        ),
        Workload::PeriodicAligned => run(
            &BranchLoopKernel(PeriodicBlockLoop::aligned(256, 8, 64)),
            &a,
            one,
        ),
        Workload::ClassesInterleaved => {
            run(&BranchLoopKernel(ClassChains::interleaved(64, 16)), &a, one)
        }
        Workload::ClassesGrouped => run(&BranchLoopKernel(ClassChains::grouped(64, 16)), &a, one),
        Workload::ClassesUnpredictable => run(
            &BranchLoopKernel(ClassChains::unpredictable(64, 16)),
            &a,
            one,
        ),
        Workload::Calibration => calibration::run(&a),
        Workload::Papers => papers(&a),
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
    K: Kernel + Sync + GpuKernel + DeviceKernel,
    K::Output: Default + Send + Sync + PartialEq,
{
    // The schedule model's (strategy, launch) ranking is the default answer; the issue-slot
    // model on one launch is what `--slots`, `--tune`, `--measure` and `--tune-measured` report
    // (the tuners search on it, and `--measure` sets its predictions beside timings).
    let slot_model = a.slots || a.tune || a.measure || a.tune_measured;
    if !slot_model || a.launches || a.score.is_some() || a.sweep.is_some() {
        return schedule::run(kernel, a);
    }
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
            .find(|(p, _)| p.strategy == Strategy::BASELINE)
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
        let candidates = parameter_grid(&candidates, a.parameters.into());
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

/// Items of the whole workload: the held-out workloads' own counts, else `--measure-items`.
fn full_items(a: &Args) -> u32 {
    a.full_items.unwrap_or(match a.workload {
        Workload::HeavyTail => held_out::HEAVY_TAIL_ITEMS,
        Workload::CostMap => held_out::COST_MAP_ITEMS,
        Workload::VariableTrips => held_out::VARIABLE_TRIPS_ITEMS,
        Workload::TwoPathRuns => held_out::TWO_PATH_RUNS_ITEMS,
        Workload::Bisect => held_out::BISECT_ITEMS,
        Workload::EscapeWalk => held_out::ESCAPE_WALK_ITEMS,
        Workload::Collatz => reconverge_workloads::reference::COLLATZ_ITEMS,
        Workload::EscapeTime => reconverge_workloads::reference::ESCAPE_TIME_ITEMS,
        Workload::SunsetMap => held_out::SUNSET_MAP_ITEMS,
        Workload::GeometricJobs => held_out::GEOMETRIC_JOBS_ITEMS,
        _ => a.measure_items,
    })
}

/// `--launches`, `--sweep` and `--score`: the schedule model's (strategy, launch) ranking,
/// its GPU measurement, and the two side by side.
mod schedule {
    use std::fmt::Write as _;

    use rayon::prelude::*;

    use reconverge_advisor::accuracy::spearman;
    use reconverge_advisor::{
        Calibration, Gpu, Sampling, Spread, advise_launches, candidate_launches, predict_launch,
    };

    use super::*;

    pub fn gpu_model(a: &Args) -> Result<Gpu, DynError> {
        let cal = match &a.calibration {
            Some(p) => Calibration::load(p)?,
            None => Calibration::h100()?,
        };
        Ok(Gpu::new(cal)?)
    }

    pub fn sampling(a: &Args) -> Sampling {
        Sampling {
            items: a.sample_items.unwrap_or(Sampling::default().items),
            resamples: a.resamples,
            seed: a.seed,
        }
    }

    /// One row of a sweep TSV.
    #[derive(Clone, Debug)]
    pub struct Row {
        pub workload: String,
        pub strategy: String,
        pub launch: Launch,
        pub items: u32,
        pub grid: String,
        pub median_ms: f64,
        pub outputs_equal: bool,
        pub registers: Vec<u32>,
    }

    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub const HEADER: &str = "workload\tstrategy\tthreads\tblocks\titems\tgrid\tmedian_ms\tmin_ms\treps\toutputs_equal\tregisters";

    pub fn read(path: &std::path::Path) -> Result<Vec<Row>, DynError> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut rows = Vec::new();
        for (n, line) in text.lines().enumerate().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() < 11 {
                return Err(format!("{}:{}: expected 11 columns", path.display(), n + 1).into());
            }
            let bad = |what: &str| format!("{}:{}: bad {what}", path.display(), n + 1);
            rows.push(Row {
                workload: f[0].into(),
                strategy: f[1].into(),
                launch: Launch::new(
                    f[2].parse().map_err(|_| bad("threads"))?,
                    f[3].parse().map_err(|_| bad("blocks"))?,
                )?,
                items: f[4].parse().map_err(|_| bad("items"))?,
                grid: f[5].into(),
                median_ms: f[6].parse().map_err(|_| bad("median_ms"))?,
                outputs_equal: f[9] == "true",
                registers: f[10]
                    .split(',')
                    .filter(|r| !r.is_empty())
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad("registers"))?,
            });
        }
        Ok(rows)
    }

    /// The launches a sweep times for `strategy`: the advisor's candidates and one
    /// quarter-filled launch (128 threads, one block per multiprocessor: few warps resident,
    /// where latency shows).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn sweep_launches(
        strategy: &Strategy,
        items: u32,
        gpu: &Gpu,
        registers: u32,
        shared_bytes_per_warp: u32,
    ) -> Vec<(Launch, String)> {
        let mut out: Vec<(Launch, String)> =
            candidate_launches(strategy, items, gpu, registers, shared_bytes_per_warp)
                .into_iter()
                .map(|(l, g)| (l, g.to_string()))
                .collect();
        let blocks = gpu.calibration.sms.min(
            items
                .div_ceil(strategy.items_per_thread().max(1))
                .div_ceil(128),
        );
        if let Ok(l) = Launch::new(128, blocks.max(1))
            && !out.iter().any(|(o, _)| *o == l)
        {
            out.push((l, "one block per SM".into()));
        }
        out
    }

    pub fn strategy_named<'a>(list: &'a [Strategy], name: &str) -> Option<&'a Strategy> {
        list.iter().find(|s| s.to_string() == name)
    }

    /// The rows a model can be scored or fitted on (outputs equal to the CPU's, a time
    /// measured), each with its strategy from `strategies`; rows of other strategies are left
    /// out.
    pub fn scorable<'r>(rows: &'r [Row], strategies: &[Strategy]) -> Vec<(&'r Row, Strategy)> {
        rows.iter()
            .filter(|r| r.outputs_equal && r.median_ms > 0.0)
            .filter_map(|r| strategy_named(strategies, &r.strategy).map(|&s| (r, s)))
            .collect()
    }

    pub fn run<K>(kernel: &K, a: &Args) -> Result<(), DynError>
    where
        K: Kernel + Sync + GpuKernel + DeviceKernel,
        K::Output: Default + Send + Sync + PartialEq,
    {
        let gpu = gpu_model(a)?;
        let items = full_items(a);
        if let Some(path) = &a.sweep {
            return sweep(kernel, a, &gpu, items, path);
        }
        if let Some(path) = &a.score {
            return score(kernel, a, &gpu, path);
        }
        // The shape's strategies that have an entry point: a pick must be one the GPU can run
        // (the periodic-block loop's list compiles no collaborative context collection, which
        // the model ranked first there).
        let runnable: Vec<Strategy> = K::STRATEGIES
            .iter()
            .filter(|s| K::entry_point(s, 0).is_some())
            .copied()
            .collect();
        let strategies = if runnable.is_empty() {
            K::STRATEGIES
        } else {
            &runnable[..]
        };
        let compiled = compiled_facts(a)?.compiled::<K>(strategies, gpu.arch);
        let advice = match a.sample_items {
            Some(_) => advise_launches(kernel, items, strategies, &gpu, &sampling(a), &compiled)?,
            None => reconverge_advisor::advise_within(
                kernel,
                items,
                strategies,
                &gpu,
                &sampling(a),
                &compiled,
                reconverge_advisor::DEFAULT_MODEL_SECONDS,
            )?,
        };
        println!("{advice}");
        Ok(())
    }

    #[cfg(not(feature = "cuda"))]
    fn sweep<K: Kernel>(
        _: &K,
        _: &Args,
        _: &Gpu,
        _: u32,
        _: &std::path::Path,
    ) -> Result<(), DynError> {
        Err("--sweep times on the GPU: build the apps with --features cuda".into())
    }

    #[cfg(feature = "cuda")]
    fn sweep<K>(
        kernel: &K,
        a: &Args,
        gpu_model: &Gpu,
        items: u32,
        path: &std::path::Path,
    ) -> Result<(), DynError>
    where
        K: Kernel + Sync + GpuKernel + DeviceKernel,
        K::Output: Default + Send + Sync + PartialEq,
    {
        let gpu = super::gpu::open()?;
        let name = format!("{:?}", a.workload).to_lowercase();
        let cpu = reconverge_cpu::CpuBackend::new();
        let reference = cpu
            .run_auto(kernel, Strategy::BASELINE, items)
            .map_err(|e| format!("CPU reference: {e}"))?
            .outputs;
        let mut out = String::from(HEADER);
        out.push('\n');
        for strategy in K::strategies() {
            let regs: Vec<u32> = (0..)
                .map_while(|pass| K::entry_point(&strategy, pass))
                .filter_map(|n| gpu.gpu().attributes(n).ok().map(|a| a.registers_per_thread))
                .collect();
            let first = regs
                .first()
                .copied()
                .unwrap_or(gpu_model.calibration.default_registers);
            let shared = reconverge_advisor::shared_bytes_per_warp(kernel, &strategy);
            for (launch, grid) in sweep_launches(&strategy, items, gpu_model, first, shared) {
                let mut times = Vec::new();
                let mut equal = true;
                for rep in 0..=a.reps {
                    let run = gpu.run(kernel, strategy, items, launch)?;
                    if rep == 0 {
                        equal = run.outputs == reference;
                        continue;
                    }
                    let t: Duration = if run.pass_times.is_empty() {
                        run.elapsed
                    } else {
                        run.pass_times.iter().sum()
                    };
                    times.push(t.as_secs_f64() * 1e3);
                }
                let spread = Spread::of(&times);
                let regs_text: Vec<String> = regs.iter().map(u32::to_string).collect();
                let _ = writeln!(
                    out,
                    "{name}\t{strategy}\t{}\t{}\t{items}\t{grid}\t{:.6}\t{:.6}\t{}\t{equal}\t{}",
                    launch.threads_per_block,
                    launch.blocks,
                    spread.median,
                    spread.min,
                    a.reps,
                    regs_text.join(",")
                );
            }
        }
        std::fs::write(path, &out)?;
        let rows = out.lines().count() - 1;
        let unequal = out.lines().filter(|l| l.contains("\tfalse\t")).count();
        println!(
            "{name}: {rows} (strategy, launch) rows, {unequal} with outputs unequal to the CPU"
        );
        Ok(())
    }

    /// Per workload: Spearman between predicted and measured time over every (strategy,
    /// launch) row, and whether the predicted fastest pair measured within 10 % of the
    /// measured fastest.
    pub struct Score {
        pub rows: usize,
        pub spearman: Option<f64>,
        pub pick_within_10: bool,
        pub table: String,
        pub pick: String,
        pub best: String,
        pub pick_over_best: f64,
    }

    pub fn score_rows<K: Kernel + Sync + DeviceKernel>(
        kernel: &K,
        a: &Args,
        gpu: &Gpu,
        rows: &[Row],
    ) -> Result<Score, DynError> {
        let strategies = K::STRATEGIES
            .iter()
            .chain(crate::extra_strategies::<K>().iter())
            .copied()
            .collect::<Vec<_>>();
        let mut table = String::from(
            "| strategy | launch | grid | predicted ms (min / median / max) | measured ms | schedule / throughput | grid claims (serial ms) |\n|---|---|---|---:|---:|---:|---:|\n",
        );
        let loops = compiled_facts(a)?
            .compiled::<K>(&strategies, gpu.arch)
            .loops;
        let mut pairs = Vec::new();
        let mut scored = Vec::new();
        let selected = scorable(rows, &strategies);
        let sampling = sampling(a);
        // Each row's model runs are independent: one per core, in the rows' order.
        let predicted = selected
            .par_iter()
            .map(|&(r, strategy)| {
                let compiled = reconverge_advisor::Compiled {
                    registers: Some(reconverge_advisor::Registers {
                        arch: gpu.arch,
                        baseline: r.registers.first().copied().unwrap_or(32),
                        strategies: vec![(strategy, r.registers.clone())],
                    }),
                    loops: loops.clone(),
                };
                // Whether the row's launch is the one the backend picks for its strategy, at
                // the registers the sweep recorded (what `Advice::recommended` keeps on a
                // near tie).
                let own = strategy.runs_per_thread()
                    && reconverge_advisor::default_launch(
                        kernel,
                        &strategy,
                        r.items,
                        gpu,
                        compiled.registers.as_ref(),
                    ) == r.launch;
                predict_launch(
                    kernel, strategy, r.items, r.launch, gpu, &sampling, &compiled,
                )
                .map(|times| (times, own))
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (&(r, strategy), (times, own)) in selected.iter().zip(predicted) {
            let ns: Vec<f64> = times.iter().map(|t| t.ns).collect();
            let spread = Spread::of(&ns);
            let mid = times
                .iter()
                .min_by(|x, y| {
                    (x.ns - spread.median)
                        .abs()
                        .total_cmp(&(y.ns - spread.median).abs())
                })
                .copied()
                .unwrap_or_default();
            let _ = writeln!(
                table,
                "| {} | {} x {} | {} | {:.3} / {:.3} / {:.3} | {:.3} | {:.2} | {} |",
                r.strategy,
                r.launch.blocks,
                r.launch.threads_per_block,
                r.grid,
                spread.min * 1e-6,
                spread.median * 1e-6,
                spread.max * 1e-6,
                r.median_ms,
                if mid.throughput_ns > 0.0 {
                    mid.schedule_ns / mid.throughput_ns
                } else {
                    1.0
                },
                if mid.grid_claims > 0.0 {
                    format!("{:.0} ({:.3})", mid.grid_claims, mid.grid_claims_ns * 1e-6)
                } else {
                    String::new()
                }
            );
            pairs.push((spread.median, r.median_ms));
            scored.push((
                format!(
                    "{} at {} x {}",
                    r.strategy, r.launch.blocks, r.launch.threads_per_block
                ),
                spread,
                r.median_ms,
                strategy,
                own,
            ));
        }
        // The advisor's own rule (`Advice::recommended`) over the rows measured.
        let pick = reconverge_advisor::recommend(&scored, |x| x.3, |x| x.1, |x| x.4)
            .ok_or("no row to score")?;
        let best = scored
            .iter()
            .min_by(|x, y| x.2.total_cmp(&y.2))
            .ok_or("no row to score")?;
        Ok(Score {
            rows: pairs.len(),
            // Time against time: the same order as speedup against speedup.
            spearman: spearman(&pairs),
            pick_within_10: pick.2 <= best.2 / 0.9,
            table,
            pick: pick.0.clone(),
            best: best.0.clone(),
            pick_over_best: best.2 / pick.2,
        })
    }

    fn score<K: Kernel + Sync + DeviceKernel>(
        kernel: &K,
        a: &Args,
        gpu: &Gpu,
        path: &std::path::Path,
    ) -> Result<(), DynError> {
        let rows = read(path)?;
        let s = score_rows(kernel, a, gpu, &rows)?;
        println!("{}", s.table);
        println!(
            "SCORE | {:?} | {} rows | Spearman {} | pick {} | measured best {} | pick's speed / best's {:.3} | within 10 %: {} |",
            a.workload,
            s.rows,
            s.spearman.map_or("n/a".into(), |v| format!("{v:.3}")),
            s.pick,
            s.best,
            s.pick_over_best,
            s.pick_within_10
        );
        Ok(())
    }
}

/// Strategies the GPU has entry points for beyond the shape's list (the papers' settings),
/// so that a sweep's rows name strategies the model can run.
fn extra_strategies<K: Kernel>() -> &'static [Strategy] {
    match K::SHAPE {
        "branch loop" => reconverge_workloads::gpu_entries::SYN_IT_DELAY_STRATEGIES,
        "item loop" => reconverge_workloads::gpu_entries::DYNAMIC_WORK_STRATEGIES,
        _ => &[],
    }
}

/// The calibration set: the papers' workloads only (SYN-ITDELAY on a branch every lane takes
/// the same way and at f = 0.5, seed 004's dynamic-work loop), swept on the GPU
/// (`--sweep DIR`) and fitted offline (`--fit DIR`).
mod calibration {
    use rayon::prelude::*;

    use reconverge_advisor::calibrate::{Observation, fit, fit_grid_claims};
    use reconverge_advisor::sampled_profiles;

    use super::schedule::{Row, gpu_model, read, sampling, scorable};
    use super::*;

    const SETTINGS: [(&str, f64); 2] = [("itdelay-f0", 0.0), ("itdelay-f50", 0.5)];

    fn itdelay(f: f64) -> BranchLoopKernel<SynItDelay> {
        BranchLoopKernel(SynItDelay::with_branch_ratio(8.0, 32, f, 2011))
    }

    fn dynamic_work() -> ItemLoopKernel<DynamicWork> {
        ItemLoopKernel(reconverge_workloads::reference::DYNAMIC_WORK)
    }

    /// The claims probe: seed 004's loop cut to one step per trip and 1-16 trips, 2^20 items,
    /// so that items are short and claims on the work counters frequent beside the work: what
    /// pins [`Calibration::grid_claim_ns`].
    const CLAIMS: (&str, u32) = ("claims", 1 << 20);

    fn claims_probe() -> ItemLoopKernel<DynamicWork> {
        ItemLoopKernel(DynamicWork::new(1, 16, 1))
    }

    pub fn run(a: &Args) -> Result<(), DynError> {
        if let Some(dir) = &a.fit {
            return fit_dir(a, dir);
        }
        let Some(dir) = &a.sweep else {
            return Err("calibration: give --sweep DIR (GPU) or --fit DIR (offline)".into());
        };
        std::fs::create_dir_all(dir)?;
        let items = 1 << 18;
        let args = |name: &str| -> Args {
            let mut b = Args::parse_from(["advise", "calibration"]);
            b.sweep = Some(dir.join(format!("{name}.tsv")));
            b.reps = a.reps;
            b.full_items = Some(items);
            b.backend = a.backend;
            b.calibration = a.calibration.clone();
            b
        };
        for (name, f) in SETTINGS {
            schedule::run(&itdelay(f), &args(name))?;
        }
        schedule::run(&dynamic_work(), &args("dynamic-work"))?;
        let mut probe = args(CLAIMS.0);
        probe.full_items = Some(CLAIMS.1);
        schedule::run(&claims_probe(), &probe)
    }

    fn observations<K: Kernel + Sync + DeviceKernel>(
        kernel: &K,
        a: &Args,
        rows: &[Row],
        strategies: &[Strategy],
        facts: &CompiledFacts,
        gpu: &reconverge_advisor::Gpu,
    ) -> Result<Vec<Observation>, DynError> {
        let loops = facts.compiled::<K>(strategies, gpu.arch).loops;
        let one = reconverge_advisor::Sampling {
            resamples: 1,
            ..sampling(a)
        };
        let selected = scorable(rows, strategies);
        // One model run per row, one row per core, in the rows' order.
        let out = selected
            .par_iter()
            .map(|&(r, strategy)| {
                let profile = sampled_profiles(
                    kernel,
                    strategy,
                    r.items,
                    r.launch,
                    gpu.calibration.sms,
                    &one,
                    1 << 32,
                    &loops,
                )?
                .remove(0);
                Ok(Observation {
                    label: format!(
                        "{} {} {}x{}",
                        r.workload, r.strategy, r.launch.blocks, r.launch.threads_per_block
                    ),
                    profile,
                    launch: r.launch,
                    registers: r.registers.clone(),
                    measured_ns: r.median_ms * 1e6,
                })
            })
            .collect::<Result<Vec<_>, reconverge_advisor::AdviseError>>()?;
        Ok(out)
    }

    fn fit_dir(a: &Args, dir: &std::path::Path) -> Result<(), DynError> {
        let start = gpu_model(a)?;
        let facts = compiled_facts(a)?;
        let mut obs = Vec::new();
        for (name, f) in SETTINGS {
            let rows = read(&dir.join(format!("{name}.tsv")))?;
            obs.extend(observations(
                &itdelay(f),
                a,
                &rows,
                reconverge_workloads::gpu_entries::SYN_IT_DELAY_STRATEGIES,
                &facts,
                &start,
            )?);
        }
        let rows = read(&dir.join("dynamic-work.tsv"))?;
        obs.extend(observations(
            &dynamic_work(),
            a,
            &rows,
            reconverge_workloads::gpu_entries::DYNAMIC_WORK_STRATEGIES,
            &facts,
            &start,
        )?);
        // The claims probe, where the sweep has it (calibrations before it had none): not in
        // the first fit, whose numbers it does not pin, but the only data of the second.
        let probe = dir.join(format!("{}.tsv", CLAIMS.0));
        let probe_obs = if probe.exists() {
            observations(
                &claims_probe(),
                a,
                &read(&probe)?,
                reconverge_workloads::gpu_entries::DYNAMIC_WORK_STRATEGIES,
                &facts,
                &start,
            )?
        } else {
            Vec::new()
        };
        let fitted_on = format!(
            "{} (strategy, launch) runs of SYN-ITDELAY (r = 8, 32 iterations, f = 0 and 0.5) and seed 004's dynamic-work loop (LOOP_NUM 64, 1-32 trips), 2^18 items each{}, measured by `advise calibration --backend cuda --sweep`",
            obs.len(),
            if probe_obs.is_empty() {
                String::new()
            } else {
                format!(
                    "; grid_claim_ns on {} runs of the claims probe (the same loop, LOOP_NUM 1, 1-16 trips, 2^20 items)",
                    probe_obs.len()
                )
            }
        );
        let mut gpu = fit(&obs, &start, &fitted_on)?;
        // On the probe's grid-wide runs, whose time its one counter sets.
        if probe_obs
            .iter()
            .any(|o| o.profile.strategy.deals_across_blocks())
        {
            gpu = fit_grid_claims(&probe_obs, &gpu)?;
        }
        obs.extend(probe_obs);
        // The sweep's device line (nvidia-smi: name, driver, clock), where it was kept.
        if let Ok(line) = std::fs::read_to_string(dir.join("../device.txt")) {
            gpu.calibration.device = line.split(',').next().unwrap_or("").trim().to_string();
        }
        for o in &obs {
            let t = reconverge_advisor::launch_time(&o.profile, o.launch, &gpu, &o.registers)?;
            println!(
                "{:<70} measured {:>9.4} ms predicted {:>9.4} ms{}",
                o.label,
                o.measured_ns * 1e-6,
                t.ns * 1e-6,
                if t.grid_claims > 0.0 {
                    format!(" ({:.0} claims on the launch's counter)", t.grid_claims)
                } else {
                    String::new()
                }
            );
        }
        println!("{:#?}", gpu.calibration);
        gpu.calibration.save(&a.calibration_out)?;
        println!("wrote {}", a.calibration_out.display());
        Ok(())
    }
}

/// `advise papers --rescore CSV`: the papers' settings predicted by the schedule model beside
/// the measured speedups of a reproduce run.
fn papers(a: &Args) -> Result<(), DynError> {
    use reconverge_advisor::accuracy::{Point, spearman_of};
    use reconverge_benches::reproduce::advisor::rescore::rescore;
    let csv = a.rescore.as_ref().ok_or(
        "papers: give --rescore docs/results/h100-reproduce/advisor-predicted-vs-measured.csv",
    )?;
    let gpu = schedule::gpu_model(a)?;
    let facts = compiled_facts(a)?;
    let points = rescore(csv, &gpu, &schedule::sampling(a), &facts)?;
    let mut experiments: Vec<&str> = Vec::new();
    for p in &points {
        if !experiments.contains(&p.experiment.as_str()) {
            experiments.push(&p.experiment);
        }
    }
    println!("| experiment | settings | rows | Spearman | pick within 5 % | pick within 10 % |");
    println!("|---|---:|---:|---:|---:|---:|");
    let line = |name: &str, pts: Vec<Point>| {
        let within = |t: f64| {
            pts.iter()
                .filter(|p| p.pick_within(t) == Some(true))
                .count()
        };
        println!(
            "| {name} | {} | {} | {} | {} of {} | {} of {} |",
            pts.len(),
            pts.iter().map(|p| p.scored.len()).sum::<usize>(),
            spearman_of(&pts).map_or("n/a".into(), |v| format!("{v:.3}")),
            within(0.05),
            pts.len(),
            within(0.10),
            pts.len()
        );
    };
    for e in &experiments {
        line(
            e,
            points
                .iter()
                .filter(|p| p.experiment == *e)
                .map(|p| p.point.clone())
                .collect(),
        );
    }
    line("all", points.iter().map(|p| p.point.clone()).collect());
    if a.tune {
        for p in &points {
            for s in &p.point.scored {
                println!(
                    "ROW | {} | {} | {} | {:.3} | {:.3} |",
                    p.experiment, p.setting, s.strategy, s.predicted, s.measured
                );
            }
        }
    }
    Ok(())
}
