//! Occupancy of one kernel on one GPU, like NVIDIA's occupancy calculator.
//!
//! ```text
//! cargo run --release --example occupancy -- --device h100 --threads 256 --regs 40 --smem 12288
//! cargo run --release --example occupancy -- --cc 8.6 --threads 128 --regs 64 --json
//! cargo run --release --example occupancy -- --device g80 --threads 256 --regs 13 --sweep registers
//! ```

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use reconverge_occupancy::report::{Target, render_sweep, report};
use reconverge_occupancy::sweeps::{sweep_block_size, sweep_registers, sweep_shared_memory};
use reconverge_occupancy::{CachePreference, KernelResources, LaunchConfig};

#[derive(Clone, Copy, ValueEnum)]
enum Sweep {
    BlockSize,
    Registers,
    Smem,
}

#[derive(Clone, Copy, ValueEnum)]
enum Cache {
    None,
    Shared,
    L1,
    Equal,
}

/// Theoretical occupancy of a CUDA kernel (rules of cuda_occupancy.h, cc 1.0 to 12.1).
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Named GPU: h100, a100, v100, rtx4090, gtx480, 8800gtx, ...
    #[arg(long, required_unless_present = "cc")]
    device: Option<String>,
    /// Compute capability instead of a device, e.g. 8.6 or sm_86.
    #[arg(long, conflicts_with = "device")]
    cc: Option<String>,
    /// Threads per block.
    #[arg(long)]
    threads: u32,
    /// Registers per thread.
    #[arg(long, default_value_t = 0)]
    regs: u32,
    /// Dynamic shared memory per block, bytes.
    #[arg(long, default_value_t = 0)]
    smem: u32,
    /// Static shared memory per block, bytes.
    #[arg(long, default_value_t = 0)]
    static_smem: u32,
    /// Shared-memory carve-out in percent (cc >= 7.0).
    #[arg(long)]
    carveout: Option<u32>,
    /// Cache preference (Fermi/Kepler; mapped to a carve-out on cc >= 7.0).
    #[arg(long, value_enum, default_value_t = Cache::None)]
    cache: Cache,
    /// Opt in to this much dynamic shared memory per block (cudaFuncAttributeMaxDynamicSharedMemorySize).
    #[arg(long)]
    max_dynamic_smem: Option<u32>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Also print occupancy against block size, registers or shared memory.
    #[arg(long, value_enum)]
    sweep: Option<Sweep>,
}

fn run(args: &Args) -> Result<String, Box<dyn std::error::Error>> {
    let target = Target::resolve(args.device.as_deref(), args.cc.as_deref())?;
    let kernel = KernelResources::new(args.threads, args.regs)
        .with_static_smem(args.static_smem)
        .with_dynamic_smem(args.smem);
    let config = LaunchConfig {
        cache_preference: match args.cache {
            Cache::None => CachePreference::None,
            Cache::Shared => CachePreference::PreferShared,
            Cache::L1 => CachePreference::PreferL1,
            Cache::Equal => CachePreference::PreferEqual,
        },
        carveout_percent: args.carveout,
        max_dynamic_shared_memory: args.max_dynamic_smem,
    };
    let result = report(target, &kernel, &config)?;
    let sweep = args.sweep.map(|sweep| match sweep {
        Sweep::BlockSize => ("threads", sweep_block_size(target.limits, &kernel, &config)),
        Sweep::Registers => (
            "registers",
            sweep_registers(target.limits, &kernel, &config),
        ),
        Sweep::Smem => (
            "dyn smem B",
            sweep_shared_memory(target.limits, &kernel, &config),
        ),
    });
    if args.json {
        let mut value = serde_json::to_value(&result)?;
        if let (Some((_, points)), Some(object)) = (&sweep, value.as_object_mut()) {
            object.insert("sweep".to_string(), serde_json::to_value(points)?);
        }
        return Ok(serde_json::to_string(&value)?);
    }
    let mut out = result.to_string();
    if let Some((label, points)) = sweep {
        out.push('\n');
        out.push_str(&render_sweep(&points, label));
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(text) => {
            println!("{}", text.trim_end());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
