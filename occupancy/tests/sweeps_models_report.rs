//! Sweeps, the block-size search, the papers' models, device lookup and the report the
//! example prints. Expected values are derived by hand in the comments.

use reconverge_occupancy::models::{
    BranchProfile, branch_distribution_speedup, branch_splitting_speedup,
};
use reconverge_occupancy::report::{Target, report};
use reconverge_occupancy::sweeps::{
    max_potential_block_size, sweep_block_size, sweep_registers, sweep_shared_memory,
};
use reconverge_occupancy::{
    ComputeCapability, Device, KernelResources, LaunchConfig, Limiter, OccupancyError,
};

fn limits(major: u32, minor: u32) -> &'static reconverge_occupancy::ArchLimits {
    ComputeCapability::new(major, minor)
        .limits()
        .expect("cc in table")
}

/// [`max_potential_block_size`] on an H100 (cc 9.0, 132 SMs) with the default launch
/// configuration: `registers` per thread, `static_smem` bytes, dynamic shared memory
/// `dynamic_smem(block size)`, an optional block-size limit.
fn best_on_h100(
    registers: u32,
    static_smem: u32,
    dynamic_smem: impl Fn(u32) -> u32,
    limit: Option<u32>,
) -> Result<reconverge_occupancy::sweeps::BlockSizeSuggestion, OccupancyError> {
    let config = LaunchConfig::default();
    max_potential_block_size(
        limits(9, 0),
        registers,
        static_smem,
        dynamic_smem,
        limit,
        &config,
        132,
    )
}

// ---- Sweeps ------------------------------------------------------------------------------

