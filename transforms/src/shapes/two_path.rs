//! The per-item two-path branch ([`TwoPath`]: seed 004 fig. 6/9, seed 001 fig. 6, GPU Gems 2
//! ch. 34): its kernel, its baseline, and the lane bookkeeping its strategies share. Each
//! strategy's own code and state live in its file under [`crate::strategies`].

use reconverge_simt::{LaneMask, Warp};

use crate::composition::PathSchedule;
use crate::io::{Sink, WarpTask};
use crate::kernel::check_pass;
use crate::scratch::DecisionMask;
use crate::shape::TwoPath;
use crate::strategies::Assignment;
use crate::strategies::branch_path_unification::BranchPathUnification;
use crate::strategies::branch_splitting::BranchSplitting;
use crate::strategies::predication::Predication;
use crate::strategies::static_branch_resolution::StaticBranchResolution;
use crate::strategies::z_cull_masking::{ZCullMask, ZCullPath};
use crate::strategy::{Strategy, StrategyError};

/// A [`TwoPath`] workload as a [`Kernel`](crate::Kernel).
///
/// | strategy | passes | what a warp does |
/// |---|---|---|
/// | [`Strategy::BASELINE`] | 1 | each lane runs items `t`, `t + threads_per_block`, … of its block's chunk; per item: `decide`, path A for the lanes that want it, path B for the others |
/// | [`Strategy::PREDICATION`] | 1 | as the baseline, but every live lane runs both paths and keeps one result (Gems 34.2.1) |
/// | [`Strategy::BRANCH_SPLITTING`] | 2 | pass 0 runs path A on the items that take it, pass 1 path B; lanes whose item takes the other path idle but still evaluate `decide` (seed 001 fig. 6b: each pass is a kernel of its own, compiled with its own register count) |
/// | [`Strategy::Z_CULL_MASKING`] | 3 | pass 0 evaluates `decide` for the baseline's items and stores it as a [`DecisionMask`] (one atomic OR per warp window, by the window's lowest lane); pass 1 runs path A and pass 2 path B on the items whose mask bit says so, each lane loading its bit; a window whose lanes all fail issues no path at all |
/// | [`Strategy::STATIC_BRANCH_RESOLUTION`] | 1 | compaction by predicate in the warp ([`crate::strategies::static_branch_resolution`]) |
/// | [`Strategy::branch_path_unification`] | 1 | seed 004 fig. 10 ([`crate::strategies::branch_path_unification`]) |
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct TwoPathKernel<P>(pub P);

/// What every lane of a two-path program carries, and `X`, what its strategy adds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PathLane<X> {
    pub lane: u32,
    /// The lane's current item (branch path unification: the first item of its group).
    pub item: u32,
    /// Whether `item` is in the block's chunk.
    pub has: bool,
    /// The current item's decision.
    pub dec: bool,
    /// The strategy's own per-lane state.
    pub own: X,
}

/// One warp's lanes walking the block's items, with the steps every two-path strategy is made
/// of.
pub(crate) struct PathWarp<W: Warp, P: TwoPath, X: Copy> {
    pub workload: P,
    pub task: WarpTask,
    pub lanes: W::V<PathLane<X>>,
    /// The warp's lanes (all of them take part in its votes: threads per block is a multiple
    /// of the warp width).
    pub all: LaneMask,
}

impl<W: Warp, P: TwoPath, X: Copy> PathWarp<W, P, X> {
    /// The lanes of a warp; `first(thread)` is the first item of the block's thread `thread`
    /// and the strategy's state of its lane.
    pub fn new(warp: &W, workload: P, task: WarpTask, first: impl Fn(u32) -> (u32, X)) -> Self {
        let width = warp.width();
        let lanes = warp.map(warp.lane_ids(), |lane| {
            let (item, own) = first(task.thread_in_block(lane, width));
            PathLane {
                lane,
                item,
                has: item < task.block_end,
                dec: false,
                own,
            }
        });
        Self {
            workload,
            task,
            lanes,
            all: warp.full_mask(),
        }
    }

    /// The lanes of a warp that start at the baseline's first items.
    pub fn block_stride(warp: &W, workload: P, task: WarpTask, own: X) -> Self {
        Self::new(warp, workload, task, |thread| {
            (task.block_start.saturating_add(thread), own)
        })
    }

