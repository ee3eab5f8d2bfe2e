//! A loop with one divergent branch ([`BranchLoop`], seed 002 fig. 4): its kernel and its
//! baseline. Iteration delaying's decisions live in [`crate::strategies::iteration_delaying`],
//! the dealing of items in [`crate::strategies::dynamic_work_assignment`].

use reconverge_simt::{LaneMask, Warp};

use crate::composition::PathSchedule;
use crate::io::{Tally, WarpTask};
use crate::kernel::{WarpProgram, check_pass};
use crate::shape::BranchLoop;
use crate::strategies::collaborative_context_collection::{
    CollectionProgram, collected_thread_loop, shared_bytes_per_warp,
};
use crate::strategies::dynamic_work_assignment::{
    Assignment, Dealer, Lane, dealt_step, plain_loop_of,
};
use crate::strategies::iteration_delaying::{
    DelayState, PAPER_MAJORITY_VOTE, PAPER_ROUND_ROBIN, check_decision, delayed_paths,
    taken_cost_in_lane_iterations, voted_plain_loop,
};
use crate::strategies::speculative_reconvergence::{self as spec, SpecState, speculative_paths};
use crate::strategies::thread_data_remapping::{
    self as remap, Permutation, RemapPass, RemappedLoop, RemappedRun,
};
use crate::strategy::{Decision, Strategy, StrategyError};

/// A [`BranchLoop`] workload as a [`Kernel`](crate::Kernel). Runs the paths as written and
/// [`PathSchedule::IterationDelaying`], [`PathSchedule::SpeculativeReconvergence`] (the
/// taken path is the expensive block) and [`PathSchedule::CollaborativeContextCollection`]
/// (the taken path is the costly body), each over every [`Assignment`] it pairs with, in one
/// pass; over [`Assignment::Remapped`] (a workload with a key only) in two, the permutation
/// first.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct BranchLoopKernel<L>(pub L);

/// [`BranchLoopKernel`]'s program: the loop's own warp program, or collaborative context
/// collection's, which keeps its contexts on stacks of its own.
pub enum BranchLoopKernelProgram<W: Warp, L: BranchLoop> {
    /// The paths as written, iteration delaying, speculative reconvergence.
    Loop(BranchLoopProgram<W, L>),
    /// Collaborative context collection.
    Collect(CollectionProgram<W, L>),
}

crate::warp_program_enum!(
    impl<W, L: BranchLoop> for BranchLoopKernelProgram -> L::Output { Loop, Collect }
    |program, warp, sink, tally| program.step(warp, sink, tally)
);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Baseline,
    Delaying(Decision),
    /// Speculative reconvergence's threshold and bound on waiting.
    Speculative(u32, u32),
}

/// One warp running a [`BranchLoop`].
pub struct BranchLoopProgram<W: Warp, L: BranchLoop> {
    workload: L,
    mode: Mode,
    dealer: Dealer,
    lanes: W::V<Lane<L::State>>,
    /// What the warp's delaying decision remembers between iterations.
    delay: DelayState,
    /// What speculative reconvergence remembers between iterations.
    spec: SpecState,
    /// [`Decision::CostBalanced`]'s cost of the taken path, in lane-iterations.
    taken_cost: u32,
    /// Lanes that ran the last iteration: with the lanes refilled since, the ones that hold no
    /// branch condition (the others were delayed, their condition pending).
    ran: LaneMask,
}

