//! MCML f32 (skin, slab): tallies of every entry point bitwise against the CPU backend (else
//! the largest relative difference of Rd, A, Tt), then photons/s per strategy with persistent
//! blocks (SMs x resident blocks per SM), and ten times the photons for the fastest when the
//! time budget allows.

use std::fmt::Write as _;
use std::time::Duration;

use reconverge_backend::{Backend, Launch};
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{Assignment, Kernel};
use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
use serde_json::{Value, json};

use crate::gpu::{CudaBackend, DeviceKernel, GpuError};
use crate::report::{Report, fmt_occ};

/// The GPU and the CPU backend (counting on) it is compared with.
pub struct Backends<'a> {
    pub gpu: &'a CudaBackend,
    pub cpu_counting: &'a CpuBackend,
}

/// Kernel seconds, photons/s, occupancy per pass, (Rd, A, Tt).
type Throughput = (f64, f64, Vec<Option<f64>>, (f64, f64, f64));

/// MCML's Rd, A, Tt from a tally.
pub(crate) fn mcml_result(
    input: &reconverge_mcml::RunInput,
    photons: u64,
    rsp: f64,
    layout: reconverge_workloads::mcml::TallyLayout,
    tally: Vec<u64>,
) -> (f64, f64, f64) {
    let r = reconverge_mcml::RunResult::from_tally(
        input.clone(),
        photons,
        1,
        rsp,
        layout,
        tally,
        Duration::ZERO,
    );
    (r.rd, r.a, r.tt)
}

