//! The plain kernels a CUDA programmer writes first, to hold reconverge's strategies against:
//! one loop per thread over the workload's own functions, with none of reconverge's machinery
//! (no warp program, no votes, no lane masks, no dealer). The hardware handles divergence.
//!
//! [`plain_kernels!`](crate::plain_kernels) generates, for one workload, the four schedules
//! of the comparison (`docs/results/plain/`), each an entry point
//! `(kernel: *const W, items: u32, out: *mut Output, counter: *mut u32)`:
//!
//! - `NAME_one_per_item`: thread `g` of the grid runs item `g` (launch enough threads);
//! - `NAME_grid_stride`: thread `g` runs items `g`, `g + threads`, `g + 2 threads`, ...;
//! - `NAME_persistent`: every thread takes its next item from the global `counter` (zeroed
//!   before the launch) with its own `atomicAdd`, until the items run out;
//! - `NAME_block_persistent`: seed 004's fig. 5 as written, the hand-written twin of dynamic work
//!   assignment: the launch's items cut into one contiguous chunk per block, thread `t` starting
//!   with item `t` of its block's chunk and then taking the next one from a counter of the block
//!   in shared memory with its own `atomicAdd`.
//!
//! The host launches them with `reconverge_gpu::PlainSchedule`.

/// One item of a [`BranchLoop`](reconverge_transforms::BranchLoop), start to finish, as plain
/// code: [`BranchLoop::run_item`](reconverge_transforms::BranchLoop::run_item).
#[inline(always)]
pub fn branch_loop_item<L: reconverge_transforms::BranchLoop>(
    workload: &L,
    item: u32,
) -> L::Output {
    workload.run_item(item)
}

/// One item of an [`ItemLoop`](reconverge_transforms::ItemLoop), start to finish, as plain
/// code: [`ItemLoop::run_item`](reconverge_transforms::ItemLoop::run_item).
#[inline(always)]
pub fn item_loop_item<L: reconverge_transforms::ItemLoop>(workload: &L, item: u32) -> L::Output {
    workload.run_item(item)
}

/// One item of a [`FactoredBranchLoop`](reconverge_transforms::FactoredBranchLoop) as
/// written (seed 002 fig. 7a: each path in full, the factored code inside it):
/// [`FactoredBranchLoop::run_item`](reconverge_transforms::FactoredBranchLoop::run_item).
#[inline(always)]
pub fn factored_loop_item<L: reconverge_transforms::FactoredBranchLoop>(
    workload: &L,
    item: u32,
) -> L::Output {
    workload.run_item(item)
}

/// One item of a [`FactoredBranchLoop`](reconverge_transforms::FactoredBranchLoop) with its
/// branch distributed by hand (seed 002 fig. 7b: the divergent prologue, the factored code
/// once, the divergent epilogue): branch distribution's hand-written twin.
#[inline(always)]
pub fn factored_loop_item_distributed<L: reconverge_transforms::FactoredBranchLoop>(
    w: &L,
    item: u32,
) -> L::Output {
    let mut tally = reconverge_transforms::NoTally;
    let mut s = w.start(item);
    while w.running(&s) {
        let taken = w.condition(&mut s);
        w.prologue(taken, &mut s, &mut tally);
        w.factored(&mut s, &mut tally);
        w.epilogue(taken, &mut s, &mut tally);
        w.after_branch(&mut s, &mut tally);
    }
    w.finish(&s)
}

/// One item of a [`SplitLoop`](reconverge_transforms::SplitLoop) as plain code: the fused loop
/// of seed 001 fig. 5a, [`SplitLoop::run_item`](reconverge_transforms::SplitLoop::run_item).
#[inline(always)]
pub fn split_loop_item<L: reconverge_transforms::SplitLoop>(workload: &L, item: u32) -> L::Output {
    workload.run_item(item)
}

/// One item of a [`TwoPath`](reconverge_transforms::TwoPath) as plain code: `if decide { path
/// A } else { path B }` ([`TwoPath::run_item`](reconverge_transforms::TwoPath::run_item)).
#[inline(always)]
pub fn two_path_item<P: reconverge_transforms::TwoPath>(workload: &P, item: u32) -> P::Output {
    workload.run_item(item)
}

