//! Iteration delaying: Han & Abdelrahman, "Reducing Branch Divergence in GPU Programs"
//! (GPGPU-4, 2011), §3.1, figs. 2–5 (seed 002).
//!
//! In a loop whose body holds a divergent branch, each iteration runs only *one* path: the
//! lanes that want the other path keep their computed condition and wait for a later iteration
//! in which the warp picks their path. The warp picks by majority vote (the taken path when at
//! least `threshold` lanes want it, fig. 5a) or by round robin (a fixed cycle of not-taken and
//! taken iterations, fig. 5b). Fewer iterations run both paths half-empty; the price is a vote
//! per iteration.
//!
//! A third decision, [`Decision::CostBalanced`], is this crate's: the common (not-taken) path
//! runs in every iteration and only the rare taken path waits, until the lanes waiting for it
//! have idled as many lane-iterations as one issue of it costs. Where seed 002's decisions
//! idle every lane of the path not picked, this one idles only the few lanes of the rare path,
//! and issues that path for several of them at once.
//!
//! On the GPU the CUDA backend runs these decisions as each thread's plain loop with a warp
//! vote at the iteration point (`voted_plain_loop`, through
//! [`crate::Kernel::delayed_items`]), the kernel a CUDA programmer writes from fig. 5; the
//! warp program ([`crate::BranchLoopProgram`]) is the same schedule (`delayed_paths`) for the
//! reference model and the CPU backend.
//!
//! Measured against the best plain kernel (`docs/results/techniques/`, an H200, 2^20 items of
//! SYN-ITDELAY with paths of distinct shape, which really diverge), at the library's default
//! launch: round robin 3:1 runs 1.171x faster at f = 0.1, r = 32 and 1.053x at r = 8, round
//! robin 1:1 1.145x at f = 0.5, r = 32 and 1.039x at r = 8; at r = 4 every decision loses
//! (0.92x at best, the hand-written twins too), the votes and waiting iterations costing more
//! than the divergence they save. Every decision runs in 1.014-1.037x the time of its
//! hand-written twin in plain Rust (`reconverge_device::iteration_delaying_twin!`, the same
//! launch, all 54 pairs), and in 1.020-1.074x its CUDA C++ twin's (nvcc unrolls the float chain
//! further; the Rust twin itself takes 0.97-1.07x the CUDA one's time), cost-balanced
//! delaying the farthest. On short paths (Collatz, escape time, the walk: `docs/results/plain/`)
//! no delaying comes near the plain kernel. On the papers' original SYN-ITDELAY (paths of one
//! shape with other constants, which this build compiles as two loops, so its plain kernel
//! diverges too) majority vote 8 runs 1.10x at f = 0.1, r = 8 and 1.23x at r = 32. On MCML
//! (`docs/results/mcml/`) cost-balanced delaying with branch distribution over dynamic work is
//! the fastest exact strategy on skin.

use reconverge_simt::LaneMask;

use crate::io::Tally;
use crate::shape::{BranchLoop, LoopRegions};
use crate::strategy::{Decision, StrategyError};

/// Seed 002's majority vote with the threshold of its table 1's best setting (8 of 32 lanes)
/// and the anti-starvation stop, shared by the shapes that run iteration delaying.
pub const PAPER_MAJORITY_VOTE: Decision = Decision::MajorityVote {
    threshold: 8,
    stop_when_a_lane_finishes: true,
};

/// Seed 002 fig. 5b's round robin: three else iterations, then one if iteration (a 75 %
/// cycle), with idle removal.
pub const PAPER_ROUND_ROBIN: Decision = Decision::RoundRobin {
    num_zeros: 3,
    num_ones: 1,
    remove_idle: true,
};

/// Rejects a round robin that would never run one of the paths.
pub(crate) fn check_decision(decision: Decision) -> Result<(), StrategyError> {
    if let Decision::RoundRobin {
        num_zeros,
        num_ones,
        ..
    } = decision
        && (num_zeros == 0 || num_ones == 0)
    {
        return Err(StrategyError::InvalidParameter {
            name: "num_zeros, num_ones",
            requirement: "both at least 1, or one path would never run",
        });
    }
    Ok(())
}

