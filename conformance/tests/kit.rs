//! The conformance kit finds a difference where there is one, and names it.

use reconverge_backend::{Backend, BackendError, Job, Launch, Run};
use reconverge_conformance::{Check, Mismatch};
use reconverge_cpu::CpuBackend;
use reconverge_cpu::block::InOrderBackend;
use reconverge_transforms::{BranchLoopKernel, Kernel, Strategy};
use reconverge_workloads::synthetic::SynItDelay;

type Kern = BranchLoopKernel<SynItDelay>;

/// The CPU backend with one deliberate fault under every strategy but the baseline.
enum Tamper {
    /// Item 5's output replaced by the default.
    Output,
    /// Accumulator 0 bumped (past the end of an empty tally: one added).
    Tally,
    /// Counters of one extra issue of the first region.
    Counters,
    /// The run refused.
    Fail,
}

impl Backend<Kern> for Tamper {
    fn name(&self) -> &'static str {
        "tampered"
    }

    fn run_job(&self, job: Job<'_, Kern>) -> Result<Run<<Kern as Kernel>::Output>, BackendError> {
        let mut run = CpuBackend::new().run(job.kernel, job.strategy, job.items, job.launch)?;
        if job.strategy == Strategy::BASELINE {
            return Ok(run);
        }
        match self {
            Tamper::Output => run.outputs[5] = Default::default(),
            Tamper::Tally => run.tally.push(1),
            Tamper::Counters => {
                if let Some(c) = run.counters.as_mut() {
                    c.record(reconverge_workloads::synthetic::itdelay::LOOP, 1);
                }
            }
            Tamper::Fail => {
                return Err(BackendError::Device {
                    backend: "tampered",
                    message: "refused".into(),
                });
            }
        }
        Ok(run)
    }
}

fn kernel() -> Kern {
    BranchLoopKernel(SynItDelay::new(4, 10, 0.5, 11))
}

fn launches() -> [Launch; 2] {
    [
        Launch::new(64, 3).expect("valid"),
        Launch::new(32, 2).expect("valid"),
    ]
}

#[test]
fn agreeing_backends_pass() {
    let (k, launches) = (kernel(), launches());
    let cpu = CpuBackend::new();
    let report = Check::listed(&k, 300, &launches).run(&k, &[&cpu, &InOrderBackend]);
    assert!(report.passed(), "{report}");
    // Per launch: the baseline, then every listed strategy on both backends, less the
    // baseline already run on the first.
    let per_launch = 1 + 2 * Kern::STRATEGIES.len() - 1;
    assert_eq!(report.runs, launches.len() * per_launch);
    assert!(report.to_string().contains("agree"), "{report}");
}

#[test]
fn a_tampered_output_is_named() {
    let (k, launches) = (kernel(), launches());
    let report = Check::listed(&k, 300, &launches).run(&k, &[&CpuBackend::new(), &Tamper::Output]);
    assert!(!report.passed());
    let d = report.first_difference.as_ref().expect("a difference");
    assert_eq!(d.at.backend, "tampered");
    assert_eq!(d.at.strategy, Kern::STRATEGIES[1]);
    assert_eq!(d.at.launch, launches[0]);
    assert!(matches!(d.what, Mismatch::Output { item: 5, .. }), "{d}");
    let text = report.to_string();
    let strategy = Kern::STRATEGIES[1].to_string();
    for part in [
        strategy.as_str(),
        "tampered",
        "item 5",
        "3 blocks x 64 threads",
        "expected",
    ] {
        assert!(text.contains(part), "{part:?} missing from {text}");
    }
}

#[test]
fn a_tampered_tally_counters_or_failure_is_found() {
    let (k, launches) = (kernel(), launches());
    let check = Check::listed(&k, 300, &launches);
    let cpu = CpuBackend::new();
    let tally = check.run(&k, &[&cpu, &Tamper::Tally]);
    assert!(
        matches!(
            tally.first_difference.as_ref().map(|d| &d.what),
            Some(Mismatch::Tally {
                index: 0,
                expected: None,
                got: Some(1)
            })
        ),
        "{tally}"
    );
    let counters = check.run(&k, &[&cpu, &Tamper::Counters]);
    assert!(
        matches!(
            counters.first_difference.as_ref().map(|d| &d.what),
            Some(Mismatch::Counters { reference: "cpu" })
        ),
        "{counters}"
    );
    // Counters left out of the check, the same tampering passes.
    let lenient = Check {
        counters: false,
        ..check
    };
    assert!(lenient.run(&k, &[&cpu, &Tamper::Counters]).passed());
    let failed = check.run(&k, &[&cpu, &Tamper::Fail]);
    assert!(failed.to_string().contains("refused"), "{failed}");
}

#[test]
fn nothing_to_compare_is_not_a_pass() {
    let k = kernel();
    let report = Check::listed(&k, 300, &launches()).run(&k, &[]);
    assert!(!report.passed());
    assert!(report.to_string().contains("nothing checked"), "{report}");
}
