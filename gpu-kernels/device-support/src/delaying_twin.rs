//! Iteration delaying's hand-written twin (seed 002, Han & Abdelrahman, fig. 5) in plain Rust:
//! the kernel a CUDA programmer writes from the paper, to hold reconverge's strategies against,
//! line for line the CUDA C++ twin of `references/cuda/techniques.cu` (`delaying<D>`). No
//! reconverge machinery: no `Decision`, no `Strategy`, no warp program; each thread runs its
//! own item's `while` loop over the workload's functions
//! (`start/running/condition/taken/not_taken/after_branch/finish`), and the warp votes with
//! `vote.ballot.sync` and `popc` at the iteration point. A lane whose path the warp did not
//! pick keeps its condition pending for a later iteration, so each item sees its iterations in
//! the order of its plain loop and its output is the plain loop's, bit for bit.
//!
//! [`iteration_delaying_twin!`](crate::iteration_delaying_twin) generates the five kernels
//! (one per decision, the decision's numbers passed at launch as the CUDA twin takes them);
//! [`delaying_thread`] is the per-thread code they run, generic over the ballot so that a test
//! can run it with 32 OS threads voting as a warp.

use reconverge_transforms::{BranchLoop, NoTally};

/// Majority vote with the stop rule (fig. 5a): the warp runs the taken path when at least
/// `a` of its live lanes want it, the not-taken path otherwise; once one lane has finished,
/// delaying stops and every lane runs its own path.
pub const MAJORITY_VOTE_STOP: u32 = 0;
/// Majority vote without the stop rule: the vote decides until the warp is done.
pub const MAJORITY_VOTE: u32 = 1;
/// Round robin (fig. 5b): `a` not-taken iterations, then `b` taken ones, again and again.
pub const ROUND_ROBIN: u32 = 2;
/// Round robin with idle removal: a direction no live lane wants is flipped (`dir ?
/// __any(cond) : __all(cond)`).
pub const ROUND_ROBIN_IDLE_REMOVAL: u32 = 3;
/// Cost-balanced delaying: the not-taken path runs every iteration; the taken path waits until
/// its waiting lanes have idled `a` lane-iterations (B, the taken path's cost in
/// lane-iterations, computed on the host), or until no live lane wants the other path.
pub const COST_BALANCED: u32 = 4;

/// One thread of the iteration-delaying twin under decision `D` (one of this module's
/// constants) with its numbers `a`, `b` (majority vote: threshold `a`; round robin: `a`
/// zeros, `b` ones; cost-balanced: B = `a`). `item` is the thread's item (`None` for a thread
/// past the end, which still votes until its warp is done); `ballot(p)` is the warp's
/// `__ballot_sync(0xffffffff, p)`, which every thread of the warp calls the same number of
/// times; `put` receives the item's output when it finishes.
#[inline(always)]
pub fn delaying_thread<L: BranchLoop, const D: u32>(
    w: &L,
    item: Option<u32>,
    a: u32,
    b: u32,
    mut ballot: impl FnMut(bool) -> u32,
    mut put: impl FnMut(u32, L::Output),
) {
    let mut has = item.is_some();
    let item = item.unwrap_or(0);
    let mut s = w.start(item);
    let (mut pending, mut cond) = (false, false);
    let started = ballot(has);
    let mut delaying = true;
    // Round robin's position: `left` counts down from `a + b - 1`; the taken path's turn is
    // when `left < b`.
    let last = a.wrapping_add(b).wrapping_sub(1);
    let mut left = last;
    let mut waited = 0u32;
    let mut tally = NoTally;
    loop {
        if has && !w.running(&s) {
            put(item, w.finish(&s));
            has = false;
        }
        let live = ballot(has);
        if live == 0 {
            break;
        }
        if has && !pending {
            cond = w.condition(&mut s);
            pending = true;
        }
        let want = ballot(has && cond);
        let run = match D {
            MAJORITY_VOTE_STOP | MAJORITY_VOTE => {
                if D == MAJORITY_VOTE_STOP && live != started {
                    delaying = false;
                }
                let mut dir = want.count_ones() >= a;
                let runs = if dir { want } else { live & !want };
                if runs == 0 {
                    dir = !dir;
                }
                !delaying || cond == dir
            }
            ROUND_ROBIN | ROUND_ROBIN_IDLE_REMOVAL => {
                let mut dir = left < b;
                left = if left == 0 { last } else { left - 1 };
                if D == ROUND_ROBIN_IDLE_REMOVAL {
                    dir = if dir { want != 0 } else { want == live };
                }
                cond == dir
            }
            _ => {
                let others = live & !want;
                let total = waited.saturating_add(want.count_ones());
                let fire = want != 0 && (others == 0 || total >= a);
                waited = if fire { 0 } else { total };
                !cond || fire
            }
        };
        if has && run {
            if cond {
                w.taken(&mut s, &mut tally);
            } else {
                w.not_taken(&mut s, &mut tally);
            }
            w.after_branch(&mut s, &mut tally);
            pending = false;
        }
    }
}

