//! The occupancy calculation for one kernel on one architecture, following
//! `cuda_occupancy.h` (`cudaOccMaxActiveBlocksPerMultiprocessor`), which matches the driver's
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor`, and the CUDA 7.0 header for cc 1.x / 2.x.
//!
//! The rule, in short: a block needs `ceil(threads / 32)` warps, registers rounded up to the
//! allocation unit and shared memory rounded up to its allocation unit; each resource of the
//! SM allows `floor(capacity / need)` blocks; the SM runs the smallest of those and of its
//! block cap. Counts are rounded *up*, capacities divided and *floored*.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::arch::{ArchLimits, RegisterAllocation, SharedMemoryPartition};
use crate::error::OccupancyError;

/// What a kernel launch asks of one SM: block size, registers and shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KernelResources {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Registers per thread, as reported by `ptxas -v` or `cudaFuncGetAttributes().numRegs`.
    pub registers_per_thread: u32,
    /// Statically declared (`__shared__`) shared memory per block, in bytes.
    pub static_smem: u32,
    /// Dynamic shared memory per block (the third launch parameter), in bytes.
    pub dynamic_smem: u32,
}

impl KernelResources {
    /// A kernel without shared memory.
    pub const fn new(threads_per_block: u32, registers_per_thread: u32) -> Self {
        Self {
            threads_per_block,
            registers_per_thread,
            static_smem: 0,
            dynamic_smem: 0,
        }
    }

    /// The same kernel with `bytes` of static shared memory.
    pub const fn with_static_smem(mut self, bytes: u32) -> Self {
        self.static_smem = bytes;
        self
    }

    /// The same kernel with `bytes` of dynamic shared memory.
    pub const fn with_dynamic_smem(mut self, bytes: u32) -> Self {
        self.dynamic_smem = bytes;
        self
    }

    /// Static plus dynamic shared memory, in bytes.
    pub const fn total_smem(&self) -> u64 {
        self.static_smem as u64 + self.dynamic_smem as u64
    }
}

/// The pre-Volta cache preference (`cudaFuncSetCacheConfig`), which on cc ≥ 7.0 maps to a
/// carve-out: `PreferL1` → 0 %, `PreferShared` → 100 %, `PreferEqual` → 50 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CachePreference {
    /// No preference: the full shared-memory size.
    #[default]
    None,
    /// Prefer shared memory.
    PreferShared,
    /// Prefer L1 cache (16 KB shared on Fermi and 48 KB Kepler parts).
    PreferL1,
    /// Equal split (Kepler: 32 KB shared on a 48 KB part; Fermi treats it as `PreferShared`).
    PreferEqual,
}

/// Launch settings that change occupancy besides the kernel's own resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LaunchConfig {
    /// Cache preference (used on cc ≥ 7.0 only when `carveout_percent` is `None`).
    pub cache_preference: CachePreference,
    /// `cudaFuncAttributePreferredSharedMemoryCarveout`, 0–100 % of the largest shared-memory
    /// size; rounded up to a legal size. Ignored before cc 7.0.
    pub carveout_percent: Option<u32>,
    /// `cudaFuncAttributeMaxDynamicSharedMemorySize`: opting in to more than 48 KB per block
    /// on cc ≥ 7.0. Dynamic shared memory above it cannot launch.
    pub max_dynamic_shared_memory: Option<u32>,
}

/// A resource that can limit how many blocks are resident on an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Warp slots per SM.
    Warps,
    /// The register file.
    Registers,
    /// Shared memory per SM.
    SharedMemory,
    /// The hardware cap on resident blocks per SM.
    Blocks,
}

impl Limiter {
    /// A lower-case name for tables and messages.
    pub const fn name(self) -> &'static str {
        match self {
            Limiter::Warps => "warps",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::Blocks => "blocks",
        }
    }
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Blocks per SM each resource alone would allow; `None` where the kernel does not use the
/// resource at all (0 registers, 0 shared memory before cc 8.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockLimits {
    /// `floor(max warps per SM / warps per block)`.
    pub warps: u32,
    /// Blocks whose registers fit the register file.
    pub registers: Option<u32>,
    /// Blocks whose shared memory fits the SM's shared memory.
    pub shared_memory: Option<u32>,
    /// The architecture's cap on resident blocks.
    pub blocks: u32,
}

impl BlockLimits {
    /// The limit of one resource (`u32::MAX` for an unused one).
    pub fn get(&self, limiter: Limiter) -> u32 {
        match limiter {
            Limiter::Warps => self.warps,
            Limiter::Registers => self.registers.unwrap_or(u32::MAX),
            Limiter::SharedMemory => self.shared_memory.unwrap_or(u32::MAX),
            Limiter::Blocks => self.blocks,
        }
    }
}

/// The theoretical occupancy of a kernel on an SM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Resident blocks per SM.
    pub active_blocks_per_sm: u32,
    /// Resident warps per SM (`blocks × warps per block`).
    pub active_warps_per_sm: u32,
    /// Resident threads per SM (`blocks × threads per block`).
    pub active_threads_per_sm: u32,
    /// Active warps over the SM's maximum, 0 to 1.
    pub occupancy: f64,
    /// Every resource whose limit equals the active block count.
    pub limited_by: Vec<Limiter>,
    /// Blocks per SM each resource alone allows.
    pub block_limits: BlockLimits,
    /// Warps in one block (`ceil(threads / warp size)`).
    pub warps_per_block: u32,
    /// The architecture's maximum warps per SM (the denominator of `occupancy`).
    pub max_warps_per_sm: u32,
    /// Registers allocated to one block after rounding to the allocation unit.
    pub allocated_registers_per_block: u64,
    /// Shared memory allocated to one block after adding the reserved bytes and rounding to
    /// the allocation unit.
    pub allocated_smem_per_block: u64,
    /// Shared memory the SM is configured with for this launch (after the carve-out or cache
    /// preference).
    pub smem_per_sm: u64,
}

const fn round_up(value: u64, unit: u64) -> u64 {
    if unit == 0 {
        value
    } else {
        value.div_ceil(unit) * unit
    }
}

/// Blocks per SM allowed by the register file, and the registers allocated per block.
fn register_limit(
    arch: &ArchLimits,
    registers_per_thread: u32,
    warps_per_block: u32,
    sub_partitions: u32,
) -> Result<(Option<u32>, u64), OccupancyError> {
    let cc = arch.compute_capability;
    if registers_per_thread > arch.max_registers_per_thread {
        return Err(OccupancyError::TooManyRegistersPerThread {
            registers: registers_per_thread,
            max: arch.max_registers_per_thread,
            compute_capability: cc,
        });
    }
    let too_many = |registers: u64| OccupancyError::TooManyRegistersPerBlock {
        registers,
        max: arch.max_registers_per_block,
        compute_capability: cc,
    };
    let unit = u64::from(arch.register_unit_for(registers_per_thread));
    let registers_per_thread = u64::from(registers_per_thread);
    let warp_size = u64::from(arch.warp_size);
    let warps = u64::from(warps_per_block);
    match arch.register_allocation {
        RegisterAllocation::PerBlock => {
            let warps_allocated = round_up(warps, u64::from(arch.warp_allocation_granularity));
            let per_block = round_up(warps_allocated * warp_size * registers_per_thread, unit);
            if per_block > u64::from(arch.max_registers_per_block) {
                return Err(too_many(per_block));
            }
            if per_block == 0 {
                return Ok((None, 0));
            }
            let limit = u64::from(arch.registers_per_sm) / per_block;
            Ok((Some(limit as u32), per_block))
        }
        RegisterAllocation::PerWarp => {
            let per_warp = round_up(registers_per_thread * warp_size, unit);
            let allocated = per_warp * warps;
            // The hardware check assumes every sub-partition receives the block's warps at
            // once, so the warp count is rounded up to the sub-partitions (H1).
            let assumed = per_warp * round_up(warps, u64::from(sub_partitions));
            if assumed > u64::from(arch.max_registers_per_block)
                || allocated > u64::from(arch.max_registers_per_block)
            {
                return Err(too_many(assumed.max(allocated)));
            }
            if per_warp == 0 {
                return Ok((None, 0));
            }
            let per_sub_partition = u64::from(arch.registers_per_sm / sub_partitions);
            let warps_that_fit = per_sub_partition / per_warp * u64::from(sub_partitions);
            let limit = warps_that_fit / warps;
            if limit == 0 {
                return Err(too_many(assumed));
            }
            Ok((Some(limit as u32), allocated))
        }
    }
}

/// Shared memory per SM chosen by the cache preference or carve-out, before looking at the
/// kernel (H1 `cudaOccSMemPerMultiprocessor`).
fn preferred_smem_per_sm(arch: &ArchLimits, config: &LaunchConfig) -> Result<u64, OccupancyError> {
    if let Some(percent) = config.carveout_percent
        && percent > 100
    {
        return Err(OccupancyError::InvalidCarveout { percent });
    }
    let full = u64::from(arch.shared_memory_per_sm);
    const MIN_L1: u64 = 16 * 1024;
    const MAX_L1: u64 = 48 * 1024;
    Ok(match arch.shared_memory_partition {
        SharedMemoryPartition::Fixed => full,
        SharedMemoryPartition::FermiCacheConfig => match config.cache_preference {
            CachePreference::PreferL1 => full + MIN_L1 - MAX_L1,
            _ => full,
        },
        SharedMemoryPartition::KeplerCacheConfig => {
            let low = full + MIN_L1 - MAX_L1;
            match config.cache_preference {
                CachePreference::PreferL1 => low,
                CachePreference::PreferEqual => (full + low) / 2,
                CachePreference::None | CachePreference::PreferShared => full,
            }
        }
        SharedMemoryPartition::Carveout => {
            let percent = config.carveout_percent.or(match config.cache_preference {
                CachePreference::None => None,
                CachePreference::PreferL1 => Some(0),
                CachePreference::PreferShared => Some(100),
                CachePreference::PreferEqual => Some(50),
            });
            let wanted = percent.map_or(full, |p| u64::from(p) * full / 100);
            smallest_carveout_at_least(arch, wanted).unwrap_or(full)
        }
    })
}

fn smallest_carveout_at_least(arch: &ArchLimits, bytes: u64) -> Option<u64> {
    arch.shared_memory_carveouts
        .iter()
        .map(|&size| u64::from(size))
        .find(|&size| size >= bytes)
}

struct SharedMemoryOutcome {
    limit: Option<u32>,
    allocated: u64,
    smem_per_sm: u64,
}

/// Blocks per SM allowed by shared memory (H1 `cudaOccMaxBlocksPerSMSmemLimit`).
fn shared_memory_limit(
    arch: &ArchLimits,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> Result<SharedMemoryOutcome, OccupancyError> {
    let cc = arch.compute_capability;
    let reserved = u64::from(arch.reserved_shared_memory_per_block);
    if let Some(max_dynamic) = config.max_dynamic_shared_memory {
        if kernel.dynamic_smem > max_dynamic {
            return Err(OccupancyError::DynamicSharedMemoryAboveMaximum {
                bytes: kernel.dynamic_smem,
                max: max_dynamic,
            });
        }
        if u64::from(kernel.static_smem) + u64::from(max_dynamic)
            > u64::from(arch.shared_memory_per_block_opt_in)
        {
            return Err(OccupancyError::OptInAboveLimit {
                bytes: max_dynamic,
                static_bytes: kernel.static_smem,
                max: arch.shared_memory_per_block_opt_in,
                compute_capability: cc,
            });
        }
    }
    let unit = u64::from(arch.shared_memory_allocation_unit);
    let allocated = round_up(kernel.total_smem() + reserved, unit);

    let opted_in = config.max_dynamic_shared_memory.is_some_and(|max_dynamic| {
        cc.major >= 7
            && u64::from(kernel.static_smem) + reserved + u64::from(max_dynamic)
                > u64::from(arch.shared_memory_per_block)
    });
    let per_block_cap = if opted_in {
        arch.shared_memory_per_block_opt_in
    } else {
        arch.shared_memory_per_block
    };
    let cap = u64::from(per_block_cap) + reserved;
    if allocated > cap {
        let could_opt_in = !opted_in
            && cc.major >= 7
            && allocated <= u64::from(arch.shared_memory_per_block_opt_in) + reserved;
        return Err(OccupancyError::TooMuchSharedMemory {
            bytes: allocated,
            max: cap,
            compute_capability: cc,
            hint: if could_opt_in {
                "; opt in with a maximum dynamic shared memory (cudaFuncAttributeMaxDynamicSharedMemorySize)"
            } else {
                ""
            },
        });
    }

    let preferred = preferred_smem_per_sm(arch, config)?;
    // A preference smaller than one block is overridden: Volta and later take the smallest
    // carve-out that fits the block, older parts their full size (H1).
    let smem_per_sm = if preferred >= allocated {
        preferred
    } else if arch.shared_memory_partition == SharedMemoryPartition::Carveout {
        smallest_carveout_at_least(arch, allocated).unwrap_or(u64::from(arch.shared_memory_per_sm))
    } else {
        u64::from(arch.shared_memory_per_sm)
    };
    let limit = (allocated > 0).then(|| (smem_per_sm / allocated).min(u64::from(u32::MAX)) as u32);
    Ok(SharedMemoryOutcome {
        limit,
        allocated,
        smem_per_sm,
    })
}

/// The occupancy of `kernel` on one SM of architecture `arch`.
///
/// Input no GPU could launch is an error naming the broken limit: 0 threads, more threads
/// than `max_threads_per_block`, more registers per thread or per block than the architecture
/// has, more shared memory than a block may use.
///
/// ```
/// use reconverge_occupancy::{ComputeCapability, KernelResources, LaunchConfig, Limiter, calculate_occupancy};
///
/// // H100 (cc 9.0), 256 threads, 32 registers: 8 blocks, 64 of 64 warps.
/// let h100 = ComputeCapability::new(9, 0).limits()?;
/// let result = calculate_occupancy(h100, &KernelResources::new(256, 32), &LaunchConfig::default())?;
/// assert_eq!(result.active_blocks_per_sm, 8);
/// assert_eq!(result.occupancy, 1.0);
/// assert_eq!(result.limited_by, vec![Limiter::Warps, Limiter::Registers]);
/// # Ok::<(), reconverge_occupancy::OccupancyError>(())
/// ```
pub fn calculate_occupancy(
    arch: &ArchLimits,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> Result<Occupancy, OccupancyError> {
    let cc = arch.compute_capability;
    let threads = kernel.threads_per_block;
    if threads == 0 {
        return Err(OccupancyError::ZeroThreads);
    }
    if threads > arch.max_threads_per_block {
        return Err(OccupancyError::TooManyThreads {
            threads,
            max: arch.max_threads_per_block,
            compute_capability: cc,
        });
    }
    let warps_per_block = threads.div_ceil(arch.warp_size);
    // cc 1.x hands out warps in pairs (H0 `cudaOccWarpAllocationGranularity`).
    let warps_allocated = round_up(
        u64::from(warps_per_block),
        u64::from(arch.warp_allocation_granularity),
    ) as u32;
    let warp_limit = arch.max_warps_per_sm / warps_allocated;

    let (register_limit_blocks, allocated_registers_per_block) = register_limit(
        arch,
        kernel.registers_per_thread,
        warps_per_block,
        arch.register_sub_partitions,
    )?;
    // GP100 (2 sub-partitions) refuses what a GP10x (4) could not run, so that a binary that
    // runs on one Pascal runs on all (H1).
    if cc.major == 6 && cc.minor == 0 {
        register_limit(arch, kernel.registers_per_thread, warps_per_block, 4)?;
    }

    let smem = shared_memory_limit(arch, kernel, config)?;

    let block_limits = BlockLimits {
        warps: warp_limit,
        registers: register_limit_blocks,
        shared_memory: smem.limit,
        blocks: arch.max_blocks_per_sm,
    };
    let all = [
        Limiter::Warps,
        Limiter::Registers,
        Limiter::SharedMemory,
        Limiter::Blocks,
    ];
    let active_blocks_per_sm = all
        .iter()
        .map(|&limiter| block_limits.get(limiter))
        .min()
        .unwrap_or(0);
    let limited_by = all
        .into_iter()
        .filter(|&limiter| block_limits.get(limiter) == active_blocks_per_sm)
        .collect();
    let active_warps_per_sm = active_blocks_per_sm * warps_per_block;
    Ok(Occupancy {
        active_blocks_per_sm,
        active_warps_per_sm,
        active_threads_per_sm: active_blocks_per_sm * threads,
        occupancy: f64::from(active_warps_per_sm) / f64::from(arch.max_warps_per_sm),
        limited_by,
        block_limits,
        warps_per_block,
        max_warps_per_sm: arch.max_warps_per_sm,
        allocated_registers_per_block,
        allocated_smem_per_block: smem.allocated,
        smem_per_sm: smem.smem_per_sm,
    })
}

/// How far one limiting resource must move for its own limit to allow one more block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NextStep {
    /// The limiting resource.
    pub resource: Limiter,
    /// The current value of what is changed: registers per thread, shared memory per block
    /// (static + dynamic bytes), or threads per block (for warps and blocks).
    pub from: u32,
    /// The value that lifts it, if any change of that one input does.
    pub to: Option<u32>,
    /// Blocks per SM with that change (other limits may still hold it down).
    pub active_blocks_per_sm: u32,
    /// Occupancy with that change.
    pub occupancy: f64,
    /// What limits the changed kernel.
    pub limited_by: Vec<Limiter>,
}

