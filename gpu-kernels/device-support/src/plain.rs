//! The plain kernels a CUDA programmer writes first, to hold reconverge's strategies against:
//! one loop per thread over the workload's own functions, with none of reconverge's machinery
//! (no warp program, no votes, no lane masks, no dealer). The hardware handles divergence.
//!
//! [`plain_kernels!`](crate::plain_kernels) generates, for one workload, the three schedules
//! of the comparison (`docs/results/plain/`), each an entry point
//! `(kernel: *const W, items: u32, out: *mut Output, counter: *mut u32)`:
//!
//! - `NAME_one_per_item`: thread `g` of the grid runs item `g` (launch enough threads);
//! - `NAME_grid_stride`: thread `g` runs items `g`, `g + threads`, `g + 2 threads`, ...;
//! - `NAME_persistent`: every thread takes its next item from the global `counter` (zeroed
//!   before the launch) with its own `atomicAdd`, until the items run out.
//!
//! The host launches them with `reconverge_gpu::PlainSchedule`.

/// One item of a [`BranchLoop`](reconverge_transforms::BranchLoop), start to finish, as plain
/// code: `while running { if condition { taken } else { not_taken }; after_branch }`.
#[inline(always)]
pub fn branch_loop_item<L: reconverge_transforms::BranchLoop>(
    workload: &L,
    item: u32,
) -> L::Output {
    let mut tally = reconverge_transforms::NoTally;
    let mut state = workload.start(item);
    while workload.running(&state) {
        if workload.condition(&mut state) {
            workload.taken(&mut state, &mut tally);
        } else {
            workload.not_taken(&mut state, &mut tally);
        }
        workload.after_branch(&mut state, &mut tally);
    }
    workload.finish(&state)
}

/// One item of an [`ItemLoop`](reconverge_transforms::ItemLoop), start to finish, as plain
/// code: `while running { body }`.
#[inline(always)]
pub fn item_loop_item<L: reconverge_transforms::ItemLoop>(workload: &L, item: u32) -> L::Output {
    let mut tally = reconverge_transforms::NoTally;
    let mut state = workload.start(item);
    while workload.running(&state) {
        workload.body(&mut state, &mut tally);
    }
    workload.finish(&state)
}

/// Generates the three plain kernels of one workload (see the [module docs](crate::plain)),
/// named in the order one-per-item, grid-stride, persistent:
///
/// ```text
/// reconverge_device::plain_kernels!(Walk => u32, reconverge_device::plain::branch_loop_item;
///     walk_one_per_item, walk_grid_stride, walk_persistent);
/// ```
///
/// The item function takes `(&W, u32)` and returns the output. `W` must have the same layout on
/// the host and the device (`#[repr(C)]` plain data). On targets other than nvptx64 it expands
/// to nothing.
#[macro_export]
macro_rules! plain_kernels {
    ($workload:ty => $output:ty, $item:path; $one:ident, $stride:ident, $persistent:ident $(,)?) => {
        /// One thread per item: thread `g` of the grid runs item `g`.
        ///
        /// # Safety
        /// `workload` points to a valid workload and `out` to `items` outputs in device memory.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $one(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (g, _) = $crate::plain::thread_and_threads();
            if g < items {
                // SAFETY: `out` has `items` elements and `g < items`.
                unsafe { *out.add(g as usize) = $item(workload, g) };
            }
        }

        /// A grid-stride loop: thread `g` runs items `g`, `g + threads`, ...
        ///
        /// # Safety
        /// As the one-per-item kernel.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $stride(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (mut i, threads) = $crate::plain::thread_and_threads();
            while i < items {
                // SAFETY: `out` has `items` elements and `i < items`.
                unsafe { *out.add(i as usize) = $item(workload, i) };
                i = match i.checked_add(threads) {
                    Some(next) => next,
                    None => break,
                };
            }
        }

        /// Persistent threads: each takes its next item from the global `counter` with its own
        /// atomic add until none is left.
        ///
        /// # Safety
        /// As the one-per-item kernel, and `counter` is one zeroed `u32` of global memory that
        /// nothing else touches during the launch.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $persistent(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            counter: *mut u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            // SAFETY: `counter` is a global `u32` accessed only atomically (the contract).
            let counter = unsafe { core::sync::atomic::AtomicU32::from_ptr(counter) };
            loop {
                let i = counter.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
                if i >= items {
                    break;
                }
                // SAFETY: `out` has `items` elements and `i < items`.
                unsafe { *out.add(i as usize) = $item(workload, i) };
            }
        }
    };
}

/// The calling thread's index in the grid, and the grid's threads.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub fn thread_and_threads() -> (u32, u32) {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
    // SAFETY: reads special registers.
    unsafe {
        (
            _block_idx_x() * _block_dim_x() + _thread_idx_x(),
            _grid_dim_x() * _block_dim_x(),
        )
    }
}
