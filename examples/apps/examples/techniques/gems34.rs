//! GPU Gems 2 ch. 34's flow-control idioms (Harris & Buck) against their hand-written twins:
//! z-cull masking (§34.2.3) on the branch-probability experiment (`Gems34Branch`, figs. 34-1
//! and 34-2: a random and a spatially coherent condition, runs of 1024 items) and the
//! occlusion-query loop (§34.3) on seed 004's loop of 1-32 trips (`DynamicWork`, LOOP_NUM 16).
//! Per setting: the plain kernels and reconverge's one-kernel strategies
//! (`compare`), then reconverge's multi-launch strategy (z-cull masking's three passes; the
//! occlusion-query loop at 1, 4, 8 and 32 iterations per launch) and its Rust twin
//! (`reconverge_device::zcull_twin!`, `occlusion_twin!`: a mask kernel and two path kernels
//! culling whole warps; a bounded-steps kernel the host relaunches until its counter of
//! unfinished items reads 0) at one item per thread, 256 threads per block. Times are kernel
//! times summed over a code's launches; rows `... path passes` leave out z-cull's mask pass
//! (the book reuses the mask). `DIR/zcull-*.tsv`, `DIR/occlusion-*.tsv`.

use reconverge_transforms::{ItemLoopKernel, TwoPathKernel};
use reconverge_workloads::synthetic::{DynamicWork, Gems34Branch};

use super::{Args, Error, compare, expected};

#[cfg(feature = "cuda")]
type Gpu = Option<reconverge_gpu::CudaBackend>;
#[cfg(not(feature = "cuda"))]
type Gpu = super::NoGpu;

/// Items of the branch-probability settings (the reproduce pages' 2^22 fragments).
const GEMS_ITEMS: u32 = 1 << 22;

/// The occlusion-query loop's iterations per launch (the reproduce page's).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
const PER_LAUNCH: [u32; 4] = [1, 4, 8, 32];

pub fn run(args: &Args, gpu: &Gpu) -> Result<(), Error> {
    for coherent in [false, true] {
        for p in [0.05, 0.25, 0.5, 0.95] {
            let condition = if coherent { "coherent" } else { "random" };
            let name = format!("zcull-{condition}-p{p}");
            if !name.contains(&args.only) {
                continue;
            }
            let w = if coherent {
                Gems34Branch::coherent(p, 1)
            } else {
                Gems34Branch::random(p, 1)
            };
            let items = GEMS_ITEMS.min(args.two_path_items);
            let outputs = expected(args, &name, items, |i| w.reference(i))?;
            let kernel = TwoPathKernel(w);
            compare(args, gpu, &name, &kernel, "gems34", &outputs)?;
            zcull(args, gpu, &name, &kernel, &outputs)?;
        }
    }
    let name = "occlusion-loop16";
    if name.contains(&args.only) {
        let w = DynamicWork::new(16, 32, 1);
        let outputs = expected(args, name, args.items, |i| w.reference(i))?;
        let kernel = ItemLoopKernel(w);
        compare(args, gpu, name, &kernel, "dwa", &outputs)?;
        occlusion(args, gpu, name, &kernel, &outputs)?;
    }
    Ok(())
}

