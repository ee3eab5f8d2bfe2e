//! Re-runs every seed paper's figure and table on the `Bench` backend and writes the results
//! pages (markdown, CSV, JSON, SVG) and their index.
//!
//! ```text
//! # CPU backend, CI / laptop scale (a few minutes on 2 cores):
//! cargo run --release -p reconverge-benches --example reproduce -- --out docs/results/cpu --quick
//! # GPU (all experiments within ~10 minutes on an H100):
//! cargo run --release -p reconverge-benches --example reproduce --features cuda -- --out docs/results/h100
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use reconverge_benches::reproduce::{Options, PAGES, Scale, run};

/// Reproduce the seed papers' experiments and write docs/results pages.
#[derive(Parser, Debug)]
struct Args {
    /// Output folder (one per device, e.g. docs/results/cpu or docs/results/h100).
    #[arg(long)]
    out: PathBuf,
    /// Sizes divided by 64 and 3 repetitions (the CPU run, CI).
    #[arg(long)]
    quick: bool,
    /// Tiny sizes and one repetition (tests).
    #[arg(long, conflicts_with = "quick")]
    tiny: bool,
    /// Only pages whose name contains one of these (repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// List the pages and exit.
    #[arg(long)]
    list: bool,
}

fn main() -> ExitCode {
    let a = Args::parse();
    if a.list {
        for p in PAGES {
            println!("{p}");
        }
        return ExitCode::SUCCESS;
    }
    let scale = if a.tiny {
        Scale::TINY
    } else if a.quick {
        Scale::QUICK
    } else {
        Scale::FULL
    };
    let mut command = String::from("cargo run --release -p reconverge-benches --example reproduce");
    if cfg!(feature = "cuda") {
        command.push_str(" --features cuda");
    }
    command.push_str(&format!(" -- --out {}", a.out.display()));
    if a.quick {
        command.push_str(" --quick");
    }
    if a.tiny {
        command.push_str(" --tiny");
    }
    for o in &a.only {
        command.push_str(&format!(" --only {o}"));
    }
    let opts = Options {
        out: a.out,
        scale,
        command,
        only: a.only,
    };
    match run(&opts) {
        Ok(s) => {
            println!(
                "wrote {} pages to {} in {:.1} s",
                s.pages.len(),
                opts.out.display(),
                s.elapsed.as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
