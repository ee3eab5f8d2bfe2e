//! MCML's photon loop as a [`BranchLoop`], so every loop strategy of `reconverge-transforms`
//! runs it on either backend.
//!
//! The branch is MCML's main one (seed 002 fig. 8): does this step reach a layer boundary
//! ([`boundary`], the taken path) or end inside the layer ([`interact`]: drop and spin)? The
//! code after the branch is Russian roulette. Photon `i` is item `i` and draws from its own
//! random stream, so neither the strategy nor the lane that runs a photon changes its life:
//! every strategy and backend produces the same tallies, bit for bit.

use reconverge_simt::Warp;
use reconverge_transforms::{
    Assignment, BranchLoop, BranchLoopKernel, BranchLoopProgram, Decision, LoopRegion, LoopRegions,
    PathSchedule, Strategy, StrategyError, Tally as WarpTally, check_pass,
    strategies::collaborative_context_collection::{CollectionProgram, shared_bytes_per_warp},
};

use super::float::McmlFloat;
use super::params::{McmlParams, StepView};
use super::photon::{
    Photon, alive, boundary, boundary_distributed, choose_step, interact, launch, prepare_step,
    roulette, take_step,
};
use super::tally::{Tally, TallyBin};

/// Issue costs of the photon loop's regions, in instructions of the f32 path as compiled for
/// sm_90 (approximate: they weight the model's SIMD efficiency, they do not change results).
pub const MCML_REGIONS: LoopRegions = LoopRegions {
    condition: LoopRegion::Condition.region("step size (ln)", 40),
    taken: LoopRegion::Taken.region("boundary: hop, Fresnel, cross or reflect", 90),
    not_taken: LoopRegion::NotTaken.region("interaction: hop, drop, spin", 110),
    after_branch: LoopRegion::AfterBranch.region("roulette", 8),
    item: LoopRegion::Item.region("launch / retire photon", 30),
};

/// MCML over photons `0..n` with one seed: the kernel's data. Its [`BranchLoop`], whose state
/// is a [`Photon`], is [`McmlLoop::steps`].
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct McmlLoop<F> {
    /// The layers, grid and constants.
    pub params: McmlParams<F>,
    /// The run's seed: photon `i` draws from stream `(seed, i)`.
    pub seed: u64,
    /// Index of the photon that item 0 runs, so that a long run can go in batches (with
    /// progress between them) and still run exactly the photons of one long batch.
    pub first_photon: u64,
}

/// Forwards MCML's tally bins to a flat warp-program tally.
struct Flat<'t, T> {
    layout: super::tally::TallyLayout,
    tally: &'t mut T,
}

impl<T: WarpTally> Tally for Flat<'_, T> {
    #[inline(always)]
    fn add(&mut self, bin: TallyBin, amount: u64) {
        self.tally.add(self.layout.flat_index32(bin), amount);
    }
}

/// [`McmlLoop`] as the warp programs run it: the parameters through a [`StepView`], whose grid
/// and roulette constants a GPU keeps in registers, by value with the seed. Same photons,
/// same tallies.
#[derive(Clone, Copy, Debug)]
pub struct McmlSteps<'k, F> {
    /// The parameters, with the per-step constants by value.
    pub view: StepView<'k, F>,
    /// [`McmlLoop::seed`].
    pub seed: u64,
    /// [`McmlLoop::first_photon`].
    pub first_photon: u64,
}

impl<F: McmlFloat> McmlLoop<F> {
    /// The loop as the warp programs run it.
    #[inline(always)]
    pub fn steps(&self) -> McmlSteps<'_, F> {
        McmlSteps {
            view: StepView::new(&self.params),
            seed: self.seed,
            first_photon: self.first_photon,
        }
    }
}

impl<F: McmlFloat> McmlSteps<'_, F> {
    #[inline(always)]
    fn flat<'t, T: WarpTally>(&self, tally: &'t mut T) -> Flat<'t, T> {
        Flat {
            layout: self.view.layout(),
            tally,
        }
    }
}

