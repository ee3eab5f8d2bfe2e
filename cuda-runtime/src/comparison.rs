//! Every strategy of a workload held against the plain kernels of the same workload, on this
//! GPU: the comparison that says whether reconverge made the code faster than what a CUDA
//! programmer writes first (`docs/results/plain/`).

use std::time::Duration;

use reconverge_backend::{Launch, Run};
use reconverge_transforms::Strategy;

use crate::DeviceKernel;
use crate::backend::{CudaBackend, PlainSchedule};
use crate::error::GpuError;

/// What ran in one row of a [`Comparison`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// A plain kernel of `reconverge_device::plain_kernels!`.
    Plain(PlainSchedule),
    /// A reconverge strategy through [`CudaBackend`].
    Strategy(Strategy),
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Code::Plain(s) => write!(f, "plain {}", s.name().replace('_', "-")),
            Code::Strategy(s) => write!(f, "{s}"),
        }
    }
}

/// Which launch a row ran with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchKind {
    /// The backend's default ([`Backend::launch_for`](reconverge_backend::Backend::launch_for)); for a plain kernel, the launch its
    /// schedule needs (a thread per item; one resident wave of 256-thread blocks).
    Default,
    /// One thread per item, 256 threads per block.
    OnePerItem,
    /// One resident wave of 256-thread blocks (every multiprocessor full, no more).
    ResidentWave,
    /// 128 threads per block, one block per multiprocessor: a small launch of the kind
    /// examples used to teach, which leaves most of the GPU idle.
    BlockPerMultiprocessor,
}

impl LaunchKind {
    /// A short name for tables.
    pub const fn name(self) -> &'static str {
        match self {
            LaunchKind::Default => "default",
            LaunchKind::OnePerItem => "one item per thread",
            LaunchKind::ResidentWave => "one resident wave",
            LaunchKind::BlockPerMultiprocessor => "128 x one block per SM",
        }
    }
}

/// One timed (code, launch) pair.
#[derive(Clone, Debug)]
pub struct Row {
    /// What ran.
    pub code: Code,
    /// Which launch, and the launch itself.
    pub launch_kind: LaunchKind,
    /// The launch.
    pub launch: Launch,
    /// Median kernel time over the repetitions (CUDA events; all passes of a strategy).
    pub median: Duration,
    /// Whether every repetition's outputs equal the reference bit for bit.
    pub identical: bool,
    /// Registers per thread of the (first) entry point, from the driver.
    pub registers: u32,
    /// Theoretical occupancy of the (first) entry point at this block size.
    pub occupancy: Option<f64>,
}

/// A workload's comparison: every row, fastest first.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// The rows.
    pub rows: Vec<Row>,
}

impl Comparison {
    /// The fastest plain kernel's row.
    pub fn best_plain(&self) -> Option<&Row> {
        self.rows.iter().find(|r| matches!(r.code, Code::Plain(_)))
    }

    /// The fastest row of reconverge's strategies at their default launch.
    pub fn best_default(&self) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| matches!(r.code, Code::Strategy(_)) && r.launch_kind == LaunchKind::Default)
    }

    /// The row of `code` at `kind`.
    pub fn row(&self, code: Code, kind: LaunchKind) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.code == code && r.launch_kind == kind)
    }
}

