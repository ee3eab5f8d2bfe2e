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
//!   through one Philox4x32-10 block, which seeds an MWC64X generator (Thomas 2011: the
//!   multiply-with-carry step above with output `x ^ c`); every later draw costs the same three
//!   integer instructions, with no buffer to refill. On a GPU that matters more than the
//!   cycles: a buffered generator refills when *any* lane's buffer runs dry, and the whole warp
//!   then pays for it at a few active lanes (it took a third of MCML's issue slots).
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

/// A multiply-with-carry stream seeded per work item by Philox4x32-10: photon `i` of a run with
/// seed `s` draws from `StreamRng::for_stream(s, i)`.
///
/// # Why these two generators
///
/// - **Seeding, once per stream: Philox4x32-10** (Salmon, Moraes, Dror & Shaw, "Parallel random
///   numbers: as easy as 1, 2, 3", SC'11). A bijection of the 128-bit counter under a 64-bit
///   key; the paper reports that Philox4x32 passes TestU01's SmallCrush, Crush and BigCrush
///   from 7 rounds on ("Crush-resistant"), so the 10 rounds used here leave a margin of three.
///   The counter is `(0, 0, i mod 2^32, i / 2^32)` and the key the seed, so the state depends
///   on `(seed, i)` only, never on the thread, lane, strategy or backend that runs the photon.
/// - **Drawing: MWC64X** (David B. Thomas, "The MWC64X random number generator", 2011): the
///   multiply-with-carry step of CUDAMCML and GPU-MCML ([`Mwc64`]) with the multiplier
///   [`MWC64X_MULTIPLIER`] (`a · 2^32 − 1` and `a · 2^31 − 1` prime, so every state but the two
///   fixed points lies on a cycle of length `a · 2^31 − 1`, about 2^63) and the output
///   `x ^ c` of the state before the step, which its author reports passes every statistical
///   test he applied ("serious tests", not Diehard's or NIST's). One draw is a 32 x 32 ->
///   64-bit multiply and the carry's 64-bit add (three sm_90 instructions; ptxas folds the xor
///   into the draw's first use) where xoshiro128+ (used before) took eight; at about three
///   draws per MCML photon step that ran the kernels 1.02-1.05x faster on an H200
///   (`docs/results/mcml/h200-wave11/`).
///
/// The streams of two photons are two starting points on those cycles: Philox picks `x` from
/// 32 bits and `c` from 31 (odd, so never a fixed point: those have `c = 0` or `c = a − 1`).
/// A photon draws a few hundred to a few thousand numbers; 10^8 photons of 2,000 draws start
/// about `2^63 / 10^8 ≈ 10^11` draws apart on average, and the expected number of pairs whose
/// draws overlap at all is about `10^16 · 2,000 / 2^63 ≈ 2` (a pair overlapping shares part of
/// a sequence, nothing more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct StreamRng {
    /// `x` (low word) and the carry `c` (high word), `c` never 0 nor `a − 1`.
    pub state: u64,
}

impl StreamRng {
    /// The generator of stream `stream` under key `seed`: MWC64X from the Philox4x32-10 block
    /// of counter `(0, 0, stream)` and key `seed` ([`StreamRng::from_block`]).
    #[inline]
    pub fn for_stream(seed: u64, stream: u64) -> Self {
        let block = philox4x32_10(
            [0, 0, stream as u32, (stream >> 32) as u32],
            [seed as u32, (seed >> 32) as u32],
        );
        Self::from_block(block)
    }

    /// MWC64X started at `x = block[0]` and `c = (block[1] >> 1) | 1`: an odd carry below
    /// 2^31, so below `a − 1` and never 0, which keeps the state off both fixed points.
    #[inline]
    pub const fn from_block(block: [u32; 4]) -> Self {
        let c = (block[1] >> 1) | 1;
        Self {
            state: (c as u64) << 32 | block[0] as u64,
        }
    }
}

/// `x · a + c` in 64 bits for [`MWC64X_MULTIPLIER`] `a`. On the GPU one `mad.wide.u32`: written
/// as a 64-bit multiply-add of zero-extended words, ptxas spent five instructions on it.
#[inline(always)]
fn mwc64x_step(x: u32, c: u32) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u64;
        // SAFETY: one integer instruction on registers; no memory, no side effects.
        unsafe {
            core::arch::asm!(
                "mad.wide.u32 {r}, {x}, {a}, {c};",
                r = out(reg64) r,
                x = in(reg32) x,
                a = in(reg32) MWC64X_MULTIPLIER,
                c = in(reg64) u64::from(c),
                options(pure, nomem, nostack)
            );
        }
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        u64::from(x) * u64::from(MWC64X_MULTIPLIER) + u64::from(c)
    }
}

impl RngCore for StreamRng {
    /// One MWC64X step: output `x ^ c`, then `(c, x) ← x · a + c`. `x · a + c < 2^64` for any
    /// 32-bit `x`, `a` and `c`: no overflow.
    #[inline(always)]
    fn next_u32(&mut self) -> u32 {
        let x = self.state as u32;
        let c = (self.state >> 32) as u32;
        self.state = mwc64x_step(x, c);
        x ^ c
    }

