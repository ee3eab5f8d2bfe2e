//! The warp as the hardware runs it: one thread per lane (`target_arch = "nvptx64"` only).

use core::arch::asm;

use crate::{LaneMask, Region, Warp};

// Block-shared work counters of `Warp::block_fetch_add`. Declared in PTX because Rust has no
// way to place a static in the `.shared` state space.
core::arch::global_asm!(".shared .align 4 .b32 reconverge_block_counters[4];");

/// The calling thread's view of its warp. `V<T>` is `T`: the thread's own lane.
///
/// All lanes of the warp must run strategy code together (the strategies' loops guarantee it),
/// since votes and shuffles are `.sync` instructions over explicit masks.
#[derive(Clone, Copy, Debug)]
pub struct GpuWarp {
    lane: u32,
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
        Self { lane }
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
    fn zip_with<A: Copy, B: Copy, U: Copy>(&self, a: A, b: B, mut f: impl FnMut(A, B) -> U) -> U {
        f(a, b)
    }

    #[inline(always)]
    fn ballot(&mut self, mask: LaneMask, p: bool) -> LaneMask {
        let r: u32;
        // The whole warp votes and the mask is applied afterwards: `vote.sync` is undefined
        // for a thread outside its member mask, and every lane runs strategy code (the
        // strategies' contract), including lanes that have no work left.
        // SAFETY: all 32 lanes execute this vote.
        unsafe {
            asm!(
                "{{ .reg .pred %p; setp.ne.u32 %p, {x}, 0; vote.sync.ballot.b32 {r}, %p, 0xffffffff; }}",
                x = in(reg32) u32::from(p),
                r = out(reg32) r,
                options(nomem, nostack)
            )
        };
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
            let offset = ((counter & 3) * 4) as u64;
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
        }
        self.shuffle(mask, old, leader)
    }
}
