//! The `mcml` command line: MCML photon simulation, `.mci` in, `.mco` out, MCML's own formats.
//!
//! `cargo install reconverge-mcml-cli` installs it as `mcml` (features `cuda` and `mpi` as
//! below); in a checkout, `cargo run --release --example mcml` runs the same code (the apps
//! crate's example calls [`main`]).
//!
//! With no arguments, runs the built-in 7-layer skin model in f32 on the CPU with MCML's own
//! per-photon loop on every core (`--strategy scalar`, the default: the fastest on the CPU);
//! `--f64` runs it in f64. `--strategy` picks a divergence strategy instead, whose warps of 32
//! lanes are emulated in lockstep on the CPU, and `--backend cuda` (built with feature `cuda`)
//! runs one on GPU 0 (f32 only), for the strategies that have compiled entry points. Prints
//! Rsp, Rd, A, Tt and photons per second (and, under a warp strategy, the share of the lanes'
//! steps that did photon work); exits non-zero with the error message on bad input.
//!
//! Every run of an input is checked (values, grid, output files) before the first photon;
//! each run's `.mco` is written as soon as it is done. Runs of one `.mci` file continue one
//! sequence of random streams (see `reconverge_mcml::Streams`).
//!
//! Features: `cuda` (`--backend cuda`: reconverge-gpu with the papers' kernels; building needs
//! the nightly toolchain with rust-src and llvm-tools), `mpi` (one run over the processes
//! `mpirun` starts; needs an MPI library and libclang).

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
use reconverge_mcml::checkpoint::CheckpointPolicy;
#[cfg(feature = "mpi")]
use reconverge_mcml::distributed::combine;
use reconverge_mcml::distributed::share_of_run;
use reconverge_mcml::finite_beam::{
    Beam, ConvolveOptions, Interpolation, beam_label, convolve_result, parse_beam,
    text::write_conv_files,
};
use reconverge_mcml::limits::check_launch;
use reconverge_mcml::mci::read_mci;
use reconverge_mcml::mco_file::McoFile;
use reconverge_mcml::plot::{RunPlots, Scale, check_plot_files, plot_stem, write_plots};
use reconverge_mcml::{
    Batching, RunInput, RunOptions, RunResult, run_on_backend_streams, run_streams,
};
use reconverge_transforms::{Assignment, Decision, Strategy};
use reconverge_workloads::mcml::{FastF32, McmlFloat};

#[cfg(feature = "cuda")]
mod on_gpus;
#[cfg(feature = "cuda")]
use on_gpus::simulate_cuda;

/// Where the warps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BackendArg {
    /// The rayon CPU backend, warps emulated in lockstep (with SIMD efficiency).
    Cpu,
    /// The CUDA backend on GPU 0 (feature `cuda`; f32 only).
    Cuda,
}

/// How `--convolve` takes the impulse response between bin centres.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum InterpolationArg {
    /// CONV's: linear between bin centres (CONV's numbers; overweights light peaked on the
    /// axis within the first bin, up to 12.5 %).
    Conv,
    /// Each bin's value over its annulus: keeps every bin's weight, and writes each output
    /// bin's average over its annulus, as a sampled beam's tallies are (at a flat beam's edge
    /// the pencil grid's bins still blur it by one bin: run the pencil beam on a finer grid, or
    /// sample the beam).
    Bins,
}

/// The pictures' scale (`--plot-scale`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ScaleArg {
    /// Log y axis and log colour scale.
    Log,
    /// Linear, from 0.
    Linear,
}

/// The ways to run the photon loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum StrategyArg {
    /// MCML's own loop, one photon after another on each core (no warps): the CPU's default.
    Scalar,
    /// Warps run the branch as written.
    Baseline,
    /// A lane whose photon dies takes the next one from a block-shared counter.
    Dynamic,
    /// A lane whose photon dies takes the next one from one counter of the whole launch
    /// (no block runs out while another still has photons): the GPU's default, its fastest.
    GridDynamic,
    /// Iteration delaying, majority vote (seed 002).
    MajorityVote,
    /// Iteration delaying, round robin.
    RoundRobin,
    /// Iteration delaying, round robin with idle-iteration removal.
    RoundRobinIdleRemoval,
    /// Branch distribution of the boundary path's up/down branch (seed 002 fig. 9).
    BranchDistribution,
    /// Iteration delaying of the boundary path only, for as long as waiting costs less than
    /// issuing it (cost-balanced: the interaction path runs every iteration).
    CostBalanced,
    /// Branch distribution and cost-balanced delaying, over dynamic work assignment (implied):
    /// all three of seed 002's MCML techniques.
    BranchDistributionCostBalanced,
    /// The advisor picks (reconverge-advisor): every strategy of MCML's list runs on a sample
    /// of the run's photons on the CPU model, and the one predicted fastest runs the run (on
    /// `--backend cuda`, among those with GPU entry points).
    Auto,
    /// The measured tuner picks: every strategy is timed on the run's backend on short runs of
    /// the run's photons, the fastest third going on to longer ones (successive halving, about
    /// 5 % of the run's photons in all), and the fastest runs the run. Tuning runs are timed
    /// only; the run's tallies come from the run itself.
    Tune,
}

/// Photons of all `--strategy tune` runs together, as a share of the run's.
const TUNE_SHARE: f64 = 0.05;

/// The shortest run `--strategy tune` times; a run of fewer than 20 times this many photons is
/// too short to tune, and `--strategy tune` falls back to the advisor's model (`auto`).
const TUNE_MIN_PHOTONS: u32 = 1 << 16;

/// `--strategy tune` on `backend`: the measured tuner's pick for `run` among `candidates`
/// (timed with `launch`), said on stdout; the advisor's model pick for a run too short to tune.
fn tuned_strategy<F, B>(
    backend: &B,
    run: &PlannedRun,
    candidates: &[Strategy],
    launch: impl Fn(Strategy, u32) -> Result<Launch, reconverge_backend::BackendError>,
) -> Result<Strategy, DynError>
where
    F: reconverge_workloads::mcml::McmlFloat,
    B: reconverge_backend::Backend<reconverge_workloads::mcml::McmlKernel<F>>,
{
    use reconverge_advisor::{Halving, backend_time, tune_measured};
    use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
    let photons = u32::try_from(run.input.photons).unwrap_or(u32::MAX);
    if photons / 20 < TUNE_MIN_PHOTONS {
        println!(
            "  --strategy tune: {photons} photons are too few to time strategies on; the advisor's model picks"
        );
        return auto_strategy(run, candidates);
    }
    let kernel = McmlKernel(McmlLoop {
        params: run.input.params::<F>().map_err(|e| e.to_string())?,
        seed: run.streams.seed,
        first_photon: run.streams.first_photon,
    });
    let halving = Halving {
        keep: 3,
        budget: TUNE_SHARE / candidates.len().max(1) as f64,
        min_items: TUNE_MIN_PHOTONS,
    };
    let t = std::time::Instant::now();
    let tuned = tune_measured(
        candidates,
        photons,
        &halving,
        backend_time(backend, &kernel, launch),
    )?;
    println!(
        "  --strategy tune: {} (fastest of {} strategies timed on {} photons in all, {:.1} % of the run; {:.2} s)",
        tuned.best,
        candidates.len(),
        tuned.item_runs(),
        100.0 * tuned.item_runs() as f64 / f64::from(photons),
        t.elapsed().as_secs_f64()
    );
    Ok(tuned.best)
}

