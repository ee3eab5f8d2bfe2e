//! Occupancy against NVIDIA's published rules. Every expected value is derived by hand in
//! the comment above it from the rules in `cuda_occupancy.h` (H1), the CUDA 7.0 header (H0,
//! cc 1.x/2.x), the Best Practices Guide (BP) or the seed paper; none was produced by running
//! this crate.

use reconverge_occupancy::{
    CachePreference, ComputeCapability, KernelResources, LaunchConfig, Limiter, Occupancy,
    OccupancyError, calculate_occupancy,
};

fn occupancy_on(
    major: u32,
    minor: u32,
    kernel: KernelResources,
    config: LaunchConfig,
) -> Occupancy {
    let arch = ComputeCapability::new(major, minor)
        .limits()
        .expect("cc in table");
    calculate_occupancy(arch, &kernel, &config).expect("kernel launches")
}

fn occ(major: u32, minor: u32, kernel: KernelResources) -> Occupancy {
    occupancy_on(major, minor, kernel, LaunchConfig::default())
}

/// Resident blocks per SM with the default launch configuration.
fn blocks(major: u32, minor: u32, kernel: KernelResources) -> u32 {
    occ(major, minor, kernel).active_blocks_per_sm
}

/// The default launch configuration with the cache preference `cache_preference`.
fn preferring(cache_preference: CachePreference) -> LaunchConfig {
    LaunchConfig {
        cache_preference,
        ..LaunchConfig::default()
    }
}

/// The default launch configuration asking for a shared-memory carve-out of `percent` %.
fn carveout(percent: u32) -> LaunchConfig {
    LaunchConfig {
        carveout_percent: Some(percent),
        ..LaunchConfig::default()
    }
}

/// The default launch configuration opting in to `bytes` of dynamic shared memory.
fn opting_in(bytes: u32) -> LaunchConfig {
    LaunchConfig {
        max_dynamic_shared_memory: Some(bytes),
        ..LaunchConfig::default()
    }
}

fn error_on(
    major: u32,
    minor: u32,
    kernel: KernelResources,
    config: LaunchConfig,
) -> OccupancyError {
    let arch = ComputeCapability::new(major, minor)
        .limits()
        .expect("cc in table");
    calculate_occupancy(arch, &kernel, &config).expect_err("kernel must not launch")
}

// ---- Seed 001 (Carrillo, Siegel & Li), G80 = cc 1.0 -----------------------------------

