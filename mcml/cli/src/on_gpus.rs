//! `--backend cuda`: one run on the GPUs of `--devices`, and what a process pays around its
//! kernels (loading each GPU, and leaving its release to the process's exit).

use std::any::Any;
use std::sync::Mutex;

use reconverge_backend::Launch;
use reconverge_mcml::batch::PlannedRun;
use reconverge_mcml::distributed::share_of_run;
use reconverge_mcml::{RunResult, run_on_backend_streams};
use reconverge_transforms::Strategy;
use reconverge_workloads::mcml::McmlFloat;

use crate::{
    Args, DynError, PhaseClock, StrategyArg, auto_strategy, report_resumed, tuned_strategy,
};

/// The `--timings` line of the GPUs' release: the previous run's, where an input has several.
const RELEASE_PHASE: &str = "GPU contexts of the run before released (this run's: at exit)";

/// The GPUs (contexts, modules, buffers) of the last run, kept until the next run's are done
/// or the process ends.
static LAST_RUN_GPUS: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);

/// Keeps a run's GPUs loaded until the next run has its own (and releases the ones kept
/// before): the last run's are never released by the program but by the process's exit,
/// where the driver tears them down at less cost than an orderly release
/// (`cuDevicePrimaryCtxRelease` after unloading each module and freeing each buffer). On an
/// H200 (`docs/results/mcml/h200-wave13/`), seven alternating pairs of whole processes, fast
/// math: 0.806 s instead of 0.830 s on skin at 10^8 photons, 1.202 s instead of 1.215 s on the
/// slab, 0.386 s instead of 0.402 s on 1,000 photons. Only the program does this: it is the
/// process, and it ends after its last run.
/// The time the release of the run before took is `--timings`' [`RELEASE_PHASE`].
fn release_at_exit<T: Any + Send>(gpus: T, clock: &PhaseClock) {
    let released = std::time::Instant::now();
    let before = match LAST_RUN_GPUS.lock() {
        Ok(mut kept) => kept.replace(Box::new(gpus)),
        // A thread that panicked while holding the lock left nothing to keep: release now.
        Err(_) => Some(Box::new(gpus) as Box<dyn Any + Send>),
    };
    drop(before);
    clock.part(RELEASE_PHASE, released.elapsed());
}

