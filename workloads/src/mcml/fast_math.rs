//! [`FastF32`]: MCML's opt-in fast-math float. On the GPU it uses the hardware's approximate
//! instructions; everywhere else it is plain f32.
//!
//! On `nvptx64` five operations are approximate. Each one's bound comes from the PTX ISA 9.1
//! (section numbers below). The device check measures each one against the exact ops on 2^22
//! inputs (`fastmath_selftest`) and fails if a bound is broken:
//!
//! | op | instruction | PTX ISA bound |
//! |---|---|---|
//! | `a / b` (`Div`) | `div.approx.ftz.f32` | 2 ulp for `|b|` in [2^-126, 2^126] (§9.7.3.8) |
//! | [`McmlFloat::sqrt_rn`] | `sqrt.approx.ftz.f32` | relative 2^-23 over the positive normal range (§9.7.3.15) |
//! | [`McmlFloat::neg_ln_uniform`] | `lg2.approx.ftz.f32`, times `−ln 2` | absolute 2^-22 on (0.5, 2), relative 2^-22 elsewhere (§9.7.3.20) |
//! | [`McmlFloat::azimuth`] | `cos.approx.ftz.f32`, `sin.approx.ftz.f32` on `[-π, π)` | absolute 2^-20.5 on [-2π, 2π] (§9.7.3.18, §9.7.3.19) |
//!
//! All five flush subnormal inputs and results to zero (`.ftz`), as CUDA's `-use_fast_math`
//! does: the instructions are then one `MUFU` each (the division a reciprocal and a product)
//! without the range fix-ups around them, which cost about 4 instructions per operation (the
//! first fast-math build, with `div.full` and no `.ftz`, issued 12.8 warp instructions per
//! photon step on skin; about a sixth of them those fix-ups). MCML's divisors are values it
//! computes itself, all inside [2^-126, 2^126]: `1 − g + 2gξ` (at least `1 − g`), `1 − uz²`
//! (at least about 2·10^-6 off the z axis), Fresnel's `sin² cos²` off grazing incidence, `uz`
//! at a face, and the roulette chance. A flushed subnormal is a radius, sine or cosine below
//! 10^-19, far under the grid's resolution.
//!
//! The products and sums that the physics writes as [`McmlFloat::mul_then_add`] (the
//! moves, the new direction, Henyey–Greenstein and Fresnel: about 20 per step) are one
//! `fma.rn.f32` each, as in exact f32.
//!
//! Every other operation is exact f32: `+`, `−` and `×` are IEEE operations (Rust never
//! contracts them into an FMA), and every `num_traits::Float` method is f32's own.
//! [`McmlFloat::acos_shared`], [`McmlFloat::to_fixed`] and [`McmlFloat::bin_index`] forward
//! to f32 too.
//!
//! **Off the GPU, `FastF32` is f32 bit for bit.** On every target other than `nvptx64` each
//! operation is f32's exact one, so a CPU run in `FastF32` gives the tallies of the f32 run
//! (tested). A GPU fast-math run differs from the exact run, photon by photon, once any
//! approximate result differs in its last bits. The device check compares its Rd, A and Tt
//! with the exact CPU run of the same photons, within a statistical tolerance.

use core::num::FpCategory;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use num_traits::{Float, Num, NumCast, One, ToPrimitive, Zero};
use rand_core::RngCore;

use super::float::McmlFloat;

/// f32 under MCML's opt-in fast-math mode: approximate PTX instructions for division, square
/// root, the step length's logarithm and the azimuth's cosine and sine on the GPU, and exact
/// f32 everywhere else (see the [module docs](self) for the instructions and their bounds).
///
/// `#[repr(transparent)]` around an `f32`, so it has f32's layout on the host and on the GPU.
/// That makes it plain data in a kernel parameter, as f32 is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(transparent)]
pub struct FastF32(pub f32);

