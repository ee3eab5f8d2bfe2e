//! A loop whose branch paths share factorable code ([`FactoredBranchLoop`]: seed 002 fig. 7,
//! SYN-BRDIS): its kernel, its baseline and the [`Unfactored`] adapter. Branch distribution's
//! iteration lives in [`crate::strategies::branch_distribution`].

use reconverge_simt::{LaneMask, Region, Warp};

use crate::composition::PathSchedule;
use crate::io::Tally;
use crate::kernel::check_pass;
use crate::shape::{BranchLoop, FactoredBranchLoop, LoopRegions};
use crate::shapes::branch_loop::{BranchLoopKernel, BranchLoopProgram};
use crate::strategies::collaborative_context_collection::{
    CollectionProgram, collected_thread_loop,
};
use crate::strategies::dynamic_work_assignment::{
    Assignment, Dealer, Lane, dealt_step, plain_loop_of,
};
use crate::strategies::iteration_delaying::{PAPER_MAJORITY_VOTE, PAPER_ROUND_ROBIN};
use crate::strategies::speculative_reconvergence as spec;
use crate::strategy::{Strategy, StrategyError};

/// A [`FactoredBranchLoop`] workload as a [`Kernel`](crate::Kernel). Every strategy takes one
/// pass.
///
/// | strategy | issues per iteration of a warp whose lanes take both paths |
/// |---|---|
/// | [`Strategy::BASELINE`] (fig. 7a) | `prologue_taken + factored + epilogue_taken + prologue_not_taken + factored + epilogue_not_taken` |
/// | [`Strategy::BRANCH_DISTRIBUTION`] (fig. 7b) | `prologue_taken + prologue_not_taken + factored + epilogue_taken + epilogue_not_taken` |
/// | [`Strategy::iteration_delaying`] | one whole path per iteration, through [`Unfactored`] |
/// | any of these [`over`](Strategy::over) [`Assignment::Dynamic`] or [`Assignment::GridWide`] | the same, items dealt from the block's or the launch's counter |
///
/// With SYN-BRDIS's costs (prologues and epilogues of 20 FMA, factored code `F = 2·N·M`) a
/// fully divergent iteration issues `2·(40 + F)` instructions in the baseline and `80 + F`
/// after branch distribution: the speedup `2(1 + R)/(2 + R)` with `R = F/40` of seed 002
/// §4.2.2. Under iteration delaying the counters of the whole taken (not-taken) path are
/// reported in the `prologue_taken` (`prologue_not_taken`) row; see [`Unfactored`].
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct FactoredBranchLoopKernel<L>(pub L);

/// A [`FactoredBranchLoop`] seen as a plain [`BranchLoop`]: the taken path is
/// `prologue(true); factored; epilogue(true)`, the not-taken path likewise. This is how
/// [`FactoredBranchLoopKernel`] runs iteration delaying; any [`BranchLoopKernel`] strategy
/// can run a factored loop this way.
///
/// The model counts a [`Warp::branch`] as one region, so the taken path is counted as
/// one region with the id and name of `prologue_taken` and the cost
/// `prologue_taken + factored + epilogue_taken` (the not-taken path in the `prologue_not_taken`
/// row); totals are exact, the per-region split is not kept.
#[derive(Clone, Copy, Debug)]
pub struct Unfactored<L>(pub L);

impl<L: FactoredBranchLoop> BranchLoop for Unfactored<L> {
    type State = L::State;
    type Output = L::Output;

    fn regions(&self) -> LoopRegions {
        let r = self.0.regions();
        let path = |p: Region, e: Region| {
            p.with_cost(
                p.cost
                    .saturating_add(r.factored.cost)
                    .saturating_add(e.cost),
            )
        };
        LoopRegions {
            condition: r.condition,
            taken: path(r.prologue_taken, r.epilogue_taken),
            not_taken: path(r.prologue_not_taken, r.epilogue_not_taken),
            after_branch: r.after_branch,
            item: r.item,
        }
    }
    fn tally_len(&self) -> usize {
        self.0.tally_len()
    }
    fn start(&self, item: u32) -> L::State {
        self.0.start(item)
    }
    fn running(&self, state: &L::State) -> bool {
        self.0.running(state)
    }
    fn condition(&self, state: &mut L::State) -> bool {
        self.0.condition(state)
    }
    fn taken<T: Tally>(&self, state: &mut L::State, tally: &mut T) {
        self.0.prologue(true, state, tally);
        self.0.factored(state, tally);
        self.0.epilogue(true, state, tally);
    }
    fn not_taken<T: Tally>(&self, state: &mut L::State, tally: &mut T) {
        self.0.prologue(false, state, tally);
        self.0.factored(state, tally);
        self.0.epilogue(false, state, tally);
    }
    fn after_branch<T: Tally>(&self, state: &mut L::State, tally: &mut T) {
        self.0.after_branch(state, tally);
    }
    fn finish(&self, state: &L::State) -> L::Output {
        self.0.finish(state)
    }
}

