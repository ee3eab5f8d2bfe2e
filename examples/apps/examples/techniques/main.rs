//! reconverge's warp-level techniques where divergence is real: SYN-ITDELAY with paths of
//! distinct shape (`reconverge_workloads::synthetic::SynItDelayDistinct`), swept over the
//! branch frequency `f` and the branch ratio `r` as seed 002's figs. 10-11 and table 1 sweep
//! them, every strategy at its default launch beside the plain Rust kernels of the same
//! workload, and the paper's original SYN-ITDELAY (same-shaped paths) at the same settings.
//!
//! ```sh
//! cargo run --release -p reconverge-apps --example techniques -- --out DIR               # CPU
//! cargo run --release -p reconverge-apps --features cuda --example techniques -- --out DIR --backend cuda
//! ```
//!
//! On the CPU it writes each setting's outputs (`DIR/<setting>.out`, raw little endian) and
//! `DIR/settings.tsv`, which `references/cuda/techniques.cu` (the hand-written CUDA C++ twins)
//! reads and checks its kernels against. With `--backend cuda` it also times, on GPU 0, every
//! strategy with an entry point at its default launch, the four plain Rust kernels and
//! iteration delaying's Rust twins (`delaying.rs`), every run's outputs compared with the
//! CPU's, and writes `DIR/<setting>.tsv` (`reconverge_gpu::comparison::comparison_tsv`). `scripts/techniques-page.py` makes
//! `docs/results/techniques/` from the folder. Seed 004's branch path unification with paths of
//! distinct shape runs too (`unification.rs`: `unify-*` settings, its Rust twins timed beside
//! it, `references/cuda/unification.cu` its CUDA C++ twins), and seed 001's branch splitting
//! with a float else branch (`splitting.rs`: `split-*` settings and its Rust twin), GPU Gems 2
//! ch. 34's z-cull masking and occlusion-query loop beside their Rust twins (`gems34.rs`:
//! `zcull-*` and `occlusion-*` settings), and thread-data remapping on items of two interleaved
//! classes (`remapping.rs`: `classes-*` settings, `references/cuda/thread_data_remapping.cu`
//! its CUDA C++ twin).
//! Speculative reconvergence (`periodic-*`) and collaborative context collection (`rare-*`,
//! its stacks in dynamic shared memory) run beside their workloads' plain Rust kernels.

#[path = "../common/mod.rs"]
mod common;
mod delaying;
mod gems34;
mod remapping;
mod splitting;
mod unification;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use rayon::prelude::*;
use reconverge_transforms::BranchLoopKernel;
use reconverge_workloads::synthetic::{
    ItDelayOutput, PeriodicBlockLoop, RareCostlyBody, SynItDelayDistinct,
};

#[derive(Parser, Debug)]
#[command(about = "reconverge's warp-level techniques against the plain kernels, real divergence")]
pub(crate) struct Args {
    /// Folder for the expected outputs and the tables.
    #[arg(long, default_value = "techniques-results")]
    out: PathBuf,
    /// `cpu` (expected outputs only) or `cuda` (and the GPU comparison).
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Timed runs per code; the median is reported.
    #[arg(long, default_value_t = 15)]
    repeats: u32,
    /// Items per setting (the paper's runs use 2^20).
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u32).range(1..=(1 << 24)))]
    items: u32,
    /// Only the settings whose name contains this (`distinct-f0.1-r8`: one), for profilers.
    #[arg(long, default_value = "")]
    only: String,
    /// Items of the two-path families (branch path unification, branch splitting): enough
    /// that 64 items per thread still fill an H100/H200 (seed 004's unified kernel does its
    /// DATA_PER_THREAD times the data with the same threads).
    #[arg(long, default_value_t = 1 << 24, value_parser = clap::value_parser!(u32).range(1..=(1 << 24)))]
    two_path_items: u32,
    /// Loop iterations per item.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    iterations: u32,
}

/// The seed of every setting (seed 002's year, as the reference instance's).
pub(crate) const SEED: u64 = 2011;

