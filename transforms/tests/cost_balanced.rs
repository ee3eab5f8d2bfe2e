//! Cost-balanced delaying (`Decision::CostBalanced`): the rare taken path waits, the common
//! path never does, and the waiting lanes never idle more than one issue of the taken path
//! costs. Checked on the reference model against dynamic work assignment (the same loop
//! without delaying) on a loop whose taken path is rare and long, as MCML's boundary is.

mod common;

use common::{Launch, Run, draw, run_complete};
use reconverge_transforms::{
    Assignment, BranchLoop, BranchLoopKernel, Decision, LoopRegion, LoopRegions, Strategy, Tally,
};

/// Items of `trips` iterations; iteration `k` of item `i` takes the taken path with
/// probability `percent`% (a hash of `(i, k)`). The output folds in the path of every
/// iteration, in order, so a strategy that skipped, repeated or reordered an iteration of an
/// item would change it.
#[derive(Clone, Copy, Debug)]
struct RarePath {
    trips: u32,
    percent: u64,
    taken_cost: u32,
}

#[derive(Clone, Copy, Debug)]
struct S {
    item: u32,
    k: u32,
    trace: u64,
}

impl BranchLoop for RarePath {
    type State = S;
    type Output = u64;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([
            LoopRegion::Condition.region("condition", 10),
            LoopRegion::Taken.region("rare path", self.taken_cost),
            LoopRegion::NotTaken.region("common path", 20),
            LoopRegion::AfterBranch.region("after", 2),
            LoopRegion::Item.region("item", 4),
        ])
    }
    fn start(&self, item: u32) -> S {
        S {
            item,
            k: 0,
            trace: 0,
        }
    }
    fn running(&self, s: &S) -> bool {
        // Items differ in length, so dynamic work keeps refilling lanes.
        s.k < self.trips + (s.item % 7) * 10
    }
    fn condition(&self, s: &mut S) -> bool {
        draw(11, u64::from(s.item), u64::from(s.k), 100) < self.percent
    }
    fn taken<T: Tally>(&self, s: &mut S, _: &mut T) {
        s.trace = s.trace.wrapping_mul(31).wrapping_add(1);
    }
    fn not_taken<T: Tally>(&self, s: &mut S, _: &mut T) {
        s.trace = s.trace.wrapping_mul(31).wrapping_add(2);
    }
    fn after_branch<T: Tally>(&self, s: &mut S, _: &mut T) {
        s.k += 1;
    }
    fn finish(&self, s: &S) -> u64 {
        s.trace ^ u64::from(s.k) << 48
    }
}

const LAUNCH: Launch = Launch::new(3000, 4, 128);
const DYNAMIC: Strategy = Strategy::DYNAMIC_WORK_ASSIGNMENT;
const BALANCED: Strategy =
    Strategy::iteration_delaying(Decision::CostBalanced).over(Assignment::Dynamic);

fn run(workload: RarePath, strategy: Strategy) -> Run<u64> {
    run_complete(&BranchLoopKernel(workload), &strategy, LAUNCH)
}

/// (issues, lanes per issue) of a region.
fn issues(run: &Run<u64>, region: LoopRegion, cost: u32) -> (u64, f64) {
    let row = run
        .counters
        .region(region.region("", cost))
        .expect("the region ran");
    (
        row.issues,
        row.active_lane_slots as f64 / row.issue_slots as f64,
    )
}

#[test]
fn items_come_out_as_without_delaying() {
    for percent in [0, 3, 30, 100] {
        let w = RarePath {
            trips: 40,
            percent,
            taken_cost: 200,
        };
        assert_eq!(
            run(w, BALANCED).outputs,
            run(w, DYNAMIC).outputs,
            "{percent}%"
        );
    }
}

#[test]
fn a_rare_long_path_is_issued_for_several_lanes_at_once() {
    // B = 32 · 200 / (10 + 20 + 2) = 200 lane-iterations.
    let w = RarePath {
        trips: 200,
        percent: 3,
        taken_cost: 200,
    };
    let (dynamic_issues, dynamic_lanes) = issues(&run(w, DYNAMIC), LoopRegion::Taken, 200);
    let balanced = run(w, BALANCED);
    let (balanced_issues, balanced_lanes) = issues(&balanced, LoopRegion::Taken, 200);
    // About one lane of 32 wants the path per iteration: undelayed, most issues run one or two
    // lanes; batched, several.
    assert!(dynamic_lanes < 2.0, "{dynamic_lanes}");
    assert!(
        balanced_lanes > 2.0 * dynamic_lanes,
        "{balanced_lanes} vs {dynamic_lanes}"
    );
    assert!(
        balanced_issues * 2 < dynamic_issues,
        "{balanced_issues} vs {dynamic_issues}"
    );
    // The common path never waits, so its issues grow only by what the waiting lanes'
    // iterations add at the end of a warp's work: the batches cost fewer issue slots in all.
    let total = |r: &Run<u64>| r.counters.issue_slots();
    assert!(total(&balanced) < total(&run(w, DYNAMIC)));
}

#[test]
fn a_path_cheaper_than_one_lane_iteration_never_waits() {
    // B = 32 · 1 / 32 = 1: a lane waiting one iteration already costs as much as an issue.
    let w = RarePath {
        trips: 100,
        percent: 10,
        taken_cost: 1,
    };
    let dynamic = issues(&run(w, DYNAMIC), LoopRegion::Taken, 1);
    let balanced = issues(&run(w, BALANCED), LoopRegion::Taken, 1);
    assert_eq!(balanced.0, dynamic.0);
}
