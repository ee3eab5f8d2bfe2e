//! Runs the self-test kernels on GPU 0 and compares them bit for bit with the CPU: the warp
//! operations against the reference SIMT model, `libm` in `f64` and `f32` against the same
//! `libm` code on the host. Prints the device, every kernel's attributes and one PASS/FAIL line
//! per check; exits 0 only if everything passed, 2 if there is no usable GPU.
//!
//! Build and run with `gpu-kernels/device-check.sh` (see there).

use std::process::ExitCode;

use reconverge_gpu::selftest::{
    SlotCheck, check_libm_f32, check_libm_f64, check_warp_outputs, libm_inputs,
};
use reconverge_gpu::{GpuContext, GpuError};

fn report(title: &str, checks: &[SlotCheck], ms: f32) -> bool {
    println!("\n{title} (kernel {ms:.3} ms)");
    println!(
        "  {:<20} {:>10} {:>8}  first difference (index: gpu / cpu bits)",
        "check", "compared", "differ"
    );
    let mut all = true;
    for c in checks {
        let first = c
            .first
            .map(|(i, g, cpu)| format!("{i}: {g:#x} / {cpu:#x}"))
            .unwrap_or_default();
        let verdict = if c.passed() { "PASS" } else { "FAIL" };
        println!(
            "  {:<20} {:>10} {:>8}  {verdict} {first}",
            c.name, c.compared, c.differ
        );
        all &= c.passed();
    }
    println!("{} {title}", if all { "PASS" } else { "FAIL" });
    all
}

fn run() -> Result<bool, GpuError> {
    let gpu = GpuContext::new(0)?;
    let d = gpu.device();
    println!(
        "device {}: {} (compute capability {}.{}, {} SMs, {:.1} GiB)",
        d.ordinal,
        d.name,
        d.major,
        d.minor,
        d.multiprocessors,
        d.total_memory as f64 / (1u64 << 30) as f64
    );
    println!(
        "\n{:<24} {:>5} {:>10} {:>9} {:>8} {:>5} {:>5}",
        "kernel", "regs", "static smem", "max tpb", "local B", "ptx", "sass"
    );
    for k in gpu.kernels() {
        println!(
            "{:<24} {:>5} {:>10} {:>9} {:>8} {:>5} {:>5}",
            k.name,
            k.registers_per_thread,
            k.static_shared_bytes,
            k.max_threads_per_block,
            k.local_bytes_per_thread,
            k.ptx_version,
            k.binary_version
        );
    }

    let mut ok = true;
    for &(blocks, tpb, seed) in &[(1u32, 32u32, 0u32), (7, 96, 5), (64, 1024, 12345)] {
        let r = gpu.warp_selftest(blocks, tpb, seed)?;
        let checks = check_warp_outputs(&r.value, blocks, tpb, seed);
        ok &= report(
            &format!("warp_selftest {blocks} x {tpb} seed {seed}"),
            &checks,
            r.kernel_ms,
        );
    }

    let n = 1 << 22;
    let xs = libm_inputs(n);
    let r = gpu.libm_selftest(&xs)?;
    ok &= report(
        &format!("libm_selftest f64, {n} inputs"),
        &check_libm_f64(&xs, &r.value),
        r.kernel_ms,
    );
    let xf: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let r = gpu.libmf_selftest(&xf)?;
    ok &= report(
        &format!("libmf_selftest f32, {n} inputs"),
        &check_libm_f32(&xf, &r.value),
        r.kernel_ms,
    );

    // A launch the kernel cannot take must come back as a typed error, not a crash.
    match gpu.warp_selftest(1, 48, 0) {
        Err(e @ GpuError::BadLaunch { .. }) => println!("\nPASS bad launch shape rejected: {e}"),
        other => {
            println!("\nFAIL bad launch shape not rejected: {other:?}");
            ok = false;
        }
    }
    Ok(ok)
}

fn main() -> ExitCode {
    // `--write-ptx FILE`: save the embedded PTX (for `ptxas -v`) and exit; needs no GPU.
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, path] = args.as_slice()
        && flag == "--write-ptx"
    {
        return match std::fs::write(path, reconverge_gpu::PTX) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                println!("FAIL writing {path}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run() {
        Ok(true) => {
            println!("\nALL PASS");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            println!("\nSOME CHECKS FAILED");
            ExitCode::FAILURE
        }
        Err(e @ (GpuError::NoDriver | GpuError::NoDevice { .. })) => {
            println!("FAIL no usable GPU: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            println!("FAIL {e}");
            ExitCode::FAILURE
        }
    }
}