impl<F: McmlFloat> BranchLoop for McmlSteps<'_, F> {
    type State = Photon<F>;
    /// Photons leave nothing per item: everything they do goes to the tallies.
    type Output = ();

    fn regions(&self) -> LoopRegions {
        MCML_REGIONS
    }

    fn tally_len(&self) -> usize {
        self.view.layout().len()
    }

    #[inline(always)]
    fn start(&self, item: u32) -> Photon<F> {
        launch(
            self.view.params(),
            self.seed,
            self.first_photon.wrapping_add(u64::from(item)),
        )
    }

    #[inline(always)]
    fn running(&self, photon: &Photon<F>) -> bool {
        alive(photon)
    }

    #[inline(always)]
    fn condition(&self, photon: &mut Photon<F>) -> bool {
        prepare_step(photon)
    }

    #[inline(always)]
    fn taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        boundary(&self.view, photon, &mut self.flat(tally));
    }

    #[inline(always)]
    fn not_taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        interact(&self.view, photon, &mut self.flat(tally));
    }

    #[inline(always)]
    fn after_branch<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        roulette(&self.view, photon, &mut self.flat(tally));
    }

    #[inline(always)]
    fn finish(&self, _photon: &Photon<F>) {}
}

/// The [`BranchLoop`] items a wrapper of [`McmlSteps`] (`Self(steps)`) takes from it
/// unchanged: the photon, its start, whether it runs, roulette after the branch.
macro_rules! same_as_steps {
    () => {
        type State = Photon<F>;
        type Output = ();

        fn regions(&self) -> LoopRegions {
            self.0.regions()
        }
        fn tally_len(&self) -> usize {
            self.0.tally_len()
        }
        #[inline(always)]
        fn start(&self, item: u32) -> Photon<F> {
            self.0.start(item)
        }
        #[inline(always)]
        fn running(&self, photon: &Photon<F>) -> bool {
            self.0.running(photon)
        }
        #[inline(always)]
        fn after_branch<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
            self.0.after_branch(photon, tally)
        }
        #[inline(always)]
        fn finish(&self, _photon: &Photon<F>) {}
    };
}

/// [`McmlSteps`] with the boundary path after branch distribution ([`boundary_distributed`],
/// seed 002 fig. 9). Same photons, same tallies, bit for bit.
#[derive(Clone, Copy, Debug)]
pub struct DistributedBoundary<'a, F>(pub McmlSteps<'a, F>);

impl<F: McmlFloat> BranchLoop for DistributedBoundary<'_, F> {
    same_as_steps!();

    #[inline(always)]
    fn condition(&self, photon: &mut Photon<F>) -> bool {
        self.0.condition(photon)
    }
    #[inline(always)]
    fn taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        boundary_distributed(&self.0.view, photon, &mut self.0.flat(tally));
    }
    #[inline(always)]
    fn not_taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        self.0.not_taken(photon, tally)
    }
}

/// [`DistributedBoundary`] with a boundary step's cut at the face, hop and draw moved from the
/// condition into the boundary path ([`choose_step`] / [`take_step`]), for collaborative
/// context collection: there the boundary path runs for a warp's worth of photons at once,
/// so the cut's division is issued with every lane busy instead of in a region a warp issues
/// whenever one of its lanes hits a face. Each path hops and draws its own copy, which a plain
/// loop would issue twice when its lanes diverge. Same photons, same tallies, bit for bit.
#[derive(Clone, Copy, Debug)]
pub struct CollectedBoundary<'a, F>(pub McmlSteps<'a, F>);

impl<F: McmlFloat> BranchLoop for CollectedBoundary<'_, F> {
    same_as_steps!();

    #[inline(always)]
    fn condition(&self, photon: &mut Photon<F>) -> bool {
        choose_step(photon)
    }
    #[inline(always)]
    fn taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        take_step(photon, true);
        boundary_distributed(&self.0.view, photon, &mut self.0.flat(tally));
    }
    #[inline(always)]
    fn not_taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        take_step(photon, false);
        self.0.not_taken(photon, tally)
    }
}

