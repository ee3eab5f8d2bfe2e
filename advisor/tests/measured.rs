//! The measured tuner (successive halving) against timing every candidate, with times that
//! can be checked: the model's issue slots of each run (deterministic), and the CPU backend.

use std::time::Duration;

use reconverge_advisor::{
    AdviseError, Halving, backend_time, grid_measured, profile, tune_measured,
};
use reconverge_backend::{BackendError, Launch};
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{BranchLoopKernel, Decision, Kernel, Strategy};
use reconverge_workloads::synthetic::SynItDelay;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The SYN-ITDELAY strategies the GPU has entry points for (seed 002 table 1's settings).
fn itdelay_candidates() -> Vec<Strategy> {
    let mut c = vec![Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT];
    for threshold in [1, 8, 16, 24, 32] {
        c.push(Strategy::iteration_delaying(Decision::MajorityVote {
            threshold,
            stop_when_a_lane_finishes: true,
        }));
    }
    for remove_idle in [false, true] {
        for (num_zeros, num_ones) in [(9, 1), (7, 3), (1, 1), (3, 7), (1, 9)] {
            c.push(Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            }));
        }
    }
    c
}

/// A "time" for a run that the test can recompute: the model's issue slots, one nanosecond
/// each, so that the search's choice can be compared with the exact grid.
fn model_time<K: Kernel>(
    kernel: &K,
) -> impl FnMut(Strategy, u32) -> Result<Duration, BackendError> + '_ {
    move |strategy, items| {
        let launch = Launch::one_item_per_thread(items, 64)?;
        let run = profile(kernel, strategy, items, launch, u64::MAX).map_err(|e| {
            BackendError::Device {
                backend: "model",
                message: e.to_string(),
            }
        })?;
        Ok(Duration::from_nanos(run.counters.issue_slots()))
    }
}

#[test]
fn halving_finds_the_grids_best_for_a_tenth_of_its_item_runs() -> TestResult {
    let candidates = itdelay_candidates();
    let items = 8192;
    // Fig. 10's branch frequencies: the best threshold moves with f.
    for f in [0.1, 0.5, 0.9] {
        let kernel = BranchLoopKernel(SynItDelay::with_branch_ratio(8.0, 16, f, 1));
        let grid = grid_measured(&candidates, items, model_time(&kernel))?;
        let halving = Halving {
            min_items: 256,
            ..Halving::default()
        };
        let tuned = tune_measured(&candidates, items, &halving, model_time(&kernel))?;
        let best = grid.time_of(&grid.best).ok_or("grid best not timed")?;
        let pick = grid.time_of(&tuned.best).ok_or("pick not in the grid")?;
        eprintln!(
            "f = {f}: grid {} {best:?}; halving {} {pick:?} in {} item-runs of {}",
            grid.best,
            tuned.best,
            tuned.item_runs(),
            grid.item_runs()
        );
        assert!(
            pick.as_secs_f64() <= 1.03 * best.as_secs_f64(),
            "f = {f}: halving picked {} ({pick:?}), the grid's best is {} ({best:?})",
            tuned.best,
            grid.best
        );
        assert!(
            tuned.item_runs() as f64 <= 0.1 * grid.item_runs() as f64 + f64::from(items) * 0.01,
            "f = {f}: {} item-runs against the grid's {}",
            tuned.item_runs(),
            grid.item_runs()
        );
        // Every round times fewer candidates on a longer prefix than the one before.
        let mut rounds: Vec<(u32, usize)> = Vec::new();
        for t in &tuned.timings {
            match rounds.last_mut() {
                Some((items, n)) if *items == t.items => *n += 1,
                _ => rounds.push((t.items, 1)),
            }
        }
        assert!(rounds.len() >= 2, "{rounds:?}");
        assert!(
            rounds
                .windows(2)
                .all(|w| w[1].0 > w[0].0 && w[1].1 < w[0].1),
            "{rounds:?}"
        );
        assert_eq!(rounds[0].1, candidates.len());
    }
    Ok(())
}

