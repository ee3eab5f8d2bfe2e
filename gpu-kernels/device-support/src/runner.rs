//! What every entry point runs, and the device panic handler.

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use reconverge_simt::{GpuWarp, WARP_SIZE};
use reconverge_transforms::{
    Kernel, Sink, Strategy, Tally, WarpProgram, WarpTask, initial_block_counters,
};

/// A device panic stops the kernel: `trap` makes the launch fail with
/// `CUDA_ERROR_ILLEGAL_INSTRUCTION`, which the host reports with the kernel's name.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; nothing runs after it.
    unsafe { core::arch::nvptx::trap() }
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

/// Adds to the workload's accumulators with global atomics (integer, so order-independent), in
/// the block's copy of the tally.
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
/// `tally_copies` copies of `tally_len` elements each (or `tally_len` is 0); `scratch` has
/// `scratch_len` elements (or `scratch_len` is 0), accessed only atomically; `status` points to
/// one `u32`; every thread of the block calls this (it contains a block barrier) and blocks have
/// a multiple of 32 threads.
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
    tally_copies: u32,
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
            // Block `b` adds to copy `b % tally_copies`: the hottest accumulators (MCML's
            // absorption bins by the source) take 1 / tally_copies of the atomics each, which
            // the L2 serialises per address. The host adds the copies up.
            let copy = block % tally_copies.max(1);
            let mut acc = GlobalTally {
                // In bounds: `copy < tally_copies` and `tally` has `tally_copies * tally_len`
                // elements (the caller's contract); wrapping, for a null tally of length 0.
                tally: tally.wrapping_add(copy as usize * tally_len as usize),
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
