//! CONV's convolution of a pencil-beam (impulse) response over a Gaussian or flat beam.
//!
//! # The integrals (Wang, Jacques & Zheng 1997; CONV 1.1's `convconv.c`)
//!
//! A response `G(r)` to a pencil beam at the origin (`Rd_r`, `Tt_r`, or one depth of `A_rz`),
//! convolved with a cylindrically symmetric beam `S` of total power `P`, is
//! `C(r) = ∫∫ G(|r⃗ − r⃗''|) S(r'') d²r''`, which in polar coordinates about the point of
//! interest becomes one integral over the impulse response's radius `r''` (the azimuthal
//! integral done in closed form):
//!
//! - Gaussian beam, `S(r) = 2P/(πR²) · exp(−2r²/R²)`:
//!   `C(r) = 4P/R² ∫ G(r'') · exp(−2(r − r'')²/R²) · I0e(4 r r''/R²) · r'' dr''`, where
//!   `I0e(x) = I0(x)·exp(−x)` is the exponentially scaled modified Bessel function of order 0
//!   (CONV's `ExpBessI0`: `exp(−2(r² + r''²)/R²) · I0(4rr''/R²)` regrouped so that nothing
//!   overflows; `spec_math`'s Cephes `i0e` here). CONV integrates over
//!   `r − 4R ≤ r'' ≤ r + 4R` only (`GAUSSLIMIT`, where the kernel has fallen to `e^-32`).
//! - Flat beam, `S(r) = P/(πR²)` for `r ≤ R`:
//!   `C(r) = 2P/R² ∫ G(r'') · Iθ(r, r'', R) · r'' dr''` over `|r − R| ≤ r'' ≤ r + R` (and
//!   `0 ≤ r'' < R − r` where `Iθ = 1`), with `Iθ = acos((r² + r''² − R²)/(2 r r''))/π`, the
//!   fraction of the circle of radius `r''` about the point that lies inside the beam.
//!
//! # The impulse response between and beyond the grid's points (CONV's `RT_rInterp`)
//!
//! `G` is known at the bin centres `(i + ½)·dr`. Between two centres it is interpolated
//! linearly; below the first centre (towards `r'' = 0`) the line through the first two bins is
//! extrapolated; above the second-to-last centre, the line through bins `nr − 3` and `nr − 2`
//! is extrapolated when it falls (CONV's noise test) and `G = 0` otherwise; the last bin, which
//! collects all the weight beyond the grid, is never used, and the integral stops at
//! `(nr − ½)·dr`. Negative values are taken as 0. With fewer than 3 bins `G` is the first
//! bin's value everywhere.
//!
//! # The integration
//!
//! CONV evaluates the integrand, interpolation and kernel together, with the trapezoidal rule to
//! a relative error of 0.1 by default. Since `G` is linear on each piece between two nodes,
//! here the integral over a piece is `G(left)·m₀ + G(right)·m₁`, with the kernel's moments
//! `m₀ = ∫ K·r''·(t₁ − r'')/h`, `m₁ = ∫ K·r''·(r'' − t₀)/h` over the piece: the same integral,
//! with the quadrature (adaptive Simpson, below) applied to the smooth kernel only, once per
//! output radius and shared by every depth of `A_rz`. Pieces are cut at the flat kernel's
//! kinks (`R − r`) and into spans of at most `R/4`, so a beam much narrower than a bin is not
//! missed. The tolerance ([`super::ConvolveOptions::tolerance`], 10⁻⁶ by default) bounds the
//! kernel's integrated weight error: `|error of C(r)| ≤ tolerance · max G` over the beam. An
//! end piece whose extrapolated line crosses zero is integrated directly over its positive part.

use reconverge_workloads::mcml::Beam;

use super::quadrature::simpson2;

/// How far from the point of interest the Gaussian kernel is integrated, in 1/e² radii
/// (CONV's `GAUSSLIMIT`): the kernel there is `e^-32 ≈ 1.3e-14` of its peak.
pub const GAUSS_LIMIT: f64 = 4.0;

