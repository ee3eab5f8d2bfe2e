//! Strategies as plain values, so that benches and command lines can loop over them.

use crate::composition::{CompositionError, PathSchedule};
use crate::strategies::Assignment;

/// How a warp runs a divergent workload: how its lanes get items ([`Assignment`]) times how it
/// schedules the divergent paths of those items ([`PathSchedule`]). The two are independent:
/// iteration delaying over a block's counter is `Strategy::iteration_delaying(d)
/// .over(Assignment::Dynamic)`, not a technique of its own, and every schedule of a loop pairs
/// with every assignment. [`Strategy::pairing`] says whether some program implements a pair
/// (the per-item and multi-pass techniques take static assignment),
/// [`crate::Kernel::passes`] whether a workload's shape runs it.
///
/// The constants and constructors name the papers' techniques over static assignment (their
/// docs, on [`PathSchedule`]'s variants, say which figure each implements and when it helps).
///
/// ```
/// use reconverge_transforms::{Assignment, Decision, PathSchedule, Strategy};
///
/// let mcml = Strategy::branch_distribution_with_delaying(Decision::CostBalanced)
///     .over(Assignment::Dynamic);
/// assert_eq!(mcml.items, Assignment::Dynamic);
/// assert_eq!(mcml.paths.decision(), Some(Decision::CostBalanced));
/// assert_eq!(Strategy::BASELINE.over(Assignment::GridWide), Strategy::GRID_WIDE_DYNAMIC_WORK);
/// assert_eq!(Strategy::new(Assignment::Static, PathSchedule::AsWritten), Strategy::BASELINE);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// How a lane whose item has finished gets its next one.
    pub items: Assignment,
    /// How a warp schedules the divergent paths of its lanes' items.
    pub paths: PathSchedule,
}

impl Strategy {
    /// The pair `(items, paths)`, whether or not a program implements it
    /// ([`Strategy::pairing`]; a backend refuses one that none does with a typed error).
    pub const fn new(items: Assignment, paths: PathSchedule) -> Self {
        Self { items, paths }
    }

    /// `paths` over static assignment.
    pub const fn of(paths: PathSchedule) -> Self {
        Self::new(Assignment::Static, paths)
    }

    /// The same path schedule with its items dealt by `items`.
    #[must_use]
    pub const fn over(self, items: Assignment) -> Self {
        Self::new(items, self.paths)
    }

    /// The code as written, items dealt statically: the reference every other strategy must
    /// match ([`PathSchedule::AsWritten`]). Every shape.
    pub const BASELINE: Self = Self::of(PathSchedule::AsWritten);
    /// The code as written, a lane whose item finishes taking the next item of its block from
    /// a block-shared counter (seed 004 §3.1, fig. 5; [`Assignment::Dynamic`]). Helps loops
    /// whose trip counts vary; costs one shared atomic per refill.
    pub const DYNAMIC_WORK_ASSIGNMENT: Self = Self::BASELINE.over(Assignment::Dynamic);
    /// The code as written over one counter for the whole launch ([`Assignment::GridWide`]):
    /// the persistent-threads kernel with a global work queue, which keeps every
    /// multiprocessor busy to the end when costly items cluster. Costs a global atomic per
    /// refill.
    pub const GRID_WIDE_DYNAMIC_WORK: Self = Self::BASELINE.over(Assignment::GridWide);
    /// The code as written over thread-data remapping ([`Assignment::Remapped`], Zhang et al.,
    /// G-Streamline, ASPLOS 2011): items regrouped by a per-item key so that a warp's lanes
    /// run alike work. Costs a permutation pass and a load per item.
    pub const THREAD_DATA_REMAPPING: Self = Self::BASELINE.over(Assignment::Remapped);
    /// [`PathSchedule::Predication`] (GPU Gems 2 §34.2.1).
    pub const PREDICATION: Self = Self::of(PathSchedule::Predication);
    /// [`PathSchedule::StaticBranchResolution`] (GPU Gems 2 §34.2.2–34.2.3).
    pub const STATIC_BRANCH_RESOLUTION: Self = Self::of(PathSchedule::StaticBranchResolution);
    /// [`PathSchedule::BranchSplitting`] (seed 001 §4.2).
    pub const BRANCH_SPLITTING: Self = Self::of(PathSchedule::BranchSplitting);
    /// [`PathSchedule::ZCullMasking`] (GPU Gems 2 §34.2.3).
    pub const Z_CULL_MASKING: Self = Self::of(PathSchedule::ZCullMasking);
    /// [`PathSchedule::LoopSplitting`] (seed 001 §4.1).
    pub const LOOP_SPLITTING: Self = Self::of(PathSchedule::LoopSplitting);
    /// [`PathSchedule::BranchDistribution`] without delaying (seed 002 §3.2).
    pub const BRANCH_DISTRIBUTION: Self =
        Self::of(PathSchedule::BranchDistribution { delaying: None });

