//! A conformance kit: checks that every strategy of a kernel gives the baseline's results on
//! every backend, exactly, and says where the first difference is.
//!
//! The strategies only move work between lanes and passes, so a strategy's outputs and
//! tallies must equal the baseline's bit for bit (tallies are integers precisely so that the
//! order of additions cannot matter). The kit runs the baseline once per launch shape on the
//! first backend and compares every other (backend, strategy, launch) run against it; where
//! two backends both count, their counters for the same strategy and launch must agree too.
//!
//! The kit knows backends only through the [`Backend`] trait: the reference is whichever
//! backend comes first (the CPU backend, a CUDA backend, one of your own), so it depends on
//! no backend. It used to live in `reconverge-cpu`, which re-exports it as
//! `reconverge_cpu::conformance`; the facade crate re-exports it as `reconverge::conformance`.
//!
//! ```
//! use reconverge_backend::{Backend, Launch};
//! use reconverge_conformance::Check;
//! use reconverge_cpu::CpuBackend;
//! use reconverge_cpu::block::InOrderBackend;
//! use reconverge_transforms::BranchLoopKernel;
//! use reconverge_workloads::synthetic::SynItDelay;
//!
//! let kernel = BranchLoopKernel(SynItDelay::new(4, 10, 0.5, 3));
//! let launches = [Launch::new(64, 3)?, Launch::new(128, 1)?];
//! let (cpu, reference) = (CpuBackend::new(), InOrderBackend);
//! let backends: [&dyn Backend<_>; 2] = [&cpu, &reference];
//! let report = Check::listed(&kernel, 1000, &launches).run(&kernel, &backends);
//! assert!(report.passed(), "{report}");
//! # Ok::<(), reconverge_backend::BackendError>(())
//! ```
//!
//! # One test per strategy and launch
//!
//! [`conformance_tests!`] writes a module of `#[test]`s for your kernel, one per strategy of
//! its [`Kernel::STRATEGIES`] and launch shape, so that `cargo test` names the one that
//! differs (a test file of your crate, with this crate as a dev-dependency):
//!
//! ```
//! use reconverge_backend::Launch;
//! use reconverge_cpu::CpuBackend;
//! use reconverge_transforms::BranchLoopKernel;
//! use reconverge_workloads::reference::Collatz;
//!
//! reconverge_conformance::conformance_tests! {
//!     collatz:
//!         kernel = BranchLoopKernel(Collatz { max_steps: 500 }),
//!         items = 2000,
//!         backends = [CpuBackend::new()],
//!         launches = [small = Launch::new(32, 2).unwrap(), wide = Launch::new(256, 4).unwrap()],
//! }
//! # fn main() {}
//! ```
//!
//! gives the tests `collatz::small::strategy_00` to `collatz::small::strategy_15`, the same
//! under `collatz::wide`, and `collatz::every_strategy_has_a_test`. `strategy_NN` checks
//! strategy `NN` of the list (`BranchLoopKernel`'s `STRATEGIES[1]` is dynamic work
//! assignment) and passes at once where the list is shorter; a failure's message names the
//! strategy, the launch and the first difference.

use std::fmt::{self, Debug, Display};

use reconverge_backend::{Backend, BackendError, Counters, Launch, Run};
use reconverge_transforms::{Kernel, Strategy};

mod macros;

/// What [`conformance_tests!`]'s expansion names from other crates.
#[doc(hidden)]
pub mod reexport {
    pub use reconverge_backend::Backend;
}

/// How many strategies [`conformance_tests!`] writes a test for, per launch: tests
/// `strategy_00` to `strategy_15`. A kernel that lists more fails the module's
/// `every_strategy_has_a_test`, rather than leave some untested.
pub const MAX_TESTED_STRATEGIES: usize = 16;

/// Checks strategy `index` of `kernel`'s [`Kernel::STRATEGIES`] against the baseline on
/// `backends` (the first one's baseline is the reference) under one launch shape, counters
/// compared: what each test of [`conformance_tests!`] runs. `None` when the kernel lists
/// fewer strategies than `index + 1`.
pub fn check_listed_strategy<K>(
    kernel: &K,
    index: usize,
    items: u32,
    launch: Launch,
    backends: &[&dyn Backend<K>],
) -> Option<Report>
where
    K: Kernel,
    K::Output: PartialEq + Debug,
{
    let strategy = K::STRATEGIES.get(index)?;
    let check = Check {
        strategies: std::slice::from_ref(strategy),
        items,
        launches: &[launch],
        counters: true,
    };
    Some(check.run(kernel, backends))
}

