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
    use reconverge_transforms::TwoPath;
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
    // reconverge's branch splitting (two passes, which the comparison leaves out: it times
    // one-entry strategies), at its default launch.
    let strategy = reconverge_transforms::Strategy::BRANCH_SPLITTING;
    let split_launch = gpu.try_launch_for(kernel, &strategy, items)?;
    gpu.try_run(kernel, strategy, items, split_launch)?;
    let mut times = Vec::new();
    let mut identical = true;
    for _ in 0..args.repeats.max(1) {
        let r = gpu.try_run(kernel, strategy, items, split_launch)?;
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
    let names = reconverge_gpu::CudaBackend::entry_points(kernel, &strategy)?;
    let registers = gpu
        .gpu()
        .attributes(names[names.len() - 1])?
        .registers_per_thread;
    tsv.push_str(&format!(
        "{name}\tbranch splitting\tdefault\t{}\t{}\t{ms:.4}\t{:.3}\t{}\t{registers}\t-\n",
        split_launch.threads_per_block,
        split_launch.blocks,
        ms / best_plain,
        if identical { "yes" } else { "no" },
    ));
    let launch = reconverge_backend::Launch::one_item_per_thread(items, 256)?;
    let passes = ["bsdistinct_twin_split_a", "bsdistinct_twin_split_b"];
    let run = || -> Result<(f64, bool), Error> {
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
        let ms = (a.pass_times.iter().chain(&b.pass_times))
            .sum::<std::time::Duration>()
            .as_secs_f64()
            * 1e3;
        Ok((ms, identical))
    };
    run()?;
    let mut times = Vec::new();
    let mut identical = true;
    for _ in 0..args.repeats.max(1) {
        let (ms, ok) = run()?;
        times.push(ms);
        identical &= ok;
    }
    times.sort_by(f64::total_cmp);
    let ms = times[times.len() / 2];
    let registers = gpu.gpu().attributes(passes[1])?.registers_per_thread;
    let occupancy = gpu
        .gpu()
        .occupancy(passes[1], launch.threads_per_block)
        .ok();
    tsv.push_str(&format!(
        "{name}\ttwin branch splitting\tdefault\t{}\t{}\t{ms:.4}\t{:.3}\t{}\t{registers}\t{}\n",
        launch.threads_per_block,
        launch.blocks,
        ms / best_plain,
        if identical { "yes" } else { "no" },
        occupancy.map_or("-".into(), |o| format!("{o:.2}")),
    ));
    super::write(&path, tsv)
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