/// Photons of the sample `--strategy auto` advises on.
const AUTO_SAMPLE_PHOTONS: u32 = 2048;

/// `--strategy auto`: the advisor's pick for `run` among `candidates`, said on stdout.
fn auto_strategy(run: &PlannedRun, candidates: &[Strategy]) -> Result<Strategy, DynError> {
    use reconverge_advisor::{Options, advise_strategies};
    use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
    let kernel = McmlKernel(McmlLoop {
        params: run.input.params::<f32>().map_err(|e| e.to_string())?,
        seed: run.streams.seed,
        first_photon: run.streams.first_photon,
    });
    let sample = u32::try_from(run.input.photons)
        .unwrap_or(u32::MAX)
        .clamp(1, AUTO_SAMPLE_PHOTONS);
    // Persistent lanes running a few photons each, as the real run's lanes do.
    let launch = Launch::new(64, 4)?;
    let advice = advise_strategies(&kernel, sample, launch, candidates, &Options::default())?;
    let pick = advice.recommended();
    println!(
        "  --strategy auto: {} (predicted {:.2}x the baseline on {sample} photons of the model: {})",
        pick.strategy,
        pick.speedup,
        pick.reason()
    );
    Ok(pick.strategy)
}

#[derive(Parser, Debug)]
#[command(
    name = "mcml",
    version,
    about = "MCML photon transport in multi-layered media: .mci in, .mco out (CPU, or CUDA with feature `cuda`)"
)]
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
    /// Opt-in fast math (implies f32): on the GPU, division, square root, the step's logarithm
    /// and the azimuth's cosine and sine use the approximate PTX instructions (div.approx,
    /// sqrt.approx, lg2.approx, sin/cos.approx, subnormals flushed, each within its PTX-stated
    /// bound) and products and sums become FMAs, so results are NOT bit-identical to the exact
    /// f32 run. They agree with it within the device check's statistical tolerance. GPU entry
    /// points exist for --strategy baseline, dynamic, grid-dynamic (the default),
    /// branch-distribution --dynamic-work and branch-distribution-cost-balanced, and for
    /// --strategy-id collaborative-context-collection-grid-wide and
    /// speculative-reconvergence-16-4-grid-wide. On --backend cpu this runs FastF32 on the CPU, which
    /// is exactly f32 (the same tallies, bit for bit). Checkpoints of fast-math runs are kept
    /// apart from f32's.
    #[arg(long, conflicts_with = "f64")]
    fast_math: bool,
    /// How the photon loop runs. Default: `scalar` on the CPU, MCML's own loop (one photon
    /// after another on each core), the fastest there; `grid-dynamic` on `--backend cuda`,
    /// each thread's photon loop over one grid-wide counter, the fastest there (with
    /// `--fast-math` too). The others run it in warps of 32 lanes (emulated in lockstep on the
    /// CPU), to study the divergence strategies.
    #[arg(long = "strategy", value_enum, value_name = "STRATEGY")]
    strategy_given: Option<StrategyArg>,
    /// Any strategy by its id, with its numbers (`delaying-majority-vote-8-stop-dynamic`,
    /// `branch-distribution-grid-wide`: the ids the advisor's tables print and
    /// `reconverge_transforms::Strategy` parses), instead of `--strategy`. On the GPU it runs
    /// where the MCML kernels have an entry point for it; elsewhere the run says none does.
    #[arg(long, value_name = "ID", value_parser = parse_strategy_id, conflicts_with_all = ["strategy_given", "dynamic_work"])]
    strategy_id: Option<Strategy>,
    /// `--strategy`, or the backend's default (set by [`Args::resolved`]).
    #[arg(skip = StrategyArg::Scalar)]
    strategy: StrategyArg,
    /// Feed the lanes by dynamic work assignment under a branch strategy (majority-vote,
    /// round-robin*, cost-balanced, branch-distribution): seed 002's MCML setting.
    #[arg(long)]
    dynamic_work: bool,
    /// Majority vote's threshold (lanes of 32 that must want the boundary path: 1 to 32).
    #[arg(long, default_value = "16", value_parser = parse_threshold)]
    threshold: u32,
    /// Round robin's duty cycle as `num_zeros:num_ones`, both at least 1.
    #[arg(long, default_value = "1:1", value_parser = parse_cycle)]
    cycle: (u32, u32),
    /// Threads per block of the launch: 128 by default on the CPU (emulated); on the GPU, of
    /// 256, 512 and 1024 the size that keeps the most warps resident, the larger on a tie
    /// (`reconverge_mcml::gpu_launch`).
    #[arg(long)]
    threads_per_block: Option<u32>,
    /// Copies of the tally on the GPU (blocks add to copy `block % copies`, added up on the
    /// GPU at the end of each launch): fewer atomics to one hot bin. Default: the CUDA
    /// backend's (`reconverge_gpu::DEFAULT_TALLY_COPIES`, within 32 MiB). The tallies are the
    /// same bit for bit with any number.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    tally_copies: Option<u32>,
    /// Photons per backend call (GPU launch), 1 to 2^30. Default: adaptive, about one
    /// second per call. The result is the same bit for bit either way.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    batch_photons: Option<u64>,
    /// Save the run's tallies to FILE while it runs (atomically: a temporary file, then a
    /// rename), and resume from FILE if it exists: a run killed mid-way goes on where it
    /// stopped and writes the same .mco, bit for bit. A damaged checkpoint, or one of another
    /// run, is refused. Runs of a multi-run .mci after the first use FILE.from<N>, N the
    /// stream of their first photon. Warp strategies only (not --strategy scalar).
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints (the end of the run is always saved).
    #[arg(long, default_value_t = 60)]
    checkpoint_every: u64,
    /// GPUs of `--backend cuda`: `all`, or ordinals such as `0,1`. Each takes a contiguous
    /// share of the photons; with several, NCCL sums their tallies: the same .mco, bit for
    /// bit, as one GPU.
    #[arg(long, default_value = "0")]
    devices: String,
    /// Blocks of the launch: persistent threads, each running many photons. Default: 64 on
    /// the CPU; on the GPU, as many as are resident at once (SMs x blocks per SM).
    #[arg(long)]
    blocks: Option<u32>,
    /// The backend: cpu, or cuda (GPU 0, needs feature `cuda` and `--f32`).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: BackendArg,
    /// The incident beam, sampled inside the simulation: gaussian:R (1/e² radius R in cm),
    /// flat:R (radius R in cm) or pencil (MCML's, the default). Each photon enters at a point
    /// drawn from the beam with its own random stream (CPU and GPU stay bit-identical); the
    /// .mco holds the beam's responses per joule and names the beam in a comment.
    #[arg(long, default_value = "pencil", value_parser = parse_beam)]
    beam: Beam,
    /// Also write the responses to this beam (gaussian:R or flat:R, R in cm, 1 J), convolved
    /// from the run's pencil-beam responses as MCML's CONV does, next to the .mco:
    /// <stem>.<beam>.Rrc, .Trc (r, Rd or Tt in J/cm²), .Arzc (r, z, A in J/cm³) and .Frzc (r,
    /// z, fluence in J/cm²). Repeatable; needs a pencil-beam run that writes an .mco.
    #[arg(long, value_parser = parse_beam)]
    convolve: Vec<Beam>,
    /// How --convolve takes the pencil-beam response between bin centres.
    #[arg(long, value_enum, default_value = "conv")]
    convolve_interpolation: InterpolationArg,
    /// The radial bin width (cm) of --convolve's output: by default the run's dr. A pencil run
    /// on a grid finer than the output resolves a flat beam's edge, which the pencil grid's
    /// bins otherwise blur by one bin.
    #[arg(long, value_name = "CM", requires = "convolve", value_parser = parse_width)]
    convolve_dr: Option<f64>,
    /// The radial bins of --convolve's output: by default as many as cover the run's grid
    /// (nr x dr) at --convolve-dr.
    #[arg(long, value_name = "N", requires = "convolve", value_parser = clap::value_parser!(u32).range(1..))]
    convolve_nr: Option<u32>,
    /// Draw each run's Rd(r), Tt(r), A(z) and fluence map Φ(r, z) (contours; the beam named
    /// in the caption) into DIR as SVG and PNG: DIR/STEM-rd_r.svg, -rd_r.png, -tt_r, -a_z,
    /// -fluence, STEM the run's .mco name without `.mco` (`--output`'s, where given). Each
    /// `--convolve` beam's responses are drawn too, as STEM.<beam>-*. DIR is created if
    /// missing and every file checked before the first photon; the pictures of a run are drawn
    /// as soon as it is done.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// The pictures' y axis and colour scale: log (the default; every tick labelled) or linear
    /// (from 0).
    #[arg(long, value_enum, default_value = "log", requires = "plot")]
    plot_scale: ScaleArg,
    /// Print where the process's time went when it ends: reading and checking, loading the
    /// GPUs (contexts, modules), each run's simulation (its kernels, and the rest of its
    /// backend calls: buffers, copies), writing the outputs.
    #[arg(long)]
    timings: bool,
}

