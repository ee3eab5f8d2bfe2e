//! Simulation parameters as plain `Copy` data: what a GPU kernel receives as a parameter.

use super::float::McmlFloat;
use super::photon::normal_reflectance;

/// Most tissue layers a simulation may have (the two ambient media are extra). Fixed so that
/// [`McmlParams`] is plain `Copy` data with no pointers, fit for a kernel parameter.
pub const MAX_LAYERS: usize = 16;

/// Roulette threshold: photons lighter than this play Russian roulette (MCML's `WEIGHT`).
pub const ROULETTE_THRESHOLD: f64 = 1e-4;
/// Roulette survival chance (MCML's `CHANCE`); survivors are scaled by `1 / CHANCE`.
pub const ROULETTE_CHANCE: f64 = 0.1;

/// One tissue layer as an input gives it (MCML's `n mua mus g d` line), in cm and 1/cm.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct LayerSpec {
    /// Refractive index (> 0).
    pub n: f64,
    /// Absorption coefficient µa (1/cm) (≥ 0).
    pub mua: f64,
    /// Scattering coefficient µs (1/cm) (≥ 0).
    pub mus: f64,
    /// Anisotropy of Henyey–Greenstein scattering, `0 ≤ g ≤ 1` (MCML refuses g < 0).
    pub g: f64,
    /// Thickness (cm) (≥ 0; a huge value such as 1e8 makes a semi-infinite layer).
    pub d: f64,
}

impl LayerSpec {
    /// A glass layer (µa = µs = 0) only refracts and reflects at its faces.
    pub fn is_glass(&self) -> bool {
        self.mua == 0.0 && self.mus == 0.0
    }
}

/// The scoring grid as an input gives it.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct GridSpec {
    /// Depth bin size (cm) (> 0).
    pub dz: f64,
    /// Radial bin size (cm) (> 0).
    pub dr: f64,
    /// Number of depth bins (> 0).
    pub nz: u32,
    /// Number of radial bins (> 0).
    pub nr: u32,
    /// Number of exit-angle bins over 0..90° (> 0).
    pub na: u32,
}

/// Why parameters were refused (the `.mci` parser reports these with file and line).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamError {
    /// No tissue layer.
    NoLayers,
    /// More than [`MAX_LAYERS`] layers.
    TooManyLayers(usize),
    /// A layer (1-based) breaks one of MCML's rules: d ≥ 0, n > 0, µa ≥ 0, µs ≥ 0, 0 ≤ g ≤ 1.
    InvalidLayer(usize),
    /// An ambient refractive index is not > 0.
    InvalidAmbient,
    /// A grid size or count is not > 0.
    InvalidGrid,
    /// The grid has more tally bins (`nr·nz + 2·nr·na + 2`) than a `u32` index reaches, the
    /// most a warp program's tally can address.
    GridTooLarge,
    /// The beam's radius is refused ([`Beam::check`]).
    InvalidBeam(BeamError),
}

impl core::fmt::Display for ParamError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoLayers => write!(f, "at least one layer is needed"),
            Self::TooManyLayers(n) => write!(f, "{n} layers, at most {MAX_LAYERS} are supported"),
            Self::InvalidLayer(i) => write!(
                f,
                "layer {i} breaks d >= 0, n > 0, mua >= 0, mus >= 0, 0 <= g <= 1"
            ),
            Self::InvalidAmbient => write!(f, "ambient refractive indices must be > 0"),
            Self::InvalidGrid => write!(f, "dz, dr, nz, nr and na must be > 0"),
            Self::GridTooLarge => write!(
                f,
                "nr*nz + 2*nr*na + 2 tally bins exceed 2^32 - 1, the most a warp program addresses"
            ),
            Self::InvalidBeam(e) => write!(f, "beam: {e}"),
        }
    }
}

