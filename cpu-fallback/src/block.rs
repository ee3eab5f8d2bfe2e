//! The reference block executor: the warps of one block emulated in lockstep by
//! [`ModelWarp`]s, interleaved one loop iteration ([`WarpProgram::step`]) at a time so that the
//! block-shared counters of dynamic work assignment are shared as on a GPU.
//!
//! [`CpuBackend`](crate::CpuBackend) runs its blocks in parallel through [`BlockRun`];
//! [`run_in_order`] runs a whole launch block after block through the same [`BlockRun`], and
//! keeps what a test wants to see (how often each item was written, counters per pass, the
//! busiest warp's step count).
//!
//! ```
//! use reconverge_backend::Launch;
//! use reconverge_cpu::block::{RunInOrder, run_in_order};
//! use reconverge_transforms::{BranchLoopKernel, Strategy};
//! use reconverge_workloads::synthetic::SynItDelay;
//!
//! let kernel = BranchLoopKernel(SynItDelay::new(8, 10, 0.5, 1));
//! let launch = Launch::new(64, 3)?;
//! let run = run_in_order(&kernel, &Strategy::BASELINE, 500, launch, RunInOrder::default())?;
//! assert_eq!(run.first_not_written_once(), None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

use reconverge_backend::{Backend, BackendError, Counters, Job, Launch, Run};
use reconverge_simt::{BlockShared, ModelWarp, WARP_SIZE};
use reconverge_transforms::{
    Kernel, PassPlan, Scratch, Sink, Strategy, StrategyError, Tally, WarpProgram, WarpTask,
    initial_block_counters,
};

/// Why a block (or a run of blocks) stopped before its warps finished.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// The strategy does not apply to the kernel, or one of its parameters is out of range.
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    /// A warp took `steps` loop iterations without finishing: a program that never ends.
    #[error("warp {warp} of block {block} has not finished after {steps} steps")]
    StepLimit {
        /// The block.
        block: u32,
        /// The warp, within its block.
        warp: u32,
        /// Steps taken when the run gave up.
        steps: u64,
    },
}

/// How a block's threads are grouped into the warps that run a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarpForm {
    /// Warps of 32 lanes in lockstep: what a warp-level strategy needs, and what the counters
    /// describe.
    #[default]
    Warp,
    /// Every thread a warp of one lane, as the CUDA backend runs the strategies whose lanes
    /// never need to agree ([`Strategy::runs_per_thread`]). Its outputs must be the warp
    /// form's: the tests that run both check that the GPU's per-thread kernels compute what the
    /// CPU backend does.
    Thread,
}

impl WarpForm {
    /// Lanes of each warp in this form.
    pub fn lanes(self) -> u32 {
        match self {
            WarpForm::Warp => WARP_SIZE,
            WarpForm::Thread => 1,
        }
    }
}

/// One block of one pass of a run.
#[derive(Clone, Copy, Debug)]
pub struct BlockRun<'k, K: ?Sized> {
    /// The kernel.
    pub kernel: &'k K,
    /// The strategy it runs under.
    pub strategy: &'k Strategy,
    /// The pass (see [`PassPlan`]).
    pub pass: u32,
    /// Items of the whole launch.
    pub items: u32,
    /// The launch shape.
    pub launch: Launch,
    /// This block's index in the grid.
    pub block: u32,
    /// Whether the warps count issues and lanes (off: the fastest emulation).
    pub counting: bool,
    /// The run's scratch words, shared by every block and pass.
    pub scratch: &'k Scratch,
    /// The launch's grid-wide work counter ([`Strategy::GRID_WIDE_DYNAMIC_WORK`]), zero before
    /// the pass and shared by every block of it.
    pub grid_counter: &'k AtomicU32,
    /// Whether the block's threads run as warps or each on its own.
    pub form: WarpForm,
    /// Steps after which a warp counts as never finishing (`None`: no limit). Tests set one so
    /// that a broken strategy fails instead of hanging.
    pub step_limit: Option<u64>,
}

