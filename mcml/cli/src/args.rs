//! The command line: `Args` (clap), its choices and the checks made before any photon.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use reconverge_mcml::batch::{PlannedRun, parse_cycle, parse_threshold};
use reconverge_mcml::checkpoint::CheckpointPolicy;
use reconverge_mcml::finite_beam::{Beam, parse_beam};
use reconverge_mcml::{Batching, RunOptions};
use reconverge_transforms::{Assignment, Decision, Strategy};

/// Where the warps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum BackendArg {
    /// The rayon CPU backend, warps emulated in lockstep (with SIMD efficiency).
    Cpu,
    /// The CUDA backend on GPU 0 (feature `cuda`; f32 only).
    Cuda,
}

/// How `--convolve` takes the impulse response between bin centres.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InterpolationArg {
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
pub(crate) enum ScaleArg {
    /// Log y axis and log colour scale.
    Log,
    /// Linear, from 0.
    Linear,
}

/// The ways to run the photon loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum StrategyArg {
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

#[derive(Parser, Debug)]
#[command(
    name = "mcml",
    version,
    about = "MCML photon transport in multi-layered media: .mci in, .mco out (CPU, or CUDA with feature `cuda`)"
)]
pub(crate) struct Args {
    /// An MCML .mci input file (all of its runs are simulated).
    #[arg(long, conflicts_with = "builtin")]
    pub(crate) input: Option<PathBuf>,
    /// A built-in input: skin, slab, vandehulst or giovanelli.
    #[arg(long, default_value = "skin")]
    pub(crate) builtin: String,
    /// Photons per run (overrides the input's count).
    #[arg(long)]
    pub(crate) photons: Option<u64>,
    /// Seed of the photon streams.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Write the .mco here (single-run inputs; an .mci's runs otherwise go to their own names).
    #[arg(long)]
    pub(crate) output: Option<PathBuf>,
    /// Run in f64 (the default is f32, as on the GPU).
    #[arg(long, conflicts_with = "f32")]
    pub(crate) f64: bool,
    /// Run in f32 (the default; kept for older command lines).
    #[arg(long)]
    pub(crate) f32: bool,
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
    pub(crate) fast_math: bool,
    /// How the photon loop runs. Default: `scalar` on the CPU, MCML's own loop (one photon
    /// after another on each core), the fastest there; `grid-dynamic` on `--backend cuda`,
    /// each thread's photon loop over one grid-wide counter, the fastest there (with
    /// `--fast-math` too). The others run it in warps of 32 lanes (emulated in lockstep on the
    /// CPU), to study the divergence strategies.
    #[arg(long = "strategy", value_enum, value_name = "STRATEGY")]
    pub(crate) strategy_given: Option<StrategyArg>,
    /// Any strategy by its id, with its numbers (`delaying-majority-vote-8-stop-dynamic`,
    /// `branch-distribution-grid-wide`: the ids the advisor's tables print and
    /// `reconverge_transforms::Strategy` parses), instead of `--strategy`. On the GPU it runs
    /// where the MCML kernels have an entry point for it; elsewhere the run says none does.
    #[arg(long, value_name = "ID", value_parser = parse_strategy_id, conflicts_with_all = ["strategy_given", "dynamic_work"])]
    pub(crate) strategy_id: Option<Strategy>,
    /// `--strategy`, or the backend's default (set by [`Args::resolved`]).
    #[arg(skip = StrategyArg::Scalar)]
    pub(crate) strategy: StrategyArg,
    /// Feed the lanes by dynamic work assignment under a branch strategy (majority-vote,
    /// round-robin*, cost-balanced, branch-distribution): seed 002's MCML setting.
    #[arg(long)]
    pub(crate) dynamic_work: bool,
    /// Majority vote's threshold (lanes of 32 that must want the boundary path: 1 to 32).
    #[arg(long, default_value = "16", value_parser = parse_threshold)]
    pub(crate) threshold: u32,
    /// Round robin's duty cycle as `num_zeros:num_ones`, both at least 1.
    #[arg(long, default_value = "1:1", value_parser = parse_cycle)]
    pub(crate) cycle: (u32, u32),
    /// Threads per block of the launch: 128 by default on the CPU (emulated); on the GPU, of
    /// 256, 512 and 1024 the size that keeps the most warps resident, the larger on a tie
    /// (`reconverge_mcml::gpu_launch`).
    #[arg(long)]
    pub(crate) threads_per_block: Option<u32>,
    /// Copies of the tally on the GPU (blocks add to copy `block % copies`, added up on the
    /// GPU at the end of each launch): fewer atomics to one hot bin. Default: the CUDA
    /// backend's (`reconverge_gpu::DEFAULT_TALLY_COPIES`, within 32 MiB). The tallies are the
    /// same bit for bit with any number.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub(crate) tally_copies: Option<u32>,
    /// Photons per backend call (GPU launch), 1 to 2^30. Default: adaptive, about one
    /// second per call. The result is the same bit for bit either way.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub(crate) batch_photons: Option<u64>,
    /// Save the run's tallies to FILE while it runs (atomically: a temporary file, then a
    /// rename), and resume from FILE if it exists: a run killed mid-way goes on where it
    /// stopped and writes the same .mco, bit for bit. A damaged checkpoint, or one of another
    /// run, is refused. Runs of a multi-run .mci after the first use FILE.from<N>, N the
    /// stream of their first photon. Warp strategies only (not --strategy scalar).
    #[arg(long, value_name = "FILE")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints (the end of the run is always saved).
    #[arg(long, default_value_t = 60)]
    pub(crate) checkpoint_every: u64,
    /// GPUs of `--backend cuda`: `all`, or ordinals such as `0,1`. Each takes a contiguous
    /// share of the photons; with several, NCCL sums their tallies: the same .mco, bit for
    /// bit, as one GPU.
    #[arg(long, default_value = "0")]
    pub(crate) devices: String,
    /// Blocks of the launch: persistent threads, each running many photons. Default: 64 on
    /// the CPU; on the GPU, as many as are resident at once (SMs x blocks per SM).
    #[arg(long)]
    pub(crate) blocks: Option<u32>,
    /// The backend: cpu, or cuda (GPU 0, needs feature `cuda` and `--f32`).
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) backend: BackendArg,
    /// The incident beam, sampled inside the simulation: gaussian:R (1/e² radius R in cm),
    /// flat:R (radius R in cm) or pencil (MCML's, the default). Each photon enters at a point
    /// drawn from the beam with its own random stream (CPU and GPU stay bit-identical); the
    /// .mco holds the beam's responses per joule and names the beam in a comment.
    #[arg(long, default_value = "pencil", value_parser = parse_beam)]
    pub(crate) beam: Beam,
    /// Also write the responses to this beam (gaussian:R or flat:R, R in cm, 1 J), convolved
    /// from the run's pencil-beam responses as MCML's CONV does, next to the .mco:
    /// <stem>.<beam>.Rrc, .Trc (r, Rd or Tt in J/cm²), .Arzc (r, z, A in J/cm³) and .Frzc (r,
    /// z, fluence in J/cm²). Repeatable; needs a pencil-beam run that writes an .mco.
    #[arg(long, value_parser = parse_beam)]
    pub(crate) convolve: Vec<Beam>,
    /// How --convolve takes the pencil-beam response between bin centres.
    #[arg(long, value_enum, default_value = "conv")]
    pub(crate) convolve_interpolation: InterpolationArg,
    /// The radial bin width (cm) of --convolve's output: by default the run's dr. A pencil run
    /// on a grid finer than the output resolves a flat beam's edge, which the pencil grid's
    /// bins otherwise blur by one bin.
    #[arg(long, value_name = "CM", requires = "convolve", value_parser = parse_width)]
    pub(crate) convolve_dr: Option<f64>,
    /// The radial bins of --convolve's output: by default as many as cover the run's grid
    /// (nr x dr) at --convolve-dr.
    #[arg(long, value_name = "N", requires = "convolve", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) convolve_nr: Option<u32>,
    /// Draw each run's Rd(r), Tt(r), A(z) and fluence map Φ(r, z) (contours; the beam named
    /// in the caption) into DIR as SVG and PNG: DIR/STEM-rd_r.svg, -rd_r.png, -tt_r, -a_z,
    /// -fluence, STEM the run's .mco name without `.mco` (`--output`'s, where given). Each
    /// `--convolve` beam's responses are drawn too, as STEM.<beam>-*. DIR is created if
    /// missing and every file checked before the first photon; the pictures of a run are drawn
    /// as soon as it is done.
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
    /// The pictures' y axis and colour scale: log (the default; every tick labelled) or linear
    /// (from 0).
    #[arg(long, value_enum, default_value = "log", requires = "plot")]
    pub(crate) plot_scale: ScaleArg,
    /// Print where the process's time went when it ends: reading and checking, loading the
    /// GPUs (contexts, modules), each run's simulation (its kernels, and the rest of its
    /// backend calls: buffers, copies), writing the outputs.
    #[arg(long)]
    pub(crate) timings: bool,
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
    pub(crate) fn resolved(mut self) -> Self {
        self.strategy = self.strategy_given.unwrap_or(match self.backend {
            BackendArg::Cpu => StrategyArg::Scalar,
            BackendArg::Cuda => StrategyArg::GridDynamic,
        });
        self
    }

    /// Threads per block: `--threads-per-block`, or the backend's default.
    pub(crate) fn threads_per_block(&self) -> u32 {
        self.threads_per_block.unwrap_or(match self.backend {
            BackendArg::Cpu => 128,
            // What `gpu_launch` picks for MCML's per-thread kernels on an H100; only the
            // checks before the GPU opens read this.
            BackendArg::Cuda => 1024,
        })
    }

    /// The GPU ordinals `--devices` names, given the machine's `count`.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn device_ordinals(&self, count: usize) -> Result<Vec<usize>, String> {
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
    pub(crate) fn run_options<'a>(
        &self,
        run: &PlannedRun,
        progress: &'a dyn Fn(u64),
    ) -> RunOptions<'a> {
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

    pub(crate) fn strategy(&self) -> Result<Option<Strategy>, String> {
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

/// A bin width in cm: finite and > 0.
fn parse_width(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(w) if w.is_finite() && w > 0.0 => Ok(w),
        Ok(w) => Err(format!("{w} cm: a bin width must be finite and > 0")),
        Err(_) => Err(format!("{text:?} is not a number of cm")),
    }
}
