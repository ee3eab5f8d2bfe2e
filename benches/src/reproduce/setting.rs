//! The experiments' settings as data: per (experiment, setting) the workload at its timed
//! size and as the CPU model's sample, and the strategies measured, so that a second consumer
//! (an advisor predicting each setting's speedup, say) walks exactly what the pages measure.
//!
//! ```
//! use reconverge_benches::reproduce::{EXPERIMENTS, Scale};
//!
//! for e in EXPERIMENTS {
//!     for s in (e.settings)(&Scale::TINY) {
//!         assert!(!s.strategies.is_empty(), "{}: {}", e.pages[0], s.label);
//!     }
//! }
//! ```

use std::fmt::Debug;

use reconverge_backend::{Backend, Kernel, Launch, Strategy};
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, SplitLoopKernel, TwoPathKernel,
};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, LoopSplitBench, PathUnification, SynBrDis,
    SynItDelay,
};

use super::Probe;
use crate::Bench;

/// A kernel with the items and launch of one run.
#[derive(Clone, Copy, Debug)]
pub struct Sized<K> {
    /// The kernel.
    pub kernel: K,
    /// Items of the run.
    pub items: u32,
    /// Its launch.
    pub launch: Launch,
}

/// A setting's two runs of one workload: the timed one and the CPU model's counted sample
/// (smaller, the same configuration).
#[derive(Clone, Copy, Debug)]
pub struct Runs<K> {
    /// The run that is timed on the backend.
    pub timed: Sized<K>,
    /// The run the CPU model counts (SIMD efficiency, issue slots): the workload's sample.
    pub sample: Sized<K>,
}

impl<K> Sized<K> {
    /// The same items and launch with `f`'s kernel (a workload's real-divergence variant).
    pub fn map<L>(self, f: impl FnOnce(K) -> L) -> Sized<L> {
        Sized {
            kernel: f(self.kernel),
            items: self.items,
            launch: self.launch,
        }
    }
}

impl<K> Runs<K> {
    /// The same runs with `f`'s kernel: a workload's real-divergence variant at the
    /// original's sizes.
    pub fn map<L>(self, f: impl Fn(K) -> L) -> Runs<L> {
        Runs {
            timed: self.timed.map(&f),
            sample: self.sample.map(&f),
        }
    }
}

impl<K: Copy> Runs<K> {
    /// The same runs with the model's sample cut to at most `items`, one item per thread: the
    /// pages' rows beside the papers' originals, whose SIMD efficiency the model counts on
    /// fewer items to keep the run short.
    pub fn sample_at_most(self, items: u32) -> Self {
        Runs {
            timed: self.timed,
            sample: per_thread(self.sample.kernel, self.sample.items.min(items).max(1)),
        }
    }
}

/// The workloads of the experiments, one variant per kernel type.
#[derive(Clone, Copy, Debug)]
pub enum Workload {
    /// Seed 001 branch splitting.
    BranchSplit(Runs<TwoPathKernel<BranchSplitBench>>),
    /// Seed 001 loop splitting.
    LoopSplit(Runs<SplitLoopKernel<LoopSplitBench>>),
    /// Seed 002 SYN-ITDELAY.
    IterationDelay(Runs<BranchLoopKernel<SynItDelay>>),
    /// Seed 002 SYN-BRDIS.
    BranchDistribution(Runs<FactoredBranchLoopKernel<SynBrDis>>),
    /// Seed 004 A-1 (also GPU Gems 2 §34.3's loop).
    DynamicWork(Runs<ItemLoopKernel<DynamicWork>>),
    /// Seed 004 A-2.
    PathUnification(Runs<TwoPathKernel<PathUnification>>),
    /// GPU Gems 2 ch. 34's branch.
    Gems34(Runs<TwoPathKernel<Gems34Branch>>),
}

/// Something done with a setting's runs, whatever the kernel's type.
pub trait Visit {
    /// What it gives.
    type Output;
    /// Does it with `runs`.
    fn visit<K>(self, runs: &Runs<K>) -> Self::Output
    where
        K: Kernel + Sync,
        K::Output: Default + Send + Sync + PartialEq + Debug,
        Bench: Backend<K> + Probe<K>;
}

impl Workload {
    /// Calls `v` with this workload's runs.
    pub fn visit<V: Visit>(&self, v: V) -> V::Output {
        match self {
            Self::BranchSplit(r) => v.visit(r),
            Self::LoopSplit(r) => v.visit(r),
            Self::IterationDelay(r) => v.visit(r),
            Self::BranchDistribution(r) => v.visit(r),
            Self::DynamicWork(r) => v.visit(r),
            Self::PathUnification(r) => v.visit(r),
            Self::Gems34(r) => v.visit(r),
        }
    }
}

/// One setting of an experiment: a point of its sweep.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The point as the page names it ("35 % else", "r = 8, f = 10 %").
    pub label: String,
    /// The workload's runs.
    pub workload: Workload,
    /// The strategies measured, the reference (normally the baseline) first.
    pub strategies: Vec<Strategy>,
}

/// One item per thread in blocks of 256 threads (the papers' block).
pub fn per_thread<K>(kernel: K, items: u32) -> Sized<K> {
    Sized {
        kernel,
        items,
        launch: super::common::launch(items),
    }
}

/// The settings of a sweep: each point's label and runs, as `workload`, under `strategies`.
pub fn settings<K, L: ToString>(
    points: impl IntoIterator<Item = (L, Runs<K>)>,
    workload: fn(Runs<K>) -> Workload,
    strategies: &[Strategy],
) -> Vec<Setting> {
    points
        .into_iter()
        .map(|(label, runs)| Setting {
            label: label.to_string(),
            workload: workload(runs),
            strategies: strategies.to_vec(),
        })
        .collect()
}