/// f32's comparisons, each operator forwarded on its own. The derived impl defines only
/// `partial_cmp`, and `>=` built on it kept an `Option<Ordering>` in the fast-math kernel's
/// Fresnel test (`sin a2 >= 1`): two selections, a byte permute and an integer compare where
/// f32's `>=` is one `FSETP`.
impl PartialOrd for FastF32 {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        self.0.partial_cmp(&other.0)
    }

    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        self.0 < other.0
    }

    #[inline(always)]
    fn le(&self, other: &Self) -> bool {
        self.0 <= other.0
    }

    #[inline(always)]
    fn gt(&self, other: &Self) -> bool {
        self.0 > other.0
    }

    #[inline(always)]
    fn ge(&self, other: &Self) -> bool {
        self.0 >= other.0
    }
}

/// The approximate PTX instructions (`nvptx64` only).
#[cfg(target_arch = "nvptx64")]
mod ptx {
    ptx_instructions! {
        fn lg2_approx(x): f32, reg32 = "lg2.approx.ftz.f32 {r}, {x};";
        fn sin_approx(x): f32, reg32 = "sin.approx.ftz.f32 {r}, {x};";
        fn cos_approx(x): f32, reg32 = "cos.approx.ftz.f32 {r}, {x};";
        fn sqrt_approx(x): f32, reg32 = "sqrt.approx.ftz.f32 {r}, {x};";
        /// At most 2 ulp from the quotient for `|b|` in [2^-126, 2^126] (PTX ISA §9.7.3.8).
        fn div_approx(a, b): f32, reg32 = "div.approx.ftz.f32 {r}, {a}, {b};";
    }
}

/// `a / b` in fast-math mode: `div.approx.ftz.f32` on the GPU (at most 2 ulp for `|b|` in
/// [2^-126, 2^126], subnormals flushed), the IEEE quotient elsewhere.
#[inline(always)]
pub fn fast_div_f32(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return ptx::div_approx(a, b);
    #[cfg(not(target_arch = "nvptx64"))]
    return a / b;
}

/// The square root in fast-math mode: `sqrt.approx.ftz.f32` on the GPU (relative error at most
/// 2^-23; a subnormal input gives 0), the correctly rounded one ([`McmlFloat::sqrt_rn`] of f32) elsewhere.
#[inline(always)]
pub fn fast_sqrt_f32(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return ptx::sqrt_approx(x);
    #[cfg(not(target_arch = "nvptx64"))]
    return x.sqrt_rn();
}

/// The step length `−ln ξ` of the draw `u` in fast-math mode, for the same `ξ = k · 2^-24`
/// (`k = (u >> 8) + 1`) as the exact [`neg_ln_draw_f32`](super::neg_ln_draw_f32).
///
/// On the GPU this is `lg2.approx.ftz.f32(ξ) · (−ln 2)` (`ξ ≥ 2^-24` is never subnormal). `ξ` is exact in f32, and the lg2
/// instruction's error is absolute 2^-22 for `ξ` in (0.5, 1] and relative 2^-22 below that
/// (PTX ISA §9.7.3.20). The product adds 2^-24 relative, so the step is within
/// `max(2^-22 ln 2, 2^-22 |−ln ξ|) + 2^-23 |−ln ξ|` of the exact value. Near `ξ = 1` the
/// absolute bound allows a tiny negative result, which the code clamps to 0 (the exact code
/// also returns 0, for `ξ = 1`). A negative step would move the photon backwards.
///
/// Elsewhere this is [`neg_ln_draw_f32`](super::neg_ln_draw_f32), bit for bit.
#[inline(always)]
pub fn fast_neg_ln_draw_f32(u: u32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let k = (u >> 8) + 1;
        // k ≤ 2^24 converts exactly, and scaling by 2^-24 is exact.
        let xi = k as f32 * (1.0 / 16_777_216.0);
        let r = ptx::lg2_approx(xi) * -core::f32::consts::LN_2;
        r.max(0.0)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::neg_ln_draw_f32(u)
    }
}

