//! The hand-written twins of GPU Gems 2 ch. 34's flow-control idioms (Harris & Buck, "GPU
//! Flow-Control Idioms"): what a CUDA programmer writes from the chapter, in plain Rust nvptx,
//! to hold reconverge's `Strategy::Z_CULL_MASKING` and `Strategy::occlusion_query_loop` against.
//! No reconverge machinery: one thread per item, the workload's own functions, a warp vote
//! (`vote.ballot.sync`) where a programmer would use one, and the host loop of §34.3.
//!
//! - **Z-cull masking** (§34.2.3, [`zcull_twin!`](crate::zcull_twin)): a mask kernel stores each
//!   warp's decisions as one word (`__ballot_sync` of the condition; the book's depth buffer),
//!   then one kernel per path in which a warp whose word for that path is 0 returns at once
//!   (the book's z-cull rejecting a whole tile) and the other warps run the path on the lanes
//!   whose bit says so.
//! - **The occlusion-query loop** (§34.3, [`occlusion_twin!`](crate::occlusion_twin)): a kernel
//!   that runs at most `iterations` iterations of each unfinished item's loop, keeps the item's
//!   state in global memory between launches, and adds the warp's unfinished items to a global
//!   counter (the occlusion query); each warp keeps one word of its lanes still running (the
//!   z-culled fragments), and a warp whose word is 0 returns at once. The host relaunches it
//!   until the counter reads 0.
//!
//! The per-thread code ([`zcull_mask_thread`], [`zcull_path_thread`], [`occlusion_thread`]) is
//! generic over the ballot and the memory, so that a test can run it with 32 OS threads voting
//! as a warp. Every kernel takes `(kernel: *const W, items: u32, out: *mut Output,
//! counter: *mut u32, scratch: *mut u8, a: u32, b: u32)`: the plain kernels' arguments, then the
//! bytes the passes share ([`zcull_scratch_bytes`], [`occlusion_scratch_bytes`]) and two
//! numbers (the occlusion loop's iterations per launch and whether this is its first launch).

use reconverge_transforms::{ItemLoop, NoTally, TwoPath};

