//! MCML photon transport (Monte Carlo for multi-layered media), `no_std` and panic-free, shared
//! by the CPU and GPU backends.
//!
//! - [`McmlParams`]: layers, grid and constants as plain `Copy` data (a kernel parameter).
//! - [`Photon`] and the step API [`launch`], [`prepare_step`], [`boundary`], [`interact`],
//!   [`roulette`], [`alive`]: MCML 1.2's photon life split at its main branch so warp-level
//!   strategies can drive it (seed 002, fig. 8 and 9).
//! - [`Tally`]: integer fixed-point scoring ([`FIXED_ONE`] = one packet), so sums do not depend
//!   on accumulation order, thread count or backend.
//! - [`McmlFloat`]: f32 or f64; the same math on the CPU and the GPU: IEEE operations, own
//!   polynomials (f32 logarithm and azimuth) and `libm`, for identical bits everywhere.
//! - [`FastF32`]: the opt-in fast-math float. On the GPU its division, square root, step
//!   logarithm and azimuth use PTX's approximate instructions (`div.approx`, `sqrt.approx`,
//!   `lg2.approx`, `sin`/`cos.approx`, flushing subnormals), each within a stated bound. Everywhere else it is f32,
//!   bit for bit.

/// Safe wrappers of single PTX arithmetic instructions on registers, one line each:
/// `fn name(a, b): f32, reg32 = "div.approx.ftz.f32 {r}, {a}, {b};";` (the result is `{r}`).
#[cfg(target_arch = "nvptx64")]
macro_rules! ptx_instructions {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident),+): $t:ty, $reg:ident = $ins:literal;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name($($arg: $t),+) -> $t {
            let r: $t;
            // SAFETY: one arithmetic instruction on registers; no memory, no side effects.
            unsafe {
                core::arch::asm!(
                    $ins,
                    r = out($reg) r,
                    $($arg = in($reg) $arg,)+
                    options(pure, nomem, nostack)
                );
            }
            r
        }
    )*};
}

mod acos;
pub mod fast_math;
mod float;
#[macro_use]
mod fused;
mod params;
mod photon;
mod select;
mod tally;
mod warp_loop;

pub use fast_math::{
    FastF32, fast_cos_sin_draw_f32, fast_div_f32, fast_neg_ln_draw_f32, fast_sqrt_f32,
};
pub use float::{
    FIXED_ONE, IN_RANGE_MAX, IN_RANGE_MIN, McmlFloat, cos_sin_draw_f32, neg_ln_draw_f32,
};
pub use fused::fma_f32;
pub use params::{
    Beam, BeamError, Face, Grid, GridSpec, HenyeyGreenstein, Layer, LayerSpec, MAX_LAYERS,
    McmlParams, ParamError, ROULETTE_CHANCE, ROULETTE_THRESHOLD, StepView,
};
pub use photon::{
    LayerConstants, Photon, Steps, alive, boundary, boundary_distributed, choose_step, fresnel,
    interact, launch, prepare_step, roulette, simulate_photon, spin_theta, take_step,
};
pub use tally::{SliceTally, Tally, TallyBin, TallyLayout};
pub use warp_loop::{
    CollectedBoundary, DistributedBoundary, MCML_REGIONS, McmlKernel, McmlLoop, McmlProgram,
    McmlSteps,
};
