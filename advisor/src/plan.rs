//! Which strategy *and which launch*: predicted GPU time of (strategy, launch) pairs from the
//! launch's blocks (all of them, or a sample), the schedule model ([`crate::schedule`]) and a
//! device's [`Calibration`].
//!
//! # How the sample is drawn
//!
//! A launch of `items` items on `blocks` blocks gives each block its chunk of the item range
//! (the same chunks the GPU runs). A GPU places the first `sms` blocks one on each
//! multiprocessor, the next `sms` again one on each, and so on (an H100 probe:
//! `docs/results/advisor/schedule-model/block-placement.txt`), so in a resident wave
//! multiprocessor `s` runs blocks `s`, `s + sms`, `s + 2·sms`, ...: its load is the sum of the
//! blocks of one *residue* mod `sms` (one per *round* `⌊b / sms⌋`), and the most loaded
//! multiprocessor sets the time. The sample is therefore whole residues: with `n` residues
//! wanted (enough for about [`Sampling::items`] items, at least 2), residue `k` of the sample
//! is `⌊(k + u_k) · sms / n⌋` for an offset `u_k` in `[0, 1)` drawn from [`Sampling::seed`],
//! the resample's number and `k` (jittered strata), and every block of each sampled residue
//! runs. A residue's blocks span the launch, so every part of the item range is represented
//! (an image's bottom rows as much as its top ones); jittered strata, not one stride, so that
//! no stride aliases with the workload's own period. Each sampled block runs exactly its
//! items, warps and block counter of the full launch, so the divergence within its warps is
//! the real one.
//!
//! The full launch's blocks are then synthesised: a block not sampled takes the work of the
//! block *in the same round* of a sampled residue beside its own (the nearest, or a neighbour
//! of it in the sample, drawn per block). Keeping the round keeps what a multiprocessor's
//! blocks share (rows of an image a whole number of rounds apart, the last partial round of a
//! grid-stride loop); drawing per block keeps the multiprocessors different, so a heavy tail
//! still shows in the most loaded one. Revisions 3 to 6 sampled one block per stratum of the
//! launch and copied, for each block not sampled, a block near it in launch order, which
//! belongs to another round and another multiprocessor. Against the whole launch's prediction
//! on the eight held-out workloads, at the same sample size (2^16 items), whole residues
//! ranked the (strategy, launch) pairs more like it on six (two of them by 0.001) and came
//! closer to its times on four (farther on two). At 2^18 items they picked the whole launch's
//! pick on five and one within 2-5 % of it on the H100 on the other three, where block strata
//! picked the cost map's dealt loop (0.58 of the best) and a binary search's 0.87
//! (`docs/results/advisor/schedule-model/sampling/`, revision 7).
//! [`Sampling::resamples`] draws several offsets; the prediction is reported as the minimum,
//! median and maximum over them ([`Spread`]), so a sample too small for its workload shows as
//! a wide spread rather than as false confidence. Where the resamples together would run as
//! many items as the launch ([`Sampling::runs_whole_launch`]: with the default sampling, up to
//! 1.5 · 2^20 items), the launch runs whole instead, once: no dearer, and exact.

use std::fmt;

use rayon::prelude::*;

use reconverge_backend::Launch;
use reconverge_occupancy::{ArchLimits, KernelResources, LaunchConfig, calculate_occupancy};
use reconverge_simt::WARP_SIZE;
use reconverge_transforms::{Assignment, Kernel, PathSchedule, Strategy, StrategyError};

use crate::profile::{CompiledLoops, Profile, profile_blocks};
use crate::schedule::{Calibration, Makespan, simulate_dealing};
use crate::{AdviseError, Compiled, Divergence, Registers, strategy_column};

/// How the advisor samples a launch (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    /// Items to run on the model per (strategy, launch) and resample, about: whole
    /// multiprocessors' blocks are taken, at least 2. A launch that `resamples` samples of
    /// this size would cover runs whole ([`Sampling::runs_whole_launch`]). The default, 2^19,
    /// runs launches of up to 1.5 · 2^20 items whole: on the eight held-out workloads (2^20
    /// items each) samples of 2^16 items were 0.7-8 % from the whole launch's predictions on
    /// average, 2^18 0.4-5 %, and the pick was the whole launch's more often as the sample
    /// grew (`docs/results/advisor/schedule-model/sampling/`, revision 7).
    pub items: u32,
    /// Independent samples (different offsets); at least 1.
    pub resamples: u32,
    /// Seed of the offsets.
    pub seed: u64,
}

impl Sampling {
    /// Whether a launch of `items` items runs whole rather than sampled: where its resamples
    /// together would run as many items as the launch, the launch itself is no dearer and has
    /// no sampling error (its spread is then a single value).
    pub fn runs_whole_launch(&self, items: u32) -> bool {
        u64::from(self.items) * u64::from(self.resamples.max(1)) >= u64::from(items)
    }
}

impl Sampling {
    /// This sampling, or one of fewer items per run, so that `groups` distinct model runs
    /// (each of this sampling's resamples, or once where a run is the whole launch of `items`)
    /// at `seconds_per_item` each take about `seconds` on `cores` cores. Never fewer items
    /// than [`MIN_BUDGETED_ITEMS`] (or this sampling's, if fewer), never more than asked.
    pub fn within_seconds(
        &self,
        items: u32,
        groups: usize,
        seconds_per_item: f64,
        seconds: f64,
        cores: usize,
    ) -> Sampling {
        let runs_of = |s: &Sampling| {
            if s.runs_whole_launch(items) {
                f64::from(items)
            } else {
                f64::from(s.items) * f64::from(s.resamples.max(1))
            }
        };
        let affordable = seconds * cores.max(1) as f64 / (groups.max(1) as f64 * seconds_per_item);
        if !affordable.is_finite() || runs_of(self) <= affordable {
            return *self;
        }
        // Sampled, each group runs `resamples` samples of the new size.
        let per_sample = affordable / f64::from(self.resamples.max(1));
        Sampling {
            items: (per_sample as u32).clamp(MIN_BUDGETED_ITEMS.min(self.items), self.items),
            ..*self
        }
    }
}

/// The fewest items per run [`Sampling::within_seconds`] cuts a sample to.
pub const MIN_BUDGETED_ITEMS: u32 = 1 << 15;

/// What [`sampling_within`] aims the model runs of one [`crate::advise`] at, in seconds: a
/// question a user asks interactively.
pub const DEFAULT_MODEL_SECONDS: f64 = 15.0;

impl Default for Sampling {
    fn default() -> Self {
        Self {
            items: 1 << 19,
            resamples: 3,
            seed: 1,
        }
    }
}

