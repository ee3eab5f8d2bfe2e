//! Strategies for a per-item two-path branch ([`TwoPath`]: seed 004 fig. 6/9, seed 001
//! fig. 6, GPU Gems 2 ch. 34).

use reconverge_simt::{LaneMask, Region, Warp};

use crate::io::{Sink, Tally, WarpTask};
use crate::kernel::{Kernel, WarpProgram, check_pass};
use crate::scratch::{DecisionMask, Scratch};
use crate::shape::TwoPath;
use crate::strategy::{Strategy, StrategyError};

/// A [`TwoPath`] workload as a [`Kernel`].
///
/// | strategy | passes | what a warp does |
/// |---|---|---|
/// | [`Strategy::Baseline`] | 1 | each lane runs items `t`, `t + threads_per_block`, … of its block's chunk; per item: `decide`, path A for the lanes that want it, path B for the others |
/// | [`Strategy::Predication`] | 1 | as the baseline, but every live lane runs both paths and keeps one result (Gems 34.2.1) |
/// | [`Strategy::BranchSplitting`] | 2 | pass 0 runs path A on the items that take it, pass 1 path B; lanes whose item takes the other path idle but still evaluate `decide` (seed 001 fig. 6b: each pass is a kernel of its own, compiled with its own register count) |
/// | [`Strategy::ZCullMasking`] | 3 | pass 0 evaluates `decide` for the baseline's items and stores it as a [`DecisionMask`] (one atomic OR per warp window, by the window's lowest lane); pass 1 runs path A and pass 2 path B on the items whose mask bit says so, each lane loading its bit; a window whose lanes all fail issues no path at all |
/// | [`Strategy::StaticBranchResolution`] | 1 | compaction by predicate in the warp (below) |
/// | [`Strategy::BranchPathUnification`] | 1 | seed 004 fig. 10 (below) |
///
/// **Static branch resolution as stream compaction.** Gems 34.2.2 resolves a branch before
/// the kernel runs (interior and boundary cells drawn by two programs) and 34.2.3 precomputes
/// a branch's outcome into a mask so that the hardware skips what it need not run. Both sort
/// work by its branch outcome ahead of the code that branches. A warp does that here on its
/// own: it scans its share of the block's items in windows of one warp width (the
/// baseline's items, in the baseline's order), ballots the window's decisions, and appends the
/// A items and the B items to two queues held one slot per lane (each item index moves to its
/// slot with one shuffle: a lane's slot is the queue length plus its rank among the window's
/// lanes of that path). Whenever a queue holds a full warp of items, the warp runs that path
/// with every lane busy; at the end it flushes the two partial queues. The cost is a vote and
/// up to two shuffles per window, and at most two partially filled issues per path and warp.
///
/// **Branch path unification (seed 004 fig. 10).** Thread `t` owns groups of
/// `items_per_thread` contiguous items (group `t`, then `t + threads_per_block`, … while the
/// block's chunk lasts). Per group, counters A and B start at the group's first item; each
/// round, counter A scans forward (evaluating `decide`) to the next item taking path A, the
/// warp runs path A for the lanes that found one, then counter B does the same for path B.
/// A lane moves to its next group when both counters have passed the group's end.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct TwoPathKernel<P>(pub P);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Baseline,
    Predication,
    /// Branch splitting: the pass that runs path A (`true`) or path B.
    Split(bool),
    /// Z-cull masking, pass 0: store the decisions.
    ZMask,
    /// Z-cull masking, passes 1 and 2: path A (`true`) or path B where the mask lets through.
    ZPath(bool),
    Compact,
    Unify(u32),
}

/// What one lane carries. Fields not used by a mode keep their initial values.
#[derive(Clone, Copy, Debug)]
struct PathLane<O> {
    lane: u32,
    /// Baseline, predication, splitting, compaction: the lane's current item.
    /// Unification: the first item of the lane's current group.
    item: u32,
    /// Whether `item` is in the block's chunk.
    has: bool,
    /// The current item's decision.
    dec: bool,
    /// Predication's two results.
    a: Option<O>,
    b: Option<O>,
    /// Compaction: the item in this lane's slot of queue A and queue B.
    qa: u32,
    qb: u32,
    /// Unification: offsets of counters A and B in the group, the group's length, and the item
    /// each counter found this round.
    ca: u32,
    cb: u32,
    len: u32,
    found: bool,
    found_item: u32,
}

/// One warp running a [`TwoPath`] workload under one strategy.
pub struct TwoPathProgram<'s, W: Warp, P: TwoPath> {
    workload: P,
    /// Z-cull masking: the run's decision mask.
    mask: DecisionMask<'s>,
    mode: Mode,
    task: WarpTask,
    lanes: W::V<PathLane<P::Output>>,
    /// The warp's lanes (all of them take part in its votes: threads per block is a multiple
    /// of the warp width).
    all: LaneMask,
    /// Compaction: items in queue A and queue B (slots `0..na` and `0..nb`).
    na: u32,
    nb: u32,
    /// Compaction: the partial queues have been flushed.
    flushed: bool,
}

