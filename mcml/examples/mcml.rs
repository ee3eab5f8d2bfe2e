//! MCML photon simulation: `.mci` in, `.mco` out, MCML's own formats.
//!
//! With no arguments, runs the built-in 7-layer skin model in f32 on the CPU backend (warps
//! emulated in lockstep) under the baseline strategy; `--f64` runs it in f64. `--backend
//! cuda` (built with feature `cuda`) runs it on GPU 0 instead (f32 only), for the strategies
//! that have compiled entry points. `--strategy` picks another divergence strategy,
//! `--strategy scalar` the plain per-photon loop. Prints Rsp, Rd, A, Tt, photons per second
//! and the warps' SIMD efficiency; exits non-zero with the error message on bad input.
//!
//! Every run of an input is checked (values, grid, output files) before the first photon;
//! each run's `.mco` is written as soon as it is done. Runs of one `.mci` file continue one
//! sequence of random streams (see `reconverge_mcml::Streams`).

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::batch::{
    PlanOptions, PlannedRun, parse_cycle, parse_threshold, plan, run_planned,
};
use reconverge_mcml::builtin::{BUILTIN_NAMES, builtin};
use reconverge_mcml::limits::check_launch;
use reconverge_mcml::mci::read_mci;
use reconverge_mcml::{Batching, RunInput, RunResult, run_on_backend_streams, run_streams};
use reconverge_transforms::{Decision, Strategy};
use reconverge_workloads::mcml::McmlFloat;

/// Where the warps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BackendArg {
    /// The rayon CPU backend, warps emulated in lockstep (with SIMD efficiency).
    Cpu,
    /// The CUDA backend on GPU 0 (feature `cuda`; f32 only).
    Cuda,
}

/// The ways to run the photon loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum StrategyArg {
    /// Plain per-photon loop on rayon (no warps).
    Scalar,
    /// Warps run the branch as written.
    Baseline,
    /// A lane whose photon dies takes the next one from a block-shared counter.
    Dynamic,
    /// Iteration delaying, majority vote (seed 002).
    MajorityVote,
    /// Iteration delaying, round robin.
    RoundRobin,
    /// Iteration delaying, round robin with idle-iteration removal.
    RoundRobinIdleRemoval,
    /// Branch distribution of the boundary path's up/down branch (seed 002 fig. 9).
    BranchDistribution,
}

#[derive(Parser, Debug)]
#[command(about = "MCML photon transport in multi-layered media (CPU, rayon)")]
struct Args {
    /// An MCML .mci input file (all of its runs are simulated).
    #[arg(long, conflicts_with = "builtin")]
    input: Option<PathBuf>,
    /// A built-in input: skin, slab, vandehulst or giovanelli.
    #[arg(long, default_value = "skin")]
    builtin: String,
    /// Photons per run (overrides the input's count).
    #[arg(long)]
    photons: Option<u64>,
    /// Seed of the photon streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the .mco here (single-run inputs; an .mci's runs otherwise go to their own names).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Run in f64 (the default is f32, as on the GPU).
    #[arg(long, conflicts_with = "f32")]
    f64: bool,
    /// Run in f32 (the default; kept for older command lines).
    #[arg(long)]
    f32: bool,
    /// How warps run the photon loop.
    #[arg(long, value_enum, default_value = "baseline")]
    strategy: StrategyArg,
    /// Feed the lanes by dynamic work assignment under a branch strategy (majority-vote,
    /// round-robin*, branch-distribution): seed 002's MCML setting. On an H100 the fastest
    /// GPU run is `--strategy branch-distribution --dynamic-work`.
    #[arg(long)]
    dynamic_work: bool,
    /// Majority vote's threshold (lanes of 32 that must want the boundary path: 1 to 32).
    #[arg(long, default_value = "16", value_parser = parse_threshold)]
    threshold: u32,
    /// Round robin's duty cycle as `num_zeros:num_ones`, both at least 1.
    #[arg(long, default_value = "1:1", value_parser = parse_cycle)]
    cycle: (u32, u32),
    /// Threads per block of the (emulated) launch.
    #[arg(long, default_value_t = 128)]
    threads_per_block: u32,
    /// Photons per backend call (GPU launch), 1 to 2^30. Default: adaptive, about half a
    /// second per call. The result is the same bit for bit either way.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    batch_photons: Option<u64>,
    /// Blocks of the launch: persistent threads, each running many photons. Default: 64 on
    /// the CPU; on the GPU, as many as are resident at once (SMs x blocks per SM).
    #[arg(long)]
    blocks: Option<u32>,
    /// The backend: cpu, or cuda (GPU 0, needs feature `cuda` and `--f32`).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: BackendArg,
}

impl Args {
    fn batching(&self) -> Batching {
        self.batch_photons
            .map_or(Batching::Adaptive, Batching::Fixed)
    }

