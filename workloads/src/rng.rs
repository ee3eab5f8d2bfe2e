//! Random number generators shared by the CPU and GPU backends.
//!
//! Three generators, all plain `Copy` data that implement the `rand_core` 0.9 traits and never
//! panic, allocate or format, so they compile unchanged for `nvptx64-nvidia-cuda`:
//!
//! - [`Mwc64`]: the multiply-with-carry generator of CUDAMCML / GPU-MCML
//!   (`x ← (x & 0xFFFF_FFFF)·a + (x >> 32)`, one multiplier `a` per stream). Kept because it is
//!   what the published GPU codes use; its streams are tied to a multiplier, not to a work item.
//! - [`Philox4x32`]: the counter-based Philox4x32-10 of Salmon et al. (Random123, SC'11). A
//!   stream is just a key and a counter, so photon `i` can draw from stream `(seed, i)` no matter
//!   which thread or lane runs it: results then do not depend on the schedule (see DESIGN.md,
//!   "Identical means bitwise").
//! - [`StreamRng`]: what MCML's photons draw from. Photon `i`'s stream is keyed by `(seed, i)`
//!   through one Philox4x32-10 block, which seeds a xoshiro128+ generator (Blackman & Vigna);
//!   every later draw costs the same eight integer instructions, with no buffer to refill. On a
//!   GPU that matters more than the cycles: a buffered generator refills when *any* lane's
//!   buffer runs dry, and the whole warp then pays for it at a few active lanes (it took a
//!   third of MCML's issue slots).
//!
//! The `u32_to_*` / `u64_to_*` helpers turn raw bits into floats in `[0, 1)` or `(0, 1]`
//! exactly: the result is `k · 2^-24` (f32) or `k · 2^-53` (f64) for an integer `k` that fits the
//! mantissa, so no rounding can push a value to 1.0 or 0.0 where it must not be. MCML needs
//! `ξ ∈ (0, 1]` for `-ln ξ`.

use rand_core::{RngCore, SeedableRng};

/// A multiplier for [`Mwc64`] used when a seed carries none: the one of Thomas' MWC64X
/// (`a · 2^32 − 1` is a safe prime, so the generator has period `(a · 2^32 − 2) / 2`).
pub const MWC64X_MULTIPLIER: u32 = 4_294_883_355;

/// Marsaglia's multiply-with-carry generator as used by CUDAMCML and GPU-MCML.
///
/// The 64-bit state holds `x` in its low word and the carry in its high word; each step is
/// `state ← (state & 0xFFFF_FFFF) · a + (state >> 32)` and the output is the new low word.
/// Different streams use different multipliers `a` (CUDAMCML reads them from a list of safe
/// primes); two streams with the same multiplier are the same sequence shifted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Mwc64 {
    /// `x` (low word) and carry (high word).
    pub state: u64,
    /// The stream's multiplier `a`.
    pub multiplier: u32,
}

/// The rest of an [`RngCore`] impl from its `next_u32`, the one draw every generator here makes
/// natively: `next_u64` from two draws, low word first, and `fill_bytes`, as `rand_core`
/// derives them.
macro_rules! rng_core_from_next_u32 {
    () => {
        #[inline]
        fn next_u64(&mut self) -> u64 {
            rand_core::impls::next_u64_via_u32(self)
        }

        fn fill_bytes(&mut self, dst: &mut [u8]) {
            rand_core::impls::fill_bytes_via_next(self, dst);
        }
    };
}

impl Mwc64 {
    /// A generator with the given state and multiplier. A zero multiplier (a degenerate,
    /// constant generator) is replaced by [`MWC64X_MULTIPLIER`].
    pub const fn new(state: u64, multiplier: u32) -> Self {
        let multiplier = if multiplier == 0 {
            MWC64X_MULTIPLIER
        } else {
            multiplier
        };
        Self { state, multiplier }
    }
}

impl RngCore for Mwc64 {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        // (2^32 - 1) * a + (2^32 - 1) < 2^64 for any 32-bit a: this cannot overflow.
        self.state = (self.state & 0xFFFF_FFFF) * u64::from(self.multiplier) + (self.state >> 32);
        self.state as u32
    }

    rng_core_from_next_u32!();
}

impl SeedableRng for Mwc64 {
    /// Bytes 0..8: the state (little endian); bytes 8..12: the multiplier (0 → MWC64X's).
    type Seed = [u8; 12];

    fn from_seed(seed: Self::Seed) -> Self {
        let [s0, s1, s2, s3, s4, s5, s6, s7, m0, m1, m2, m3] = seed;
        Self::new(
            u64::from_le_bytes([s0, s1, s2, s3, s4, s5, s6, s7]),
            u32::from_le_bytes([m0, m1, m2, m3]),
        )
    }
}

