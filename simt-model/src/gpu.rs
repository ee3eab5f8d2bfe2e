//! The warp as the hardware runs it: one thread per lane (`target_arch = "nvptx64"` only).

use core::arch::asm;

use crate::{LaneMask, Region, Warp};

// Block-shared work counters of `Warp::block_fetch_add`. Declared in PTX because Rust has no
// way to place a static in the `.shared` state space.
core::arch::global_asm!(".shared .align 4 .b32 reconverge_block_counters[4];");

unsafe extern "C" {
    /// `vote.sync.ballot.b32` as LLVM's own intrinsic, which LLVM knows to be convergent: no
    /// transformation makes a vote depend on a condition that differs between the lanes. As
    /// an `asm!` block (opaque, not convergent) the vote of iteration delaying's per-thread
    /// loop was moved into a loop of its own for the lanes that wait, which ptxas could only
    /// compile with a divergent-warp slow path (`BRA.DIV`, `WARPSYNC.COLLECTIVE`) around every
    /// vote.
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn nvvm_vote_ballot_sync(member_mask: u32, predicate: bool) -> u32;
    /// `bar.warp.sync` (`__syncwarp`), convergent for the same reason.
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn nvvm_bar_warp_sync(member_mask: u32);
}

/// `__syncwarp()`: waits until every lane of the calling warp reaches it, their shared-memory
/// stores before it seen by the loads after it.
///
/// # Safety
/// Every lane of the warp must call it at the same point (warp-uniform control flow), as
/// `bar.warp.sync` with a full mask requires.
#[inline(always)]
pub unsafe fn sync_warp() {
    // SAFETY: the caller's contract.
    unsafe { nvvm_bar_warp_sync(u32::MAX) }
}

/// The per-lane value operations of a warp whose `V<T>` is `T`, the calling thread's own value
/// (both GPU warps): each applies its function to that one value.
macro_rules! own_lane_values {
    () => {
        #[inline(always)]
        fn splat<T: Copy>(&self, value: T) -> T {
            value
        }

        #[inline(always)]
        fn map<T: Copy, U: Copy>(&self, v: T, mut f: impl FnMut(T) -> U) -> U {
            f(v)
        }

        #[inline(always)]
        fn map_ref<T: Copy, U: Copy>(&self, v: &T, mut f: impl FnMut(&T) -> U) -> U {
            f(v)
        }

        #[inline(always)]
        fn zip_with<A: Copy, B: Copy, U: Copy>(
            &self,
            a: A,
            b: B,
            mut f: impl FnMut(A, B) -> U,
        ) -> U {
            f(a, b)
        }
    };
}

/// The calling thread's view of its warp. `V<T>` is `T`: the thread's own lane.
///
/// All lanes of the warp must run strategy code together (the strategies' loops guarantee it),
/// since votes and shuffles are `.sync` instructions over explicit masks.
#[derive(Clone, Copy, Debug)]
pub struct GpuWarp {
    lane: u32,
    /// The launch's grid-wide work counter in global memory (null: none).
    grid: *mut u32,
}

impl Default for GpuWarp {
    fn default() -> Self {
        Self::new()
    }
}

impl GpuWarp {
    /// The warp of the calling thread.
    #[inline(always)]
    pub fn new() -> Self {
        let lane: u32;
        // SAFETY: reads a special register; no memory is touched.
        unsafe {
            asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(pure, nomem, nostack))
        };
        Self {
            lane,
            grid: core::ptr::null_mut(),
        }
    }

    /// The same warp taking grid-wide work ([`Warp::grid_fetch_add`]) from `counter`.
    ///
    /// # Safety
    /// `counter` is null or points to a `u32` of global memory that every access during the
    /// kernel reaches atomically.
    #[inline(always)]
    pub unsafe fn with_grid_counter(mut self, counter: *mut u32) -> Self {
        self.grid = counter;
        self
    }

    /// Sets the block's work counters. Call from every thread of the block before any
    /// warp uses [`Warp::block_fetch_add`]; it ends with a block barrier.
    ///
    /// # Safety
    /// Every thread of the block must call it (it contains `bar.sync 0`).
    #[inline(always)]
    pub unsafe fn init_block_counters(values: [u32; 4]) {
        // SAFETY: reads a special register.
        let tid = unsafe { core::arch::nvptx::_thread_idx_x() };
        if tid == 0 {
            for (i, v) in values.iter().enumerate() {
                let offset = (i * 4) as u64;
                // SAFETY: the counters array has 4 words; `i < 4`.
                unsafe {
                    asm!(
                        "{{ .reg .u64 %a; mov.u64 %a, reconverge_block_counters; add.u64 %a, %a, {o}; st.shared.u32 [%a], {v}; }}",
                        o = in(reg64) offset,
                        v = in(reg32) *v,
                        options(nostack)
                    )
                };
            }
        }
        // SAFETY: the caller guarantees every thread of the block reaches this barrier.
        unsafe { core::arch::nvptx::_syncthreads() };
    }

    /// Reads a block work counter (after a barrier, to see every warp's additions).
    #[inline(always)]
    pub fn block_counter(index: usize) -> u32 {
        let offset = ((index & 3) * 4) as u64;
        let v: u32;
        // SAFETY: the index is masked into the 4-word array.
        unsafe {
            asm!(
                "{{ .reg .u64 %a; mov.u64 %a, reconverge_block_counters; add.u64 %a, %a, {o}; ld.volatile.shared.u32 {v}, [%a]; }}",
                o = in(reg64) offset,
                v = out(reg32) v,
                options(nostack, readonly)
            )
        };
        v
    }
}

