//! MCML manual, ch. 6, tables 6.1 and 6.2: published benchmark values, each matched within
//! three standard errors estimated from 10 independent runs (different seeds), as the manual
//! estimates its errors.

use reconverge_mcml::builtin::{giovanelli, van_de_hulst};
use reconverge_mcml::{RunInput, RunResult, run};

/// Mean and standard error of the mean of `f` over 10 runs of `photons` photons.
fn estimate(input: &RunInput, photons: u64, f: impl Fn(&RunResult) -> f64) -> (f64, f64) {
    let values: Vec<f64> = (1..=10)
        .map(|seed| f(&run(input, photons, seed).expect("valid input")))
        .collect();
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

fn check(name: &str, (mean, se): (f64, f64), published: f64) {
    eprintln!("{name}: {mean:.5} ± {se:.5} (published {published})");
    assert!(se > 0.0, "{name}: zero spread");
    assert!(
        (mean - published).abs() <= 3.0 * se,
        "{name}: {mean} ± {se} is more than 3 standard errors from {published}"
    );
}

#[test]
fn van_de_hulst_slab_matched_boundaries() {
    let input = van_de_hulst();
    let results: Vec<RunResult> = (1..=10).map(|s| run(&input, 200_000, s).unwrap()).collect();
    let stat = |f: &dyn Fn(&RunResult) -> f64| {
        let v: Vec<f64> = results.iter().map(f).collect();
        let mean = v.iter().sum::<f64>() / 10.0;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 9.0;
        (mean, (var / 10.0).sqrt())
    };
    assert_eq!(
        results[0].rsp, 0.0,
        "matched boundaries have no specular reflection"
    );
    check("van de Hulst Rd", stat(&|r| r.rd), 0.09739);
    check("van de Hulst Tt", stat(&|r| r.tt), 0.66096);
}

#[test]
fn giovanelli_semi_infinite() {
    let input = giovanelli();
    let est = estimate(&input, 50_000, |r| r.rsp + r.rd);
    check("Giovanelli Rsp + Rd", est, 0.2600);
    let r = run(&input, 10, 1).unwrap();
    assert!((r.rsp - 0.04).abs() < 1e-15);
    assert_eq!(r.tt, 0.0, "nothing crosses 1e8 cm");
}

#[test]
fn van_de_hulst_slab_in_f32() {
    // The GPU runs f32: it must meet the same published values.
    let input = van_de_hulst();
    let v: Vec<RunResult> = (1..=10)
        .map(|s| reconverge_mcml::run_with::<f32>(&input, 50_000, 100 + s, None).unwrap())
        .collect();
    let stat = |f: &dyn Fn(&RunResult) -> f64| {
        let x: Vec<f64> = v.iter().map(f).collect();
        let mean = x.iter().sum::<f64>() / 10.0;
        let var = x.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / 9.0;
        (mean, (var / 10.0).sqrt())
    };
    check("van de Hulst Rd (f32)", stat(&|r| r.rd), 0.09739);
    check("van de Hulst Tt (f32)", stat(&|r| r.tt), 0.66096);
}
