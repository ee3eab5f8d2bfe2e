//! Shared pieces of reconverge's criterion benches and per-paper examples.
//!
//! Everything is written against the [`Backend`] trait; the backend is chosen at compile time
//! by the type alias [`Bench`]: the CPU backend by default, CUDA with feature `cuda` (once the
//! GPU crate has a backend). [`compare`] runs one workload under several strategies side by
//! side and reports, per strategy, the wall time, the model's issue slots (the papers'
//! instruction count) and SIMD efficiency where the backend counts, the speedups over the
//! baseline, and whether the outputs equal the baseline's.

pub mod reproduce;

use std::fmt::Write as _;
use std::time::Duration;

use reconverge_backend::{Backend, BackendError, Kernel, Launch, Strategy};

// ---- The backend --------------------------------------------------------------------------

/// The backend the benches and examples run on: the rayon CPU backend.
#[cfg(not(feature = "cuda"))]
pub type Bench = reconverge_cpu::CpuBackend;

/// The backend the benches and examples run on: the CUDA backend on device 0 (feature `cuda`).
/// It has entry points for the strategies of the papers' list (`reconverge-paper-kernels`) only; another
/// strategy is an error naming the kernel and the strategy.
#[cfg(feature = "cuda")]
pub type Bench = reconverge_gpu::CudaBackend;

/// The backend for time measurements: counters off (`threads` 0 = all cores).
#[cfg(not(feature = "cuda"))]
pub fn timing_backend(threads: usize) -> Bench {
    cpu(threads).counting(reconverge_cpu::Counting::Off)
}

/// The backend for SIMT counts: counters on (`threads` 0 = all cores).
#[cfg(not(feature = "cuda"))]
pub fn counting_backend(threads: usize) -> Bench {
    cpu(threads).counting(reconverge_cpu::Counting::On)
}

#[cfg(not(feature = "cuda"))]
fn cpu(threads: usize) -> reconverge_cpu::CpuBackend {
    if threads == 0 {
        return reconverge_cpu::CpuBackend::new();
    }
    reconverge_cpu::CpuBackend::with_threads(threads).unwrap_or_default()
}

/// The backend for time measurements: GPU 0 (`threads` is ignored). Exits with a message
/// (status 2) when there is no usable GPU.
#[cfg(feature = "cuda")]
pub fn timing_backend(_threads: usize) -> Bench {
    cuda()
}

/// On the GPU the counting backend is the same device backend: it does not count (counters
/// are `None`; use Nsight Compute for the GPU's own counters).
#[cfg(feature = "cuda")]
pub fn counting_backend(_threads: usize) -> Bench {
    cuda()
}

#[cfg(feature = "cuda")]
fn cuda() -> Bench {
    match reconverge_paper_kernels::backend(0) {
        Ok(b) => b,
        Err(e) => {
            eprintln!(
                "error: reconverge-benches was built with feature `cuda`, but GPU 0 is unusable: {e}"
            );
            std::process::exit(2);
        }
    }
}

// ---- Side-by-side comparison --------------------------------------------------------------

/// One strategy's measurements.
#[derive(Clone, Debug)]
pub struct Row {
    /// The strategy.
    pub strategy: Strategy,
    /// Fastest wall time of the repetitions.
    pub time: Duration,
    /// Instructions issued (model issue slots), where the backend counts.
    pub issue_slots: Option<u64>,
    /// SIMD efficiency over all regions, where the backend counts.
    pub simd_efficiency: Option<f64>,
    /// Baseline time over this strategy's time.
    pub speedup: f64,
    /// Baseline issue slots over this strategy's: the speedup the instruction count predicts.
    pub model_speedup: Option<f64>,
    /// Whether every output equals the baseline's.
    pub outputs_match: bool,
}

