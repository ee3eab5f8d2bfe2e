//! The CUDA backend's device check, run on a GPU machine by `paper-kernels/device-check.sh`:
//!
//! 1. self-tests: warp votes/shuffles/block atomics against the CPU SIMT model, `libm` f64/f32
//!    bit for bit;
//! 2. (b) occupancy: for every kernel and block sizes 32 … 1024, `reconverge-occupancy`'s
//!    prediction (the device's compute capability, the kernel's registers and static shared
//!    memory from the driver) against `cuOccupancyMaxActiveBlocksPerMultiprocessor`;
//! 3. (a)+(c) every workload under every strategy with an entry point: outputs and tallies on
//!    the GPU equal to the CPU backend's (same seed, items and launch; bitwise: outputs by
//!    their `Debug` text, which differs for any two different floats but NaN payloads), then
//!    GPU throughput at a larger size next to the CPU backend's (items/s), the driver's
//!    theoretical occupancy of each pass and the CPU model's SIMD efficiency;
//! 4. MCML f32 (skin, slab): tallies bitwise against the CPU backend (else the largest relative
//!    difference of Rd, A, Tt), then (d) photons/s per strategy at 10^7 photons with persistent
//!    blocks (SMs x resident blocks per SM), and 10^8 for the fastest when time allows.
//!
//! `--sanitize`: small sizes, no timing (for `compute-sanitizer`). `--out DIR`: tables as CSV
//! and a JSON summary there. `--write-ptx FILE`: save the embedded PTX and exit (no GPU).
//! Prints PASS/FAIL lines and a summary; exits 0 if all passed, 1 if not, 2 without a GPU.

use std::fmt::Debug;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use reconverge_backend::{Backend, Launch, Run};
use reconverge_cpu::{Counting, CpuBackend};
use reconverge_gpu::{CudaBackend, DeviceKernel, GpuContext, GpuError, WarmUp};
use reconverge_occupancy::{ComputeCapability, KernelResources, LaunchConfig, calculate_occupancy};
use reconverge_paper_kernels::selftest::{
    SelfTests, SlotCheck, check_libm_f64, check_mcml_math, check_warp_outputs, libm_inputs,
};
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Strategy, TwoPathKernel,
};
use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, MaskLayout, PathUnification, SynBrDis, SynItDelay,
};
use serde_json::{Value, json};

/// Default of `--budget`: stop starting long runs after this many seconds.
const DEFAULT_BUDGET_S: f64 = 270.0;

struct Opts {
    out: Option<PathBuf>,
    sanitize: bool,
    mcml_photons: u64,
    budget_s: f64,
}

/// PASS/FAIL lines, tables and the final summary.
struct Report {
    started: Instant,
    deadline_s: f64,
    passed: u32,
    failed: u32,
    skipped: u32,
    failures: Vec<String>,
    json: serde_json::Map<String, Value>,
    workload_csv: String,
    occupancy_csv: String,
    mcml_csv: String,
}

impl Report {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            deadline_s: DEFAULT_BUDGET_S,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: Vec::new(),
            json: serde_json::Map::new(),
            workload_csv: "workload,strategy,entry_points,items_cmp,equal,first_difference,cpu_items_per_s,cpu_simd_efficiency,gpu_items,gpu_kernel_ms,gpu_items_per_s,gpu_speedup_vs_baseline,occupancy_per_pass\n".into(),
            occupancy_csv: "kernel,registers,static_smem,threads_per_block,driver_blocks_per_sm,predicted_blocks_per_sm,predicted_occupancy,limited_by,equal\n".into(),
            mcml_csv: "input,strategy,entry_point,photons,threads_per_block,blocks,kernel_s,photons_per_s,occupancy,rd,a,tt\n".into(),
        }
    }

    fn check(&mut self, name: &str, ok: bool, detail: &str) -> bool {
        if ok {
            self.passed += 1;
            println!("PASS {name} {detail}");
        } else {
            self.failed += 1;
            self.failures.push(format!("{name} {detail}"));
            println!("FAIL {name} {detail}");
        }
        ok
    }

    fn skip(&mut self, name: &str, why: &str) {
        self.skipped += 1;
        println!("SKIP {name}: {why}");
    }

    fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn late(&self) -> bool {
        self.seconds() > self.deadline_s
    }
}

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