/// How the impulse response is taken between the grid's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// CONV's: linear between bin centres, extrapolated towards `r = 0` and past the
    /// second-to-last bin (see the module docs). Smooth, and CONV's numbers; but it does not
    /// keep a bin's weight: a response peaked on the axis within the first bin (the pencil
    /// beam's first interactions, its unscattered transmission) gets up to 12.5 % more weight
    /// than the bin holds (all of a delta's `W` becomes `1.125 W`).
    #[default]
    Conv,
    /// Each bin's value over its whole annulus `[i·dr, (i + 1)·dr)` (the last, overflow bin
    /// not used): the exact convolution of the tallied bins, keeping every bin's weight, and
    /// its output is each output bin's average over its annulus, as MCML's tallies (and a
    /// beam sampled in the simulation) are, not the value at the bin's centre: across a flat
    /// beam's edge, where the response falls by a factor of several within one bin near the
    /// surface, a centre's value is not the bin's. What remains is the input bins' blur: the
    /// pencil beam's response spread evenly over each of its annuli moves the flat beam's
    /// edge by up to one input bin, felt in the two output bins either side of `r = R` at the
    /// depths where the pencil response is narrower than a bin (`tests/finite_beam.rs`: -8 % /
    /// +15 % near the surface of a slab on the output's grid, within Monte Carlo noise from a
    /// pencil grid 4x finer).
    Bins,
}

/// Longest span the quadrature starts from, in beam radii.
const MAX_SPAN_RADII: f64 = 0.25;

/// Gauss-Legendre's 6 nodes and weights on [-1, 1]: exact for polynomials of degree 11, for
/// the smooth pieces of a convolved profile between its kinks.
const GAUSS_LEGENDRE_6: [(f64, f64); 6] = [
    (-0.932_469_514_203_152, 0.171_324_492_379_170),
    (-0.661_209_386_466_265, 0.360_761_573_048_139),
    (-0.238_619_186_083_197, 0.467_913_934_572_691),
    (0.238_619_186_083_197, 0.467_913_934_572_691),
    (0.661_209_386_466_265, 0.360_761_573_048_139),
    (0.932_469_514_203_152, 0.171_324_492_379_170),
];

/// The beam's kernel: what multiplies `G(r'') · r''` in the integral, and the constant in
/// front.
#[derive(Clone, Copy, Debug)]
struct Kernel {
    beam: Beam,
    radius: f64,
}

impl Kernel {
    fn new(beam: Beam) -> Option<Self> {
        beam.radius().map(|radius| Self { beam, radius })
    }

    /// `4P/R²` (Gaussian) or `2P/R²` (flat).
    fn prefactor(&self, power: f64) -> f64 {
        let r2 = self.radius * self.radius;
        match self.beam {
            Beam::Gaussian { .. } => 4.0 * power / r2,
            _ => 2.0 * power / r2,
        }
    }

    /// `∫₀^∞ K(r, x)·x dx` for any `r`: the reciprocal of the prefactor at `P = 1`.
    fn norm(&self) -> f64 {
        1.0 / self.prefactor(1.0)
    }

    fn eval(&self, r: f64, x: f64) -> f64 {
        let rr = self.radius;
        match self.beam {
            Beam::Gaussian { .. } => {
                let d = (r - x) / rr;
                (-2.0 * d * d).exp() * spec_math::cephes64::i0e(4.0 * r * x / (rr * rr))
            }
            _ => i_theta(r, x, rr),
        }
    }

    /// The `r''` range that contributes at `r` (before the grid's end cuts it).
    fn window(&self, r: f64) -> (f64, f64) {
        let w = match self.beam {
            Beam::Gaussian { .. } => GAUSS_LIMIT * self.radius,
            _ => self.radius,
        };
        ((r - w).max(0.0), r + w)
    }

    /// Where the kernel has a kink inside its window: the flat beam's `R − r` (inside it
    /// `Iθ = 1`).
    fn kink(&self, r: f64) -> Option<f64> {
        match self.beam {
            Beam::Flat { .. } if r < self.radius => Some(self.radius - r),
            _ => None,
        }
    }
}

