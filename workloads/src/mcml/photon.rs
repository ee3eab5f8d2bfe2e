//! The photon life of MCML 1.2 (Wang, Jacques & Zheng 1995), split at its one main branch.
//!
//! MCML's `HopDropSpin` is, per step: pick a step size; if it reaches a layer boundary, hop to
//! the boundary and reflect or transmit (Fresnel); otherwise hop, drop weight, and scatter;
//! then play roulette if the photon is light. Seed 002 (fig. 8) calls this "the main branch":
//! [`prepare_step`] evaluates its condition, [`boundary`] and [`interact`] are its two paths,
//! and [`roulette`] is the common code after it. So
//!
//! ```text
//! while alive(&p) { if prepare_step(&params, &mut p) { boundary(..) } else { interact(..) }; roulette(..) }
//! ```
//!
//! is exactly MCML's loop ([`simulate_photon`]), and a warp strategy may run the two paths in any
//! order across lanes without changing any lane's result.
//!
//! Step sizes follow MCML, not CUDAMCML: a step cut at a boundary keeps its unused optical
//! length in `sleft` and uses it after crossing (MCML's `StepSizeInTissue`/`HitBoundary`).
//! Resampling (CUDAMCML) would be equally correct (exponential steps are memoryless) but differs
//! draw for draw.
//!
//! Random numbers: photon `i` draws from stream `(seed, i)` ([`StreamRng`]: MWC64X seeded
//! by one Philox4x32-10 block), so a photon's whole life is a function of `(params, seed, i)`
//! only.
//!
//! Arithmetic is chosen for bit-identical results on the CPU and the GPU at GPU speed: only
//! operations whose result IEEE 754 fixes (add, mul, div, the correctly rounded
//! [`McmlFloat::sqrt_rn`]) or the same own code on both sides (the polynomials of the f32
//! logarithm and azimuth, `libm` for f64 and the exit angle). Divisions by per-layer and per-grid constants are multiplications by
//! reciprocals the host computes once ([`Layer::inv_mut`], [`Grid::inv_dz`], ...), as GPU-MCML
//! does; a division costs about ten instructions on a GPU.
//!
//! Absorption goes through a one-bin cache in the photon (CUDAMCML's and GPU-MCML's register
//! cache): consecutive drops into the same `A_rz` bin are summed in the photon and added to the
//! tally once, when the photon drops into another bin or dies. Tallies are integers, so the sums
//! are the same bit for bit; on the GPU this turns most of the `A_rz` atomics (the global
//! memory traffic that bounds GPU MCML codes) into register adds.

use super::float::McmlFloat;
use super::params::{Beam, Face, HenyeyGreenstein, Layer, McmlParams, StepView};
use super::select::{draw_where, either};
use super::tally::{Tally, TallyBin};
use crate::rng::StreamRng;

/// `cos` below which a direction counts as grazing (MCML's `COS90D`).
const COS90D: f64 = 1.0e-6;

/// One photon packet: MCML's `PhotonStruct` plus its random stream.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Photon<F> {
    /// Position (cm).
    pub x: F,
    /// Position (cm).
    pub y: F,
    /// Depth (cm), positive into the tissue.
    pub z: F,
    /// Direction cosine.
    pub ux: F,
    /// Direction cosine.
    pub uy: F,
    /// Direction cosine (positive = downwards).
    pub uz: F,
    /// Weight (1 − Rsp at launch).
    pub w: F,
    /// Current step (cm).
    pub s: F,
    /// Unused optical length (dimensionless, s·µt) of a step cut at a boundary.
    pub sleft: F,
    /// The step's first uniform draw in `[0, 1)`, made by [`prepare_step`] for whichever path
    /// the step takes: the Fresnel decision of [`boundary`] or the polar angle of [`interact`].
    pub xi: F,
    /// Layer index (1-based, as in MCML).
    pub layer: u32,
    /// Whether the packet has escaped or lost roulette.
    pub dead: bool,
    /// Absorbed weight not yet added to the tally (fixed point), all in bin `absorbed_bin`.
    pub absorbed: u64,
    /// The `(ir, iz)` bin of `absorbed`.
    pub absorbed_bin: (u32, u32),
    /// This photon's random stream.
    pub rng: StreamRng,
    /// The constants of layer `layer` that every step reads, kept with the photon and renewed
    /// when it changes layer (rarely): a step then loads nothing from memory on a GPU.
    pub here: LayerConstants<F>,
}

