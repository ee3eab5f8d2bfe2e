//! A user's own workload ([`Walk`], in this crate's library) under every strategy its shape
//! has, on the CPU backend — and, built with `--features cuda` on a machine with a GPU, on the
//! GPU from the entry points the library lists once, compared with the CPU bit for bit.
//!
//! ```sh
//! cargo run --release -p user-workload                    # CPU
//! cargo run --release -p user-workload --features cuda    # CPU, then GPU 0
//! cargo run --release -p user-workload --features cuda -- --compare DIR
//! cargo run --release -p user-workload --features cuda -- --advise 786432
//! ```
//!
//! Every run takes the launch the backend picks (`run_auto`: one thread per item for the
//! baseline and a block's counter, one resident wave of blocks for the grid-wide counter).
//! `--compare DIR` also holds every
//! strategy against the walk's plain kernels on the GPU (`CudaBackend::compare_with_plain`)
//! and writes `DIR/walk.tsv`, and the CPU's outputs as `DIR/expected/walk.out` for
//! `references/cuda/plain.cu`.
//!
//! `--advise [ITEMS]` asks the advisor which compiled strategy, at which launch, for ITEMS items
//! (65,536 unless given): on the GPU one call, `reconverge_advisor::advise_compiled`, ranks
//! every strategy the library compiled and the two numbers of `EXTRA_NUMBERS` with each entry
//! point's registers from the driver and its loop's shape from the module's SASS (cuobjdump,
//! where installed); without a GPU, the listed strategies at the calibration's defaults.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use reconverge::conformance::Check;
use reconverge::prelude::*;
use user_workload::{WALK_STRATEGIES, Walk};

/// The workload as this example runs it.
const WALK: Walk = Walk {
    max_steps: 400,
    trap: 3,
    escape: 24,
    seed: 7,
};
const ITEMS: u32 = 1 << 16;

/// A vote and a cycle no entry list names: their technique's `_any` entry points take them at
/// run time.
const EXTRA_NUMBERS: [Strategy; 2] = [
    Strategy::iteration_delaying(Decision::majority_vote(20, true)),
    Strategy::iteration_delaying(Decision::round_robin(1, 2, true)),
];

/// The PTX `build.rs` compiled from this crate's library, and the cubins it made from it where
/// it found CUDA's `ptxas`.
#[cfg(feature = "cuda")]
const MODULE: reconverge::gpu::ModuleImages = reconverge::this_crate_module!();