/// Majority vote's anti-starvation rule (`stop_when_a_lane_finishes`): whether delaying stops
/// for good now that the lanes `live` no longer include every lane that `started`.
fn stops(decision: Decision, live: LaneMask, started: LaneMask) -> bool {
    matches!(
        decision,
        Decision::MajorityVote {
            stop_when_a_lane_finishes: true,
            ..
        }
    ) && live != started
}

/// What a delaying warp carries from one iteration to the next (the same in every lane).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DelayState {
    /// [`Decision::RoundRobin`]: the iterations left in the cycle after this one, from the
    /// cycle's length minus 1 down to 0; the taken path's turn is the cycle's last `num_ones`
    /// iterations, where this is below `num_ones`. Counted down and wrapped by a minimum
    /// (`(left - 1).min(length - 1)`, one add-and-minimum instruction on an H100) rather than
    /// taken as iterations modulo the cycle's length, a division where the cycle is a kernel
    /// argument (seed 002 writes the modulo, with the cycle a constant).
    left: u32,
    /// [`Decision::CostBalanced`]: lane-iterations spent waiting for the taken path since it
    /// last ran.
    waited: u32,
    /// Whether the warp still delays: majority vote's anti-starvation rule ([`stops`]) turns
    /// delaying off for good, and every lane then runs its own path.
    delaying: bool,
}

impl DelayState {
    /// A warp's state before its first iteration under `decision` (`None`: not delaying).
    pub(crate) fn new(decision: Option<Decision>) -> Self {
        Self {
            left: decision.map_or(0, last_in_cycle),
            waited: 0,
            delaying: true,
        }
    }
}

/// [`DelayState::left`] after an iteration with `left` left: one fewer, or the cycle's length
/// minus 1 after its last iteration (0 wraps to `u32::MAX`, which the minimum brings back).
fn next_left(left: u32, decision: Decision) -> u32 {
    left.wrapping_sub(1).min(last_in_cycle(decision))
}

/// Whether a round robin with `left` iterations left in its cycle runs the taken path: the
/// cycle's last `num_ones` iterations (its `num_zeros` not-taken ones came first).
fn round_robin_takes(left: u32, num_ones: u32) -> bool {
    left < num_ones
}

/// A round robin's cycle length minus 1 (0 for the other decisions).
fn last_in_cycle(decision: Decision) -> u32 {
    match decision {
        Decision::RoundRobin {
            num_zeros,
            num_ones,
            ..
        } => num_zeros.saturating_add(num_ones).saturating_sub(1),
        _ => 0,
    }
}

