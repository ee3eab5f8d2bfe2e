//! Checks that a run can be done at all, before any photon or any large allocation.
//!
//! The `.mci` parser checks MCML's own rules (n > 0, 0 ≤ g ≤ 1 …). Those admit inputs that
//! cannot be run: values that overflow or vanish in the chosen float (µs = 1e39 in f32 is
//! infinite), grids whose tallies would not fit in memory (32767³ bins), grids whose
//! normalisations are not finite (dr = 1e-300 squares to 0), and layers in which a photon makes
//! no progress (µs = 1e300: every step is below the resolution of the position and the
//! albedo rounds to 1, so the photon neither moves nor loses weight, forever). [`check_run`]
//! refuses all of them with a [`LimitError`] that names the value (the `.mci` file and line
//! are added by [`crate::batch::plan`]).
//!
//! # The progress rule
//!
//! A photon ends by escaping or by roulette. Per tissue layer (glass layers go from face to
//! face and always progress), with µt = µa + µs in the run's float type:
//!
//! - if µa / µt is at least 4 ε of the float (so that one drop visibly lowers the weight), the
//!   photon plays roulette after about ln(10⁴) · µt / µa interactions at most;
//! - otherwise (no absorption, or absorption below the float's resolution) it must leave by
//!   transport, which takes about τ = µt · d interactions (the mean exit time of a diffusing
//!   photon that enters a slab of optical thickness τ);
//!
//! and the smaller of the two estimates must not exceed [`MAX_INTERACTIONS_PER_PHOTON`].
//! Besides, the mean step 1/µt must move a photon at the layer's top face (and, in a layer
//! left by transport only, at its bottom face) by at least 8 units in the last place of the
//! float: a step below that leaves the position unchanged. A non-absorbing semi-infinite
//! layer (d = 1e8 cm, µa = 0) is refused by this rule: its photons' mean lifetime is
//! unbounded.

use reconverge_workloads::mcml::{LayerSpec, McmlFloat, ROULETTE_THRESHOLD, TallyLayout};

use crate::RunInput;

/// Most tally bins (`A_rz` + `Rd_ra` + `Tt_ra` + 2) a run may have: 2²⁵ bins are 256 MiB of
/// `u64`, and a CPU run holds one copy per worker thread plus the derived `f64` arrays. MCML
/// inputs in use have far fewer (the 7-layer skin model: 112,002).
pub const MAX_TALLY_BINS: u64 = 1 << 25;

/// Bound on the estimated interactions of one photon (see the module docs). Tissue inputs are
/// far below it: the thick slab built-in gives about 8,300 (its absorption bound), the skin
/// model at most about 90 (its fat layer's optical thickness).
pub const MAX_INTERACTIONS_PER_PHOTON: f64 = 1e8;

/// Most threads (blocks × threads per block) of a backend launch: the CPU backend allocates
/// per block, and no GPU has more than a few hundred thousand threads resident (an H100:
/// 270,336), so a larger launch only costs memory and empty blocks.
pub const MAX_LAUNCH_THREADS: u64 = 1 << 24;

/// Which value of a run an error is about (to find its line in the `.mci` file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The number of photons.
    Photons,
    /// `dz dr`.
    GridSizes,
    /// `nz nr na`.
    GridCounts,
    /// The medium above.
    NAbove,
    /// Layer `k` (1-based).
    Layer(usize),
    /// The medium below.
    NBelow,
}

/// What makes a run impossible.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LimitError {
    /// A run needs at least one photon.
    #[error("the number of photons must be > 0")]
    NoPhotons,
    /// A value overflows, or a non-zero value vanishes or turns subnormal, in the float type.
    #[error("{what} = {value:e} does not fit in {float} (finite, normal numbers only)")]
    DoesNotFit {
        /// Which value.
        what: String,
        /// The value.
        value: f64,
        /// `f32` or `f64`.
        float: &'static str,
        /// Where it is.
        field: Field,
    },
    /// The tallies would not fit in memory.
    #[error("the grid needs {bins} tally bins ({bytes} bytes per copy); at most {max} are allowed")]
    TooManyBins {
        /// Bins asked for.
        bins: u64,
        /// Bytes of one tally copy.
        bytes: u64,
        /// [`MAX_TALLY_BINS`].
        max: u64,
    },
    /// A normalisation of MCML's outputs would not be a finite, non-zero number.
    #[error("{what} = {value:e} is not a finite, normal number: dz and dr are out of range")]
    Grid {
        /// Which derived value.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// Photons in a layer would not make progress, or would take too long.
    #[error("layer {layer}: {reason}")]
    NoProgress {
        /// 1-based layer number.
        layer: usize,
        /// Why.
        reason: String,
    },
    /// The launch would not fit in memory.
    #[error(
        "a launch of {blocks} blocks x {threads_per_block} threads = {threads} threads; at most {max}"
    )]
    LaunchTooLarge {
        /// Blocks.
        blocks: u32,
        /// Threads per block.
        threads_per_block: u32,
        /// Their product.
        threads: u64,
        /// [`MAX_LAUNCH_THREADS`].
        max: u64,
    },
}