/// G80, 13 regs: one point per warp multiple up to 512 threads (16 points). At 256 threads
/// 2/3 (seed 001). At 192 threads (6 warps): 6·32·13 = 2496 → 2560; 8192 / 2560 = 3 blocks,
/// warp limit 24 / 6 = 4 → 18 of 24 warps = 75 %.
#[test]
fn block_size_sweep_on_g80() {
    let config = LaunchConfig::default();
    let points = sweep_block_size(limits(1, 0), &KernelResources::new(256, 13), &config);
    assert_eq!(points.len(), 16);
    assert_eq!(points[0].value, 32);
    assert_eq!(points[15].value, 512);
    let at = |threads: u32| points.iter().find(|p| p.value == threads).expect("point");
    assert!((at(256).occupancy - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(at(192).active_blocks_per_sm, 3);
    assert_eq!(at(192).occupancy, 0.75);
}

/// Register sweep on G80 at 256 threads: full occupancy up to 10 registers, 2/3 from 11 to
/// 16 (16 regs: 4096 per block → 2 blocks), 1/3 from 17 to 32 (17: 4352 → 1 block), and
/// zero from 33 (8448 > 8192 registers per block: cannot launch).
#[test]
fn register_sweep_on_g80() {
    let config = LaunchConfig::default();
    let points = sweep_registers(limits(1, 0), &KernelResources::new(256, 13), &config);
    assert_eq!(points.len(), 124);
    let at = |regs: u32| &points[regs as usize - 1];
    assert_eq!(at(10).occupancy, 1.0);
    assert!((at(11).occupancy - 2.0 / 3.0).abs() < 1e-12);
    assert!((at(16).occupancy - 2.0 / 3.0).abs() < 1e-12);
    assert!((at(17).occupancy - 1.0 / 3.0).abs() < 1e-12);
    assert!((at(32).occupancy - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(at(33).active_blocks_per_sm, 0);
    assert!(at(33).limited_by.is_empty());
}

/// Shared-memory sweep on H100, 256 threads, 32 regs: steps of 128 B up to 48 KB
/// (385 points). At 0 B: 8 blocks (warps/registers). At 28 672 B: 29 696 per block,
/// 233472 / 29696 = 7 blocks, limited by shared memory.
#[test]
fn shared_memory_sweep_on_h100() {
    let config = LaunchConfig::default();
    let points = sweep_shared_memory(limits(9, 0), &KernelResources::new(256, 32), &config);
    assert_eq!(points.len(), 49152 / 128 + 1);
    assert_eq!(points[0].active_blocks_per_sm, 8);
    let point = points.iter().find(|p| p.value == 28_672).expect("point");
    assert_eq!(point.active_blocks_per_sm, 7);
    assert_eq!(point.limited_by, vec![Limiter::SharedMemory]);
}

// ---- Block-size search -------------------------------------------------------------------

/// H100, 40 regs: 48 warps fit by registers. From 1024 down: 1024 → 1 block = 1024 threads;
/// 992..800 → 1 block; 768 (24 warps) → 2 blocks = 1536 threads, the most 48 warps can
/// hold, and smaller sizes only tie. Min grid 2 × 132 SMs = 264.
#[test]
fn best_block_size_with_fixed_shared_memory() {
    let best = best_on_h100(40, 0, |_| 0, None).expect("launchable");
    assert_eq!(best.block_size, 768);
    assert_eq!(best.active_blocks_per_sm, 2);
    assert_eq!(best.occupancy, 0.75);
    assert_eq!(best.min_grid_size, 264);
}

/// H100, 32 regs, 128 B of dynamic shared memory per thread (so it grows with the block).
/// Over 384 threads the block needs > 48 KB and cannot launch. Resident threads by size
/// (smem alloc = 128·b + 1024; blocks = min(233472 / alloc, 64 / warps)):
/// 384 → 4 → 1536; 352 → 5 → 1760; 320 → 5 → 1600; 288 → 6 → 1728; 256 → 6 → 1536;
/// 224 → 7 → 1568; 192 → 9 → 1728; 160 → 10 → 1600; 128 → 13 → 1664; 96 → 17 → 1632;
/// 64 → 25 → 1600; 32 → 32 (cap) → 1024. Best: 352 threads, 5 blocks, grid 660.
#[test]
fn best_block_size_with_per_thread_shared_memory() {
    let best = best_on_h100(32, 0, |block_size| 128 * block_size, None).expect("launchable");
    assert_eq!(best.block_size, 352);
    assert_eq!(best.active_blocks_per_sm, 5);
    assert_eq!(best.min_grid_size, 660);
}

/// A block-size limit that is not a warp multiple is tried as is first, and the search
/// counts resident *threads*: limit 100 on H100 with 32 regs → 100 threads = 4 warps,
/// 16 blocks = 1600 threads; 96 → 21 blocks (64 / 3 warps) = 2016; 64 → 32 blocks = 2048,
/// the SM's maximum, so the search stops at 64.
#[test]
fn best_block_size_respects_limit() {
    let best = best_on_h100(32, 0, |_| 0, Some(100)).expect("launchable");
    assert_eq!(best.block_size, 64);
    assert_eq!(best.active_blocks_per_sm, 32);
    let capped = best_on_h100(32, 0, |_| 0, Some(40)).expect("launchable");
    // 40 threads = 2 warps → 32 blocks (cap) = 1280 threads; 32 → 32 blocks = 1024.
    assert_eq!(capped.block_size, 40);
}

#[test]
fn best_block_size_errors_when_nothing_fits() {
    let result = best_on_h100(32, 60_000, |_| 0, None);
    assert!(matches!(
        result,
        Err(OccupancyError::NoLaunchableBlockSize { .. })
    ));
}

// ---- Models ------------------------------------------------------------------------------

/// Seed 001's worked example: two branches of equal time, ρ = 1 and 0.67, ρ_min = 0.67,
/// σ = 0, T = 2: 2 / (0.67 + 1) = 1.1976… ("≈ 19.7 %").
#[test]
fn branch_splitting_paper_example() {
    let branches = [
        BranchProfile {
            runtime: 1.0,
            occupancy: 1.0,
        },
        BranchProfile {
            runtime: 1.0,
            occupancy: 0.67,
        },
    ];
    let speedup = branch_splitting_speedup(2.0, &branches, 0.67, 0.0).expect("valid");
    assert!((speedup - 2.0 / 1.67).abs() < 1e-12);
    assert!((speedup - 1.197).abs() < 1e-3);
}

/// The launch overhead σ adds to the split runtime: T = 2, both branches at ρ_min = ρ_i
/// (no occupancy gain), σ = 0.5 → 2 / 2.5 = 0.8, a slowdown.
#[test]
fn branch_splitting_overhead_can_lose() {
    let branches = [BranchProfile {
        runtime: 1.0,
        occupancy: 0.5,
    }; 2];
    let speedup = branch_splitting_speedup(2.0, &branches, 0.5, 0.5).expect("valid");
    assert!((speedup - 0.8).abs() < 1e-12);
    assert!(branch_splitting_speedup(2.0, &branches, 0.0, 0.0).is_err());
    assert!(
        branch_splitting_speedup(
            2.0,
            &[BranchProfile {
                runtime: 1.0,
                occupancy: 1.5
            }],
            0.5,
            0.0
        )
        .is_err()
    );
}

/// Seed 002: 2(1 + R)/(2 + R): R = 0 → 1, R = 1 → 4/3, R = 2 → 1.5, R = 8 → 1.8.
#[test]
fn branch_distribution_formula() {
    assert_eq!(branch_distribution_speedup(0.0).expect("valid"), 1.0);
    assert!((branch_distribution_speedup(1.0).expect("valid") - 4.0 / 3.0).abs() < 1e-12);
    assert_eq!(branch_distribution_speedup(2.0).expect("valid"), 1.5);
    assert!((branch_distribution_speedup(8.0).expect("valid") - 1.8).abs() < 1e-12);
    assert!(branch_distribution_speedup(-1.0).is_err());
    assert!(branch_distribution_speedup(f64::NAN).is_err());
}

// ---- Devices and compute capabilities ----------------------------------------------------

#[test]
fn device_lookup_is_case_and_punctuation_insensitive() {
    let h100 = Device::lookup("H100").expect("h100");
    assert_eq!(h100.compute_capability, ComputeCapability::new(9, 0));
    assert_eq!(h100.sm_count, 132);
    // Names as users write them, and the compute capability each must find.
    for (name, major, minor) in [
        ("8800gtx", 1, 0),
        ("gtx480", 2, 0),
        ("GTX 280", 1, 3),
        ("RTX-4090", 8, 9),
        ("h200", 9, 0),
        ("B200", 10, 0),
    ] {
        let device = Device::lookup(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            device.compute_capability,
            ComputeCapability::new(major, minor),
            "{name}"
        );
    }
    assert_eq!(
        Device::lookup("GeForce 8800 GTX").expect("g80").sm_count,
        16
    );
    assert_eq!(Device::lookup("a100").expect("a100").sm_count, 108);
    assert_eq!(Device::lookup("v100").expect("v100").sm_count, 80);
    let error = Device::lookup("tpu").expect_err("unknown");
    assert!(error.to_string().contains("tpu") && error.to_string().contains("h100"));
}

#[test]
fn compute_capability_parsing() {
    let parse = |text: &str| text.parse::<ComputeCapability>().expect(text);
    assert_eq!(parse("8.6"), ComputeCapability::new(8, 6));
    assert_eq!(parse("sm_86"), ComputeCapability::new(8, 6));
    assert_eq!(parse("120"), ComputeCapability::new(12, 0));
    assert_eq!(parse("compute_90"), ComputeCapability::new(9, 0));
    assert!("8.x".parse::<ComputeCapability>().is_err());
    assert!("".parse::<ComputeCapability>().is_err());
}

/// The table runs from 1.0 to 12.x in order, with max threads per SM = warps × 32.
#[test]
fn table_covers_1_0_to_12_x() {
    let all = reconverge_occupancy::ArchLimits::all();
    assert_eq!(
        all.first().map(|row| row.compute_capability),
        Some(ComputeCapability::new(1, 0))
    );
    assert_eq!(all.last().map(|row| row.compute_capability.major), Some(12));
    assert!(
        all.windows(2)
            .all(|pair| pair[0].compute_capability < pair[1].compute_capability)
    );
    assert!(
        all.iter()
            .all(|row| row.max_threads_per_sm == row.max_warps_per_sm * row.warp_size)
    );
}

// ---- Report (what the example prints) ----------------------------------------------------

/// The example's command: H100, 256 threads, 40 regs, 12288 B. 6 blocks (75 %), registers
/// limit; 7 blocks need ≤ 16384 / 14 = 1170 regs per warp → 1024 → 32 regs, which gives 16
/// warps per sub-partition, 8 blocks.
#[test]
fn report_for_the_example_command() {
    let target = Target::resolve(Some("h100"), None).expect("device");
    let kernel = KernelResources::new(256, 40).with_dynamic_smem(12288);
    let result = report(target, &kernel, &LaunchConfig::default()).expect("report");
    assert_eq!(result.occupancy.active_blocks_per_sm, 6);
    assert_eq!(result.next_steps.len(), 1);
    assert_eq!(result.next_steps[0].to, Some(32));
    assert_eq!(result.next_steps[0].active_blocks_per_sm, 8);
    let text = result.to_string();
    assert!(
        text.contains("registers: 40 -> 32 per thread gives 8 blocks"),
        "{text}"
    );
    assert!(text.contains("75.0%"), "{text}");

    let json: serde_json::Value = serde_json::to_value(&result).expect("json");
    assert_eq!(json["active_blocks_per_sm"], 6);
    assert_eq!(json["active_warps_per_sm"], 48);
    assert_eq!(json["occupancy"], 0.75);
    assert_eq!(json["limited_by"], serde_json::json!(["registers"]));
}

/// `--cc 8.6` instead of a device; bad input gives the error, not a panic.
#[test]
fn report_targets_and_errors() {
    let target = Target::resolve(None, Some("8.6")).expect("cc");
    assert_eq!(
        target.limits.compute_capability,
        ComputeCapability::new(8, 6)
    );
    assert!(target.device.is_none());
    assert!(matches!(
        Target::resolve(None, Some("4.0")),
        Err(OccupancyError::UnknownComputeCapability { .. })
    ));
    assert!(matches!(
        Target::resolve(Some("nope"), None),
        Err(OccupancyError::UnknownDevice { .. })
    ));
    let error = report(
        target,
        &KernelResources::new(2048, 32),
        &LaunchConfig::default(),
    )
    .expect_err("too big");
    assert_eq!(
        error.to_string(),
        "threads per block: 2048 exceeds the maximum of 1024 on compute capability 8.6"
    );
}
