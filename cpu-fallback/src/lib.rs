//! The rayon backend of reconverge: any workload under any strategy on the CPU, with the
//! SIMT counters of the reference model.
//!
//! Blocks run in parallel on rayon's pool; the warps of a block run on one thread, emulated
//! in lockstep by [`reconverge_simt::ModelWarp`], and interleave one loop iteration
//! ([`reconverge_transforms::WarpProgram::step`]) at a time, so that the block-shared counter of
//! dynamic work assignment is shared as on a GPU. Outputs are keyed by item and tallies are
//! integers: results do not depend on the number of threads, and a run is reproducible.
//!
//! # Example
//!
//! ```
//! use reconverge_backend::{Backend, Launch};
//! use reconverge_cpu::CpuBackend;
//! use reconverge_transforms::{BranchLoop, BranchLoopKernel, Decision, LoopRegion, LoopRegions, Strategy, Tally};
//!
//! /// Item i counts down from i % 7, adding 3 on odd steps and 5 on even ones.
//! #[derive(Clone, Copy)]
//! struct Countdown;
//!
//! impl BranchLoop for Countdown {
//!     type State = (u32, u32);
//!     type Output = u32;
//!     fn regions(&self) -> LoopRegions {
//!         LoopRegions {
//!             condition: LoopRegion::Condition.region("condition", 1),
//!             taken: LoopRegion::Taken.region("odd", 10),
//!             not_taken: LoopRegion::NotTaken.region("even", 10),
//!             after_branch: LoopRegion::AfterBranch.region("decrement", 1),
//!             item: LoopRegion::Item.region("item", 2),
//!         }
//!     }
//!     fn start(&self, item: u32) -> (u32, u32) { (item % 7, 0) }
//!     fn running(&self, s: &(u32, u32)) -> bool { s.0 > 0 }
//!     fn condition(&self, s: &mut (u32, u32)) -> bool { s.0 % 2 == 1 }
//!     fn taken<T: Tally>(&self, s: &mut (u32, u32), _: &mut T) { s.1 += 3 }
//!     fn not_taken<T: Tally>(&self, s: &mut (u32, u32), _: &mut T) { s.1 += 5 }
//!     fn after_branch<T: Tally>(&self, s: &mut (u32, u32), _: &mut T) { s.0 -= 1 }
//!     fn finish(&self, s: &(u32, u32)) -> u32 { s.1 }
//! }
//!
//! let cpu = CpuBackend::new();
//! let kernel = BranchLoopKernel(Countdown);
//! let launch = Launch::new(64, 4)?;
//! let base = cpu.run(&kernel, Strategy::BASELINE, 1000, launch)?;
//! let delayed = cpu.run(&kernel, Strategy::iteration_delaying(Decision::MajorityVote {
//!     threshold: 16, stop_when_a_lane_finishes: false }), 1000, launch)?;
//! assert_eq!(base.outputs, delayed.outputs);
//! assert_eq!(base.outputs[6], 3 + 5 + 3 + 5 + 3 + 5);
//! println!("SIMD efficiency {:.3} -> {:.3}",
//!     base.simd_efficiency().unwrap_or(0.0), delayed.simd_efficiency().unwrap_or(0.0));
//! # Ok::<(), reconverge_backend::BackendError>(())
//! ```

pub mod block;
pub mod host;
pub mod thread_warp;

/// The conformance kit, which lives in its own crate now so that any backend can run it:
/// [`reconverge_conformance`], re-exported here under its old path.
pub use reconverge_conformance as conformance;

use std::sync::atomic::AtomicU32;
use std::time::Instant;

use rayon::prelude::*;
use reconverge_backend::{Backend, BackendError, Counters, Job, Launch, Run};
use reconverge_simt::WARP_SIZE;
use reconverge_transforms::{Kernel, PassPlan, Sink, WarpTask};

use block::{BlockError, BlockRun, SliceTally, WarpForm};