/// CONV's `ITheta`: the fraction of the circle of radius `x` about a point at distance `r`
/// from the beam's axis that lies inside a flat beam of radius `big_r`.
fn i_theta(r: f64, x: f64, big_r: f64) -> f64 {
    if big_r >= r + x {
        1.0
    } else if (r - x).abs() <= big_r {
        let c = ((r * r + x * x - big_r * big_r) / (2.0 * r * x)).clamp(-1.0, 1.0);
        c.acos() / std::f64::consts::PI
    } else {
        0.0
    }
}

/// One piece's share of one output radius: `value = prefactor · (a·m₀ + b·m₁)` for the
/// piece's end values `a`, `b`, integrated over `[lo, hi]` of the piece.
#[derive(Clone, Copy, Debug)]
struct Term {
    piece: u32,
    lo: f64,
    hi: f64,
    m: [f64; 2],
}

/// The convolution of radial profiles on one input grid to one set of output radii, for one
/// beam: the kernel's moments computed once ([`RadialConvolution::new`]), applied to any
/// number of profiles ([`RadialConvolution::apply`]).
#[derive(Clone, Debug)]
pub struct RadialConvolution {
    kernel: Kernel,
    interpolation: Interpolation,
    power: f64,
    tolerance: f64,
    dr: f64,
    nr: u32,
    radii: Vec<f64>,
    rows: Vec<Vec<Term>>,
}

impl RadialConvolution {
    /// The convolution of profiles of `nr` bins of width `dr` (cm) with `beam` of total power
    /// `power`, evaluated at `radii` (cm), to `tolerance` (see the module docs). `None` for
    /// the pencil beam (there is nothing to convolve). The caller checks the arguments
    /// ([`super::convolve`] does).
    pub fn new(
        dr: f64,
        nr: u32,
        beam: Beam,
        power: f64,
        radii: &[f64],
        tolerance: f64,
        interpolation: Interpolation,
    ) -> Option<Self> {
        let kernel = Kernel::new(beam)?;
        let mut this = Self {
            kernel,
            interpolation,
            power,
            tolerance,
            dr,
            nr,
            radii: radii.to_vec(),
            rows: Vec::with_capacity(radii.len()),
        };
        for &r in radii {
            let row = this.row(r);
            this.rows.push(row);
        }
        Some(this)
    }

    /// [`Interpolation::Bins`]' convolution onto the output bins `[i·drc, (i + 1)·drc)`,
    /// `i < nrc`: each value the average over its bin's annulus (area-weighted), by Gauss-
    /// Legendre quadrature in `r` between the points where the result has kinks (a flat beam's
    /// `r = ±R + k·dr`). Its [`radii`](Self::radii) are the bins' centres.
    #[allow(clippy::too_many_arguments)]
    pub fn over_bins(
        dr: f64,
        nr: u32,
        beam: Beam,
        power: f64,
        drc: f64,
        nrc: u32,
        tolerance: f64,
    ) -> Option<Self> {
        let kernel = Kernel::new(beam)?;
        let radii: Vec<f64> = (0..nrc).map(|i| (f64::from(i) + 0.5) * drc).collect();
        let mut this = Self {
            kernel,
            interpolation: Interpolation::Bins,
            power,
            tolerance,
            dr,
            nr,
            radii,
            rows: Vec::with_capacity(nrc as usize),
        };
        for i in 0..nrc {
            let (a, b) = (f64::from(i) * drc, f64::from(i + 1) * drc);
            let row = this.averaged_row(a, b);
            this.rows.push(row);
        }
        Some(this)
    }