/// What one test of [`conformance_tests!`] does: [`check_listed_strategy`], and a panic that
/// names the strategy, the launch and the first difference if it did not pass. Returns at once
/// when the kernel lists no strategy `index`.
#[doc(hidden)]
pub fn assert_listed_strategy<K>(
    kernel: &K,
    index: usize,
    items: u32,
    launch: Launch,
    backends: &[&dyn Backend<K>],
) where
    K: Kernel,
    K::Output: PartialEq + Debug,
{
    let Some(report) = check_listed_strategy(kernel, index, items, launch, backends) else {
        return;
    };
    assert!(
        report.passed(),
        "strategy {index} ({}) of {} items, {} blocks x {} threads: {report}",
        K::STRATEGIES[index],
        items,
        launch.blocks,
        launch.threads_per_block,
    );
}

/// The strategies `kernel` lists, for [`conformance_tests!`] (which has a value, not a type).
#[doc(hidden)]
pub fn listed_strategies<K: Kernel>(_kernel: &K) -> &'static [Strategy] {
    K::STRATEGIES
}

/// What to check: strategies, items and launch shapes.
#[derive(Clone, Copy, Debug)]
pub struct Check<'a> {
    /// The strategies, each compared against [`Strategy::BASELINE`].
    pub strategies: &'a [Strategy],
    /// Items of every run.
    pub items: u32,
    /// The launch shapes, each checked on its own.
    pub launches: &'a [Launch],
    /// Whether counters of the same strategy and launch must agree between the backends that
    /// count (never for a strategy that deals items across blocks, whose counters depend on the
    /// order in which blocks run: `Strategy::deals_across_blocks`).
    pub counters: bool,
}

impl<'a> Check<'a> {
    /// Every strategy the kernel lists ([`Kernel::STRATEGIES`]), with counters compared.
    pub fn listed<K: Kernel>(_kernel: &K, items: u32, launches: &'a [Launch]) -> Self {
        Self {
            strategies: K::STRATEGIES,
            items,
            launches,
            counters: true,
        }
    }

    /// Runs the check of `kernel` on `backends`; the first backend's baseline is the reference.
    /// Stops at the first difference.
    pub fn run<K>(&self, kernel: &K, backends: &[&dyn Backend<K>]) -> Report
    where
        K: Kernel,
        K::Output: PartialEq + Debug,
    {
        let mut runs = 0;
        let mut skipped = Vec::new();
        let first_difference = self
            .first_difference(kernel, backends, &mut runs, &mut skipped)
            .err();
        Report {
            runs,
            skipped,
            first_difference,
        }
    }

