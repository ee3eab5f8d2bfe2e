//! Collaborative context collection (Khorasani, Gupta & Bhuyan, "Efficient warp execution in
//! presence of divergence with collaborative context collection", MICRO 2015).
//!
//! In a loop whose lanes diverge into a costly body, a lane whose iteration wants the body while
//! fewer than a warp's worth of lanes do does not run it: it saves its live context (here the
//! [`BranchLoop`]'s `State`, which is `Copy`, and the item's index) to a per-warp stack in shared
//! memory and goes on with cheap work (another item). Once the stack holds a warp's worth of
//! contexts, they are popped into the lanes and the body runs with every lane active; at the end
//! the stack is drained with fewer. The paper reports 1.69x on average (up to 3.08x) on
//! applications with intra-warp load imbalance and a rare costly body; when every lane takes the
//! body together, or the body is cheap, the saves and restores are pure overhead.
//!
//! This module holds the schedule as a warp of 32 lanes emulated in lockstep
//! ([`collaborative_warp_loop`]), the form the CPU backend and the tests run and the reference
//! for the GPU's per-thread loop, with [`CollectionStats::issue_slots`], the model's count. As
//! [`crate::PathSchedule::CollaborativeContextCollection`] the branch loop runs it through
//! [`CollectionProgram`], one [`Collector::step`] per warp step, which records each step's
//! issues on the warp, so the advisor's model ranks it as it ranks the other schedules. The
//! GPU runs [`collected_thread_loop`] instead ("On the GPU" below). Its hand-written CUDA C++
//! twin is `references/cuda/collaborative_context_collection.cu` (`scripts/gpu-all.sh` part
//! `ccc`), its workloads `reconverge_workloads::synthetic::RareCostlyBody` (GPU entry points
//! `rare_*`; the techniques example's `rare-*` settings time them).
//!
//! # How an item's loop is cut into contexts
//! A [`BranchLoop`] item's iteration is `condition; taken | not_taken; after_branch`, and the
//! item goes on after its costly body (the taken path). So a context that ran the body comes
//! back to a lane, not to the program's end as the paper's tasks do: the warp's shared memory
//! holds two stacks in one array of [`STACK`] contexts, the *waiting* stack (contexts whose
//! condition chose the body, growing from slot 0) and the *resumed* stack (contexts that ran the
//! body and wait for a lane to go on, growing from the top). A lane that is free takes a resumed
//! context before it takes a new item. Each step:
//! 1. free lanes refill (resumed stack first, then the warp's next item); finished items put
//!    their output; every lane holding a context computes its condition;
//! 2. the lanes whose condition chose the body push their context on the waiting stack (and are
//!    free), the others run the cheap path and the code after the branch (one issue);
//! 3. if the waiting stack holds a warp's worth (or no lane holds a context any more: the
//!    drain), up to 32 contexts are popped, one per lane, and run the body and the code after
//!    the branch (one issue, all lanes active but at the drain); they go on the resumed stack.
//!
//! Each item sees the same iterations in the same order as in the baseline, whichever lane runs
//! them, so its output is the baseline's bit for bit.
//!
//! # Why [`STACK`] = 64 contexts never overflows
//! Let `T` be the contexts in flight (held by lanes or on either stack). Pushes, pops and the
//! body move contexts without changing `T`; only a new item raises it, and a new item is taken
//! only by a free lane while the resumed stack is empty. The waiting stack holds at most 31
//! after step 3 (it is popped whenever it reaches 32), so when a new item enters a free lane, `T`
//! is at most 31 (the other lanes) + 31 (waiting) + 1 = 63; `T` never exceeds 63 = 2·32 − 1, and both
//! stacks together hold at most `T`. Per warp the shared memory is
//! `STACK · (size_of::<State>() + 4)` bytes, rounded up to 16 ([`shared_bytes_per_warp`]; the
//! heights are warp-uniform registers).
//!
//! # On the GPU
//! [`collected_thread_loop`] is the same schedule as each thread's own loop, the form
//! `references/cuda/collaborative_context_collection.cu` writes by hand: warp votes (ballot,
//! population count, a lane's rank among the lanes below it) decide who pushes, pops and takes
//! new items; the stack heights and the count of items dealt are the same in every lane, so every
//! branch around a [`ContextStack::sync`] or a vote is warp-uniform. The stack is the warp's part
//! of the block's dynamic shared memory ([`crate::Kernel::dynamic_shared_bytes`] tells the
//! backend how much a launch needs).
//!
//! Under static assignment a warp's items are one contiguous chunk of its block's and the
//! dealer knows how many ([`ItemDealer::count`]), so the lanes count the items dealt as the
//! twin does; under the dynamic assignments, where a counter can run dry at any claim, they
//! vote on whether a lane found none.
//!
//! Measured on an H200 (`RareCostlyBody`, 2^20 items, body taken in 1 iteration of 32; the
//! per-thread form at its default launch, one resident wave, which the backend gives it under
//! any assignment: at one item per thread a warp has little to collect): 1.52x faster than the
//! best plain kernel, 1.00x the time of the hand-written CUDA C++ twin in the same job (six
//! alternating rounds, `docs/results/techniques/ccc-counted-dealer/`; 1.16x before the lanes
//! counted, 1.06x before the loop's flags were combined without short-circuits, each of which
//! had been a branch in a convergence region of its own). Its stack is read and written with
//! shared `LDS`/`STS`, as the twin's (the GPU's stack is based on an address LLVM knows to be
//! shared), and slots are wrapped into the stack rather than checked, so no branch guards a
//! load or a store. Under ncu it issues 1.03x the twin's warp instructions, 1.4x its branch
//! instructions, and an item index kept beside each state (one more `LDS`/`STS` per push and
//! pop). With the body in every iteration it loses (0.78x the best plain kernel; the twin
//! 0.53x).
//!
//! # Large contexts
//! A lane that holds its own context while the body runs on a popped one keeps both in
//! registers. For contexts above [`PARK_ABOVE`] bytes the holders first park theirs on the
//! resumed stack (it moves contexts, so the bound above still holds), and the body runs in the
//! lane's own registers. MCML's photon loop is such a case (a 112-byte photon:
//! `reconverge_workloads::mcml::CollectedBoundary`): bit-identical, and 0.79x / 0.76x its
//! per-thread loop's speed on an H200 (skin / slab), because 7,936 bytes of stack per warp (the
//! photon had 120 bytes then) and
//! 94 registers leave 20 resident warps where the plain loop keeps 32, while the boundary path
//! it collects is short (`docs/results/mcml/h200-wave9/`).

