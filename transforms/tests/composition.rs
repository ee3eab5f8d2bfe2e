//! Strategies as compositions of how lanes get items and how a warp schedules paths: every
//! strategy's parts compose back to it, every pairing either composes to a strategy with those
//! parts or is refused with a typed error, and the parts agree with what the strategy says of
//! itself elsewhere (`deals_dynamically`, `deals_across_blocks`).

use reconverge_transforms::{Assignment, Composition, Decision, PathSchedule, Strategy};

const DECISIONS: [Decision; 4] = [
    Decision::majority_vote(8, true),
    Decision::majority_vote(16, false),
    Decision::round_robin(3, 1, true),
    Decision::CostBalanced,
];

fn schedules() -> Vec<PathSchedule> {
    let mut out = vec![
        PathSchedule::AsWritten,
        PathSchedule::BranchDistribution,
        PathSchedule::Predication,
        PathSchedule::StaticBranchResolution,
        PathSchedule::BranchSplitting,
        PathSchedule::ZCullMasking,
        PathSchedule::LoopSplitting,
        PathSchedule::OcclusionQueryLoop {
            iterations_per_pass: 4,
        },
        PathSchedule::BranchPathUnification {
            items_per_thread: 16,
        },
    ];
    for d in DECISIONS {
        out.push(PathSchedule::IterationDelaying(d));
        out.push(PathSchedule::BranchDistributionWithDelaying(d));
    }
    out
}

const ASSIGNMENTS: [Assignment; 3] = [
    Assignment::Static,
    Assignment::Dynamic,
    Assignment::GridWide,
];

#[test]
fn every_pairing_composes_to_its_parts_or_is_refused_with_them() {
    let mut composed = Vec::new();
    for items in ASSIGNMENTS {
        for paths in schedules() {
            let pair = Composition::new(items, paths);
            match pair.strategy() {
                Ok(strategy) => {
                    assert_eq!(strategy.parts(), pair, "{strategy}");
                    composed.push(strategy);
                }
                Err(e) => {
                    assert_eq!((e.items, e.paths), (items, paths));
                    let said = e.to_string();
                    assert!(said.contains(&paths.to_string()), "{said}");
                    assert!(said.contains(&items.to_string()), "{said}");
                }
            }
        }
    }
    // Today's strategies, each once per parameter: 3 assignments as written, 2 x 4 delaying,
    // 2 distribution, 4 distribution with delaying, 5 per-item or multi-pass techniques and 2
    // parameterised ones.
    assert_eq!(composed.len(), 3 + 8 + 2 + 4 + 5 + 2);
    for (i, a) in composed.iter().enumerate() {
        assert!(!composed[i + 1..].contains(a), "{a} composed twice");
    }
}

#[test]
fn parts_agree_with_what_a_strategy_says_of_its_dealing() {
    for items in ASSIGNMENTS {
        for paths in schedules() {
            let Ok(strategy) = Composition::new(items, paths).strategy() else {
                continue;
            };
            assert_eq!(
                strategy.deals_dynamically(),
                items != Assignment::Static,
                "{strategy}"
            );
            assert_eq!(
                strategy.deals_across_blocks(),
                items == Assignment::GridWide,
                "{strategy}"
            );
            assert_eq!(
                strategy.runs_per_thread(),
                paths == PathSchedule::AsWritten,
                "{strategy}"
            );
        }
    }
}

#[test]
fn a_composition_prints_both_parts_with_their_parameters() {
    let s = Strategy::BranchDistributionWithDelaying(Decision::round_robin(3, 1, true));
    assert_eq!(
        s.parts().to_string(),
        "branch distribution with iteration delaying (round robin 3:1, idle removal) over \
         dynamic work assignment (block counter)"
    );
    assert_eq!(
        Strategy::GridWideDynamicWork.parts().to_string(),
        "paths as written over dynamic work assignment (grid-wide counter)"
    );
}

/// What a GPU entry point takes at run time: a strategy's numbers go out as words and come
/// back into the same technique unchanged; another strategy's numbers never change the
/// technique (variant, decision, switches); and two strategies share an entry point exactly
/// when one's numbers turn the other into it.
#[test]
fn numbers_travel_as_words_and_keep_the_technique() {
    use reconverge_transforms::StrategyParameters;
    let mut all = Vec::new();
    for items in ASSIGNMENTS {
        for paths in schedules() {
            if let Ok(s) = Composition::new(items, paths).strategy() {
                all.push(s);
            }
        }
    }
    for &s in &all {
        assert_eq!(s.with_parameters(s.parameters()), s, "{s}");
        for &other in &all {
            let moved = s.with_parameters(other.parameters());
            assert!(
                moved.same_technique(&s),
                "{s} with {other}'s numbers: {moved}"
            );
            assert_eq!(s.same_technique(&other), moved == other, "{s} vs {other}");
            assert!(!s.same_technique(&other) || s.same_kind(&other));
        }
        // A technique has numbers exactly when some numbers make another strategy of it.
        let (ones, twos) = (
            StrategyParameters { words: [1; 3] },
            StrategyParameters { words: [2; 3] },
        );
        assert_eq!(
            s.has_parameters(),
            s.with_parameters(ones) != s.with_parameters(twos),
            "{s}"
        );
    }
    let vote = Strategy::IterationDelaying(Decision::majority_vote(8, true));
    let other_vote = vote.with_parameters(StrategyParameters { words: [13, 0, 0] });
    assert_eq!(
        other_vote,
        Strategy::IterationDelaying(Decision::majority_vote(13, true))
    );
    let no_stop = Strategy::IterationDelaying(Decision::majority_vote(8, false));
    assert!(!vote.same_technique(&no_stop) && vote.same_kind(&no_stop));
    let cycle = Strategy::IterationDelaying(Decision::round_robin(3, 1, true));
    assert!(!vote.same_technique(&cycle) && vote.same_kind(&cycle));
    assert_eq!(cycle.parameters().words, [3, 1, 0]);
    assert_eq!(
        Strategy::Baseline.parameters(),
        StrategyParameters::default()
    );
}