/// What a step reads of the photon's layer: [`prepare_step`]'s faces and step scale, the cut
/// of a step at a face, and the drop and the scattering of [`interact`].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct LayerConstants<F> {
    /// [`Layer::z0`].
    pub z0: F,
    /// [`Layer::z1`].
    pub z1: F,
    /// [`Layer::inv_mut`].
    pub inv_mut: F,
    /// `µa + µs` in `F` (0 in glass).
    pub mu_t: F,
    /// [`Layer::absorb_fraction`].
    pub absorb_fraction: F,
    /// [`Layer::hg`].
    pub hg: HenyeyGreenstein<F>,
}

impl<F: McmlFloat> LayerConstants<F> {
    /// The constants of `l`.
    #[inline(always)]
    pub fn of(l: &Layer<F>) -> Self {
        Self {
            z0: l.z0,
            z1: l.z1,
            inv_mut: l.inv_mut,
            mu_t: l.mua + l.mus,
            absorb_fraction: l.absorb_fraction,
            hg: l.hg,
        }
    }

    /// Glass: no absorption and no scattering (µa, µs ≥ 0).
    #[inline(always)]
    pub fn is_glass(&self) -> bool {
        self.mu_t == F::zero()
    }
}

with_host_fma! {
    /// Launches photon `photon_index` along +z with weight 1 − Rsp (the specular part is accounted
    /// once, by the caller, as `N · Rsp`). A glass top layer starts the photon at the top of layer
    /// 2 (MCML's `LaunchPhoton`).
    ///
    /// The entry point is the origin for the pencil beam, which draws nothing. A Gaussian or flat
    /// [`Beam`] draws it from the photon's own stream before the first step: first the radius
    /// (Gaussian `R · sqrt(−ln ξ / 2)` from [`McmlFloat::neg_ln_uniform`], flat `R · sqrt(ξ)` from
    /// [`McmlFloat::uniform_co`]), then the azimuth ([`McmlFloat::azimuth`]); only IEEE operations
    /// and the crate's own functions, so the CPU and the GPU draw the same point.
    pub fn launch<F: McmlFloat>(
        params: &McmlParams<F>,
        seed: u64,
        photon_index: u64,
    ) -> Photon<F> = launch_body;
}

/// [`launch`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn launch_body<F: McmlFloat>(params: &McmlParams<F>, seed: u64, photon_index: u64) -> Photon<F> {
    let layer = params.start_layer;
    let mut photon = Photon {
        x: F::zero(),
        y: F::zero(),
        z: params.layer(layer).z0,
        ux: F::zero(),
        uy: F::zero(),
        uz: F::one(),
        w: F::one() - params.rsp,
        s: F::zero(),
        sleft: F::zero(),
        xi: F::zero(),
        layer,
        dead: false,
        absorbed: 0,
        absorbed_bin: (0, 0),
        rng: StreamRng::for_stream(seed, photon_index),
        here: LayerConstants::of(params.layer(layer)),
    };
    let r = match params.beam {
        Beam::Pencil => return photon,
        Beam::Gaussian { radius } => {
            radius * (F::neg_ln_uniform(&mut photon.rng) * F::lit(0.5)).sqrt_rn()
        }
        Beam::Flat { radius } => radius * F::uniform_co(&mut photon.rng).sqrt_rn(),
    };
    let (cos, sin) = F::azimuth(&mut photon.rng);
    photon.x = r * cos;
    photon.y = r * sin;
    photon
}

/// Whether the photon is still travelling.
#[inline(always)]
pub fn alive<F>(photon: &Photon<F>) -> bool {
    !photon.dead
}

/// `z` of the face the photon is heading for, minus its `z`: the distance to it along z, with
/// the sign of `uz`.
#[inline(always)]
fn depth_to_face<F: McmlFloat>(p: &Photon<F>) -> F {
    let face = if p.uz > F::zero() {
        p.here.z1
    } else {
        p.here.z0
    };
    face - p.z
}