impl fmt::Display for NextStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unit, lever) = match self.resource {
            Limiter::Registers => ("per thread", "registers per thread"),
            Limiter::SharedMemory => ("bytes per block", "shared memory per block"),
            Limiter::Warps | Limiter::Blocks => ("threads per block", "block size"),
        };
        let Some(to) = self.to else {
            return write!(f, "{}: no change of {lever} alone lifts it", self.resource);
        };
        write!(
            f,
            "{}: {} -> {} {unit} gives {} blocks ({:.1}%)",
            self.resource,
            self.from,
            to,
            self.active_blocks_per_sm,
            self.occupancy * 100.0
        )?;
        let others: Vec<&str> = self
            .limited_by
            .iter()
            .filter(|&&limiter| limiter != self.resource)
            .map(|limiter| limiter.name())
            .collect();
        if !others.is_empty() {
            write!(f, ", then limited by {}", others.join(", "))?;
        }
        Ok(())
    }
}

/// For every resource in `current.limited_by`, the smallest change that lifts it: the most
/// registers per thread, or the most shared memory per block, at which that resource allows
/// one more block; for the warp slots and the block cap, which no smaller allocation lifts,
/// the nearest block size with a higher occupancy. Each change is tried alone with
/// [`calculate_occupancy`], so the reported result includes the other limits. Empty at 100 %.
pub fn next_steps(
    arch: &ArchLimits,
    kernel: &KernelResources,
    config: &LaunchConfig,
    current: &Occupancy,
) -> Vec<NextStep> {
    if current.occupancy >= 1.0 {
        return Vec::new();
    }
    let target = current.active_blocks_per_sm;
    let try_kernel = |resource: Limiter, from: u32, to: u32, changed: KernelResources| {
        let result = calculate_occupancy(arch, &changed, config).ok()?;
        (result.block_limits.get(resource) > target).then_some(NextStep {
            resource,
            from,
            to: Some(to),
            active_blocks_per_sm: result.active_blocks_per_sm,
            occupancy: result.occupancy,
            limited_by: result.limited_by,
        })
    };
    let unreachable = |resource: Limiter, from: u32| NextStep {
        resource,
        from,
        to: None,
        active_blocks_per_sm: target,
        occupancy: current.occupancy,
        limited_by: current.limited_by.clone(),
    };
    current
        .limited_by
        .iter()
        .map(|&resource| match resource {
            Limiter::Registers => {
                let from = kernel.registers_per_thread;
                (0..from)
                    .rev()
                    .find_map(|registers| {
                        let changed = KernelResources {
                            registers_per_thread: registers,
                            ..*kernel
                        };
                        try_kernel(resource, from, registers, changed)
                    })
                    .unwrap_or_else(|| unreachable(resource, from))
            }
            Limiter::SharedMemory => {
                let from = kernel.total_smem().min(u64::from(u32::MAX)) as u32;
                let unit = arch.shared_memory_allocation_unit;
                let reserved = arch.reserved_shared_memory_per_block;
                // Only allocation-unit boundaries change the allocation; walk them down.
                let allocated = current.allocated_smem_per_block.min(u64::from(u32::MAX)) as u32;
                (0..allocated / unit)
                    .rev()
                    .filter_map(|units| (units * unit).checked_sub(reserved))
                    .find_map(|total| {
                        let cut = from.saturating_sub(total);
                        let dynamic_cut = cut.min(kernel.dynamic_smem);
                        let changed = KernelResources {
                            dynamic_smem: kernel.dynamic_smem - dynamic_cut,
                            static_smem: kernel.static_smem.saturating_sub(cut - dynamic_cut),
                            ..*kernel
                        };
                        try_kernel(resource, from, total.min(from), changed)
                    })
                    .unwrap_or_else(|| unreachable(resource, from))
            }
            // Warp slots and the block cap are lifted by a different block size, not by a
            // smaller resource: take the nearest size (in warps) with a higher occupancy.
            Limiter::Warps | Limiter::Blocks => {
                let from = kernel.threads_per_block;
                let warp = arch.warp_size;
                let current_warps = current.warps_per_block;
                let mut sizes: Vec<u32> = (1..=arch.max_threads_per_block / warp).collect();
                sizes.sort_by_key(|&warps| {
                    (warps.abs_diff(current_warps), std::cmp::Reverse(warps))
                });
                sizes
                    .into_iter()
                    .find_map(|warps| {
                        let threads = warps * warp;
                        let changed = KernelResources {
                            threads_per_block: threads,
                            ..*kernel
                        };
                        let result = calculate_occupancy(arch, &changed, config).ok()?;
                        (result.occupancy > current.occupancy).then_some(NextStep {
                            resource,
                            from,
                            to: Some(threads),
                            active_blocks_per_sm: result.active_blocks_per_sm,
                            occupancy: result.occupancy,
                            limited_by: result.limited_by,
                        })
                    })
                    .unwrap_or_else(|| unreachable(resource, from))
            }
        })
        .collect()
}