impl<P: TwoPath + Copy> Kernel for TwoPathKernel<P> {
    type Output = P::Output;
    type Program<'k, W: Warp>
        = TwoPathProgram<'k, W, &'k P>
    where
        Self: 'k;

    const SHAPE: &'static str = "two-path branch";

    // Branch path unification at 16 items per thread, one of seed 004 table 4's DATA_PER_THREAD
    // values (1, 4, 16, 64) and the first at which it clearly gains (66.6 % useful lanes
    // against 50 %) without needing 64 items per thread.
    const STRATEGIES: &'static [Strategy] = &[
        Strategy::Baseline,
        Strategy::Predication,
        Strategy::StaticBranchResolution,
        Strategy::BranchSplitting,
        Strategy::ZCullMasking,
        Strategy::BranchPathUnification {
            items_per_thread: 16,
        },
    ];

    fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError> {
        mode_of(strategy, 0).map(|_| match strategy {
            Strategy::BranchSplitting => 2,
            Strategy::ZCullMasking => 3,
            _ => 1,
        })
    }

    fn scratch_words(&self, strategy: &Strategy, items: u32) -> usize {
        match strategy {
            Strategy::ZCullMasking => DecisionMask::words_for(items),
            _ => 0,
        }
    }

    fn program<'k, W: Warp>(
        &'k self,
        warp: &W,
        strategy: &Strategy,
        pass: u32,
        task: WarpTask,
        scratch: &'k Scratch,
    ) -> Result<TwoPathProgram<'k, W, &'k P>, StrategyError> {
        check_pass(pass, self.passes(strategy)?)?;
        let mode = mode_of(strategy, pass)?;
        Ok(TwoPathProgram::new(
            warp,
            &self.0,
            mode,
            task,
            DecisionMask::new(scratch),
        ))
    }
}

