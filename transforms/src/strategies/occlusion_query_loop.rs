//! The occlusion-query loop: Harris & Buck, "GPU Flow-Control Idioms", GPU Gems 2 ch. 34,
//! §34.3 (data-dependent looping with occlusion queries).
//!
//! An [`ItemLoop`] runs as repeated passes of at most `iterations_per_pass` iterations each:
//! every pass counts, in a query word, the items it left unfinished, and the host launches the
//! pass again while the word is non-zero, as the book's host reads its occlusion query.
//! Finished items are masked out of later passes (the book's z-culled fragments), so a pass
//! issues work only for windows that still have some.
//!
//! Measured (`docs/results/h100-reproduce/gems34-3-occlusion-query-loop.md`):
//! on an H100 with one iteration per pass a 32-trip loop takes 32 passes, 8.263x the one-kernel
//! loop's kernel time and 3.388x its wall time, with eight 1.115x and 1.078x: launches and state round trips cost more than
//! the divergence they avoid.

use core::sync::atomic::{AtomicU32, Ordering};

use reconverge_simt::{LaneMask, Region, Warp};

use crate::io::{Sink, Tally, WarpTask};
use crate::scratch::{DecisionMask, ItemSlots, Scratch};
use crate::shape::ItemLoop;

/// Where the occlusion-query loop keeps its data in the run's [`Scratch`]: word 0 counts the
/// items a pass left unfinished (the query), then one "finished" bit per item (the depth mask
/// of the book's z-culled passes), then each item's loop state.
pub(crate) struct PassLoopLayout;

impl PassLoopLayout {
    /// The query word.
    pub const QUERY: usize = 0;

    /// Scratch words for `items` items of state `S`.
    pub fn words<S: Copy>(items: u32) -> usize {
        1 + DecisionMask::words_for(items) + ItemSlots::<S>::words_for(items)
    }

    /// The query word, the finished mask and the state slots in `scratch` (empty parts when
    /// the scratch is too short, as in a strategy check without a run).
    fn split<S: Copy>(
        scratch: &Scratch,
        items: u32,
    ) -> (Option<&AtomicU32>, DecisionMask<'_>, ItemSlots<'_, S>) {
        let mask_end = 1 + DecisionMask::words_for(items);
        (
            scratch.get(Self::QUERY),
            DecisionMask::new(scratch.get(1..mask_end).unwrap_or(&[])),
            ItemSlots::new(scratch.get(mask_end..).unwrap_or(&[])),
        )
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PassLane<S> {
    lane: u32,
    item: u32,
    /// The item is in the block's chunk.
    has: bool,
    /// The item has iterations left this pass.
    run: bool,
    state: S,
}

/// One warp's part of one pass of [`crate::Strategy::occlusion_query_loop`].
///
/// Thread `t` takes items `t`, `t + threads_per_block`, … of its block's chunk, one window of
/// the warp's width at a time. The first pass starts every item; a later pass tests each
/// item's finished bit (the depth test; a window whose items have all finished is skipped
/// whole, z-cull's coarse rejection) and loads the unfinished items' states. Then the warp runs
/// the body up to `iterations_per_pass` times while any lane's item is running. Items that
/// finished store their outputs and set their bits; the others store their states, and the
/// window adds their number to the query word, which the host reads after the pass.
pub struct PassLoopProgram<'s, W: Warp, L: ItemLoop> {
    workload: L,
    task: WarpTask,
    iterations: u32,
    first_pass: bool,
    lanes: W::V<PassLane<L::State>>,
    all: LaneMask,
    query: Option<&'s AtomicU32>,
    finished: DecisionMask<'s>,
    slots: ItemSlots<'s, L::State>,
}

impl<'s, W: Warp, L: ItemLoop> PassLoopProgram<'s, W, L> {
    pub(crate) fn new(
        warp: &W,
        workload: L,
        task: WarpTask,
        iterations: u32,
        first_pass: bool,
        scratch: &'s Scratch,
    ) -> Self {
        let (query, finished, slots) = PassLoopLayout::split(scratch, task.items);
        let width = warp.width();
        let lanes = warp.map(warp.lane_ids(), |lane| {
            let item = task
                .block_start
                .saturating_add(task.thread_in_block(lane, width));
            PassLane {
                lane,
                item,
                has: item < task.block_end,
                run: false,
                // A placeholder: every lane's state is started or loaded before it is used.
                state: workload.start(item.min(task.block_end.saturating_sub(1))),
            }
        });
        Self {
            workload,
            task,
            iterations,
            first_pass,
            lanes,
            all: warp.full_mask(),
            query,
            finished,
            slots,
        }
    }

    /// Moves the lanes of `live` to their next window.
    fn advance(&mut self, warp: &mut W, live: LaneMask) {
        let task = self.task;
        let stride = task.threads_per_block.max(1);
        warp.branch(self.workload.regions().item, live, &mut self.lanes, |l| {
            l.item = l.item.saturating_add(stride);
            l.has = l.item < task.block_end;
        });
    }

