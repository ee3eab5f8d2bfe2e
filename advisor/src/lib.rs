//! Which divergence strategy, and which launch, should I use? An advisor that predicts each
//! (strategy, launch) pair's GPU time from the reference SIMT model and a device calibration,
//! and a tuner that searches strategies' parameters on the model.
//!
//! [`advise`] runs a kernel's baseline and every strategy it lists ([`Kernel::STRATEGIES`], or
//! a list of your own with [`advise_launches`]) on the CPU model, each candidate launch whole
//! or, where it is bigger than the sample's resamples together, on whole multiprocessors'
//! blocks sampled in strata ([`plan`]), the pairs in parallel, and returns an [`Advice`]:
//!
//! - every (strategy, launch) pair ranked by predicted time ([`Ranked`]): block sizes 128, 256
//!   and 512 x one item per thread, one resident wave, four waves; each with its speedup over
//!   the baseline at its default launch, min / median / max over resamples ([`Spread`]);
//! - the baseline's divergence there ([`Divergence`]);
//! - the recommended pair ([`Advice::recommended`], [`recommend`]: the plain kernel at its best
//!   launch unless a strategy beats it in every resample) and a table (`Display`).
//!
//! [`advise_compiled`] does the same over the entry points a user compiled
//! ([`compiled`]): exactly the strategies of their list and the numbers they want tried on the
//! `_any` entry points, with each entry point's registers and loop shape read from the compiled
//! module ([`CompiledModule`]; with feature `cuda`, `GpuModule`: the driver's attributes and
//! the SASS through `cuobjdump`, [`loop_nesting`]).
//!
//! # The model
//!
//! A launch's time is, per kernel launch, the larger of the throughput bound (every warp's
//! issue slots spread over all schedulers) and the schedule's length (each warp's work placed
//! on the GPU's resident-warp slots, blocks in launch order, a block holding its slot until
//! its slowest warp ends: [`schedule`]), plus a per-launch overhead. A warp's work is its issue
//! slots on the model plus the costs the model cannot count, fitted once per device
//! ([`Calibration`]; the committed H100 one is [`Gpu::h100`]). Grid-wide dealing hands out its
//! claims in item order to whichever warp finishes first ([`simulate_dealing`]), and its claims,
//! served one after another, are a third bound at their calibrated time each. So load imbalance across warps, the
//! last wave's tail and too few resident warps show, which issue slots alone cannot. The
//! strategies that run per thread are counted as a GPU compiler makes their plain loop: a
//! factored branch's shared code issued once, and a warp's threads waiting for one another
//! after each item where the compiler nested the item's loop ([`PlainLoop::AsCompiled`],
//! [`CompiledLoops`]).
//! Memory traffic is counted only as the instructions a region declares.
//!
//! # The issue-slot model
//!
//! [`advise_strategies`] is the earlier model, on one fixed launch: time = issue slots divided
//! by occupancy relative to the baseline's (branch splitting's eq. 1, Carrillo et al.), plus
//! [`Options::launch_overhead`] times the baseline's time per extra launch:
//!
//! ```text
//! speedup = T_base / (Σ_launches slots_i · ρ_base / ρ_i  +  extra_launches · overhead · T_base)
//! ```
//!
//! It is kept for the reproduce tool's page (which reports it beside measurements), for
//! [`tune()`] (which searches parameters on it) and for callers that ask it on a fixed launch.
//!
//! [`tune()`] searches one parameterised strategy's parameters ([`Family`]: the majority-vote
//! threshold, the round-robin cycle, items per thread, iterations per pass) with a coarse grid
//! refined around the best point, and [`grid`] evaluates every point, for comparison.
//!
//! # Example
//!
//! ```
//! use reconverge_advisor::{Compiled, Gpu, Sampling, advise_launches};
//! use reconverge_transforms::{ItemLoopKernel, Kernel, Strategy};
//! use reconverge_workloads::synthetic::DynamicWork;
//!
//! // Seed 004's loop with trip counts from 1 to 64: lanes of a warp wait for its longest item.
//! let kernel = ItemLoopKernel(DynamicWork::new(8, 64, 1));
//! // `advise(&kernel, items, &gpu)` does the same with the kernel's own strategy list and the
//! // default sampling; a small sample keeps this doctest quick.
//! let sampling = Sampling { items: 2048, resamples: 2, seed: 1 };
//! let gpu = Gpu::h100()?;
//! let strategies = ItemLoopKernel::<DynamicWork>::STRATEGIES;
//! // Registers and loop shapes unknown: the calibration's defaults (`Compiled` says more).
//! let advice = advise_launches(&kernel, 1 << 18, strategies, &gpu, &sampling, &Compiled::default())?;
//! assert!(advice.baseline.simd_efficiency < 0.7);
//! println!("{advice}");
//! // The baseline is compared at the backend's default: one item per thread.
//! assert_eq!(advice.reference.blocks * advice.reference.threads_per_block, 1 << 18);
//! // Every strategy of the list has a best launch in the ranking.
//! assert!(advice.prediction(&Strategy::DYNAMIC_WORK_ASSIGNMENT).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod accuracy;
pub mod calibrate;
pub mod compiled;
pub mod finalists;
pub mod measured;
pub mod plan;
pub mod profile;
pub mod schedule;
pub mod tune;

