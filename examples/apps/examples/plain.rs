//! reconverge against the plain kernels, on the reference workloads the strategies were not
//! developed on (`reconverge_workloads::reference`): Collatz, the escape-time image,
//! SYN-ITDELAY and seed 004's variable-trip loop; and SYN-BRDIS with paths of distinct shape,
//! against its plain kernels as written and against the same loop distributed by hand (branch
//! distribution's twin). The user-workload walk is
//! `cargo run -p user-workload --features cuda -- --compare DIR`.
//!
//! ```sh
//! cargo run --release -p reconverge-apps --example plain -- --out DIR               # CPU
//! cargo run --release -p reconverge-apps --features cuda --example plain -- --out DIR --backend cuda
//! ```
//!
//! On the CPU it writes each workload's outputs (`DIR/expected/<workload>.out`, the raw
//! little-endian outputs of items `0..n`), which `references/cuda/plain.cu` checks its CUDA C++
//! kernels against. With `--backend cuda` it also times, on GPU 0, every one-pass strategy at
//! its default launch and three others beside the four plain Rust kernels of the workload
//! (`CudaBackend::compare_with_plain`), every run's outputs compared with the CPU's, and
//! writes `DIR/<workload>.tsv` and a summary table.

mod common;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use reconverge_backend::{Backend, Kernel, Strategy};
use reconverge_cpu::{Counting, CpuBackend};
use reconverge_transforms::{BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel};
use reconverge_workloads::reference;
use reconverge_workloads::synthetic::SynBrDisDistinct;

#[derive(Parser, Debug)]
#[command(about = "reconverge's strategies against the plain kernels of the reference workloads")]
struct Args {
    /// Folder for the expected outputs and the tables.
    #[arg(long, default_value = "plain-results")]
    out: PathBuf,
    /// `cpu` (expected outputs only) or `cuda` (and the GPU comparison).
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Timed runs per (code, launch); the median is reported.
    #[arg(long, default_value_t = 15)]
    repeats: u32,
    /// Each strategy at its default launch only (for profilers), not at the launch sweep.
    #[arg(long)]
    no_sweep: bool,
    /// Item counts are the reference's times this factor (1 to 64): larger runs time the
    /// kernels with less launch overhead in them.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    scale: u32,
}

fn main() -> ExitCode {
    common::exit(run(&Args::parse()))
}

/// One reference workload: its name (the file names of `plain.cu`), its kernel, its items, the
/// prefix of its plain kernels in the paper kernels' PTX.
struct Reference<K> {
    name: &'static str,
    kernel: K,
    items: u32,
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    plain_prefix: &'static str,
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    if args.backend != "cpu" && args.backend != "cuda" {
        return Err(format!("--backend {}: expected cpu or cuda", args.backend).into());
    }
    std::fs::create_dir_all(args.out.join("expected"))
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let s = args.scale;
    // The image is its own size; the others scale.
    let mut summary = Summary::new(args);
    summary.visit(Reference {
        name: "collatz",
        kernel: BranchLoopKernel(reference::COLLATZ),
        items: reference::COLLATZ_ITEMS * s.min(4),
        plain_prefix: "collatz",
    })?;
    summary.visit(Reference {
        name: "escape-time",
        kernel: BranchLoopKernel(reference::ESCAPE_TIME),
        items: reference::ESCAPE_TIME_ITEMS,
        plain_prefix: "escape",
    })?;
    summary.visit(Reference {
        name: "syn-itdelay",
        kernel: BranchLoopKernel(reference::SYN_IT_DELAY),
        items: reference::SYN_IT_DELAY_ITEMS * s,
        plain_prefix: "itdelay",
    })?;
    summary.visit(Reference {
        name: "dynamic-work",
        kernel: ItemLoopKernel(reference::DYNAMIC_WORK),
        items: reference::DYNAMIC_WORK_ITEMS * s,
        plain_prefix: "dwa",
    })?;
    // SYN-BRDIS with paths of distinct shape (real divergence), M = 4, N = 20 (R = 4, the
    // paper's theoretical speedup 1.67x): against the plain kernels as written (fig. 7a), then
    // against the same loop distributed by hand (fig. 7b), branch distribution's twin.
    let brdis = FactoredBranchLoopKernel(SynBrDisDistinct::new(4, 20, 16, 2011));
    summary.visit(Reference {
        name: "syn-brdis-distinct",
        kernel: brdis,
        items: reference::SYN_IT_DELAY_ITEMS * s,
        plain_prefix: "brdistinct",
    })?;
    summary.visit(Reference {
        name: "syn-brdis-distinct-twin",
        kernel: brdis,
        items: reference::SYN_IT_DELAY_ITEMS * s,
        plain_prefix: "brdistinct_twin",
    })?;
    summary.finish()
}

