//! Thread-data remapping: Zhang, Jiang, Guo, Tian and Shen, "On-the-Fly Elimination of Dynamic
//! Irregularities for GPU Computing" (G-Streamline, ASPLOS 2011), the data-reordering and
//! job-swapping remappings; the seeds' static branch resolution
//! ([`crate::strategies::static_branch_resolution`]) is its simplest case.
//!
//! When an item's path can be predicted cheaply from its index (its class, its bucket of
//! predicted cost), the items can be regrouped before the loop runs so that a warp's lanes
//! hold items predicted alike: the paper builds a new mapping of threads to data and runs the
//! kernel over it. Here a first pass (pass 0) sorts each block's chunk of items by the
//! workload's key ([`crate::BranchLoop::remap_key`]) into a permutation kept in
//! [`crate::Scratch`] (slot `s` of the chunk holds the item it runs), and the loop (pass 1) runs
//! the permutation's slots in [`Assignment::Static`](crate::Assignment::Static)'s order, each
//! lane starting item `perm[s]` instead of item `s` and writing its output at the item's own
//! index. Every path schedule of the loop runs unchanged on top (the paths as written,
//! iteration delaying, speculative reconvergence): remapping changes which item a lane runs,
//! not how a warp schedules paths, so it is an [`Assignment`](crate::Assignment).
//!
//! The sort is a stable counting sort over at most [`MAX_BUCKETS`] keys, done by warp 0 of each
//! block: one scan over the chunk in windows of one warp width counts each key (a ballot per
//! key), then a second scan places each item at its key's next free slot, in index order. It
//! is deterministic (CPU and GPU build the same permutation, so the SIMT counters and, through
//! outputs written at each item's own index, the results agree bit for bit) and every item of
//! the chunk runs exactly once. Items never leave their block's chunk, so a block's outputs
//! stay one slice and dynamic dealing is not needed to keep warps full.
//!
//! When it helps: items with long, distinct, predictable paths interleaved at random (each
//! warp of the identity map runs both paths, after remapping almost every warp runs one).
//! When it hurts: classes already in warp-sized runs (nothing to regroup, the pass and the
//! extra load are overhead), or a key that says nothing about the path (the regrouping
//! changes nothing). Shape: [`crate::BranchLoop`] workloads that give a key; a workload
//! without one refuses it with [`StrategyError::NoRemapKey`].
//!
//! Measured on an H200 (`docs/results/techniques/`, `ClassChains`, 2^20 items of 64 iterations
//! whose float or integer chain the item's class picks): with the classes interleaved at random
//! remapping runs 1.43x faster than the best plain kernel, both passes timed, in 0.99x the time
//! of the hand-written CUDA C++ twin (`references/cuda/thread_data_remapping.cu`, the same two
//! kernels, `nvcc -fmad=false`), the GPU's pass 0 being each lane's own code
//! ([`permute_as_lane`]). With the classes already in runs of 32 it loses (0.90x), and with a
//! key unrelated to the paths too (0.94x): the pass and the permutation's load per item buy
//! nothing.

use core::sync::atomic::Ordering;

use reconverge_simt::{LaneMask, Region, Warp};

use crate::io::{Sink, Tally, WarpTask};
use crate::kernel::WarpProgram;
use crate::scratch::Scratch;
use crate::shape::{BranchLoop, LoopRegions};
use crate::strategy::{Strategy, StrategyError};

/// The most keys a workload may give: the sort keeps one count per key in each warp.
pub const MAX_BUCKETS: u32 = 16;

/// `Ok` if a workload with `buckets` keys can be remapped, else the typed refusal: no key
/// ([`StrategyError::NoRemapKey`]) or more than [`MAX_BUCKETS`].
pub(crate) fn check(
    strategy: &Strategy,
    buckets: u32,
    shape: &'static str,
) -> Result<(), StrategyError> {
    if buckets == 0 {
        return Err(StrategyError::NoRemapKey {
            strategy: *strategy,
            shape,
        });
    }
    if buckets > MAX_BUCKETS {
        return Err(StrategyError::InvalidParameter {
            name: "REMAP_BUCKETS",
            requirement: "at most MAX_BUCKETS (16)",
        });
    }
    Ok(())
}