impl LimitError {
    /// The value the error is about, if it is one value of the input.
    pub fn field(&self) -> Option<Field> {
        match self {
            Self::NoPhotons => Some(Field::Photons),
            Self::DoesNotFit { field, .. } => Some(*field),
            Self::TooManyBins { .. } => Some(Field::GridCounts),
            Self::Grid { .. } => Some(Field::GridSizes),
            Self::NoProgress { layer, .. } => Some(Field::Layer(*layer)),
            Self::LaunchTooLarge { .. } => None,
        }
    }
}

/// Name of `F`, and its machine epsilon.
fn float_of<F: McmlFloat>() -> (&'static str, f64) {
    // 1 + 1e-10 rounds to 1 in f32 and not in f64.
    if F::lit(1.0 + 1e-10).as_f64() == 1.0 {
        ("f32", f64::from(f32::EPSILON))
    } else {
        ("f64", f64::EPSILON)
    }
}

/// `x` rounded to `F`, if it is finite and neither a non-zero value turned zero nor subnormal.
fn fits<F: McmlFloat>(
    field: Field,
    what: impl FnOnce() -> String,
    x: f64,
) -> Result<F, LimitError> {
    let v = F::lit(x);
    let back = v.as_f64();
    let normal = back == 0.0 || back.abs() >= min_positive::<F>();
    if back.is_finite() && (x == 0.0) == (back == 0.0) && normal {
        Ok(v)
    } else {
        Err(LimitError::DoesNotFit {
            what: what(),
            value: x,
            float: float_of::<F>().0,
            field,
        })
    }
}

fn min_positive<F: McmlFloat>() -> f64 {
    match float_of::<F>().0 {
        "f32" => f64::from(f32::MIN_POSITIVE),
        _ => f64::MIN_POSITIVE,
    }
}

/// Tally bins of a grid, as `u64` (no overflow for any `u32` counts).
pub fn tally_bins(nz: u32, nr: u32, na: u32) -> u64 {
    let (nz, nr, na) = (u64::from(nz), u64::from(nr), u64::from(na));
    nr * nz + 2 * nr * na + 2
}

/// Checks that `run` can be run in float type `F`: every value fits, the tallies fit in
/// memory, MCML's normalisations are finite, and photons make progress in every layer (see
/// the module docs). Cheap: nothing is allocated.
pub fn check_run<F: McmlFloat>(run: &RunInput) -> Result<(), LimitError> {
    if run.photons == 0 {
        return Err(LimitError::NoPhotons);
    }
    let g = run.grid;
    let bins = tally_bins(g.nz, g.nr, g.na);
    if bins > MAX_TALLY_BINS {
        return Err(LimitError::TooManyBins {
            bins,
            bytes: bins.saturating_mul(8),
            max: MAX_TALLY_BINS,
        });
    }
    fits::<F>(Field::GridSizes, || "dz".into(), g.dz)?;
    fits::<F>(Field::GridSizes, || "dr".into(), g.dr)?;
    fits::<F>(
        Field::GridCounts,
        || "nz x dz".into(),
        f64::from(g.nz) * g.dz,
    )?;
    fits::<F>(
        Field::GridCounts,
        || "nr x dr".into(),
        f64::from(g.nr) * g.dr,
    )?;
    check_grid(run)?;
    fits::<F>(
        Field::NAbove,
        || "n of the medium above".into(),
        run.n_above,
    )?;
    fits::<F>(
        Field::NBelow,
        || "n of the medium below".into(),
        run.n_below,
    )?;
    let mut z = 0.0f64;
    for (i, l) in run.layers.iter().enumerate() {
        let k = i + 1;
        fits::<F>(Field::Layer(k), || format!("n of layer {k}"), l.n)?;
        let mua = fits::<F>(Field::Layer(k), || format!("mua of layer {k}"), l.mua)?;
        let mus = fits::<F>(Field::Layer(k), || format!("mus of layer {k}"), l.mus)?;
        fits::<F>(Field::Layer(k), || format!("g of layer {k}"), l.g)?;
        fits::<F>(Field::Layer(k), || format!("d of layer {k}"), l.d)?;
        let z0 = z;
        z += l.d;
        fits::<F>(
            Field::Layer(k),
            || format!("the depth of the bottom of layer {k}"),
            z,
        )?;
        let mut_ = fits::<F>(
            Field::Layer(k),
            || format!("mua + mus of layer {k}"),
            (mua + mus).as_f64(),
        )?;
        check_progress::<F>(k, l, mua.as_f64(), mut_.as_f64(), z0, z)?;
    }
    Ok(())
}

