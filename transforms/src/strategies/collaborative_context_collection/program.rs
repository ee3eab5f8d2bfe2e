//! Collaborative context collection as a warp program of the CPU backend and the SIMT model
//! ([`CollectionProgram`]): one [`Collector::step`] per warp step, items dealt per warp.

use core::marker::PhantomData;

use reconverge_simt::{LaneMask, Region, WARP_SIZE, Warp};

use super::Collector;
use crate::io::{Sink, Tally, WarpTask};
use crate::kernel::WarpProgram;
use crate::shape::BranchLoop;
use crate::strategies::Assignment;
use crate::strategy::StrategyError;

/// Words a context moves per lane in a save or a restore: the state and the item's index, in
/// 32-bit words (what the per-warp stack stores, [`super::shared_bytes_per_warp`]).
pub const fn context_words<S>() -> u32 {
    (core::mem::size_of::<S>() + core::mem::size_of::<u32>()).div_ceil(4) as u32
}

/// The items of one warp under an [`Assignment`], dealt to whichever lane is free (a lane that
/// finds no resumed context). Under static assignment the warp's items are one contiguous
/// chunk of its block's (the block's items split evenly among its warps, as the hand-written
/// CUDA C++ twin splits the launch's), so the warp knows in advance how many it is dealt
/// ([`WarpDeal::count`]) and its lanes count them instead of voting on whether the dealer ran
/// dry. Otherwise the warp's `j`-th item is its `j`-th first item for `j < 32` (`first + j`, as
/// the other loop programs' lanes start), then a claim on the block's or the launch's counter.
/// Dealt per warp rather than per lane because under collection the lanes that take new items
/// are the ones the resumed stack left free, the same few each step: per-lane sequences would
/// run dry at different times and leave a long tail of under-full body issues (the model showed
/// 8.8 lanes per body issue instead of 32 when every iteration takes the body).
#[derive(Clone, Copy, Debug)]
pub struct WarpDeal {
    task: WarpTask,
    assignment: Assignment,
    /// The warp's first item, and the end of the range dealt from it without a claim (under
    /// static assignment, the warp's whole chunk).
    first: u32,
    end: u32,
}

impl WarpDeal {
    /// The dealing of warp `task.warp_in_block` (of 32 lanes) under `assignment`.
    pub fn new(task: WarpTask, assignment: Assignment) -> Self {
        let (first, end) = match assignment {
            Assignment::GridWide => (task.thread_in_grid(0, WARP_SIZE), task.items),
            Assignment::Dynamic => (
                task.block_start
                    .saturating_add(task.warp_in_block.saturating_mul(WARP_SIZE)),
                task.block_end,
            ),
            // Remapping does not pair with this schedule (`PathSchedule::pairs_with`): a run
            // over it is refused before any program is made; dealt as static if ever asked.
            Assignment::Static | Assignment::Remapped => {
                let len = task.block_len();
                let warps = (task.threads_per_block / WARP_SIZE).max(1);
                let chunk = len.div_ceil(warps);
                // Offsets within the block's chunk, clamped to it: a warp past its items gets
                // an empty chunk at the block's end.
                let offset = task.warp_in_block.saturating_mul(chunk).min(len);
                let first = task.block_start + offset;
                (first, first + chunk.min(len - offset))
            }
        };
        Self {
            task,
            assignment,
            first,
            end,
        }
    }

    /// How many items the warp is dealt in all, where that is known before dealing: under
    /// static assignment its chunk's length (`item(j)` is `Some` exactly for `j` below it),
    /// otherwise `None` (a counter can run dry at any claim).
    #[inline(always)]
    pub fn count(&self) -> Option<u32> {
        matches!(self.assignment, Assignment::Static | Assignment::Remapped)
            .then(|| self.end.saturating_sub(self.first))
    }