/// The permutation pass's output: word `s` of the scratch holds the item that slot `s` runs
/// (slots and items of one block's chunk).
#[derive(Clone, Copy, Debug)]
pub struct Permutation<'s> {
    words: &'s Scratch,
}

impl<'s> Permutation<'s> {
    /// Words a permutation of `items` items needs.
    pub const fn words_for(items: u32) -> usize {
        items as usize
    }

    /// The permutation over `words` (of [`words_for`](Self::words_for) the items, or more).
    pub const fn new(words: &'s Scratch) -> Self {
        Self { words }
    }

    /// The item slot `slot` runs; `slot` itself past the scratch's end (never reached in a run:
    /// the kernel asks for a word per item).
    #[inline(always)]
    pub fn item(&self, slot: u32) -> u32 {
        self.words
            .get(slot as usize)
            .map_or(slot, |w| w.load(Ordering::Relaxed))
    }

    #[inline(always)]
    fn set(&self, slot: u32, item: u32) {
        if let Some(w) = self.words.get(slot as usize) {
            w.store(item, Ordering::Relaxed);
        }
    }
}

/// What a lane of the permutation pass holds: its item of the current window and the item's
/// key.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyLane {
    lane: u32,
    item: u32,
    key: u32,
}

/// One warp of pass 0: the stable counting sort of its block's chunk (warp 0 of each block;
/// the others have nothing to do).
pub struct RemapPass<'s, W: Warp, L> {
    workload: L,
    perm: Permutation<'s>,
    task: WarpTask,
    lanes: W::V<KeyLane>,
    buckets: u32,
    /// First item of the next window.
    next: u32,
    /// Counting (first scan) or placing (second scan).
    placing: bool,
    /// Per key: items counted in the first scan, then the next free slot in the second.
    at: [u32; MAX_BUCKETS as usize],
}

impl<'s, W: Warp, L: BranchLoop> RemapPass<'s, W, L> {
    pub(crate) fn new(warp: &W, workload: L, perm: Permutation<'s>, task: WarpTask) -> Self {
        let buckets = L::REMAP_BUCKETS.clamp(1, MAX_BUCKETS);
        let lanes = warp.map(warp.lane_ids(), |lane| KeyLane {
            lane,
            item: 0,
            key: 0,
        });
        Self {
            workload,
            perm,
            task,
            lanes,
            buckets,
            next: if task.warp_in_block == 0 {
                task.block_start
            } else {
                task.block_end
            },
            placing: false,
            at: [0; MAX_BUCKETS as usize],
        }
    }

    /// Turns the counts into each key's first slot and starts the second scan; `false` when
    /// there is nothing to place (another warp, an empty chunk, or the second scan is done).
    fn start_placing(&mut self) -> bool {
        if self.placing
            || self.task.warp_in_block != 0
            || self.task.block_start >= self.task.block_end
        {
            return false;
        }
        first_slots(&mut self.at, self.buckets, self.task.block_start);
        self.placing = true;
        self.next = self.task.block_start;
        true
    }
}

/// Turns the first `buckets` per-key counts of the counting scan into each key's first slot,
/// keys in order from slot `first` (an exclusive prefix sum): where the placing scan starts.
#[inline(always)]
fn first_slots(at: &mut [u32; MAX_BUCKETS as usize], buckets: u32, first: u32) {
    let mut slot = first;
    for at in at.iter_mut().take(buckets as usize) {
        let count = *at;
        *at = slot;
        slot = slot.saturating_add(count);
    }
}

/// The lanes of `m` below `lane`: a lane's rank among the lanes of `m`.
#[inline(always)]
fn rank(m: LaneMask, lane: u32) -> u32 {
    (m & 1u32.checked_shl(lane).unwrap_or(0).wrapping_sub(1)).count_ones()
}