/// MCML's output normalisations (`shared/notes/mcml-formats.md`, section 2), smallest and
/// largest, must be finite and normal in f64, or the `.mco` gets `NAN`s and infinities.
fn check_grid(run: &RunInput) -> Result<(), LimitError> {
    use std::f64::consts::PI;
    let g = run.grid;
    let da = 0.5 * PI / f64::from(g.na);
    let ok = |what, value: f64| {
        if value.is_finite() && value >= f64::MIN_POSITIVE {
            Ok(())
        } else {
            Err(LimitError::Grid { what, value })
        }
    };
    let area = |ir: f64| 2.0 * PI * (ir + 0.5) * g.dr * g.dr;
    let nr = f64::from(g.nr);
    ok("the area of the first radial bin, pi dr^2", area(0.0))?;
    ok("the area of the last radial bin", area(nr - 1.0))?;
    ok("the volume of the first bin, pi dr^2 dz", area(0.0) * g.dz)?;
    ok("the volume of the last bin", area(nr - 1.0) * g.dz)?;
    let solid = |ir: f64, ia: f64| {
        4.0 * PI * PI * g.dr * g.dr * (da / 2.0).sin() * (ir + 0.5) * (2.0 * (ia + 0.5) * da).sin()
    };
    ok("the smallest Rd_ra normalisation", solid(0.0, 0.0))?;
    ok(
        "the largest Rd_ra normalisation",
        solid(nr - 1.0, 0.5 * f64::from(g.na)),
    )?;
    Ok(())
}

fn check_progress<F: McmlFloat>(
    layer: usize,
    l: &LayerSpec,
    mua: f64,
    mut_: f64,
    z0: f64,
    z1: f64,
) -> Result<(), LimitError> {
    if mut_ == 0.0 {
        return Ok(()); // glass
    }
    let (float, eps) = float_of::<F>();
    let fraction = mua / mut_;
    let absorbs = fraction >= 4.0 * eps;
    let by_absorption = (1.0 / ROULETTE_THRESHOLD).ln() / fraction;
    let by_transport = mut_ * l.d;
    let estimate = if absorbs {
        by_absorption.min(by_transport)
    } else {
        by_transport
    };
    let fail = |reason: String| Err(LimitError::NoProgress { layer, reason });
    if estimate.is_nan() || estimate > MAX_INTERACTIONS_PER_PHOTON {
        return fail(format!(
            "a photon would need about {estimate:.3e} interactions (mua + mus = {mut_:e} /cm, \
             d = {:e} cm, mua / (mua + mus) = {fraction:.3e}{}); at most {MAX_INTERACTIONS_PER_PHOTON:e} \
             are allowed",
            l.d,
            if absorbs {
                String::new()
            } else {
                format!(", below 4 eps of {float}: no absorption")
            }
        ));
    }
    let step = 1.0 / mut_;
    let faces: &[f64] = if absorbs { &[z0] } else { &[z0, z1] };
    for &z in faces {
        if step < 8.0 * eps * z.abs() {
            return fail(format!(
                "the mean step 1 / (mua + mus) = {step:e} cm is below the resolution of {float} \
                 at depth {z:e} cm: photons would not move"
            ));
        }
    }
    Ok(())
}

/// Checks a launch's size (see [`MAX_LAUNCH_THREADS`]).
pub fn check_launch(threads_per_block: u32, blocks: u32) -> Result<(), LimitError> {
    let threads = u64::from(threads_per_block) * u64::from(blocks);
    if threads > MAX_LAUNCH_THREADS {
        return Err(LimitError::LaunchTooLarge {
            blocks,
            threads_per_block,
            threads,
            max: MAX_LAUNCH_THREADS,
        });
    }
    Ok(())
}

/// The tally layout's length as a checked allocation: zeros, or an error naming the size.
pub(crate) fn zeroed_tally(layout: TallyLayout) -> Result<Vec<u64>, LimitError> {
    let bins = layout.len() as u64;
    let too_many = || LimitError::TooManyBins {
        bins,
        bytes: bins.saturating_mul(8),
        max: MAX_TALLY_BINS,
    };
    if bins > MAX_TALLY_BINS {
        return Err(too_many());
    }
    let mut v = Vec::new();
    v.try_reserve_exact(layout.len()).map_err(|_| too_many())?;
    v.resize(layout.len(), 0);
    Ok(v)
}