use reconverge_simt::{LaneMask, WARP_SIZE};

use crate::io::Tally;
use crate::shape::BranchLoop;

mod per_thread;
mod program;

pub use per_thread::collected_thread_loop;
pub use program::{CollectionProgram, DealOnWarp, ItemDealer, WarpDeal, context_words};

/// Contexts one warp's shared-memory stacks hold together: 2·32 − 1 is the most ever in
/// flight (module docs), rounded up to a power of two.
pub const STACK: usize = 2 * WARP_SIZE as usize;

/// Bytes of a context above which [`collected_thread_loop`]'s lanes park the contexts they hold
/// on the resumed stack before a body run, instead of keeping them in registers beside the
/// popped one (the module docs' bound still holds: parking moves contexts, it adds none).
pub const PARK_ABOVE: usize = 64;

/// Bytes of shared memory one warp's stacks take for a workload whose state is `S`: the
/// contexts' `u32` item indices (`STACK` of them, 256 bytes), then their states, rounded up to
/// 16 bytes so that the next warp's stack stays aligned ([`ContextStack`]'s layout).
pub const fn shared_bytes_per_warp<S>() -> usize {
    (STATES_OFFSET + STACK * core::mem::size_of::<S>()).next_multiple_of(16)
}

/// Where a warp's stack holds the states: after the `STACK` item indices, a multiple of 16.
pub const STATES_OFFSET: usize = STACK * core::mem::size_of::<u32>();

/// A warp's stack of contexts in memory all its lanes share (the block's shared memory on the
/// GPU), slot `slot < STACK` holding an item's index and its state at [`shared_bytes_per_warp`]'s
/// layout. What [`collected_thread_loop`] saves contexts to.
pub trait ContextStack {
    /// Stores `item` and `state` in slot `slot`. The loop never names a slot at or past
    /// [`STACK`] (the module docs bound the stacks); a stack given one must not touch memory
    /// outside itself (it may ignore the slot, or wrap it into the stack).
    fn store<S: Copy>(&mut self, slot: u32, item: u32, state: S);
    /// The item and state in slot `slot` (as the last `store` there left them; any bits of a
    /// valid `S` before that); `None` where the stack cannot hold an `S`, or for a slot at or
    /// past [`STACK`] where it does not wrap it.
    fn load<S: Copy>(&mut self, slot: u32) -> Option<(u32, S)>;
    /// Waits until every lane of the warp has reached this call, their stores before it seen by
    /// the loads after it (`__syncwarp`). Called by all lanes at the same points.
    fn sync(&mut self);
}

