//! MCML on a reconverge backend: the photon loop as a warp program under any loop strategy.

use std::time::{Duration, Instant};

use reconverge_backend::{Backend, BackendError, Counters, Launch};
use reconverge_transforms::Strategy;
use reconverge_workloads::mcml::{FastF32, McmlFloat, McmlKernel, McmlLoop};

use crate::checkpoint::{self, Checkpoint, CheckpointError, CheckpointPolicy, RunKey};
use crate::limits::{check_launch, check_run, zeroed_tally};
use crate::{RunError, RunInput, RunResult, Streams};

/// Photons of the first backend call, at least. Each call is one launch (on the GPU) or one
/// parallel pass (on the CPU); between calls the driver reports progress. Any batch size gives
/// the same tallies.
pub const BATCH_PHOTONS: u64 = 1 << 16;

/// Photons per lane of the launch in the first backend call, at least: [`BATCH_PHOTONS`] is
/// 8 per lane of the CPU's default launch (64 blocks of 128), but fewer than one per lane of a
/// GPU's resident grid (an H100: 396 blocks of 256), whose first launches then ran mostly
/// tail (the longest photon finishing alone). Measured on an H100, 10^8 photons, branch
/// distribution over dynamic work: batches starting at 8 per lane took 1.1 % (skin) and 0.6 %
/// (slab) less kernel time than batches starting at 2^16; a single launch 2.4 % and 3.6 % less,
/// but then nothing reports progress.
const FIRST_BATCH_PHOTONS_PER_LANE: u64 = 8;

/// Block sizes MCML's GPU launches choose from ([`gpu_launch`]).
pub const GPU_BLOCK_SIZES: [u32; 3] = [256, 512, 1024];

/// MCML's GPU launch for an entry point of which `blocks_per_sm(threads)` blocks fit on each
/// of `multiprocessors` SMs at once (the driver's occupancy, `None` or 0 where a block that
/// size cannot run): one resident wave of blocks (persistent lanes) of the size, of
/// [`GPU_BLOCK_SIZES`], that keeps the most warps resident per SM, the larger block on a tie.
///
/// Why the larger: dynamic work assignment deals each block's photons from the block's own
/// counter, so a block whose photons run out leaves its warps' slots idle while the SM's other
/// blocks still run; one block per SM shares one pool among all the SM's warps. Measured on an
/// H100 (10^8 photons, per-thread dynamic work, CUDA events, one job): 1024 threads (132 blocks,
/// 32 warps per SM) against 256 (528 blocks, also 32 warps): fast math 0.500 against 0.573 s on
/// skin, 1.041 against 1.059 s on the slab; bit-identical 0.741 against 0.844 s and 1.326
/// against 1.511 s. Where a larger block holds fewer warps (68-register branch distribution: one
/// block of 512 per SM), the most warps win: 512 lost 8-9 % there.
///
/// # Errors
/// [`BackendError::InvalidLaunch`] where no size fits (`blocks_per_sm` is 0 for all).
pub fn gpu_launch(
    multiprocessors: u32,
    blocks_per_sm: impl Fn(u32) -> Option<u32>,
) -> Result<Launch, BackendError> {
    // Largest first, so that a tie goes to the larger block.
    let mut largest_first = GPU_BLOCK_SIZES;
    largest_first.reverse();
    let (threads, blocks) =
        Launch::fullest_block(&largest_first, blocks_per_sm).unwrap_or((GPU_BLOCK_SIZES[0], 0));
    Launch::new(threads, blocks.saturating_mul(multiprocessors.max(1)))
}

/// Block sizes for a strategy whose blocks need dynamic shared memory by the warp
/// (collaborative context collection's stacks: 7,424 bytes per warp for MCML's photon, so at
/// most 6 warps fit the 48 KiB a block may have): every whole number of warps up to 1,024
/// threads, largest first.
const SHARED_BLOCK_SIZES: [u32; 32] = {
    let mut sizes = [0; 32];
    let mut i = 0;
    while i < 32 {
        sizes[i] = 32 * (32 - i as u32);
        i += 1;
    }
    sizes
};

