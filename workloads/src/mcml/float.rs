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
    /// Cosine from the `libm` crate (see [`McmlFloat::ln_shared`]).
    fn cos_shared(self) -> Self;
    /// Arc cosine from the `libm` crate (see [`McmlFloat::ln_shared`]).
    fn acos_shared(self) -> Self;
}

impl McmlFloat for f32 {
    #[inline(always)]
    fn ln_shared(self) -> Self {
        libm::logf(self)
    }
    #[inline(always)]
    fn cos_shared(self) -> Self {
        libm::cosf(self)
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
    fn cos_shared(self) -> Self {
        libm::cos(self)
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