/// What a warp's run under collaborative context collection issued, for the SIMT model's
/// comparison with the baseline (the lanes each costly-body issue kept busy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollectionStats {
    /// Issues of the costly body (the taken path).
    pub body_issues: u64,
    /// Lanes active over all of them.
    pub body_lanes: u64,
    /// Issues of the cheap path (not-taken path and the code after the branch).
    pub cheap_issues: u64,
    /// Lanes active over all of them.
    pub cheap_lanes: u64,
    /// The most contexts both stacks ever held together (at most [`STACK`] − 1).
    pub peak_stacked: usize,
    /// Lockstep steps: one condition issue each (the baseline's loop iterations).
    pub steps: u64,
    /// Issues that save contexts to the waiting stack (steps where a lane wanted the body).
    pub save_issues: u64,
    /// Issues that restore contexts from the resumed stack into free lanes.
    pub restore_issues: u64,
}

impl CollectionStats {
    /// Issue slots of the warp's loop by the SIMT model's costs (a region's cost per issue,
    /// whatever the lanes active): each step's condition, each cheap and body issue with the
    /// code after the branch, and under collection the context moves, `context_words` 32-bit
    /// words per save, per restore and twice per body issue (popped from the waiting stack,
    /// pushed on the resumed one). With `context_words` 0 it is the baseline's count
    /// ([`baseline_body_issues`] leaves the move counts at 0). What the advisor ranks the
    /// schedule by against the baseline: collection pays when the body issues it saves outweigh
    /// the moves.
    pub fn issue_slots(&self, regions: &crate::shape::LoopRegions, context_words: u64) -> u64 {
        let after = u64::from(regions.after_branch.cost);
        let taken = u64::from(regions.taken.cost);
        let not_taken = u64::from(regions.not_taken.cost);
        let condition = u64::from(regions.condition.cost);
        self.steps * condition
            + self.cheap_issues * (not_taken + after)
            + self.body_issues * (taken + after + 2 * context_words)
            + (self.save_issues + self.restore_issues) * context_words
    }

    /// Mean active lanes per costly-body issue (0 when the body never ran).
    pub fn lanes_per_body_issue(&self) -> f64 {
        if self.body_issues == 0 {
            0.0
        } else {
            self.body_lanes as f64 / self.body_issues as f64
        }
    }
}

/// A context on a stack: the item and its state between two regions of an iteration.
#[derive(Clone, Copy)]
struct Context<S> {
    item: u32,
    state: S,
}

/// The warp's stacks in one array: waiting contexts from slot 0 up, resumed ones from the top
/// down, as in the one shared-memory array of the GPU program.
struct Stacks<S> {
    slots: [Option<Context<S>>; STACK],
    waiting: usize,
    resumed: usize,
}

impl<S: Copy> Stacks<S> {
    fn stacked(&self) -> usize {
        self.waiting + self.resumed
    }

    fn push_waiting(&mut self, c: Context<S>) -> Option<()> {
        if self.stacked() >= STACK {
            return None;
        }
        self.slots[self.waiting] = Some(c);
        self.waiting += 1;
        Some(())
    }

    fn pop_waiting(&mut self) -> Option<Context<S>> {
        self.waiting = self.waiting.checked_sub(1)?;
        self.slots[self.waiting].take()
    }

    fn push_resumed(&mut self, c: Context<S>) -> Option<()> {
        if self.stacked() >= STACK {
            return None;
        }
        self.resumed += 1;
        self.slots[STACK - self.resumed] = Some(c);
        Some(())
    }

    fn pop_resumed(&mut self) -> Option<Context<S>> {
        if self.resumed == 0 {
            return None;
        }
        let c = self.slots[STACK - self.resumed].take();
        self.resumed -= 1;
        c
    }
}

/// The stacks would have held more than [`STACK`] contexts: an internal invariant broken
/// (module docs prove it cannot happen), reported rather than a panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackOverflow;

impl core::fmt::Display for StackOverflow {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "collaborative context collection: a warp's stacks exceeded {STACK} contexts"
        )
    }
}

