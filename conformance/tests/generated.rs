//! `conformance_tests!` on a reference workload, and the kit's answer for a kernel whose
//! strategies cannot agree with its baseline.

use std::sync::atomic::{AtomicU32, Ordering};

use reconverge_backend::{Backend, Launch};
use reconverge_conformance::{
    MAX_TESTED_STRATEGIES, Mismatch, assert_listed_strategy, check_listed_strategy,
};
use reconverge_cpu::CpuBackend;
use reconverge_cpu::block::InOrderBackend;
use reconverge_transforms::{BranchLoop, BranchLoopKernel, Kernel, LoopRegions, Strategy, Tally};
use reconverge_workloads::reference::{Collatz, CollatzState};

// The README's Collatz loop under every strategy `BranchLoopKernel` lists, on the CPU backend
// (the reference) and the in-order block executor, for two launch shapes: the tests
// `collatz::one_warp::strategy_00` .. `collatz::many_blocks::strategy_15`.
reconverge_conformance::conformance_tests! {
    collatz:
        kernel = BranchLoopKernel(Collatz { max_steps: 400 }),
        items = 3000,
        backends = [CpuBackend::new(), InOrderBackend],
        launches = [
            one_warp = Launch::new(32, 1).expect("valid"),
            many_blocks = Launch::new(128, 6).expect("valid"),
        ],
}

// Items of two classes interleaved at random, whose kernel lists thread-data remapping too
// (the workload gives a key): every strategy, remapping's three among them, on both backends.
reconverge_conformance::conformance_tests! {
    class_chains:
        kernel = BranchLoopKernel(
            reconverge_workloads::synthetic::class_chains::ClassChains::interleaved(6, 2)
        ),
        items = 1000,
        backends = [CpuBackend::new(), InOrderBackend],
        launches = [
            one_warp = Launch::new(32, 1).expect("valid"),
            many_blocks = Launch::new(128, 6).expect("valid"),
        ],
}

/// The Collatz loop, wrong on purpose: an item's output is the number of items any run of it
/// had started before (a shared counter), not something of the item alone. Every run after the
/// first outputs larger numbers than the first, so no strategy can give the baseline's.
#[derive(Clone, Copy)]
struct Stamped {
    collatz: Collatz,
    started: &'static AtomicU32,
}

impl BranchLoop for Stamped {
    type State = (CollatzState, u32);
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        self.collatz.regions()
    }

    fn start(&self, item: u32) -> Self::State {
        let stamp = self.started.fetch_add(1, Ordering::Relaxed);
        (self.collatz.start(item), stamp)
    }

    fn running(&self, s: &Self::State) -> bool {
        self.collatz.running(&s.0)
    }

    fn condition(&self, s: &mut Self::State) -> bool {
        self.collatz.condition(&mut s.0)
    }

    fn taken<T: Tally>(&self, s: &mut Self::State, tally: &mut T) {
        self.collatz.taken(&mut s.0, tally);
    }

    fn not_taken<T: Tally>(&self, s: &mut Self::State, tally: &mut T) {
        self.collatz.not_taken(&mut s.0, tally);
    }

    fn after_branch<T: Tally>(&self, s: &mut Self::State, tally: &mut T) {
        self.collatz.after_branch(&mut s.0, tally);
    }

    fn finish(&self, s: &Self::State) -> u32 {
        s.1
    }
}

/// The [`Stamped`] loop as a kernel.
type StampedKernel = BranchLoopKernel<Stamped>;

/// Calls `check` with a [`Stamped`] Collatz loop and the CPU backend alone. Each call's loop
/// counts on a counter of its own (leaked: it must outlive the test), so tests running at
/// once do not stamp each other's items.
fn on_cpu_stamped(check: impl FnOnce(&StampedKernel, &[&dyn Backend<StampedKernel>])) {
    let kernel = BranchLoopKernel(Stamped {
        collatz: Collatz { max_steps: 400 },
        started: Box::leak(Box::new(AtomicU32::new(0))),
    });
    let cpu = CpuBackend::new();
    check(&kernel, &[&cpu]);
}

#[test]
fn a_wrong_kernel_is_reported_at_its_first_item() {
    let launch = Launch::new(64, 2).expect("valid");
    on_cpu_stamped(|kernel, backends| {
        // Strategy 1 (dynamic work assignment) runs after the baseline: every stamp is larger.
        assert_eq!(
            StampedKernel::STRATEGIES[1],
            Strategy::DYNAMIC_WORK_ASSIGNMENT
        );
        let report = check_listed_strategy(kernel, 1, 500, launch, backends).expect("listed");
        let difference = report.first_difference.as_ref().expect("a difference");
        assert!(!report.passed(), "{report}");
        assert_eq!(difference.at.strategy, Strategy::DYNAMIC_WORK_ASSIGNMENT);
        assert_eq!(difference.at.launch, launch);
        match &difference.what {
            Mismatch::Output {
                item,
                expected,
                got,
            } => {
                // Every item differs, so the first compared is named; its stamp came later.
                assert_eq!(*item, 0, "{report}");
                let stamp = |s: &str| s.parse::<u32>().expect("a number");
                assert!(stamp(got) > stamp(expected), "{report}");
            }
            other => panic!("expected an output mismatch, got {other:?}"),
        }
    });
}

