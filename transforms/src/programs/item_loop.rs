//! Strategies for a loop with a data-dependent trip count ([`ItemLoop`]: seed 004 fig. 1/4,
//! seed 002 fig. 1c).

use reconverge_simt::Warp;

use crate::io::{Sink, Tally, WarpTask};
use crate::kernel::{Kernel, WarpProgram, check_pass};
use crate::programs::deal::{Assignment, Dealer, Lane};
use crate::scratch::Scratch;
use crate::shape::ItemLoop;
use crate::strategy::{Strategy, StrategyError};

/// An [`ItemLoop`] workload as a [`Kernel`]. Supports, each in one pass:
///
/// - [`Strategy::Baseline`]: thread `t` runs items `t`, `t + threads_per_block`, … of its
///   block's chunk, one after the other (seed 004 fig. 4 with `i = next(i)`); the warp issues
///   the body while any lane still has an item, so a warp whose lanes have trip counts
///   `n_0 … n_31` and one item each issues the body `max n_i` times (seed 002 §2.3).
/// - [`Strategy::DynamicWorkAssignment`]: a lane whose item finishes takes the next unclaimed
///   item of the block from a block-shared counter (seed 004 fig. 5), sharing the dealer of
///   [`crate::BranchLoopKernel`].
///
/// Every other strategy is [`StrategyError::NotApplicable`]: there is no branch in the loop
/// for iteration delaying to delay.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct ItemLoopKernel<L>(pub L);

/// One warp running an [`ItemLoop`].
pub struct ItemLoopProgram<W: Warp, L: ItemLoop> {
    workload: L,
    dealer: Dealer,
    lanes: W::V<Lane<L::State>>,
}

impl<L: ItemLoop + Copy> Kernel for ItemLoopKernel<L> {
    type Output = L::Output;
    type Program<'k, W: Warp>
        = ItemLoopProgram<W, &'k L>
    where
        Self: 'k;

    const SHAPE: &'static str = "item loop";

    fn tally_len(&self) -> usize {
        self.0.tally_len()
    }

    fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
        assignment_of(strategy).map(|_| 1)
    }

    fn program<'k, W: Warp>(
        &'k self,
        warp: &W,
        strategy: &Strategy,
        pass: u32,
        task: WarpTask,
        _scratch: &'k Scratch,
    ) -> Result<ItemLoopProgram<W, &'k L>, StrategyError> {
        check_pass(pass, 1)?;
        let assignment = assignment_of(strategy)?;
        let workload = &self.0;
        let (dealer, lanes) = Dealer::first(warp, task, assignment, |item| workload.start(item));
        Ok(ItemLoopProgram {
            workload,
            dealer,
            lanes,
        })
    }
}

fn assignment_of(strategy: &Strategy) -> Result<Assignment, StrategyError> {
    match *strategy {
        Strategy::Baseline => Ok(Assignment::Static),
        Strategy::DynamicWorkAssignment => Ok(Assignment::Dynamic),
        other => Err(StrategyError::NotApplicable {
            strategy: other,
            shape: "item loop",
        }),
    }
}

impl<W: Warp, L: ItemLoop> WarpProgram<W> for ItemLoopProgram<W, L> {
    type Output = L::Output;

    fn step<S: Sink<L::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        tally: &mut T,
    ) -> bool {
        let w = &self.workload;
        let live = self.dealer.retire_and_refill(
            warp,
            w.regions().item,
            &mut self.lanes,
            |s| !w.running(s),
            |s| w.finish(s),
            |item| w.start(item),
            sink,
        );
        if live == 0 {
            return false;
        }
        warp.branch(w.regions().body, live, &mut self.lanes, |l| {
            w.body(&mut l.state, tally)
        });
        true
    }
}
