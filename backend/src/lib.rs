//! The one trait both reconverge backends implement.
//!
//! A [`Backend`] runs a workload (wrapped in its shape's [`Kernel`]) under a [`Strategy`] over
//! `items` items with a [`Launch`] shape, and returns a [`Run`]: every item's output, the
//! workload's integer tallies, the SIMT counters where the backend has them, and the time.
//! Strategies are plain values, so a bench or a command line can loop over them:
//!
//! ```ignore
//! for strategy in [Strategy::BASELINE, Strategy::iteration_delaying(Decision::MajorityVote {
//!     threshold: 16, stop_when_a_lane_finishes: true })] {
//!     let run = backend.run(&kernel, strategy, 1 << 20, Launch::new(256, 528)?)?;
//!     println!("{}: {:?}, SIMD efficiency {:?}", strategy.name(), run.elapsed, run.simd_efficiency());
//! }
//! ```
//!
//! The trait is generic over the kernel type because a GPU backend can only run kernels that
//! were compiled into its PTX: the CPU backend implements `Backend<K>` for every kernel, the
//! CUDA backend for the kernels it has entry points for.

use std::time::Duration;

pub use reconverge_simt::Counters;
use reconverge_transforms::PathSchedule;
pub use reconverge_transforms::{Kernel, Strategy, StrategyError};

/// Threads per block and blocks of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Launch {
    /// Threads per block: a positive multiple of 32, at most 1024.
    pub threads_per_block: u32,
    /// Blocks in the grid: at least 1.
    pub blocks: u32,
}

/// Largest block any CUDA device since compute capability 2.0 accepts.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

impl Launch {
    /// A launch of `blocks` blocks of `threads_per_block` threads, checked.
    pub fn new(threads_per_block: u32, blocks: u32) -> Result<Self, BackendError> {
        let launch = Self {
            threads_per_block,
            blocks,
        };
        launch.validate()?;
        Ok(launch)
    }

    /// Enough blocks of `threads_per_block` threads to give every item its own thread.
    pub fn one_item_per_thread(items: u32, threads_per_block: u32) -> Result<Self, BackendError> {
        Self::new(
            threads_per_block,
            items.div_ceil(threads_per_block.max(1)).max(1),
        )
    }

    /// Checks the shape against what every backend can run.
    pub fn validate(&self) -> Result<(), BackendError> {
        let t = self.threads_per_block;
        if t == 0 || !t.is_multiple_of(32) || t > MAX_THREADS_PER_BLOCK {
            return Err(BackendError::InvalidLaunch {
                launch: *self,
                reason: "threads per block must be a multiple of 32 between 32 and 1024",
            });
        }
        if self.blocks == 0 {
            return Err(BackendError::InvalidLaunch {
                launch: *self,
                reason: "a launch needs at least one block",
            });
        }
        Ok(())
    }

    /// Total threads of the launch.
    pub fn threads(&self) -> u64 {
        u64::from(self.threads_per_block) * u64::from(self.blocks)
    }

