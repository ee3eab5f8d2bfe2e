//! A loop with a data-dependent trip count ([`ItemLoop`]: seed 004 fig. 1/4, seed 002 fig. 1c):
//! its kernel and its baseline. Dynamic work assignment and the occlusion-query loop live in
//! [`crate::strategies`].

use reconverge_simt::Warp;

use crate::composition::PathSchedule;
use crate::kernel::check_pass;
use crate::shape::ItemLoop;
use crate::strategies::dynamic_work_assignment::{
    Assignment, Dealer, Lane, dealt_step, plain_loop_of,
};
use crate::strategies::occlusion_query_loop::{PassLoopLayout, PassLoopProgram};
use crate::strategy::{Strategy, StrategyError};

/// An [`ItemLoop`] workload as a [`Kernel`](crate::Kernel). Supports, each in one pass:
///
/// - [`Strategy::BASELINE`]: thread `t` runs items `t`, `t + threads_per_block`, … of its
///   block's chunk, one after the other (seed 004 fig. 4 with `i = next(i)`); the warp issues
///   the body while any lane still has an item, so a warp whose lanes have trip counts
///   `n_0 … n_31` and one item each issues the body `max n_i` times (seed 002 §2.3).
/// - [`Strategy::DYNAMIC_WORK_ASSIGNMENT`]: a lane whose item finishes takes the next unclaimed
///   item of the block from a block-shared counter (seed 004 fig. 5), sharing the dealer of
///   [`crate::BranchLoopKernel`].
/// - [`Strategy::occlusion_query_loop`], in two passes, the second repeated while the first or
///   the previous one left items unfinished: see [`PassLoopProgram`].
///
/// Every other strategy is [`StrategyError::NotApplicable`]: there is no branch in the loop
/// for iteration delaying to delay.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct ItemLoopKernel<L>(pub L);

/// One warp running an [`ItemLoop`].
pub enum ItemLoopProgram<'s, W: Warp, L: ItemLoop> {
    /// Baseline and dynamic work assignment: one pass, items dealt to lanes.
    Dealt(DealtProgram<W, L>),
    /// A pass of the occlusion-query loop.
    Passes(PassLoopProgram<'s, W, L>),
}

/// The baseline's and dynamic work assignment's warp: lanes take their next item as soon as
/// one finishes.
pub struct DealtProgram<W: Warp, L: ItemLoop> {
    workload: L,
    dealer: Dealer,
    lanes: W::V<Lane<L::State>>,
}

crate::kernel_impl! {
    impl<L: ItemLoop + Copy> for ItemLoopKernel -> L::Output {
        type Program<'k, W> = ItemLoopProgram<'k, W, &'k L>;
        const SHAPE = "item loop";
        fn program(&self, warp, strategy, pass, task, scratch) {
            let mode = mode_of(strategy)?;
            check_pass(pass, mode.passes())?;
            let workload = &self.0;
            Ok(match mode {
                Mode::Dealt(assignment) => {
                    let (dealer, lanes) =
                        Dealer::first(warp, task, assignment, |item| workload.start(item));
                    ItemLoopProgram::Dealt(DealtProgram {
                        workload,
                        dealer,
                        lanes,
                    })
                }
                Mode::Passes(iterations) => ItemLoopProgram::Passes(PassLoopProgram::new(
                    warp,
                    workload,
                    task,
                    iterations,
                    pass == 0,
                    scratch,
                )),
            })
        }

        // Eight iterations per pass: the setting whose wall time came closest to the one-kernel
        // loop on seed 004's 1-32-trip loop while still needing several passes (README).
        const STRATEGIES: &'static [Strategy] = &[
            Strategy::BASELINE,
            Strategy::DYNAMIC_WORK_ASSIGNMENT,
            Strategy::occlusion_query_loop(8),
            Strategy::GRID_WIDE_DYNAMIC_WORK,
        ];

        fn tally_len(&self) -> usize {
            self.0.tally_len()
        }

        fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
            mode_of(strategy).map(Mode::passes)
        }

        fn plain_items(&self, next, put, tally) {
            plain_loop_of!(self.0, next, put, |w, s| w.body(s, tally))
        }

        fn scratch_words(&self, strategy: &Strategy, items: u32) -> usize {
            match mode_of(strategy) {
                Ok(Mode::Passes(_)) => PassLoopLayout::words::<L::State>(items),
                _ => 0,
            }
        }

        fn repeat_last_pass_while(&self, strategy: &Strategy) -> Option<usize> {
            matches!(mode_of(strategy), Ok(Mode::Passes(_))).then_some(PassLoopLayout::QUERY)
        }

        fn pass_as_lane(&self, strategy, pass, lane, vote, task, scratch, put, tally) {
            let Ok(Mode::Passes(iterations)) = mode_of(strategy) else {
                return false;
            };
            crate::strategies::occlusion_query_loop::pass_as_lane(
                &self.0, iterations, pass == 0, lane, vote, task, scratch, put, tally,
            );
            true
        }
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Dealt(Assignment),
    /// The occlusion-query loop with this many iterations per pass.
    Passes(u32),
}

impl Mode {
    /// One pass for dealt items; the occlusion-query loop's first pass and its repeated one.
    fn passes(self) -> u32 {
        match self {
            Mode::Dealt(_) => 1,
            Mode::Passes(_) => 2,
        }
    }
}

fn mode_of(strategy: &Strategy) -> Result<Mode, StrategyError> {
    match strategy.paths {
        PathSchedule::AsWritten if strategy.items == Assignment::Remapped => {
            Err(StrategyError::NoRemapKey {
                strategy: *strategy,
                shape: "item loop",
            })
        }
        PathSchedule::AsWritten => Ok(Mode::Dealt(strategy.items)),
        // A pass keeps each item's state in its slot: the items of a thread are fixed.
        PathSchedule::OcclusionQueryLoop {
            iterations_per_pass,
        } if matches!(strategy.items, Assignment::Static) => {
            // Not `StrategyError::at_least_one(..).map(Mode::Passes)`: through it LLVM stopped
            // unrolling the occlusion-query loop's 8-iteration pass on the GPU (SASS compared).
            if iterations_per_pass == 0 {
                Err(StrategyError::InvalidParameter {
                    name: "iterations_per_pass",
                    requirement: "at least 1",
                })
            } else {
                Ok(Mode::Passes(iterations_per_pass))
            }
        }
        _ => Err(StrategyError::not_applicable(*strategy, "item loop")),
    }
}

crate::warp_program_enum!(
    impl<'s, W, L: ItemLoop> for ItemLoopProgram -> L::Output { Dealt, Passes }
    |program, warp, sink, tally| program.step(warp, sink, tally)
);

impl<W: Warp, L: ItemLoop> DealtProgram<W, L> {
    dealt_step!(L::Output; |self, warp, sink, tally, live| {
        let w = &self.workload;
        warp.branch(w.regions().body, live, &mut self.lanes, |l| {
            w.body(&mut l.state, tally)
        });
        true
    });
}