    /// Lanes whose current item is in the block's chunk.
    pub fn live(&mut self, warp: &mut W) -> LaneMask {
        let has = warp.map_ref(&self.lanes, |l| l.has);
        warp.ballot(self.all, has)
    }

    /// Evaluates `decide` for the lanes of `live`; returns the lanes whose item takes path A.
    pub fn decide(&mut self, warp: &mut W, live: LaneMask) -> LaneMask {
        let w = &self.workload;
        warp.branch(w.regions().decide, live, &mut self.lanes, |l| {
            l.dec = w.decide(l.item)
        });
        let dec = warp.map_ref(&self.lanes, |l| l.dec);
        warp.ballot(live, dec)
    }

    /// Moves the lanes of `mask` to their next block-stride item.
    pub fn advance(&mut self, warp: &mut W, mask: LaneMask) {
        let task = self.task;
        let stride = task.threads_per_block.max(1);
        warp.branch(self.workload.regions().item, mask, &mut self.lanes, |l| {
            l.item = l.item.saturating_add(stride);
            l.has = l.item < task.block_end;
        });
    }

    /// Runs path A (`a`) or B on the item held by each lane of `mask` (`pick` chooses which
    /// field holds it) and stores the outputs.
    pub fn run_path<S: Sink<P::Output>>(
        &mut self,
        warp: &mut W,
        a: bool,
        mask: LaneMask,
        pick: impl Fn(&PathLane<X>) -> u32,
        sink: &mut S,
    ) {
        let w = &self.workload;
        let regions = w.regions();
        if a {
            warp.branch(regions.path_a, mask, &mut self.lanes, |l| {
                let item = pick(l);
                sink.put(item, w.path_a(item));
            });
        } else {
            warp.branch(regions.path_b, mask, &mut self.lanes, |l| {
                let item = pick(l);
                sink.put(item, w.path_b(item));
            });
        }
    }
}

/// One warp running a [`TwoPath`] workload under one strategy: the program of one pass of
/// the strategy's technique.
pub enum TwoPathProgram<'s, W: Warp, P: TwoPath> {
    /// [`Strategy::BASELINE`].
    Baseline(TwoPathBaseline<W, P>),
    /// [`Strategy::PREDICATION`].
    Predication(Predication<W, P>),
    /// A pass of [`Strategy::BRANCH_SPLITTING`].
    BranchSplitting(BranchSplitting<W, P>),
    /// [`Strategy::Z_CULL_MASKING`]'s mask pass.
    ZCullMask(ZCullMask<'s, W, P>),
    /// A path pass of [`Strategy::Z_CULL_MASKING`].
    ZCullPath(ZCullPath<'s, W, P>),
    /// [`Strategy::STATIC_BRANCH_RESOLUTION`].
    StaticBranchResolution(StaticBranchResolution<W, P>),
    /// [`Strategy::branch_path_unification`].
    BranchPathUnification(BranchPathUnification<W, P>),
}

crate::warp_program_enum!(
    impl<'s, W, P: TwoPath> for TwoPathProgram -> P::Output {
        Baseline,
        Predication,
        BranchSplitting,
        ZCullMask,
        ZCullPath,
        StaticBranchResolution,
        BranchPathUnification,
    }
    |program, warp, sink, _tally| program.step(warp, sink)
);

/// One warp of [`Strategy::BASELINE`] on a [`TwoPath`].
pub struct TwoPathBaseline<W: Warp, P: TwoPath>(PathWarp<W, P, ()>);

impl<W: Warp, P: TwoPath> TwoPathBaseline<W, P> {
    /// The code as written: per item, `decide`, then each path for the lanes that take it.
    fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        let p = &mut self.0;
        let live = p.live(warp);
        if live == 0 {
            return false;
        }
        let want = p.decide(warp, live);
        p.run_path(warp, true, want, |l| l.item, sink);
        p.run_path(warp, false, live & !want, |l| l.item, sink);
        p.advance(warp, live);
        true
    }
}

/// Which program a strategy's pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Baseline,
    Predication,
    /// Branch splitting: the pass that runs path A (`true`) or path B.
    Split(bool),
    /// Z-cull masking, pass 0: store the decisions.
    ZMask,
    /// Z-cull masking, passes 1 and 2: path A (`true`) or path B where the mask lets through.
    ZPath(bool),
    Compact,
    Unify(u32),
}