    /// The warp's `j`-th item, `None` past the warp's last (and for every later `j` too). A
    /// claim on a counter (`j` at 32 or more under dynamic assignment) is made by the lanes of
    /// `mask` on `warp`.
    #[inline(always)]
    pub fn item<W: Warp>(&self, warp: &mut W, mask: LaneMask, j: u32) -> Option<u32> {
        let task = self.task;
        // Below `end - first`, an offset cannot overflow the item index.
        let within = |offset: u32| {
            (offset < self.end.saturating_sub(self.first)).then(|| self.first + offset)
        };
        match self.assignment {
            Assignment::Static | Assignment::Remapped => within(j),
            _ if j < WARP_SIZE => within(j),
            Assignment::Dynamic => {
                let n = warp.block_fetch_add(mask, 0, 1);
                (n < task.block_len()).then(|| task.block_start.saturating_add(n))
            }
            Assignment::GridWide => {
                let n = warp.grid_fetch_add(mask, 1);
                Some(task.launch_threads().saturating_add(n)).filter(|&i| i < task.items)
            }
        }
    }

    /// This dealing on `warp`, the form [`super::collected_thread_loop`] takes (a claim made by
    /// the calling lane alone).
    pub fn on<W: Warp>(self, warp: &mut W) -> DealOnWarp<'_, W> {
        DealOnWarp { deal: self, warp }
    }
}

/// The items a warp is dealt, in order and the same in every lane: what
/// [`super::collected_thread_loop`] gives its free lanes. A closure `FnMut(u32) -> Option<u32>`
/// is one whose count is not known in advance.
pub trait ItemDealer {
    /// The warp's `j`-th item, `None` past its last (and for every later `j`).
    fn item(&mut self, j: u32) -> Option<u32>;

    /// How many items the dealer deals in all, where that is known before dealing (`item(j)`
    /// is then `Some` exactly for `j` below it), the same in every lane: the loop then counts
    /// the items dealt, as the hand-written kernel does, instead of voting on whether a lane
    /// found none. `None`, the default, where dealing can run dry at any `j`.
    fn count(&self) -> Option<u32> {
        None
    }
}

impl<F: FnMut(u32) -> Option<u32>> ItemDealer for F {
    #[inline(always)]
    fn item(&mut self, j: u32) -> Option<u32> {
        self(j)
    }
}

/// A [`WarpDeal`] on the warp its claims are made on ([`WarpDeal::on`]).
pub struct DealOnWarp<'w, W: Warp> {
    deal: WarpDeal,
    warp: &'w mut W,
}

impl<W: Warp> ItemDealer for DealOnWarp<'_, W> {
    #[inline(always)]
    fn item(&mut self, j: u32) -> Option<u32> {
        self.deal.item(self.warp, 1, j)
    }

    #[inline(always)]
    fn count(&self) -> Option<u32> {
        self.deal.count()
    }
}

/// A [`BranchLoop`]'s warp program under
/// [`crate::PathSchedule::CollaborativeContextCollection`]: one [`Collector::step`] per
/// [`WarpProgram::step`], the warp's lanes dealt items the strategy's way, and the step's
/// issues recorded on the warp for the SIMT model (the regions of the loop, and a save, a
/// restore and the body's pop and push as [`Region::EXCHANGE`] issues of [`context_words`]).
/// The CPU backend and the advisor's model run it; the stacks live in the program, so it needs
/// a warp that runs its 32 lanes in one program (the CPU's and the model's), and
/// [`CollectionProgram::new`] refuses any other.
pub struct CollectionProgram<W: Warp, L: BranchLoop> {
    workload: L,
    collector: Collector<L::State>,
    deal: WarpDeal,
    /// Items the warp has dealt.
    dealt: u32,
    words: u32,
    warp: PhantomData<W>,
}