/// [`gpu_launch`] for `strategy`, whose blocks of `threads` threads need
/// [`gpu_dynamic_shared_bytes`] of dynamic shared memory: `blocks_per_sm(threads, bytes)` is the
/// driver's occupancy with that much (`None` or 0 where such a block cannot run). A strategy
/// that needs none launches as [`gpu_launch`] does; one that needs some, of the sizes whose
/// shared memory a block may have (`limit` bytes), the one that keeps the most warps resident.
///
/// # Errors
/// [`BackendError::InvalidLaunch`] where no size fits.
pub fn gpu_launch_for<F: McmlFloat>(
    strategy: &Strategy,
    multiprocessors: u32,
    limit: u32,
    blocks_per_sm: impl Fn(u32, u32) -> Option<u32>,
) -> Result<Launch, BackendError> {
    let shared = |threads| gpu_dynamic_shared_bytes::<F>(strategy, threads);
    if shared(32) == 0 {
        return gpu_launch(multiprocessors, |threads| blocks_per_sm(threads, 0));
    }
    let fits = |threads| match shared(threads) {
        bytes if bytes > limit => None,
        bytes => blocks_per_sm(threads, bytes),
    };
    let (threads, blocks) = Launch::fullest_block(&SHARED_BLOCK_SIZES, fits).unwrap_or((32, 0));
    Launch::new(threads, blocks.saturating_mul(multiprocessors.max(1)))
}

/// Bytes of dynamic shared memory a block of `threads` threads of MCML's GPU kernel needs under
/// `strategy` (collaborative context collection's per-warp stacks of photons; 0 for the others).
pub fn gpu_dynamic_shared_bytes<F: McmlFloat>(strategy: &Strategy, threads: u32) -> u32 {
    McmlKernel::<F>::dynamic_shared_bytes_for(strategy, threads)
}

/// Longest batch: a launch's items are a `u32`.
const MAX_BATCH_PHOTONS: u64 = 1 << 30;

/// Wall time a batch should take: progress about once a second on any backend. Each batch ends
/// with a tail in which lanes run out of photons (on a GPU, an idle SM waits for the last
/// warp), so on a fast backend batches must be large for the tails not to count: the batch
/// size adapts to the measured speed instead of being one constant for a CPU (tens of thousands
/// of photons per second) and a GPU (hundreds of millions). Half a second cost the slab's
/// fast-math kernel on an H100 1.2-1.5 % against one launch (10^8 photons, 32 tally copies:
/// 1.010-1.015 s against 0.998-1.001 s, 2026-11-25); at one second 10^8 photons take two
/// launches, the first of 8 photons per lane (sized from the backend's time for the batches,
/// and the rest of up to a batch joining the last one).
const BATCH_SECONDS: f64 = 1.0;

/// Most a batch grows over the one before. The first batch on a GPU (8 photons per lane) takes
/// milliseconds, so growing 8-fold took two more batches, and their launch tails, to reach the
/// aimed length; 64-fold takes one. With the rest joining the last batch ([`Batching::Adaptive`]),
/// 10^8 photons go in two or three launches instead of four. Measured on an H100 (10^8 photons,
/// kernel time, three runs each): bit-identical branch distribution + dynamic work on the slab
/// 56.1 → 56.6 M photons/s, fast math 83.6 → 84.3, fast math with cost-balanced delaying on
/// skin 156.0 → 157.2 (one launch: 159.7); bit-identical cost-balanced on skin unchanged.
const MAX_BATCH_GROWTH: u64 = 64;

/// How a run is cut into backend calls (launches on a GPU). Any batching gives the same
/// tallies, bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Batching {
    /// The first batch of [`BATCH_PHOTONS`] or 8 photons per lane of the launch, whichever is
    /// more, later ones sized to take about a second each (progress reports at that pace
    /// on any backend, and few launch tails on a GPU); a rest of at most one batch joins the
    /// batch before it instead of costing a launch tail of its own.
    #[default]
    Adaptive,
    /// Batches of this many photons (at least 1, at most 2^30), the last one shorter: the same
    /// launches on every run, as a profiler that picks a launch by its index needs.
    Fixed(u64),
}

/// How a backend run goes, beyond what it computes (none of this changes the tallies).
#[derive(Clone, Default)]
pub struct RunOptions<'a> {
    /// How the run is cut into backend calls.
    pub batching: Batching,
    /// Called with the photons done after each batch.
    pub progress: Option<&'a dyn Fn(u64)>,
    /// Resume from this checkpoint file if it exists, and save to it while the run goes on
    /// (see [`crate::checkpoint`]).
    pub checkpoint: Option<CheckpointPolicy>,
}

/// The next batch size after a batch of `batch` photons took `elapsed`: aimed at
/// [`BATCH_SECONDS`], growing at most [`MAX_BATCH_GROWTH`]-fold and shrinking at most 2-fold
/// per batch.
fn next_batch(batch: u64, elapsed: Duration) -> u64 {
    let secs = elapsed.as_secs_f64().max(1e-6);
    let aimed = (batch as f64 * BATCH_SECONDS / secs) as u64;
    aimed
        .clamp(batch / 2, batch.saturating_mul(MAX_BATCH_GROWTH))
        .clamp(1024, MAX_BATCH_PHOTONS)
}