/// The lanes of the warp whose first item is `base` that have an item (`base + lane < items`).
#[inline(always)]
pub fn warp_lanes(base: u32, items: u32) -> u32 {
    let n = items.saturating_sub(base);
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// Bytes of z-cull masking's scratch for `items` items: one mask word per warp of 32 items.
pub fn zcull_scratch_bytes(items: u32) -> usize {
    items.div_ceil(32) as usize * 4
}

/// The occlusion-query loop's scratch for `items` items of state `S`: the states from byte 0,
/// then one running-lanes word per warp of 32 items from the returned offset; `(offset,
/// total bytes)`.
pub fn occlusion_scratch_bytes<S>(items: u32) -> (usize, usize) {
    let states = (items as usize).saturating_mul(core::mem::size_of::<S>());
    let offset = states.div_ceil(8) * 8;
    (offset, offset + zcull_scratch_bytes(items))
}

/// Z-cull masking's mask kernel, thread `g` of a launch of at least `items` threads: the warp's
/// word of decisions (bit `l`: the item of lane `l` takes path A), which the warp's lane 0
/// stores (`Some` for it alone); `None` also for a warp past the items, which does not vote.
#[inline(always)]
pub fn zcull_mask_thread<P: TwoPath>(
    w: &P,
    g: u32,
    items: u32,
    ballot: impl FnOnce(bool) -> u32,
) -> Option<u32> {
    if g & !31 >= items {
        return None;
    }
    let word = ballot(g < items && w.decide(g));
    (g & 31 == 0).then_some(word)
}

/// Z-cull masking's kernel of path A (`path_a`) or path B, thread `g`: `word` loads its warp's
/// mask word; a warp with no lane on this path returns without running anything (the cull);
/// otherwise the thread runs the path if its item takes it and returns the output.
#[inline(always)]
pub fn zcull_path_thread<P: TwoPath>(
    w: &P,
    g: u32,
    items: u32,
    path_a: bool,
    word: impl FnOnce() -> u32,
) -> Option<P::Output> {
    let base = g & !31;
    if base >= items {
        return None;
    }
    let word = word();
    let lanes = if path_a {
        word
    } else {
        !word & warp_lanes(base, items)
    };
    if lanes == 0 {
        return None;
    }
    if lanes >> (g & 31) & 1 == 0 {
        return None;
    }
    Some(if path_a { w.path_a(g) } else { w.path_b(g) })
}

/// Where [`occlusion_thread`] keeps what outlives a launch.
pub trait PassMemory<L: ItemLoop> {
    /// The running-lanes word of warp `warp`.
    fn word(&mut self, warp: u32) -> u32;
    /// Sets it (lane 0 only).
    fn set_word(&mut self, warp: u32, word: u32);
    /// Item `item`'s stored state.
    fn state(&mut self, item: u32) -> L::State;
    /// Stores it.
    fn set_state(&mut self, item: u32, state: L::State);
    /// Item `item`'s output.
    fn put(&mut self, item: u32, output: L::Output);
    /// Adds `n` to the unfinished-items counter (the occlusion query; lane 0 only).
    fn count(&mut self, n: u32);
}

/// One launch of the occlusion-query loop, thread `g`: see the [module docs](self). In the
/// first launch (`first`) every item of the warp starts; in a later one only the lanes of the
/// warp's running word load their state, and a warp whose word is 0 returns at once. Each runs
/// at most `iterations` iterations; an item still running stores its state, one that finished
/// its output; lane 0 stores the warp's new running word and adds its lanes to the counter.
#[inline(always)]
pub fn occlusion_thread<L: ItemLoop>(
    w: &L,
    g: u32,
    items: u32,
    iterations: u32,
    first: bool,
    ballot: impl FnOnce(bool) -> u32,
    memory: &mut impl PassMemory<L>,
) {
    let base = g & !31;
    if base >= items {
        return;
    }
    let warp = g / 32;
    let word = if first {
        warp_lanes(base, items)
    } else {
        memory.word(warp)
    };
    if word == 0 {
        return;
    }
    let mut left = false;
    if word >> (g & 31) & 1 != 0 {
        let mut s = if first { w.start(g) } else { memory.state(g) };
        let mut k = 0;
        while k < iterations && w.running(&s) {
            w.body(&mut s, &mut NoTally);
            k += 1;
        }
        if w.running(&s) {
            memory.set_state(g, s);
            left = true;
        } else {
            memory.put(g, w.finish(&s));
        }
    }
    let still = ballot(left);
    if g & 31 == 0 {
        memory.set_word(warp, still);
        if still != 0 {
            memory.count(still.count_ones());
        }
    }
}

/// Generates z-cull masking's hand-written twin for one [`TwoPath`] workload: the mask kernel
/// and the kernels of path A and path B, each with the arguments of the [module docs](self)
/// (the counter and the numbers unused), one thread per item; launch them in that order on
/// one scratch of [`zcull_scratch_bytes`].
///
/// ```text
/// reconverge_device::zcull_twin!(Work => u32; work_twin_zcull_mask, work_twin_zcull_a,
///     work_twin_zcull_b);
/// ```
#[macro_export]
macro_rules! zcull_twin {
    ($workload:ty => $output:ty; $mask:ident, $path_a:ident, $path_b:ident $(,)?) => {
        /// Z-cull masking written by hand (GPU Gems 2 §34.2.3): the mask pass.
        ///
        /// # Safety
        /// `workload` points to a valid workload, `scratch` to `zcull_scratch_bytes(items)`
        /// bytes of device memory (4-aligned).
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $mask(
            workload: *const $workload,
            items: u32,
            _out: *mut $output,
            _counter: *mut u32,
            scratch: *mut u8,
            _a: u32,
            _b: u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (g, _) = $crate::plain::thread_and_threads();
            let ballot = $crate::delaying_twin::ballot;
            if let Some(word) = $crate::gems34_twin::zcull_mask_thread(workload, g, items, ballot)
            {
                // SAFETY: warp `g / 32` has an item, so its word is in the scratch.
                unsafe { *scratch.cast::<u32>().add((g / 32) as usize) = word };
            }
        }

        $crate::zcull_twin!(@path $workload => $output; $path_a, true);
        $crate::zcull_twin!(@path $workload => $output; $path_b, false);
    };
    (@path $workload:ty => $output:ty; $name:ident, $a:expr) => {
        /// Z-cull masking written by hand (GPU Gems 2 §34.2.3): one path's pass, whole warps
        /// with no lane on the path culled.
        ///
        /// # Safety
        /// As the mask pass, after it, and `out` holds `items` outputs.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
            scratch: *mut u8,
            _a: u32,
            _b: u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (g, _) = $crate::plain::thread_and_threads();
            // SAFETY: called only for a warp with an item, whose word is in the scratch.
            let word = || unsafe { *scratch.cast::<u32>().add((g / 32) as usize) };
            if let Some(value) = $crate::gems34_twin::zcull_path_thread(workload, g, items, $a, word)
            {
                // SAFETY: only an item `g < items` has an output, and `out` has `items`.
                unsafe { *out.add(g as usize) = value };
            }
        }
    };
}

