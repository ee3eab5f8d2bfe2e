//! Finite beams two ways: CONV's convolution of a pencil-beam run against a run that samples the
//! beam inside the simulation, on two inputs (a one-layer slab with mismatched boundaries and
//! three layers, on coarse grids) for three radii of a Gaussian and of a flat beam;
//! and both against analytic limits.
//!
//! # How "agree within Monte Carlo noise" is decided
//!
//! Each way runs in `BATCHES` independent batches (separate random streams); per bin, the mean
//! over batches and its standard error `s/√K` are taken for both ways, and
//! `d = (mean_sampled − mean_convolved) / √(se_sampled² + se_convolved²)`. With `K` batches
//! `d` is about Student-t with `ν = K − 1` degrees of freedom, so `E[d²] = ν/(ν − 2)` and
//! `Var[d²] = 2ν²(ν − 1)/((ν − 2)²(ν − 4))`. The check passes when the mean of `d²` over the
//! compared bins stays below `E + 6·√(Var/n)`: the chi-square over bins, its limit set by the
//! photon count through the measured standard errors, with a margin of six standard deviations
//! for the bins' correlation and the residual blur of the pencil grid's bins; and every bin on
//! its own has `|d| ≤ 7` (`BIN_LIMIT`), so that a few bad bins cannot hide in the pool. A flat
//! beam's edge bins near the surface are also compared each with its own errors and a
//! tighter limit (`a_flat_beams_edge_bins_agree_bin_by_bin_with_the_sampled_beam`). Bins are compared where
//! both ways have a relative standard error below 0.05 (too few photons otherwise for the
//! normal approximation) and the beam lies inside the grid (`r + 3R` below the last bins).
//! A convolution with the radius doubled fails this check (tested), so it can fail.

use reconverge_mcml::finite_beam::{
    Beam, BeamResponse, ConvolveOptions, ImpulseResponse, Interpolation, convolve, convolve_result,
    sampled_response,
};
use reconverge_mcml::{RunInput, RunResult, Streams, run_streams};
use reconverge_workloads::mcml::{GridSpec, LayerSpec};

/// Independent batches of each way.
const BATCHES: usize = 12;

/// Bins are compared where both ways' relative standard error is below this: in bins reached
/// by few photons a batch's value is a sum of a few large weights, skewed, and its standard
/// error is correlated with its mean, so `d` is not near Student-t there. At 0.1, deep bins
/// of half that mean (0.07 ± 0.0065 sampled against 0.037 ± 0.0017 convolved) reached
/// `|d|` of 6-9 by chance: the two tests failed on 5 of 16 runs over eight seed sets, with the
/// photons' old generator (xoshiro128+) as with MWC64X. At 0.05 with `BIN_LIMIT` 7, none of
/// those 16 failed.
const MAX_RELATIVE_SE: f64 = 0.05;

/// A slab of optical thickness 10 (no unscattered light gets through: CONV's linear
/// interpolation smears the transmitted pencil beam's delta at r = 0, see the module docs of
/// `finite_beam::convolution`), n = 1.4 in air.
fn slab() -> RunInput {
    let mut input = reconverge_mcml::builtin::slab();
    input.layers = vec![LayerSpec {
        n: 1.4,
        mua: 1.0,
        mus: 100.0,
        g: 0.9,
        d: 0.1,
    }];
    input.grid = GridSpec {
        dz: 0.01,
        dr: 0.02,
        nz: 10,
        nr: 60,
        na: 1,
    };
    input
}

