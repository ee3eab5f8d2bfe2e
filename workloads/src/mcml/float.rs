//! The float abstraction of the MCML physics: f32 (speed on GPUs) or f64 (MCML's own precision).

use num_traits::Float;
use rand_core::RngCore;

use super::fused::fma_f32;
use crate::rng::{u32_to_f32_co, u32_to_f32_oc, u64_to_f64_co, u64_to_f64_oc};

/// One fixed-point weight unit is 2^-32 of a photon packet (as in CUDAMCML's 32-bit weights).
pub const FIXED_ONE: u64 = 1 << 32;

/// Float types the MCML physics runs on.
///
/// `num_traits::Float` is built with its `libm` feature, so `ln`, `sin`, `cos`, `acos` and
/// `sqrt` are the `libm` crate's software implementations on every target: the same bits on
/// the CPU and on the GPU. The extra methods here are the conversions the physics needs, written
/// so that none of them can panic (`as` casts saturate).
pub trait McmlFloat:
    Float + Copy + Default + PartialOrd + core::fmt::Debug + Send + Sync + 'static
{
    /// A constant or input value given in f64 (rounded to nearest for f32).
    fn lit(x: f64) -> Self;
    /// The value widened (or kept) as f64, for results and host-side scaling.
    fn as_f64(self) -> f64;
    /// A uniform draw in `[0, 1)`, exact (never rounds up to 1).
    fn uniform_co<R: RngCore>(rng: &mut R) -> Self;
    /// A uniform draw in `(0, 1]`, exact (never 0, so `-ln ξ` is finite).
    fn uniform_oc<R: RngCore>(rng: &mut R) -> Self;
    /// `−ln ξ` of a uniform draw `ξ` in `(0, 1]` ([`McmlFloat::uniform_oc`]'s values): an
    /// exponentially distributed step, in mean free paths (MCML's `-log(RandomNum())`).
    ///
    /// f32 uses this crate's own logarithm for exactly the 2^24 values `ξ = k · 2^-24` a draw
    /// can take ([`neg_ln_draw_f32`]: integer range reduction, one polynomial, no branch and
    /// no division), the same code on the CPU and the GPU. f64 keeps `libm`'s `log`.
    fn neg_ln_uniform<R: RngCore>(rng: &mut R) -> Self;
    /// `self · 2^32` rounded to the nearest integer (ties to even) as an integer weight
    /// ([`FIXED_ONE`] = one packet); negative or NaN values give 0 and huge ones saturate.
    fn to_fixed(self) -> u64;
    /// `cos` above which a direction counts as along ±z (MCML's `COSZERO`): `1 − 1e-12` in f64
    /// as MCML, `1 − 1e-6` in f32 as CUDAMCML (`1 − 1e-12` rounds to 1 in f32, and then
    /// `uz = ±1` would divide by `sqrt(1 − uz²) = 0` in the spin).
    const COSZERO: Self;
    /// `trunc(self)` clamped into `0 ..= n - 1`: MCML's grid index with the overflow bin last.
    fn bin_index(self, n: u32) -> u32;
    /// Cosine and sine of a uniformly drawn azimuth `ψ = 2π ξ`, `ξ` in `[0, 1)` (MCML's
    /// `Spin`).
    ///
    /// f64 keeps MCML's own code: `cos ψ` from `libm`, `sin ψ = ±sqrt(1 − cos² ψ)` with the
    /// sign of `ψ < π`. f32 takes the draw's integer apart ([`cos_sin_draw_f32`]): the
    /// quadrant and the remainder come out of its bits exactly, and two short polynomials in
    /// fused multiply-adds take it from there, the same bits on both backends.
    fn azimuth<R: RngCore>(rng: &mut R) -> (Self, Self);
    /// Arc cosine from the `libm` crate's code, on every target: f64 `libm::acos`, f32
    /// `libm::acosf`'s code with the hardware's correctly rounded square root in place of its
    /// software one (the same bits; see `mcml/acos.rs`).
    ///
    /// Not `Float::acos`: when any crate of a build turns on `num-traits`' `std` feature (test
    /// and bench dependencies do), `Float::acos` becomes the platform's `acosf`, whose last bit
    /// may differ from the GPU's. `libm`'s code is the same on both sides.
    fn acos_shared(self) -> Self;
    /// The correctly rounded square root (IEEE 754 `squareRoot`), from the hardware: `sqrt.rn`
    /// on the GPU, `sqrtss`/`sqrtpd` on x86-64, `libm` (hardware where it has an arch path,
    /// correctly rounded software elsewhere) on other targets.
    ///
    /// Not `Float::sqrt`: `num-traits` sends that to `libm`'s *software* square root on nvptx,
    /// which cost MCML a fifth of its GPU issue slots. IEEE 754 fixes the result bit for bit,
    /// so the hardware instructions of both sides agree without sharing code.
    fn sqrt_rn(self) -> Self;
    /// [`McmlFloat::sqrt_rn`] for an argument the caller knows to be 0 or at least
    /// [`IN_RANGE_MIN`] and finite (or negative, where NaN is what it wants): the same bits.
    ///
    /// On the GPU, f32's `sqrt.rn` is a reciprocal square root seed and two Newton steps, with
    /// a range check and a branch (in its own convergence region) to a slow path for zero,
    /// subnormal, infinite and negative arguments: 5 of its 9 issue slots. Here the steps alone
    /// and a selection for 0, which give the correctly rounded root over the whole range
    /// (checked against `sqrt.rn` on every float from 2^-101 up by `references/cuda/
    /// fast_paths.cu`). Elsewhere, and for f64 and [`FastF32`](super::FastF32), it is `sqrt_rn`.
    #[inline(always)]
    fn sqrt_rn_in_range(self) -> Self {
        self.sqrt_rn()
    }
    /// The square root of a squared radius that only picks a radial bin: [`McmlFloat::sqrt_rn`]
    /// where the bin can tell. f32 raises the argument to [`IN_RANGE_MIN`] and takes
    /// [`McmlFloat::sqrt_rn_in_range`]'s steps (without its case for 0, which the raised argument
    /// never is): a radius under 2^-50 cm lands in bin 0 either way (for
    /// any grid whose `dr` is above 2^-50 cm), and the CPU computes the same.
    #[inline(always)]
    fn sqrt_for_bin(self) -> Self {
        self.sqrt_rn()
    }
    /// Fresnel's general-case reflectance `self / b` where it only decides a draw `ξ > r`
    /// (draws are 0 or at least 2^-24): `/` where the draw can tell. f32 raises the numerator
    /// to [`IN_RANGE_MIN`] and takes [`McmlFloat::div_rn_in_range`] (the denominator is at most
    /// 1 and far above 2^-100 where the value is used), which decides every draw as `/` does;
    /// the CPU computes the same.
    #[inline(always)]
    fn reflectance_quotient(self, b: Self) -> Self {
        self / b
    }
    /// `self / b` rounded as IEEE 754 divides, for operands the caller knows to be in range:
    /// `self` is +0 or, as `b` and the quotient, of magnitude within `[IN_RANGE_MIN,
    /// IN_RANGE_MAX]`, of either sign. The same bits as `/` (not for `self` = −0).
    ///
    /// On the GPU, f32's `div.rn` is a reciprocal seed and Newton steps, with a check
    /// (`FCHK`) and a branch to a slow path for operands outside the steps' range: 4 of its 10
    /// issue slots. Here the steps alone (checked against `div.rn` by `references/cuda/
    /// fast_paths.cu`). Elsewhere, and for f64 and [`FastF32`](super::FastF32), it is `/`.
    #[inline(always)]
    fn div_rn_in_range(self, b: Self) -> Self {
        self / b
    }
    /// `self`, computed where the call stands even if only a branch after it uses it.
    ///
    /// LLVM moves a computation whose result one side of a selection takes into a branch
    /// around it (and ptxas keeps the branch): right on a CPU, but a GPU warp whose lanes
    /// nearly all take that side then runs the computation anyway and pays a convergence
    /// region besides. On the GPU f32's value passes through an empty `asm!` with side
    /// effects, which no pass may move into a branch; no instruction is emitted for it.
    /// Elsewhere, and for f64, `self`.
    #[inline(always)]
    fn computed_here(self) -> Self {
        self
    }
    /// `self · b + c` as MCML writes it. f64 (MCML's own precision) rounds the product and
    /// the sum, as MCML does (Rust never contracts them into an FMA). f32 and
    /// [`FastF32`](super::FastF32) round once: IEEE 754's fused multiply-add ([`fma_f32`]),
    /// one `fma.rn.f32` on the GPU and the same bits on the CPU, where it is one instruction
    /// too (about 20 per photon step; with the polynomials' the exact GPU kernel issues 56
    /// instructions fewer and the CPU loop runs in 0.75 of the time).
    #[inline(always)]
    fn mul_then_add(self, b: Self, c: Self) -> Self {
        c + self * b
    }
}

