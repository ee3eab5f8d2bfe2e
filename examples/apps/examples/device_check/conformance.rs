//! GPU = CPU: every workload under every strategy it has entry points for, on the
//! conformance kit ([`reconverge_conformance::Check`], the crate every backend's tests run) with the CPU backend as the
//! reference: outputs and tallies of the GPU run equal the CPU baseline's, exactly.

use reconverge_backend::{Backend, Launch};
use reconverge_conformance::Check;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{BranchLoopKernel, Decision, Strategy};
use reconverge_workloads::synthetic::SynItDelay;

use crate::gpu::{CudaBackend, GpuError, launch};
use crate::report::Report;
use crate::workloads::{self, Comparable, Visit, Workload};

struct Conformance<'a> {
    rep: &'a mut Report,
    cpu: &'a CpuBackend,
    gpu: &'a CudaBackend,
}

impl Visit for Conformance<'_> {
    fn visit_titled<K: Comparable>(&mut self, w: &Workload<'_, K>) {
        let (items, shape) = (w.sizes.items_cmp, w.sizes.launch_cmp);
        let kernel = (w.make)(items);
        for strategy in K::strategies() {
            let (entries, label) = workloads::entries_and_label(w, &strategy);
            if self.rep.skip_when_late(&format!("equal {label}")) {
                continue;
            }
            let strategies = [strategy];
            let launches = [shape];
            let check = Check {
                strategies: &strategies,
                items,
                launches: &launches,
                // The GPU does not count; the CPU's counters are the model's.
                counters: false,
            };
            let backends: [&dyn Backend<K>; 2] = [self.cpu, self.gpu];
            let report = check.run(&kernel, &backends);
            let difference = report
                .first_difference
                .as_ref()
                .map_or(String::new(), ToString::to_string);
            let equal = report.passed();
            self.rep.check(
                &format!("equal {label}"),
                equal,
                &format!(
                    "({items} items, {} x {}) {difference}",
                    shape.blocks, shape.threads_per_block
                ),
            );
            let row = self.rep.workload_row(w.name, strategy.name(), &entries);
            row.items_cmp = items;
            row.equal = Some(equal);
            row.difference = difference;
        }
    }
}

/// A strategy without an entry point is a typed error, not a crash.
fn missing_entry_point(rep: &mut Report, gpu: &CudaBackend) -> Result<(), GpuError> {
    let k = BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1));
    let odd = Strategy::IterationDelaying(Decision::MajorityVote {
        threshold: 3,
        stop_when_a_lane_finishes: true,
    });
    let shape: Launch = launch("device_check", Launch::new(64, 1))?;
    match gpu.try_run(&k, odd, 64, shape) {
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
    Ok(())
}

/// Every workload x strategy, GPU against the CPU backend `cpu` (counting off: the GPU does
/// not count, so there is nothing to compare counters with).
pub fn run(
    rep: &mut Report,
    gpu: &CudaBackend,
    cpu: &CpuBackend,
    sanitize: bool,
) -> Result<(), GpuError> {
    missing_entry_point(rep, gpu)?;
    println!("\n== (a) GPU = CPU exactly (conformance kit, CPU baseline as the reference)");
    workloads::each(sanitize, &mut Conformance { rep, cpu, gpu })
}
