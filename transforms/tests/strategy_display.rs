//! `Strategy`'s `Display`: every parameter printed, and no two strategies with the same text.

use reconverge_transforms::{Decision, Strategy, StrategyError};

fn decisions() -> Vec<Decision> {
    let mut d = Vec::new();
    for threshold in [1, 8, 16, 32] {
        for stop_when_a_lane_finishes in [false, true] {
            d.push(Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes,
            });
        }
    }
    // (1, 3) and (3, 1), (1, 1) and (11, 1) / (1, 11): texts that a sloppy format (no
    // separator, or the cycle as a percentage) would merge.
    for (num_zeros, num_ones) in [(1, 1), (3, 1), (1, 3), (2, 2), (11, 1), (1, 11), (9, 1)] {
        for remove_idle in [false, true] {
            d.push(Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            });
        }
    }
    d.push(Decision::CostBalanced);
    d
}

/// Every variant, the parameterised ones with several values.
fn representative() -> Vec<Strategy> {
    let mut s = vec![
        Strategy::Baseline,
        Strategy::Predication,
        Strategy::StaticBranchResolution,
        Strategy::BranchSplitting,
        Strategy::ZCullMasking,
        Strategy::LoopSplitting,
        Strategy::BranchDistribution,
        Strategy::BranchDistributionWithDynamicWork,
        Strategy::DynamicWorkAssignment,
    ];
    for d in decisions() {
        s.push(Strategy::IterationDelaying(d));
        s.push(Strategy::IterationDelayingWithDynamicWork(d));
        s.push(Strategy::BranchDistributionWithDelaying(d));
    }
    for k in [0, 1, 8, 11, 32, u32::MAX] {
        s.push(Strategy::OcclusionQueryLoop {
            iterations_per_pass: k,
        });
        s.push(Strategy::BranchPathUnification {
            items_per_thread: k,
        });
    }
    s
}

#[test]
fn different_strategies_print_differently() {
    let all = representative();
    // The variants the enum has today; a new one should be added above.
    assert!(all.len() > 60);
    let texts: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    for i in 0..all.len() {
        assert!(!texts[i].is_empty());
        for j in 0..i {
            assert_ne!(all[i], all[j], "representative set has a duplicate");
            assert_ne!(
                texts[i], texts[j],
                "{:?} and {:?} print the same",
                all[i], all[j]
            );
        }
    }
}

#[test]
fn texts_carry_the_parameters() {
    let cases = [
        (
            Strategy::IterationDelaying(Decision::MajorityVote {
                threshold: 8,
                stop_when_a_lane_finishes: true,
            }),
            "iteration delaying, majority vote, threshold 8, stop when a lane finishes",
        ),
        (
            Strategy::IterationDelaying(Decision::MajorityVote {
                threshold: 16,
                stop_when_a_lane_finishes: false,
            }),
            "iteration delaying, majority vote, threshold 16",
        ),
        (
            Strategy::IterationDelaying(Decision::RoundRobin {
                num_zeros: 3,
                num_ones: 1,
                remove_idle: true,
            }),
            "iteration delaying, round robin 3:1, idle removal",
        ),
        (
            Strategy::IterationDelayingWithDynamicWork(Decision::RoundRobin {
                num_zeros: 1,
                num_ones: 9,
                remove_idle: false,
            }),
            "iteration delaying, round robin 1:9, over dynamic work assignment",
        ),
        (
            Strategy::BranchDistributionWithDelaying(Decision::CostBalanced),
            "branch distribution, iteration delaying, cost-balanced, over dynamic work assignment",
        ),
        (
            Strategy::BranchPathUnification {
                items_per_thread: 16,
            },
            "branch path unification, 16 items per thread",
        ),
        (
            Strategy::OcclusionQueryLoop {
                iterations_per_pass: 8,
            },
            "occlusion-query loop, 8 iterations per pass",
        ),
        (
            Strategy::BranchDistributionWithDynamicWork,
            "branch distribution, over dynamic work assignment",
        ),
        (Strategy::ZCullMasking, "z-cull masking"),
    ];
    for (s, text) in cases {
        assert_eq!(s.to_string(), text);
    }
}

#[test]
fn name_stays_short_and_errors_print_parameters() {
    let s = Strategy::IterationDelaying(Decision::MajorityVote {
        threshold: 8,
        stop_when_a_lane_finishes: true,
    });
    // File names keep the short form.
    assert_eq!(s.name(), "delaying-majority-vote");
    let e = StrategyError::NotApplicable {
        strategy: s,
        shape: "two-path branch",
    };
    assert_eq!(
        e.to_string(),
        "strategy iteration delaying, majority vote, threshold 8, stop when a lane finishes \
         does not apply to a two-path branch workload"
    );
}