    fn strategy(&self) -> Result<Option<Strategy>, String> {
        let (num_zeros, num_ones) = self.cycle;
        let delaying = |decision| {
            if self.dynamic_work {
                Strategy::IterationDelayingWithDynamicWork(decision)
            } else {
                Strategy::IterationDelaying(decision)
            }
        };
        if self.dynamic_work && self.strategy == StrategyArg::Scalar {
            return Err("--dynamic-work needs a warp strategy, not --strategy scalar".into());
        }
        Ok(match self.strategy {
            StrategyArg::Scalar => None,
            StrategyArg::Baseline if self.dynamic_work => Some(Strategy::DynamicWorkAssignment),
            StrategyArg::Baseline => Some(Strategy::Baseline),
            StrategyArg::Dynamic => Some(Strategy::DynamicWorkAssignment),
            StrategyArg::BranchDistribution if self.dynamic_work => {
                Some(Strategy::BranchDistributionWithDynamicWork)
            }
            StrategyArg::BranchDistribution => Some(Strategy::BranchDistribution),
            StrategyArg::MajorityVote => Some(delaying(Decision::MajorityVote {
                threshold: self.threshold,
                stop_when_a_lane_finishes: true,
            })),
            StrategyArg::RoundRobin | StrategyArg::RoundRobinIdleRemoval => {
                Some(delaying(Decision::RoundRobin {
                    num_zeros,
                    num_ones,
                    remove_idle: self.strategy == StrategyArg::RoundRobinIdleRemoval,
                }))
            }
        })
    }
}

type DynError = Box<dyn std::error::Error + Send + Sync>;

