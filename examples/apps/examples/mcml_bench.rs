//! MCML throughput per strategy, on the CPU backend or the CUDA backend, for the two inputs of
//! the MCML benchmark: the GPU-MCML 7-layer skin model and a thick low-absorption slab.
//!
//! ```sh
//! cargo run --release -p reconverge-apps --example mcml_bench -- --threads 1 --out docs/results/mcml
//! cargo run --release -p reconverge-apps --example mcml_bench -- --threads 2 --out docs/results/mcml
//! cargo run --release -p reconverge-apps --example mcml_bench --features cuda -- --backend cuda --photons 100000000 --out docs/results/mcml
//! ```
//!
//! Every strategy's tallies are checked against the baseline's, bit for bit, before its time
//! counts. On `--backend cuda` the fast-math entry points (`FastF32`: approximate division,
//! square root, logarithm, cosine and sine) get rows of their own, labelled "fast math
//! (approximate, not bit-identical)". Their tallies are not compared bitwise: the table gives
//! their Rd, A and Tt beside the exact rows' (the device check holds them to a statistical
//! tolerance). The SIMD efficiency column comes from the CPU reference model on a smaller run of
//! the same input (the GPU has no such counter without a profiler). Writes
//! `mcml-throughput-<backend>.md` and `.csv` into `--out`.

mod common;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use reconverge_backend::Launch;
use reconverge_cpu::{Counting, CpuBackend};
use reconverge_mcml::builtin::builtin;
use reconverge_mcml::{RunInput, run_on_backend, run_with};
use reconverge_transforms::{Kernel, Strategy};
use reconverge_workloads::mcml::McmlKernel;

#[derive(Parser, Debug)]
#[command(about = "MCML photons per second for each divergence strategy")]
struct Args {
    /// cpu or cuda (feature `cuda`).
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Rayon threads for the CPU backend.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Photons per (input, strategy); default 20,000 on the CPU, 10^8 on the GPU.
    #[arg(long)]
    photons: Option<u64>,
    /// Photons of the CPU model run that measures SIMD efficiency.
    #[arg(long, default_value_t = 8_000)]
    model_photons: u64,
    /// Built-in inputs to run.
    #[arg(long, value_delimiter = ',', default_value = "skin,slab")]
    inputs: Vec<String>,
    /// Write the markdown and CSV tables here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only count the photon steps (boundary and interaction) of the first N photons of each
    /// input with seed 1, on the CPU: the denominator of a profiler's instructions per step
    /// (photon `i`'s life is the same on every backend, bit for bit).
    #[arg(long)]
    count_steps: Option<u64>,
}

