//! The three graphs of NVIDIA's occupancy calculator spreadsheet (occupancy against block
//! size, registers per thread and shared memory per block) and the best-block-size search of
//! `cuOccupancyMaxPotentialBlockSize`.
//!
//! In a sweep a point that cannot launch (a block over the register or shared-memory limit)
//! is plotted at zero, as the spreadsheet does, instead of stopping the sweep.

use serde::{Deserialize, Serialize};

use crate::arch::ArchLimits;
use crate::calculator::{KernelResources, LaunchConfig, Limiter, calculate_occupancy};
use crate::error::OccupancyError;

/// One point of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The swept value: threads per block, registers per thread, or dynamic shared memory
    /// per block in bytes.
    pub value: u32,
    /// Resident blocks per SM (0 where the kernel cannot launch).
    pub active_blocks_per_sm: u32,
    /// Resident warps per SM.
    pub active_warps_per_sm: u32,
    /// Occupancy, 0 to 1.
    pub occupancy: f64,
    /// What limits it (empty where the kernel cannot launch).
    pub limited_by: Vec<Limiter>,
}

fn point(
    arch: &ArchLimits,
    value: u32,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> SweepPoint {
    match calculate_occupancy(arch, kernel, config) {
        Ok(result) => SweepPoint {
            value,
            active_blocks_per_sm: result.active_blocks_per_sm,
            active_warps_per_sm: result.active_warps_per_sm,
            occupancy: result.occupancy,
            limited_by: result.limited_by,
        },
        Err(_) => SweepPoint {
            value,
            active_blocks_per_sm: 0,
            active_warps_per_sm: 0,
            occupancy: 0.0,
            limited_by: Vec::new(),
        },
    }
}

/// A point per value of `values`, the kernel changed by `change(value)`.
fn sweep(
    arch: &ArchLimits,
    config: &LaunchConfig,
    values: impl Iterator<Item = u32>,
    change: impl Fn(u32) -> KernelResources,
) -> Vec<SweepPoint> {
    values.map(|v| point(arch, v, &change(v), config)).collect()
}

/// Occupancy for block sizes of one warp, two warps, ... up to `max_threads_per_block`,
/// with the kernel's registers and shared memory.
pub fn sweep_block_size(
    arch: &ArchLimits,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> Vec<SweepPoint> {
    let sizes =
        (1..=arch.max_threads_per_block / arch.warp_size).map(|warps| warps * arch.warp_size);
    sweep(arch, config, sizes, |threads| KernelResources {
        threads_per_block: threads,
        ..*kernel
    })
}

/// Occupancy for 1 to `max_registers_per_thread` registers per thread, with the kernel's
/// block size and shared memory.
pub fn sweep_registers(
    arch: &ArchLimits,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> Vec<SweepPoint> {
    sweep(
        arch,
        config,
        1..=arch.max_registers_per_thread,
        |registers| KernelResources {
            registers_per_thread: registers,
            ..*kernel
        },
    )
}

/// Occupancy for dynamic shared memory from 0 to the per-block limit (the opt-in limit if
/// `config` opts in) in steps of the allocation unit, with the kernel's block size, registers
/// and static shared memory.
pub fn sweep_shared_memory(
    arch: &ArchLimits,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> Vec<SweepPoint> {
    let cap = match config.max_dynamic_shared_memory {
        Some(max_dynamic) => max_dynamic,
        None => arch
            .shared_memory_per_block
            .saturating_sub(kernel.static_smem),
    };
    let step = arch.shared_memory_allocation_unit.max(1);
    sweep(
        arch,
        config,
        (0..=cap / step).map(|steps| steps * step),
        |dynamic| KernelResources {
            dynamic_smem: dynamic,
            ..*kernel
        },
    )
}

/// The block size giving the most resident threads per SM, as found by
/// [`max_potential_block_size`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockSizeSuggestion {
    /// Threads per block.
    pub block_size: u32,
    /// Resident blocks per SM at that size.
    pub active_blocks_per_sm: u32,
    /// Occupancy at that size.
    pub occupancy: f64,
    /// Blocks needed to fill every SM once (`blocks per SM × sm_count`).
    pub min_grid_size: u32,
}

/// The block size with the highest occupancy for a kernel whose dynamic shared memory may
/// depend on the block size, like `cuOccupancyMaxPotentialBlockSize` /
/// `cudaOccMaxPotentialOccupancyBlockSizeVariableSMem`.
///
/// The search is the header's: start at `min(max_threads_per_block, block_size_limit)`
/// rounded up to a warp, step down one warp at a time, keep a size only if it gives
/// *strictly* more resident threads than the best so far (so ties go to the larger block),
/// and stop once the SM is full. Sizes that cannot launch count as zero.
pub fn max_potential_block_size(
    arch: &ArchLimits,
    registers_per_thread: u32,
    static_smem: u32,
    dynamic_smem_for_block_size: impl Fn(u32) -> u32,
    block_size_limit: Option<u32>,
    config: &LaunchConfig,
    sm_count: u32,
) -> Result<BlockSizeSuggestion, OccupancyError> {
    let limit = block_size_limit.map_or(arch.max_threads_per_block, |limit| {
        limit.min(arch.max_threads_per_block)
    });
    let granularity = arch.warp_size;
    let limit_aligned = limit.div_ceil(granularity) * granularity;
    let mut best: Option<(u32, crate::Occupancy)> = None;
    let mut best_threads = 0;
    for aligned in (1..=limit_aligned / granularity)
        .rev()
        .map(|w| w * granularity)
    {
        let block_size = limit.min(aligned);
        let kernel = KernelResources {
            threads_per_block: block_size,
            registers_per_thread,
            static_smem,
            dynamic_smem: dynamic_smem_for_block_size(block_size),
        };
        if let Ok(result) = calculate_occupancy(arch, &kernel, config)
            && result.active_threads_per_sm > best_threads
        {
            best_threads = result.active_threads_per_sm;
            best = Some((block_size, result));
        }
        if best_threads >= arch.max_threads_per_sm {
            break;
        }
    }
    let (block_size, result) = best.ok_or(OccupancyError::NoLaunchableBlockSize {
        block_size_limit: limit,
        compute_capability: arch.compute_capability,
    })?;
    Ok(BlockSizeSuggestion {
        block_size,
        active_blocks_per_sm: result.active_blocks_per_sm,
        occupancy: result.occupancy,
        min_grid_size: result.active_blocks_per_sm.saturating_mul(sm_count),
    })
}