/// [`Decision::CostBalanced`]'s `B`: the taken path's cost in lane-iterations, the taken
/// region's cost times the warp width over the cost of the rest of an iteration (condition,
/// not-taken path, after-branch code), at least 1.
pub(crate) fn taken_cost_in_lane_iterations(regions: &LoopRegions, width: u32) -> u32 {
    // In u64: a workload's region costs are its own, and their sum must not overflow.
    let rest = [regions.condition, regions.not_taken, regions.after_branch]
        .iter()
        .map(|r| u64::from(r.cost))
        .sum::<u64>();
    let lanes = u64::from(regions.taken.cost) * u64::from(width);
    u32::try_from(lanes.div_ceil(rest.max(1)))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// The lanes that run the taken and the not-taken path in this iteration, given the lanes
/// `live` that have an item, those of them that `want` the taken path and those that
/// `started` the loop (for majority vote's stop rule); `taken_cost` is
/// [`taken_cost_in_lane_iterations`]. Seed 002's decisions run one path per iteration (the
/// other mask is empty) until the stop rule turns delaying off, after which every live lane
/// runs its own path; [`Decision::CostBalanced`] runs the not-taken path every time. Never
/// an iteration in which no lane of `live` runs: that would make no progress.
///
/// A function of the votes alone (idle removal's `__any` / `__all` over the live lanes'
/// conditions are `want != 0` and `want == live`), so that the warp program and the per-thread
/// loop ([`delayed_plain_loop`]) run the same schedule, and the warp's state is the same in
/// every lane.
#[inline(always)]
pub(crate) fn delayed_paths(
    decision: Decision,
    state: &mut DelayState,
    taken_cost: u32,
    live: LaneMask,
    want: LaneMask,
    started: LaneMask,
) -> (LaneMask, LaneMask) {
    if state.delaying && stops(decision, live, started) {
        state.delaying = false;
    }
    if !state.delaying {
        return (want, live & !want);
    }
    let left = state.left;
    state.left = next_left(left, decision);
    let mut dir = match decision {
        Decision::CostBalanced => return cost_balanced(state, taken_cost, live, want),
        Decision::MajorityVote { threshold, .. } => want.count_ones() >= threshold,
        Decision::RoundRobin {
            num_ones,
            remove_idle,
            ..
        } => {
            let dir = round_robin_takes(left, num_ones);
            if remove_idle {
                // cond_for_all ? __any(cond) : __all(cond) (fig. 5b), over the live lanes.
                if dir { want != 0 } else { want == live }
            } else {
                dir
            }
        }
    };
    let mut runs = if dir { want } else { live & !want };
    if runs == 0 && matches!(decision, Decision::MajorityVote { .. }) {
        // A threshold above the lanes still live would otherwise idle forever.
        dir = !dir;
        runs = if dir { want } else { live & !want };
    }
    if dir { (runs, 0) } else { (0, runs) }
}

/// [`Decision::CostBalanced`]: the waiting lanes' count is added to `waited` each iteration;
/// the taken path runs once `waited` reaches `taken_cost` (or when nobody wants the other
/// path), and `waited` starts again from 0.
fn cost_balanced(
    state: &mut DelayState,
    taken_cost: u32,
    live: LaneMask,
    want: LaneMask,
) -> (LaneMask, LaneMask) {
    let others = live & !want;
    let waited = state.waited.saturating_add(want.count_ones());
    if want != 0 && (others == 0 || waited >= taken_cost) {
        state.waited = 0;
        (want, others)
    } else {
        state.waited = waited;
        (0, others)
    }
}

/// A loop's schedule that decides per iteration as one thread's plain loop with a warp vote
/// at the iteration point: iteration delaying as a CUDA programmer writes it from seed 002
/// fig. 5 (what the CUDA backend runs through [`crate::Kernel::delayed_items`], `paths` being
/// [`delayed_paths`]) and speculative reconvergence's per-thread form
/// ([`crate::Kernel::speculative_items`]).
///
/// The thread runs the items `next` deals (an item that finishes gives its output to `put`
/// and the next one starts at once, with no vote). Each iteration it computes its item's
/// condition unless one is pending, the warp votes twice (`vote(p)`: the ballot of `p` over
/// the whole warp, which every thread of it calls at the same points: the lanes that have an
/// item, and those of them that want the taken path), `paths(live, want, started)` (those two
/// ballots and the lanes that held an item at the start) answers which lanes run the taken and
/// which the not-taken path, and the thread runs its path and the code after the branch if it
/// is one of them; otherwise its condition stays pending for a later iteration. The loop ends
/// when no lane of the warp has an item. `lane` is the thread's lane in the warp.
///
/// Each lane's items see the same iterations in the same order as in the baseline, so outputs
/// are the baseline's whatever the schedule; only which iterations share an issue changes.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn voted_plain_loop<L: BranchLoop, T: Tally>(
    mut paths: impl FnMut(LaneMask, LaneMask, LaneMask) -> (LaneMask, LaneMask),
    lane: u32,
    mut vote: impl FnMut(bool) -> LaneMask,
    mut next: impl FnMut() -> Option<u32>,
    mut put: impl FnMut(u32, L::Output),
    w: &L,
    tally: &mut T,
) -> bool {
    let first = next();
    let mut item = first.unwrap_or(0);
    let mut has = first.is_some();
    // A thread dealt nothing holds an item's state it never runs, as the warp program's lanes
    // do: every thread takes part in the votes until the whole warp is done.
    let mut state = w.start(item);
    let started = vote(has);
    let me = 1u32.checked_shl(lane).unwrap_or(0);
    // Whether `cond` is the current item's condition for its next iteration, computed in an
    // iteration that ran the other path.
    let mut pending = false;
    let mut cond = false;
    loop {
        while has && !w.running(&state) {
            put(item, w.finish(&state));
            match next() {
                Some(following) => {
                    item = following;
                    state = w.start(item);
                }
                None => has = false,
            }
            pending = false;
        }
        if has && !pending {
            cond = w.condition(&mut state);
            pending = true;
        }
        let live = vote(has);
        if live == 0 {
            return true;
        }
        let want = vote(has && cond);
        let (taken, not_taken) = paths(live, want, started);
        if (if cond { taken } else { not_taken }) & me != 0 {
            if cond {
                w.taken(&mut state, tally);
            } else {
                w.not_taken(&mut state, tally);
            }
            w.after_branch(&mut state, tally);
            pending = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::LoopRegion;

    fn regions(condition: u32, taken: u32, not_taken: u32, after: u32) -> LoopRegions {
        LoopRegions {
            condition: LoopRegion::Condition.region("c", condition),
            taken: LoopRegion::Taken.region("t", taken),
            not_taken: LoopRegion::NotTaken.region("n", not_taken),
            after_branch: LoopRegion::AfterBranch.region("a", after),
            item: LoopRegion::Item.region("i", 1),
        }
    }

    #[test]
    fn taken_cost_is_the_taken_path_in_lane_iterations() {
        // MCML's regions: 32 · 90 / (40 + 110 + 8) = 18.2, rounded up.
        assert_eq!(
            taken_cost_in_lane_iterations(&regions(40, 90, 110, 8), 32),
            19
        );
        // Costs at the top of the range neither overflow nor make the path free.
        let huge = regions(u32::MAX, u32::MAX, u32::MAX, u32::MAX);
        assert_eq!(taken_cost_in_lane_iterations(&huge, 32), 11);
        assert_eq!(taken_cost_in_lane_iterations(&regions(0, 0, 0, 0), 32), 1);
    }

    /// The countdown runs seed 002's cycle: iteration `i` takes the taken path when
    /// `i % (num_zeros + num_ones) >= num_zeros` (fig. 5b's modulo), for cycles of every shape.
    #[test]
    fn the_countdown_runs_the_cycle_of_the_modulo() {
        for num_zeros in 1..6 {
            for num_ones in 1..6 {
                let rr = Decision::round_robin(num_zeros, num_ones, false);
                let mut state = DelayState::new(Some(rr));
                for i in 0..100 {
                    let taken = round_robin_takes(state.left, num_ones);
                    assert_eq!(
                        taken,
                        i % (num_zeros + num_ones) >= num_zeros,
                        "{rr} iteration {i}"
                    );
                    state.left = next_left(state.left, rr);
                }
            }
        }
    }

    #[test]
    fn cost_balanced_waits_until_the_waiting_costs_one_issue() {
        let mut state = DelayState::new(Some(Decision::CostBalanced));
        let live = 0xffff_ffff;
        // One lane wants the taken path: with B = 3 it waits two iterations, then runs.
        assert_eq!(cost_balanced(&mut state, 3, live, 1), (0, live & !1));
        assert_eq!(cost_balanced(&mut state, 3, live, 1), (0, live & !1));
        assert_eq!(cost_balanced(&mut state, 3, live, 1), (1, live & !1));
        // The count starts again; when every live lane wants the path it runs at once.
        assert_eq!(cost_balanced(&mut state, 3, 0b11, 0b11), (0b11, 0));
        assert_eq!(cost_balanced(&mut state, 3, live, 0), (0, live));
    }
}
