//! MCML photon simulation: `.mci` in, `.mco` out, MCML's own formats.
//!
//! With no arguments, runs the built-in 7-layer skin model on the CPU backend (warps emulated
//! in lockstep) under the baseline strategy. `--backend cuda` (built with feature `cuda`) runs
//! it on GPU 0 instead, in f32 (`--f32`), for the strategies that have compiled entry points. `--strategy` picks another divergence strategy,
//! `--strategy scalar` the plain per-photon loop. Prints Rsp, Rd, A, Tt, photons per second
//! and the warps' SIMD efficiency; exits non-zero with the error message on bad input.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::builtin::{BUILTIN_NAMES, builtin};
use reconverge_mcml::mci::read_mci;
use reconverge_mcml::mco::write_mco;
use reconverge_mcml::{RunInput, RunResult, run_on_backend, run_with};
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
    /// Run in f32 instead of f64.
    #[arg(long)]
    f32: bool,
    /// How warps run the photon loop.
    #[arg(long, value_enum, default_value = "baseline")]
    strategy: StrategyArg,
    /// Majority vote's threshold (lanes of 32 that must want the boundary path).
    #[arg(long, default_value_t = 16)]
    threshold: u32,
    /// Round robin's duty cycle as `num_zeros:num_ones`.
    #[arg(long, default_value = "1:1")]
    cycle: String,
    /// Threads per block of the (emulated) launch.
    #[arg(long, default_value_t = 128)]
    threads_per_block: u32,
    /// Blocks of the launch: persistent threads, each running many photons. Default: 64 on
    /// the CPU; on the GPU, as many as are resident at once (SMs x blocks per SM).
    #[arg(long)]
    blocks: Option<u32>,
    /// The backend: cpu, or cuda (GPU 0, needs feature `cuda` and `--f32`).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: BackendArg,
}

impl Args {
    fn strategy(&self) -> Result<Option<Strategy>, String> {
        let (num_zeros, num_ones) = self
            .cycle
            .split_once(':')
            .and_then(|(z, o)| Some((z.trim().parse().ok()?, o.trim().parse().ok()?)))
            .ok_or_else(|| {
                format!(
                    "--cycle {:?}: expected num_zeros:num_ones, e.g. 3:1",
                    self.cycle
                )
            })?;
        Ok(match self.strategy {
            StrategyArg::Scalar => None,
            StrategyArg::Baseline => Some(Strategy::Baseline),
            StrategyArg::Dynamic => Some(Strategy::DynamicWorkAssignment),
            StrategyArg::BranchDistribution => Some(Strategy::BranchDistribution),
            StrategyArg::MajorityVote => {
                Some(Strategy::IterationDelaying(Decision::MajorityVote {
                    threshold: self.threshold,
                    stop_when_a_lane_finishes: true,
                }))
            }
            StrategyArg::RoundRobin | StrategyArg::RoundRobinIdleRemoval => {
                Some(Strategy::IterationDelaying(Decision::RoundRobin {
                    num_zeros,
                    num_ones,
                    remove_idle: self.strategy == StrategyArg::RoundRobinIdleRemoval,
                }))
            }
        })
    }
}

/// Runs one input with the chosen strategy; returns MCML's result and the SIMD efficiency.
fn simulate<F: McmlFloat>(
    args: &Args,
    run: &RunInput,
    photons: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(RunResult, Option<f64>), Box<dyn std::error::Error>> {
    match args.strategy()? {
        None => Ok((
            run_with::<F>(run, photons, args.seed, Some(progress))?,
            None,
        )),
        Some(strategy) => {
            let launch = Launch::new(args.threads_per_block, args.blocks.unwrap_or(64))?;
            let cpu = CpuBackend::new();
            let out = run_on_backend::<F, _>(
                &cpu,
                run,
                photons,
                args.seed,
                strategy,
                launch,
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
    run: &RunInput,
    photons: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(RunResult, String), Box<dyn std::error::Error>> {
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
    let out = run_on_backend::<f32, _>(
        &gpu,
        run,
        photons,
        args.seed,
        strategy,
        launch,
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

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let (runs, from_file): (Vec<RunInput>, bool) = match &args.input {
        Some(path) => (read_mci(path)?.runs, true),
        None => {
            let run = builtin(&args.builtin).ok_or_else(|| {
                format!(
                    "unknown built-in input {:?}; choose one of {}",
                    args.builtin,
                    BUILTIN_NAMES.join(", ")
                )
            })?;
            (vec![run], false)
        }
    };
    if args.output.is_some() && runs.len() > 1 {
        return Err("--output needs an input with a single run".into());
    }
    for run in &runs {
        let photons = args.photons.unwrap_or(run.photons);
        println!(
            "{}: {} layers, {} photons, seed {}",
            run.output_file,
            run.layers.len(),
            photons,
            args.seed
        );
        let bar = ProgressBar::new(photons);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} photons  {per_sec}  eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let progress = |done: u64| bar.set_position(done);
        #[allow(unused_mut)] // assigned only with feature `cuda`
        let mut on_gpu: Option<String> = None;
        let (result, simd) = match args.backend {
            BackendArg::Cpu if args.f32 => simulate::<f32>(&args, run, photons, &progress)?,
            BackendArg::Cpu => simulate::<f64>(&args, run, photons, &progress)?,
            BackendArg::Cuda if !args.f32 => {
                return Err("--backend cuda runs MCML in f32 only: add --f32".into());
            }
            #[cfg(feature = "cuda")]
            BackendArg::Cuda => {
                let (result, device) = simulate_cuda(&args, run, photons, &progress)?;
                on_gpu = Some(device);
                (result, None)
            }
            #[cfg(not(feature = "cuda"))]
            BackendArg::Cuda => {
                return Err(
                    "--backend cuda: this binary was built without feature `cuda` (cargo run --features cuda ...)".into(),
                );
            }
        };
        bar.finish_and_clear();
        println!("  Rsp = {:.6}", result.rsp);
        println!("  Rd  = {:.6}", result.rd);
        println!("  A   = {:.6}", result.a);
        println!("  Tt  = {:.6}", result.tt);
        match &on_gpu {
            Some(device) => println!(
                "  {:.0} photons/s ({:.3} s on {device})",
                result.photons_per_second,
                result.elapsed.as_secs_f64(),
            ),
            None => println!(
                "  {:.0} photons/s ({:.3} s, {} threads)",
                result.photons_per_second,
                result.elapsed.as_secs_f64(),
                rayon::current_num_threads()
            ),
        }
        if let Some(eff) = simd {
            println!(
                "  SIMD efficiency {:.1}% ({:?})",
                100.0 * eff,
                args.strategy
            );
        }
        let out = match &args.output {
            Some(p) => Some(p.clone()),
            None if from_file => Some(PathBuf::from(&run.output_file)),
            None => None,
        };
        if let Some(path) = out {
            std::fs::write(&path, write_mco(&result, result.elapsed.as_secs_f64()))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("  wrote {}", path.display());
        }
    }
    Ok(())
}