/// Three layers in air (index-matched to each other, mismatched to air) of different
/// scattering and absorption, 0.15 cm in all (optical thickness 8: no unscattered light gets
/// through), on a coarse grid.
fn layered() -> RunInput {
    let mut input = reconverge_mcml::builtin::slab();
    let layer = |mua, mus, g, d| LayerSpec {
        n: 1.37,
        mua,
        mus,
        g,
        d,
    };
    input.layers = vec![
        layer(1.0, 100.0, 0.9, 0.05),
        layer(1.0, 10.0, 0.0, 0.05),
        layer(2.0, 50.0, 0.7, 0.05),
    ];
    input.grid = GridSpec {
        dz: 0.01,
        dr: 0.02,
        nz: 15,
        nr: 60,
        na: 1,
    };
    input
}

fn batches(input: &RunInput, beam: Beam, photons: u64, seed: u64) -> Vec<RunResult> {
    let mut input = input.clone();
    input.beam = beam;
    (0..BATCHES as u64)
        .map(|k| {
            let streams = Streams {
                seed,
                first_photon: k * photons,
            };
            run_streams::<f64>(&input, photons, streams, None).expect("run")
        })
        .collect()
}

/// Per-bin mean and standard error over batches of one quantity.
fn mean_se(samples: &[Vec<f64>]) -> (Vec<f64>, Vec<f64>) {
    let k = samples.len() as f64;
    let n = samples[0].len();
    let mut mean = vec![0.0; n];
    let mut se = vec![0.0; n];
    for i in 0..n {
        let m = samples.iter().map(|s| s[i]).sum::<f64>() / k;
        let var = samples.iter().map(|s| (s[i] - m).powi(2)).sum::<f64>() / (k - 1.0);
        mean[i] = m;
        se[i] = (var / k).sqrt();
    }
    (mean, se)
}

/// The outcome of one comparison.
#[derive(Debug)]
struct Agreement {
    what: String,
    bins: usize,
    mean_d2: f64,
    limit: f64,
    worst: f64,
}

/// The largest `|d|` any one bin may have: with 11 degrees of freedom a bin is beyond 7 once
/// in about 44,000, so among the 150-220 bins of a fluence map about once in 200-290 maps by
/// chance (at 6, once in 11,000 bins: a test of a dozen maps failed about once in six runs);
/// a bin the convolution gets wrong, as point values at a flat beam's edge did (issue 43: `d`
/// of 8-10), is beyond it, and the flat beams' edge bins have their own tighter test.
const BIN_LIMIT: f64 = 7.0;

impl Agreement {
    fn ok(&self) -> bool {
        self.bins >= 5 && self.mean_d2 <= self.limit && self.worst <= BIN_LIMIT
    }
}

/// The chi-square check of the module docs over the bins `keep` admits.
fn agreement(
    what: String,
    sampled: &[Vec<f64>],
    convolved: &[Vec<f64>],
    keep: impl Fn(usize) -> bool,
) -> Agreement {
    let (ms, ss) = mean_se(sampled);
    let (mc, sc) = mean_se(convolved);
    let mut d2 = Vec::new();
    for i in 0..ms.len() {
        let noisy = |m: f64, s: f64| !(m > 0.0 && s > 0.0 && s < MAX_RELATIVE_SE * m);
        if !keep(i) || noisy(ms[i], ss[i]) || noisy(mc[i], sc[i]) {
            continue;
        }
        d2.push((ms[i] - mc[i]).powi(2) / (ss[i] * ss[i] + sc[i] * sc[i]));
        // `DEBUG_BINS=1 cargo test ... -- --nocapture` names the bins beyond 3 standard errors,
        // to see where two ways part (that is how CONV's overweight near the axis was found).
        if std::env::var("DEBUG_BINS").is_ok() && *d2.last().unwrap() > 9.0 {
            eprintln!(
                "  {what} bin {i}: sampled {} ± {}, convolved {} ± {}",
                ms[i], ss[i], mc[i], sc[i]
            );
        }
    }
    let nu = (BATCHES - 1) as f64;
    let expected = nu / (nu - 2.0);
    let var = 2.0 * nu * nu * (nu - 1.0) / ((nu - 2.0).powi(2) * (nu - 4.0));
    let n = d2.len().max(1) as f64;
    Agreement {
        what,
        bins: d2.len(),
        mean_d2: d2.iter().sum::<f64>() / n,
        limit: expected + 6.0 * (var / n).sqrt(),
        worst: d2.iter().copied().fold(0.0, f64::max).sqrt(),
    }
}

