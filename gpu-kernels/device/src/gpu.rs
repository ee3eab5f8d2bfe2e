//! The nvptx64 side: panic handler, self-test kernels, and the runner behind `warp_kernel!`.

use core::arch::asm;
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _syncthreads, _thread_idx_x};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use reconverge_simt::{GpuWarp, WARP_SIZE, Warp};
use reconverge_transforms::{
    Kernel, Sink, Strategy, Tally, WarpProgram, WarpTask, initial_block_counters,
};

use crate::selftest::{LIBM_OUTPUTS, WARP_OPS, WARP_OUTPUTS, libm_row, mcml_math_row, warp_ops};

/// A device panic stops the kernel: `trap` makes the launch fail with
/// `CUDA_ERROR_ILLEGAL_INSTRUCTION`, which the host reports with the kernel's name.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; nothing runs after it.
    unsafe { core::arch::nvptx::trap() }
}

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
    let i = global_thread();
    if i < n {
        // SAFETY: `i < n`.
        let row = libm_row(unsafe { *x.add(i as usize) });
        for (k, v) in row.iter().enumerate() {
            // SAFETY: `i < n`, so the row lies within `5 n`.
            unsafe { *out.add(i as usize * LIBM_OUTPUTS + k) = *v };
        }
    }
}

/// `libm` self-test in `f32`, as [`libm_selftest`].
///
/// # Safety
/// `x` has `n` and `out` `5 n` elements of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn libmf_selftest(x: *const f32, out: *mut f32, n: u32) {
    let i = global_thread();
    if i < n {
        // SAFETY: `i < n`.
        let row = mcml_math_row(unsafe { *x.add(i as usize) });
        for (k, v) in row.iter().enumerate() {
            // SAFETY: `i < n`, so the row lies within `5 n`.
            unsafe { *out.add(i as usize * LIBM_OUTPUTS + k) = *v };
        }
    }
}

/// Writes each item's output to global memory.
struct GlobalSink<O> {
    out: *mut O,
    items: u32,
}

impl<O: Copy> Sink<O> for GlobalSink<O> {
    #[inline(always)]
    fn put(&mut self, item: u32, value: O) {
        if item < self.items {
            // SAFETY: `out` has `items` elements (the launcher's contract) and `item < items`.
            unsafe { *self.out.add(item as usize) = value };
        }
    }
}

/// Adds to the workload's accumulators with global atomics (integer, so order-independent).
struct GlobalTally {
    tally: *mut u64,
    len: u32,
}

impl Tally for GlobalTally {
    #[inline(always)]
    fn add(&mut self, index: u32, amount: u64) {
        if index < self.len && amount != 0 {
            // SAFETY: `tally` has `len` aligned `u64`s of device memory and `index < len`;
            // every access to it during the kernel is atomic.
            let cell = unsafe { AtomicU64::from_ptr(self.tally.add(index as usize)) };
            cell.fetch_add(amount, Ordering::Relaxed);
        }
    }
}

/// Runs `strategy` on `*kernel` for the calling warp: the body of every [`crate::warp_kernel!`]
/// entry point.
///
/// # Safety
/// `kernel` points to a valid `K` in device memory; `out` has `items` elements; `tally` has
/// `tally_len` elements (or `tally_len` is 0); `scratch` has `scratch_len` elements (or
/// `scratch_len` is 0), accessed only atomically; `status` points to one `u32`; every thread of
/// the block calls this (it contains a block barrier) and blocks have a multiple of 32 threads.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn run_warp_program<K: Kernel>(
    kernel: *const K,
    strategy: Strategy,
    items: u32,
    pass: u32,
    out: *mut K::Output,
    tally: *mut u64,
    tally_len: u32,
    scratch: *mut u32,
    scratch_len: u32,
    status: *mut u32,
) {
    // SAFETY: reads special registers.
    let (block, blocks, threads, tid) = unsafe {
        (
            _block_idx_x(),
            _grid_dim_x(),
            _block_dim_x(),
            _thread_idx_x(),
        )
    };
    // SAFETY: every thread of the block calls this function, hence the barrier inside.
    unsafe { GpuWarp::init_block_counters(initial_block_counters(threads)) };
    let mut warp = GpuWarp::new();
    // SAFETY: the caller guarantees `kernel` points to a valid `K`.
    let kernel = unsafe { &*kernel };
    let task = WarpTask::new(items, blocks, block, threads, tid / WARP_SIZE);
    let scratch: &[AtomicU32] = if scratch.is_null() || scratch_len == 0 {
        &[]
    } else {
        // SAFETY: `scratch` holds `scratch_len` u32s of device memory (the caller's
        // contract), `AtomicU32` has the layout of `u32`, and every access during the kernel
        // goes through these atomics.
        unsafe { core::slice::from_raw_parts(scratch.cast::<AtomicU32>(), scratch_len as usize) }
    };
    match kernel.program(&warp, &strategy, pass, task, scratch) {
        Ok(mut program) => {
            let mut sink = GlobalSink { out, items };
            let mut acc = GlobalTally {
                tally,
                len: tally_len,
            };
            while program.step(&mut warp, &mut sink, &mut acc) {}
        }
        Err(_) => {
            if block == 0 && tid == 0 && !status.is_null() {
                // SAFETY: `status` points to one `u32` (the caller's contract).
                unsafe { *status = 1 };
            }
        }
    }
}
