//! Issue 13: inputs that hung, aborted, lost work or were silently altered, and runs of one
//! `.mci` file that all drew the same random numbers.

use std::path::PathBuf;

use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::batch::{
    ArgError, OutputError, PlanError, PlanOptions, check_output_path, parse_cycle, parse_threshold,
    plan, quote_name, run_planned, stream_offsets,
};
use reconverge_mcml::builtin::{BUILTIN_NAMES, builtin, van_de_hulst};
use reconverge_mcml::limits::{LimitError, check_run};
use reconverge_mcml::mci::parse_mci;
use reconverge_mcml::{
    BackendRunError, MciErrorKind, RunError, RunInput, RunResult, Streams, run, run_on_backend,
    run_streams, run_with,
};
use reconverge_transforms::Strategy;
use reconverge_workloads::mcml::LayerSpec;

/// A scratch directory of this test binary, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reconverge-mcml-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn slab(mua: f64, mus: f64, d: f64) -> RunInput {
    let mut r = van_de_hulst();
    r.layers = vec![LayerSpec {
        n: 1.37,
        mua,
        mus,
        g: 0.9,
        d,
    }];
    r
}

fn mci_of(runs: &[RunInput]) -> String {
    reconverge_mcml::McInput {
        runs: runs.to_vec(),
    }
    .to_mci()
}

#[test]
fn runs_of_one_file_draw_independent_streams() {
    let mut runs = Vec::new();
    for k in 0..3 {
        let mut r = van_de_hulst();
        r.output_file = format!("run{k}.mco");
        r.photons = 1000 + k;
        runs.push(r);
    }
    let input = parse_mci(&mci_of(&runs), "copies.mci").unwrap();
    let opts = PlanOptions {
        source: "copies.mci".into(),
        seed: 5,
        ..Default::default()
    };
    let planned = plan::<f64>(&input.runs, &opts).unwrap();
    let firsts: Vec<u64> = planned.iter().map(|p| p.streams.first_photon).collect();
    assert_eq!(firsts, [0, 1000, 2001]);
    assert!(planned.iter().all(|p| p.streams.seed == 5));
    // The runs together are one run of all their photons: the streams neither overlap nor
    // leave gaps, so the tallies add up exactly.
    let parts: Vec<RunResult> = planned
        .iter()
        .map(|p| run_streams::<f64>(&p.input, p.input.photons, p.streams, None).unwrap())
        .collect();
    assert_ne!(parts[0].tt, parts[1].tt, "two runs drew the same photons");
    let whole = run(&runs[0], 3003, 5).unwrap();
    let mut sum = vec![0u64; whole.tally.len()];
    for p in &parts {
        for (s, t) in sum.iter_mut().zip(&p.tally) {
            *s += t;
        }
    }
    assert_eq!(sum, whole.tally);
    assert_eq!(
        stream_offsets(&[u64::MAX - 1, 1]),
        Some(vec![0, u64::MAX - 1])
    );
    assert_eq!(stream_offsets(&[u64::MAX, 1]), None);
}