    /// [`PathSchedule::IterationDelaying`] by `decision` (seed 002 §3.1).
    pub const fn iteration_delaying(decision: Decision) -> Self {
        Self::of(PathSchedule::IterationDelaying(decision))
    }

    /// [`PathSchedule::BranchDistribution`] whose divergent parts are iteration-delayed by
    /// `decision` (seed 002 §4.2.2, MCML).
    pub const fn branch_distribution_with_delaying(decision: Decision) -> Self {
        Self::of(PathSchedule::BranchDistribution {
            delaying: Some(decision),
        })
    }

    /// [`PathSchedule::OcclusionQueryLoop`] of `iterations_per_pass` (GPU Gems 2 §34.3).
    pub const fn occlusion_query_loop(iterations_per_pass: u32) -> Self {
        Self::of(PathSchedule::OcclusionQueryLoop {
            iterations_per_pass,
        })
    }

    /// [`PathSchedule::SpeculativeReconvergence`] releasing the block at `threshold` waiting
    /// lanes or after `max_wait` iterations (Damani et al., CGO 2020).
    pub const fn speculative_reconvergence(threshold: u32, max_wait: u32) -> Self {
        Self::of(PathSchedule::SpeculativeReconvergence {
            threshold,
            max_wait,
        })
    }

    /// [`PathSchedule::CollaborativeContextCollection`] over static assignment (Khorasani et
    /// al., MICRO 2015).
    pub const COLLABORATIVE_CONTEXT_COLLECTION: Self =
        Self::of(PathSchedule::CollaborativeContextCollection);

    /// [`PathSchedule::BranchPathUnification`] of `items_per_thread` (seed 004 §3.2).
    pub const fn branch_path_unification(items_per_thread: u32) -> Self {
        Self::of(PathSchedule::BranchPathUnification { items_per_thread })
    }

    /// The path schedule's iteration-delaying decision, if it delays.
    pub const fn decision(&self) -> Option<Decision> {
        self.paths.decision()
    }
}

