//! A user's own workload ([`Walk`], in the `walk/` crate) under every strategy its shape has,
//! on the CPU backend — and, built with `--features cuda` on a machine with a GPU, on the GPU
//! from entry points listed once in `walk/entries.in`, compared with the CPU bit for bit.
//!
//! ```sh
//! cargo run --release -p user-workload                    # CPU
//! cargo run --release -p user-workload --features cuda    # CPU, then GPU 0
//! ```

use std::process::ExitCode;

use reconverge::prelude::*;
use user_workload_walk::Walk;

/// The workload as this example runs it.
const WALK: Walk = Walk {
    max_steps: 400,
    trap: 3,
    escape: 24,
    seed: 7,
};
const ITEMS: u32 = 1 << 16;

/// The PTX `build.rs` compiled from `device/`.
#[cfg(feature = "cuda")]
const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/walk.ptx"));

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let kernel = BranchLoopKernel(WALK);
    let launch = Launch::new(128, 64)?;
    let cpu = CpuBackend::new();
    let baseline = cpu.run(&kernel, Strategy::Baseline, ITEMS, launch)?;
    for &strategy in <BranchLoopKernel<Walk> as Kernel>::STRATEGIES {
        let run = cpu.run(&kernel, strategy, ITEMS, launch)?;
        if run.outputs != baseline.outputs {
            return Err(format!("CPU, {strategy}: outputs differ from the baseline's").into());
        }
        println!(
            "CPU  {strategy}: {:?}, SIMD efficiency {:.3}, outputs = baseline",
            run.elapsed,
            run.simd_efficiency().unwrap_or(0.0)
        );
    }
    #[cfg(feature = "cuda")]
    {
        use reconverge::gpu::{CudaBackend, DeviceKernel, WarmUp};
        match CudaBackend::with_ptx(0, PTX, user_workload_walk::WALK_ENTRY_POINTS) {
            Ok(gpu) => {
                let gpu = gpu.with_warm_up(WarmUp::FirstUse);
                for strategy in <BranchLoopKernel<Walk> as DeviceKernel>::strategies() {
                    let on_gpu = gpu.run(&kernel, strategy, ITEMS, launch)?;
                    let on_cpu = cpu.run(&kernel, strategy, ITEMS, launch)?;
                    if on_gpu.outputs != on_cpu.outputs {
                        return Err(
                            format!("GPU, {strategy}: outputs differ from the CPU's").into()
                        );
                    }
                    println!(
                        "GPU  {strategy}: {:?} kernel time, outputs = CPU's bit for bit",
                        on_gpu.pass_times.iter().sum::<std::time::Duration>()
                    );
                }
            }
            Err(e) => println!("GPU: none here ({e})"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workload diverges and its strategies agree: outputs equal across strategies, and
    /// the model sees lanes masked off (SIMD efficiency below 1).
    #[test]
    fn every_listed_strategy_gives_the_baseline_outputs() {
        let kernel = BranchLoopKernel(WALK);
        let launch = Launch::new(64, 4).unwrap();
        let cpu = CpuBackend::new();
        let base = cpu.run(&kernel, Strategy::Baseline, 4096, launch).unwrap();
        assert!(base.simd_efficiency().unwrap() < 0.9);
        for &s in <BranchLoopKernel<Walk> as Kernel>::STRATEGIES {
            assert_eq!(
                cpu.run(&kernel, s, 4096, launch).unwrap().outputs,
                base.outputs,
                "{s}"
            );
        }
    }
}