impl<W: Warp, L: BranchLoop> CollectionProgram<W, L> {
    /// The program of warp `task` over `assignment`.
    ///
    /// # Errors
    /// [`StrategyError::NotApplicable`] on a warp that is not 32 lanes of one program (a GPU
    /// thread's view of its warp, or a warp of one lane): the stacks must be the warp's.
    pub fn new(
        warp: &W,
        workload: L,
        assignment: Assignment,
        task: WarpTask,
    ) -> Result<Self, StrategyError> {
        if cfg!(target_arch = "nvptx64") || warp.width() != WARP_SIZE {
            return Err(StrategyError::NotApplicable {
                strategy: crate::Strategy::COLLABORATIVE_CONTEXT_COLLECTION.over(assignment),
                shape: "branch loop on a warp whose lanes are not one program",
            });
        }
        Ok(Self {
            workload,
            collector: Collector::default(),
            deal: WarpDeal::new(task, assignment),
            dealt: 0,
            words: context_words::<L::State>(),
            warp: PhantomData,
        })
    }
}

impl<W: Warp, L: BranchLoop> WarpProgram<W> for CollectionProgram<W, L> {
    type Output = L::Output;

    /// One lockstep step. A [`super::StackOverflow`] (which the parent module's docs prove
    /// cannot happen) ends the warp's run, as its end does.
    fn step<S: Sink<L::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        tally: &mut T,
    ) -> bool {
        let w = &self.workload;
        let (deal, dealt) = (&self.deal, &mut self.dealt);
        let step = self.collector.step(
            w,
            |lane| {
                let item = deal.item(warp, 1 << lane, *dealt);
                *dealt = dealt.saturating_add(u32::from(item.is_some()));
                item
            },
            |item, out| sink.put(item, out),
            tally,
        );
        let Ok(Some(lanes)) = step else {
            return false;
        };
        let regions = w.regions();
        let moved = Region::EXCHANGE.with_cost(self.words);
        let mut none = warp.splat(());
        let mut issue = |warp: &mut W, region, mask| warp.branch(region, mask, &mut none, |_| {});
        issue(warp, regions.item, lanes.retired);
        issue(warp, moved, lanes.restored);
        issue(warp, regions.condition, lanes.holding);
        let saved = warp.map(warp.lane_ids(), |l| lanes.saved >> l & 1 != 0);
        warp.ballot(lanes.holding, saved);
        issue(warp, moved, lanes.saved);
        issue(warp, regions.not_taken, lanes.cheap);
        issue(warp, regions.after_branch, lanes.cheap);
        issue(warp, moved, lanes.body);
        issue(warp, regions.taken, lanes.body);
        issue(warp, regions.after_branch, lanes.body);
        issue(warp, moved, lanes.body);
        true
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use reconverge_simt::ModelWarp;

    use super::*;

    /// Under static assignment each warp of a block is dealt one contiguous chunk of the
    /// block's items, exactly `count` of them, and the warps of all blocks together are dealt
    /// every item once: blocks and warps that outnumber the items get empty chunks.
    #[test]
    fn static_dealing_gives_each_warp_a_counted_chunk_and_every_item_once() {
        let mut warp = ModelWarp::new();
        for (items, blocks, threads) in [(1000, 3, 256), (33, 1, 128), (5, 4, 64), (0, 2, 32)] {
            let mut dealt: Vec<u32> = Vec::new();
            for block in 0..blocks {
                for w in 0..threads / WARP_SIZE {
                    let task = WarpTask::new(items, blocks, block, threads, w);
                    let deal = WarpDeal::new(task, Assignment::Static);
                    let n = deal.count().expect("static dealing is counted");
                    let chunk: Vec<u32> = (0..n)
                        .map(|j| deal.item(&mut warp, 1, j).expect("counted items exist"))
                        .collect();
                    assert_eq!(deal.item(&mut warp, 1, n), None, "{items} items");
                    assert!(chunk.windows(2).all(|p| p[1] == p[0] + 1), "{chunk:?}");
                    assert!(
                        chunk
                            .iter()
                            .all(|&i| (task.block_start..task.block_end).contains(&i))
                    );
                    dealt.extend(chunk);
                }
            }
            dealt.sort_unstable();
            assert_eq!(
                dealt,
                (0..items).collect::<Vec<_>>(),
                "{items} x {blocks} x {threads}"
            );
        }
    }
}
