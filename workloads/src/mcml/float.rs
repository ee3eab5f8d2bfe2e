//! The float abstraction of the MCML physics: f32 (speed on GPUs) or f64 (MCML's own precision).

use num_traits::Float;
use rand_core::RngCore;

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
    /// `round(self · 2^32)` as an integer weight ([`FIXED_ONE`] = one packet); negative or NaN
    /// values give 0 and huge ones saturate.
    fn to_fixed(self) -> u64;
    /// `cos` above which a direction counts as along ±z (MCML's `COSZERO`): `1 − 1e-12` in f64
    /// as MCML, `1 − 1e-6` in f32 as CUDAMCML (`1 − 1e-12` rounds to 1 in f32, and then
    /// `uz = ±1` would divide by `sqrt(1 − uz²) = 0` in the spin).
    const COSZERO: Self;
    /// `trunc(self)` clamped into `0 ..= n - 1`: MCML's grid index with the overflow bin last.
    fn bin_index(self, n: u32) -> u32;
    /// Natural logarithm from the `libm` crate, on every target.
    ///
    /// Not `Float::ln`: when any crate of a build turns on `num-traits`' `std` feature (test
    /// and bench dependencies do), `Float::ln` becomes the platform's `logf`, whose last bit
    /// may differ from the GPU's. The transcendental functions here always call `libm`, the
    /// same code the GPU runs. (`sqrt` is correctly rounded everywhere and needs no such care.)
    fn ln_shared(self) -> Self;
    /// Cosine and sine of `2π · self`, for a fraction of a turn `self` in `[0, 1)`: the
    /// azimuth of a scattering (MCML's `Spin`, `ψ = 2π ξ`).
    ///
    /// f64 keeps MCML's own code: `cos ψ` from `libm`, `sin ψ = ±sqrt(1 − cos² ψ)` with the
    /// sign of `ψ < π`. f32 evaluates both on the GPU's terms: the turn is split exactly into
    /// a quadrant and a remainder of at most an eighth of a turn (`4 · self` is exact, and so
    /// is subtracting the nearest integer from it), and two short Taylor polynomials take it
    /// from there (truncation below 3e-8, tested within 2.5e-7 of f64). Neither needs
    /// `cosf`'s reduction of large arguments, whose code and 500-byte stack frame the GPU
    /// kernel would otherwise carry for arguments MCML never passes; plain f32 arithmetic keeps
    /// CPU and GPU bit-identical.
    fn cos_sin_turns(self) -> (Self, Self);
    /// Arc cosine from the `libm` crate (see [`McmlFloat::ln_shared`]).
    fn acos_shared(self) -> Self;
}

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

impl McmlFloat for f32 {
    #[inline(always)]
    fn ln_shared(self) -> Self {
        libm::logf(self)
    }
    #[inline(always)]
    fn cos_sin_turns(self) -> (Self, Self) {
        // θ = 2π t = (π/2)(n + r): quadrant n, remainder r in [-1/2, 1/2] (x = r π/2 within
        // ±π/4). `q + 0.5` may round at a quadrant's edge; `q - n` stays exact either way.
        let q = self * 4.0;
        let n = (q + 0.5) as u32;
        let r = q - n as f32;
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
        let cos = 1.0 + u * (C[0] + u * (C[1] + u * (C[2] + u * C[3])));
        let sin = r * (S[0] + u * (S[1] + u * (S[2] + u * (S[3] + u * S[4]))));
        match n & 3 {
            0 => (cos, sin),
            1 => (-sin, cos),
            2 => (-cos, -sin),
            _ => (sin, -cos),
        }
    }
    #[inline(always)]
    fn acos_shared(self) -> Self {
        libm::acosf(self)
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
        Float::round(self * 4_294_967_296.0) as u64
    }
    #[inline(always)]
    fn bin_index(self, n: u32) -> u32 {
        let i = self as u32;
        let last = n.saturating_sub(1);
        if i > last { last } else { i }
    }
}

impl McmlFloat for f64 {
    #[inline(always)]
    fn ln_shared(self) -> Self {
        libm::log(self)
    }
    #[inline(always)]
    fn cos_sin_turns(self) -> (Self, Self) {
        let psi = 2.0 * core::f64::consts::PI * self;
        let cos = libm::cos(psi);
        let sin = (1.0 - cos * cos).sqrt();
        (
            cos,
            if psi < core::f64::consts::PI {
                sin
            } else {
                -sin
            },
        )
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
        Float::round(self * 4_294_967_296.0) as u64
    }
    #[inline(always)]
    fn bin_index(self, n: u32) -> u32 {
        let i = self as u32;
        let last = n.saturating_sub(1);
        if i > last { last } else { i }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f32 azimuth against f64 `libm` at every 2^-20 of a turn (and the turn's edges):
    /// within 2.5e-7 (about 2 ulp of 1), and on the unit circle to the same precision.
    #[test]
    fn f32_turns_match_f64_cos_and_sin() {
        let mut worst = 0.0f64;
        let steps = 1u32 << 20;
        let edges = [0.125f32, 0.25, 0.375, 0.5, 0.75, 1.0 - f32::EPSILON / 2.0];
        for t in (0..steps)
            .map(|i| i as f32 / steps as f32)
            .chain(edges.iter().copied())
        {
            let (c, s) = t.cos_sin_turns();
            let psi = 2.0 * core::f64::consts::PI * f64::from(t);
            let err = (f64::from(c) - libm::cos(psi))
                .abs()
                .max((f64::from(s) - libm::sin(psi)).abs());
            worst = worst.max(err);
            let norm = f64::from(c).powi(2) + f64::from(s).powi(2);
            assert!((norm - 1.0).abs() < 5e-7, "t = {t}: cos² + sin² = {norm}");
        }
        assert!(worst < 2.5e-7, "worst error {worst}");
        // The quadrants land where they should.
        assert_eq!(0.0f32.cos_sin_turns(), (1.0, 0.0));
        assert_eq!(0.25f32.cos_sin_turns(), (0.0, 1.0));
        assert_eq!(0.5f32.cos_sin_turns(), (-1.0, 0.0));
        assert_eq!(0.75f32.cos_sin_turns(), (0.0, -1.0));
    }

    /// f64 keeps MCML's formula: `sin` takes its sign from the half turn.
    #[test]
    fn f64_turns_keep_mcml_sign_rule() {
        for t in [0.1, 0.3, 0.6, 0.9] {
            let (c, s) = f64::cos_sin_turns(t);
            let psi = 2.0 * core::f64::consts::PI * t;
            assert_eq!(c, libm::cos(psi));
            assert!((s - libm::sin(psi)).abs() < 1e-7);
        }
    }
}