/// The incident beam: normal to the surface, centred on the origin, with total weight one
/// photon packet per launch. MCML itself knows only [`Beam::Pencil`]; the other two are the
/// beams of MCML's companion program CONV (Wang, Jacques & Zheng 1997), here sampled inside the
/// simulation: [`launch`](super::launch) draws each photon's entry point from the beam's
/// profile, from the photon's own random stream, before its first step.
///
/// `F` is `f64` on the host (lengths as an input gives them, in cm) and the physics' float in
/// [`McmlParams::beam`]. Plain `Copy` data (`#[repr(C, u32)]`), fit for a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C, u32)]
pub enum Beam<F = f64> {
    /// An infinitely narrow beam at r = 0 (MCML's). Draws no random number: a pencil-beam run
    /// is, bit for bit, the run of a build without beams.
    #[default]
    Pencil,
    /// A Gaussian profile of 1/e² radius `radius` (cm): irradiance
    /// `2P/(πR²) · exp(−2r²/R²)`. Entry radius `R · sqrt(−ln ξ / 2)`, ξ in (0, 1], then a
    /// uniform azimuth.
    Gaussian {
        /// The 1/e² radius R (cm), > 0.
        radius: F,
    },
    /// A flat (top-hat) profile of radius `radius` (cm): irradiance `P/(πR²)` for r ≤ R, 0
    /// beyond. Entry radius `R · sqrt(ξ)`, ξ in [0, 1), then a uniform azimuth.
    Flat {
        /// The radius R (cm), > 0.
        radius: F,
    },
}

impl<F: Copy> Beam<F> {
    /// The beam's radius (the 1/e² radius of a Gaussian), `None` for the pencil beam.
    pub fn radius(&self) -> Option<F> {
        match *self {
            Self::Pencil => None,
            Self::Gaussian { radius } | Self::Flat { radius } => Some(radius),
        }
    }

    /// The same profile with radius `f(radius)`.
    pub fn map_radius<G>(self, f: impl FnOnce(F) -> G) -> Beam<G> {
        match self {
            Self::Pencil => Beam::Pencil,
            Self::Gaussian { radius } => Beam::Gaussian { radius: f(radius) },
            Self::Flat { radius } => Beam::Flat { radius: f(radius) },
        }
    }
}

impl Beam<f64> {
    /// Checks the beam against a grid: the radius must be finite, > 0, and at most the grid's
    /// radial extent `nr · dr` (light of a wider beam lands mostly in the overflow bin, and no
    /// radial profile of it is recorded). The pencil beam always passes.
    pub fn check(&self, grid: &GridSpec) -> Result<(), BeamError> {
        let Some(radius) = self.radius() else {
            return Ok(());
        };
        if !radius.is_finite() {
            return Err(BeamError::NotFinite);
        }
        if radius <= 0.0 {
            return Err(BeamError::NotPositive);
        }
        let extent = f64::from(grid.nr) * grid.dr;
        if radius > extent {
            return Err(BeamError::WiderThanGrid);
        }
        Ok(())
    }
}

/// Why a beam was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeamError {
    /// The radius is infinite or NaN.
    NotFinite,
    /// The radius is 0 or negative.
    NotPositive,
    /// The radius exceeds the grid's radial extent `nr · dr`.
    WiderThanGrid,
    /// The radius rounds to 0 (or to a subnormal) in the run's float type.
    TooSmallForFloat,
}

impl core::fmt::Display for BeamError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotFinite => write!(f, "the radius must be a finite number"),
            Self::NotPositive => write!(f, "the radius must be > 0"),
            Self::WiderThanGrid => write!(
                f,
                "the radius exceeds the grid's radial extent nr x dr (raise nr or dr)"
            ),
            Self::TooSmallForFloat => {
                write!(f, "the radius rounds to 0 in the run's float type")
            }
        }
    }
}

/// A layer as the physics uses it: MCML's `LayerStruct`, with the constants the steps derive
/// from it.
///
/// Fields are ordered by use and the struct is 16-byte aligned, so that the GPU reads what a
/// step needs with a few vector loads (`ld.global.v4`) instead of one load per field:
/// `z0, z1, mua, mus` (step size and boundary test), `inv_mut, absorb_fraction, g, n`, then the
/// scattering terms.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C, align(16))]
pub struct Layer<F> {
    /// Depth of the top face (cm).
    pub z0: F,
    /// Depth of the bottom face (cm).
    pub z1: F,
    /// Absorption coefficient (1/cm).
    pub mua: F,
    /// Scattering coefficient (1/cm).
    pub mus: F,
    /// `1 / (µa + µs)` (cm), 0 in glass: a step is `-ln ξ · inv_mut`, no division.
    pub inv_mut: F,
    /// `µa / (µa + µs)`, 0 in glass: the fraction of the weight a drop absorbs.
    pub absorb_fraction: F,
    /// Henyey–Greenstein anisotropy.
    pub g: F,
    /// Refractive index.
    pub n: F,
    /// Henyey–Greenstein terms of [`super::spin_theta`]: `1 − g²`, `1 + g²`, `1 − g`, `2g` and
    /// `1 / (2g)` (0 when `g = 0`).
    pub hg: HenyeyGreenstein<F>,
    /// The top face, towards layer `i − 1`.
    pub above: Face<F>,
    /// The bottom face, towards layer `i + 1`.
    pub below: Face<F>,
}

