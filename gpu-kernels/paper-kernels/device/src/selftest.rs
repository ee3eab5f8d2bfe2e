//! The self-test computations, generic over [`Warp`] so that the GPU kernels and the host's
//! CPU reference run the very same code (the host crate includes this file as a module).

use reconverge_simt::Warp;

/// Values each thread of `warp_selftest` writes from [`warp_ops`].
pub const WARP_OPS: usize = 7;

/// Values per thread in `warp_selftest`'s output: [`WARP_OPS`], then the warp's
/// `block_fetch_add` result, then the block counter's final value.
pub const WARP_OUTPUTS: usize = WARP_OPS + 2;

/// Results per input of `libm_selftest` (log, sin, cos, sqrt, exp), `libmf_selftest`
/// ([`mcml_math_row`]) and `fastmath_selftest` ([`fast_math_row`]).
pub const LIBM_OUTPUTS: usize = 5;

/// The warp operations of the self-test, per lane: lane id, a full ballot, an index shuffle, a
/// broadcast, a shuffle over half the warp, any/all votes and a popcount of a ballot.
/// `seed` varies the inputs per block.
#[inline(always)]
pub fn warp_ops<W: Warp>(warp: &mut W, seed: u32) -> [W::V<u32>; WARP_OPS] {
    let full = warp.full_mask();
    let lanes = warp.lane_ids();
    let third = warp.map(lanes, |l| l.wrapping_mul(seed | 1) % 3 == 0);
    let ballot = warp.ballot(full, third);
    let values = warp.map(lanes, |l| l.wrapping_mul(7).wrapping_add(seed));
    let sources = warp.map(lanes, |l| (l + 5) % 32);
    let shuffled = warp.shuffle(full, values, sources);
    let squares = warp.map(lanes, |l| l.wrapping_mul(l).wrapping_add(seed));
    let broadcast = warp.read_lane(full, squares, seed % 32);
    // Lanes 16..32 are outside the mask and keep their own value.
    let half_sources = warp.map(lanes, |l| (l + 3) % 16);
    let half = warp.shuffle(0x0000_ffff, values, half_sources);
    let is_seed_lane = warp.map(lanes, |l| l == seed % 32);
    let below_31 = warp.map(lanes, |l| l < 31);
    let everyone = warp.splat(true);
    let votes = u32::from(warp.any(full, is_seed_lane))
        | (u32::from(warp.all(full, everyone)) << 1)
        | (u32::from(warp.all(full, below_31)) << 2);
    let odd = warp.map(lanes, |l| l % 2 == 1);
    let popc = warp.ballot(full, odd).count_ones();
    [
        lanes,
        warp.splat(ballot),
        shuffled,
        warp.splat(broadcast),
        half,
        warp.splat(votes),
        warp.splat(popc),
    ]
}

/// log, sin, cos, sqrt and exp of `x` from the `libm` crate.
#[inline(always)]
pub fn libm_row(x: f64) -> [f64; LIBM_OUTPUTS] {
    [
        libm::log(x),
        libm::sin(x),
        libm::cos(x),
        libm::sqrt(x),
        libm::exp(x),
    ]
}

/// The f32 math of MCML's kernels, from the very functions the photon steps call: the step
/// length `−ln ξ` of the draw `x.to_bits()` (this crate's own logarithm), the azimuth's cosine
/// and sine of the turn fraction that draw gives (own polynomials), the correctly rounded
/// square root (hardware `sqrt.rn` on the GPU, `sqrtss` on x86-64: IEEE 754 fixes the bits)
/// and `libm`'s `acosf` with that root in place of its software one (the exit angle,
/// `McmlFloat::acos_shared`). The device check compares these bit for bit.
#[inline(always)]
pub fn mcml_math_row(x: f32) -> [f32; LIBM_OUTPUTS] {
    use reconverge_workloads::mcml::{McmlFloat, cos_sin_draw_f32, neg_ln_draw_f32};
    let draw = x.to_bits();
    let (cos, sin) = cos_sin_draw_f32(draw);
    [
        neg_ln_draw_f32(draw),
        cos,
        sin,
        x.sqrt_rn(),
        x.acos_shared(),
    ]
}

/// The divisor of [`fast_math_row`]'s division for input `x`: the sign and mantissa of `x`'s
/// bits rotated by 16, with an exponent from them in 2^-60 ..= 2^60. The quotient of a
/// moderate input has magnitudes far from overflow and from subnormals, as MCML's do.
#[inline(always)]
pub fn fast_math_divisor(x: f32) -> f32 {
    let b = x.to_bits().rotate_left(16);
    f32::from_bits((b & 0x807f_ffff) | ((67 + (b >> 24) % 121) << 23))
}

/// MCML's fast-math operations ([`reconverge_workloads::mcml::FastF32`]) on the input `x`: the
/// step length `−ln ξ` of the draw `x.to_bits()` (`lg2.approx` on the GPU), the azimuth's
/// cosine and sine of that draw's turn fraction (`cos.approx`/`sin.approx`), the square root
/// of `|x|` (`sqrt.approx`) and `x / fast_math_divisor(x)` (`div.approx.ftz`). Off the GPU these are
/// exactly the f32 operations, so the host's CPU run of this row is the exact reference.
#[inline(always)]
pub fn fast_math_row(x: f32) -> [f32; LIBM_OUTPUTS] {
    use reconverge_workloads::mcml::{
        fast_cos_sin_draw_f32, fast_div_f32, fast_neg_ln_draw_f32, fast_sqrt_f32,
    };
    let draw = x.to_bits();
    let (cos, sin) = fast_cos_sin_draw_f32(draw);
    [
        fast_neg_ln_draw_f32(draw),
        cos,
        sin,
        fast_sqrt_f32(f32::from_bits(draw & 0x7fff_ffff)),
        fast_div_f32(x, fast_math_divisor(x)),
    ]
}