crate::kernel_impl! {
    impl<P: TwoPath + Copy> for TwoPathKernel -> P::Output {
        type Program<'k, W> = TwoPathProgram<'k, W, &'k P>;
        const SHAPE = "two-path branch";
        fn program(&self, warp, strategy, pass, task, scratch) {
            check_pass(pass, self.passes(strategy)?)?;
            let w = &self.0;
            let mask = DecisionMask::new(scratch);
            // rustfmt does not wrap inside the macro: a short name keeps the arms on the line.
            use TwoPathProgram as P;
            Ok(match mode_of(strategy, pass)? {
                Mode::Baseline => {
                    P::Baseline(TwoPathBaseline(PathWarp::block_stride(warp, w, task, ())))
                }
                Mode::Predication => P::Predication(Predication::new(warp, w, task)),
                Mode::Split(a) => P::BranchSplitting(BranchSplitting::new(warp, w, task, a)),
                Mode::ZMask => P::ZCullMask(ZCullMask::new(warp, w, task, mask)),
                Mode::ZPath(a) => P::ZCullPath(ZCullPath::new(warp, w, task, mask, a)),
                Mode::Compact => {
                    P::StaticBranchResolution(StaticBranchResolution::new(warp, w, task))
                }
                Mode::Unify(n) => {
                    P::BranchPathUnification(BranchPathUnification::new(warp, w, task, n))
                }
            })
        }

        // Branch path unification at 16 items per thread, one of seed 004 table 4's DATA_PER_THREAD
        // values (1, 4, 16, 64) and the first at which it clearly gains (66.6 % useful lanes
        // against 50 %) without needing 64 items per thread.
        const STRATEGIES: &'static [Strategy] = &[
            Strategy::BASELINE,
            Strategy::PREDICATION,
            Strategy::STATIC_BRANCH_RESOLUTION,
            Strategy::BRANCH_SPLITTING,
            Strategy::Z_CULL_MASKING,
            Strategy::branch_path_unification(16),
        ];

        fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
            mode_of(strategy, 0).map(|_| match *strategy {
                Strategy::BRANCH_SPLITTING => 2,
                Strategy::Z_CULL_MASKING => 3,
                _ => 1,
            })
        }

        fn plain_items(&self, mut next, mut put, _tally) {
            while let Some(item) = next() {
                put(item, self.0.run_item(item));
            }
            true
        }

        #[inline(always)]
        fn unified_items<T: crate::Tally>(
            &self,
            groups: impl FnMut() -> Option<(u32, u32)>,
            put: impl FnMut(u32, P::Output),
            _tally: &mut T,
        ) -> bool {
            crate::strategies::branch_path_unification::unified_groups(&self.0, groups, put);
            true
        }

        fn scratch_words(&self, strategy: &Strategy, items: u32) -> usize {
            match *strategy {
                Strategy::Z_CULL_MASKING => DecisionMask::words_for(items),
                _ => 0,
            }
        }

        fn pass_as_lane(&self, strategy, pass, lane, vote, task, scratch, put, _tally) {
            match *strategy {
                Strategy::Z_CULL_MASKING if pass <= 2 => {
                    let mask = DecisionMask::new(scratch);
                    crate::strategies::z_cull_masking::pass_as_lane(
                        &self.0, pass, lane, vote, task, mask, put,
                    );
                    true
                }
                Strategy::BRANCH_SPLITTING if pass <= 1 => {
                    crate::strategies::branch_splitting::pass_as_lane(&self.0, pass, lane, task, put);
                    true
                }
                _ => false,
            }
        }
    }
}

fn mode_of(strategy: &Strategy, pass: u32) -> Result<Mode, StrategyError> {
    match *strategy {
        Strategy::BASELINE => Ok(Mode::Baseline),
        Strategy::PREDICATION => Ok(Mode::Predication),
        Strategy::BRANCH_SPLITTING => Ok(Mode::Split(pass == 0)),
        Strategy::Z_CULL_MASKING => Ok(match pass {
            0 => Mode::ZMask,
            p => Mode::ZPath(p == 1),
        }),
        Strategy::STATIC_BRANCH_RESOLUTION => Ok(Mode::Compact),
        Strategy {
            items: Assignment::Static,
            paths: PathSchedule::BranchPathUnification { items_per_thread },
        } => StrategyError::at_least_one("items_per_thread", items_per_thread).map(Mode::Unify),
        other => Err(StrategyError::not_applicable(other, "two-path branch")),
    }
}