/// Mean and standard error of the mean of Tt over the runs of an `.mci` file of `runs`
/// copies of the van de Hulst slab: MCML users' error estimate.
fn repeated_runs_se(runs: usize, photons: u64) -> (f64, f64) {
    let copies: Vec<RunInput> = (0..runs)
        .map(|k| {
            let mut r = van_de_hulst();
            r.output_file = format!("copy{k}.mco");
            r.photons = photons;
            r
        })
        .collect();
    let opts = PlanOptions {
        source: "copies".into(),
        seed: 1,
        ..Default::default()
    };
    let planned = plan::<f32>(&copies, &opts).unwrap();
    let tt: Vec<f64> = planned
        .iter()
        .map(|p| {
            run_streams::<f32>(&p.input, p.input.photons, p.streams, None)
                .unwrap()
                .tt
        })
        .collect();
    let n = tt.len() as f64;
    let mean = tt.iter().sum::<f64>() / n;
    let var = tt.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

#[test]
fn standard_errors_from_repeated_runs_shrink_as_one_over_sqrt_n() {
    // Every run of a file used to draw the streams of seed 1 from photon 0: the runs were
    // identical and this standard error was 0.
    let (m1, se1) = repeated_runs_se(40, 2_000);
    let (m4, se4) = repeated_runs_se(40, 8_000);
    eprintln!("Tt: {m1:.5} +- {se1:.5} (40 x 2000), {m4:.5} +- {se4:.5} (40 x 8000)");
    assert!(se1 > 0.0 && se4 > 0.0);
    // Photon weights are in [0, 1], so a run's variance is at most Tt (1 - Tt) / N.
    assert!(se1 <= (m1 * (1.0 - m1) / 2_000.0 / 40.0).sqrt());
    // 4x the photons: half the error. The ratio of two 39-degree-of-freedom estimates lies in
    // [1, 4] with probability 0.99997.
    let ratio = se1 / se4;
    assert!(
        (1.0..=4.0).contains(&ratio),
        "SE ratio {ratio}, expected ~2"
    );
    // And both estimates agree with the published Tt 0.66096 within 4 SE.
    assert!((m4 - 0.66096).abs() < 4.0 * se4);
}

#[test]
fn values_that_do_not_fit_the_float_are_refused_before_any_work() {
    // Each of these used to hang: µs = 1e39 is infinite in f32, and µs = 1e300 makes every
    // step too short to move the photon and the albedo round to 1.
    let err = run_with::<f32>(&slab(1.0, 1e39, 0.2), 10, 1, None).unwrap_err();
    assert!(
        matches!(err, RunError::Limit(LimitError::DoesNotFit { ref what, float: "f32", .. }) if what == "mus of layer 1"),
        "{err}"
    );
    for err in [
        run_with::<f32>(&slab(1.0, 1e300, 0.2), 10, 1, None).unwrap_err(),
        run_with::<f64>(&slab(1.0, 1e300, 0.2), 10, 1, None).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                RunError::Limit(LimitError::DoesNotFit { .. } | LimitError::NoProgress { .. })
            ),
            "{err}"
        );
    }
    let cpu = CpuBackend::new();
    let err = run_on_backend::<f32, _>(
        &cpu,
        &slab(1.0, 1e39, 0.2),
        10,
        1,
        Strategy::BASELINE,
        Launch::new(32, 1).unwrap(),
        None,
    )
    .unwrap_err();
    assert!(matches!(err, BackendRunError::Input(RunError::Limit(_))));
    // dz = 1e39 parses (valid f64) but cannot run in f32; the error names file and line.
    let mut r = van_de_hulst();
    r.grid.dz = 1e39;
    let input = parse_mci(&mci_of(&[r]), "big.mci").unwrap();
    let opts = PlanOptions {
        source: "big.mci".into(),
        ..Default::default()
    };
    let msg = plan::<f32>(&input.runs, &opts).unwrap_err().to_string();
    assert!(msg.starts_with("big.mci:"), "{msg}");
    assert!(msg.contains("dz = 1e39"), "{msg}");
    assert!(plan::<f64>(&input.runs, &opts).is_ok());
}

#[test]
fn photons_that_cannot_progress_are_refused_and_real_inputs_are_not() {
    // No absorption in a semi-infinite layer: the mean photon lifetime is unbounded.
    let err = check_run::<f64>(&slab(0.0, 100.0, 1e8)).unwrap_err();
    assert!(
        matches!(err, LimitError::NoProgress { layer: 1, .. }),
        "{err}"
    );
    // Absorption below f32's resolution (µa / µt = 1e-9) cannot end a photon in f32.
    assert!(check_run::<f32>(&slab(1e-6, 1e3, 1e6)).is_err());
    // In f32 a step of 1e-6 cm does not move a photon at a depth of 100 cm.
    let mut deep = slab(0.1, 90.0, 1.0);
    deep.layers.insert(
        0,
        LayerSpec {
            n: 1.0,
            mua: 0.0,
            mus: 0.0,
            g: 0.0,
            d: 100.0,
        },
    );
    deep.layers[1].mus = 1e6;
    assert!(matches!(
        check_run::<f32>(&deep),
        Err(LimitError::NoProgress { layer: 2, .. })
    ));
    for name in BUILTIN_NAMES {
        let b = builtin(name).unwrap();
        check_run::<f32>(&b).unwrap();
        check_run::<f64>(&b).unwrap();
    }
}

#[test]
fn grids_and_launches_too_large_for_memory_are_errors_not_aborts() {
    let mut r = van_de_hulst();
    r.grid.nz = 32767;
    r.grid.nr = 32767;
    r.grid.na = 32767;
    let err = run(&r, 10, 1).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, RunError::Limit(LimitError::TooManyBins { bins, .. }) if bins == 3_221_028_869),
        "{msg}"
    );
    assert!(msg.contains("25768230952 bytes"), "{msg}");
    let cpu = CpuBackend::new();
    let err = run_on_backend::<f32, _>(
        &cpu,
        &van_de_hulst(),
        10,
        1,
        Strategy::BASELINE,
        Launch::new(128, u32::MAX).unwrap(),
        None,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            BackendRunError::Input(RunError::Limit(LimitError::LaunchTooLarge { .. }))
        ),
        "{err}"
    );
}

