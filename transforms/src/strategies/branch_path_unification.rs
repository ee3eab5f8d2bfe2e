//! Branch path unification: Kato, Suda & Tamada, fig. 10 (seed 004).
//!
//! Thread `t` owns groups of `items_per_thread` contiguous items (group `t`, then
//! `t + threads_per_block`, … while the block's chunk lasts). Per group, counters A and B start
//! at the group's first item; each round, counter A scans forward (evaluating `decide`) to the
//! next item taking path A, the warp runs path A for the lanes that found one, then counter B
//! does the same for path B. A lane moves to its next group when both counters have passed the
//! group's end. With more items per thread, more lanes find an item of each path per round.
//!
//! Measured (`docs/results/h100-reproduce/seed004-table4-path-execution-rate.md`,
//! `docs/results/h100-reproduce/seed004-tables2-3-fig14-path-unification.md`):
//! the model's rate of lanes running a path is 50.0, 51.7, 66.9 and 79.1 % for 1, 4, 16 and 64
//! items per thread (the paper: 50.0, 51.8, 66.6, 79.5 %); on an H100, at LOOP = 100 and 64
//! items per thread, the unified kernel takes 0.372x the baseline's time (at LOOP = 10000, 1.346x).

use reconverge_simt::{LaneMask, Warp};

use crate::io::{Sink, WarpTask};
use crate::shape::TwoPath;
use crate::shapes::two_path::PathWarp;

/// Branch path unification as each thread's plain loop ([`crate::Kernel::unified_items`]):
/// the thread's groups `(first, len)` one after the other, each with two forward-scanning
/// counters, path A run for the item counter A found and then path B for counter B's. The
/// lanes of a warp scan apart and run a path together, as the warp program below has them.
#[inline(always)]
pub(crate) fn unified_groups<P: TwoPath>(
    w: &P,
    mut groups: impl FnMut() -> Option<(u32, u32)>,
    mut put: impl FnMut(u32, P::Output),
) {
    while let Some((first, len)) = groups() {
        let (mut a, mut b) = (0u32, 0u32);
        while a < len || b < len {
            while a < len && !w.decide(first + a) {
                a += 1;
            }
            if a < len {
                put(first + a, w.path_a(first + a));
                a += 1;
            }
            while b < len && w.decide(first + b) {
                b += 1;
            }
            if b < len {
                put(first + b, w.path_b(first + b));
                b += 1;
            }
        }
    }
}

/// A lane's group: offsets of counters A and B in it, its length, and the item the scanning
/// counter found this round.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group {
    ca: u32,
    cb: u32,
    len: u32,
    found: bool,
    found_item: u32,
}

/// One warp of [`crate::Strategy::branch_path_unification`] on a [`TwoPath`].
pub struct BranchPathUnification<W: Warp, P: TwoPath> {
    warp: PathWarp<W, P, Group>,
    items_per_thread: u32,
}

impl<W: Warp, P: TwoPath> BranchPathUnification<W, P> {
    pub(crate) fn new(warp: &W, workload: P, task: WarpTask, items_per_thread: u32) -> Self {
        let n = items_per_thread;
        let warp = PathWarp::new(warp, workload, task, |thread| {
            let first = task.block_start.saturating_add(thread.saturating_mul(n));
            let group = Group {
                ca: 0,
                cb: 0,
                len: task.block_end.saturating_sub(first).min(n),
                found: false,
                found_item: 0,
            };
            (first, group)
        });
        Self {
            warp,
            items_per_thread,
        }
    }

    /// Every lane of `live` that has no found item scans its counter of path `a` forward to
    /// the next item taking that path. Returns the lanes that found one.
    fn scan(&mut self, warp: &mut W, a: bool, live: LaneMask) -> LaneMask {
        let p = &mut self.warp;
        let w = &p.workload;
        let decide = w.regions().decide;
        loop {
            let scanning = warp.map_ref(&p.lanes, |l| {
                let c = if a { l.own.ca } else { l.own.cb };
                !l.own.found && c < l.own.len
            });
            let scanning = warp.ballot(live, scanning);
            if scanning == 0 {
                break;
            }
            warp.branch(decide, scanning, &mut p.lanes, |l| {
                let g = &mut l.own;
                let c = if a { &mut g.ca } else { &mut g.cb };
                let item = l.item.saturating_add(*c);
                *c = c.saturating_add(1);
                if w.decide(item) == a {
                    g.found = true;
                    g.found_item = item;
                }
            });
        }
        let found = warp.map_ref(&p.lanes, |l| l.own.found);
        warp.ballot(live, found)
    }

    pub(crate) fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        let live = self.warp.live(warp);
        if live == 0 {
            return false;
        }
        for a in [true, false] {
            let found = self.scan(warp, a, live);
            let p = &mut self.warp;
            p.run_path(warp, a, found, |l| l.own.found_item, sink);
            p.lanes = warp.map(p.lanes, |mut l| {
                l.own.found = false;
                l
            });
        }
        let p = &mut self.warp;
        let done = warp.map_ref(&p.lanes, |l| l.own.ca >= l.own.len && l.own.cb >= l.own.len);
        let done = warp.ballot(live, done);
        let task = p.task;
        let n = self.items_per_thread;
        let stride = task.threads_per_block.saturating_mul(n);
        warp.branch(p.workload.regions().item, done, &mut p.lanes, |l| {
            l.item = l.item.saturating_add(stride);
            l.has = stride > 0 && l.item < task.block_end;
            l.own.len = task.block_end.saturating_sub(l.item).min(n);
            l.own.ca = 0;
            l.own.cb = 0;
        });
        true
    }
}
