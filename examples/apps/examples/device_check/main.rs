//! The CUDA backend's device check, run on a GPU machine by `gpu-kernels/device-check.sh`,
//! one module per concern:
//!
//! - [`selftests`]: warp votes/shuffles/block atomics against the CPU SIMT model, `libm`
//!   f64 and MCML's f32 math bit for bit;
//! - [`occupancy`]: `reconverge-occupancy`'s prediction against the driver, every kernel,
//!   block sizes 32 … 1024;
//! - [`conformance`]: every workload under every strategy with an entry point, outputs and
//!   tallies on the GPU equal to the CPU backend's (the conformance kit);
//! - [`throughput`]: GPU throughput at a larger size next to the CPU backend's (items/s), the
//!   driver's occupancy of each pass and the CPU model's SIMD efficiency;
//! - [`mcml`]: MCML f32 (skin, slab) tallies bitwise against the CPU backend, then photons/s
//!   per strategy;
//! - [`fast_math`]: MCML's opt-in fast-math entry points (`mcml_fast_*`, approximate PTX
//!   instructions) on skin and slab, Rd/A/Tt within 4 standard errors of the exact CPU f32
//!   run of the same photons (the self-tests hold each approximate operation to its PTX
//!   bound).
//!
//! The sanitizers (`compute-sanitizer` memcheck, racecheck, synccheck) are driven by the
//! script, which runs this check with `--sanitize`: small sizes, no timing. `--only` picks
//! concerns; `--out DIR` writes the tables as CSV and a JSON summary there; `--write-ptx FILE`
//! saves the embedded PTX and exits (no GPU). Prints PASS/FAIL lines and a summary; exits 0
//! if all passed, 1 if not, 2 without a GPU.

mod conformance;
mod fast_math;
mod gpu;
mod mcml;
mod occupancy;
mod report;
mod selftests;
mod throughput;
mod workloads;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use reconverge_cpu::{Counting, CpuBackend};
use serde_json::json;

use gpu::{GpuError, WarmUp};
use report::Report;

/// Default of `--budget`: stop starting long runs after this many seconds.
const DEFAULT_BUDGET_S: f64 = 270.0;

/// What the device check can check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Concern {
    Selftests,
    Occupancy,
    Conformance,
    Throughput,
    Mcml,
    FastMath,
}

/// Check the CUDA backend against the CPU backend and the driver.
#[derive(Parser, Debug)]
struct Args {
    /// Small sizes and no timing, for compute-sanitizer.
    #[arg(long)]
    sanitize: bool,
    /// Write workloads.csv, occupancy.csv, mcml.csv and summary.json into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Photons of each MCML throughput run (ten times as many for the fastest strategy).
    #[arg(long, default_value_t = 10_000_000)]
    mcml_photons: u64,
    /// Photons of each MCML fast-math comparison (per input and fast-math entry point).
    #[arg(long, default_value_t = 1_000_000)]
    fast_math_photons: u64,
    /// Stop starting long runs after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_BUDGET_S)]
    budget: f64,
    /// Only these concerns (repeatable; default: all).
    #[arg(long, value_enum)]
    only: Vec<Concern>,
    /// Save the embedded PTX to FILE and exit (needs no GPU).
    #[arg(long, value_name = "FILE", exclusive = true)]
    write_ptx: Option<PathBuf>,
}

impl Args {
    fn wants(&self, c: Concern) -> bool {
        self.only.is_empty() || self.only.contains(&c)
    }
}

fn run(args: &Args, rep: &mut Report) -> Result<(), GpuError> {
    let mut gpu = reconverge_paper_kernels::backend(0)?.with_warm_up(if args.sanitize {
        WarmUp::Off
    } else {
        WarmUp::EveryRun
    });
    let d = gpu.gpu().device().clone();
    println!(
        "device {}: {} (cc {}.{}, {} SMs, {} threads/SM, {:.1} GiB){}",
        d.ordinal,
        d.name,
        d.major,
        d.minor,
        d.multiprocessors,
        d.max_threads_per_multiprocessor,
        d.total_memory as f64 / (1u64 << 30) as f64,
        if args.sanitize {
            " -- sanitize mode: small sizes, no timing"
        } else {
            ""
        }
    );
    rep.json.insert("device".into(), json!({"name": d.name, "cc": format!("{}.{}", d.major, d.minor), "sms": d.multiprocessors, "sanitize": args.sanitize}));
    if args.wants(Concern::Selftests) {
        selftests::run(rep, gpu.gpu(), args.sanitize)?;
    }
    if args.wants(Concern::Occupancy) {
        occupancy::run(rep, gpu.gpu());
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = |c| {
        CpuBackend::with_threads(threads)
            .map(|b| b.counting(c))
            .unwrap_or_default()
    };
    println!("\nCPU backend: {threads} threads");
    let (cpu_counting, cpu_timing) = (cpu(Counting::On), cpu(Counting::Off));
    if args.wants(Concern::Conformance) {
        conformance::run(rep, &gpu, &cpu_timing, args.sanitize)?;
    }
    if args.wants(Concern::Throughput) && !args.sanitize {
        throughput::run(rep, &gpu, &cpu_counting, &cpu_timing)?;
    }
    if args.wants(Concern::Mcml) {
        // MCML's long runs: warm each entry point up once (its first, small run), not every run.
        if !args.sanitize {
            gpu.set_warm_up(WarmUp::FirstUse);
        }
        let b = mcml::Backends {
            gpu: &gpu,
            cpu_counting: &cpu_counting,
        };
        mcml::run(rep, &b, args.sanitize, args.mcml_photons)?;
        mcml::tally_copies(rep, &mut gpu, &cpu_counting, args.sanitize)?;
    }
    if args.wants(Concern::FastMath) {
        fast_math::run(rep, &gpu, args.sanitize, args.fast_math_photons)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(path) = &args.write_ptx {
        return match std::fs::write(path, gpu::PTX) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("FAIL writing {}: {e}", path.display());
                ExitCode::FAILURE
            }
        };
    }
    let mut rep = Report::new(args.budget);
    let result = run(&args, &mut rep);
    if let Some(dir) = &args.out {
        rep.write(dir);
    }
    match result {
        Err(e @ (GpuError::NoDriver | GpuError::NoDevice { .. })) => {
            println!("FAIL no usable GPU: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            rep.check("device check ran to the end", false, &e.to_string());
        }
        Ok(()) => {}
    }
    if rep.summary() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