/// MCML as a [`Kernel`](reconverge_transforms::Kernel): every loop strategy of
/// [`BranchLoopKernel`] (baseline, iteration delaying, dynamic work assignment) on MCML's main
/// branch (seed 002 fig. 8), plus [`Strategy::BRANCH_DISTRIBUTION`] of the boundary path's
/// up/down branch (fig. 9).
///
/// The reference model sees the boundary path as one region either way (the up/down
/// divergence happens inside a lane's path); the GPU, where the two versions are different
/// code, shows the difference.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct McmlKernel<F>(pub McmlLoop<F>);

impl<F: McmlFloat> McmlKernel<F> {
    /// [`Kernel::dynamic_shared_bytes`](reconverge_transforms::Kernel::dynamic_shared_bytes)
    /// without a kernel: it depends on the strategy and the photon's size only, so a launch can
    /// be sized before the run's parameters are.
    pub fn dynamic_shared_bytes_for(strategy: &Strategy, threads_per_block: u32) -> u32 {
        if strategy.paths != PathSchedule::CollaborativeContextCollection {
            return 0;
        }
        let warps = threads_per_block.div_ceil(reconverge_simt::WARP_SIZE);
        u32::try_from(shared_bytes_per_warp::<Photon<F>>())
            .unwrap_or(u32::MAX)
            .saturating_mul(warps)
    }
}