/// The offset of stratum `k` of resample `r` as a number in `[0, 1)`: SplitMix64's finaliser
/// of the three, chained.
fn offset(seed: u64, resample: u32, k: u32) -> f64 {
    let z = mix(seed ^ mix(u64::from(resample) ^ mix(u64::from(k))));
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The blocks of a launch of `items` items on a GPU of `sms` multiprocessors that resample
/// `resample` runs (see the module docs): every block of some residues mod `sms` (whole
/// multiprocessors of a resident wave), all of the launch where it is small enough. Sorted.
pub fn sample_blocks(
    items: u32,
    launch: Launch,
    sms: u32,
    sampling: &Sampling,
    resample: u32,
) -> Vec<u32> {
    // A residue's blocks: one multiprocessor's in a resident wave; `items / residues` items.
    let residues = sms.clamp(1, launch.blocks.max(1));
    let per_residue = f64::from(items.max(1)) / f64::from(residues);
    let wanted = ((f64::from(sampling.items) / per_residue).ceil() as u32).max(2);
    if wanted >= residues || sampling.runs_whole_launch(items) {
        return (0..launch.blocks).collect();
    }
    let mut chosen: Vec<u32> = (0..wanted)
        .map(|k| {
            let u = offset(sampling.seed, resample, k);
            let r = ((f64::from(k) + u) * f64::from(residues) / f64::from(wanted)) as u32;
            r.min(residues - 1)
        })
        .collect();
    chosen.dedup();
    let mut out: Vec<u32> = chosen
        .iter()
        .flat_map(|&r| (r..launch.blocks).step_by(residues as usize))
        .collect();
    out.sort_unstable();
    out
}

/// The GPU the advisor predicts for: its occupancy rules and its calibration.
#[derive(Clone, Debug)]
pub struct Gpu {
    /// Occupancy limits of its architecture.
    pub arch: ArchLimits,
    /// Its calibrated costs and multiprocessor count.
    pub calibration: Calibration,
}

impl Gpu {
    /// The GPU of `calibration`, its occupancy limits from the compute capability it records.
    ///
    /// # Errors
    /// [`AdviseError::Calibration`] for an unknown compute capability.
    pub fn new(calibration: Calibration) -> Result<Self, AdviseError> {
        let [major, minor] = calibration.compute_capability;
        let arch = *ArchLimits::for_compute_capability(
            reconverge_occupancy::ComputeCapability::new(major, minor),
        )
        .map_err(|e| AdviseError::Calibration {
            path: calibration.device.clone(),
            reason: e.to_string(),
        })?;
        Ok(Self { arch, calibration })
    }

    /// An H100 with the committed calibration ([`Calibration::h100`]).
    ///
    /// # Errors
    /// As [`Calibration::h100`].
    pub fn h100() -> Result<Self, AdviseError> {
        Self::new(Calibration::h100()?)
    }

    /// Resident blocks per multiprocessor of `threads`-thread blocks at `registers` per thread.
    ///
    /// # Errors
    /// [`AdviseError::Occupancy`] / [`AdviseError::NoOccupancy`] where none fits.
    pub fn blocks_per_sm(&self, threads: u32, registers: u32) -> Result<u32, AdviseError> {
        self.blocks_per_sm_sharing(threads, registers, 0)
    }

    /// [`Gpu::blocks_per_sm`] of blocks that also ask for `dynamic_shared` bytes of dynamic
    /// shared memory each (NVIDIA's occupancy rules, as the CUDA backend sizes its launches).
    ///
    /// # Errors
    /// As [`Gpu::blocks_per_sm`].
    pub fn blocks_per_sm_sharing(
        &self,
        threads: u32,
        registers: u32,
        dynamic_shared: u32,
    ) -> Result<u32, AdviseError> {
        let o = calculate_occupancy(
            &self.arch,
            &KernelResources::new(threads, registers).with_dynamic_smem(dynamic_shared),
            &LaunchConfig::default(),
        )
        .map_err(|source| AdviseError::Occupancy { registers, source })?;
        if o.active_blocks_per_sm == 0 {
            return Err(AdviseError::NoOccupancy { registers, threads });
        }
        Ok(o.active_blocks_per_sm)
    }

    /// Registers per thread of each pass of `strategy`: from `registers` where given, else
    /// the calibration's default.
    pub fn registers_of(&self, strategy: &Strategy, registers: Option<&Registers>) -> Vec<u32> {
        let given = registers.and_then(|r| {
            if *strategy == Strategy::BASELINE {
                return Some(vec![r.baseline]);
            }
            r.strategies
                .iter()
                .find(|(s, regs)| s == strategy && !regs.is_empty())
                .map(|(_, regs)| regs.clone())
        });
        given.unwrap_or_else(|| vec![self.calibration.default_registers])
    }

    /// The launch the baseline is compared at for `items` items ([`Advice::reference`]): the
    /// backend's default for it, at the occupancy its registers allow.
    fn reference_launch(&self, items: u32, registers: Option<&Registers>) -> Launch {
        let base_regs = self.registers_of(&Strategy::BASELINE, registers);
        Launch::for_items(&Strategy::BASELINE, items, self.calibration.sms, |t| {
            self.blocks_per_sm(t, base_regs[0]).ok()
        })
    }
}

/// A launch's predicted time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaunchTime {
    /// Predicted time, nanoseconds: every launch's makespan plus its overhead.
    pub ns: f64,
    /// The schedules' lengths alone, nanoseconds.
    pub schedule_ns: f64,
    /// The throughput bounds alone, nanoseconds.
    pub throughput_ns: f64,
    /// Claims on the launch's one work counter (grid-wide dynamic work assignment), summed
    /// over launches; estimated from the sample's claims where the launch was sampled.
    pub grid_claims: f64,
    /// Those claims' cost, [`Calibration::grid_claim_ns`] each, nanoseconds (part of `ns`).
    pub grid_claims_ns: f64,
    /// Kernel launches (passes).
    pub launches: u32,
}

/// The work a launch's warps do in pass `pass` of `profile`, in cycles: each block's warps'
/// first work in launch order, and the work dealt afterwards from the launch's one counter,
/// in the order it is dealt (empty unless the strategy deals across blocks).
struct LaunchWork {
    blocks: Vec<Vec<f64>>,
    queue: Vec<f64>,
}

/// The full launch's work for pass `pass` of `profile` (see [`LaunchWork`]).
///
/// Under grid-wide dealing with fewer threads than items, the profile ran at one item per
/// thread ([`sampled_profiles`]), so each of its warps' work is one claim's: the items of 32
/// consecutive threads, as a warp of the persistent kernel claims them. Warp `g` of the launch
/// keeps claim `g` (thread `g` starts with item `g`), and the claims after the launch's threads
/// are dealt in item order to whichever warp finishes first: a costly region dealt late ends
/// late, which an even spread of the work over the warps would not show.
fn synthesize(profile: &Profile, pass: usize, launch: Launch, cal: &Calibration) -> LaunchWork {
    let warps_per_block = (launch.threads_per_block / WARP_SIZE).max(1) as usize;
    let dealt = deals_claims(&profile.strategy, launch, profile.items);
    // Claim `g` is the items of warp `g` of a launch with a thread per item, whatever its
    // block size: the claims are the same for every launch that deals them.
    let claims_profiled = !fewer_threads_than(profile.launch, profile.items);
    if dealt && claims_profiled {
        let mut claims = fill_blocks(profile, pass, profile.launch.blocks, cal)
            .into_iter()
            .flatten();
        let blocks = (0..launch.blocks)
            .map(|_| claims.by_ref().take(warps_per_block).collect())
            .collect();
        return LaunchWork {
            blocks,
            queue: claims.collect(),
        };
    }
    let mut blocks = fill_blocks(profile, pass, launch.blocks, cal);
    if dealt && !blocks.is_empty() {
        // A profile of the launch itself (not made by `sampled_profiles`): its warps' shares
        // of the items are the per-block counters', so spread the work evenly over the warps.
        let sum: f64 = blocks.iter().flatten().sum();
        let mean = sum / (blocks.len() * warps_per_block) as f64;
        blocks = vec![vec![mean; warps_per_block]; launch.blocks as usize];
    }
    LaunchWork {
        blocks,
        queue: Vec::new(),
    }
}

/// Whether `launch` has fewer threads than `items`.
fn fewer_threads_than(launch: Launch, items: u32) -> bool {
    u64::from(launch.blocks) * u64::from(launch.threads_per_block) < u64::from(items)
}

/// Whether `strategy` at `launch` deals claims from the launch's one counter: grid-wide
/// dynamic work assignment with fewer threads than items (with a thread per item each thread
/// keeps its first item, as under static assignment).
fn deals_claims(strategy: &Strategy, launch: Launch, items: u32) -> bool {
    strategy.deals_across_blocks() && fewer_threads_than(launch, items)
}

/// The work of each of the `blocks` blocks of the launch `profile` ran, in cycles, for pass
/// `pass`: a sampled block's own; every other block that of the same round of a sampled
/// residue beside its own, or where there is none (the last, partial round, or a profile not
/// sampled by residue) one of the sampled blocks around it in launch order (see the module
/// docs).
fn fill_blocks(profile: &Profile, pass: usize, blocks: u32, cal: &Calibration) -> Vec<Vec<f64>> {
    let warps_per_block = (profile.launch.threads_per_block / WARP_SIZE) as usize;
    let warp_level = !profile.strategy.runs_per_thread();
    let works = &profile.launch_warps[pass];
    let sampled: Vec<Vec<f64>> = works
        .chunks(warps_per_block.max(1))
        .map(|c| c.iter().map(|w| cal.warp_cycles(w, warp_level)).collect())
        .collect();
    if sampled.is_empty() || profile.blocks.len() == blocks as usize {
        return sampled;
    }
    let last = sampled.len() - 1;
    let index_of = |b: u32| profile.blocks.binary_search(&b).ok().filter(|&i| i <= last);
    let residues = cal.sms.clamp(1, blocks.max(1));
    let mut sampled_residues: Vec<u32> = profile.blocks.iter().map(|b| b % residues).collect();
    sampled_residues.sort_unstable();
    sampled_residues.dedup();
    // The nearest of `sorted`'s entries to `x`, or a neighbour of it there, drawn per block:
    // copying the nearest alone would give runs of blocks (of multiprocessors) one sample's
    // work, and a GPU's differ.
    let draw = |sorted: &[u32], x: u32, b: u32| {
        let nearest = nearest_index(sorted, x);
        let lo = nearest.saturating_sub(1);
        let hi = (nearest + 1).min(sorted.len() - 1);
        lo + (mix(u64::from(b)) % (hi - lo + 1) as u64) as usize
    };
    (0..blocks)
        .map(|b| {
            if let Some(i) = index_of(b) {
                return sampled[i].clone();
            }
            let (residue, round) = (b % residues, b / residues);
            let twin = sampled_residues[draw(&sampled_residues, residue, b)] + round * residues;
            if let Some(i) = index_of(twin) {
                return sampled[i].clone();
            }
            sampled[draw(&profile.blocks, b, b).min(last)].clone()
        })
        .collect()
}

