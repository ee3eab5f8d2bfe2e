//! What a backend runs: a workload in one of the shapes, under a strategy, warp by warp.

use reconverge_simt::Warp;

use crate::io::{Sink, Tally, WarpTask};
use crate::scratch::Scratch;
use crate::strategy::{Strategy, StrategyError};

/// One warp's part of a pass: a loop that the whole warp runs together, one iteration per
/// [`WarpProgram::step`].
///
/// Backends call `step` until it returns `false`. The CPU backend interleaves the warps of a
/// block step by step, so that block-shared counters are shared as on a GPU; the GPU backend
/// simply loops.
pub trait WarpProgram<W: Warp> {
    /// What each item produces.
    type Output: Copy;

    /// Runs one iteration of the warp's loop; `false` once the warp has no work left.
    fn step<S: Sink<Self::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        tally: &mut T,
    ) -> bool;
}

/// A workload in one of the shapes of [`crate::shape`], ready to run under a strategy.
///
/// A strategy may need several passes (one kernel launch each on the GPU: branch splitting
/// runs one per path). Passes run in order; every item's output is written by exactly one
/// pass, and outputs never depend on the pass split, the strategy or the launch shape.
pub trait Kernel {
    /// What each item produces.
    type Output: Copy;
    /// The per-warp program of one pass. It borrows the kernel, so a program never copies
    /// the workload's parameters.
    type Program<'k, W: Warp>: WarpProgram<W, Output = Self::Output>
    where
        Self: 'k;

    /// The name of the workload's shape, for error messages.
    const SHAPE: &'static str;

    /// Accumulators the workload adds to through its [`Tally`] (MCML's grids); 0 for none.
    fn tally_len(&self) -> usize {
        0
    }

    /// How many passes `strategy` takes on this workload, or why it cannot run it.
    fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError>;

    /// Words of [`Scratch`] memory `strategy` needs over `items` items, kept from one pass to
    /// the next (z-cull masking's decision mask); 0, the default, for none.
    fn scratch_words(&self, strategy: &Strategy, items: u32) -> usize {
        let _ = (strategy, items);
        0
    }

    /// The program of warp `task.warp_in_block` for pass `pass`. `scratch` holds (at least)
    /// [`Kernel::scratch_words`] words, zeroed before pass 0 and shared by every warp and pass
    /// of the run.
    fn program<'k, W: Warp>(
        &'k self,
        warp: &W,
        strategy: &Strategy,
        pass: u32,
        task: WarpTask,
        scratch: &'k Scratch,
    ) -> Result<Self::Program<'k, W>, StrategyError>;
}

/// Initial values of the block-shared counters of [`Warp::block_fetch_add`]: counter 0 deals
/// out the block's items, and the first `threads_per_block` are handed out at the start.
pub const fn initial_block_counters(threads_per_block: u32) -> [u32; 4] {
    [threads_per_block, 0, 0, 0]
}

/// Checks a pass index against a strategy's pass count, for [`Kernel::program`] impls.
pub fn check_pass(pass: u32, passes: u32) -> Result<(), StrategyError> {
    if pass < passes {
        Ok(())
    } else {
        Err(StrategyError::NoSuchPass { pass, passes })
    }
}
