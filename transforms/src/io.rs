//! Where a warp's items come from and where its results go.

/// Receives each item's output. On the CPU a block writes into its slice of the output
/// vector; on the GPU a sink writes into global memory.
pub trait Sink<T> {
    /// Stores the output of item `item` (a global item index).
    fn put(&mut self, item: u32, value: T);
}

/// Integer accumulators shared by all items (MCML's absorption and escape grids).
///
/// Amounts are integers so that the order of additions — which differs between strategies,
/// thread counts and backends — cannot change the result.
pub trait Tally {
    /// Adds `amount` to accumulator `index`. Out-of-range indices are ignored.
    fn add(&mut self, index: u32, amount: u64);
}

/// A tally for workloads that accumulate nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTally;

impl Tally for NoTally {
    #[inline(always)]
    fn add(&mut self, _index: u32, _amount: u64) {}
}

/// A sink that keeps nothing (for counting-only runs of the model).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl<T> Sink<T> for Discard {
    #[inline(always)]
    fn put(&mut self, _item: u32, _value: T) {}
}

/// The items one warp works on and how it finds them.
///
/// A launch splits the `n` items into contiguous chunks, one per block, so that each block's
/// outputs form one slice (the CPU backend hands blocks disjoint slices) and a block-shared
/// counter can deal out the block's items (dynamic work assignment, seed 004 fig. 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpTask {
    /// First item of the block's chunk.
    pub block_start: u32,
    /// One past the last item of the block's chunk.
    pub block_end: u32,
    /// This warp's index in its block.
    pub warp_in_block: u32,
    /// Threads per block (a multiple of the warp width).
    pub threads_per_block: u32,
    /// Items of the whole launch (every block's chunks together).
    pub items: u32,
    /// This warp's block in the grid.
    pub block: u32,
    /// Blocks in the grid.
    pub blocks: u32,
}

impl WarpTask {
    /// The task of warp `warp_in_block` of block `block` when `items` items are split over
    /// `blocks` blocks of `threads_per_block` threads.
    pub fn new(
        items: u32,
        blocks: u32,
        block: u32,
        threads_per_block: u32,
        warp_in_block: u32,
    ) -> Self {
        let chunk = items.div_ceil(blocks.max(1));
        let block_start = block.saturating_mul(chunk).min(items);
        let block_end = block_start.saturating_add(chunk).min(items);
        Self {
            block_start,
            block_end,
            warp_in_block,
            threads_per_block,
            items,
            block,
            blocks,
        }
    }

    /// Threads of the whole launch, saturating at `u32::MAX` (no launch has more items).
    pub fn launch_threads(&self) -> u32 {
        self.blocks.saturating_mul(self.threads_per_block)
    }

    /// The index in the grid of `lane`'s thread (saturating).
    pub fn thread_in_grid(&self, lane: u32, warp_width: u32) -> u32 {
        self.block
            .saturating_mul(self.threads_per_block)
            .saturating_add(self.thread_in_block(lane, warp_width))
    }

    /// The first items of this warp's windows of 32 consecutive items at a stride of the
    /// grid (warp `k` of the launch: items `32k …`, then `32k + threads …`), each below
    /// `items`: what GPU Gems 2's passes run as each lane's own code. Counted in `u64`, so no
    /// start wraps and none needs a saturating select (the hand-written kernels' arithmetic,
    /// with the overflow a `u32` launch index could have ruled out instead of clamped).
    #[inline(always)]
    pub fn grid_stride_windows(&self) -> impl Iterator<Item = u32> + use<> {
        let threads = u64::from(self.threads_per_block);
        let stride = (u64::from(self.blocks) * threads).max(1);
        let first = u64::from(self.block) * threads + u64::from(self.warp_in_block) * 32;
        let items = u64::from(self.items);
        core::iter::successors(Some(first), move |&w| Some(w + stride))
            .take_while(move |&w| w < items)
            // Below `items`, a u32.
            .map(|w| w as u32)
    }

