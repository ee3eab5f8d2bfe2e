//! Errors for input no GPU could run: each names the limit that was broken and the value
//! that broke it.

use thiserror::Error;

use crate::arch::ComputeCapability;

/// Why an occupancy question has no answer.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum OccupancyError {
    /// A block must have at least one thread.
    #[error("threads per block must be at least 1, got 0")]
    ZeroThreads,

    /// The block is larger than the architecture allows.
    #[error(
        "threads per block: {threads} exceeds the maximum of {max} on compute capability {compute_capability}"
    )]
    TooManyThreads {
        /// Threads per block asked for.
        threads: u32,
        /// `max_threads_per_block` of the architecture.
        max: u32,
        /// The architecture.
        compute_capability: ComputeCapability,
    },

    /// One thread uses more registers than the architecture can address.
    #[error(
        "registers per thread: {registers} exceeds the maximum of {max} on compute capability {compute_capability}"
    )]
    TooManyRegistersPerThread {
        /// Registers per thread asked for.
        registers: u32,
        /// `max_registers_per_thread` of the architecture.
        max: u32,
        /// The architecture.
        compute_capability: ComputeCapability,
    },

    /// The block's register allocation does not fit what one block (or one SM) can hold.
    #[error(
        "registers per block: {registers} allocated exceeds the {max} a block can have on compute capability {compute_capability}"
    )]
    TooManyRegistersPerBlock {
        /// Registers the block would be allocated, after rounding to the allocation unit
        /// (and, on cc ≥ 2.0, warps rounded up to the register sub-partitions).
        registers: u64,
        /// `max_registers_per_block` of the architecture.
        max: u32,
        /// The architecture.
        compute_capability: ComputeCapability,
    },

    /// The block's shared memory does not fit the per-block limit.
    #[error(
        "shared memory per block: {bytes} bytes allocated exceeds the limit of {max} bytes on compute capability {compute_capability}{hint}"
    )]
    TooMuchSharedMemory {
        /// Bytes the block would be allocated (static + dynamic + reserved, rounded up to the
        /// allocation unit).
        bytes: u64,
        /// The per-block limit in the same terms (the reserved bytes included).
        max: u64,
        /// The architecture.
        compute_capability: ComputeCapability,
        /// Advice appended to the message (empty or starting with "; ").
        hint: &'static str,
    },

    /// Dynamic shared memory above the kernel's opted-in maximum.
    #[error(
        "dynamic shared memory: {bytes} bytes exceeds the kernel's maximum dynamic shared memory of {max} bytes"
    )]
    DynamicSharedMemoryAboveMaximum {
        /// Dynamic shared memory asked for.
        bytes: u32,
        /// The kernel's `max_dynamic_shared_memory` setting.
        max: u32,
    },

    /// The opted-in maximum is more than a block can have.
    #[error(
        "maximum dynamic shared memory: {bytes} bytes plus {static_bytes} static exceeds the opt-in limit of {max} bytes per block on compute capability {compute_capability}"
    )]
    OptInAboveLimit {
        /// The kernel's `max_dynamic_shared_memory` setting.
        bytes: u32,
        /// The kernel's static shared memory.
        static_bytes: u32,
        /// `shared_memory_per_block_opt_in` of the architecture.
        max: u32,
        /// The architecture.
        compute_capability: ComputeCapability,
    },

    /// A carve-out percentage above 100.
    #[error("shared memory carveout: {percent}% is not between 0 and 100")]
    InvalidCarveout {
        /// The percentage asked for.
        percent: u32,
    },

    /// No device of that name in [`crate::devices::DEVICES`].
    #[error("unknown device {name:?}; known devices: {known}")]
    UnknownDevice {
        /// The name asked for.
        name: String,
        /// The names that would have been accepted, comma-separated.
        known: String,
    },

    /// A compute capability that is not in the architecture table.
    #[error("unknown compute capability {compute_capability}; the table covers 1.0 to 12.1")]
    UnknownComputeCapability {
        /// The compute capability asked for.
        compute_capability: ComputeCapability,
    },

    /// Text that is not a compute capability.
    #[error("cannot read {text:?} as a compute capability (expected e.g. \"8.6\" or \"sm_86\")")]
    InvalidComputeCapability {
        /// The text given.
        text: String,
    },

    /// No block size from 1 to the limit can be launched at all.
    #[error(
        "no block size up to {block_size_limit} threads can run on compute capability {compute_capability}"
    )]
    NoLaunchableBlockSize {
        /// The largest block size tried.
        block_size_limit: u32,
        /// The architecture.
        compute_capability: ComputeCapability,
    },

    /// A speedup-model parameter outside its domain.
    #[error("model parameter {parameter}: {value} is outside its domain ({expected})")]
    InvalidModelInput {
        /// Which parameter.
        parameter: &'static str,
        /// Its value.
        value: f64,
        /// What the model needs.
        expected: &'static str,
    },
}
