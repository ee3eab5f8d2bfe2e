//! The papers' workloads the device check runs, each with its comparison and timing sizes:
//! one list that conformance and throughput both walk.

use std::fmt::Debug;

use reconverge_backend::Launch;
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, TwoPathKernel,
};
use reconverge_workloads::reference;
use reconverge_workloads::synthetic::{
    BranchSplitBench, ClassChains, DynamicWork, Gems34Branch, MaskLayout, PathUnification,
    PathUnificationDistinct, PeriodicBlockLoop, RareCostlyBody, SynBrDis, SynBrDisDistinct,
    SynItDelay, SynItDelayDistinct,
};

use crate::gpu::{DeviceKernel, GpuError, launch};

/// One workload's sizes and launches.
pub struct Sizes {
    /// Items of the GPU = CPU comparison (and of the CPU's timing).
    pub items_cmp: u32,
    pub launch_cmp: Launch,
    /// Items of the GPU's timing.
    pub items_gpu: u32,
    pub launch_gpu: Launch,
}

/// A workload: `make(items)` builds its kernel for a run of `items`.
pub struct Workload<'a, K> {
    /// Its name in the PASS lines and the CSV.
    pub name: &'static str,
    /// The heading printed before its lines.
    pub title: &'static str,
    pub make: &'a dyn Fn(u32) -> K,
    pub sizes: Sizes,
}

/// A kernel of a workload: on the GPU, and with outputs the concerns can compare.
pub trait Comparable:
    DeviceKernel<Output: Default + Send + Sync + Debug + PartialEq> + Sync
{
}

impl<K> Comparable for K where
    K: DeviceKernel<Output: Default + Send + Sync + Debug + PartialEq> + Sync
{
}

