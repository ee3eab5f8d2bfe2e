//! The synthetic benchmarks of the seed papers, as workloads of `reconverge-transforms`' shapes.
//!
//! | module | paper | figure | shape |
//! |---|---|---|---|
//! | [`itdelay`] | seed 002 (Han & Abdelrahman) §4.1.1, SYN-ITDELAY | figs. 10, 11, table 1 | [`BranchLoop`](reconverge_transforms::BranchLoop) |
//! | [`itdelay_distinct`] | SYN-ITDELAY with paths the compiler cannot merge (real divergence) | figs. 10, 11, table 1 | [`BranchLoop`](reconverge_transforms::BranchLoop) |
//! | [`brdis`] | seed 002 §4.1.2, SYN-BRDIS | figs. 7, 12 | [`FactoredBranchLoop`](reconverge_transforms::FactoredBranchLoop) |
//! | [`branch_split`] | seed 001 (Carrillo et al.) §5, branch splitting | figs. 7–10 | [`TwoPath`](reconverge_transforms::TwoPath) |
//! | [`kato`] | seed 004 (Kato et al.), dynamic work assignment | fig. 11 / A-1, table 1 | [`ItemLoop`](reconverge_transforms::ItemLoop) |
//! | [`kato`] | seed 004, branch path unification | fig. 13 / A-2, tables 2–4 | [`TwoPath`](reconverge_transforms::TwoPath) |
//! | [`loop_split`] | seed 001 §4.1, loop splitting | fig. 5 | [`SplitLoop`](reconverge_transforms::SplitLoop) |
//! | [`gems34`] | GPU Gems 2 ch. 34, branch probability | figs. 34-1, 34-2 | [`TwoPath`](reconverge_transforms::TwoPath) |
//! | [`rare_costly_body`] | collaborative context collection (Khorasani et al., MICRO 2015): rare costly body, load imbalance | favourable and unfavourable case | [`BranchLoop`](reconverge_transforms::BranchLoop) |
//! | [`periodic_block`] | Damani et al. (CGO 2020), speculative reconvergence: an expensive block every `period` iterations at a per-item phase (or all at phase 0) | — | [`BranchLoop`](reconverge_transforms::BranchLoop) |
//! | [`class_chains`] | thread-data remapping (Zhang et al., G-Streamline, ASPLOS 2011): two classes with distinct long chains, interleaved at random (or in warp runs, or a key unrelated to the paths) | favourable and unfavourable cases | [`BranchLoop`](reconverge_transforms::BranchLoop) |
//! | [`fig2`] | seed 002 §3.1, iteration delaying's worked example (host only) | figs. 2, 3 | [`BranchLoop`](reconverge_transforms::BranchLoop) |
//!
//! Every workload but [`fig2`] (a three-lane example for the model) is a plain `#[repr(C)]`
//! `Copy` parameter struct (a kernel argument on the GPU), derives each item's input from its index and a seed (no input buffers), and computes
//! its outputs with integer arithmetic or plain float `*` and `+` whose results are exact, so
//! CPU and GPU, every strategy and every launch shape agree bit for bit. Each also has a
//! `reference(item)` method: the same work as one plain scalar loop, with no warp at all (the
//! CPU baseline of the emulation-overhead bench, and an oracle for the tests).
//!
//! Region costs are instruction counts as the papers state them (an FMA is one instruction),
//! so that the model's issue slots compare with the papers' instruction counts.

pub mod branch_split;
pub mod branch_split_distinct;
pub mod brdis;
pub mod brdis_distinct;
pub mod class_chains;
pub mod fig2;
pub mod gems34;
pub mod itdelay;
pub mod itdelay_distinct;
pub mod kato;
pub mod loop_split;
pub mod path_unification_distinct;
pub mod periodic_block;
pub mod rare_costly_body;

pub use branch_split::{BranchSplitBench, MaskLayout};
pub use branch_split_distinct::BranchSplitDistinct;
pub use brdis::{BrDisOutput, BrDisState, SynBrDis};
pub use brdis_distinct::SynBrDisDistinct;
pub use class_chains::ClassChains;
pub use gems34::Gems34Branch;
pub use itdelay::{ItDelayOutput, ItDelayState, SynItDelay};
pub use itdelay_distinct::SynItDelayDistinct;
pub use kato::{DynamicWork, PathUnification};
pub use loop_split::LoopSplitBench;
pub use path_unification_distinct::PathUnificationDistinct;
pub use periodic_block::PeriodicBlockLoop;
pub use rare_costly_body::{RareBodyState, RareCostlyBody};

use crate::rng::{MWC64X_MULTIPLIER, Mwc64};

/// One in [`Q16`] fixed point: probabilities are stored as `round(p · 2^16)` in `0..=65536`,
/// and an event of probability `p` happens when 16 random bits are below that number.
pub const Q16: u32 = 1 << 16;

/// A probability in `[0, 1]` as a [`Q16`] fixed-point threshold (host side; NaN gives 0).
pub fn probability_to_q16(p: f64) -> u32 {
    let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
    // `as` saturates; p · 2^16 + 0.5 is at most 65536.5.
    (p * f64::from(Q16) + 0.5) as u32
}

/// A [`Q16`] threshold back as a probability.
pub fn q16_to_probability(q: u32) -> f64 {
    f64::from(q.min(Q16)) / f64::from(Q16)
}

/// SplitMix64's finaliser: a bijective 64-bit mix (Steele, Lea & Flood, OOPSLA 2014).
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hash of `(seed, item)` with good low and high bits: the random "input data" of items.
#[inline]
pub const fn item_hash(seed: u64, item: u32) -> u64 {
    mix64(seed ^ mix64(item as u64 ^ 0x9E37_79B9_7F4A_7C15))
}

/// Whether an event of probability `q16 / 2^16` happens for 16 random bits `bits16`.
#[inline]
pub const fn happens(bits16: u32, q16: u32) -> bool {
    (bits16 & 0xFFFF) < q16
}

/// The multiply-with-carry generator of item `item` (MCML's generator, one seed per item as
/// SYN-ITDELAY has "a unique seed" per thread): the state is a hash of `(seed, item)` with a
/// non-zero `x` and a carry below the multiplier, so the stream is never degenerate.
#[inline]
pub const fn item_mwc(seed: u64, item: u32) -> Mwc64 {
    let h = item_hash(seed, item);
    let x = (h as u32) | 1;
    let carry = ((h >> 32) as u32) % (MWC64X_MULTIPLIER - 1);
    Mwc64::new(((carry as u64) << 32) | x as u64, MWC64X_MULTIPLIER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q16_round_trip_and_ends() {
        assert_eq!(probability_to_q16(0.0), 0);
        assert_eq!(probability_to_q16(1.0), Q16);
        assert_eq!(probability_to_q16(0.5), Q16 / 2);
        assert_eq!(probability_to_q16(2.0), Q16);
        assert_eq!(probability_to_q16(f64::NAN), 0);
        assert_eq!(q16_to_probability(Q16 / 4), 0.25);
        // Probability 1 always happens, probability 0 never.
        assert!(happens(0xFFFF, Q16));
        assert!(!happens(0, 0));
    }

    #[test]
    fn item_hashes_differ() {
        assert_ne!(item_hash(1, 0), item_hash(1, 1));
        assert_ne!(item_hash(1, 0), item_hash(2, 0));
        let g = item_mwc(0, 0);
        assert_ne!(g.state & 0xFFFF_FFFF, 0);
        assert!((g.state >> 32) < u64::from(MWC64X_MULTIPLIER));
    }
}
