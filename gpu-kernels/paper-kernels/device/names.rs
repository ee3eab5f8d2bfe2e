// The device crate's hand-written kernels (self-tests in `device/src/gpu.rs`, the plain
// reference kernels in `device/src/plain.rs`), beside the entry points of the papers' list. Included by build.rs (the names kept in the PTX) and src/lib.rs
// (`KERNELS`), so the two cannot drift.

/// The self-test kernels of the device crate.
pub const SELFTESTS: &[&str] = &[
    "warp_selftest",
    "libm_selftest",
    "libmf_selftest",
    "fastmath_selftest",
];

/// The plain kernels of the reference workloads (`device/src/plain.rs`): one loop per thread,
/// none of reconverge's machinery, in four schedules each (one thread per item, grid-stride,
/// persistent threads on one global counter, persistent threads on their block's counter).
pub const PLAIN_KERNELS: &[&str] = &[
    "collatz_one_per_item",
    "collatz_grid_stride",
    "collatz_persistent",
    "collatz_block_persistent",
    "escape_one_per_item",
    "escape_grid_stride",
    "escape_persistent",
    "escape_block_persistent",
    "itdelay_one_per_item",
    "itdelay_grid_stride",
    "itdelay_persistent",
    "itdelay_block_persistent",
    "itdistinct_one_per_item",
    "itdistinct_grid_stride",
    "itdistinct_persistent",
    "itdistinct_block_persistent",
    "periodic_one_per_item",
    "periodic_grid_stride",
    "periodic_persistent",
    "periodic_block_persistent",
    "rare_one_per_item",
    "rare_grid_stride",
    "rare_persistent",
    "rare_block_persistent",
    "dwa_one_per_item",
    "dwa_grid_stride",
    "dwa_persistent",
    "dwa_block_persistent",
    "brdistinct_one_per_item",
    "brdistinct_grid_stride",
    "brdistinct_persistent",
    "brdistinct_block_persistent",
    "brdistinct_twin_one_per_item",
    "brdistinct_twin_grid_stride",
    "brdistinct_twin_persistent",
    "brdistinct_twin_block_persistent",
    "bpudistinct_one_per_item",
    "bpudistinct_grid_stride",
    "bpudistinct_persistent",
    "bpudistinct_block_persistent",
    "bpudistinct_twin_unify4",
    "bpudistinct_twin_unify16",
    "bpudistinct_twin_unify64",
    "bsdistinct_one_per_item",
    "bsdistinct_grid_stride",
    "bsdistinct_persistent",
    "bsdistinct_block_persistent",
    "bsdistinct_twin_split_a",
    "bsdistinct_twin_split_b",
];

/// Whether an entry point of the papers' list is one of MCML's (the list names them `mcml_*`):
/// the kernels of the MCML-only module (`mcml.ptx`), which programs that run nothing else
/// load.
pub fn is_mcml(name: &str) -> bool {
    name.starts_with("mcml_")
}
