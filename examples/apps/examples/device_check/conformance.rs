//! GPU = CPU: every workload under every strategy it has entry points for, on the
//! conformance kit ([`reconverge_conformance::Check`], the crate every backend's tests run) with the CPU backend as the
//! reference: outputs and tallies of the GPU run equal the CPU baseline's, exactly.

use reconverge_backend::{Backend, Launch};
use reconverge_conformance::Check;
use reconverge_cpu::CpuBackend;
use reconverge_transforms::{Assignment, BranchLoopKernel, Decision, PathSchedule, Strategy};
use reconverge_workloads::synthetic::SynItDelay;

use crate::gpu::{CudaBackend, GpuError, launch};
use crate::report::Report;
use crate::workloads::{self, Comparable, Visit, Workload};

struct Conformance<'a> {
    rep: &'a mut Report,
    cpu: &'a CpuBackend,
    gpu: &'a CudaBackend,
}

/// `strategy` on the GPU against the CPU backend, on the conformance kit: whether every output
/// and tally is equal, and the first difference (empty if none).
fn gpu_equals_cpu<K: Comparable>(
    cpu: &CpuBackend,
    gpu: &CudaBackend,
    w: &Workload<'_, K>,
    strategy: Strategy,
) -> (bool, String) {
    let (items, shape) = (w.sizes.items_cmp, w.sizes.launch_cmp);
    let check = Check {
        strategies: &[strategy],
        items,
        launches: &[shape],
        // The GPU does not count; the CPU's counters are the model's.
        counters: false,
    };
    let backends: [&dyn Backend<K>; 2] = [cpu, gpu];
    let report = check.run(&(w.make)(items), &backends);
    let difference = report
        .first_difference
        .as_ref()
        .map_or(String::new(), ToString::to_string);
    (report.passed(), difference)
}

impl Visit for Conformance<'_> {
    fn visit_titled<K: Comparable>(&mut self, w: &Workload<'_, K>) {
        let (items, shape) = (w.sizes.items_cmp, w.sizes.launch_cmp);
        for strategy in K::strategies() {
            let (entries, label) = workloads::entries_and_label(w, &strategy);
            if self.rep.skip_when_late(&format!("equal {label}")) {
                continue;
            }
            let (equal, difference) = gpu_equals_cpu(self.cpu, self.gpu, w, strategy);
            self.rep.check(
                &format!("equal {label}"),
                equal,
                &format!(
                    "({items} items, {} x {}) {difference}",
                    shape.blocks, shape.threads_per_block
                ),
            );
            let row = self.rep.workload_row(w.name, strategy, &entries);
            row.items_cmp = items;
            row.equal = Some(equal);
            row.difference = difference;
        }
    }
}

/// A technique without an entry point is a typed error, not a crash (SYN-ITDELAY's list has
/// majority votes, but none over dynamic work).
fn missing_entry_point(rep: &mut Report, gpu: &CudaBackend) -> Result<(), GpuError> {
    let k = BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1));
    let odd = Strategy::iteration_delaying(Decision::MajorityVote {
        threshold: 3,
        stop_when_a_lane_finishes: true,
    })
    .over(Assignment::Dynamic);
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

/// The same technique with numbers no list names: an entry point takes a strategy's numbers
/// at run time, so these run on the listed strategy's entry point, and must equal the CPU.
fn unlisted_numbers(strategy: &Strategy) -> Option<Strategy> {
    let decision = |d: Decision| match d {
        Decision::MajorityVote {
            threshold,
            stop_when_a_lane_finishes,
        } => Some(Decision::MajorityVote {
            // 3, 11, 19, 27: thresholds no list compiles.
            threshold: (threshold + 3) % 32 / 8 * 8 + 3,
            stop_when_a_lane_finishes,
        }),
        Decision::RoundRobin {
            num_zeros,
            num_ones,
            remove_idle,
        } => Some(Decision::RoundRobin {
            num_zeros: num_ones + 1,
            num_ones: num_zeros + 4,
            remove_idle,
        }),
        Decision::CostBalanced => None,
    };
    let paths = match strategy.paths {
        PathSchedule::IterationDelaying(d) => PathSchedule::IterationDelaying(decision(d)?),
        PathSchedule::BranchDistribution { delaying: Some(d) } => {
            PathSchedule::BranchDistribution {
                delaying: Some(decision(d)?),
            }
        }
        PathSchedule::OcclusionQueryLoop {
            iterations_per_pass,
        } => PathSchedule::OcclusionQueryLoop {
            iterations_per_pass: iterations_per_pass * 2 + 1,
        },
        PathSchedule::BranchPathUnification { items_per_thread } => {
            PathSchedule::BranchPathUnification {
                items_per_thread: items_per_thread + 3,
            }
        }
        PathSchedule::SpeculativeReconvergence {
            threshold,
            max_wait,
        } => PathSchedule::SpeculativeReconvergence {
            threshold: threshold % 31 + 5,
            max_wait: max_wait * 2 + 1,
        },
        _ => return None,
    };
    Some(Strategy::new(strategy.items, paths))
}

/// Every listed strategy with numbers of its own ([`unlisted_numbers`]) on the GPU against the
/// CPU: the technique's `_any` entry point serves every value.
struct UnlistedNumbers<'a> {
    rep: &'a mut Report,
    cpu: &'a CpuBackend,
    gpu: &'a CudaBackend,
}

impl Visit for UnlistedNumbers<'_> {
    fn visit_titled<K: Comparable>(&mut self, w: &Workload<'_, K>) {
        let listed = K::strategies();
        let mut tried: Vec<Strategy> = Vec::new();
        for strategy in listed.iter().filter_map(unlisted_numbers) {
            if listed.contains(&strategy) || tried.contains(&strategy) {
                continue;
            }
            tried.push(strategy);
            let (entries, _) = workloads::entries_and_label(w, &strategy);
            let label = format!("equal {} {strategy} on {entries}", w.name);
            if !self.rep.skip_when_late(&label) {
                let (equal, difference) = gpu_equals_cpu(self.cpu, self.gpu, w, strategy);
                self.rep.check(&label, equal, &difference);
            }
        }
    }
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
    workloads::each(sanitize, &mut Conformance { rep, cpu, gpu })?;
    println!("\n== (a') numbers no entry list names, on their technique's entry point: GPU = CPU");
    workloads::each(sanitize, &mut UnlistedNumbers { rep, cpu, gpu })
}
