//! Choices between two computed values that a GPU warp makes by selection and a CPU by branch.
//!
//! Where nearly every lane of a warp takes the same side of a choice (a step drawn afresh, a
//! layer's anisotropy), a branch costs the warp a convergence region every step though it
//! saves it nothing; computing both sides and selecting costs it no more than the side it
//! takes. On the CPU the branch is predicted and the side not taken is free, and the
//! selection's extra work and longer dependency chains made MCML's CPU loop up to 11 % slower
//! (measured side by side with `farm-bench`). Both forms run the same operations on the same
//! operands, so they give the same bits; the device check compares the GPU's with the CPU's.

use super::McmlFloat;

/// `if take { draw(rng) } else { otherwise }`, advancing `rng` only where it draws.
///
/// On the GPU the draw is made for every lane on a copy of its stream
/// ([`McmlFloat::computed_here`], so that LLVM does not move it back into a branch) and kept
/// where taken; each stream is used exactly as by the branch.
#[inline(always)]
pub(super) fn draw_where<F: McmlFloat, R: Copy>(
    take: bool,
    rng: &mut R,
    draw: impl FnOnce(&mut R) -> F,
    otherwise: F,
) -> F {
    #[cfg(target_arch = "nvptx64")]
    {
        let mut drawn = *rng;
        let fresh = draw(&mut drawn).computed_here();
        if take {
            *rng = drawn;
        }
        if take { fresh } else { otherwise }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if take { draw(rng) } else { otherwise }
    }
}

/// `if c { a() } else { b() }`: on the GPU both computed, `a` first, and one selected (a
/// caller keeps a value computed with [`McmlFloat::computed_here`] where LLVM would move it
/// into a branch).
#[inline(always)]
pub(super) fn either<F: McmlFloat>(c: bool, a: impl FnOnce() -> F, b: impl FnOnce() -> F) -> F {
    #[cfg(target_arch = "nvptx64")]
    {
        let (a, b) = (a(), b());
        if c { a } else { b }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if c { a() } else { b() }
    }
}