/// Runs the MCML checks; `mcml_photons` is the photon count of the throughput runs.
pub fn run(
    rep: &mut Report,
    b: &Backends<'_>,
    sanitize: bool,
    mcml_photons: u64,
) -> Result<(), GpuError> {
    println!("\n== MCML f32: (a) tallies GPU = CPU bitwise, (d) photons/s on the GPU");
    let sms = u32::try_from(b.gpu.gpu().device().multiprocessors)
        .unwrap_or(1)
        .max(1);
    let tpb = 128u32;
    let mut throughput = Vec::new();
    let strategies = <McmlKernel<f32>>::strategies().len() as u32;
    let mut runs_left = 2 * strategies;
    for name in ["skin", "slab"] {
        let Some(input) = reconverge_mcml::builtin::builtin(name) else {
            rep.check(
                &format!("mcml {name} input"),
                false,
                "no such built-in input",
            );
            continue;
        };
        let params = match input.params::<f32>() {
            Ok(p) => p,
            Err(e) => {
                rep.check(&format!("mcml {name} params"), false, &format!("{e:?}"));
                continue;
            }
        };
        let kernel = McmlKernel(McmlLoop {
            params,
            seed: 1,
            first_photon: 0,
        });
        let layout = params.layout();
        let rsp = f64::from(params.rsp);
        let photons_cmp: u32 = if sanitize { 128 } else { 1 << 15 };
        let launch_cmp = Launch::new(tpb, if sanitize { 1 } else { 64 }).map_err(|e| {
            GpuError::InvalidInput {
                kernel: "mcml".into(),
                reason: e.to_string(),
            }
        })?;
        for strategy in <McmlKernel<f32>>::strategies() {
            let entry = <McmlKernel<f32>>::entry_point(&strategy, 0).unwrap_or("?");
            let label = format!("mcml {name} {entry}");
            if rep.late() {
                rep.skip(&label, "past the time budget");
                continue;
            }
            let cpu = b
                .cpu_counting
                .run(&kernel, strategy, photons_cmp, launch_cmp);
            let gpu = b.gpu.try_run(&kernel, strategy, photons_cmp, launch_cmp);
            match (&gpu, &cpu) {
                (Ok(g), Ok(c)) if g.tally == c.tally => {
                    let simd = c.simd_efficiency().unwrap_or(0.0);
                    rep.check(
                        &format!("equal {label}"),
                        true,
                        &format!(
                            "({photons_cmp} photons, {} tallies; CPU SIMD efficiency {simd:.3})",
                            c.tally.len()
                        ),
                    );
                }
                (Ok(g), Ok(c)) => {
                    let n = g.tally.iter().zip(&c.tally).filter(|(a, b)| a != b).count();
                    let gr =
                        mcml_result(&input, u64::from(photons_cmp), rsp, layout, g.tally.clone());
                    let cr =
                        mcml_result(&input, u64::from(photons_cmp), rsp, layout, c.tally.clone());
                    let rel = |a: f64, b: f64| ((a - b) / b.abs().max(1e-300)).abs();
                    rep.check(
                        &format!("equal {label}"),
                        false,
                        &format!(
                            "({n} of {} tallies differ; relative difference Rd {:.2e} A {:.2e} Tt {:.2e}; GPU Rd/A/Tt {:.6}/{:.6}/{:.6}, CPU {:.6}/{:.6}/{:.6}. A difference means a float op differs between backends: look for FMA contraction or a non-libm transcendental in the f32 path)",
                            g.tally.len(), rel(gr.0, cr.0), rel(gr.1, cr.1), rel(gr.2, cr.2), gr.0, gr.1, gr.2, cr.0, cr.1, cr.2
                        ),
                    );
                }
                (Err(e), _) => {
                    rep.check(&format!("equal {label}"), false, &format!("GPU error: {e}"));
                }
                (_, Err(e)) => {
                    rep.check(&format!("equal {label}"), false, &format!("CPU error: {e}"));
                }
            }
        }
        if sanitize {
            continue;
        }
        // (d) photons/s: persistent blocks, warm-up on a small run of the same entry point.
        println!(
            "  {name}: {:<20} {:>10} {:>8} {:>9} {:>12} {:>6}  Rd / A / Tt",
            "entry point", "photons", "blocks", "kernel s", "photons/s", "occ"
        );
        for strategy in <McmlKernel<f32>>::strategies() {
            let entry = <McmlKernel<f32>>::entry_point(&strategy, 0).unwrap_or("?");
            if rep.late() {
                rep.skip(
                    &format!("mcml {name} {entry} photons/s"),
                    "past the time budget",
                );
                continue;
            }
            let blocks = b.gpu.gpu().resident_blocks(entry, tpb).unwrap_or(sms);
            let launch = Launch::new(tpb, blocks).map_err(|e| GpuError::InvalidInput {
                kernel: entry.into(),
                reason: e.to_string(),
            })?;
            // Probe at 10^6 (after the warm-up), then the full count if it fits the budget.
            let probe = mcml_photons.min(1_000_000);
            let run = |photons: u64| -> Result<Throughput, GpuError> {
                let items = u32::try_from(photons).unwrap_or(u32::MAX);
                let r = b.gpu.try_run(&kernel, strategy, items, launch)?;
                let s = r.pass_times.iter().sum::<Duration>().as_secs_f64();
                let res = mcml_result(&input, photons, rsp, layout, r.tally);
                Ok((s, photons as f64 / s.max(1e-9), r.occupancy, res))
            };
            let first = run(probe)?;
            // The full count only where it fits this run's share of the remaining time budget
            // (at most 30 s), at the probe's rate.
            runs_left = runs_left.saturating_sub(1);
            let share =
                ((rep.deadline_s - 30.0 - rep.seconds()) / f64::from(runs_left + 1)).min(30.0);
            let photons = if mcml_photons as f64 / first.1 < share {
                mcml_photons
            } else {
                probe
            };
            let (s, rate, occ, (rd, a, tt)) = if photons == probe {
                first
            } else {
                run(photons)?
            };
            println!(
                "  {name}: {entry:<20} {photons:>10.0e} {:>8} {s:>9.3} {rate:>12.4e} {:>6}  {rd:.5} / {a:.5} / {tt:.5}",
                launch.blocks,
                fmt_occ(&occ),
                photons = photons as f64
            );
            let _ = writeln!(
                rep.mcml_csv,
                "{name},{},{entry},{photons},{tpb},{},{s:.4},{rate:.0},{},{rd:.6},{a:.6},{tt:.6}",
                strategy.id(),
                launch.blocks,
                fmt_occ(&occ)
            );
            throughput.push(json!({"input": name, "entry": entry, "photons": photons, "blocks": launch.blocks, "kernel_s": s, "photons_per_s": rate, "rd": rd, "a": a, "tt": tt}));
            rep.check(
                &format!("mcml {name} {entry} photons/s"),
                rate.is_finite() && rate > 0.0,
                &format!("({rate:.3e} photons/s)"),
            );
        }
        // 10^8 for the fastest strategy on this input, when the budget allows.
        let best = throughput
            .iter()
            .filter(|t| t["input"] == name)
            .max_by(|a, b| {
                a["photons_per_s"]
                    .as_f64()
                    .partial_cmp(&b["photons_per_s"].as_f64())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .map(|t| {
                (
                    t["entry"].as_str().unwrap_or("").to_string(),
                    t["photons_per_s"].as_f64().unwrap_or(0.0),
                )
            });
        if let Some((entry, rate)) = best {
            let big = mcml_photons * 10;
            let need = big as f64 / rate.max(1.0);
            if rep.seconds() + need > rep.deadline_s - 10.0 {
                rep.skip(
                    &format!("mcml {name} {entry} x{big:.0e}", big = big as f64),
                    &format!("needs ~{need:.0} s"),
                );
            } else if let Some(strategy) = <McmlKernel<f32>>::ENTRY_POINTS
                .iter()
                .find(|e| e.name == entry)
                .map(|e| e.strategy)
            {
                let blocks = b.gpu.gpu().resident_blocks(&entry, tpb).unwrap_or(sms);
                let launch = Launch::new(tpb, blocks).map_err(|e| GpuError::InvalidInput {
                    kernel: entry.clone(),
                    reason: e.to_string(),
                })?;
                let items = u32::try_from(big).unwrap_or(u32::MAX);
                let r = b.gpu.try_run(&kernel, strategy, items, launch)?;
                let s = r.pass_times.iter().sum::<Duration>().as_secs_f64();
                let rate = big as f64 / s.max(1e-9);
                let (rd, a, tt) = mcml_result(&input, big, rsp, layout, r.tally);
                println!(
                    "  {name}: {entry:<20} {:>10.0e} {:>8} {s:>9.3} {rate:>12.4e}        {rd:.5} / {a:.5} / {tt:.5}",
                    big as f64, launch.blocks
                );
                let _ = writeln!(
                    rep.mcml_csv,
                    "{name},{},{entry},{big},{tpb},{},{s:.4},{rate:.0},,{rd:.6},{a:.6},{tt:.6}",
                    strategy.id(),
                    launch.blocks
                );
                throughput.push(json!({"input": name, "entry": entry, "photons": big, "blocks": launch.blocks, "kernel_s": s, "photons_per_s": rate, "rd": rd, "a": a, "tt": tt}));
            }
        }
    }
    rep.json.insert("mcml".into(), Value::Array(throughput));
    Ok(())
}

/// The tally copies of the CUDA backend change no bit: MCML skin under branch distribution
/// with dynamic work, its tallies from 1, 3 (not dividing the blocks), 8 (the default) and 32
/// copies each equal to the CPU backend's.
pub fn tally_copies(
    rep: &mut Report,
    gpu: &mut CudaBackend,
    cpu: &CpuBackend,
    sanitize: bool,
) -> Result<(), GpuError> {
    println!("\n== MCML f32: tallies in 1, 3, 8 and 32 copies on the GPU = CPU bitwise");
    let Some(params) =
        reconverge_mcml::builtin::builtin("skin").and_then(|i| i.params::<f32>().ok())
    else {
        rep.check("tally copies: skin input", false, "no built-in skin");
        return Ok(());
    };
    let kernel = McmlKernel(McmlLoop {
        params,
        seed: 7,
        first_photon: 0,
    });
    let strategy = reconverge_transforms::Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic);
    let photons: u32 = if sanitize { 128 } else { 1 << 15 };
    let launch =
        Launch::new(128, if sanitize { 2 } else { 64 }).map_err(|e| GpuError::InvalidInput {
            kernel: "mcml".into(),
            reason: e.to_string(),
        })?;
    let want = match cpu.run(&kernel, strategy, photons, launch) {
        Ok(r) => r.tally,
        Err(e) => {
            rep.check("tally copies", false, &format!("CPU error: {e}"));
            return Ok(());
        }
    };
    for copies in [1, 3, 8, 32] {
        gpu.set_tally_copies(Some(copies));
        let used = gpu.tally_copies(kernel.tally_len() as u32, launch.blocks);
        let label = format!("tally copies {copies} (used {used})");
        match gpu.try_run(&kernel, strategy, photons, launch) {
            Ok(r) => {
                let differ = r.tally.iter().zip(&want).filter(|(a, b)| a != b).count();
                rep.check(
                    &label,
                    r.tally == want,
                    &format!("({differ} of {} tallies differ from the CPU's)", want.len()),
                );
            }
            Err(e) => {
                rep.check(&label, false, &format!("GPU error: {e}"));
            }
        }
    }
    gpu.set_tally_copies(None);
    Ok(())
}
