//! One block: its warps emulated in lockstep, interleaved one loop iteration at a time.

use reconverge_backend::{Counters, Launch};
use reconverge_simt::{BlockShared, ModelWarp, WARP_SIZE};
use reconverge_transforms::{
    Kernel, Scratch, Sink, Strategy, Tally, WarpProgram, WarpTask, initial_block_counters,
};

pub(crate) struct BlockRun<'k, K> {
    pub kernel: &'k K,
    pub strategy: &'k Strategy,
    pub pass: u32,
    pub items: u32,
    pub launch: Launch,
    pub block: u32,
    pub counting: bool,
    /// The run's scratch words, shared by every block and pass.
    pub scratch: &'k Scratch,
}

/// Writes outputs into the block's slice of the output vector.
struct BlockSink<'o, O> {
    first_item: u32,
    out: &'o mut [O],
}

impl<O> Sink<O> for BlockSink<'_, O> {
    #[inline]
    fn put(&mut self, item: u32, value: O) {
        if let Some(slot) = item
            .checked_sub(self.first_item)
            .and_then(|i| self.out.get_mut(i as usize))
        {
            *slot = value;
        }
    }
}

/// Adds into this rayon job's tally.
struct VecTally<'t>(&'t mut [u64]);

impl Tally for VecTally<'_> {
    #[inline]
    fn add(&mut self, index: u32, amount: u64) {
        if let Some(slot) = self.0.get_mut(index as usize) {
            *slot = slot.wrapping_add(amount);
        }
    }
}

impl<K: Kernel> BlockRun<'_, K> {
    pub fn execute(&self, out: &mut [K::Output], tally: &mut [u64], counters: &mut Counters) {
        let shared = BlockShared::new();
        for (i, v) in initial_block_counters(self.launch.threads_per_block)
            .into_iter()
            .enumerate()
        {
            shared.set(i, v);
        }
        let warps_per_block = self.launch.threads_per_block / WARP_SIZE;
        let mut warps: Vec<(ModelWarp<'_>, K::Program<'_, ModelWarp<'_>>)> = (0..warps_per_block)
            .filter_map(|w| {
                let mut warp = ModelWarp::in_block(&shared);
                warp.set_counting(self.counting);
                let task = WarpTask::new(
                    self.items,
                    self.launch.blocks,
                    self.block,
                    self.launch.threads_per_block,
                    w,
                );
                // The backend checked the strategy before the run, so this cannot fail.
                let program = self
                    .kernel
                    .program(&warp, self.strategy, self.pass, task, self.scratch)
                    .ok()?;
                Some((warp, program))
            })
            .collect();
        let first_item =
            WarpTask::new(self.items, self.launch.blocks, self.block, 32, 0).block_start;
        let mut sink = BlockSink { first_item, out };
        let mut tally = VecTally(tally);
        let mut running: Vec<bool> = vec![true; warps.len()];
        while running.iter().any(|r| *r) {
            for ((warp, program), alive) in warps.iter_mut().zip(running.iter_mut()) {
                if *alive {
                    *alive = program.step(warp, &mut sink, &mut tally);
                }
            }
        }
        for (warp, _) in &warps {
            counters.merge(warp.counters());
        }
    }
}