/// One warp running a [`FactoredBranchLoop`].
pub enum FactoredBranchLoopProgram<W: Warp, L: FactoredBranchLoop> {
    /// Baseline, branch distribution, dynamic work assignment: the factored loop itself.
    Direct(DirectProgram<W, L>),
    /// Iteration delaying and speculative reconvergence, through [`Unfactored`].
    Adapted(BranchLoopProgram<W, Unfactored<L>>),
    /// Collaborative context collection, through [`Unfactored`].
    Collect(CollectionProgram<W, Unfactored<L>>),
}

crate::warp_program_enum!(
    impl<W, L: FactoredBranchLoop> for FactoredBranchLoopProgram -> L::Output { Direct, Adapted, Collect }
    |program, warp, sink, tally| program.step(warp, sink, tally)
);

/// The factored loop run as written (baseline, dynamic work) or with its paths distributed.
pub struct DirectProgram<W: Warp, L: FactoredBranchLoop> {
    workload: L,
    distribute: bool,
    dealer: Dealer,
    lanes: W::V<Lane<L::State>>,
}

crate::kernel_impl! {
    impl<L: FactoredBranchLoop + Copy> for FactoredBranchLoopKernel -> L::Output {
        type Program<'k, W> = FactoredBranchLoopProgram<W, &'k L>;
        const SHAPE = "factored branch loop";
        fn program(&self, warp, strategy, pass, task, _scratch) {
            check_pass(pass, self.passes(strategy)?)?;
            let workload = &self.0;
            let direct = |distribute: bool, assignment: Assignment| {
                let (dealer, lanes) =
                    Dealer::first(warp, task, assignment, |item| workload.start(item));
                FactoredBranchLoopProgram::Direct(DirectProgram {
                    workload,
                    distribute,
                    dealer,
                    lanes,
                })
            };
            let program = match strategy.paths {
                PathSchedule::AsWritten => direct(false, strategy.items),
                PathSchedule::BranchDistribution { delaying: None } => {
                    direct(true, strategy.items)
                }
                PathSchedule::CollaborativeContextCollection => FactoredBranchLoopProgram::Collect(
                    CollectionProgram::new(warp, Unfactored(workload), strategy.items, task)?,
                ),
                _ => FactoredBranchLoopProgram::Adapted(BranchLoopProgram::for_strategy(
                    warp,
                    Unfactored(workload),
                    strategy,
                    task,
                )?),
            };
            Ok(program)
        }

        const STRATEGIES: &'static [Strategy] = &[
            Strategy::BASELINE,
            Strategy::BRANCH_DISTRIBUTION,
            Strategy::DYNAMIC_WORK_ASSIGNMENT,
            Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
            Strategy::iteration_delaying(PAPER_MAJORITY_VOTE),
            Strategy::iteration_delaying(PAPER_ROUND_ROBIN),
            Strategy::iteration_delaying(PAPER_MAJORITY_VOTE).over(Assignment::Dynamic),
            Strategy::iteration_delaying(PAPER_ROUND_ROBIN).over(Assignment::Dynamic),
            Strategy::GRID_WIDE_DYNAMIC_WORK,
            Strategy::speculative_reconvergence(spec::DEFAULT_THRESHOLD, spec::DEFAULT_MAX_WAIT),
            Strategy::speculative_reconvergence(spec::DEFAULT_THRESHOLD, spec::DEFAULT_MAX_WAIT)
                .over(Assignment::Dynamic),
            Strategy::COLLABORATIVE_CONTEXT_COLLECTION,
        ];

        fn tally_len(&self) -> usize {
            self.0.tally_len()
        }

        fn collected_items(&self, lane, vote, stack, deal, put, tally) {
            // Each iteration's path in full (the factored code inside it), as the unfactored
            // loop's other schedules run it.
            collected_thread_loop(&Unfactored(&self.0), lane, vote, stack, deal, put, tally)
        }

        fn dynamic_shared_bytes(&self, strategy: &Strategy, threads_per_block: u32) -> u32 {
            BranchLoopKernel(Unfactored(self.0)).dynamic_shared_bytes(strategy, threads_per_block)
        }

        fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
            if strategy.items == Assignment::Remapped {
                // No key to group items by (thread-data remapping runs on a branch loop's).
                return Err(StrategyError::NoRemapKey {
                    strategy: *strategy,
                    shape: Self::SHAPE,
                });
            }
            match strategy.paths {
                PathSchedule::AsWritten | PathSchedule::BranchDistribution { delaying: None } => {
                    Ok(1)
                }
                // The loop schedules of the unfactored loop: each iteration's path in full.
                PathSchedule::IterationDelaying(_)
                | PathSchedule::SpeculativeReconvergence { .. }
                | PathSchedule::CollaborativeContextCollection => {
                    BranchLoopKernel(Unfactored(self.0)).passes(strategy)
                }
                _ => Err(StrategyError::not_applicable(*strategy, Self::SHAPE)),
            }
        }

        fn plain_items(&self, next, put, tally) {
            // Fig. 7a for one thread: its path in full, the factored code inside it.
            plain_loop_of!(self.0, next, put, |w, s| {
                if w.condition(s) {
                    w.prologue(true, s, tally);
                    w.factored(s, tally);
                    w.epilogue(true, s, tally);
                } else {
                    w.prologue(false, s, tally);
                    w.factored(s, tally);
                    w.epilogue(false, s, tally);
                }
                w.after_branch(s, tally);
            })
        }

        #[inline(always)]
        fn distributed_items<T: crate::Tally>(
            &self,
            next: impl FnMut() -> Option<u32>,
            put: impl FnMut(u32, L::Output),
            tally: &mut T,
        ) -> bool {
            // Fig. 7b for one thread: the factored code between the two divergent parts.
            plain_loop_of!(self.0, next, put, |w, s| {
                let taken = w.condition(s);
                w.prologue(taken, s, tally);
                w.factored(s, tally);
                w.epilogue(taken, s, tally);
                w.after_branch(s, tally);
            })
        }
    }
}