/// What the boundary path reads at one face of a layer, side by side so that the GPU loads it
/// at once (one face's constants instead of both layers' indices and two scattered fields).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C, align(16))]
pub struct Face<F> {
    /// `n / n_beyond`, the index ratio at the face (Snell's law and the direction's rescaling
    /// when a photon crosses it); 1 for the ambient media.
    pub n_over: F,
    /// Fresnel reflectance at normal incidence, `((n_beyond − n) / (n_beyond + n))²` in `F` by
    /// the code [`super::fresnel`] uses (so the same bits): a boundary step then divides once
    /// instead of twice.
    pub r_normal: F,
    /// Whether the indices on both sides are equal in `F`: MCML's matched case, in which a
    /// photon crosses without reflection or refraction (the test [`super::fresnel`] makes on
    /// the two indices, made once on the host).
    pub matched: bool,
}

/// The per-layer constants of Henyey–Greenstein sampling (MCML's `SpinTheta`), computed once on
/// the host in f64 and rounded to `F`, so that a scattering costs one division instead of two.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct HenyeyGreenstein<F> {
    /// `1 − g²`.
    pub one_minus_g2: F,
    /// `1 + g²`.
    pub one_plus_g2: F,
    /// `1 − g`.
    pub one_minus_g: F,
    /// `2g`.
    pub two_g: F,
    /// `1 / (2g)`, 0 for `g = 0` (isotropic scattering needs none).
    pub inv_two_g: F,
}

impl<F: McmlFloat> HenyeyGreenstein<F> {
    /// The constants of anisotropy `g` (in f64, rounded to `F` once each). A `g` that rounds
    /// to 0 in `F` counts as 0, so that `two_g == 0` is exactly "isotropic in `F`".
    pub fn new(g: f64) -> Self {
        let g = if F::lit(g) == F::zero() { 0.0 } else { g };
        Self {
            one_minus_g2: F::lit(1.0 - g * g),
            one_plus_g2: F::lit(1.0 + g * g),
            one_minus_g: F::lit(1.0 - g),
            two_g: F::lit(2.0 * g),
            inv_two_g: F::lit(if g == 0.0 { 0.0 } else { 0.5 / g }),
        }
    }
}

/// The scoring grid in the physics' float type. Also gives the flat tally layout.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct Grid<F> {
    /// Depth bin size (cm).
    pub dz: F,
    /// Radial bin size (cm).
    pub dr: F,
    /// Angle bin size (rad), (π/2) / na.
    pub da: F,
    /// `1 / dz`: bin indices are multiplications, not divisions (as in GPU-MCML).
    pub inv_dz: F,
    /// `1 / dr`.
    pub inv_dr: F,
    /// `1 / da`.
    pub inv_da: F,
    /// Number of depth bins.
    pub nz: u32,
    /// Number of radial bins.
    pub nr: u32,
    /// Number of angle bins.
    pub na: u32,
}

impl<F> Grid<F> {
    /// The flat tally layout of this grid's bins.
    #[inline(always)]
    pub fn layout(&self) -> super::tally::TallyLayout {
        super::tally::TallyLayout {
            nz: self.nz,
            nr: self.nr,
            na: self.na,
        }
    }
}

