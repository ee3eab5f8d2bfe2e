//! The GPU entry points of the papers' workloads: one list, which the paper kernels' device
//! crate compiles (`reconverge_device::entries!`), their build script names
//! (`reconverge_gpu_build::entry_names!`) and, with feature `gpu-entries`, this crate declares
//! to the CUDA backend (`reconverge_gpu::device_entries!`).
//!
//! The host half lives here rather than in `reconverge-paper-kernels` because its impls are for
//! this crate's types (`DeviceEntries<BranchLoopKernel<SynItDelay>> for SynItDelay`): anywhere
//! else they would break the orphan rule (E0117).

/// Calls `$entries!` with the papers' entry-point list, in the grammar that
/// `reconverge_device::entries!`, `reconverge_gpu::device_entries!` and
/// `reconverge_gpu_build::entry_names!` share: `pub const PAPER_ENTRY_NAMES;` then
/// `Workload as Shape { name [pass N] => strategy, ... }`. `[pass N]` (default 0) is the pass of a
/// multi-pass strategy that the entry point runs, compiled in as a constant so that every pass is
/// a kernel of its own with its own register count (branch splitting's occupancy gain).
///
/// In scope where it is called: `Strategy`, `Decision`, the shape wrappers of
/// `reconverge-transforms`, `McmlKernel` and the synthetic workloads named below.
#[macro_export]
macro_rules! paper_entries {
    ($entries:ident) => {
        $entries! {
            pub const PAPER_ENTRY_NAMES;

            // SYN-ITDELAY (seed 002 §4.1.1): figs. 10/11 and table 1's decision parameters.
            // Round-robin cycles as `reconverge_benches::round_robin`: c % is (c/g, (100-c)/g), g = gcd.
            SynItDelay as BranchLoopKernel {
                itdelay_baseline => Strategy::Baseline,
                itdelay_dynamic => Strategy::DynamicWorkAssignment,
                itdelay_mv1 => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 1, stop_when_a_lane_finishes: true }),
                itdelay_mv8 => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 8, stop_when_a_lane_finishes: true }),
                itdelay_mv16 => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 16, stop_when_a_lane_finishes: true }),
                itdelay_mv24 => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 24, stop_when_a_lane_finishes: true }),
                itdelay_mv32 => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 32, stop_when_a_lane_finishes: true }),
                itdelay_mv16_nostop => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 16, stop_when_a_lane_finishes: false }),
                itdelay_rr90 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 9, num_ones: 1, remove_idle: false }),
                itdelay_rr70 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 7, num_ones: 3, remove_idle: false }),
                itdelay_rr50 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 1, num_ones: 1, remove_idle: false }),
                itdelay_rr30 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 3, num_ones: 7, remove_idle: false }),
                itdelay_rr10 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 1, num_ones: 9, remove_idle: false }),
                itdelay_rr90_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 9, num_ones: 1, remove_idle: true }),
                itdelay_rr70_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 7, num_ones: 3, remove_idle: true }),
                itdelay_rr50_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 1, num_ones: 1, remove_idle: true }),
                itdelay_rr30_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 3, num_ones: 7, remove_idle: true }),
                itdelay_rr10_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 1, num_ones: 9, remove_idle: true }),
            }

            // SYN-BRDIS (seed 002 §4.1.2, fig. 12).
            SynBrDis as FactoredBranchLoopKernel {
                brdis_baseline => Strategy::Baseline,
                brdis_distribution => Strategy::BranchDistribution,
                brdis_distribution_dynamic => Strategy::BranchDistributionWithDynamicWork,
            }

            // Seed 001 branch-splitting benchmark (figs. 7-10).
            BranchSplitBench as TwoPathKernel {
                bsplit_baseline => Strategy::Baseline,
                bsplit_predication => Strategy::Predication,
                bsplit_split_a [pass 0] => Strategy::BranchSplitting,
                bsplit_split_b [pass 1] => Strategy::BranchSplitting,
                bsplit_static => Strategy::StaticBranchResolution,
            }

            // Seed 001 loop splitting (fig. 5): fused loop vs two loops, one pass.
            LoopSplitBench as SplitLoopKernel {
                lsplit_baseline => Strategy::Baseline,
                lsplit_split => Strategy::LoopSplitting,
            }

            // Seed 004 A-1: dynamic work assignment.
            DynamicWork as ItemLoopKernel {
                dwa_baseline => Strategy::Baseline,
                dwa_dynamic => Strategy::DynamicWorkAssignment,
                // GPU Gems 2 §34.3: the loop as passes of 8 iterations until an occlusion query says
                // no element is left (pass 1 is launched again while the previous pass left work).
                dwa_occlusion1_first [pass 0] => Strategy::OcclusionQueryLoop { iterations_per_pass: 1 },
                dwa_occlusion1_next [pass 1] => Strategy::OcclusionQueryLoop { iterations_per_pass: 1 },
                dwa_occlusion4_first [pass 0] => Strategy::OcclusionQueryLoop { iterations_per_pass: 4 },
                dwa_occlusion4_next [pass 1] => Strategy::OcclusionQueryLoop { iterations_per_pass: 4 },
                dwa_occlusion8_first [pass 0] => Strategy::OcclusionQueryLoop { iterations_per_pass: 8 },
                dwa_occlusion8_next [pass 1] => Strategy::OcclusionQueryLoop { iterations_per_pass: 8 },
                dwa_occlusion32_first [pass 0] => Strategy::OcclusionQueryLoop { iterations_per_pass: 32 },
                dwa_occlusion32_next [pass 1] => Strategy::OcclusionQueryLoop { iterations_per_pass: 32 },
            }

            // Seed 004 A-2: branch path unification, DATA_PER_THREAD 1, 4, 16, 64.
            PathUnification as TwoPathKernel {
                bpu_baseline => Strategy::Baseline,
                bpu_unify1 => Strategy::BranchPathUnification { items_per_thread: 1 },
                bpu_unify4 => Strategy::BranchPathUnification { items_per_thread: 4 },
                bpu_unify16 => Strategy::BranchPathUnification { items_per_thread: 16 },
                bpu_unify64 => Strategy::BranchPathUnification { items_per_thread: 64 },
            }

            // GPU Gems 2 ch. 34, branch probability (figs. 34-1, 34-2).
            Gems34Branch as TwoPathKernel {
                gems34_baseline => Strategy::Baseline,
                gems34_predication => Strategy::Predication,
                gems34_static => Strategy::StaticBranchResolution,
                gems34_split_a [pass 0] => Strategy::BranchSplitting,
                gems34_split_b [pass 1] => Strategy::BranchSplitting,
                gems34_zcull_mask [pass 0] => Strategy::ZCullMasking,
                gems34_zcull_a [pass 1] => Strategy::ZCullMasking,
                gems34_zcull_b [pass 2] => Strategy::ZCullMasking,
            }

            // MCML in f32: its main branch as a branch loop (seed 002 fig. 8), and branch distribution
            // of the boundary path's up/down branch (fig. 9).
            f32 as McmlKernel {
                mcml_baseline => Strategy::Baseline,
                mcml_dynamic => Strategy::DynamicWorkAssignment,
                mcml_mv16 => Strategy::IterationDelaying(Decision::MajorityVote { threshold: 16, stop_when_a_lane_finishes: true }),
                mcml_rr11_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 1, num_ones: 1, remove_idle: true }),
                mcml_rr11 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 1, num_ones: 1, remove_idle: false }),
                // Seed 002 §4.2.2's best MCML cycle: 75 % of iterations on the not-taken path.
                mcml_rr31 => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 3, num_ones: 1, remove_idle: false }),
                mcml_rr31_idle => Strategy::IterationDelaying(Decision::RoundRobin { num_zeros: 3, num_ones: 1, remove_idle: true }),
                mcml_distribution => Strategy::BranchDistribution,
                mcml_distribution_dynamic => Strategy::BranchDistributionWithDynamicWork,
                // Seed 002's MCML setting: delaying over lanes that relaunch photons dynamically.
                mcml_mv4_dynamic => Strategy::IterationDelayingWithDynamicWork(Decision::MajorityVote { threshold: 4, stop_when_a_lane_finishes: true }),
                mcml_mv8_dynamic => Strategy::IterationDelayingWithDynamicWork(Decision::MajorityVote { threshold: 8, stop_when_a_lane_finishes: true }),
                mcml_rr31_dynamic => Strategy::IterationDelayingWithDynamicWork(Decision::RoundRobin { num_zeros: 3, num_ones: 1, remove_idle: true }),
            }
        }
    };
}