with_host_fma! {
    /// Samples the step (or reuses `sleft`) and returns whether it reaches a layer boundary: the
    /// condition of MCML's main branch. Then it does what both paths of that branch begin with
    /// (branch path unification, seed 004): a step that reaches a face is cut there (`cut_at_face`,
    /// MCML's `dl_b`, issued by a GPU warp only for the lanes that hit), the photon hops, and the
    /// step's first uniform draw is made into [`Photon::xi`]. Both paths drew that number first
    /// (the boundary for Fresnel, the interaction for the polar angle), so each photon's stream is
    /// used exactly as before; the paths no longer carry a copy of the hop and of the generator
    /// each (on the GPU a warp issued both copies whenever its lanes split, and the boundary copy
    /// at one or two active lanes).
    ///
    /// In glass every step goes to the boundary (MCML's `StepSizeInGlass`); a glass photon with `uz
    /// == 0` is killed there, as MCML kills it ([`boundary`] and [`boundary_distributed`] do,
    /// first thing), and this call returns `true` for it.
    pub fn prepare_step<F: McmlFloat>(photon: &mut Photon<F>) -> bool = prepare_step_body;
}

/// [`prepare_step`]'s code, in the copies `with_host_fma!` makes of it.
///
/// Not [`choose_step`] then [`take_step`]: that form tests `dead` again before the hop, and the
/// per-thread kernel ran 1.5 % slower on the slab with it (H200).
///
/// Glass and tissue by selections, not a branch: a layer is glass or not for every lane of a
/// warp alike, but a branch on it still cost a GPU warp a convergence region every step (four
/// issue slots, 1.4-1.9 % of MCML's). A glass photon with `uz == 0` takes an infinite step to
/// a point that no longer matters: the boundary path kills it before anything reads it.
#[inline(always)]
fn prepare_step_body<F: McmlFloat>(photon: &mut Photon<F>) -> bool {
    let glass = photon.here.is_glass();
    let hit = sample_step(photon, !glass) | glass;
    if hit {
        cut_at_face(photon);
    }
    hop(photon);
    photon.xi = F::uniform_co(&mut photon.rng);
    hit
}

/// In tissue (`tissue`): samples the step (or reuses `sleft`) and returns whether it reaches a
/// face. In glass it keeps `sleft` and the stream, sets a step of 0, which [`cut_at_face`]
/// replaces by the distance to the face, and returns what the caller ignores.
#[inline(always)]
fn sample_step<F: McmlFloat>(photon: &mut Photon<F>, tissue: bool) -> bool {
    // A fresh step `−ln ξ` where none is left over, else the rest `sleft` of the last one: on
    // the GPU both, the draw made for every lane and kept where taken (nearly every lane draws:
    // a photon has steps left over only after a face, in about 4 % of steps), see `select`.
    let draws = tissue & (photon.sleft == F::zero());
    let steps = draw_where(draws, &mut photon.rng, F::neg_ln_uniform, photon.sleft);
    photon.s = steps * photon.here.inv_mut;
    if tissue {
        photon.sleft = F::zero();
    }
    // MCML's HitBoundary without its division: `s > dl_b` with `dl_b = Δz / uz` is
    // `s·uz > Δz` (or `<` for `uz < 0`).
    let uz = photon.uz;
    let dz = depth_to_face(photon);
    let su = photon.s * uz;
    // Both comparisons and a selection, not an if-else chain: the GPU compiler made the
    // chain a branch that half of a warp's lanes take each way (2.5 % of the
    // bit-identical kernel's issue slots). `uz == 0` (neither) is `false`, as in MCML.
    (uz > F::zero() && su > dz) | (uz < F::zero() && su < dz)
}

with_host_fma! {
    /// The first half of [`prepare_step`]: samples the step (or reuses `sleft`) and returns
    /// whether it reaches a layer boundary, without moving the photon. With [`take_step`] after
    /// it, the same bits as [`prepare_step`]; a schedule that runs the boundary path for a whole
    /// warp of photons at once (collaborative context collection) takes a boundary step's cut
    /// and hop there, where every lane needs them, instead of in a region a warp issues for the
    /// few lanes that hit a face.
    pub fn choose_step<F: McmlFloat>(photon: &mut Photon<F>) -> bool = choose_step_body;
}

/// [`choose_step`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn choose_step_body<F: McmlFloat>(photon: &mut Photon<F>) -> bool {
    if photon.here.is_glass() {
        // MCML kills a glass photon with `uz == 0`; [`take_step`] then does nothing.
        if photon.uz == F::zero() {
            photon.dead = true;
        }
        true
    } else {
        sample_step(photon, true)
    }
}

with_host_fma! {
    /// The second half of [`prepare_step`], after [`choose_step`] returned `hit`: a step that
    /// reaches a face is cut there, the photon hops, and the step's draw [`Photon::xi`] is
    /// made. Nothing for a photon [`choose_step`] killed (a glass photon with `uz == 0`).
    pub fn take_step<F: McmlFloat>(photon: &mut Photon<F>, hit: bool) = take_step_body;
}