/// The least magnitude [`McmlFloat::sqrt_rn_in_range`] and [`McmlFloat::div_rn_in_range`]
/// take (besides 0): 2^-100, with room below it to the GPU's fast paths' own limit (2^-101 for
/// the root).
pub const IN_RANGE_MIN: f32 = 1.0 / (1u128 << 100) as f32;
/// The largest magnitude [`McmlFloat::div_rn_in_range`] takes: 2^100.
pub const IN_RANGE_MAX: f32 = (1u128 << 100) as f32;

/// The GPU's correctly rounded square roots (`sqrt.rn`: IEEE 754 round to nearest even, not the
/// approximate `sqrt.approx`), and the Newton steps of `sqrt.rn` and `div.rn` without their
/// range checks.
#[cfg(target_arch = "nvptx64")]
mod ptx {
    ptx_instructions! {
        fn sqrt_rn_f32(x): f32, reg32 = "sqrt.rn.f32 {r}, {x};";
        fn sqrt_rn_f64(x): f64, reg64 = "sqrt.rn.f64 {r}, {x};";
    }

    /// `sqrt.rn.f32`'s steps for `x` in `[2^-101, ∞)`: `y ≈ 1/√x`, `s = x·y`, `s + (x − s²)·y/2`
    /// (what ptxas emits for `sqrt.rn` there, without the check around it).
    #[inline(always)]
    pub fn sqrt_steps_f32(x: f32) -> f32 {
        let r: f32;
        // SAFETY: arithmetic on registers only; no memory, no side effects.
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .f32 y, s, h, e;",
                "rsqrt.approx.ftz.f32 y, {x};",
                "mul.ftz.f32 s, {x}, y;",
                "mul.ftz.f32 h, y, 0f3F000000;",
                "neg.f32 e, s;",
                "fma.rn.f32 e, e, s, {x};",
                "fma.rn.f32 {r}, e, h, s;",
                "}}",
                r = out(reg32) r,
                x = in(reg32) x,
                options(pure, nomem, nostack)
            );
        }
        r
    }

    /// `div.rn.f32`'s steps: `r ≈ 1/b` refined once, `q = a·r`, `q + (a − b·q)·r` (what ptxas
    /// emits for `div.rn` when its check passes, without the check).
    #[inline(always)]
    pub fn div_steps_f32(a: f32, b: f32) -> f32 {
        let q: f32;
        // SAFETY: arithmetic on registers only; no memory, no side effects.
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .f32 r, e, nb, p;",
                "rcp.approx.ftz.f32 r, {b};",
                "neg.f32 nb, {b};",
                "fma.rn.f32 e, nb, r, 0f3F800000;",
                "fma.rn.f32 r, r, e, r;",
                "fma.rn.f32 p, {a}, r, 0f00000000;",
                "fma.rn.f32 e, nb, p, {a};",
                "fma.rn.f32 {q}, r, e, p;",
                "}}",
                q = out(reg32) q,
                a = in(reg32) a,
                b = in(reg32) b,
                options(pure, nomem, nostack)
            );
        }
        q
    }
}