/// Runs one planned run with the chosen strategy; returns MCML's result and the SIMD
/// efficiency.
fn simulate<F: McmlFloat>(
    args: &Args,
    run: &PlannedRun,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(RunResult, Option<f64>), DynError> {
    let photons = run.input.photons;
    match args.strategy()? {
        None => Ok((
            run_streams::<F>(&run.input, photons, run.streams, Some(progress))?,
            None,
        )),
        Some(strategy) => {
            let launch = Launch::new(args.threads_per_block, args.blocks.unwrap_or(64))?;
            let cpu = CpuBackend::new();
            let out = run_on_backend_streams::<F, _>(
                &cpu,
                &run.input,
                photons,
                run.streams,
                strategy,
                launch,
                args.batching(),
                Some(progress),
            )?;
            Ok((out.result, out.counters.map(|c| c.simd_efficiency())))
        }
    }
}

/// Runs one input on GPU 0 in f32; returns MCML's result and the device's name.
#[cfg(feature = "cuda")]
fn simulate_cuda(
    args: &Args,
    run: &PlannedRun,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(RunResult, String), DynError> {
    use reconverge_gpu::{CudaBackend, DeviceKernel, WarmUp};
    use reconverge_workloads::mcml::McmlKernel;
    let Some(strategy) = args.strategy()? else {
        return Err(
            "--strategy scalar runs on the CPU only; pick a warp strategy for --backend cuda"
                .into(),
        );
    };
    // Each batch of photons is one launch: warm up each entry point once, not every batch.
    let gpu = CudaBackend::new(0)?.with_warm_up(WarmUp::FirstUse);
    let entry = <McmlKernel<f32>>::entry_point(&strategy, 0).ok_or_else(|| {
        format!(
            "no CUDA entry point for MCML under {strategy:?}; compiled: {}",
            <McmlKernel<f32>>::ENTRY_POINTS
                .iter()
                .map(|e| format!("{:?}", e.strategy))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let blocks = match args.blocks {
        Some(b) => b,
        None => {
            let per_sm = gpu.gpu().max_active_blocks(entry, args.threads_per_block)?;
            let sms = u32::try_from(gpu.gpu().device().multiprocessors).unwrap_or(1);
            (per_sm * sms).max(1)
        }
    };
    let launch = Launch::new(args.threads_per_block, blocks)?;
    let out = run_on_backend_streams::<f32, _>(
        &gpu,
        &run.input,
        run.input.photons,
        run.streams,
        strategy,
        launch,
        args.batching(),
        Some(progress),
    )?;
    let d = gpu.gpu().device();
    Ok((
        out.result,
        format!(
            "{} ({} blocks x {} threads, kernel time {:.3} s)",
            d.name,
            blocks,
            args.threads_per_block,
            out.kernel_time.as_secs_f64()
        ),
    ))
}

/// A run's name in the header: its `.mco` for a file's run, which is written; the built-in's
/// name otherwise, since nothing is written for it.
fn run_label(from_file: bool, run: &RunInput, builtin: &str) -> String {
    if from_file {
        run.output_file.clone()
    } else {
        format!("{builtin} (built-in)")
    }
}

fn threads_label(n: usize) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<(), DynError> {
    let args = Args::parse();
    let (runs, source, from_file): (Vec<RunInput>, String, bool) = match &args.input {
        Some(path) => (read_mci(path)?.runs, path.display().to_string(), true),
        None => {
            let run = builtin(&args.builtin).ok_or_else(|| {
                format!(
                    "unknown built-in input {:?}; choose one of {}",
                    args.builtin,
                    BUILTIN_NAMES.join(", ")
                )
            })?;
            (vec![run], format!("built-in {}", args.builtin), false)
        }
    };
    let f64 = args.f64;
    if args.backend == BackendArg::Cuda && f64 {
        return Err("--backend cuda runs MCML in f32 only: drop --f64".into());
    }
    // Everything that can be refused is refused here, before the first photon.
    args.strategy()?;
    if let Some(blocks) = args.blocks {
        check_launch(args.threads_per_block, blocks)?;
    }
    let options = PlanOptions {
        source,
        photons: args.photons,
        seed: args.seed,
        write_outputs: from_file,
        output: args.output.clone(),
    };
    let planned = if f64 {
        plan::<f64>(&runs, &options)?
    } else {
        plan::<f32>(&runs, &options)?
    };
    let threads = rayon::current_num_threads();
    // Set by the simulation of a run and read by its report.
    let simd_of_last: Cell<Option<f64>> = Cell::new(None);
    let on_gpu: RefCell<Option<String>> = RefCell::new(None);
    let simulate_one = |run: &PlannedRun| -> Result<RunResult, DynError> {
        let name = run_label(from_file, &run.input, &args.builtin);
        println!(
            "{name}: {} layers, {} photons, {}, seed {} (first stream {})",
            run.input.layers.len(),
            run.input.photons,
            if f64 { "f64" } else { "f32" },
            run.streams.seed,
            run.streams.first_photon,
        );
        let bar = ProgressBar::new(run.input.photons);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} photons  {per_sec}  eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let progress = |done: u64| bar.set_position(done);
        let out = match args.backend {
            BackendArg::Cpu if f64 => simulate::<f64>(&args, run, &progress),
            BackendArg::Cpu => simulate::<f32>(&args, run, &progress),
            #[cfg(feature = "cuda")]
            BackendArg::Cuda => simulate_cuda(&args, run, &progress).map(|(result, device)| {
                *on_gpu.borrow_mut() = Some(device);
                (result, None)
            }),
            #[cfg(not(feature = "cuda"))]
            BackendArg::Cuda => Err(
                "--backend cuda: this binary was built without feature `cuda` (cargo run --features cuda ...)".into(),
            ),
        };
        bar.finish_and_clear();
        let (result, simd) = out?;
        simd_of_last.set(simd);
        Ok(result)
    };
    let report = |_: &PlannedRun, result: &RunResult, written: Option<&std::path::Path>| {
        println!("  Rsp = {:.6}", result.rsp);
        println!("  Rd  = {:.6}", result.rd);
        println!("  A   = {:.6}", result.a);
        println!("  Tt  = {:.6}", result.tt);
        match on_gpu.borrow().as_ref() {
            Some(device) => println!(
                "  {:.0} photons/s ({:.3} s on {device})",
                result.photons_per_second,
                result.elapsed.as_secs_f64(),
            ),
            None => println!(
                "  {:.0} photons/s ({:.3} s, {})",
                result.photons_per_second,
                result.elapsed.as_secs_f64(),
                threads_label(threads)
            ),
        }
        if let Some(eff) = simd_of_last.get() {
            println!(
                "  SIMD efficiency {:.1}% ({:?})",
                100.0 * eff,
                args.strategy
            );
        }
        if let Some(path) = written {
            println!("  wrote {}", path.display());
        }
    };
    run_planned(&planned, simulate_one, report)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("mcml").chain(args.iter().copied()))
    }

    #[test]
    fn the_main_job_runs_in_f32_as_the_readme_quotes() {
        let a = parse(&[]).unwrap();
        assert!(!a.f64, "the default is f32");
        assert!(!parse(&["--f32"]).unwrap().f64, "--f32 is still accepted");
        assert!(parse(&["--f64"]).unwrap().f64);
        assert!(parse(&["--f32", "--f64"]).is_err());
    }

    #[test]
    fn header_names_no_file_for_a_built_in_and_counts_threads_in_english() {
        let skin = reconverge_mcml::builtin::skin();
        assert_eq!(run_label(false, &skin, "skin"), "skin (built-in)");
        assert_eq!(run_label(true, &skin, "skin"), "skin.mco");
        assert_eq!(threads_label(1), "1 thread");
        assert_eq!(threads_label(2), "2 threads");
    }

    #[test]
    fn bad_values_are_refused_while_parsing_arguments() {
        assert!(parse(&["--threshold", "100"]).is_err());
        assert!(parse(&["--cycle", "0:0"]).is_err());
        let a = parse(&["--cycle", "3:1", "--threshold", "8"]).unwrap();
        assert_eq!((a.cycle, a.threshold), ((3, 1), 8));
    }
}
