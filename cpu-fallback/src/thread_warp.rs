//! One warp of the CUDA backend's per-thread delayed loop ([`Kernel::delayed_items`]) on the
//! CPU: 32 OS threads, one per lane, that vote through a shared ballot as a warp's lanes do
//! with `__ballot_sync(0xffffffff, p)`. The CPU backend itself runs iteration delaying as its
//! warp program (the same outputs, and counters for the model); this runs the code the GPU
//! runs, so that a kernel's `delayed_items` can be checked on a machine without one: every
//! item's output and every tally add must be the baseline's, and every lane must make the same
//! number of votes, or the ballot never completes.
//!
//! ```
//! use reconverge_cpu::thread_warp::{Dealing, run_delayed_warp};
//! use reconverge_transforms::{BranchLoopKernel, Decision};
//! use reconverge_workloads::reference::Collatz;
//!
//! let collatz = Collatz { max_steps: 200 };
//! let decision = Decision::majority_vote(16, true);
//! let run = run_delayed_warp(&BranchLoopKernel(collatz), decision, 100, Dealing::Counter)?;
//! for (item, out) in run.outputs.iter().enumerate() {
//!     assert_eq!(*out, Some(collatz.reference(item as u32)));
//! }
//! assert!(run.votes.iter().all(|&v| v == run.votes[0]));
//! # Ok::<(), reconverge_cpu::thread_warp::DelayedWarpError>(())
//! ```

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Barrier, Mutex};

use reconverge_simt::{LaneMask, WARP_SIZE};
use reconverge_transforms::strategies::collaborative_context_collection::{
    ContextStack, ItemDealer, STACK, STATES_OFFSET, shared_bytes_per_warp,
};
use reconverge_transforms::{Decision, Kernel};

use crate::block::SliceTally;

/// `__ballot_sync(0xffffffff, p)` among [`WARP_SIZE`] threads: each vote sets its lane's bit in
/// one of three words, waits for the others at a barrier and reads the word. Three words in
/// turn, so that a thread already at the next vote never writes the word the others are still
/// reading; lane 0 clears the word of the vote before last, which every thread has read.
pub struct ThreadBallot {
    barrier: Barrier,
    words: [AtomicU32; 3],
}

impl Default for ThreadBallot {
    fn default() -> Self {
        Self {
            barrier: Barrier::new(WARP_SIZE as usize),
            words: Default::default(),
        }
    }
}

impl ThreadBallot {
    /// Lane `lane`'s vote `p` in its vote number `round` (which this advances): the warp's
    /// ballot, once all 32 lanes have voted in that round.
    pub fn vote(&self, round: &mut usize, lane: u32, p: bool) -> LaneMask {
        let k = *round;
        *round += 1;
        if p {
            self.words[k % 3].fetch_or(1 << lane, Ordering::SeqCst);
        }
        self.barrier.wait();
        let word = self.words[k % 3].load(Ordering::SeqCst);
        if lane == 0 {
            self.words[(k + 2) % 3].store(0, Ordering::SeqCst);
        }
        word
    }
}

/// Items `0..n` dealt in order, their count known in advance.
struct CountedItems(u32);

impl ItemDealer for CountedItems {
    fn item(&mut self, j: u32) -> Option<u32> {
        (j < self.0).then_some(j)
    }

    fn count(&self) -> Option<u32> {
        Some(self.0)
    }
}

/// How the warp's threads get items, as the backend's assignments deal them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dealing {
    /// Lane `l` runs items `l`, `l + 32`, `l + 64`, ... (static assignment over one warp).
    Stride,
    /// Each lane's first item is its lane, the next ones come from one shared counter
    /// (dynamic work assignment over one warp).
    Counter,
}

/// What [`run_delayed_warp`] produced.
#[derive(Clone, Debug)]
pub struct DelayedWarpRun<O> {
    /// Each item's output; `None` where no lane put one (a bug in `delayed_items`).
    pub outputs: Vec<Option<O>>,
    /// The sum over lanes of their tally adds ([`Kernel::tally_len`] accumulators).
    pub tally: Vec<u64>,
    /// How many votes each lane made (all equal when the lanes kept in step).
    pub votes: Vec<usize>,
}