/// A float-to-integer conversion that is one PTX `cvt` on the GPU and `elsewhere` on other
/// targets (by default Rust's `x as u32` / `x as u64`: truncation toward zero, saturating,
/// NaN → 0). `cvt.rzi` does exactly what `as` does (PTX clamps float-to-integer conversions to
/// the destination's range and converts NaN to 0), but LLVM lowers `as` there with two compares
/// and two selects around it; MCML converts a handful of floats per step.
macro_rules! float_to_int {
    ($name:ident, $f:ty, $i:ty, $ptx:literal, $fcls:ident, $icls:ident) => {
        float_to_int!($name, $f, $i, $ptx, $fcls, $icls, elsewhere: |x| x as $i);
    };
    (
        $name:ident, $f:ty, $i:ty, $ptx:literal, $fcls:ident, $icls:ident,
        elsewhere: |$x:ident| $elsewhere:expr
    ) => {
        #[inline(always)]
        fn $name($x: $f) -> $i {
            #[cfg(target_arch = "nvptx64")]
            {
                let r: $i;
                // SAFETY: one conversion instruction on registers; no memory, no side effects.
                unsafe {
                    core::arch::asm!(
                        $ptx,
                        r = out($icls) r,
                        x = in($fcls) $x,
                        options(pure, nomem, nostack)
                    );
                }
                r
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                $elsewhere
            }
        }
    };
}
float_to_int!(
    f32_to_u32,
    f32,
    u32,
    "cvt.rzi.u32.f32 {r}, {x};",
    reg32,
    reg32
);
float_to_int!(
    f64_to_u32,
    f64,
    u32,
    "cvt.rzi.u32.f64 {r}, {x};",
    reg64,
    reg32
);