/// Cosine and sine of `2π t` for the turn fraction `t = (u >> 8) · 2^-24` of the draw `u`, in
/// fast-math mode.
///
/// On the GPU the turn is first brought to `[-1/2, 1/2)` by integer operations on the draw
/// (`frac(t)` in Q32, read as signed), exactly; it converts to f32 exactly (at most 24
/// significant bits). The angle `θ = 2π r` then lies in `[-π, π)`, where `cos.approx.f32` and
/// `sin.approx.f32` are within 2^-20.5 absolute (PTX ISA §9.7.3.18 and §9.7.3.19). Rounding
/// `2π r` adds at most `π · 2^-23 < 2^-21` absolute, so the result is within
/// `2^-20.5 + 2^-21` (about 1.15e-6) of the exact cosine and sine.
///
/// Elsewhere this is f32's [`cos_sin_draw_f32`](super::cos_sin_draw_f32), bit for bit.
#[inline(always)]
pub fn fast_cos_sin_draw_f32(u: u32) -> (f32, f32) {
    #[cfg(target_arch = "nvptx64")]
    {
        let r = ((u & !0xff) as i32) as f32 * f32::from_bits(0x2f80_0000);
        let theta = r * core::f32::consts::TAU;
        (ptx::cos_approx(theta), ptx::sin_approx(theta))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::cos_sin_draw_f32(u)
    }
}

macro_rules! binary_op {
    ($($tr:ident $method:ident $atr:ident $amethod:ident $op:tt),*) => {$(
        impl $tr for FastF32 {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                Self(self.0 $op rhs.0)
            }
        }
        impl $atr for FastF32 {
            #[inline(always)]
            fn $amethod(&mut self, rhs: Self) {
                *self = *self $op rhs;
            }
        }
    )*};
}
binary_op!(
    Add add AddAssign add_assign +,
    Sub sub SubAssign sub_assign -,
    Mul mul MulAssign mul_assign *,
    Rem rem RemAssign rem_assign %
);

impl Div for FastF32 {
    type Output = Self;
    /// `div.approx.ftz.f32` on the GPU ([`fast_div_f32`]), the IEEE quotient elsewhere.
    #[inline(always)]
    fn div(self, rhs: Self) -> Self {
        Self(fast_div_f32(self.0, rhs.0))
    }
}

impl DivAssign for FastF32 {
    #[inline(always)]
    fn div_assign(&mut self, rhs: Self) {
        *self = *self / rhs;
    }
}

impl Neg for FastF32 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(-self.0)
    }
}

impl Zero for FastF32 {
    #[inline(always)]
    fn zero() -> Self {
        Self(0.0)
    }
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.0 == 0.0
    }
}

impl One for FastF32 {
    #[inline(always)]
    fn one() -> Self {
        Self(1.0)
    }
}

impl Num for FastF32 {
    type FromStrRadixErr = <f32 as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        <f32 as Num>::from_str_radix(s, radix).map(Self)
    }
}

macro_rules! to_primitive {
    ($($name:ident -> $t:ty),*) => {$(
        #[inline(always)]
        fn $name(&self) -> Option<$t> {
            <f32 as ToPrimitive>::$name(&self.0)
        }
    )*};
}

impl ToPrimitive for FastF32 {
    to_primitive!(
        to_isize -> isize, to_i8 -> i8, to_i16 -> i16, to_i32 -> i32, to_i64 -> i64,
        to_i128 -> i128, to_usize -> usize, to_u8 -> u8, to_u16 -> u16, to_u32 -> u32,
        to_u64 -> u64, to_u128 -> u128, to_f32 -> f32, to_f64 -> f64
    );
}

impl NumCast for FastF32 {
    #[inline(always)]
    fn from<T: ToPrimitive>(n: T) -> Option<Self> {
        <f32 as NumCast>::from(n).map(Self)
    }
}