    fn first_difference<K>(
        &self,
        kernel: &K,
        backends: &[&dyn Backend<K>],
        runs: &mut usize,
        skipped: &mut Vec<Where>,
    ) -> Result<(), Difference>
    where
        K: Kernel,
        K::Output: PartialEq + Debug,
    {
        let Some(first) = backends.first() else {
            return Ok(());
        };
        for &launch in self.launches {
            let at = |backend: &dyn Backend<K>, strategy: Strategy| Where {
                backend: backend.name(),
                strategy,
                launch,
            };
            let baseline = first
                .run(kernel, Strategy::BASELINE, self.items, launch)
                .map_err(|error| Difference {
                    at: at(*first, Strategy::BASELINE),
                    what: Mismatch::Failed(error),
                })?;
            *runs += 1;
            for strategy in self.strategies {
                // The backend that counted this strategy first: the others' counters must
                // equal its.
                let mut counted: Option<(&'static str, Counters)> = None;
                for (b, &backend) in backends.iter().enumerate() {
                    let fresh;
                    let run = if b == 0 && *strategy == Strategy::BASELINE {
                        &baseline
                    } else {
                        fresh = match backend.run(kernel, *strategy, self.items, launch) {
                            Ok(run) => run,
                            // A GPU module holds the entry points its list compiled: a strategy
                            // left out of it is not a difference, and the report says so.
                            Err(BackendError::NotCompiled { .. }) if b > 0 => {
                                skipped.push(at(backend, *strategy));
                                continue;
                            }
                            Err(error) => {
                                return Err(Difference {
                                    at: at(backend, *strategy),
                                    what: Mismatch::Failed(error),
                                });
                            }
                        };
                        *runs += 1;
                        &fresh
                    };
                    let wrap = |what| Difference {
                        at: at(backend, *strategy),
                        what,
                    };
                    compare_results(&baseline, run).map_err(wrap)?;
                    // Grid-wide dealing gives items to blocks in the order blocks run: its
                    // counters are not reproducible, its outputs are.
                    let counters = self.counters && !strategy.deals_across_blocks();
                    if let (true, Some(got)) = (counters, &run.counters) {
                        match &counted {
                            Some((name, expected)) if expected != got => {
                                return Err(wrap(Mismatch::Counters { reference: name }));
                            }
                            Some(_) => {}
                            None => counted = Some((backend.name(), *got)),
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The first place where `run` differs from `baseline`'s outputs or tallies.
fn compare_results<O: PartialEq + Debug>(baseline: &Run<O>, run: &Run<O>) -> Result<(), Mismatch> {
    if baseline.outputs.len() != run.outputs.len() {
        return Err(Mismatch::OutputCount {
            expected: baseline.outputs.len(),
            got: run.outputs.len(),
        });
    }
    // `==` alone would take 0.0 for -0.0; the `Debug` text tells apart any two floats that
    // differ in their bits (NaN payloads aside), so outputs must agree in both.
    if let Some((item, (expected, got))) = (0u32..)
        .zip(baseline.outputs.iter().zip(&run.outputs))
        .find(|(_, (e, g))| e != g || format!("{e:?}") != format!("{g:?}"))
    {
        return Err(Mismatch::Output {
            item,
            expected: format!("{expected:?}"),
            got: format!("{got:?}"),
        });
    }
    let longest = baseline.tally.len().max(run.tally.len());
    if let Some(index) = (0..longest).find(|&i| baseline.tally.get(i) != run.tally.get(i)) {
        return Err(Mismatch::Tally {
            index,
            expected: baseline.tally.get(index).copied(),
            got: run.tally.get(index).copied(),
        });
    }
    Ok(())
}

/// What a check found.
#[derive(Debug)]
pub struct Report {
    /// Runs made (the baselines included).
    pub runs: usize,
    /// Runs a backend other than the reference could not make because it has no code for the
    /// strategy (`BackendError::NotCompiled`: a GPU module without that entry point).
    pub skipped: Vec<Where>,
    /// Where the first run differed from the baseline, if one did.
    pub first_difference: Option<Difference>,
}

impl Report {
    /// Whether something was run and nothing differed. A check with no backend, launch or
    /// strategy has not passed: it has compared nothing.
    pub fn passed(&self) -> bool {
        self.runs > 0 && self.first_difference.is_none()
    }
}

impl Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.first_difference {
            Some(d) => write!(f, "{d} (after {} runs)", self.runs),
            None if self.runs == 0 => f.write_str("nothing checked: no backend or launch"),
            None => write!(f, "{} runs agree with the baseline", self.runs),
        }?;
        if let Some(first) = self.skipped.first() {
            write!(
                f,
                "; {} not compiled on their backend and skipped ({} on {}, ...)",
                self.skipped.len(),
                first.strategy,
                first.backend
            )?;
        }
        Ok(())
    }
}

/// The run where a difference showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Where {
    /// The backend's [`Backend::name`].
    pub backend: &'static str,
    /// The strategy.
    pub strategy: Strategy,
    /// The launch shape.
    pub launch: Launch,
}

/// The first difference of a check: where, and what.
#[derive(Debug)]
pub struct Difference {
    /// The run.
    pub at: Where,
    /// What differed.
    pub what: Mismatch,
}

impl Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Where {
            backend,
            strategy,
            launch,
        } = self.at;
        write!(
            f,
            "{strategy} on {backend}, {} blocks x {} threads: {}",
            launch.blocks, launch.threads_per_block, self.what
        )
    }
}

/// What differed from the baseline.
#[derive(Debug)]
pub enum Mismatch {
    /// The run failed.
    Failed(BackendError),
    /// The run returned a different number of outputs.
    OutputCount {
        /// The baseline's.
        expected: usize,
        /// This run's.
        got: usize,
    },
    /// An item's output differs: by `==`, or in its `Debug` text (a float's sign of zero).
    Output {
        /// The item.
        item: u32,
        /// The baseline's output.
        expected: String,
        /// This run's output.
        got: String,
    },
    /// An accumulator differs (`None`: past the end of that run's tally).
    Tally {
        /// The accumulator.
        index: usize,
        /// The baseline's value.
        expected: Option<u64>,
        /// This run's value.
        got: Option<u64>,
    },
    /// The counters differ from those of another backend under the same strategy and launch.
    Counters {
        /// The backend whose counters this run was compared with.
        reference: &'static str,
    },
}

impl Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Failed(e) => write!(f, "run failed: {e}"),
            Self::OutputCount { expected, got } => {
                write!(f, "{got} outputs, expected {expected}")
            }
            Self::Output {
                item,
                expected,
                got,
            } => write!(f, "item {item}: expected {expected}, got {got}"),
            Self::Tally {
                index,
                expected,
                got,
            } => write!(f, "tally {index}: expected {expected:?}, got {got:?}"),
            Self::Counters { reference } => {
                write!(f, "counters differ from the {reference} backend's")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outputs: Vec<f32>) -> Run<f32> {
        Run::new(
            outputs,
            Launch {
                threads_per_block: 32,
                blocks: 1,
            },
        )
    }

    #[test]
    fn outputs_are_compared_to_the_bit_of_a_zero() {
        let (base, same) = (run(vec![1.0, 0.0]), run(vec![1.0, 0.0]));
        assert!(compare_results(&base, &same).is_ok());
        match compare_results(&base, &run(vec![1.0, -0.0])) {
            Err(Mismatch::Output {
                item,
                expected,
                got,
            }) => assert_eq!((item, expected.as_str(), got.as_str()), (1, "0.0", "-0.0")),
            other => panic!("-0.0 taken for 0.0: {other:?}"),
        }
    }
}