impl Warp for GpuWarp {
    type V<T: Copy> = T;

    #[inline(always)]
    fn width(&self) -> u32 {
        crate::WARP_SIZE
    }

    #[inline(always)]
    fn lane_ids(&self) -> u32 {
        self.lane
    }

    own_lane_values!();

    #[inline(always)]
    fn ballot(&mut self, mask: LaneMask, p: bool) -> LaneMask {
        // The whole warp votes and the mask is applied afterwards: `vote.sync` is undefined
        // for a thread outside its member mask, and every lane runs strategy code (the
        // strategies' contract), including lanes that have no work left.
        // SAFETY: all 32 lanes execute this vote.
        let r = unsafe { nvvm_vote_ballot_sync(u32::MAX, p) };
        r & mask
    }

    #[inline(always)]
    fn branch<T: Copy>(
        &mut self,
        _region: Region,
        mask: LaneMask,
        v: &mut T,
        mut f: impl FnMut(&mut T),
    ) {
        if (mask >> self.lane) & 1 != 0 {
            f(v);
        }
    }

    #[inline(always)]
    fn shuffle(&mut self, mask: LaneMask, v: u32, src: u32) -> u32 {
        let r: u32;
        // As for `ballot`: the whole warp shuffles, then lanes outside `mask` keep their value.
        // SAFETY: all 32 lanes execute this shuffle.
        unsafe {
            asm!(
                "shfl.sync.idx.b32 {r}, {v}, {s}, 0x1f, 0xffffffff;",
                r = out(reg32) r,
                v = in(reg32) v,
                s = in(reg32) src,
                options(nomem, nostack)
            )
        };
        if (mask >> self.lane) & 1 != 0 { r } else { v }
    }

    #[inline(always)]
    fn read_lane(&mut self, mask: LaneMask, v: u32, lane: u32) -> u32 {
        self.shuffle(mask, v, lane)
    }

    #[inline(always)]
    fn block_fetch_add(&mut self, mask: LaneMask, counter: usize, n: u32) -> u32 {
        let leader = mask.trailing_zeros();
        let mut old = 0u32;
        if self.lane == leader {
            old = shared_fetch_add(counter, n);
        }
        self.shuffle(mask, old, leader)
    }

    #[inline(always)]
    fn grid_fetch_add(&mut self, mask: LaneMask, n: u32) -> u32 {
        let leader = mask.trailing_zeros();
        let mut old = u32::MAX;
        if self.lane == leader {
            // SAFETY: `grid` is null or a global `u32` accessed only atomically
            // (`with_grid_counter`'s contract).
            old = unsafe { global_fetch_add(self.grid, n) };
        }
        self.shuffle(mask, old, leader)
    }
}

/// `atomicAdd(counter, n)` on a global `u32`; `u32::MAX` (no work) for a null counter.
///
/// # Safety
/// `counter` is null or points to a `u32` of global memory accessed only atomically.
#[inline(always)]
unsafe fn global_fetch_add(counter: *mut u32, n: u32) -> u32 {
    if counter.is_null() {
        return u32::MAX;
    }
    // SAFETY: the caller's contract; `AtomicU32` has the layout of `u32`.
    let cell = unsafe { core::sync::atomic::AtomicU32::from_ptr(counter) };
    cell.fetch_add(n, core::sync::atomic::Ordering::Relaxed)
}

/// `atom.shared.add.u32` on the block work counter `counter` (masked into the 4-word array).
#[inline(always)]
fn shared_fetch_add(counter: usize, n: u32) -> u32 {
    let offset = ((counter & 3) * 4) as u64;
    let old: u32;
    // SAFETY: the index is masked into the 4-word shared array.
    unsafe {
        asm!(
            "{{ .reg .u64 %a; mov.u64 %a, reconverge_block_counters; add.u64 %a, %a, {o}; atom.shared.add.u32 {r}, [%a], {n}; }}",
            o = in(reg64) offset,
            n = in(reg32) n,
            r = out(reg32) old,
            options(nostack)
        )
    };
    old
}