/// Everything one photon needs: layers with ambient media, grid, specular reflectance.
///
/// `layers[0]` is the medium above, `layers[1..=num_layers]` the tissue, `layers[num_layers+1]`
/// the medium below (MCML's numbering). Plain `Copy` data: a GPU gets it by value.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct McmlParams<F> {
    /// Ambient, tissue and ambient layers; entries past `num_layers + 1` are unused.
    pub layers: [Layer<F>; MAX_LAYERS + 2],
    /// Number of tissue layers (1 ..= [`MAX_LAYERS`]).
    pub num_layers: u32,
    /// Scoring grid.
    pub grid: Grid<F>,
    /// Specular reflectance at launch (with the multiple reflections of a glass top layer).
    pub rsp: F,
    /// Whether photons start in layer 2 (layer 1 is glass and a layer 2 exists).
    pub start_layer: u32,
    /// [`ROULETTE_THRESHOLD`] in `F`.
    pub weight_threshold: F,
    /// [`ROULETTE_CHANCE`] in `F`.
    pub chance: F,
    /// The incident beam ([`Beam::Pencil`] unless [`McmlParams::with_beam`] says otherwise).
    pub beam: Beam<F>,
}

impl<F: McmlFloat> McmlParams<F> {
    /// Checks an input with MCML's rules and builds the physics parameters.
    ///
    /// Depths and the specular reflectance are computed in f64 and then rounded to `F` once,
    /// so f32 and f64 runs see the same geometry up to one rounding.
    ///
    /// A glass top layer puts its multiple reflections into the specular reflectance and starts
    /// photons in layer 2, as MCML does. When the only layer is glass there is no layer 2 (MCML
    /// reads undefined memory there); this port then takes the first face's reflectance only
    /// and lets the photon cross the glass explicitly.
    pub fn new(
        n_above: f64,
        layers: &[LayerSpec],
        n_below: f64,
        grid: GridSpec,
    ) -> Result<Self, ParamError> {
        if layers.is_empty() {
            return Err(ParamError::NoLayers);
        }
        if layers.len() > MAX_LAYERS {
            return Err(ParamError::TooManyLayers(layers.len()));
        }
        if !(n_above > 0.0 && n_below > 0.0 && n_above.is_finite() && n_below.is_finite()) {
            return Err(ParamError::InvalidAmbient);
        }
        if !(grid.dz > 0.0 && grid.dr > 0.0 && grid.dz.is_finite() && grid.dr.is_finite())
            || grid.nz == 0
            || grid.nr == 0
            || grid.na == 0
        {
            return Err(ParamError::InvalidGrid);
        }
        let (nr, nz, na) = (u64::from(grid.nr), u64::from(grid.nz), u64::from(grid.na));
        if nr * nz + 2 * nr * na + 2 > u64::from(u32::MAX) {
            return Err(ParamError::GridTooLarge);
        }
        let mut out = [Layer::<F>::default(); MAX_LAYERS + 2];
        out[0].n = F::lit(n_above);
        let mut z = 0.0f64;
        for (i, l) in layers.iter().enumerate() {
            let ok = l.d >= 0.0
                && l.n > 0.0
                && l.mua >= 0.0
                && l.mus >= 0.0
                && l.g >= 0.0
                && l.g <= 1.0
                && l.d.is_finite()
                && l.n.is_finite()
                && l.mua.is_finite()
                && l.mus.is_finite();
            if !ok {
                return Err(ParamError::InvalidLayer(i + 1));
            }
            let z1 = z + l.d;
            if let Some(slot) = out.get_mut(i + 1) {
                let mut_ = l.mua + l.mus;
                let (inv_mut, absorb_fraction) = if mut_ > 0.0 {
                    (1.0 / mut_, l.mua / mut_)
                } else {
                    (0.0, 0.0)
                };
                *slot = Layer {
                    z0: F::lit(z),
                    z1: F::lit(z1),
                    n: F::lit(l.n),
                    mua: F::lit(l.mua),
                    mus: F::lit(l.mus),
                    g: F::lit(l.g),
                    inv_mut: F::lit(inv_mut),
                    absorb_fraction: F::lit(absorb_fraction),
                    hg: HenyeyGreenstein::new(l.g),
                    // Set below, once every layer's index is known.
                    above: Face::default(),
                    below: Face::default(),
                };
            }
            z = z1;
        }
        if let Some(below) = out.get_mut(layers.len() + 1) {
            below.n = F::lit(n_below);
            below.z0 = F::lit(z);
            below.z1 = F::lit(z);
        }
        // Index ratios of every tissue layer's faces, in f64 from the inputs.
        let n_of = |i: usize| match i {
            0 => n_above,
            i if i <= layers.len() => layers[i - 1].n,
            _ => n_below,
        };
        for i in 0..=layers.len() + 1 {
            if let Some(slot) = out.get_mut(i) {
                let (up, down) = if i == 0 || i > layers.len() {
                    (1.0, 1.0)
                } else {
                    (n_of(i) / n_of(i - 1), n_of(i) / n_of(i + 1))
                };
                slot.above.n_over = F::lit(up);
                slot.below.n_over = F::lit(down);
            }
        }
        // Normal-incidence reflectances and matched indices of the tissue layers' faces, in `F`
        // from the indices as rounded to `F`, as the boundary path would compute them.
        for i in 1..=layers.len() {
            let n = |j: usize| out.get(j).map_or(F::one(), |l| l.n);
            let (above, here, below) = (n(i - 1), n(i), n(i + 1));
            if let Some(slot) = out.get_mut(i) {
                slot.above.r_normal = normal_reflectance(here, above);
                slot.below.r_normal = normal_reflectance(here, below);
                slot.above.matched = here == above;
                slot.below.matched = here == below;
            }
        }
        // MCML's Rspecular: Fresnel at normal incidence, plus the glass layer's multiple
        // reflections when layer 1 is glass.
        let n1 = layers[0].n;
        let q1 = (n_above - n1) / (n_above + n1);
        let mut r1 = q1 * q1;
        let mut start_layer = 1;
        if layers[0].is_glass() && layers.len() > 1 {
            let n2 = layers[1].n;
            let q2 = (n1 - n2) / (n1 + n2);
            let r2 = q2 * q2;
            r1 += (1.0 - r1) * (1.0 - r1) * r2 / (1.0 - r1 * r2);
            start_layer = 2;
        }
        Ok(Self {
            layers: out,
            num_layers: layers.len() as u32,
            grid: Grid {
                dz: F::lit(grid.dz),
                dr: F::lit(grid.dr),
                da: F::lit(0.5 * core::f64::consts::PI / f64::from(grid.na)),
                inv_dz: F::lit(1.0 / grid.dz),
                inv_dr: F::lit(1.0 / grid.dr),
                inv_da: F::lit(f64::from(grid.na) / (0.5 * core::f64::consts::PI)),
                nz: grid.nz,
                nr: grid.nr,
                na: grid.na,
            },
            rsp: F::lit(r1),
            start_layer,
            weight_threshold: F::lit(ROULETTE_THRESHOLD),
            chance: F::lit(ROULETTE_CHANCE),
            beam: Beam::Pencil,
        })
    }

