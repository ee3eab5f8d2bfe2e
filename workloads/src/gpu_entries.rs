//! The GPU entry points of the papers' workloads: one list, which the paper kernels' device
//! crate compiles (`reconverge_device::entries!`), their build script names
//! (`reconverge_gpu_build::entry_names!`) and, with feature `gpu-entries`, this crate declares
//! to the CUDA backend (`reconverge_device::device_entries!`, the tables `reconverge-gpu` reads).
//!
//! The list names, for each kernel type, a slice of strategies (data: the shape's
//! [`Kernel::STRATEGIES`](reconverge_transforms::Kernel::STRATEGIES), or one of the experiments'
//! settings below) and one entry name per strategy, in the slice's order; every consumer takes
//! the strategy behind a name from the same slice at the same index, so host and device cannot
//! disagree, and a name count that differs from the slice's length does not compile.
//!
//! The host half lives here rather than in `reconverge-paper-kernels` because its impls are for
//! this crate's types (`DeviceEntries<BranchLoopKernel<SynItDelay>> for SynItDelay`): anywhere
//! else they would break the orphan rule (E0117).

use reconverge_transforms::{Assignment, Decision, Strategy};

const fn majority_vote(threshold: u32, stop_when_a_lane_finishes: bool) -> Decision {
    Decision::MajorityVote {
        threshold,
        stop_when_a_lane_finishes,
    }
}

const fn round_robin(num_zeros: u32, num_ones: u32, remove_idle: bool) -> Decision {
    Decision::RoundRobin {
        num_zeros,
        num_ones,
        remove_idle,
    }
}

/// SYN-ITDELAY's strategies (seed 002 §4.1.1, figs. 10/11 and table 1's decision parameters):
/// majority votes at thresholds 1 to 32 (16 also without stopping when a lane finishes), and
/// round-robin cycles of 90 to 10 % as `reconverge_benches::round_robin` writes them (c % is
/// (c/g, (100-c)/g), g = gcd), with and without idle removal; and dynamic work with one
/// grid-wide counter.
pub const SYN_IT_DELAY_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::iteration_delaying(majority_vote(1, true)),
    Strategy::iteration_delaying(majority_vote(8, true)),
    Strategy::iteration_delaying(majority_vote(16, true)),
    Strategy::iteration_delaying(majority_vote(24, true)),
    Strategy::iteration_delaying(majority_vote(32, true)),
    Strategy::iteration_delaying(majority_vote(16, false)),
    Strategy::iteration_delaying(round_robin(9, 1, false)),
    Strategy::iteration_delaying(round_robin(7, 3, false)),
    Strategy::iteration_delaying(round_robin(1, 1, false)),
    Strategy::iteration_delaying(round_robin(3, 7, false)),
    Strategy::iteration_delaying(round_robin(1, 9, false)),
    Strategy::iteration_delaying(round_robin(9, 1, true)),
    Strategy::iteration_delaying(round_robin(7, 3, true)),
    Strategy::iteration_delaying(round_robin(1, 1, true)),
    Strategy::iteration_delaying(round_robin(3, 7, true)),
    Strategy::iteration_delaying(round_robin(1, 9, true)),
    Strategy::GRID_WIDE_DYNAMIC_WORK,
];

