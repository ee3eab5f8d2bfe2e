//! MCML's GPU launch ([`reconverge_mcml::gpu_launch`]) against NVIDIA's occupancy rules
//! (`reconverge-occupancy`, which equals the driver on every entry point the device check
//! loads): the block size with the most resident warps, the larger on a tie.

use reconverge_mcml::{GPU_BLOCK_SIZES, gpu_launch};
use reconverge_occupancy::{ComputeCapability, KernelResources, LaunchConfig, calculate_occupancy};

/// Blocks per SM on an H100 of a kernel with `registers` registers per thread.
fn h100(registers: u32) -> impl Fn(u32) -> Option<u32> {
    move |threads| {
        let arch = ComputeCapability::new(9, 0).limits().ok()?;
        calculate_occupancy(
            arch,
            &KernelResources::new(threads, registers),
            &LaunchConfig::default(),
        )
        .ok()
        .map(|o| o.active_blocks_per_sm)
    }
}

#[test]
fn most_resident_warps_then_the_larger_block() {
    // 56 registers (fast-math per-thread MCML): 4 x 256, 2 x 512 and 1 x 1024 all hold 32
    // warps: one block of 1024 per SM.
    let l = gpu_launch(132, h100(56)).unwrap();
    assert_eq!((l.threads_per_block, l.blocks), (1024, 132));
    // 64 registers: the same 32 warps each way.
    let l = gpu_launch(132, h100(64)).unwrap();
    assert_eq!((l.threads_per_block, l.blocks), (1024, 132));
    // 72 registers (a warp-level strategy): 3 x 256 = 24 warps beats 1 x 512 = 16, and 1024
    // threads do not fit.
    assert_eq!(h100(72)(1024), None);
    let l = gpu_launch(132, h100(72)).unwrap();
    assert_eq!((l.threads_per_block, l.blocks), (256, 3 * 132));
    // 32 registers: 8 x 256, 4 x 512 and 2 x 1024 hold all 64 warps.
    let l = gpu_launch(2, h100(32)).unwrap();
    assert_eq!((l.threads_per_block, l.blocks), (1024, 4));
}

#[test]
fn picks_the_best_of_every_candidate() {
    for registers in (16..=255).step_by(3) {
        let fit = h100(registers);
        let Ok(l) = gpu_launch(132, &fit) else {
            assert!(GPU_BLOCK_SIZES.iter().all(|&t| fit(t).unwrap_or(0) == 0));
            continue;
        };
        let warps = |t: u32| fit(t).unwrap_or(0) * (t / 32);
        let chosen = warps(l.threads_per_block);
        assert_eq!(
            l.blocks,
            fit(l.threads_per_block).unwrap() * 132,
            "{registers}"
        );
        for t in GPU_BLOCK_SIZES {
            assert!(
                warps(t) <= chosen,
                "{registers} registers: {t} holds more warps"
            );
            if warps(t) == chosen {
                assert!(
                    t <= l.threads_per_block,
                    "{registers} registers: tie not to the larger"
                );
            }
        }
    }
}

#[test]
fn nothing_fits_is_an_error_not_a_panic() {
    assert!(gpu_launch(132, |_| None).is_err());
    assert!(gpu_launch(132, |_| Some(0)).is_err());
}

/// Blocks per SM on an H100 of a kernel with `registers` registers per thread and `shared`
/// bytes of dynamic shared memory per block.
fn h100_shared(registers: u32) -> impl Fn(u32, u32) -> Option<u32> {
    move |threads, shared| {
        let arch = ComputeCapability::new(9, 0).limits().ok()?;
        calculate_occupancy(
            arch,
            &KernelResources::new(threads, registers).with_dynamic_smem(shared),
            &LaunchConfig::default(),
        )
        .ok()
        .map(|o| o.active_blocks_per_sm)
    }
}

#[test]
fn collaborative_context_collection_launches_within_a_blocks_shared_memory() {
    use reconverge_mcml::{gpu_dynamic_shared_bytes, gpu_launch_for};
    use reconverge_transforms::{Assignment, Strategy};
    let limit = 48 * 1024;
    let ccc = Strategy::COLLABORATIVE_CONTEXT_COLLECTION.over(Assignment::GridWide);
    // A warp's stacks: 64 item indices and 64 photons (f32: 112 bytes, 7,424 bytes in all).
    let photon = std::mem::size_of::<reconverge_workloads::mcml::Photon<f32>>() as u32;
    assert_eq!(
        gpu_dynamic_shared_bytes::<f32>(&ccc, 32),
        64 * 4 + 64 * photon
    );
    for registers in [40, 64, 80, 110] {
        let fit = h100_shared(registers);
        let l = gpu_launch_for::<f32>(&ccc, 132, limit, &fit).unwrap();
        let shared = gpu_dynamic_shared_bytes::<f32>(&ccc, l.threads_per_block);
        assert!(shared <= limit, "{registers}: {shared} bytes");
        let warps = |t: u32| {
            let s = gpu_dynamic_shared_bytes::<f32>(&ccc, t);
            if s > limit {
                0
            } else {
                fit(t, s).unwrap_or(0) * (t / 32)
            }
        };
        // No whole number of warps up to 1024 threads keeps more of them resident.
        let chosen = warps(l.threads_per_block);
        assert!(chosen > 0);
        assert!((1..=32).all(|w| warps(32 * w) <= chosen), "{registers}");
        assert_eq!(l.blocks, fit(l.threads_per_block, shared).unwrap() * 132);
    }
    // Strategies without shared memory launch as `gpu_launch` does.
    let plain = gpu_launch_for::<f32>(&Strategy::GRID_WIDE_DYNAMIC_WORK, 132, limit, |t, s| {
        assert_eq!(s, 0);
        h100(56)(t)
    })
    .unwrap();
    assert_eq!(plain, gpu_launch(132, h100(56)).unwrap());
}
