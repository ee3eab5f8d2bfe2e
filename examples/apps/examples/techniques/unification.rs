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
    let mut rows = super::ExtraRows::open(args, name)?;
    let items = reference.len() as u32;
    for &n in TWIN_ITEMS_PER_THREAD {
        let entry = format!("bpudistinct_twin_unify{n}");
        let launch = gpu.try_launch_for(kernel, &Strategy::branch_path_unification(n), items)?;
        let resources = (
            gpu.gpu().attributes(&entry)?.registers_per_thread,
            gpu.gpu().occupancy(&entry, launch.threads_per_block).ok(),
        );
        let code = format!("twin branch path unification, {n} items per thread");
        rows.time(&code, launch, args.repeats, resources, || {
            let r = gpu.run_hand_written(&entry, kernel, items, launch)?;
            Ok((super::run_ms(&r), r.outputs == reference))
        })?;
    }
    rows.save()
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