/// The strategies of SYN-ITDELAY with paths of distinct shape
/// ([`crate::synthetic::SynItDelayDistinct`], the real-divergence variant): the per-thread
/// schedules, and iteration delaying's decisions at the settings seed 002's table 1 and
/// fig. 10 sweep (majority votes of 4 to 24 with the stop rule, 16 without; round robin 1:1
/// and 3:1, with and without idle removal; cost-balanced), on static lanes and, for the vote,
/// the round robin and cost-balanced delaying, over dynamic work assignment.
pub const SYN_IT_DELAY_DISTINCT_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::GRID_WIDE_DYNAMIC_WORK,
    Strategy::iteration_delaying(majority_vote(4, true)),
    Strategy::iteration_delaying(majority_vote(8, true)),
    Strategy::iteration_delaying(majority_vote(16, true)),
    Strategy::iteration_delaying(majority_vote(24, true)),
    Strategy::iteration_delaying(majority_vote(16, false)),
    Strategy::iteration_delaying(round_robin(1, 1, false)),
    Strategy::iteration_delaying(round_robin(3, 1, false)),
    Strategy::iteration_delaying(round_robin(1, 1, true)),
    Strategy::iteration_delaying(round_robin(3, 1, true)),
    Strategy::iteration_delaying(Decision::CostBalanced),
    Strategy::iteration_delaying(majority_vote(8, true)).over(Assignment::Dynamic),
    Strategy::iteration_delaying(round_robin(1, 1, false)).over(Assignment::Dynamic),
    Strategy::iteration_delaying(round_robin(3, 1, true)).over(Assignment::Dynamic),
    Strategy::iteration_delaying(Decision::CostBalanced).over(Assignment::Dynamic),
];

/// The periodic-block loop's strategies ([`crate::synthetic::PeriodicBlockLoop`], Damani et
/// al. CGO 2020): the paths as written, speculative reconvergence at thresholds 8, 16 and 24
/// with a bound of 8 iterations (the numbers are a run-time argument), over static and dynamic
/// assignment, and iteration delaying's cost-balanced decision, its closest neighbour.
pub const PERIODIC_BLOCK_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::speculative_reconvergence(8, 8),
    Strategy::speculative_reconvergence(16, 8),
    Strategy::speculative_reconvergence(24, 8),
    Strategy::speculative_reconvergence(16, 8).over(Assignment::Dynamic),
    Strategy::iteration_delaying(Decision::CostBalanced),
];

/// The class-chains loop's strategies ([`crate::synthetic::ClassChains`], thread-data
/// remapping, Zhang et al. ASPLOS 2011): the paths as written over static and dynamic
/// assignment and over remapping, and seed 002's majority vote of 8 as written and over
/// remapping (the two act on different things: which items share a warp, which path it runs).
pub const CLASS_CHAINS_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::THREAD_DATA_REMAPPING,
    Strategy::iteration_delaying(majority_vote(8, true)),
    Strategy::iteration_delaying(majority_vote(8, true)).over(Assignment::Remapped),
];

/// The rare-costly-body loop's strategies ([`crate::synthetic::RareCostlyBody`], Khorasani et
/// al. MICRO 2015): the paths as written over static and dynamic assignment, and collaborative
/// context collection over each (its contexts on per-warp stacks in dynamic shared memory).
pub const RARE_COSTLY_BODY_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::COLLABORATIVE_CONTEXT_COLLECTION,
    Strategy::COLLABORATIVE_CONTEXT_COLLECTION.over(Assignment::Dynamic),
];

/// SYN-BRDIS's strategies (seed 002 §4.1.2, fig. 12).
pub const SYN_BR_DIS_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::BRANCH_DISTRIBUTION,
    Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
];

/// The strategies of SYN-BRDIS with paths of distinct shape
/// ([`crate::synthetic::SynBrDisDistinct`], the real-divergence variant): the paths as written
/// and branch distribution, each over the three assignments.
pub const SYN_BR_DIS_DISTINCT_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::GRID_WIDE_DYNAMIC_WORK,
    Strategy::BRANCH_DISTRIBUTION,
    Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
    Strategy::BRANCH_DISTRIBUTION.over(Assignment::GridWide),
];

/// The branch-splitting benchmark's strategies (seed 001 figs. 7-10).
pub const BRANCH_SPLIT_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::PREDICATION,
    Strategy::BRANCH_SPLITTING,
    Strategy::STATIC_BRANCH_RESOLUTION,
];

/// The dynamic-work experiment's strategies (seed 004 A-1), GPU Gems 2 §34.3's loop as
/// passes of 1, 4, 8 and 32 iterations until an occlusion query says no element is left, and
/// dynamic work with one grid-wide counter.
pub const DYNAMIC_WORK_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::occlusion_query_loop(1),
    Strategy::occlusion_query_loop(4),
    Strategy::occlusion_query_loop(8),
    Strategy::occlusion_query_loop(32),
    Strategy::GRID_WIDE_DYNAMIC_WORK,
];