    /// The row of the area average over `[a, b]`: the point rows at the quadrature's radii,
    /// weighted, their moments summed per input bin (a bin's value is constant over it).
    fn averaged_row(&self, a: f64, b: f64) -> Vec<Term> {
        let mut cuts = vec![a, b];
        if let Beam::Flat { radius } = self.kernel.beam {
            for base in [radius, -radius] {
                let first = ((a - base) / self.dr).floor() as i64;
                let last = ((b - base) / self.dr).ceil() as i64;
                for k in first..=last {
                    let x = base + k as f64 * self.dr;
                    if x > a && x < b {
                        cuts.push(x);
                    }
                }
            }
        }
        cuts.sort_by(f64::total_cmp);
        let area = 0.5 * (b * b - a * a);
        let mut weights = vec![0.0; self.nr as usize];
        for w in cuts.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            let (mid, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
            for (x, wq) in GAUSS_LEGENDRE_6 {
                let r = mid + half * x;
                let weight = wq * half * r / area;
                for t in self.row(r) {
                    weights[t.piece as usize] += weight * (t.m[0] + t.m[1]);
                }
            }
        }
        weights
            .into_iter()
            .enumerate()
            .filter(|&(_, w)| w != 0.0)
            .map(|(j, w)| Term {
                piece: j as u32,
                lo: self.node(j as u32),
                hi: self.node(j as u32 + 1),
                m: [w, 0.0],
            })
            .collect()
    }

    /// The output radii (cm).
    pub fn radii(&self) -> &[f64] {
        &self.radii
    }

    /// Node `j` of the interpolation. [`Interpolation::Conv`]: 0, then the bin centres
    /// `(j − ½)·dr`, the last one `(nr − ½)·dr` where the integral ends;
    /// [`Interpolation::Bins`]: the bin edges `j·dr`.
    fn node(&self, j: u32) -> f64 {
        match self.interpolation {
            Interpolation::Bins => f64::from(j) * self.dr,
            Interpolation::Conv if j == 0 => 0.0,
            Interpolation::Conv => (f64::from(j) - 0.5) * self.dr,
        }
    }

    /// The piece holding `x ≥ 0`.
    fn piece_of(&self, x: f64) -> u32 {
        let k = match self.interpolation {
            Interpolation::Bins => x / self.dr,
            Interpolation::Conv => x / self.dr + 0.5,
        };
        (k.floor() as u32).min(self.nr - 1)
    }

    /// The kernel's moments over every piece that contributes at `r`.
    fn row(&self, r: f64) -> Vec<Term> {
        let end = self.node(self.nr);
        let (lo, hi) = self.kernel.window(r);
        let hi = hi.min(end);
        if lo >= hi {
            return Vec::new();
        }
        // Pieces j cover [node(j), node(j + 1)], j = 0 .. nr - 1.
        let first = self.piece_of(lo);
        let mut terms = Vec::new();
        let window = hi - lo;
        for j in first..self.nr {
            let (t0, t1) = (self.node(j), self.node(j + 1));
            if t0 >= hi {
                break;
            }
            let (a, b) = (t0.max(lo), t1.min(hi));
            if b <= a {
                continue;
            }
            let h = t1 - t0;
            let f = |x: f64| {
                let kx = self.kernel.eval(r, x) * x;
                [kx * (t1 - x) / h, kx * (x - t0) / h]
            };
            let m = self.integrate(r, a, b, window, &f);
            terms.push(Term {
                piece: j,
                lo: a,
                hi: b,
                m,
            });
        }
        terms
    }