impl<W: Warp, L: BranchLoop> WarpProgram<W> for RemapPass<'_, W, L> {
    type Output = L::Output;

    fn step<S: Sink<L::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        _sink: &mut S,
        _tally: &mut T,
    ) -> bool {
        let end = self.task.block_end;
        if self.next >= end && !self.start_placing() {
            return false;
        }
        let first = self.next;
        let width = warp.width();
        let live = reconverge_simt::full_mask(end.saturating_sub(first).min(width));
        let w = &self.workload;
        let last = self.buckets.saturating_sub(1);
        // Lane `l` holds item `first + l` (a register write: free bookkeeping); its key costs
        // what the workload's condition does.
        self.lanes = warp.map(self.lanes, |mut l| {
            l.item = first.saturating_add(l.lane);
            l
        });
        warp.branch(w.regions().condition, live, &mut self.lanes, |l| {
            l.key = w.remap_key(l.item).min(last);
        });
        let perm = self.perm;
        for b in 0..self.buckets {
            let is_b = warp.map_ref(&self.lanes, |l| l.key == b);
            let m = warp.ballot(live, is_b);
            if m == 0 {
                continue;
            }
            let Some(at) = self.at.get_mut(b as usize) else {
                break;
            };
            if self.placing {
                let base = *at;
                warp.branch(Region::EXCHANGE, m, &mut self.lanes, |l| {
                    perm.set(base.saturating_add(rank(m, l.lane)), l.item);
                });
            }
            *at = at.saturating_add(m.count_ones());
        }
        self.next = first.saturating_add(width);
        true
    }
}

/// Pass 0 as the code of one lane of a warp, the form the CUDA twin's `permute` writes (each
/// lane computes its own item's key; one `vote` per key and window of one warp width): what the
/// GPU runs, where the warp program's lanes would live in local memory (measured on an H200:
/// 0.081 ms for the pass as a warp program, 48 registers and a 4.7 KB stack frame, against the
/// twin's 0.009 ms). The same stable counting sort as [`RemapPass`], so the same permutation:
/// warp 0 of the block counts each key over the block's chunk, then places each item at its
/// key's next free slot, window by window in lane order; the other warps return at once.
///
/// `vote(p)` is the warp's ballot of `p` (every lane of the warp calls it the same number of
/// times: the windows and the keys are the same in every lane); `lane` is the calling lane.
#[inline(always)]
pub fn permute_as_lane<L: BranchLoop>(
    workload: &L,
    lane: u32,
    mut vote: impl FnMut(bool) -> LaneMask,
    task: WarpTask,
    perm: Permutation<'_>,
) {
    if task.warp_in_block != 0 {
        return;
    }
    let buckets = L::REMAP_BUCKETS.clamp(1, MAX_BUCKETS);
    let last = buckets - 1;
    let width = reconverge_simt::WARP_SIZE;
    let (first, end) = (task.block_start, task.block_end);
    let key_of = |window: u32| {
        let item = window.saturating_add(lane);
        (item < end).then(|| (item, workload.remap_key(item).min(last)))
    };
    // Per key: items counted in the first scan, then the next free slot in the second.
    let mut at = [0u32; MAX_BUCKETS as usize];
    let mut window = first;
    while window < end {
        let key = key_of(window).map(|(_, k)| k);
        for (b, at) in (0..buckets).zip(at.iter_mut()) {
            *at = at.saturating_add(vote(key == Some(b)).count_ones());
        }
        window = window.saturating_add(width);
    }
    first_slots(&mut at, buckets, first);
    let mut window = first;
    while window < end {
        let mine = key_of(window);
        for (b, at) in (0..buckets).zip(at.iter_mut()) {
            let m = vote(mine.is_some_and(|(_, k)| k == b));
            if let Some((item, k)) = mine
                && k == b
            {
                perm.set(at.saturating_add(rank(m, lane)), item);
            }
            *at = at.saturating_add(m.count_ones());
        }
        window = window.saturating_add(width);
    }
}