fn mode_of(strategy: &Strategy, pass: u32) -> Result<Mode, StrategyError> {
    match *strategy {
        Strategy::Baseline => Ok(Mode::Baseline),
        Strategy::Predication => Ok(Mode::Predication),
        Strategy::BranchSplitting => Ok(Mode::Split(pass == 0)),
        Strategy::ZCullMasking => Ok(match pass {
            0 => Mode::ZMask,
            p => Mode::ZPath(p == 1),
        }),
        Strategy::StaticBranchResolution => Ok(Mode::Compact),
        Strategy::BranchPathUnification { items_per_thread } => {
            if items_per_thread == 0 {
                Err(StrategyError::InvalidParameter {
                    name: "items_per_thread",
                    requirement: "at least 1",
                })
            } else {
                Ok(Mode::Unify(items_per_thread))
            }
        }
        other => Err(StrategyError::NotApplicable {
            strategy: other,
            shape: "two-path branch",
        }),
    }
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

impl<'s, W: Warp, P: TwoPath> TwoPathProgram<'s, W, P> {
    fn new(warp: &W, workload: P, mode: Mode, task: WarpTask, mask: DecisionMask<'s>) -> Self {
        let width = warp.width();
        let lanes = warp.map(warp.lane_ids(), |lane| {
            let thread = task.thread_in_block(lane, width);
            let (item, len) = match mode {
                Mode::Unify(n) => {
                    let first = task.block_start.saturating_add(thread.saturating_mul(n));
                    (first, task.block_end.saturating_sub(first).min(n))
                }
                _ => (task.block_start.saturating_add(thread), 1),
            };
            PathLane {
                lane,
                item,
                has: item < task.block_end,
                dec: false,
                a: None,
                b: None,
                qa: 0,
                qb: 0,
                ca: 0,
                cb: 0,
                len,
                found: false,
                found_item: 0,
            }
        });
        Self {
            workload,
            mask,
            mode,
            task,
            lanes,
            all: warp.full_mask(),
            na: 0,
            nb: 0,
            flushed: false,
        }
    }

    /// Lanes whose current item is in the block's chunk.
    fn live(&mut self, warp: &mut W) -> LaneMask {
        let has = warp.map_ref(&self.lanes, |l| l.has);
        warp.ballot(self.all, has)
    }

    /// Evaluates `decide` for the lanes of `live`; returns the lanes whose item takes path A.
    fn decide(&mut self, warp: &mut W, live: LaneMask) -> LaneMask {
        let w = &self.workload;
        warp.branch(w.regions().decide, live, &mut self.lanes, |l| {
            l.dec = w.decide(l.item)
        });
        let dec = warp.map_ref(&self.lanes, |l| l.dec);
        warp.ballot(live, dec)
    }

    /// Moves the lanes of `mask` to their next block-stride item.
    fn advance(&mut self, warp: &mut W, mask: LaneMask) {
        let task = self.task;
        let stride = task.threads_per_block.max(1);
        warp.branch(self.workload.regions().item, mask, &mut self.lanes, |l| {
            l.item = l.item.saturating_add(stride);
            l.has = l.item < task.block_end;
        });
    }

    /// Runs path A (`a`) or B on the item held by each lane of `mask` (`pick` chooses which
    /// field holds it) and stores the outputs.
    fn run_path<S: Sink<P::Output>>(
        &mut self,
        warp: &mut W,
        a: bool,
        mask: LaneMask,
        pick: impl Fn(&PathLane<P::Output>) -> u32,
        sink: &mut S,
    ) {
        let w = &self.workload;
        let regions = w.regions();
        if a {
            warp.branch(regions.path_a, mask, &mut self.lanes, |l| {
                let item = pick(l);
                sink.put(item, w.path_a(item));
            });
        } else {
            warp.branch(regions.path_b, mask, &mut self.lanes, |l| {
                let item = pick(l);
                sink.put(item, w.path_b(item));
            });
        }
    }

    fn step_baseline<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        let live = self.live(warp);
        if live == 0 {
            return false;
        }
        let want = self.decide(warp, live);
        self.run_path(warp, true, want, |l| l.item, sink);
        self.run_path(warp, false, live & !want, |l| l.item, sink);
        self.advance(warp, live);
        true
    }

    /// One path's pass over the baseline's items: branch splitting (`from_mask` false: every
    /// item's decision evaluated) or z-cull masking's culled pass (`from_mask`: each lane loads
    /// its bit of the mask pass's [`DecisionMask`]). A window in which no lane takes path `a`
    /// issues nothing of it: the culled tile.
    fn step_one_path<S: Sink<P::Output>>(
        &mut self,
        warp: &mut W,
        a: bool,
        from_mask: bool,
        sink: &mut S,
    ) -> bool {
        let live = self.live(warp);
        if live == 0 {
            return false;
        }
        let want = if from_mask {
            let mask = self.mask;
            warp.branch(Region::EXCHANGE, live, &mut self.lanes, |l| {
                l.dec = mask.get(l.item)
            });
            let dec = warp.map_ref(&self.lanes, |l| l.dec);
            warp.ballot(live, dec)
        } else {
            self.decide(warp, live)
        };
        let runs = if a { want } else { live & !want };
        self.run_path(warp, a, runs, |l| l.item, sink);
        self.advance(warp, live);
        true
    }

    /// Z-cull masking, pass 0 (Gems listing 34-1: the pass that writes the depth mask).
    fn step_zcull_mask(&mut self, warp: &mut W) -> bool {
        let live = self.live(warp);
        if live == 0 {
            return false;
        }
        let want = self.decide(warp, live);
        // The lanes of a window hold consecutive items, so the window's lowest lane can store
        // the whole window's decisions at once.
        let mask = self.mask;
        let lowest = live & live.wrapping_neg();
        warp.branch(Region::EXCHANGE, lowest, &mut self.lanes, |l| {
            mask.record(l.item.saturating_sub(l.lane), want)
        });
        self.advance(warp, live);
        true
    }

    fn step_predication<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        let live = self.live(warp);
        if live == 0 {
            return false;
        }
        let w = &self.workload;
        let regions = w.regions();
        warp.branch(regions.decide, live, &mut self.lanes, |l| {
            l.dec = w.decide(l.item)
        });
        warp.branch(regions.path_a, live, &mut self.lanes, |l| {
            l.a = Some(w.path_a(l.item))
        });
        warp.branch(regions.path_b, live, &mut self.lanes, |l| {
            l.b = Some(w.path_b(l.item))
        });
        let task = self.task;
        let stride = task.threads_per_block.max(1);
        warp.branch(regions.item, live, &mut self.lanes, |l| {
            if let Some(out) = if l.dec { l.a } else { l.b } {
                sink.put(l.item, out);
            }
            l.a = None;
            l.b = None;
            l.item = l.item.saturating_add(stride);
            l.has = l.item < task.block_end;
        });
        true
    }

    /// Appends the items of the lanes of `add` to queue A (`a`) or B; runs the path on a full
    /// warp when the queue fills.
    fn enqueue<S: Sink<P::Output>>(&mut self, warp: &mut W, a: bool, add: LaneMask, sink: &mut S) {
        let k = add.count_ones();
        if k == 0 {
            return;
        }
        let width = warp.width();
        let n = if a { self.na } else { self.nb };
        // Slot `s` receives the window item of rank `(s - n) mod width` among `add`.
        let src = warp.map_ref(&self.lanes, |l| {
            let rank = l
                .lane
                .wrapping_add(width)
                .wrapping_sub(n)
                .checked_rem(width)
                .unwrap_or(0);
            nth_set_bit(add, rank)
        });
        let items = warp.map_ref(&self.lanes, |l| l.item);
        let incoming = warp.shuffle(self.all, items, src);
        let total = n.saturating_add(k);
        let first_end = total.min(width);
        let queue = self.all;
        // Filling the slots `n..first_end` is one register write per lane: free bookkeeping.
        self.lanes = warp.zip_with(self.lanes, incoming, |mut l, v| {
            if l.lane >= n && l.lane < first_end {
                if a {
                    l.qa = v;
                } else {
                    l.qb = v;
                }
            }
            l
        });
        let rest = if total >= width {
            self.run_path(warp, a, queue, |l| if a { l.qa } else { l.qb }, sink);
            let rest = total.saturating_sub(width);
            self.lanes = warp.zip_with(self.lanes, incoming, |mut l, v| {
                if l.lane < rest {
                    if a {
                        l.qa = v;
                    } else {
                        l.qb = v;
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

    fn step_compact<S: Sink<P::Output>>(&mut self, warp: &mut W, sink: &mut S) -> bool {
        if self.flushed {
            return false;
        }
        let live = self.live(warp);
        if live == 0 {
            // The end of the warp's items: flush the partial queues.
            let (na, nb) = (self.na, self.nb);
            self.run_path(warp, true, self.all & below(na), |l| l.qa, sink);
            self.run_path(warp, false, self.all & below(nb), |l| l.qb, sink);
            self.na = 0;
            self.nb = 0;
            self.flushed = true;
            return false;
        }
        let want = self.decide(warp, live);
        self.enqueue(warp, true, want, sink);
        self.enqueue(warp, false, live & !want, sink);
        self.advance(warp, live);
        true
    }

    /// Unification: every lane of `live` that has no found item scans its counter of path `a`
    /// forward to the next item taking that path. Returns the lanes that found one.
    fn scan(&mut self, warp: &mut W, a: bool, live: LaneMask) -> LaneMask {
        let w = &self.workload;
        let decide = w.regions().decide;
        loop {
            let scanning = warp.map_ref(&self.lanes, |l| {
                let c = if a { l.ca } else { l.cb };
                !l.found && c < l.len
            });
            let scanning = warp.ballot(live, scanning);
            if scanning == 0 {
                break;
            }
            warp.branch(decide, scanning, &mut self.lanes, |l| {
                let c = if a { &mut l.ca } else { &mut l.cb };
                let item = l.item.saturating_add(*c);
                *c = c.saturating_add(1);
                if w.decide(item) == a {
                    l.found = true;
                    l.found_item = item;
                }
            });
        }
        let found = warp.map_ref(&self.lanes, |l| l.found);
        warp.ballot(live, found)
    }

    fn step_unify<S: Sink<P::Output>>(&mut self, warp: &mut W, n: u32, sink: &mut S) -> bool {
        let live = self.live(warp);
        if live == 0 {
            return false;
        }
        for a in [true, false] {
            let found = self.scan(warp, a, live);
            self.run_path(warp, a, found, |l| l.found_item, sink);
            self.lanes = warp.map(self.lanes, |mut l| {
                l.found = false;
                l
            });
        }
        let done = warp.map_ref(&self.lanes, |l| l.ca >= l.len && l.cb >= l.len);
        let done = warp.ballot(live, done);
        let task = self.task;
        let stride = task.threads_per_block.saturating_mul(n);
        warp.branch(self.workload.regions().item, done, &mut self.lanes, |l| {
            l.item = l.item.saturating_add(stride);
            l.has = stride > 0 && l.item < task.block_end;
            l.len = task.block_end.saturating_sub(l.item).min(n);
            l.ca = 0;
            l.cb = 0;
        });
        true
    }
}

impl<W: Warp, P: TwoPath> WarpProgram<W> for TwoPathProgram<'_, W, P> {
    type Output = P::Output;

    fn step<S: Sink<P::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        _tally: &mut T,
    ) -> bool {
        match self.mode {
            Mode::Baseline => self.step_baseline(warp, sink),
            Mode::Predication => self.step_predication(warp, sink),
            Mode::Split(a) => self.step_one_path(warp, a, false, sink),
            Mode::ZMask => self.step_zcull_mask(warp),
            Mode::ZPath(a) => self.step_one_path(warp, a, true, sink),
            Mode::Compact => self.step_compact(warp, sink),
            Mode::Unify(n) => self.step_unify(warp, n, sink),
        }
    }
}
