//! The reference SIMT model: one warp in lockstep over up to 32 lanes.

use core::cell::Cell;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::{Counters, LaneMask, Region, WARP_SIZE, Warp, full_mask, lanes};

/// Block-shared state the model's warps see: the work counters of
/// [`Warp::block_fetch_add`].
///
/// A CPU executor makes one per block and hands it to every warp of that block; warps of a
/// block run on one OS thread, so plain cells suffice.
#[derive(Debug, Default)]
pub struct BlockShared {
    counters: [Cell<u32>; 4],
}

impl BlockShared {
    /// Counters of a fresh block, all zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets counter `index` (out-of-range indices are ignored).
    pub fn set(&self, index: usize, value: u32) {
        if let Some(c) = self.counters.get(index) {
            c.set(value);
        }
    }

    /// Reads counter `index` (0 when out of range).
    pub fn get(&self, index: usize) -> u32 {
        self.counters.get(index).map_or(0, Cell::get)
    }
}

/// One warp executed in lockstep: `V<T>` is `[T; 32]`, lanes at or beyond the width exist but
/// are never active.
///
/// Every [`Warp::branch`] with at least one active lane issues its region once; the model counts
/// issues, issue slots (weighted by the region's cost) and active lane-slots per region. Lanes
/// reconverge at the end of each `branch` (structured reconvergence, as pre-Volta hardware and
/// the papers assume).
#[derive(Debug)]
pub struct ModelWarp<'b> {
    width: u32,
    counters: Counters,
    block: Option<&'b BlockShared>,
    private_block: BlockShared,
    grid: Option<&'b AtomicU32>,
    counting: bool,
    reconverges_per_item: bool,
    shares_common_path_code: bool,
}

impl Default for ModelWarp<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'b> ModelWarp<'b> {
    /// A 32-lane warp with its own block-shared counters.
    pub fn new() -> Self {
        Self::with_width(WARP_SIZE)
    }

    /// A warp of `width` lanes (clamped to `1..=32`): the G80-era examples and other SIMD widths.
    pub fn with_width(width: u32) -> Self {
        let width = width.clamp(1, WARP_SIZE);
        Self {
            width,
            counters: Counters::new(width),
            block: None,
            private_block: BlockShared::new(),
            grid: None,
            counting: true,
            reconverges_per_item: false,
            shares_common_path_code: false,
        }
    }

    /// A 32-lane warp of a block whose shared state is `block`.
    pub fn in_block(block: &'b BlockShared) -> Self {
        Self {
            block: Some(block),
            ..Self::new()
        }
    }

    /// The same warp with only its first `width` lanes (clamped to `1..=32`): `1` is a thread
    /// on its own, as the CUDA backend runs the strategies whose lanes never need to agree.
    pub fn narrowed_to(mut self, width: u32) -> Self {
        self.width = width.clamp(1, WARP_SIZE);
        self.counters = Counters::new(self.width);
        self
    }

    /// The same warp taking grid-wide work from `counter` ([`Warp::grid_fetch_add`]): the one
    /// counter every block of the launch shares.
    pub fn with_grid_counter(mut self, counter: &'b AtomicU32) -> Self {
        self.grid = Some(counter);
        self
    }

    /// The same warp counting the plain per-thread loop as a GPU compiler makes it: a factored
    /// branch issues its shared code once ([`Warp::shares_common_path_code`]), and, where
    /// `reconverges_per_item`, its lanes wait for one another after each item
    /// ([`Warp::reconverges_per_item`]: the compiler nested the item's loop inside the loop
    /// over items; where it left one flat loop, a lane takes its next item at once). The
    /// advisor counts the strategies that run per thread this way.
    pub fn as_compiled_plain_loop(mut self, reconverges_per_item: bool) -> Self {
        self.shares_common_path_code = true;
        self.reconverges_per_item = reconverges_per_item;
        self
    }

    /// Turns counting on or off. Off, the model runs only the lanes' work (what a fast CPU
    /// backend wants); the counters then stay as they were.
    pub fn set_counting(&mut self, on: bool) {
        self.counting = on;
    }

    #[inline(always)]
    fn record(&mut self, region: Region, lanes: u32) {
        if self.counting {
            self.counters.record(region, lanes);
        }
    }

    /// What this warp has counted so far.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Takes the counts, leaving zeros.
    pub fn take_counters(&mut self) -> Counters {
        core::mem::replace(&mut self.counters, Counters::new(self.width))
    }

    fn block(&self) -> &BlockShared {
        self.block.unwrap_or(&self.private_block)
    }

    fn live(&self, mask: LaneMask) -> LaneMask {
        mask & full_mask(self.width)
    }
}