/// Branch path unification's strategies (seed 004 A-2): DATA_PER_THREAD 1, 4, 16 and 64.
pub const PATH_UNIFICATION_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::branch_path_unification(1),
    Strategy::branch_path_unification(4),
    Strategy::branch_path_unification(16),
    Strategy::branch_path_unification(64),
];

/// GPU Gems 2 ch. 34's branch-probability strategies (figs. 34-1, 34-2).
pub const GEMS34_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::PREDICATION,
    Strategy::STATIC_BRANCH_RESOLUTION,
    Strategy::BRANCH_SPLITTING,
    Strategy::Z_CULL_MASKING,
];

/// MCML's GPU strategies: [`McmlKernel`](crate::mcml::McmlKernel)'s `STRATEGIES` (what its
/// benchmarks run), in the entry points' order, seed 002 §4.2.2's best MCML cycle, round
/// robin 3:1 (75 % of iterations on the not-taken path), on static lanes, dynamic work from
/// one counter of the whole launch, and over it collaborative context collection and speculative
/// reconvergence at a face (threshold 16, at most 4 steps: the best of 4 / 1, 8 / 2 and 16 / 4
/// on an H200, still 0.96x / 0.88x the per-thread loop on skin / slab).
pub const MCML_GPU_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::iteration_delaying(majority_vote(16, true)),
    Strategy::iteration_delaying(round_robin(1, 1, true)),
    Strategy::iteration_delaying(round_robin(1, 1, false)),
    Strategy::iteration_delaying(round_robin(3, 1, false)),
    Strategy::iteration_delaying(round_robin(3, 1, true)),
    Strategy::BRANCH_DISTRIBUTION,
    Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
    Strategy::iteration_delaying(majority_vote(4, true)).over(Assignment::Dynamic),
    Strategy::iteration_delaying(majority_vote(8, true)).over(Assignment::Dynamic),
    Strategy::iteration_delaying(round_robin(3, 1, true)).over(Assignment::Dynamic),
    Strategy::iteration_delaying(Decision::CostBalanced).over(Assignment::Dynamic),
    Strategy::branch_distribution_with_delaying(Decision::CostBalanced).over(Assignment::Dynamic),
    Strategy::GRID_WIDE_DYNAMIC_WORK,
    Strategy::COLLABORATIVE_CONTEXT_COLLECTION.over(Assignment::GridWide),
    Strategy::speculative_reconvergence(16, 4).over(Assignment::GridWide),
];

/// MCML's fast-math entry points ([`FastF32`](crate::mcml::FastF32): approximate PTX division,
/// square root, logarithm, cosine and sine): the plain loop, dynamic work assignment (from each
/// block's counter and from one of the launch's), and branch distribution over dynamic work,
/// without and with cost-balanced delaying (the fastest exact strategies on an H100). They are
/// opt-in and not bit-identical to the CPU. The device check compares their results with the
/// exact ones within a statistical tolerance.
pub const MCML_FAST_MATH_STRATEGIES: &[Strategy] = &[
    Strategy::BASELINE,
    Strategy::DYNAMIC_WORK_ASSIGNMENT,
    Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
    Strategy::branch_distribution_with_delaying(Decision::CostBalanced).over(Assignment::Dynamic),
    Strategy::GRID_WIDE_DYNAMIC_WORK,
    Strategy::COLLABORATIVE_CONTEXT_COLLECTION.over(Assignment::GridWide),
    Strategy::speculative_reconvergence(16, 4).over(Assignment::GridWide),
];

