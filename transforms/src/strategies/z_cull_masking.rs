//! Z-cull masking: Harris & Buck, "GPU Flow-Control Idioms", GPU Gems 2 ch. 34, §34.2.3
//! (listing 34-1, fig. 34-1).
//!
//! A first pass evaluates the condition and stores it in a mask (the book's depth buffer;
//! here a [`DecisionMask`] of one bit per item in [`crate::Scratch`]); then one pass per path
//! runs only where the mask lets it through. A warp window whose lanes all fail the test
//! issues no path at all, as the hardware's z-cull rejects a whole tile: the gain needs a
//! spatially coherent condition.
//!
//! Measured (`docs/results/h100-reproduce/gems34-fig34-1-zcull.md`):
//! on an H100 at p = 0.05 the culled passes take 0.088 ms with a random condition and 0.052 ms
//! with a coherent one, against predication's 0.071 / 0.073 ms; with the mask pass 0.121 /
//! 0.085 ms.

use reconverge_simt::{LaneMask, Region, Warp};

use crate::io::{Sink, WarpTask};
use crate::scratch::DecisionMask;
use crate::shape::TwoPath;
use crate::shapes::two_path::PathWarp;
use crate::strategies::branch_splitting::one_path;

/// One warp of z-cull masking's pass 0 (Gems listing 34-1: the pass that writes the depth
/// mask).
pub struct ZCullMask<'s, W: Warp, P: TwoPath> {
    warp: PathWarp<W, P, ()>,
    mask: DecisionMask<'s>,
}

impl<'s, W: Warp, P: TwoPath> ZCullMask<'s, W, P> {
    pub(crate) fn new(warp: &W, workload: P, task: WarpTask, mask: DecisionMask<'s>) -> Self {
        Self {
            warp: PathWarp::block_stride(warp, workload, task, ()),
            mask,
        }
    }

    pub(crate) fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, _sink: &mut S) -> bool {
        let p = &mut self.warp;
        let live = p.live(warp);
        if live == 0 {
            return false;
        }
        let want = p.decide(warp, live);
        // The lanes of a window hold consecutive items, so the window's lowest lane can store
        // the whole window's decisions at once.
        let mask = self.mask;
        let lowest = live & live.wrapping_neg();
        warp.branch(Region::EXCHANGE, lowest, &mut p.lanes, |l| {
            mask.record(l.item.saturating_sub(l.lane), want)
        });
        p.advance(warp, live);
        true
    }
}

/// One warp of z-cull masking's pass 1 (path A) or 2 (path B): each lane loads its mask bit
/// instead of evaluating `decide`.
pub struct ZCullPath<'s, W: Warp, P: TwoPath> {
    warp: PathWarp<W, P, ()>,
    mask: DecisionMask<'s>,
    a: bool,
}

impl<'s, W: Warp, P: TwoPath> ZCullPath<'s, W, P> {
    pub(crate) fn new(
        warp: &W,
        workload: P,
        task: WarpTask,
        mask: DecisionMask<'s>,
        a: bool,
    ) -> Self {
        Self {
            warp: PathWarp::block_stride(warp, workload, task, ()),
            mask,
            a,
        }
    }

    pub(crate) fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        let mask = self.mask;
        one_path(&mut self.warp, warp, self.a, sink, |p, warp, live| {
            warp.branch(Region::EXCHANGE, live, &mut p.lanes, |l| {
                l.dec = mask.get(l.item)
            });
            let dec = warp.map_ref(&p.lanes, |l| l.dec);
            warp.ballot(live, dec)
        })
    }
}

/// Pass `pass` of z-cull masking as the code of one lane of a warp: the form the hand-written
/// kernel takes (`reconverge_device::zcull_twin!`), which the GPU runs instead of the warp
/// programs above. The launch's warps take windows of 32 consecutive items at a stride of the
/// grid (warp `k` of the launch: items `32k …`, then `32k + threads …`), so a window's decisions
/// are one word of the mask, which the window's lane 0 stores whole in pass 0 (no atomic OR
/// across two words). In passes 1 (path A) and 2 (path B) each lane loads its window's word and
/// runs the path if its item's bit says so; a window with no lane on the path runs nothing.
///
/// `vote(p)` is the warp's ballot of `p` (every lane of the warp calls it at the same points:
/// the windows are the warp's, the same in every lane); `lane` is the calling lane, `task` the
/// lane's warp (its `threads_per_block` a multiple of 32). Outputs are the baseline's.
#[inline(always)]
pub fn pass_as_lane<P: TwoPath>(
    workload: &P,
    pass: u32,
    lane: u32,
    mut vote: impl FnMut(bool) -> LaneMask,
    task: WarpTask,
    mask: DecisionMask<'_>,
    mut put: impl FnMut(u32, P::Output),
) {
    for window in task.grid_stride_windows() {
        let (item, has) = task.window_item(window, lane);
        let index = window / 32;
        if pass == 0 {
            let word = vote(has && workload.decide(item));
            if lane == 0 {
                // SAFETY: this window, and so its word, is this warp's alone (windows are dealt
                // at a stride of the grid), and only its lane 0 stores it; no pass reads the
                // mask before pass 1.
                unsafe { mask.set_word_exclusive(index, word) };
            }
        } else {
            // The window's word, loaded by every lane of it as the twin's warp loads it (no
            // branch around the load).
            // SAFETY: passes 1 and 2 only read the mask, which pass 0 wrote.
            let word = unsafe { mask.word_of_earlier_pass(index) };
            let take_a = word >> lane & 1 != 0;
            if has && pass == 1 && take_a {
                put(item, workload.path_a(item));
            } else if has && pass == 2 && !take_a {
                put(item, workload.path_b(item));
            }
        }
    }
}