/// [`take_step`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn take_step_body<F: McmlFloat>(photon: &mut Photon<F>, hit: bool) {
    if photon.dead {
        return;
    }
    if hit {
        cut_at_face(photon);
    }
    hop(photon);
    photon.xi = F::uniform_co(&mut photon.rng);
}

/// The first half of MCML's `HitBoundary` for a step [`prepare_step`] found reaching a face:
/// the step becomes the distance to the face, `dl_b = Δz / uz`, and in tissue the rest of it
/// is kept, in mean free paths, in `sleft`. In glass the step is `dl_b` (MCML's
/// `StepSizeInGlass`) and `sleft` carries over untouched, as in MCML.
#[inline(always)]
fn cut_at_face<F: McmlFloat>(p: &mut Photon<F>) {
    let dl_b = depth_to_face(p) / p.uz;
    // Selections, not branches: this is the rare path, which a GPU warp issues for a few lanes.
    // Rounding can put `dl_b` a hair above `s`: then nothing is left over (µt > 0 in tissue;
    // in glass `left` is dropped).
    // The product clamped, not a test of `rest` and a selection: one instruction fewer in a
    // block the fast kernel runs predicated every step. The same value, but for the sign of a
    // zero rest (`−0` or `+0`), which only meets `sleft == 0`.
    let left = ((p.s - dl_b) * p.here.mu_t).max(F::zero());
    p.sleft = if p.here.is_glass() { p.sleft } else { left };
    p.s = dl_b;
}

/// Whether the boundary path has nothing to do: the photon is dead, or it is a glass photon
/// with `uz == 0` (it would cross the layer forever), which this kills as MCML does. The kill is
/// made where its step reaches the face, on the boundary path that glass steps always take: in
/// [`prepare_step`] the test ran every step of every photon (a GPU warp issued it for the tissue
/// lanes too). The step before, cut at an infinite distance, left the photon at a point that
/// no longer matters.
#[inline(always)]
fn dead_at_boundary<F: McmlFloat>(p: &mut Photon<F>) -> bool {
    if p.dead || (p.here.is_glass() && p.uz == F::zero()) {
        p.dead = true;
    }
    p.dead
}

/// Moves the photon into `layer`, with that layer's constants: the one place where
/// [`Photon::layer`] changes after launch, so that [`Photon::here`] always matches it.
#[inline(always)]
fn enter_layer<F: McmlFloat>(params: &StepView<'_, F>, p: &mut Photon<F>, layer: u32) {
    p.layer = layer;
    p.here = LayerConstants::of(params.layer(layer));
}

#[inline(always)]
fn hop<F: McmlFloat>(p: &mut Photon<F>) {
    p.x = p.s.mul_then_add(p.ux, p.x);
    p.y = p.s.mul_then_add(p.uy, p.y);
    p.z = p.s.mul_then_add(p.uz, p.z);
}

/// Fresnel reflectance for incidence cosine `ca1 ≥ 0` from index `n1` into `n2`, and the
/// transmission cosine (MCML's `RFresnel`, with its special cases in its order). `n1_over_n2`
/// is `n1 / n2` as the layer precomputes it ([`Face::n_over`]): Snell's
/// `sin a2 = sin a1 · n1 / n2` then costs a multiplication instead of a division.
///
/// [`Face::n_over`]: super::Face::n_over
#[inline]
pub fn fresnel<F: McmlFloat>(n1: F, n2: F, n1_over_n2: F, ca1: F) -> (F, F) {
    let normal = normal_reflectance(n1, n2);
    fresnel_with_normal(n1 == n2, n1_over_n2, normal, ca1, |a, b| a / b)
}

/// Fresnel reflectance at normal incidence from index `n1` into `n2`, `((n2 − n1) / (n2 +
/// n1))²` in `F`: what [`fresnel`] selects for `ca1` past `COSZERO`, and what a layer
/// precomputes for each face ([`Face::r_normal`]), the same bits.
///
/// [`Face::r_normal`]: super::Face::r_normal
#[inline]
pub(super) fn normal_reflectance<F: McmlFloat>(n1: F, n2: F) -> F {
    let r = (n2 - n1) / (n2 + n1);
    r * r
}

