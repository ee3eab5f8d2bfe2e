//! A strategy as what it is made of: how lanes get items ([`Assignment`]) and how a warp
//! schedules the divergent paths of what they run ([`PathSchedule`]). The two are independent
//! choices; a [`Strategy`] value is one pair of them, and [`Strategy::parts`] gives it back.
//!
//! ```
//! use reconverge_transforms::{Assignment, Composition, Decision, PathSchedule, Strategy};
//!
//! let vote = Decision::majority_vote(16, true);
//! let composed = Composition::new(Assignment::Dynamic, PathSchedule::IterationDelaying(vote));
//! assert_eq!(composed.strategy(), Ok(Strategy::IterationDelayingWithDynamicWork(vote)));
//! assert_eq!(
//!     composed.to_string(),
//!     "iteration delaying (majority vote, threshold 16, stop when a lane finishes) \
//!      over dynamic work assignment (block counter)"
//! );
//! // Every strategy has its parts, and composing them gives it back.
//! for s in [Strategy::GridWideDynamicWork, Strategy::BranchDistributionWithDynamicWork] {
//!     assert_eq!(s.parts().strategy(), Ok(s));
//! }
//! // A pairing no program implements is a typed error, not a strategy that fails later.
//! let grid_vote = Composition::new(Assignment::GridWide, PathSchedule::IterationDelaying(vote));
//! assert!(grid_vote.strategy().is_err());
//! ```

use crate::strategies::Assignment;
use crate::strategy::{Decision, Strategy};

/// How a warp schedules a divergent path: the part of a strategy that is not how lanes get
/// their items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSchedule {
    /// Every path issued with the disagreeing lanes masked off, as the hardware does.
    AsWritten,
    /// Each iteration the warp runs one path and the other lanes wait (seed 002 §3.1).
    IterationDelaying(Decision),
    /// The paths' common parts run once, converged (seed 002 §3.2).
    BranchDistribution,
    /// Branch distribution, and iteration delaying of what stays divergent.
    BranchDistributionWithDelaying(Decision),
    /// Both paths computed by every lane, the result selected (GPU Gems 2 §34.2.1).
    Predication,
    /// Each warp's lanes sorted by path before it runs (GPU Gems 2 §34.2.2).
    StaticBranchResolution,
    /// One pass per path (seed 001).
    BranchSplitting,
    /// One pass to mask, one per path (GPU Gems 2 §34.2.3).
    ZCullMasking,
    /// The loop's independent parts in passes of their own (seed 001).
    LoopSplitting,
    /// A bounded number of iterations per pass, until none is left (GPU Gems 2 §34.2.4).
    OcclusionQueryLoop {
        /// Loop iterations each item runs per pass.
        iterations_per_pass: u32,
    },
    /// Each thread runs its next item of one path, then of the other (seed 004 §3.2).
    BranchPathUnification {
        /// Items each thread owns at once.
        items_per_thread: u32,
    },
}

/// A strategy's two parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Composition {
    /// How lanes get items.
    pub items: Assignment,
    /// How a warp schedules divergent paths.
    pub paths: PathSchedule,
}

/// A pairing of parts that no program implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompositionError {
    /// How lanes were to get items.
    pub items: Assignment,
    /// How the warp was to schedule paths.
    pub paths: PathSchedule,
    /// What pairs with `paths` instead.
    pub hint: &'static str,
}

impl Composition {
    /// The pair `(items, paths)`.
    pub const fn new(items: Assignment, paths: PathSchedule) -> Self {
        Self { items, paths }
    }

    /// The strategy these parts make, or why none does.
    ///
    /// # Errors
    /// [`CompositionError`] for a pairing no program implements, saying which pairings of
    /// `paths` there are.
    pub const fn strategy(self) -> Result<Strategy, CompositionError> {
        use Assignment as A;
        use PathSchedule as P;
        let hint = match (self.items, self.paths) {
            (A::Static, P::AsWritten) => return Ok(Strategy::Baseline),
            (A::Dynamic, P::AsWritten) => return Ok(Strategy::DynamicWorkAssignment),
            (A::GridWide, P::AsWritten) => return Ok(Strategy::GridWideDynamicWork),
            (A::Static, P::IterationDelaying(d)) => return Ok(Strategy::IterationDelaying(d)),
            (A::Dynamic, P::IterationDelaying(d)) => {
                return Ok(Strategy::IterationDelayingWithDynamicWork(d));
            }
            (A::GridWide, P::IterationDelaying(_)) => {
                "iteration delaying pairs with static or block-counter assignment"
            }
            (A::Static, P::BranchDistribution) => return Ok(Strategy::BranchDistribution),
            (A::Dynamic, P::BranchDistribution) => {
                return Ok(Strategy::BranchDistributionWithDynamicWork);
            }
            (A::GridWide, P::BranchDistribution) => {
                "branch distribution pairs with static or block-counter assignment"
            }
            (A::Dynamic, P::BranchDistributionWithDelaying(d)) => {
                return Ok(Strategy::BranchDistributionWithDelaying(d));
            }
            (_, P::BranchDistributionWithDelaying(_)) => {
                "branch distribution with delaying pairs with block-counter assignment"
            }
            (A::Static, P::Predication) => return Ok(Strategy::Predication),
            (A::Static, P::StaticBranchResolution) => return Ok(Strategy::StaticBranchResolution),
            (A::Static, P::BranchSplitting) => return Ok(Strategy::BranchSplitting),
            (A::Static, P::ZCullMasking) => return Ok(Strategy::ZCullMasking),
            (A::Static, P::LoopSplitting) => return Ok(Strategy::LoopSplitting),
            (
                A::Static,
                P::OcclusionQueryLoop {
                    iterations_per_pass,
                },
            ) => {
                return Ok(Strategy::OcclusionQueryLoop {
                    iterations_per_pass,
                });
            }
            (A::Static, P::BranchPathUnification { items_per_thread }) => {
                return Ok(Strategy::BranchPathUnification { items_per_thread });
            }
            _ => "the per-item and multi-pass techniques take static assignment",
        };
        Err(CompositionError {
            items: self.items,
            paths: self.paths,
            hint,
        })
    }