const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

#[inline(always)]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = u64::from(a) * u64::from(b);
    ((p >> 32) as u32, p as u32)
}

/// The Philox4x32-10 block function: 10 rounds of Random123's `philox4x32_R`.
///
/// Maps a 128-bit counter and a 64-bit key to 128 random bits. Exposed so that tests and GPU
/// code can check it against Random123's known-answer vectors.
#[inline]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    let mut round = 0;
    while round < 10 {
        if round > 0 {
            // The key is bumped between rounds (9 bumps for 10 rounds).
            k0 = k0.wrapping_add(PHILOX_W0);
            k1 = k1.wrapping_add(PHILOX_W1);
        }
        let (hi0, lo0) = mulhilo(PHILOX_M0, c0);
        let (hi1, lo1) = mulhilo(PHILOX_M1, c2);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        round += 1;
    }
    [c0, c1, c2, c3]
}

/// Philox4x32-10 as a sequential generator over one stream.
///
/// The key is the 64-bit seed; the counter's high 64 bits (words 2, 3) are the stream number
/// (in MCML: the photon index) and its low 64 bits (words 0, 1) count blocks of four outputs.
/// A stream therefore has 2^66 outputs and streams never overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Philox4x32 {
    /// The key: seed low word, seed high word.
    pub key: [u32; 2],
    /// The counter of the next block to compute.
    pub counter: [u32; 4],
    /// The current block of outputs.
    pub buffer: [u32; 4],
    /// How many words of `buffer` were used (4 = compute a new block first).
    pub used: u32,
}

impl Philox4x32 {
    /// The generator for stream `stream` under key `seed`.
    #[inline]
    pub const fn for_stream(seed: u64, stream: u64) -> Self {
        Self {
            key: [seed as u32, (seed >> 32) as u32],
            counter: [0, 0, stream as u32, (stream >> 32) as u32],
            buffer: [0; 4],
            used: 4,
        }
    }

    #[inline]
    fn refill(&mut self) {
        self.buffer = philox4x32_10(self.counter, self.key);
        let (c0, carry) = self.counter[0].overflowing_add(1);
        self.counter[0] = c0;
        self.counter[1] = self.counter[1].wrapping_add(u32::from(carry));
        self.used = 0;
    }
}

impl RngCore for Philox4x32 {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        if self.used >= 4 {
            self.refill();
        }
        // On the GPU a dynamically indexed array lives in local memory (the stack), so the
        // word is picked with constant indices there, which keeps the buffer in registers; a
        // CPU indexes faster than it branches. Same word either way.
        #[cfg(target_arch = "nvptx64")]
        let v = {
            let [b0, b1, b2, b3] = self.buffer;
            match self.used & 3 {
                0 => b0,
                1 => b1,
                2 => b2,
                _ => b3,
            }
        };
        // `used & 3` keeps the index provably in bounds: no panic path.
        #[cfg(not(target_arch = "nvptx64"))]
        let v = self.buffer[(self.used & 3) as usize];
        self.used += 1;
        v
    }

    rng_core_from_next_u32!();
}

impl SeedableRng for Philox4x32 {
    /// Bytes 0..8: the key (seed); bytes 8..16: the stream number; both little endian.
    type Seed = [u8; 16];

    fn from_seed(seed: Self::Seed) -> Self {
        let [
            a0,
            a1,
            a2,
            a3,
            a4,
            a5,
            a6,
            a7,
            b0,
            b1,
            b2,
            b3,
            b4,
            b5,
            b6,
            b7,
        ] = seed;
        Self::for_stream(
            u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
            u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
        )
    }
}

