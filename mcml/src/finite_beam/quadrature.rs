//! Adaptive Simpson quadrature of a two-component integrand, the integration rule of the beam
//! convolution.
//!
//! CONV integrates with Numerical Recipes' `qtrap` (the trapezoidal rule refined until two
//! successive estimates differ by less than a relative `eps`, 0.1 by default). Here the
//! integrands are smooth kernels on short pieces (see [`super::convolution`]), which adaptive
//! Simpson integrates to a much tighter tolerance for few evaluations: an interval is accepted
//! when its two halves' sum differs from the whole interval's Simpson estimate by at most
//! `15 · tol` (the estimate is then Richardson-corrected), else each half is integrated to
//! `tol / 2`.

/// Deepest bisection: an interval `2^-MAX_DEPTH` of the piece is accepted as it is.
const MAX_DEPTH: u32 = 40;

/// `∫_a^b f(x) dx` for a two-component `f`, to an absolute error of about `tol` on the sum of
/// the two components (the components of the convolution are both ≥ 0).
pub(crate) fn simpson2(f: &impl Fn(f64) -> [f64; 2], a: f64, b: f64, tol: f64) -> [f64; 2] {
    if b <= a {
        return [0.0, 0.0];
    }
    let m = 0.5 * (a + b);
    let (fa, fm, fb) = (f(a), f(m), f(b));
    let whole = simpson(a, b, fa, fm, fb);
    refine(f, a, b, fa, fm, fb, whole, tol, MAX_DEPTH)
}

fn simpson(a: f64, b: f64, fa: [f64; 2], fm: [f64; 2], fb: [f64; 2]) -> [f64; 2] {
    let h = (b - a) / 6.0;
    [
        h * (fa[0] + 4.0 * fm[0] + fb[0]),
        h * (fa[1] + 4.0 * fm[1] + fb[1]),
    ]
}

#[allow(clippy::too_many_arguments)]
fn refine(
    f: &impl Fn(f64) -> [f64; 2],
    a: f64,
    b: f64,
    fa: [f64; 2],
    fm: [f64; 2],
    fb: [f64; 2],
    whole: [f64; 2],
    tol: f64,
    depth: u32,
) -> [f64; 2] {
    let m = 0.5 * (a + b);
    let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
    let (flm, frm) = (f(lm), f(rm));
    let left = simpson(a, m, fa, flm, fm);
    let right = simpson(m, b, fm, frm, fb);
    let delta = [left[0] + right[0] - whole[0], left[1] + right[1] - whole[1]];
    let err = (delta[0] + delta[1])
        .abs()
        .max(delta[0].abs())
        .max(delta[1].abs());
    // Interval too small to split further (`m` equals an end in floating point): take it.
    if depth == 0 || err <= 15.0 * tol || !(a < m && m < b) {
        return [
            left[0] + right[0] + delta[0] / 15.0,
            left[1] + right[1] + delta[1] / 15.0,
        ];
    }
    let l = refine(f, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1);
    let r = refine(f, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1);
    [l[0] + r[0], l[1] + r[1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_smooth_and_kinked_functions_to_the_tolerance() {
        let f = |x: f64| [x.exp(), x.sin()];
        let [e, s] = simpson2(&f, 0.0, 1.0, 1e-12);
        assert!((e - (1f64.exp() - 1.0)).abs() < 1e-11);
        assert!((s - (1.0 - 1f64.cos())).abs() < 1e-11);
        // A square-root edge (the flat beam's overlap at its rim).
        let g = |x: f64| [(1.0 - x).max(0.0).sqrt(), 0.0];
        let [r, _] = simpson2(&g, 0.0, 1.0, 1e-10);
        assert!((r - 2.0 / 3.0).abs() < 1e-8, "{r}");
    }
}
