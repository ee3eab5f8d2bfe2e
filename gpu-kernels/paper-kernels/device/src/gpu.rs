//! The nvptx64 side: the self-test kernels (the panic handler and the runner behind
//! `warp_kernel!` are `reconverge-device`'s).

use core::arch::asm;
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _syncthreads, _thread_idx_x};

use reconverge_simt::{GpuWarp, WARP_SIZE, Warp};

use crate::selftest::{
    LIBM_OUTPUTS, WARP_OPS, WARP_OUTPUTS, fast_math_row, libm_row, mcml_math_row, warp_ops,
};

/// The global index of the calling thread.
#[inline(always)]
fn global_thread() -> u32 {
    // SAFETY: reads special registers.
    unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() }
}

/// `%laneid` read directly, to cross-check [`GpuWarp`]'s lane ids.
#[inline(always)]
fn lane_register() -> u32 {
    let lane: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(pure, nomem, nostack)) };
    lane
}

/// Warp self-test: see the crate docs. `len` is the length of `out` in `u32`s.
///
/// # Safety
/// `out` points to `len` writable `u32`s of device memory; blocks have a multiple of 32
/// threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_selftest(out: *mut u32, len: u32, seed: u32) {
    // SAFETY: every thread of the block calls it.
    unsafe { GpuWarp::init_block_counters([0; 4]) };
    let mut warp = GpuWarp::new();
    // SAFETY: reads special registers.
    let (block, tid) = unsafe { (_block_idx_x(), _thread_idx_x()) };
    let ops = warp_ops(&mut warp, seed.wrapping_add(block));
    let warp_in_block = tid / WARP_SIZE;
    let old = warp.block_fetch_add(warp.full_mask(), 0, warp_in_block + 1);
    // SAFETY: every thread of the block reaches this barrier.
    unsafe { _syncthreads() };
    let total = GpuWarp::block_counter(0);
    let base = global_thread() as usize * WARP_OUTPUTS;
    if base + WARP_OUTPUTS <= len as usize {
        for (j, v) in ops.iter().enumerate() {
            // SAFETY: in bounds by the check above.
            unsafe { *out.add(base + j) = *v };
        }
        // SAFETY: in bounds by the check above.
        unsafe {
            *out.add(base + WARP_OPS) = old;
            *out.add(base + WARP_OPS + 1) = total;
        }
        // %laneid must agree with the lane id GpuWarp reports; a mismatch poisons the output.
        if lane_register() != ops[0] {
            // SAFETY: in bounds by the check above.
            unsafe { *out.add(base) = u32::MAX };
        }
    }
}

/// `libm` self-test in `f64`: `out[i * 5 + k]` is function `k` of `x[i]`.
///
/// # Safety
/// `x` has `n` and `out` `5 n` elements of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn libm_selftest(x: *const f64, out: *mut f64, n: u32) {
    // SAFETY: the caller's guarantee.
    unsafe { store_row(x, out, n, libm_row) }
}

/// `libm` self-test in `f32`, as [`libm_selftest`].
///
/// # Safety
/// `x` has `n` and `out` `5 n` elements of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn libmf_selftest(x: *const f32, out: *mut f32, n: u32) {
    // SAFETY: the caller's guarantee.
    unsafe { store_row(x, out, n, mcml_math_row) }
}

/// MCML's fast-math operations in `f32` ([`fast_math_row`]), as [`libm_selftest`].
///
/// # Safety
/// `x` has `n` and `out` `5 n` elements of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fastmath_selftest(x: *const f32, out: *mut f32, n: u32) {
    // SAFETY: the caller's guarantee.
    unsafe { store_row(x, out, n, fast_math_row) }
}

/// A math self-test's thread `i`: writes `row(x[i])` to `out[i * 5 ..][..5]`.
///
/// # Safety
/// `x` has `n` and `out` `5 n` elements of device memory.
#[inline(always)]
unsafe fn store_row<T: Copy>(
    x: *const T,
    out: *mut T,
    n: u32,
    row: impl Fn(T) -> [T; LIBM_OUTPUTS],
) {
    let i = global_thread();
    if i < n {
        // SAFETY: `i < n`.
        let row = row(unsafe { *x.add(i as usize) });
        for (k, v) in row.iter().enumerate() {
            // SAFETY: `i < n`, so the row lies within `5 n`.
            unsafe { *out.add(i as usize * LIBM_OUTPUTS + k) = *v };
        }
    }
}

