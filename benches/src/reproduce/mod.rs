//! Re-runs every seed paper's experiment on the [`crate::Bench`] backend and writes
//! one results page per figure or table (`docs/results/<device>/`): markdown with the paper's
//! numbers beside ours, CSV, JSON and an SVG plot, plus an index.
//!
//! ```text
//! cargo run --release -p reconverge-apps --example reproduce -- --out docs/results/cpu --quick
//! cargo run --release -p reconverge-apps --example reproduce --features cuda -- --out docs/results/h100
//! ```
//!
//! Every experiment is generic over `Backend<K>`: only the `Bench` alias changes between the
//! CPU and the GPU. SIMD efficiency always comes from the CPU reference model (counters on) for
//! the same configuration at a smaller size; registers and occupancy come from the driver where
//! the backend has one ([`Probe`]) and read "n/a (CPU)" otherwise.
//!
//! Every timed page states its strategies against the fastest plain kernel of its workload
//! (issue 40: the loop a CUDA programmer writes first, [`PlainRef`]; the prefixes in
//! [`Experiment::plain`]), and where the papers' benchmarks give both paths the same shape,
//! so that the compiler merges them and the plain kernel never diverges, the page runs the
//! real-divergence variant of the workload beside the original (seed 002 figs. 10-12 and
//! table 1, seed 001 fig. 10, seed 004 tables 2-3), with the technique written by hand where
//! the paper kernels have it ([`PlainRef::hand_written`]).

pub mod advisor;
mod common;
mod gems34;
pub mod page;
pub mod paper;
pub mod registry;
mod seed001;
mod seed002;
mod seed004;
pub mod setting;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reconverge_backend::{Backend, Counters, Kernel, Strategy};
use reconverge_cpu::{Counting, CpuBackend};

use crate::Bench;
pub use page::{Page, Plot, Provenance, Table};
pub use registry::{EXPERIMENTS, Experiment, Paper, UnknownPage, pages};
pub use setting::{Runs, Setting, Sized, Workload};

/// How big the run is. Sizes in `experiments` are the GPU sizes (chosen so that every
/// experiment together runs in a few minutes on an H100); the CPU divides them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// "full", "quick" or "tiny".
    pub name: &'static str,
    /// Item counts are divided by this (never below one block's worth).
    pub divisor: u32,
    /// Timed repetitions per (configuration, strategy); the median is reported.
    pub reps: u32,
    /// Items of the CPU reference model's counting run (SIMD efficiency), at most.
    pub model_items: u32,
}

impl Scale {
    /// The GPU sizes.
    pub const FULL: Scale = Scale {
        name: "full",
        divisor: 1,
        reps: 7,
        model_items: 16384,
    };
    /// The CPU run and CI: sizes / 64, 3 repetitions.
    pub const QUICK: Scale = Scale {
        name: "quick",
        divisor: 64,
        reps: 3,
        model_items: 8192,
    };
    /// The test: every page, tiny sizes, one repetition.
    pub const TINY: Scale = Scale {
        name: "tiny",
        divisor: 8192,
        reps: 1,
        model_items: 512,
    };

    /// Timed repetitions of the rows a page shows beside the papers' originals (the
    /// real-divergence variants, the plain kernels): half of [`Scale::reps`], rounded up, so
    /// that the whole GPU run stays near two minutes.
    pub fn side_reps(&self) -> u32 {
        self.reps.div_ceil(2).max(1)
    }

    /// Items of the CPU model's sample for the rows a page shows beside the papers' originals:
    /// an eighth of [`Scale::model_items`], at least 512.
    pub fn side_model_items(&self) -> u32 {
        (self.model_items / 8).max(512)
    }

    /// `full` items scaled down, at least `min`.
    pub fn items(&self, full: u32, min: u32) -> u32 {
        (full / self.divisor.max(1)).max(min)
    }
}

/// Registers and occupancy per pass, where the backend knows them (the driver does).
pub trait Probe<K: Kernel> {
    /// Registers per thread of each pass's kernel of `strategy`, or empty where unknown.
    fn registers(&self, kernel: &K, strategy: Strategy) -> Vec<Option<u32>>;
}

#[cfg(not(feature = "cuda"))]
impl<K: Kernel> Probe<K> for Bench {
    fn registers(&self, _: &K, _: Strategy) -> Vec<Option<u32>> {
        Vec::new()
    }
}

