//! Strategies as plain values, so that benches and command lines can loop over them.

/// How a warp runs a divergent workload. Each variant's docs say which paper figure it
/// implements and when it helps or hurts; [`crate::Kernel::passes`] says whether a workload
/// shape supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The code as written: every divergent path issued with the disagreeing lanes masked off
    /// (seed 002 §2.3). The reference every other strategy must match. Every shape.
    Baseline,
    /// Both paths computed by every lane, the result selected (GPU Gems 2 §34.2.1). No
    /// divergence and no branch overhead, but every lane pays for both paths: helps only when
    /// the paths are short. Shape: [`crate::TwoPath`].
    Predication,
    /// Items sorted by their branch outcome before any path runs, so that every warp runs one
    /// path with all lanes busy (GPU Gems 2 §34.2.2–34.2.3: static branch resolution and
    /// precomputed branches, here as compaction by predicate). Costs a classification pass and
    /// the exchange of item indices; helps when paths are long and the outcome is mixed, hurts
    /// (a vote and up to two shuffles per window for nothing) when warps already agree.
    /// Shape: [`crate::TwoPath`] ([`crate::TwoPathKernel`] documents the compaction).
    StaticBranchResolution,
    /// One pass (one kernel) per path over the decision of every item (seed 001 §4.2, fig. 6).
    /// Lanes whose item takes the other path idle; the gain is occupancy, since each kernel
    /// needs only its own path's registers. Hurts when both kernels run at the same occupancy
    /// (the extra launch is pure overhead), and every item's decision is evaluated twice.
    /// Shape: [`crate::TwoPath`] (2 passes: path A, then path B).
    BranchSplitting,
    /// The condition evaluated once, in a preprocessing pass that stores it as a bit mask, and
    /// one pass per path that reads the mask and runs only the items it lets through; a warp
    /// whose window of items the mask rules out runs nothing (GPU Gems 2 §34.2.3, z-cull:
    /// "z-cull prevents the fragment program from ever executing", at the granularity of a
    /// tile, here a warp). Helps when the condition is costly, is reused, or has locality, so
    /// that whole warps are skipped; with a random condition every warp runs both paths, as
    /// under predication (fig. 34-1). Costs a pass, a mask word per 32 items and a load per
    /// item. Shape: [`crate::TwoPath`] (3 passes: mask, path A, path B).
    ZCullMasking,
    /// A loop whose body has independent parts run as one loop per part (seed 001 §4.1,
    /// fig. 5), to lower register pressure. Same instructions, fewer live registers: helps only
    /// a kernel whose occupancy is limited by registers, and only if the parts share no live
    /// state. Shape: [`crate::SplitLoop`] (one pass, two loops).
    LoopSplitting,
    /// In each iteration the warp runs only one path; lanes that want the other delay their
    /// iteration (seed 002 §3.1, figs. 2–5). Helps when both paths are long and lanes keep
    /// changing path; hurts when a path is rare (its lanes starve, fig. 3) and always costs a
    /// vote per iteration. Shapes: [`crate::BranchLoop`], [`crate::FactoredBranchLoop`]
    /// (through [`crate::Unfactored`]).
    IterationDelaying(Decision),
    /// [`Strategy::IterationDelaying`] on lanes fed by [`Strategy::DynamicWorkAssignment`]: a
    /// lane whose item finishes takes the next one from its block's counter, and in each
    /// iteration the warp runs the path `Decision` picks. This is the setting of seed 002's
    /// MCML experiment (§4.2.2), whose photon loop, as CUDAMCML's, launches a new photon in
    /// the lane of one that died; plain [`Strategy::IterationDelaying`] deals items statically,
    /// so that a warp's lanes wait for its slowest lane's last item and the delaying's gain
    /// drowns in that tail. With [`Decision::MajorityVote`]'s `stop_when_a_lane_finishes`, the
    /// warp stops delaying once its block has no items left to deal. Shapes:
    /// [`crate::BranchLoop`] (and [`crate::FactoredBranchLoop`] through [`crate::Unfactored`]).
    IterationDelayingWithDynamicWork(Decision),
    /// Code that both paths share in structure is factored out of the branch and run
    /// convergently between two shorter divergent parts (seed 002 §3.2, figs. 6–7). Helps
    /// when the factored code is large relative to what stays divergent (speedup
    /// 2(1 + R)/(2 + R), R = factored / divergent); hurts when it is small (the extra branch
    /// and prologue overhead) or when factoring raises register use. Shape:
    /// [`crate::FactoredBranchLoop`].
    BranchDistribution,
    /// [`Strategy::BranchDistribution`] on lanes fed by [`Strategy::DynamicWorkAssignment`]:
    /// the factored paths, and a lane whose item finishes takes the next one from its block's
    /// counter. The two are independent (one shortens what a divergent iteration issues, the
    /// other keeps lanes busy until the block runs out of items), so their gains compose.
    /// Shapes: [`crate::FactoredBranchLoop`] (and workloads with a factored path of their
    /// own, such as MCML's boundary).
    BranchDistributionWithDynamicWork,
    /// [`Strategy::BranchDistribution`] and [`Strategy::IterationDelayingWithDynamicWork`]
    /// together: the factored paths, the warp's `Decision` on which path each iteration runs,
    /// and lanes fed by dynamic work assignment, the three techniques of seed 002's MCML
    /// experiment at once (§4.2.2). Each acts on something else (what a divergent path issues,
    /// how often a rare path is issued, idle lanes), so their gains can add up: on an H100,
    /// MCML's fastest exact strategy on skin is this one with [`Decision::CostBalanced`].
    /// Shapes: workloads with a factored path of their own (MCML's boundary).
    BranchDistributionWithDelaying(Decision),
    /// A lane whose item finishes takes the next item of its block from a block-shared
    /// counter, instead of idling until the whole warp is done (seed 004 §3.1, fig. 5). Helps
    /// loops whose trip counts vary; costs one shared atomic per refill, and gains nothing when
    /// trip counts are equal. Shapes: [`crate::BranchLoop`], [`crate::ItemLoop`],
    /// [`crate::FactoredBranchLoop`].
    DynamicWorkAssignment,
    /// [`Strategy::DynamicWorkAssignment`] with one counter for the whole launch instead of one
    /// per block: thread `g` of the grid starts with item `g`, and a lane whose item finishes
    /// takes the next unclaimed item of the launch (one warp-aggregated atomic in global memory
    /// per refill). This is the persistent-threads kernel with a global work queue: blocks
    /// that run out of work take it from the rest of the launch, so a workload whose per-item
    /// cost varies across the range (an image whose costly pixels cluster) keeps every
    /// multiprocessor busy to the end, which a block's own counter cannot. Costs a global
    /// atomic per refill. Shapes: as [`Strategy::DynamicWorkAssignment`].
    GridWideDynamicWork,
    /// The loop run as repeated passes of at most `iterations_per_pass` iterations each, the
    /// host launching passes until none of them leaves an item unfinished (GPU Gems 2 §34.3:
    /// data-dependent looping with occlusion queries; also CUDAMCML's relaunch loop). Items
    /// keep their state in [`crate::Scratch`] between passes; finished items are masked out,
    /// and a warp whose items have all finished skips the pass, as z-cull skips fragments.
    /// Each pass ends with the count of unfinished items (the occlusion query), which the host
    /// reads. Costs a launch and a host round trip per pass and a state store and load per
    /// unfinished item; issues no fewer body iterations than the baseline (a window still
    /// waits for its slowest item within a pass). What it buys is bounded launches (watchdogs,
    /// progress reports, CUDAMCML's 1000 steps per call) and loops on hardware without them.
    /// Shape: [`crate::ItemLoop`] (2 passes, the second repeated).
    OcclusionQueryLoop {
        /// Loop iterations each item runs per pass (at least 1).
        iterations_per_pass: u32,
    },
    /// Each thread owns `items_per_thread` items and runs, in turn, its next item that takes
    /// path A and its next item that takes path B, so that more lanes share each path
    /// (seed 004 §3.2, fig. 10). The useful-lane rate rises with `items_per_thread`
    /// (seed 004 table 4: 50 %, 51.8 %, 66.6 %, 79.5 % for 1, 4, 16, 64; the model gives
    /// 50.0, 51.7, 66.4, 79.8, see `tests/two_path.rs`). Costs the forward scans (each item's
    /// decision evaluated twice) and needs many items per thread: at 1 it is the baseline.
    /// Shape: [`crate::TwoPath`].
    BranchPathUnification {
        /// DATA_PER_THREAD of the paper.
        items_per_thread: u32,
    },
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
/// | [`Strategy::OcclusionQueryLoop`] | `iterations_per_pass` | 0 | 0 |
/// | [`Strategy::BranchPathUnification`] | `items_per_thread` | 0 | 0 |
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
    /// items and results are its own, whatever the others do. The CUDA backend runs such a
    /// strategy as the plain loop of one thread ([`crate::Kernel::plain_items`], or the
    /// kernel's program on a warp of one lane, `reconverge_simt::ThreadWarp`, where it has no
    /// plain form), leaving divergence to the hardware: no votes, no lane masks, the code a
    /// CUDA programmer writes by hand. The others are warp-level algorithms (the warp decides
    /// together which path to issue) and run as a whole warp.
    pub const fn runs_per_thread(&self) -> bool {
        matches!(
            self,
            Strategy::Baseline | Strategy::DynamicWorkAssignment | Strategy::GridWideDynamicWork
        )
    }

    /// Whether lanes take their next item from a counter (of the block or of the grid) rather
    /// than from a fixed stride: such a strategy balances the load itself, and a launch of one
    /// resident wave of blocks suits it.
    pub const fn deals_dynamically(&self) -> bool {
        matches!(
            self,
            Strategy::DynamicWorkAssignment
                | Strategy::GridWideDynamicWork
                | Strategy::IterationDelayingWithDynamicWork(_)
                | Strategy::BranchDistributionWithDynamicWork
                | Strategy::BranchDistributionWithDelaying(_)
        )
    }

    /// Whether items move between blocks at run time ([`Strategy::GridWideDynamicWork`]):
    /// which warp runs which item then depends on the order in which blocks run, so the
    /// outputs are fixed but the SIMT counters differ from run to run.
    pub const fn deals_across_blocks(&self) -> bool {
        matches!(self, Strategy::GridWideDynamicWork)
    }

    /// Whether `self` and `other` are the same technique, whatever their parameters (a
    /// majority vote of 8 and one of 16 are): what [`crate::Kernel::STRATEGIES`] lists one of
    /// per kind a shape supports, so `Kernel::STRATEGIES.iter().any(|s| s.same_kind(x))` is
    /// whether a shape runs `x` at all. A `const fn`, so that an entry-point list can check
    /// its strategies at compile time.
    pub const fn same_kind(&self, other: &Strategy) -> bool {
        use Strategy as S;
        matches!(
            (self, other),
            (S::Baseline, S::Baseline)
                | (S::Predication, S::Predication)
                | (S::StaticBranchResolution, S::StaticBranchResolution)
                | (S::BranchSplitting, S::BranchSplitting)
                | (S::ZCullMasking, S::ZCullMasking)
                | (S::LoopSplitting, S::LoopSplitting)
                | (S::IterationDelaying(_), S::IterationDelaying(_))
                | (
                    S::IterationDelayingWithDynamicWork(_),
                    S::IterationDelayingWithDynamicWork(_)
                )
                | (S::BranchDistribution, S::BranchDistribution)
                | (
                    S::BranchDistributionWithDynamicWork,
                    S::BranchDistributionWithDynamicWork
                )
                | (
                    S::BranchDistributionWithDelaying(_),
                    S::BranchDistributionWithDelaying(_)
                )
                | (S::DynamicWorkAssignment, S::DynamicWorkAssignment)
                | (S::GridWideDynamicWork, S::GridWideDynamicWork)
                | (S::OcclusionQueryLoop { .. }, S::OcclusionQueryLoop { .. })
                | (
                    S::BranchPathUnification { .. },
                    S::BranchPathUnification { .. }
                )
        )
    }

    /// Whether `self` and `other` compile to the same code: the same technique
    /// ([`Strategy::same_kind`]) and, where a [`Decision`] picks the path, the same kind of
    /// decision with the same switches (a majority vote of 8 and one of 16 that both stop when
    /// a lane finishes are; a vote and a round robin are not, nor a round robin with idle
    /// removal and one without). Such strategies differ only in their
    /// [`Strategy::parameters`], which a GPU entry point takes at run time, so one entry point
    /// serves them all: `a.same_technique(&b)` is `a.with_parameters(b.parameters()) == b`.
    pub const fn same_technique(&self, other: &Strategy) -> bool {
        use Strategy as S;
        if !self.same_kind(other) {
            return false;
        }
        match (self, other) {
            (S::IterationDelaying(a), S::IterationDelaying(b))
            | (S::IterationDelayingWithDynamicWork(a), S::IterationDelayingWithDynamicWork(b))
            | (S::BranchDistributionWithDelaying(a), S::BranchDistributionWithDelaying(b)) => {
                a.same_code(b)
            }
            _ => true,
        }
    }

    /// Whether the technique has numbers at all ([`Strategy::parameters`]): a vote's
    /// threshold, a round robin's cycle, an occlusion query's iterations per pass, path
    /// unification's items per thread. Two strategies of a technique without numbers are
    /// equal; a GPU entry point compiles such a technique once, with no numbers to take.
    pub const fn has_parameters(&self) -> bool {
        match self {
            Strategy::IterationDelaying(d)
            | Strategy::IterationDelayingWithDynamicWork(d)
            | Strategy::BranchDistributionWithDelaying(d) => !matches!(d, Decision::CostBalanced),
            Strategy::OcclusionQueryLoop { .. } | Strategy::BranchPathUnification { .. } => true,
            _ => false,
        }
    }

    /// The strategy's numbers, as the words a GPU entry point takes at run time (see
    /// [`StrategyParameters`] for which word is which); all zero for a strategy without any.
    pub const fn parameters(&self) -> StrategyParameters {
        let words = match self {
            Strategy::IterationDelaying(d)
            | Strategy::IterationDelayingWithDynamicWork(d)
            | Strategy::BranchDistributionWithDelaying(d) => d.parameters(),
            Strategy::OcclusionQueryLoop {
                iterations_per_pass,
            } => [*iterations_per_pass, 0, 0],
            Strategy::BranchPathUnification { items_per_thread } => [*items_per_thread, 0, 0],
            _ => [0; 3],
        };
        StrategyParameters { words }
    }

    /// The same technique ([`Strategy::same_technique`]: variant, kind of decision and its
    /// switches) with the numbers `parameters`: what a GPU entry point compiled for `self`
    /// runs when the host passes `parameters`. Built field by field, so that in an entry point,
    /// where `self` is a constant, the technique is compiled in and only the numbers come from
    /// the launch.
    #[inline(always)]
    pub const fn with_parameters(self, parameters: StrategyParameters) -> Strategy {
        let [a, b, _] = parameters.words;
        match self {
            Strategy::Baseline => Strategy::Baseline,
            Strategy::Predication => Strategy::Predication,
            Strategy::StaticBranchResolution => Strategy::StaticBranchResolution,
            Strategy::BranchSplitting => Strategy::BranchSplitting,
            Strategy::ZCullMasking => Strategy::ZCullMasking,
            Strategy::LoopSplitting => Strategy::LoopSplitting,
            Strategy::IterationDelaying(d) => Strategy::IterationDelaying(d.with_parameters(a, b)),
            Strategy::IterationDelayingWithDynamicWork(d) => {
                Strategy::IterationDelayingWithDynamicWork(d.with_parameters(a, b))
            }
            Strategy::BranchDistribution => Strategy::BranchDistribution,
            Strategy::BranchDistributionWithDynamicWork => {
                Strategy::BranchDistributionWithDynamicWork
            }
            Strategy::BranchDistributionWithDelaying(d) => {
                Strategy::BranchDistributionWithDelaying(d.with_parameters(a, b))
            }
            Strategy::DynamicWorkAssignment => Strategy::DynamicWorkAssignment,
            Strategy::GridWideDynamicWork => Strategy::GridWideDynamicWork,
            Strategy::OcclusionQueryLoop { .. } => Strategy::OcclusionQueryLoop {
                iterations_per_pass: a,
            },
            Strategy::BranchPathUnification { .. } => Strategy::BranchPathUnification {
                items_per_thread: a,
            },
        }
    }

    /// Items each thread owns at once: [`Strategy::BranchPathUnification`]'s
    /// `items_per_thread`, 1 for every other strategy.
    pub const fn items_per_thread(&self) -> u32 {
        match self {
            Strategy::BranchPathUnification { items_per_thread } => *items_per_thread,
            _ => 1,
        }
    }

    /// A short name for tables and file names.
    pub fn name(&self) -> &'static str {
        // A strategy built on a decision: `$prefix`, the decision's kind, `$suffix`.
        macro_rules! decision_name {
            ($d:expr, $prefix:literal, $suffix:literal) => {
                match $d {
                    Decision::MajorityVote { .. } => concat!($prefix, "majority-vote", $suffix),
                    Decision::RoundRobin {
                        remove_idle: false, ..
                    } => concat!($prefix, "round-robin", $suffix),
                    Decision::RoundRobin {
                        remove_idle: true, ..
                    } => concat!($prefix, "round-robin-idle-removal", $suffix),
                    Decision::CostBalanced => concat!($prefix, "cost-balanced", $suffix),
                }
            };
        }
        match self {
            Strategy::Baseline => "baseline",
            Strategy::Predication => "predication",
            Strategy::StaticBranchResolution => "static-branch-resolution",
            Strategy::BranchSplitting => "branch-splitting",
            Strategy::ZCullMasking => "z-cull-masking",
            Strategy::LoopSplitting => "loop-splitting",
            Strategy::IterationDelaying(d) => decision_name!(d, "delaying-", ""),
            Strategy::IterationDelayingWithDynamicWork(d) => {
                decision_name!(d, "delaying-", "-dynamic")
            }
            Strategy::BranchDistribution => "branch-distribution",
            Strategy::BranchDistributionWithDynamicWork => "branch-distribution-dynamic",
            Strategy::BranchDistributionWithDelaying(d) => {
                decision_name!(d, "branch-distribution-", "-dynamic")
            }
            Strategy::DynamicWorkAssignment => "dynamic-work-assignment",
            Strategy::GridWideDynamicWork => "grid-wide-dynamic-work",
            Strategy::OcclusionQueryLoop { .. } => "occlusion-query-loop",
            Strategy::BranchPathUnification { .. } => "branch-path-unification",
        }
    }
}