/// [`fresnel`] with its normal-incidence reflectance `((n2 − n1) / (n2 + n1))²` and its test
/// `n1 == n2` given, as a layer precomputes them for each face ([`Face`]): the same bits, one
/// division fewer and no index loads on the boundary path. `divide` is the general case's
/// division.
///
/// [`Face`]: super::Face
#[inline(always)]
fn fresnel_with_normal<F: McmlFloat>(
    matched: bool,
    n1_over_n2: F,
    normal: F,
    ca1: F,
    divide: impl Fn(F, F) -> F,
) -> (F, F) {
    let one = F::one();
    // Every case is computed and the answer selected, not branched to: a GPU warp runs this
    // for the one or two lanes that hit a face, where four nested branches cost more issue
    // slots than the arithmetic of the cases they skip. Each case's value comes from the same
    // operations as in MCML's if-else chain, so the selected one is the same bits; the others
    // may be NaN or infinite (a root of a negative, a division by zero) and are dropped.
    // `1 − c²` of a float `c` in [0, 1] is 0 or at least 2^-24, negative past 1 (where NaN is
    // what the code wants): in range for `sqrt_rn_in_range`.
    let sa1 = (-ca1).mul_then_add(ca1, one).sqrt_rn_in_range();
    let sa2 = sa1 * n1_over_n2;
    let ca2 = (-sa2).mul_then_add(sa2, one).sqrt_rn_in_range();
    let cap = (-sa1).mul_then_add(sa2, ca1 * ca2); // cos(a1 + a2)
    let cam = sa1.mul_then_add(sa2, ca1 * ca2); // cos(a1 - a2)
    let sap = ca1.mul_then_add(sa2, sa1 * ca2); // sin(a1 + a2)
    let sam = (-ca1).mul_then_add(sa2, sa1 * ca2); // sin(a1 - a2)
    let oblique = divide(
        F::lit(0.5) * sam * sam * cap.mul_then_add(cap, cam * cam),
        sap * sap * cam * cam,
    );
    // MCML's order of the special cases: matched indices, normal incidence, grazing
    // incidence, total internal reflection, then the general case.
    let total = ca1 < F::lit(COS90D) || sa2 >= one;
    let r = if total { one } else { oblique };
    let ca = if total { F::zero() } else { ca2 };
    let r = if ca1 > F::COSZERO { normal } else { r };
    let ca = if ca1 > F::COSZERO { ca1 } else { ca };
    let r = if matched { F::zero() } else { r };
    let ca = if matched { ca1 } else { ca };
    (r, ca)
}

/// MCML's `CrossUpOrNot`/`CrossDnOrNot` reflectance: total at grazing incidence
/// (`cos ≤ COS90D`), else [`fresnel`]. A selection after the call, not a branch around it (see
/// [`fresnel`]); the grazing case's `fresnel` value is dropped.
///
/// The reflectance only decides a draw `ξ > r`, so the general case divides by
/// [`McmlFloat::reflectance_quotient`]: in f32 its numerator is raised to 2^-100 (a
/// reflectance under 2^-60 decides every draw in `[0, 1)`, multiples of 2^-24, as 0 does) and
/// divided without `div.rn`'s range check, which then holds (the denominator `sin²(a1 + a2)
/// cos²(a1 − a2)` is at most 1 and, away from grazing incidence and total reflection, far above
/// 2^-100). Every decision is the one of the plain division.
#[inline(always)]
fn grazing_or_fresnel<F: McmlFloat>(face: &Face<F>, ca1: F) -> (F, F) {
    let quotient = |a: F, b: F| a.reflectance_quotient(b);
    let (r, ca2) = fresnel_with_normal(face.matched, face.n_over, face.r_normal, ca1, quotient);
    let grazing = ca1 <= F::lit(COS90D);
    (
        if grazing { F::one() } else { r },
        if grazing { F::zero() } else { ca2 },
    )
}

/// The radial bin of the photon's position.
#[inline(always)]
fn radial_bin<F: McmlFloat>(params: &StepView<'_, F>, p: &Photon<F>) -> u32 {
    let r2 = p.y.mul_then_add(p.y, p.x * p.x);
    (r2.sqrt_for_bin() * params.grid.inv_dr).bin_index(params.grid.nr)
}

