//! The tuner against a full grid of the same parameters, on seed 002's SYN-ITDELAY.

use reconverge_advisor::{Family, Options, grid, tune};
use reconverge_backend::Launch;
use reconverge_transforms::{Assignment, BranchLoopKernel, ItemLoopKernel, Strategy};
use reconverge_workloads::synthetic::{DynamicWork, SynItDelay};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn check(tuned: &reconverge_advisor::Tuned, full: &reconverge_advisor::Tuned, what: &str) {
    eprintln!(
        "{what}: tuner {} {:.4}x in {} runs; grid {} {:.4}x in {} runs",
        tuned.best, tuned.speedup, tuned.model_runs, full.best, full.speedup, full.model_runs
    );
    assert!(
        tuned.speedup >= 0.97 * full.speedup,
        "{what}: tuner {} ({}) vs grid {} ({})",
        tuned.best,
        tuned.speedup,
        full.best,
        full.speedup
    );
    assert!(
        tuned.model_runs < full.model_runs,
        "{what}: {} runs vs the grid's {}",
        tuned.model_runs,
        full.model_runs
    );
    // The grid's best is the maximum of what it evaluated, and the tuner reports a point it ran.
    let max = full.evaluated.iter().map(|e| e.1).fold(0.0, f64::max);
    assert_eq!(full.speedup, max);
    assert!(tuned.evaluated.iter().any(|e| e.0 == tuned.best));
}

#[test]
fn tuner_matches_the_grid_on_syn_itdelay_in_fewer_runs() -> TestResult {
    let launch = Launch::new(64, 4)?;
    let options = Options::default();
    // Table 1's r = 8 at f = 10 % and fig. 10's f = 50 %: the best threshold moves with f.
    for f in [0.1, 0.5] {
        let kernel = BranchLoopKernel(SynItDelay::with_branch_ratio(8.0, 16, f, 1));
        for family in [
            Family::MajorityVote {
                stop_when_a_lane_finishes: true,
                items: Assignment::Static,
            },
            Family::RoundRobin {
                remove_idle: false,
                items: Assignment::Static,
                max_run: 6,
            },
        ] {
            let tuned = tune(&kernel, 256, launch, family, &options)?;
            let full = grid(&kernel, 256, launch, family, &options)?;
            check(&tuned, &full, &format!("f = {f}, {}", family.name()));
        }
    }
    Ok(())
}

#[test]
fn tuner_finds_iterations_per_pass_and_reports_bad_ranges() -> TestResult {
    let kernel = ItemLoopKernel(DynamicWork::new(2, 40, 5));
    let launch = Launch::new(64, 2)?;
    let family = Family::OcclusionQueryLoop {
        max_iterations_per_pass: 48,
    };
    let tuned = tune(&kernel, 256, launch, family, &Options::default())?;
    let full = grid(&kernel, 256, launch, family, &Options::default())?;
    check(&tuned, &full, "occlusion-query loop");
    // More iterations per pass, fewer launches: the model's best is a pass long enough to
    // finish every item at once (trip counts are at most 40).
    assert!(
        matches!(full.best.paths, reconverge_transforms::PathSchedule::OcclusionQueryLoop { iterations_per_pass } if iterations_per_pass >= 40),
        "{}",
        full.best
    );
    let empty = Family::BranchPathUnification {
        max_items_per_thread: 0,
    };
    assert!(tune(&kernel, 256, launch, empty, &Options::default()).is_err());
    assert_eq!(
        Family::of(&Strategy::branch_path_unification(4)),
        Some(Family::BranchPathUnification {
            max_items_per_thread: 64
        })
    );
    assert_eq!(Family::of(&Strategy::BASELINE), None);
    Ok(())
}

/// The candidates of a measured search over numbers: the listed strategies first, then every
/// point of each family, each once; a strategy without numbers adds nothing.
#[test]
fn parameter_grids_cover_each_family_once() {
    use reconverge_advisor::{ParameterGrid, parameter_grid};
    use reconverge_transforms::Decision;
    let vote = Strategy::iteration_delaying(Decision::majority_vote(8, true));
    let cycle = Strategy::iteration_delaying(Decision::round_robin(3, 1, true));
    let listed = [Strategy::BASELINE, vote, cycle];
    assert_eq!(parameter_grid(&listed, ParameterGrid::Listed), listed);
    let full = parameter_grid(&listed, ParameterGrid::Full);
    // 32 thresholds and 8 x 8 cycles, the listed ones among them, and the baseline.
    assert_eq!(full.len(), 1 + 32 + 64);
    assert_eq!(full[..2], listed[..2]);
    for threshold in 1..=32 {
        let s = Strategy::iteration_delaying(Decision::majority_vote(threshold, true));
        assert_eq!(full.iter().filter(|&&x| x == s).count(), 1, "{s}");
    }
    assert!(
        full.contains(&Strategy::iteration_delaying(Decision::round_robin(
            8, 7, true
        )))
    );
    // Never a vote that does not stop, nor a cycle without idle removal: the family keeps them.
    assert!(
        !full.contains(&Strategy::iteration_delaying(Decision::majority_vote(
            8, false
        )))
    );
    let coarse = parameter_grid(&listed, ParameterGrid::Coarse);
    assert!(coarse.len() < full.len() && coarse.len() > listed.len());
    assert!(coarse.iter().all(|s| full.contains(s)));
}