/// The strategy with every parameter, for people: `iteration delaying, majority vote,
/// threshold 8, stop when a lane finishes`. Unlike [`Strategy::name`], which is short and
/// meant for file names, two different strategies never print the same text, so tables and
/// error messages can tell apart runs that differ only in a parameter.
impl core::fmt::Display for Strategy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Composed strategies end in this suffix rather than a separate word order, so that
        // the part they share with the plain strategy reads the same.
        const OVER_DYNAMIC: &str = ", over dynamic work assignment";
        match self {
            Strategy::Baseline => f.write_str("baseline"),
            Strategy::Predication => f.write_str("predication"),
            Strategy::StaticBranchResolution => f.write_str("static branch resolution"),
            Strategy::BranchSplitting => f.write_str("branch splitting"),
            Strategy::ZCullMasking => f.write_str("z-cull masking"),
            Strategy::LoopSplitting => f.write_str("loop splitting"),
            Strategy::IterationDelaying(decision) => write!(f, "iteration delaying, {decision}"),
            Strategy::IterationDelayingWithDynamicWork(decision) => {
                write!(f, "iteration delaying, {decision}{OVER_DYNAMIC}")
            }
            Strategy::BranchDistribution => f.write_str("branch distribution"),
            Strategy::BranchDistributionWithDynamicWork => {
                write!(f, "branch distribution{OVER_DYNAMIC}")
            }
            Strategy::BranchDistributionWithDelaying(decision) => {
                write!(
                    f,
                    "branch distribution, iteration delaying, {decision}{OVER_DYNAMIC}"
                )
            }
            Strategy::DynamicWorkAssignment => f.write_str("dynamic work assignment"),
            Strategy::GridWideDynamicWork => {
                f.write_str("dynamic work assignment, one grid-wide counter")
            }
            Strategy::OcclusionQueryLoop {
                iterations_per_pass,
            } => write!(
                f,
                "occlusion-query loop, {iterations_per_pass} iterations per pass"
            ),
            Strategy::BranchPathUnification { items_per_thread } => write!(
                f,
                "branch path unification, {items_per_thread} items per thread"
            ),
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
    /// A pass index at or beyond the strategy's pass count.
    NoSuchPass {
        /// The pass asked for.
        pass: u32,
        /// Passes the strategy has.
        passes: u32,
    },
}

impl StrategyError {
    /// [`StrategyError::NotApplicable`]: `shape` has no code for `strategy`.
    pub const fn not_applicable(strategy: Strategy, shape: &'static str) -> Self {
        StrategyError::NotApplicable { strategy, shape }
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
            StrategyError::InvalidParameter { name, requirement } => {
                write!(f, "parameter {name} must be {requirement}")
            }
            StrategyError::NoSuchPass { pass, passes } => {
                write!(
                    f,
                    "pass {pass} does not exist: the strategy has {passes} passes"
                )
            }
        }
    }
}

impl core::error::Error for StrategyError {}