/// Runs kernels on the CPU with warps emulated in lockstep.
#[derive(Debug, Default)]
pub struct CpuBackend {
    pool: Option<rayon::ThreadPool>,
    counting: Counting,
}

/// Whether the model counts issues and lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// Count (the default): [`Run::counters`] is filled.
    #[default]
    On,
    /// Do not count: the fastest emulation, for time measurements.
    Off,
}

/// Why a CPU backend could not be built.
#[derive(Debug, thiserror::Error)]
#[error("could not build a rayon pool of {threads} threads: {source}")]
pub struct PoolError {
    threads: usize,
    source: rayon::ThreadPoolBuildError,
}

impl CpuBackend {
    /// A backend on rayon's global pool (all cores, or `RAYON_NUM_THREADS`), counting.
    pub fn new() -> Self {
        Self::default()
    }

    /// A backend on its own pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Result<Self, PoolError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|source| PoolError { threads, source })?;
        Ok(Self {
            pool: Some(pool),
            counting: Counting::On,
        })
    }

    /// The same backend with counting on or off.
    pub fn counting(mut self, counting: Counting) -> Self {
        self.counting = counting;
        self
    }

    /// Threads of the pool the backend runs on.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or_else(
            rayon::current_num_threads,
            rayon::ThreadPool::current_num_threads,
        )
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }
}

/// `words` scratch words, all zero.
fn zeroed_scratch(words: usize) -> Vec<AtomicU32> {
    (0..words).map(|_| AtomicU32::new(0)).collect()
}

/// Writes outputs into one block's slice of the output vector; items outside the block's chunk
/// (grid-wide dynamic work deals any item of the launch to any block) are kept aside with their
/// index and written after the pass.
struct BlockSink<'o, O> {
    first_item: u32,
    out: &'o mut [O],
    elsewhere: Vec<(u32, O)>,
}

impl<O> Sink<O> for BlockSink<'_, O> {
    #[inline]
    fn put(&mut self, item: u32, value: O) {
        match item
            .checked_sub(self.first_item)
            .and_then(|i| self.out.get_mut(i as usize))
        {
            Some(slot) => *slot = value,
            None => self.elsewhere.push((item, value)),
        }
    }
}

/// The output vector cut into each block's chunk (see [`WarpTask::new`]), empty chunks included.
fn block_slices<O>(outputs: &mut [O], items: u32, launch: Launch) -> Vec<(u32, &mut [O])> {
    let mut slices = Vec::with_capacity(launch.blocks as usize);
    let mut rest = outputs;
    for block in 0..launch.blocks {
        let len =
            WarpTask::new(items, launch.blocks, block, launch.threads_per_block, 0).block_len();
        let (head, tail) = rest.split_at_mut((len as usize).min(rest.len()));
        slices.push((block, head));
        rest = tail;
    }
    slices
}