use std::fmt;

use reconverge_backend::Launch;
use reconverge_occupancy::{
    ArchLimits, KernelResources, LaunchConfig, OccupancyError, calculate_occupancy,
};
use reconverge_simt::Counters;
use reconverge_transforms::{Kernel, Strategy, StrategyError};

#[cfg(feature = "cuda")]
pub use compiled::GpuModule;
pub use compiled::{
    CompiledAdvice, CompiledModule, EntryFactsError, advise_compiled, compiled_facts,
    compiled_strategies, entry_points_of, flat_loops,
};
pub use finalists::{FINALISTS, advise_within};
pub use measured::{Halving, MeasuredTuning, Timing, backend_time, grid_measured, tune_measured};
pub use plan::{
    Advice, DEFAULT_MODEL_SECONDS, Gpu, Grid, LAUNCH_MARGIN, LaunchTime, MIN_BUDGETED_ITEMS,
    Ranked, Sampling, Spread, advise_launches, candidate_launches, default_launch, launch_time,
    predict_launch, recommend, sample_blocks, sampled_profiles, sampling_within,
    shared_bytes_per_warp,
};
pub use profile::{CompiledLoops, PlainLoop, Profile, Stats, WarpWork, profile, profile_blocks};
/// The SASS loop reader [`advise_compiled`] uses, re-exported so that its answer
/// ([`CompiledAdvice::loops`]) can be printed without another dependency.
pub use reconverge_gpu_build::{LoopNesting, NoCuobjdump, SassError, loop_nesting, loop_table};
pub use schedule::{Calibration, Makespan, simulate, simulate_dealing};
pub use tune::{Family, ParameterGrid, Tuned, grid, parameter_grid, tune};

