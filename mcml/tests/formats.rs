//! `.mci` parser errors (each names the right line), property tests, and `.mco` round trips.

use proptest::prelude::*;
use reconverge_mcml::builtin::{BUILTIN_NAMES, builtin, van_de_hulst};
use reconverge_mcml::mci::{parse_mci, parse_mci_bytes};
use reconverge_mcml::mco::{read_mco_rat, write_mco};
use reconverge_mcml::{McInput, MciErrorKind, OutputFormat, RunInput, run};
use reconverge_workloads::mcml::{GridSpec, LayerSpec};

const GOOD: &str = "\
# a comment line
1.0                 # file version
1                   # number of runs

out.mco A           # line 5
1000                # photons, line 6
0.01 0.02           # dz dr, line 7
10 20 30            # nz nr na, line 8
2                   # layers, line 9
1.0                 # n above, line 10
1.37 1 100 0.9 0.1  # layer 1, line 11
1.37 1 10 0.0 0.2   # layer 2, line 12
1.0                 # n below, line 13
";

/// Replaces line `n` (1-based) of GOOD and returns the error's line and kind.
fn error_at(n: usize, replacement: &str) -> (usize, MciErrorKind) {
    let text: Vec<&str> = GOOD.lines().collect();
    let mut lines: Vec<String> = text.iter().map(|s| s.to_string()).collect();
    lines[n - 1] = replacement.to_string();
    let e = parse_mci(&lines.join("\n"), "test.mci").expect_err("must be refused");
    assert_eq!(e.file, "test.mci");
    assert!(e.to_string().starts_with(&format!("test.mci:{}: ", e.line)));
    (e.line, e.kind)
}

#[test]
fn good_input_parses() {
    let input = parse_mci(GOOD, "good.mci").unwrap();
    assert_eq!(input.runs.len(), 1);
    let r = &input.runs[0];
    assert_eq!(r.output_file, "out.mco");
    assert_eq!(r.format, OutputFormat::Ascii);
    assert_eq!(r.photons, 1000);
    assert_eq!(
        r.grid,
        GridSpec {
            dz: 0.01,
            dr: 0.02,
            nz: 10,
            nr: 20,
            na: 30
        }
    );
    assert_eq!(r.layers.len(), 2);
    assert_eq!(
        r.layers[1],
        LayerSpec {
            n: 1.37,
            mua: 1.0,
            mus: 10.0,
            g: 0.0,
            d: 0.2
        }
    );
    assert_eq!(r.line, 5);
    // CRLF, tabs, non-printable bytes are tolerated as MCML does.
    let crlf = GOOD.replace('\n', "\r\n").replace(' ', "\t");
    assert_eq!(parse_mci(&crlf, "crlf.mci").unwrap(), input);
    // A "B" letter only changes the header.
    let b = GOOD.replace("out.mco A", "out.mco b");
    assert_eq!(
        parse_mci(&b, "b.mci").unwrap().runs[0].format,
        OutputFormat::Binary
    );
}

/// Whether an error is of the kind a case expects.
type KindCheck = fn(&MciErrorKind) -> bool;

/// A refractive index below 1 runs (as in MCML 1.2) but is named as a likely typo, with the
/// line it is on; the good input and every built-in have none.
#[test]
fn an_index_below_one_is_warned_about_at_its_line() {
    assert!(
        parse_mci(GOOD, "good.mci").unwrap().runs[0]
            .warnings()
            .is_empty()
    );
    for name in BUILTIN_NAMES {
        assert!(builtin(name).unwrap().warnings().is_empty(), "{name}");
    }
    let typo = GOOD.replace("1.37 1 10 0.0 0.2", "0.37 1 10 0.0 0.2");
    let input = parse_mci(&typo, "typo.mci").expect("n < 1 is accepted");
    let warnings = input.runs[0].warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("line 12: layer 2 "),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].contains("n = 0.37"), "{}", warnings[0]);
}