fn selftests(rep: &mut Report, gpu: &GpuContext, sanitize: bool) -> Result<(), GpuError> {
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
    slot_report(
        rep,
        &format!("libm f64 x{n}"),
        &check_libm_f64(&xs, &r.value),
        r.kernel_ms,
    );
    let xf: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let r = gpu.libmf_selftest(&xf)?;
    slot_report(
        rep,
        &format!("MCML f32 math (own -ln, cos/sin of turns, sqrt.rn, libm acosf) x{n}"),
        &check_mcml_math(&xf, &r.value),
        r.kernel_ms,
    );
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

/// (b): the occupancy calculator against the driver, every kernel, every block size.
fn occupancy(rep: &mut Report, gpu: &GpuContext) {
    println!(
        "\n== (b) occupancy: reconverge-occupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor"
    );
    let d = gpu.device();
    let cc = ComputeCapability::new(d.major.max(0) as u32, d.minor.max(0) as u32);
    let limits = match cc.limits() {
        Ok(l) => l,
        Err(e) => {
            rep.check(
                "occupancy: device in the calculator's table",
                false,
                &e.to_string(),
            );
            return;
        }
    };
    const SIZES: [u32; 6] = [32, 64, 128, 256, 512, 1024];
    println!(
        "{:<22} {:>4} {:>5} {:>5}  blocks/SM driver=predicted at {:?} (* = differ, - = over max tpb)",
        "kernel", "regs", "smem", "local", SIZES
    );
    let (mut compared, mut differ) = (0u32, 0u32);
    let mut rows = Vec::new();
    let kernels: Vec<_> = gpu.kernels().cloned().collect();
    for k in &kernels {
        let mut line = format!(
            "{:<22} {:>4} {:>5} {:>5} ",
            k.name, k.registers_per_thread, k.static_shared_bytes, k.local_bytes_per_thread
        );
        for tpb in SIZES {
            if tpb > k.max_threads_per_block {
                line.push_str("      -");
                continue;
            }
            let driver = gpu.max_active_blocks(&k.name, tpb);
            let res = KernelResources::new(tpb, k.registers_per_thread)
                .with_static_smem(k.static_shared_bytes);
            let predicted = calculate_occupancy(limits, &res, &LaunchConfig::default());
            let (pb, po, lim) = match &predicted {
                Ok(o) => (
                    Some(o.active_blocks_per_sm),
                    o.occupancy,
                    format!("{:?}", o.limited_by).replace(',', ";"),
                ),
                Err(e) => (None, 0.0, format!("error: {e}").replace(',', ";")),
            };
            let db = driver.as_ref().ok().copied();
            let equal = db.is_some() && db == pb;
            compared += 1;
            if !equal {
                differ += 1;
            }
            let _ = write!(
                line,
                " {:>2}{}{:<2}",
                db.map_or("?".into(), |v| v.to_string()),
                if equal { "=" } else { "*" },
                pb.map_or("?".into(), |v| v.to_string())
            );
            let _ = writeln!(
                rep.occupancy_csv,
                "{},{},{},{tpb},{},{},{po:.4},{lim},{equal}",
                k.name,
                k.registers_per_thread,
                k.static_shared_bytes,
                db.map_or(String::new(), |v| v.to_string()),
                pb.map_or(String::new(), |v| v.to_string()),
            );
            rows.push(json!({"kernel": k.name, "tpb": tpb, "driver": db, "predicted": pb, "limited_by": lim}));
        }
        println!("{line}");
    }
    rep.json.insert(
        "kernels".into(),
        Value::Array(
            kernels
                .iter()
                .map(|k| {
                    json!({"name": k.name, "registers": k.registers_per_thread,
                        "static_smem": k.static_shared_bytes, "local_bytes": k.local_bytes_per_thread,
                        "max_threads_per_block": k.max_threads_per_block,
                        "ptx_version": k.ptx_version, "binary_version": k.binary_version})
                })
                .collect(),
        ),
    );
    rep.json.insert("occupancy".into(), Value::Array(rows));
    rep.check(
        "occupancy prediction equals the driver",
        differ == 0 && compared > 0,
        &format!("({compared} kernel x block size pairs, {differ} differ)"),
    );
}

/// Bitwise comparison of two runs: outputs by `Debug` text, tallies as integers.
fn first_difference<O: Debug>(gpu: &Run<O>, cpu: &Run<O>) -> Option<String> {
    if gpu.outputs.len() != cpu.outputs.len() {
        return Some(format!(
            "{} outputs on the GPU, {} on the CPU",
            gpu.outputs.len(),
            cpu.outputs.len()
        ));
    }
    let mut differ = 0usize;
    let mut first = None;
    for (i, (g, c)) in gpu.outputs.iter().zip(&cpu.outputs).enumerate() {
        let (g, c) = (format!("{g:?}"), format!("{c:?}"));
        if g != c {
            differ += 1;
            first.get_or_insert(format!("item {i}: gpu {g} cpu {c}"));
        }
    }
    if let Some(f) = first {
        return Some(format!("{differ} outputs differ, first {f}"));
    }
    if gpu.tally != cpu.tally {
        let n = gpu
            .tally
            .iter()
            .zip(&cpu.tally)
            .filter(|(a, b)| a != b)
            .count();
        let i = gpu.tally.iter().zip(&cpu.tally).position(|(a, b)| a != b);
        return Some(format!(
            "{n} tallies differ (lengths {} / {}), first at {i:?}",
            gpu.tally.len(),
            cpu.tally.len()
        ));
    }
    None
}

struct Backends {
    gpu: CudaBackend,
    cpu_counting: CpuBackend,
    cpu_timing: CpuBackend,
}

/// One workload's sizes and launches: `make(items)` builds the kernel for a run of `items`.
struct Sizes {
    items_cmp: u32,
    launch_cmp: Launch,
    items_gpu: u32,
    launch_gpu: Launch,
}

fn fmt_occ(o: &[Option<f64>]) -> String {
    o.iter()
        .map(|v| v.map_or("?".into(), |v| format!("{v:.2}")))
        .collect::<Vec<_>>()
        .join("+")
}

/// (a) and (c) for one workload: every strategy it has entry points for.
fn workload<K>(
    rep: &mut Report,
    b: &Backends,
    name: &str,
    make: impl Fn(u32) -> K,
    sizes: &Sizes,
    sanitize: bool,
) where
    K: DeviceKernel + Sync,
    K::Output: Default + Send + Sync + Debug,
{
    let mut baseline_rate: Option<f64> = None;
    for strategy in K::strategies() {
        let entries = CudaBackend::entry_points(&make(1), &strategy)
            .map(|v| v.join("+"))
            .unwrap_or_else(|e| e.to_string());
        let label = format!("{name} {entries}");
        if rep.late() {
            rep.skip(&label, "past the time budget");
            continue;
        }
        let k = make(sizes.items_cmp);
        let cpu = b
            .cpu_counting
            .run(&k, strategy, sizes.items_cmp, sizes.launch_cmp);
        let gpu = b
            .gpu
            .try_run(&k, strategy, sizes.items_cmp, sizes.launch_cmp);
        let (equal, diff) = match (&gpu, &cpu) {
            (Ok(g), Ok(c)) => match first_difference(g, c) {
                None => (true, String::new()),
                Some(d) => (false, d),
            },
            (Err(e), _) => (false, format!("GPU error: {e}")),
            (_, Err(e)) => (false, format!("CPU error: {e}")),
        };
        let simd = cpu.as_ref().ok().and_then(Run::simd_efficiency);
        rep.check(
            &format!("equal {label}"),
            equal,
            &format!(
                "({} items, {} x {}) {diff}",
                sizes.items_cmp, sizes.launch_cmp.blocks, sizes.launch_cmp.threads_per_block
            ),
        );
        // (c): CPU items/s with counting off at the comparison size, GPU at its own size.
        let (mut cpu_rate, mut gpu_ms, mut gpu_rate, mut occ) = (None, None, None, Vec::new());
        if !sanitize {
            if let Ok(r) = b
                .cpu_timing
                .run(&k, strategy, sizes.items_cmp, sizes.launch_cmp)
            {
                cpu_rate = Some(r.items_per_second());
            }
            let kg = make(sizes.items_gpu);
            match b
                .gpu
                .try_run(&kg, strategy, sizes.items_gpu, sizes.launch_gpu)
            {
                Ok(r) => {
                    let s: Duration = r.pass_times.iter().sum();
                    gpu_ms = Some(s.as_secs_f64() * 1e3);
                    gpu_rate = Some(f64::from(sizes.items_gpu) / s.as_secs_f64().max(1e-9));
                    occ = r.occupancy.clone();
                }
                Err(e) => {
                    rep.check(&format!("timed {label}"), false, &e.to_string());
                }
            }
        } else if let Ok(g) = &gpu {
            occ = g.occupancy.clone();
        }
        if strategy == Strategy::Baseline {
            baseline_rate = gpu_rate;
        }
        let speedup = match (baseline_rate, gpu_rate) {
            (Some(b), Some(g)) if b > 0.0 => Some(g / b),
            _ => None,
        };
        let f = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |v| format!("{v:.p$}"));
        println!(
            "  {:<34} {:>10} {:>6} | {:>10} {:>10} {:>6} {:>9}",
            entries,
            f(cpu_rate.map(|r| r / 1e6), 3),
            f(simd, 3),
            f(gpu_ms, 3),
            f(gpu_rate.map(|r| r / 1e6), 1),
            f(speedup, 3),
            fmt_occ(&occ)
        );
        let _ = writeln!(
            rep.workload_csv,
            "{name},{},{entries},{},{equal},\"{}\",{},{},{},{},{},{},{}",
            strategy.name(),
            sizes.items_cmp,
            diff.replace('"', "'"),
            cpu_rate.map_or(String::new(), |v| format!("{v:.0}")),
            simd.map_or(String::new(), |v| format!("{v:.4}")),
            sizes.items_gpu,
            gpu_ms.map_or(String::new(), |v| format!("{v:.4}")),
            gpu_rate.map_or(String::new(), |v| format!("{v:.0}")),
            speedup.map_or(String::new(), |v| format!("{v:.4}")),
            fmt_occ(&occ)
        );
    }
}