/// Which path an iteration-delaying warp runs in each iteration (seed 002 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run the taken path when at least `threshold` lanes want it (`__popc(__ballot(cond)) >=
    /// thresh`, fig. 5a), the other path otherwise. Can starve lanes on a cold path (fig. 3);
    /// with `stop_when_a_lane_finishes` the warp stops delaying once any lane has run out of
    /// work, as the paper's anti-starvation rule does.
    MajorityVote {
        /// Lanes that must want the taken path for the warp to take it (16 of 32 is "half").
        threshold: u32,
        /// Turn delaying off once a lane has finished all its work.
        stop_when_a_lane_finishes: bool,
    },
    /// Alternate the path: `num_zeros` iterations of the not-taken path, then `num_ones` of
    /// the taken path (fig. 5b; the duty cycle is num_zeros / (num_zeros + num_ones)). With
    /// `remove_idle`, a direction no lane wants is flipped (`cond ? __any : __all`), which saves
    /// idle iterations at the cost of one vote per iteration.
    RoundRobin {
        /// Consecutive iterations on the not-taken (else) path.
        num_zeros: u32,
        /// Consecutive iterations on the taken (if) path.
        num_ones: u32,
        /// Flip a direction no lane wants.
        remove_idle: bool,
    },
    /// Delay only the taken path, and for no longer than waiting costs as much as issuing it:
    /// the not-taken path runs in every iteration, the lanes that want the taken path wait,
    /// and the taken path runs for all of them once the lane-iterations spent waiting since it
    /// last ran reach `B`, its cost in lane-iterations (its region cost times the warp width,
    /// over the cost of the rest of an iteration). A rent-or-buy rule: idling costs a lane one
    /// lane-iteration per iteration, an issue costs `B` whoever runs it, and between two
    /// issues the warp never idles more than one issue costs. A frequent taken path gathers
    /// several lanes per issue (MCML's boundary on skin, about 4); the taken path also runs
    /// whenever no lane wants the other one, so no lane waits for ever. Not in seed 002,
    /// whose decisions run one path per iteration: this one keeps the common path running and
    /// batches only the rare one. Measured on an H100 (MCML, with branch distribution over
    /// dynamic work): 1.10x on skin, 0.95x on the slab, whose photons seem to meet the surface
    /// in bursts (`docs/results/mcml/README.md`).
    CostBalanced,
}

impl Decision {
    /// [`Decision::MajorityVote`], for strategy lists that would otherwise spell out the
    /// variant's fields for every entry.
    pub const fn majority_vote(threshold: u32, stop_when_a_lane_finishes: bool) -> Self {
        Decision::MajorityVote {
            threshold,
            stop_when_a_lane_finishes,
        }
    }

    /// [`Decision::RoundRobin`]: `num_zeros:num_ones`, as [`Decision`]'s `Display` writes it.
    pub const fn round_robin(num_zeros: u32, num_ones: u32, remove_idle: bool) -> Self {
        Decision::RoundRobin {
            num_zeros,
            num_ones,
            remove_idle,
        }
    }

    /// Whether `self` and `other` are the same kind of decision with the same switches
    /// (`stop_when_a_lane_finishes`, `remove_idle`), whatever their numbers: the switches
    /// choose code (a check or a vote in every iteration), the numbers only values in it.
    pub const fn same_code(&self, other: &Decision) -> bool {
        match (*self, *other) {
            (
                Decision::MajorityVote {
                    stop_when_a_lane_finishes: a,
                    ..
                },
                Decision::MajorityVote {
                    stop_when_a_lane_finishes: b,
                    ..
                },
            ) => a == b,
            (
                Decision::RoundRobin { remove_idle: a, .. },
                Decision::RoundRobin { remove_idle: b, .. },
            ) => a == b,
            (Decision::CostBalanced, Decision::CostBalanced) => true,
            _ => false,
        }
    }

    /// The decision's numbers as [`StrategyParameters`]' words.
    const fn parameters(&self) -> [u32; 3] {
        match *self {
            Decision::MajorityVote { threshold, .. } => [threshold, 0, 0],
            Decision::RoundRobin {
                num_zeros,
                num_ones,
                ..
            } => [num_zeros, num_ones, 0],
            Decision::CostBalanced => [0; 3],
        }
    }

    /// The same decision, switches included, with the numbers `a, b` (as
    /// [`Decision::parameters`]).
    #[inline(always)]
    const fn with_parameters(self, a: u32, b: u32) -> Decision {
        match self {
            Decision::MajorityVote {
                stop_when_a_lane_finishes,
                ..
            } => Decision::MajorityVote {
                threshold: a,
                stop_when_a_lane_finishes,
            },
            Decision::RoundRobin { remove_idle, .. } => Decision::RoundRobin {
                num_zeros: a,
                num_ones: b,
                remove_idle,
            },
            Decision::CostBalanced => Decision::CostBalanced,
        }
    }
}