#[test]
fn candidates_the_backend_cannot_run_are_skipped_and_listed() -> TestResult {
    // The CPU backend on a branch loop: branch splitting is a two-path strategy.
    let kernel = BranchLoopKernel(SynItDelay::with_branch_ratio(8.0, 8, 0.5, 3));
    let backend = CpuBackend::with_threads(1)?;
    let launch = |_, items| Launch::one_item_per_thread(items, 64);
    let candidates = [
        Strategy::BRANCH_SPLITTING,
        Strategy::BASELINE,
        Strategy::DYNAMIC_WORK_ASSIGNMENT,
    ];
    let halving = Halving {
        min_items: 64,
        ..Halving::default()
    };
    let tuned = tune_measured(
        &candidates,
        2048,
        &halving,
        backend_time(&backend, &kernel, launch),
    )?;
    assert_eq!(tuned.skipped.len(), 1);
    assert_eq!(tuned.skipped[0].0, Strategy::BRANCH_SPLITTING);
    assert!(
        tuned.skipped[0].1.contains("branch"),
        "{}",
        tuned.skipped[0].1
    );
    assert_ne!(tuned.best, Strategy::BRANCH_SPLITTING);
    assert!(
        tuned
            .timings
            .iter()
            .all(|t| t.strategy != Strategy::BRANCH_SPLITTING)
    );
    let grid = grid_measured(&candidates, 2048, backend_time(&backend, &kernel, launch))?;
    assert_eq!(grid.timings.len(), 2);
    assert_eq!(grid.item_runs(), 2 * 2048);
    Ok(())
}

#[test]
fn a_failing_run_is_an_error_naming_the_strategy() {
    let failing = |strategy: Strategy, _| {
        if strategy == Strategy::DYNAMIC_WORK_ASSIGNMENT {
            Err(BackendError::Device {
                backend: "test",
                message: "launch failed".into(),
            })
        } else {
            Ok(Duration::from_millis(1))
        }
    };
    let candidates = [Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT];
    let err = tune_measured(&candidates, 1000, &Halving::default(), failing).unwrap_err();
    assert!(
        matches!(
            err,
            AdviseError::Measure {
                strategy: Strategy::DYNAMIC_WORK_ASSIGNMENT,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("launch failed"), "{err}");
    let none = |_, _| {
        Err(BackendError::NotCompiled {
            backend: "test",
            message: "no entry point".into(),
        })
    };
    assert!(matches!(
        grid_measured(&candidates, 1000, none),
        Err(AdviseError::NothingRan)
    ));
}

#[test]
fn bad_options_are_refused_before_any_run() {
    let never = |_, _| -> Result<Duration, BackendError> { panic!("must not run") };
    let c = [Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT];
    for halving in [
        Halving {
            keep: 1,
            ..Halving::default()
        },
        Halving {
            budget: 0.0,
            ..Halving::default()
        },
        Halving {
            budget: f64::NAN,
            ..Halving::default()
        },
        Halving {
            budget: 1.5,
            ..Halving::default()
        },
    ] {
        assert!(matches!(
            tune_measured(&c, 100, &halving, never),
            Err(AdviseError::InvalidOption { .. })
        ));
    }
    assert!(matches!(
        tune_measured(&c, 0, &Halving::default(), never),
        Err(AdviseError::NoItems)
    ));
    assert!(matches!(
        tune_measured(&[], 10, &Halving::default(), never),
        Err(AdviseError::NoItems)
    ));
}

#[test]
fn no_round_times_an_empty_prefix() -> TestResult {
    // Nineteen candidates, a budget too small for one item each and no floor: every round still
    // times at least one item, never zero.
    let candidates = itdelay_candidates();
    let halving = Halving {
        keep: 2,
        budget: 1e-6,
        min_items: 0,
    };
    let mut items_timed = Vec::new();
    let tuned = tune_measured(&candidates, 100, &halving, |s, n| {
        items_timed.push(n);
        Ok(Duration::from_nanos(
            u64::from(n) + s.to_string().len() as u64,
        ))
    })?;
    assert!(!items_timed.is_empty());
    assert!(items_timed.iter().all(|&n| n >= 1), "{items_timed:?}");
    assert!(candidates.contains(&tuned.best));
    Ok(())
}
