//! Finite beams: the responses to a Gaussian or a flat (top-hat) beam, two ways that check
//! each other.
//!
//! MCML simulates an infinitely narrow (pencil) beam. Its companion program CONV (Wang, Jacques
//! & Zheng, "CONV: convolution for responses to a finite diameter photon beam incident on
//! multi-layered tissues", Comput. Methods Programs Biomed. 54, 1997) turns the pencil-beam
//! responses of an `.mco` into those of a finite beam by convolution. This module does both:
//!
//! - **Convolution as CONV does it** ([`convolve`], [`convolve_result`]; the integrals and their
//!   care near `r = 0` and beyond the grid in [`convolution`]): from a pencil-beam run's
//!   `Rd_r`, `Tt_r` and `A_rz`, the beam's `Rd(r)`, `Tt(r)` (J/cm²), `A(r, z)` (J/cm³) and
//!   fluence `Φ(r, z) = A(r, z)/µa` (J/cm²) for a beam of total energy `P` (J), or, the same
//!   numbers, of power `P` (W, then W/cm² and W/cm³).
//! - **A beam sampled inside the simulation**: set [`RunInput::beam`](crate::RunInput::beam)
//!   (or [`McmlParams::with_beam`](reconverge_workloads::mcml::McmlParams::with_beam)) and each
//!   photon enters at a point drawn from the beam's profile. Its `RunResult::rd_r()` etc. are
//!   then the responses to the beam per unit energy, directly.
//!
//! Both are functions of plain data: an [`ImpulseResponse`] (a [`RunResult`] or the arrays
//! of an `.mco`) and a [`Beam`] in, a [`BeamResponse`] with its grid out.
//!
//! ```
//! use reconverge_mcml::finite_beam::{Beam, ConvolveOptions, convolve_result};
//!
//! // A pencil-beam run of the van de Hulst slab (MCML manual, table 6.1), few photons.
//! let input = reconverge_mcml::builtin::van_de_hulst();
//! let pencil = reconverge_mcml::run(&input, 2_000, 1)?;
//! // Its responses to a Gaussian beam of 1/e² radius 0.1 cm and 1 J.
//! let beam = Beam::Gaussian { radius: 0.1 };
//! let out = convolve_result(&pencil, beam, &ConvolveOptions::default())?;
//! assert_eq!(out.r.len(), out.rd_r.len());
//! assert_eq!(out.fluence_rz.len(), out.r.len() * out.z.len());
//! // Under the beam's centre, the diffuse reflectance is about Rd · 2P/(πR²).
//! let peak = pencil.rd * 2.0 / (std::f64::consts::PI * 0.1 * 0.1);
//! assert!((out.rd_r[0] / peak - 1.0).abs() < 0.3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod convolution;
mod quadrature;
pub mod text;

pub use reconverge_workloads::mcml::{Beam, BeamError};
use reconverge_workloads::mcml::{GridSpec, LayerSpec};

use crate::RunResult;
use crate::mco_file::bin_centres;
pub use convolution::{GAUSS_LIMIT, Interpolation, RadialConvolution};

/// CONV's default total energy of the beam: 1 J.
pub const DEFAULT_POWER: f64 = 1.0;

/// The default tolerance of the convolution's quadrature (see [`convolution`]).
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// Pencil-beam responses per photon on MCML's grid: what an `.mco` holds, and what the
/// convolution needs of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpulseResponse {
    /// The grid (`dz`, `dr`, `nz`, `nr`; `na` is not used).
    pub grid: GridSpec,
    /// µa (1/cm) of the layer holding each depth bin's centre (MCML's `IzToLayer`), `nz`
    /// values: the fluence is `A / µa`.
    pub mua_z: Vec<f64>,
    /// `Rd_r` (1/cm²), `nr` values.
    pub rd_r: Vec<f64>,
    /// `Tt_r` (1/cm²), `nr` values.
    pub tt_r: Vec<f64>,
    /// `A_rz` (1/cm³), `nr · nz` values, r outer, z inner (the `.mco`'s order).
    pub a_rz: Vec<f64>,
}