/// A strategy's numbers as three words, which a GPU entry point can take as a kernel argument so
/// that one entry point per technique serves every value ([`Strategy::parameters`],
/// [`Strategy::with_parameters`]). The switches (`stop_when_a_lane_finishes`, `remove_idle`)
/// are not numbers but code, compiled into the entry point with the technique: as kernel
/// arguments they cost SYN-ITDELAY's and Collatz's vote kernels 3-6 % on an H100. Which word is
/// which:
///
/// | strategy | word 0 | word 1 | word 2 |
/// |---|---|---|---|
/// | a [`Decision::MajorityVote`] | `threshold` | 0 | 0 |
/// | a [`Decision::RoundRobin`] | `num_zeros` | `num_ones` | 0 |
/// | [`PathSchedule::OcclusionQueryLoop`] | `iterations_per_pass` | 0 | 0 |
/// | [`PathSchedule::BranchPathUnification`] | `items_per_thread` | 0 | 0 |
/// | [`PathSchedule::SpeculativeReconvergence`] | `threshold` | `max_wait` | 0 |
/// | any other | 0 | 0 | 0 |
///
/// Word 2 is room for a technique with three numbers; no technique uses it yet.
/// `#[repr(C)]`: the host copies it into the launch's arguments byte for byte.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StrategyParameters {
    /// The words, as the table says.
    pub words: [u32; 3],
}

impl Strategy {
    /// Whether no two lanes of a warp ever need to agree under this strategy: each thread's
    /// items and results are its own, whatever the others do (the paths as written and branch
    /// distribution without delaying, a rewriting of each thread's own code, under any
    /// assignment). The CUDA backend runs such a strategy as the plain loop of one thread
    /// ([`crate::Kernel::plain_items`], [`crate::Kernel::distributed_items`], or the kernel's
    /// program on a warp of one lane, `reconverge_simt::ThreadWarp`, where it has no plain
    /// form), leaving divergence to the hardware: no votes, no lane masks, the code a CUDA
    /// programmer writes by hand. The others are warp-level algorithms (the warp decides
    /// together which path to issue).
    pub const fn runs_per_thread(&self) -> bool {
        matches!(
            self.paths,
            PathSchedule::AsWritten | PathSchedule::BranchDistribution { delaying: None }
        )
    }

    /// Whether the CUDA backend runs this warp-level strategy's program on warps of one lane:
    /// each thread its own loop over its own items, the hardware reconverging the warp's lanes
    /// where their paths meet. Branch path unification (seed 004 fig. 10) is such a strategy:
    /// its lanes only scan their own groups for their next item of each path and never vote,
    /// so the kernel a programmer writes from the figure is each thread's loop, and the lanes
    /// that found an item of path A run it together after their scans. The warp program of 32
    /// lanes (the CPU backend's, the model's) computes the same outputs.
    pub const fn runs_as_thread_program(&self) -> bool {
        matches!(self.paths, PathSchedule::BranchPathUnification { .. })
    }

    /// Whether lanes take their next item from a counter (of the block or of the grid) rather
    /// than from a fixed stride: such a strategy balances the load itself, and a launch of one
    /// resident wave of blocks suits it.
    pub const fn deals_dynamically(&self) -> bool {
        matches!(self.items, Assignment::Dynamic | Assignment::GridWide)
    }

    /// Whether items move between blocks at run time ([`Assignment::GridWide`]): which warp
    /// runs which item then depends on the order in which blocks run, so the outputs are fixed
    /// but the SIMT counters differ from run to run.
    pub const fn deals_across_blocks(&self) -> bool {
        matches!(self.items, Assignment::GridWide)
    }

    /// Whether `self` and `other` are the same technique, whatever their parameters (a
    /// majority vote of 8 and one of 16 are): the same assignment and the same kind of path
    /// schedule ([`PathSchedule::same_kind`]). A `const fn`, so that an entry-point list can
    /// check its strategies at compile time.
    pub const fn same_kind(&self, other: &Strategy) -> bool {
        self.items as u8 == other.items as u8 && self.paths.same_kind(&other.paths)
    }