/// Boundary and interaction steps of photons `0..photons` (seed 1), as `simulate_photon`
/// counts them, on all cores (photon `i`'s life depends on `(seed, i)` only).
fn count_steps(input: &RunInput, photons: u64) -> Result<(u64, u64), String> {
    use rayon::prelude::*;
    use reconverge_workloads::mcml::{SliceTally, simulate_photon};
    let params = input.params::<f32>().map_err(|e| e.to_string())?;
    let chunk = 4096u64;
    let counts = (0..photons.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut tally = vec![0u64; params.layout().len()];
            let mut sink = SliceTally {
                layout: params.layout(),
                data: &mut tally,
            };
            (c * chunk..((c + 1) * chunk).min(photons))
                .map(|i| simulate_photon(&params, 1, i, &mut sink))
                .fold((0, 0), |(b, n), s| (b + s.boundary, n + s.interaction))
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    Ok(counts)
}

fn strategies() -> Vec<Strategy> {
    <McmlKernel<f32> as Kernel>::STRATEGIES.to_vec()
}

/// One measured row.
struct Row {
    input: String,
    strategy: String,
    photons: u64,
    photons_per_second: f64,
    kernel_photons_per_second: Option<f64>,
    simd_efficiency: Option<f64>,
    rd_a_tt: (f64, f64, f64),
    same_as_baseline: bool,
    /// A fast-math row: approximate, so not compared with the baseline bit for bit.
    fast_math: bool,
}

/// What one measured run gives: its tallies, photons per second of the whole run (host work
/// included), photons per second of kernel time where the backend times kernels, and Rd, A, Tt.
struct Measured {
    tally: Vec<u64>,
    photons_per_second: f64,
    kernel_photons_per_second: Option<f64>,
    rd_a_tt: (f64, f64, f64),
}

impl Measured {
    /// A run's tallies and Rd, A, Tt with the rates measured around it.
    fn of(
        r: &reconverge_mcml::RunResult,
        photons_per_second: f64,
        kernel_photons_per_second: Option<f64>,
    ) -> Self {
        Self {
            tally: r.tally.clone(),
            photons_per_second,
            kernel_photons_per_second,
            rd_a_tt: (r.rd, r.a, r.tt),
        }
    }
}

/// Measures a run: input, strategy (`None`: the scalar loop), photons, and whether it runs the
/// fast-math entry points (`FastF32`, GPU only).
type Measure<'a> =
    dyn FnMut(&RunInput, Option<Strategy>, u64, bool) -> Result<Measured, String> + 'a;

/// The label of a fast-math row.
const FAST_MATH_LABEL: &str = "fast math (approximate, not bit-identical)";

fn main() -> ExitCode {
    common::exit(real_main())
}

fn real_main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if let Some(n) = args.count_steps {
        for name in &args.inputs {
            let input = builtin(name).ok_or_else(|| format!("unknown built-in input {name:?}"))?;
            let (hits, interactions) = count_steps(&input, n)?;
            let steps = hits + interactions;
            println!(
                "{name}: {n} photons (seed 1): {steps} steps = {hits} boundary + {interactions} interaction; {:.2} steps per photon, boundary share {:.2} %",
                steps as f64 / n as f64,
                100.0 * hits as f64 / steps as f64
            );
        }
        return Ok(());
    }
    let model = CpuBackend::with_threads(args.threads)?;
    let (device, default_photons, mut measure): (String, u64, Box<Measure<'_>>) = match args
        .backend
        .as_str()
    {
        "cpu" => {
            let cpu = CpuBackend::with_threads(args.threads)?.counting(Counting::Off);
            let name = format!(
                "CPU backend, {} thread(s) ({})",
                args.threads,
                reconverge_cpu::host::cpu_model()
            );
            let threads = args.threads;
            (
                name,
                20_000,
                Box::new(move |input, strategy, photons, _fast_math| match strategy {
                    None => {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(threads)
                            .build()
                            .map_err(|e| e.to_string())?;
                        let r = pool
                            .install(|| run_with::<f32>(input, photons, 1, None))
                            .map_err(|e| e.to_string())?;
                        Ok(Measured::of(&r, r.photons_per_second, None))
                    }
                    Some(s) => {
                        // Persistent lanes running ~10 photons each at the default size.
                        let launch = Launch::new(128, 16).map_err(|e| e.to_string())?;
                        let start = Instant::now();
                        let r = run_on_backend::<f32, _>(&cpu, input, photons, 1, s, launch, None)
                            .map_err(|e| e.to_string())?;
                        let pps = photons as f64 / start.elapsed().as_secs_f64();
                        Ok(Measured::of(&r.result, pps, None))
                    }
                }),
            )
        }
        #[cfg(feature = "cuda")]
        "cuda" => gpu_measure()?,
        other => {
            return Err(
                format!("unknown backend {other:?} (cpu, or cuda with feature `cuda`)").into(),
            );
        }
    };
    let photons = args.photons.unwrap_or(default_photons);
    let mut rows = Vec::new();
    for name in &args.inputs {
        let input = builtin(name).ok_or_else(|| format!("unknown built-in input {name:?}"))?;
        let mut baseline_tally = None;
        let mut runs: Vec<(Option<Strategy>, bool)> =
            strategies().into_iter().map(|s| (Some(s), false)).collect();
        if args.backend == "cpu" {
            runs.push((None, false));
        } else {
            // On the CPU FastF32 is f32 bit for bit: fast-math rows only on the GPU.
            runs.extend(
                reconverge_workloads::gpu_entries::MCML_FAST_MATH_STRATEGIES
                    .iter()
                    .map(|&s| (Some(s), true)),
            );
        }
        for (strategy, fast_math) in runs {
            let Measured {
                tally,
                photons_per_second: pps,
                kernel_photons_per_second: kernel_pps,
                rd_a_tt: rat,
            } = measure(&input, strategy, photons, fast_math)?;
            let same = match (&baseline_tally, fast_math) {
                (_, true) => false,
                (None, false) => {
                    baseline_tally = Some(tally);
                    true
                }
                (Some(b), false) => *b == tally,
            };
            let simd = match strategy {
                Some(s) => {
                    // 512 lanes: ~16 photons per lane at the default size, so the tail
                    // weighs about as much as in a long GPU run's batches.
                    let launch = Launch::new(128, 4)?;
                    run_on_backend::<f32, _>(
                        &model,
                        &input,
                        args.model_photons,
                        1,
                        s,
                        launch,
                        None,
                    )?
                    .counters
                    .map(|c| c.simd_efficiency())
                }
                None => None,
            };
            // Display carries every parameter, so rows that differ only in a threshold stay apart.
            let label = strategy.map_or("scalar loop (no warps)".to_string(), |s| s.to_string());
            let label = if fast_math {
                format!("{label}, {FAST_MATH_LABEL}")
            } else {
                label
            };
            println!(
                "{name:>5} {label:<60} {pps:>14.0} photons/s{}  SIMD {}  {}",
                kernel_pps.map_or(String::new(), |k| format!(" ({k:.0} kernel time)")),
                simd.map_or("   -  ".into(), |e| format!("{:5.1}%", 100.0 * e)),
                match (fast_math, same) {
                    (true, _) => "fast math: not compared bitwise",
                    (false, true) => "tallies = baseline",
                    (false, false) => "TALLIES DIFFER",
                }
            );
            rows.push(Row {
                input: name.clone(),
                strategy: label,
                photons,
                photons_per_second: pps,
                kernel_photons_per_second: kernel_pps,
                simd_efficiency: simd,
                rd_a_tt: rat,
                same_as_baseline: same,
                fast_math,
            });
        }
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)?;
        let tag = if args.backend == "cpu" {
            format!("cpu-{}t", args.threads)
        } else {
            args.backend.clone()
        };
        let (md, csv) = render(&rows, &device, &tag);
        std::fs::write(dir.join(format!("mcml-throughput-{tag}.md")), md)?;
        std::fs::write(dir.join(format!("mcml-throughput-{tag}.csv")), csv)?;
        println!(
            "wrote {}",
            dir.join(format!("mcml-throughput-{tag}.md")).display()
        );
    }
    if rows.iter().any(|r| !r.fast_math && !r.same_as_baseline) {
        return Err("some strategy's tallies differ from the baseline's".into());
    }
    Ok(())
}