/// Why the advisor could not answer.
#[derive(Debug, thiserror::Error)]
pub enum AdviseError {
    /// A sample of no items says nothing.
    #[error("the sample has no items")]
    NoItems,
    /// The launch shape is impossible.
    #[error(transparent)]
    Launch(#[from] reconverge_backend::BackendError),
    /// An option is out of range.
    #[error("option {name} = {value} must be {requirement}")]
    InvalidOption {
        /// The option.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it must satisfy.
        requirement: &'static str,
    },
    /// The strategy cannot run on this kernel (or a parameter is out of range).
    #[error("{strategy} on a {shape} workload: {source}")]
    Strategy {
        /// The strategy.
        strategy: Strategy,
        /// The kernel's shape.
        shape: &'static str,
        /// Why.
        source: StrategyError,
    },
    /// A warp ran more steps than [`Options::step_limit`]: a workload that never finishes.
    #[error("{strategy}: warp {warp} of block {block} has not finished after {steps} steps")]
    StepLimit {
        /// The strategy.
        strategy: Strategy,
        /// The block.
        block: u32,
        /// The warp within its block.
        warp: u32,
        /// Steps taken.
        steps: u64,
    },
    /// The registers given cannot launch on the architecture.
    #[error("occupancy of {registers} registers per thread: {source}")]
    Occupancy {
        /// Registers per thread asked for.
        registers: u32,
        /// What the calculator said.
        source: OccupancyError,
    },
    /// A strategy of a compiled list has no compiled entry point for one of its passes.
    #[error(
        "{kernel} has no entry point for pass {pass} of {strategy}: list it in the kernel's gpu_entry_points! (or name a strategy of a technique whose `_any` entry point runs); compiled: {available}"
    )]
    NoEntryPoint {
        /// The kernel type, as its entry list writes it.
        kernel: &'static str,
        /// The strategy.
        strategy: Strategy,
        /// Its pass without an entry point.
        pass: u32,
        /// The entry points that run, by name.
        available: String,
    },
    /// A compiled module could not say an entry point's registers.
    #[error("registers of entry point {entry}: {source}")]
    EntryFacts {
        /// The entry point.
        entry: &'static str,
        /// Why.
        source: compiled::EntryFactsError,
    },
    /// A kernel at these registers fits no block on an SM.
    #[error("{registers} registers per thread leave no room for a block of {threads} threads")]
    NoOccupancy {
        /// Registers per thread.
        registers: u32,
        /// Threads per block.
        threads: u32,
    },
    /// A sampled block is not in the launch.
    #[error("block {block} sampled from a launch of {blocks} blocks")]
    SampleBlock {
        /// The block asked for.
        block: u32,
        /// Blocks of the launch.
        blocks: u32,
    },
    /// A calibration file could not be read, parsed or written.
    #[error("calibration {path}: {reason}")]
    Calibration {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// A timed run failed (for another reason than the backend not having the strategy).
    #[error("timing {strategy}: {source}")]
    Measure {
        /// The strategy timed.
        strategy: Strategy,
        /// What the backend said.
        source: reconverge_backend::BackendError,
    },
    /// An advice whose predictions were emptied holds no baseline to predict against.
    #[error("the advice holds no baseline prediction")]
    NoBaseline,
    /// No candidate could run on the backend.
    #[error("none of the candidates can run on this backend")]
    NothingRan,
    /// The tuner was given an empty range.
    #[error("parameter range of {family} is empty ({lo}..={hi})")]
    EmptyRange {
        /// The family.
        family: &'static str,
        /// Lower end.
        lo: u32,
        /// Upper end.
        hi: u32,
    },
}

/// Registers per thread of each entry point (from `ptxas -v` or `cudaFuncGetAttributes`), so
/// that the prediction includes occupancy. Optional: without it the advisor assumes every
/// launch runs at the baseline's occupancy. A strategy's dynamic shared memory
/// ([`Profile::shared_bytes_per_warp`]: collaborative context collection's stacks) counts
/// beside the registers.
#[derive(Clone, Debug)]
pub struct Registers {
    /// The GPU's architecture row (`Device::lookup("h100")?.limits()?`).
    pub arch: ArchLimits,
    /// Registers per thread of the baseline's kernel.
    pub baseline: u32,
    /// Registers per thread of each pass of a strategy's kernels (one value: every pass). A
    /// strategy not listed is assumed to run at the baseline's occupancy.
    pub strategies: Vec<(Strategy, Vec<u32>)>,
}

/// What a compiler made of a kernel's entry points, as the schedule model reads it: registers
/// (occupancy) and which per-thread loops stayed flat. [`Compiled::default`] knows neither:
/// every entry point at the calibration's default registers, every plain loop nested.
/// [`compiled_facts`] (which [`advise_compiled`] runs) fills both from a compiled module.
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    /// Registers per thread of each entry point; `None`: the calibration's default.
    pub registers: Option<Registers>,
    /// The strategies whose compiled plain loop stayed flat.
    pub loops: CompiledLoops,
}

/// How the advisor models time (see the crate docs for the formula).
#[derive(Clone, Debug)]
pub struct Options {
    /// Cost of each launch beyond the baseline's, as a fraction of the baseline's time
    /// (finite, at least 0). Default 0.01.
    pub launch_overhead: f64,
    /// Registers per entry point, for occupancy; `None` (default): occupancy not modelled.
    pub registers: Option<Registers>,
    /// Steps after which a warp is taken as never finishing. Default 2^32.
    pub step_limit: u64,
    /// Occupancy above which more resident warps no longer speed a kernel up, in `(0, 1]`;
    /// `None` (default): time scales with `1 / occupancy` at any occupancy (branch splitting's
    /// eq. 1). Once enough warps are resident to hide the pipelines' latency, extra warps
    /// only wait their turn (Volkov, "Better performance at lower occupancy", GTC 2010): with
    /// `Some(s)` an occupancy `ρ` counts as `min(ρ, s)`. On an H100 the reproduce tool's
    /// measurements agree better with `Some(0.5)` (its advisor page shows both).
    pub saturating_occupancy: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            launch_overhead: 0.01,
            registers: None,
            step_limit: 1 << 32,
            saturating_occupancy: None,
        }
    }
}

