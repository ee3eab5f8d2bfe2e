//! Seed 004's branch path unification where divergence is real: the kernel of fig. A-2 with a
//! float path A and the paper's integer functionB (`PathUnificationDistinct`), at LOOP = 10,
//! 100 and 1000 (tables 2-3 sweep 1 to 10000), 2^24 items (`--two-path-items`; 64 items per
//! thread still fill the GPU, as the paper's unified kernel does 64 times the data): the plain kernels, reconverge's
//! strategies at their default launch (the baseline and unification at 1, 4, 16 and 64 items
//! per thread) and the hand-written twin of unification in Rust (`unification_twin!`) at the
//! launch the strategy of the same DATA_PER_THREAD runs with. `DIR/unify-loopN.tsv` holds the
//! rows, `DIR/unify-loopN.out` the CPU outputs and `DIR/unify-settings.tsv` the settings, which
//! `references/cuda/unification.cu` (the CUDA C++ twins) reads.

use reconverge_transforms::TwoPathKernel;
use reconverge_workloads::synthetic::PathUnificationDistinct;

use super::{Args, Error, compare, expected, write};

/// LOOP of each setting: short, medium and long paths.
const LOOPS: &[u32] = &[10, 100, 1000];

/// The items per thread of the hand-written twins (the strategy's own list has 1 too, where
/// unification is the baseline).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
const TWIN_ITEMS_PER_THREAD: &[u32] = &[4, 16, 64];

#[cfg(feature = "cuda")]
type Gpu = Option<reconverge_gpu::CudaBackend>;
#[cfg(not(feature = "cuda"))]
type Gpu = super::NoGpu;

pub fn run(args: &Args, gpu: &Gpu) -> Result<(), Error> {
    let mut settings = String::new();
    for &loop_count in LOOPS {
        let name = format!("unify-loop{loop_count}");
        if !name.contains(&args.only) {
            continue;
        }
        let w = PathUnificationDistinct::new(loop_count, super::SEED);
        let outputs = expected(args, &name, args.two_path_items, |i| w.reference(i))?;
        let kernel = TwoPathKernel(w);
        compare(args, gpu, &name, &kernel, "bpudistinct", &outputs)?;
        twins(args, gpu, &name, &kernel, &outputs)?;
        settings.push_str(&format!(
            "{name}\t{loop_count}\t{}\t{}\n",
            super::SEED,
            args.two_path_items
        ));
    }
    write(&args.out.join("unify-settings.tsv"), settings)
}

/// Times the Rust twins at the default launch of reconverge's unification of the same items
/// per thread and appends their rows to `DIR/<name>.tsv` (the comparison's columns).
#[cfg(feature = "cuda")]
fn twins(
    args: &Args,
    gpu: &Gpu,
    name: &str,
    kernel: &TwoPathKernel<PathUnificationDistinct>,
    reference: &[u32],
) -> Result<(), Error> {
    use reconverge_transforms::Strategy;
    let Some(gpu) = gpu else {
        return Ok(());
    };
    let path = args.out.join(format!("{name}.tsv"));
    let mut tsv = std::fs::read_to_string(&path)?;
    let best_plain = tsv
        .lines()
        .skip(1)
        .filter(|l| l.split('\t').nth(1).is_some_and(|c| c.starts_with("plain")))
        .filter_map(|l| l.split('\t').nth(5)?.parse::<f64>().ok())
        .fold(f64::INFINITY, f64::min);
    let items = reference.len() as u32;
    for &n in TWIN_ITEMS_PER_THREAD {
        let entry = format!("bpudistinct_twin_unify{n}");
        let launch = gpu.try_launch_for(kernel, &Strategy::branch_path_unification(n), items)?;
        gpu.run_hand_written(&entry, kernel, items, launch)?;
        let mut times = Vec::new();
        let mut identical = true;
        for _ in 0..args.repeats.max(1) {
            let r = gpu.run_hand_written(&entry, kernel, items, launch)?;
            identical &= r.outputs == reference;
            times.push(
                r.pass_times
                    .iter()
                    .sum::<std::time::Duration>()
                    .as_secs_f64()
                    * 1e3,
            );
        }
        times.sort_by(f64::total_cmp);
        let ms = times[times.len() / 2];
        let registers = gpu.gpu().attributes(&entry)?.registers_per_thread;
        let occupancy = gpu.gpu().occupancy(&entry, launch.threads_per_block).ok();
        tsv.push_str(&format!(
            "{name}\ttwin branch path unification, {n} items per thread\tdefault\t{}\t{}\t{ms:.4}\t{:.3}\t{}\t{registers}\t{}\n",
            launch.threads_per_block,
            launch.blocks,
            ms / best_plain,
            if identical { "yes" } else { "no" },
            occupancy.map_or("-".into(), |o| format!("{o:.2}")),
        ));
    }
    write(&path, tsv)
}

#[cfg(not(feature = "cuda"))]
fn twins(
    _: &Args,
    _: &Gpu,
    _: &str,
    _: &TwoPathKernel<PathUnificationDistinct>,
    _: &[u32],
) -> Result<(), Error> {
    Ok(())
}