    /// These parameters with photons entering through `beam` (radius in cm), checked against
    /// the grid ([`Beam::check`]) and rounded to `F` once; a radius that rounds to 0 or to a
    /// subnormal in `F` is refused.
    pub fn with_beam(mut self, beam: Beam) -> Result<Self, ParamError> {
        let grid = GridSpec {
            dz: self.grid.dz.as_f64(),
            dr: self.grid.dr.as_f64(),
            nz: self.grid.nz,
            nr: self.grid.nr,
            na: self.grid.na,
        };
        beam.check(&grid).map_err(ParamError::InvalidBeam)?;
        let beam = beam.map_radius(F::lit);
        if let Some(r) = beam.radius()
            && !(r.is_normal() && r > F::zero())
        {
            return Err(ParamError::InvalidBeam(BeamError::TooSmallForFloat));
        }
        self.beam = beam;
        Ok(self)
    }

    /// Layer `i` (0 = above, `num_layers + 1` = below). Out-of-range indices are clamped to
    /// the last entry instead of panicking (the physics never asks for one).
    #[inline(always)]
    pub fn layer(&self, i: u32) -> &Layer<F> {
        let i = (i as usize).min(MAX_LAYERS + 1);
        &self.layers[i]
    }

    /// The tally layout of this grid.
    #[inline(always)]
    pub fn layout(&self) -> super::tally::TallyLayout {
        self.grid.layout()
    }
}

impl<F: McmlFloat> Layer<F> {
    /// Glass: no absorption and no scattering, only Fresnel at the faces.
    #[inline(always)]
    pub fn is_glass(&self) -> bool {
        self.mua == F::zero() && self.mus == F::zero()
    }
}