fn render(rows: &[Row], device: &str, tag: &str) -> (String, String) {
    let mut md = String::new();
    let date = std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    let _ = writeln!(md, "# MCML throughput per strategy ({tag})\n");
    let _ = writeln!(
        md,
        "Device: {device}. Date: {}. Generated by `cargo run --release -p reconverge-apps --example mcml_bench` (see its docs for the exact flags).\n",
        date.trim()
    );
    let _ = writeln!(
        md,
        "Photons per second of MCML in f32: of the wall time of the whole run (host work included) and, on a GPU, of kernel time (CUDA events); SIMD efficiency from the CPU reference model on a smaller run of the same input; every exact strategy's tallies equal the baseline's bit for bit. Rows marked \"{FAST_MATH_LABEL}\" run the opt-in fast-math entry points (approximate PTX division, sqrt, lg2, sin/cos): their tallies are not compared bitwise, and their Rd, A and Tt differ from the exact rows' within Monte Carlo noise.\n"
    );
    let _ = writeln!(
        md,
        "| input | strategy | photons | photons/s | kernel-time photons/s | vs baseline | SIMD efficiency | Rd | A | Tt |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut csv = String::from(
        "input,strategy,photons,photons_per_second,kernel_photons_per_second,speedup_vs_baseline,simd_efficiency,rd,a,tt,tallies_equal_baseline\n",
    );
    for r in rows {
        let base = rows
            .iter()
            .find(|b| b.input == r.input && b.strategy == "baseline")
            .map_or(r.photons_per_second, |b| b.photons_per_second);
        let speedup = r.photons_per_second / base;
        let simd = r
            .simd_efficiency
            .map_or("-".into(), |e| format!("{:.1}%", 100.0 * e));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.0} | {} | {:.2} | {} | {:.5} | {:.5} | {:.5} |",
            r.input,
            r.strategy,
            r.photons,
            r.photons_per_second,
            r.kernel_photons_per_second
                .map_or("-".into(), |k| format!("{k:.0}")),
            speedup,
            simd,
            r.rd_a_tt.0,
            r.rd_a_tt.1,
            r.rd_a_tt.2
        );
        let _ = writeln!(
            csv,
            // Labels hold commas ("iteration delaying, majority vote, threshold 16"): quoted, as RFC
            // 4180 says.
            "{},\"{}\",{},{:.1},{},{:.4},{},{},{},{},{}",
            r.input,
            r.strategy,
            r.photons,
            r.photons_per_second,
            r.kernel_photons_per_second
                .map_or(String::new(), |k| format!("{k:.1}")),
            speedup,
            r.simd_efficiency
                .map_or(String::new(), |e| format!("{e:.4}")),
            r.rd_a_tt.0,
            r.rd_a_tt.1,
            r.rd_a_tt.2,
            if r.fast_math {
                "n/a (fast math)".to_string()
            } else {
                r.same_as_baseline.to_string()
            }
        );
    }
    (md, csv)
}