/// Runs `kernel` under `Strategy::BASELINE` and each of `strategies` (the baseline first if it
/// is not listed), `reps` timed runs each plus one counted run.
pub fn compare<K>(
    timing: &Bench,
    counting: &Bench,
    kernel: &K,
    strategies: &[Strategy],
    items: u32,
    launch: Launch,
    reps: u32,
) -> Result<Vec<Row>, BackendError>
where
    K: Kernel + Sync,
    K::Output: Default + Send + Sync + PartialEq,
    Bench: Backend<K>,
{
    let mut list = vec![Strategy::BASELINE];
    list.extend(strategies.iter().filter(|s| **s != Strategy::BASELINE));
    let base = counting.run(kernel, Strategy::BASELINE, items, launch)?;
    let mut rows: Vec<Row> = Vec::with_capacity(list.len());
    for strategy in list {
        let counted = counting.run(kernel, strategy, items, launch)?;
        let mut time = Duration::MAX;
        for _ in 0..reps.max(1) {
            time = time.min(timing.run(kernel, strategy, items, launch)?.elapsed);
        }
        let counters = counted.counters;
        rows.push(Row {
            strategy,
            time,
            issue_slots: counters.map(|c| c.issue_slots()),
            simd_efficiency: counters.map(|c| c.simd_efficiency()),
            speedup: 1.0,
            model_speedup: None,
            outputs_match: counted.outputs == base.outputs,
        });
    }
    let (t0, s0) = (rows[0].time, rows[0].issue_slots);
    for r in &mut rows {
        r.speedup = t0.as_secs_f64() / r.time.as_secs_f64().max(1e-12);
        r.model_speedup = match (s0, r.issue_slots) {
            (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
            _ => None,
        };
    }
    Ok(rows)
}

/// The options every per-paper example shares.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct ExampleArgs {
    /// Threads per block (the papers: 256).
    #[arg(long, default_value_t = 256)]
    pub block: u32,
    /// CPU threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Timed repetitions per strategy, the fastest reported (default: the example's).
    #[arg(long)]
    pub reps: Option<u32>,
}

impl ExampleArgs {
    /// A [`Sweeper`] of `items` in `launch`, `reps` timed repetitions unless `--reps` says.
    pub fn sweeper(&self, items: u32, launch: Launch, reps: u32) -> Sweeper {
        Sweeper::new(self.threads, items, launch, self.reps.unwrap_or(reps))
    }

    /// A [`Sweeper`] of `items`, one per thread in blocks of `--block`.
    pub fn per_thread(&self, items: u32, reps: u32) -> Result<Sweeper, BackendError> {
        Ok(self.sweeper(items, Launch::one_item_per_thread(items, self.block)?, reps))
    }
}

/// An example's timing and counting backends with the items, launch and repetitions of its
/// runs: each per-paper example sweeps its workloads through one.
pub struct Sweeper {
    /// Times the runs.
    pub timing: Bench,
    /// Counts them (the CPU model; the GPU does not count).
    pub counting: Bench,
    /// Items of every run.
    pub items: u32,
    /// Their launch.
    pub launch: Launch,
    /// Timed repetitions per strategy (the fastest is reported).
    pub reps: u32,
}

impl Sweeper {
    /// The backends on `threads` CPU threads (0 = all; ignored on the GPU).
    pub fn new(threads: usize, items: u32, launch: Launch, reps: u32) -> Self {
        Self {
            timing: timing_backend(threads),
            counting: counting_backend(threads),
            items,
            launch,
            reps,
        }
    }

    /// [`compare`] of one kernel.
    pub fn compare<K>(&self, kernel: &K, strategies: &[Strategy]) -> Result<Vec<Row>, BackendError>
    where
        K: Kernel + Sync,
        K::Output: Default + Send + Sync + PartialEq,
        Bench: Backend<K>,
    {
        compare(
            &self.timing,
            &self.counting,
            kernel,
            strategies,
            self.items,
            self.launch,
            self.reps,
        )
    }

    /// Runs [`Sweeper::compare`] at every point of a sweep and prints one table (title,
    /// header, rows). Returns each point's rows.
    pub fn sweep<K>(
        &self,
        title: &str,
        sweep_name: &str,
        points: impl IntoIterator<Item = (String, K)>,
        strategies: &[Strategy],
    ) -> Result<Vec<(String, Vec<Row>)>, BackendError>
    where
        K: Kernel + Sync,
        K::Output: Default + Send + Sync + PartialEq,
        Bench: Backend<K>,
    {
        println!("\n{title}");
        println!("{}", header(sweep_name));
        let mut all = Vec::new();
        for (x, k) in points {
            let rows = self.compare(&k, strategies)?;
            for r in &rows {
                println!("{}", format_row(&x, r));
            }
            all.push((x, rows));
        }
        Ok(all)
    }
}

/// GPU Gems 2 ch. 34's alternatives to a branch: branching (the baseline), predication,
/// branch splitting, static branch resolution and z-cull masking.
pub const GEMS34_STRATEGIES: [Strategy; 5] = [
    Strategy::BASELINE,
    Strategy::PREDICATION,
    Strategy::BRANCH_SPLITTING,
    Strategy::STATIC_BRANCH_RESOLUTION,
    Strategy::Z_CULL_MASKING,
];

/// GPU Gems 2 ch. 34's branch taken with probability `p`: independently per fragment, or
/// (`coherent`) by runs of `run` fragments.
pub fn gems34_branch(
    coherent: bool,
    p: f64,
    run: u32,
) -> reconverge_workloads::synthetic::Gems34Branch {
    use reconverge_workloads::synthetic::Gems34Branch;
    if coherent {
        Gems34Branch::coherent(p, 1).with_run(run)
    } else {
        Gems34Branch::random(p, 1)
    }
}