#[cfg(feature = "cuda")]
impl<K: reconverge_gpu::DeviceKernel> Probe<K> for Bench {
    fn registers(&self, kernel: &K, strategy: Strategy) -> Vec<Option<u32>> {
        reconverge_gpu::CudaBackend::entry_points(kernel, &strategy)
            .map(|names| {
                names
                    .iter()
                    .map(|n| {
                        self.gpu()
                            .attributes(n)
                            .ok()
                            .map(|a| a.registers_per_thread)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The fastest plain kernel of one setting: the loop a CUDA programmer writes first, with none
/// of reconverge's machinery, which the pages state every strategy against (issue 40).
#[derive(Clone, Debug, PartialEq)]
pub struct PlainBest {
    /// Its schedule (`one_per_item`, `grid_stride`, `persistent`, `block_persistent`), or the
    /// hand-written entry point's name.
    pub schedule: &'static str,
    /// Median kernel time of the repetitions, seconds.
    pub median_s: f64,
    /// Its outputs equal the reconverge baseline's.
    pub outputs_match: bool,
}

impl PlainBest {
    /// Median in milliseconds.
    pub fn ms(&self) -> f64 {
        self.median_s * 1e3
    }
}

/// How many times faster than the best plain kernel a run of `ms` is: the plain kernel's time
/// over the run's, so above 1 means the strategy wins. `None` where either is missing (the
/// CPU backend has no plain kernels) or not a positive time.
pub fn x_plain(ms: Option<f64>, plain: Option<&PlainBest>) -> Option<f64> {
    let (ms, p) = (ms?, plain?.ms());
    (ms > 0.0 && p > 0.0 && ms.is_finite() && p.is_finite()).then(|| p / ms)
}

/// The plain kernels of a workload, where the backend has them (the GPU's paper-kernels
/// module does, under `prefix`; the CPU backend has none).
pub trait PlainRef<K: Kernel> {
    /// Times every plain schedule of `prefix` on `sized` (`reps` repetitions, median) and
    /// returns the fastest that ran, or `None` where there are none.
    fn best_plain(&self, prefix: &str, sized: &Sized<K>, reps: u32) -> Option<PlainBest>;

    /// Times the hand-written entry point `name` (a technique's twin, such as
    /// `reconverge_device::unification_twin!`'s) on `sized` at its own launch, as
    /// [`PlainRef::best_plain`] times a plain kernel; `None` where it did not run.
    fn hand_written(&self, name: &'static str, sized: &Sized<K>, reps: u32) -> Option<PlainBest>;
}

#[cfg(not(feature = "cuda"))]
impl<K: Kernel> PlainRef<K> for Bench {
    fn best_plain(&self, _: &str, _: &Sized<K>, _: u32) -> Option<PlainBest> {
        None
    }

    fn hand_written(&self, _: &'static str, _: &Sized<K>, _: u32) -> Option<PlainBest> {
        None
    }
}

#[cfg(feature = "cuda")]
impl<K> PlainRef<K> for Bench
where
    K: reconverge_gpu::DeviceKernel,
    K::Output: PartialEq,
    Bench: Backend<K>,
{
    fn best_plain(&self, prefix: &str, sized: &Sized<K>, reps: u32) -> Option<PlainBest> {
        use reconverge_gpu::PlainSchedule;
        let reference = self
            .run(&sized.kernel, Strategy::BASELINE, sized.items, sized.launch)
            .ok()?
            .outputs;
        let block = common::BLOCK;
        let mut best: Option<PlainBest> = None;
        for schedule in PlainSchedule::ALL {
            // One thread per item for the one-per-item kernel, the device filled once for the
            // loops over items.
            let blocks = if schedule == PlainSchedule::OnePerItem {
                sized.items.div_ceil(block).max(1)
            } else {
                resident_blocks(self, block)
            };
            let launch = reconverge_backend::Launch {
                threads_per_block: block,
                blocks,
            };
            let run = || self.run_plain(prefix, schedule, &sized.kernel, sized.items, launch);
            let Some(m) = time_entry(schedule.name(), run, &reference, reps) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| m.median_s < b.median_s) {
                best = Some(m);
            }
        }
        best
    }

    fn hand_written(&self, name: &'static str, sized: &Sized<K>, reps: u32) -> Option<PlainBest> {
        let reference = self
            .run(&sized.kernel, Strategy::BASELINE, sized.items, sized.launch)
            .ok()?
            .outputs;
        let run = || self.run_hand_written(name, &sized.kernel, sized.items, sized.launch);
        time_entry(name, run, &reference, reps)
    }
}

/// Times `run` (an untimed first run for the outputs, then `reps` timed ones, median) as
/// `name`; `None` where its first run fails or no time was measured.
#[cfg(feature = "cuda")]
fn time_entry<O: PartialEq, E>(
    name: &'static str,
    run: impl Fn() -> Result<reconverge_backend::Run<O>, E>,
    reference: &[O],
    reps: u32,
) -> Option<PlainBest> {
    let first = run().ok()?;
    let mut times: Vec<f64> = (0..reps.max(1))
        .filter_map(|_| run().ok().map(|r| run_time(&r).as_secs_f64()))
        .collect();
    let m = PlainBest {
        schedule: name,
        median_s: median(&mut times),
        outputs_match: first.outputs == reference,
    };
    (m.median_s > 0.0).then_some(m)
}

/// The device the timings come from, in words: the CPU model from `/proc/cpuinfo` with the
/// thread count, or the GPU's name, compute capability and multiprocessors.
#[cfg(not(feature = "cuda"))]
pub fn device_name(_backend: &Bench) -> String {
    let model = reconverge_cpu::host::cpu_model();
    let threads = rayon_threads();
    format!("{model}, {threads} threads (CPU backend: warps of 32 emulated in lockstep)")
}

#[cfg(not(feature = "cuda"))]
fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The device the timings come from, in words.
#[cfg(feature = "cuda")]
pub fn device_name(backend: &Bench) -> String {
    let d = backend.gpu().device();
    format!(
        "{} (compute capability {}.{}, {} SMs, {} GiB)",
        d.name,
        d.major,
        d.minor,
        d.multiprocessors,
        d.total_memory >> 30
    )
}

/// The device's occupancy limits, where registers are measured (the GPU).
#[cfg(not(feature = "cuda"))]
pub fn device_arch(_backend: &Bench) -> Option<reconverge_occupancy::ArchLimits> {
    None
}

/// The device's occupancy limits, from its compute capability.
#[cfg(feature = "cuda")]
pub fn device_arch(backend: &Bench) -> Option<reconverge_occupancy::ArchLimits> {
    let d = backend.gpu().device();
    reconverge_occupancy::ArchLimits::for_compute_capability(
        reconverge_occupancy::ComputeCapability::new(
            u32::try_from(d.major).ok()?,
            u32::try_from(d.minor).ok()?,
        ),
    )
    .ok()
    .copied()
}

/// Blocks of `threads_per_block` that fill the device once (persistent-thread launches).
#[cfg(not(feature = "cuda"))]
pub fn resident_blocks(_backend: &Bench, _threads_per_block: u32) -> u32 {
    16
}

/// Blocks of `threads_per_block` that fill the device once (persistent-thread launches).
#[cfg(feature = "cuda")]
pub fn resident_blocks(backend: &Bench, threads_per_block: u32) -> u32 {
    let d = backend.gpu().device();
    let per_sm =
        (d.max_threads_per_multiprocessor.max(32) as u32 / threads_per_block.max(32)).max(1);
    per_sm * d.multiprocessors.max(1) as u32
}

/// What one (configuration, strategy) measured.
#[derive(Clone, Debug, Default)]
pub struct Meas {
    /// The strategy.
    pub strategy: Option<Strategy>,
    /// Median time of the repetitions (kernel time on the GPU, wall time on the CPU), seconds.
    pub median_s: f64,
    /// Median time of each pass, seconds.
    pub pass_s: Vec<f64>,
    /// Median wall time of the whole run (host work between passes included), seconds.
    pub wall_s: f64,
    /// Occupancy of each pass's kernel (driver), where known.
    pub occupancy: Vec<Option<f64>>,
    /// Registers per thread of each pass's kernel, where known.
    pub registers: Vec<Option<u32>>,
    /// The CPU reference model's counters for the same configuration (smaller size).
    pub counters: Option<Counters>,
    /// Outputs equal the baseline's.
    pub outputs_match: bool,
    /// Why it did not run (no entry point on the GPU, a strategy error …).
    pub error: Option<String>,
}

impl Meas {
    /// Whether it ran.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.median_s > 0.0
    }
    /// Model SIMD efficiency.
    pub fn simd(&self) -> Option<f64> {
        self.counters.as_ref().map(Counters::simd_efficiency)
    }
    /// Median in milliseconds, `None` if it did not run.
    pub fn ms(&self) -> Option<f64> {
        self.ok().then_some(self.median_s * 1e3)
    }
    /// Sum of the medians of passes `from..` in milliseconds (a multi-pass strategy's passes
    /// after a setup pass), `None` if it did not run or has no such pass.
    pub fn passes_ms(&self, from: usize) -> Option<f64> {
        (self.ok() && self.pass_s.len() > from)
            .then(|| self.pass_s.iter().skip(from).sum::<f64>() * 1e3)
    }
    /// `base`'s median over this one's.
    pub fn speedup_over(&self, base: &Meas) -> Option<f64> {
        (self.ok() && base.ok()).then(|| base.median_s / self.median_s)
    }
    /// Occupancy of pass `p`.
    pub fn occ(&self, p: usize) -> Option<f64> {
        self.occupancy.get(p).copied().flatten()
    }
    /// Registers of pass `p`.
    pub fn regs(&self, p: usize) -> Option<f64> {
        self.registers.get(p).copied().flatten().map(f64::from)
    }
}

/// The median of `v` (0 when empty).
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn run_time<O>(run: &reconverge_backend::Run<O>) -> Duration {
    if cfg!(feature = "cuda") && !run.pass_times.is_empty() {
        run.pass_times.iter().sum()
    } else {
        run.elapsed
    }
}

/// The backends and settings of one reproduction run.
pub struct Ctx {
    /// The backend that is timed.
    pub timing: Bench,
    /// The CPU reference model with counters on (SIMD efficiency, branch fractions).
    pub model: CpuBackend,
    /// Sizes and repetitions.
    pub scale: Scale,
    /// Device, date, command.
    pub prov: Provenance,
    /// The advisor's prediction of every measured setting (issue 15's page).
    pub advisor: advisor::AdvisorLog,
}

impl Ctx {
    /// Runs `runs.timed` under each of `strategies` (the first is the reference whose outputs
    /// the others must equal, normally the baseline): one untimed run each (warm-up and
    /// outputs), then `reps` rounds that time every strategy in turn, so ratios come from one
    /// run; and a counted run of `runs.sample` on the CPU model.
    pub fn measure<K>(&self, runs: &Runs<K>, strategies: &[Strategy]) -> Vec<Meas>
    where
        K: Kernel + Sync + std::fmt::Debug,
        K::Output: Default + Send + Sync + PartialEq,
        Bench: Backend<K> + Probe<K>,
    {
        self.measure_reps(runs, strategies, self.scale.reps)
    }

    /// [`Ctx::measure`] with the best plain kernel of `prefix` (issue 40's reference) timed
    /// on the same run, `reps` repetitions each: the pages' rows beside the papers' originals
    /// (the real-divergence variants) pass fewer than [`Scale::reps`] to keep the GPU run
    /// short.
    pub fn measure_with_plain<K>(
        &self,
        runs: &Runs<K>,
        strategies: &[Strategy],
        prefix: &str,
        reps: u32,
    ) -> (Vec<Meas>, Option<PlainBest>)
    where
        K: Kernel + Sync + std::fmt::Debug,
        K::Output: Default + Send + Sync + PartialEq,
        Bench: Backend<K> + Probe<K> + PlainRef<K>,
    {
        let m = self.measure_reps(runs, strategies, reps);
        let plain = self.timing.best_plain(prefix, &runs.timed, reps);
        (m, plain)
    }

    /// [`Ctx::measure`] with `reps` timed rounds instead of the scale's.
    pub fn measure_reps<K>(&self, runs: &Runs<K>, strategies: &[Strategy], reps: u32) -> Vec<Meas>
    where
        K: Kernel + Sync + std::fmt::Debug,
        K::Output: Default + Send + Sync + PartialEq,
        Bench: Backend<K> + Probe<K>,
    {
        let (t, sample) = (&runs.timed, &runs.sample);
        let mut out: Vec<Meas> = Vec::with_capacity(strategies.len());
        let mut reference: Option<Vec<K::Output>> = None;
        for &s in strategies {
            let mut m = Meas {
                strategy: Some(s),
                ..Meas::default()
            };
            match self.timing.run(&t.kernel, s, t.items, t.launch) {
                Ok(run) => {
                    m.occupancy = run.occupancy.clone();
                    m.outputs_match = match &reference {
                        None => true,
                        Some(r) => *r == run.outputs,
                    };
                    if reference.is_none() {
                        reference = Some(run.outputs);
                    }
                }
                Err(e) => m.error = Some(e.to_string()),
            }
            m.registers = self.timing.registers(&t.kernel, s);
            m.counters = self
                .model
                .run(&sample.kernel, s, sample.items, sample.launch)
                .ok()
                .and_then(|r| r.counters);
            out.push(m);
        }
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); strategies.len()];
        let mut passes: Vec<Vec<Vec<f64>>> = vec![Vec::new(); strategies.len()];
        let mut walls: Vec<Vec<f64>> = vec![Vec::new(); strategies.len()];
        for _ in 0..reps.max(1) {
            for (i, &s) in strategies.iter().enumerate() {
                if out[i].error.is_some() {
                    continue;
                }
                match self.timing.run(&t.kernel, s, t.items, t.launch) {
                    Ok(run) => {
                        times[i].push(run_time(&run).as_secs_f64());
                        walls[i].push(run.elapsed.as_secs_f64());
                        for (p, t) in run.pass_times.iter().enumerate() {
                            if passes[i].len() <= p {
                                passes[i].push(Vec::new());
                            }
                            passes[i][p].push(t.as_secs_f64());
                        }
                    }
                    Err(e) => out[i].error = Some(e.to_string()),
                }
            }
        }
        for (i, m) in out.iter_mut().enumerate() {
            m.median_s = median(&mut times[i]);
            m.pass_s = passes[i].iter_mut().map(|v| median(v)).collect();
            m.wall_s = median(&mut walls[i]);
        }
        let sample = &runs.sample;
        self.advisor.record(
            format!("{:?}", sample.kernel),
            &sample.kernel,
            sample.items,
            sample.launch,
            strategies,
            &out,
        );
        out
    }
}

/// Options of [`run`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Output folder (created).
    pub out: PathBuf,
    /// Sizes and repetitions.
    pub scale: Scale,
    /// The command line to print on every page.
    pub command: String,
    /// Only experiments with a page whose name contains one of these (empty: all); a name
    /// that no page contains is an [`UnknownPage`] error.
    pub only: Vec<String>,
}

/// What [`run`] wrote.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Page names (file stems) in order.
    pub pages: Vec<String>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
}

/// Why [`run`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `--only` name matches no page.
    #[error(transparent)]
    UnknownPage(#[from] UnknownPage),
    /// Writing a page or an index failed.
    #[error("writing the results: {0}")]
    Io(#[from] std::io::Error),
}

/// UTC "YYYY-MM-DD HH:MM UTC" of now.
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// Runs every experiment (or those of `opts.only`) and writes the pages and the index.
pub fn run(opts: &Options) -> Result<Summary, Error> {
    let experiments = registry::select(&opts.only)?;
    let started = Instant::now();
    std::fs::create_dir_all(&opts.out)?;
    let timing = crate::timing_backend(0);
    let prov = Provenance {
        backend: if cfg!(feature = "cuda") {
            "cuda"
        } else {
            "cpu"
        }
        .into(),
        device: device_name(&timing),
        date: utc_now(),
        command: opts.command.clone(),
        scale: format!(
            "{} (GPU sizes / {}, median of {} runs)",
            opts.scale.name, opts.scale.divisor, opts.scale.reps
        ),
    };
    let ctx = Ctx {
        advisor: advisor::AdvisorLog::new(device_arch(&timing)),
        timing,
        model: CpuBackend::new().counting(Counting::On),
        scale: opts.scale,
        prov,
    };
    let mut written = Vec::new();
    for e in experiments {
        let name = e.pages.join(" + ");
        let t0 = Instant::now();
        eprintln!("[reproduce] {name} ...");
        ctx.advisor.begin(&name);
        for mut page in (e.build)(&ctx) {
            page.write(&opts.out, &ctx.prov)?;
            written.push(page);
        }
        eprintln!("[reproduce] {name}: {:.1} s", t0.elapsed().as_secs_f64());
    }
    let mut advisor_page = ctx.advisor.page(ctx.advisor.arch.is_some());
    advisor_page.write(&opts.out, &ctx.prov)?;
    written.push(advisor_page);
    write_index(&opts.out, &ctx.prov, &written, started.elapsed())?;
    if let Some(parent) = opts.out.parent() {
        write_top_index(parent)?;
    }
    Ok(Summary {
        pages: written.iter().map(|p| p.name.clone()).collect(),
        elapsed: started.elapsed(),
    })
}

fn write_index(
    dir: &Path,
    prov: &Provenance,
    pages: &[Page],
    elapsed: Duration,
) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let mut md = String::new();
    let _ = writeln!(md, "{INDEX_TITLE} {}\n", prov.device);
    let _ = writeln!(
        md,
        "*Generated by `{}` on {} in {:.0} s ({}). Do not edit by hand.*\n",
        prov.command,
        prov.date,
        elapsed.as_secs_f64(),
        prov.scale
    );
    let _ = writeln!(md, "| page | paper | first finding | not yet implemented |");
    let _ = writeln!(md, "|---|---|---|---|");
    for p in pages {
        let first = p.findings.first().cloned().unwrap_or_else(|| "—".into());
        let missing = if p.missing.is_empty() {
            "—".to_string()
        } else {
            format!("{} item(s)", p.missing.len())
        };
        let _ = writeln!(
            md,
            "| [{}]({}.md) | {} | {} | {} |",
            p.title,
            p.name,
            p.source,
            first.replace('|', "/"),
            missing
        );
    }
    let missing: Vec<String> = pages
        .iter()
        .flat_map(|p| p.missing.iter().map(move |m| format!("{}: {m}", p.title)))
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(md, "\n## Not yet implemented\n");
        for m in missing {
            let _ = writeln!(md, "- {m}");
        }
    }
    // Another tool's README in the same folder (a device check) is left alone.
    let readme = dir.join("README.md");
    let ours = std::fs::read_to_string(&readme)
        .map(|s| s.starts_with(INDEX_TITLE))
        .unwrap_or(true);
    let file = if ours {
        readme
    } else {
        dir.join("reproduce.md")
    };
    std::fs::write(file, md)
}