    /// Of the block sizes `candidates`, the one whose blocks keep the most warps resident on a
    /// multiprocessor (`blocks_per_multiprocessor(threads)` blocks fit, `None` or 0 where that
    /// size cannot run), the earlier candidate on a tie, with its blocks per multiprocessor;
    /// `None` where no candidate runs.
    ///
    /// ```
    /// # use reconverge_backend::Launch;
    /// // 2048 threads per multiprocessor: every size holds 64 warps; the first listed wins.
    /// let fit = |t: u32| Some(2048 / t);
    /// assert_eq!(Launch::fullest_block(&[1024, 256], fit), Some((1024, 2)));
    /// assert_eq!(Launch::fullest_block(&[256, 1024], fit), Some((256, 8)));
    /// assert_eq!(Launch::fullest_block(&[256], |_| None), None);
    /// ```
    pub fn fullest_block(
        candidates: &[u32],
        blocks_per_multiprocessor: impl Fn(u32) -> Option<u32>,
    ) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32, u32)> = None;
        for &threads in candidates {
            let blocks = blocks_per_multiprocessor(threads).unwrap_or(0);
            let warps = blocks.saturating_mul(threads / 32);
            if blocks > 0 && best.is_none_or(|(_, _, most)| warps > most) {
                best = Some((threads, blocks, warps));
            }
        }
        best.map(|(threads, blocks, _)| (threads, blocks))
    }

    /// The launch a backend picks for `strategy` over `items` items on a device of
    /// `multiprocessors` multiprocessors, where a block of `t` threads of the kernel fits
    /// `blocks_per_multiprocessor(t)` times on one (the occupancy calculator's or the driver's
    /// answer; `None` or 0 where `t` cannot run). What [`Backend::launch_for`] returns.
    ///
    /// - The block size is the candidate (128, 256, 512, 1024 threads) that keeps the most
    ///   warps resident per multiprocessor; 256 on a tie, then the smaller block.
    /// - A strategy that deals items statically ([`Strategy::deals_dynamically`] is false)
    ///   gets one thread per item ([`Strategy::items_per_thread`] for the ones that own
    ///   several): the hardware's block scheduler then balances the load, block by block,
    ///   as in the plain kernel a CUDA programmer writes first.
    /// - A strategy that deals items from one grid-wide counter, or from a block's counter
    ///   under a warp-level path schedule (iteration delaying, speculative reconvergence,
    ///   collaborative context collection: lanes that keep several items pending), gets one
    ///   resident wave of blocks (every multiprocessor full, no more): its lanes keep taking
    ///   items until none is left, so more blocks would only wait for a slot.
    /// - Collaborative context collection gets one resident wave under any assignment: a warp
    ///   collects contexts across the items it runs, and at one item per thread each lane has
    ///   one item and the warp little to collect (measured on an H200, the plain page: one
    ///   resident wave took 0.85x the time of one thread per item on Collatz, 0.94x on the
    ///   escape-time image).
    /// - A block's counter under a per-thread loop ([`Strategy::runs_per_thread`]: dynamic
    ///   work assignment, branch distribution over it) gets one thread per item, as the
    ///   baseline: a block's counter balances only its block's own chunk, and at one resident
    ///   wave each block owns a fixed share of the items, so the blocks holding the costly
    ///   ones finish last. Measured over 15 workloads on an H100 and an H200 (the plain pages
    ///   and the advisor's held-out sweeps), one resident wave took up to 1.48x the time of
    ///   one thread per item (an escaping random walk; a cost map 1.37x, Collatz 1.08x), and
    ///   one thread per item was within 5 % of the best launch swept on all but one (a
    ///   heavy-tailed loop, 1.09x, where the wave's 1.07x missed too).
    ///
    /// Never more blocks than items need; at least one block.
    ///
    /// ```
    /// # use reconverge_backend::{Launch, Strategy};
    /// // An H100 (132 multiprocessors), a kernel that fits 2048 threads per multiprocessor.
    /// let fit = |t: u32| Some(2048 / t);
    /// let one_per_item = Launch::for_items(&Strategy::BASELINE, 1 << 20, 132, fit);
    /// assert_eq!((one_per_item.threads_per_block, one_per_item.blocks), (256, 4096));
    /// let wave = Launch::for_items(&Strategy::GRID_WIDE_DYNAMIC_WORK, 1 << 20, 132, fit);
    /// assert_eq!((wave.threads_per_block, wave.blocks), (256, 132 * 8));
    /// // A block's counter under the plain loop: one item per thread, as the baseline.
    /// let block = Launch::for_items(&Strategy::DYNAMIC_WORK_ASSIGNMENT, 1 << 20, 132, fit);
    /// assert_eq!(block.blocks, 4096);
    /// ```
    pub fn for_items(
        strategy: &Strategy,
        items: u32,
        multiprocessors: u32,
        blocks_per_multiprocessor: impl Fn(u32) -> Option<u32>,
    ) -> Self {
        // 256 first: it wins ties, the block size CUDA code most often uses (measured on an
        // H100 within 1 % of 128 on the reference workloads, never slower).
        let (threads_per_block, per_multiprocessor) =
            Self::fullest_block(&[256, 128, 512, 1024], blocks_per_multiprocessor)
                .map_or((256, 1), |(t, b)| (t, b.max(1)));
        let per_thread = strategy.items_per_thread().max(1);
        let needed = items
            .div_ceil(per_thread)
            .div_ceil(threads_per_block)
            .max(1);
        let one_wave = strategy.deals_across_blocks()
            || strategy.paths == PathSchedule::CollaborativeContextCollection
            || (strategy.deals_dynamically() && !strategy.runs_per_thread());
        let blocks = if one_wave {
            needed.min(per_multiprocessor.saturating_mul(multiprocessors.max(1)))
        } else {
            needed
        };
        Self {
            threads_per_block,
            blocks: blocks.max(1),
        }
    }
}