/// Calls `$entries!` (`reconverge_device::entries!`, `reconverge_device::device_entries!` or
/// `reconverge_gpu_build::entry_names!`) with the papers' entry-point list, through
/// `reconverge_device::entries_from_data!`: `Workload as Shape from (slice) { name,
/// (pass_0_name, pass_1_name), ... }` gives entry `i` the strategy `slice[i]` (a block without
/// `from (slice)` takes the shape's own `Kernel::STRATEGIES`); a parenthesised
/// group names the passes of one multi-pass strategy, each compiled in as a constant so that
/// every pass is a kernel of its own with its own register count (branch splitting's occupancy
/// gain).
///
/// Where it is called: `reconverge_device` and `reconverge_transforms` are dependencies. It
/// imports the types it names (the shape wrappers, `McmlKernel`, `FastF32` and the workloads)
/// into the calling module, which can use them too.
#[macro_export]
macro_rules! paper_entries {
    ($entries:ident) => {
        use ::reconverge_transforms::{
            BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, SplitLoopKernel,
            TwoPathKernel,
        };
        use $crate::held_out::{
            Bisect, CostMap, EscapeWalk, GeometricJobs, HeavyTail, SunsetMap, TwoPathRuns,
            VariableTrips,
        };
        use $crate::mcml::{FastF32, McmlKernel};
        use $crate::reference::{Collatz, EscapeTime};
        use $crate::synthetic::{
            BranchSplitBench, BranchSplitDistinct, DynamicWork, Gems34Branch, LoopSplitBench,
            ClassChains, PathUnification, PathUnificationDistinct, PeriodicBlockLoop, RareCostlyBody, SynBrDis,
            SynBrDisDistinct, SynItDelay, SynItDelayDistinct,
        };

        ::reconverge_device::entries_from_data! {
            $entries;
            pub const PAPER_ENTRY_NAMES;

            SynItDelay as BranchLoopKernel from ($crate::gpu_entries::SYN_IT_DELAY_STRATEGIES) {
                itdelay_baseline, itdelay_dynamic,
                itdelay_mv1, itdelay_mv8, itdelay_mv16, itdelay_mv24, itdelay_mv32, itdelay_mv16_nostop,
                itdelay_rr90, itdelay_rr70, itdelay_rr50, itdelay_rr30, itdelay_rr10,
                itdelay_rr90_idle, itdelay_rr70_idle, itdelay_rr50_idle, itdelay_rr30_idle, itdelay_rr10_idle,
                itdelay_grid,
            }

            // SYN-ITDELAY with paths the compiler cannot merge: the plain kernel diverges.
            SynItDelayDistinct as BranchLoopKernel from ($crate::gpu_entries::SYN_IT_DELAY_DISTINCT_STRATEGIES) {
                itdistinct_baseline, itdistinct_dynamic, itdistinct_grid,
                itdistinct_mv4, itdistinct_mv8, itdistinct_mv16, itdistinct_mv24, itdistinct_mv16_nostop,
                itdistinct_rr11, itdistinct_rr31, itdistinct_rr11_idle, itdistinct_rr31_idle,
                itdistinct_balanced,
                itdistinct_mv8_dynamic, itdistinct_rr11_dynamic, itdistinct_rr31_idle_dynamic,
                itdistinct_balanced_dynamic,
            }

            // Speculative reconvergence's workload (Damani et al. CGO 2020), phased or aligned.
            PeriodicBlockLoop as BranchLoopKernel from ($crate::gpu_entries::PERIODIC_BLOCK_STRATEGIES) {
                periodic_baseline, periodic_dynamic,
                periodic_spec8, periodic_spec16, periodic_spec24, periodic_spec16_dynamic,
                periodic_balanced,
            }

            // Thread-data remapping's workload (G-Streamline, ASPLOS 2011): classes interleaved,
            // grouped or unrelated to the paths (a run-time argument). Remapping has two passes:
            // the permutation, then the loop over it.
            ClassChains as BranchLoopKernel from ($crate::gpu_entries::CLASS_CHAINS_STRATEGIES) {
                classes_baseline, classes_dynamic,
                (classes_remap_permute, classes_remap),
                classes_mv8,
                (classes_mv8_remap_permute, classes_mv8_remap),
            }

            // Collaborative context collection's workload (Khorasani et al. MICRO 2015), at the
            // rare body's rate or every iteration's.
            RareCostlyBody as BranchLoopKernel from ($crate::gpu_entries::RARE_COSTLY_BODY_STRATEGIES) {
                rare_baseline, rare_dynamic, rare_ccc, rare_ccc_dynamic,
            }

            // The reference workloads the strategies were not developed on (`crate::reference`):
            // every strategy of the branch-loop shape.
            Collatz as BranchLoopKernel {
                collatz_baseline, collatz_dynamic, collatz_mv, collatz_rr,
                collatz_mv_dynamic, collatz_rr_dynamic, collatz_grid,
                collatz_spec, collatz_spec_dynamic, collatz_ccc,
            }

            EscapeTime as BranchLoopKernel {
                escape_baseline, escape_dynamic, escape_mv, escape_rr,
                escape_mv_dynamic, escape_rr_dynamic, escape_grid,
                escape_spec, escape_spec_dynamic, escape_ccc,
            }

            // The advisor's held-out set (`crate::held_out`, issue 27): every strategy of each
            // shape, measured once to score the advisor's predictions.
            HeavyTail as BranchLoopKernel {
                heavy_baseline, heavy_dynamic, heavy_mv, heavy_rr,
                heavy_mv_dynamic, heavy_rr_dynamic, heavy_grid,
                heavy_spec, heavy_spec_dynamic, heavy_ccc,
            }

            CostMap as BranchLoopKernel {
                costmap_baseline, costmap_dynamic, costmap_mv, costmap_rr,
                costmap_mv_dynamic, costmap_rr_dynamic, costmap_grid,
                costmap_spec, costmap_spec_dynamic, costmap_ccc,
            }

            VariableTrips as ItemLoopKernel {
                vtrips_baseline, vtrips_dynamic,
                (vtrips_occlusion_first, vtrips_occlusion_next),
                vtrips_grid,
            }

            Bisect as BranchLoopKernel {
                bisect_baseline, bisect_dynamic, bisect_mv, bisect_rr,
                bisect_mv_dynamic, bisect_rr_dynamic, bisect_grid,
                bisect_spec, bisect_spec_dynamic, bisect_ccc,
            }

            EscapeWalk as BranchLoopKernel {
                walk_baseline, walk_dynamic, walk_mv, walk_rr,
                walk_mv_dynamic, walk_rr_dynamic, walk_grid,
                walk_spec, walk_spec_dynamic, walk_ccc,
            }

            SunsetMap as BranchLoopKernel {
                sunset_baseline, sunset_dynamic, sunset_mv, sunset_rr,
                sunset_mv_dynamic, sunset_rr_dynamic, sunset_grid,
                sunset_spec, sunset_spec_dynamic, sunset_ccc,
            }

            GeometricJobs as ItemLoopKernel {
                geojobs_baseline, geojobs_dynamic,
                (geojobs_occlusion_first, geojobs_occlusion_next),
                geojobs_grid,
            }

            TwoPathRuns as TwoPathKernel {
                runs_baseline, runs_predication, runs_static,
                (runs_split_a, runs_split_b),
                (runs_zcull_mask, runs_zcull_a, runs_zcull_b),
                runs_unify16,
            }

            SynBrDis as FactoredBranchLoopKernel from ($crate::gpu_entries::SYN_BR_DIS_STRATEGIES) {
                brdis_baseline, brdis_distribution, brdis_distribution_dynamic,
            }

            // SYN-BRDIS with paths the compiler cannot merge: the plain kernel diverges.
            SynBrDisDistinct as FactoredBranchLoopKernel from ($crate::gpu_entries::SYN_BR_DIS_DISTINCT_STRATEGIES) {
                brdistinct_baseline, brdistinct_dynamic, brdistinct_grid,
                brdistinct_distribution, brdistinct_distribution_dynamic, brdistinct_distribution_grid,
            }

            BranchSplitBench as TwoPathKernel from ($crate::gpu_entries::BRANCH_SPLIT_STRATEGIES) {
                bsplit_baseline, bsplit_predication, (bsplit_split_a, bsplit_split_b), bsplit_static,
            }

            // Seed 001's benchmark with paths the compiler cannot merge: the branched kernel
            // diverges.
            BranchSplitDistinct as TwoPathKernel from ($crate::gpu_entries::BRANCH_SPLIT_STRATEGIES) {
                bsdistinct_baseline, bsdistinct_predication, (bsdistinct_split_a, bsdistinct_split_b),
                bsdistinct_static,
            }

            // Seed 001 loop splitting (fig. 5): every strategy of the shape.
            LoopSplitBench as SplitLoopKernel {
                lsplit_baseline, lsplit_split,
            }

            DynamicWork as ItemLoopKernel from ($crate::gpu_entries::DYNAMIC_WORK_STRATEGIES) {
                dwa_baseline, dwa_dynamic,
                (dwa_occlusion1_first, dwa_occlusion1_next),
                (dwa_occlusion4_first, dwa_occlusion4_next),
                (dwa_occlusion8_first, dwa_occlusion8_next),
                (dwa_occlusion32_first, dwa_occlusion32_next),
                dwa_grid,
            }

            PathUnification as TwoPathKernel from ($crate::gpu_entries::PATH_UNIFICATION_STRATEGIES) {
                bpu_baseline, bpu_unify1, bpu_unify4, bpu_unify16, bpu_unify64,
            }

            // Seed 004's kernel with paths the compiler cannot merge: the plain kernel diverges.
            PathUnificationDistinct as TwoPathKernel from ($crate::gpu_entries::PATH_UNIFICATION_STRATEGIES) {
                bpudistinct_baseline, bpudistinct_unify1, bpudistinct_unify4, bpudistinct_unify16,
                bpudistinct_unify64,
            }

            Gems34Branch as TwoPathKernel from ($crate::gpu_entries::GEMS34_STRATEGIES) {
                gems34_baseline, gems34_predication, gems34_static,
                (gems34_split_a, gems34_split_b),
                (gems34_zcull_mask, gems34_zcull_a, gems34_zcull_b),
            }

            // MCML in f32: its main branch as a branch loop (seed 002 fig. 8), and branch
            // distribution of the boundary path's up/down branch (fig. 9).
            f32 as McmlKernel from ($crate::gpu_entries::MCML_GPU_STRATEGIES) {
                mcml_baseline, mcml_dynamic, mcml_mv16, mcml_rr11_idle, mcml_rr11, mcml_rr31,
                mcml_rr31_idle, mcml_distribution, mcml_distribution_dynamic,
                mcml_mv4_dynamic, mcml_mv8_dynamic, mcml_rr31_dynamic,
                mcml_balanced_dynamic, mcml_distribution_balanced, mcml_grid, mcml_ccc_grid,
                mcml_spec16w4_grid,
            }

            // MCML in opt-in fast math (approximate division, sqrt, lg2, sin/cos on the GPU;
            // not bit-identical to the CPU, checked within stated tolerances).
            FastF32 as McmlKernel from ($crate::gpu_entries::MCML_FAST_MATH_STRATEGIES) {
                mcml_fast_baseline, mcml_fast_dynamic, mcml_fast_distribution_dynamic,
                mcml_fast_distribution_balanced, mcml_fast_grid, mcml_fast_ccc_grid,
                mcml_fast_spec16w4_grid,
            }
        }
    };
}

#[cfg(feature = "gpu-entries")]
mod host {
    use reconverge_device::device_entries as entries;

    // Imports the list's types too (`McmlKernel` and `FastF32` are used below).
    crate::paper_entries!(entries);

    // SAFETY: `DeviceEntries`' contract is `DeviceKernel`'s; `McmlKernel<F>` is `#[repr(C)]`
    // plain data and its output is `()`.
    unsafe impl<F> reconverge_device::DeviceKernel for McmlKernel<F>
    where
        F: crate::mcml::McmlFloat + reconverge_device::DeviceEntries<McmlKernel<F>> + 'static,
    {
        const KERNEL_NAME: &'static str = F::KERNEL_NAME;
        const ENTRY_POINTS: &'static [reconverge_device::EntryPoint] = F::ENTRY_POINTS;
    }
}
#[cfg(feature = "gpu-entries")]
pub use host::PAPER_ENTRY_NAMES;