    /// One window: see the type's docs.
    pub(crate) fn step<S: Sink<L::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        tally: &mut T,
    ) -> bool {
        let has = warp.map_ref(&self.lanes, |l| l.has);
        let live = warp.ballot(self.all, has);
        if live == 0 {
            return false;
        }
        let w = &self.workload;
        let r = w.regions();
        let lowest = live & live.wrapping_neg();
        if self.first_pass {
            warp.branch(r.item, live, &mut self.lanes, |l| {
                l.state = w.start(l.item);
                l.run = true;
            });
        } else {
            let finished = self.finished;
            warp.branch(Region::EXCHANGE, live, &mut self.lanes, |l| {
                l.run = !finished.get(l.item)
            });
            let run = warp.map_ref(&self.lanes, |l| l.run);
            let unfinished = warp.ballot(live, run);
            if unfinished == 0 {
                // Every item of the window has finished: the whole window is culled.
                self.advance(warp, live);
                return true;
            }
            let slots = self.slots;
            warp.branch(Region::EXCHANGE, unfinished, &mut self.lanes, |l| {
                // SAFETY: this item is unfinished in a pass after the first, so the first pass
                // started it, and every pass since stored its state (below) or finished it.
                if let Some(s) = unsafe { slots.load(l.item) } {
                    l.state = s;
                }
            });
        }
        let run = warp.map_ref(&self.lanes, |l| l.run);
        let started = warp.ballot(live, run);
        for _ in 0..self.iterations {
            let running = warp.map_ref(&self.lanes, |l| w.running(&l.state));
            let running = warp.ballot(started, running);
            if running == 0 {
                break;
            }
            warp.branch(r.body, running, &mut self.lanes, |l| {
                w.body(&mut l.state, tally)
            });
        }
        let left = warp.map_ref(&self.lanes, |l| w.running(&l.state));
        let left = warp.ballot(started, left);
        let done = started & !left;
        if done != 0 {
            let finished = self.finished;
            warp.branch(r.item, done, &mut self.lanes, |l| {
                sink.put(l.item, w.finish(&l.state))
            });
            warp.branch(Region::EXCHANGE, lowest, &mut self.lanes, |l| {
                finished.record(l.item.saturating_sub(l.lane), done)
            });
        }
        if left != 0 {
            let (slots, query) = (self.slots, self.query);
            warp.branch(Region::EXCHANGE, left, &mut self.lanes, |l| {
                slots.store(l.item, l.state)
            });
            warp.branch(Region::EXCHANGE, lowest, &mut self.lanes, |_| {
                if let Some(q) = query {
                    q.fetch_add(left.count_ones(), Ordering::Relaxed);
                }
            });
        }
        self.advance(warp, live);
        true
    }
}

/// One pass of the occlusion-query loop as the code of one lane of a warp: the form the
/// hand-written kernel takes (`reconverge_device::occlusion_twin!`), which the GPU runs instead
/// of [`PassLoopProgram`]. The launch's warps take windows of 32 consecutive items at a stride
/// of the grid, so a window's finished bits are one word of the mask, which the window's lane 0
/// stores whole. The first pass (`first_pass`) starts every item; a later one runs only the
/// items whose bit is clear, from their stored states. Each item runs at most `iterations`
/// iterations; one still running stores its state and counts in the query word, one that
/// finished puts its output.
///
/// `vote(p)` is the warp's ballot of `p`, which every lane of the warp calls at the same points
/// (once per window); `lane` is the calling lane, `task` the lane's warp (its
/// `threads_per_block` a multiple of 32). Outputs and adds are the baseline's.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn pass_as_lane<L: ItemLoop, T: Tally>(
    workload: &L,
    iterations: u32,
    first_pass: bool,
    lane: u32,
    mut vote: impl FnMut(bool) -> LaneMask,
    task: WarpTask,
    scratch: &Scratch,
    mut put: impl FnMut(u32, L::Output),
    tally: &mut T,
) {
    let (query, finished, slots) = PassLoopLayout::split::<L::State>(scratch, task.items);
    let items = task.items;
    for window in task.grid_stride_windows() {
        let (item, has) = task.window_item(window, lane);
        let index = window / 32;
        // The window's word loaded by every lane, without a branch around the load (as the
        // twin's warp loads it), and the flags combined whole: one predicate.
        let unfinished = first_pass | (finished.word(index) >> lane & 1 == 0);
        let runs = has & unfinished;
        let mut left = false;
        if runs {
            let state = if first_pass {
                Some(workload.start(item))
            } else {
                // SAFETY: the item is unfinished in a pass after the first, so the first pass
                // started it and every pass since stored its state.
                unsafe { slots.load(item) }
            };
            if let Some(mut s) = state {
                let mut k = 0;
                while k < iterations && workload.running(&s) {
                    workload.body(&mut s, tally);
                    k += 1;
                }
                left = workload.running(&s);
                if left {
                    slots.store(item, s);
                } else {
                    put(item, workload.finish(&s));
                }
            }
        }
        let left = vote(left);
        if lane == 0 {
            let has = match items - window {
                n if n >= 32 => LaneMask::MAX,
                n => (1 << n) - 1,
            };
            finished.set_word(index, has & !left);
            if left != 0
                && let Some(q) = query
            {
                q.fetch_add(left.count_ones(), Ordering::Relaxed);
            }
        }
    }
}
