//! Fitting a device's [`Calibration`] to a short calibration run: the costs the model cannot
//! count, chosen so that the schedule model's predicted times match measured ones.
//!
//! An [`Observation`] is one measured (workload, strategy, launch): its model profile (sampled
//! as [`crate::plan`] does), the registers of its entry points and the measured kernel time.
//! [`fit`] searches five of the calibration's numbers (time per issue cycle, the lone warp's
//! issue interval, the per-launch overhead, the warp program's bookkeeping per step, the extra
//! cost of an exchange) by coordinate descent on multiplicative steps, minimising the root mean
//! square of `ln(predicted / measured)`: a relative error, so that short and long kernels
//! weigh alike.
//!
//! Each number has observations that pin it: runs at one wave and at one quarter-filled wave
//! (latency: the issue interval), a multi-pass strategy at 1 and 32 iterations per pass (the
//! launch overhead), warp-level strategies on a branch every lane takes the same way, where
//! they save nothing and cost only their bookkeeping (the step cost). [`fit_grid_claims`]
//! then fits the time of a claim on the launch's one counter to the claims probe alone: items
//! of one-step trips dealt by one counter, whose time the counter sets.

use reconverge_backend::Launch;

use crate::AdviseError;
use crate::plan::{Gpu, launch_time};
use crate::profile::Profile;
use crate::schedule::Calibration;

/// One measured run of the calibration.
#[derive(Clone, Debug)]
pub struct Observation {
    /// What ran, for reports.
    pub label: String,
    /// Its model profile (sampled or whole) at `launch`.
    pub profile: Profile,
    /// The launch it ran at.
    pub launch: Launch,
    /// Registers per thread of each pass's entry point.
    pub registers: Vec<u32>,
    /// Measured kernel time, nanoseconds.
    pub measured_ns: f64,
}

/// Each observation's predicted time on `gpu`, nanoseconds.
///
/// # Errors
/// As [`launch_time`].
pub fn predicted(observations: &[Observation], gpu: &Gpu) -> Result<Vec<f64>, AdviseError> {
    observations
        .iter()
        .map(|o| launch_time(&o.profile, o.launch, gpu, &o.registers).map(|t| t.ns))
        .collect()
}

/// Root mean square of `ln(predicted / measured)` over `observations`.
///
/// # Errors
/// As [`launch_time`].
pub fn rms_log_error(observations: &[Observation], gpu: &Gpu) -> Result<f64, AdviseError> {
    let p = predicted(observations, gpu)?;
    let n = observations.len().max(1) as f64;
    let sum: f64 = observations
        .iter()
        .zip(&p)
        .map(|(o, p)| (p / o.measured_ns).ln().powi(2))
        .sum();
    Ok((sum / n).sqrt())
}

fn get(c: &Calibration, i: usize) -> f64 {
    match i {
        0 => c.ns_per_slot,
        1 => c.warp_issue_interval,
        2 => c.launch_overhead_us,
        3 => c.warp_step_slots,
        _ => c.exchange_slots,
    }
}

fn set(c: &mut Calibration, i: usize, v: f64) {
    match i {
        0 => c.ns_per_slot = v,
        1 => c.warp_issue_interval = v.max(1.0),
        2 => c.launch_overhead_us = v,
        3 => c.warp_step_slots = v,
        _ => c.exchange_slots = v,
    }
}

/// Starting points of the additive costs when they are 0 (a multiplicative step cannot leave
/// 0): a few slots, a microsecond.
const FLOOR: [f64; 5] = [1e-3, 1.0, 1.0, 1.0, 1.0];

/// Fits `start`'s first five numbers (not [`Calibration::grid_claim_ns`], which
/// [`fit_grid_claims`] fits on its own observations) to `observations` (see the module docs)
/// and records the fit's error and `fitted_on` in the result.
///
/// # Errors
/// [`AdviseError::NoItems`] without observations; as [`launch_time`].
pub fn fit(observations: &[Observation], start: &Gpu, fitted_on: &str) -> Result<Gpu, AdviseError> {
    let valid: Vec<Observation> = observations
        .iter()
        .filter(|o| o.measured_ns.is_finite() && o.measured_ns > 0.0)
        .cloned()
        .collect();
    if valid.is_empty() {
        return Err(AdviseError::NoItems);
    }
    let mut best = start.clone();
    let mut best_err = rms_log_error(&valid, &best)?;
    for factor in [2.0, 1.3, 1.1, 1.03] {
        loop {
            let mut improved = false;
            for (i, &floor) in FLOOR.iter().enumerate() {
                let v = get(&best.calibration, i);
                let mut candidates = vec![v * factor, v / factor];
                if v < floor {
                    candidates.push(floor);
                }
                if i >= 2 {
                    candidates.push(0.0);
                }
                for c in candidates {
                    let mut trial = best.clone();
                    set(&mut trial.calibration, i, c);
                    let err = rms_log_error(&valid, &trial)?;
                    if err < best_err - 1e-9 {
                        best = trial;
                        best_err = err;
                        improved = true;
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }
    best.calibration.rms_log_error = Some(best_err);
    best.calibration.fitted_on = fitted_on.into();
    Ok(best)
}

/// Fits [`Calibration::grid_claim_ns`] alone, the other numbers as `gpu` has them, to the
/// runs of grid-wide dynamic work assignment among `runs` (the others are passed over): the
/// claims probe's, whose work per claim is a few instructions, so that the launch's one
/// counter can set their time. The claims are a bound of their
/// own (one address's atomics served one after another), not a cost added to the work, so the
/// fit is of the runs' predicted times themselves: the value minimises the root mean square of
/// `ln(predicted / measured)` over candidates from 0.001 to 10 ns (20 per decade) and 0; the
/// result's `rms_log_error` is left as it was.
///
/// # Errors
/// [`AdviseError::NoItems`] without grid-wide runs; as [`launch_time`].
pub fn fit_grid_claims(runs: &[Observation], gpu: &Gpu) -> Result<Gpu, AdviseError> {
    let valid: Vec<&Observation> = runs
        .iter()
        .filter(|o| o.profile.strategy.deals_across_blocks() && o.measured_ns > 0.0)
        .collect();
    if valid.is_empty() {
        return Err(AdviseError::NoItems);
    }
    let error = |gpu: &Gpu| -> Result<f64, AdviseError> {
        let mut sum = 0.0;
        for o in &valid {
            let p = launch_time(&o.profile, o.launch, gpu, &o.registers)?.ns;
            sum += (p / o.measured_ns).ln().powi(2);
        }
        Ok((sum / valid.len() as f64).sqrt())
    };
    let mut best = gpu.clone();
    best.calibration.grid_claim_ns = 0.0;
    let mut best_err = error(&best)?;
    for k in -60..=20 {
        let mut trial = gpu.clone();
        trial.calibration.grid_claim_ns = 10f64.powf(f64::from(k) / 20.0);
        let err = error(&trial)?;
        if err < best_err - 1e-12 {
            best = trial;
            best_err = err;
        }
    }
    best.calibration.rms_log_error = gpu.calibration.rms_log_error;
    Ok(best)
}
