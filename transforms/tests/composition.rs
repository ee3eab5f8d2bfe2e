//! Strategies as compositions of how lanes get items and how a warp schedules paths: every
//! pairing is a strategy with those parts, which some program implements or which
//! [`Strategy::pairing`] refuses with a typed error naming what pairs instead; the parts agree
//! with what the strategy says of itself elsewhere (`deals_dynamically`, `deals_across_blocks`,
//! `runs_per_thread`), and each pairing prints its own text. `cpu-fallback/tests/composition.rs`
//! runs every pairing on every shape.

use std::collections::HashSet;

use reconverge_transforms::{Assignment, Decision, PathSchedule, Strategy, StrategyError};

/// Decisions beside [`PathSchedule::EVERY_KIND`]'s (seed 002's majority vote of 8 with its stop
/// rule).
const DECISIONS: [Decision; 4] = [
    Decision::majority_vote(4, true),
    Decision::majority_vote(16, false),
    Decision::round_robin(3, 1, true),
    Decision::CostBalanced,
];

fn schedules() -> Vec<PathSchedule> {
    let mut out = PathSchedule::EVERY_KIND.to_vec();
    for d in DECISIONS {
        out.push(PathSchedule::IterationDelaying(d));
        out.push(PathSchedule::BranchDistribution { delaying: Some(d) });
    }
    out
}

const ASSIGNMENTS: [Assignment; 4] = Assignment::ALL;

#[test]
fn every_pairing_is_paired_or_refused_naming_what_pairs_instead() {
    let mut paired = 0;
    for items in ASSIGNMENTS {
        for paths in schedules() {
            let strategy = Strategy::new(items, paths);
            assert_eq!((strategy.items, strategy.paths), (items, paths));
            match strategy.pairing() {
                Ok(()) => paired += 1,
                Err(e) => {
                    assert_eq!((e.items, e.paths), (items, paths));
                    assert!(!e.pairs_with.is_empty() && !e.pairs_with.contains(&items));
                    let said = e.to_string();
                    assert!(said.contains(&paths.to_string()), "{said}");
                    assert!(said.contains(&items.to_string()), "{said}");
                    for other in e.pairs_with {
                        assert!(said.contains(&format!("Assignment::{other:?}")), "{said}");
                        assert_eq!(strategy.over(*other).pairing(), Ok(()), "{said}");
                    }
                    // A shape's refusal of such a strategy is this error, not "not applicable".
                    assert_eq!(
                        StrategyError::not_applicable(strategy, "any shape"),
                        StrategyError::Unpaired(e)
                    );
                }
            }
        }
    }
    // A loop's schedules (as written, 5 delaying, distribution without and with 5 delaying
    // decisions, speculative reconvergence) pair with all four assignments (thread-data
    // remapping included: whether a workload has a key is its kernel's question), collaborative
    // context collection with the three that deal items; the 7 per-item and multi-pass ones
    // with static only.
    assert_eq!(paired, 4 * (1 + 5 + 1 + 5 + 1) + 3 + 7);
}

#[test]
fn parts_agree_with_what_a_strategy_says_of_its_dealing() {
    for items in ASSIGNMENTS {
        for paths in schedules() {
            let strategy = Strategy::new(items, paths);
            assert_eq!(
                strategy.deals_dynamically(),
                matches!(items, Assignment::Dynamic | Assignment::GridWide),
                "{strategy}"
            );
            assert_eq!(
                strategy.deals_across_blocks(),
                items == Assignment::GridWide,
                "{strategy}"
            );
            // A warp's lanes agree on nothing where each thread's code is its own.
            assert_eq!(
                strategy.runs_per_thread(),
                paths == PathSchedule::AsWritten
                    || paths == PathSchedule::BranchDistribution { delaying: None },
                "{strategy}"
            );
        }
    }
}

#[test]
fn every_pairing_prints_its_own_text_and_the_papers_names() {
    let mut texts = HashSet::new();
    for items in ASSIGNMENTS {
        for paths in schedules() {
            let s = Strategy::new(items, paths);
            assert!(texts.insert(s.to_string()), "{s} printed twice");
        }
    }
    let s = Strategy::branch_distribution_with_delaying(Decision::round_robin(3, 1, true))
        .over(Assignment::Dynamic);
    assert_eq!(
        s.to_string(),
        "branch distribution, iteration delaying, round robin 3:1, idle removal, over dynamic \
         work assignment"
    );
    assert_eq!(
        Strategy::GRID_WIDE_DYNAMIC_WORK.to_string(),
        "dynamic work assignment, one grid-wide counter"
    );
    assert_eq!(Strategy::BASELINE.to_string(), "baseline");
    assert_eq!(
        Strategy::iteration_delaying(Decision::CostBalanced)
            .over(Assignment::GridWide)
            .name(),
        "delaying-cost-balanced-grid-wide"
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
            all.push(Strategy::new(items, paths));
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
    let vote = Strategy::iteration_delaying(Decision::majority_vote(8, true));
    let other_vote = vote.with_parameters(StrategyParameters { words: [13, 0, 0] });
    assert_eq!(
        other_vote,
        Strategy::iteration_delaying(Decision::majority_vote(13, true))
    );
    let no_stop = Strategy::iteration_delaying(Decision::majority_vote(8, false));
    assert!(!vote.same_technique(&no_stop) && vote.same_kind(&no_stop));
    let cycle = Strategy::iteration_delaying(Decision::round_robin(3, 1, true));
    assert!(!vote.same_technique(&cycle) && vote.same_kind(&cycle));
    assert_eq!(cycle.parameters().words, [3, 1, 0]);
    assert_eq!(
        Strategy::BASELINE.parameters(),
        StrategyParameters::default()
    );
}

/// Every pairing's id is its own and parses back to it; the ids keep the papers' names, and a
/// text that is not an id says what it lacked.
#[test]
fn every_strategy_has_a_unique_id_that_parses_back() {
    let mut ids = HashSet::new();
    for items in ASSIGNMENTS {
        for paths in schedules() {
            let s = Strategy::new(items, paths);
            let id = s.id().to_string();
            assert!(ids.insert(id.clone()), "{id} twice");
            assert_eq!(id.parse::<Strategy>(), Ok(s), "{id}");
            // File names and command lines: lower case, digits and dashes only.
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{id}"
            );
            // The id is the short name with the numbers and the stop rule.
            let without: Vec<&str> = id
                .split('-')
                .filter(|w| *w != "stop" && !w.chars().all(|c| c.is_ascii_digit()))
                .collect();
            assert_eq!(without.join("-"), s.name(), "{id}");
        }
    }
    for bad in [
        "",
        "delaying-majority-vote",
        "delaying-round-robin-3",
        "delaying-round-robin-x-1",
        "occlusion-query-loop-",
        "baseline-dynamic-extra",
        "Baseline",
    ] {
        let e = bad.parse::<Strategy>().unwrap_err();
        assert!(e.to_string().contains("expected"), "{bad}: {e}");
    }
}