    /// Two draws, the first in the high word: an f64 draw ([`u64_to_f64_co`]) keeps the first
    /// draw's 32 bits and the second's top 21.
    #[inline]
    fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_u32());
        let low = u64::from(self.next_u32());
        (high << 32) | low
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

    /// MWC64X as its author writes it (`res = x ^ c; hi = mul_hi(x, A); x = x * A + c;
    /// c = hi + (x < c)`, in 32-bit words), against the 64-bit step here, from the Philox
    /// states of 256 streams, 1,000 draws each; `next_u64` is two draws, high word first.
    #[test]
    fn stream_is_mwc64x_as_written_in_words() {
        for i in 0..256u64 {
            let mut ours = StreamRng::for_stream(42, i);
            let (mut x, mut c) = (ours.state as u32, (ours.state >> 32) as u32);
            let mut theirs = || {
                let res = x ^ c;
                let hi = ((u64::from(x) * u64::from(MWC64X_MULTIPLIER)) >> 32) as u32;
                x = x.wrapping_mul(MWC64X_MULTIPLIER).wrapping_add(c);
                c = hi + u32::from(x < c);
                res
            };
            for _ in 0..1000 {
                assert_eq!(ours.next_u32(), theirs());
            }
            let (a, b) = (theirs(), theirs());
            assert_eq!(ours.next_u64(), (u64::from(a) << 32) | u64::from(b));
        }
    }

    /// `a · 2^32 − 1` and `a · 2^31 − 1` are prime (deterministic Miller-Rabin: the first 12
    /// primes as bases decide every n < 3.3 · 10^24), the condition under which MWC's period is
    /// `a · 2^31 − 1` (Thomas; Marsaglia).
    #[test]
    fn mwc64x_multiplier_gives_safe_prime() {
        fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
            // a, b < m < 2^64: the product fits in u128.
            a * b % m
        }
        fn pow_mod(mut b: u128, mut e: u128, m: u128) -> u128 {
            let mut r = 1;
            b %= m;
            while e > 0 {
                if e & 1 == 1 {
                    r = mul_mod(r, b, m);
                }
                b = mul_mod(b, b, m);
                e >>= 1;
            }
            r
        }
        fn is_prime(n: u128) -> bool {
            let (mut d, mut s) = (n - 1, 0);
            while d % 2 == 0 {
                d /= 2;
                s += 1;
            }
            [2u128, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
                .iter()
                .all(|&a| {
                    let mut x = pow_mod(a, d, n);
                    if x == 1 || x == n - 1 {
                        return true;
                    }
                    (1..s).any(|_| {
                        x = mul_mod(x, x, n);
                        x == n - 1
                    })
                })
        }
        let a = u128::from(MWC64X_MULTIPLIER);
        assert!(is_prime((a << 32) - 1));
        assert!(is_prime((a << 31) - 1));
        // The test can fail: a neighbouring multiplier gives no safe prime.
        assert!(!(is_prime(((a + 2) << 32) - 1) && is_prime(((a + 2) << 31) - 1)));
    }

    /// The draws of many photons' streams, taken together, are uniform and unrelated from one
    /// draw to the next: a chi-square test of the top 8 bits (255 degrees of freedom) and of
    /// consecutive pairs' top 4 bits each (255), over 2^20 draws from 4,096 streams of 256;
    /// 99.9 % of uniform samples stay below 330.
    #[test]
    fn streams_pass_chi_square_on_top_bits() {
        let mut single = [0u32; 256];
        let mut pairs = [0u32; 256];
        for i in 0..4096 {
            let mut g = StreamRng::for_stream(7, i);
            let mut last = g.next_u32();
            for _ in 0..256 {
                let u = g.next_u32();
                single[(u >> 24) as usize] += 1;
                pairs[((last >> 28) << 4 | u >> 28) as usize] += 1;
                last = u;
            }
        }
        for counts in [single, pairs] {
            let n: u32 = counts.iter().sum();
            let e = f64::from(n) / 256.0;
            let chi2: f64 = counts.iter().map(|&k| (f64::from(k) - e).powi(2) / e).sum();
            assert!(chi2 < 330.0, "chi-square {chi2}");
        }
    }

    /// A stream is the Philox block of `(0, 0, i)` under the seed: `x` its first word, the carry
    /// its second halved and made odd.
    #[test]
    fn stream_seeded_by_philox_block() {
        let seed = 0x0123_4567_89ab_cdef_u64;
        let stream = 0x0000_0001_0000_0002_u64;
        let g = StreamRng::for_stream(seed, stream);
        let block = philox4x32_10([0, 0, 2, 1], [0x89ab_cdef, 0x0123_4567]);
        assert_eq!(g.state as u32, block[0]);
        assert_eq!((g.state >> 32) as u32, (block[1] >> 1) | 1);
        assert_ne!(StreamRng::for_stream(seed, stream + 1).state, g.state);
        assert_ne!(StreamRng::for_stream(seed + 1, stream).state, g.state);
        // All-zero and all-one blocks stay off the fixed points (c = 0, c = a - 1).
        for block in [[0; 4], [u32::MAX; 4]] {
            let c = (StreamRng::from_block(block).state >> 32) as u32;
            assert!(c != 0 && c < MWC64X_MULTIPLIER - 1);
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
