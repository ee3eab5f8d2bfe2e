//! What every entry point runs, and the device panic handler.

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use reconverge_simt::{GpuWarp, ThreadWarp, WARP_SIZE, Warp};
use reconverge_transforms::strategies::collaborative_context_collection::WarpDeal;
use reconverge_transforms::strategies::thread_data_remapping::Permutation;
use reconverge_transforms::{
    Assignment, Kernel, PathSchedule, Sink, Strategy, Tally, WarpProgram, WarpTask,
    initial_block_counters,
};

use crate::EntryArgs;
use crate::shared_stack::SharedContextStack;

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

/// Runs `strategy` (pass `pass`) on `*args.kernel` for the calling warp: the body of every
/// [`crate::warp_kernel!`] entry point.
///
/// # Safety
/// `args` holds what [`EntryArgs`] documents: `kernel` points to a valid `K` in device memory;
/// `out` has `items` elements; `tally` has `tally_copies` copies of `tally_len` elements each
/// (or `tally_len` is 0); `scratch` has `scratch_len` elements (or `scratch_len` is 0),
/// accessed only atomically; `work_counter` is null or one zeroed `u32` accessed only
/// atomically (the grid-wide work queue); `status` points to one `u32`; every thread of the
/// block calls this (it contains a block barrier) and blocks have a multiple of 32 threads.
#[inline(always)]
pub unsafe fn run_warp_program<K: Kernel>(args: EntryArgs<K>, strategy: Strategy, pass: u32) {
    let EntryArgs {
        kernel,
        out,
        tally,
        scratch,
        work_counter,
        status,
        items,
        pass: _,
        tally_len,
        tally_copies,
        scratch_len,
        parameters: _,
    } = args;
    // SAFETY: reads special registers.
    let (block, blocks, threads, tid) = unsafe {
        (
            _block_idx_x(),
            _grid_dim_x(),
            _block_dim_x(),
            _thread_idx_x(),
        )
    };
    // Only a strategy that takes items from its block's counter needs the counters set (and
    // the barrier that comes with it): counter 0 is the dealer's of `Assignment::Dynamic`
    // (the warp programs' and collaborative context collection's), and nothing else reads
    // them. Static, remapped and grid-wide dealing skip the barrier, as the twins do (z-cull
    // masking's passes paid a barrier per block for nothing). The strategy's technique is a
    // constant of the entry point, the same in every thread.
    if strategy.items == Assignment::Dynamic {
        // SAFETY: every thread of the block calls this function, hence the barrier inside.
        unsafe { GpuWarp::init_block_counters(initial_block_counters(threads)) };
    }
    // SAFETY: the caller guarantees `kernel` points to a valid `K`.
    let kernel = unsafe { &*kernel };
    // Non-null where it has elements (the caller's contract): only the length is tested.
    let scratch: &[AtomicU32] = if scratch_len == 0 {
        &[]
    } else {
        // SAFETY: `scratch` holds `scratch_len` u32s of device memory (the caller's
        // contract), `AtomicU32` has the layout of `u32`, and every access during the kernel
        // goes through these atomics.
        unsafe { core::slice::from_raw_parts(scratch.cast::<AtomicU32>(), scratch_len as usize) }
    };
    let mut sink = GlobalSink { out, items };
    // Block `b` adds to copy `b % tally_copies`: the hottest accumulators (MCML's absorption
    // bins by the source) take 1 / tally_copies of the atomics each, which the L2 serialises
    // per address. The host adds the copies up.
    let copy = block % tally_copies.max(1);
    let mut acc = GlobalTally {
        // In bounds: `copy < tally_copies` and `tally` has `tally_copies * tally_len` elements
        // (the caller's contract); wrapping, for a null tally of length 0.
        tally: tally.wrapping_add(copy as usize * tally_len as usize),
        len: tally_len,
    };
    // Thread-data remapping runs its permutation pass first (pass 0, warp programs below),
    // then the strategy's loop over the permutation's slots: the pass the per-thread and the
    // voted forms run.
    let loop_pass = u32::from(strategy.items == Assignment::Remapped);
    // The technique is a constant of the entry point, so only one of these is compiled in.
    let lane_passes = matches!(
        strategy.paths,
        PathSchedule::ZCullMasking
            | PathSchedule::OcclusionQueryLoop { .. }
            | PathSchedule::BranchSplitting
    );
    let ran = if pass < loop_pass || lane_passes {
        // A pass as each lane's own code with the warp's ballots, as the CUDA twins write it:
        // remapping's permutation pass (`Kernel::remap_permutation`, the twin's `permute`),
        // GPU Gems 2's passes and branch splitting's (`Kernel::pass_as_lane`); the warp program
        // where the kernel has no such form.
        let task = WarpTask::new(items, blocks, block, threads, tid / WARP_SIZE);
        let (lane, vote) = warp_vote();
        let as_lane = kernel.passes(&strategy).is_ok()
            && if pass < loop_pass {
                kernel.remap_permutation(lane, vote, task, scratch)
            } else {
                let put = |item, out| sink.put(item, out);
                kernel.pass_as_lane(&strategy, pass, lane, vote, task, scratch, put, &mut acc)
            };
        as_lane || {
            // SAFETY: as below.
            let mut warp = unsafe { GpuWarp::new().with_grid_counter(work_counter) };
            run(
                kernel, &mut warp, &strategy, pass, task, scratch, &mut sink, &mut acc,
            )
        }
    } else if strategy.runs_per_thread() || strategy.runs_as_thread_program() {
        // Each thread on its own: a warp of one lane whose task is the thread's items (warp
        // `tid` of width 1 in the block). The plain loop, with no vote or mask of the warp's;
        // for branch path unification its program on that one lane, the loop fig. 10 writes
        // (`Strategy::runs_as_thread_program`), the hardware reconverging lanes at the paths.
        // SAFETY: `work_counter` is the launch's zeroed grid counter (the caller's contract).
        let mut warp = unsafe { ThreadWarp::new(work_counter) };
        let task = WarpTask::new(items, blocks, block, threads, tid);
        // A pass the strategy does not have runs nothing (and reports it), without reaching
        // the warp program: its program would refuse it too, but LLVM cannot see that, and
        // kept the whole warp program beside MCML's plain loop (whose plain form always runs).
        let applies = pass == loop_pass && kernel.passes(&strategy).is_ok();
        applies
            && (if strategy.runs_per_thread() {
                plain_items(
                    kernel, &mut warp, &strategy, task, scratch, &mut sink, &mut acc,
                )
            } else {
                unified_items(kernel, &strategy, task, &mut sink, &mut acc)
            } || run(
                kernel, &mut warp, &strategy, pass, task, scratch, &mut sink, &mut acc,
            ))
    } else {
        // The loop schedules that vote per iteration first as each thread's plain loop with a
        // warp vote at the iteration point, the form a programmer writes by hand; the warp
        // program where the kernel has no such form. Iteration delaying through
        // `Kernel::delayed_items`, and branch distribution with delaying the same way (a kernel
        // that implements `delayed_items` for it writes its shared code once in that loop:
        // MCML's boundary); speculative reconvergence through `Kernel::speculative_items`.
        let voted = matches!(
            strategy.paths,
            PathSchedule::IterationDelaying(_)
                | PathSchedule::BranchDistribution { delaying: Some(_) }
                | PathSchedule::SpeculativeReconvergence { .. }
        );
        // Collaborative context collection: each thread's loop with warp votes, the contexts on
        // the warp's stack in the block's dynamic shared memory (`Kernel::collected_items`).
        // No warp program runs it on the GPU (its stacks would be each thread's own).
        let collected = strategy.paths == PathSchedule::CollaborativeContextCollection
            && pass == 0
            && kernel.passes(&strategy).is_ok()
            && {
                let warp_in_block = tid / WARP_SIZE;
                let per_warp = kernel.dynamic_shared_bytes(&strategy, WARP_SIZE);
                match SharedContextStack::for_warp(warp_in_block, per_warp) {
                    None => false,
                    Some(mut stack) => {
                        // SAFETY: as above.
                        let mut warp = unsafe { ThreadWarp::new(work_counter) };
                        let task = WarpTask::new(items, blocks, block, threads, warp_in_block);
                        let (lane, vote) = warp_vote();
                        let deal = WarpDeal::new(task, strategy.items).on(&mut warp);
                        let put = |item, out| sink.put(item, out);
                        kernel.collected_items(lane, vote, &mut stack, deal, put, &mut acc)
                    }
                }
            };
        let delayed =
            !collected && voted && pass == loop_pass && kernel.passes(&strategy).is_ok() && {
                // SAFETY: as above.
                let mut warp = unsafe { ThreadWarp::new(work_counter) };
                let task = WarpTask::new(items, blocks, block, threads, tid);
                let (lane, vote) = warp_vote();
                let next = thread_items(&mut warp, &strategy, task, scratch);
                let put = |item, out| sink.put(item, out);
                // Read through its pointer, the workload is read again after every store the loop
                // makes (an item's output, a tally add: LLVM cannot prove they do not alias it),
                // so each voted iteration re-loaded its numbers from global memory where CUDA's
                // by-value parameters cost nothing. A small workload is copied into registers
                // once; a large one (MCML's layers) stays put, where a copy would go to local
                // memory. Only here: the plain loops do not gain from it and the copy costs
                // registers (up to 8 more on the paper kernels).
                let copy;
                let kernel =
                    if size_of::<K>() <= VOTED_LOOP_COPIED_BYTES && !core::mem::needs_drop::<K>() {
                        // SAFETY: a bitwise copy of a valid `K` without drop glue, used only here.
                        copy = unsafe { core::ptr::read(kernel) };
                        &copy
                    } else {
                        kernel
                    };
                match (strategy.paths, strategy.paths.decision()) {
                    (
                        PathSchedule::SpeculativeReconvergence {
                            threshold,
                            max_wait,
                        },
                        _,
                    ) => kernel
                        .speculative_items(threshold, max_wait, lane, vote, next, put, &mut acc),
                    (_, Some(decision)) => {
                        kernel.delayed_items(decision, lane, vote, next, put, &mut acc)
                    }
                    (_, None) => false,
                }
            };
        collected || delayed || {
            // SAFETY: as above.
            let mut warp = unsafe { GpuWarp::new().with_grid_counter(work_counter) };
            let task = WarpTask::new(items, blocks, block, threads, tid / WARP_SIZE);
            run(
                kernel, &mut warp, &strategy, pass, task, scratch, &mut sink, &mut acc,
            )
        }
    };
    if !ran && block == 0 && tid == 0 && !status.is_null() {
        // SAFETY: `status` points to one `u32` (the caller's contract).
        unsafe { *status = 1 };
    }
}

