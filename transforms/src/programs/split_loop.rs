//! Loop splitting for a loop whose body has two independent parts ([`SplitLoop`]: seed 001
//! fig. 5).

use reconverge_simt::{LaneMask, Warp};

use crate::io::{Sink, Tally, WarpTask};
use crate::kernel::{Kernel, WarpProgram, check_pass};
use crate::scratch::Scratch;
use crate::shape::SplitLoop;
use crate::strategy::{Strategy, StrategyError};

/// A [`SplitLoop`] workload as a [`Kernel`]. Supports [`Strategy::Baseline`] (fig. 5a, the
/// fused loop) and [`Strategy::LoopSplitting`] (fig. 5b), each in one pass.
///
/// Thread `t` of a block runs items `t`, `t + threads_per_block`, … of the block's chunk,
/// one per round. In a round the fused loop runs `part_a; part_b` while any lane has
/// iterations left; the split version runs `part_a` while any lane has iterations left, then
/// `part_b` likewise (the warp reconverges between the two loops, as hardware does). Both
/// therefore issue each part `max trips` times per round: loop splitting changes no
/// instruction count, only which state is live in each loop.
///
/// **One pass, two loops.** Seed 001 fig. 5b keeps both loops in one kernel: the register
/// saving comes from `ptr1`, `ptr2` being dead during the second loop, not from a second
/// launch. Two passes would also need part A's state carried between kernels through global
/// memory, for which [`Kernel`] has no buffer. On the GPU the saving is realised when part A's
/// state ([`SplitLoop::A`]) is only what `finish` needs and part A's inputs are derived inside
/// `part_a`.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct SplitLoopKernel<L>(pub L);

#[derive(Clone, Copy, Debug)]
struct SplitLane<A, B> {
    item: u32,
    has: bool,
    trips: u32,
    /// Iterations of part A and part B done.
    ia: u32,
    ib: u32,
    a: A,
    b: B,
}

/// One warp running a [`SplitLoop`].
pub struct SplitLoopProgram<W: Warp, L: SplitLoop> {
    workload: L,
    split: bool,
    task: WarpTask,
    lanes: W::V<SplitLane<L::A, L::B>>,
    all: LaneMask,
    /// Loop splitting: the warp is in the second loop (part B) of the current round.
    in_b: bool,
}

impl<L: SplitLoop + Copy> Kernel for SplitLoopKernel<L> {
    type Output = L::Output;
    type Program<'k, W: Warp>
        = SplitLoopProgram<W, &'k L>
    where
        Self: 'k;

    const SHAPE: &'static str = "split loop";

    fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
        split_of(strategy).map(|_| 1)
    }

    fn program<'k, W: Warp>(
        &'k self,
        warp: &W,
        strategy: &Strategy,
        pass: u32,
        task: WarpTask,
        _scratch: &'k Scratch,
    ) -> Result<SplitLoopProgram<W, &'k L>, StrategyError> {
        check_pass(pass, 1)?;
        let split = split_of(strategy)?;
        let w = &self.0;
        let width = warp.width();
        let lanes = warp.map(warp.lane_ids(), |lane| {
            let item = task
                .block_start
                .saturating_add(task.thread_in_block(lane, width));
            fresh(&w, item, task)
        });
        Ok(SplitLoopProgram {
            workload: w,
            split,
            task,
            lanes,
            all: warp.full_mask(),
            in_b: false,
        })
    }
}

fn split_of(strategy: &Strategy) -> Result<bool, StrategyError> {
    match *strategy {
        Strategy::Baseline => Ok(false),
        Strategy::LoopSplitting => Ok(true),
        other => Err(StrategyError::NotApplicable {
            strategy: other,
            shape: "split loop",
        }),
    }
}

/// A lane starting `item` (or holding no item past the chunk's end; its state then is that of
/// a valid item, never used).
fn fresh<L: SplitLoop>(w: &L, item: u32, task: WarpTask) -> SplitLane<L::A, L::B> {
    let has = item < task.block_end;
    let valid = item.min(task.block_end.saturating_sub(1));
    SplitLane {
        item,
        has,
        trips: if has { w.trips(item) } else { 0 },
        ia: 0,
        ib: 0,
        a: w.start_a(valid),
        b: w.start_b(valid),
    }
}

impl<W: Warp, L: SplitLoop> WarpProgram<W> for SplitLoopProgram<W, L> {
    type Output = L::Output;

    fn step<S: Sink<L::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        _tally: &mut T,
    ) -> bool {
        let w = &self.workload;
        let r = w.regions();
        let want_a = warp.map_ref(&self.lanes, |l| l.has && l.ia < l.trips);
        let want_b = warp.map_ref(&self.lanes, |l| l.has && l.ib < l.trips);
        if !self.split {
            let live = warp.ballot(self.all, want_a);
            if live != 0 {
                warp.branch(r.part_a, live, &mut self.lanes, |l| {
                    w.part_a(&mut l.a, l.ia);
                    l.ia = l.ia.saturating_add(1);
                });
                warp.branch(r.part_b, live, &mut self.lanes, |l| {
                    w.part_b(&mut l.b, l.ib);
                    l.ib = l.ib.saturating_add(1);
                });
                return true;
            }
        } else {
            if !self.in_b {
                let live = warp.ballot(self.all, want_a);
                if live != 0 {
                    warp.branch(r.part_a, live, &mut self.lanes, |l| {
                        w.part_a(&mut l.a, l.ia);
                        l.ia = l.ia.saturating_add(1);
                    });
                    return true;
                }
                self.in_b = true;
            }
            let live = warp.ballot(self.all, want_b);
            if live != 0 {
                warp.branch(r.part_b, live, &mut self.lanes, |l| {
                    w.part_b(&mut l.b, l.ib);
                    l.ib = l.ib.saturating_add(1);
                });
                return true;
            }
            self.in_b = false;
        }
        // The round is over: store the outputs and move to the next items.
        let has = warp.map_ref(&self.lanes, |l| l.has);
        let has = warp.ballot(self.all, has);
        if has == 0 {
            return false;
        }
        let task = self.task;
        let stride = task.threads_per_block.max(1);
        warp.branch(r.item, has, &mut self.lanes, |l| {
            sink.put(l.item, w.finish(&l.a, &l.b));
            *l = fresh(w, l.item.saturating_add(stride), task);
        });
        true
    }
}