/// What a run produced and measured.
#[derive(Clone, Debug)]
pub struct Run<O> {
    /// Output of item `i` at index `i`.
    pub outputs: Vec<O>,
    /// The workload's integer accumulators ([`Kernel::tally_len`] of them).
    pub tally: Vec<u64>,
    /// SIMT counters of all warps, where the backend counts (the CPU model does).
    pub counters: Option<Counters>,
    /// Wall time of each pass (each kernel launch on the GPU, measured with CUDA events).
    pub pass_times: Vec<Duration>,
    /// Wall time of the whole run, host work between passes included.
    pub elapsed: Duration,
    /// Achieved or predicted occupancy of each pass's kernel, where known (0 to 1).
    pub occupancy: Vec<Option<f64>>,
    /// The launch that ran.
    pub launch: Launch,
    /// Where the backend knows the device: the share of its resident-thread slots the launch
    /// fills at once (blocks over the blocks that fit on all multiprocessors together, at most
    /// 1, times the first pass's occupancy). Below one half, most of the GPU idled:
    /// [`Run::launch_warning`] says so.
    pub fill: Option<f64>,
}

impl<O> Run<O> {
    /// A run of `launch` that gave `outputs` and measured nothing else: no tally, counters,
    /// times, occupancy or fill (what a test builds to check what is read from a run).
    pub fn new(outputs: Vec<O>, launch: Launch) -> Self {
        Self {
            outputs,
            tally: Vec::new(),
            counters: None,
            pass_times: Vec::new(),
            elapsed: Duration::ZERO,
            occupancy: Vec::new(),
            launch,
            fill: None,
        }
    }

    /// SIMD efficiency over all regions, if the backend counted.
    pub fn simd_efficiency(&self) -> Option<f64> {
        self.counters.as_ref().map(Counters::simd_efficiency)
    }

    /// A sentence for the report when the launch left most of the device idle (see
    /// [`Run::fill`]) although the items would have filled it, naming the launch and what to do
    /// about it; `None` otherwise.
    pub fn launch_warning(&self) -> Option<String> {
        // A launch with a thread for every item already did what it could: too few items
        // leave a GPU idle whatever the launch.
        if self.launch.threads() >= self.outputs.len() as u64 {
            return None;
        }
        let fill = self.fill.filter(|&f| f < 0.5)?;
        Some(format!(
            "the launch of {} blocks x {} threads kept only {:.0} % of the GPU's thread slots \
             busy; Backend::launch_for (or run_auto) picks one that fills it",
            self.launch.blocks,
            self.launch.threads_per_block,
            100.0 * fill
        ))
    }

    /// Items per second over the whole run.
    pub fn items_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.outputs.len() as f64 / s
        } else {
            0.0
        }
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The launch shape is impossible.
    #[error("invalid launch of {} blocks x {} threads: {reason}", launch.blocks, launch.threads_per_block)]
    InvalidLaunch {
        /// The launch asked for.
        launch: Launch,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The strategy cannot run this workload, or a parameter is out of range.
    #[error("{shape} workload: {source}")]
    Strategy {
        /// The workload's shape.
        shape: &'static str,
        /// What the strategy said.
        source: StrategyError,
    },
    /// More items than a `u32` index can name, or outputs that do not fit in memory.
    #[error("too many items: {items} (at most {max})")]
    TooManyItems {
        /// Items asked for.
        items: u64,
        /// The limit.
        max: u64,
    },
    /// The backend cannot run at all here: no driver, no device. Nothing was computed; run
    /// on another backend (the CPU backend is always available).
    #[error("{backend} backend unavailable: {message}")]
    Unavailable {
        /// Which backend.
        backend: &'static str,
        /// What is missing.
        message: String,
    },
    /// The backend has no compiled code for this (kernel, strategy, pass): a GPU backend runs
    /// only the entry points built into its PTX. Another backend, or another strategy, may run.
    #[error("{backend} backend: {message}")]
    NotCompiled {
        /// Which backend.
        backend: &'static str,
        /// The kernel, the strategy asked for and the ones that are compiled.
        message: String,
    },
    /// A device allocation failed; a smaller run (fewer items) may fit.
    #[error("{backend} backend: out of memory allocating {bytes} bytes for {what}")]
    OutOfMemory {
        /// Which backend.
        backend: &'static str,
        /// Bytes asked for.
        bytes: u64,
        /// What the buffer was for.
        what: String,
    },
    /// Any other device-side failure (a launch or driver error, a device fault).
    #[error("{backend} backend: {message}")]
    Device {
        /// Which backend.
        backend: &'static str,
        /// What the device or driver reported, with the kernel and launch shape.
        message: String,
    },
}