/// Which per-thread loop with a warp vote [`run_voted_warp`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VotedLoop {
    /// Iteration delaying under a decision ([`Kernel::delayed_items`]).
    Delaying(Decision),
    /// Speculative reconvergence ([`Kernel::speculative_items`]).
    SpeculativeReconvergence {
        /// Waiting lanes that release the block.
        threshold: u32,
        /// Iterations after which a waiting lane's block runs.
        max_wait: u32,
    },
    /// Collaborative context collection ([`Kernel::collected_items`]) over a stack that the 32
    /// threads share ([`SharedStack`]), items dealt per warp.
    CollaborativeContextCollection,
}

/// A warp's context stack in memory its 32 threads share, for
/// [`VotedLoop::CollaborativeContextCollection`]: the bytes of
/// [`shared_bytes_per_warp`]'s layout behind a lock, and which slots hold a stored context (a
/// load of any other slot answers `None`, so that no bytes are ever read as a state they were
/// not written from).
pub struct SharedStack {
    slots: Mutex<(Vec<u8>, [bool; STACK])>,
}

impl SharedStack {
    /// An empty stack for states of type `S`.
    pub fn new<S>() -> Self {
        Self {
            slots: Mutex::new((vec![0; shared_bytes_per_warp::<S>()], [false; STACK])),
        }
    }

    fn state_range<S>(slot: u32) -> Option<(usize, usize)> {
        let slot = slot as usize;
        (slot < STACK).then(|| {
            let at = STATES_OFFSET + slot * core::mem::size_of::<S>();
            (at, at + core::mem::size_of::<S>())
        })
    }
}

/// One lane's view of a [`SharedStack`]: `sync` is a vote of the lane's warp (a barrier of
/// the 32 threads), in the same count of votes as the lane's other votes.
struct LaneStack<'a> {
    stack: &'a SharedStack,
    ballot: &'a ThreadBallot,
    round: &'a Cell<usize>,
    lane: u32,
}

impl ContextStack for LaneStack<'_> {
    fn store<S: Copy>(&mut self, slot: u32, item: u32, state: S) {
        let Some((at, end)) = SharedStack::state_range::<S>(slot) else {
            return;
        };
        let mut guard = self.stack.slots.lock().unwrap_or_else(|e| e.into_inner());
        let (bytes, written) = &mut *guard;
        let i = slot as usize * 4;
        if end > bytes.len() {
            return;
        }
        bytes[i..i + 4].copy_from_slice(&item.to_ne_bytes());
        // SAFETY: `at .. end` lies within `bytes` (checked), and an unaligned write of a `Copy`
        // value is a plain copy of its bytes.
        unsafe { core::ptr::write_unaligned(bytes.as_mut_ptr().add(at).cast::<S>(), state) };
        written[slot as usize] = true;
    }

    fn load<S: Copy>(&mut self, slot: u32) -> Option<(u32, S)> {
        let (at, end) = SharedStack::state_range::<S>(slot)?;
        let guard = self.stack.slots.lock().unwrap_or_else(|e| e.into_inner());
        let (bytes, written) = &*guard;
        if end > bytes.len() || !written[slot as usize] {
            return None;
        }
        let i = slot as usize * 4;
        let item = u32::from_ne_bytes(bytes[i..i + 4].try_into().ok()?);
        // SAFETY: `at .. end` lies within `bytes` and holds the bytes of an `S` that `store`
        // wrote there (the slot is marked written; the loop stores and loads one state type).
        let state = unsafe { core::ptr::read_unaligned(bytes.as_ptr().add(at).cast::<S>()) };
        Some((item, state))
    }

    fn sync(&mut self) {
        let mut round = self.round.get();
        self.ballot.vote(&mut round, self.lane, false);
        self.round.set(round);
    }
}

/// Why [`run_delayed_warp`] or [`run_voted_warp`] did not run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DelayedWarpError {
    /// The kernel has no per-thread form of the loop (its method answered `false`): the
    /// backend runs its warp program instead.
    #[error("the kernel has no per-thread voted loop for {0:?} (its `Kernel` method refused it)")]
    NoDelayedForm(VotedLoop),
}

/// Runs `kernel.delayed_items(decision, ...)` on items `0..items` with 32 OS threads as one warp,
/// dealing items as `dealing` says, each lane's tally adds summed at the end. A kernel whose
/// lanes vote a different number of times waits forever here, as its warp would on a GPU.
pub fn run_delayed_warp<K>(
    kernel: &K,
    decision: Decision,
    items: u32,
    dealing: Dealing,
) -> Result<DelayedWarpRun<K::Output>, DelayedWarpError>
where
    K: Kernel + Sync,
{
    run_voted_warp(kernel, VotedLoop::Delaying(decision), items, dealing)
}