#[test]
fn each_malformed_line_is_named() {
    let expected = |k: &MciErrorKind| matches!(k, MciErrorKind::Expected { .. });
    let invalid = |k: &MciErrorKind| matches!(k, MciErrorKind::Invalid { .. });
    // Each malformed line: the line the error names and whether it is `Expected` or `Invalid`.
    let cases: [(usize, &str, KindCheck); 17] = [
        (3, "x", expected),
        (3, "0", invalid),
        (6, "1.5", expected), // integers must be integers
        (6, "-3", invalid),
        (7, "0.01 0", invalid),
        (7, "0.01 nan", expected),
        (8, "10 40000 30", invalid), // short overflow
        (8, "10 20 0", invalid),
        (9, "17", invalid), // more than MAX_LAYERS
        (10, "0", invalid),
        (12, "1.37 1 10 1.5 0.2", invalid),
        (12, "1.37 -1 10 0.5 0.2", invalid),
        (12, "1.37 1 -10 0.5 0.2", invalid),
        (12, "1.37 1 10 0.5 -0.2", invalid),
        (12, "0 1 10 0.5 0.2", invalid),
        (12, "1.37 1 10 0.5", expected),
        (13, "-1", invalid),
    ];
    for (line, replacement, kind) in cases {
        let (l, k) = error_at(line, replacement);
        assert!(l == line && kind(&k), "{l} {k}");
    }
    let (l, k) = error_at(7, "0.01"); // missing dr
    assert!(l == 7 && matches!(&k, MciErrorKind::Expected { found, .. } if found == "end of line"));
    let (l, k) = error_at(11, "1.37 1 100 -0.1 0.1"); // negative g is refused
    assert!(l == 11 && matches!(&k, MciErrorKind::Invalid { what, .. } if what == "g of layer 1"));
    // Truncated file: the error points past the last line.
    let cut: String = GOOD.lines().take(11).collect::<Vec<_>>().join("\n");
    let e = parse_mci(&cut, "cut.mci").unwrap_err();
    assert_eq!(e.line, 12);
    assert!(matches!(e.kind, MciErrorKind::UnexpectedEof { .. }));
    // Two runs writing the same file: the second run's name line is named.
    let two = GOOD.replacen("1                   # number of runs", "2", 1)
        + &GOOD.lines().skip(4).collect::<Vec<_>>().join("\n");
    let e = parse_mci(&two, "two.mci").unwrap_err();
    assert_eq!(e.line, 14);
    assert!(matches!(
        e.kind,
        MciErrorKind::DuplicateOutput { first_line: 5, .. }
    ));
}

#[test]
fn builtins_print_and_parse_back() {
    let input = McInput {
        runs: BUILTIN_NAMES.iter().map(|n| builtin(n).unwrap()).collect(),
    };
    let back = parse_mci(&input.to_mci(), "builtins.mci").unwrap();
    assert_eq!(strip_lines(back), strip_lines(input));
}

fn strip_lines(mut m: McInput) -> McInput {
    for r in &mut m.runs {
        r.line = 0;
        r.lines = Default::default();
    }
    m
}