/// A [`BranchLoop`] whose item `s` is item `perm[s]` of the workload: what pass 1's lanes run.
/// Each item start costs one load more (the permutation's word).
#[derive(Clone, Copy, Debug)]
pub struct RemappedLoop<'s, L> {
    workload: L,
    perm: Permutation<'s>,
}

impl<'s, L> RemappedLoop<'s, L> {
    pub(crate) const fn new(workload: L, perm: Permutation<'s>) -> Self {
        Self { workload, perm }
    }
}

impl<L: BranchLoop> BranchLoop for RemappedLoop<'_, L> {
    type State = L::State;
    type Output = L::Output;

    fn regions(&self) -> LoopRegions {
        let mut regions = self.workload.regions();
        regions.item = regions.item.with_cost(regions.item.cost.saturating_add(1));
        regions
    }
    const REMAP_BUCKETS: u32 = L::REMAP_BUCKETS;

    fn tally_len(&self) -> usize {
        self.workload.tally_len()
    }
    #[inline(always)]
    fn start(&self, slot: u32) -> L::State {
        self.workload.start(self.perm.item(slot))
    }
    #[inline(always)]
    fn running(&self, state: &L::State) -> bool {
        self.workload.running(state)
    }
    #[inline(always)]
    fn condition(&self, state: &mut L::State) -> bool {
        self.workload.condition(state)
    }
    #[inline(always)]
    fn taken<T: Tally>(&self, state: &mut L::State, tally: &mut T) {
        self.workload.taken(state, tally);
    }
    #[inline(always)]
    fn not_taken<T: Tally>(&self, state: &mut L::State, tally: &mut T) {
        self.workload.not_taken(state, tally);
    }
    #[inline(always)]
    fn after_branch<T: Tally>(&self, state: &mut L::State, tally: &mut T) {
        self.workload.after_branch(state, tally);
    }
    #[inline(always)]
    fn finish(&self, state: &L::State) -> L::Output {
        self.workload.finish(state)
    }
}

/// Pass 1's program: `program` runs slots, and each output it stores goes to its slot's item.
pub struct RemappedRun<'s, P> {
    program: P,
    perm: Permutation<'s>,
}

impl<'s, P> RemappedRun<'s, P> {
    pub(crate) const fn new(program: P, perm: Permutation<'s>) -> Self {
        Self { program, perm }
    }
}

/// A sink that stores slot `s`'s output at item `perm[s]`.
struct PermutedSink<'a, 's, S> {
    sink: &'a mut S,
    perm: Permutation<'s>,
}

impl<O, S: Sink<O>> Sink<O> for PermutedSink<'_, '_, S> {
    #[inline(always)]
    fn put(&mut self, slot: u32, value: O) {
        self.sink.put(self.perm.item(slot), value);
    }
}

impl<W: Warp, P: WarpProgram<W>> WarpProgram<W> for RemappedRun<'_, P> {
    type Output = P::Output;

    #[inline(always)]
    fn step<S: Sink<P::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        tally: &mut T,
    ) -> bool {
        let mut sink = PermutedSink {
            sink,
            perm: self.perm,
        };
        self.program.step(warp, &mut sink, tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_counts_the_lanes_below() {
        assert_eq!(rank(0b1011, 0), 0);
        assert_eq!(rank(0b1011, 1), 1);
        assert_eq!(rank(0b1011, 3), 2);
        assert_eq!(rank(u32::MAX, 31), 31);
    }

    #[test]
    fn no_key_and_too_many_keys_are_refused() {
        let s = Strategy::THREAD_DATA_REMAPPING;
        assert_eq!(
            check(&s, 0, "branch loop"),
            Err(StrategyError::NoRemapKey {
                strategy: s,
                shape: "branch loop"
            })
        );
        assert!(check(&s, MAX_BUCKETS + 1, "branch loop").is_err());
        assert!(check(&s, 2, "branch loop").is_ok());
    }
}
