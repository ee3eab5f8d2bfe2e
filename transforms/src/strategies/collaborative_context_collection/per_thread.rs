//! Collaborative context collection as the loop of one thread of a warp, the form the GPU runs
//! ([`collected_thread_loop`]; the parent module's docs, "On the GPU").

use reconverge_simt::{LaneMask, WARP_SIZE};

use super::{ContextStack, ItemDealer, PARK_ABOVE, STACK};
use crate::io::Tally;
use crate::shape::BranchLoop;

/// Collaborative context collection as the loop of one thread of a warp (module docs, "On the
/// GPU"): `lane` is the thread's lane, `vote(p)` the ballot of `p` over the whole warp (every
/// lane calls it at the same points), `stack` the warp's stack, `deal` the warp's items (the
/// same for every lane; a closure `deal(j)` giving the `j`-th, or a dealer that also knows how
/// many it deals, which the loop then counts instead of voting on), `put` an item's output.
/// Each step: finished items put their output; free lanes take a resumed context, by rank,
/// else the warp's next items; lanes whose condition chose the body push their context and are
/// free, the others run the cheap path; once 32 contexts wait (or nothing else can run) they
/// are popped, one per lane, run the body and go on the resumed stack. Each item runs the
/// baseline's iterations in order, so outputs and adds are the baseline's. Returns `false`,
/// having called nothing, for a state aligned to more than 16 bytes (the stack's layout cannot
/// hold it) or a lane past the warp.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn collected_thread_loop<L: BranchLoop, C: ContextStack, T: Tally>(
    w: &L,
    lane: u32,
    mut vote: impl FnMut(bool) -> LaneMask,
    stack: &mut C,
    mut deal: impl ItemDealer,
    mut put: impl FnMut(u32, L::Output),
    tally: &mut T,
) -> bool {
    if core::mem::align_of::<L::State>() > 16 || lane >= WARP_SIZE {
        return false;
    }
    // Slots are computed with wrapping arithmetic: the module docs' bound keeps them under
    // `STACK`, and a slot past it would be ignored by the stack, never a panic.
    const STACK_U32: u32 = STACK as u32;
    // A large context held in a lane while the body runs on a popped one doubles the loop's
    // registers (MCML's 120-byte photon: 136 registers and a stack frame with both live, 110
    // parked; the plain loop 61). Past `PARK_ABOVE` bytes the holders park theirs on the
    // resumed stack first: one store and one load per holder per body run, against a body run
    // every 32 wanting iterations. A constant of the state's type, so the other arm folds away
    // (the smaller contexts' SASS is the same, up to register names).
    let park = core::mem::size_of::<L::State>() > PARK_ABOVE;
    let below = (1u32 << lane) - 1;
    // Warp-uniform: the stacks' heights, the items dealt, whether the dealer ran dry, and
    // how many it deals where that is known (then the lanes count, as the twin does).
    let (mut waiting, mut resumed, mut dealt, mut dealt_all) = (0u32, 0u32, 0u32, false);
    let count = deal.count();
    let mut has = false;
    let mut item = 0;
    // A lane without a context holds the state of a valid item, never used (as the other
    // per-thread loops' lanes do).
    let mut state = w.start(0);
    loop {
        // 1. Refill, again while a lane took a context that had already finished.
        loop {
            // `&` and `|` on the loop's flags, not `&&` and `||`: both sides are a few register
            // operations, and evaluated whole they make one predicate, where short-circuits made
            // a branch each (ptxas wraps each in a convergence region).
            if has & !w.running(&state) {
                put(item, w.finish(&state));
                has = false;
            }
            let need = vote(!has);
            let free = need.count_ones();
            let from_resumed = free.min(resumed);
            // New items the free lanes left over take: all of them while the dealer may have
            // more, as many as are left where it counts.
            let fresh = match count {
                Some(n) => (free - from_resumed).min(n.saturating_sub(dealt)),
                None if dealt_all => 0,
                None => free - from_resumed,
            };
            if from_resumed + fresh == 0 {
                break;
            }
            let rank = (need & below).count_ones();
            stack.sync();
            if !has
                && rank < from_resumed
                && let Some((i, s)) = stack.load(STACK_U32.wrapping_sub(resumed).wrapping_add(rank))
            {
                (item, state, has) = (i, s, true);
            }
            resumed -= from_resumed;
            // The free lanes past the resumed contexts, by rank (wrapping: a lane that took
            // one is not `!has`, nor one whose rank is below `from_resumed`).
            let nth = rank.wrapping_sub(from_resumed);
            if count.is_some() {
                if !has
                    && nth < fresh
                    && let Some(i) = deal.item(dealt + nth)
                {
                    (item, state, has) = (i, w.start(i), true);
                }
                dealt += fresh;
            } else if fresh > 0 {
                let mut dry = false;
                if !has {
                    match deal.item(dealt.saturating_add(nth)) {
                        Some(i) => (item, state, has) = (i, w.start(i), true),
                        None => dry = true,
                    }
                }
                dealt = dealt.saturating_add(fresh);
                dealt_all = vote(dry) != 0;
            }
            if vote(has & !w.running(&state)) == 0 {
                break;
            }
        }
        // 2. Lanes whose condition chose the body save their context; the others run the
        //    cheap path and the code after the branch.
        let want = has && w.condition(&mut state);
        let wanting = vote(want);
        let holding = vote(has);
        if holding == 0 && waiting == 0 && resumed == 0 {
            return true;
        }
        stack.sync();
        if want {
            stack.store(waiting + (wanting & below).count_ones(), item, state);
            has = false;
        }
        waiting += wanting.count_ones();
        if has {
            w.not_taken(&mut state, tally);
            w.after_branch(&mut state, tally);
        }
        // 3. A warp's worth waiting, or nothing else left to run: the body with popped lanes.
        if (waiting >= WARP_SIZE) | ((holding & !wanting == 0) & (resumed == 0) & (waiting > 0)) {
            let k = waiting.min(WARP_SIZE);
            if park {
                // Lanes still holding a context park it on the resumed stack first, so that no
                // lane holds its own context and a popped one in registers at once. It comes
                // back at the next refill, to whichever lane is free, as a resumed context does.
                let parking = vote(has);
                if has {
                    let rank = (parking & below).count_ones();
                    stack.store(STACK_U32.wrapping_sub(resumed + 1 + rank), item, state);
                    has = false;
                }
                resumed += parking.count_ones();
            }
            stack.sync();
            let pop = waiting.wrapping_sub(1 + lane);
            let push = STACK_U32.wrapping_sub(resumed + 1 + lane);
            // Two arms, not one written over references to either pair of variables: that form
            // gave the small contexts' kernels other code (`rare_ccc` 8 SASS instructions more,
            // other registers) than the one measured against the CUDA twin.
            if park {
                // Every lane is free: the popped context runs in the lane's own registers.
                let mut ran = false;
                if lane < k
                    && let Some((i, s)) = stack.load::<L::State>(pop)
                {
                    (item, state, ran) = (i, s, true);
                    w.taken(&mut state, tally);
                    w.after_branch(&mut state, tally);
                }
                stack.sync();
                if ran {
                    stack.store(push, item, state);
                }
            } else {
                let mut ran = None;
                if lane < k
                    && let Some((i, mut s)) = stack.load::<L::State>(pop)
                {
                    w.taken(&mut s, tally);
                    w.after_branch(&mut s, tally);
                    ran = Some((i, s));
                }
                stack.sync();
                if let Some((i, s)) = ran {
                    stack.store(push, i, s);
                }
            }
            waiting -= k;
            resumed += k;
        }
    }
}
