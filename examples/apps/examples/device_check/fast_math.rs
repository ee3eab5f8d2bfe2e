//! MCML fast math (`FastF32`: approximate PTX division, square root, logarithm, cosine and
//! sine). Each `mcml_fast_*` entry point runs skin and slab, and its Rd, A and Tt are compared
//! with the exact CPU f32 run of the same photons within a statistical tolerance.
//!
//! The tolerance is `|fast − exact| ≤ 4 · sqrt(1.1 · (fast + exact) / N)` for each of Rd, A
//! and Tt, with `N` photons. Each quantity is a mean over photons of a per-photon contribution
//! `X` in `[0, 1.1]`. A photon's weights sum to at most 1, plus roulette wins, which scale a
//! weight below 10^-4 by 10. So `Var X ≤ E[X²] ≤ 1.1 E[X]`, and `sqrt(1.1 μ / N)` bounds each
//! estimate's standard error without per-photon sums of squares. The GPU and CPU runs draw the
//! same streams, but their photons part ways at the first differing bit. Treating the two
//! estimates as independent makes the variance of their difference at most the sum of the
//! two variances: hence `fast + exact` under the root. Four standard errors of an upper
//! bound: a correct implementation fails one of the 18 comparisons (3 entries, 2 inputs,
//! Rd/A/Tt) with probability below 2 · 10^-3. At 10^6 photons a bias of a few 10^-3 in Rd,
//! A or Tt fails the check. The check is statistical: smaller biases need more photons.

use std::time::Duration;

use reconverge_backend::Launch;
use reconverge_mcml::run_with;
use reconverge_workloads::gpu_entries::MCML_FAST_MATH_STRATEGIES;
use reconverge_workloads::mcml::{FastF32, McmlKernel, McmlLoop};
use serde_json::{Value, json};

use crate::gpu::{CudaBackend, DeviceKernel, GpuError};
use crate::mcml::mcml_result;
use crate::report::Report;

/// Width of the tolerance, in (upper bounds of) standard errors.
const SIGMAS: f64 = 4.0;
/// Largest total contribution of one photon (see the module docs).
const MAX_PER_PHOTON: f64 = 1.1;

/// The allowed |fast − exact| for a quantity with estimates `a` and `b` over `n` photons.
pub fn tolerance(a: f64, b: f64, n: u64) -> f64 {
    SIGMAS * (MAX_PER_PHOTON * (a.abs() + b.abs()) / n as f64).sqrt()
}

/// Runs the fast-math comparisons; `photons` per (input, entry point).
pub fn run(
    rep: &mut Report,
    gpu: &CudaBackend,
    sanitize: bool,
    photons: u64,
) -> Result<(), GpuError> {
    let photons = if sanitize { 4096 } else { photons.max(1) };
    println!(
        "\n== MCML fast math (approximate, not bit-identical): Rd/A/Tt within {SIGMAS} standard errors of the exact CPU f32 run"
    );
    let tpb = 128u32;
    let mut rows = Vec::new();
    for name in ["skin", "slab"] {
        let label = format!("mcml fast math {name}");
        if rep.skip_when_late(&label) {
            continue;
        }
        let Some(input) = reconverge_mcml::builtin::builtin(name) else {
            rep.check(&label, false, "no such built-in input");
            continue;
        };
        let params = match input.params::<FastF32>() {
            Ok(p) => p,
            Err(e) => {
                rep.check(&label, false, &format!("params: {e:?}"));
                continue;
            }
        };
        // The exact reference: f32 on the CPU, photons 0..N of seed 1, as the GPU runs them.
        let t = std::time::Instant::now();
        let exact = match run_with::<f32>(&input, photons, 1, None) {
            Ok(r) => r,
            Err(e) => {
                rep.check(&label, false, &format!("CPU f32 run: {e}"));
                continue;
            }
        };
        let cpu_s = t.elapsed().as_secs_f64();
        let kernel = McmlKernel(McmlLoop {
            params,
            seed: 1,
            first_photon: 0,
        });
        for &strategy in MCML_FAST_MATH_STRATEGIES {
            let entry = <McmlKernel<FastF32>>::entry_point(&strategy, 0).unwrap_or("?");
            let check_name = format!("{entry} {name} x{photons}");
            if rep.skip_when_late(&check_name) {
                continue;
            }
            let blocks = if sanitize {
                1
            } else {
                gpu.gpu().resident_blocks(entry, tpb).unwrap_or(1)
            };
            let launch = Launch::new(tpb, blocks).map_err(|e| GpuError::InvalidInput {
                kernel: entry.into(),
                reason: e.to_string(),
            })?;
            let items = u32::try_from(photons).unwrap_or(u32::MAX);
            let r = match gpu.try_run(&kernel, strategy, items, launch) {
                Ok(r) => r,
                Err(e) => {
                    rep.check(&check_name, false, &format!("GPU error: {e}"));
                    continue;
                }
            };
            let s = r.pass_times.iter().sum::<Duration>().as_secs_f64();
            let tallies_equal = r.tally == exact.tally;
            let (rd, a, tt) = mcml_result(
                &input,
                photons,
                f64::from(params.rsp.0),
                params.layout(),
                r.tally,
            );
            let pairs = [
                ("Rd", rd, exact.rd),
                ("A", a, exact.a),
                ("Tt", tt, exact.tt),
            ];
            let mut ok = true;
            let mut parts = Vec::new();
            let mut worst = 0.0f64;
            for (q, f, e) in pairs {
                let tol = tolerance(f, e, photons);
                let diff = (f - e).abs();
                let within = diff <= tol && f.is_finite();
                ok &= within;
                worst = worst.max(diff / tol.max(1e-300));
                parts.push(format!(
                    "{q} {f:.6} vs {e:.6} (|diff| {diff:.2e} <= {tol:.2e}: {})",
                    if within { "ok" } else { "NO" }
                ));
            }
            rep.check(
                &check_name,
                ok,
                &format!(
                    "({} blocks x {tpb}, {s:.3} s on the GPU, {:.3e} photons/s; exact CPU f32 run {cpu_s:.1} s; tallies {}bit-identical; worst {worst:.2} of the tolerance) {}",
                    launch.blocks,
                    photons as f64 / s.max(1e-9),
                    if tallies_equal { "" } else { "not " },
                    parts.join(", ")
                ),
            );
            rows.push(json!({
                "input": name, "entry": entry, "photons": photons, "kernel_s": s,
                "rd": rd, "a": a, "tt": tt,
                "exact_rd": exact.rd, "exact_a": exact.a, "exact_tt": exact.tt,
                "within_tolerance": ok, "tallies_bit_identical": tallies_equal,
            }));
        }
    }
    rep.json.insert("mcml_fast_math".into(), Value::Array(rows));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tolerance is four of its standard-error bounds, halves at four times the photons,
    /// and leaves a bias of 0.01 outside at 10^6 photons.
    #[test]
    fn tolerance_scales_with_the_estimate_and_photons() {
        let n = 1_000_000;
        let t = tolerance(0.25, 0.25, n);
        assert!((t - 4.0 * (1.1 * 0.5 / 1e6f64).sqrt()).abs() < 1e-12);
        assert!(tolerance(0.25, 0.25, 4 * n) < t / 1.9);
        assert!(0.01 > t, "a bias of 0.01 must fail at 10^6 photons");
    }
}
