//! MCML against adding-doubling, a deterministic solution of the same transport equation that
//! shares no code or assumption with Monte Carlo (Prahl's method, as `iadpython` implements
//! it): slabs of index n in air (mismatched boundaries), normal collimated incidence.
//!
//! Reference values: `iadpython` 0.5.3, 48 quadrature points, `Sample(a, b, g, n, n_above=1,
//! n_below=1).rt()`, whose UR1 (total reflectance, specular included) and UT1 (total
//! transmittance, unscattered included) are MCML's Rsp + Rd and Tt. The script is
//! `tests/data/adding_doubling.py`, its output `tests/data/adding_doubling.txt`.
//!
//! Each estimate is the mean of 40 runs of one `.mci`-style run list (independent streams, as
//! [`reconverge_mcml::Streams`] documents), with the standard error from their spread, as MCML
//! users estimate it; each must lie within 4 standard errors of the reference.

use reconverge_mcml::batch::{PlanOptions, plan};
use reconverge_mcml::{OutputFormat, RunInput, RunLines, run_streams};
use reconverge_workloads::mcml::{GridSpec, LayerSpec, McmlFloat};

/// (albedo a, optical thickness b, g, n, reference R, reference T).
const CASES: [(f64, f64, f64, f64, f64, f64); 7] = [
    // The top layer of MCML's sample.mci (mua 1, mus 100 /cm, d 0.2 cm): see the crate docs.
    (100.0 / 101.0, 20.2, 0.9, 1.37, 0.279874, 0.262641),
    (0.5, 1.0, 0.0, 1.5, 0.085210, 0.374787),
    (0.9, 2.0, 0.75, 1.4, 0.116214, 0.527031),
    (0.95, 5.0, 0.5, 1.33, 0.284718, 0.219159),
    (0.8, 0.5, 0.9, 1.6, 0.095086, 0.778282),
    (0.99, 4.0, 0.0, 1.2, 0.593789, 0.298438),
    (0.3, 10.0, 0.8, 1.5, 0.041646, 0.000291),
];

/// Runs per estimate. With 40, a standard error from their spread has 39 degrees of freedom:
/// the chance that any of the 14 checks fails by chance alone (|t| > 4) is about 0.4 %, where
/// 10 runs would give 4 %.
const RUNS: usize = 40;

fn slab(a: f64, b: f64, g: f64, n: f64, photons: u64) -> RunInput {
    // mua + mus = 10 /cm (101 /cm for the sample.mci layer, to keep its exact values).
    let mut_ = if b == 20.2 { 101.0 } else { 10.0 };
    RunInput {
        output_file: "slab.mco".into(),
        format: OutputFormat::Ascii,
        photons,
        grid: GridSpec {
            dz: 0.1,
            dr: 0.1,
            nz: 1,
            nr: 1,
            na: 1,
        },
        n_above: 1.0,
        layers: vec![LayerSpec {
            n,
            mua: mut_ * (1.0 - a),
            mus: mut_ * a,
            g,
            d: b / mut_,
        }],
        n_below: 1.0,
        line: 0,
        lines: RunLines::default(),
        beam: Default::default(),
    }
}

/// Mean and standard error of (R, T) over [`RUNS`] runs continuing one stream sequence.
fn estimate<F: McmlFloat>(input: &RunInput, seed: u64) -> ((f64, f64), (f64, f64)) {
    let runs = vec![input.clone(); RUNS];
    let options = PlanOptions {
        source: "adding-doubling".into(),
        seed,
        ..Default::default()
    };
    let planned = plan::<F>(&runs, &options).expect("valid input");
    let (r, t): (Vec<f64>, Vec<f64>) = planned
        .iter()
        .map(|p| {
            let res = run_streams::<F>(&p.input, p.input.photons, p.streams, None).unwrap();
            (res.rsp + res.rd, res.tt)
        })
        .unzip();
    let stat = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, (var / n).sqrt())
    };
    (stat(&r), stat(&t))
}

fn check(name: &str, (mean, se): (f64, f64), reference: f64) {
    eprintln!("{name}: {mean:.6} +- {se:.6} (adding-doubling {reference:.6})");
    assert!(se > 0.0, "{name}: zero spread");
    assert!(
        (mean - reference).abs() <= 4.0 * se,
        "{name}: {mean} +- {se} is {:.1} standard errors from adding-doubling's {reference}",
        (mean - reference).abs() / se
    );
}

fn run_case<F: McmlFloat>(i: usize, photons: u64) {
    let (a, b, g, n, r_ref, t_ref) = CASES[i];
    let (r, t) = estimate::<F>(&slab(a, b, g, n, photons), 1 + i as u64);
    let name = format!("a {a:.4} b {b} g {g} n {n}");
    check(&format!("{name}: R"), r, r_ref);
    check(&format!("{name}: T"), t, t_ref);
}

/// One test per case of [`CASES`] (they run in parallel): its index, float type and photons
/// per run.
macro_rules! case_tests {
    ($($name:ident: $i:literal, $float:ty, $photons:literal;)*) => {
        $(
            #[test]
            fn $name() {
                run_case::<$float>($i, $photons);
            }
        )*
    };
}

case_tests! {
    sample_mci_top_layer: 0, f64, 25_000;
    thin_isotropic: 1, f64, 25_000;
    van_de_hulst_like_mismatched: 2, f64, 25_000;
    moderate_thickness: 3, f64, 12_500;
    very_thin_forward_scattering_in_f32: 4, f32, 25_000;
    high_albedo_isotropic: 5, f64, 25_000;
    thick_absorbing: 6, f32, 50_000;
}