/// The three comparisons (Rd(r), Tt(r), Φ(r, z)) of `sampled` against `convolved` batches,
/// for a beam reaching `reach` cm from its axis, on `grid`.
fn compare(
    name: &str,
    grid: GridSpec,
    reach: f64,
    sampled: &[BeamResponse],
    convolved: &[BeamResponse],
) -> Vec<Agreement> {
    let inside =
        |ir: usize| (ir as f64 + 0.5) * grid.dr + reach <= (f64::from(grid.nr) - 2.0) * grid.dr;
    let nz = grid.nz as usize;
    let pick = |f: fn(&BeamResponse) -> &Vec<f64>, of: &[BeamResponse]| {
        of.iter().map(|b| f(b).clone()).collect::<Vec<_>>()
    };
    vec![
        agreement(
            format!("{name} Rd(r)"),
            &pick(|b| &b.rd_r, sampled),
            &pick(|b| &b.rd_r, convolved),
            inside,
        ),
        agreement(
            format!("{name} Tt(r)"),
            &pick(|b| &b.tt_r, sampled),
            &pick(|b| &b.tt_r, convolved),
            inside,
        ),
        agreement(
            format!("{name} fluence(r, z)"),
            &pick(|b| &b.fluence_rz, sampled),
            &pick(|b| &b.fluence_rz, convolved),
            // The last depth bin collects what lies below the grid.
            |i| inside(i / nz) && i % nz + 1 < nz,
        ),
    ]
}

/// Radial sub-points per output bin at which the convolution is evaluated, to be averaged
/// over the bin as the sampled run's tallies are.
const SUB: u32 = 4;

/// How much finer the pencil-beam runs' radial grid is than the compared grid: CONV's linear
/// interpolation between bin centres misplaces the weight of an impulse response peaked on
/// the axis within its first bin (up to 12.5 % of a delta's), and the pencil beam's absorption
/// near the entry point is so peaked; a finer impulse grid resolves it.
const FINE: u32 = 4;

/// `input` with the radial grid `FINE` times finer (same extent).
fn fine(input: &RunInput) -> RunInput {
    let mut fine = input.clone();
    fine.grid.dr /= f64::from(FINE);
    fine.grid.nr *= FINE;
    fine
}

/// Convolves each pencil batch with `beam` at `SUB` points per bin of `grid` and averages them
/// over each bin's area: the convolution's bin averages, comparable with a sampled run's.
fn convolved(
    pencil: &[RunResult],
    beam: Beam,
    grid: GridSpec,
    interpolation: Interpolation,
) -> Vec<BeamResponse> {
    let options = ConvolveOptions {
        output_grid: Some((grid.dr / f64::from(SUB), grid.nr * SUB)),
        interpolation,
        ..Default::default()
    };
    pencil
        .iter()
        .map(|p| {
            let points = convolve_result(p, beam, &options).expect("convolve");
            bin_averages(&points, grid)
        })
        .collect()
}