/// The program of one pass of a [`BranchLoopKernel`]: the loop over the items themselves, or
/// thread-data remapping's two passes (the permutation, then the loop over its slots).
pub enum BranchLoopRun<'k, W: Warp, L: BranchLoop> {
    /// Every strategy but remapping: one pass.
    Direct(BranchLoopProgram<W, &'k L>),
    /// Remapping's pass 0: the permutation.
    Permute(RemapPass<'k, W, &'k L>),
    /// Remapping's pass 1: the strategy's loop over the permutation's slots.
    Remapped(RemappedRun<'k, BranchLoopProgram<W, RemappedLoop<'k, &'k L>>>),
    /// Collaborative context collection, which keeps its contexts on stacks of its own.
    Collect(CollectionProgram<W, &'k L>),
}

crate::warp_program_enum!(
    #[inline(always)]
    impl<'k, W, L: BranchLoop> for BranchLoopRun -> L::Output { Direct, Permute, Remapped, Collect }
    |program, warp, sink, tally| program.step(warp, sink, tally)
);

/// A branch loop's strategies, with the papers' parameters, then `$extra`: the one list both
/// [`LOOP_STRATEGIES`] and [`REMAPPABLE_STRATEGIES`] start with.
macro_rules! loop_strategies {
    ($($extra:expr),* $(,)?) => {
        &[
            Strategy::BASELINE,
            Strategy::DYNAMIC_WORK_ASSIGNMENT,
            Strategy::iteration_delaying(PAPER_MAJORITY_VOTE),
            Strategy::iteration_delaying(PAPER_ROUND_ROBIN),
            Strategy::iteration_delaying(PAPER_MAJORITY_VOTE).over(Assignment::Dynamic),
            Strategy::iteration_delaying(PAPER_ROUND_ROBIN).over(Assignment::Dynamic),
            Strategy::GRID_WIDE_DYNAMIC_WORK,
            Strategy::speculative_reconvergence(spec::DEFAULT_THRESHOLD, spec::DEFAULT_MAX_WAIT),
            Strategy::speculative_reconvergence(spec::DEFAULT_THRESHOLD, spec::DEFAULT_MAX_WAIT)
                .over(Assignment::Dynamic),
            Strategy::COLLABORATIVE_CONTEXT_COLLECTION,
            $($extra,)*
        ]
    };
}

/// A branch loop's strategies ([`crate::Kernel::STRATEGIES`]).
const LOOP_STRATEGIES: &[Strategy] = loop_strategies!();

/// [`LOOP_STRATEGIES`] and, for a workload with a key, thread-data remapping under the paths as
/// written, iteration delaying and speculative reconvergence.
const REMAPPABLE_STRATEGIES: &[Strategy] = loop_strategies!(
    Strategy::THREAD_DATA_REMAPPING,
    Strategy::iteration_delaying(PAPER_MAJORITY_VOTE).over(Assignment::Remapped),
    Strategy::speculative_reconvergence(spec::DEFAULT_THRESHOLD, spec::DEFAULT_MAX_WAIT)
        .over(Assignment::Remapped),
);

crate::kernel_impl! {
    impl<L: BranchLoop + Copy> for BranchLoopKernel -> L::Output {
        type Program<'k, W> = BranchLoopRun<'k, W, L>;
        const SHAPE = "branch loop";
        fn program(&self, warp, strategy, pass, task, scratch) {
            check_pass(pass, self.passes(strategy)?)?;
            if strategy.paths == PathSchedule::CollaborativeContextCollection {
                return CollectionProgram::new(warp, &self.0, strategy.items, task)
                    .map(BranchLoopRun::Collect);
            }
            if strategy.items != Assignment::Remapped {
                return BranchLoopProgram::for_strategy(warp, &self.0, strategy, task)
                    .map(BranchLoopRun::Direct);
            }
            let perm = Permutation::new(scratch);
            if pass == 0 {
                return Ok(BranchLoopRun::Permute(RemapPass::new(warp, &self.0, perm, task)));
            }
            // The slots dealt as static assignment deals items; the adapter maps each to its
            // item and the run's sink stores each output at its item.
            let slots = Strategy::new(Assignment::Static, strategy.paths);
            let program =
                BranchLoopProgram::for_strategy(warp, RemappedLoop::new(&self.0, perm), &slots, task)?;
            Ok(BranchLoopRun::Remapped(RemappedRun::new(program, perm)))
        }

        const STRATEGIES: &'static [Strategy] = if L::REMAP_BUCKETS > 0 {
            REMAPPABLE_STRATEGIES
        } else {
            LOOP_STRATEGIES
        };

        fn tally_len(&self) -> usize {
            self.0.tally_len()
        }

        fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
            if strategy.paths == PathSchedule::CollaborativeContextCollection {
                return strategy.pairing().map(|()| 1).map_err(StrategyError::Unpaired);
            }
            let (_, items) = mode_of(strategy)?;
            if items == Assignment::Remapped {
                remap::check(strategy, L::REMAP_BUCKETS, "branch loop")?;
                Ok(2)
            } else {
                Ok(1)
            }
        }

        fn scratch_words(&self, strategy: &Strategy, items: u32) -> usize {
            if strategy.items == Assignment::Remapped {
                Permutation::words_for(items)
            } else {
                0
            }
        }

        fn plain_items(&self, next, put, tally) {
            plain_loop_of!(self.0, next, put, |w, s| {
                if w.condition(s) {
                    w.taken(s, tally);
                } else {
                    w.not_taken(s, tally);
                }
                w.after_branch(s, tally);
            })
        }

        fn delayed_items(&self, decision, lane, vote, next, put, tally) {
            let w = &self.0;
            let taken_cost = taken_cost_in_lane_iterations(&w.regions(), reconverge_simt::WARP_SIZE);
            let mut delay = DelayState::new(Some(decision));
            let paths = |live, want, started| {
                delayed_paths(decision, &mut delay, taken_cost, live, want, started)
            };
            check_decision(decision).is_ok()
                && voted_plain_loop(paths, lane, vote, next, put, w, tally)
        }

        fn collected_items(&self, lane, vote, stack, deal, put, tally) {
            collected_thread_loop(&self.0, lane, vote, stack, deal, put, tally)
        }

        #[inline(always)]
        fn remap_permutation(
            &self,
            lane: u32,
            vote: impl FnMut(bool) -> LaneMask,
            task: WarpTask,
            scratch: &crate::Scratch,
        ) -> bool {
            if L::REMAP_BUCKETS == 0 {
                return false;
            }
            remap::permute_as_lane(&self.0, lane, vote, task, Permutation::new(scratch));
            true
        }

        fn dynamic_shared_bytes(&self, strategy: &Strategy, threads_per_block: u32) -> u32 {
            if strategy.paths != PathSchedule::CollaborativeContextCollection {
                return 0;
            }
            let warps = threads_per_block.div_ceil(reconverge_simt::WARP_SIZE);
            u32::try_from(shared_bytes_per_warp::<L::State>())
                .unwrap_or(u32::MAX)
                .saturating_mul(warps)
        }

        fn speculative_items(&self, threshold, max_wait, lane, vote, next, put, tally) {
            let mut wait = SpecState::default();
            let paths = |live, want, _| speculative_paths(threshold, max_wait, &mut wait, live, want);
            spec::check(threshold, max_wait).is_ok()
                && voted_plain_loop(paths, lane, vote, next, put, &self.0, tally)
        }
    }
}