/// The photons of the next backend call, `remaining` photons to go at `batch_size`:
/// [`Batching::Adaptive`] takes the whole rest when it is at most two batches (and
/// fits one call), [`Batching::Fixed`] always its own size.
fn take_batch(remaining: u64, batch_size: u64, batching: Batching) -> u64 {
    let fold = batching == Batching::Adaptive
        && remaining <= batch_size.saturating_mul(2)
        && remaining <= MAX_BATCH_PHOTONS;
    if fold {
        remaining
    } else {
        remaining.min(batch_size).min(MAX_BATCH_PHOTONS)
    }
}

/// The checkpoint key's float field for `F`: its width, or
/// [`checkpoint::FAST_MATH_F32_BITS`] for [`FastF32`], whose GPU tallies are not f32's.
fn float_bits<F: McmlFloat>() -> u32 {
    if core::any::TypeId::of::<F>() == core::any::TypeId::of::<FastF32>() {
        checkpoint::FAST_MATH_F32_BITS
    } else {
        8 * core::mem::size_of::<F>() as u32
    }
}

/// What a backend run of MCML produced, beyond MCML's own outputs.
#[derive(Clone, Debug)]
pub struct BackendRun {
    /// MCML's outputs.
    pub result: RunResult,
    /// SIMT counters of all warps, where the backend counts.
    pub counters: Option<Counters>,
    /// Time inside the backend (kernels on the GPU), summed over batches.
    pub kernel_time: Duration,
    /// Backend calls (launches on a GPU) of this process, warm-ups not counted.
    pub batches: u32,
    /// Wall time of those calls, kernels included: beyond [`BackendRun::kernel_time`] it is
    /// what a backend spends around its kernels (buffers, copies, the tallies' download).
    pub backend_time: Duration,
    /// Photons taken from a checkpoint instead of being run (0 for a fresh run).
    pub resumed_photons: u64,
}