    /// Whether `self` and `other` compile to the same code: the same technique
    /// ([`Strategy::same_kind`]) and, where a [`Decision`] picks the path, the same kind of
    /// decision with the same switches (a majority vote of 8 and one of 16 that both stop when
    /// a lane finishes are; a vote and a round robin are not, nor a round robin with idle
    /// removal and one without). Such strategies differ only in their
    /// [`Strategy::parameters`], which a GPU entry point takes at run time, so one entry point
    /// serves them all: `a.same_technique(&b)` is `a.with_parameters(b.parameters()) == b`.
    pub const fn same_technique(&self, other: &Strategy) -> bool {
        if !self.same_kind(other) {
            return false;
        }
        match (self.decision(), other.decision()) {
            (Some(a), Some(b)) => a.same_code(&b),
            _ => true,
        }
    }

    /// Whether the technique has numbers at all ([`Strategy::parameters`]): a vote's
    /// threshold, a round robin's cycle, an occlusion query's iterations per pass, path
    /// unification's items per thread. Two strategies of a technique without numbers are
    /// equal; a GPU entry point compiles such a technique once, with no numbers to take.
    pub const fn has_parameters(&self) -> bool {
        match self.paths {
            PathSchedule::OcclusionQueryLoop { .. }
            | PathSchedule::BranchPathUnification { .. }
            | PathSchedule::SpeculativeReconvergence { .. } => true,
            _ => match self.decision() {
                Some(d) => !matches!(d, Decision::CostBalanced),
                None => false,
            },
        }
    }

    /// The strategy's numbers, as the words a GPU entry point takes at run time (see
    /// [`StrategyParameters`] for which word is which); all zero for a strategy without any.
    pub const fn parameters(&self) -> StrategyParameters {
        let words = match self.paths {
            PathSchedule::OcclusionQueryLoop {
                iterations_per_pass,
            } => [iterations_per_pass, 0, 0],
            PathSchedule::BranchPathUnification { items_per_thread } => [items_per_thread, 0, 0],
            PathSchedule::SpeculativeReconvergence {
                threshold,
                max_wait,
            } => [threshold, max_wait, 0],
            _ => match self.decision() {
                Some(d) => d.parameters(),
                None => [0; 3],
            },
        };
        StrategyParameters { words }
    }

    /// The same technique ([`Strategy::same_technique`]: assignment, schedule, kind of
    /// decision and its switches) with the numbers `parameters`: what a GPU entry point
    /// compiled for `self` runs when the host passes `parameters`. Built field by field, so
    /// that in an entry point, where `self` is a constant, the technique is compiled in and
    /// only the numbers come from the launch.
    #[inline(always)]
    pub const fn with_parameters(self, parameters: StrategyParameters) -> Strategy {
        let [a, b, _] = parameters.words;
        let paths = match self.paths {
            PathSchedule::IterationDelaying(d) => {
                PathSchedule::IterationDelaying(d.with_parameters(a, b))
            }
            PathSchedule::BranchDistribution { delaying: Some(d) } => {
                PathSchedule::BranchDistribution {
                    delaying: Some(d.with_parameters(a, b)),
                }
            }
            PathSchedule::OcclusionQueryLoop { .. } => PathSchedule::OcclusionQueryLoop {
                iterations_per_pass: a,
            },
            PathSchedule::BranchPathUnification { .. } => PathSchedule::BranchPathUnification {
                items_per_thread: a,
            },
            PathSchedule::SpeculativeReconvergence { .. } => {
                PathSchedule::SpeculativeReconvergence {
                    threshold: a,
                    max_wait: b,
                }
            }
            other => other,
        };
        Strategy::new(self.items, paths)
    }

    /// Items each thread owns at once: [`PathSchedule::BranchPathUnification`]'s
    /// `items_per_thread`, 1 for every other strategy.
    pub const fn items_per_thread(&self) -> u32 {
        match self.paths {
            PathSchedule::BranchPathUnification { items_per_thread } => items_per_thread,
            _ => 1,
        }
    }