impl Warp for ModelWarp<'_> {
    type V<T: Copy> = [T; WARP_SIZE as usize];

    fn width(&self) -> u32 {
        self.width
    }

    fn lane_ids(&self) -> [u32; 32] {
        core::array::from_fn(|i| i as u32)
    }

    fn reconverges_per_item(&self) -> bool {
        self.reconverges_per_item
    }

    fn shares_common_path_code(&self) -> bool {
        self.shares_common_path_code
    }

    fn splat<T: Copy>(&self, value: T) -> [T; 32] {
        [value; 32]
    }

    fn map<T: Copy, U: Copy>(&self, v: [T; 32], f: impl FnMut(T) -> U) -> [U; 32] {
        v.map(f)
    }

    fn map_ref<T: Copy, U: Copy>(&self, v: &[T; 32], mut f: impl FnMut(&T) -> U) -> [U; 32] {
        core::array::from_fn(|i| f(&v[i]))
    }

    fn zip_with<A: Copy, B: Copy, U: Copy>(
        &self,
        a: [A; 32],
        b: [B; 32],
        mut f: impl FnMut(A, B) -> U,
    ) -> [U; 32] {
        core::array::from_fn(|i| f(a[i], b[i]))
    }

    #[inline]
    fn ballot(&mut self, mask: LaneMask, p: [bool; 32]) -> LaneMask {
        let mask = self.live(mask);
        if mask != 0 {
            self.record(Region::VOTE, mask.count_ones());
        }
        // Every lane, then the mask: a branch-free loop the compiler vectorises (this is the
        // hottest operation of the model).
        let mut bits = 0u32;
        for (lane, want) in p.iter().enumerate() {
            bits |= u32::from(*want) << lane;
        }
        bits & mask
    }

    fn branch<T: Copy>(
        &mut self,
        region: Region,
        mask: LaneMask,
        v: &mut [T; 32],
        mut f: impl FnMut(&mut T),
    ) {
        let mask = self.live(mask);
        if mask == 0 {
            return;
        }
        self.record(region, mask.count_ones());
        for lane in lanes(mask) {
            f(&mut v[lane as usize]);
        }
    }

    fn shuffle(&mut self, mask: LaneMask, v: [u32; 32], src: [u32; 32]) -> [u32; 32] {
        let mask = self.live(mask);
        if mask != 0 {
            self.record(Region::EXCHANGE, mask.count_ones());
        }
        let mut out = v;
        for lane in lanes(mask) {
            // Like `shfl.sync.idx`, the source index wraps within the warp width.
            let from = (src[lane as usize] % self.width) as usize;
            out[lane as usize] = v[from];
        }
        out
    }

    fn read_lane(&mut self, mask: LaneMask, v: [u32; 32], lane: u32) -> u32 {
        if self.live(mask) != 0 {
            self.record(Region::EXCHANGE, mask.count_ones());
        }
        v[(lane % self.width) as usize]
    }

    fn block_fetch_add(&mut self, mask: LaneMask, counter: usize, n: u32) -> u32 {
        if self.live(mask) != 0 {
            self.record(Region::ATOMIC, 1);
        }
        let block = self.block();
        let old = block.get(counter);
        block.set(counter, old.wrapping_add(n));
        old
    }

    fn grid_fetch_add(&mut self, mask: LaneMask, n: u32) -> u32 {
        if self.live(mask) != 0 {
            self.record(Region::ATOMIC, 1);
        }
        self.grid
            .map_or(u32::MAX, |c| c.fetch_add(n, Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORK: Region = Region::new(0, "work", 1);

    #[test]
    fn ballot_only_sees_lanes_of_the_mask() {
        let mut w = ModelWarp::new();
        let even = w.map(w.lane_ids(), |l| l % 2 == 0);
        assert_eq!(w.ballot(0b1111, even), 0b0101);
        assert!(w.any(0b0010, w.splat(true)));
        assert!(!w.all(0b0011, even));
        assert_eq!(w.counters().region(Region::VOTE).map(|r| r.issues), Some(3));
    }

    #[test]
    fn branch_changes_only_masked_lanes_and_counts_once() {
        let mut w = ModelWarp::new();
        let mut v = w.splat(0u32);
        w.branch(WORK, 0b1001, &mut v, |x| *x += 7);
        assert_eq!(v[0], 7);
        assert_eq!(v[1], 0);
        assert_eq!(v[3], 7);
        w.branch(WORK, 0, &mut v, |x| *x += 1);
        let row = w.counters().region(WORK).copied().unwrap_or_default();
        assert_eq!(row.issues, 1);
        assert_eq!(row.active_lane_slots, 2);
    }

    #[test]
    fn narrow_warps_ignore_lanes_beyond_their_width() {
        let mut w = ModelWarp::with_width(4);
        let mut v = w.splat(0u8);
        w.branch(WORK, u32::MAX, &mut v, |x| *x = 1);
        assert_eq!(v[3], 1);
        assert_eq!(v[4], 0);
        assert_eq!(w.counters().simd_efficiency(), 1.0);
    }

    #[test]
    fn shuffle_rotates_values() {
        let mut w = ModelWarp::new();
        let ids = w.lane_ids();
        let src = w.map(ids, |l| (l + 1) % 32);
        let out = w.shuffle(u32::MAX, ids, src);
        assert_eq!(out[0], 1);
        assert_eq!(out[31], 0);
    }

    #[test]
    fn warps_of_a_block_share_counters() {
        let block = BlockShared::new();
        let mut a = ModelWarp::in_block(&block);
        let mut b = ModelWarp::in_block(&block);
        assert_eq!(a.block_fetch_add(u32::MAX, 0, 32), 0);
        assert_eq!(b.block_fetch_add(u32::MAX, 0, 32), 32);
        assert_eq!(block.get(0), 64);
    }
}