fn mode_of(strategy: &Strategy) -> Result<(Mode, Assignment), StrategyError> {
    match strategy.paths {
        PathSchedule::AsWritten => Ok((Mode::Baseline, strategy.items)),
        PathSchedule::IterationDelaying(decision) => {
            check_decision(decision)?;
            Ok((Mode::Delaying(decision), strategy.items))
        }
        PathSchedule::SpeculativeReconvergence {
            threshold,
            max_wait,
        } => {
            spec::check(threshold, max_wait)?;
            Ok((Mode::Speculative(threshold, max_wait), strategy.items))
        }
        _ => Err(StrategyError::not_applicable(*strategy, "branch loop")),
    }
}

impl<W: Warp, L: BranchLoop + Copy> BranchLoopProgram<W, L> {
    /// The program of `strategy` for one warp, over `workload` taken by value: usually a
    /// reference, or a small view over one (an adapter such as MCML's branch-distributed
    /// boundary). [`BranchLoopKernel`]'s [`program`](crate::Kernel::program) is this with
    /// `&self.0`.
    pub fn for_strategy(
        warp: &W,
        workload: L,
        strategy: &Strategy,
        task: WarpTask,
    ) -> Result<Self, StrategyError> {
        let (mode, assignment) = mode_of(strategy)?;
        if assignment == Assignment::Remapped {
            // The permutation lives in a kernel's scratch: [`BranchLoopKernel`] runs it.
            return Err(StrategyError::NoRemapKey {
                strategy: *strategy,
                shape: "branch loop program without a permutation",
            });
        }
        Ok(Self::new(warp, workload, mode, assignment, task))
    }
}