/// What every photon step reads besides its layer, held by value: the grid, the layer count
/// and the roulette constants, beside a reference to the parameters for the layers.
///
/// A GPU warp program keeps its workload in registers. With the constants there, a step reads
/// only its layer from memory; through `&McmlParams` alone it would reload the grid after
/// every tally atomic, which the compiler must assume may have written it (six loads per
/// photon step). Built once per photon loop ([`StepView::new`]); the CPU gains nothing and
/// loses nothing.
#[derive(Clone, Copy, Debug)]
pub struct StepView<'p, F> {
    params: &'p McmlParams<F>,
    /// [`McmlParams::grid`].
    pub grid: Grid<F>,
    /// [`McmlParams::num_layers`].
    pub num_layers: u32,
    /// [`McmlParams::weight_threshold`].
    pub weight_threshold: F,
    /// [`McmlParams::chance`].
    pub chance: F,
}

impl<'p, F: McmlFloat> StepView<'p, F> {
    /// The view of `params`.
    #[inline(always)]
    pub fn new(params: &'p McmlParams<F>) -> Self {
        Self {
            params,
            grid: params.grid,
            num_layers: params.num_layers,
            weight_threshold: params.weight_threshold,
            chance: params.chance,
        }
    }

    /// The parameters it views.
    #[inline(always)]
    pub fn params(&self) -> &'p McmlParams<F> {
        self.params
    }

    /// [`McmlParams::layer`].
    #[inline(always)]
    pub fn layer(&self, i: u32) -> &'p Layer<F> {
        self.params.layer(i)
    }

    /// [`McmlParams::layout`], from the grid held by value.
    #[inline(always)]
    pub fn layout(&self) -> super::tally::TallyLayout {
        self.grid.layout()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tissue layer's normal-incidence reflectances are Fresnel's `((n1 − n2) / (n1 +
    /// n2))²` (within f32's rounding of the f64 value) and exactly what the boundary path's
    /// Fresnel code gives at normal incidence; a face is matched exactly where its two indices
    /// are equal (layers 3 and 4 share one here).
    #[test]
    fn normal_incidence_reflectances_are_fresnels() {
        let layer = |n, d| LayerSpec {
            n,
            mua: 1.0,
            mus: 100.0,
            g: 0.9,
            d,
        };
        let grid = GridSpec {
            dz: 0.01,
            dr: 0.01,
            nz: 10,
            nr: 10,
            na: 5,
        };
        let (n_above, n_below) = (1.0, 1.33);
        let specs = [
            layer(1.37, 0.1),
            layer(1.5, 0.2),
            layer(1.4, 0.3),
            layer(1.4, 0.4),
        ];
        let p = McmlParams::<f32>::new(n_above, &specs, n_below, grid).unwrap();
        let indices = [n_above, 1.37, 1.5, 1.4, 1.4, n_below];
        let matched: [(bool, bool); 4] = core::array::from_fn(|k| {
            let l = p.layer(k as u32 + 1);
            (l.above.matched, l.below.matched)
        });
        assert_eq!(
            matched,
            [(false, false), (false, false), (false, true), (true, false)]
        );
        for i in 1..=specs.len() {
            let l = p.layer(i as u32);
            let reference = |n1: f64, n2: f64| ((n1 - n2) / (n1 + n2)).powi(2);
            for (got, other) in [
                (l.above.r_normal, indices[i - 1]),
                (l.below.r_normal, indices[i + 1]),
            ] {
                let want = reference(indices[i], other);
                assert!(
                    (f64::from(got) - want).abs() <= want * 1e-5,
                    "layer {i}: {got} against {want}"
                );
            }
            let above = p.layer(i as u32 - 1).n;
            let below = p.layer(i as u32 + 1).n;
            let (r_up, _) = super::super::fresnel(l.n, above, l.above.n_over, 1.0);
            let (r_down, _) = super::super::fresnel(l.n, below, l.below.n_over, 1.0);
            assert_eq!(l.above.r_normal.to_bits(), r_up.to_bits(), "layer {i}");
            assert_eq!(l.below.r_normal.to_bits(), r_down.to_bits(), "layer {i}");
            assert_eq!(l.above.matched, l.n == above, "layer {i}");
            assert_eq!(l.below.matched, l.n == below, "layer {i}");
        }
    }
}