    /// [`Composition::strategy`] where it must succeed: in a constant, a pairing no program
    /// implements is a compile error.
    ///
    /// ```compile_fail,E0080
    /// use reconverge_transforms::{Assignment, Composition, PathSchedule, Strategy};
    /// const GRID_SPLIT: Strategy =
    ///     Composition::new(Assignment::GridWide, PathSchedule::BranchSplitting).composed();
    /// ```
    pub const fn composed(self) -> Strategy {
        match self.strategy() {
            Ok(strategy) => strategy,
            Err(_) => {
                panic!("no program implements this pairing of item assignment and path schedule")
            }
        }
    }
}

impl Strategy {
    /// The strategy's parts: how lanes get items and how a warp schedules divergent paths.
    /// [`Composition::strategy`] of them gives the strategy back.
    pub const fn parts(&self) -> Composition {
        use Assignment as A;
        use PathSchedule as P;
        let (items, paths) = match *self {
            Strategy::Baseline => (A::Static, P::AsWritten),
            Strategy::DynamicWorkAssignment => (A::Dynamic, P::AsWritten),
            Strategy::GridWideDynamicWork => (A::GridWide, P::AsWritten),
            Strategy::IterationDelaying(d) => (A::Static, P::IterationDelaying(d)),
            Strategy::IterationDelayingWithDynamicWork(d) => (A::Dynamic, P::IterationDelaying(d)),
            Strategy::BranchDistribution => (A::Static, P::BranchDistribution),
            Strategy::BranchDistributionWithDynamicWork => (A::Dynamic, P::BranchDistribution),
            Strategy::BranchDistributionWithDelaying(d) => {
                (A::Dynamic, P::BranchDistributionWithDelaying(d))
            }
            Strategy::Predication => (A::Static, P::Predication),
            Strategy::StaticBranchResolution => (A::Static, P::StaticBranchResolution),
            Strategy::BranchSplitting => (A::Static, P::BranchSplitting),
            Strategy::ZCullMasking => (A::Static, P::ZCullMasking),
            Strategy::LoopSplitting => (A::Static, P::LoopSplitting),
            Strategy::OcclusionQueryLoop {
                iterations_per_pass,
            } => (
                A::Static,
                P::OcclusionQueryLoop {
                    iterations_per_pass,
                },
            ),
            Strategy::BranchPathUnification { items_per_thread } => {
                (A::Static, P::BranchPathUnification { items_per_thread })
            }
        };
        Composition { items, paths }
    }
}

impl core::fmt::Display for PathSchedule {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PathSchedule::AsWritten => f.write_str("paths as written"),
            PathSchedule::IterationDelaying(d) => write!(f, "iteration delaying ({d})"),
            PathSchedule::BranchDistribution => f.write_str("branch distribution"),
            PathSchedule::BranchDistributionWithDelaying(d) => {
                write!(f, "branch distribution with iteration delaying ({d})")
            }
            PathSchedule::Predication => f.write_str("predication"),
            PathSchedule::StaticBranchResolution => f.write_str("static branch resolution"),
            PathSchedule::BranchSplitting => f.write_str("branch splitting"),
            PathSchedule::ZCullMasking => f.write_str("z-cull masking"),
            PathSchedule::LoopSplitting => f.write_str("loop splitting"),
            PathSchedule::OcclusionQueryLoop {
                iterations_per_pass,
            } => write!(
                f,
                "occlusion-query loop ({iterations_per_pass} iterations per pass)"
            ),
            PathSchedule::BranchPathUnification { items_per_thread } => write!(
                f,
                "branch path unification ({items_per_thread} items per thread)"
            ),
        }
    }
}

impl core::fmt::Display for Assignment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Assignment::Static => "static assignment",
            Assignment::Dynamic => "dynamic work assignment (block counter)",
            Assignment::GridWide => "dynamic work assignment (grid-wide counter)",
        })
    }
}

impl core::fmt::Display for CompositionError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} over {}: no program implements this pairing; {}",
            self.paths, self.items, self.hint
        )
    }
}

impl core::error::Error for CompositionError {}

impl core::fmt::Display for Composition {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} over {}", self.paths, self.items)
    }
}