/// Why a convolution was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConvolutionError {
    /// The beam's radius is not finite and > 0.
    #[error("beam: {0}")]
    Beam(BeamError),
    /// The pencil beam is the impulse response itself: there is nothing to convolve.
    #[error("the pencil beam needs no convolution (choose gaussian:R or flat:R)")]
    PencilBeam,
    /// The result is not a pencil-beam run's: convolving it would apply a beam twice.
    #[error("the run already sampled a finite beam ({0:?}); convolve a pencil-beam run")]
    NotPencilRun(Beam),
    /// An array has the wrong number of values for its grid.
    #[error("{what} has {found} values, the grid needs {expected}")]
    Length {
        /// Which array.
        what: &'static str,
        /// Values the grid needs.
        expected: usize,
        /// Values given.
        found: usize,
    },
    /// A grid size is not finite and > 0, or a count is 0.
    #[error("the grid's dz, dr must be finite and > 0, nz and nr > 0")]
    Grid,
    /// The total power is not finite and > 0.
    #[error("the beam's total power must be finite and > 0, not {0}")]
    Power(f64),
    /// The tolerance is not in (0, 1).
    #[error("the convolution tolerance must be in (0, 1), not {0}")]
    Tolerance(f64),
    /// The output grid is not finite and > 0, or has more bins (`nr · nz`) than a run may
    /// ([`crate::limits::MAX_TALLY_BINS`]).
    #[error("the output grid's dr must be finite and > 0, its nr > 0 and nr x nz at most 2^25")]
    OutputGrid,
}

/// How to convolve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvolveOptions {
    /// Total energy (J) or power (W) of the beam; CONV's default is 1 J.
    pub power: f64,
    /// Tolerance of the quadrature: the kernel's integrated weight is within this of the
    /// exact one (see [`convolution`]).
    pub tolerance: f64,
    /// The output's radial grid `(dr, nr)`: points at `(i + ½)·dr` (CONV's `drc`, `nrc`).
    /// `None`: the input's.
    pub output_grid: Option<(f64, u32)>,
    /// How the impulse response is taken between bin centres: CONV's linear interpolation
    /// (the default) or the bins' own values over their annuli, which keeps every bin's
    /// weight (see [`Interpolation`]).
    pub interpolation: Interpolation,
}

impl Default for ConvolveOptions {
    fn default() -> Self {
        Self {
            power: DEFAULT_POWER,
            tolerance: DEFAULT_TOLERANCE,
            output_grid: None,
            interpolation: Interpolation::Conv,
        }
    }
}

/// A finite beam's responses on a grid: values at the bin centres ([`Interpolation::Conv`],
/// as CONV writes them) or each bin's average over its annulus ([`Interpolation::Bins`], and a
/// sampled run's [`sampled_response`]), listed at the centres.
#[derive(Clone, Debug, PartialEq)]
pub struct BeamResponse {
    /// The beam.
    pub beam: Beam,
    /// Its total energy (J) or power (W).
    pub power: f64,
    /// Radial positions (cm): `(i + ½)·dr` of the output grid.
    pub r: Vec<f64>,
    /// Depths (cm): the input's depth bin centres `(i + ½)·dz`.
    pub z: Vec<f64>,
    /// Diffuse reflectance (J/cm², or W/cm² for a power), one per `r`.
    pub rd_r: Vec<f64>,
    /// Transmittance (J/cm²), one per `r`.
    pub tt_r: Vec<f64>,
    /// Absorbed energy density (J/cm³), `r` outer, `z` inner.
    pub a_rz: Vec<f64>,
    /// Fluence `A / µa` (J/cm²), `r` outer, `z` inner; 0 where µa = 0 (as CONV writes it).
    pub fluence_rz: Vec<f64>,
}

impl ImpulseResponse {
    /// The pencil-beam responses of `result`: refused for a run that sampled a finite beam.
    pub fn from_result(result: &RunResult) -> Result<Self, ConvolutionError> {
        if result.input.beam != Beam::Pencil {
            return Err(ConvolutionError::NotPencilRun(result.input.beam));
        }
        Self::new(
            result.input.grid,
            &result.input.layers,
            result.rd_r(),
            result.tt_r(),
            result.a_rz(),
        )
    }

    /// The responses of an `.mco`'s arrays on `grid` with `layers` (for µa per depth bin).
    pub fn new(
        grid: GridSpec,
        layers: &[LayerSpec],
        rd_r: Vec<f64>,
        tt_r: Vec<f64>,
        a_rz: Vec<f64>,
    ) -> Result<Self, ConvolutionError> {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        if !(ok(grid.dz) && ok(grid.dr)) || grid.nz == 0 || grid.nr == 0 {
            return Err(ConvolutionError::Grid);
        }
        let (nr, nz) = (grid.nr as usize, grid.nz as usize);
        for (what, values, expected) in [
            ("Rd_r", &rd_r, nr),
            ("Tt_r", &tt_r, nr),
            ("A_rz", &a_rz, nr * nz),
        ] {
            if values.len() != expected {
                return Err(ConvolutionError::Length {
                    what,
                    expected,
                    found: values.len(),
                });
            }
        }
        Ok(Self {
            grid,
            mua_z: mua_per_depth_bin(&grid, layers),
            rd_r,
            tt_r,
            a_rz,
        })
    }
}