/// A xoshiro128+ stream seeded per work item by Philox4x32-10: photon `i` of a run with seed
/// `s` draws from `StreamRng::for_stream(s, i)`.
///
/// # Why these two generators
///
/// - **Seeding, once per stream: Philox4x32-10** (Salmon, Moraes, Dror & Shaw, "Parallel random
///   numbers: as easy as 1, 2, 3", SC'11). A bijection of the 128-bit counter under a 64-bit
///   key; the paper reports that Philox4x32 passes TestU01's SmallCrush, Crush and BigCrush
///   from 7 rounds on ("Crush-resistant"), so the 10 rounds used here leave a margin of three.
///   The counter is `(0, 0, i mod 2^32, i / 2^32)` and the key the seed, so distinct photons
///   get unrelated 128-bit states and the state depends on `(seed, i)` only, never on the
///   thread, lane, strategy or backend that runs the photon.
/// - **Drawing: xoshiro128+** (Blackman & Vigna, "Scrambled linear pseudorandom number
///   generators", ACM TOMS 47(4), 2021): 128 bits of state, period 2^128 − 1. Its authors
///   recommend it for floating-point numbers made from the upper bits: they report that it
///   passes BigCrush except for the linearity tests, which its lowest bits (the lowest four
///   have low linear complexity) fail. MCML uses only upper bits: an f32 draw keeps the top
///   24 of 32 ([`u32_to_f32_co`]), and [`StreamRng`]'s `next_u64` builds an f64 draw's 53
///   from the top 29 bits of two draws. One draw is an addition, a shift, a rotation and five
///   xors, eight GPU instructions (xoshiro128**, used before, adds two multiplications and a
///   rotation for a scrambler that makes the low bits good too: about 8 of MCML's ~150
///   thread instructions per photon step on a GPU).
///
/// A photon draws a few hundred to a few thousand numbers, far below the 2^64 outputs after
/// which xoshiro's authors advise a jump for parallel use; Philox's bijection makes the seeds of
/// different photons distinct. The all-zero state (a fixed point of xoshiro) would need
/// Philox to output 128 zero bits; it is replaced by a fixed non-zero state all the same.
///
/// The known-answer tests check the Philox block against Random123's vectors and the draws
/// against the reference `xoshiro128plus.c` outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct StreamRng {
    /// xoshiro128+ state `s[0..4]`, never all zero.
    pub state: [u32; 4],
}

impl StreamRng {
    /// The generator of stream `stream` under key `seed`: xoshiro128+ from the Philox4x32-10
    /// block of counter `(0, 0, stream)` and key `seed`.
    #[inline]
    pub fn for_stream(seed: u64, stream: u64) -> Self {
        let block = philox4x32_10(
            [0, 0, stream as u32, (stream >> 32) as u32],
            [seed as u32, (seed >> 32) as u32],
        );
        Self::from_state(block)
    }

    /// xoshiro128+ with the given state; an all-zero state is replaced by `[1, 2, 3, 4]` (the
    /// reference implementation's test state), since xoshiro never leaves zero.
    #[inline]
    pub const fn from_state(state: [u32; 4]) -> Self {
        if state[0] | state[1] | state[2] | state[3] == 0 {
            Self {
                state: [1, 2, 3, 4],
            }
        } else {
            Self { state }
        }
    }
}

impl RngCore for StreamRng {
    /// One xoshiro128+ step (Blackman & Vigna's `next`): output `s0 + s3`.
    #[inline(always)]
    fn next_u32(&mut self) -> u32 {
        let [s0, s1, s2, s3] = self.state;
        let out = s0.wrapping_add(s3);
        let t = s1 << 9;
        let s2 = s2 ^ s0;
        let s3 = s3 ^ s1;
        let s1 = s1 ^ s2;
        let s0 = s0 ^ s3;
        let s2 = s2 ^ t;
        let s3 = s3.rotate_left(11);
        self.state = [s0, s1, s2, s3];
        out
    }

    /// Two draws, of which only the top 29 bits each are kept (xoshiro128+'s low bits are its
    /// weak ones): the first draw's in bits 35..64, the second's in bits 6..35, so the 53 bits
    /// an f64 draw keeps ([`u64_to_f64_co`]) are all upper bits.
    #[inline]
    fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_u32() >> 3);
        let low = u64::from(self.next_u32() >> 3);
        (high << 35) | (low << 6)
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        rand_core::impls::fill_bytes_via_next(self, dst);
    }
}

/// 2^-24, exact in f32.
const F32_ULP: f32 = 1.0 / 16_777_216.0;
/// 2^-53, exact in f64.
const F64_ULP: f64 = 1.0 / 9_007_199_254_740_992.0;

/// `u` to an f32 in `[0, 1)`: the top 24 bits times 2^-24 (exact; at most `1 − 2^-24`).
#[inline]
pub fn u32_to_f32_co(u: u32) -> f32 {
    (u >> 8) as f32 * F32_ULP
}

/// `u` to an f32 in `(0, 1]`: (top 24 bits + 1) times 2^-24 (exact; at least 2^-24).
#[inline]
pub fn u32_to_f32_oc(u: u32) -> f32 {
    ((u >> 8) + 1) as f32 * F32_ULP
}

/// `u` to an f64 in `[0, 1)`: the top 53 bits times 2^-53 (exact).
#[inline]
pub fn u64_to_f64_co(u: u64) -> f64 {
    (u >> 11) as f64 * F64_ULP
}