    /// Lane `lane`'s item in the window that starts at `window` (one of
    /// [`WarpTask::grid_stride_windows`]), and whether the launch has it (`item < items`). A
    /// window starts at a multiple of 32 below `items`, so at most `u32::MAX - 31`, and
    /// `lane < 32`: the item cannot wrap, and its bound is the one an output's sink tests, which
    /// LLVM then tests once.
    #[inline(always)]
    pub fn window_item(&self, window: u32, lane: u32) -> (u32, bool) {
        let item = window.wrapping_add(lane);
        (item, item < self.items)
    }

    /// Items in the block's chunk.
    pub fn block_len(&self) -> u32 {
        self.block_end - self.block_start
    }

    /// The index of `lane`'s thread in the block.
    pub fn thread_in_block(&self, lane: u32, warp_width: u32) -> u32 {
        self.warp_in_block * warp_width + lane
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_all_items_once() {
        let (items, blocks) = (1000, 7);
        let mut next = 0;
        for b in 0..blocks {
            let t = WarpTask::new(items, blocks, b, 64, 0);
            assert_eq!(t.block_start, next);
            next = t.block_end;
        }
        assert_eq!(next, items);
    }

    #[test]
    fn surplus_blocks_get_empty_chunks() {
        let t = WarpTask::new(10, 4, 3, 32, 0);
        assert_eq!(t.block_len(), 1);
        let t = WarpTask::new(2, 4, 3, 32, 0);
        assert_eq!(t.block_len(), 0);
    }

    #[test]
    fn grid_thread_indices_count_blocks_before_this_one() {
        // Block 2 of 64-thread blocks, warp 1, lane 5: thread 64 * 2 + 32 + 5.
        let t = WarpTask::new(1000, 4, 2, 64, 1);
        assert_eq!(t.thread_in_grid(5, 32), 165);
        assert_eq!(t.launch_threads(), 256);
        assert_eq!(
            WarpTask::new(10, u32::MAX, 1, 1024, 0).launch_threads(),
            u32::MAX
        );
    }

    /// Every warp of a launch together visits each window of 32 items once, in windows that
    /// start below `items` at a multiple of 32, also where a `u32` grid index would wrap (the
    /// last warps of a grid with more threads than `u32::MAX`) and with items near
    /// `u32::MAX`.
    #[test]
    fn grid_stride_windows_cover_each_window_once() {
        extern crate std;
        use std::vec::Vec;
        for (items, blocks, threads) in [(1000, 3, 64), (4096, 16, 256), (33, 1, 32), (0, 2, 32)] {
            let mut starts: Vec<u32> = (0..blocks)
                .flat_map(|b| (0..threads / 32).map(move |w| (b, w)))
                .flat_map(|(b, w)| {
                    WarpTask::new(items, blocks, b, threads, w).grid_stride_windows()
                })
                .collect();
            starts.sort_unstable();
            let want: Vec<u32> = (0..items.div_ceil(32)).map(|k| 32 * k).collect();
            assert_eq!(starts, want, "{items} items, {blocks} x {threads}");
        }
        // Block 2^22 of 1024 threads starts at 2^32: past every u32 item, so no window.
        let far = WarpTask::new(u32::MAX, 1 << 23, 1 << 22, 1024, 0);
        assert_eq!(far.grid_stride_windows().count(), 0);
        // The launch's last warp (2^16 blocks of 1024 threads: a stride of 2^26) ends at the
        // last window below u32::MAX; its next start would pass it.
        let last = WarpTask::new(u32::MAX, 1 << 16, (1 << 16) - 1, 1024, 31);
        let starts: Vec<u32> = last.grid_stride_windows().collect();
        assert_eq!(starts.len(), 64);
        assert_eq!(starts[62..], [u32::MAX - 31 - (1 << 26), u32::MAX - 31]);
    }
}
