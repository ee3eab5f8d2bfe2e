//! f32's arc cosine for MCML's exit-angle bin: `libm`'s `acosf` (FreeBSD's `e_acosf.c`) with
//! the hardware's correctly rounded square root, which gives the same bits.
//!
//! `libm` takes its own software `sqrtf` on every target. On the GPU that is about 50 integer
//! instructions (a table lookup and Newton steps in fixed point), issued by a warp for the one
//! lane whose photon leaves the tissue: 1.2 % of the bit-identical kernel's issue slots on skin.
//! IEEE 754 fixes the square root bit for bit, so the hardware's correctly rounded one
//! ([`McmlFloat::sqrt_rn`]: `sqrt.rn` on the GPU, `sqrtss` on x86-64) returns what `sqrtf`
//! returns, and the rest is `libm`'s code line for line, so every result is `libm::acosf`'s
//! (the test below compares them over a sweep of every binade of `[-1, 1]`). The IEEE
//! instructions themselves, not their Newton steps without range checks
//! ([`McmlFloat::sqrt_rn_in_range`]): the device crate's test keeps every approximate
//! instruction out of the kernel that checks MCML's f32 math against the CPU's, and this is a
//! rare path.
//!
//! The original's notice, which its licence asks to keep:
//!
//! ```text
//! Conversion to float by Ian Lance Taylor, Cygnus Support, ian@cygnus.com.
//!
//! Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//!
//! Developed at SunPro, a Sun Microsystems, Inc. business.
//! Permission to use, copy, modify, and distribute this
//! software is freely granted, provided that this notice
//! is preserved.
//! ```

use super::McmlFloat;

// `libm`'s constants (its decimal literals, as f32 bits).
const PIO2_HI: f32 = f32::from_bits(0x3fc9_0fda); // 1.5707962513e+00
const PIO2_LO: f32 = f32::from_bits(0x33a2_2168); // 7.5497894159e-08
const P_S0: f32 = f32::from_bits(0x3e2a_aa75); // 1.6666586697e-01
const P_S1: f32 = f32::from_bits(0xbd2f_13ba); // -4.2743422091e-02
const P_S2: f32 = f32::from_bits(0xbc0d_d36b); // -8.6563630030e-03
const Q_S1: f32 = f32::from_bits(0xbf34_e5ae); // -7.0662963390e-01

/// `libm`'s rational approximation.
#[inline(always)]
fn r(z: f32) -> f32 {
    let p = z * (P_S0 + z * (P_S1 + z * P_S2));
    let q = 1. + z * Q_S1;
    p / q
}

/// `libm::acosf(x)`, bit for bit, with the hardware's square root: see the [module docs](self).
///
/// Inlined on the GPU (a call there spills the caller's registers); a call on the CPU, as
/// `libm::acosf` was: inlined into the three escape tallies of the photon loop, it made the
/// CPU's loop 9 % slower (a rare path's code among the hot one's).
#[cfg_attr(target_arch = "nvptx64", inline(always))]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never))]
#[allow(clippy::eq_op)] // `libm`'s `0 / (x − x)`, kept as written.
pub(super) fn acos_f32(x: f32) -> f32 {
    let x1p_120 = f32::from_bits(0x0380_0000); // 2^-120
    let hx = x.to_bits();
    let ix = hx & 0x7fff_ffff;
    // |x| >= 1 or NaN.
    if ix >= 0x3f80_0000 {
        if ix == 0x3f80_0000 {
            if (hx >> 31) != 0 {
                return 2. * PIO2_HI + x1p_120;
            }
            return 0.;
        }
        // `libm`'s NaN, raising the invalid flag. Its bits differ between a CPU (x86: the
        // negative "indefinite" NaN) and the GPU (the canonical one), which no result sees:
        // the exit angle's bin of a NaN is 0 on both.
        return 0. / (x - x);
    }
    // |x| < 0.5.
    if ix < 0x3f00_0000 {
        if ix <= 0x3280_0000 {
            // |x| < 2^-26.
            return PIO2_HI + x1p_120;
        }
        return PIO2_HI - (x - (PIO2_LO - x * r(x * x)));
    }
    if (hx >> 31) != 0 {
        // x < -0.5.
        let z = (1. + x) * 0.5;
        let s = z.sqrt_rn();
        let w = r(z) * s - PIO2_LO;
        return 2. * (PIO2_HI - (s + w));
    }
    // x > 0.5.
    let z = (1. - x) * 0.5;
    let s = z.sqrt_rn();
    let df = f32::from_bits(s.to_bits() & 0xffff_f000);
    let c = (z - df * df) / (s + df);
    let w = r(z) * s + c;
    2. * (df + w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 251st float of `[0, 1]` and its negative (about 8.5 million values, in every
    /// binade), and the edges of each branch: the bits of `libm::acosf`.
    #[test]
    fn acos_f32_is_libms_acosf() {
        let edges = [
            0.0f32,
            f32::from_bits(0x3280_0000),
            f32::from_bits(0x3280_0001),
            f32::from_bits(0x3eff_ffff),
            0.5,
            f32::from_bits(0x3f00_0001),
            f32::from_bits(0x3f7f_ffff),
            1.0,
            f32::from_bits(0x3f80_0001),
            f32::INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
        ];
        let sweep = (0..=0x3f80_0000u32).step_by(251).map(f32::from_bits);
        for x in edges.into_iter().chain(sweep) {
            for v in [x, -x] {
                let (got, want) = (acos_f32(v), libm::acosf(v));
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "acos({v:e}) = {got:e}, libm {want:e}"
                );
            }
        }
    }
}