/// The area averages over the bins of `grid` of point values at `SUB` points per bin.
fn bin_averages(points: &BeamResponse, grid: GridSpec) -> BeamResponse {
    let (nr, nz, sub) = (grid.nr as usize, grid.nz as usize, SUB as usize);
    let average = |values: &[f64], stride: usize, offset: usize| -> Vec<f64> {
        (0..nr)
            .map(|i| {
                let (mut sum, mut weight) = (0.0, 0.0);
                for k in i * sub..(i + 1) * sub {
                    sum += values[k * stride + offset] * points.r[k];
                    weight += points.r[k];
                }
                sum / weight
            })
            .collect()
    };
    let rz = |values: &[f64]| {
        let columns: Vec<Vec<f64>> = (0..nz).map(|iz| average(values, nz, iz)).collect();
        (0..nr * nz)
            .map(|i| columns[i % nz][i / nz])
            .collect::<Vec<_>>()
    };
    BeamResponse {
        beam: points.beam,
        power: points.power,
        r: (0..nr).map(|i| (i as f64 + 0.5) * grid.dr).collect(),
        z: points.z.clone(),
        rd_r: average(&points.rd_r, 1, 0),
        tt_r: average(&points.tt_r, 1, 0),
        a_rz: rz(&points.a_rz),
        fluence_rz: rz(&points.fluence_rz),
    }
}

fn check_input(name: &str, input: RunInput, radii: [f64; 3], photons: u64) {
    let pencil = batches(&fine(&input), Beam::Pencil, photons, 11);
    let mut failed = Vec::new();
    for (k, &radius) in radii.iter().enumerate() {
        for beam in [Beam::Gaussian { radius }, Beam::Flat { radius }] {
            let sampled: Vec<BeamResponse> = batches(&input, beam, photons, 100 + k as u64)
                .iter()
                .map(|r| sampled_response(r, 1.0))
                .collect();
            let reach = match beam {
                Beam::Gaussian { radius } => 3.0 * radius,
                _ => radius,
            };
            for interpolation in [Interpolation::Conv, Interpolation::Bins] {
                let label = format!("{name} {beam:?} {interpolation:?}");
                let conv = convolved(&pencil, beam, input.grid, interpolation);
                let checks = compare(&label, input.grid, reach, &sampled, &conv);
                for (i, a) in checks.into_iter().enumerate() {
                    eprintln!(
                        "{}: {} bins, mean d^2 {:.3} (limit {:.3}), worst |d| {:.2}",
                        a.what, a.bins, a.mean_d2, a.limit, a.worst
                    );
                    // CONV's interpolation overweights the pencil beam's absorption on the
                    // axis near the surface (see `Interpolation::Conv`): its fluence is
                    // compared through the bins' interpolation only.
                    let fluence = i == 2;
                    let exempt = fluence && interpolation == Interpolation::Conv;
                    if !(a.ok() || exempt) {
                        failed.push(a);
                    }
                }
            }
        }
    }
    assert!(
        failed.is_empty(),
        "disagree beyond Monte Carlo noise: {failed:#?}"
    );
}

#[test]
fn sampled_and_convolved_beams_agree_on_a_slab() {
    check_input("slab", slab(), [0.05, 0.1, 0.2], 2_000);
}

#[test]
fn sampled_and_convolved_beams_agree_on_three_layers() {
    check_input("layers", layered(), [0.05, 0.1, 0.2], 2_000);
}

/// The check can fail: the convolution with twice the sampled beam's radius is refused.
#[test]
fn a_convolution_with_the_wrong_radius_fails_the_check() {
    let input = slab();
    let pencil = batches(&fine(&input), Beam::Pencil, 2_000, 11);
    for beam in [Beam::Gaussian { radius: 0.1 }, Beam::Flat { radius: 0.1 }] {
        let sampled: Vec<BeamResponse> = batches(&input, beam, 2_000, 100)
            .iter()
            .map(|r| sampled_response(r, 1.0))
            .collect();
        let wrong = beam.map_radius(|r| 2.0 * r);
        let checks = compare(
            "slab",
            input.grid,
            0.3,
            &sampled,
            &convolved(&pencil, wrong, input.grid, Interpolation::Conv),
        );
        let rd = &checks[0];
        assert!(
            rd.bins >= 5 && !rd.ok(),
            "{beam:?} at twice its radius passed: {rd:?}"
        );
    }
}