/// `--strategy-id`: a strategy id, or what the text lacked.
fn parse_strategy_id(text: &str) -> Result<Strategy, String> {
    text.parse::<Strategy>().map_err(|e| e.to_string())
}

impl Args {
    /// The arguments with the backend's default strategy where `--strategy` is not given, the
    /// fastest on each: the plain loop on the CPU (1.54x the emulated-warp baseline,
    /// scripts/main-job-timing.sh, 2026-11-29), and on the GPU each thread's photon loop over one grid-wide
    /// counter, in both modes (H200, 10^8 photons, 2026-11-28: 1.34x the baseline's kernel on
    /// skin, 1.40x on the slab, bit-identical; with `--fast-math` within 1 % of the fastest
    /// fast-math kernel, dynamic work over the block's counter).
    fn resolved(mut self) -> Self {
        self.strategy = self.strategy_given.unwrap_or(match self.backend {
            BackendArg::Cpu => StrategyArg::Scalar,
            BackendArg::Cuda => StrategyArg::GridDynamic,
        });
        self
    }

    /// Threads per block: `--threads-per-block`, or the backend's default.
    fn threads_per_block(&self) -> u32 {
        self.threads_per_block.unwrap_or(match self.backend {
            BackendArg::Cpu => 128,
            // What `gpu_launch` picks for MCML's per-thread kernels on an H100; only the
            // checks before the GPU opens read this.
            BackendArg::Cuda => 1024,
        })
    }

    /// The GPU ordinals `--devices` names, given the machine's `count`.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    fn device_ordinals(&self, count: usize) -> Result<Vec<usize>, String> {
        let list: Vec<usize> = if self.devices.trim() == "all" {
            (0..count).collect()
        } else {
            self.devices
                .split(',')
                .map(|d| {
                    d.trim().parse().map_err(|_| {
                        format!(
                            "--devices {:?}: expected all or ordinals such as 0,1",
                            self.devices
                        )
                    })
                })
                .collect::<Result<_, _>>()?
        };
        if let Some(bad) = list.iter().find(|&&d| d >= count) {
            return Err(format!("--devices: no GPU {bad}; this machine has {count}"));
        }
        let mut sorted = list.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != list.len() || list.is_empty() {
            return Err(format!("--devices {:?}: name each GPU once", self.devices));
        }
        Ok(list)
    }

    /// Batches, progress and checkpoint of `run`.
    fn run_options<'a>(&self, run: &PlannedRun, progress: &'a dyn Fn(u64)) -> RunOptions<'a> {
        let checkpoint = self.checkpoint.as_ref().map(|path| {
            let mut path = path.clone().into_os_string();
            if run.streams.first_photon != 0 {
                path.push(format!(".from{}", run.streams.first_photon));
            }
            CheckpointPolicy {
                path: path.into(),
                every: Duration::from_secs(self.checkpoint_every),
            }
        });
        RunOptions {
            batching: self
                .batch_photons
                .map_or(Batching::Adaptive, Batching::Fixed),
            progress: Some(progress),
            checkpoint,
        }
    }

    fn strategy(&self) -> Result<Option<Strategy>, String> {
        let (num_zeros, num_ones) = self.cycle;
        if matches!(self.strategy, StrategyArg::Auto | StrategyArg::Tune) && self.dynamic_work {
            return Err(
                "--strategy auto and tune weigh dynamic work assignment themselves: drop --dynamic-work"
                    .into(),
            );
        }
        if let Some(id) = self.strategy_id {
            return Ok(Some(id));
        }
        // `--dynamic-work` deals the lanes' photons from the block's counter under any of the
        // loop's schedules: the strategy's assignment, composed with its path schedule.
        let items = if self.dynamic_work {
            Assignment::Dynamic
        } else {
            Assignment::Static
        };
        if self.dynamic_work && self.strategy == StrategyArg::Scalar {
            return Err("--dynamic-work needs a warp strategy, not --strategy scalar".into());
        }
        Ok(match self.strategy {
            StrategyArg::Scalar => None,
            // Resolved per run by `auto_strategy` / `tuned_strategy`; the baseline stands in
            // for the checks.
            StrategyArg::Auto | StrategyArg::Tune => Some(Strategy::BASELINE),
            StrategyArg::Baseline => Some(Strategy::BASELINE.over(items)),
            StrategyArg::Dynamic => Some(Strategy::DYNAMIC_WORK_ASSIGNMENT),
            StrategyArg::GridDynamic => Some(Strategy::GRID_WIDE_DYNAMIC_WORK),
            StrategyArg::BranchDistribution => Some(Strategy::BRANCH_DISTRIBUTION.over(items)),
            StrategyArg::CostBalanced => {
                Some(Strategy::iteration_delaying(Decision::CostBalanced).over(items))
            }
            StrategyArg::BranchDistributionCostBalanced => Some(
                Strategy::branch_distribution_with_delaying(Decision::CostBalanced)
                    .over(Assignment::Dynamic),
            ),
            StrategyArg::MajorityVote => Some(
                Strategy::iteration_delaying(Decision::MajorityVote {
                    threshold: self.threshold,
                    stop_when_a_lane_finishes: true,
                })
                .over(items),
            ),
            StrategyArg::RoundRobin | StrategyArg::RoundRobinIdleRemoval => Some(
                Strategy::iteration_delaying(Decision::RoundRobin {
                    num_zeros,
                    num_ones,
                    remove_idle: self.strategy == StrategyArg::RoundRobinIdleRemoval,
                })
                .over(items),
            ),
        })
    }
}