impl Options {
    fn validate(&self) -> Result<(), AdviseError> {
        if !(self.launch_overhead.is_finite() && self.launch_overhead >= 0.0) {
            return Err(AdviseError::InvalidOption {
                name: "launch_overhead",
                value: self.launch_overhead,
                requirement: "finite and at least 0",
            });
        }
        if let Some(s) = self.saturating_occupancy
            && !(s > 0.0 && s <= 1.0)
        {
            return Err(AdviseError::InvalidOption {
                name: "saturating_occupancy",
                value: s,
                requirement: "in (0, 1]",
            });
        }
        Ok(())
    }

    /// The occupancy that counts for time: `occupancy`, capped at the saturating one.
    fn effective(&self, occupancy: f64) -> f64 {
        self.saturating_occupancy
            .map_or(occupancy, |s| occupancy.min(s))
    }
}

/// One region of the baseline, as measured.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionDivergence {
    /// The region's name.
    pub name: &'static str,
    /// Times a warp issued it.
    pub issues: u64,
    /// Issue slots (issues times the region's cost).
    pub issue_slots: u64,
    /// Useful lanes per issued lane-slot, 0 to 1 (0 for a region that costs nothing).
    pub simd_efficiency: f64,
}

/// The baseline's measured divergence.
#[derive(Clone, Debug)]
pub struct Divergence {
    /// SIMD efficiency over all regions, 0 to 1.
    pub simd_efficiency: f64,
    /// Each region that issued, by region id.
    pub regions: Vec<RegionDivergence>,
    /// Loop iterations per warp (the warp's trip count: its slowest lane's).
    pub warp_steps: Stats,
    /// SIMD efficiency per warp (warps that issued).
    pub warp_simd_efficiency: Stats,
    /// The counters themselves.
    pub counters: Counters,
}

impl Divergence {
    pub(crate) fn of(profile: &Profile) -> Self {
        let c = &profile.counters;
        let width = f64::from(c.warp_width.max(1));
        let regions = c
            .regions
            .iter()
            .filter(|r| r.issues > 0)
            .map(|r| RegionDivergence {
                name: r.name,
                issues: r.issues,
                issue_slots: r.issue_slots,
                simd_efficiency: r.average_active_threads_per_warp() / width,
            })
            .collect();
        Self {
            simd_efficiency: c.simd_efficiency(),
            regions,
            warp_steps: Stats::of(profile.warp_steps.iter().map(|&s| s as f64)),
            warp_simd_efficiency: Stats::of(
                profile
                    .warp_counters
                    .iter()
                    .filter(|c| c.issue_slots() > 0)
                    .map(Counters::simd_efficiency),
            ),
            counters: *c,
        }
    }
}

/// One strategy's predicted speedup over the baseline, and why.
#[derive(Clone, Debug)]
pub struct Prediction {
    /// The strategy.
    pub strategy: Strategy,
    /// Issue slots of all its launches.
    pub issue_slots: u64,
    /// SIMD efficiency over all its regions.
    pub simd_efficiency: f64,
    /// Baseline issue slots over this strategy's: the speedup from issue slots alone.
    pub slot_speedup: f64,
    /// Launches it took on the sample (repeated passes included).
    pub launches: u32,
    /// Launches beyond the baseline's.
    pub extra_launches: u32,
    /// Occupancy of each launch, where [`Registers`] gave this strategy's registers.
    pub occupancy: Option<Vec<f64>>,
    /// The predicted speedup over the baseline (see the crate docs).
    pub speedup: f64,
    /// The model run it was predicted from.
    pub profile: Profile,
}

impl Prediction {
    /// One line on why: the terms of the prediction that differ from 1.
    pub fn reason(&self) -> String {
        let mut parts = vec![format!("issue slots x{:.3}", self.slot_speedup)];
        if self.extra_launches > 0 {
            parts.push(format!("+{} launch(es)", self.extra_launches));
        }
        if let Some(occ) = &self.occupancy {
            let occ: Vec<String> = occ.iter().map(|o| format!("{:.0} %", o * 100.0)).collect();
            parts.push(format!("occupancy {}", occ.join(" / ")));
        }
        parts.join(", ")
    }
}