/// A flat beam much wider than the light's spread: under its centre the reflectance is the
/// pencil beam's total (a 1-D, laterally integrated quantity) times the irradiance
/// `P/(πR²)`, for both ways.
#[test]
fn a_wide_flat_beam_gives_the_one_dimensional_reflectance_at_its_centre() {
    let input = slab();
    let radius = 1.0;
    let beam = Beam::Flat { radius };
    let pencil = batches(&input, Beam::Pencil, 2_000, 11);
    let irradiance = 1.0 / (std::f64::consts::PI * radius * radius);
    let rd: Vec<f64> = pencil.iter().map(|p| p.rd).collect();
    let centre = |b: &BeamResponse| b.rd_r[..10].iter().sum::<f64>() / 10.0;
    let conv: Vec<f64> = convolved(&pencil, beam, input.grid, Interpolation::Conv)
        .iter()
        .map(centre)
        .collect();
    let sampled: Vec<f64> = batches(&input, beam, 2_000, 7)
        .iter()
        .map(|r| centre(&sampled_response(r, 1.0)))
        .collect();
    let (m_rd, se_rd) = mean_se(&rd.iter().map(|&v| vec![v]).collect::<Vec<_>>());
    let expected = m_rd[0] * irradiance;
    for (what, values) in [("convolved", conv), ("sampled", sampled)] {
        let rows: Vec<Vec<f64>> = values.iter().map(|&v| vec![v]).collect();
        let (m, se) = mean_se(&rows);
        let tolerance = 4.0 * (se[0].powi(2) + (se_rd[0] * irradiance).powi(2)).sqrt();
        assert!(
            (m[0] - expected).abs() <= tolerance,
            "{what}: {} vs Rd P/(pi R^2) = {expected} (tolerance {tolerance})",
            m[0]
        );
    }
}

/// The Gaussian convolution against a closed form: a Gaussian impulse response
/// `exp(−r²/s²)/(πs²)` convolved with a Gaussian beam of 1/e² radius R (variance R²/4 per
/// axis) is a Gaussian of variance `s²/2 + R²/4` per axis and total power P.
#[test]
fn gaussian_impulse_convolves_to_the_closed_form() {
    let (dr, nr, s) = (0.005, 400u32, 0.1);
    let grid = GridSpec {
        dz: 0.1,
        dr,
        nz: 1,
        nr,
        na: 1,
    };
    let g = |r: f64| (-(r * r) / (s * s)).exp() / (std::f64::consts::PI * s * s);
    let profile: Vec<f64> = (0..nr).map(|i| g((f64::from(i) + 0.5) * dr)).collect();
    let layer = LayerSpec {
        n: 1.0,
        mua: 1.0,
        mus: 0.0,
        g: 0.0,
        d: 1.0,
    };
    let impulse =
        ImpulseResponse::new(grid, &[layer], profile.clone(), profile.clone(), profile).unwrap();
    for radius in [0.02, 0.1, 0.3] {
        let out = convolve(
            &impulse,
            Beam::Gaussian { radius },
            &ConvolveOptions {
                power: 2.0,
                ..Default::default()
            },
        )
        .unwrap();
        let v = s * s / 2.0 + radius * radius / 4.0;
        let peak = 2.0 / (2.0 * std::f64::consts::PI * v);
        for (r, c) in out.r.iter().zip(&out.rd_r).take(150) {
            let want = peak * (-(r * r) / (2.0 * v)).exp();
            // Linear interpolation between bin centres: error about G'' dr² / 8 (6e-4 of G).
            assert!(
                (c - want).abs() <= 2e-3 * peak,
                "R {radius} r {r}: {c} vs {want}"
            );
        }
    }
}