fn workloads(rep: &mut Report, b: &Backends, sanitize: bool) -> Result<(), GpuError> {
    println!(
        "\n== (a) GPU = CPU bitwise, (c) throughput (CPU at the comparison size, counting off; GPU kernel time at the larger size)"
    );
    println!(
        "  {:<34} {:>10} {:>6} | {:>10} {:>10} {:>6} {:>9}",
        "entry point(s)", "CPU Mit/s", "SIMD", "GPU ms", "GPU Mit/s", "vs base", "occupancy"
    );
    let (small, large) = if sanitize {
        (1024u32, 1024u32)
    } else {
        (1 << 16, 1 << 22)
    };
    let per_thread = |items: u32, tpb: u32| Launch::one_item_per_thread(items, tpb);
    let l = |r: Result<Launch, reconverge_backend::BackendError>| {
        r.map_err(|e| GpuError::InvalidInput {
            kernel: "device_check".into(),
            reason: e.to_string(),
        })
    };
    let sizes = |tpb: u32| -> Result<Sizes, GpuError> {
        Ok(Sizes {
            items_cmp: small,
            launch_cmp: l(per_thread(small, tpb))?,
            items_gpu: large,
            launch_gpu: l(per_thread(large, tpb))?,
        })
    };
    println!("SYN-ITDELAY r=8 f=0.1, 32 iterations (seed 002 table 1)");
    workload(
        rep,
        b,
        "syn-itdelay",
        |_| BranchLoopKernel(SynItDelay::with_branch_ratio(8.0, 32, 0.1, 2011)),
        &sizes(256)?,
        sanitize,
    );
    println!("SYN-BRDIS M=4 N=8, 16 iterations (seed 002 fig. 12)");
    workload(
        rep,
        b,
        "syn-brdis",
        |_| FactoredBranchLoopKernel(SynBrDis::new(4, 8, 16, 1)),
        &sizes(256)?,
        sanitize,
    );
    println!("seed 001 branch splitting, 50 % else, random mask, paths 16/32");
    workload(
        rep,
        b,
        "seed001",
        |n| TwoPathKernel(BranchSplitBench::new(n, 0.5, MaskLayout::Random, 1)),
        &sizes(256)?,
        sanitize,
    );
    println!(
        "seed 004 A-1 dynamic work, LOOP_NUM 16, trips 1..32, 16 persistent blocks (GPU: 132 x 8)"
    );
    let dwa = Sizes {
        items_cmp: small,
        launch_cmp: l(Launch::new(256, 16))?,
        items_gpu: large,
        launch_gpu: l(Launch::new(256, 132 * 8))?,
    };
    workload(
        rep,
        b,
        "seed004-a1",
        |_| ItemLoopKernel(DynamicWork::new(16, 32, 1)),
        &dwa,
        sanitize,
    );
    println!("seed 004 A-2 path unification, LOOP 100, threads for DATA_PER_THREAD 64");
    let bpu = Sizes {
        items_cmp: small,
        launch_cmp: l(Launch::new(256, (small / (64 * 256)).max(1)))?,
        items_gpu: large,
        launch_gpu: l(Launch::new(256, (large / (64 * 256)).max(1)))?,
    };
    workload(
        rep,
        b,
        "seed004-a2",
        |_| TwoPathKernel(PathUnification::new(100, 1)),
        &bpu,
        sanitize,
    );
    println!("GPU Gems 34 branch probability p=0.5, random");
    workload(
        rep,
        b,
        "gems34",
        |_| TwoPathKernel(Gems34Branch::random(0.5, 1)),
        &sizes(256)?,
        sanitize,
    );
    Ok(())
}