impl<W: Warp, L: BranchLoop> BranchLoopProgram<W, L> {
    fn new(warp: &W, workload: L, mode: Mode, assignment: Assignment, task: WarpTask) -> Self {
        let (dealer, lanes) = Dealer::first(warp, task, assignment, |item| workload.start(item));
        let taken_cost = taken_cost_in_lane_iterations(&workload.regions(), warp.width());
        Self {
            workload,
            mode,
            dealer,
            lanes,
            delay: DelayState::new(match mode {
                Mode::Delaying(decision) => Some(decision),
                Mode::Baseline | Mode::Speculative(..) => None,
            }),
            spec: SpecState::default(),
            taken_cost,
            // No lane holds a condition before the first iteration.
            ran: LaneMask::MAX,
        }
    }

    /// Lanes that want the taken path among `live`, computing the condition where a lane has
    /// none pending.
    fn conditions(&mut self, warp: &mut W, live: LaneMask) -> LaneMask {
        let w = &self.workload;
        // A lane holds a pending condition exactly when it was delayed (live, but not among
        // the last iteration's lanes) and kept its item: known from the masks, so no vote (one
        // fewer per iteration). Without delaying every live lane ran.
        let need = if matches!(self.mode, Mode::Baseline) {
            live
        } else {
            live & (self.ran | self.dealer.refilled)
        };
        warp.branch(w.regions().condition, need, &mut self.lanes, |l| {
            l.cond = w.condition(&mut l.state);
        });
        let cond = warp.map_ref(&self.lanes, |l| l.cond);
        warp.ballot(live, cond)
    }

    /// Runs one iteration of the path `taken` for the lanes of `mask`.
    fn run_path<T: Tally>(&mut self, warp: &mut W, taken: bool, mask: LaneMask, tally: &mut T) {
        let w = &self.workload;
        let regions = w.regions();
        if taken {
            warp.branch(regions.taken, mask, &mut self.lanes, |l| {
                w.taken(&mut l.state, tally)
            });
        } else {
            warp.branch(regions.not_taken, mask, &mut self.lanes, |l| {
                w.not_taken(&mut l.state, tally)
            });
        }
    }

    fn after_branch<T: Tally>(&mut self, warp: &mut W, mask: LaneMask, tally: &mut T) {
        let w = &self.workload;
        warp.branch(w.regions().after_branch, mask, &mut self.lanes, |l| {
            w.after_branch(&mut l.state, tally);
        });
    }
}

impl<W: Warp, L: BranchLoop> WarpProgram<W> for BranchLoopProgram<W, L> {
    type Output = L::Output;

    dealt_step!(L::Output; |self, warp, sink, tally, live| {
        let want = self.conditions(warp, live);
        // The lanes of each path this iteration. Each path is then called at one site: two
        // sites (one per mode) made the GPU compiler inline the whole loop body twice, 3,184
        // SASS instructions for MCML against 1,872 without delaying, and the larger code lost
        // to instruction-cache misses what delaying saved. An empty mask runs nothing.
        let (taken, not_taken, ran) = match self.mode {
            Mode::Delaying(decision) => {
                let (taken, not_taken) = delayed_paths(
                    decision,
                    &mut self.delay,
                    self.taken_cost,
                    live,
                    want,
                    self.dealer.started,
                );
                (taken, not_taken, taken | not_taken)
            }
            Mode::Speculative(threshold, max_wait) => {
                let (taken, not_taken) =
                    speculative_paths(threshold, max_wait, &mut self.spec, live, want);
                (taken, not_taken, taken | not_taken)
            }
            Mode::Baseline => (want, live & !want, live),
        };
        self.run_path(warp, true, taken, tally);
        self.run_path(warp, false, not_taken, tally);
        self.after_branch(warp, ran, tally);
        self.ran = ran;
        true
    });
}