impl core::error::Error for StackOverflow {}

/// The lanes of one lockstep step of [`Collector::step`], for the SIMT model: each set of
/// lanes is one issue of its region (none when empty).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepLanes {
    /// Lanes whose item finished (its output put) at the step's start.
    pub retired: LaneMask,
    /// Lanes that took a resumed context from the stack (a restore of the context words).
    pub restored: LaneMask,
    /// Lanes that held a context and computed its condition.
    pub holding: LaneMask,
    /// Lanes whose condition chose the body: they saved their context (a save).
    pub saved: LaneMask,
    /// Lanes that ran the cheap path and the code after the branch.
    pub cheap: LaneMask,
    /// Lanes that ran the body with popped contexts (lane `i` the `i`-th popped), then the code
    /// after the branch, their contexts pushed on the resumed stack; 0 when the body did not run.
    pub body: LaneMask,
}

/// One warp of 32 lanes under collaborative context collection, run a lockstep step at a time
/// ([`Collector::step`]; the module docs give the steps). [`collaborative_warp_loop`] runs it
/// to the end; the branch loop's warp program ([`CollectionProgram`]) runs one step per
/// [`crate::WarpProgram::step`], dealing items the strategy's way.
pub struct Collector<S> {
    lanes: [Option<Context<S>>; WARP_SIZE as usize],
    /// Whether the dealer has answered `None`: it is never asked again.
    dealt_all: bool,
    stacks: Stacks<S>,
    /// What the warp issued so far.
    pub stats: CollectionStats,
}

impl<S: Copy> Default for Collector<S> {
    fn default() -> Self {
        Self {
            lanes: [None; WARP_SIZE as usize],
            dealt_all: false,
            stacks: Stacks {
                slots: [None; STACK],
                waiting: 0,
                resumed: 0,
            },
            stats: CollectionStats::default(),
        }
    }
}

impl<S: Copy> Collector<S> {
    /// Runs one lockstep step of `workload`: `next(lane)` deals the warp's next item to lane
    /// `lane` (called only for a free lane while no resumed context waits, and never again once
    /// it answers `None`), finished items go to `put`. Returns the step's lanes, or `None` once
    /// every item dealt has been put.
    ///
    /// # Errors
    /// [`StackOverflow`] if the stacks had to hold more than [`STACK`] contexts (module docs:
    /// it cannot happen).
    pub fn step<L: BranchLoop<State = S>, T: Tally>(
        &mut self,
        workload: &L,
        mut next: impl FnMut(u32) -> Option<u32>,
        mut put: impl FnMut(u32, L::Output),
        tally: &mut T,
    ) -> Result<Option<StepLanes>, StackOverflow> {
        const W: usize = WARP_SIZE as usize;
        let mut lanes = StepLanes::default();
        let stacks = &mut self.stacks;
        // 1. Refill: a free lane (or one whose item finished) takes a resumed context, else
        //    its next item; then every lane with a context computes its condition.
        let mut want: LaneMask = 0;
        for (lane, slot) in self.lanes.iter_mut().enumerate() {
            let bit = 1 << lane;
            loop {
                if let Some(c) = slot {
                    if workload.running(&c.state) {
                        break;
                    }
                    put(c.item, workload.finish(&c.state));
                    lanes.retired |= bit;
                    *slot = None;
                }
                *slot = match stacks.pop_resumed() {
                    Some(c) => {
                        lanes.restored |= bit;
                        Some(c)
                    }
                    None if self.dealt_all => None,
                    None => match next(lane as u32) {
                        Some(item) => Some(Context {
                            item,
                            state: workload.start(item),
                        }),
                        None => {
                            self.dealt_all = true;
                            None
                        }
                    },
                };
                if slot.is_none() {
                    break;
                }
            }
            if let Some(c) = slot {
                lanes.holding |= bit;
                if workload.condition(&mut c.state) {
                    want |= bit;
                }
            }
        }
        if lanes.holding == 0 && stacks.stacked() == 0 {
            return Ok(None);
        }
        let stats = &mut self.stats;
        stats.steps += 1;
        if lanes.restored != 0 {
            stats.restore_issues += 1;
        }
        if want != 0 {
            stats.save_issues += 1;
        }
        // 2. Lanes that want the body save their context; the others run the cheap path.
        lanes.saved = want;
        lanes.cheap = lanes.holding & !want;
        for (lane, slot) in self.lanes.iter_mut().enumerate() {
            if want & (1 << lane) != 0 {
                let c = slot.take().ok_or(StackOverflow)?;
                stacks.push_waiting(c).ok_or(StackOverflow)?;
            } else if let Some(c) = slot {
                workload.not_taken(&mut c.state, tally);
                workload.after_branch(&mut c.state, tally);
            }
        }
        if lanes.cheap != 0 {
            stats.cheap_issues += 1;
            stats.cheap_lanes += u64::from(lanes.cheap.count_ones());
        }
        stats.peak_stacked = stats.peak_stacked.max(stacks.stacked());
        // 3. A warp's worth waiting, or nothing else left to run: the body with popped lanes.
        if stacks.waiting >= W || (lanes.cheap == 0 && stacks.resumed == 0 && stacks.waiting > 0) {
            let mut popped: [Option<Context<S>>; W] = [None; W];
            for slot in popped.iter_mut() {
                *slot = stacks.pop_waiting();
            }
            let mut active = 0u32;
            for c in popped.iter_mut().flatten() {
                workload.taken(&mut c.state, tally);
                workload.after_branch(&mut c.state, tally);
                active += 1;
            }
            for c in popped.into_iter().flatten() {
                stacks.push_resumed(c).ok_or(StackOverflow)?;
            }
            lanes.body = reconverge_simt::full_mask(active);
            stats.body_issues += 1;
            stats.body_lanes += u64::from(active);
            stats.peak_stacked = stats.peak_stacked.max(stacks.stacked());
        }
        Ok(Some(lanes))
    }
}