/// µa of the layer holding each depth bin's centre (MCML's `IzToLayer`; bins below the last
/// layer count as the last layer's, as in `RunResult::a_l`).
pub fn mua_per_depth_bin(grid: &GridSpec, layers: &[LayerSpec]) -> Vec<f64> {
    let mut bottoms = Vec::with_capacity(layers.len());
    let mut z = 0.0;
    for l in layers {
        z += l.d;
        bottoms.push(z);
    }
    (0..grid.nz)
        .map(|iz| {
            let zc = (f64::from(iz) + 0.5) * grid.dz;
            let mut i = 0;
            while i + 1 < layers.len() && zc >= bottoms[i] {
                i += 1;
            }
            layers.get(i).map_or(0.0, |l| l.mua)
        })
        .collect()
}

/// Checks a beam for convolution: a Gaussian or flat beam of finite radius > 0.
fn check_beam(beam: Beam) -> Result<f64, ConvolutionError> {
    let radius = beam.radius().ok_or(ConvolutionError::PencilBeam)?;
    if !radius.is_finite() {
        return Err(ConvolutionError::Beam(BeamError::NotFinite));
    }
    if radius <= 0.0 {
        return Err(ConvolutionError::Beam(BeamError::NotPositive));
    }
    Ok(radius)
}

/// The responses of `impulse` to `beam` (CONV's convolution; see [`convolution`]).
pub fn convolve(
    impulse: &ImpulseResponse,
    beam: Beam,
    options: &ConvolveOptions,
) -> Result<BeamResponse, ConvolutionError> {
    check_beam(beam)?;
    let ConvolveOptions {
        power,
        tolerance,
        output_grid,
        interpolation,
    } = *options;
    if !(power.is_finite() && power > 0.0) {
        return Err(ConvolutionError::Power(power));
    }
    if !(tolerance > 0.0 && tolerance < 1.0) {
        return Err(ConvolutionError::Tolerance(tolerance));
    }
    let g = impulse.grid;
    let (drc, nrc) = output_grid.unwrap_or((g.dr, g.nr));
    let bins = u64::from(nrc) * u64::from(g.nz);
    if !(drc.is_finite() && drc > 0.0) || nrc == 0 || bins > crate::limits::MAX_TALLY_BINS {
        return Err(ConvolutionError::OutputGrid);
    }
    // The arrays may have been changed since `ImpulseResponse::new` checked them.
    let checked = ImpulseResponse::new(
        g,
        &[],
        impulse.rd_r.clone(),
        impulse.tt_r.clone(),
        impulse.a_rz.clone(),
    )?;
    if impulse.mua_z.len() != g.nz as usize {
        return Err(ConvolutionError::Length {
            what: "mua_z",
            expected: g.nz as usize,
            found: impulse.mua_z.len(),
        });
    }
    let r = bin_centres(nrc, drc);
    let z = bin_centres(g.nz, g.dz);
    // CONV's numbers are point values at the bin centres; the bins' interpolation gives bin
    // averages, as the tallies it is compared with (a sampled beam's) are.
    let conv = match interpolation {
        Interpolation::Conv => {
            RadialConvolution::new(g.dr, g.nr, beam, power, &r, tolerance, interpolation)
        }
        Interpolation::Bins => {
            RadialConvolution::over_bins(g.dr, g.nr, beam, power, drc, nrc, tolerance)
        }
    };
    let Some(conv) = conv else {
        return Err(ConvolutionError::PencilBeam);
    };
    let rd_r = conv.apply(&checked.rd_r);
    let tt_r = conv.apply(&checked.tt_r);
    let (nr, nz, nrc_) = (g.nr as usize, g.nz as usize, nrc as usize);
    let mut a_rz = vec![0.0; nrc_ * nz];
    let mut column = vec![0.0; nr];
    for iz in 0..nz {
        for (ir, c) in column.iter_mut().enumerate() {
            *c = checked.a_rz[ir * nz + iz];
        }
        for (irc, v) in conv.apply(&column).into_iter().enumerate() {
            a_rz[irc * nz + iz] = v;
        }
    }
    let fluence_rz = fluence(&a_rz, &impulse.mua_z);
    Ok(BeamResponse {
        beam,
        power,
        r,
        z,
        rd_r,
        tt_r,
        a_rz,
        fluence_rz,
    })
}

