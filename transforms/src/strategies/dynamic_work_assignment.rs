//! Dynamic work assignment: Kato, Suda & Tamada, fig. 5 (seed 004); with a branch strategy on
//! top, the setting of Han & Abdelrahman §4.2.2's MCML runs (seed 002).
//!
//! A lane whose item finishes does not wait for the warp's slowest lane: it takes the next
//! unclaimed item of its block from a block-shared counter, one warp-aggregated atomic per
//! refill. Loops of data-dependent length then keep their lanes busy until the block's items
//! run out. The baseline's static block-stride order is dealt by the same code
//! ([`Assignment::Static`]), so every loop shape retires and refills its lanes here.
//!
//! On the GPU, dynamic work assignment (per block or grid-wide) needs no agreement between lanes
//! and runs as each thread's plain loop (`plain_loop`, through
//! [`crate::Kernel::plain_items`]), the claims aggregated over the threads that claim together;
//! the warp programs here are its form for the model and for the warp-level strategies on top.
//!
//! Measured on an H100, 2026-11-25 (`docs/results/mcml/README.md`, `docs/results/plain/`,
//! `docs/results/h100-reproduce/seed004-table1-fig12-dynamic-work-assignment.md`): MCML runs
//! 1.20x the plain per-thread baseline on skin and 1.39x on the slab (1.12x and 1.15x its former
//! warp program), the fastest MCML kernel on the slab; on the reference workloads it is within
//! 1.001-1.008x of the hand-written block-counter kernel; on seed 004's loop it takes 1.000x the
//! baseline's time at LOOP_NUM 512 and 0.987x at 1 (the paper: 0.904x and 1.733x): on Volta and
//! later the plain nested loop does not hold a finished lane for its warp's slowest item there.

use reconverge_simt::{LaneMask, Region, Warp};

use crate::io::{Sink, WarpTask};

/// How a lane whose item has finished gets its next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assignment {
    /// Thread `t` of a block runs items `t`, `t + threads_per_block`, … of the block's chunk.
    Static,
    /// Thread `t` starts with item `t`; afterwards a lane takes the next unclaimed item from
    /// the block-shared counter 0 (seed 004 fig. 5), one warp-aggregated atomic per refill.
    Dynamic,
    /// Thread `g` of the grid starts with item `g`; afterwards a lane takes the next unclaimed
    /// item of the whole launch from one grid-wide counter ([`Warp::grid_fetch_add`]), one
    /// warp-aggregated atomic per refill: the persistent-threads kernel with a global work
    /// queue. Blocks that finish early take work from blocks that are still busy, which a
    /// block's own counter cannot do.
    GridWide,
    /// Thread-data remapping (Zhang et al., G-Streamline, ASPLOS 2011): a first pass regroups
    /// each block's items by a per-item prediction key into a permutation, and lanes then run
    /// the permutation's items in [`Assignment::Static`]'s order, so that a warp's lanes hold
    /// items predicted alike ([`crate::strategies::thread_data_remapping`]). Outputs go to each
    /// item's own index. Shape: [`crate::BranchLoop`] workloads with a key
    /// ([`crate::BranchLoop::REMAP_BUCKETS`]); others refuse it with a typed error.
    Remapped,
}

impl Assignment {
    /// Every assignment, static first.
    pub const ALL: [Assignment; 4] = [
        Assignment::Static,
        Assignment::Dynamic,
        Assignment::GridWide,
        Assignment::Remapped,
    ];
}

/// What one lane carries: its item, the item's state, and the branch condition it computed
/// but has not yet acted on (iteration delaying keeps it across delayed iterations; which lanes
/// hold one the program knows from its masks, without a vote).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane<S> {
    /// The lane's index in the warp.
    pub lane: u32,
    /// The item the lane works on (global index).
    pub item: u32,
    /// Whether the lane has an item.
    pub has_item: bool,
    /// The pending iteration's branch condition.
    pub cond: bool,
    /// The item's state.
    pub state: S,
}

