//! Re-runs every seed paper's figure and table on the `Bench` backend and writes the results
//! pages (markdown, CSV, JSON, SVG) and their index.
//!
//! ```text
//! # CPU backend, CI / laptop scale, pages in target/results/cpu (ignored by git):
//! cargo run --release -p reconverge-apps --example reproduce -- --quick
//! # Refresh the committed CPU pages (the only way to write under docs/results):
//! cargo run --release -p reconverge-apps --example reproduce -- --out docs/results/cpu --quick --refresh-docs
//! # GPU (all experiments within ~10 minutes on an H100):
//! cargo run --release -p reconverge-apps --example reproduce --features cuda -- --out docs/results/h100 --refresh-docs
//! ```
//!
//! By default the pages go to `target/results/<cpu|cuda>`, so a run leaves the checkout
//! clean: the committed pages under `docs/results` carry the device and date of the run that
//! made them, and rewriting them is a deliberate act (`--refresh-docs`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use reconverge_benches::reproduce::{Options, Scale, pages, run};

/// Reproduce the seed papers' experiments and write docs/results pages.
#[derive(Parser, Debug)]
struct Args {
    /// Output folder (one per device). Default: target/results/cpu (target/results/cuda with
    /// feature `cuda`), which git ignores.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Allow writing under docs/results (the committed pages).
    #[arg(long)]
    refresh_docs: bool,
    /// Sizes divided by 64 and 3 repetitions (the CPU run, CI).
    #[arg(long)]
    quick: bool,
    /// Tiny sizes and one repetition (tests).
    #[arg(long, conflicts_with = "quick")]
    tiny: bool,
    /// Only pages whose name contains one of these (repeatable); a name no page contains is
    /// an error that lists the pages.
    #[arg(long)]
    only: Vec<String>,
    /// List the pages and exit.
    #[arg(long)]
    list: bool,
}

fn main() -> ExitCode {
    let a = Args::parse();
    if a.list {
        for p in pages() {
            println!("{p}");
        }
        return ExitCode::SUCCESS;
    }
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("target/results").join(if cfg!(feature = "cuda") {
            "cuda"
        } else {
            "cpu"
        })
    });
    let components: Vec<_> = out.components().map(|c| c.as_os_str().to_owned()).collect();
    let in_docs = components
        .windows(2)
        .any(|w| w[0] == "docs" && w[1] == "results");
    if in_docs && !a.refresh_docs {
        eprintln!(
            "error: --out {} rewrites the committed pages under docs/results; add --refresh-docs \
             to do that, or leave --out out to write to target/results",
            out.display()
        );
        return ExitCode::FAILURE;
    }
    let scale = if a.tiny {
        Scale::TINY
    } else if a.quick {
        Scale::QUICK
    } else {
        Scale::FULL
    };
    let mut command = String::from("cargo run --release -p reconverge-apps --example reproduce");
    if cfg!(feature = "cuda") {
        command.push_str(" --features cuda");
    }
    command.push_str(&format!(" -- --out {}", out.display()));
    if a.quick {
        command.push_str(" --quick");
    }
    if a.tiny {
        command.push_str(" --tiny");
    }
    if a.refresh_docs {
        command.push_str(" --refresh-docs");
    }
    for o in &a.only {
        command.push_str(&format!(" --only {o}"));
    }
    let opts = Options {
        out,
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