/// Branch path unification's hand-written twin (seed 004 fig. 10 as a CUDA programmer writes
/// it, none of reconverge's machinery): one thread's group of `len` items from `first`, two
/// counters that each scan forward to the group's next item of their path, path A run for the
/// item counter A found, then path B for counter B's, until both have passed the group's end.
/// The hardware reconverges the warp's lanes after each scan, so the lanes that found an item
/// of a path run it together.
#[inline(always)]
pub fn unified_group<P: reconverge_transforms::TwoPath>(
    w: &P,
    first: u32,
    len: u32,
    mut put: impl FnMut(u32, P::Output),
) {
    let (mut ca, mut cb) = (0u32, 0u32);
    while ca < len || cb < len {
        while ca < len && !w.decide(first + ca) {
            ca += 1;
        }
        if ca < len {
            put(first + ca, w.path_a(first + ca));
            ca += 1;
        }
        while cb < len && w.decide(first + cb) {
            cb += 1;
        }
        if cb < len {
            put(first + cb, w.path_b(first + cb));
            cb += 1;
        }
    }
}

/// Generates branch path unification's hand-written twin for one workload and one
/// DATA_PER_THREAD, an entry point with the plain kernels' arguments
/// `(kernel: *const W, items: u32, out: *mut Output, counter: *mut u32)` (the counter unused):
/// the launch's items cut into one contiguous chunk per block, thread `t` of the block owning
/// the groups of `items_per_thread` items that start at `t · n`, `(t + threads) · n`, ... of
/// the chunk (the groups reconverge's strategy gives it), each run by [`unified_group`].
///
/// ```text
/// reconverge_device::unification_twin!(Work => u32; work_unified16, 16);
/// ```
#[macro_export]
macro_rules! unification_twin {
    ($workload:ty => $output:ty; $name:ident, $items_per_thread:expr) => {
        /// Branch path unification written by hand (seed 004 fig. 10).
        ///
        /// # Safety
        /// `workload` points to a valid workload and `out` to `items` outputs in device memory.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let n: u32 = $items_per_thread;
            let (start, end, tid, threads) = $crate::plain::block_chunk(items);
            let mut first = start.saturating_add(tid.saturating_mul(n));
            while first < end {
                let len = (end - first).min(n);
                $crate::plain::unified_group(workload, first, len, |item, value| {
                    // SAFETY: `item < end <= items`, and `out` has `items` elements.
                    unsafe { *out.add(item as usize) = value };
                });
                first = first.saturating_add(threads.saturating_mul(n));
            }
        }
    };
}

/// Generates branch splitting's hand-written twin for one workload (seed 001 fig. 6b as a CUDA
/// programmer writes it, none of reconverge's machinery): two kernels with the plain kernels'
/// arguments, launched one after the other with a thread per item, the first running the if
/// branch (path A) for the items whose decision takes it, the second the else branch (path B)
/// for the others; each evaluates every item's decision.
///
/// ```text
/// reconverge_device::branch_splitting_twin!(Work => u32; work_twin_split_a, work_twin_split_b);
/// ```
#[macro_export]
macro_rules! branch_splitting_twin {
    ($workload:ty => $output:ty; $path_a:ident, $path_b:ident) => {
        $crate::branch_splitting_twin!(@pass $workload => $output; $path_a, true, path_a);
        $crate::branch_splitting_twin!(@pass $workload => $output; $path_b, false, path_b);
    };
    (@pass $workload:ty => $output:ty; $name:ident, $takes:expr, $path:ident) => {
        /// One kernel of branch splitting written by hand (seed 001 fig. 6b).
        ///
        /// # Safety
        /// `workload` points to a valid workload and `out` to `items` outputs in device memory.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
        ) {
            use $crate::reexport::TwoPath as _;
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (g, _) = $crate::plain::thread_and_threads();
            if g < items && workload.decide(g) == $takes {
                // SAFETY: `out` has `items` elements and `g < items`.
                unsafe { *out.add(g as usize) = workload.$path(g) };
            }
        }
    };
}

