//! The one trait both reconverge backends implement.
//!
//! A [`Backend`] runs a workload (wrapped in its shape's [`Kernel`]) under a [`Strategy`] over
//! `items` items with a [`Launch`] shape, and returns a [`Run`]: every item's output, the
//! workload's integer tallies, the SIMT counters where the backend has them, and the time.
//! Strategies are plain values, so a bench or a command line can loop over them:
//!
//! ```ignore
//! for strategy in [Strategy::Baseline, Strategy::IterationDelaying(Decision::MajorityVote {
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
}

impl<O> Run<O> {
    /// SIMD efficiency over all regions, if the backend counted.
    pub fn simd_efficiency(&self) -> Option<f64> {
        self.counters.as_ref().map(Counters::simd_efficiency)
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
    fn errors_name_the_launch() {
        let e = Launch::new(100, 2)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("2 blocks x 100 threads"), "{e}");
    }
}
