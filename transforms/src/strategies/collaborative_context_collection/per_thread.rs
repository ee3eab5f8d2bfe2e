//! Collaborative context collection as the loop of one thread of a warp, the form the GPU runs
//! ([`collected_thread_loop`]; the parent module's docs, "On the GPU").

use reconverge_simt::{LaneMask, WARP_SIZE};

use super::{ContextStack, STACK};
use crate::io::Tally;
use crate::shape::BranchLoop;

/// Collaborative context collection as the loop of one thread of a warp (module docs, "On the
/// GPU"): `lane` is the thread's lane, `vote(p)` the ballot of `p` over the whole warp (every
/// lane calls it at the same points), `stack` the warp's stack, `deal(j)` the warp's `j`-th item
/// (the same for every lane; `None` once the warp's items are all dealt, and for every later
/// `j`), `put` an item's output. Each step: finished items put their output; free lanes take a
/// resumed context, by rank, else the warp's next items; lanes whose condition chose the body
/// push their context and are free, the others run the cheap path; once 32 contexts wait (or
/// nothing else can run) they are popped, one per lane, run the body and go on the resumed
/// stack. Each item runs the baseline's iterations in order, so outputs and adds are the
/// baseline's. Returns `false`, having called nothing, for a state aligned to more than 16
/// bytes (the stack's layout cannot hold it) or a lane past the warp.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn collected_thread_loop<L: BranchLoop, C: ContextStack, T: Tally>(
    w: &L,
    lane: u32,
    mut vote: impl FnMut(bool) -> LaneMask,
    stack: &mut C,
    mut deal: impl FnMut(u32) -> Option<u32>,
    mut put: impl FnMut(u32, L::Output),
    tally: &mut T,
) -> bool {
    if core::mem::align_of::<L::State>() > 16 || lane >= WARP_SIZE {
        return false;
    }
    // Slots are computed with wrapping arithmetic: the module docs' bound keeps them under
    // `STACK`, and a slot past it would be ignored by the stack, never a panic.
    const STACK_U32: u32 = STACK as u32;
    let below = (1u32 << lane) - 1;
    // Warp-uniform: the stacks' heights, the items dealt, whether the dealer ran dry.
    let (mut waiting, mut resumed, mut dealt, mut dealt_all) = (0u32, 0u32, 0u32, false);
    let mut has = false;
    let mut item = 0;
    // A lane without a context holds the state of a valid item, never used (as the other
    // per-thread loops' lanes do).
    let mut state = w.start(0);
    loop {
        // 1. Refill, again while a lane took a context that had already finished.
        loop {
            if has && !w.running(&state) {
                put(item, w.finish(&state));
                has = false;
            }
            let need = vote(!has);
            let from_resumed = need.count_ones().min(resumed);
            if need == 0 || (from_resumed == 0 && dealt_all) {
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
            if !dealt_all {
                let mut dry = false;
                if !has {
                    match deal(dealt.saturating_add(rank.saturating_sub(from_resumed))) {
                        Some(i) => (item, state, has) = (i, w.start(i), true),
                        None => dry = true,
                    }
                }
                dealt = dealt.saturating_add(need.count_ones() - from_resumed);
                // A vote even where the dealer's count is known in advance (static dealing):
                // counting instead (`dealt >= n`) measured 5 % slower on an H200, the branches
                // on it no longer uniform to ptxas.
                dealt_all = vote(dry) != 0;
            }
            if vote(has && !w.running(&state)) == 0 {
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
        if waiting >= WARP_SIZE || (holding & !wanting == 0 && resumed == 0 && waiting > 0) {
            let k = waiting.min(WARP_SIZE);
            stack.sync();
            let mut ran = None;
            if lane < k
                && let Some((i, mut s)) = stack.load::<L::State>(waiting.wrapping_sub(1 + lane))
            {
                w.taken(&mut s, tally);
                w.after_branch(&mut s, tally);
                ran = Some((i, s));
            }
            waiting -= k;
            stack.sync();
            if let Some((i, s)) = ran {
                stack.store(STACK_U32.wrapping_sub(resumed + 1 + lane), i, s);
            }
            resumed += k;
        }
    }
}
