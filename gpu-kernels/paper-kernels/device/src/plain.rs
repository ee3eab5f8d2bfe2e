//! The plain kernels of the reference workloads: what a CUDA programmer writes first, one loop
//! per thread over the workload's own functions, with none of reconverge's machinery. The
//! comparison (`docs/results/plain/`) holds every strategy against the fastest of them.
//! Names: `device/names.rs`'s `PLAIN_KERNELS`.

use reconverge_device::plain::{
    branch_loop_item, factored_loop_item, factored_loop_item_distributed, item_loop_item,
    two_path_item,
};
use reconverge_workloads::reference::{Collatz, EscapeTime};
use reconverge_workloads::synthetic::{
    BrDisOutput, BranchSplitDistinct, DynamicWork, ItDelayOutput, PathUnificationDistinct,
    PeriodicBlockLoop, RareCostlyBody, SynBrDisDistinct, SynItDelay, SynItDelayDistinct,
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

// Speculative reconvergence's workload (Damani et al. CGO 2020) as written.
reconverge_device::plain_kernels!(PeriodicBlockLoop => u32, branch_loop_item;
    periodic_one_per_item, periodic_grid_stride, periodic_persistent, periodic_block_persistent);

// Collaborative context collection's workload (Khorasani et al. MICRO 2015) as written.
reconverge_device::plain_kernels!(RareCostlyBody => u32, branch_loop_item;
    rare_one_per_item, rare_grid_stride, rare_persistent, rare_block_persistent);

reconverge_device::plain_kernels!(DynamicWork => u32, item_loop_item;
    dwa_one_per_item, dwa_grid_stride, dwa_persistent, dwa_block_persistent);

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