/// Why a backend run failed.
#[derive(Debug, thiserror::Error)]
pub enum BackendRunError {
    /// The input breaks MCML's rules.
    #[error(transparent)]
    Input(#[from] RunError),
    /// A checkpoint could not be read or written; nothing of a checkpoint is used unless it
    /// is sound and belongs to this run.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The backend refused or failed. Batches finished before it are lost with the run,
    /// unless a checkpoint holds them.
    #[error("after {photons_done} photons: {source}")]
    Backend {
        /// Photons completed before the failure.
        photons_done: u64,
        /// What the backend said.
        source: BackendError,
    },
}

/// Runs `photons` photons of `input` on `backend` under `strategy`, in batches
/// ([`Batching::Adaptive`]: the first of [`BATCH_PHOTONS`] or 8 photons per lane of `launch`,
/// later ones sized to take about a second each), calling
/// `progress(photons_done)` after each batch.
///
/// Photon `i` draws from random stream `(seed, i)` whatever the batch, lane or strategy, and
/// tallies are integers: every strategy and backend (with the same float type) gives the same
/// tallies bit for bit.
pub fn run_on_backend<F, B>(
    backend: &B,
    input: &RunInput,
    photons: u64,
    seed: u64,
    strategy: Strategy,
    launch: Launch,
    progress: Option<&dyn Fn(u64)>,
) -> Result<BackendRun, BackendRunError>
where
    F: McmlFloat,
    B: Backend<McmlKernel<F>>,
{
    run_on_backend_streams::<F, B>(
        backend,
        input,
        photons,
        Streams::new(seed),
        strategy,
        launch,
        &RunOptions {
            progress,
            ..RunOptions::default()
        },
    )
}

/// [`run_on_backend`] on the streams `streams` (see [`Streams`]), with `options`: batches,
/// progress and checkpoints. The input and the launch size are checked ([`crate::limits`])
/// before any work, and so is the checkpoint, if one is to be resumed.
pub fn run_on_backend_streams<F, B>(
    backend: &B,
    input: &RunInput,
    photons: u64,
    streams: Streams,
    strategy: Strategy,
    launch: Launch,
    options: &RunOptions<'_>,
) -> Result<BackendRun, BackendRunError>
where
    F: McmlFloat,
    B: Backend<McmlKernel<F>>,
{
    let mut checked = input.clone();
    checked.photons = photons;
    check_run::<F>(&checked).map_err(RunError::from)?;
    check_launch(launch.threads_per_block, launch.blocks).map_err(RunError::from)?;
    let params = input.params::<F>().map_err(RunError::Params)?;
    let layout = params.layout();
    let mut tally = zeroed_tally(layout).map_err(RunError::from)?;
    let Streams { seed, first_photon } = streams;
    let key = RunKey::new(input, photons, streams, float_bits::<F>());
    let mut done = 0u64;
    if let Some(policy) = &options.checkpoint {
        match checkpoint::load(&policy.path, &key, tally.len())? {
            Some(saved) => {
                done = saved.photons_done;
                tally = saved.tally;
            }
            // Before the first photon: a checkpoint that cannot be written is refused now,
            // not after the first batch.
            None => checkpoint::check_writable(&policy.path)?,
        }
    }
    let resumed_photons = done;
    let mut last_save = Instant::now();
    let mut counters: Option<Counters> = None;
    let mut kernel_time = Duration::ZERO;
    let mut backend_time = Duration::ZERO;
    let mut batches = 0u32;
    let started = Instant::now();
    let batching = options.batching;
    let mut batch_size = match batching {
        Batching::Adaptive => {
            let lanes = u64::from(launch.blocks) * u64::from(launch.threads_per_block);
            BATCH_PHOTONS
                .max(lanes.saturating_mul(FIRST_BATCH_PHOTONS_PER_LANE))
                .min(MAX_BATCH_PHOTONS)
        }
        Batching::Fixed(n) => n.clamp(1, MAX_BATCH_PHOTONS),
    };
    while done < photons {
        let batch = take_batch(photons - done, batch_size, batching);
        let batch_started = Instant::now();
        let kernel = McmlKernel(McmlLoop {
            params,
            seed,
            first_photon: first_photon.wrapping_add(done),
        });
        // `batch` is at most MAX_BATCH_PHOTONS, below u32::MAX.
        let items = u32::try_from(batch).unwrap_or(u32::MAX);
        let called = Instant::now();
        let run = backend
            .run(&kernel, strategy, items, launch)
            .map_err(|source| BackendRunError::Backend {
                photons_done: done,
                source,
            })?;
        backend_time += called.elapsed();
        batches += 1;
        crate::add_tally(&mut tally, &run.tally);
        if let Some(c) = run.counters {
            counters
                .get_or_insert_with(|| Counters::new(c.warp_width))
                .merge(&c);
        }
        let passes = run.pass_times.iter().sum::<Duration>();
        kernel_time += passes;
        done += batch;
        if batching == Batching::Adaptive {
            // The backend's own time for the batch where it reports one: the first call's
            // one-off costs (buffers allocated, the first launch) are not the speed of the
            // next. On an H100 they made the slab's first batch look half as fast as it ran,
            // and 10^8 photons took three launches instead of two.
            let took = if passes.is_zero() {
                batch_started.elapsed()
            } else {
                passes
            };
            batch_size = next_batch(batch_size, took);
        }
        if let Some(policy) = &options.checkpoint
            && (done == photons || last_save.elapsed() >= policy.every)
        {
            checkpoint::save(
                &policy.path,
                &Checkpoint {
                    key,
                    photons_done: done,
                    tally: tally.clone(),
                },
            )?;
            last_save = Instant::now();
        }
        if let Some(p) = options.progress {
            p(done);
        }
    }
    let mut result = RunResult::of_run(checked, &params, seed, tally, started.elapsed());
    // Speed of this process's part: photons from a checkpoint took no time here.
    let secs = started.elapsed().as_secs_f64();
    if secs > 0.0 {
        result.photons_per_second = (photons - resumed_photons) as f64 / secs;
    }
    Ok(BackendRun {
        result,
        counters,
        kernel_time,
        batches,
        backend_time,
        resumed_photons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_grow_toward_a_second_within_their_bounds() {
        // A batch that took a tenth of the aim would grow 10-fold, and does.
        let ms = Duration::from_millis;
        assert_eq!(next_batch(1 << 20, ms(100)), 10 << 20);
        // Growth stops at 64-fold, shrinking at 2-fold, and sizes stay within a launch.
        assert_eq!(next_batch(1 << 20, ms(1)), 64 << 20);
        assert_eq!(next_batch(1 << 20, ms(10_000)), 1 << 19);
        assert_eq!(next_batch(MAX_BATCH_PHOTONS, ms(1)), MAX_BATCH_PHOTONS);
        assert_eq!(next_batch(1024, ms(10_000)), 1024);
        assert_eq!(next_batch(1 << 20, Duration::ZERO), 64 << 20);
    }

    #[test]
    fn a_short_rest_joins_the_last_adaptive_batch() {
        let adaptive = Batching::Adaptive;
        assert_eq!(take_batch(200, 100, adaptive), 200);
        assert_eq!(take_batch(201, 100, adaptive), 100);
        assert_eq!(take_batch(40, 100, adaptive), 40);
        // Fixed batches stay fixed: a profiler picks launches by index.
        assert_eq!(take_batch(150, 100, Batching::Fixed(100)), 100);
        // Never more than one launch holds.
        let max = MAX_BATCH_PHOTONS;
        assert_eq!(take_batch(max + max / 4, max, adaptive), max);
        assert_eq!(take_batch(2 * max, max, adaptive), max);
        assert_eq!(take_batch(u64::MAX, u64::MAX, adaptive), max);
    }
}