/// `num_traits::Float` methods forwarded to f32's, by shape.
macro_rules! forward {
    (const $($name:ident),*) => {$(
        #[inline(always)]
        fn $name() -> Self {
            Self(<f32 as Float>::$name())
        }
    )*};
    (bool $($name:ident),*) => {$(
        #[inline(always)]
        fn $name(self) -> bool {
            <f32 as Float>::$name(self.0)
        }
    )*};
    (unary $($name:ident),*) => {$(
        #[inline(always)]
        fn $name(self) -> Self {
            Self(<f32 as Float>::$name(self.0))
        }
    )*};
    (binary $($name:ident),*) => {$(
        #[inline(always)]
        fn $name(self, other: Self) -> Self {
            Self(<f32 as Float>::$name(self.0, other.0))
        }
    )*};
}

/// Every method is f32's (`num_traits` with `libm`), exact on every target; only the
/// operators and the [`McmlFloat`] methods listed in the [module docs](self) are approximate
/// on the GPU. `recip` is f32's `1 / x` (correctly rounded), not the fast division.
impl Float for FastF32 {
    forward!(const nan, infinity, neg_infinity, neg_zero, min_value, min_positive_value,
        epsilon, max_value);
    forward!(bool is_nan, is_infinite, is_finite, is_normal, is_subnormal, is_sign_positive,
        is_sign_negative);
    forward!(unary floor, ceil, round, trunc, fract, abs, signum, recip, sqrt, exp, exp2, ln,
        log2, log10, to_degrees, to_radians, cbrt, sin, cos, tan, asin, acos, atan, exp_m1,
        ln_1p, sinh, cosh, tanh, asinh, acosh, atanh);
    forward!(binary powf, log, max, min, hypot, atan2, copysign);

    #[inline(always)]
    fn classify(self) -> FpCategory {
        <f32 as Float>::classify(self.0)
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Self(<f32 as Float>::mul_add(self.0, a.0, b.0))
    }
    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        Self(<f32 as Float>::powi(self.0, n))
    }
    #[inline(always)]
    #[allow(deprecated)]
    fn abs_sub(self, other: Self) -> Self {
        Self(<f32 as Float>::abs_sub(self.0, other.0))
    }
    #[inline(always)]
    fn clamp(self, min: Self, max: Self) -> Self {
        Self(<f32 as Float>::clamp(self.0, min.0, max.0))
    }
    #[inline(always)]
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = <f32 as Float>::sin_cos(self.0);
        (Self(s), Self(c))
    }
    #[inline(always)]
    fn integer_decode(self) -> (u64, i16, i8) {
        <f32 as Float>::integer_decode(self.0)
    }
}