/// A sampled beam is refused before any photon when its radius is not finite and > 0 or
/// exceeds the grid; the pencil beam draws nothing extra (the pencil-beam tallies are those of
/// the input without a beam, bit for bit, which the other test files check against MCML).
#[test]
fn bad_beams_are_refused_before_work() {
    use reconverge_mcml::RunError;
    use reconverge_workloads::mcml::{BeamError, ParamError};
    let input = slab();
    for (beam, why) in [
        (Beam::Gaussian { radius: 0.0 }, BeamError::NotPositive),
        (Beam::Flat { radius: -1.0 }, BeamError::NotPositive),
        (Beam::Flat { radius: f64::NAN }, BeamError::NotFinite),
        (
            Beam::Gaussian {
                radius: f64::INFINITY,
            },
            BeamError::NotFinite,
        ),
        (Beam::Gaussian { radius: 5.0 }, BeamError::WiderThanGrid),
    ] {
        let mut i = input.clone();
        i.beam = beam;
        assert_eq!(
            reconverge_mcml::run(&i, 10, 1).err(),
            Some(RunError::Params(ParamError::InvalidBeam(why))),
            "{beam:?}"
        );
    }
    let mut tiny = input.clone();
    tiny.beam = Beam::Flat { radius: 1e-300 };
    assert_eq!(
        run_streams::<f32>(&tiny, 10, Streams::new(1), None).err(),
        Some(RunError::Params(ParamError::InvalidBeam(
            BeamError::TooSmallForFloat
        )))
    );
    // Convolution refuses what it cannot do.
    let pencil = reconverge_mcml::run(&input, 100, 1).unwrap();
    assert!(convolve_result(&pencil, Beam::Pencil, &ConvolveOptions::default()).is_err());
    let mut sampled_input = input.clone();
    sampled_input.beam = Beam::Flat { radius: 0.1 };
    let sampled = reconverge_mcml::run(&sampled_input, 100, 1).unwrap();
    assert!(
        convolve_result(
            &sampled,
            Beam::Flat { radius: 0.1 },
            &ConvolveOptions::default()
        )
        .is_err()
    );
}

/// The pencil beam costs nothing: the same tallies as before beams existed, and a finite beam
/// really moves the light (its Rd(r) near the axis is lower, its total the same within noise).
#[test]
fn the_pencil_beam_is_the_default_and_a_finite_beam_spreads_the_light() {
    let input = slab();
    assert_eq!(input.beam, Beam::Pencil);
    let pencil = reconverge_mcml::run(&input, 4_000, 3).unwrap();
    let mut wide = input.clone();
    wide.beam = Beam::Flat { radius: 0.5 };
    let flat = reconverge_mcml::run(&wide, 4_000, 3).unwrap();
    assert!(flat.rd_r()[0] < 0.2 * pencil.rd_r()[0]);
    assert!(
        (flat.rd - pencil.rd).abs() < 0.02,
        "{} vs {}",
        flat.rd,
        pencil.rd
    );
}

/// A checkpoint of a run with one beam is refused for a run with another; the pencil beam
/// leaves the key as it was before beams existed (its CRC covers the layers and grid only).
#[test]
fn checkpoints_tell_beams_apart() {
    use reconverge_mcml::checkpoint::RunKey;
    let input = slab();
    let key = |beam| {
        let mut i = input.clone();
        i.beam = beam;
        RunKey::new(&i, 100, Streams::new(1), 64)
    };
    let pencil = key(Beam::Pencil);
    let gaussian = key(Beam::Gaussian { radius: 0.1 });
    let flat = key(Beam::Flat { radius: 0.1 });
    assert_ne!(pencil, gaussian);
    assert_ne!(gaussian, flat);
    assert_ne!(gaussian, key(Beam::Gaussian { radius: 0.2 }));
    // The key of the layers and grid alone, computed as before beams existed.
    let mut h = crc32fast::Hasher::new();
    let mut f = |x: f64| h.update(&x.to_bits().to_le_bytes());
    f(input.n_above);
    f(input.n_below);
    for l in &input.layers {
        for x in [l.n, l.mua, l.mus, l.g, l.d] {
            f(x);
        }
    }
    f(input.grid.dz);
    f(input.grid.dr);
    for n in [input.grid.nz, input.grid.nr, input.grid.na] {
        h.update(&n.to_le_bytes());
    }
    h.update(&(input.layers.len() as u64).to_le_bytes());
    assert_eq!(pencil.input_crc, h.finalize());
}