with_host_fma! {
    /// The boundary path, once [`prepare_step`] has hopped to the face: transmit or reflect by
    /// Fresnel (MCML's `CrossOrNot`) with the step's draw [`Photon::xi`]. A photon leaving the top
    /// or bottom tissue layer is tallied (all of its weight: MCML 1.2's all-or-none mode) and dies.
    pub fn boundary<F: McmlFloat, T: Tally>(
        params: &StepView<'_, F>,
        photon: &mut Photon<F>,
        tally: &mut T,
    ) = boundary_body;
}

/// [`boundary`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn boundary_body<F: McmlFloat, T: Tally>(
    params: &StepView<'_, F>,
    photon: &mut Photon<F>,
    tally: &mut T,
) {
    if dead_at_boundary(photon) {
        return;
    }
    let here = params.layer(photon.layer);
    if photon.uz < F::zero() {
        // CrossUpOrNot.
        let (r, uz1) = grazing_or_fresnel(&here.above, -photon.uz);
        if photon.xi > r {
            if photon.layer == 1 {
                photon.uz = -uz1;
                let ir = radial_bin(params, photon);
                let ia =
                    ((-photon.uz).acos_shared() * params.grid.inv_da).bin_index(params.grid.na);
                tally.add(TallyBin::Reflected { ir, ia }, photon.w.to_fixed());
                photon.w = F::zero();
                photon.dead = true;
            } else {
                let ratio = here.above.n_over;
                enter_layer(params, photon, photon.layer - 1);
                photon.ux = photon.ux * ratio;
                photon.uy = photon.uy * ratio;
                photon.uz = -uz1;
            }
        } else {
            photon.uz = -photon.uz;
        }
    } else {
        // CrossDnOrNot.
        let (r, uz1) = grazing_or_fresnel(&here.below, photon.uz);
        if photon.xi > r {
            if photon.layer == params.num_layers {
                photon.uz = uz1;
                let ir = radial_bin(params, photon);
                let ia = (photon.uz.acos_shared() * params.grid.inv_da).bin_index(params.grid.na);
                tally.add(TallyBin::Transmitted { ir, ia }, photon.w.to_fixed());
                photon.w = F::zero();
                photon.dead = true;
            } else {
                let ratio = here.below.n_over;
                enter_layer(params, photon, photon.layer + 1);
                photon.ux = photon.ux * ratio;
                photon.uy = photon.uy * ratio;
                photon.uz = uz1;
            }
        } else {
            photon.uz = -photon.uz;
        }
    }
}

with_host_fma! {
    /// [`boundary`] after branch distribution (seed 002 §4.2.2, fig. 9): the up and down cases,
    /// which differ only in the next layer, the sign of `uz`, the escape test and the escape tally,
    /// share one copy of the Fresnel computation and of the cross-or-reflect code. Only those small
    /// selections stay divergent (and compile to selects), so a warp whose lanes hit faces in both
    /// directions issues the Fresnel code once instead of twice.
    ///
    /// Bit for bit the same as [`boundary`]: every value is computed by the same operations on the
    /// same operands, only selected differently (`-(-x)` and `|x|` of a known sign are exact).
    pub fn boundary_distributed<F: McmlFloat, T: Tally>(
        params: &StepView<'_, F>,
        photon: &mut Photon<F>,
        tally: &mut T,
    ) = boundary_distributed_body;
}

/// [`boundary_distributed`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn boundary_distributed_body<F: McmlFloat, T: Tally>(
    params: &StepView<'_, F>,
    photon: &mut Photon<F>,
    tally: &mut T,
) {
    if dead_at_boundary(photon) {
        return;
    }
    let up = photon.uz < F::zero();
    // The divergent prologue: which face, and the incidence cosine.
    let next = if up {
        photon.layer - 1
    } else {
        photon.layer + 1
    };
    let ca = if up { -photon.uz } else { photon.uz };
    // Factored out: Fresnel and the cross-or-reflect decision, from the face's constants.
    let here = params.layer(photon.layer);
    let face = if up { &here.above } else { &here.below };
    let ratio = face.n_over;
    let (r, uz1) = grazing_or_fresnel(face, ca);
    if photon.xi > r {
        // The divergent epilogue, as selections: escape face, sign of the new direction.
        let escapes = if up {
            photon.layer == 1
        } else {
            photon.layer == params.num_layers
        };
        let uz_out = if up { -uz1 } else { uz1 };
        if escapes {
            photon.uz = uz_out;
            let ir = radial_bin(params, photon);
            // (-uz_out) for up and uz_out for down are both uz1.
            let ia = (uz1.acos_shared() * params.grid.inv_da).bin_index(params.grid.na);
            let bin = if up {
                TallyBin::Reflected { ir, ia }
            } else {
                TallyBin::Transmitted { ir, ia }
            };
            tally.add(bin, photon.w.to_fixed());
            photon.w = F::zero();
            photon.dead = true;
        } else {
            enter_layer(params, photon, next);
            photon.ux = photon.ux * ratio;
            photon.uy = photon.uy * ratio;
            photon.uz = uz_out;
        }
    } else {
        photon.uz = -photon.uz;
    }
}