/// f32's physics with the fast-math operations of the [module docs](self) on the GPU; f32 bit
/// for bit on every other target.
impl McmlFloat for FastF32 {
    /// `lg2.approx.f32` on the GPU ([`fast_neg_ln_draw_f32`]), on the very draw value the
    /// exact f32 code takes its logarithm of.
    #[inline(always)]
    fn neg_ln_uniform<R: RngCore>(rng: &mut R) -> Self {
        Self(fast_neg_ln_draw_f32(rng.next_u32()))
    }
    /// `cos.approx.f32` / `sin.approx.f32` on `[-π, π)` on the GPU
    /// ([`fast_cos_sin_draw_f32`]), on the draw the exact f32 code takes apart.
    #[inline(always)]
    fn azimuth<R: RngCore>(rng: &mut R) -> (Self, Self) {
        let (c, s) = fast_cos_sin_draw_f32(rng.next_u32());
        (Self(c), Self(s))
    }
    #[inline(always)]
    fn acos_shared(self) -> Self {
        Self(self.0.acos_shared())
    }
    const COSZERO: Self = Self(<f32 as McmlFloat>::COSZERO);
    #[inline(always)]
    fn lit(x: f64) -> Self {
        Self(<f32 as McmlFloat>::lit(x))
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        self.0.as_f64()
    }
    #[inline(always)]
    fn uniform_co<R: RngCore>(rng: &mut R) -> Self {
        Self(<f32 as McmlFloat>::uniform_co(rng))
    }
    #[inline(always)]
    fn uniform_oc<R: RngCore>(rng: &mut R) -> Self {
        Self(<f32 as McmlFloat>::uniform_oc(rng))
    }
    #[inline(always)]
    fn to_fixed(self) -> u64 {
        self.0.to_fixed()
    }
    /// Despite the trait's name, `sqrt.approx.f32` on the GPU (relative error at most 2^-23,
    /// [`fast_sqrt_f32`]). Correctly rounded elsewhere.
    #[inline(always)]
    fn sqrt_rn(self) -> Self {
        Self(fast_sqrt_f32(self.0))
    }
    #[inline(always)]
    fn bin_index(self, n: u32) -> u32 {
        self.0.bin_index(n)
    }
    #[inline(always)]
    fn computed_here(self) -> Self {
        Self(self.0.computed_here())
    }
    /// f32's: one fused multiply-add ([`super::fma_f32`]), `fma.rn.f32` on the GPU.
    #[inline(always)]
    fn mul_then_add(self, b: Self, c: Self) -> Self {
        Self(self.0.mul_then_add(b.0, c.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcml::{cos_sin_draw_f32, neg_ln_draw_f32};

    /// Off the GPU every fast-math operation is f32's exact one, bit for bit.
    #[test]
    fn off_the_gpu_fast_math_is_f32() {
        let mut state = 0x1234_5678u32;
        for _ in 0..100_000 {
            // xorshift32: a fixed spread of bit patterns.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let a = f32::from_bits(state);
            let b = f32::from_bits(state.rotate_left(11));
            let same = |x: f32, y: f32| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
            assert!(same((FastF32(a) / FastF32(b)).0, a / b));
            assert!(same(FastF32(a).sqrt_rn().0, a.sqrt_rn()));
            assert_eq!(fast_neg_ln_draw_f32(state), neg_ln_draw_f32(state));
            assert_eq!(fast_cos_sin_draw_f32(state), cos_sin_draw_f32(state));
            assert_eq!(FastF32(a).to_fixed(), a.to_fixed());
            assert!(same(FastF32(a).acos_shared().0, a.acos_shared()));
        }
        assert_eq!(FastF32::COSZERO.0, f32::COSZERO);
        assert_eq!(FastF32::lit(0.1).0, 0.1f32);
    }

    /// Every comparison operator is f32's, NaN, the two zeros and the infinities included.
    #[test]
    fn comparisons_are_f32s() {
        let values = [
            f32::NAN,
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            f32::from_bits(1),
            0.5,
            1.0,
            f32::INFINITY,
        ];
        for a in values {
            for b in values {
                let (x, y) = (FastF32(a), FastF32(b));
                assert_eq!(x.partial_cmp(&y), a.partial_cmp(&b), "{a} ? {b}");
                assert_eq!(x < y, a < b, "{a} < {b}");
                assert_eq!(x <= y, a <= b, "{a} <= {b}");
                assert_eq!(x > y, a > b, "{a} > {b}");
                assert_eq!(x >= y, a >= b, "{a} >= {b}");
            }
        }
    }

    /// The layout that lets it be a kernel parameter's field, as f32 is.
    #[test]
    fn fast_f32_is_f32_sized_plain_data() {
        assert_eq!(core::mem::size_of::<FastF32>(), 4);
        assert_eq!(core::mem::align_of::<FastF32>(), 4);
        assert_eq!(
            core::mem::size_of::<crate::mcml::McmlParams<FastF32>>(),
            core::mem::size_of::<crate::mcml::McmlParams<f32>>()
        );
    }
}