/// `v` rounded to the nearest integer, ties to even, as `u64`: 0 for negative values and NaN,
/// saturating at `u64::MAX`. Adding and subtracting `2^(p-1)` (`p` the significand width) rounds
/// any `0 ≤ v < 2^(p-1)` to an integer in the current rounding mode, round to nearest even: IEEE
/// 754 fixes both results, so every target gets the same integer; `v ≥ 2^(p-1)` is an integer
/// already. Then a truncating conversion (Rust's `as`: saturating, NaN to 0) is exact.
/// (`Float::round` is a `libm` call, and half-away-from-zero by hand cost a 64-bit
/// compare-and-add besides.)
///
/// On the GPU one `cvt.rni` conversion gives the same integer for every input: it rounds to
/// nearest even, and PTX clamps a conversion to the destination's range and turns NaN into 0
/// (0 for negative values, as the sum above followed by a truncating conversion gives). It
/// replaces four float instructions per drop (2 % of fast-math MCML's instructions).
macro_rules! nearest_even_to_u64 {
    ($name:ident, $f:ty, $rni:literal, $fcls:ident) => {
        float_to_int!($name, $f, u64, $rni, $fcls, reg64, elsewhere: |v| {
            // 2^(p-1): 2^23 for f32, 2^52 for f64.
            const HALF_ULP_ONE: $f = (1u64 << (<$f>::MANTISSA_DIGITS - 1)) as $f;
            let rounded = if v < HALF_ULP_ONE {
                (v + HALF_ULP_ONE) - HALF_ULP_ONE
            } else {
                v
            };
            rounded as u64
        });
    };
}
nearest_even_to_u64!(f32_to_u64_nearest, f32, "cvt.rni.u64.f32 {r}, {x};", reg32);
nearest_even_to_u64!(f64_to_u64_nearest, f64, "cvt.rni.u64.f64 {r}, {x};", reg64);

/// Taylor coefficients of `cos(r π/2)` in `r²` (the terms of degree 2, 4, 6, 8 in `r`):
/// `(-1)^k (π/2)^(2k) / (2k)!`, in f64 (rounded to f32 where used).
const COS_R: [f64; 4] = [
    -1.233_700_550_136_17,
    0.253_669_507_901_048,
    -0.020_863_480_763_353,
    0.000_919_260_274_839,
];
/// Taylor coefficients of `sin(r π/2) / r` in `r²`: `(-1)^k (π/2)^(2k+1) / (2k+1)!`.
const SIN_R: [f64; 5] = [
    core::f64::consts::FRAC_PI_2,
    -0.645_964_097_506_25,
    0.079_692_626_246_167,
    -0.004_681_754_135_319,
    0.000_160_441_184_787,
];

/// `ln 2` split for exact products: the high part has 16 significant bits, so `n · LN2_HI` is
/// exact for the `|n| ≤ 25` used here.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
/// `ln 2 − LN2_HI`, rounded to f32.
const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);
/// `P(f)` in `ln(1 + f) = f − f²/2 + f³ P(f)` on `[√½ − 1, √2 − 1]`: a degree-7 polynomial
/// fitted for relative error (weighted least squares on 20,000 Chebyshev points, in f64) and
/// rounded to f32; `scripts/fit-neg-ln.py` recomputes it.
const LN1P_P: [f32; 8] = [
    f32::from_bits(0x3eaa_aab2),
    f32::from_bits(0xbe80_011e),
    f32::from_bits(0x3e4c_cc58),
    f32::from_bits(0xbe2a_33ec),
    f32::from_bits(0x3e11_af84),
    f32::from_bits(0xbe07_308b),
    f32::from_bits(0x3e01_3b84),
    f32::from_bits(0xbd96_cac0),
];