#[test]
fn the_baseline_against_itself_and_strategies_past_the_list() {
    let launch = Launch::new(32, 1).expect("valid");
    on_cpu_stamped(|kernel, backends| {
        // Strategy 0 is the baseline, compared with the very run it is: even this kernel passes.
        let report = check_listed_strategy(kernel, 0, 100, launch, backends).expect("listed");
        assert!(report.passed(), "{report}");
        assert_eq!(report.runs, 1);
        // Past the end of the list there is nothing to check.
        let listed = StampedKernel::STRATEGIES.len();
        assert!(listed <= MAX_TESTED_STRATEGIES);
        assert!(check_listed_strategy(kernel, listed, 100, launch, backends).is_none());
        assert_listed_strategy(kernel, MAX_TESTED_STRATEGIES - 1, 100, launch, backends);
    });
}

#[test]
fn a_generated_test_fails_naming_the_strategy_and_launch() {
    let launch = Launch::new(32, 3).expect("valid");
    on_cpu_stamped(|kernel, backends| {
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert_listed_strategy(kernel, 2, 200, launch, backends);
        }))
        .expect_err("the wrong kernel passed");
        let message = panic
            .downcast_ref::<String>()
            .expect("a formatted message")
            .clone();
        let strategy = StampedKernel::STRATEGIES[2].to_string();
        assert!(message.starts_with("strategy 2 ("), "{message}");
        assert!(message.contains(&strategy), "{message}");
        assert!(message.contains("3 blocks x 32 threads"), "{message}");
        assert!(message.contains("item 0"), "{message}");
    });
}

// A backend that may not be here (a GPU on a machine without one): `None` is left out and the
// tests still check the others; `Some` joins the comparison.
reconverge_conformance::conformance_tests! {
    collatz_with_optional:
        kernel = BranchLoopKernel(Collatz { max_steps: 400 }),
        items = 1000,
        backends = [CpuBackend::new()],
        launches = [one_block = Launch::new(64, 1).expect("valid")],
        optional_backends = [None::<CpuBackend>, Some(InOrderBackend)],
}

/// The CPU backend, but with code for the baseline and dynamic work only, as a GPU module that
/// compiled two entry points; or failing every other strategy outright.
struct TwoCompiled {
    not_compiled_is_an_error: bool,
}

impl<K: Kernel> Backend<K> for TwoCompiled
where
    CpuBackend: Backend<K>,
{
    fn name(&self) -> &'static str {
        "two-compiled"
    }

    fn run_job(
        &self,
        job: reconverge_backend::Job<'_, K>,
    ) -> Result<reconverge_backend::Run<K::Output>, reconverge_backend::BackendError> {
        let strategy = job.strategy;
        if matches!(
            strategy,
            Strategy::BASELINE | Strategy::DYNAMIC_WORK_ASSIGNMENT
        ) {
            return CpuBackend::new().run_job(job);
        }
        let message = format!("no entry point for {strategy}");
        Err(if self.not_compiled_is_an_error {
            reconverge_backend::BackendError::Device {
                backend: "two-compiled",
                message,
            }
        } else {
            reconverge_backend::BackendError::NotCompiled {
                backend: "two-compiled",
                message,
            }
        })
    }
}

#[test]
fn strategies_a_backend_has_no_code_for_are_skipped_and_counted_not_failed() {
    let kernel = BranchLoopKernel(Collatz { max_steps: 400 });
    let launches = [Launch::new(64, 2).expect("valid")];
    let check = reconverge_conformance::Check::listed(&kernel, 500, &launches);
    let cpu = CpuBackend::new();
    let partial = TwoCompiled {
        not_compiled_is_an_error: false,
    };
    let report = check.run(&kernel, &[&cpu, &partial]);
    assert!(report.passed(), "{report}");
    let listed = <BranchLoopKernel<Collatz> as Kernel>::STRATEGIES;
    let compiled = listed
        .iter()
        .filter(|s| matches!(**s, Strategy::BASELINE | Strategy::DYNAMIC_WORK_ASSIGNMENT))
        .count();
    assert_eq!(report.skipped.len(), listed.len() - compiled);
    assert!(report.skipped.iter().all(|w| w.backend == "two-compiled"));
    assert!(report.to_string().contains("not compiled"), "{report}");
    // Any other failure is a difference, as before.
    let failing = TwoCompiled {
        not_compiled_is_an_error: true,
    };
    let report = check.run(&kernel, &[&cpu, &failing]);
    assert!(!report.passed());
    assert!(report.skipped.is_empty());
    // The reference itself must run everything: its NotCompiled is a difference.
    let report = check.run(&kernel, &[&partial, &cpu]);
    assert!(!report.passed(), "{report}");
}