/// The calling thread's lane and its warp's ballot over all 32 lanes (`__ballot_sync` with a
/// full mask): what the per-thread forms that vote take. Every lane of the warp must call the
/// ballot at the same points.
#[inline(always)]
fn warp_vote() -> (u32, impl FnMut(bool) -> u32) {
    let mut whole_warp = GpuWarp::new();
    let lane = whole_warp.lane_ids();
    (lane, move |p: bool| whole_warp.ballot(u32::MAX, p))
}

/// The largest workload, in bytes, that the voted per-thread loops copy into registers.
const VOTED_LOOP_COPIED_BYTES: usize = 64;

/// The calling thread's items of a [`Strategy::runs_per_thread`] strategy, run by
/// [`Kernel::plain_items`]: the plain per-thread loop, items dealt in the strategy's order (a
/// stride of the grid for the baseline, as the plain grid-stride kernel; the block's or the
/// launch's counter for dynamic work, thread `t` starting with item `t`, as
/// [`reconverge_transforms::Assignment`] deals them to warps); branch distribution by
/// [`Kernel::distributed_items`]. `false`, with nothing done, if the kernel has no such form.
#[inline(always)]
fn plain_items<K: Kernel>(
    kernel: &K,
    warp: &mut ThreadWarp,
    strategy: &Strategy,
    task: WarpTask,
    scratch: &[AtomicU32],
    sink: &mut GlobalSink<K::Output>,
    acc: &mut GlobalTally,
) -> bool {
    if *strategy == Strategy::BASELINE {
        // Items in a fixed order: the plain grid-stride loop (thread `g` runs items `g`,
        // `g + threads`, ...: one item each at the default launch, and no division for a
        // block's chunk), each item's own loop on its own (flattening buys nothing without a
        // counter to share).
        let (first, stride) = (task.thread_in_grid(0, 1), task.launch_threads());
        let mut item = first;
        while item < task.items {
            match kernel.plain_item(item, acc) {
                Some(out) => sink.put(item, out),
                None => return item != first,
            }
            item = match item.checked_add(stride) {
                Some(next) => next,
                None => break,
            };
        }
        return true;
    }
    let next = thread_items(warp, strategy, task, scratch);
    let put = |item, out| sink.put(item, out);
    if matches!(strategy.paths, PathSchedule::BranchDistribution { .. }) {
        kernel.distributed_items(next, put, acc)
    } else {
        kernel.plain_items(next, put, acc)
    }
}

