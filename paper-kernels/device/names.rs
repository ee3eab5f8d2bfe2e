// The device crate's hand-written self-test kernels (`device/src/gpu.rs`), beside the entry
// points of the papers' list. Included by build.rs (the names kept in the PTX) and src/lib.rs
// (`KERNELS`), so the two cannot drift.

/// The self-test kernels of the device crate.
pub const SELFTESTS: &[&str] = &[
    "warp_selftest",
    "libm_selftest",
    "libmf_selftest",
    "fastmath_selftest",
];