/// One warp of 32 lanes running `workload` over the items `next` deals it (in the order it
/// deals them, to whichever lane is free; an item's output goes to `put`) under collaborative
/// context collection, in lockstep as the GPU's warp runs it (module docs give the steps).
/// Returns what it issued.
///
/// # Errors
/// [`StackOverflow`] if the stacks ever had to hold more than [`STACK`] contexts, which the
/// module docs prove cannot happen; the tests check the bound.
pub fn collaborative_warp_loop<L: BranchLoop, T: Tally>(
    workload: &L,
    mut next: impl FnMut() -> Option<u32>,
    mut put: impl FnMut(u32, L::Output),
    tally: &mut T,
) -> Result<CollectionStats, StackOverflow> {
    let mut collector = Collector::default();
    while collector
        .step(workload, |_lane| next(), &mut put, tally)?
        .is_some()
    {}
    Ok(collector.stats)
}

/// The baseline's costly-body issues for the same warp: 32 lanes each running their items of
/// `items` (lane `l` gets every 32nd, as static assignment deals them) in lockstep, the taken
/// path issued whenever one lane's iteration wants it. The SIMT model's figure that
/// [`collaborative_warp_loop`] is compared with.
pub fn baseline_body_issues<L: BranchLoop>(workload: &L, items: &[u32]) -> CollectionStats {
    const W: usize = WARP_SIZE as usize;
    let mut tally = crate::io::NoTally;
    let mut stats = CollectionStats::default();
    let mut cursor = [0usize; W];
    let mut lanes: [Option<L::State>; W] = [None; W];
    loop {
        let mut want = 0u64;
        let mut cheap = 0u64;
        let mut any = false;
        for (lane, slot) in lanes.iter_mut().enumerate() {
            loop {
                if let Some(s) = slot
                    && workload.running(s)
                {
                    break;
                }
                let index = lane + W * cursor[lane];
                *slot = items.get(index).map(|&i| workload.start(i));
                if slot.is_none() {
                    break;
                }
                cursor[lane] += 1;
            }
            if let Some(s) = slot {
                any = true;
                if workload.condition(s) {
                    workload.taken(s, &mut tally);
                    want += 1;
                } else {
                    workload.not_taken(s, &mut tally);
                    cheap += 1;
                }
                workload.after_branch(s, &mut tally);
            }
        }
        if !any {
            return stats;
        }
        stats.steps += 1;
        if want > 0 {
            stats.body_issues += 1;
            stats.body_lanes += want;
        }
        if cheap > 0 {
            stats.cheap_issues += 1;
            stats.cheap_lanes += cheap;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::shape::{LoopRegion, LoopRegions};

    /// A loop with a rare costly body: item `i` runs `8 + i % 7` iterations; an iteration wants
    /// the body when a hash of (item, iteration) falls under `rate` of 2^32 (the favourable
    /// case at 1/32: about one lane per iteration), and the body folds 64 rounds of a hash in.
    #[derive(Clone, Copy)]
    struct RareBody {
        rate: u64,
    }

    #[derive(Clone, Copy)]
    struct St {
        item: u32,
        iteration: u32,
        iterations: u32,
        acc: u32,
    }

    fn mix(x: u32) -> u32 {
        let mut x = x ^ (x >> 16);
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^ (x >> 16)
    }

    impl BranchLoop for RareBody {
        type State = St;
        type Output = u32;
        fn regions(&self) -> LoopRegions {
            LoopRegions {
                condition: LoopRegion::Condition.region("c", 4),
                taken: LoopRegion::Taken.region("t", 64),
                not_taken: LoopRegion::NotTaken.region("n", 2),
                after_branch: LoopRegion::AfterBranch.region("a", 1),
                item: LoopRegion::Item.region("i", 1),
            }
        }
        fn start(&self, item: u32) -> St {
            St {
                item,
                iteration: 0,
                iterations: 8 + item % 7,
                acc: item,
            }
        }
        fn running(&self, s: &St) -> bool {
            s.iteration < s.iterations
        }
        fn condition(&self, s: &mut St) -> bool {
            u64::from(mix(s.item.wrapping_mul(1000) ^ s.iteration)) < self.rate
        }
        fn taken<T: Tally>(&self, s: &mut St, _: &mut T) {
            for r in 0..64 {
                s.acc = mix(s.acc ^ r);
            }
        }
        fn not_taken<T: Tally>(&self, s: &mut St, _: &mut T) {
            s.acc = s.acc.wrapping_add(s.iteration);
        }
        fn after_branch<T: Tally>(&self, s: &mut St, _: &mut T) {
            s.iteration += 1;
        }
        fn finish(&self, s: &St) -> u32 {
            s.acc
        }
    }

    fn run(w: &RareBody, n: u32) -> (Vec<u32>, CollectionStats) {
        let mut out = vec![0; n as usize];
        let mut items = 0..n;
        let stats = collaborative_warp_loop(
            w,
            || items.next(),
            |i, o| out[i as usize] = o,
            &mut crate::io::NoTally,
        )
        .expect("the stacks stay within their bound");
        (out, stats)
    }

    const FAVOURABLE: RareBody = RareBody {
        rate: 1 << 27, // 1/32 of the iterations
    };
    const UNFAVOURABLE: RareBody = RareBody {
        rate: 1 << 32, // every iteration takes the body
    };

    #[test]
    fn outputs_equal_the_baseline_whichever_lane_ran_them() {
        for w in [FAVOURABLE, UNFAVOURABLE, RareBody { rate: 1 << 31 }] {
            for n in [0, 1, 31, 32, 33, 1000] {
                let (out, _) = run(&w, n);
                let expected: Vec<u32> = (0..n).map(|i| w.run_item(i)).collect();
                assert_eq!(out, expected, "rate {} over {n} items", w.rate);
            }
        }
    }

    /// The favourable workload's costly body: in the baseline a warp's issue of it is kept
    /// busy by the lanes whose iteration wants it, about 32·p / (1 − (1 − p)^32) = 1.57 at
    /// p = 1/32 (the mean of a binomial given it is not 0); under collection every issue but
    /// the drain's runs 32 lanes.
    #[test]
    fn the_body_runs_with_a_full_warp_under_collection() {
        let items: Vec<u32> = (0..4096).collect();
        let base = baseline_body_issues(&FAVOURABLE, &items);
        let (_, ccc) = run(&FAVOURABLE, 4096);
        let p: f64 = 1.0 / 32.0;
        let none = (0..32).fold(1.0, |q, _| q * (1.0 - p));
        let expected_base = 32.0 * p / (1.0 - none);
        assert!(
            (base.lanes_per_body_issue() - expected_base).abs() < 0.25,
            "baseline {} vs {expected_base}",
            base.lanes_per_body_issue()
        );
        // Same body runs in total: the work moved, it did not change.
        assert_eq!(base.body_lanes, ccc.body_lanes);
        // Every issue but the drains runs 32 lanes. A drain comes only once every live context
        // waits, and each context advances an iteration between two drains, so there are at
        // most 14 of them (an item's most iterations, 8 + 6).
        assert!(ccc.lanes_per_body_issue() > 31.0, "{ccc:?}");
        assert!(ccc.body_issues <= ccc.body_lanes / 32 + 14, "{ccc:?}");
        assert!(base.lanes_per_body_issue() < 2.0, "{base:?}");
    }

    /// Every lane taking the body every iteration: the baseline already issues it with (nearly)
    /// every lane, so collection has under 1/31 to gain and adds a save and a restore per body
    /// run (no cheap issue to fill).
    #[test]
    fn collection_gains_nothing_when_every_lane_takes_the_body() {
        let items: Vec<u32> = (0..1024).collect();
        let base = baseline_body_issues(&UNFAVOURABLE, &items);
        let (_, ccc) = run(&UNFAVOURABLE, 1024);
        assert_eq!(base.body_lanes, ccc.body_lanes);
        assert!(base.lanes_per_body_issue() > 31.0, "{base:?}");
        assert!(ccc.body_issues * 32 >= ccc.body_lanes, "{ccc:?}");
        assert_eq!(ccc.cheap_issues, 0);
    }

    /// The bound of the module docs: contexts in flight never exceed 2·32 − 1, at the rate
    /// that fills the waiting stack most (about half the lanes wanting the body, so that 31
    /// wait and 32 more push in one step) and at every other power-of-two rate.
    #[test]
    fn the_stacks_never_exceed_their_bound() {
        let mut peak = 0;
        for shift in 24..=32 {
            let w = RareBody { rate: 1 << shift };
            let (_, stats) = run(&w, 3000);
            assert!(stats.peak_stacked < STACK, "{stats:?}");
            peak = peak.max(stats.peak_stacked);
        }
        // The bound is reached, or nearly: the proof's 63 is not loose by much.
        assert!(peak >= 48, "peak {peak}");
        // A full stack refuses the push instead of writing past the array.
        let mut s = Stacks {
            slots: [None; STACK],
            waiting: 0,
            resumed: 0,
        };
        let c = Context {
            item: 0,
            state: 0u8,
        };
        for _ in 0..STACK / 2 {
            assert!(s.push_waiting(c).is_some());
            assert!(s.push_resumed(c).is_some());
        }
        assert!(s.push_waiting(c).is_none());
        assert!(s.push_resumed(c).is_none());
    }

    /// The model's issue slots rank collection first on the favourable loop (the 64-round body
    /// issued for ~1.6 lanes costs far more than four context words per lane moved) and the
    /// baseline first when every lane takes the body (nothing saved, the moves added). By hand
    /// for the favourable loop, per step: the baseline issues the condition (4), the 64-slot
    /// body in 1 − (31/32)^32 = 64 % of its steps, the cheap path (2) and the code after (1),
    /// about 48 slots; collection issues the condition, the cheap path and the code after (7),
    /// a body issue per ~32 wanting lanes (73 / 32 ≈ 2.3 with its moves) and a save and a
    /// restore of 4 words in some 64 % of steps each (≈ 5), about 14: some 3.4x fewer (the
    /// model counts 3.7x). Every iteration taking the body: 0.81x.
    #[test]
    fn the_model_ranks_collection_by_its_workload() {
        let words = (core::mem::size_of::<St>() / 4) as u64;
        let items: Vec<u32> = (0..4096).collect();
        for (w, collection_wins) in [(FAVOURABLE, true), (UNFAVOURABLE, false)] {
            let regions = w.regions();
            let base = baseline_body_issues(&w, &items).issue_slots(&regions, 0);
            let (_, ccc) = run(&w, 4096);
            let ccc = ccc.issue_slots(&regions, words);
            let gain = base as f64 / ccc as f64;
            if collection_wins {
                assert!(gain > 2.5, "rate {}: {ccc} vs {base}", w.rate);
            } else {
                assert!(gain < 1.0, "rate {}: {ccc} vs {base}", w.rate);
            }
        }
    }

    #[test]
    fn shared_memory_is_sized_from_the_state() {
        // St is four u32: 64 item indices of 4 bytes, then 64 states of 16.
        assert_eq!(shared_bytes_per_warp::<St>(), 64 * 4 + 64 * 16);
        // A 20-byte state: 256 + 1280 = 1536, a multiple of 16 already; 12 bytes round up.
        assert_eq!(shared_bytes_per_warp::<[u32; 5]>(), 1536);
        assert_eq!(
            shared_bytes_per_warp::<[u8; 13]>(),
            (256 + 64 * 13usize).next_multiple_of(16)
        );
    }
}