/// The settings: seed 002 table 1's f = 0.1 and fig. 10's randomised f = 0.5, at branch ratios
/// from where no technique can win (r = 4) to long paths (r = 32).
const SETTINGS: &[(f64, f64)] = &[
    (0.1, 4.0),
    (0.1, 8.0),
    (0.1, 32.0),
    (0.5, 4.0),
    (0.5, 8.0),
    (0.5, 32.0),
];

fn main() -> ExitCode {
    common::exit(run(&Args::parse()))
}

pub(crate) type Error = Box<dyn std::error::Error>;

fn run(args: &Args) -> Result<(), Error> {
    if args.backend != "cpu" && args.backend != "cuda" {
        return Err(format!("--backend {}: expected cpu or cuda", args.backend).into());
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut settings = String::new();
    #[cfg(feature = "cuda")]
    let gpu = if args.backend == "cuda" {
        Some(reconverge_paper_kernels::backend(0)?)
    } else {
        None
    };
    #[cfg(not(feature = "cuda"))]
    let gpu = NoGpu;
    for &(f, r) in SETTINGS {
        let distinct = SynItDelayDistinct::with_branch_ratio(r, args.iterations, f, SEED);
        let name = format!("distinct-f{f}-r{r}");
        if name.contains(&args.only) {
            let outputs = expected(args, &name, args.items, |i| distinct.reference(i))?;
            let kernel = BranchLoopKernel(distinct);
            compare(args, &gpu, &name, &kernel, "itdistinct", &outputs)?;
            delaying::twins(args, &gpu, &name, &kernel, &outputs)?;
            let w = distinct.0;
            settings.push_str(&format!(
                "{name}\t{}\t{}\t{}\t{}\t{}\n",
                w.taken_q16, w.n_pairs, w.iterations, w.seed, args.items
            ));
        }
        // The paper's SYN-ITDELAY at the same setting, paths of one shape (its outputs are not
        // the CUDA twins' input).
        let original = distinct.0;
        let name = format!("original-f{f}-r{r}");
        if name.contains(&args.only) {
            let outputs = expected(args, &name, args.items, |i| original.reference(i))?;
            compare(
                args,
                &gpu,
                &name,
                &BranchLoopKernel(original),
                "itdelay",
                &outputs,
            )?;
        }
    }
    // Speculative reconvergence (Damani et al. CGO 2020) on its workload: an expensive block
    // every 8 iterations at a per-item phase (favourable) or at phase 0 for all (unfavourable),
    // beside the plain kernels; `references/cuda/speculative_reconvergence.cu` is the twin.
    for (name, w) in [
        ("periodic-phased", PeriodicBlockLoop::phased(256, 8, 64)),
        ("periodic-aligned", PeriodicBlockLoop::aligned(256, 8, 64)),
    ] {
        if name.contains(&args.only) {
            let outputs: Vec<u32> = (0..args.items)
                .into_par_iter()
                .map(|i| w.reference(i))
                .collect();
            compare(args, &gpu, name, &BranchLoopKernel(w), "periodic", &outputs)?;
        }
    }
    // Collaborative context collection (Khorasani et al. MICRO 2015) on its workload: a costly
    // body in 1 iteration of 32 (favourable) or in every one (unfavourable), beside the plain
    // kernels; `references/cuda/collaborative_context_collection.cu` is the twin (gpu-all.sh's
    // part `ccc`).
    for (name, w) in [
        ("rare-body", RareCostlyBody::FAVOURABLE),
        ("rare-every-iteration", RareCostlyBody::EVERY_ITERATION),
    ] {
        if name.contains(&args.only) {
            let outputs: Vec<u32> = (0..args.items)
                .into_par_iter()
                .map(|i| w.reference(i))
                .collect();
            compare(args, &gpu, name, &BranchLoopKernel(w), "rare", &outputs)?;
        }
    }
    write(&args.out.join("settings.tsv"), settings)?;
    remapping::run(args, &gpu)?;
    unification::run(args, &gpu)?;
    gems34::run(args, &gpu)?;
    splitting::run(args, &gpu)
}

/// Every item's output by the workload's plain scalar loop (`reference`, the CPU baseline's
/// outputs, which the shapes' tests hold equal to every strategy's), written to
/// `DIR/<name>.out`.
fn expected<O: RawOutput>(
    args: &Args,
    name: &str,
    items: u32,
    reference: impl Fn(u32) -> O + Sync + Send,
) -> Result<Vec<O>, Error> {
    let t = std::time::Instant::now();
    let outputs: Vec<O> = (0..items).into_par_iter().map(&reference).collect();
    let path = args.out.join(format!("{name}.out"));
    write_raw(&path, &outputs)?;
    println!(
        "{name}: {} items on the CPU in {:.2} s, outputs in {}",
        items,
        t.elapsed().as_secs_f64(),
        path.display()
    );
    Ok(outputs)
}

/// Times every strategy of `kernel` at its default launch beside its plain kernels
/// (`plain_prefix_*`), and writes `DIR/<name>.tsv` and `DIR/<plain_prefix>-entries.tsv` (each
/// entry point's name and the code it runs, for reading a profiler's kernel names).
#[cfg(feature = "cuda")]
fn compare<K>(
    args: &Args,
    gpu: &Option<reconverge_gpu::CudaBackend>,
    name: &str,
    kernel: &K,
    plain_prefix: &str,
    reference: &[K::Output],
) -> Result<Option<reconverge_gpu::comparison::Comparison>, Error>
where
    K: reconverge_gpu::DeviceKernel,
    K::Output: PartialEq,
{
    use reconverge_gpu::comparison::Code;
    let Some(gpu) = gpu else {
        return Ok(None);
    };
    let comparison = gpu.compare_with_plain(
        kernel,
        plain_prefix,
        reference.len() as u32,
        reference,
        args.repeats,
        false,
    )?;
    let tsv = reconverge_gpu::comparison::comparison_tsv(name, &comparison);
    write(&args.out.join(format!("{name}.tsv")), tsv)?;
    let mut entries = String::new();
    for schedule in reconverge_gpu::PlainSchedule::ALL {
        let code = Code::Plain(schedule);
        entries.push_str(&format!("{plain_prefix}_{}\t{code}\n", schedule.name()));
    }
    for strategy in K::strategies() {
        if let Some(entry) = K::entry_point(&strategy, 0) {
            entries.push_str(&format!("{entry}\t{}\n", Code::Strategy(strategy)));
        }
    }
    write(
        &args.out.join(format!("{plain_prefix}-entries.tsv")),
        entries,
    )?;
    let best = comparison.best_plain().map(|r| r.median.as_secs_f64());
    if let (Some(best), Some(row)) = (best, comparison.best_default()) {
        println!(
            "{name}: best strategy {} {:.4} ms, {:.3}x the best plain kernel",
            row.code,
            row.median.as_secs_f64() * 1e3,
            best / row.median.as_secs_f64()
        );
    }
    Ok(Some(comparison))
}

/// Built without feature `cuda`: the CPU outputs alone.
#[cfg(not(feature = "cuda"))]
pub(crate) struct NoGpu;

#[cfg(not(feature = "cuda"))]
fn compare<K: reconverge_transforms::Kernel>(
    _: &Args,
    _: &NoGpu,
    _: &str,
    _: &K,
    _: &str,
    _: &[K::Output],
) -> Result<Option<()>, Error> {
    Ok(None)
}

fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), Error> {
    std::fs::write(path, contents)
        .map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

/// An output as the CUDA C++ twins read it: raw little-endian bytes, field by field.
trait RawOutput: Copy + Send + Sync {
    fn put_le(&self, bytes: &mut Vec<u8>);
}

impl RawOutput for ItDelayOutput {
    fn put_le(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.val.to_le_bytes());
        bytes.extend_from_slice(&self.taken.to_le_bytes());
        bytes.extend_from_slice(&self.trace.to_le_bytes());
    }
}