/// Runs one input in `F` (f32, or `FastF32` with `--fast-math`) on the GPUs of `--devices` (each a contiguous share of the photons,
/// in a thread of its own; tallies summed by NCCL when there are several); returns MCML's
/// result and a description of where it ran.
pub(crate) fn simulate_cuda<F>(
    args: &Args,
    run: &PlannedRun,
    progress: &(dyn Fn(u64) + Sync),
    clock: &PhaseClock,
) -> Result<(RunResult, String), DynError>
where
    F: McmlFloat,
    reconverge_workloads::mcml::McmlKernel<F>: reconverge_gpu::DeviceKernel,
{
    use std::sync::atomic::{AtomicU64, Ordering};

    use reconverge_gpu::{CudaBackend, DeviceKernel, GpuContext, NcclSum, WarmUp};
    use reconverge_workloads::mcml::McmlKernel;
    let Some(strategy) = args.strategy()? else {
        return Err(
            "--strategy scalar runs on the CPU only; pick a warp strategy for --backend cuda"
                .into(),
        );
    };
    let strategy = if args.strategy == StrategyArg::Auto {
        auto_strategy(run, &<McmlKernel<F>>::strategies())?
    } else {
        strategy
    };
    let ordinals = args.device_ordinals(GpuContext::device_count()?)?;
    // Modules load on first use; the entry point that will run loads here, beside its
    // context, so that "load" below is the whole cost of opening the GPU (`--strategy tune`
    // loads each candidate as it times it).
    let preload = match args.strategy {
        StrategyArg::Tune => None,
        _ => <McmlKernel<F>>::entry_point(&strategy, 0),
    };
    // No warm-up launch before a run's first batch: the run is timed whole, and its first
    // batch warms the GPU as an untimed launch would (one photon per lane of the launch, about
    // 9 ms of an H200's time for MCML, whose launch lasts as long as its longest photon). Only
    // `--strategy tune`, which compares its candidates' times, warms each entry point up once.
    let warm_up = if args.strategy == StrategyArg::Tune {
        WarmUp::FirstUse
    } else {
        WarmUp::Off
    };
    // The GPUs' contexts and modules load in parallel.
    let gpus = std::thread::scope(|scope| {
        let loading: Vec<_> = ordinals
            .iter()
            .map(|&o| {
                scope.spawn(move || {
                    let gpu = reconverge_paper_kernels::mcml_backend(o)?;
                    if let Some(entry) = preload {
                        gpu.gpu().preload(&[entry])?;
                    }
                    Ok::<_, reconverge_gpu::GpuError>(gpu)
                })
            })
            .collect();
        loading
            .into_iter()
            .map(|h| match h.join() {
                Ok(gpu) => gpu
                    .map(|mut g| {
                        g.set_tally_copies(args.tally_copies);
                        g.with_warm_up(warm_up)
                    })
                    .map_err(|e| e.to_string()),
                Err(_) => Err("loading a GPU panicked".to_string()),
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    // The launch of `strategy`'s entry point: `--threads-per-block` and `--blocks` where
    // given; otherwise the blocks that fill a GPU once (persistent lanes), of the block size
    // `reconverge_mcml::gpu_launch` picks from the driver's occupancy.
    let launch_for = |gpu: &CudaBackend, strategy: &Strategy| -> Result<Launch, String> {
        let entry = <McmlKernel<F>>::entry_point(strategy, 0)
            .ok_or_else(|| format!("no CUDA entry point for MCML under {strategy}"))?;
        let gpu = gpu.gpu();
        let sms = u32::try_from(gpu.device().multiprocessors).unwrap_or(1);
        let limit = reconverge_gpu::DYNAMIC_SHARED_LIMIT;
        let launch = match args.threads_per_block {
            Some(threads) => {
                let shared = reconverge_mcml::gpu_dynamic_shared_bytes::<F>(strategy, threads);
                if shared > limit {
                    return Err(format!(
                        "{strategy} needs {shared} bytes of shared memory per block of {threads} \
                         threads, over the {limit} a block may have: use fewer threads per block"
                    ));
                }
                let per_sm = gpu
                    .max_active_blocks_with_shared(entry, threads, shared)
                    .map_err(|e| e.to_string())?;
                Launch::new(threads, per_sm.max(1).saturating_mul(sms))
            }
            None => reconverge_mcml::gpu_launch_for::<F>(strategy, sms, limit, |t, shared| {
                gpu.max_active_blocks_with_shared(entry, t, shared).ok()
            }),
        }
        .map_err(|e| e.to_string())?;
        match args.blocks {
            Some(blocks) => {
                Launch::new(launch.threads_per_block, blocks).map_err(|e| e.to_string())
            }
            None => Ok(launch),
        }
    };
    let strategy = match (args.strategy, gpus.first()) {
        (StrategyArg::Tune, Some(gpu)) => {
            // The contexts were loaded on other threads: time on GPU 0 from this one.
            gpu.gpu().bind_to_thread()?;
            tuned_strategy::<F, _>(gpu, run, &<McmlKernel<F>>::strategies(), |s, _| {
                launch_for(gpu, &s).map_err(|message| reconverge_backend::BackendError::Device {
                    backend: "cuda",
                    message,
                })
            })?
        }
        _ => strategy,
    };
    <McmlKernel<F>>::entry_point(&strategy, 0).ok_or_else(|| {
        format!(
            "no CUDA entry point for MCML under {strategy:?}; compiled: {}",
            <McmlKernel<F>>::ENTRY_POINTS
                .iter()
                .map(|e| format!("{:?}", e.strategy))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    // What each module was loaded from (SASS, or PTX and why): what the first process on a
    // machine waits for, and what scripts/first-process.sh checks.
    let mut images: Vec<String> = Vec::new();
    for gpu in &gpus {
        for (module, image) in gpu.gpu().loaded_images() {
            let said = format!("{module}: {image}");
            if !images.contains(&said) {
                images.push(said);
            }
        }
    }
    clock.lap(format!(
        "load {} GPU(s): contexts, modules ({})",
        gpus.len(),
        if images.is_empty() {
            "none loaded yet".to_string()
        } else {
            images.join("; ")
        }
    ));
    let n = u32::try_from(gpus.len()).unwrap_or(u32::MAX);
    let done: Vec<AtomicU64> = gpus.iter().map(|_| AtomicU64::new(0)).collect();
    let started = std::time::Instant::now();
    let contexts: Vec<&GpuContext> = gpus.iter().map(|g| g.gpu()).collect();
    let (parts, reducer) = std::thread::scope(|scope| {
        let handles: Vec<_> = gpus
            .iter()
            .enumerate()
            .map(|(k, gpu)| {
                let done = &done;
                scope.spawn(move || -> Result<_, String> {
                    let began = std::time::Instant::now();
                    gpu.gpu().bind_to_thread().map_err(|e| e.to_string())?;
                    let (input, streams) = share_of_run(&run.input, run.streams, k as u32, n);
                    let share = PlannedRun {
                        input,
                        streams,
                        output: None,
                    };
                    let launch = launch_for(gpu, &strategy)?;
                    let mine = |d: u64| {
                        done[k].store(d, Ordering::Relaxed);
                        progress(done.iter().map(|a| a.load(Ordering::Relaxed)).sum());
                    };
                    let t = std::time::Instant::now();
                    let setup = t - began;
                    let out = run_on_backend_streams::<F, _>(
                        gpu,
                        &share.input,
                        share.input.photons,
                        share.streams,
                        strategy,
                        launch,
                        &args.run_options(&share, &mine),
                    )
                    .map_err(|e| e.to_string())?;
                    Ok((out, t.elapsed(), launch, setup))
                })
            })
            .collect();
        // NCCL's set-up (about a second) runs here, on the thread that will reduce, while the
        // GPUs compute.
        let t = std::time::Instant::now();
        let reducer = (contexts.len() > 1).then(|| NcclSum::new(&contexts));
        let setup = t.elapsed();
        let parts = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a GPU thread panicked".into()))
            })
            .collect::<Result<Vec<_>, String>>();
        (parts, reducer.map(|r| (r, setup)))
    });
    let parts = parts?;
    let mut described = Vec::new();
    for ((out, wall, launch, setup), gpu) in parts.iter().zip(&gpus) {
        report_resumed(out.resumed_photons);
        let ordinal = gpu.gpu().device().ordinal;
        clock.part(
            format!("GPU {ordinal}: before the first batch (context bound, launch size)"),
            *setup,
        );
        clock.part(
            format!("GPU {ordinal}: kernels, {} launches", out.batches),
            out.kernel_time,
        );
        clock.part(
            format!("GPU {ordinal}: around the kernels (buffers, copies, tallies)"),
            out.backend_time.saturating_sub(out.kernel_time),
        );
        clock.part(
            format!("GPU {ordinal}: between backend calls (tallies added, progress)"),
            wall.saturating_sub(out.backend_time),
        );
        described.push(format!(
            "{} #{} ({} photons, {} blocks x {} threads, kernel time {:.3} s, {:.3} s wall)",
            gpu.gpu().device().name,
            gpu.gpu().device().ordinal,
            out.result.photons,
            launch.blocks,
            launch.threads_per_block,
            out.kernel_time.as_secs_f64(),
            wall.as_secs_f64(),
        ));
    }
    let Some(reducer) = reducer else {
        let (only, ..) = &parts[0];
        let result = only.result.clone();
        drop(contexts);
        release_at_exit(gpus, clock);
        return Ok((result, described.join("")));
    };
    let tallies: Vec<&[u64]> = parts.iter().map(|(o, ..)| &o.result.tally[..]).collect();
    let (reducer, setup) = reducer;
    let t = std::time::Instant::now();
    // The runs are done: a missing or failing NCCL must not lose them. Integer sums are the
    // same bits wherever they are taken, so the host sums instead, and says so.
    let (tally, how) = match reducer.and_then(|r| r.sum(&contexts, &tallies)) {
        Ok(tally) => (
            tally,
            format!(
                "tallies summed by NCCL (set-up {:.3} s beside the runs, sum {:.3} s)",
                setup.as_secs_f64(),
                t.elapsed().as_secs_f64()
            ),
        ),
        Err(e) => {
            let mut sum = vec![0u64; tallies[0].len()];
            for part in &tallies {
                reconverge_mcml::add_tally(&mut sum, part);
            }
            (sum, format!("tallies summed on the host ({e})"))
        }
    };
    drop(contexts);
    release_at_exit(gpus, clock);
    let first = &parts[0].0.result;
    let whole = RunResult::from_tally(
        run.input.clone(),
        run.input.photons,
        first.seed,
        first.rsp,
        first.layout,
        tally,
        started.elapsed(),
    );
    Ok((
        whole,
        format!("{} GPUs, {how}: {}", parts.len(), described.join("; ")),
    ))
}