/// What the issue-slot model found on one launch ([`advise_strategies`]).
#[derive(Clone, Debug)]
pub struct SlotAdvice {
    /// The kernel's shape.
    pub shape: &'static str,
    /// Items of the sample.
    pub items: u32,
    /// The sample's launch.
    pub launch: Launch,
    /// Occupancy of the baseline, where [`Registers`] were given.
    pub baseline_occupancy: Option<f64>,
    /// The baseline's measured divergence.
    pub baseline: Divergence,
    /// Every strategy that ran, baseline first, in the order asked.
    pub predictions: Vec<Prediction>,
    /// Strategies asked for that do not apply to the kernel, with the reason.
    pub skipped: Vec<(Strategy, StrategyError)>,
    recommended: usize,
}

impl SlotAdvice {
    /// The strategy with the highest predicted speedup; on a tie, the one listed first (the
    /// baseline before any other: the simpler code wins).
    pub fn recommended(&self) -> &Prediction {
        &self.predictions[self.recommended]
    }

    /// The prediction of `strategy`, if it ran.
    pub fn prediction(&self, strategy: &Strategy) -> Option<&Prediction> {
        self.predictions.iter().find(|p| p.strategy == *strategy)
    }
}

/// Which strategy and which launch for `items` items of `kernel` on `gpu`: every strategy of
/// [`Kernel::STRATEGIES`] (and the baseline) at every candidate launch, ranked by the schedule
/// model's predicted time, from each launch run whole on the model (up to 1.5 · 2^20 items) or
/// from stratified samples of its multiprocessors ([`Sampling::default`]; fewer items per run
/// where the model runs would take more than about [`DEFAULT_MODEL_SECONDS`] on this machine,
/// the first pairs then modelled again on a larger sample: [`advise_within`]), the pairs
/// modelled in parallel. This is the advisor's main entry point; [`advise_launches`] takes a strategy
/// list, a sampling and registers of your own.
///
/// # Errors
/// [`AdviseError::NoItems`] for 0 items; a strategy's bad parameter; a model run that never
/// ends; no launch that fits the GPU.
pub fn advise<K: Kernel + Sync + ?Sized>(
    kernel: &K,
    items: u32,
    gpu: &Gpu,
) -> Result<Advice, AdviseError> {
    advise_within(
        kernel,
        items,
        K::STRATEGIES,
        gpu,
        &Sampling::default(),
        &Compiled::default(),
        DEFAULT_MODEL_SECONDS,
    )
}

/// The issue-slot model on one fixed launch (see "The issue-slot model" in the crate docs):
/// runs the baseline and every strategy of `strategies` over items `0..items` with `launch` on
/// the model and predicts their speedups from issue slots, extra launches and occupancy. It
/// sees neither load imbalance across warps nor the launch's tail; [`advise`] does. Kept for
/// the reproduce tool's issue-slot page, the tuner and `mcml --strategy auto`. Strategies that do not apply to
/// the kernel are listed in [`SlotAdvice::skipped`]; a bad parameter of one that does is an error.
pub fn advise_strategies<K: Kernel + ?Sized>(
    kernel: &K,
    items: u32,
    launch: Launch,
    strategies: &[Strategy],
    options: &Options,
) -> Result<SlotAdvice, AdviseError> {
    let baseline = Baseline::measure(kernel, items, launch, options)?;
    let mut runs: Vec<Profile> = Vec::new();
    let mut skipped = Vec::new();
    for &strategy in strategies {
        if strategy == Strategy::BASELINE || runs.iter().any(|r| r.strategy == strategy) {
            continue;
        }
        match kernel.passes(&strategy) {
            Err(e @ StrategyError::NotApplicable { .. }) => skipped.push((strategy, e)),
            _ => runs.push(profile(
                kernel,
                strategy,
                items,
                launch,
                options.step_limit,
            )?),
        }
    }
    SlotAdvice::predicted(K::SHAPE, items, baseline, runs, skipped, options)
}