/// The calling thread as a warp of one lane: what the strategies whose lanes never need to
/// agree (`reconverge_transforms::Strategy::runs_per_thread`) run on, so that each thread runs the plain loop a CUDA programmer would write and the hardware
/// handles divergence. A vote is the thread's own value, a masked region an `if`, a shuffle
/// the identity; nothing waits for the other lanes.
///
/// Counter claims ([`Warp::block_fetch_add`], [`Warp::grid_fetch_add`]) are still aggregated
/// over the threads of the warp that claim at the same instruction with the same amount
/// (`activemask`, `match.any.sync`): the lowest of them adds for all, and each takes its rank's
/// share, one atomic per group instead of one per thread (NVIDIA's warp-aggregated atomics,
/// written with explicit member masks as Volta's independent thread scheduling requires). Each
/// thread gets exactly what a lone `atomicAdd` of its own would have given it, in some order.
#[derive(Clone, Copy, Debug)]
pub struct ThreadWarp {
    lane: u32,
    grid: *mut u32,
}

impl ThreadWarp {
    /// The calling thread, taking grid-wide work from `counter` (null: none).
    ///
    /// # Safety
    /// As [`GpuWarp::with_grid_counter`].
    #[inline(always)]
    pub unsafe fn new(counter: *mut u32) -> Self {
        Self {
            lane: GpuWarp::new().lane,
            grid: counter,
        }
    }

    /// `fetch_add(n)` for every thread of the warp that calls it here with the same `n`, made
    /// with one `atomic(n * group size)` by the group's lowest lane.
    #[inline(always)]
    fn aggregated(&self, n: u32, atomic: impl FnOnce(u32) -> u32) -> u32 {
        let (active, peers): (u32, u32);
        // SAFETY: `activemask` reads which threads execute this instruction together; every
        // one of them then executes `match.any.sync` and `shfl.sync` below with that mask (or
        // its subset of peers), as the `.sync` instructions require.
        unsafe {
            asm!("activemask.b32 {m};", m = out(reg32) active, options(nomem, nostack));
            asm!(
                "match.any.sync.b32 {p}, {n}, {m};",
                p = out(reg32) peers,
                n = in(reg32) n,
                m = in(reg32) active,
                options(nomem, nostack)
            );
        }
        let leader = peers.trailing_zeros();
        let below = peers & ((1u32 << self.lane) - 1);
        let mut old = 0;
        if self.lane == leader {
            old = atomic(n.wrapping_mul(peers.count_ones()));
        }
        let base: u32;
        // SAFETY: every thread of `peers` reaches this shuffle (see above).
        unsafe {
            asm!(
                "shfl.sync.idx.b32 {r}, {v}, {s}, 0x1f, {m};",
                r = out(reg32) base,
                v = in(reg32) old,
                s = in(reg32) leader,
                m = in(reg32) peers,
                options(nomem, nostack)
            )
        };
        base.wrapping_add(n.wrapping_mul(below.count_ones()))
    }
}

impl Warp for ThreadWarp {
    type V<T: Copy> = T;

    #[inline(always)]
    fn width(&self) -> u32 {
        1
    }

    #[inline(always)]
    fn lane_ids(&self) -> u32 {
        0
    }

    own_lane_values!();

    #[inline(always)]
    fn ballot(&mut self, mask: LaneMask, p: bool) -> LaneMask {
        u32::from(p) & mask
    }

    #[inline(always)]
    fn branch<T: Copy>(
        &mut self,
        _region: Region,
        mask: LaneMask,
        v: &mut T,
        mut f: impl FnMut(&mut T),
    ) {
        if mask & 1 != 0 {
            f(v);
        }
    }

    #[inline(always)]
    fn shuffle(&mut self, _mask: LaneMask, v: u32, _src: u32) -> u32 {
        v
    }

    #[inline(always)]
    fn read_lane(&mut self, _mask: LaneMask, v: u32, _lane: u32) -> u32 {
        v
    }

    #[inline(always)]
    fn block_fetch_add(&mut self, mask: LaneMask, counter: usize, n: u32) -> u32 {
        if mask & 1 == 0 {
            return 0;
        }
        self.aggregated(n, |total| shared_fetch_add(counter, total))
    }

    #[inline(always)]
    fn grid_fetch_add(&mut self, mask: LaneMask, n: u32) -> u32 {
        if mask & 1 == 0 || self.grid.is_null() {
            return u32::MAX;
        }
        let grid = self.grid;
        // SAFETY: `grid` is a global `u32` accessed only atomically (`new`'s contract).
        self.aggregated(n, |total| unsafe { global_fetch_add(grid, total) })
    }
}