/// Generates the four plain kernels of one workload (see the [module docs](crate::plain)),
/// named in the order one-per-item, grid-stride, persistent, block-persistent:
///
/// ```text
/// reconverge_device::plain_kernels!(Walk => u32, reconverge_device::plain::branch_loop_item;
///     walk_one_per_item, walk_grid_stride, walk_persistent, walk_block_persistent);
/// ```
///
/// The item function takes `(&W, u32)` and returns the output. `W` must have the same layout on
/// the host and the device (`#[repr(C)]` plain data). On targets other than nvptx64 it expands
/// to nothing.
#[macro_export]
macro_rules! plain_kernels {
    (
        $workload:ty => $output:ty, $item:path;
        $one:ident, $stride:ident, $persistent:ident, $block:ident $(,)?
    ) => {
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

        /// Persistent threads on their block's own counter (seed 004 fig. 5): thread `t`
        /// starts with item `t` of its block's chunk, then takes the chunk's next item from a
        /// shared-memory counter with its own atomic add.
        ///
        /// # Safety
        /// As the one-per-item kernel.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $block(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            // SAFETY: every thread of the block calls it, once, before any claim.
            let (start, len, mut i) = unsafe { $crate::plain::block_chunk_and_counter(items) };
            while i < len {
                let item = start + i;
                // SAFETY: `out` has `items` elements and `item < start + len <= items`.
                unsafe { *out.add(item as usize) = $item(workload, item) };
                i = $crate::plain::block_claim();
            }
        }
    };
}

// The block's work counter of the block-persistent kernels, in shared memory.
#[cfg(target_arch = "nvptx64")]
core::arch::global_asm!(".shared .align 4 .b32 reconverge_plain_block_counter;");

/// For a block-persistent kernel: the block's chunk of `items` (its first item and length, one
/// contiguous chunk per block) and the calling thread's first index in it (its thread index);
/// the block's counter is set to the block's threads, behind a barrier.
///
/// # Safety
/// Every thread of the block calls it, once, before [`block_claim`] (it holds a barrier).
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub unsafe fn block_chunk_and_counter(items: u32) -> (u32, u32, u32) {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
    // SAFETY: reads special registers.
    let (tid, threads, block, blocks) = unsafe {
        (
            _thread_idx_x(),
            _block_dim_x(),
            _block_idx_x(),
            _grid_dim_x(),
        )
    };
    let chunk = items.div_ceil(blocks.max(1));
    let start = block.saturating_mul(chunk).min(items);
    let len = start.saturating_add(chunk).min(items) - start;
    if tid == 0 {
        // SAFETY: the block's own shared word.
        unsafe {
            core::arch::asm!(
                "{{ .reg .u64 %a; mov.u64 %a, reconverge_plain_block_counter; st.shared.u32 [%a], {v}; }}",
                v = in(reg32) threads,
                options(nostack)
            )
        };
    }
    // SAFETY: every thread of the block reaches this barrier (the caller's contract).
    unsafe { core::arch::nvptx::_syncthreads() };
    (start, len, tid)
}

/// The calling block's chunk of `items` (one contiguous chunk per block, as
/// `reconverge_transforms::WarpTask` cuts them): its first item, its end, the calling thread's
/// index in the block and the block's threads.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub fn block_chunk(items: u32) -> (u32, u32, u32, u32) {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
    // SAFETY: reads special registers.
    let (tid, threads, block, blocks) = unsafe {
        (
            _thread_idx_x(),
            _block_dim_x(),
            _block_idx_x(),
            _grid_dim_x(),
        )
    };
    let chunk = items.div_ceil(blocks.max(1));
    let start = block.saturating_mul(chunk).min(items);
    (start, start.saturating_add(chunk).min(items), tid, threads)
}

/// For a block-persistent kernel: the calling thread's next index in its block's chunk, one
/// atomic add on the block's counter.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub fn block_claim() -> u32 {
    let old: u32;
    // SAFETY: the block's own shared word, set before the barrier of
    // `block_chunk_and_counter` and accessed atomically after it.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 %a; mov.u64 %a, reconverge_plain_block_counter; atom.shared.add.u32 {r}, [%a], 1; }}",
            r = out(reg32) old,
            options(nostack)
        )
    };
    old
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