/// Column headings matching [`format_row`].
pub fn header(sweep: &str) -> String {
    format!(
        "{sweep:>12}  {:<34} {:>10} {:>14} {:>8} {:>8} {:>8} {:>5}",
        "strategy", "time ms", "issue slots", "SIMD eff", "speedup", "model", "same"
    )
}

/// One row of a table: the sweep value, then the row's numbers.
pub fn format_row(sweep: &str, r: &Row) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "{sweep:>12}  {:<34} {:>10.3} {:>14} {:>8} {:>8.3} {:>8} {:>5}",
        label(&r.strategy),
        r.time.as_secs_f64() * 1e3,
        r.issue_slots.map_or("-".into(), |v| v.to_string()),
        r.simd_efficiency.map_or("-".into(), |v| format!("{v:.4}")),
        r.speedup,
        r.model_speedup.map_or("-".into(), |v| format!("{v:.3}")),
        if r.outputs_match { "yes" } else { "NO" },
    );
    s
}

/// A strategy with its parameters, for tables.
pub fn label(s: &Strategy) -> String {
    use reconverge_transforms::{Assignment, Decision, PathSchedule};
    match (s.items, s.paths) {
        (
            Assignment::Static,
            PathSchedule::IterationDelaying(Decision::MajorityVote {
                threshold,
                stop_when_a_lane_finishes,
            }),
        ) => format!(
            "majority vote t={threshold}{}",
            if stop_when_a_lane_finishes {
                " +stop"
            } else {
                ""
            }
        ),
        (
            Assignment::Static,
            PathSchedule::IterationDelaying(Decision::RoundRobin {
                num_zeros,
                num_ones,
                remove_idle,
            }),
        ) => {
            let cycle = 100 * num_zeros / (num_zeros + num_ones).max(1);
            format!(
                "round robin {cycle}%{}",
                if remove_idle { " idle-removal" } else { "" }
            )
        }
        (_, PathSchedule::BranchPathUnification { items_per_thread }) => {
            format!("path unification x{items_per_thread}")
        }
        _ => s.name().to_string(),
    }
}

/// The paper's round-robin "cycle" (the fraction of else iterations, seed 002 §3.1.1) as the
/// shortest period with that fraction: 50 % is `(1, 1)` (alternate every iteration, the
/// paper's basic round robin), 75 % is `(3, 1)` (fig. 5b), 10 % is `(1, 9)`.
pub fn round_robin(cycle_percent: u32, remove_idle: bool) -> Strategy {
    let c = cycle_percent.clamp(1, 99);
    let g = gcd(c, 100);
    Strategy::iteration_delaying(reconverge_transforms::Decision::RoundRobin {
        num_zeros: c / g,
        num_ones: (100 - c) / g,
        remove_idle,
    })
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Majority vote with threshold `t` and the anti-starvation stop the paper uses.
pub fn majority_vote(threshold: u32) -> Strategy {
    Strategy::iteration_delaying(reconverge_transforms::Decision::MajorityVote {
        threshold,
        stop_when_a_lane_finishes: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reconverge_transforms::BranchLoopKernel;
    use reconverge_workloads::synthetic::SynItDelay;

    #[test]
    fn compare_puts_baseline_first_and_checks_outputs() {
        let k = BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1));
        let launch = Launch::new(64, 2).expect("launch");
        let rows = compare(
            &timing_backend(1),
            &counting_backend(1),
            &k,
            &[round_robin(50, false), majority_vote(16)],
            256,
            launch,
            1,
        )
        .expect("runs");
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].strategy, Strategy::BASELINE);
        assert_eq!(rows[0].model_speedup, Some(1.0));
        assert!(rows.iter().all(|r| r.outputs_match));
        assert!(rows.iter().all(|r| r.simd_efficiency.is_some()));
        assert!(format_row("0.5", &rows[1]).contains("round robin 50%"));
    }

    #[test]
    fn round_robin_cycle_is_the_else_fraction() {
        assert_eq!(
            label(&round_robin(90, true)),
            "round robin 90% idle-removal"
        );
        assert_eq!(label(&round_robin(10, false)), "round robin 10%");
        assert_eq!(label(&round_robin(75, false)), "round robin 75%");
        let alternate = Strategy::iteration_delaying(reconverge_transforms::Decision::RoundRobin {
            num_zeros: 1,
            num_ones: 1,
            remove_idle: false,
        });
        assert_eq!(round_robin(50, false), alternate);
    }
}
