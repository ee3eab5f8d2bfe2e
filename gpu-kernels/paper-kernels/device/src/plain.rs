//! The plain kernels of the reference workloads: what a CUDA programmer writes first, one loop
//! per thread over the workload's own functions, with none of reconverge's machinery. The
//! comparison (`docs/results/plain/`) holds every strategy against the fastest of them.
//! Names: `device/names.rs`'s `PLAIN_KERNELS`.

use reconverge_device::plain::{
    branch_loop_item, factored_loop_item, factored_loop_item_distributed, item_loop_item,
    split_loop_item, two_path_item,
};
use reconverge_workloads::reference::{Collatz, EscapeTime};
use reconverge_workloads::synthetic::{
    BrDisOutput, BranchSplitBench, BranchSplitDistinct, ClassChains, DynamicWork, Gems34Branch,
    ItDelayOutput, LoopSplitBench, PathUnification, PathUnificationDistinct, PeriodicBlockLoop,
    RareCostlyBody, SynBrDis, SynBrDisDistinct, SynItDelay, SynItDelayDistinct,
};

reconverge_device::plain_kernels!(Collatz => u32, branch_loop_item;
    collatz_one_per_item, collatz_grid_stride, collatz_persistent, collatz_block_persistent);

reconverge_device::plain_kernels!(EscapeTime => u32, branch_loop_item;
    escape_one_per_item, escape_grid_stride, escape_persistent, escape_block_persistent);

reconverge_device::plain_kernels!(SynItDelay => ItDelayOutput, branch_loop_item;
    itdelay_one_per_item, itdelay_grid_stride, itdelay_persistent, itdelay_block_persistent);

reconverge_device::plain_kernels!(SynItDelayDistinct => ItDelayOutput, branch_loop_item;
    itdistinct_one_per_item, itdistinct_grid_stride, itdistinct_persistent,
    itdistinct_block_persistent);

// Iteration delaying written by hand from seed 002 fig. 5 (its twin, one kernel per decision;
// `references/cuda/techniques.cu`'s `delaying<D>` in Rust).
reconverge_device::iteration_delaying_twin!(SynItDelayDistinct => ItDelayOutput;
    itdistinct_twin_mv_stop, itdistinct_twin_mv, itdistinct_twin_rr, itdistinct_twin_rr_idle,
    itdistinct_twin_balanced);

// Speculative reconvergence's workload (Damani et al. CGO 2020) as written.
reconverge_device::plain_kernels!(PeriodicBlockLoop => u32, branch_loop_item;
    periodic_one_per_item, periodic_grid_stride, periodic_persistent, periodic_block_persistent);

// Thread-data remapping's workload (G-Streamline, ASPLOS 2011) as written.
reconverge_device::plain_kernels!(ClassChains => u32, branch_loop_item;
    classes_one_per_item, classes_grid_stride, classes_persistent, classes_block_persistent);

// Collaborative context collection's workload (Khorasani et al. MICRO 2015) as written.
reconverge_device::plain_kernels!(RareCostlyBody => u32, branch_loop_item;
    rare_one_per_item, rare_grid_stride, rare_persistent, rare_block_persistent);

reconverge_device::plain_kernels!(DynamicWork => u32, item_loop_item;
    dwa_one_per_item, dwa_grid_stride, dwa_persistent, dwa_block_persistent);

// GPU Gems 2 §34.3's occlusion-query loop written by hand (its twin: a bounded-steps kernel the
// host relaunches until the counter of unfinished items reads 0).
reconverge_device::occlusion_twin!(DynamicWork => u32; dwa_twin_occlusion);

// GPU Gems 2 §34.2's branch-probability experiment as written, and z-cull masking written by
// hand from §34.2.3 (its twin: a mask kernel, then a kernel per path culling whole warps).
reconverge_device::plain_kernels!(Gems34Branch => u32, two_path_item;
    gems34_one_per_item, gems34_grid_stride, gems34_persistent, gems34_block_persistent);
reconverge_device::zcull_twin!(Gems34Branch => u32;
    gems34_twin_zcull_mask, gems34_twin_zcull_a, gems34_twin_zcull_b);

// SYN-BRDIS with paths of distinct shape as written (fig. 7a, the factored code inside each
// path), and distributed by hand (fig. 7b): branch distribution's hand-written twin.
reconverge_device::plain_kernels!(SynBrDisDistinct => BrDisOutput, factored_loop_item;
    brdistinct_one_per_item, brdistinct_grid_stride, brdistinct_persistent,
    brdistinct_block_persistent);

reconverge_device::plain_kernels!(SynBrDisDistinct => BrDisOutput, factored_loop_item_distributed;
    brdistinct_twin_one_per_item, brdistinct_twin_grid_stride, brdistinct_twin_persistent,
    brdistinct_twin_block_persistent);

// Seed 004's unification kernel with paths of distinct shape (a float path A): the plain
// kernels, and branch path unification written by hand from fig. 10 (its twin) at the
// strategy's DATA_PER_THREAD of 4, 16 and 64.
reconverge_device::plain_kernels!(PathUnificationDistinct => u32, two_path_item;
    bpudistinct_one_per_item, bpudistinct_grid_stride, bpudistinct_persistent,
    bpudistinct_block_persistent);
reconverge_device::unification_twin!(PathUnificationDistinct => u32; bpudistinct_twin_unify4, 4);
reconverge_device::unification_twin!(PathUnificationDistinct => u32; bpudistinct_twin_unify16, 16);
reconverge_device::unification_twin!(PathUnificationDistinct => u32; bpudistinct_twin_unify64, 64);

// Seed 001's branch-splitting benchmark with paths of distinct shape (a float else branch): the
// plain kernels, and branch splitting written by hand from fig. 6b (its twin: two kernels).
reconverge_device::plain_kernels!(BranchSplitDistinct => u32, two_path_item;
    bsdistinct_one_per_item, bsdistinct_grid_stride, bsdistinct_persistent,
    bsdistinct_block_persistent);
reconverge_device::branch_splitting_twin!(BranchSplitDistinct => u32;
    bsdistinct_twin_split_a, bsdistinct_twin_split_b);

// The papers' original workloads as written, the reference of their reproduce pages
// (`reconverge_benches::reproduce`): SYN-BRDIS (seed 002 fig. 7a), seed 001's branch-splitting
// benchmark and its fused loop of fig. 5a, seed 004's unification kernel (fig. A-2) and GPU
// Gems 2 ch. 34's two-path branch.
reconverge_device::plain_kernels!(SynBrDis => BrDisOutput, factored_loop_item;
    brdis_one_per_item, brdis_grid_stride, brdis_persistent, brdis_block_persistent);
// SYN-BRDIS distributed by hand (fig. 7b): branch distribution's twin on the paper's benchmark.
reconverge_device::plain_kernels!(SynBrDis => BrDisOutput, factored_loop_item_distributed;
    brdis_twin_one_per_item, brdis_twin_grid_stride, brdis_twin_persistent,
    brdis_twin_block_persistent);
reconverge_device::plain_kernels!(BranchSplitBench => u32, two_path_item;
    bsplit_one_per_item, bsplit_grid_stride, bsplit_persistent, bsplit_block_persistent);
reconverge_device::plain_kernels!(LoopSplitBench => u64, split_loop_item;
    lsplit_one_per_item, lsplit_grid_stride, lsplit_persistent, lsplit_block_persistent);
reconverge_device::plain_kernels!(PathUnification => u32, two_path_item;
    bpu_one_per_item, bpu_grid_stride, bpu_persistent, bpu_block_persistent);