impl<K: Kernel + ?Sized> BlockRun<'_, K> {
    /// Runs the block to the end: outputs to `sink`, tallies to `tally`, and every warp's
    /// counters merged into `counters`. Returns the step count of the block's busiest warp.
    pub fn execute<S, T>(
        &self,
        sink: &mut S,
        tally: &mut T,
        counters: &mut Counters,
    ) -> Result<u64, BlockError>
    where
        S: Sink<K::Output>,
        T: Tally,
    {
        let shared = BlockShared::new();
        for (i, v) in initial_block_counters(self.launch.threads_per_block)
            .into_iter()
            .enumerate()
        {
            shared.set(i, v);
        }
        let lanes = self.form.lanes();
        let warps_per_block = self.launch.threads_per_block / lanes;
        let mut warps = Vec::with_capacity(warps_per_block as usize);
        for w in 0..warps_per_block {
            let mut warp = ModelWarp::in_block(&shared)
                .narrowed_to(lanes)
                .with_grid_counter(self.grid_counter);
            warp.set_counting(self.counting);
            let task = WarpTask::new(
                self.items,
                self.launch.blocks,
                self.block,
                self.launch.threads_per_block,
                w,
            );
            let program =
                self.kernel
                    .program(&warp, self.strategy, self.pass, task, self.scratch)?;
            warps.push(WarpState {
                warp,
                program,
                running: true,
                steps: 0,
            });
        }
        let limit = self.step_limit.unwrap_or(u64::MAX);
        let mut any_running = true;
        while any_running {
            any_running = false;
            for (w, state) in (0u32..).zip(warps.iter_mut()) {
                if !state.running {
                    continue;
                }
                state.running = state.program.step(&mut state.warp, sink, tally);
                if state.running {
                    any_running = true;
                    state.steps += 1;
                    if state.steps >= limit {
                        return Err(BlockError::StepLimit {
                            block: self.block,
                            warp: w,
                            steps: state.steps,
                        });
                    }
                }
            }
        }
        let mut busiest = 0;
        for state in &warps {
            counters.merge(state.warp.counters());
            busiest = busiest.max(state.steps);
        }
        Ok(busiest)
    }
}

struct WarpState<'b, P> {
    warp: ModelWarp<'b>,
    program: P,
    running: bool,
    steps: u64,
}

/// A tally that adds into a slice of accumulators; indices past its end are ignored, as
/// [`Tally::add`] promises.
#[derive(Debug)]
pub struct SliceTally<'t>(pub &'t mut [u64]);

impl Tally for SliceTally<'_> {
    #[inline]
    fn add(&mut self, index: u32, amount: u64) {
        if let Some(slot) = self.0.get_mut(index as usize) {
            *slot = slot.wrapping_add(amount);
        }
    }
}

/// Options of [`run_in_order`].
#[derive(Clone, Copy, Debug)]
pub struct RunInOrder {
    /// Whether the warps count issues and lanes.
    pub counting: bool,
    /// See [`BlockRun::step_limit`].
    pub step_limit: Option<u64>,
    /// See [`BlockRun::form`].
    pub form: WarpForm,
}

impl Default for RunInOrder {
    /// Counting, with no step limit, in warps.
    fn default() -> Self {
        Self {
            counting: true,
            step_limit: None,
            form: WarpForm::Warp,
        }
    }
}

/// What [`run_in_order`] produced.
#[derive(Clone, Debug)]
pub struct InOrderRun<O> {
    /// Each item's last output (`None`: never written).
    pub outputs: Vec<Option<O>>,
    /// How many times each item was written.
    pub writes: Vec<u32>,
    /// Writes to items past the end of the launch.
    pub stray_writes: u64,
    /// The accumulators ([`Kernel::tally_len`] of them).
    pub tally: Vec<u64>,
    /// Counters of all warps of all passes, merged.
    pub counters: Counters,
    /// Counters of each pass, in the order the passes ran.
    pub pass_counters: Vec<Counters>,
    /// Wall time of each pass.
    pub pass_times: Vec<Duration>,
    /// Steps of the busiest warp of any block and pass.
    pub max_steps: u64,
}

impl<O> InOrderRun<O> {
    /// The first item not written exactly once, with its write count.
    pub fn first_not_written_once(&self) -> Option<(u32, u32)> {
        (0u32..)
            .zip(&self.writes)
            .find(|&(_, &w)| w != 1)
            .map(|(item, &w)| (item, w))
    }
}