/// The lanes of a warp and the order in which they receive items.
pub(crate) struct Dealer {
    pub task: WarpTask,
    pub assignment: Assignment,
    /// Lanes that received a first item: the lanes that take part in the warp's votes.
    pub started: LaneMask,
    /// Lanes that hold an item. It changes only when lanes are refilled, so a warp in which
    /// no item finished reuses it instead of voting again (one vote fewer on most iterations).
    live: LaneMask,
    /// Lanes dealt a new item by the last [`Dealer::retire_and_refill`]: they hold no branch
    /// condition yet.
    pub refilled: LaneMask,
}

impl Dealer {
    /// The dealer of a warp and its lanes' first items: thread `t` of the block starts with
    /// item `t` of the block's chunk (under both assignments).
    pub fn first<W: Warp, S: Copy>(
        warp: &W,
        task: WarpTask,
        assignment: Assignment,
        fresh: impl Fn(u32) -> S,
    ) -> (Self, W::V<Lane<S>>) {
        // `retire_and_refill` needs `&mut W` for its votes; a program is built before the warp
        // runs, so a vote here would be counted against no region of the loop. Build lanes
        // directly. Lanes without an item hold the state of a valid item, never used.
        let width = warp.width();
        // Under grid-wide assignment the launch's threads take the first items of the whole
        // range; otherwise the first items of their block's chunk.
        let (end, warp_first) = match assignment {
            Assignment::GridWide => (task.items, task.thread_in_grid(0, width)),
            Assignment::Static | Assignment::Dynamic | Assignment::Remapped => (
                task.block_end,
                task.block_start
                    .saturating_add(task.warp_in_block.saturating_mul(width)),
            ),
        };
        let lanes = warp.map(warp.lane_ids(), |lane| {
            let item = warp_first.saturating_add(lane);
            let has_item = item < end;
            Lane {
                lane,
                item,
                has_item,
                cond: false,
                state: fresh(item.min(end.saturating_sub(1))),
            }
        });
        let n = end.saturating_sub(warp_first).min(width);
        let started = reconverge_simt::full_mask(n);
        (
            Self {
                task,
                assignment,
                started,
                // Lane `l` got a first item exactly when `l < n`: the lanes of `started`.
                live: started,
                refilled: started,
            },
            lanes,
        )
    }

    /// Retires the items of lanes for which `done` holds (their output goes to `sink`) and deals
    /// those lanes new items, until no lane holds a finished item. Returns the lanes that still
    /// have an item.
    #[allow(clippy::too_many_arguments)]
    pub fn retire_and_refill<W: Warp, S: Copy, O: Copy, K: Sink<O>>(
        &mut self,
        warp: &mut W,
        region: Region,
        lanes: &mut W::V<Lane<S>>,
        done: impl Fn(&S) -> bool,
        finish: impl Fn(&S) -> O,
        fresh: impl Fn(u32) -> S,
        sink: &mut K,
    ) -> LaneMask {
        let task = self.task;
        self.refilled = 0;
        loop {
            let finished = warp.map_ref(lanes, |l| l.has_item && done(&l.state));
            let finished = warp.ballot(self.started, finished);
            if finished == 0 {
                if self.refilled != 0 {
                    let has = warp.map_ref(lanes, |l| l.has_item);
                    self.live = warp.ballot(self.started, has);
                }
                return self.live;
            }
            if warp.reconverges_per_item() && finished != self.live {
                // The finished lanes wait, holding their done items, until every lane's item
                // is done; the warp runs on with the others.
                return self.live & !finished;
            }
            self.refilled |= finished;
            match self.assignment {
                // A remapped program deals slots of its permutation in the static order (the
                // shape's adapter maps a slot to its item).
                Assignment::Static | Assignment::Remapped => {
                    let stride = task.threads_per_block;
                    warp.branch(region, finished, lanes, |l| {
                        sink.put(l.item, finish(&l.state));
                        l.item = l.item.saturating_add(stride);
                        l.has_item = l.item < task.block_end;
                        if l.has_item {
                            l.state = fresh(l.item);
                        }
                    });
                }
                Assignment::Dynamic => {
                    // One atomic for the whole warp: the leader claims as many items as lanes
                    // finished, and each lane takes the one of its rank among them.
                    let claimed = finished.count_ones();
                    let base = warp.block_fetch_add(self.started, 0, claimed);
                    warp.branch(region, finished, lanes, |l| {
                        sink.put(l.item, finish(&l.state));
                        let rank = (finished & ((1u32 << l.lane) - 1)).count_ones();
                        let next = base.saturating_add(rank);
                        l.item = task.block_start.saturating_add(next);
                        l.has_item = next < task.block_len();
                        if l.has_item {
                            l.state = fresh(l.item);
                        }
                    });
                }
                Assignment::GridWide => {
                    // The launch's threads took items 0..threads first; the counter deals the
                    // rest. A lane past the end claims nothing more, so the counter stops at
                    // most `threads` past `items`, within u32.
                    let claimed = finished.count_ones();
                    let base = warp.grid_fetch_add(self.started, claimed);
                    let first_dealt = task.launch_threads();
                    warp.branch(region, finished, lanes, |l| {
                        sink.put(l.item, finish(&l.state));
                        let rank = (finished & ((1u32 << l.lane) - 1)).count_ones();
                        l.item = first_dealt.saturating_add(base.saturating_add(rank));
                        l.has_item = l.item < task.items;
                        if l.has_item {
                            l.state = fresh(l.item);
                        }
                    });
                }
            }
        }
    }
}

