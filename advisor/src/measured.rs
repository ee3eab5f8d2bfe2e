//! The tuner on a real backend: candidates timed, not modelled.
//!
//! The model ([`crate::tune()`]) sees divergence but not a GPU's costs, so its pick can lose on
//! the GPU (MCML's majority vote over dynamic work: predicted 1.46x the baseline, measured 0.95x
//! of dynamic work alone on an H100). [`tune_measured`] times the candidates themselves, by
//! **successive halving** (Jamieson & Talwalkar, "Non-stochastic best arm identification and
//! hyperparameter optimization", AISTATS 2016): every candidate runs on a small prefix of the
//! items, the fastest `1/keep` of them go on to a prefix `keep` times larger, and so on until
//! one is left. The rounds share a budget stated as a fraction of what timing every candidate
//! on all items costs ([`Halving::budget`]), so that the search costs a known part of the full
//! grid ([`grid_measured`]), which is what it is checked against.
//!
//! A candidate the backend cannot run (no entry point for its technique, a strategy that does
//! not apply to the kernel) is skipped and listed; any other failure ends the search with its
//! error. On the GPU every number of a compiled technique runs (an entry point takes them at
//! run time), so [`crate::parameter_grid`] can add values no entry list names.
//!
//! Timing is the caller's: [`tune_measured`] takes a function from (strategy, items) to a
//! duration, and [`backend_time`] makes one from any [`Backend`] (the sum of its passes'
//! times: CUDA events on the GPU).

use std::time::Duration;

use reconverge_backend::{Backend, BackendError, Launch};
use reconverge_transforms::{Kernel, Strategy, StrategyError};

use crate::AdviseError;

/// How [`tune_measured`] spends its budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Halving {
    /// Each round keeps the fastest `1/keep` of its candidates (at least 2).
    pub keep: u32,
    /// Item-runs the whole search may take, as a fraction of timing every candidate on all
    /// items once (the grid's cost); split evenly over the rounds. In `(0, 1]`.
    pub budget: f64,
    /// The smallest prefix a round times, so that a launch still fills the device.
    pub min_items: u32,
}

impl Default for Halving {
    /// Thirds, a tenth of the grid's item-runs, prefixes of at least 4,096 items.
    fn default() -> Self {
        Self {
            keep: 3,
            budget: 0.1,
            min_items: 4096,
        }
    }
}

/// One timed run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The strategy timed.
    pub strategy: Strategy,
    /// Items of the run (a prefix `0..items`).
    pub items: u32,
    /// Its time.
    pub time: Duration,
}

/// What a measured search found.
#[derive(Clone, Debug)]
pub struct MeasuredTuning {
    /// The fastest candidate.
    pub best: Strategy,
    /// Every run, in order; the last round's are at the largest prefix.
    pub timings: Vec<Timing>,
    /// Candidates the backend could not run, with the reason.
    pub skipped: Vec<(Strategy, String)>,
}

impl MeasuredTuning {
    /// Time of all runs together: the search's cost on the device.
    pub fn time_spent(&self) -> Duration {
        self.timings.iter().map(|t| t.time).sum()
    }

    /// Items of all runs together.
    pub fn item_runs(&self) -> u64 {
        self.timings.iter().map(|t| u64::from(t.items)).sum()
    }

    /// The time of `strategy`'s largest run, if it ran.
    pub fn time_of(&self, strategy: &Strategy) -> Option<Duration> {
        self.timings
            .iter()
            .filter(|t| t.strategy == *strategy)
            .max_by_key(|t| t.items)
            .map(|t| t.time)
    }
}

/// Whether `error` says the backend cannot run this candidate (skip it) rather than that
/// something failed (stop).
fn cannot_run(error: &BackendError) -> bool {
    matches!(
        error,
        BackendError::NotCompiled { .. }
            | BackendError::Strategy {
                source: StrategyError::NotApplicable { .. },
                ..
            }
    )
}

/// Times one candidate; `Ok(None)` where the backend cannot run it.
fn time_one(
    measure: &mut impl FnMut(Strategy, u32) -> Result<Duration, BackendError>,
    strategy: Strategy,
    items: u32,
    skipped: &mut Vec<(Strategy, String)>,
) -> Result<Option<Duration>, AdviseError> {
    match measure(strategy, items) {
        Ok(time) => Ok(Some(time)),
        Err(e) if cannot_run(&e) => {
            skipped.push((strategy, e.to_string()));
            Ok(None)
        }
        Err(source) => Err(AdviseError::Measure { strategy, source }),
    }
}