#[test]
fn mco_round_trip_of_rat() {
    let r = run(&van_de_hulst(), 2000, 3).unwrap();
    let text = write_mco(&r, 1.0);
    let rat = read_mco_rat(&text).unwrap();
    // %-14.6G keeps six significant digits.
    for (a, b) in [
        (rat.rsp, r.rsp),
        (rat.rd, r.rd),
        (rat.a, r.a),
        (rat.tt, r.tt),
    ] {
        assert!((a - b).abs() <= 5e-6 * b.abs().max(1e-300), "{a} vs {b}");
    }
    // Section order and sizes follow MCML.
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| {
            let w = l.split_whitespace().next().unwrap_or("");
            [
                "InParm", "RAT", "A_l", "A_z", "Rd_r", "Rd_a", "Tt_r", "Tt_a", "A_rz", "Rd_ra",
                "Tt_ra",
            ]
            .contains(&w)
        })
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        heads,
        [
            "InParm", "RAT", "A_l", "A_z", "Rd_r", "Rd_a", "Tt_r", "Tt_a", "A_rz", "Rd_ra", "Tt_ra"
        ]
    );
    // The echoed input parses as an .mci run.
    let inparm: String = text
        .lines()
        .skip_while(|l| !l.starts_with("InParm"))
        .skip(1)
        .take_while(|l| !l.starts_with("RAT"))
        .collect::<Vec<_>>()
        .join("\n");
    let echoed = parse_mci(&format!("1.0\n1\n{inparm}"), "echo").unwrap();
    assert_eq!(echoed.runs[0].layers, r.input.layers);
    assert!(read_mco_rat("nothing here").is_err());
    assert!(read_mco_rat("RAT\n0.1\nx\n").is_err());
}

/// A positive number of any magnitude MCML's parser accepts (subnormal to 1e300), or an
/// ordinary one: the printer must keep every bit of both.
fn wide(ordinary: std::ops::Range<f64>) -> impl Strategy<Value = f64> {
    prop_oneof![
        ordinary,
        (-320i32..300, 1.0f64..10.0).prop_map(|(e, m)| m * 10f64.powi(e)),
    ]
    .prop_filter("positive and finite", |x| *x > 0.0 && x.is_finite())
}

fn arb_layer() -> impl Strategy<Value = LayerSpec> {
    (
        wide(0.1..3.0),
        prop_oneof![Just(0.0), wide(0.0..100.0)],
        prop_oneof![Just(0.0), wide(0.0..1000.0)],
        prop_oneof![0.0f64..=1.0, Just(1.0), Just(0.0)],
        prop_oneof![Just(0.0), wide(0.0..1e8)],
    )
        .prop_map(|(n, mua, mus, g, d)| LayerSpec { n, mua, mus, g, d })
}

fn arb_run() -> impl Strategy<Value = RunInput> {
    (
        "[a-zA-Z0-9_.]{1,20}",
        any::<bool>(),
        1u64..i64::MAX as u64,
        (
            wide(1e-6..10.0),
            wide(1e-6..10.0),
            1u32..=32767,
            1u32..=32767,
            1u32..=32767,
        ),
        wide(0.1..3.0),
        proptest::collection::vec(arb_layer(), 1..=16),
        wide(0.1..3.0),
    )
        .prop_map(
            |(name, b, photons, (dz, dr, nz, nr, na), n_above, layers, n_below)| RunInput {
                output_file: name,
                format: if b {
                    OutputFormat::Binary
                } else {
                    OutputFormat::Ascii
                },
                photons,
                grid: GridSpec { dz, dr, nz, nr, na },
                n_above,
                layers,
                n_below,
                line: 0,
                lines: Default::default(),
                beam: Default::default(),
            },
        )
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_mci_bytes(&bytes, "random.mci");
    }

    #[test]
    fn random_lines_never_panic(lines in proptest::collection::vec(
        prop_oneof![
            Just("1".to_string()), Just("2".to_string()), Just("-1".to_string()),
            Just("0.5 0.5".to_string()), Just("1 1 1".to_string()), Just("# c".to_string()),
            Just("a.mco A".to_string()), Just("1.4 1 10 0.9 1".to_string()),
            Just("".to_string()), "[ -~\t]{0,30}",
        ], 0..30)) {
        let _ = parse_mci(&lines.join("\n"), "lines.mci");
    }

    #[test]
    fn printed_input_parses_back(runs in proptest::collection::vec(arb_run(), 1..4)) {
        let mut runs = runs;
        for (i, r) in runs.iter_mut().enumerate() {
            r.output_file = format!("{}_{i}", r.output_file);
        }
        let input = McInput { runs };
        let back = parse_mci(&input.to_mci(), "printed.mci").unwrap();
        prop_assert_eq!(strip_lines(back), input);
    }
}
