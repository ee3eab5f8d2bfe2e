//! Screen, then confirm: the advisor's answer within a time budget.
//!
//! Where modelling every (strategy, launch) pair on the whole launch would take longer than the
//! budget, [`sampling_within`] cuts the items each model run samples, and the sampling error of
//! a cut sample can reorder pairs whose times are close. Measured on the held-out sunset map
//! (H100 sweeps, a 2-core VM): cut to about 225,000 items x 3 resamples, the pick ran 0.867 of
//! the best measured time, where the whole launch's model picked the best; confirmed, it picks
//! the best (`docs/results/advisor/held-out-budget/`: 7 of 8 held-out picks within 10 % of the
//! best, 6 before; 8 of 8 with [`crate::LAUNCH_MARGIN`] since). Only the first few pairs decide
//! the pick, so [`advise_within`] spends two thirds of the budget ranking every pair on the cut
//! sample and the rest modelling the first
//! [`FINALISTS`] pairs (and the plain kernel's best launch, which
//! [`recommend`](crate::recommend) may fall back to) again on a larger sample: a few runs
//! instead of dozens, so up to four times the items per run, or the whole launch.

use reconverge_backend::Launch;
use reconverge_transforms::{Kernel, Strategy};

use crate::plan::{model_groups, rank_pairs};
use crate::{
    Advice, AdviseError, Compiled, Gpu, Grid, Sampling, Spread, advise_launches, sampling_within,
};

/// Pairs of the first ranking that [`advise_within`] models again on a larger sample.
pub const FINALISTS: usize = 4;

/// The share of [`advise_within`]'s time that ranks every pair; the rest confirms the finalists.
const SCREENING_SHARE: f64 = 2.0 / 3.0;

/// The most items per run the confirmation takes, as a multiple of the screening's.
const CONFIRMING_GROWTH: f64 = 4.0;

/// [`advise_launches`] within about `seconds` of model time on this machine: every pair of
/// `strategies` (and the baseline) ranked on `sampling`, or on a sample [`sampling_within`]
/// cuts to two thirds of the time, and then, where it was cut, the [`FINALISTS`] fastest pairs
/// and the baseline's fastest launch modelled again on a larger sample: as many items as the
/// screening modelled, spread over the finalists' runs, at most four times the screening's per
/// run, and `sampling` itself (the whole launch by default) where that much reaches it. The
/// confirmed pairs lead the ranking in the order of their second predictions
/// ([`Advice::confirmed`]); the confirming sample follows from the screening's alone, so
/// [`advise_launches`] on each reproduces the advice anywhere.
///
/// # Errors
/// As [`sampling_within`] and [`advise_launches`].
pub fn advise_within<K: Kernel + Sync + ?Sized>(
    kernel: &K,
    items: u32,
    strategies: &[Strategy],
    gpu: &Gpu,
    sampling: &Sampling,
    compiled: &Compiled,
    seconds: f64,
) -> Result<Advice, AdviseError> {
    let screening_seconds = seconds * SCREENING_SHARE;
    let screen = sampling_within(
        kernel,
        items,
        strategies,
        gpu,
        sampling,
        compiled,
        screening_seconds,
    )?;
    let mut advice = advise_launches(kernel, items, strategies, gpu, &screen, compiled)?;
    if screen == *sampling {
        return Ok(advice);
    }
    let all: Vec<(Strategy, Launch, Grid)> = advice
        .ranked
        .iter()
        .map(|r| (r.strategy, r.launch, r.grid))
        .collect();
    let mut finalists: Vec<(Strategy, Launch, Grid)> =
        all.iter().take(FINALISTS).copied().collect();
    if let Some(plain) = all.iter().find(|p| p.0 == Strategy::BASELINE)
        && !finalists.contains(plain)
    {
        finalists.push(*plain);
    }
    // The screening's items (its distinct runs times the items of each) took its share of the
    // time; the rest of the time buys as many items again, spread over the finalists' runs.
    // Counted, not clocked, so the same screening always confirms on the same sample.
    let groups = |pairs: &[(Strategy, Launch, Grid)]| {
        model_groups(pairs, items, advice.reference, false).1.len() as f64
    };
    // At most CONFIRMING_GROWTH times the screening's items per run: the finalists' runs can
    // cost more per item than the average pair's (the escaping walk's dealt launches: counted
    // without the cap, its confirmation took 31 s where the budget meant 15).
    let per_run = (f64::from(screen.items) * groups(&all) / groups(&finalists)
        * (1.0 - SCREENING_SHARE)
        / SCREENING_SHARE)
        .min(f64::from(screen.items) * CONFIRMING_GROWTH);
    let confirm = if per_run * f64::from(sampling.resamples.max(1)) >= f64::from(items)
        || per_run >= f64::from(sampling.items)
    {
        *sampling
    } else {
        Sampling {
            items: per_run as u32,
            ..screen
        }
    };
    if u64::from(confirm.items) * u64::from(confirm.resamples)
        <= u64::from(screen.items) * u64::from(screen.resamples)
    {
        // No larger sample fits: the screening's ranking stands.
        return Ok(advice);
    }
    let (confirmed, base, _) = rank_pairs(
        kernel,
        items,
        &finalists,
        gpu,
        &confirm,
        compiled,
        advice.reference,
    )?;
    let rest = advice
        .ranked
        .drain(..)
        .filter(|r| !finalists.contains(&(r.strategy, r.launch, r.grid)));
    advice.ranked = confirmed.into_iter().chain(rest).collect();
    // The recommendation's speedups are over the confirming runs' baseline.
    advice.baseline_ns = Spread::of(&base);
    advice.confirmed = Some((finalists.len(), confirm));
    Ok(advice)
}