    /// `∫_a^b f` over spans of at most `R/4`, cut at the kernel's kink, to the tolerance's share
    /// of the span in the window.
    fn integrate(
        &self,
        r: f64,
        a: f64,
        b: f64,
        window: f64,
        f: &impl Fn(f64) -> [f64; 2],
    ) -> [f64; 2] {
        let mut cuts = vec![a, b];
        if let Some(k) = self.kernel.kink(r).filter(|&k| a < k && k < b) {
            cuts.push(k);
        }
        cuts.sort_by(f64::total_cmp);
        let span = MAX_SPAN_RADII * self.kernel.radius;
        let scale = self.tolerance * self.kernel.norm() / window;
        let mut sum = [0.0, 0.0];
        for w in cuts.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            let n = ((hi - lo) / span).ceil().max(1.0) as u32;
            let step = (hi - lo) / f64::from(n);
            for k in 0..n {
                let x0 = lo + step * f64::from(k);
                let x1 = if k + 1 == n { hi } else { x0 + step };
                let part = simpson2(f, x0, x1, scale * (x1 - x0));
                sum[0] += part[0];
                sum[1] += part[1];
            }
        }
        sum
    }

    /// The end values `(a, b)` of piece `j` of profile `g` (CONV's interpolation, before
    /// negative values are cut to 0).
    fn piece_values(&self, g: &[f64], j: u32) -> (f64, f64) {
        let nr = self.nr as usize;
        let j = j as usize;
        if self.interpolation == Interpolation::Bins {
            // The last bin is the overflow bin: nothing of it is used.
            let v = if j + 1 < nr || nr == 1 { g[j] } else { 0.0 };
            return (v, v);
        }
        if nr < 3 {
            return (g[0], g[0]);
        }
        if j == 0 {
            (1.5 * g[0] - 0.5 * g[1], g[0])
        } else if j < nr - 1 {
            (g[j - 1], g[j])
        } else if g[nr - 3] >= g[nr - 2] {
            (g[nr - 2], 2.0 * g[nr - 2] - g[nr - 3])
        } else {
            (0.0, 0.0)
        }
    }

    /// The convolved profile at the output radii, for the impulse profile `g` (`nr` values,
    /// per unit power of the pencil beam).
    ///
    /// # Panics
    ///
    /// If `g` does not have `nr` values.
    pub fn apply(&self, g: &[f64]) -> Vec<f64> {
        assert_eq!(g.len(), self.nr as usize, "profile length");
        let pre = self.kernel.prefactor(self.power);
        self.rows
            .iter()
            .zip(&self.radii)
            .map(|(row, &r)| {
                let mut sum = 0.0;
                for t in row {
                    let (a, b) = self.piece_values(g, t.piece);
                    sum += if a >= 0.0 && b >= 0.0 {
                        a * t.m[0] + b * t.m[1]
                    } else if self.interpolation == Interpolation::Bins {
                        // A bin's value is constant over it: its positive part is 0.
                        0.0
                    } else {
                        self.positive_part(r, t, a, b)
                    };
                }
                pre * sum
            })
            .collect()
    }

    /// `∫ max(0, L) · K · x` over the term's range, for the line `L` with end values `a`,
    /// `b` on the term's piece, one of them negative.
    fn positive_part(&self, r: f64, t: &Term, a: f64, b: f64) -> f64 {
        if a < 0.0 && b < 0.0 {
            return 0.0;
        }
        let (t0, t1) = (self.node(t.piece), self.node(t.piece + 1));
        let h = t1 - t0;
        let root = t0 + h * a / (a - b);
        let (lo, hi) = if a < 0.0 {
            (t.lo.max(root), t.hi)
        } else {
            (t.lo, t.hi.min(root))
        };
        if hi <= lo {
            return 0.0;
        }
        let f = |x: f64| {
            let line = (a * (t1 - x) + b * (x - t0)) / h;
            [line.max(0.0) * self.kernel.eval(r, x) * x, 0.0]
        };
        let (wlo, whi) = self.kernel.window(r);
        self.integrate(r, lo, hi, whi - wlo, &f)[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A delta on the axis convolved with a flat beam is the beam's irradiance `P/(πR²)` inside
    /// `R` and 0 outside: its average over a bin straddling `R` is the irradiance times the
    /// share of the bin's annulus inside `R`, `(R² − a²)/(b² − a²)`; the bin centre's value
    /// (all or nothing) is not.
    #[test]
    fn bins_average_a_flat_beams_edge_over_the_annulus() {
        let (dr, radius) = (0.0005, 0.105);
        let mut g = vec![0.0; 400];
        g[0] = 1.0 / (std::f64::consts::PI * dr * dr);
        let beam = Beam::Flat { radius };
        let conv = RadialConvolution::over_bins(dr, 400, beam, 1.0, 0.02, 8, 1e-9).unwrap();
        let c = conv.apply(&g);
        let irradiance = 1.0 / (std::f64::consts::PI * radius * radius);
        let (a, b) = (0.10f64, 0.12f64);
        let inside = (radius * radius - a * a) / (b * b - a * a);
        // The delta spread over its first bin (radius dr) blurs the edge by dr: 0.5 %.
        assert!(
            (c[5] / irradiance - inside).abs() < 5e-3,
            "{} vs {inside}",
            c[5] / irradiance
        );
        assert!(
            (c[2] / irradiance - 1.0).abs() < 1e-6,
            "{}",
            c[2] / irradiance
        );
        assert!(c[7].abs() < 1e-9, "{}", c[7]);
        let centre = RadialConvolution::new(dr, 400, beam, 1.0, &[0.11], 1e-9, Interpolation::Bins)
            .unwrap()
            .apply(&g)[0];
        assert!((centre / irradiance - inside).abs() > 0.05, "{centre}");
    }

    #[test]
    fn i_theta_is_the_inside_fraction_of_the_circle() {
        assert_eq!(i_theta(0.1, 0.2, 1.0), 1.0);
        assert_eq!(i_theta(3.0, 0.5, 1.0), 0.0);
        // A circle through the beam's centre of the beam's radius: a third inside.
        let third = i_theta(1.0, 1.0, 1.0);
        assert!((third - 1.0 / 3.0).abs() < 1e-12, "{third}");
    }

    #[test]
    fn a_constant_profile_convolves_to_the_power_inside_the_grid() {
        // G = 1 everywhere (far inside the grid): C = P for both beams.
        for interpolation in [Interpolation::Conv, Interpolation::Bins] {
            for beam in [Beam::Gaussian { radius: 0.3 }, Beam::Flat { radius: 0.3 }] {
                let radii = [0.005, 0.5, 1.0];
                let conv =
                    RadialConvolution::new(0.01, 400, beam, 2.0, &radii, 1e-8, interpolation)
                        .unwrap();
                for v in conv.apply(&[1.0; 400]) {
                    assert!((v - 2.0).abs() < 1e-6, "{beam:?} {interpolation:?}: {v}");
                }
            }
        }
    }

    #[test]
    fn a_beam_much_narrower_than_a_bin_returns_the_interpolated_profile() {
        let g: Vec<f64> = (0..50).map(|i| 10.0 - 0.1 * f64::from(i)).collect();
        for beam in [Beam::Gaussian { radius: 1e-4 }, Beam::Flat { radius: 1e-4 }] {
            let conv = RadialConvolution::new(
                0.01,
                50,
                beam,
                1.0,
                &[0.105, 0.2],
                1e-8,
                Interpolation::Conv,
            )
            .unwrap();
            let c = conv.apply(&g);
            // Linear G: its mean over a small disc is its value at the centre, up to the
            // disc's curvature term (second order in R / r).
            assert!((c[0] - (10.0 - 0.1 * 10.0)).abs() < 1e-4, "{beam:?}: {c:?}");
            assert!((c[1] - (10.0 - 0.1 * 19.5)).abs() < 1e-4, "{beam:?}: {c:?}");
        }
    }

    /// A delta at the axis (all weight `W` in the first bin, `g0 = W/(π dr²)`) under a beam
    /// much wider than a bin: CONV's interpolation gives it `1.125 W` (the line through the
    /// first two bin centres, extrapolated to `1.5 g0` at r = 0), the bins' `W`.
    #[test]
    fn conv_interpolation_overweights_a_delta_on_the_axis_by_an_eighth() {
        let (dr, radius) = (0.001, 0.5);
        let mut g = vec![0.0; 100];
        g[0] = 1.0 / (std::f64::consts::PI * dr * dr);
        let centre = 2.0 / (std::f64::consts::PI * radius * radius);
        for (interpolation, want) in [(Interpolation::Conv, 1.125), (Interpolation::Bins, 1.0)] {
            let conv = RadialConvolution::new(
                dr,
                100,
                Beam::Gaussian { radius },
                1.0,
                &[0.0005],
                1e-10,
                interpolation,
            )
            .unwrap();
            let c = conv.apply(&g)[0] / centre;
            assert!((c - want).abs() < 1e-4, "{interpolation:?}: {c}");
        }
    }
}