/// Issue 43, point 3: at a flat beam's edge near the surface the fluence falls by a factor of
/// several within one bin, and a pooled chi-square over all bins hides a few bad ones. Here each
/// bin either side of `r = R` (R = 0.105 cm inside the bin [0.10, 0.12) cm of dr = 0.02 cm) in
/// the top 0.04 cm is compared on its own: the bins' convolution of the pencil-beam batches
/// against the sampled beam's, `d` from both estimates' standard errors, and their relative
/// difference against `EDGE_RESIDUAL` for the blur the pencil grid's bins leave (see
/// `Interpolation::Bins`).
fn edge_bins(pencil_grid: &RunInput, photons: u64) -> Vec<(usize, usize, f64, f64)> {
    let input = slab();
    let beam = Beam::Flat { radius: 0.105 };
    let pencil = batches(pencil_grid, Beam::Pencil, photons, 11);
    let sampled: Vec<Vec<f64>> = batches(&input, beam, photons, 100)
        .iter()
        .map(|r| sampled_response(r, 1.0).fluence_rz)
        .collect();
    let options = ConvolveOptions {
        output_grid: Some((input.grid.dr, input.grid.nr)),
        interpolation: Interpolation::Bins,
        ..Default::default()
    };
    let convolved: Vec<Vec<f64>> = pencil
        .iter()
        .map(|p| {
            convolve_result(p, beam, &options)
                .expect("convolve")
                .fluence_rz
        })
        .collect();
    let (ms, ss) = mean_se(&sampled);
    let (mc, sc) = mean_se(&convolved);
    let nz = input.grid.nz as usize;
    let mut out = Vec::new();
    for ir in 4..=6 {
        for iz in 0..4 {
            let i = ir * nz + iz;
            let d = (ms[i] - mc[i]) / (ss[i] * ss[i] + sc[i] * sc[i]).sqrt();
            let rel = mc[i] / ms[i] - 1.0;
            eprintln!(
                "r bin {ir}, z bin {iz}: sampled {:.4} ± {:.4}, convolved {:.4} ± {:.4}: {:+.1} %, d = {d:+.2}",
                ms[i],
                ss[i],
                mc[i],
                sc[i],
                100.0 * rel
            );
            out.push((ir, iz, d, rel));
        }
    }
    out
}

/// What the pencil grid's bins leave at the edge when the pencil run has the output's grid:
/// the two bins either side of `r = R` near the surface (`Interpolation::Bins`' docs quote this
/// test's figures).
const EDGE_RESIDUAL: f64 = 0.2;

#[test]
fn a_flat_beams_edge_bins_agree_bin_by_bin_with_the_sampled_beam() {
    // A pencil grid 4x finer than the output's: every edge bin within Monte Carlo noise (12
    // bins of Student-t with 11 degrees of freedom: beyond 4 in about 1 of 400 such tests).
    eprintln!("pencil grid 4x finer:");
    for (ir, iz, d, rel) in edge_bins(&fine(&slab()), 4_000) {
        assert!(
            d.abs() < 4.0,
            "r bin {ir}, z bin {iz}: d = {d:.2} ({:+.1} %)",
            100.0 * rel
        );
    }
    // The output's own grid: the blur of one pencil bin remains, within the documented bound.
    eprintln!("pencil grid the same:");
    for (ir, iz, d, rel) in edge_bins(&slab(), 4_000) {
        assert!(
            rel.abs() < EDGE_RESIDUAL,
            "r bin {ir}, z bin {iz}: {:+.1} % (d = {d:.2})",
            100.0 * rel
        );
    }
}