/// What a concern does with each workload.
pub trait Visit {
    /// The concern's lines for `w`, under its title.
    fn visit_titled<K: Comparable>(&mut self, w: &Workload<'_, K>);

    /// Prints `w`'s title, then the concern's lines for it.
    fn visit<K: Comparable>(&mut self, w: &Workload<'_, K>) {
        println!("{}", w.title);
        self.visit_titled(w);
    }
}

/// Calls `v` on every workload, at small sizes for `sanitize`.
pub fn each(sanitize: bool, v: &mut impl Visit) -> Result<(), GpuError> {
    let (small, large) = if sanitize {
        (1024u32, 1024u32)
    } else {
        (1 << 16, 1 << 22)
    };
    let per_thread = |tpb: u32| -> Result<Sizes, GpuError> {
        Ok(Sizes {
            items_cmp: small,
            launch_cmp: launch("device_check", Launch::one_item_per_thread(small, tpb))?,
            items_gpu: large,
            launch_gpu: launch("device_check", Launch::one_item_per_thread(large, tpb))?,
        })
    };
    v.visit(&Workload {
        name: "syn-itdelay",
        title: "SYN-ITDELAY r=8 f=0.1, 32 iterations (seed 002 table 1)",
        make: &|_| BranchLoopKernel(SynItDelay::with_branch_ratio(8.0, 32, 0.1, 2011)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "syn-itdelay-distinct",
        title: "SYN-ITDELAY, paths of distinct shape, r=8 f=0.1, 32 iterations (real divergence)",
        make: &|_| BranchLoopKernel(SynItDelayDistinct::with_branch_ratio(8.0, 32, 0.1, 2011)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "periodic-phased",
        title: "an expensive block every 8 iterations at a per-item phase (speculative reconvergence)",
        make: &|_| BranchLoopKernel(PeriodicBlockLoop::phased(64, 8, 16)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "periodic-aligned",
        title: "an expensive block every 8 iterations, every item at phase 0",
        make: &|_| BranchLoopKernel(PeriodicBlockLoop::aligned(64, 8, 16)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "classes-interleaved",
        title: "two classes of long chains interleaved at random (thread-data remapping)",
        make: &|_| BranchLoopKernel(ClassChains::interleaved(64, 16)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "classes-grouped",
        title: "two classes of long chains in runs of 32 items",
        make: &|_| BranchLoopKernel(ClassChains::grouped(64, 16)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "rare-costly-body",
        title: "a rare costly body, 1 iteration in 32 (collaborative context collection)",
        make: &|_| BranchLoopKernel(RareCostlyBody::FAVOURABLE),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "rare-every-iteration",
        title: "the costly body in every iteration (collaborative context collection's loss)",
        make: &|_| BranchLoopKernel(RareCostlyBody::EVERY_ITERATION),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "collatz",
        title: "reference: Collatz steps of i + 1 (not a paper's workload)",
        make: &|_| BranchLoopKernel(reference::COLLATZ),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "escape-time",
        title: "reference: escape-time image, rare costly refinement (not a paper's workload)",
        make: &|_| BranchLoopKernel(reference::ESCAPE_TIME),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "syn-brdis",
        title: "SYN-BRDIS M=4 N=8, 16 iterations (seed 002 fig. 12)",
        make: &|_| FactoredBranchLoopKernel(SynBrDis::new(4, 8, 16, 1)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "syn-brdis-distinct",
        title: "SYN-BRDIS, paths of distinct shape, M=4 N=8, 16 iterations (real divergence)",
        make: &|_| FactoredBranchLoopKernel(SynBrDisDistinct::new(4, 8, 16, 1)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "seed001",
        title: "seed 001 branch splitting, 50 % else, random mask, paths 16/32",
        make: &|n| TwoPathKernel(BranchSplitBench::new(n, 0.5, MaskLayout::Random, 1)),
        sizes: per_thread(256)?,
    });
    v.visit(&Workload {
        name: "seed004-a1",
        title: "seed 004 A-1 dynamic work, LOOP_NUM 16, trips 1..32, 16 persistent blocks (GPU: 132 x 8)",
        make: &|_| ItemLoopKernel(DynamicWork::new(16, 32, 1)),
        sizes: Sizes {
            items_cmp: small,
            launch_cmp: launch("device_check", Launch::new(256, 16))?,
            items_gpu: large,
            launch_gpu: launch("device_check", Launch::new(256, 132 * 8))?,
        },
    });
    v.visit(&Workload {
        name: "seed004-a2",
        title: "seed 004 A-2 path unification, LOOP 100, threads for DATA_PER_THREAD 64",
        make: &|_| TwoPathKernel(PathUnification::new(100, 1)),
        sizes: Sizes {
            items_cmp: small,
            launch_cmp: launch(
                "device_check",
                Launch::new(256, (small / (64 * 256)).max(1)),
            )?,
            items_gpu: large,
            launch_gpu: launch(
                "device_check",
                Launch::new(256, (large / (64 * 256)).max(1)),
            )?,
        },
    });
    v.visit(&Workload {
        name: "seed004-a2-distinct",
        title: "seed 004 A-2 path unification with paths of distinct shape, LOOP 100",
        make: &|_| TwoPathKernel(PathUnificationDistinct::new(100, 1)),
        sizes: Sizes {
            items_cmp: small,
            launch_cmp: launch(
                "device_check",
                Launch::new(256, (small / (64 * 256)).max(1)),
            )?,
            items_gpu: large,
            launch_gpu: launch(
                "device_check",
                Launch::new(256, (large / (64 * 256)).max(1)),
            )?,
        },
    });
    v.visit(&Workload {
        name: "gems34",
        title: "GPU Gems 34 branch probability p=0.5, random",
        make: &|_| TwoPathKernel(Gems34Branch::random(0.5, 1)),
        sizes: per_thread(256)?,
    });
    Ok(())
}

/// A strategy's entry points, `+`-joined (or why it has none), and the workload's name with
/// them: the label of the strategy's lines.
pub fn entries_and_label<K: DeviceKernel>(
    w: &Workload<'_, K>,
    strategy: &reconverge_transforms::Strategy,
) -> (String, String) {
    let entries = crate::gpu::CudaBackend::entry_points(&(w.make)(1), strategy)
        .map(|v| v.join("+"))
        .unwrap_or_else(|e| e.to_string());
    let label = format!("{} {entries}", w.name);
    (entries, label)
}