#[cfg(feature = "gpu-entries")]
mod host {
    use reconverge_gpu::device_entries as entries;
    use reconverge_transforms::{
        BranchLoopKernel, Decision, FactoredBranchLoopKernel, ItemLoopKernel, SplitLoopKernel,
        Strategy, TwoPathKernel,
    };

    use crate::mcml::McmlKernel;
    use crate::synthetic::{
        BranchSplitBench, DynamicWork, Gems34Branch, LoopSplitBench, PathUnification, SynBrDis,
        SynItDelay,
    };

    crate::paper_entries!(entries);

    // SAFETY: `DeviceEntries`' contract is `DeviceKernel`'s; `McmlKernel<F>` is `#[repr(C)]`
    // plain data and its output is `()`.
    unsafe impl<F> reconverge_gpu::DeviceKernel for McmlKernel<F>
    where
        F: crate::mcml::McmlFloat + reconverge_gpu::DeviceEntries<McmlKernel<F>> + 'static,
    {
        const KERNEL_NAME: &'static str = F::KERNEL_NAME;
        const ENTRY_POINTS: &'static [reconverge_gpu::EntryPoint] = F::ENTRY_POINTS;
    }
}
#[cfg(feature = "gpu-entries")]
pub use host::PAPER_ENTRY_NAMES;
