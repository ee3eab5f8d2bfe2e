//! Every strategy's id: a short name with all its numbers and switches, for tables, file names
//! and command lines, unique (two strategies never share one), stable (the grammar below is
//! the format) and parsed back by [`Strategy`]'s `FromStr`.
//!
//! ```text
//! id        = schedule [ "-dynamic" | "-grid-wide" ]     the assignment, static when absent
//!           | "dynamic-work-assignment" | "grid-wide-dynamic-work"   the paths as written
//! schedule  = "baseline" | "predication" | "static-branch-resolution" | "branch-splitting"
//!           | "z-cull-masking" | "loop-splitting"
//!           | "delaying-" decision | "branch-distribution" [ "-" decision ]
//!           | "occlusion-query-loop-" N | "branch-path-unification-" N
//!           | "speculative-reconvergence-" N "-" N | "collaborative-context-collection"
//! decision  = "majority-vote-" N [ "-stop" ] | "round-robin-" N "-" N [ "-idle-removal" ]
//!           | "cost-balanced"
//! ```
//!
//! ```
//! use reconverge_transforms::{Assignment, Decision, Strategy};
//!
//! let vote = Strategy::iteration_delaying(Decision::majority_vote(8, true)).over(Assignment::Dynamic);
//! assert_eq!(vote.id().to_string(), "delaying-majority-vote-8-stop-dynamic");
//! assert_eq!("delaying-majority-vote-8-stop-dynamic".parse(), Ok(vote));
//! assert_eq!("grid-wide-dynamic-work".parse(), Ok(Strategy::GRID_WIDE_DYNAMIC_WORK));
//! assert!("delaying-majority-vote".parse::<Strategy>().is_err());
//! ```

use core::fmt;
use core::str::FromStr;

use crate::composition::PathSchedule;
use crate::strategies::Assignment;
use crate::strategy::{Decision, Strategy};

/// [`Strategy::id`]: writes the strategy's id (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyId(Strategy);

impl Strategy {
    /// The strategy's id, unique and parsed back by `FromStr` (`delaying-round-robin-3-1-idle-removal`,
    /// `branch-distribution-cost-balanced-dynamic`); [`Strategy::name`] is the same without the
    /// numbers, `Display` the text for people.
    pub const fn id(&self) -> StrategyId {
        StrategyId(*self)
    }
}

impl fmt::Display for StrategyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Strategy { items, paths } = self.0;
        match paths {
            // The names these have had since before strategies were compositions.
            PathSchedule::AsWritten => {
                return f.write_str(match items {
                    Assignment::Static => "baseline",
                    Assignment::Dynamic => "dynamic-work-assignment",
                    Assignment::GridWide => "grid-wide-dynamic-work",
                    Assignment::Remapped => "thread-data-remapping",
                });
            }
            PathSchedule::Predication => f.write_str("predication")?,
            PathSchedule::StaticBranchResolution => f.write_str("static-branch-resolution")?,
            PathSchedule::BranchSplitting => f.write_str("branch-splitting")?,
            PathSchedule::ZCullMasking => f.write_str("z-cull-masking")?,
            PathSchedule::LoopSplitting => f.write_str("loop-splitting")?,
            PathSchedule::IterationDelaying(d) => write!(f, "delaying-{}", DecisionId(d))?,
            PathSchedule::BranchDistribution { delaying: None } => {
                f.write_str("branch-distribution")?;
            }
            PathSchedule::BranchDistribution { delaying: Some(d) } => {
                write!(f, "branch-distribution-{}", DecisionId(d))?;
            }
            PathSchedule::OcclusionQueryLoop {
                iterations_per_pass,
            } => write!(f, "occlusion-query-loop-{iterations_per_pass}")?,
            PathSchedule::BranchPathUnification { items_per_thread } => {
                write!(f, "branch-path-unification-{items_per_thread}")?;
            }
            PathSchedule::SpeculativeReconvergence {
                threshold,
                max_wait,
            } => write!(f, "speculative-reconvergence-{threshold}-{max_wait}")?,
            PathSchedule::CollaborativeContextCollection => {
                f.write_str("collaborative-context-collection")?;
            }
        }
        f.write_str(match items {
            Assignment::Static => "",
            Assignment::Dynamic => DYNAMIC,
            Assignment::GridWide => GRID_WIDE,
            Assignment::Remapped => REMAPPED,
        })
    }
}

const DYNAMIC: &str = "-dynamic";
const GRID_WIDE: &str = "-grid-wide";
const REMAPPED: &str = "-remapped";

struct DecisionId(Decision);