/// `−ln(k · 2^-24)` for the draw `u`, with `k = (u >> 8) + 1` in `1 ..= 2^24`: the f32 step
/// length of [`McmlFloat::neg_ln_uniform`].
///
/// Measured over its whole domain (all 2^24 values of `k`, against f64 `libm::log`, in the
/// test `neg_ln_draw_is_faithful_everywhere`): at most 0.85 ulp of the result, so always one
/// of the two f32 neighbours of the exact value (libm's `logf` promises < 1 ulp too).
///
/// `k = m · 2^e` with `m` in `[√½, √2)` by integer operations on the bits of `k as f32` (exact,
/// as in FreeBSD's `logf`); `f = m − 1` is exact; `−ln ξ = (24 − e) ln 2 − ln(1 + f)`.
#[inline(always)]
pub fn neg_ln_draw_f32(u: u32) -> f32 {
    let k = (u >> 8) + 1;
    // Moving the mantissa's cut from 1 to √2 carries into the exponent exactly when m ≥ √2.
    let ix = (k as f32).to_bits() + (0x3f80_0000 - 0x3f35_04f3);
    let e = (ix >> 23) as i32 - 0x7f;
    let m = f32::from_bits((ix & 0x007f_ffff) + 0x3f35_04f3);
    let f = m - 1.0;
    // Horner's rule written out: as a loop over the coefficients, LLVM left some kernels
    // an array of them in local memory and a loop (the warp strategies ran 20-40 % slower).
    let c = LN1P_P;
    let p = fma_f32(fma_f32(fma_f32(c[7], f, c[6]), f, c[5]), f, c[4]);
    let p = fma_f32(
        fma_f32(fma_f32(fma_f32(p, f, c[3]), f, c[2]), f, c[1]),
        f,
        c[0],
    );
    let f2 = f * f;
    let r = fma_f32(f2 * f, p, -0.5 * f2);
    let n = (24 - e) as f32;
    (n * LN2_HI - f) + (n * LN2_LO - r)
}

/// Cosine and sine of `2π t` for the turn fraction `t = (u >> 8) · 2^-24` of the draw `u` (the
/// value [`McmlFloat::uniform_co`] gives for it): the f32 azimuth of [`McmlFloat::azimuth`].
///
/// `2π t = (π/2)(n + r)` with the quadrant `n` nearest to `4t` and `r = 4t − n` in
/// `[−1/2, 1/2)`: both come out of the draw's bits exactly by integer operations (`r` in Q32
/// is the draw shifted left by two, read as signed), with no float-to-integer conversion.
/// `cos(rπ/2)` and `sin(rπ/2)/r` are Taylor polynomials in `r²` (truncation below 3e-8) by
/// Horner's rule in fused multiply-adds ([`fma_f32`]), so CPU and GPU agree bit for bit. (A 32-bit fixed-point evaluation by
/// `mad.hi`, one `IMAD.HI` per term, issued fewer instructions but ran MCML 3 % slower on an
/// H100: `IMAD.HI` with its 64-bit addend stalls dispatch and waits on a longer latency.)
///
/// Measured over all 2^24 draws against f64 `libm` (test
/// `f32_azimuth_matches_f64_cos_and_sin`): at most 8.84e-8 absolute error (0.74 ulp of 1;
/// 9.74e-8 when the polynomials rounded each product and sum).
#[inline(always)]
pub fn cos_sin_draw_f32(u: u32) -> (f32, f32) {
    let k = u >> 8;
    // 4t = k · 2^-22: the nearest quadrant (halves round up, matching `r` below).
    let n = (k + (1 << 21)) >> 22;
    // frac(4t) in Q32, wrapping; read as signed it is 4t − n.
    let r = (k << 10) as i32;
    // r converts exactly (at most 22 significant bits) and 2^-32 is exact.
    let r = r as f32 * f32::from_bits(0x2f80_0000);
    const C: [f32; 4] = [
        COS_R[0] as f32,
        COS_R[1] as f32,
        COS_R[2] as f32,
        COS_R[3] as f32,
    ];
    const S: [f32; 5] = [
        SIN_R[0] as f32,
        SIN_R[1] as f32,
        SIN_R[2] as f32,
        SIN_R[3] as f32,
        SIN_R[4] as f32,
    ];
    let u = r * r;
    let cos = fma_f32(
        u,
        fma_f32(u, fma_f32(u, fma_f32(u, C[3], C[2]), C[1]), C[0]),
        1.0,
    );
    let sin = r * fma_f32(
        u,
        fma_f32(u, fma_f32(u, fma_f32(u, S[4], S[3]), S[2]), S[1]),
        S[0],
    );
    // The quadrant by selection and sign bits, not by a branch (a GPU warp would run the
    // four cases one after another): quadrants 1 and 3 swap cos and sin, 1 and 2 negate the
    // cosine, 2 and 3 the sine. Negation is exact, so this is `match n & 3`'s result.
    let odd = n & 1 != 0;
    let (a, b) = if odd { (sin, cos) } else { (cos, sin) };
    (
        f32::from_bits(a.to_bits() ^ ((n.wrapping_add(1) & 2) << 30)),
        f32::from_bits(b.to_bits() ^ ((n & 2) << 30)),
    )
}