impl CudaBackend {
    /// Times every one-pass strategy `kernel` has entry points for, at its default launch and
    /// (with `sweep`) at the other [`LaunchKind`]s, beside the four plain kernels
    /// `plain_prefix_*` of the same workload (`reconverge_device::plain_kernels!` in your device
    /// crate), each after one untimed run and then the median of `repeats` runs, with every
    /// run's outputs compared with `reference` (the CPU backend's). Rows come fastest first.
    ///
    /// # Errors
    /// The first run that fails: a missing plain kernel, a launch the device refuses, a
    /// driver error.
    pub fn compare_with_plain<K>(
        &self,
        kernel: &K,
        plain_prefix: &str,
        items: u32,
        reference: &[K::Output],
        repeats: u32,
        sweep: bool,
    ) -> Result<Comparison, GpuError>
    where
        K: DeviceKernel,
        K::Output: PartialEq,
    {
        let gpu = self.gpu();
        let sms = u32::try_from(gpu.device().multiprocessors.max(1)).unwrap_or(1);
        let repeats = repeats.max(1);
        let mut rows = Vec::new();
        let timed = |run: &mut dyn FnMut() -> Result<Run<K::Output>, GpuError>| {
            let mut times = Vec::with_capacity(repeats as usize);
            let mut identical = true;
            for _ in 0..repeats {
                let r = run()?;
                identical &= r.outputs == reference;
                times.push(r.pass_times.iter().sum::<Duration>());
            }
            times.sort();
            Ok::<_, GpuError>((times[times.len() / 2], identical))
        };
        let one_per_item =
            Launch::one_item_per_thread(items, 256).map_err(|e| GpuError::InvalidInput {
                kernel: K::KERNEL_NAME.into(),
                reason: e.to_string(),
            })?;
        for schedule in PlainSchedule::ALL {
            let name = format!("{plain_prefix}_{}", schedule.name());
            let launch = match schedule {
                PlainSchedule::OnePerItem => one_per_item,
                _ => Launch {
                    threads_per_block: 256,
                    blocks: gpu.resident_blocks(&name, 256)?,
                },
            };
            // A warm-up launch, untimed: the plain kernels are timed as the strategies are.
            self.run_plain(plain_prefix, schedule, kernel, items, launch)?;
            let (median, identical) =
                timed(&mut || self.run_plain(plain_prefix, schedule, kernel, items, launch))?;
            rows.push(Row {
                code: Code::Plain(schedule),
                launch_kind: LaunchKind::Default,
                launch,
                median,
                identical,
                registers: gpu.attributes(&name)?.registers_per_thread,
                occupancy: gpu.occupancy(&name, 256).ok(),
            });
        }
        for strategy in K::strategies() {
            let names = Self::entry_points(kernel, &strategy)?;
            // One entry point per strategy, and thread-data remapping's two (the permutation,
            // then the loop, timed together): the other multi-pass techniques are compared in
            // their own sections, beside their twins. Registers and occupancy are the loop's.
            let remapped = strategy.items == reconverge_transforms::Assignment::Remapped;
            if names.len() != 1 && !remapped {
                continue;
            }
            let Some(&last) = names.last() else {
                continue;
            };
            let default = self.try_launch_for(kernel, &strategy, items)?;
            let wave = Launch {
                threads_per_block: 256,
                blocks: gpu.resident_blocks(last, 256)?,
            };
            let small = Launch {
                threads_per_block: 128,
                blocks: sms,
            };
            let launches = [
                (LaunchKind::Default, default),
                (LaunchKind::OnePerItem, one_per_item),
                (LaunchKind::ResidentWave, wave),
                (LaunchKind::BlockPerMultiprocessor, small),
            ];
            let launches = if sweep { &launches[..] } else { &launches[..1] };
            for &(kind, launch) in launches {
                self.try_run(kernel, strategy, items, launch)?;
                let (median, identical) =
                    timed(&mut || self.try_run(kernel, strategy, items, launch))?;
                rows.push(Row {
                    code: Code::Strategy(strategy),
                    launch_kind: kind,
                    launch,
                    median,
                    identical,
                    registers: gpu.attributes(last)?.registers_per_thread,
                    occupancy: gpu.occupancy(last, launch.threads_per_block).ok(),
                });
            }
        }
        rows.sort_by_key(|r| r.median);
        Ok(Comparison { rows })
    }
}

/// The comparison as a tab-separated table with a header: `workload`, code, launch kind,
/// threads per block, blocks, median ms, the time over the best plain kernel's, identical,
/// registers, occupancy.
pub fn comparison_tsv(workload: &str, comparison: &Comparison) -> String {
    let best = comparison
        .best_plain()
        .map_or(f64::NAN, |r| r.median.as_secs_f64());
    let mut out = String::from(
        "workload\tcode\tlaunch\tthreads_per_block\tblocks\tmedian_ms\tover_best_plain\tidentical\tregisters\toccupancy\n",
    );
    for r in &comparison.rows {
        out.push_str(&format!(
            "{workload}\t{}\t{}\t{}\t{}\t{:.4}\t{:.3}\t{}\t{}\t{}\n",
            r.code,
            r.launch_kind.name(),
            r.launch.threads_per_block,
            r.launch.blocks,
            r.median.as_secs_f64() * 1e3,
            r.median.as_secs_f64() / best,
            if r.identical { "yes" } else { "no" },
            r.registers,
            r.occupancy.map_or("-".into(), |o| format!("{o:.2}")),
        ));
    }
    out
}