/// Times every candidate on all `items`: the reference [`tune_measured`] is checked against.
///
/// # Errors
/// [`AdviseError::NoItems`] for no items or no candidates, [`AdviseError::Measure`] where a run
/// fails for another reason than the candidate not being runnable.
pub fn grid_measured(
    candidates: &[Strategy],
    items: u32,
    mut measure: impl FnMut(Strategy, u32) -> Result<Duration, BackendError>,
) -> Result<MeasuredTuning, AdviseError> {
    if items == 0 || candidates.is_empty() {
        return Err(AdviseError::NoItems);
    }
    let mut timings = Vec::new();
    let mut skipped = Vec::new();
    for &strategy in candidates {
        if let Some(time) = time_one(&mut measure, strategy, items, &mut skipped)? {
            timings.push(Timing {
                strategy,
                items,
                time,
            });
        }
    }
    let best = fastest(&timings).ok_or(AdviseError::NothingRan)?;
    Ok(MeasuredTuning {
        best,
        timings,
        skipped,
    })
}

/// The strategy of the shortest timing; the first on a tie.
fn fastest(timings: &[Timing]) -> Option<Strategy> {
    timings
        .iter()
        .min_by(|a, b| a.time.cmp(&b.time))
        .map(|t| t.strategy)
}

/// Searches `candidates` by timing them (successive halving, see the module docs) on prefixes
/// of `items` chosen by `halving`, and returns the fastest.
///
/// # Errors
/// As [`grid_measured`], and [`AdviseError::InvalidOption`] for a `keep` below 2 or a budget
/// outside `(0, 1]`.
pub fn tune_measured(
    candidates: &[Strategy],
    items: u32,
    halving: &Halving,
    mut measure: impl FnMut(Strategy, u32) -> Result<Duration, BackendError>,
) -> Result<MeasuredTuning, AdviseError> {
    if halving.keep < 2 {
        return Err(AdviseError::InvalidOption {
            name: "keep",
            value: f64::from(halving.keep),
            requirement: "at least 2",
        });
    }
    if !(halving.budget > 0.0 && halving.budget <= 1.0) {
        return Err(AdviseError::InvalidOption {
            name: "budget",
            value: halving.budget,
            requirement: "in (0, 1]",
        });
    }
    if items == 0 || candidates.is_empty() {
        return Err(AdviseError::NoItems);
    }
    let mut survivors: Vec<Strategy> = Vec::with_capacity(candidates.len());
    for &c in candidates {
        if !survivors.contains(&c) {
            survivors.push(c);
        }
    }
    let keep = halving.keep as usize;
    let mut rounds = 1u32;
    let mut left = survivors.len();
    while left > keep {
        left = left.div_ceil(keep);
        rounds += 1;
    }
    let per_round = halving.budget * survivors.len() as f64 * f64::from(items) / f64::from(rounds);
    let mut timings = Vec::new();
    let mut skipped = Vec::new();
    while survivors.len() > 1 {
        let sample = (per_round / survivors.len() as f64).clamp(
            f64::from(halving.min_items.clamp(1, items)),
            f64::from(items),
        ) as u32;
        let mut round: Vec<Timing> = Vec::with_capacity(survivors.len());
        for &strategy in &survivors {
            if let Some(time) = time_one(&mut measure, strategy, sample, &mut skipped)? {
                round.push(Timing {
                    strategy,
                    items: sample,
                    time,
                });
            }
        }
        timings.extend_from_slice(&round);
        // Stable: among equal times the earlier candidate stays ahead.
        round.sort_by_key(|t| t.time);
        let next = if sample == items {
            1
        } else {
            round.len().div_ceil(keep)
        };
        survivors = round.iter().take(next).map(|t| t.strategy).collect();
    }
    let best = survivors.first().copied().ok_or(AdviseError::NothingRan)?;
    Ok(MeasuredTuning {
        best,
        timings,
        skipped,
    })
}

/// A timing function for [`tune_measured`] and [`grid_measured`] on any backend: runs `kernel`
/// under the strategy over the items with the launch `launch(strategy, items)` gives, and
/// returns the sum of its passes' times (CUDA events on the GPU, wall time on the CPU).
pub fn backend_time<'a, K, B>(
    backend: &'a B,
    kernel: &'a K,
    launch: impl Fn(Strategy, u32) -> Result<Launch, BackendError> + 'a,
) -> impl FnMut(Strategy, u32) -> Result<Duration, BackendError> + 'a
where
    K: Kernel,
    B: Backend<K>,
{
    move |strategy, items| {
        let run = backend.run(kernel, strategy, items, launch(strategy, items)?)?;
        Ok(run.pass_times.iter().sum())
    }
}