/// [`run_delayed_warp`] for any per-thread loop with a warp vote ([`VotedLoop`]).
pub fn run_voted_warp<K>(
    kernel: &K,
    form: VotedLoop,
    items: u32,
    dealing: Dealing,
) -> Result<DelayedWarpRun<K::Output>, DelayedWarpError>
where
    K: Kernel + Sync,
{
    let ballot = ThreadBallot::default();
    // Room for states of up to 512 bytes (32 KiB in all); a larger one is not stored, and
    // its items come out `None`.
    let stack = SharedStack::new::<[u128; 32]>();
    let counter = AtomicU32::new(WARP_SIZE);
    let outputs = Mutex::new(vec![None; items as usize]);
    let tally_len = kernel.tally_len();
    let lanes: Vec<(bool, Vec<u64>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WARP_SIZE)
            .map(|lane| {
                let (ballot, counter, outputs, stack) = (&ballot, &counter, &outputs, &stack);
                scope.spawn(move || {
                    let mut dealt: Option<u32> = None;
                    let next = || {
                        let item = match (dealt, dealing) {
                            (None, _) => lane,
                            (Some(last), Dealing::Stride) => last.saturating_add(WARP_SIZE),
                            (Some(_), Dealing::Counter) => counter.fetch_add(1, Ordering::SeqCst),
                        };
                        dealt = Some(item);
                        (item < items).then_some(item)
                    };
                    let round = Cell::new(0);
                    let vote = |p: bool| {
                        let mut r = round.get();
                        let ballot = ballot.vote(&mut r, lane, p);
                        round.set(r);
                        ballot
                    };
                    let put = |item: u32, out: K::Output| {
                        if let Some(slot) = outputs
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_mut(item as usize)
                        {
                            *slot = Some(out);
                        }
                    };
                    let mut tally = vec![0u64; tally_len];
                    let mut adds = SliceTally(&mut tally);
                    let ran = match form {
                        VotedLoop::Delaying(decision) => {
                            kernel.delayed_items(decision, lane, vote, next, put, &mut adds)
                        }
                        VotedLoop::SpeculativeReconvergence {
                            threshold,
                            max_wait,
                        } => kernel.speculative_items(
                            threshold, max_wait, lane, vote, next, put, &mut adds,
                        ),
                        VotedLoop::CollaborativeContextCollection => {
                            let mut lane_stack = LaneStack {
                                stack,
                                ballot,
                                round: &round,
                                lane,
                            };
                            match dealing {
                                // The warp's `j`-th item is `j`, all `items` of them known in
                                // advance: the lanes count them (static assignment's form).
                                Dealing::Stride => kernel.collected_items(
                                    lane,
                                    vote,
                                    &mut lane_stack,
                                    CountedItems(items),
                                    put,
                                    &mut adds,
                                ),
                                // The first 32 by lane, then the counter's: the lanes vote on
                                // whether it ran dry.
                                Dealing::Counter => {
                                    let deal = |j: u32| {
                                        let item = if j >= WARP_SIZE {
                                            counter.fetch_add(1, Ordering::SeqCst)
                                        } else {
                                            j
                                        };
                                        (item < items).then_some(item)
                                    };
                                    kernel.collected_items(
                                        lane,
                                        vote,
                                        &mut lane_stack,
                                        deal,
                                        put,
                                        &mut adds,
                                    )
                                }
                            }
                        }
                    };
                    (ran, tally, round.get())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    if lanes.iter().any(|(ran, _, _)| !ran) {
        return Err(DelayedWarpError::NoDelayedForm(form));
    }
    let mut tally = vec![0u64; tally_len];
    for (_, lane_tally, _) in &lanes {
        for (sum, add) in tally.iter_mut().zip(lane_tally) {
            *sum = sum.wrapping_add(*add);
        }
    }
    Ok(DelayedWarpRun {
        outputs: outputs.into_inner().unwrap_or_else(|e| e.into_inner()),
        tally,
        votes: lanes.iter().map(|(_, _, v)| *v).collect(),
    })
}