impl fmt::Display for DecisionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes,
            } => write!(
                f,
                "majority-vote-{threshold}{}",
                if stop_when_a_lane_finishes {
                    "-stop"
                } else {
                    ""
                }
            ),
            Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            } => write!(
                f,
                "round-robin-{num_zeros}-{num_ones}{}",
                if remove_idle { "-idle-removal" } else { "" }
            ),
            Decision::CostBalanced => f.write_str("cost-balanced"),
        }
    }
}

/// A text that is not a strategy id: what was expected there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseStrategyError {
    /// What the text lacked, as the grammar of [`crate::strategy_id`] names it.
    pub expected: &'static str,
}

impl fmt::Display for ParseStrategyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a strategy id: expected {} (ids such as baseline, grid-wide-dynamic-work, \
             delaying-majority-vote-8-stop, delaying-round-robin-3-1-idle-removal-dynamic, \
             branch-distribution-cost-balanced-dynamic, occlusion-query-loop-8, \
             branch-path-unification-16)",
            self.expected
        )
    }
}

impl core::error::Error for ParseStrategyError {}

const fn expected(what: &'static str) -> ParseStrategyError {
    ParseStrategyError { expected: what }
}

/// A decimal number, the whole of `s`.
fn number(s: &str) -> Result<u32, ParseStrategyError> {
    s.parse().map_err(|_| expected("a number"))
}

fn decision(s: &str) -> Result<Decision, ParseStrategyError> {
    if s == "cost-balanced" {
        return Ok(Decision::CostBalanced);
    }
    if let Some(rest) = s.strip_prefix("majority-vote-") {
        let (n, stop) = match rest.strip_suffix("-stop") {
            Some(n) => (n, true),
            None => (rest, false),
        };
        return Ok(Decision::majority_vote(number(n)?, stop));
    }
    if let Some(rest) = s.strip_prefix("round-robin-") {
        let (numbers, idle) = match rest.strip_suffix("-idle-removal") {
            Some(n) => (n, true),
            None => (rest, false),
        };
        let (zeros, ones) = numbers
            .split_once('-')
            .ok_or(expected("round-robin-ZEROS-ONES"))?;
        return Ok(Decision::round_robin(number(zeros)?, number(ones)?, idle));
    }
    Err(expected(
        "a decision: majority-vote-N[-stop], round-robin-N-N[-idle-removal] or cost-balanced",
    ))
}

impl FromStr for Strategy {
    type Err = ParseStrategyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "baseline" => return Ok(Strategy::BASELINE),
            "dynamic-work-assignment" => return Ok(Strategy::DYNAMIC_WORK_ASSIGNMENT),
            "grid-wide-dynamic-work" => return Ok(Strategy::GRID_WIDE_DYNAMIC_WORK),
            "thread-data-remapping" => return Ok(Strategy::THREAD_DATA_REMAPPING),
            _ => {}
        }
        let (schedule, items) = if let Some(rest) = s.strip_suffix(REMAPPED) {
            (rest, Assignment::Remapped)
        } else if let Some(rest) = s.strip_suffix(GRID_WIDE) {
            (rest, Assignment::GridWide)
        } else if let Some(rest) = s.strip_suffix(DYNAMIC) {
            (rest, Assignment::Dynamic)
        } else {
            (s, Assignment::Static)
        };
        let paths = match schedule {
            "predication" => PathSchedule::Predication,
            "static-branch-resolution" => PathSchedule::StaticBranchResolution,
            "branch-splitting" => PathSchedule::BranchSplitting,
            "z-cull-masking" => PathSchedule::ZCullMasking,
            "loop-splitting" => PathSchedule::LoopSplitting,
            "branch-distribution" => PathSchedule::BranchDistribution { delaying: None },
            "collaborative-context-collection" => PathSchedule::CollaborativeContextCollection,
            other => {
                if let Some(d) = other.strip_prefix("delaying-") {
                    PathSchedule::IterationDelaying(decision(d)?)
                } else if let Some(d) = other.strip_prefix("branch-distribution-") {
                    PathSchedule::BranchDistribution {
                        delaying: Some(decision(d)?),
                    }
                } else if let Some(n) = other.strip_prefix("occlusion-query-loop-") {
                    PathSchedule::OcclusionQueryLoop {
                        iterations_per_pass: number(n)?,
                    }
                } else if let Some(n) = other.strip_prefix("speculative-reconvergence-") {
                    let (threshold, max_wait) = n
                        .split_once('-')
                        .ok_or(expected("speculative-reconvergence-THRESHOLD-MAX_WAIT"))?;
                    PathSchedule::SpeculativeReconvergence {
                        threshold: number(threshold)?,
                        max_wait: number(max_wait)?,
                    }
                } else if let Some(n) = other.strip_prefix("branch-path-unification-") {
                    PathSchedule::BranchPathUnification {
                        items_per_thread: number(n)?,
                    }
                } else {
                    return Err(expected("a path schedule"));
                }
            }
        };
        Ok(Strategy::new(items, paths))
    }
}