/// [`Dealer::retire_and_refill`] for a loop program with fields `workload` (a loop shape:
/// `regions().item`, `running`, `finish`, `start`), `dealer` and `lanes`.
macro_rules! retire_and_refill {
    ($program:expr, $warp:expr, $sink:expr) => {{
        let w = &$program.workload;
        $program.dealer.retire_and_refill(
            $warp,
            w.regions().item,
            &mut $program.lanes,
            |s| !w.running(s),
            |s| w.finish(s),
            |item| w.start(item),
            $sink,
        )
    }};
}
pub(crate) use retire_and_refill;

/// `step` ([`WarpProgram::step`](crate::WarpProgram::step)'s signature, items of output
/// `$output`) of a loop program with the fields [`retire_and_refill!`] uses: it retires the
/// finished lanes and refills them, returns `false` once no lane is live, and otherwise runs
/// `$body` with `$live` the live lanes.
macro_rules! dealt_step {
    ($output:ty; |$self:ident, $warp:ident, $sink:ident, $tally:ident, $live:ident| $body:block) => {
        fn step<S: $crate::io::Sink<$output>, T: $crate::io::Tally>(
            &mut $self,
            $warp: &mut W,
            $sink: &mut S,
            $tally: &mut T,
        ) -> bool {
            let $live = $crate::strategies::dynamic_work_assignment::retire_and_refill!(
                $self, $warp, $sink
            );
            if $live == 0 {
                return false;
            }
            $body
        }
    };
}
pub(crate) use dealt_step;

/// [`plain_loop`] over the items of a loop shape's workload (`start`, `running`, `finish`):
/// `plain_loop_of!(self.0, next, put, |w, s| iteration)`, where `w` is a borrow of the
/// workload and `iteration` runs one loop iteration of the state `s`.
macro_rules! plain_loop_of {
    ($workload:expr, $next:expr, $put:expr, |$w:ident, $s:ident| $iterate:expr) => {{
        let $w = &$workload;
        $crate::strategies::dynamic_work_assignment::plain_loop(
            $next,
            $put,
            |item| $w.start(item),
            |s| $w.running(s),
            |s| $w.finish(s),
            |$s| $iterate,
        )
    }};
}
pub(crate) use plain_loop_of;

/// The plain per-thread loop of a loop shape, flattened as the warp programs are (see
/// [`crate::Kernel::plain_items`]): one thread runs the items `next` deals, `iterate` running
/// one loop iteration of the current item while it is `running`; when an item finishes, its
/// output goes to `put` and the next item starts at once. Returns `true` (the shape has a
/// plain form).
#[inline(always)]
pub(crate) fn plain_loop<S, O>(
    mut next: impl FnMut() -> Option<u32>,
    mut put: impl FnMut(u32, O),
    start: impl Fn(u32) -> S,
    running: impl Fn(&S) -> bool,
    finish: impl Fn(&S) -> O,
    mut iterate: impl FnMut(&mut S),
) -> bool {
    let Some(mut item) = next() else {
        return true;
    };
    let mut state = start(item);
    loop {
        if !running(&state) {
            put(item, finish(&state));
            let Some(following) = next() else {
                return true;
            };
            item = following;
            state = start(item);
            continue;
        }
        iterate(&mut state);
    }
}