/// Kernel seconds, photons/s, occupancy per pass, (Rd, A, Tt).
type Throughput = (f64, f64, Vec<Option<f64>>, (f64, f64, f64));

/// MCML's Rd, A, Tt from a tally.
fn mcml_result(
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

fn mcml(rep: &mut Report, b: &Backends, opts: &Opts) -> Result<(), GpuError> {
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
        let photons_cmp: u32 = if opts.sanitize { 128 } else { 1 << 15 };
        let launch_cmp = Launch::new(tpb, if opts.sanitize { 1 } else { 64 }).map_err(|e| {
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
        if opts.sanitize {
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
            let per_sm = b
                .gpu
                .gpu()
                .max_active_blocks(entry, tpb)
                .unwrap_or(1)
                .max(1);
            let launch = Launch::new(tpb, sms * per_sm).map_err(|e| GpuError::InvalidInput {
                kernel: entry.into(),
                reason: e.to_string(),
            })?;
            // Probe at 10^6 (after the warm-up), then the full count if it fits the budget.
            let probe = opts.mcml_photons.min(1_000_000);
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
            let photons = if opts.mcml_photons as f64 / first.1 < share {
                opts.mcml_photons
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
                strategy.name(),
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
            let big = opts.mcml_photons * 10;
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
                let per_sm = b
                    .gpu
                    .gpu()
                    .max_active_blocks(&entry, tpb)
                    .unwrap_or(1)
                    .max(1);
                let launch =
                    Launch::new(tpb, sms * per_sm).map_err(|e| GpuError::InvalidInput {
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
                    strategy.name(),
                    launch.blocks
                );
                throughput.push(json!({"input": name, "entry": entry, "photons": big, "blocks": launch.blocks, "kernel_s": s, "photons_per_s": rate, "rd": rd, "a": a, "tt": tt}));
            }
        }
    }
    rep.json.insert("mcml".into(), Value::Array(throughput));
    Ok(())
}

fn run(opts: &Opts, rep: &mut Report) -> Result<(), GpuError> {
    let gpu = reconverge_paper_kernels::backend(0)?.with_warm_up(if opts.sanitize {
        WarmUp::Off
    } else {
        WarmUp::EveryRun
    });
    let d = gpu.gpu().device().clone();
    println!(
        "device {}: {} (cc {}.{}, {} SMs, {} threads/SM, {:.1} GiB){}",
        d.ordinal,
        d.name,
        d.major,
        d.minor,
        d.multiprocessors,
        d.max_threads_per_multiprocessor,
        d.total_memory as f64 / (1u64 << 30) as f64,
        if opts.sanitize {
            " -- sanitize mode: small sizes, no timing"
        } else {
            ""
        }
    );
    rep.json.insert("device".into(), json!({"name": d.name, "cc": format!("{}.{}", d.major, d.minor), "sms": d.multiprocessors, "sanitize": opts.sanitize}));
    selftests(rep, gpu.gpu(), opts.sanitize)?;
    occupancy(rep, gpu.gpu());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = |c| {
        CpuBackend::with_threads(threads)
            .map(|b| b.counting(c))
            .unwrap_or_default()
    };
    println!("\nCPU backend: {threads} threads");
    let mut b = Backends {
        gpu,
        cpu_counting: cpu(Counting::On),
        cpu_timing: cpu(Counting::Off),
    };
    // A typed error for a strategy without an entry point, not a crash.
    let k = BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1));
    let odd = Strategy::IterationDelaying(reconverge_transforms::Decision::MajorityVote {
        threshold: 3,
        stop_when_a_lane_finishes: true,
    });
    let launch = Launch::new(64, 1).map_err(|e| GpuError::InvalidInput {
        kernel: "device_check".into(),
        reason: e.to_string(),
    })?;
    match b.gpu.try_run(&k, odd, 64, launch) {
        Err(e @ GpuError::NoEntryPoint { .. }) => rep.check(
            "missing entry point is a typed error",
            true,
            &format!("({e})"),
        ),
        other => rep.check(
            "missing entry point is a typed error",
            false,
            &format!("{:?}", other.err()),
        ),
    };
    workloads(rep, &b, opts.sanitize)?;
    // MCML's long runs: warm each entry point up once (its first, small run), not every run.
    if !opts.sanitize {
        b.gpu.set_warm_up(WarmUp::FirstUse);
    }
    mcml(rep, &b, opts)?;
    Ok(())
}

fn write_outputs(rep: &mut Report, dir: &PathBuf) {
    let mut summary = rep.json.clone();
    summary.insert("passed".into(), json!(rep.passed));
    summary.insert("failed".into(), json!(rep.failed));
    summary.insert("skipped".into(), json!(rep.skipped));
    summary.insert("failures".into(), json!(rep.failures));
    summary.insert("seconds".into(), json!(rep.seconds()));
    let files = [
        ("workloads.csv", rep.workload_csv.clone()),
        ("occupancy.csv", rep.occupancy_csv.clone()),
        ("mcml.csv", rep.mcml_csv.clone()),
        (
            "summary.json",
            serde_json::to_string_pretty(&Value::Object(summary)).unwrap_or_default(),
        ),
    ];
    if let Err(e) = std::fs::create_dir_all(dir) {
        println!("FAIL writing {}: {e}", dir.display());
        return;
    }
    for (name, text) in files {
        let p = dir.join(name);
        if let Err(e) = std::fs::write(&p, text) {
            println!("FAIL writing {}: {e}", p.display());
        }
    }
    println!("tables written to {}", dir.display());
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mut opts = Opts {
        out: None,
        sanitize: false,
        mcml_photons: 10_000_000,
        budget_s: DEFAULT_BUDGET_S,
    };
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--write-ptx" => {
                let Some(path) = args.get(i + 1) else {
                    println!("FAIL --write-ptx needs a file");
                    return ExitCode::FAILURE;
                };
                return match std::fs::write(path, reconverge_paper_kernels::PTX) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        println!("FAIL writing {path}: {e}");
                        ExitCode::FAILURE
                    }
                };
            }
            "--out" => {
                opts.out = args.get(i + 1).map(PathBuf::from);
                i += 1;
            }
            "--sanitize" => opts.sanitize = true,
            "--budget" => {
                opts.budget_s = args
                    .get(i + 1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(opts.budget_s);
                i += 1;
            }
            "--mcml-photons" => {
                opts.mcml_photons = args
                    .get(i + 1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(opts.mcml_photons);
                i += 1;
            }
            other => {
                println!(
                    "usage: device_check [--sanitize] [--out DIR] [--mcml-photons N] [--budget SECONDS] | --write-ptx FILE (unknown {other:?})"
                );
                return ExitCode::FAILURE;
            }
        }
        i += 1;
    }
    let mut rep = Report::new();
    rep.deadline_s = opts.budget_s;
    let result = run(&opts, &mut rep);
    if let Some(dir) = &opts.out {
        write_outputs(&mut rep, dir);
    }
    match result {
        Err(e @ (GpuError::NoDriver | GpuError::NoDevice { .. })) => {
            println!("FAIL no usable GPU: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            rep.check("device check ran to the end", false, &e.to_string());
        }
        Ok(()) => {}
    }
    println!(
        "\nSUMMARY {} passed, {} failed, {} skipped in {:.1} s",
        rep.passed,
        rep.failed,
        rep.skipped,
        rep.seconds()
    );
    for f in &rep.failures {
        println!("  FAILED {f}");
    }
    if rep.failed == 0 {
        println!("ALL PASS");
        ExitCode::SUCCESS
    } else {
        println!("SOME CHECKS FAILED");
        ExitCode::FAILURE
    }
}
