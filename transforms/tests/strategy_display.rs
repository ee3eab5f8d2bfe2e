//! `Strategy`'s `Display`: every parameter printed, and no two strategies with the same text.

use reconverge_transforms::{Assignment, Decision, Strategy, StrategyError};

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
        Strategy::BASELINE,
        Strategy::PREDICATION,
        Strategy::STATIC_BRANCH_RESOLUTION,
        Strategy::BRANCH_SPLITTING,
        Strategy::Z_CULL_MASKING,
        Strategy::LOOP_SPLITTING,
        Strategy::BRANCH_DISTRIBUTION,
        Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
        Strategy::DYNAMIC_WORK_ASSIGNMENT,
    ];
    for d in decisions() {
        s.push(Strategy::iteration_delaying(d));
        s.push(Strategy::iteration_delaying(d).over(Assignment::Dynamic));
        s.push(Strategy::branch_distribution_with_delaying(d).over(Assignment::Dynamic));
    }
    for k in [0, 1, 8, 11, 32, u32::MAX] {
        s.push(Strategy::occlusion_query_loop(k));
        s.push(Strategy::branch_path_unification(k));
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
            Strategy::iteration_delaying(Decision::MajorityVote {
                threshold: 8,
                stop_when_a_lane_finishes: true,
            }),
            "iteration delaying, majority vote, threshold 8, stop when a lane finishes",
        ),
        (
            Strategy::iteration_delaying(Decision::MajorityVote {
                threshold: 16,
                stop_when_a_lane_finishes: false,
            }),
            "iteration delaying, majority vote, threshold 16",
        ),
        (
            Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros: 3,
                num_ones: 1,
                remove_idle: true,
            }),
            "iteration delaying, round robin 3:1, idle removal",
        ),
        (
            Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros: 1,
                num_ones: 9,
                remove_idle: false,
            })
            .over(Assignment::Dynamic),
            "iteration delaying, round robin 1:9, over dynamic work assignment",
        ),
        (
            Strategy::branch_distribution_with_delaying(Decision::CostBalanced)
                .over(Assignment::Dynamic),
            "branch distribution, iteration delaying, cost-balanced, over dynamic work assignment",
        ),
        (
            Strategy::branch_path_unification(16),
            "branch path unification, 16 items per thread",
        ),
        (
            Strategy::occlusion_query_loop(8),
            "occlusion-query loop, 8 iterations per pass",
        ),
        (
            Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
            "branch distribution, over dynamic work assignment",
        ),
        (Strategy::Z_CULL_MASKING, "z-cull masking"),
    ];
    for (s, text) in cases {
        assert_eq!(s.to_string(), text);
    }
}

#[test]
fn name_stays_short_and_errors_print_parameters() {
    let s = Strategy::iteration_delaying(Decision::MajorityVote {
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
