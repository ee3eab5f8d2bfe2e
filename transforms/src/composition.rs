//! A strategy as what it is made of: how lanes get items ([`Assignment`]) times how a warp
//! schedules the divergent paths of what they run ([`PathSchedule`]). The two are independent
//! choices and a [`Strategy`] is one pair of them; this module holds the path schedules and the
//! rule saying which pairs some program implements ([`Strategy::pairing`]).
//!
//! ```
//! use reconverge_transforms::{Assignment, Decision, PathSchedule, Strategy};
//!
//! let vote = Decision::majority_vote(16, true);
//! let delaying = Strategy::iteration_delaying(vote).over(Assignment::Dynamic);
//! assert_eq!(delaying.paths, PathSchedule::IterationDelaying(vote));
//! assert_eq!(
//!     delaying.to_string(),
//!     "iteration delaying, majority vote, threshold 16, stop when a lane finishes, \
//!      over dynamic work assignment"
//! );
//! // Every path schedule of a loop pairs with every assignment...
//! for items in [Assignment::Static, Assignment::Dynamic, Assignment::GridWide] {
//!     assert!(Strategy::iteration_delaying(vote).over(items).pairing().is_ok());
//!     assert!(Strategy::BRANCH_DISTRIBUTION.over(items).pairing().is_ok());
//! }
//! // ...while a per-item or multi-pass technique takes its items statically: the pairing is a
//! // typed error naming what pairs instead, not a strategy that fails later.
//! let grid_split = Strategy::BRANCH_SPLITTING.over(Assignment::GridWide);
//! let refused = grid_split.pairing().unwrap_err();
//! assert_eq!(refused.pairs_with, &[Assignment::Static]);
//! ```

use crate::strategies::Assignment;
use crate::strategy::{Decision, Strategy};

/// How a warp schedules the divergent paths of the items its lanes run: the part of a
/// [`Strategy`] that is not how lanes get their items. Each variant's docs say which paper
/// figure it implements and when it helps or hurts; [`crate::Kernel::passes`] says whether a
/// workload shape supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSchedule {
    /// The code as written: every divergent path issued with the disagreeing lanes masked off
    /// (seed 002 §2.3). Over static assignment it is the baseline, the reference every other
    /// strategy must match. Every shape.
    AsWritten,
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
    /// vote per iteration. Over dynamic work assignment it is the setting of seed 002's MCML
    /// experiment (§4.2.2), whose photon loop, as CUDAMCML's, launches a new photon in the lane
    /// of one that died: dealt statically, a warp's lanes wait for its slowest lane's last item
    /// and the delaying's gain drowns in that tail. Shapes: [`crate::BranchLoop`],
    /// [`crate::FactoredBranchLoop`] (through [`crate::Unfactored`]).
    IterationDelaying(Decision),
    /// Code that both paths share in structure is factored out of the branch and run
    /// convergently between two shorter divergent parts (seed 002 §3.2, figs. 6–7). Helps
    /// when the factored code is large relative to what stays divergent (speedup
    /// 2(1 + R)/(2 + R), R = factored / divergent); hurts when it is small (the extra branch
    /// and prologue overhead) or when factoring raises register use. With `delaying`, what
    /// stays divergent is also iteration-delayed by that decision: seed 002's MCML experiment
    /// runs the two at once (§4.2.2), and they act on different things (what a divergent
    /// path issues, how often a rare path is issued), so their gains can add up. Shapes:
    /// [`crate::FactoredBranchLoop`] (without `delaying`) and workloads with a factored path
    /// of their own (MCML's boundary).
    BranchDistribution {
        /// The iteration-delaying decision of what stays divergent, if any.
        delaying: Option<Decision>,
    },
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
    /// Lanes at a loop's expensive block wait at a convergence point before it while the
    /// others run their cheap iterations, and the block runs once `threshold` lanes wait, the
    /// oldest wait reaches `max_wait` iterations or no lane could progress otherwise (Damani
    /// et al., CGO 2020; [`crate::strategies::speculative_reconvergence`] says how it differs
    /// from iteration delaying). Helps when the block is expensive and lanes reach it in
    /// different iterations at a steady rate; hurts (a vote per iteration, lanes idling while
    /// they wait) when lanes already reach it together or the cheap part is most of the work.
    /// Shapes: [`crate::BranchLoop`] (the taken path is the block).
    SpeculativeReconvergence {
        /// Waiting lanes that release the block.
        threshold: u32,
        /// Iterations the oldest waiting lane may wait before the block runs anyway.
        max_wait: u32,
    },
    /// In a loop whose lanes diverge into a costly body, a lane whose iteration wants the body
    /// saves its context (item and state) to a per-warp stack in shared memory and takes other
    /// work; the body runs once a warp's worth of contexts waits, with every lane busy
    /// (Khorasani, Gupta & Bhuyan, MICRO 2015; [`crate::strategies::collaborative_context_collection`]).
    /// Helps when the body is costly and rare per iteration (intra-warp load imbalance: the
    /// paper's 1.69x on average); hurts when lanes take the body together or it is cheap (the
    /// saves and restores are pure overhead: a loss when every iteration takes it). Costs
    /// [`crate::strategies::collaborative_context_collection::shared_bytes_per_warp`] of shared
    /// memory per warp. Shapes: [`crate::BranchLoop`] (the taken path is the body),
    /// [`crate::FactoredBranchLoop`] (through [`crate::Unfactored`]).
    CollaborativeContextCollection,
}