impl SlotAdvice {
    /// The same model runs predicted under other `options` (registers, the occupancy cap, the
    /// launch overhead), without running the model again: comparing occupancy models, or
    /// adding registers once they are known, costs no second sample. `options.step_limit` has
    /// no effect here (nothing runs).
    ///
    /// # Errors
    /// As [`advise_strategies`] for the options and registers; [`AdviseError::NoBaseline`] if
    /// [`SlotAdvice::predictions`] was emptied.
    pub fn with_options(&self, options: &Options) -> Result<SlotAdvice, AdviseError> {
        options.validate()?;
        let (base, runs) = self
            .predictions
            .split_first()
            .ok_or(AdviseError::NoBaseline)?;
        let baseline = Baseline::new(base.profile.clone(), self.launch, options)?;
        let runs = runs.iter().map(|p| p.profile.clone()).collect();
        Self::predicted(
            self.shape,
            self.items,
            baseline,
            runs,
            self.skipped.clone(),
            options,
        )
    }

    /// Predicts the baseline and every run in `runs` against `baseline`, and picks.
    fn predicted(
        shape: &'static str,
        items: u32,
        baseline: Baseline,
        runs: Vec<Profile>,
        skipped: Vec<(Strategy, StrategyError)>,
        options: &Options,
    ) -> Result<SlotAdvice, AdviseError> {
        let mut predictions = Vec::with_capacity(runs.len() + 1);
        predictions.push(baseline.predict(baseline.profile.clone(), options)?);
        for run in runs {
            predictions.push(baseline.predict(run, options)?);
        }
        // Strictly greater only, so that on a tie the earlier (simpler) strategy stays.
        let mut recommended = 0;
        for (i, p) in predictions.iter().enumerate() {
            if p.speedup > predictions[recommended].speedup {
                recommended = i;
            }
        }
        Ok(SlotAdvice {
            shape,
            items,
            launch: baseline.launch,
            baseline_occupancy: baseline.occupancy,
            baseline: Divergence::of(&baseline.profile),
            predictions,
            skipped,
            recommended,
        })
    }
}

/// The baseline's run, against which strategies are predicted (shared by the advisor and the
/// tuner).
pub(crate) struct Baseline {
    pub(crate) profile: Profile,
    occupancy: Option<f64>,
    launch: Launch,
}

impl Baseline {
    pub(crate) fn measure<K: Kernel + ?Sized>(
        kernel: &K,
        items: u32,
        launch: Launch,
        options: &Options,
    ) -> Result<Self, AdviseError> {
        options.validate()?;
        launch.validate()?;
        if items == 0 {
            return Err(AdviseError::NoItems);
        }
        let run = profile(
            kernel,
            Strategy::BASELINE,
            items,
            launch,
            options.step_limit,
        )?;
        Self::new(run, launch, options)
    }

    /// The baseline of a run already made, with its occupancy under `options`' registers.
    fn new(profile: Profile, launch: Launch, options: &Options) -> Result<Self, AdviseError> {
        let occupancy = match &options.registers {
            Some(r) => Some(occupancy_of(&r.arch, launch, r.baseline, 0)?),
            None => None,
        };
        Ok(Self {
            profile,
            occupancy,
            launch,
        })
    }

    pub(crate) fn predict(
        &self,
        run: Profile,
        options: &Options,
    ) -> Result<Prediction, AdviseError> {
        let base_slots = self.profile.counters.issue_slots() as f64;
        let slots = run.counters.issue_slots();
        // Registers per launch, where both the baseline's and this strategy's are known.
        let registers = options.registers.as_ref().and_then(|r| {
            r.strategies
                .iter()
                .find(|(s, _)| *s == run.strategy)
                .map(|(_, regs)| regs.as_slice())
                .or((run.strategy == Strategy::BASELINE)
                    .then_some(std::slice::from_ref(&r.baseline)))
                .map(|regs| (r, regs))
        });
        let (occupancy, time) = match (self.occupancy, registers) {
            (Some(base_occ), Some((r, regs))) if !regs.is_empty() => {
                let mut occ = Vec::with_capacity(run.launches.len());
                let mut time = 0.0;
                for (pass, counters) in &run.launches {
                    let reg = regs[(*pass as usize).min(regs.len() - 1)];
                    let shared = run.dynamic_shared_bytes(self.launch.threads_per_block);
                    let o = occupancy_of(&r.arch, self.launch, reg, shared)?;
                    occ.push(o);
                    time += counters.issue_slots() as f64 * options.effective(base_occ)
                        / options.effective(o);
                }
                (Some(occ), time)
            }
            _ => (None, slots as f64),
        };
        let launches = run.launches.len() as u32;
        let extra_launches = launches.saturating_sub(self.profile.launches.len() as u32);
        let overhead = f64::from(extra_launches) * options.launch_overhead * base_slots;
        Ok(Prediction {
            strategy: run.strategy,
            issue_slots: slots,
            simd_efficiency: run.counters.simd_efficiency(),
            slot_speedup: ratio(base_slots, slots as f64),
            launches,
            extra_launches,
            occupancy,
            speedup: ratio(base_slots, time + overhead),
            profile: run,
        })
    }
}