/// MCML's azimuth in f64: `cos ψ` from `libm`, `sin ψ = ±sqrt(1 − cos² ψ)` with the sign of
/// `ψ < π`, for the turn fraction `t` (`ψ = 2π t`).
#[inline(always)]
fn cos_sin_turns_f64(t: f64) -> (f64, f64) {
    let psi = 2.0 * core::f64::consts::PI * t;
    let cos = libm::cos(psi);
    let sin = (1.0 - cos * cos).sqrt_rn();
    (
        cos,
        if psi < core::f64::consts::PI {
            sin
        } else {
            -sin
        },
    )
}

impl McmlFloat for f32 {
    /// One rounding: IEEE 754's fused multiply-add on both backends ([`fma_f32`]).
    #[inline(always)]
    fn mul_then_add(self, b: Self, c: Self) -> Self {
        fma_f32(self, b, c)
    }
    #[inline(always)]
    fn neg_ln_uniform<R: RngCore>(rng: &mut R) -> Self {
        neg_ln_draw_f32(rng.next_u32())
    }
    #[inline(always)]
    fn azimuth<R: RngCore>(rng: &mut R) -> (Self, Self) {
        cos_sin_draw_f32(rng.next_u32())
    }
    #[inline(always)]
    fn acos_shared(self) -> Self {
        super::acos::acos_f32(self)
    }
    const COSZERO: Self = 1.0 - 1.0e-6;
    #[inline(always)]
    fn lit(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn uniform_co<R: RngCore>(rng: &mut R) -> Self {
        u32_to_f32_co(rng.next_u32())
    }
    #[inline(always)]
    fn uniform_oc<R: RngCore>(rng: &mut R) -> Self {
        u32_to_f32_oc(rng.next_u32())
    }
    #[inline(always)]
    fn to_fixed(self) -> u64 {
        // Scaling by a power of two is exact, so this rounds the f32 value itself.
        f32_to_u64_nearest(self * 4_294_967_296.0)
    }
    #[inline(always)]
    fn sqrt_rn(self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        return ptx::sqrt_rn_f32(self);
        // SSE is part of x86-64's baseline: `sqrtss` inline (libm's is an out-of-line call).
        #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
        // SAFETY: the intrinsics need SSE, which this build enables (the cfg above).
        return unsafe {
            use core::arch::x86_64::{_mm_cvtss_f32, _mm_set_ss, _mm_sqrt_ss};
            _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(self)))
        };
        #[cfg(not(any(
            target_arch = "nvptx64",
            all(target_arch = "x86_64", target_feature = "sse")
        )))]
        return libm::sqrtf(self);
    }
    #[inline(always)]
    fn sqrt_rn_in_range(self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            // The steps make NaN of 0 (0 · ∞); IEEE's root of ±0 is itself.
            let root = ptx::sqrt_steps_f32(self);
            if self == 0.0 { self } else { root }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.sqrt_rn()
    }
    #[inline(always)]
    fn sqrt_for_bin(self) -> Self {
        // Raised to 2^-100 (NaN too: `max` returns the other operand), the argument is never 0,
        // so the steps alone give `sqrt_rn_in_range`'s bits without its selection for 0, which
        // ptxas kept as a compare and a predicated step once per photon step.
        #[cfg(target_arch = "nvptx64")]
        return ptx::sqrt_steps_f32(self.max(IN_RANGE_MIN));
        #[cfg(not(target_arch = "nvptx64"))]
        return self.max(IN_RANGE_MIN).sqrt_rn();
    }
    #[inline(always)]
    fn reflectance_quotient(self, b: Self) -> Self {
        self.max(IN_RANGE_MIN).div_rn_in_range(b)
    }
    #[inline(always)]
    fn computed_here(self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let mut x = self;
            // SAFETY: a PTX comment naming one register: nothing runs; the asm only marks `x`
            // as used (and possibly changed) at this point.
            unsafe {
                core::arch::asm!(
                    "// {x} computed here",
                    x = inout(reg32) x,
                    options(nomem, nostack, preserves_flags)
                )
            };
            x
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self
    }
    #[inline(always)]
    fn div_rn_in_range(self, b: Self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        return ptx::div_steps_f32(self, b);
        #[cfg(not(target_arch = "nvptx64"))]
        return self / b;
    }
    #[inline(always)]
    fn bin_index(self, n: u32) -> u32 {
        let i = f32_to_u32(self);
        let last = n.saturating_sub(1);
        if i > last { last } else { i }
    }
}