/// reconverge's z-cull masking and its Rust twin, all three passes and the path passes alone.
#[cfg(feature = "cuda")]
fn zcull(
    args: &Args,
    gpu: &Gpu,
    name: &str,
    kernel: &TwoPathKernel<Gems34Branch>,
    reference: &[u32],
) -> Result<(), Error> {
    use reconverge_device::gems34_twin::zcull_scratch_bytes;
    use reconverge_transforms::Strategy;
    let Some(gpu) = gpu else {
        return Ok(());
    };
    let mut rows = super::ExtraRows::open(args, name)?;
    let items = reference.len() as u32;
    let strategy = Strategy::Z_CULL_MASKING;
    let (launch, resources) = super::multi_pass_launch(gpu, kernel, &strategy, items)?;
    for (code, skip) in [("z-cull masking", 0), ("z-cull masking, path passes", 1)] {
        rows.time(code, launch, args.repeats, resources, || {
            let r = gpu.try_run(kernel, strategy, items, launch)?;
            let ms = r.pass_times.iter().skip(skip).sum::<std::time::Duration>();
            Ok((ms.as_secs_f64() * 1e3, r.outputs == reference))
        })?;
    }
    let launch = reconverge_backend::Launch::one_item_per_thread(items, 256)?;
    let passes = [
        "gems34_twin_zcull_mask",
        "gems34_twin_zcull_a",
        "gems34_twin_zcull_b",
    ];
    let resources = (
        gpu.gpu().attributes(passes[1])?.registers_per_thread,
        gpu.gpu()
            .occupancy(passes[1], launch.threads_per_block)
            .ok(),
    );
    for (code, skip) in [
        ("twin z-cull masking", 0),
        ("twin z-cull masking, path passes", 1),
    ] {
        rows.time(code, launch, args.repeats, resources, || {
            let r = gpu.run_hand_written_passes(
                kernel,
                items,
                launch,
                zcull_scratch_bytes(items),
                3,
                |pass, _| passes.get(pass as usize).map(|&p| (p, 0, 0)),
            )?;
            let ms = r.pass_times.iter().skip(skip).sum::<std::time::Duration>();
            Ok((ms.as_secs_f64() * 1e3, r.outputs == reference))
        })?;
    }
    rows.save()
}

/// reconverge's occlusion-query loop and its Rust twin at each iterations per launch.
#[cfg(feature = "cuda")]
fn occlusion(
    args: &Args,
    gpu: &Gpu,
    name: &str,
    kernel: &ItemLoopKernel<DynamicWork>,
    reference: &[u32],
) -> Result<(), Error> {
    use reconverge_device::gems34_twin::occlusion_scratch_bytes;
    use reconverge_transforms::{ItemLoop, Strategy};
    let Some(gpu) = gpu else {
        return Ok(());
    };
    let mut rows = super::ExtraRows::open(args, name)?;
    let items = reference.len() as u32;
    let twin_launch = reconverge_backend::Launch::one_item_per_thread(items, 256)?;
    let entry = "dwa_twin_occlusion";
    let twin_resources = (
        gpu.gpu().attributes(entry)?.registers_per_thread,
        gpu.gpu()
            .occupancy(entry, twin_launch.threads_per_block)
            .ok(),
    );
    let (_, scratch) = occlusion_scratch_bytes::<<DynamicWork as ItemLoop>::State>(items);
    for n in PER_LAUNCH {
        let strategy = Strategy::occlusion_query_loop(n);
        let (launch, resources) = super::multi_pass_launch(gpu, kernel, &strategy, items)?;
        let code = format!("occlusion-query loop, {n} iterations per launch");
        rows.time(&code, launch, args.repeats, resources, || {
            let r = gpu.try_run(kernel, strategy, items, launch)?;
            Ok((super::run_ms(&r), r.outputs == reference))
        })?;
        let code = format!("twin occlusion-query loop, {n} iterations per launch");
        rows.time(&code, twin_launch, args.repeats, twin_resources, || {
            let r = gpu.run_hand_written_passes(
                kernel,
                items,
                twin_launch,
                scratch,
                // Trip counts are at most 32: 32 launches at one iteration each, and one spare.
                64,
                |pass, left| (pass == 0 || left > 0).then_some((entry, n, u32::from(pass == 0))),
            )?;
            Ok((super::run_ms(&r), r.outputs == reference))
        })?;
    }
    rows.save()
}

#[cfg(not(feature = "cuda"))]
fn zcull(
    _: &Args,
    _: &Gpu,
    _: &str,
    _: &TwoPathKernel<Gems34Branch>,
    _: &[u32],
) -> Result<(), Error> {
    Ok(())
}

#[cfg(not(feature = "cuda"))]
fn occlusion(
    _: &Args,
    _: &Gpu,
    _: &str,
    _: &ItemLoopKernel<DynamicWork>,
    _: &[u32],
) -> Result<(), Error> {
    Ok(())
}