/// The calling thread's groups under branch path unification, run by
/// [`Kernel::unified_items`]: the groups of `items_per_thread` items its lane has in the warp
/// program (thread `t` of the block starts at `t · n` of the block's chunk and steps by the
/// block's threads times `n`). `false`, with nothing done, for another strategy or a kernel
/// without the form.
#[inline(always)]
fn unified_items<K: Kernel>(
    kernel: &K,
    strategy: &Strategy,
    task: WarpTask,
    sink: &mut GlobalSink<K::Output>,
    acc: &mut GlobalTally,
) -> bool {
    let PathSchedule::BranchPathUnification { items_per_thread } = strategy.paths else {
        return false;
    };
    let n = items_per_thread.max(1);
    let stride = task.threads_per_block.saturating_mul(n);
    let mut first = task
        .block_start
        .saturating_add(task.thread_in_block(0, 1).saturating_mul(n));
    let end = task.block_end;
    let groups = move || {
        if first >= end {
            return None;
        }
        let group = (first, (end - first).min(n));
        // A stride of 0 (no threads) cannot happen in a launch; stop rather than loop.
        first = if stride == 0 {
            end
        } else {
            first.saturating_add(stride)
        };
        Some(group)
    };
    kernel.unified_items(groups, |item, out| sink.put(item, out), acc)
}

