//! The example's GPU entry points, one per line of `../walk/entries.in`. No panic handler and
//! no runner of our own: `reconverge-device` has both.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(target_arch = "nvptx64")]
mod entry_points {
    use reconverge_device::entries;
    use reconverge_transforms::BranchLoopKernel;
    use user_workload_walk::{WALK_STRATEGIES, Walk};

    include!("../../walk/entries.in");

    // The plain kernels the strategies are measured against (`--compare`), names as in
    // `WALK_PLAIN_KERNELS`.
    reconverge_device::plain_kernels!(Walk => u32, reconverge_device::plain::branch_loop_item;
        walk_one_per_item, walk_grid_stride, walk_persistent, walk_block_persistent);
}