#[test]
fn silently_accepted_values_are_refused() {
    // --photons 0 wrote an all-zero .mco.
    assert_eq!(
        run(&van_de_hulst(), 0, 1).unwrap_err(),
        RunError::Limit(LimitError::NoPhotons)
    );
    let opts = PlanOptions {
        source: "built-in".into(),
        photons: Some(0),
        ..Default::default()
    };
    let msg = plan::<f32>(&[van_de_hulst()], &opts)
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("--photons"), "{msg}");
    // dr = 1e-300 wrote NANs: dr^2 is 0.
    let mut r = van_de_hulst();
    r.grid.dr = 1e-300;
    assert!(matches!(check_run::<f64>(&r), Err(LimitError::Grid { .. })));
    assert!(check_run::<f32>(&r).is_err());
    // résumé.mco was written as rsum.mco.
    let text = mci_of(&[van_de_hulst()]).replace("vandehulst.mco", "résumé.mco");
    let err = parse_mci(&text, "accents.mci").unwrap_err();
    assert!(
        matches!(err.kind, MciErrorKind::Invalid { ref value, .. } if value == "résumé.mco"),
        "{err}"
    );
    assert!(matches!(
        check_output_path(std::path::Path::new("résumé.mco")),
        Err(OutputError::NotAscii(_))
    ));
    // --threshold 100 of 32 lanes, and --cycle 0:0 (which failed after the run had started).
    assert!(matches!(
        parse_threshold("100"),
        Err(ArgError::Threshold { .. })
    ));
    assert_eq!(parse_threshold("32"), Ok(32));
    assert!(parse_threshold("0").is_err());
    assert!(matches!(parse_cycle("0:0"), Err(ArgError::Cycle(_))));
    assert!(parse_cycle("3:0").is_err());
    assert!(parse_cycle("x").is_err());
    assert_eq!(parse_cycle("3:1"), Ok((3, 1)));
}

#[test]
fn output_paths_are_checked_before_the_first_photon() {
    let dir = scratch("outputs");
    let base = dir.to_string_lossy().to_string();
    let runs_named = |names: &[&str]| -> Vec<RunInput> {
        names
            .iter()
            .map(|n| {
                let mut r = van_de_hulst();
                r.output_file = format!("{base}/{n}");
                r.photons = 100;
                r
            })
            .collect()
    };
    let opts = PlanOptions {
        source: "t.mci".into(),
        write_outputs: true,
        ..Default::default()
    };
    std::fs::create_dir(dir.join("sub")).unwrap();
    type Expect = fn(&OutputError) -> bool;
    let cases: [(&[&str], Expect); 3] = [
        (&["sub"], |e| matches!(e, OutputError::IsDirectory(_))),
        (&["missing/x.mco"], |e| {
            matches!(e, OutputError::NotWritable { .. })
        }),
        (&["good.mco", "./good.mco"], |e| {
            matches!(e, OutputError::SameFile { .. })
        }),
    ];
    for (names, expected) in cases {
        match plan::<f32>(&runs_named(names), &opts) {
            Err(PlanError::Output { source, .. }) => assert!(expected(&source), "{source}"),
            other => panic!("{names:?}: {other:?}"),
        }
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "checks leave no files"
    );
    // A 10 MB name gives a short message.
    let long = format!("{base}/{}.mco", "x".repeat(10_000_000));
    let msg = plan::<f32>(
        &[van_de_hulst()],
        &PlanOptions {
            output: Some(PathBuf::from(long)),
            ..opts.clone()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(msg.len() < 1000, "{} bytes", msg.len());
    assert!(quote_name(&"y".repeat(100)).ends_with("(100 bytes)"));
    // The same for a 10 MB token inside an .mci file.
    let huge = "9".repeat(10_000_000);
    for text in [
        mci_of(&[van_de_hulst()]).replace("vandehulst.mco", &huge),
        mci_of(&[van_de_hulst()]).replace("50000", &format!("1{huge}")),
        mci_of(&[van_de_hulst(), van_de_hulst()]).replace("vandehulst.mco", &huge),
    ] {
        let msg = match parse_mci(&text, "huge.mci") {
            Ok(input) => plan::<f32>(&input.runs, &opts).unwrap_err().to_string(),
            Err(e) => e.to_string(),
        };
        assert!(msg.len() < 1000, "{} bytes: {}", msg.len(), &msg[..200]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_run_keeps_the_files_of_the_runs_before_it() {
    let dir = scratch("batch");
    let runs: Vec<RunInput> = (1..=3)
        .map(|k| {
            let mut r = van_de_hulst();
            r.output_file = dir.join(format!("run{k}.mco")).to_string_lossy().into();
            r.photons = 200;
            r
        })
        .collect();
    let opts = PlanOptions {
        source: "t.mci".into(),
        write_outputs: true,
        ..Default::default()
    };
    let planned = plan::<f64>(&runs, &opts).unwrap();
    let mut reported = 0;
    let err = run_planned(
        &planned,
        |p| {
            if p.streams.first_photon == 400 {
                return Err("the backend failed".into());
            }
            Ok(run_streams::<f64>(
                &p.input,
                p.input.photons,
                p.streams,
                None,
            )?)
        },
        |_, _, written| {
            assert!(written.is_some_and(|w| w.exists()));
            reported += 1;
        },
    )
    .unwrap_err();
    assert_eq!(err.run, 3);
    assert_eq!(err.written.len(), 2);
    assert_eq!(reported, 2);
    assert!(dir.join("run1.mco").exists() && dir.join("run2.mco").exists());
    assert!(!dir.join("run3.mco").exists());
    let _ = Streams::new(0);
    let _ = std::fs::remove_dir_all(&dir);
}