impl McmlFloat for f64 {
    #[inline(always)]
    fn neg_ln_uniform<R: RngCore>(rng: &mut R) -> Self {
        -libm::log(u64_to_f64_oc(rng.next_u64()))
    }
    #[inline(always)]
    fn azimuth<R: RngCore>(rng: &mut R) -> (Self, Self) {
        cos_sin_turns_f64(u64_to_f64_co(rng.next_u64()))
    }
    #[inline(always)]
    fn acos_shared(self) -> Self {
        libm::acos(self)
    }
    const COSZERO: Self = 1.0 - 1.0e-12;
    #[inline(always)]
    fn lit(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn uniform_co<R: RngCore>(rng: &mut R) -> Self {
        u64_to_f64_co(rng.next_u64())
    }
    #[inline(always)]
    fn uniform_oc<R: RngCore>(rng: &mut R) -> Self {
        u64_to_f64_oc(rng.next_u64())
    }
    #[inline(always)]
    fn to_fixed(self) -> u64 {
        f64_to_u64_nearest(self * 4_294_967_296.0)
    }
    #[inline(always)]
    fn sqrt_rn(self) -> Self {
        #[cfg(target_arch = "nvptx64")]
        return ptx::sqrt_rn_f64(self);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: the intrinsics need SSE2, which this build enables (the cfg above).
        return unsafe {
            use core::arch::x86_64::{_mm_cvtsd_f64, _mm_set_sd, _mm_sqrt_pd};
            _mm_cvtsd_f64(_mm_sqrt_pd(_mm_set_sd(self)))
        };
        #[cfg(not(any(
            target_arch = "nvptx64",
            all(target_arch = "x86_64", target_feature = "sse2")
        )))]
        return libm::sqrt(self);
    }
    #[inline(always)]
    fn bin_index(self, n: u32) -> u32 {
        let i = f64_to_u32(self);
        let last = n.saturating_sub(1);
        if i > last { last } else { i }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f32 azimuth against f64 `libm` at every turn fraction a draw can give (all 2^24
    /// values `k · 2^-24`): within the bound `cos_sin_draw_f32` states, and on the unit circle
    /// to the same precision; the quadrants' edges exactly.
    #[test]
    fn f32_azimuth_matches_f64_cos_and_sin() {
        let mut worst = 0.0f64;
        for k in 0..(1u32 << 24) {
            let (c, s) = cos_sin_draw_f32(k << 8);
            let psi = 2.0 * core::f64::consts::PI * f64::from(k) / 16_777_216.0;
            let err = (f64::from(c) - libm::cos(psi))
                .abs()
                .max((f64::from(s) - libm::sin(psi)).abs());
            worst = worst.max(err);
            let norm = f64::from(c).powi(2) + f64::from(s).powi(2);
            assert!((norm - 1.0).abs() < 5e-7, "k = {k}: cos² + sin² = {norm}");
        }
        assert!(worst < 8.85e-8, "worst error {worst}");
        // The quadrants land where they should; the draw's low 8 bits are not used.
        let turn = |t: f32| cos_sin_draw_f32(((t * 16_777_216.0) as u32) << 8);
        assert_eq!(turn(0.0), (1.0, 0.0));
        assert_eq!(turn(0.25), (0.0, 1.0));
        assert_eq!(turn(0.5), (-1.0, 0.0));
        assert_eq!(turn(0.75), (0.0, -1.0));
        assert_eq!(cos_sin_draw_f32(0x1234_5600), cos_sin_draw_f32(0x1234_56ff));
    }

    /// Every value the f32 step length can take, against f64 `libm::log`: within 0.85 ulp of
    /// the exact value (the bound its docs state), and 0 exactly for `ξ = 1`.
    #[test]
    fn neg_ln_draw_is_faithful_everywhere() {
        let mut worst = 0.0f64;
        for k in 1..=(1u32 << 24) {
            let u = (k - 1) << 8;
            let got = f64::from(neg_ln_draw_f32(u));
            let exact = -libm::log(f64::from(k) / 16_777_216.0);
            let ulp = if exact == 0.0 {
                f64::from(f32::from_bits(1))
            } else {
                let e = exact as f32;
                f64::from(f32::from_bits(e.to_bits() + 1) - e)
            };
            worst = worst.max((got - exact).abs() / ulp);
        }
        assert!(worst <= 0.85, "worst error {worst} ulp");
        assert_eq!(neg_ln_draw_f32(u32::MAX), 0.0);
        // The low 8 bits of a draw are not used.
        assert_eq!(neg_ln_draw_f32(0x1234_5600), neg_ln_draw_f32(0x1234_56ff));
    }

    /// The fixed-point conversion rounds exactly as the standard library's `round_ties_even`
    /// does, at halves (both parities), at the edge where the significand runs out of fraction
    /// bits, and at out-of-range values, in both precisions.
    #[test]
    fn to_fixed_rounds_half_to_even() {
        let scale = 4_294_967_296.0;
        fn want64(v: f64) -> u64 {
            v.round_ties_even() as u64
        }
        fn want32(v: f32) -> u64 {
            v.round_ties_even() as u64
        }
        extern crate std;
        let mut cases: std::vec::Vec<f64> = std::vec![
            0.0,
            -0.0,
            0.25,
            0.5,
            1.5,
            2.5,
            0.75,
            1.0,
            -0.3,
            -0.5,
            -2.0,
            4.0e9,
            1.0e30,
            -1.0e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0 - f64::EPSILON,
        ];
        // Around 2^23 and 2^52, where the add-and-subtract stops and the value is integral.
        for p in [23, 24, 52, 53] {
            let e = 2f64.powi(p);
            cases.extend([
                e - 1.5,
                e - 0.5,
                e - 0.25,
                e,
                e + 0.5,
                e + 1.0,
                e + 2.0,
                e + 3.0,
            ]);
        }
        for k in 0..2000u32 {
            let x = f64::from(k) + 0.5;
            cases.extend([x, x + 1e-9, 0.123_456_789 * f64::from(k) * scale]);
        }
        for &v in &cases {
            assert_eq!((v / scale).to_fixed(), want64(v), "{v:e}");
            let v32 = v as f32;
            assert_eq!((v32 / scale as f32).to_fixed(), want32(v32), "{v32:e}");
        }
    }

    /// f64 keeps MCML's formula: `sin` takes its sign from the half turn.
    #[test]
    fn f64_turns_keep_mcml_sign_rule() {
        for t in [0.1, 0.3, 0.6, 0.9] {
            let (c, s) = cos_sin_turns_f64(t);
            let psi = 2.0 * core::f64::consts::PI * t;
            assert_eq!(c, libm::cos(psi));
            assert!((s - libm::sin(psi)).abs() < 1e-7);
        }
    }
}

#[cfg(test)]
mod in_range_tests {
    use super::*;

    /// Raising a squared radius to 2^-100 never moves a radius into another bin of a grid whose
    /// `dr` is above 2^-50 cm, down to zero and the subnormals.
    #[test]
    fn the_binning_root_picks_the_exact_roots_bin() {
        for dr in [1.0e-4f32, 0.01, 0.5] {
            let inv_dr = 1.0 / dr;
            let tiny = [
                0.0,
                f32::from_bits(1),
                1.0e-40,
                1.0e-30,
                IN_RANGE_MIN,
                1.0e-20,
            ];
            for r2 in tiny
                .into_iter()
                .chain((0..200).map(|i| 1.0e-9 * 1.37f32.powi(i)))
            {
                let exact = (r2.sqrt_rn() * inv_dr).bin_index(1000);
                let binned = (r2.sqrt_for_bin() * inv_dr).bin_index(1000);
                assert_eq!(binned, exact, "r² = {r2:e}, dr = {dr}");
            }
        }
    }
}