/// Henyey–Greenstein polar cosine (MCML's `SpinTheta`; g = 0 is isotropic), from the layer's
/// precomputed terms: `cos θ = (1 + g² − ((1 − g²) / (1 − g + 2gξ))²) / (2g)`, one division.
#[inline]
pub fn spin_theta<F: McmlFloat>(hg: &HenyeyGreenstein<F>, xi: F) -> F {
    let one = F::one();
    // `two_g` is 0 exactly when `g` is 0 in `F` (HenyeyGreenstein::new): isotropic. On the GPU
    // both computed and the layer's selected (`select`): every lane of a warp in a layer takes
    // the same side, and a branch cost the warp a convergence region every scattering.
    let anisotropic = || {
        // In range for `div_rn_in_range`: `1 − g²` is 0 or at least 2^-24 and the divisor is
        // `1 − g + 2gξ`, in [1 − g, 1 + g] (`g` in (0, 1]; 0 only at g = 1 and ξ = 0, where
        // both divisions give NaN); for `g = 0` it is 1 / 1.
        let temp = hg
            .one_minus_g2
            .div_rn_in_range(hg.two_g.mul_then_add(xi, hg.one_minus_g));
        let cost = ((-temp).mul_then_add(temp, hg.one_plus_g2) * hg.inv_two_g).computed_here();
        // Clamped by two selections, not an if-else chain (which compiles to a branch).
        let above = if cost < -one { -one } else { cost };
        if above > one { one } else { above }
    };
    either(hg.two_g != F::zero(), anisotropic, || {
        F::lit(2.0) * xi - one
    })
}

with_host_fma! {
    /// The interaction path, once [`prepare_step`] has hopped: drop (absorb `w·µa/µt`, tallied in
    /// `A_rz`) and spin (MCML's `Drop` + `Spin`), the polar angle from the step's draw
    /// [`Photon::xi`].
    pub fn interact<F: McmlFloat, T: Tally>(
        params: &StepView<'_, F>,
        photon: &mut Photon<F>,
        tally: &mut T,
    ) = interact_body;
}

/// [`interact`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn interact_body<F: McmlFloat, T: Tally>(
    params: &StepView<'_, F>,
    photon: &mut Photon<F>,
    tally: &mut T,
) {
    if photon.dead {
        return;
    }
    let l = photon.here;
    // Drop.
    let iz = (photon.z * params.grid.inv_dz).bin_index(params.grid.nz);
    let ir = radial_bin(params, photon);
    let dwa = photon.w * l.absorb_fraction;
    photon.w = photon.w - dwa;
    // Branch-free: the previous bin's sum is added every drop, as 0 while the photon stays in
    // it (a zero add is no atomic on the GPU, and no mispredicted branch on a CPU).
    let (pr, pz) = photon.absorbed_bin;
    // One test of both indices, as one 64-bit number: as `!=` on the pair, LLVM selected the
    // kept sum once per index (two 64-bit selections more per step).
    let key = |r: u32, z: u32| (u64::from(r) << 32) | u64::from(z);
    let moved = key(pr, pz) != key(ir, iz);
    let kept = if moved { 0 } else { photon.absorbed };
    tally.add(
        TallyBin::Absorbed { ir: pr, iz: pz },
        photon.absorbed.wrapping_sub(kept),
    );
    photon.absorbed = kept.wrapping_add(dwa.to_fixed());
    photon.absorbed_bin = (ir, iz);
    // Spin.
    let one = F::one();
    let cost = spin_theta(&l.hg, photon.xi);
    let sin2t = (-cost).mul_then_add(cost, one);
    let (cosp, sinp) = F::azimuth(&mut photon.rng);
    let (ux, uy, uz) = (photon.ux, photon.uy, photon.uz);
    // A branch, not selections: computing both cases and selecting (tried on an H100) made the
    // per-thread kernel 3.5 % slower on skin and 2 % on the slab.
    // `sin2t` is `1 − cos²` of a float cosine in [-1, 1]: 0 or at least 2^-24 (in range for
    // `sqrt_rn_in_range`); `sin2z` below is at least 2e-6 (|uz| ≤ COSZERO).
    if uz.abs() > F::COSZERO {
        let sint = sin2t.sqrt_rn_in_range();
        photon.ux = sint * cosp;
        photon.uy = sint * sinp;
        photon.uz = if uz >= F::zero() { cost } else { -cost };
    } else {
        // MCML's sin θ / sqrt(1 − uz²) and sin θ · sqrt(1 − uz²) from one square root and one
        // division (MCML takes two roots and divides twice).
        let sin2z = (-uz).mul_then_add(uz, one);
        let k = sin2t.div_rn_in_range(sin2z).sqrt_rn_in_range();
        let sint_temp = k * sin2z;
        photon.ux = (-uy)
            .mul_then_add(sinp, ux * uz * cosp)
            .mul_then_add(k, ux * cost);
        photon.uy = ux
            .mul_then_add(sinp, uy * uz * cosp)
            .mul_then_add(k, uy * cost);
        photon.uz = (-cosp).mul_then_add(sint_temp, uz * cost);
    }
}