impl<K: Kernel + Sync> Backend<K> for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    /// [`Launch::for_items`] with each of the pool's threads as four multiprocessors of 2048
    /// threads: one item per thread for the static strategies, and enough blocks for the
    /// dynamic ones that rayon can balance them over the threads.
    fn launch_for(
        &self,
        _kernel: &K,
        strategy: &reconverge_transforms::Strategy,
        items: u32,
    ) -> Result<Launch, BackendError> {
        let multiprocessors = u32::try_from(self.threads().saturating_mul(4)).unwrap_or(u32::MAX);
        Ok(Launch::for_items(strategy, items, multiprocessors, |t| {
            Some(2048 / t)
        }))
    }

    fn run_job(&self, job: Job<'_, K>) -> Result<Run<K::Output>, BackendError> {
        let Job {
            kernel,
            strategy,
            items,
            launch,
        } = job;
        let strategy_error = |source| BackendError::Strategy {
            shape: K::SHAPE,
            source,
        };
        let passes = kernel.passes(&strategy).map_err(strategy_error)?;
        // Building every warp's program once up front turns a bad parameter into an error
        // before any work is done.
        let probe = reconverge_simt::ModelWarp::new();
        kernel
            .program(
                &probe,
                &strategy,
                0,
                WarpTask::new(items, launch.blocks, 0, launch.threads_per_block, 0),
                &[],
            )
            .map_err(strategy_error)?;
        // Zeroed once per run and shared by all passes: what one pass records (z-cull's
        // mask), a later one reads.
        let scratch = zeroed_scratch(kernel.scratch_words(&strategy, items));

        let started = Instant::now();
        let mut outputs = vec![K::Output::default(); items as usize];
        let mut tally = vec![0u64; kernel.tally_len()];
        let mut counters = Counters::new(WARP_SIZE);
        let mut pass_times = Vec::with_capacity(passes as usize);
        let counting = self.counting == Counting::On;
        // Passes in order; an occlusion-query loop repeats its last pass while the previous
        // one left work (its query word, read and zeroed between passes).
        let mut plan = PassPlan::of(kernel, &strategy).map_err(strategy_error)?;
        while let Some(pass) = plan.next_pass_in(&scratch) {
            let pass_start = Instant::now();
            // Every block runs, also those whose chunk is empty (more blocks than chunks): on a
            // GPU they start, vote once and leave, and the counters must say so too.
            let blocks = block_slices(&mut outputs, items, launch);
            let tally_len = kernel.tally_len();
            let grid_counter = AtomicU32::new(0);
            let (pass_counters, pass_tally, elsewhere) = self
                .install(|| {
                    blocks
                        .into_par_iter()
                        .try_fold(
                            || (Counters::new(WARP_SIZE), vec![0u64; tally_len], Vec::new()),
                            |(mut c, mut t, mut e), (block, out)| {
                                let first_item =
                                    WarpTask::new(items, launch.blocks, block, 32, 0).block_start;
                                let mut sink = BlockSink {
                                    first_item,
                                    out,
                                    elsewhere: Vec::new(),
                                };
                                BlockRun {
                                    kernel,
                                    strategy: &strategy,
                                    pass,
                                    items,
                                    launch,
                                    block,
                                    counting,
                                    scratch: &scratch,
                                    grid_counter: &grid_counter,
                                    form: WarpForm::Warp,
                                    step_limit: None,
                                }
                                .execute(
                                    &mut sink,
                                    &mut SliceTally(&mut t),
                                    &mut c,
                                )?;
                                e.append(&mut sink.elsewhere);
                                Ok::<_, BlockError>((c, t, e))
                            },
                        )
                        .try_reduce(
                            || (Counters::new(WARP_SIZE), vec![0u64; tally_len], Vec::new()),
                            |(mut c1, mut t1, mut e1), (c2, t2, mut e2)| {
                                c1.merge(&c2);
                                for (a, b) in t1.iter_mut().zip(t2) {
                                    *a += b;
                                }
                                e1.append(&mut e2);
                                Ok((c1, t1, e1))
                            },
                        )
                })
                .map_err(|e| match e {
                    BlockError::Strategy(source) => strategy_error(source),
                    // Unreachable while the backend sets no step limit; reported, not panicked on.
                    BlockError::StepLimit { .. } => BackendError::Device {
                        backend: "cpu",
                        message: e.to_string(),
                    },
                })?;
            for (item, value) in elsewhere {
                if let Some(slot) = outputs.get_mut(item as usize) {
                    *slot = value;
                }
            }
            counters.merge(&pass_counters);
            for (a, b) in tally.iter_mut().zip(pass_tally) {
                *a += b;
            }
            pass_times.push(pass_start.elapsed());
        }
        let occupancy = vec![None; pass_times.len()];
        Ok(Run {
            outputs,
            tally,
            counters: counting.then_some(counters),
            pass_times,
            elapsed: started.elapsed(),
            occupancy,
            launch,
            fill: None,
        })
    }
}
