//! Static branch resolution: Harris & Buck, "GPU Flow-Control Idioms", GPU Gems 2 ch. 34,
//! §34.2.2–34.2.3, read as stream compaction by predicate inside the warp.
//!
//! The book resolves a branch before the kernel runs (interior and boundary cells drawn by two
//! programs) or precomputes its outcome so that the hardware skips what it need not run: both
//! sort work by its branch outcome ahead of the code that branches. A warp does that here on
//! its own: it scans its share of the block's items in windows of one warp width (the
//! baseline's items, in the baseline's order), ballots the window's decisions, and appends the
//! A items and the B items to two queues held one slot per lane (each item index moves to its
//! slot with one shuffle: a lane's slot is the queue length plus its rank among the window's
//! lanes of that path). Whenever a queue holds a full warp of items, the warp runs that path
//! with every lane busy; at the end it flushes the two partial queues. The cost is a vote and
//! up to two shuffles per window, and at most two partially filled issues per path and warp.
//!
//! Measured (`docs/results/h100-reproduce/gems34-fig34-1-zcull.md`):
//! on an H100 at p = 0.5 it runs the random condition at 0.683x predication's time, where
//! z-cull masking, which cannot regroup items, takes 1.263x.

use reconverge_simt::{LaneMask, Warp};

use crate::io::{Sink, WarpTask};
use crate::shape::TwoPath;
use crate::shapes::two_path::PathWarp;

/// A lane's slots of the two queues: the item it holds in queue A and in queue B.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QueueSlots {
    qa: u32,
    qb: u32,
}

/// One warp of [`crate::Strategy::STATIC_BRANCH_RESOLUTION`] on a [`TwoPath`].
pub struct StaticBranchResolution<W: Warp, P: TwoPath> {
    warp: PathWarp<W, P, QueueSlots>,
    /// Items in queue A and queue B (slots `0..na` and `0..nb`).
    na: u32,
    nb: u32,
    /// The partial queues have been flushed.
    flushed: bool,
}

/// The index of the `n`-th (from 0) set bit of `mask`; 32 when it has fewer bits.
#[inline]
fn nth_set_bit(mut mask: LaneMask, n: u32) -> u32 {
    let mut i = 0;
    while i < n && mask != 0 {
        mask &= mask.wrapping_sub(1);
        i += 1;
    }
    mask.trailing_zeros()
}

/// The lanes below `lane`.
#[inline]
fn below(lane: u32) -> LaneMask {
    1u32.checked_shl(lane).unwrap_or(0).wrapping_sub(1)
}

impl<W: Warp, P: TwoPath> StaticBranchResolution<W, P> {
    pub(crate) fn new(warp: &W, workload: P, task: WarpTask) -> Self {
        let empty = QueueSlots { qa: 0, qb: 0 };
        Self {
            warp: PathWarp::block_stride(warp, workload, task, empty),
            na: 0,
            nb: 0,
            flushed: false,
        }
    }

    /// Appends the items of the lanes of `add` to queue A (`a`) or B; runs the path on a full
    /// warp when the queue fills.
    fn enqueue<S: Sink<P::Output>>(&mut self, warp: &mut W, a: bool, add: LaneMask, sink: &mut S) {
        let k = add.count_ones();
        if k == 0 {
            return;
        }
        let p = &mut self.warp;
        let width = warp.width();
        let n = if a { self.na } else { self.nb };
        // Slot `s` receives the window item of rank `(s - n) mod width` among `add`.
        let src = warp.map_ref(&p.lanes, |l| {
            let rank = l
                .lane
                .wrapping_add(width)
                .wrapping_sub(n)
                .checked_rem(width)
                .unwrap_or(0);
            nth_set_bit(add, rank)
        });
        let items = warp.map_ref(&p.lanes, |l| l.item);
        let incoming = warp.shuffle(p.all, items, src);
        let total = n.saturating_add(k);
        let first_end = total.min(width);
        let queue = p.all;
        // Filling the slots `n..first_end` is one register write per lane: free bookkeeping.
        p.lanes = warp.zip_with(p.lanes, incoming, |mut l, v| {
            if l.lane >= n && l.lane < first_end {
                if a {
                    l.own.qa = v;
                } else {
                    l.own.qb = v;
                }
            }
            l
        });
        let rest = if total >= width {
            p.run_path(
                warp,
                a,
                queue,
                |l| if a { l.own.qa } else { l.own.qb },
                sink,
            );
            let rest = total.saturating_sub(width);
            p.lanes = warp.zip_with(p.lanes, incoming, |mut l, v| {
                if l.lane < rest {
                    if a {
                        l.own.qa = v;
                    } else {
                        l.own.qb = v;
                    }
                }
                l
            });
            rest
        } else {
            total
        };
        if a {
            self.na = rest;
        } else {
            self.nb = rest;
        }
    }

    pub(crate) fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        if self.flushed {
            return false;
        }
        let live = self.warp.live(warp);
        if live == 0 {
            // The end of the warp's items: flush the partial queues.
            let (na, nb) = (self.na, self.nb);
            let p = &mut self.warp;
            p.run_path(warp, true, p.all & below(na), |l| l.own.qa, sink);
            p.run_path(warp, false, p.all & below(nb), |l| l.own.qb, sink);
            self.na = 0;
            self.nb = 0;
            self.flushed = true;
            return false;
        }
        let want = self.warp.decide(warp, live);
        self.enqueue(warp, true, want, sink);
        self.enqueue(warp, false, live & !want, sink);
        self.warp.advance(warp, live);
        true
    }
}