/// `u` to an f64 in `(0, 1]`: (top 53 bits + 1) times 2^-53 (exact).
#[inline]
pub fn u64_to_f64_oc(u: u64) -> f64 {
    ((u >> 11) + 1) as f64 * F64_ULP
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_known_answers() {
        // Random123 kat_vectors, philox4x32 with 10 rounds.
        assert_eq!(
            philox4x32_10([0, 0, 0, 0], [0, 0]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn philox_stream_is_counter_sequence() {
        let mut g = Philox4x32::for_stream(0, 0);
        let first: [u32; 4] = core::array::from_fn(|_| g.next_u32());
        assert_eq!(first, philox4x32_10([0, 0, 0, 0], [0, 0]));
        let second: [u32; 4] = core::array::from_fn(|_| g.next_u32());
        assert_eq!(second, philox4x32_10([1, 0, 0, 0], [0, 0]));
        let mut s = Philox4x32::from_seed([7, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(s, Philox4x32::for_stream(7, 9));
        assert_eq!(s.next_u32(), philox4x32_10([0, 0, 9, 0], [7, 0])[0]);
    }

    /// The reference implementation's outputs (`xoshiro128plus.c`, state 1, 2, 3, 4, as
    /// recorded by the `rand_xoshiro` crate's tests).
    #[test]
    fn xoshiro128plus_known_answers() {
        let mut g = StreamRng::from_state([1, 2, 3, 4]);
        let expected = [
            5, 12295, 25178119, 27286542, 39879690, 1140358681, 3276312097, 4110231701, 399823256,
            2144435200,
        ];
        for e in expected {
            assert_eq!(g.next_u32(), e);
        }
    }

    /// A stream is the Philox block of `(0, 0, i)` under the seed, then xoshiro128+ draws.
    #[test]
    fn stream_seeded_by_philox_block() {
        let seed = 0x0123_4567_89ab_cdef_u64;
        let stream = 0x0000_0001_0000_0002_u64;
        let g = StreamRng::for_stream(seed, stream);
        assert_eq!(
            g.state,
            philox4x32_10([0, 0, 2, 1], [0x89ab_cdef, 0x0123_4567])
        );
        assert_ne!(StreamRng::for_stream(seed, stream + 1).state, g.state);
        assert_ne!(StreamRng::for_stream(seed + 1, stream).state, g.state);
        assert_eq!(StreamRng::from_state([0; 4]).state, [1, 2, 3, 4]);
    }

    /// Against the `rand_xoshiro` crate's xoshiro128+ (an implementation written apart from
    /// this one) from 256 Philox-seeded states, 1,000 draws each; `next_u64` keeps the top 29
    /// bits of two of its draws.
    #[test]
    fn stream_matches_rand_xoshiro() {
        use rand_xoshiro::Xoshiro128Plus;
        for i in 0..256u64 {
            let mut ours = StreamRng::for_stream(42, i);
            let mut seed = [0u8; 16];
            for (chunk, word) in seed.chunks_exact_mut(4).zip(ours.state) {
                chunk.copy_from_slice(&word.to_le_bytes());
            }
            let mut theirs = Xoshiro128Plus::from_seed(seed);
            for _ in 0..1000 {
                assert_eq!(ours.next_u32(), theirs.next_u32());
            }
            let (a, b) = (theirs.next_u32(), theirs.next_u32());
            assert_eq!(
                ours.next_u64(),
                (u64::from(a >> 3) << 35) | (u64::from(b >> 3) << 6)
            );
        }
    }

    #[test]
    fn mwc_recurrence() {
        let a = MWC64X_MULTIPLIER;
        let mut g = Mwc64::new(1, a);
        // x = 1, carry = 0: the first state is a, so the first output is a.
        assert_eq!(g.next_u32(), a);
        let s = u64::from(a);
        let expect = (s & 0xFFFF_FFFF) * s + (s >> 32);
        assert_eq!(g.next_u32(), expect as u32);
        assert_eq!(Mwc64::new(5, 0).multiplier, MWC64X_MULTIPLIER);
        // Worst case state does not overflow.
        let mut w = Mwc64::new(u64::MAX, u32::MAX);
        w.next_u32();
    }

    #[test]
    fn uniform_bounds() {
        assert_eq!(u32_to_f32_co(0), 0.0);
        assert!(u32_to_f32_co(u32::MAX) < 1.0);
        assert_eq!(u32_to_f32_oc(u32::MAX), 1.0);
        assert!(u32_to_f32_oc(0) > 0.0);
        assert_eq!(u64_to_f64_co(0), 0.0);
        assert!(u64_to_f64_co(u64::MAX) < 1.0);
        assert_eq!(u64_to_f64_oc(u64::MAX), 1.0);
        assert!(u64_to_f64_oc(0) > 0.0);
    }
}