impl PathSchedule {
    /// Every kind of schedule once, with the papers' numbers (seed 002's majority vote where a
    /// decision picks the path, seed 004's 16 items per thread, 8 iterations per pass): for
    /// lists, command lines and tests that must cover every kind.
    pub const EVERY_KIND: [PathSchedule; 13] = [
        PathSchedule::AsWritten,
        PathSchedule::Predication,
        PathSchedule::StaticBranchResolution,
        PathSchedule::BranchSplitting,
        PathSchedule::ZCullMasking,
        PathSchedule::LoopSplitting,
        PathSchedule::IterationDelaying(crate::PAPER_MAJORITY_VOTE),
        PathSchedule::BranchDistribution { delaying: None },
        PathSchedule::BranchDistribution {
            delaying: Some(crate::PAPER_MAJORITY_VOTE),
        },
        PathSchedule::OcclusionQueryLoop {
            iterations_per_pass: 8,
        },
        PathSchedule::BranchPathUnification {
            items_per_thread: 16,
        },
        PathSchedule::SpeculativeReconvergence {
            threshold: crate::strategies::speculative_reconvergence::DEFAULT_THRESHOLD,
            max_wait: crate::strategies::speculative_reconvergence::DEFAULT_MAX_WAIT,
        },
        PathSchedule::CollaborativeContextCollection,
    ];

    /// Whether `self` and `other` are the same schedule, whatever their numbers and decisions
    /// (a majority vote of 8 and a round robin are both iteration delaying; branch
    /// distribution with and without delaying are not the same schedule).
    pub const fn same_kind(&self, other: &PathSchedule) -> bool {
        use PathSchedule as P;
        matches!(
            (self, other),
            (P::AsWritten, P::AsWritten)
                | (P::Predication, P::Predication)
                | (P::StaticBranchResolution, P::StaticBranchResolution)
                | (P::BranchSplitting, P::BranchSplitting)
                | (P::ZCullMasking, P::ZCullMasking)
                | (P::LoopSplitting, P::LoopSplitting)
                | (P::IterationDelaying(_), P::IterationDelaying(_))
                | (
                    P::BranchDistribution { delaying: None },
                    P::BranchDistribution { delaying: None }
                )
                | (
                    P::BranchDistribution { delaying: Some(_) },
                    P::BranchDistribution { delaying: Some(_) }
                )
                | (P::OcclusionQueryLoop { .. }, P::OcclusionQueryLoop { .. })
                | (
                    P::BranchPathUnification { .. },
                    P::BranchPathUnification { .. }
                )
                | (
                    P::SpeculativeReconvergence { .. },
                    P::SpeculativeReconvergence { .. }
                )
                | (
                    P::CollaborativeContextCollection,
                    P::CollaborativeContextCollection
                )
        )
    }

    /// The decision picking which path each iteration runs, for the schedules that delay.
    pub const fn decision(&self) -> Option<Decision> {
        match *self {
            PathSchedule::IterationDelaying(d) => Some(d),
            PathSchedule::BranchDistribution { delaying } => delaying,
            _ => None,
        }
    }