/// A user's own workload (particles random-walking through a trap) under every strategy its
/// shape lists, on the CPU; built with `--features cuda`, also every entry point its library
/// lists, on GPU 0, compared with the CPU bit for bit.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// Write the CPU's outputs to DIR/expected/walk.out (for references/cuda/plain.cu) and, on
    /// the GPU, time every strategy beside the walk's plain kernels into DIR/walk.tsv.
    #[arg(long, value_name = "DIR")]
    compare: Option<PathBuf>,
    /// Rank the compiled strategies and two numbers no list names, each at candidate launches,
    /// for ITEMS items (65536 if not given) with the advisor: on the GPU from the module's own
    /// registers and SASS, else at the calibration's defaults.
    #[arg(long, value_name = "ITEMS", num_args = 0..=1, default_missing_value = "65536")]
    advise: Option<u32>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(Args { compare, advise }: Args) -> Result<(), Box<dyn std::error::Error>> {
    let kernel = BranchLoopKernel(WALK);
    let cpu = CpuBackend::new();
    // The launch the backend picks, as every run below uses it (and the conformance kit too).
    let launches = [cpu.launch_for(&kernel, &Strategy::BASELINE, ITEMS)?];
    // The conformance kit: every strategy the shape lists against the baseline, exactly.
    let report = Check::listed(&kernel, ITEMS, &launches).run(&kernel, &[&cpu]);
    println!("CPU  every listed strategy against the baseline: {report}");
    if !report.passed() {
        return Err(report.to_string().into());
    }
    // With `--compare`: the CPU's outputs, written for `plain.cu` and, on the GPU, the
    // reference every strategy and plain kernel is compared with.
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    let reference = match &compare {
        Some(dir) => {
            let expected = dir.join("expected");
            std::fs::create_dir_all(&expected)?;
            let outputs = cpu.run_auto(&kernel, Strategy::BASELINE, ITEMS)?.outputs;
            let bytes: Vec<u8> = outputs.iter().flat_map(|o| o.to_le_bytes()).collect();
            std::fs::write(expected.join("walk.out"), bytes)?;
            outputs
        }
        None => Vec::new(),
    };
    #[cfg(feature = "cuda")]
    {
        use reconverge::gpu::{CudaBackend, DeviceKernel};
        let names: Vec<&str> = user_workload::WALK_ENTRY_POINTS
            .iter()
            .chain(user_workload::WALK_PLAIN_KERNELS)
            .copied()
            .collect();
        match CudaBackend::with_images(0, MODULE, &names) {
            Ok(gpu) => {
                // The same kit with the CPU's baseline as the reference: every strategy the
                // GPU has entry points for, on the GPU, bit for bit.
                // A vote and a cycle no list names run too, on their technique's `_any`
                // entry point, which takes the numbers at run time.
                let mut strategies = <BranchLoopKernel<Walk> as DeviceKernel>::strategies();
                strategies.extend(EXTRA_NUMBERS);
                let check = Check {
                    strategies: &strategies,
                    counters: false,
                    ..Check::listed(&kernel, ITEMS, &launches)
                };
                let report = check.run(&kernel, &[&cpu, &gpu]);
                println!(
                    "GPU  every listed strategy and two numbers no list names, against the CPU's baseline: {report}"
                );
                if !report.passed() {
                    return Err(report.to_string().into());
                }
                for strategy in strategies {
                    let on_gpu = gpu.run_auto(&kernel, strategy, ITEMS)?;
                    println!(
                        "GPU  {}: {:?} kernel time at {} blocks x {} threads, outputs = CPU's bit for bit",
                        strategy,
                        on_gpu.pass_times.iter().sum::<std::time::Duration>(),
                        on_gpu.launch.blocks,
                        on_gpu.launch.threads_per_block,
                    );
                    if let Some(warning) = on_gpu.launch_warning() {
                        println!("     {warning}");
                    }
                }
                if let Some(dir) = &compare {
                    let comparison =
                        gpu.compare_with_plain(&kernel, "walk", ITEMS, &reference, 15, true)?;
                    let tsv = reconverge::gpu::comparison::comparison_tsv("walk", &comparison);
                    std::fs::write(dir.join("walk.tsv"), &tsv)?;
                    print!("{tsv}");
                }
                if let Some(items) = advise {
                    // One call: the compiled list (and two numbers for its `_any` entry
                    // points), registers from the driver, loops from the module's SASS.
                    let module = reconverge_advisor::GpuModule::new(&gpu, &MODULE);
                    let list = reconverge_advisor::compiled_strategies::<BranchLoopKernel<Walk>>(
                        &EXTRA_NUMBERS,
                    );
                    let started = std::time::Instant::now();
                    let answer = reconverge_advisor::advise_compiled(
                        &kernel,
                        items,
                        &list,
                        &module,
                        &reconverge_advisor::Gpu::h100()?,
                        &reconverge_advisor::Sampling::default(),
                    )?;
                    match &answer.loops {
                        Ok(read) => print!(
                            "the module's loops (SASS):\n{}",
                            reconverge_advisor::loop_table(read)
                        ),
                        Err(e) => println!("loops taken as nested (no SASS read: {e})"),
                    }
                    println!(
                        "advised in {:.1} s:\n{}",
                        started.elapsed().as_secs_f64(),
                        answer.advice
                    );
                }
                return Ok(());
            }
            Err(e) => println!("GPU: none here ({e})"),
        }
    }
    if let Some(items) = advise {
        // No GPU: the listed strategies and the two numbers at the calibration's defaults.
        let mut list = WALK_STRATEGIES.to_vec();
        list.extend(EXTRA_NUMBERS);
        let started = std::time::Instant::now();
        let advice = reconverge_advisor::advise_launches(
            &kernel,
            items,
            &list,
            &reconverge_advisor::Gpu::h100()?,
            &reconverge_advisor::Sampling::default(),
            &reconverge_advisor::Compiled::default(),
        )?;
        println!(
            "advised in {:.1} s (no GPU: registers and loops at the calibration's defaults):\n{advice}",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workload diverges and its strategies agree: the conformance kit finds every
    /// listed strategy equal to the baseline on two launch shapes, and the model sees lanes
    /// masked off (SIMD efficiency below 1).
    #[test]
    fn every_listed_strategy_gives_the_baseline_outputs() {
        let kernel = BranchLoopKernel(WALK);
        let launches = [Launch::new(64, 4).unwrap(), Launch::new(128, 2).unwrap()];
        let cpu = CpuBackend::new();
        let base = cpu
            .run(&kernel, Strategy::BASELINE, 4096, launches[0])
            .unwrap();
        assert!(base.simd_efficiency().unwrap() < 0.9);
        let report = Check::listed(&kernel, 4096, &launches).run(&kernel, &[&cpu]);
        assert!(report.passed(), "{report}");
        // Every listed strategy on every launch, and the baselines.
        let listed = <BranchLoopKernel<Walk> as Kernel>::STRATEGIES.len();
        assert!(report.runs >= listed * launches.len(), "{report}");
    }
}