/// Generates the occlusion-query loop's hand-written twin for one [`ItemLoop`] workload: one
/// kernel with the arguments of the [module docs](self), `a` the iterations per launch and `b`
/// 1 for the first launch, 0 after; one thread per item, on one scratch of
/// [`occlusion_scratch_bytes`] for the workload's state. The host zeroes the counter, launches,
/// reads the counter, and launches again (with `b = 0`) while it is not 0.
///
/// ```text
/// reconverge_device::occlusion_twin!(Work => u32; work_twin_occlusion);
/// ```
#[macro_export]
macro_rules! occlusion_twin {
    ($workload:ty => $output:ty; $name:ident $(,)?) => {
        /// The occlusion-query loop written by hand (GPU Gems 2 §34.3): one launch.
        ///
        /// # Safety
        /// `workload` points to a valid workload, `out` to `items` outputs, `counter` to one
        /// `u32`, `scratch` to `occlusion_scratch_bytes::<State>(items).1` bytes (8-aligned),
        /// all in device memory; a launch after the first follows one on the same scratch.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            counter: *mut u32,
            scratch: *mut u8,
            iterations: u32,
            first: u32,
        ) {
            type State = <$workload as $crate::reexport::ItemLoop>::State;
            struct Memory {
                out: *mut $output,
                counter: *mut u32,
                states: *mut State,
                words: *mut u32,
            }
            // SAFETY (every method): the kernel's contract; items and warps passed in are
            // those of a warp with an item, within the buffers.
            impl $crate::gems34_twin::PassMemory<$workload> for Memory {
                #[inline(always)]
                fn word(&mut self, warp: u32) -> u32 {
                    unsafe { *self.words.add(warp as usize) }
                }
                #[inline(always)]
                fn set_word(&mut self, warp: u32, word: u32) {
                    unsafe { *self.words.add(warp as usize) = word };
                }
                #[inline(always)]
                fn state(&mut self, item: u32) -> State {
                    unsafe { *self.states.add(item as usize) }
                }
                #[inline(always)]
                fn set_state(&mut self, item: u32, state: State) {
                    unsafe { *self.states.add(item as usize) = state };
                }
                #[inline(always)]
                fn put(&mut self, item: u32, output: $output) {
                    unsafe { *self.out.add(item as usize) = output };
                }
                #[inline(always)]
                fn count(&mut self, n: u32) {
                    // SAFETY: a global `u32` accessed only atomically during the launch.
                    let c = unsafe { core::sync::atomic::AtomicU32::from_ptr(self.counter) };
                    c.fetch_add(n, core::sync::atomic::Ordering::Relaxed);
                }
            }
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (offset, _) = $crate::gems34_twin::occlusion_scratch_bytes::<State>(items);
            let mut memory = Memory {
                out,
                counter,
                states: scratch.cast::<State>(),
                // SAFETY: the words start `offset` bytes into the scratch.
                words: unsafe { scratch.add(offset) }.cast::<u32>(),
            };
            let (g, _) = $crate::plain::thread_and_threads();
            $crate::gems34_twin::occlusion_thread(
                workload,
                g,
                items,
                iterations,
                first != 0,
                $crate::delaying_twin::ballot,
                &mut memory,
            );
        }
    };
}