/// The index of the entry of `sorted` (not empty) nearest `x`; the lower on a tie.
fn nearest_index(sorted: &[u32], x: u32) -> usize {
    let i = sorted.partition_point(|&s| s < x);
    match (i.checked_sub(1), sorted.get(i)) {
        (Some(lo), Some(&hi)) if hi - x < x - sorted[lo] => i,
        (Some(lo), _) => lo,
        (None, _) => i,
    }
}

/// Claims on the launch's one counter in pass `pass` of `profile`: none unless the strategy
/// deals across blocks; the sample's claims (each warp's atomics: a sampled launch deals from
/// per-block counters, one claim as often) scaled to the blocks of the launch it ran, which
/// cover every item whatever launch is predicted.
fn grid_claims(profile: &Profile, pass: usize) -> f64 {
    if !profile.strategy.deals_across_blocks() {
        return 0.0;
    }
    let sampled: u64 = profile.launch_warps[pass].iter().map(|w| w.atomics).sum();
    let blocks = profile.blocks.len().max(1) as f64;
    sampled as f64 * f64::from(profile.launch.blocks) / blocks
}

/// SplitMix64's finaliser: a fixed pseudo-random draw, the same on every run.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The predicted time of `profile` (a run of `launch`, sampled or whole) on `gpu`, each pass
/// at the occupancy of its registers (`registers[pass]`, the last for later passes).
///
/// # Errors
/// As [`Gpu::blocks_per_sm`].
pub fn launch_time(
    profile: &Profile,
    launch: Launch,
    gpu: &Gpu,
    registers: &[u32],
) -> Result<LaunchTime, AdviseError> {
    let cal = &gpu.calibration;
    let mut out = LaunchTime::default();
    for (i, (pass, _)) in profile.launches.iter().enumerate() {
        let regs = registers
            .get(*pass as usize)
            .or(registers.last())
            .copied()
            .unwrap_or(cal.default_registers);
        let threads = launch.threads_per_block;
        let per_sm =
            gpu.blocks_per_sm_sharing(threads, regs, profile.dynamic_shared_bytes(threads))?;
        let work = synthesize(profile, i, launch, cal);
        let m: Makespan = simulate_dealing(
            &work.blocks,
            &work.queue,
            cal.sms,
            per_sm,
            cal.warp_issue_interval,
        );
        let claims = grid_claims(profile, i);
        // One address's atomics are served one after another: a third bound beside the
        // schedule and the issue slots, which the work overlaps rather than adds to.
        let serial_ns = claims * cal.grid_claim_ns;
        out.schedule_ns += m.schedule * cal.ns_per_slot;
        out.throughput_ns += m.throughput * cal.ns_per_slot;
        out.grid_claims += claims;
        out.grid_claims_ns += serial_ns;
        out.ns += (m.cycles() * cal.ns_per_slot).max(serial_ns) + cal.launch_overhead_us * 1e3;
        out.launches += 1;
    }
    Ok(out)
}

/// Profiles `strategy` on `items` items at `launch` on a GPU of `sms` multiprocessors once per
/// resample (see the module docs), its plain loop (if it runs per thread) as `loops` says the
/// compiler made it. Grid-wide dealing with fewer threads than items is profiled at one item
/// per thread, each warp's work one claim's ([`Profile::launch`] says which launch ran).
///
/// # Errors
/// As [`profile_blocks`].
#[allow(clippy::too_many_arguments)] // what to run, where, and how the sample is drawn
pub fn sampled_profiles<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
    sms: u32,
    sampling: &Sampling,
    step_limit: u64,
    loops: &CompiledLoops,
) -> Result<Vec<Profile>, AdviseError> {
    let runs = distinct_runs(
        kernel,
        strategy,
        items,
        profiled_launch(&strategy, launch, items),
        sms,
        sampling,
        step_limit,
        loops,
    )?;
    Ok(padded(runs, sampling))
}

/// The launch `strategy` is profiled at for `launch`: grid-wide dealing with fewer threads than
/// items runs its claims in item order whatever the launch, so it is profiled at one item per
/// thread (see `synthesize`); every other strategy at `launch` itself. Launches of one block
/// size thus share grid-wide dealing's model runs.
fn profiled_launch(strategy: &Strategy, launch: Launch, items: u32) -> Launch {
    if deals_claims(strategy, launch, items) {
        Launch {
            blocks: items.div_ceil(launch.threads_per_block.max(1)),
            ..launch
        }
    } else {
        launch
    }
}

/// `sampling`, or fewer items per run where the model runs of advising `strategies` on `items`
/// items would take more than about `seconds` on this machine's cores
/// ([`Sampling::within_seconds`]). The model runs the workload's own code for every lane of
/// every item it samples, so a workload with long paths (SYN-ITDELAY's float chains, a random
/// walk of thousands of steps) costs the advisor in proportion: a pilot run of the baseline
/// on a few multiprocessors' blocks times it. The sampling chosen depends on the machine's
/// speed; [`Advice::sampling`] records it, and [`advise_launches`] with that sampling gives
/// the same advice anywhere.
///
/// # Errors
/// As [`profile_blocks`] on the pilot run.
pub fn sampling_within<K: Kernel + ?Sized>(
    kernel: &K,
    items: u32,
    strategies: &[Strategy],
    gpu: &Gpu,
    sampling: &Sampling,
    compiled: &Compiled,
    seconds: f64,
) -> Result<Sampling, AdviseError> {
    if items == 0 {
        return Err(AdviseError::NoItems);
    }
    let registers = compiled.registers.as_ref();
    let reference = gpu.reference_launch(items, registers);
    let pilot = Sampling {
        items: PILOT_ITEMS,
        resamples: 1,
        ..*sampling
    };
    let blocks = sample_blocks(items, reference, gpu.calibration.sms, &pilot, 0);
    let clock = std::time::Instant::now();
    profile_blocks(
        kernel,
        Strategy::BASELINE,
        items,
        reference,
        &blocks,
        1 << 32,
        compiled.loops.plain_loop(&Strategy::BASELINE),
    )?;
    let ran = (blocks.len() as u64 * u64::from(reference.threads_per_block)).min(u64::from(items));
    let per_item = clock.elapsed().as_secs_f64() / ran.max(1) as f64;
    let list: Vec<Strategy> = std::iter::once(&Strategy::BASELINE)
        .chain(strategies)
        .filter(|s| kernel.passes(s).is_ok())
        .copied()
        .collect();
    let pairs = candidate_pairs(kernel, &list, items, gpu, registers);
    // The model runs `advise_launches` makes, as it groups them: whole launches share runs
    // that sampled ones cannot (`same_warps`), so the whole launch is kept where its fewer
    // runs fit the time, and a cut sample is sized for the sampled runs.
    let runs = |whole: bool| model_groups(&pairs, items, reference, whole).1.len();
    let cores = rayon::current_num_threads();
    let cut = sampling.within_seconds(items, runs(false), per_item, seconds, cores);
    if !sampling.runs_whole_launch(items) || cut == *sampling {
        return Ok(cut);
    }
    // A cut that would model about as many items as the whole launch (its resamples together
    // near the launch's items, and no runs shared) buys sampling error for no time: where the
    // whole launch's runs cost no more than the cut's, the whole launch is kept. Measured on
    // the held-out sunset map (786,432 items): cut to 219,752 items x 3 resamples the pick
    // fell to 0.867 of the best measured launch, whole it was the best, in about the time.
    let whole_items = f64::from(items) * runs(true) as f64;
    let cut_items = f64::from(cut.items) * f64::from(cut.resamples.max(1)) * runs(false) as f64;
    Ok(if whole_items <= cut_items {
        *sampling
    } else {
        cut
    })
}