/// The items of the calling thread (warp `task.warp_in_block` of width 1) in `strategy`'s
/// order, one per call until `None`: thread `t` of the block starts with item `t` of its
/// block's chunk (of the launch, for grid-wide dealing), as
/// [`reconverge_transforms::Assignment`] deals them to warps, and takes the next from its
/// block's counter, the launch's counter or a stride of the block. Under thread-data
/// remapping the stride deals slots of the permutation in `scratch` and the thread runs each
/// slot's item.
#[inline(always)]
fn thread_items<'w>(
    warp: &'w mut ThreadWarp,
    strategy: &Strategy,
    task: WarpTask,
    scratch: &'w [AtomicU32],
) -> impl FnMut() -> Option<u32> + 'w {
    let perm = (strategy.items == Assignment::Remapped).then(|| Permutation::new(scratch));
    let grid_wide = strategy.deals_across_blocks();
    let block_counter = strategy.deals_dynamically() && !grid_wide;
    let (first, end) = if grid_wide {
        (task.thread_in_grid(0, 1), task.items)
    } else {
        (
            task.block_start.saturating_add(task.warp_in_block),
            task.block_end,
        )
    };
    let mut dealt: Option<u32> = None;
    move || {
        let item = match dealt {
            None => first,
            Some(_) if grid_wide => task
                .launch_threads()
                .saturating_add(warp.grid_fetch_add(1, 1)),
            Some(_) if block_counter => task
                .block_start
                .saturating_add(warp.block_fetch_add(1, 0, 1)),
            Some(last) => last.saturating_add(task.threads_per_block),
        };
        dealt = Some(item);
        (item < end).then(|| perm.map_or(item, |p| p.item(item)))
    }
}

/// Builds the warp's program and steps it to the end; `false` if the strategy cannot run.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run<K: Kernel, W: Warp>(
    kernel: &K,
    warp: &mut W,
    strategy: &Strategy,
    pass: u32,
    task: WarpTask,
    scratch: &[AtomicU32],
    sink: &mut GlobalSink<K::Output>,
    acc: &mut GlobalTally,
) -> bool {
    match kernel.program(warp, strategy, pass, task, scratch) {
        Ok(mut program) => {
            while program.step(warp, sink, acc) {}
            true
        }
        Err(_) => false,
    }
}
