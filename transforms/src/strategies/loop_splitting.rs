//! Loop splitting: Carrillo, Siegel & Li, "Making the Most of GPU Memory-Bound Kernels"
//! (2009), fig. 5 (seed 001).
//!
//! A loop whose body has two independent parts becomes two loops, one per part, in the same
//! kernel: the first part's state is reduced to what the output needs of it (its carry) when
//! its loop ends, so the second loop runs with fewer live registers, which may raise
//! occupancy. It changes no instruction count: each part still issues `max trips` times per
//! round.
//!
//! Measured (`docs/results/h100-reproduce/seed001-fig05-loop-splitting.md`):
//! on an H100 the split kernel needs 31 registers against the fused one's 38 (occupancy 100 %
//! against 75 %, the paper's "up to 33 %"), yet runs at 0.903x the fused loop's speed at 16
//! trips, 0.916x at 64 and 0.921x at 256, with equal outputs.

use core::hint::black_box;

use reconverge_simt::{LaneMask, Warp};

use crate::shape::SplitLoop;
use crate::shapes::split_loop::{SplitLane, trip_loop};

/// Fig. 5b, one round: loop A to its end, keep only A's carry, then loop B; the outputs of the
/// lanes' items (`valid`: each lane's item, or a valid stand-in).
#[inline(always)]
pub(crate) fn split_round<W: Warp, L: SplitLoop>(
    warp: &mut W,
    all: LaneMask,
    lanes: &W::V<SplitLane>,
    w: &L,
    valid: W::V<u32>,
) -> W::V<L::Output> {
    let r = w.regions();
    let mut a = warp.map(valid, |i| w.start_a(i));
    trip_loop(warp, all, lanes, |warp, live, i| {
        warp.branch(r.part_a, live, &mut a, |a| w.part_a(a, i))
    });
    // `black_box` keeps the carry computed here, where loop A ends. Its only use is the
    // output's store, which is conditional (lane has an item, item in range), and without the
    // barrier LLVM's machine sinking moves `finish_a` past loop B into that store, keeping
    // part A's whole state live through loop B (sm_90 PTX of `LoopSplitBench` when this was
    // written: split 35 registers, fused 36; with the barrier split 31). The price is one
    // 8-byte local-memory store and load per round.
    let carry = warp.map_ref(&a, |a| black_box(w.finish_a(a)));
    let mut b = warp.map(valid, |i| w.start_b(i));
    trip_loop(warp, all, lanes, |warp, live, i| {
        warp.branch(r.part_b, live, &mut b, |b| w.part_b(b, i))
    });
    warp.zip_with(carry, b, |c, b| w.finish(&c, &b))
}