/// One run a [`Backend`] is asked for: `kernel` under `strategy` over items `0..items` with
/// `launch`, whose shape [`Backend::run`] has checked.
#[derive(Debug)]
pub struct Job<'k, K> {
    /// The kernel to run.
    pub kernel: &'k K,
    /// The strategy to run it under.
    pub strategy: Strategy,
    /// How many items: `0..items`.
    pub items: u32,
    /// The grid, already [`Launch::validate`]d.
    pub launch: Launch,
}

/// Runs kernels of type `K`.
pub trait Backend<K: Kernel> {
    /// A short name for reports ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// Runs `kernel` under `strategy` over items `0..items` with `launch`: checks the launch's
    /// shape, then [`Backend::run_job`]. Every backend starts the same way, so it is written
    /// once here.
    fn run(
        &self,
        kernel: &K,
        strategy: Strategy,
        items: u32,
        launch: Launch,
    ) -> Result<Run<K::Output>, BackendError> {
        launch.validate()?;
        self.run_job(Job {
            kernel,
            strategy,
            items,
            launch,
        })
    }

    /// Runs a job whose launch [`Backend::run`] has checked: what each backend implements.
    fn run_job(&self, job: Job<'_, K>) -> Result<Run<K::Output>, BackendError>;

    /// The launch this backend picks for `kernel` under `strategy` over `items` items: the
    /// rule of [`Launch::for_items`] with what the backend knows of the device (on the GPU,
    /// the kernel's registers and shared memory as the driver reports them, through the
    /// occupancy calculator). The default, for a backend that knows no device: one
    /// multiprocessor that holds 2048 threads.
    ///
    /// # Errors
    /// Whatever stops the backend from asking (no entry point compiled for the strategy).
    fn launch_for(
        &self,
        kernel: &K,
        strategy: &Strategy,
        items: u32,
    ) -> Result<Launch, BackendError> {
        let _ = kernel;
        Ok(Launch::for_items(strategy, items, 1, |t| Some(2048 / t)))
    }

    /// [`Backend::run`] with the launch [`Backend::launch_for`] picks: how to run a workload
    /// when the launch is not what is being studied.
    ///
    /// # Errors
    /// As [`Backend::launch_for`] and [`Backend::run`].
    fn run_auto(
        &self,
        kernel: &K,
        strategy: Strategy,
        items: u32,
    ) -> Result<Run<K::Output>, BackendError> {
        let launch = self.launch_for(kernel, &strategy, items)?;
        self.run(kernel, strategy, items, launch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_rejects_impossible_shapes() {
        assert!(Launch::new(0, 1).is_err());
        assert!(Launch::new(48, 1).is_err());
        assert!(Launch::new(2048, 1).is_err());
        assert!(Launch::new(256, 0).is_err());
        assert_eq!(Launch::new(1024, 3).map(|l| l.threads()).ok(), Some(3072));
    }

    #[test]
    fn one_item_per_thread_rounds_blocks_up() {
        let l = Launch::one_item_per_thread(1000, 256).ok();
        assert_eq!(l.map(|l| l.blocks), Some(4));
    }

    #[test]
    fn launches_for_items_follow_occupancy_and_dealing() {
        // 64 registers per thread on an H100: 65536 / (64 * t) blocks of t threads fit, so
        // 1024 threads per multiprocessor whatever the block; 256 wins the tie.
        let h100_64_regs = |t: u32| Some(65536 / (64 * t));
        let l = Launch::for_items(&Strategy::BASELINE, 1_000_000, 132, h100_64_regs);
        assert_eq!((l.threads_per_block, l.blocks), (256, 3907));
        let l = Launch::for_items(
            &Strategy::GRID_WIDE_DYNAMIC_WORK,
            1_000_000,
            132,
            h100_64_regs,
        );
        assert_eq!((l.threads_per_block, l.blocks), (256, 132 * 4));
        // 128-thread blocks that fit where 256 do not (a register count between the two):
        // more warps resident, so 128 wins.
        let l = Launch::for_items(&Strategy::BASELINE, 1 << 20, 132, |t| {
            (t <= 128).then_some(6)
        });
        assert_eq!(l.threads_per_block, 128);
        // Only 256-thread blocks can run (say, 1024 is beyond the register file): they win
        // even though 128 would be smaller.
        let only_256 = |t: u32| (t == 256).then_some(4);
        let l = Launch::for_items(&Strategy::GRID_WIDE_DYNAMIC_WORK, 10_000_000, 2, only_256);
        assert_eq!((l.threads_per_block, l.blocks), (256, 8));
        // A block's counter: one resident wave under a warp-level path schedule, one item per
        // thread under the plain loop.
        let delaying_over_blocks = Strategy::speculative_reconvergence(16, 8)
            .over(reconverge_transforms::Assignment::Dynamic);
        let l = Launch::for_items(&delaying_over_blocks, 10_000_000, 2, only_256);
        assert_eq!(l.blocks, 8);
        let l = Launch::for_items(&Strategy::DYNAMIC_WORK_ASSIGNMENT, 10_000_000, 2, only_256);
        assert_eq!(l.blocks, 10_000_000u32.div_ceil(256));
        // Collaborative context collection: one resident wave, static assignment included.
        let ccc = Strategy::COLLABORATIVE_CONTEXT_COLLECTION;
        assert_eq!(ccc.items, reconverge_transforms::Assignment::Static);
        assert_eq!(Launch::for_items(&ccc, 10_000_000, 2, only_256).blocks, 8);
        // Few items: no more blocks than they need, dynamic or not, and never zero.
        let l = Launch::for_items(&Strategy::GRID_WIDE_DYNAMIC_WORK, 300, 132, h100_64_regs);
        assert_eq!(l.blocks, 2);
        assert_eq!(
            Launch::for_items(&Strategy::BASELINE, 0, 132, h100_64_regs).blocks,
            1
        );
        // Branch path unification owns several items per thread.
        let bpu = Strategy::branch_path_unification(16);
        assert_eq!(
            Launch::for_items(&bpu, 1 << 16, 132, h100_64_regs).blocks,
            16
        );
        // Nothing fits (the device answers 0 everywhere): still a launch, one block per item
        // group, which the device will then refuse with its own error.
        let l = Launch::for_items(&Strategy::BASELINE, 1000, 132, |_| None);
        assert_eq!((l.threads_per_block, l.blocks), (256, 4));
    }

    #[test]
    fn a_run_that_idles_the_gpu_says_so() {
        let mut run = Run::<u32>::new(
            vec![0; 100_000],
            Launch {
                threads_per_block: 128,
                blocks: 64,
            },
        );
        run.fill = Some(0.03);
        let warning = run.launch_warning().unwrap_or_default();
        assert!(warning.contains("64 blocks x 128 threads"), "{warning}");
        assert!(warning.contains("3 %"), "{warning}");
        run.fill = Some(0.9);
        assert_eq!(run.launch_warning(), None);
        run.fill = None;
        assert_eq!(run.launch_warning(), None);
        // A thread per item: too few items, not a bad launch.
        run.fill = Some(0.03);
        run.outputs.truncate(8192);
        assert_eq!(run.launch_warning(), None);
    }

    #[test]
    fn errors_name_the_launch() {
        let e = Launch::new(100, 2)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("2 blocks x 100 threads"), "{e}");
    }
}
