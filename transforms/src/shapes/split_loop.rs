//! A loop whose body has two independent parts ([`SplitLoop`]: seed 001 fig. 5): its kernel and
//! its baseline, the fused loop. Loop splitting's round lives in
//! [`crate::strategies::loop_splitting`].

use reconverge_simt::{LaneMask, Warp};

use crate::io::{Sink, Tally, WarpTask};
use crate::kernel::{WarpProgram, check_pass};
use crate::shape::SplitLoop;
use crate::strategies::loop_splitting::split_round;
use crate::strategy::{Strategy, StrategyError};

/// A [`SplitLoop`] workload as a [`Kernel`](crate::Kernel). Supports [`Strategy::BASELINE`]
/// (fig. 5a, the fused loop) and [`Strategy::LOOP_SPLITTING`] (fig. 5b), each in one pass.
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
/// memory, for which [`Kernel`](crate::Kernel) has no buffer.
///
/// **Liveness the compiler can see.** One [`WarpProgram::step`] runs one whole round, and
/// the parts' states are locals of that call, not fields of the program: in the split
/// version part A's state ([`SplitLoop::A`]) is reduced to its [`SplitLoop::Carry`] when loop
/// A ends and is dead from there on, so during loop B only the carry and part B's state are
/// live. (Stepping one iteration per call with both states kept in the program would keep
/// part A's whole state live through loop B: the compiler cannot tell that a later call will
/// not run part A again.)
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct SplitLoopKernel<L>(pub L);

/// A lane's item of the current round; the parts' states live only inside
/// [`WarpProgram::step`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitLane {
    item: u32,
    has: bool,
    /// Iterations of the item (0 without one).
    trips: u32,
}

/// One warp running a [`SplitLoop`].
pub struct SplitLoopProgram<W: Warp, L: SplitLoop> {
    workload: L,
    split: bool,
    task: WarpTask,
    lanes: W::V<SplitLane>,
    all: LaneMask,
}

crate::kernel_impl! {
    impl<L: SplitLoop + Copy> for SplitLoopKernel -> L::Output {
        type Program<'k, W> = SplitLoopProgram<W, &'k L>;
        const SHAPE = "split loop";
        fn program(&self, warp, strategy, pass, task, _scratch) {
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
            })
        }

        const STRATEGIES: &'static [Strategy] = &[Strategy::BASELINE, Strategy::LOOP_SPLITTING];

        fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
            split_of(strategy).map(|_| 1)
        }

        fn plain_items(&self, mut next, mut put, _tally) {
            // Fig. 5a for one thread: both parts in one loop.
            while let Some(item) = next() {
                put(item, self.0.run_item(item));
            }
            true
        }
    }
}

fn split_of(strategy: &Strategy) -> Result<bool, StrategyError> {
    match *strategy {
        Strategy::BASELINE => Ok(false),
        Strategy::LOOP_SPLITTING => Ok(true),
        other => Err(StrategyError::not_applicable(other, "split loop")),
    }
}

/// A lane starting `item`, or holding no item past the chunk's end.
fn fresh<L: SplitLoop>(w: &L, item: u32, task: WarpTask) -> SplitLane {
    let has = item < task.block_end;
    SplitLane {
        item,
        has,
        trips: if has { w.trips(item) } else { 0 },
    }
}

/// Runs a round's loop: `body(warp, live, i)` runs iteration `i` in the lanes `live` that have
/// more than `i` trips, while any lane has one (a vote per iteration and one for the exit).
/// `i` is warp-uniform: every lane starts its item at the round's start.
#[inline(always)]
pub(crate) fn trip_loop<W: Warp>(
    warp: &mut W,
    all: LaneMask,
    lanes: &W::V<SplitLane>,
    mut body: impl FnMut(&mut W, LaneMask, u32),
) {
    let mut i = 0u32;
    loop {
        let want = warp.map_ref(lanes, |l| i < l.trips);
        let live = warp.ballot(all, want);
        if live == 0 {
            return;
        }
        body(warp, live, i);
        i += 1;
    }
}

impl<W: Warp, L: SplitLoop> WarpProgram<W> for SplitLoopProgram<W, L> {
    type Output = L::Output;

    /// One round: every lane's item of this round, from its start to its output.
    fn step<S: Sink<L::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        _tally: &mut T,
    ) -> bool {
        let w = &self.workload;
        let r = w.regions();
        let task = self.task;
        let all = self.all;
        let lanes = &self.lanes;
        // Lanes without an item start from the chunk's last item (computed, never used).
        let last = task.block_end.saturating_sub(1);
        let valid = warp.map_ref(lanes, |l| l.item.min(last));
        let out = if self.split {
            split_round(warp, all, lanes, w, valid)
        } else {
            // Fig. 5a: both parts in one loop, both states live to its end.
            let mut a = warp.map(valid, |i| w.start_a(i));
            let mut b = warp.map(valid, |i| w.start_b(i));
            trip_loop(warp, all, lanes, |warp, live, i| {
                warp.branch(r.part_a, live, &mut a, |a| w.part_a(a, i));
                warp.branch(r.part_b, live, &mut b, |b| w.part_b(b, i));
            });
            let carry = warp.map_ref(&a, |a| w.finish_a(a));
            warp.zip_with(carry, b, |c, b| w.finish(&c, &b))
        };
        // The round is over: the lanes with an item store their outputs and move to their next
        // items; lanes without one write nothing.
        let has = warp.map_ref(lanes, |l| l.has);
        let has = warp.ballot(all, has);
        if has == 0 {
            return false;
        }
        let stride = task.threads_per_block.max(1);
        let mut round = warp.zip_with(self.lanes, out, |l, o| (l, o));
        warp.branch(r.item, has, &mut round, |(l, o)| {
            sink.put(l.item, *o);
            *l = fresh(w, l.item.saturating_add(stride), task);
        });
        self.lanes = warp.map(round, |(l, _)| l);
        true
    }
}