impl<W: Warp, L: FactoredBranchLoop> DirectProgram<W, L> {
    /// Runs the prologue (`prologue`) or the epilogue of the path `taken` for the lanes of
    /// `mask`.
    fn path_end<T: Tally>(
        &mut self,
        warp: &mut W,
        prologue: bool,
        taken: bool,
        mask: LaneMask,
        tally: &mut T,
    ) {
        let w = &self.workload;
        let r = w.regions();
        let region = match (prologue, taken) {
            (true, true) => r.prologue_taken,
            (true, false) => r.prologue_not_taken,
            (false, true) => r.epilogue_taken,
            (false, false) => r.epilogue_not_taken,
        };
        warp.branch(region, mask, &mut self.lanes, |l| {
            if prologue {
                w.prologue(taken, &mut l.state, tally)
            } else {
                w.epilogue(taken, &mut l.state, tally)
            }
        });
    }

    pub(crate) fn prologue<T: Tally>(
        &mut self,
        warp: &mut W,
        taken: bool,
        mask: LaneMask,
        t: &mut T,
    ) {
        self.path_end(warp, true, taken, mask, t);
    }

    pub(crate) fn epilogue<T: Tally>(
        &mut self,
        warp: &mut W,
        taken: bool,
        mask: LaneMask,
        t: &mut T,
    ) {
        self.path_end(warp, false, taken, mask, t);
    }

    pub(crate) fn factored<T: Tally>(&mut self, warp: &mut W, mask: LaneMask, tally: &mut T) {
        let w = &self.workload;
        warp.branch(w.regions().factored, mask, &mut self.lanes, |l| {
            w.factored(&mut l.state, tally)
        });
    }

    dealt_step!(L::Output; |self, warp, sink, tally, live| {
        let w = &self.workload;
        let r = w.regions();
        warp.branch(r.condition, live, &mut self.lanes, |l| {
            l.cond = w.condition(&mut l.state)
        });
        let cond = warp.map_ref(&self.lanes, |l| l.cond);
        let taken = warp.ballot(live, cond);
        let not_taken = live & !taken;
        // Branch distribution, or the plain loop as a GPU compiler makes it (which sinks the
        // paths' common code below the branch: the same count).
        if self.distribute || warp.shares_common_path_code() {
            self.distributed_paths(warp, taken, not_taken, tally);
        } else {
            // Fig. 7a: each path in full, the factored code issued once per path.
            for (path, mask) in [(true, taken), (false, not_taken)] {
                self.prologue(warp, path, mask, tally);
                self.factored(warp, mask, tally);
                self.epilogue(warp, path, mask, tally);
            }
        }
        let w = &self.workload;
        warp.branch(r.after_branch, live, &mut self.lanes, |l| {
            w.after_branch(&mut l.state, tally)
        });
        true
    });
}