/// Items of the pilot run [`sampling_within`] times a workload's model with.
const PILOT_ITEMS: u32 = 4096;

/// Whether whole runs of `strategy` at launches `a` and `b` give every warp the same items, so
/// that one run, its warps regrouped into the other's blocks ([`regrouped`]), is the other's:
/// the plain loop as compiled (the baseline, grid-stride: thread `g` runs items `g`,
/// `g + threads`, ...) at launches of as many threads, and iteration delaying over static
/// assignment (each warp on its own, a block's chunk its threads' items) at a thread per item,
/// no thread left over. Warps that share a block's counter or the launch's are not.
fn same_warps(strategy: &Strategy, a: Launch, b: Launch, items: u32) -> bool {
    let threads = |l: Launch| u64::from(l.blocks) * u64::from(l.threads_per_block);
    if threads(a) != threads(b) {
        return false;
    }
    if *strategy == Strategy::BASELINE {
        return true;
    }
    strategy.items == Assignment::Static
        && matches!(strategy.paths, PathSchedule::IterationDelaying(_))
        && threads(a) == u64::from(items)
}

/// `profile` (a whole launch's run) as the run of `launch`, which [`same_warps`] says gives its
/// warps the same items: its warps, in order, regrouped into `launch`'s blocks, for
/// [`launch_time`] (each warp's own counters and steps left out).
fn regrouped(profile: &Profile, launch: Launch, items: u32) -> std::borrow::Cow<'_, Profile> {
    if profile.launch == launch || !same_warps(&profile.strategy, profile.launch, launch, items) {
        return std::borrow::Cow::Borrowed(profile);
    }
    // What `launch_time` reads: the per-warp counters and steps, a warp's own, are not copied.
    std::borrow::Cow::Owned(Profile {
        strategy: profile.strategy,
        counters: profile.counters,
        launches: profile.launches.clone(),
        warp_steps: Vec::new(),
        warp_counters: Vec::new(),
        launch,
        blocks: (0..launch.blocks).collect(),
        items: profile.items,
        launch_warps: profile.launch_warps.clone(),
        shared_bytes_per_warp: profile.shared_bytes_per_warp,
    })
}

/// `runs` repeated to one per resample: a launch run whole is one run, the same for every
/// resample.
fn padded<T: Clone>(mut runs: Vec<T>, sampling: &Sampling) -> Vec<T> {
    let resamples = sampling.resamples.max(1) as usize;
    while runs.len() < resamples {
        let Some(first) = runs.first().cloned() else {
            break;
        };
        runs.push(first);
    }
    runs
}

/// [`sampled_profiles`]' distinct model runs at `launch` (already [`profiled_launch`]): one per
/// resample, or only one where the sample is the whole launch (every resample would be the
/// same run, so it is neither run nor timed again).
#[allow(clippy::too_many_arguments)] // as `sampled_profiles`
fn distinct_runs<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
    sms: u32,
    sampling: &Sampling,
    step_limit: u64,
    loops: &CompiledLoops,
) -> Result<Vec<Profile>, AdviseError> {
    let mut out: Vec<Profile> = Vec::new();
    for r in 0..sampling.resamples.max(1) {
        let blocks = sample_blocks(items, launch, sms, sampling, r);
        if blocks.len() == launch.blocks as usize && !out.is_empty() {
            // The whole launch: every resample is the same run.
            break;
        }
        out.push(profile_blocks(
            kernel,
            strategy,
            items,
            launch,
            &blocks,
            step_limit,
            loops.plain_loop(&strategy),
        )?);
    }
    Ok(out)
}

/// Predicted times of `strategy` at `launch`, one per resample.
///
/// # Errors
/// As [`sampled_profiles`] and [`launch_time`].
pub fn predict_launch<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
    gpu: &Gpu,
    sampling: &Sampling,
    compiled: &Compiled,
) -> Result<Vec<LaunchTime>, AdviseError> {
    let regs = gpu.registers_of(&strategy, compiled.registers.as_ref());
    let runs = distinct_runs(
        kernel,
        strategy,
        items,
        profiled_launch(&strategy, launch, items),
        gpu.calibration.sms,
        sampling,
        1 << 32,
        &compiled.loops,
    )?;
    let times = runs
        .iter()
        .map(|p| launch_time(p, launch, gpu, &regs))
        .collect::<Result<Vec<LaunchTime>, AdviseError>>()?;
    Ok(padded(times, sampling))
}

/// Minimum, median and maximum of a prediction over resamples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Smallest.
    pub min: f64,
    /// Median (the mean of the middle two for an even count).
    pub median: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (all zero for none).
    pub fn of(values: &[f64]) -> Self {
        let mut v: Vec<f64> = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            return Self::default();
        }
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            0.5 * (v[n / 2 - 1] + v[n / 2])
        };
        Self {
            min: v[0],
            median,
            max: v[n - 1],
        }
    }
}

/// How a candidate launch's grid was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// One thread per item (per `items_per_thread` items).
    OneItemPerThread,
    /// Every multiprocessor full once, no more.
    OneWave,
    /// `n` resident waves.
    Waves(u32),
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grid::OneItemPerThread => write!(f, "one item per thread"),
            Grid::OneWave => write!(f, "one resident wave"),
            Grid::Waves(n) => write!(f, "{n} resident waves"),
        }
    }
}

/// The block sizes the advisor tries: the occupancy calculator's candidates of
/// `Launch::for_items`.
pub const BLOCK_SIZES: [u32; 3] = [128, 256, 512];

/// Dynamic shared memory `strategy` asks for on `kernel` per warp of a block
/// ([`Kernel::dynamic_shared_bytes`] of a one-warp block): what [`candidate_launches`] and
/// [`Profile::shared_bytes_per_warp`] count.
pub fn shared_bytes_per_warp<K: Kernel + ?Sized>(kernel: &K, strategy: &Strategy) -> u32 {
    kernel.dynamic_shared_bytes(strategy, WARP_SIZE)
}

/// Dynamic shared memory of a block of `threads` threads at `per_warp` bytes per warp (the
/// library's kernels ask for it warp by warp), saturating.
pub(crate) fn shared_bytes_per_block(per_warp: u32, threads: u32) -> u32 {
    per_warp.saturating_mul(threads.div_ceil(WARP_SIZE))
}

/// The launches the advisor ranks for `strategy`: each block size of [`BLOCK_SIZES`] that fits
/// at `registers` per thread and `shared_bytes_per_warp` bytes of dynamic shared memory per
/// warp ([`Profile::shared_bytes_per_warp`]), with one item per thread, one resident wave and
/// four waves (never more blocks than the items need).
pub fn candidate_launches(
    strategy: &Strategy,
    items: u32,
    gpu: &Gpu,
    registers: u32,
    shared_bytes_per_warp: u32,
) -> Vec<(Launch, Grid)> {
    let mut out: Vec<(Launch, Grid)> = Vec::new();
    for threads in BLOCK_SIZES {
        let shared = shared_bytes_per_block(shared_bytes_per_warp, threads);
        let Ok(per_sm) = gpu.blocks_per_sm_sharing(threads, registers, shared) else {
            continue;
        };
        let needed = items
            .div_ceil(strategy.items_per_thread().max(1))
            .div_ceil(threads)
            .max(1);
        let wave = per_sm.saturating_mul(gpu.calibration.sms).max(1);
        for (blocks, grid) in [
            (needed, Grid::OneItemPerThread),
            (wave.min(needed), Grid::OneWave),
            (wave.saturating_mul(4).min(needed), Grid::Waves(4)),
        ] {
            if let Ok(l) = Launch::new(threads, blocks)
                && !out.iter().any(|(o, _)| *o == l)
            {
                out.push((l, grid));
            }
        }
    }
    out
}

