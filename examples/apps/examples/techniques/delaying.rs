//! Iteration delaying's hand-written twins in Rust (`reconverge_device::iteration_delaying_twin!`,
//! seed 002 fig. 5 written by hand: each thread's own loop, `vote.ballot.sync` and `popc` at the
//! iteration point), timed beside reconverge's strategies on each real-divergence SYN-ITDELAY
//! setting at the CUDA C++ twins' launch (one item per thread, 256 threads per block) and with
//! their codes and numbers (`references/cuda/techniques.cu`), so that the page sets reconverge,
//! the Rust twin and the CUDA C++ twin of each decision side by side. Rows in `DIR/<setting>.tsv`,
//! codes `twin ...` as in the CUDA twins' `cuda.tsv`.

use reconverge_transforms::BranchLoopKernel;
use reconverge_workloads::synthetic::{ItDelayOutput, SynItDelayDistinct};

use super::{Args, Error};

#[cfg(feature = "cuda")]
type Gpu = Option<reconverge_gpu::CudaBackend>;
#[cfg(not(feature = "cuda"))]
type Gpu = super::NoGpu;

/// A twin: its code (the CUDA twin's), its entry point, and its numbers `a`, `b` (`None`:
/// cost-balanced, whose B comes from the workload).
type Twin = (&'static str, &'static str, Option<(u32, u32)>);

/// Every twin, in the CUDA twins' order.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
const TWINS: &[Twin] = &[
    (
        "twin majority vote 4, stop",
        "itdistinct_twin_mv_stop",
        Some((4, 0)),
    ),
    (
        "twin majority vote 8, stop",
        "itdistinct_twin_mv_stop",
        Some((8, 0)),
    ),
    (
        "twin majority vote 16, stop",
        "itdistinct_twin_mv_stop",
        Some((16, 0)),
    ),
    (
        "twin majority vote 24, stop",
        "itdistinct_twin_mv_stop",
        Some((24, 0)),
    ),
    ("twin majority vote 16", "itdistinct_twin_mv", Some((16, 0))),
    ("twin round robin 1:1", "itdistinct_twin_rr", Some((1, 1))),
    ("twin round robin 3:1", "itdistinct_twin_rr", Some((3, 1))),
    (
        "twin round robin 1:1, idle removal",
        "itdistinct_twin_rr_idle",
        Some((1, 1)),
    ),
    (
        "twin round robin 3:1, idle removal",
        "itdistinct_twin_rr_idle",
        Some((3, 1)),
    ),
    ("twin cost-balanced", "itdistinct_twin_balanced", None),
];

/// Times the Rust twins of iteration delaying on setting `name` and appends their rows to
/// `DIR/<name>.tsv`.
#[cfg(feature = "cuda")]
pub fn twins(
    args: &Args,
    gpu: &Gpu,
    name: &str,
    kernel: &BranchLoopKernel<SynItDelayDistinct>,
    reference: &[ItDelayOutput],
) -> Result<(), Error> {
    use reconverge_transforms::BranchLoop;
    let Some(gpu) = gpu else {
        return Ok(());
    };
    let mut rows = super::ExtraRows::open(args, name)?;
    let items = reference.len() as u32;
    let launch = reconverge_backend::Launch::one_item_per_thread(items, 256)?;
    // B as reconverge and the CUDA twin's host compute it: the taken path in lane-iterations.
    let r = kernel.0.regions();
    let b = reconverge_device::delaying_twin::taken_cost(
        r.condition.cost,
        r.taken.cost,
        r.not_taken.cost,
        r.after_branch.cost,
    );
    for &(code, entry, numbers) in TWINS {
        let (a, b) = numbers.unwrap_or((b, 0));
        let resources = (
            gpu.gpu().attributes(entry)?.registers_per_thread,
            gpu.gpu().occupancy(entry, launch.threads_per_block).ok(),
        );
        rows.time(code, launch, args.repeats, resources, || {
            let r = gpu.run_hand_written_with(entry, kernel, items, launch, &[a, b])?;
            Ok((super::run_ms(&r), r.outputs == reference))
        })?;
    }
    rows.save()
}

#[cfg(not(feature = "cuda"))]
pub fn twins(
    _: &Args,
    _: &Gpu,
    _: &str,
    _: &BranchLoopKernel<SynItDelayDistinct>,
    _: &[ItDelayOutput],
) -> Result<(), Error> {
    Ok(())
}