/// `A / µa` per bin of an `r`-outer, `z`-inner array, 0 where µa = 0 (CONV's `Frz`).
pub fn fluence(a_rz: &[f64], mua_z: &[f64]) -> Vec<f64> {
    let nz = mua_z.len().max(1);
    a_rz.iter()
        .enumerate()
        .map(|(i, &a)| {
            let mua = mua_z.get(i % nz).copied().unwrap_or(0.0);
            if mua > 0.0 { a / mua } else { 0.0 }
        })
        .collect()
}

/// [`convolve`] of a pencil-beam run's responses.
pub fn convolve_result(
    result: &RunResult,
    beam: Beam,
    options: &ConvolveOptions,
) -> Result<BeamResponse, ConvolutionError> {
    convolve(&ImpulseResponse::from_result(result)?, beam, options)
}

/// The responses of a run that sampled `result.input.beam` (or a pencil beam), per unit energy
/// times `power`, in [`BeamResponse`]'s form: the sampled twin of [`convolve_result`]. Values
/// are the bins' averages (MCML's normalisation), at the bin centres.
pub fn sampled_response(result: &RunResult, power: f64) -> BeamResponse {
    let g = result.input.grid;
    let scale = |v: Vec<f64>| v.into_iter().map(|x| x * power).collect::<Vec<_>>();
    let a_rz = scale(result.a_rz());
    let mua_z = mua_per_depth_bin(&g, &result.input.layers);
    BeamResponse {
        beam: result.input.beam,
        power,
        r: bin_centres(g.nr, g.dr),
        z: bin_centres(g.nz, g.dz),
        rd_r: scale(result.rd_r()),
        tt_r: scale(result.tt_r()),
        fluence_rz: fluence(&a_rz, &mua_z),
        a_rz,
    }
}

/// Why a beam could not be read from text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("beam {text:?}: {why} (expected pencil, gaussian:R or flat:R with R in cm)")]
pub struct BeamParseError {
    /// The text.
    pub text: String,
    /// What was wrong.
    pub why: String,
}

/// Reads a beam: `pencil`, `gaussian:R` (1/e² radius R in cm) or `flat:R` (radius R in
/// cm); the radius must be finite and > 0.
pub fn parse_beam(text: &str) -> Result<Beam, BeamParseError> {
    let fail = |why: &str| BeamParseError {
        text: text.to_string(),
        why: why.to_string(),
    };
    let t = text.trim();
    if t.eq_ignore_ascii_case("pencil") {
        return Ok(Beam::Pencil);
    }
    let (kind, radius) = t.split_once(':').ok_or_else(|| fail("no radius"))?;
    let radius: f64 = radius
        .trim()
        .parse()
        .map_err(|_| fail("the radius is not a number"))?;
    if !radius.is_finite() {
        return Err(fail("the radius must be finite"));
    }
    if radius <= 0.0 {
        return Err(fail("the radius must be > 0"));
    }
    match kind.trim().to_ascii_lowercase().as_str() {
        "gaussian" | "gauss" => Ok(Beam::Gaussian { radius }),
        "flat" => Ok(Beam::Flat { radius }),
        _ => Err(fail("unknown profile")),
    }
}

/// A beam in [`parse_beam`]'s form: `pencil`, `gaussian:0.1`, `flat:0.25`.
pub fn beam_label(beam: Beam) -> String {
    match beam {
        Beam::Pencil => "pencil".into(),
        Beam::Gaussian { radius } => format!("gaussian:{radius}"),
        Beam::Flat { radius } => format!("flat:{radius}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beams_read_back_from_their_labels_and_bad_ones_say_why() {
        for b in [
            Beam::Pencil,
            Beam::Gaussian { radius: 0.1 },
            Beam::Flat { radius: 2.5 },
        ] {
            assert_eq!(parse_beam(&beam_label(b)), Ok(b));
        }
        assert_eq!(
            parse_beam("Gaussian: 1e-2"),
            Ok(Beam::Gaussian { radius: 0.01 })
        );
        for bad in [
            "gaussian", "flat:0", "flat:-1", "flat:inf", "flat:NaN", "disk:1", "flat:x",
        ] {
            assert!(parse_beam(bad).is_err(), "{bad}");
        }
    }
}