/// One (strategy, launch) pair, predicted.
#[derive(Clone, Debug)]
pub struct Ranked {
    /// The strategy.
    pub strategy: Strategy,
    /// The launch.
    pub launch: Launch,
    /// How its grid was chosen.
    pub grid: Grid,
    /// Predicted time over the resamples, nanoseconds.
    pub time_ns: Spread,
    /// Predicted speedup over the baseline at the reference launch, over the resamples (each
    /// resample's baseline against the same resample's strategy).
    pub speedup: Spread,
    /// The median resample's schedule length over its throughput bound: above 1 where
    /// imbalance, the tail or latency (not issue slots) set the time.
    pub schedule_over_throughput: f64,
    /// Whether `launch` is the one the backend picks for the strategy ([`default_launch`]),
    /// for a strategy whose threads each run their own loop ([`Strategy::runs_per_thread`]:
    /// the launches [`LAUNCH_MARGIN`] was measured on); `false` for the others.
    pub own_launch: bool,
}

/// The advisor's answer to "which strategy and which launch".
#[derive(Clone, Debug)]
pub struct Advice {
    /// The kernel's shape.
    pub shape: &'static str,
    /// Items of the workload.
    pub items: u32,
    /// The launch the baseline is compared at (the backend's default for it: one item per
    /// thread at the block size keeping the most warps resident).
    pub reference: Launch,
    /// The baseline's predicted time there, over the resamples.
    pub baseline_ns: Spread,
    /// The baseline's divergence at the reference launch, on the first resample's blocks.
    pub baseline: Divergence,
    /// Every (strategy, launch) pair, fastest first (by median predicted time); never empty.
    pub ranked: Vec<Ranked>,
    /// Strategies that do not apply to the kernel.
    pub skipped: Vec<(Strategy, StrategyError)>,
    /// The device, in words.
    pub device: String,
    /// The sampling used.
    pub sampling: Sampling,
    /// Where the ranking's first pairs were modelled again on a larger sample
    /// ([`crate::advise_within`]): how many, and that sampling. They lead the ranking, in the
    /// order of their second predictions; the rest follow in their first ones.
    pub confirmed: Option<(usize, Sampling)>,
}

/// How much faster the model must predict another launch of a strategy than the strategy's
/// own launch ([`default_launch`], what the backend picks) before the advisor recommends it.
///
/// The model ranks launches of one strategy less surely than it ranks strategies. On H200
/// sweeps of loops whose items all cost alike (the aligned periodic block, grouped classes,
/// the body in every iteration) it predicted one resident wave of 128-thread blocks 1.6 %
/// faster than one thread per item, and the wave measured 5-11 % slower; on the held-out
/// two-path runs (H100) the same 1.2 % prediction measured 13 % slower
/// (`docs/results/advisor/techniques-h200/`, `docs/results/advisor/held-out-budget/`). The
/// backend's own launch, for its part, measured within 5 % of each strategy's best swept launch
/// on 14 of 15 workloads ([`Launch::for_items`]). Where the model's gain is real it is large
/// (one resident wave on the sunset map and the cost map: 1.29x and 1.14x predicted, 1.21x and
/// 1.07x measured), so a margin of 5 % keeps those. Only for the strategies whose threads each
/// run their own loop ([`Strategy::runs_per_thread`]): for a warp-level schedule over a block's
/// counter the backend's one resident wave measured 0.85x the best launch on the phased
/// periodic block, where the model's one thread per item was the best.
pub const LAUNCH_MARGIN: f64 = 0.05;

/// Which of `rows` (each a strategy, its predicted time over resamples, and whether its launch
/// is the strategy's own, [`default_launch`]) to recommend: the fastest by median, unless it is
/// not the plain kernel and does not beat the fastest plain pair in every resample (its slowest
/// resample faster than the plain pair's fastest); then that plain pair. Then the chosen
/// strategy at its own launch instead, unless the chosen launch is predicted faster than it by
/// more than [`LAUNCH_MARGIN`]. `None` for no rows.
///
/// A strategy's machinery is worth taking only where the model is sure it pays: on the
/// held-out workloads measured on an H100, pairs predicted within their resamples' spread of
/// the plain kernel ran anywhere from 0.57x to 1.07x its time (the cost map's dealt loops
/// desynchronise their lanes, which the model does not see), and the plain kernel is the one
/// its user would have written. Likewise a launch other than the backend's own.
pub fn recommend<T>(
    rows: &[T],
    strategy: impl Fn(&T) -> Strategy,
    time: impl Fn(&T) -> Spread,
    own_launch: impl Fn(&T) -> bool,
) -> Option<&T> {
    let fastest = rows
        .iter()
        .min_by(|a, b| time(a).median.total_cmp(&time(b).median))?;
    let plain = rows
        .iter()
        .filter(|r| strategy(r) == Strategy::BASELINE)
        .min_by(|a, b| time(a).median.total_cmp(&time(b).median));
    let pick = match plain {
        Some(p) if strategy(fastest) != Strategy::BASELINE && time(fastest).max >= time(p).min => p,
        _ => fastest,
    };
    let own = rows
        .iter()
        .find(|r| strategy(r) == strategy(pick) && own_launch(r))
        .filter(|own| time(own).median <= time(pick).median * (1.0 + LAUNCH_MARGIN));
    Some(own.unwrap_or(pick))
}

/// The launch the backend picks for `strategy` over `items` items of `kernel` on `gpu`
/// ([`Launch::for_items`]), its blocks per multiprocessor from `gpu`'s occupancy at the
/// strategy's registers (`registers`, else the calibration's default) and dynamic shared
/// memory: the launch a user who asks for none gets, which [`recommend`] keeps unless another
/// is predicted faster by more than [`LAUNCH_MARGIN`].
pub fn default_launch<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: &Strategy,
    items: u32,
    gpu: &Gpu,
    registers: Option<&Registers>,
) -> Launch {
    let regs = gpu.registers_of(strategy, registers)[0];
    let per_warp = shared_bytes_per_warp(kernel, strategy);
    Launch::for_items(strategy, items, gpu.calibration.sms, |t| {
        gpu.blocks_per_sm_sharing(t, regs, shared_bytes_per_block(per_warp, t))
            .ok()
    })
}

impl Advice {
    /// The recommended pair ([`recommend`]): the fastest predicted, unless it does not beat
    /// the plain kernel's fastest launch in every resample (then that launch), at the
    /// strategy's own launch unless the model predicts the other faster by more than
    /// [`LAUNCH_MARGIN`]. On a tie the one listed first: the simpler strategy, the smaller
    /// launch.
    pub fn recommended(&self) -> &Ranked {
        // `advise_launches` returns an error rather than an empty ranking.
        recommend(
            &self.ranked,
            |r| r.strategy,
            |r| r.time_ns,
            |r| r.own_launch,
        )
        .unwrap_or(&self.ranked[0])
    }

    /// `strategy`'s fastest launch, if it ran.
    pub fn prediction(&self, strategy: &Strategy) -> Option<&Ranked> {
        self.ranked.iter().find(|r| r.strategy == *strategy)
    }

    /// Each strategy's fastest launch, in the order of the ranking.
    pub fn best_per_strategy(&self) -> Vec<&Ranked> {
        let mut out: Vec<&Ranked> = Vec::new();
        for r in &self.ranked {
            if !out.iter().any(|o| o.strategy == r.strategy) {
                out.push(r);
            }
        }
        out
    }
}

/// Every (strategy, launch) pair [`advise_launches`] ranks: each strategy of `list` at its
/// [`candidate_launches`] for its registers.
pub(crate) fn candidate_pairs<K: Kernel + ?Sized>(
    kernel: &K,
    list: &[Strategy],
    items: u32,
    gpu: &Gpu,
    registers: Option<&Registers>,
) -> Vec<(Strategy, Launch, Grid)> {
    list.iter()
        .flat_map(|&strategy| {
            let regs = gpu.registers_of(&strategy, registers);
            let shared = shared_bytes_per_warp(kernel, &strategy);
            candidate_launches(&strategy, items, gpu, regs[0], shared)
                .into_iter()
                .map(move |(launch, grid)| (strategy, launch, grid))
        })
        .collect()
}