/// One warp of [`McmlKernel`].
#[allow(clippy::large_enum_variant)]
pub enum McmlProgram<'k, W: Warp, F: McmlFloat> {
    /// MCML's boundary code as written.
    AsWritten(BranchLoopProgram<W, McmlSteps<'k, F>>),
    /// The boundary path after branch distribution.
    Distributed(BranchLoopProgram<W, DistributedBoundary<'k, F>>),
    /// Collaborative context collection: photons that reach a face wait on the warp's stack
    /// until a warp's worth of them cross together (the boundary written once for both faces).
    Collected(CollectionProgram<W, CollectedBoundary<'k, F>>),
}

reconverge_transforms::warp_program_enum!(
    #[inline(always)]
    impl<'k, W, F: McmlFloat> for McmlProgram -> () { AsWritten, Distributed, Collected }
    |program, warp, sink, tally| program.step(warp, sink, tally)
);

/// For the strategies that distribute the boundary path, the loop strategy that feeds the lanes
/// and picks which lanes run which path (the distributed boundary being the workload's); `None`
/// for the others, which run the boundary as written.
fn distributed_loop_strategy(strategy: &Strategy) -> Option<Strategy> {
    match strategy.paths {
        PathSchedule::BranchDistribution { delaying } => Some(Strategy::new(
            strategy.items,
            match delaying {
                Some(decision) => PathSchedule::IterationDelaying(decision),
                None => PathSchedule::AsWritten,
            },
        )),
        _ => None,
    }
}

reconverge_transforms::kernel_impl! {
    impl<F: McmlFloat> for McmlKernel -> () {
        type Program<'k, W> = McmlProgram<'k, W, F>;
        const SHAPE = "MCML photon loop";
        fn program(&self, warp, strategy, pass, task, _scratch) {
            check_pass(pass, 1)?;
            if strategy.paths == PathSchedule::CollaborativeContextCollection {
                let boundary = CollectedBoundary(self.0.steps());
                return CollectionProgram::new(warp, boundary, strategy.items, task)
                    .map(McmlProgram::Collected);
            }
            match distributed_loop_strategy(strategy) {
                Some(lanes) => {
                    let boundary = DistributedBoundary(self.0.steps());
                    BranchLoopProgram::for_strategy(warp, boundary, &lanes, task)
                        .map(McmlProgram::Distributed)
                }
                None => BranchLoopProgram::for_strategy(warp, self.0.steps(), strategy, task)
                    .map(McmlProgram::AsWritten),
            }
        }

        /// What MCML's benchmarks run: the loop strategies with seed 002's parameters (round robin
        /// 1:1 and majority vote 16 on static lanes; 4, 8 and round robin 3:1 with idle removal
        /// over dynamic work), branch distribution of the boundary path (fig. 9) on static and
        /// dynamic lanes, cost-balanced delaying of the boundary path over dynamic work, with the
        /// boundary as written and distributed, and dynamic work from one counter of the whole
        /// launch.
        const STRATEGIES: &'static [Strategy] = &[
            Strategy::BASELINE,
            Strategy::DYNAMIC_WORK_ASSIGNMENT,
            Strategy::iteration_delaying(Decision::majority_vote(16, true)),
            Strategy::iteration_delaying(Decision::round_robin(1, 1, false)),
            Strategy::iteration_delaying(Decision::round_robin(1, 1, true)),
            Strategy::BRANCH_DISTRIBUTION,
            Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
            Strategy::iteration_delaying(Decision::majority_vote(4, true)).over(Assignment::Dynamic),
            Strategy::iteration_delaying(Decision::majority_vote(8, true)).over(Assignment::Dynamic),
            Strategy::iteration_delaying(Decision::round_robin(3, 1, true)).over(Assignment::Dynamic),
            Strategy::iteration_delaying(Decision::CostBalanced).over(Assignment::Dynamic),
            Strategy::branch_distribution_with_delaying(Decision::CostBalanced).over(Assignment::Dynamic),
            Strategy::GRID_WIDE_DYNAMIC_WORK,
            Strategy::COLLABORATIVE_CONTEXT_COLLECTION.over(Assignment::GridWide),
            Strategy::speculative_reconvergence(16, 4).over(Assignment::GridWide),
        ];

        fn tally_len(&self) -> usize {
            self.0.params.layout().len()
        }

        fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
            let lanes = distributed_loop_strategy(strategy).unwrap_or(*strategy);
            BranchLoopKernel(self.0.steps()).passes(&lanes)
        }

        #[inline(always)]
        fn plain_items<T: reconverge_transforms::Tally>(
            &self,
            next: impl FnMut() -> Option<u32>,
            put: impl FnMut(u32, ()),
            tally: &mut T,
        ) -> bool {
            // One thread's photon loop, with the boundary code written once for both faces
            // ([`boundary_distributed`], the same bits as [`boundary`]): what a programmer
            // writing the loop by hand would write. A warp still issues the boundary path for
            // the lanes that hit a face, and up and down lanes now share one copy of it.
            BranchLoopKernel(DistributedBoundary(self.0.steps())).plain_items(next, put, tally)
        }

        /// The plain photon loop above: its boundary already writes the code both faces share
        /// once (fig. 9's distribution of the boundary, by hand), so branch distribution runs it
        /// too.
        #[inline(always)]
        fn distributed_items<T: reconverge_transforms::Tally>(
            &self,
            next: impl FnMut() -> Option<u32>,
            put: impl FnMut(u32, ()),
            tally: &mut T,
        ) -> bool {
            self.plain_items(next, put, tally)
        }

        /// Iteration delaying as each thread's photon loop with a warp vote at the step (seed
        /// 002 fig. 5 as a programmer writes it), over the plain loop above: the boundary
        /// written once for both faces, so branch distribution with delaying (§4.2.2's MCML
        /// setting) runs it too. Same photons, same tallies as the warp programs.
        fn delayed_items(&self, decision, lane, vote, next, put, tally) {
            BranchLoopKernel(DistributedBoundary(self.0.steps()))
                .delayed_items(decision, lane, vote, next, put, tally)
        }

        /// Speculative reconvergence (Damani et al., CGO 2020) as each thread's photon loop with
        /// a warp vote at the step: a lane whose step reaches a face waits there, while the
        /// others go on with their interactions, until `threshold` lanes wait or the oldest has
        /// waited `max_wait` steps; then the boundary path, written once for both faces, runs
        /// once for all of them. Same photons, same tallies as the plain loop.
        fn speculative_items(&self, threshold, max_wait, lane, vote, next, put, tally) {
            BranchLoopKernel(DistributedBoundary(self.0.steps()))
                .speculative_items(threshold, max_wait, lane, vote, next, put, tally)
        }

        fn collected_items(&self, lane, vote, stack, deal, put, tally) {
            BranchLoopKernel(CollectedBoundary(self.0.steps()))
                .collected_items(lane, vote, stack, deal, put, tally)
        }

        fn dynamic_shared_bytes(&self, strategy: &Strategy, threads_per_block: u32) -> u32 {
            Self::dynamic_shared_bytes_for(strategy, threads_per_block)
        }
    }
}