/// The common code after the branch: Russian roulette for light photons (weight below 1e-4:
/// survive with chance 0.1 and weight ×10, else die). The weight roulette creates or destroys
/// goes to the roulette counters, so the energy balance can be checked exactly.
#[inline]
pub fn roulette<F: McmlFloat, T: Tally>(
    params: &StepView<'_, F>,
    photon: &mut Photon<F>,
    tally: &mut T,
) {
    // One test for the rare work of both kinds, a light photon's roulette and a dead photon's
    // flush (a photon that escaped has weight 0, below the threshold): a GPU warp then checks
    // one condition per step instead of two.
    if photon.w < params.weight_threshold || photon.dead {
        if !photon.dead {
            if photon.w == F::zero() {
                photon.dead = true;
            } else if F::uniform_co(&mut photon.rng) < params.chance {
                let before = photon.w.to_fixed();
                photon.w = photon.w / params.chance;
                tally.add(
                    TallyBin::RouletteGain,
                    photon.w.to_fixed().saturating_sub(before),
                );
            } else {
                tally.add(TallyBin::RouletteLoss, photon.w.to_fixed());
                photon.w = F::zero();
                photon.dead = true;
            }
        }
        // Every death (escape in `boundary`, roulette here) passes through this point in the
        // same step: the cached absorption must reach the tally before the photon is dropped.
        if photon.dead {
            flush_absorbed(photon, tally);
        }
    }
}

/// Adds the photon's cached absorption to the tally and empties the cache.
#[inline(always)]
fn flush_absorbed<F, T: Tally>(photon: &mut Photon<F>, tally: &mut T) {
    if photon.absorbed != 0 {
        let (ir, iz) = photon.absorbed_bin;
        tally.add(TallyBin::Absorbed { ir, iz }, photon.absorbed);
        photon.absorbed = 0;
    }
}

/// The steps of one photon life, by path (the denominator of a profiler's instructions per
/// step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    /// Steps that reached a layer boundary.
    pub boundary: u64,
    /// Steps that ended inside a layer (drop and spin).
    pub interaction: u64,
}

with_host_fma! {
    /// One whole photon life, the scalar MCML loop (specular excluded: the caller adds `Rsp`);
    /// returns its steps.
    pub fn simulate_photon<F: McmlFloat, T: Tally>(
        params: &McmlParams<F>,
        seed: u64,
        photon_index: u64,
        tally: &mut T,
    ) -> Steps = simulate_photon_body;
}

/// [`simulate_photon`]'s code, in the copies `with_host_fma!` makes of it.
#[inline(always)]
fn simulate_photon_body<F: McmlFloat, T: Tally>(
    params: &McmlParams<F>,
    seed: u64,
    photon_index: u64,
    tally: &mut T,
) -> Steps {
    // The steps' own code, not their dispatching functions: one check per photon.
    let mut p = launch_body(params, seed, photon_index);
    let params = &StepView::new(params);
    let mut steps = Steps::default();
    while alive(&p) {
        if prepare_step_body(&mut p) {
            steps.boundary += 1;
            boundary_body(params, &mut p, tally);
        } else {
            steps.interaction += 1;
            interact_body(params, &mut p, tally);
        }
        roulette(params, &mut p, tally);
    }
    steps
}
