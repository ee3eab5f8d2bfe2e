//! MCML photon simulation on the CPU: `.mci` in, `.mco` out, MCML's own formats.
//!
//! With no arguments, runs the built-in 7-layer skin model (100,000 photons). Prints Rsp, Rd,
//! A, Tt and photons per second; exits non-zero with the error message on bad input.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use reconverge_mcml::builtin::{BUILTIN_NAMES, builtin};
use reconverge_mcml::mci::read_mci;
use reconverge_mcml::mco::write_mco;
use reconverge_mcml::{RunInput, run_with};

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
        let result = if args.f32 {
            run_with::<f32>(run, photons, args.seed, Some(&progress))?
        } else {
            run_with::<f64>(run, photons, args.seed, Some(&progress))?
        };
        bar.finish_and_clear();
        println!("  Rsp = {:.6}", result.rsp);
        println!("  Rd  = {:.6}", result.rd);
        println!("  A   = {:.6}", result.a);
        println!("  Tt  = {:.6}", result.tt);
        println!(
            "  {:.0} photons/s ({:.3} s, {} threads)",
            result.photons_per_second,
            result.elapsed.as_secs_f64(),
            rayon::current_num_threads()
        );
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