/// Writes `outputs` as raw little-endian bytes (what `plain.cu` reads).
fn write_raw<O: Copy>(path: &Path, outputs: &[O]) -> Result<(), Box<dyn std::error::Error>> {
    // SAFETY: the reference workloads' outputs are `#[repr(C)]` plain data without padding
    // (u32, or three 4-byte fields), so every byte is initialised; the slice covers exactly
    // the outputs' memory.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            outputs.as_ptr().cast::<u8>(),
            std::mem::size_of_val(outputs),
        )
    };
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

/// The table every workload adds a line to.
struct Summary<'a> {
    args: &'a Args,
    lines: Vec<String>,
    #[cfg(feature = "cuda")]
    gpu: Option<reconverge_gpu::CudaBackend>,
}

impl<'a> Summary<'a> {
    fn new(args: &'a Args) -> Self {
        Self {
            args,
            lines: Vec::new(),
            #[cfg(feature = "cuda")]
            gpu: None,
        }
    }

    #[cfg(not(feature = "cuda"))]
    fn visit<K>(&mut self, w: Reference<K>) -> Result<(), Box<dyn std::error::Error>>
    where
        K: Kernel + Sync,
        K::Output: PartialEq,
    {
        self.expected(&w)?;
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn visit<K>(&mut self, w: Reference<K>) -> Result<(), Box<dyn std::error::Error>>
    where
        K: reconverge_gpu::DeviceKernel + Sync,
        K::Output: PartialEq,
    {
        let reference = self.expected(&w)?;
        if self.args.backend != "cuda" {
            return Ok(());
        }
        if self.gpu.is_none() {
            self.gpu = Some(reconverge_paper_kernels::backend(0)?);
        }
        let Some(gpu) = &self.gpu else {
            return Ok(());
        };
        let comparison = gpu.compare_with_plain(
            &w.kernel,
            w.plain_prefix,
            w.items,
            &reference,
            self.args.repeats,
            !self.args.no_sweep,
        )?;
        let tsv = reconverge_gpu::comparison::comparison_tsv(w.name, &comparison);
        let path = self.args.out.join(format!("{}.tsv", w.name));
        std::fs::write(&path, &tsv).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.lines.push(summary_line(w.name, w.items, &comparison));
        Ok(())
    }

    /// The CPU backend's outputs of the workload, written for `plain.cu`.
    fn expected<K>(
        &mut self,
        w: &Reference<K>,
    ) -> Result<Vec<K::Output>, Box<dyn std::error::Error>>
    where
        K: Kernel + Sync,
    {
        let cpu = CpuBackend::new().counting(Counting::Off);
        let run = cpu.run_auto(&w.kernel, Strategy::BASELINE, w.items)?;
        let path = self
            .args
            .out
            .join("expected")
            .join(format!("{}.out", w.name));
        write_raw(&path, &run.outputs)?;
        println!(
            "{}: {} items, CPU outputs in {} ({:.2} s on the CPU)",
            w.name,
            w.items,
            path.display(),
            run.elapsed.as_secs_f64()
        );
        Ok(run.outputs)
    }

    fn finish(self) -> Result<(), Box<dyn std::error::Error>> {
        if self.lines.is_empty() {
            return Ok(());
        }
        let mut table = String::from(
            "| workload | items | best plain kernel (ms) | reconverge baseline, default launch | best strategy, default launch | grid-wide dynamic work, default launch | all identical |\n|---|---:|---|---|---|---|---|\n",
        );
        for l in &self.lines {
            table.push_str(l);
        }
        let path = self.args.out.join("summary.md");
        std::fs::write(&path, &table)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        print!("{table}");
        Ok(())
    }
}

/// One line of the summary: times and ratios over the best plain kernel.
#[cfg(feature = "cuda")]
fn summary_line(name: &str, items: u32, c: &reconverge_gpu::comparison::Comparison) -> String {
    use reconverge_gpu::comparison::{Code, LaunchKind};
    let best = c.best_plain();
    let best_ms = best.map_or(f64::NAN, |r| r.median.as_secs_f64() * 1e3);
    let cell = |row: Option<&reconverge_gpu::comparison::Row>| {
        row.map_or("-".to_string(), |r| {
            let ms = r.median.as_secs_f64() * 1e3;
            format!("{:.4} ms ({:.2}x), {}", ms, ms / best_ms, r.code)
        })
    };
    let baseline = c.row(Code::Strategy(Strategy::BASELINE), LaunchKind::Default);
    let grid = c.row(
        Code::Strategy(Strategy::GRID_WIDE_DYNAMIC_WORK),
        LaunchKind::Default,
    );
    let identical = c.rows.iter().all(|r| r.identical);
    format!(
        "| {name} | {items} | {} | {} | {} | {} | {} |\n",
        best.map_or("-".into(), |r| format!("{best_ms:.4} ({})", r.code)),
        cell(baseline),
        cell(c.best_default()),
        cell(grid),
        if identical { "yes" } else { "NO" },
    )
}
