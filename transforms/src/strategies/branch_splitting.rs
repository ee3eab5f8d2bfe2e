//! Branch splitting: Carrillo, Siegel & Li, "Making the Most of GPU Memory-Bound Kernels"
//! (2009), fig. 6 (seed 001).
//!
//! A kernel with an if/else becomes one kernel per path: pass 0 runs path A on the items that
//! take it, pass 1 path B. A lane whose item takes the other path idles, but each pass is
//! compiled on its own, so it needs only its own path's registers: the paper's gain is
//! occupancy, not SIMD efficiency.
//!
//! Measured (`docs/results/h100-reproduce/seed001-fig08-branch-splitting-linear.md`,
//! `docs/results/h100-reproduce/seed001-fig10-branch-splitting-random.md`):
//! on an H100 the split version runs at 0.586–0.627x the branched kernel's speed with a linear
//! decision mask and 0.624–0.671x with a random one, faster at none of 19 points (the paper:
//! 1.06–1.135x faster over 98 % of the random sweep); the H100 has registers to spare. Those
//! runs dealt the items to a warp program; the GPU now runs each pass as each lane's own code
//! ([`pass_as_lane`]), as the hand-written twin does, at 0.48-0.75x the best plain kernel on
//! seed 001's benchmark with a float else branch (H200, `docs/results/techniques/`).

use reconverge_simt::{LaneMask, Warp};

use crate::io::{Sink, WarpTask};
use crate::shape::TwoPath;
use crate::shapes::two_path::PathWarp;

/// One warp of one pass of [`crate::Strategy::BRANCH_SPLITTING`] on a [`TwoPath`].
pub struct BranchSplitting<W: Warp, P: TwoPath> {
    warp: PathWarp<W, P, ()>,
    /// The pass runs path A (`true`) or path B.
    a: bool,
}

impl<W: Warp, P: TwoPath> BranchSplitting<W, P> {
    pub(crate) fn new(warp: &W, workload: P, task: WarpTask, a: bool) -> Self {
        Self {
            warp: PathWarp::block_stride(warp, workload, task, ()),
            a,
        }
    }

    pub(crate) fn step<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        one_path(&mut self.warp, warp, self.a, sink, |p, warp, live| {
            p.decide(warp, live)
        })
    }
}

/// One path's pass over the baseline's items: the lanes of `want(live)` take path A, and the
/// pass runs path `a` for the lanes whose item takes it. A window in which no lane takes path
/// `a` issues nothing of it (z-cull masking's culled tile).
pub(crate) fn one_path<W: Warp, P: TwoPath, X: Copy, S: Sink<P::Output>>(
    p: &mut PathWarp<W, P, X>,
    warp: &mut W,
    a: bool,
    sink: &mut S,
    want: impl FnOnce(&mut PathWarp<W, P, X>, &mut W, LaneMask) -> LaneMask,
) -> bool {
    let live = p.live(warp);
    if live == 0 {
        return false;
    }
    let want = want(p, warp, live);
    let runs = if a { want } else { live & !want };
    p.run_path(warp, a, runs, |l| l.item, sink);
    p.advance(warp, live);
    true
}

/// Pass `pass` of branch splitting as the code of one lane, the kernel seed 001 fig. 6b writes
/// for each path (`reconverge_device::branch_splitting_twin!`): each lane takes its warp's
/// windows of 32 consecutive items at a stride of the grid and runs path A (pass 0) or path B
/// (pass 1) on its item where the item's decision takes that path. The GPU runs it instead of
/// the pass's warp program, which dealt the block's items to lanes and kept each lane's item
/// and flags in registers of that program: 1.16-1.32x the twin's time on an H200, where this
/// form takes 1.04-1.11x (`docs/results/techniques/`: the longer at the short heavy path,
/// where the grid-stride loop's 64-bit bound and the launch's first window are a larger share of
/// a thread's work than in the twin's one item per thread). Outputs are the baseline's.
#[inline(always)]
pub fn pass_as_lane<P: TwoPath>(
    workload: &P,
    pass: u32,
    lane: u32,
    task: WarpTask,
    mut put: impl FnMut(u32, P::Output),
) {
    let a = pass == 0;
    for window in task.grid_stride_windows() {
        let (item, has) = task.window_item(window, lane);
        if has && workload.decide(item) == a {
            let out = if a {
                workload.path_a(item)
            } else {
                workload.path_b(item)
            };
            put(item, out);
        }
    }
}