/// 256 threads = 8 warps; 13 regs: 8·32·13 = 3328 regs per block (a multiple of the
/// 256-register unit); 8192 / 3328 = 2 blocks → 16 of 24 warps = 2/3 ("67%").
#[test]
fn seed_g80_13_registers_gives_67_percent() {
    let result = occ(1, 0, KernelResources::new(256, 13));
    assert_eq!(result.active_blocks_per_sm, 2);
    assert_eq!(result.active_warps_per_sm, 16);
    assert!((result.occupancy - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(result.limited_by, vec![Limiter::Registers]);
    assert_eq!(result.allocated_registers_per_block, 3328);
}

/// 6 regs: 8·32·6 = 1536 per block; 8192 / 1536 = 5 blocks, but 24 warps / 8 = 3 blocks:
/// 24 of 24 warps = 100 %, limited by warps.
#[test]
fn seed_g80_6_registers_gives_100_percent() {
    let result = occ(1, 0, KernelResources::new(256, 6));
    assert_eq!(result.active_blocks_per_sm, 3);
    assert_eq!(result.occupancy, 1.0);
    assert_eq!(result.limited_by, vec![Limiter::Warps]);
}

/// "the compiler should not assign more than about 10 registers per thread": 10 regs →
/// 2560 per block, 8192 / 2560 = 3 blocks (100 %); 11 regs → 2816, 8192 / 2816 = 2 (67 %).
/// Above 32 regs a 256-thread block no longer fits the 8 K register file at all.
#[test]
fn seed_g80_full_occupancy_needs_at_most_10_registers() {
    let g80 = ComputeCapability::new(1, 0).limits().expect("cc 1.0");
    let largest_full = (1..=124)
        .filter(|&regs| {
            calculate_occupancy(
                g80,
                &KernelResources::new(256, regs),
                &LaunchConfig::default(),
            )
            .is_ok_and(|result| result.occupancy == 1.0)
        })
        .max();
    assert_eq!(largest_full, Some(10));
    assert_eq!(blocks(1, 0, KernelResources::new(256, 11)), 2);
}

// ---- cc 1.x: warp pairs and per-block register units ----------------------------------

/// H0 allocates warps in pairs on 1.x: 96 threads = 3 warps → 4 allocated; warp limit
/// 24 / 4 = 6 blocks; registers 4·32·4 = 512 per block → 16 blocks; cap 8. 6 blocks ×
/// 3 warps = 18 of 24 = 75 % (the notes' H0 answer; without pairs it would be 8 blocks).
#[test]
fn tesla_allocates_warps_in_pairs() {
    let result = occ(1, 0, KernelResources::new(96, 4));
    assert_eq!(result.active_blocks_per_sm, 6);
    assert_eq!(result.active_warps_per_sm, 18);
    assert_eq!(result.occupancy, 0.75);
    assert_eq!(result.limited_by, vec![Limiter::Warps]);
}

/// GT200 (1.3) allocates registers per block in units of 512: 128 threads, 17 regs →
/// 4·32·17 = 2176 → 2560; 16384 / 2560 = 6 blocks (24 of 32 warps, 75 %). With G80's
/// 256-register unit it would be 2304 → 7 blocks.
#[test]
fn gt200_rounds_block_registers_to_512() {
    let result = occ(1, 3, KernelResources::new(128, 17));
    assert_eq!(result.allocated_registers_per_block, 2560);
    assert_eq!(result.active_blocks_per_sm, 6);
    assert_eq!(result.occupancy, 0.75);
    assert_eq!(result.limited_by, vec![Limiter::Registers]);
}

/// 1.x shared memory: 16 KB per SM in 512-byte units. 64 threads, 0 regs, 2049 B → 2560;
/// 16384 / 2560 = 6 blocks (12 of 24 warps); 2048 B → 8 blocks (the cap, 16 warps).
#[test]
fn tesla_rounds_shared_memory_to_512_bytes() {
    let rounded = occ(1, 0, KernelResources::new(64, 0).with_static_smem(2049));
    assert_eq!(rounded.allocated_smem_per_block, 2560);
    assert_eq!(rounded.active_blocks_per_sm, 6);
    assert_eq!(rounded.limited_by, vec![Limiter::SharedMemory]);
    let exact = occ(1, 0, KernelResources::new(64, 0).with_static_smem(2048));
    assert_eq!(exact.active_blocks_per_sm, 8);
    assert_eq!(
        exact.limited_by,
        vec![Limiter::SharedMemory, Limiter::Blocks]
    );
}

// ---- Fermi ------------------------------------------------------------------------------

/// Fermi rounds 21 regs/thread to a 128-register unit per warp (H0): 32·21 = 672 → 768.
/// Per sub-partition 32768 / 2 = 16384 → 21 warps, × 2 = 42 warps; 352 threads = 11 warps
/// → 3 blocks (33 of 48 warps). 20 regs: 640 (a multiple of 64) → 25 warps per half, 50
/// per SM → 4 blocks, and the warp limit 48 / 11 = 4 as well.
#[test]
fn fermi_uses_128_register_unit_for_21_registers() {
    let quirk = occ(2, 0, KernelResources::new(352, 21));
    assert_eq!(quirk.allocated_registers_per_block, 768 * 11);
    assert_eq!(quirk.active_blocks_per_sm, 3);
    assert_eq!(quirk.active_warps_per_sm, 33);
    assert_eq!(quirk.limited_by, vec![Limiter::Registers]);
    let plain = occ(2, 0, KernelResources::new(352, 20));
    assert_eq!(plain.active_blocks_per_sm, 4);
    assert_eq!(plain.limited_by, vec![Limiter::Warps, Limiter::Registers]);
}

/// Fermi caps registers per thread at 63.
#[test]
fn fermi_rejects_64_registers() {
    let error = error_on(2, 0, KernelResources::new(32, 64), LaunchConfig::default());
    assert!(matches!(
        error,
        OccupancyError::TooManyRegistersPerThread {
            registers: 64,
            max: 63,
            ..
        }
    ));
}

/// Fermi PreferL1: 16 KB shared. 128 threads, 8 KB + 0 → 8192 (128-byte unit): 2 blocks
/// with PreferL1, 6 with the default 48 KB (warp limit 12, cap 8).
#[test]
fn fermi_prefer_l1_leaves_16_kb() {
    let kernel = KernelResources::new(128, 0).with_dynamic_smem(8192);
    let l1 = preferring(CachePreference::PreferL1);
    assert_eq!(occupancy_on(2, 0, kernel, l1).active_blocks_per_sm, 2);
    assert_eq!(blocks(2, 0, kernel), 6);
}

// ---- Kepler / Maxwell / Pascal ----------------------------------------------------------

/// Shared memory unit 256 on 3.5: 64 threads (2 warps), 32 regs (1024 per warp → 16 per
/// sub-partition → 64 warps → 32 blocks), 4097 B → 4352; 49152 / 4352 = 11 blocks.
/// 4096 B → 12 blocks.
#[test]
fn kepler_rounds_shared_memory_to_256_bytes() {
    let result = occ(3, 5, KernelResources::new(64, 32).with_static_smem(4097));
    assert_eq!(result.allocated_smem_per_block, 4352);
    assert_eq!(result.active_blocks_per_sm, 11);
    assert_eq!(result.limited_by, vec![Limiter::SharedMemory]);
    assert_eq!(
        blocks(3, 5, KernelResources::new(64, 32).with_static_smem(4096)),
        12
    );
}

/// Block cap: 3.5 allows 16 blocks; 64 threads, 16 regs (512 per warp → 32 warps per
/// sub-partition → 64 blocks by registers), warp limit 32 → 16 blocks × 2 warps = 50 %.
#[test]
fn kepler_block_cap_of_16() {
    let result = occ(3, 5, KernelResources::new(64, 16));
    assert_eq!(result.active_blocks_per_sm, 16);
    assert_eq!(result.occupancy, 0.5);
    assert_eq!(result.limited_by, vec![Limiter::Blocks]);
}

/// Kepler PreferEqual: 48 + 16 − 48 = 16 KB low, (48 + 16) / 2 = 32 KB. 128 threads,
/// 10 KB → 10240; 32768 / 10240 = 3 blocks.
#[test]
fn kepler_prefer_equal_gives_32_kb() {
    let config = preferring(CachePreference::PreferEqual);
    let result = occupancy_on(
        3,
        0,
        KernelResources::new(128, 0).with_static_smem(10240),
        config,
    );
    assert_eq!(result.smem_per_sm, 32768);
    assert_eq!(result.active_blocks_per_sm, 3);
}

/// Maxwell 5.2: 96 KB per SM, 32 blocks. 256 threads, 0 regs, 20 KB → 96 KB / 20 KB = 4
/// blocks → 32 of 64 warps.
#[test]
fn maxwell_96_kb_shared_memory() {
    let result = occ(
        5,
        2,
        KernelResources::new(256, 0).with_static_smem(20 * 1024),
    );
    assert_eq!(result.active_blocks_per_sm, 4);
    assert_eq!(result.occupancy, 0.5);
}

/// GP100 (6.0) has two register sub-partitions: 192 threads (6 warps), 80 regs: 2560 per
/// warp; 32768 / 2560 = 12 warps per half → 24 → 4 blocks. GP10x (6.1, 4 sub-partitions):
/// 16384 / 2560 = 6 → 24 → 4 as well; at 96 regs (3072 per warp) 6.0 gives 10·2 = 20 warps
/// → 3 blocks and 6.1 gives 5·4 = 20 → 3.
#[test]
fn pascal_sub_partitions() {
    assert_eq!(blocks(6, 0, KernelResources::new(192, 80)), 4);
    assert_eq!(blocks(6, 1, KernelResources::new(192, 80)), 4);
    assert_eq!(blocks(6, 0, KernelResources::new(192, 96)), 3);
}

/// Hardware register check (H1): warps rounded up to the sub-partitions. 3.2 holds 32 K
/// registers per block; 992 threads = 31 warps, 32 regs → 1024 per warp; 31 warps need
/// 31 744, but rounded to 32 warps 32 768 ≤ 32 768 fits; 33 regs → 1280 per warp, 32·1280
/// = 40 960 > 32 768 fails. (The SM itself has 64 K: 16 warps per sub-partition → 64 warps
/// → 2 blocks of 31 warps, as does the warp limit 64 / 31.)
#[test]
fn register_block_limit_counts_sub_partitions() {
    assert_eq!(blocks(3, 2, KernelResources::new(992, 32)), 2);
    let error = error_on(3, 2, KernelResources::new(992, 33), LaunchConfig::default());
    assert!(matches!(
        error,
        OccupancyError::TooManyRegistersPerBlock {
            registers: 40960,
            max: 32768,
            ..
        }
    ));
}

// ---- Volta / Turing ---------------------------------------------------------------------

/// BP "Calculating Occupancy": cc 7.0, 37 regs → 32·37 = 1184 → 1280 per warp (40 regs a
/// thread); 16384 / 1280 = 12 warps per sub-partition → 48 per SM. 128-thread blocks: 12
/// blocks, 75 %; 320-thread blocks (10 warps): 4 blocks, 40 / 64 = 62.5 % ("63%").
#[test]
fn best_practices_guide_volta_37_registers() {
    let small = occ(7, 0, KernelResources::new(128, 37));
    assert_eq!(small.allocated_registers_per_block, 1280 * 4);
    assert_eq!(small.active_blocks_per_sm, 12);
    assert_eq!(small.occupancy, 0.75);
    let large = occ(7, 0, KernelResources::new(320, 37));
    assert_eq!(large.active_blocks_per_sm, 4);
    assert_eq!(large.occupancy, 0.625);
    assert_eq!(large.limited_by, vec![Limiter::Registers]);
}

/// Volta carve-out: 25 % of 96 KB = 24 KB → rounded up to 32 KB. 128 threads, 10 KB →
/// 10240 (256-byte unit); 32768 / 10240 = 3 blocks. Default: 96 KB → 9 blocks.
#[test]
fn volta_carveout_rounds_up() {
    let kernel = KernelResources::new(128, 0).with_static_smem(10240);
    let config = carveout(25);
    let result = occupancy_on(7, 0, kernel, config);
    assert_eq!(result.smem_per_sm, 32 * 1024);
    assert_eq!(result.active_blocks_per_sm, 3);
    assert_eq!(blocks(7, 0, kernel), 9);
}

/// Turing: 32 warps and 16 blocks per SM. 1024 threads → 1 block, 100 %; 32 threads →
/// 16 blocks (cap) = 16 of 32 warps.
#[test]
fn turing_limits() {
    assert_eq!(occ(7, 5, KernelResources::new(1024, 32)).occupancy, 1.0);
    let tiny = occ(7, 5, KernelResources::new(32, 32));
    assert_eq!(tiny.active_blocks_per_sm, 16);
    assert_eq!(tiny.occupancy, 0.5);
    assert_eq!(tiny.limited_by, vec![Limiter::Blocks]);
}

/// Opting in on Volta: 64 KB dynamic needs the opt-in (48 KB default cap).
#[test]
fn volta_needs_opt_in_above_48_kb() {
    let kernel = KernelResources::new(128, 0).with_dynamic_smem(64 * 1024);
    let error = error_on(7, 0, kernel, LaunchConfig::default());
    assert!(matches!(
        error,
        OccupancyError::TooMuchSharedMemory {
            bytes: 65536,
            max: 49152,
            ..
        }
    ));
    let opted = opting_in(64 * 1024);
    // 96 KB / 64 KB = 1 block.
    assert_eq!(occupancy_on(7, 0, kernel, opted).active_blocks_per_sm, 1);
}

// ---- Ampere / Ada: 1 KB reserved, 128-byte unit -----------------------------------------

/// cc 8.6, 256 threads, 16 KB: 16384 + 1024 reserved = 17408; 102400 / 17408 = 5 blocks
/// (the notes' header answer; without the reservation 6).
#[test]
fn ampere_reserves_1_kb_per_block() {
    let result = occ(
        8,
        6,
        KernelResources::new(256, 0).with_dynamic_smem(16 * 1024),
    );
    assert_eq!(result.allocated_smem_per_block, 17408);
    assert_eq!(result.active_blocks_per_sm, 5);
    assert_eq!(result.limited_by, vec![Limiter::SharedMemory]);
}

/// The reservation is charged even without shared memory: A100, 32 threads, 0 B → 1024 B
/// per block; 167936 / 1024 = 164 blocks, so the 32-block cap limits (32 of 64 warps).
#[test]
fn ampere_reserved_memory_without_shared_memory() {
    let result = occ(8, 0, KernelResources::new(32, 16));
    assert_eq!(result.allocated_smem_per_block, 1024);
    assert_eq!(result.block_limits.shared_memory, Some(164));
    assert_eq!(result.active_blocks_per_sm, 32);
    assert_eq!(result.occupancy, 0.5);
}

/// 128-byte unit on 8.x: 8.9, 64 threads, 1 B → 1 + 1024 = 1025 → 1152; 102400 / 1152 =
/// 88 blocks by shared memory, cap 24 → 24 blocks × 2 warps = 48 of 48 warps.
#[test]
fn ada_rounds_to_128_bytes_and_caps_24_blocks() {
    let result = occ(8, 9, KernelResources::new(64, 0).with_static_smem(1));
    assert_eq!(result.allocated_smem_per_block, 1152);
    assert_eq!(result.block_limits.shared_memory, Some(88));
    assert_eq!(result.active_blocks_per_sm, 24);
    assert_eq!(result.occupancy, 1.0);
    assert_eq!(result.limited_by, vec![Limiter::Warps, Limiter::Blocks]);
}

// ---- Hopper (driver answers on an H100) ------------------------------------------------

/// 256 threads, 32 regs: 1024 regs per warp → 16 warps per sub-partition → 64 warps → 8
/// blocks; warp limit 64 / 8 = 8; shared memory 228 KB / 1 KB = 228; cap 32. 8 blocks, 100 %.
#[test]
fn hopper_256_threads_32_registers() {
    let result = occ(9, 0, KernelResources::new(256, 32));
    assert_eq!(result.active_blocks_per_sm, 8);
    assert_eq!(result.occupancy, 1.0);
    assert_eq!(result.limited_by, vec![Limiter::Warps, Limiter::Registers]);
    assert_eq!(result.block_limits.shared_memory, Some(228));
}

/// 256 threads, 40 regs, 12288 B: 1280 per warp → 12 warps per sub-partition → 48 → 6
/// blocks (75 %); smem 12288 + 1024 = 13312, 233472 / 13312 = 17.
#[test]
fn hopper_register_limited() {
    let result = occ(9, 0, KernelResources::new(256, 40).with_dynamic_smem(12288));
    assert_eq!(result.active_blocks_per_sm, 6);
    assert_eq!(result.occupancy, 0.75);
    assert_eq!(result.limited_by, vec![Limiter::Registers]);
    assert_eq!(result.block_limits.shared_memory, Some(17));
    assert_eq!(result.block_limits.warps, 8);
}

/// 128 threads, 32 regs, 40 000 B static: 41024 → 41088 (128-byte unit); 233472 / 41088 =
/// 5 blocks → 20 of 64 warps. Carve-out 50 %: 114 KB → 132 KB = 135168 → 3 blocks.
/// Carve-out 0: 0 < 41088, so the smallest carve-out holding one block, 64 KB → 1 block.
#[test]
fn hopper_shared_memory_and_carveouts() {
    let kernel = KernelResources::new(128, 32).with_static_smem(40_000);
    let result = occ(9, 0, kernel);
    assert_eq!(result.allocated_smem_per_block, 41088);
    assert_eq!(result.active_blocks_per_sm, 5);
    assert_eq!(result.occupancy, 20.0 / 64.0);
    let half = carveout(50);
    assert_eq!(occupancy_on(9, 0, kernel, half).active_blocks_per_sm, 3);
    let none = carveout(0);
    let result = occupancy_on(9, 0, kernel, none);
    assert_eq!(result.smem_per_sm, 64 * 1024);
    assert_eq!(result.active_blocks_per_sm, 1);
}

/// Opt-in: 100 000 B dynamic exceeds 48 KB + 1 KB = 50176 without it; with it the cap is
/// 227 KB + 1 KB. Allocation 101024 → 101120; 233472 / 101120 = 2 blocks. 232 448 B
/// (227 KB) is the most a block can opt into: one byte more fails.
#[test]
fn hopper_opt_in_shared_memory() {
    let kernel = KernelResources::new(128, 32).with_dynamic_smem(100_000);
    let error = error_on(9, 0, kernel, LaunchConfig::default());
    assert!(matches!(
        error,
        OccupancyError::TooMuchSharedMemory {
            bytes: 101120,
            max: 50176,
            ..
        }
    ));
    let opted = opting_in(100_000);
    assert_eq!(occupancy_on(9, 0, kernel, opted).active_blocks_per_sm, 2);
    let whole = opting_in(232_448);
    let result = occupancy_on(9, 0, kernel.with_dynamic_smem(232_448), whole);
    assert_eq!(result.active_blocks_per_sm, 1);
    let too_much = opting_in(232_449);
    assert!(matches!(
        error_on(9, 0, kernel, too_much),
        OccupancyError::OptInAboveLimit { max: 232_448, .. }
    ));
}

/// 12.0: 48 warps, 24 blocks (H1). 32 threads → 24 blocks = 24 of 48 warps.
#[test]
fn blackwell_consumer_limits() {
    let result = occ(12, 0, KernelResources::new(32, 32));
    assert_eq!(result.active_blocks_per_sm, 24);
    assert_eq!(result.occupancy, 0.5);
}

// ---- Errors ------------------------------------------------------------------------------

#[test]
fn impossible_input_is_an_error_naming_the_limit() {
    let none = LaunchConfig::default();
    assert_eq!(
        error_on(9, 0, KernelResources::new(0, 32), none),
        OccupancyError::ZeroThreads
    );
    let threads = error_on(1, 0, KernelResources::new(513, 1), none);
    assert!(matches!(
        threads,
        OccupancyError::TooManyThreads {
            threads: 513,
            max: 512,
            ..
        }
    ));
    assert!(threads.to_string().contains("513") && threads.to_string().contains("512"));
    let registers = error_on(9, 0, KernelResources::new(32, 257), none);
    assert!(matches!(
        registers,
        OccupancyError::TooManyRegistersPerThread {
            registers: 257,
            max: 256,
            ..
        }
    ));
    // 1024 threads × 255 regs: 8192 per warp × 32 warps = 262 144 > 65 536.
    let block = error_on(9, 0, KernelResources::new(1024, 255), none);
    assert!(matches!(
        block,
        OccupancyError::TooManyRegistersPerBlock {
            registers: 262_144,
            max: 65536,
            ..
        }
    ));
    assert_eq!(
        error_on(9, 0, KernelResources::new(32, 32), carveout(101)),
        OccupancyError::InvalidCarveout { percent: 101 }
    );
    assert!(matches!(
        ComputeCapability::new(4, 0).limits(),
        Err(OccupancyError::UnknownComputeCapability { .. })
    ));
    assert!("eight".parse::<ComputeCapability>().is_err());
}