/// Records every output and how many times its item was written.
struct CountingSink<'a, O> {
    outputs: &'a mut [Option<O>],
    writes: &'a mut [u32],
    stray: &'a mut u64,
}

impl<O> Sink<O> for CountingSink<'_, O> {
    fn put(&mut self, item: u32, value: O) {
        let i = item as usize;
        match (self.outputs.get_mut(i), self.writes.get_mut(i)) {
            (Some(slot), Some(count)) => {
                *slot = Some(value);
                *count = count.saturating_add(1);
            }
            _ => *self.stray = self.stray.saturating_add(1),
        }
    }
}

/// Runs `kernel` under `strategy` on one thread: every pass in order (as [`PassPlan`] decides),
/// every block with fresh block-shared counters, the warps of a block interleaved by
/// [`BlockRun`]. The reference the parallel backend is checked against.
pub fn run_in_order<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: &Strategy,
    items: u32,
    launch: Launch,
    options: RunInOrder,
) -> Result<InOrderRun<K::Output>, BlockError> {
    let mut plan = PassPlan::of(kernel, strategy)?;
    let n = items as usize;
    let mut outputs = vec![None; n];
    let mut writes = vec![0u32; n];
    let mut stray_writes = 0;
    let mut tally = vec![0u64; kernel.tally_len()];
    let mut counters = Counters::new(WARP_SIZE);
    let mut pass_counters = Vec::new();
    let mut pass_times = Vec::new();
    let mut max_steps = 0;
    // Zeroed once per run and shared by all passes: what one pass records (z-cull's mask), a
    // later one reads.
    let scratch = crate::zeroed_scratch(kernel.scratch_words(strategy, items));
    while let Some(pass) = plan.next_pass_in(&scratch) {
        let pass_start = Instant::now();
        let mut this_pass = Counters::new(WARP_SIZE);
        let grid_counter = AtomicU32::new(0);
        for block in 0..launch.blocks {
            let mut sink = CountingSink {
                outputs: &mut outputs,
                writes: &mut writes,
                stray: &mut stray_writes,
            };
            let steps = BlockRun {
                kernel,
                strategy,
                pass,
                items,
                launch,
                block,
                counting: options.counting,
                scratch: &scratch,
                grid_counter: &grid_counter,
                form: options.form,
                step_limit: options.step_limit,
            }
            .execute(&mut sink, &mut SliceTally(&mut tally), &mut this_pass)?;
            max_steps = max_steps.max(steps);
        }
        counters.merge(&this_pass);
        pass_counters.push(this_pass);
        pass_times.push(pass_start.elapsed());
    }
    Ok(InOrderRun {
        outputs,
        writes,
        stray_writes,
        tally,
        counters,
        pass_counters,
        pass_times,
        max_steps,
    })
}

/// [`run_in_order`] as a [`Backend`]: the reference a faster backend is compared with (see
/// [`crate::conformance`]). It counts, and reports an item written other than once as an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrderBackend;

impl<K: Kernel> Backend<K> for InOrderBackend {
    fn name(&self) -> &'static str {
        "in-order"
    }

    fn run_job(&self, job: Job<'_, K>) -> Result<Run<K::Output>, BackendError> {
        let started = Instant::now();
        let run = run_in_order(
            job.kernel,
            &job.strategy,
            job.items,
            job.launch,
            RunInOrder::default(),
        )
        .map_err(|e| match e {
            BlockError::Strategy(source) => BackendError::Strategy {
                shape: K::SHAPE,
                source,
            },
            BlockError::StepLimit { .. } => device_error(e.to_string()),
        })?;
        if run.stray_writes > 0 {
            return Err(device_error(format!(
                "{} writes to items past the last one",
                run.stray_writes
            )));
        }
        if let Some((item, writes)) = run.first_not_written_once() {
            return Err(device_error(format!("item {item} written {writes} times")));
        }
        let passes = run.pass_times.len();
        Ok(Run {
            outputs: run.outputs.into_iter().flatten().collect(),
            tally: run.tally,
            counters: Some(run.counters),
            pass_times: run.pass_times,
            elapsed: started.elapsed(),
            occupancy: vec![None; passes],
            launch: job.launch,
            fill: None,
        })
    }
}

fn device_error(message: String) -> BackendError {
    BackendError::Device {
        backend: "in-order",
        message,
    }
}