/// A run that issued nothing took no time: infinitely fast against any work, equal against
/// none.
fn ratio(base: f64, time: f64) -> f64 {
    if time > 0.0 {
        base / time
    } else if base > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

fn occupancy_of(
    arch: &ArchLimits,
    launch: Launch,
    registers: u32,
    dynamic_shared: u32,
) -> Result<f64, AdviseError> {
    let o = calculate_occupancy(
        arch,
        &KernelResources::new(launch.threads_per_block, registers)
            .with_dynamic_smem(dynamic_shared),
        &LaunchConfig::default(),
    )
    .map_err(|source| AdviseError::Occupancy { registers, source })?;
    if o.occupancy > 0.0 {
        Ok(o.occupancy)
    } else {
        Err(AdviseError::NoOccupancy {
            registers,
            threads: launch.threads_per_block,
        })
    }
}

impl fmt::Display for SlotAdvice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.baseline;
        writeln!(
            f,
            "{} workload, {} items, {} blocks x {} threads",
            self.shape, self.items, self.launch.blocks, self.launch.threads_per_block
        )?;
        writeln!(
            f,
            "baseline: SIMD efficiency {:.1} %; per warp {:.1} / {:.1} / {:.1} % (min / mean / max); loop iterations per warp {:.0} / {:.1} / {:.0}",
            b.simd_efficiency * 100.0,
            b.warp_simd_efficiency.min * 100.0,
            b.warp_simd_efficiency.mean * 100.0,
            b.warp_simd_efficiency.max * 100.0,
            b.warp_steps.min,
            b.warp_steps.mean,
            b.warp_steps.max,
        )?;
        let name_width = b
            .regions
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(0)
            .max(6);
        writeln!(
            f,
            "{:<name_width$} {:>12} {:>10}",
            "region", "issue slots", "SIMD eff."
        )?;
        for r in &b.regions {
            // A region that costs nothing has no lane-slots to be efficient with.
            let efficiency = if r.issue_slots == 0 {
                "-".to_string()
            } else {
                format!("{:.1} %", r.simd_efficiency * 100.0)
            };
            writeln!(
                f,
                "{:<name_width$} {:>12} {:>10}",
                r.name, r.issue_slots, efficiency
            )?;
        }
        writeln!(f)?;
        let (names, width) = strategy_column(self.predictions.iter().map(|p| p.strategy));
        writeln!(
            f,
            "  {:<width$} {:>9} {:>12} {:>10}  why",
            "strategy", "predicted", "issue slots", "SIMD eff."
        )?;
        for (i, (p, name)) in self.predictions.iter().zip(&names).enumerate() {
            let mark = if i == self.recommended { "*" } else { " " };
            writeln!(
                f,
                "{mark} {name:<width$} {:>8.3}x {:>12} {:>8.1} %  {}",
                p.speedup,
                p.issue_slots,
                p.simd_efficiency * 100.0,
                p.reason()
            )?;
        }
        for (s, e) in &self.skipped {
            writeln!(f, " {s}: skipped ({e})")?;
        }
        write!(
            f,
            "recommended: {} ({:.3}x predicted)",
            self.recommended().strategy,
            self.recommended().speedup
        )
    }
}

/// The first column of a table of strategies: each strategy's name, and the column's width
/// (the longest name, at least 8 characters).
fn strategy_column(strategies: impl Iterator<Item = Strategy>) -> (Vec<String>, usize) {
    // The id, not the text for people: unique, short, and what `str::parse` takes back.
    let names: Vec<String> = strategies.map(|s| s.id().to_string()).collect();
    let width = names.iter().map(String::len).max().unwrap_or(0).max(8);
    (names, width)
}

/// Runs the README's example as a doctest so it cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