/// First words of the index this module writes.
const INDEX_TITLE: &str = "# Seed-paper experiments on";

/// Rewrites `<parent>/README.md`: one link per results folder that has a `README.md`.
fn write_top_index(parent: &Path) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let mut dirs: Vec<(String, String)> = Vec::new();
    for e in std::fs::read_dir(parent)?.flatten() {
        let path = e.path();
        for readme in [path.join("README.md"), path.join("reproduce.md")] {
            if path.is_dir() && readme.is_file() {
                let folder = e.file_name().to_string_lossy().into_owned();
                let file = readme
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let name = format!("{folder}/{file}");
                let title = std::fs::read_to_string(&readme)
                    .ok()
                    .and_then(|s| {
                        s.lines()
                            .next()
                            .map(|l| l.trim_start_matches("# ").to_string())
                    })
                    .unwrap_or_else(|| name.clone());
                dirs.push((name, title));
            }
        }
    }
    for e in std::fs::read_dir(parent)?.flatten() {
        let path = e.path();
        if path.is_dir() && !path.join("README.md").is_file() {
            let mds: Vec<String> = std::fs::read_dir(&path)?
                .flatten()
                .map(|f| f.file_name().to_string_lossy().into_owned())
                .filter(|f| f.ends_with(".md"))
                .collect();
            for m in mds {
                let name = format!("{}/{m}", e.file_name().to_string_lossy());
                dirs.push((name.clone(), name));
            }
        }
    }
    dirs.sort();
    let mut md = String::from("# Results\n\n");
    md.push_str(
        "*Generated by `cargo run --release -p reconverge-apps --example reproduce` (it rewrites this index after each run). Each folder is one device: the seed papers' figures and tables re-run there, with the papers' numbers beside ours.*\n\n",
    );
    for (name, title) in dirs {
        let _ = writeln!(md, "- [{title}]({name})");
    }
    std::fs::write(parent.join("README.md"), md)
}