type DynError = Box<dyn std::error::Error + Send + Sync>;

/// Says how much of a run came from its checkpoint.
fn report_resumed(photons: u64) {
    if photons > 0 {
        println!("  resumed from the checkpoint after {photons} photons");
    }
}

/// Runs one planned run with the chosen strategy; returns MCML's result and the SIMD
/// efficiency.
fn simulate<F: McmlFloat>(
    args: &Args,
    run: &PlannedRun,
    progress: &(dyn Fn(u64) + Sync),
    clock: &PhaseClock,
) -> Result<(RunResult, Option<f64>), DynError> {
    let photons = run.input.photons;
    match args.strategy()? {
        None if args.checkpoint.is_some() => Err(
            "--checkpoint needs a warp strategy: the scalar loop (--strategy scalar) keeps none"
                .into(),
        ),
        None => Ok((
            run_streams::<F>(&run.input, photons, run.streams, Some(progress))?,
            None,
        )),
        Some(strategy) => {
            use reconverge_transforms::Kernel;
            use reconverge_workloads::mcml::McmlKernel;
            let launch = Launch::new(args.threads_per_block(), args.blocks.unwrap_or(64))?;
            let cpu = CpuBackend::new();
            let candidates = <McmlKernel<f32> as Kernel>::STRATEGIES;
            let strategy = match args.strategy {
                StrategyArg::Auto => auto_strategy(run, candidates)?,
                StrategyArg::Tune => {
                    tuned_strategy::<F, _>(&cpu, run, candidates, |_, _| Ok(launch))?
                }
                _ => strategy,
            };
            let out = run_on_backend_streams::<F, _>(
                &cpu,
                &run.input,
                photons,
                run.streams,
                strategy,
                launch,
                &args.run_options(run, progress),
            )?;
            report_resumed(out.resumed_photons);
            clock.part(
                format!("{} backend calls (parallel passes)", out.batches),
                out.backend_time,
            );
            Ok((out.result, out.counters.map(|c| c.simd_efficiency())))
        }
    }
}

/// A run's name in the header: its `.mco` where one is written (a file's run, or `--output`),
/// with the built-in's name beside it; the built-in's name alone when nothing is written.
fn run_label(from_file: bool, run: &RunInput, builtin: &str, output: bool) -> String {
    match (from_file, output) {
        (true, _) => run.output_file.clone(),
        (false, true) => format!("{} ({builtin}, built-in)", run.output_file),
        (false, false) => format!("{builtin} (built-in)"),
    }
}

/// What a warp strategy's SIMD efficiency means, for a reader who knows MCML and not GPUs.
fn warp_note(efficiency: f64, strategy: &str) -> String {
    format!(
        "warps ({strategy}, emulated on the CPU): {:.1} % of the lanes' steps did photon work (SIMD efficiency; the rest waited for other photons of their warp of 32)",
        100.0 * efficiency
    )
}

fn threads_label(n: usize) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

/// The process's phases for `--timings`: each `lap` names the time since the one before.
struct PhaseClock {
    last: Cell<std::time::Instant>,
    laps: RefCell<Vec<(String, Duration)>>,
    /// Parts of the current phase, printed under it.
    parts: RefCell<Vec<(String, Duration)>>,
}

impl PhaseClock {
    fn new() -> Self {
        Self {
            last: Cell::new(std::time::Instant::now()),
            laps: RefCell::new(Vec::new()),
            parts: RefCell::new(Vec::new()),
        }
    }

    /// Records the time since the last lap as `what`.
    fn lap(&self, what: impl Into<String>) {
        let now = std::time::Instant::now();
        let took = now - self.last.replace(now);
        let mut laps = self.laps.borrow_mut();
        laps.push((what.into(), took));
        laps.extend(
            self.parts
                .borrow_mut()
                .drain(..)
                .map(|(w, t)| (format!("  {w}"), t)),
        );
    }

    /// Records `took` as a part of the current phase, printed under it.
    fn part(&self, what: impl Into<String>, took: Duration) {
        self.parts.borrow_mut().push((what.into(), took));
    }

    fn print(&self) {
        println!("timings:");
        for (what, took) in self.laps.borrow().iter() {
            println!("  {:>8.3} s  {what}", took.as_secs_f64());
        }
    }
}