    /// A short name for tables and file names: the schedule's (and, where a decision picks
    /// the path, the decision's kind), then `-dynamic` or `-grid-wide` for a counter's
    /// dealing. The paths as written keep their own names (`baseline`,
    /// `dynamic-work-assignment`, `grid-wide-dynamic-work`). Unlike `Display`, it leaves out
    /// the numbers.
    pub fn name(&self) -> &'static str {
        // `$base` with the assignment's suffix.
        macro_rules! over {
            ($base:expr) => {
                match self.items {
                    Assignment::Static => $base,
                    Assignment::Dynamic => concat!($base, "-dynamic"),
                    Assignment::GridWide => concat!($base, "-grid-wide"),
                    Assignment::Remapped => concat!($base, "-remapped"),
                }
            };
        }
        // A schedule built on a decision: `$prefix`, the decision's kind, the suffix.
        macro_rules! decision_name {
            ($d:expr, $prefix:literal) => {
                match $d {
                    Decision::MajorityVote { .. } => over!(concat!($prefix, "majority-vote")),
                    Decision::RoundRobin {
                        remove_idle: false, ..
                    } => over!(concat!($prefix, "round-robin")),
                    Decision::RoundRobin {
                        remove_idle: true, ..
                    } => over!(concat!($prefix, "round-robin-idle-removal")),
                    Decision::CostBalanced => over!(concat!($prefix, "cost-balanced")),
                }
            };
        }
        match self.paths {
            PathSchedule::AsWritten => match self.items {
                Assignment::Static => "baseline",
                Assignment::Dynamic => "dynamic-work-assignment",
                Assignment::GridWide => "grid-wide-dynamic-work",
                Assignment::Remapped => "thread-data-remapping",
            },
            PathSchedule::Predication => over!("predication"),
            PathSchedule::StaticBranchResolution => over!("static-branch-resolution"),
            PathSchedule::BranchSplitting => over!("branch-splitting"),
            PathSchedule::ZCullMasking => over!("z-cull-masking"),
            PathSchedule::LoopSplitting => over!("loop-splitting"),
            PathSchedule::IterationDelaying(d) => decision_name!(d, "delaying-"),
            PathSchedule::BranchDistribution { delaying: None } => over!("branch-distribution"),
            PathSchedule::BranchDistribution { delaying: Some(d) } => {
                decision_name!(d, "branch-distribution-")
            }
            PathSchedule::OcclusionQueryLoop { .. } => over!("occlusion-query-loop"),
            PathSchedule::BranchPathUnification { .. } => over!("branch-path-unification"),
            PathSchedule::SpeculativeReconvergence { .. } => over!("speculative-reconvergence"),
            PathSchedule::CollaborativeContextCollection => {
                over!("collaborative-context-collection")
            }
        }
    }
}

/// The strategy with every parameter, for people: `iteration delaying, majority vote,
/// threshold 8, stop when a lane finishes`, then `, over dynamic work assignment` (or `, over
/// dynamic work assignment, one grid-wide counter`) where a counter deals the items. Unlike
/// [`Strategy::name`], which is short and meant for file names, two different strategies never
/// print the same text, so tables and error messages can tell apart runs that differ only in
/// a parameter.
impl core::fmt::Display for Strategy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.paths, self.items) {
            // The papers' names for the code as written under each assignment.
            (PathSchedule::AsWritten, Assignment::Static) => f.write_str("baseline"),
            (PathSchedule::AsWritten, items) => write!(f, "{items}"),
            (paths, Assignment::Static) => write!(f, "{paths}"),
            (paths, items) => write!(f, "{paths}, over {items}"),
        }
    }
}