#[cfg(feature = "cuda")]
fn gpu_measure() -> Result<(String, u64, Box<Measure<'static>>), Box<dyn std::error::Error>> {
    use reconverge_gpu::{DeviceKernel, WarmUp};
    use reconverge_workloads::mcml::{FastF32, McmlKernel};
    let gpu = reconverge_paper_kernels::backend(0)?.with_warm_up(WarmUp::FirstUse);
    let name = gpu.gpu().device().name.clone();
    Ok((
        name,
        100_000_000,
        Box::new(move |input, strategy, photons, fast_math| {
            let strategy = strategy.ok_or("the scalar loop runs on the CPU only")?;
            let entry = if fast_math {
                <McmlKernel<FastF32>>::entry_point(&strategy, 0)
            } else {
                <McmlKernel<f32>>::entry_point(&strategy, 0)
            }
            .ok_or_else(|| format!("no entry point for {strategy:?} (fast math: {fast_math})"))?;
            let gpu_context = gpu.gpu();
            let sms = u32::try_from(gpu_context.device().multiprocessors).unwrap_or(1);
            let blocks_per_sm = |t, shared| {
                gpu_context
                    .max_active_blocks_with_shared(entry, t, shared)
                    .ok()
            };
            let limit = reconverge_gpu::DYNAMIC_SHARED_LIMIT;
            let launch =
                reconverge_mcml::gpu_launch_for::<f32>(&strategy, sms, limit, blocks_per_sm)
                    .map_err(|e| e.to_string())?;
            // Warm the entry point up on a small run so the timed one is steady state.
            let run = |photons: u64, seed: u64| {
                if fast_math {
                    run_on_backend::<FastF32, _>(&gpu, input, photons, seed, strategy, launch, None)
                } else {
                    run_on_backend::<f32, _>(&gpu, input, photons, seed, strategy, launch, None)
                }
                .map_err(|e| e.to_string())
            };
            run(100_000, 2)?;
            let start = Instant::now();
            let r = run(photons, 1)?;
            let pps = photons as f64 / start.elapsed().as_secs_f64();
            let kernel_pps = photons as f64 / r.kernel_time.as_secs_f64();
            Ok(Measured::of(&r.result, pps, Some(kernel_pps)))
        }),
    ))
}