/// One model run per group of `pairs` (a strategy, the launch it is profiled at, the indices
/// of the pairs that share its runs), and the index of the group whose runs give the
/// baseline at `reference`, the launch every speedup is over (a group of its own, with no
/// pair, where no candidate shares it).
///
/// Pairs whose model runs are the same share them: grid-wide dealing at launches of one block
/// size (see `profiled_launch`) and, where `whole` launches run, launches of one strategy
/// whose warps run the same items whatever the block size (`same_warps`: one run, its warps
/// regrouped into each launch's blocks).
pub(crate) fn model_groups(
    pairs: &[(Strategy, Launch, Grid)],
    items: u32,
    reference: Launch,
    whole: bool,
) -> (usize, Vec<(Strategy, Launch, Vec<usize>)>) {
    let shares =
        |s: &Strategy, a: Launch, b: Launch| a == b || (whole && same_warps(s, a, b, items));
    let mut groups: Vec<(Strategy, Launch, Vec<usize>)> = Vec::new();
    for (i, &(strategy, launch, _)) in pairs.iter().enumerate() {
        let profiled = profiled_launch(&strategy, launch, items);
        match groups
            .iter_mut()
            .find(|(s, l, _)| *s == strategy && shares(s, *l, profiled))
        {
            Some((_, _, members)) => members.push(i),
            None => groups.push((strategy, profiled, vec![i])),
        }
    }
    let reference_run = profiled_launch(&Strategy::BASELINE, reference, items);
    let reference_group = match groups
        .iter()
        .position(|(s, l, _)| *s == Strategy::BASELINE && shares(s, *l, reference_run))
    {
        Some(g) => g,
        None => {
            groups.push((Strategy::BASELINE, reference_run, Vec::new()));
            groups.len() - 1
        }
    };
    (reference_group, groups)
}

/// Ranks every (strategy, launch) pair of `strategies` (the baseline always included) on
/// `items` items: each strategy at [`candidate_launches`], predicted on `gpu` from sampled
/// model runs (see the module docs).
///
/// # Errors
/// A strategy's bad parameter, a model run that never ends, or no launch that fits.
pub fn advise_launches<K: Kernel + Sync + ?Sized>(
    kernel: &K,
    items: u32,
    strategies: &[Strategy],
    gpu: &Gpu,
    sampling: &Sampling,
    compiled: &Compiled,
) -> Result<Advice, AdviseError> {
    if items == 0 {
        return Err(AdviseError::NoItems);
    }
    let registers = compiled.registers.as_ref();
    let reference = gpu.reference_launch(items, registers);
    let mut list: Vec<Strategy> = vec![Strategy::BASELINE];
    let mut skipped = Vec::new();
    for s in strategies {
        if list.contains(s) {
            continue;
        }
        match kernel.passes(s) {
            Err(e @ StrategyError::NotApplicable { .. }) => skipped.push((*s, e)),
            _ => list.push(*s),
        }
    }
    let pairs = candidate_pairs(kernel, &list, items, gpu, registers);
    let (ranked, base, baseline) =
        rank_pairs(kernel, items, &pairs, gpu, sampling, compiled, reference)?;
    Ok(Advice {
        shape: K::SHAPE,
        items,
        reference,
        baseline_ns: Spread::of(&base),
        confirmed: None,
        baseline,
        ranked,
        skipped,
        device: gpu.calibration.device.clone(),
        sampling: *sampling,
    })
}

/// `pairs` ranked by their predicted times on `sampling`'s model runs (runs shared where
/// `model_groups` says they are the same), fastest first, with the baseline's times at
/// `reference` over the resamples (every speedup's denominator) and its divergence.
pub(crate) fn rank_pairs<K: Kernel + Sync + ?Sized>(
    kernel: &K,
    items: u32,
    pairs: &[(Strategy, Launch, Grid)],
    gpu: &Gpu,
    sampling: &Sampling,
    compiled: &Compiled,
    reference: Launch,
) -> Result<(Vec<Ranked>, Vec<f64>, Divergence), AdviseError> {
    let registers = compiled.registers.as_ref();
    let whole = sampling.runs_whole_launch(items);
    let (reference_group, groups) = model_groups(pairs, items, reference, whole);
    let grouped = groups
        .par_iter()
        .enumerate()
        .map(|(g, (strategy, profiled, members))| {
            let runs = distinct_runs(
                kernel,
                *strategy,
                items,
                *profiled,
                gpu.calibration.sms,
                sampling,
                1 << 32,
                &compiled.loops,
            )?;
            let regs = gpu.registers_of(strategy, registers);
            let times = members
                .iter()
                .map(|&i| {
                    let launch = pairs[i].1;
                    let times = runs
                        .iter()
                        .map(|p| launch_time(&regrouped(p, launch, items), launch, gpu, &regs))
                        .collect::<Result<Vec<LaunchTime>, AdviseError>>()?;
                    Ok((i, padded(times, sampling)))
                })
                .collect::<Result<Vec<_>, AdviseError>>()?;
            let base = if g == reference_group {
                let ns = runs
                    .iter()
                    .map(|p| {
                        let p = regrouped(p, reference, items);
                        launch_time(&p, reference, gpu, &regs).map(|t| t.ns)
                    })
                    .collect::<Result<Vec<f64>, _>>()?;
                runs.first()
                    .map(|first| (padded(ns, sampling), Divergence::of(first)))
            } else {
                None
            };
            Ok((times, base))
        })
        .collect::<Result<Vec<_>, AdviseError>>()?;
    let mut times_of: Vec<Vec<LaunchTime>> = vec![Vec::new(); pairs.len()];
    let mut reference_runs = None;
    for (times, base) in grouped {
        for (i, t) in times {
            times_of[i] = t;
        }
        reference_runs = reference_runs.or(base);
    }
    let (base, baseline) = reference_runs.ok_or(AdviseError::NothingRan)?;
    let mut ranked = pairs
        .iter()
        .zip(times_of)
        .map(|(&(strategy, launch, grid), times)| {
            let ns: Vec<f64> = times.iter().map(|t| t.ns).collect();
            let speedups: Vec<f64> = base.iter().zip(&ns).map(|(b, t)| b / t).collect();
            let mid = Spread::of(&ns).median;
            let median_run = times
                .iter()
                .min_by(|a, b| (a.ns - mid).abs().total_cmp(&(b.ns - mid).abs()))
                .copied()
                .unwrap_or_default();
            Ok(Ranked {
                strategy,
                launch,
                grid,
                time_ns: Spread::of(&ns),
                speedup: Spread::of(&speedups),
                schedule_over_throughput: if median_run.throughput_ns > 0.0 {
                    median_run.schedule_ns / median_run.throughput_ns
                } else {
                    1.0
                },
                own_launch: strategy.runs_per_thread()
                    && launch == default_launch(kernel, &strategy, items, gpu, registers),
            })
        })
        .collect::<Result<Vec<Ranked>, AdviseError>>()?;
    // Stable: on a tie the earlier (simpler strategy, smaller block) stays first.
    ranked.sort_by(|a, b| a.time_ns.median.total_cmp(&b.time_ns.median));
    if ranked.is_empty() {
        return Err(AdviseError::NothingRan);
    }
    Ok((ranked, base, baseline))
}

impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} workload, {} items on {}; {}",
            self.shape,
            self.items,
            self.device,
            if self.sampling.runs_whole_launch(self.items) {
                "every launch run whole on the model (no sample)".to_string()
            } else {
                format!(
                    "sample: about {} items per (strategy, launch), whole multiprocessors (every block of one residue mod the SMs), one in each of equal strata, {} resamples (seed {})",
                    self.sampling.items, self.sampling.resamples, self.sampling.seed
                )
            }
        )?;
        writeln!(
            f,
            "reference: baseline at {} blocks x {} threads, predicted {:.3} ms",
            self.reference.blocks,
            self.reference.threads_per_block,
            self.baseline_ns.median * 1e-6
        )?;
        let b = &self.baseline;
        writeln!(
            f,
            "baseline: SIMD efficiency {:.1} %; loop iterations per warp {:.0} / {:.1} / {:.0} (min / mean / max)",
            b.simd_efficiency * 100.0,
            b.warp_steps.min,
            b.warp_steps.mean,
            b.warp_steps.max,
        )?;
        let (names, width) = strategy_column(self.best_per_strategy().iter().map(|r| r.strategy));
        writeln!(
            f,
            "  {:<width$} {:>21}  {:>20} {:>26} {:>9}",
            "strategy (its best launch)",
            "launch",
            "grid",
            "speedup min / median / max",
            "sched/thr"
        )?;
        let recommended = self.recommended().strategy;
        for (r, name) in self.best_per_strategy().iter().zip(&names) {
            writeln!(
                f,
                "{} {:<width$} {:>10} x {:>4} thr  {:>20} {:>8.3} / {:>6.3} / {:>6.3} {:>9.2}",
                if r.strategy == recommended { "*" } else { " " },
                name,
                r.launch.blocks,
                r.launch.threads_per_block,
                r.grid.to_string(),
                r.speedup.min,
                r.speedup.median,
                r.speedup.max,
                r.schedule_over_throughput,
            )?;
        }
        for (s, e) in &self.skipped {
            writeln!(f, "  {s}: skipped ({e})")?;
        }
        let b = self.recommended();
        write!(
            f,
            "recommended: {} at {} blocks x {} threads ({}), {:.3}x predicted",
            b.strategy, b.launch.blocks, b.launch.threads_per_block, b.grid, b.speedup.median,
        )?;
        let last = match self.confirmed {
            Some((_, confirm)) => confirm,
            None => self.sampling,
        };
        if !last.runs_whole_launch(self.items) {
            write!(
                f,
                " ({:.3}-{:.3} over resamples)",
                b.speedup.min, b.speedup.max
            )?;
        }
        match self.confirmed {
            Some((n, confirm)) if confirm.runs_whole_launch(self.items) => write!(
                f,
                "\nconfirmed: the first {} pairs and the plain kernel's best launch ({n} pairs) modelled again, every launch whole",
                crate::FINALISTS
            ),
            Some((n, confirm)) => write!(
                f,
                "\nconfirmed: the first {} pairs and the plain kernel's best launch ({n} pairs) modelled again on about {} items x {} resamples",
                crate::FINALISTS,
                confirm.items,
                confirm.resamples
            ),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-pass profile of `strategy` that ran the sampled `blocks` of `launch` (one warp
    /// each), each warp's work as given.
    fn one_warp_blocks(
        strategy: Strategy,
        launch: Launch,
        blocks: Vec<u32>,
        items: u32,
        warps: Vec<crate::profile::WarpWork>,
    ) -> Profile {
        Profile {
            strategy,
            counters: Default::default(),
            launches: vec![(0, Default::default())],
            warp_steps: vec![1; warps.len()],
            warp_counters: vec![Default::default(); warps.len()],
            launch,
            blocks,
            items,
            launch_warps: vec![warps],
            shared_bytes_per_warp: 0,
        }
    }

    /// The baseline's `blocks` blocks of one warp each on 4 SMs, synthesised from the `sampled`
    /// blocks whose warps issue `slots`.
    fn synthesized_on_4_sms(blocks: u32, sampled: Vec<u32>, slots: &[u64]) -> Vec<Vec<f64>> {
        let launch = Launch {
            threads_per_block: 32,
            blocks,
        };
        let warps = slots
            .iter()
            .map(|&slots| crate::profile::WarpWork {
                slots,
                ..Default::default()
            })
            .collect();
        let profile = one_warp_blocks(Strategy::BASELINE, launch, sampled, blocks * 32, warps);
        let mut cal = Calibration::uncalibrated_h100();
        cal.sms = 4;
        synthesize(&profile, 0, launch, &cal).blocks
    }

    #[test]
    fn samples_are_whole_multiprocessors_in_strata_and_differ_by_resample() {
        // 1,000 blocks of 128 on 100 SMs: 10 rounds, 1,280 items a residue; 10 residues wanted.
        let launch = Launch {
            threads_per_block: 128,
            blocks: 1000,
        };
        let s = Sampling {
            items: 128 * 100,
            resamples: 3,
            seed: 7,
        };
        let a = sample_blocks(128_000, launch, 100, &s, 0);
        let b = sample_blocks(128_000, launch, 100, &s, 1);
        assert_ne!(a, b);
        let residues: Vec<u32> = a.iter().filter(|&&b| b < 100).copied().collect();
        assert_eq!(residues.len(), 10, "{a:?}");
        // Whole residues: every round of each sampled multiprocessor, so every part of the
        // item range; never a prefix.
        assert_eq!(a.len(), 100);
        for &r in &residues {
            for round in 0..10 {
                assert!(a.binary_search(&(r + 100 * round)).is_ok(), "{a:?}");
            }
        }
        // One residue in each tenth of the multiprocessors, jittered: a workload whose period
        // divides the stride (an image of 10 blocks a row) is not sampled at one phase only.
        for (k, &r) in residues.iter().enumerate() {
            assert!(
                (k as u32 * 10..(k as u32 + 1) * 10).contains(&r),
                "{residues:?}"
            );
        }
        let phases: std::collections::BTreeSet<u32> = residues.iter().map(|r| r % 10).collect();
        assert!(phases.len() > 3, "{residues:?}");
        // A launch smaller than the sample is run whole, and so is one whose residues the
        // sample would all take.
        let small = Launch {
            threads_per_block: 128,
            blocks: 4,
        };
        assert_eq!(sample_blocks(512, small, 100, &s, 0), vec![0, 1, 2, 3]);
        let whole = Sampling {
            items: 128_000,
            ..s
        };
        assert_eq!(sample_blocks(128_000, launch, 100, &whole, 0).len(), 1000);
        // Three resamples of 50,000 items would run more than the launch's 128,000: it runs
        // whole.
        let dear = Sampling { items: 50_000, ..s };
        assert!(dear.runs_whole_launch(128_000) && !s.runs_whole_launch(128_000));
        assert_eq!(sample_blocks(128_000, launch, 100, &dear, 0).len(), 1000);
    }

    /// A workload whose model runs fit the time keeps its sampling; one that does not gets
    /// fewer items per run, so that groups x resamples x items x seconds per item is the time
    /// on the cores; never below the floor nor above what was asked.
    #[test]
    fn sampling_shrinks_to_the_time_and_no_further() {
        let s = Sampling::default(); // 2^19 items, 3 resamples: 2^20 items run whole.
        let items = 1 << 20;
        // 10 runs of 2^20 items at 1 µs each on 2 cores: 5.2 s, within 15 s.
        assert_eq!(s.within_seconds(items, 10, 1e-6, 15.0, 2), s);
        // At 10 µs each, 52 s: sampled, 3 resamples of n items per run, 10 · 3 · n · 10 µs = 30 s.
        let cut = s.within_seconds(items, 10, 1e-5, 15.0, 2);
        assert_eq!(cut.items, 100_000);
        assert_eq!((cut.resamples, cut.seed), (s.resamples, s.seed));
        assert!(!cut.runs_whole_launch(items));
        // Far too dear: the floor, not fewer.
        let floor = s.within_seconds(items, 10, 1.0, 15.0, 2);
        assert_eq!(floor.items, MIN_BUDGETED_ITEMS);
        // A sampling already below the floor is never raised.
        let small = Sampling { items: 1000, ..s };
        assert_eq!(small.within_seconds(items, 10, 1.0, 15.0, 2).items, 1000);
        // No time measured (a pilot too quick to time): unchanged.
        assert_eq!(s.within_seconds(items, 10, 0.0, 15.0, 2), s);
    }

    #[test]
    fn blocks_not_sampled_take_their_rounds_work() {
        // 8 blocks of one warp on 4 SMs (2 rounds), residues 0 and 2 sampled: round 0 light,
        // round 1 heavy. Blocks 1 and 3 run beside the light round, 5 and 7 beside the heavy
        // one; copying a neighbour in launch order would give block 3 block 4's heavy work.
        let blocks = synthesized_on_4_sms(8, vec![0, 2, 4, 6], &[1, 2, 10, 20]);
        for (b, w) in blocks.iter().enumerate() {
            let round = if b < 4 { [1.0, 2.0] } else { [10.0, 20.0] };
            assert!(round.contains(&w[0]), "block {b}: {blocks:?}");
        }
    }

    #[test]
    fn blocks_not_sampled_by_residue_are_drawn_from_their_neighbours_in_launch_order() {
        // Sampled blocks 0, 10, 20, 30 of 40 with warps of 1, 2, 3, 4 units, on 4 SMs: not whole
        // residues, so a block whose round no sampled residue beside it covers is one of the
        // sampled blocks around it in launch order, drawn per block, not all copies of one.
        let blocks = synthesized_on_4_sms(40, vec![0, 10, 20, 30], &[1, 2, 3, 4]);
        assert_eq!(blocks.len(), 40);
        for (b, w) in [(0, 1.0), (10, 2.0), (20, 3.0), (30, 4.0)] {
            assert_eq!(blocks[b], vec![w]);
        }
        // Block 14 lies nearest block 10: it is 1, 2 or 3 units; and the run 11..20 is not
        // one value repeated.
        assert!((1.0..=3.0).contains(&blocks[14][0]));
        let run: Vec<f64> = (11..20).map(|b| blocks[b][0]).collect();
        assert!(run.iter().any(|&w| w != run[0]), "{run:?}");
    }

    #[test]
    fn grid_wide_dealing_hands_out_claims_in_item_order() {
        // A profile at one item per thread (8 blocks of one warp: 8 claims of 32 items), the
        // last claim costly. At 2 blocks the launch's 2 warps keep claims 0 and 1 and take the
        // rest in item order: the costly one is dealt last and ends last.
        let work = |slots| crate::profile::WarpWork {
            slots,
            ..Default::default()
        };
        let mut claims = vec![work(10); 7];
        claims.push(work(1000));
        let profile = one_warp_blocks(
            Strategy::GRID_WIDE_DYNAMIC_WORK,
            Launch {
                threads_per_block: 32,
                blocks: 8,
            },
            (0..8).collect(),
            8 * 32,
            claims,
        );
        let mut cal = Calibration::uncalibrated_h100();
        cal.launch_overhead_us = 0.0;
        let launch = Launch {
            threads_per_block: 32,
            blocks: 2,
        };
        let work = synthesize(&profile, 0, launch, &cal);
        assert_eq!(work.blocks, vec![vec![10.0], vec![10.0]]);
        assert_eq!(work.queue, vec![10.0, 10.0, 10.0, 10.0, 10.0, 1000.0]);
        // Each warp alone on its SM issues every 4 cycles: both end their first three claims
        // at 120, then one takes the costly claim and ends at 120 + 4,000 cycles; an even
        // spread of the same 1,070 slots would end at 2,140.
        let gpu = Gpu::new(cal.clone()).unwrap_or_else(|e| panic!("{e}"));
        let t = launch_time(&profile, launch, &gpu, &[32]).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            (t.schedule_ns - 4120.0 * cal.ns_per_slot).abs() < 1e-6,
            "{t:?}"
        );
    }

    #[test]
    fn claims_on_the_launch_counter_bound_its_time() {
        // 4 sampled blocks of a 40-block launch, one warp each of 100 slots and 50 claims:
        // the launch makes about 40 x 50 = 2,000 claims; at 1 µs each, served one after
        // another, they take 2 ms, far longer than the work's issue time, which alone sets
        // the time of the same profile under a strategy that deals from per-block counters.
        let launch = Launch {
            threads_per_block: 32,
            blocks: 40,
        };
        let warp = crate::profile::WarpWork {
            slots: 100,
            atomics: 50,
            ..Default::default()
        };
        let profile = |strategy| {
            one_warp_blocks(
                strategy,
                launch,
                vec![0, 10, 20, 30],
                40 * 32 * 4,
                vec![warp; 4],
            )
        };
        let mut cal = Calibration::uncalibrated_h100();
        cal.grid_claim_ns = 1000.0;
        cal.launch_overhead_us = 0.0;
        let gpu = Gpu::new(cal).unwrap_or_else(|e| panic!("{e}"));
        let grid = launch_time(
            &profile(Strategy::GRID_WIDE_DYNAMIC_WORK),
            launch,
            &gpu,
            &[32],
        );
        let grid = grid.unwrap_or_else(|e| panic!("{e}"));
        assert!((grid.grid_claims - 2000.0).abs() < 1e-9, "{grid:?}");
        assert!(grid.schedule_ns.max(grid.throughput_ns) < 1e4, "{grid:?}");
        assert!((grid.ns - 2.0e6).abs() < 1e-3, "{grid:?}");
        let block = launch_time(
            &profile(Strategy::DYNAMIC_WORK_ASSIGNMENT),
            launch,
            &gpu,
            &[32],
        );
        let block = block.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(block.grid_claims, 0.0);
        assert!(block.ns < 1e3, "{block:?}");
    }

    #[test]
    fn the_plain_kernel_is_recommended_unless_a_strategy_beats_it_in_every_resample() {
        let t = |min, median, max| Spread { min, median, max };
        let plain = (Strategy::BASELINE, t(1.0, 1.1, 1.2));
        // Faster by median but not in every resample: the plain kernel.
        let close = (Strategy::DYNAMIC_WORK_ASSIGNMENT, t(0.9, 1.0, 1.05));
        let rows = [plain, close];
        let pick = recommend(&rows, |r| r.0, |r| r.1, |_| false);
        assert_eq!(pick.map(|r| r.0), Some(Strategy::BASELINE));
        // Faster in every resample (its slowest below the plain kernel's fastest): the strategy.
        let clear = (Strategy::GRID_WIDE_DYNAMIC_WORK, t(0.8, 0.85, 0.95));
        let rows = [plain, close, clear];
        let pick = recommend(&rows, |r| r.0, |r| r.1, |_| false);
        assert_eq!(pick.map(|r| r.0), Some(Strategy::GRID_WIDE_DYNAMIC_WORK));
        // Without a plain row, the fastest; without rows, none.
        let rows = [close, clear];
        let pick = recommend(&rows, |r| r.0, |r| r.1, |_| false);
        assert_eq!(pick.map(|r| r.0), Some(Strategy::GRID_WIDE_DYNAMIC_WORK));
        let none: [(Strategy, Spread); 0] = [];
        assert!(recommend(&none, |r| r.0, |r| r.1, |_| false).is_none());
    }

    /// The backend's own launch stays unless another launch of the same strategy is predicted
    /// faster by more than the margin: 1.6 % faster (the one-wave launches of uniform loops that
    /// measured 5-11 % slower) keeps it; 20 % faster takes the other; the margin never trades
    /// strategies.
    #[test]
    fn a_strategy_keeps_its_own_launch_unless_another_is_predicted_clearly_faster() {
        let t = |ns| Spread {
            min: ns,
            median: ns,
            max: ns,
        };
        let own = (Strategy::BASELINE, t(1.0), true);
        let near = (Strategy::BASELINE, t(1.0 / 1.016), false);
        let rows = [own, near];
        let pick = recommend(&rows, |r| r.0, |r| r.1, |r| r.2);
        assert!(pick.is_some_and(|r| r.2), "kept the own launch");
        let clear = (Strategy::BASELINE, t(0.8), false);
        let rows = [own, near, clear];
        let pick = recommend(&rows, |r| r.0, |r| r.1, |r| r.2);
        assert_eq!(pick.map(|r| r.1.median), Some(0.8));
        // A strategy clearly faster than the plain kernel, 2 % faster than its own launch:
        // that strategy at its own launch, not the plain kernel's.
        let grid_own = (Strategy::GRID_WIDE_DYNAMIC_WORK, t(0.7), true);
        let grid_near = (Strategy::GRID_WIDE_DYNAMIC_WORK, t(0.7 / 1.02), false);
        let rows = [own, grid_near, grid_own];
        let pick = recommend(&rows, |r| r.0, |r| r.1, |r| r.2);
        assert_eq!(
            pick.map(|r| (r.0, r.2)),
            Some((Strategy::GRID_WIDE_DYNAMIC_WORK, true))
        );
    }

    #[test]
    fn whole_launches_of_as_many_threads_share_one_model_run_and_sampled_ones_do_not() {
        let items = 1 << 16;
        let at = |threads_per_block, blocks| Launch {
            threads_per_block,
            blocks,
        };
        let wide = (Strategy::BASELINE, at(256, 256), Grid::OneItemPerThread);
        let narrow = (Strategy::BASELINE, at(128, 512), Grid::OneItemPerThread);
        let wave = (Strategy::BASELINE, at(256, 64), Grid::OneWave);
        let dynamic = (
            Strategy::DYNAMIC_WORK_ASSIGNMENT,
            at(256, 256),
            Grid::OneItemPerThread,
        );
        let pairs = [wide, narrow, wave, dynamic];
        // Whole: the baseline's grid-stride warps run the same items at 65,536 threads
        // whatever the block, so `wide` and `narrow` are one run, the reference one of them.
        let (reference, groups) = model_groups(&pairs, items, at(256, 256), true);
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[reference].2, vec![0, 1]);
        // Sampled: every launch its own run; a reference no pair shares is a run of its own.
        let (reference, groups) = model_groups(&pairs, items, at(512, 128), false);
        assert_eq!(groups.len(), 5);
        assert!(groups[reference].2.is_empty());
    }

    #[test]
    fn spread_of_values() {
        let s = Spread::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!((s.min, s.median, s.max), (1.0, 2.5, 10.0));
        assert_eq!(Spread::of(&[]), Spread::default());
    }
}