/// The decision with its parameters: `majority vote, threshold 8, stop when a lane
/// finishes`, or `round robin 3:1, idle removal` (`num_zeros:num_ones`, else iterations first,
/// as in seed 002 fig. 5b).
impl core::fmt::Display for Decision {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Each decision writes its parameters, then names its flag when the flag is on.
        let (flag, flag_name) = match *self {
            Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes: stop,
            } => {
                write!(f, "majority vote, threshold {threshold}")?;
                (stop, ", stop when a lane finishes")
            }
            Decision::RoundRobin {
                num_zeros: zeros,
                num_ones: ones,
                remove_idle,
            } => {
                write!(f, "round robin {zeros}:{ones}")?;
                (remove_idle, ", idle removal")
            }
            Decision::CostBalanced => {
                f.write_str("cost-balanced")?;
                (false, "")
            }
        };
        if flag {
            f.write_str(flag_name)?;
        }
        Ok(())
    }
}

/// Why a strategy cannot run a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrategyError {
    /// The workload's shape has no code for this strategy (say, iteration delaying on a
    /// workload without a loop).
    NotApplicable {
        /// The strategy asked for.
        strategy: Strategy,
        /// The shape of the workload.
        shape: &'static str,
    },
    /// A parameter is out of range.
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// What it must satisfy.
        requirement: &'static str,
    },
    /// A pairing of assignment and path schedule that no program implements
    /// ([`Strategy::pairing`]), with the assignments the schedule pairs with.
    Unpaired(CompositionError),
    /// A pass index at or beyond the strategy's pass count.
    NoSuchPass {
        /// The pass asked for.
        pass: u32,
        /// Passes the strategy has.
        passes: u32,
    },
    /// Thread-data remapping ([`Assignment::Remapped`]) on a workload that gives no key to
    /// group its items by (a [`crate::BranchLoop`] whose
    /// [`REMAP_BUCKETS`](crate::BranchLoop::REMAP_BUCKETS) is 0, or another shape).
    NoRemapKey {
        /// The strategy asked for.
        strategy: Strategy,
        /// The shape of the workload.
        shape: &'static str,
    },
}

impl StrategyError {
    /// [`StrategyError::NotApplicable`]: `shape` has no code for `strategy`; or
    /// [`StrategyError::Unpaired`] where no program of any shape pairs the strategy's
    /// assignment with its schedule, which says more.
    pub const fn not_applicable(strategy: Strategy, shape: &'static str) -> Self {
        match strategy.pairing() {
            Err(e) => StrategyError::Unpaired(e),
            Ok(()) => StrategyError::NotApplicable { strategy, shape },
        }
    }

    /// A count parameter (items per thread, iterations per pass) that must be at least 1:
    /// `count`, or [`StrategyError::InvalidParameter`] naming it.
    pub const fn at_least_one(name: &'static str, count: u32) -> Result<u32, Self> {
        if count == 0 {
            Err(StrategyError::InvalidParameter {
                name,
                requirement: "at least 1",
            })
        } else {
            Ok(count)
        }
    }
}

impl core::fmt::Display for StrategyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StrategyError::NotApplicable { strategy, shape } => {
                write!(
                    f,
                    "strategy {strategy} does not apply to a {shape} workload"
                )
            }
            StrategyError::Unpaired(e) => write!(f, "{e}"),
            StrategyError::InvalidParameter { name, requirement } => {
                write!(f, "parameter {name} must be {requirement}")
            }
            StrategyError::NoSuchPass { pass, passes } => {
                write!(
                    f,
                    "pass {pass} does not exist: the strategy has {passes} passes"
                )
            }
            StrategyError::NoRemapKey { strategy, shape } => write!(
                f,
                "strategy {strategy} needs a per-item key to group items by, and this {shape} \
                 workload gives none (BranchLoop::REMAP_BUCKETS is 0); run {} instead \
                 (Assignment::Static) or give the workload a key",
                Strategy::new(Assignment::Static, strategy.paths)
            ),
        }
    }
}

impl core::error::Error for StrategyError {}

impl From<CompositionError> for StrategyError {
    fn from(e: CompositionError) -> Self {
        StrategyError::Unpaired(e)
    }
}
