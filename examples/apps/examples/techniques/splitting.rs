//! Seed 001's branch splitting where divergence is real: the benchmark of §5 with a float else
//! branch (`BranchSplitDistinct`), a random decision mask with 10 % and 50 % else elements and
//! two heavy-branch lengths, 2^24 items (`--two-path-items`): the plain kernels, reconverge's strategies at their
//! default launch (the branched baseline, predication, branch splitting, static branch
//! resolution) and branch splitting's hand-written twin in Rust
//! (`reconverge_device::branch_splitting_twin!`: two kernels, a thread per item, timed as the
//! sum of the two launches). `DIR/split-*.tsv` holds the rows, `DIR/split-settings.tsv` the
//! settings and `DIR/split-*.out` the CPU outputs, which `references/cuda/splitting.cu` (the
//! CUDA C++ twin) reads.

use reconverge_transforms::TwoPathKernel;
use reconverge_workloads::synthetic::{BranchSplitBench, BranchSplitDistinct, MaskLayout};

use super::{Args, Error, compare, expected};

/// (else fraction, light, heavy) of each setting: seed 001's default lengths (16 and 32) and a
/// heavy branch eight times as long.
const SETTINGS: &[(f64, u32, u32)] =
    &[(0.1, 16, 32), (0.5, 16, 32), (0.1, 16, 256), (0.5, 16, 256)];

#[cfg(feature = "cuda")]
type Gpu = Option<reconverge_gpu::CudaBackend>;
#[cfg(not(feature = "cuda"))]
type Gpu = super::NoGpu;

pub fn run(args: &Args, gpu: &Gpu) -> Result<(), Error> {
    let mut settings = String::new();
    for &(else_fraction, light, heavy) in SETTINGS {
        let name = format!("split-else{else_fraction}-heavy{heavy}");
        if !name.contains(&args.only) {
            continue;
        }
        let w = BranchSplitDistinct(
            BranchSplitBench::new(
                args.two_path_items,
                else_fraction,
                MaskLayout::Random,
                super::SEED,
            )
            .with_paths(light, heavy),
        );
        let outputs = expected(args, &name, args.two_path_items, |i| w.reference(i))?;
        let kernel = TwoPathKernel(w);
        compare(args, gpu, &name, &kernel, "bsdistinct", &outputs)?;
        twin(args, gpu, &name, &kernel, &outputs)?;
        let b = w.0;
        settings.push_str(&format!(
            "{name}\t{}\t{}\t{}\t{}\t{}\n",
            b.else_q16, b.light, b.heavy, b.seed, args.two_path_items
        ));
    }
    super::write(&args.out.join("split-settings.tsv"), settings)
}

/// Times the Rust twin (both kernels, a thread per item) and appends its row to
/// `DIR/<name>.tsv` (the comparison's columns).
#[cfg(feature = "cuda")]
fn twin(
    args: &Args,
    gpu: &Gpu,
    name: &str,
    kernel: &TwoPathKernel<BranchSplitDistinct>,
    reference: &[u32],
) -> Result<(), Error> {
    use reconverge_transforms::{Strategy, TwoPath};
    let Some(gpu) = gpu else {
        return Ok(());
    };
    let mut rows = super::ExtraRows::open(args, name)?;
    let items = reference.len() as u32;
    // reconverge's branch splitting (two passes, which the comparison leaves out: it times
    // one-entry strategies), at its default launch.
    let strategy = Strategy::BRANCH_SPLITTING;
    let (launch, resources) = super::multi_pass_launch(gpu, kernel, &strategy, items)?;
    rows.time("branch splitting", launch, args.repeats, resources, || {
        let r = gpu.try_run(kernel, strategy, items, launch)?;
        Ok((super::run_ms(&r), r.outputs == reference))
    })?;
    // The twin: both kernels, a thread per item, each writing its path's items.
    let launch = reconverge_backend::Launch::one_item_per_thread(items, 256)?;
    let passes = ["bsdistinct_twin_split_a", "bsdistinct_twin_split_b"];
    let resources = (
        gpu.gpu().attributes(passes[1])?.registers_per_thread,
        gpu.gpu()
            .occupancy(passes[1], launch.threads_per_block)
            .ok(),
    );
    rows.time(
        "twin branch splitting",
        launch,
        args.repeats,
        resources,
        || {
            let a = gpu.run_hand_written(passes[0], kernel, items, launch)?;
            let b = gpu.run_hand_written(passes[1], kernel, items, launch)?;
            let identical = (0..items).all(|i| {
                let out = if kernel.0.decide(i) {
                    a.outputs[i as usize]
                } else {
                    b.outputs[i as usize]
                };
                out == reference[i as usize]
            });
            Ok((super::run_ms(&a) + super::run_ms(&b), identical))
        },
    )?;
    rows.save()
}

#[cfg(not(feature = "cuda"))]
fn twin(
    _: &Args,
    _: &Gpu,
    _: &str,
    _: &TwoPathKernel<BranchSplitDistinct>,
    _: &[u32],
) -> Result<(), Error> {
    Ok(())
}
