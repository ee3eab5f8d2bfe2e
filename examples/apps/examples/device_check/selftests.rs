//! Self-tests: warp votes, shuffles and block atomics against the CPU SIMT model, `libm` f64
//! and MCML's f32 math bit for bit, MCML's fast-math operations within the PTX ISA's stated
//! bounds, and a bad launch shape rejected.

use crate::gpu::{
    GpuContext, GpuError, SelfTests, SlotCheck, ToleranceCheck, check_fast_math, check_libm_f64,
    check_mcml_math, check_warp_outputs, libm_inputs,
};
use crate::report::Report;

fn slot_report(rep: &mut Report, title: &str, checks: &[SlotCheck], ms: f32) {
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| {
            let first = c
                .first
                .map(|(i, g, cpu)| format!(" first at {i}: gpu {g:#x} cpu {cpu:#x}"))
                .unwrap_or_default();
            format!("{} {}/{} differ{first}", c.name, c.differ, c.compared)
        })
        .collect();
    let compared: usize = checks.iter().map(|c| c.compared).sum();
    rep.check(
        title,
        bad.is_empty(),
        &format!("({compared} values, {ms:.3} ms) {}", bad.join("; ")),
    );
}

/// One fast-math operation's line: its measured errors and the bound it is held to.
fn tolerance_report(rep: &mut Report, n: usize, c: &ToleranceCheck, ms: f32) {
    let first = c
        .first
        .map(|(i, g, y)| format!("; first outside at {i}: gpu {g:e} exact {y:e}"))
        .unwrap_or_default();
    rep.check(
        &format!("fast math {} x{n}", c.name),
        c.passed(),
        &format!(
            "({} values, {ms:.3} ms) vs the exact CPU op: max abs {:.3e}, max rel {:.3e}; worst {:.3} of the bound {}; {} outside{first}",
            c.compared, c.max_abs, c.max_rel, c.worst_of_bound, c.bound, c.outside
        ),
    );
}

pub fn run(rep: &mut Report, gpu: &GpuContext, sanitize: bool) -> Result<(), GpuError> {
    println!("\n== self-tests");
    let shapes: &[(u32, u32, u32)] = if sanitize {
        &[(1, 32, 0), (3, 96, 5)]
    } else {
        &[(1, 32, 0), (7, 96, 5), (64, 1024, 12345)]
    };
    for &(blocks, tpb, seed) in shapes {
        let r = gpu.warp_selftest(tpb, blocks, seed)?;
        let checks = check_warp_outputs(&r.value, tpb, blocks, seed);
        slot_report(
            rep,
            &format!("warp_selftest {blocks}x{tpb} seed {seed}"),
            &checks,
            r.kernel_ms,
        );
    }
    let n = if sanitize { 1 << 10 } else { 1 << 22 };
    let xs = libm_inputs(n);
    let r = gpu.libm_selftest(&xs)?;
    let title = format!("libm f64 x{n}");
    slot_report(rep, &title, &check_libm_f64(&xs, &r.value), r.kernel_ms);
    let xf: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let r = gpu.libmf_selftest(&xf)?;
    let title = format!("MCML f32 math (own -ln, cos/sin of turns, sqrt.rn, libm acosf) x{n}");
    slot_report(rep, &title, &check_mcml_math(&xf, &r.value), r.kernel_ms);
    // Fast math: not bit-identical by design; each operation within its PTX-stated bound.
    let r = gpu.fastmath_selftest(&xf)?;
    for c in check_fast_math(&xf, &r.value) {
        tolerance_report(rep, n, &c, r.kernel_ms);
    }
    match gpu.warp_selftest(48, 1, 0) {
        Err(e @ GpuError::BadLaunch { .. }) => {
            rep.check("bad launch shape rejected", true, &format!("({e})"));
        }
        other => {
            rep.check(
                "bad launch shape rejected",
                false,
                &format!("got {other:?}"),
            );
        }
    }
    Ok(())
}
