//! Predication: Harris & Buck, "GPU Flow-Control Idioms", GPU Gems 2 ch. 34, §34.2.1.
//!
//! Every live lane evaluates the condition and runs *both* paths, then keeps the result of the
//! one its condition selects: no lane ever idles in a masked path, but every lane pays for
//! both. The book prefers it for branches of two to four operations; `path_a` and `path_b`
//! must be total (callable on any item).
//!
//! Measured (`docs/results/h100-reproduce/gems34-fig34-2-branching.md`):
//! on an H100 at p = 0.05 branching takes 0.958x predication's time with a random condition
//! and 0.485x with a coherent one; at p = 0.5, 1.068x and 0.759x. Predication wins only where
//! a branch is random and its paths are short.

use reconverge_simt::Warp;

use crate::io::{Sink, WarpTask};
use crate::shape::TwoPath;
use crate::shapes::two_path::PathWarp;

/// A lane's two results of its current item, before it keeps one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BothResults<O> {
    a: Option<O>,
    b: Option<O>,
}

/// One warp of [`crate::Strategy::PREDICATION`] on a [`TwoPath`].
pub struct Predication<W: Warp, P: TwoPath> {
    warp: PathWarp<W, P, BothResults<P::Output>>,
}

impl<W: Warp, P: TwoPath> Predication<W, P> {
    pub(crate) fn new(warp: &W, workload: P, task: WarpTask) -> Self {
        let none = BothResults { a: None, b: None };
        Self {
            warp: PathWarp::block_stride(warp, workload, task, none),
        }
    }

    pub(crate) fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        let p = &mut self.warp;
        let live = p.live(warp);
        if live == 0 {
            return false;
        }
        let w = &p.workload;
        let regions = w.regions();
        warp.branch(regions.decide, live, &mut p.lanes, |l| {
            l.dec = w.decide(l.item)
        });
        warp.branch(regions.path_a, live, &mut p.lanes, |l| {
            l.own.a = Some(w.path_a(l.item))
        });
        warp.branch(regions.path_b, live, &mut p.lanes, |l| {
            l.own.b = Some(w.path_b(l.item))
        });
        let task = p.task;
        let stride = task.threads_per_block.max(1);
        warp.branch(regions.item, live, &mut p.lanes, |l| {
            if let Some(out) = if l.dec { l.own.a } else { l.own.b } {
                sink.put(l.item, out);
            }
            l.own.a = None;
            l.own.b = None;
            l.item = l.item.saturating_add(stride);
            l.has = l.item < task.block_end;
        });
        true
    }
}