/// The `mcml` program: parses the process's arguments, runs, and returns the exit status
/// (failure, with the error on stderr, on bad input or a failed run).
pub fn main() -> ExitCode {
    match real_main(Args::parse().resolved()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main(args: Args) -> Result<(), DynError> {
    let clock = PhaseClock::new();
    // Under `mpirun -np N` (feature `mpi`) each process runs its share of every run's photons
    // (`distributed::share`) and rank 0 sums the tallies, reports and writes the `.mco`:
    // the same file, bit for bit, as one process.
    #[cfg(feature = "mpi")]
    let universe = mpi::initialize();
    #[cfg(feature = "mpi")]
    let (rank, ranks) = universe.as_ref().map_or((0, 1), |u| {
        use mpi::traits::Communicator;
        let w = u.world();
        (w.rank().unsigned_abs(), w.size().unsigned_abs())
    });
    #[cfg(not(feature = "mpi"))]
    let (rank, ranks) = (0u32, 1u32);
    let root = rank == 0;
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
    if root {
        for (k, run) in runs.iter().enumerate() {
            for w in run.warnings() {
                eprintln!("warning: {source}, run {}: {w}", k + 1);
            }
        }
    }
    let f64 = args.f64;
    if args.backend == BackendArg::Cuda && f64 {
        return Err("--backend cuda runs MCML in f32 only: drop --f64".into());
    }
    // Everything that can be refused is refused here, before the first photon.
    args.strategy()?;
    if args.backend == BackendArg::Cpu && args.devices.trim() != "0" {
        return Err("--devices picks GPUs: it needs --backend cuda".into());
    }
    if args.backend == BackendArg::Cpu && args.tally_copies.is_some() {
        return Err("--tally-copies sets the GPU's tally copies: it needs --backend cuda".into());
    }
    if let Some(blocks) = args.blocks {
        check_launch(args.threads_per_block(), blocks)?;
    }
    check_beams(&args, from_file)?;
    let mut runs = runs;
    for (k, run) in runs.iter_mut().enumerate() {
        run.beam = args.beam;
        if args.beam != Beam::Pencil {
            let checked = if f64 {
                run.params::<f64>().map(drop)
            } else {
                run.params::<f32>().map(drop)
            };
            checked.map_err(|e| format!("--beam {}, run {}: {e}", beam_label(args.beam), k + 1))?;
        }
    }
    let options = PlanOptions {
        source: source.clone(),
        photons: args.photons,
        seed: args.seed,
        // Only rank 0 writes (and checks) output files.
        write_outputs: from_file && root,
        output: args.output.clone().filter(|_| root),
    };
    let fast_math = args.fast_math;
    let planned = if f64 {
        plan::<f64>(&runs, &options)?
    } else {
        plan::<f32>(&runs, &options)?
    };
    clock.lap("read and check the input and the output paths");
    // The pictures' files, checked like the .mco files: before the first photon.
    let plot_dir = args.plot.as_ref().filter(|_| root);
    if let Some(dir) = plot_dir {
        let stems: Vec<String> = planned
            .iter()
            .flat_map(|p| {
                let stem = plot_stem(&p.input.output_file);
                let convolved: Vec<String> = args
                    .convolve
                    .iter()
                    .map(|&b| convolved_stem(&stem, b))
                    .collect();
                std::iter::once(stem).chain(convolved)
            })
            .collect();
        check_plot_files(dir, &stems)?;
    }
    // A run whose pictures fail keeps its .mco and the runs after it go on; the error is
    // returned at the end.
    let plot_failed: RefCell<Option<String>> = RefCell::new(None);
    let threads = rayon::current_num_threads();
    // Set by the simulation of a run and read by its report.
    let simd_of_last: Cell<Option<f64>> = Cell::new(None);
    let on_gpu: RefCell<Option<String>> = RefCell::new(None);
    let simulate_one = |whole: &PlannedRun| -> Result<RunResult, DynError> {
        let (input, streams) = share_of_run(&whole.input, whole.streams, rank, ranks);
        let share = PlannedRun {
            input,
            streams,
            output: None,
        };
        let run = &share;
        let name = run_label(
            from_file,
            &whole.input,
            &args.builtin,
            args.output.is_some(),
        );
        if ranks > 1 && root {
            println!(
                "{name}: {} photons over {ranks} processes (mpirun); rank 0's share:",
                whole.input.photons
            );
        }
        if root {
            let beam = match run.input.beam {
                Beam::Pencil => String::new(),
                b => format!(", {} beam sampled", beam_label(b)),
            };
            println!(
                "{name}: {} layer{}, {} photons, {}, seed {} (first stream {}){beam}",
                run.input.layers.len(),
                if run.input.layers.len() == 1 { "" } else { "s" },
                run.input.photons,
                if f64 {
                    "f64"
                } else if fast_math {
                    "f32 fast math (approximate on the GPU)"
                } else {
                    "f32"
                },
                run.streams.seed,
                run.streams.first_photon,
            );
        }
        let bar = if root {
            ProgressBar::new(run.input.photons)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} photons  {per_sec}  eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let progress = |done: u64| bar.set_position(done);
        let out = match args.backend {
            BackendArg::Cpu if f64 => simulate::<f64>(&args, run, &progress, &clock),
            // FastF32 off the GPU is f32 bit for bit.
            BackendArg::Cpu if fast_math => simulate::<FastF32>(&args, run, &progress, &clock),
            BackendArg::Cpu => simulate::<f32>(&args, run, &progress, &clock),
            #[cfg(feature = "cuda")]
            BackendArg::Cuda => if fast_math {
                simulate_cuda::<FastF32>(&args, run, &progress, &clock)
            } else {
                simulate_cuda::<f32>(&args, run, &progress, &clock)
            }
            .map(|(result, device)| {
                *on_gpu.borrow_mut() = Some(device);
                (result, None)
            }),
            #[cfg(not(feature = "cuda"))]
            BackendArg::Cuda => Err(
                "--backend cuda: this binary was built without feature `cuda` (cargo run --features cuda ...)".into(),
            ),
        };
        bar.finish_and_clear();
        clock.lap(format!("simulate {name}"));
        #[cfg(feature = "mpi")]
        if ranks > 1 {
            use mpi::traits::Communicator;
            let Some(world) = universe.as_ref().map(|u| u.world()) else {
                return Err("MPI is not initialised".into());
            };
            let (part, simd) = match out {
                Ok(part) => part,
                Err(e) => {
                    // The other processes wait for this one's tallies: stop them all.
                    eprintln!("error on MPI rank {rank}: {e}");
                    world.abort(2)
                }
            };
            simd_of_last.set(simd);
            return Ok(combine(&world, &whole.input, &part).unwrap_or(part));
        }
        let (result, simd) = out?;
        simd_of_last.set(simd);
        Ok(result)
    };
    let convolve_failed: RefCell<Option<String>> = RefCell::new(None);
    let report = |_: &PlannedRun, result: &RunResult, written: Option<&std::path::Path>| {
        if let Some(path) = written {
            clock.lap(format!("write {}", path.display()));
        }
        if !root {
            return;
        }
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
            let strategy = match args.strategy_id {
                Some(id) => id.id().to_string(),
                None => format!("{:?}", args.strategy),
            };
            println!("  {}", warp_note(eff, &strategy));
        }
        let mut convolved = Vec::new();
        if let Some(path) = written {
            println!("  wrote {}", path.display());
            match write_convolutions(&args, result, path) {
                Ok(c) => convolved = c,
                Err(e) => {
                    convolve_failed.borrow_mut().get_or_insert(e);
                }
            }
        }
        if let Some(dir) = plot_dir {
            let stem = plot_stem(&result.input.output_file);
            let mco = McoFile::from_result(result);
            let scale = match args.plot_scale {
                ScaleArg::Log => Scale::Log,
                ScaleArg::Linear => Scale::Linear,
            };
            let mut pictures = vec![(stem.clone(), RunPlots::new(&mco, &source))];
            for response in &convolved {
                let plots = RunPlots::convolved(&mco, response, &source, interpolation(&args));
                pictures.push((convolved_stem(&stem, response.beam), plots));
            }
            for (stem, plots) in pictures {
                match write_plots(&plots.with_scale(scale), dir, &stem) {
                    Ok(_) => println!(
                        "  drew {}: Rd(r), Tt(r), A(z), fluence (SVG and PNG)",
                        dir.join(format!("{stem}-*")).display()
                    ),
                    Err(e) => {
                        eprintln!("  error: {e}");
                        plot_failed.borrow_mut().get_or_insert(e.to_string());
                    }
                }
            }
        }
        // Here, not after the last run: a run's pictures and convolutions are made before the
        // next run starts, and would otherwise count as its simulation.
        clock.lap("report, convolutions, pictures");
    };
    let ran = run_planned(&planned, simulate_one, report);
    if args.timings && root {
        clock.print();
    }
    ran?;
    match convolve_failed.into_inner().or(plot_failed.into_inner()) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// `--beam` and `--convolve` together: refused before any photon where they cannot work.
fn check_beams(args: &Args, from_file: bool) -> Result<(), String> {
    if args.convolve.is_empty() {
        return Ok(());
    }
    if args.beam != Beam::Pencil {
        return Err(format!(
            "--convolve needs the pencil beam's responses: drop --beam {} (or run twice)",
            beam_label(args.beam)
        ));
    }
    if args.convolve.contains(&Beam::Pencil) {
        return Err(
            "--convolve pencil: the pencil beam is the run itself; choose gaussian:R or flat:R"
                .into(),
        );
    }
    if !from_file && args.output.is_none() {
        return Err(
            "--convolve writes next to the .mco: give --output FILE.mco (or --input)".into(),
        );
    }
    Ok(())
}

/// A bin width in cm: finite and > 0.
fn parse_width(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(w) if w.is_finite() && w > 0.0 => Ok(w),
        Ok(w) => Err(format!("{w} cm: a bin width must be finite and > 0")),
        Err(_) => Err(format!("{text:?} is not a number of cm")),
    }
}

/// A `--convolve` beam's tag in file names: `flat_0.1cm`.
fn beam_tag(beam: Beam) -> String {
    beam_label(beam).replace(':', "_") + "cm"
}

/// The stem of a `--convolve` beam's pictures beside the run's: `STEM.flat_0.1cm`.
fn convolved_stem(stem: &str, beam: Beam) -> String {
    format!("{stem}.{}", beam_tag(beam))
}

fn interpolation(args: &Args) -> Interpolation {
    match args.convolve_interpolation {
        InterpolationArg::Conv => Interpolation::Conv,
        InterpolationArg::Bins => Interpolation::Bins,
    }
}

/// `--convolve`: each beam's responses from `result`, written next to its `.mco` at `mco`
/// (`<stem>.<kind>_<R>cm.Rrc` etc.); says what it wrote and returns the responses.
fn write_convolutions(
    args: &Args,
    result: &RunResult,
    mco: &std::path::Path,
) -> Result<Vec<reconverge_mcml::finite_beam::BeamResponse>, String> {
    let g = result.input.grid;
    let output_grid = match (args.convolve_dr, args.convolve_nr) {
        (None, None) => None,
        (dr, nr) => {
            let dr = dr.unwrap_or(g.dr);
            // The run's extent at the new width; a refused width is the convolution's to say.
            let cover = (f64::from(g.nr) * g.dr / dr).round();
            let nr = nr.unwrap_or(if cover.is_finite() && cover >= 1.0 {
                cover.min(f64::from(u32::MAX)) as u32
            } else {
                1
            });
            Some((dr, nr))
        }
    };
    let options = ConvolveOptions {
        interpolation: interpolation(args),
        output_grid,
        ..ConvolveOptions::default()
    };
    let mut responses = Vec::new();
    let dir = mco.parent().unwrap_or(std::path::Path::new("."));
    let stem = mco
        .file_stem()
        .map_or_else(|| "mcml".into(), |s| s.to_string_lossy().into_owned());
    for &beam in &args.convolve {
        let response = convolve_result(result, beam, &options).map_err(|e| e.to_string())?;
        let tag = beam_tag(beam);
        let how = format!(
            "convolved from the pencil-beam responses of {} ({} photons), {:?} interpolation",
            mco.display(),
            result.photons,
            options.interpolation
        );
        let files = write_conv_files(&response, dir, &format!("{stem}.{tag}"), &how)
            .map_err(|e| format!("--convolve {}: {e}", beam_label(beam)))?;
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        println!(
            "  {} beam (convolved): wrote {}",
            beam_label(beam),
            names.join(", ")
        );
        responses.push(response);
    }
    Ok(responses)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--plot` into a file that is not a folder fails before the first photon: a run of 10^12
    /// photons returns at once.
    #[test]
    fn plot_folders_are_refused_before_any_photon() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let bad = file.to_str().unwrap();
        let args = parse(&["--photons", "1000000000000", "--plot", bad]).unwrap();
        let err = real_main(args).unwrap_err().to_string();
        assert!(err.contains("not a folder"), "{err}");
        assert_eq!(
            parse(&["--plot", "pics"]).unwrap().plot,
            Some(PathBuf::from("pics"))
        );
    }

    /// `--output` names everything of the run: the `.mco`, its InParm output name (read back
    /// with the `.mco` reader) and the pictures; a second run drawn into the same folder under
    /// another `--output` keeps the first run's pictures.
    #[test]
    fn output_names_the_mco_its_inparm_and_the_pictures() {
        let dir = tempfile::tempdir().unwrap();
        let pics = dir.path().join("pics");
        let mco = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
        for (name, beam) in [("pencil.mco", "pencil"), ("flat.mco", "flat:0.1")] {
            let out = mco(name);
            let mut argv = vec![
                "--builtin",
                "vandehulst",
                "--photons",
                "300",
                "--beam",
                beam,
                "--output",
                &out,
                "--plot",
                pics.to_str().unwrap(),
            ];
            if beam == "pencil" {
                argv.extend(["--convolve", "flat:0.1"]);
            }
            real_main(parse(&argv).unwrap()).unwrap();
        }
        let read =
            reconverge_mcml::mco_file::read_mco(std::path::Path::new(&mco("flat.mco"))).unwrap();
        assert_eq!(read.input.output_file, mco("flat.mco"));
        // A blank in the name would split MCML's InParm line: it is written as `_` there and
        // in the pictures' names, the file keeps its name.
        let spaced = mco("two words.mco");
        real_main(
            parse(&[
                "--builtin",
                "vandehulst",
                "--photons",
                "100",
                "--output",
                &spaced,
                "--plot",
                pics.to_str().unwrap(),
            ])
            .unwrap(),
        )
        .unwrap();
        let read = reconverge_mcml::mco_file::read_mco(std::path::Path::new(&spaced)).unwrap();
        assert_eq!(read.input.output_file, mco("two_words.mco"));
        let mut drawn: Vec<String> = std::fs::read_dir(&pics)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        drawn.sort();
        for stem in ["pencil", "flat", "pencil.flat_0.1cm", "two_words"] {
            for p in reconverge_mcml::plot::PICTURES {
                for ext in ["svg", "png"] {
                    let f = format!("{stem}-{p}.{ext}");
                    assert!(drawn.contains(&f), "{f} missing from {drawn:?}");
                }
            }
        }
        assert!(
            drawn.iter().all(|f| !f.starts_with("vandehulst")),
            "{drawn:?}"
        );
        // Each picture's caption names its beam and how its responses were made.
        for (stem, words) in [
            ("pencil", "pencil beam"),
            ("flat", "flat beam, radius 0.1 cm (flat:0.1), sampled"),
            (
                "pencil.flat_0.1cm",
                "flat beam, radius 0.1 cm (flat:0.1), convolved",
            ),
        ] {
            for p in reconverge_mcml::plot::PICTURES {
                let svg = std::fs::read_to_string(pics.join(format!("{stem}-{p}.svg"))).unwrap();
                assert!(svg.contains(words), "{stem}-{p}.svg does not say {words:?}");
            }
        }
    }

    /// `--convolve-dr` sets the convolution's output grid: a pencil run on 50 bins of 0.01 cm
    /// convolved onto bins of 0.02 cm writes 25 radii, at 0.01, 0.03, ... cm; a width that is
    /// not finite and > 0, or no bins, is refused while parsing.
    #[test]
    fn convolve_dr_sets_the_output_grid() {
        let dir = tempfile::tempdir().unwrap();
        let mco = dir.path().join("p.mco");
        let run = |dr: &str| {
            real_main(
                parse(&[
                    "--builtin",
                    "vandehulst",
                    "--photons",
                    "200",
                    "--output",
                    mco.to_str().unwrap(),
                    "--convolve",
                    "flat:0.1",
                    "--convolve-dr",
                    dr,
                ])
                .unwrap(),
            )
        };
        run("0.02").unwrap();
        let text = std::fs::read_to_string(dir.path().join("p.flat_0.1cm.Rrc")).unwrap();
        let radii: Vec<f64> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        let input = reconverge_mcml::builtin::van_de_hulst().grid;
        assert_eq!((input.dr, input.nr), (0.01, 50));
        assert_eq!(radii.len(), 25);
        assert!((radii[1] - 0.03).abs() < 1e-9, "{radii:?}");
        for bad in [
            "--convolve-dr=0",
            "--convolve-dr=-1",
            "--convolve-dr=inf",
            "--convolve-nr=0",
        ] {
            assert!(parse(&["--convolve", "flat:0.1", bad]).is_err(), "{bad}");
        }
        assert!(
            parse(&["--convolve-dr", "0.02"]).is_err(),
            "needs --convolve"
        );
    }

    /// `--timings`: the phases follow one another (their sum is the time since the clock
    /// started, to the rounding of `Instant`), and a phase's parts are listed under it.
    #[test]
    fn phase_clock_laps_add_up_and_parts_go_under_their_phase() {
        let clock = PhaseClock::new();
        let started = std::time::Instant::now();
        std::thread::sleep(Duration::from_millis(5));
        clock.lap("first");
        clock.part("inside second", Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        clock.lap("second");
        let total = started.elapsed();
        let laps = clock.laps.borrow();
        let names: Vec<&str> = laps.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(names, ["first", "second", "  inside second"]);
        let phases: Duration = laps
            .iter()
            .filter(|(w, _)| !w.starts_with(' '))
            .map(|l| l.1)
            .sum();
        assert!(phases >= Duration::from_millis(10), "{phases:?}");
        assert!(
            phases <= total + Duration::from_millis(1),
            "{phases:?} > {total:?}"
        );
    }

    /// `--fast-math`'s help names every strategy with a fast-math entry point, as a user types
    /// it (`--strategy` with or without `--dynamic-work`, else `--strategy-id`), and no other:
    /// the list is written by hand in the help and drifted from the entry list once.
    #[test]
    fn fast_math_help_names_exactly_the_fast_math_entry_points() {
        use clap::{CommandFactory, ValueEnum};
        use reconverge_workloads::gpu_entries::MCML_FAST_MATH_STRATEGIES;
        let help = Args::command()
            .get_arguments()
            .find(|a| a.get_id() == "fast_math")
            .and_then(|a| a.get_long_help().or(a.get_help()))
            .expect("--fast-math has help")
            .to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        // What each `--strategy` value (with and without `--dynamic-work`) runs on the GPU.
        let mut named = Vec::new();
        for value in StrategyArg::value_variants() {
            let name = value
                .to_possible_value()
                .expect("a value")
                .get_name()
                .to_string();
            for dynamic in [false, true] {
                let mut argv = vec!["--backend", "cuda", "--strategy", &name];
                if dynamic {
                    argv.push("--dynamic-work");
                }
                if let Ok(Ok(Some(strategy))) = parse(&argv).map(|a| a.strategy()) {
                    let typed = if dynamic {
                        format!("{name} --dynamic-work")
                    } else {
                        name.clone()
                    };
                    named.push((strategy, typed));
                }
            }
        }
        for strategy in MCML_FAST_MATH_STRATEGIES {
            let id = strategy.id().to_string();
            let mut forms = named.iter().filter(|(s, _)| s == strategy).map(|(_, t)| t);
            assert!(
                forms.any(|t| help.contains(t.as_str())) || help.contains(&id),
                "--fast-math's help does not name {id}"
            );
        }
        // The other way: each `--strategy` value the help lists (with `--dynamic-work` where it
        // says so) has a fast-math entry point.
        let listed = help
            .split("entry points exist for")
            .nth(1)
            .and_then(|rest| rest.split(". ").next())
            .expect("the help lists the entry points");
        for (strategy, typed) in &named {
            let word = typed.split(' ').next().unwrap_or_default();
            let mentioned = listed.split([',', ' ']).any(|w| w == word);
            let with_dynamic = listed.contains(&format!("{word} --dynamic-work"));
            if mentioned && typed.contains(' ') == with_dynamic {
                assert!(
                    MCML_FAST_MATH_STRATEGIES.contains(strategy),
                    "--fast-math's help names {typed}, which has no fast-math entry point"
                );
            }
        }
    }

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("mcml").chain(args.iter().copied()))
            .map(Args::resolved)
    }

    #[test]
    fn the_main_job_runs_in_f32_as_the_readme_quotes() {
        let a = parse(&[]).unwrap();
        assert!(!a.f64, "the default is f32");
        assert!(!parse(&["--f32"]).unwrap().f64, "--f32 is still accepted");
        assert!(parse(&["--f64"]).unwrap().f64);
        assert!(parse(&["--f32", "--f64"]).is_err());
    }

    /// `--strategy-id` runs any strategy by the id the advisor prints, with its numbers; a text
    /// that is no id is refused with what it lacked, and it cannot be given with `--strategy`.
    #[test]
    fn a_strategy_id_runs_the_strategy_it_names() {
        use reconverge_transforms::{Assignment, Decision, Strategy};
        let vote = Strategy::iteration_delaying(Decision::majority_vote(8, true));
        for strategy in [
            vote,
            vote.over(Assignment::Dynamic),
            Strategy::GRID_WIDE_DYNAMIC_WORK,
        ] {
            let id = strategy.id().to_string();
            let args = parse(&["--strategy-id", &id]).unwrap();
            assert_eq!(args.strategy().unwrap(), Some(strategy), "{id}");
        }
        let bad = parse(&["--strategy-id", "delaying-majority-vote"]).unwrap_err();
        assert!(bad.to_string().contains("expected"), "{bad}");
        assert!(parse(&["--strategy-id", "baseline", "--strategy", "dynamic"]).is_err());
    }

    /// The CPU's default is the plain loop (measured the fastest there, scripts/main-job-timing.sh)
    /// and the GPU's the plain loop over one grid-wide counter (the fastest there, the MCML
    /// page), both the same as the Python package's.
    #[test]
    fn the_default_strategy_is_the_plain_loop_on_the_cpu_and_the_grid_wide_loop_on_the_gpu() {
        assert_eq!(parse(&[]).unwrap().strategy, StrategyArg::Scalar);
        assert_eq!(parse(&[]).unwrap().strategy().unwrap(), None);
        let gpu = parse(&["--backend", "cuda"]).unwrap();
        assert_eq!(gpu.strategy, StrategyArg::GridDynamic);
        assert_eq!(
            gpu.strategy().unwrap(),
            Some(reconverge_transforms::Strategy::GRID_WIDE_DYNAMIC_WORK)
        );
        let given = parse(&["--strategy", "dynamic"]).unwrap();
        assert_eq!(given.strategy, StrategyArg::Dynamic);
    }

    #[test]
    fn fast_math_is_f32_only() {
        assert!(parse(&["--fast-math"]).unwrap().fast_math);
        assert!(parse(&["--fast-math", "--f32"]).is_ok());
        assert!(parse(&["--fast-math", "--f64"]).is_err());
    }

    #[test]
    fn header_names_no_file_for_a_built_in_and_counts_threads_in_english() {
        let skin = reconverge_mcml::builtin::skin();
        assert_eq!(run_label(false, &skin, "skin", false), "skin (built-in)");
        assert_eq!(run_label(true, &skin, "skin", false), "skin.mco");
        assert_eq!(threads_label(1), "1 thread");
        assert_eq!(threads_label(2), "2 threads");
    }

    #[test]
    fn devices_name_existing_gpus_once() {
        let devices = |d: &str, count| parse(&["--devices", d]).unwrap().device_ordinals(count);
        assert_eq!(devices("all", 2), Ok(vec![0, 1]));
        assert_eq!(devices("1, 0", 2), Ok(vec![1, 0]));
        assert!(devices("0,2", 2).unwrap_err().contains("no GPU 2"));
        assert!(devices("0,0", 2).is_err());
        assert!(devices("all", 0).is_err());
        assert!(devices("gpu0", 2).is_err());
    }

    /// `--strategy auto` picks one of MCML's strategies from the advisor, and on the skin
    /// model not the baseline: dynamic work assignment's gain is large there (1.25x on an
    /// H100, docs/results/mcml).
    #[test]
    fn auto_picks_a_listed_strategy_that_beats_the_baseline_on_skin() {
        use reconverge_transforms::Kernel;
        use reconverge_workloads::mcml::McmlKernel;
        let mut input = reconverge_mcml::builtin::skin();
        input.photons = 512;
        let run = PlannedRun {
            input,
            streams: reconverge_mcml::Streams::new(1),
            output: None,
        };
        let list = <McmlKernel<f32> as Kernel>::STRATEGIES;
        let pick = auto_strategy(&run, list).unwrap();
        assert!(list.contains(&pick));
        assert_ne!(pick, Strategy::BASELINE);
        assert!(
            parse(&["--strategy", "auto", "--dynamic-work"])
                .unwrap()
                .strategy()
                .is_err()
        );
    }

    #[test]
    fn beams_parse_and_convolution_needs_a_pencil_run_with_an_mco() {
        let a = parse(&["--beam", "gaussian:0.1"]).unwrap();
        assert_eq!(a.beam, Beam::Gaussian { radius: 0.1 });
        assert_eq!(parse(&[]).unwrap().beam, Beam::Pencil);
        assert!(parse(&["--beam", "flat:-1"]).is_err());
        assert!(parse(&["--beam", "disk:1"]).is_err());
        let c = parse(&["--convolve", "flat:0.2", "--convolve", "gaussian:0.1"]).unwrap();
        assert_eq!(c.convolve.len(), 2);
        assert!(check_beams(&c, false).is_err(), "no .mco to write next to");
        let c = parse(&["--convolve", "flat:0.2", "--output", "x.mco"]).unwrap();
        assert!(check_beams(&c, false).is_ok());
        let both = parse(&[
            "--convolve",
            "flat:0.2",
            "--beam",
            "flat:0.2",
            "--output",
            "x.mco",
        ]);
        assert!(check_beams(&both.unwrap(), false).is_err());
        let pencil = parse(&["--convolve", "pencil", "--output", "x.mco"]).unwrap();
        assert!(check_beams(&pencil, false).is_err());
    }

    #[test]
    fn bad_values_are_refused_while_parsing_arguments() {
        assert!(parse(&["--threshold", "100"]).is_err());
        assert!(parse(&["--cycle", "0:0"]).is_err());
        let a = parse(&["--cycle", "3:1", "--threshold", "8"]).unwrap();
        assert_eq!((a.cycle, a.threshold), ((3, 1), 8));
    }
}