    /// Whether some program pairs this schedule with every assignment: a loop's schedules take
    /// items in any order (a lane's next item starts when its last one finishes, whoever deals
    /// it); the per-item techniques fix which items a warp holds together (compaction,
    /// unification, a pass's mask) and the multi-pass ones keep an item's state in its slot
    /// between passes, so they take the static order their passes agree on. The one place of
    /// the pairing rule: [`PathSchedule::pairs_with`] and [`Strategy::pairing`] read it.
    pub const fn pairs_with_every_assignment(&self) -> bool {
        match self {
            PathSchedule::AsWritten
            | PathSchedule::IterationDelaying(_)
            | PathSchedule::BranchDistribution { .. }
            | PathSchedule::SpeculativeReconvergence { .. } => true,
            PathSchedule::Predication
            | PathSchedule::StaticBranchResolution
            | PathSchedule::BranchSplitting
            | PathSchedule::ZCullMasking
            | PathSchedule::LoopSplitting
            | PathSchedule::OcclusionQueryLoop { .. }
            | PathSchedule::BranchPathUnification { .. }
            | PathSchedule::CollaborativeContextCollection => false,
        }
    }

    /// The assignments some program pairs this schedule with: every one
    /// ([`PathSchedule::pairs_with_every_assignment`]), collaborative context collection's
    /// three that deal items, or static assignment alone.
    pub const fn pairs_with(&self) -> &'static [Assignment] {
        if matches!(self, PathSchedule::CollaborativeContextCollection) {
            // Its warps deal items into their own contexts; a remapped order would need the
            // permutation pass before them, which no program runs.
            &[
                Assignment::Static,
                Assignment::Dynamic,
                Assignment::GridWide,
            ]
        } else if self.pairs_with_every_assignment() {
            &Assignment::ALL
        } else {
            &[Assignment::Static]
        }
    }
}

/// A pairing of an assignment and a path schedule that no program implements, with the
/// assignments that schedule does pair with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompositionError {
    /// How lanes were to get items.
    pub items: Assignment,
    /// How the warp was to schedule paths.
    pub paths: PathSchedule,
    /// The assignments `paths` pairs with.
    pub pairs_with: &'static [Assignment],
}

impl Strategy {
    /// `Ok` if some program implements this pairing of assignment and path schedule (whether
    /// a given workload's shape runs the schedule at all is [`crate::Kernel::passes`]'s
    /// question), else the error naming the assignments the schedule pairs with.
    ///
    /// # Errors
    /// [`CompositionError`] for a pairing no program implements.
    pub const fn pairing(&self) -> Result<(), CompositionError> {
        let with = self.paths.pairs_with();
        let mut i = 0;
        while i < with.len() {
            if with[i] as u8 == self.items as u8 {
                return Ok(());
            }
            i += 1;
        }
        Err(CompositionError {
            items: self.items,
            paths: self.paths,
            pairs_with: with,
        })
    }
}

impl core::fmt::Display for PathSchedule {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PathSchedule::AsWritten => f.write_str("paths as written"),
            PathSchedule::Predication => f.write_str("predication"),
            PathSchedule::StaticBranchResolution => f.write_str("static branch resolution"),
            PathSchedule::BranchSplitting => f.write_str("branch splitting"),
            PathSchedule::ZCullMasking => f.write_str("z-cull masking"),
            PathSchedule::LoopSplitting => f.write_str("loop splitting"),
            PathSchedule::IterationDelaying(d) => write!(f, "iteration delaying, {d}"),
            PathSchedule::BranchDistribution { delaying: None } => {
                f.write_str("branch distribution")
            }
            PathSchedule::BranchDistribution { delaying: Some(d) } => {
                write!(f, "branch distribution, iteration delaying, {d}")
            }
            PathSchedule::OcclusionQueryLoop {
                iterations_per_pass,
            } => write!(
                f,
                "occlusion-query loop, {iterations_per_pass} iterations per pass"
            ),
            PathSchedule::BranchPathUnification { items_per_thread } => write!(
                f,
                "branch path unification, {items_per_thread} items per thread"
            ),
            PathSchedule::SpeculativeReconvergence {
                threshold,
                max_wait,
            } => write!(
                f,
                "speculative reconvergence, threshold {threshold}, wait at most {max_wait}"
            ),
            PathSchedule::CollaborativeContextCollection => {
                f.write_str("collaborative context collection")
            }
        }
    }
}

impl core::fmt::Display for Assignment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Assignment::Static => "static assignment",
            Assignment::Dynamic => "dynamic work assignment",
            Assignment::GridWide => "dynamic work assignment, one grid-wide counter",
            Assignment::Remapped => "thread-data remapping",
        })
    }
}

impl core::fmt::Display for CompositionError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} over {}: no program implements this pairing; {} pairs with ",
            self.paths, self.items, self.paths
        )?;
        for (i, items) in self.pairs_with.iter().enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == self.pairs_with.len() {
                    " or "
                } else {
                    ", "
                })?;
            }
            write!(f, "{items} (Assignment::{items:?})")?;
        }
        Ok(())
    }
}

impl core::error::Error for CompositionError {}