/// B of cost-balanced delaying as the CUDA twin's host computes it (and reconverge, from the
/// workload's regions): the taken path's cost in lane-iterations, `32 · taken / (condition +
/// not_taken + after_branch)` rounded up, at least 1.
pub fn taken_cost(condition: u32, taken: u32, not_taken: u32, after_branch: u32) -> u32 {
    let rest = u64::from(condition) + u64::from(not_taken) + u64::from(after_branch);
    u32::try_from((u64::from(taken) * 32).div_ceil(rest.max(1)))
        .unwrap_or(u32::MAX)
        .max(1)
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    /// `vote.sync.ballot.b32` as LLVM's convergent intrinsic (what `__ballot_sync` compiles
    /// to), so that no transformation makes the vote depend on a lane's condition.
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn nvvm_vote_ballot_sync(member_mask: u32, predicate: bool) -> u32;
}

/// `__ballot_sync(0xffffffff, p)`.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[inline(always)]
pub fn ballot(p: bool) -> u32 {
    // SAFETY: every thread of the warp calls it at the same points (the twin's contract).
    unsafe { nvvm_vote_ballot_sync(u32::MAX, p) }
}

/// Generates iteration delaying's hand-written twin for one [`BranchLoop`] workload: five
/// entry points, one per decision (majority vote with and without the stop rule, round robin
/// with and without idle removal, cost-balanced), each
/// `(kernel: *const W, items: u32, out: *mut Output, counter: *mut u32, a: u32, b: u32)`
/// (the counter unused; `a`, `b` the decision's numbers, see [`delaying_thread`]), one item per
/// thread: thread `g` of the grid runs item `g` (launch at least `items` threads, whole warps).
///
/// ```text
/// reconverge_device::iteration_delaying_twin!(Work => Out; work_twin_mv_stop, work_twin_mv,
///     work_twin_rr, work_twin_rr_idle, work_twin_balanced);
/// ```
#[macro_export]
macro_rules! iteration_delaying_twin {
    (
        $workload:ty => $output:ty;
        $mv_stop:ident, $mv:ident, $rr:ident, $rr_idle:ident, $balanced:ident $(,)?
    ) => {
        $crate::iteration_delaying_twin!(@one $workload => $output; $mv_stop,
            $crate::delaying_twin::MAJORITY_VOTE_STOP);
        $crate::iteration_delaying_twin!(@one $workload => $output; $mv,
            $crate::delaying_twin::MAJORITY_VOTE);
        $crate::iteration_delaying_twin!(@one $workload => $output; $rr,
            $crate::delaying_twin::ROUND_ROBIN);
        $crate::iteration_delaying_twin!(@one $workload => $output; $rr_idle,
            $crate::delaying_twin::ROUND_ROBIN_IDLE_REMOVAL);
        $crate::iteration_delaying_twin!(@one $workload => $output; $balanced,
            $crate::delaying_twin::COST_BALANCED);
    };
    (@one $workload:ty => $output:ty; $name:ident, $decision:expr) => {
        /// Iteration delaying written by hand (seed 002 fig. 5), one item per thread.
        ///
        /// # Safety
        /// `workload` points to a valid workload and `out` to `items` outputs in device
        /// memory; the launch has whole warps.
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            workload: *const $workload,
            items: u32,
            out: *mut $output,
            _counter: *mut u32,
            a: u32,
            b: u32,
        ) {
            // SAFETY: the caller's contract.
            let workload = unsafe { &*workload };
            let (g, _) = $crate::plain::thread_and_threads();
            $crate::delaying_twin::delaying_thread::<_, { $decision }>(
                workload,
                (g < items).then_some(g),
                a,
                b,
                $crate::delaying_twin::ballot,
                |item, value| {
                    // SAFETY: `item` is `g < items`, and `out` has `items` elements.
                    unsafe { *out.add(item as usize) = value };
                },
            );
        }
    };
}