impl RawOutput for u32 {
    fn put_le(&self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

/// Writes `outputs` as raw little-endian bytes (what the CUDA C++ twins read).
fn write_raw<O: RawOutput>(path: &Path, outputs: &[O]) -> Result<(), Error> {
    let mut bytes = Vec::with_capacity(std::mem::size_of_val(outputs));
    for o in outputs {
        o.put_le(&mut bytes);
    }
    write(path, bytes)
}

/// Extra rows (hand-written twins, multi-pass strategies) for a setting's comparison table
/// `DIR/<name>.tsv`, in its columns, each time over the table's best plain kernel.
#[cfg(feature = "cuda")]
struct ExtraRows {
    path: PathBuf,
    tsv: String,
    name: String,
    best_plain_ms: f64,
}

#[cfg(feature = "cuda")]
impl ExtraRows {
    /// The table of `name` as the comparison wrote it.
    fn open(args: &Args, name: &str) -> Result<Self, Error> {
        let path = args.out.join(format!("{name}.tsv"));
        let tsv = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let best_plain_ms = tsv
            .lines()
            .skip(1)
            .filter(|l| l.split('\t').nth(1).is_some_and(|c| c.starts_with("plain")))
            .filter_map(|l| l.split('\t').nth(5)?.parse::<f64>().ok())
            .fold(f64::INFINITY, f64::min);
        Ok(Self {
            path,
            tsv,
            name: name.to_string(),
            best_plain_ms,
        })
    }

    /// `run` once untimed, then the median of `repeats` runs (each giving its milliseconds and
    /// whether its outputs were identical), added as the row of `code` at `launch`.
    fn time(
        &mut self,
        code: &str,
        launch: reconverge_backend::Launch,
        repeats: u32,
        (registers, occupancy): (u32, Option<f64>),
        mut run: impl FnMut() -> Result<(f64, bool), Error>,
    ) -> Result<(), Error> {
        run()?;
        let mut times = Vec::new();
        let mut identical = true;
        for _ in 0..repeats.max(1) {
            let (ms, ok) = run()?;
            times.push(ms);
            identical &= ok;
        }
        times.sort_by(f64::total_cmp);
        let ms = times[times.len() / 2];
        self.tsv.push_str(&format!(
            "{}\t{code}\tdefault\t{}\t{}\t{ms:.4}\t{:.3}\t{}\t{registers}\t{}\n",
            self.name,
            launch.threads_per_block,
            launch.blocks,
            ms / self.best_plain_ms,
            if identical { "yes" } else { "no" },
            occupancy.map_or("-".into(), |o| format!("{o:.2}")),
        ));
        Ok(())
    }

    /// Writes the table back.
    fn save(self) -> Result<(), Error> {
        write(&self.path, self.tsv)
    }
}

/// A multi-pass strategy's default launch for `items` items, and the registers of its last
/// pass's entry point (the pass that runs the paths), as [`ExtraRows::time`] takes them.
#[cfg(feature = "cuda")]
fn multi_pass_launch<K: reconverge_gpu::DeviceKernel>(
    gpu: &reconverge_gpu::CudaBackend,
    kernel: &K,
    strategy: &reconverge_transforms::Strategy,
    items: u32,
) -> Result<(reconverge_backend::Launch, (u32, Option<f64>)), Error> {
    let launch = gpu.try_launch_for(kernel, strategy, items)?;
    let names = reconverge_gpu::CudaBackend::entry_points(kernel, strategy)?;
    let last = names
        .last()
        .ok_or_else(|| format!("{strategy}: no entry point"))?;
    let registers = gpu.gpu().attributes(last)?.registers_per_thread;
    Ok((launch, (registers, None)))
}

/// A run's kernel time in milliseconds, every pass.
#[cfg(feature = "cuda")]
fn run_ms<O>(run: &reconverge_backend::Run<O>) -> f64 {
    run.pass_times
        .iter()
        .sum::<std::time::Duration>()
        .as_secs_f64()
        * 1e3
}
