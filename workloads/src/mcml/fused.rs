//! `a · b + c` rounded once (IEEE 754 `fusedMultiplyAdd`), the same bits on every backend.
//!
//! IEEE 754 fixes the fused result as it fixes a sum or a product, so the GPU's `fma.rn.f32`
//! and a CPU's FMA instruction agree bit for bit without sharing code. A fused step is one
//! instruction on the GPU where a product and a sum are two, and it is at least as accurate.
//! MCML's exact f32 physics writes its products-then-sums and its polynomials with it.
//!
//! On a CPU the instruction needs code compiled for it: `with_host_fma!` declares a function
//! with such a copy, taken where the processor has FMA, and code outside one calls the platform's
//! correctly rounded `fmaf` (slower, the same bits).

/// `a · b + c` with one rounding.
///
/// On the GPU one `fma.rn.f32`. On a CPU std's [`f32::mul_add`], LLVM's `fma` intrinsic: one
/// instruction in code compiled for a processor with FMA (see `with_host_fma!`), a call to
/// the platform's correctly rounded `fmaf` elsewhere. Either way the same bits.
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return ptx::fma_rn(a, b, c);
    #[cfg(not(target_arch = "nvptx64"))]
    return a.mul_add(b, c);
}

/// Declares a function that runs `body` (an `#[inline(always)]` function with the same
/// signature) compiled for the FMA instruction when this processor has it, so that the
/// [`fma_f32`]s it inlines are one instruction each instead of a library call: the same bits
/// either way, only faster. MCML's step functions, which a strategy calls once per lane and
/// step, and its photon loop are declared so.
///
/// On x86-64 the function is std's check (a cached answer) and two copies of `body`, one with
/// the `fma` target feature, taken when the processor has FMA (every x86-64 processor since
/// 2013). Without it, a generic build calls `fmaf` for every fused operation and keeps the
/// loop's floats in memory around the calls: MCML's photon loop ran 2.1 times slower that way
/// than unfused, and 0.75 times as long as unfused with the copy. `body` must be
/// `#[inline(always)]` (a closure would not be inlined into the copy, which then calls
/// `fmaf` again). A build that assumes FMA (`-C target-cpu=native`) has no check; other
/// targets (the GPU; AArch64, whose FMA is in the base instruction set) just call `body`.
macro_rules! with_host_fma {
    (
        $(#[$meta:meta])*
        pub fn $name:ident<$($g:ident: $bound:path),*>($($arg:ident: $t:ty),* $(,)?)
            $(-> $ret:ty)? = $body:ident;
    ) => {
        $(#[$meta])*
        #[inline]
        pub fn $name<$($g: $bound),*>($($arg: $t),*) $(-> $ret)? {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
            if std::is_x86_feature_detected!("fma") {
                #[target_feature(enable = "fma")]
                fn compiled_with_fma<$($g: $bound),*>($($arg: $t),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                // SAFETY: the processor has FMA (checked just above).
                return unsafe { compiled_with_fma($($arg),*) };
            }
            $body($($arg),*)
        }
    };
}

#[cfg(target_arch = "nvptx64")]
mod ptx {
    ptx_instructions! {
        /// IEEE 754 `fusedMultiplyAdd`, round to nearest even.
        fn fma_rn(a, b, c): f32, reg32 = "fma.rn.f32 {r}, {a}, {b}, {c};";
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused result against an exact reference: with `a`, `b` and `c` in `[2^-4, 2^4)` and
    /// `b` of 12 significant bits, `a · b + c` spans at most 51 bits, so f64 holds it exactly
    /// and one rounding to f32 is the fused result. The product has up to 36 bits, so a
    /// product rounded to f32 first often differs: the reason to fuse, checked to occur.
    #[inline(always)]
    fn fused_twice_body(a: f32, b: f32, c: f32) -> f32 {
        fma_f32(a, b, c)
    }
    with_host_fma! {
        pub fn fused_twice<>(a: f32, b: f32, c: f32) -> f32 = fused_twice_body;
    }

    #[test]
    fn fused_is_rounded_once() {
        let mut state = 0x9e37_79b9u32;
        let mut differs_from_two_roundings = 0;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let f = |s: u32| f32::from_bits((s & 0x807f_ffff) | ((0x7b + (s >> 23) % 8) << 23));
            let (a, b, c) = (f(state), f(state.rotate_left(9)), f(state.rotate_left(19)));
            let b = f32::from_bits(b.to_bits() & !0xfff);
            let exact = f64::from(a) * f64::from(b) + f64::from(c);
            let got = fma_f32(a, b, c);
            assert_eq!(got.to_bits(), (exact as f32).to_bits(), "{a:e} {b:e} {c:e}");
            // The copy compiled for the FMA instruction gives the library call's bits.
            let copied = fused_twice(a, b, c);
            assert_eq!(got.to_bits(), copied.to_bits(), "{a:e} {b:e} {c:e}");
            if got != a * b + c {
                differs_from_two_roundings += 1;
            }
        }
        assert!(differs_from_two_roundings > 1000);
        assert!(fma_f32(f32::NAN, 1.0, 1.0).is_nan());
        assert_eq!(fma_f32(f32::INFINITY, 2.0, -1.0), f32::INFINITY);
    }
}
