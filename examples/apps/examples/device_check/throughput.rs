//! Throughput of every workload x strategy: CPU items/s at the comparison size (counting
//! off), GPU kernel time at a larger size, the driver's occupancy of each pass and the CPU
//! model's SIMD efficiency.

use std::time::Duration;

use reconverge_backend::Backend;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::Strategy;

use crate::gpu::{CudaBackend, GpuError};
use crate::report::{Report, fmt_occ};
use crate::workloads::{self, Comparable, Visit, Workload};

struct Throughput<'a> {
    rep: &'a mut Report,
    gpu: &'a CudaBackend,
    cpu_counting: &'a CpuBackend,
    cpu_timing: &'a CpuBackend,
}

impl Visit for Throughput<'_> {
    fn visit_titled<K: Comparable>(&mut self, w: &Workload<'_, K>) {
        let s = &w.sizes;
        let mut baseline_rate: Option<f64> = None;
        for strategy in K::strategies() {
            let (entries, label) = workloads::entries_and_label(w, &strategy);
            if self.rep.skip_when_late(&format!("timed {label}")) {
                continue;
            }
            let k = (w.make)(s.items_cmp);
            let simd = self
                .cpu_counting
                .run(&k, strategy, s.items_cmp, s.launch_cmp)
                .ok()
                .and_then(|r| r.simd_efficiency());
            let cpu_rate = self
                .cpu_timing
                .run(&k, strategy, s.items_cmp, s.launch_cmp)
                .ok()
                .map(|r| r.items_per_second());
            let (mut gpu_ms, mut gpu_rate, mut occ) = (None, None, Vec::new());
            match self
                .gpu
                .try_run(&(w.make)(s.items_gpu), strategy, s.items_gpu, s.launch_gpu)
            {
                Ok(r) => {
                    let t: Duration = r.pass_times.iter().sum();
                    gpu_ms = Some(t.as_secs_f64() * 1e3);
                    gpu_rate = Some(f64::from(s.items_gpu) / t.as_secs_f64().max(1e-9));
                    occ = r.occupancy;
                }
                Err(e) => {
                    self.rep
                        .check(&format!("timed {label}"), false, &e.to_string());
                }
            }
            if strategy == Strategy::BASELINE {
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
            let row = self.rep.workload_row(w.name, strategy, &entries);
            row.items_cmp = s.items_cmp;
            row.cpu_items_per_s = cpu_rate;
            row.cpu_simd = simd;
            row.gpu_items = Some(s.items_gpu);
            row.gpu_ms = gpu_ms;
            row.gpu_items_per_s = gpu_rate;
            row.speedup = speedup;
            row.occupancy = fmt_occ(&occ);
        }
    }
}

/// The throughput table of every workload.
pub fn run(
    rep: &mut Report,
    gpu: &CudaBackend,
    cpu_counting: &CpuBackend,
    cpu_timing: &CpuBackend,
) -> Result<(), GpuError> {
    println!(
        "\n== (c) throughput (CPU at the comparison size, counting off; GPU kernel time at the larger size)"
    );
    println!(
        "  {:<34} {:>10} {:>6} | {:>10} {:>10} {:>6} {:>9}",
        "entry point(s)", "CPU Mit/s", "SIMD", "GPU ms", "GPU Mit/s", "vs base", "occupancy"
    );
    let mut t = Throughput {
        rep,
        gpu,
        cpu_counting,
        cpu_timing,
    };
    workloads::each(false, &mut t)
}
