//! The reproduce command at tiny scale: every expected page is written, with its CSV, JSON
//! and SVG, and every page names the device and carries the paper's number.

use reconverge_benches::reproduce::{Options, PAGES, Scale, run};

/// A number (or phrase) from the paper that each page must quote.
const PAPER_NUMBERS: &[(&str, &str)] = &[
    ("seed001-fig08-branch-splitting-linear", "1.197"),
    ("seed001-fig10-branch-splitting-random", "1.135"),
    ("seed001-fig05-loop-splitting", "pseudo-code only"),
    ("seed002-fig10-iteration-delaying-vs-r", "1.18"),
    ("seed002-fig11-iteration-delaying-vs-f", "0.90"),
    ("seed002-table1-decision-parameters", "| 8 | 1.15 |"),
    ("seed002-fig12-branch-distribution", "1.8"),
    ("seed002-mcml-strategies", "1.161"),
    ("seed004-table1-fig12-dynamic-work-assignment", "0.655889"),
    ("seed004-tables2-3-fig14-path-unification", "0.04337"),
    ("seed004-table4-path-execution-rate", "79.5 %"),
    ("gems34-fig34-1-zcull", "not much better than predication"),
    ("gems34-fig34-2-branching", "2–4 operations"),
    ("gems34-3-occlusion-query-loop", "occlusion query"),
];

#[test]
fn tiny_run_writes_every_page() {
    let dir = std::env::temp_dir().join(format!("reconverge-reproduce-{}", std::process::id()));
    let out = dir.join("cpu");
    let _ = std::fs::remove_dir_all(&dir);
    let summary = run(&Options {
        out: out.clone(),
        scale: Scale::TINY,
        command: "reproduce --tiny (test)".into(),
        only: Vec::new(),
    })
    .expect("reproduce runs");
    // Every page, and the advisor's page beside them.
    assert_eq!(summary.pages.len(), PAGES.len() + 1);
    check_advisor_page(&out);
    assert_eq!(PAPER_NUMBERS.len(), PAGES.len());
    for (name, number) in PAPER_NUMBERS {
        assert!(PAGES.contains(name), "{name} is not a page");
        for ext in ["md", "csv", "json", "svg"] {
            let f = out.join(format!("{name}.{ext}"));
            assert!(f.is_file(), "missing {}", f.display());
        }
        let md = std::fs::read_to_string(out.join(format!("{name}.md"))).expect("page");
        assert!(md.contains("- **Device**: "), "{name}: no device line");
        assert!(md.contains("- **Date**: "), "{name}: no date line");
        assert!(md.contains("reproduce --tiny (test)"), "{name}: no command");
        assert!(
            md.contains(number),
            "{name}: the paper's {number:?} is missing"
        );
        let csv = std::fs::read_to_string(out.join(format!("{name}.csv"))).expect("csv");
        assert!(csv.lines().count() >= 1, "{name}: empty CSV");
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("{name}.json"))).expect("json"),
        )
        .expect("valid JSON");
        assert!(json["provenance"]["device"].is_string());
    }
    // Pages that run something have rows.
    let csv =
        std::fs::read_to_string(out.join("seed002-table1-decision-parameters.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 12, "baseline + 10 settings + header");
    let ls = std::fs::read_to_string(out.join("seed001-fig05-loop-splitting.md")).expect("page");
    assert!(!ls.contains("Not yet implemented"));
    let ls_csv =
        std::fs::read_to_string(out.join("seed001-fig05-loop-splitting.csv")).expect("csv");
    assert_eq!(ls_csv.lines().count(), 4, "3 trip counts + header");
    let index = std::fs::read_to_string(out.join("README.md")).expect("index");
    for name in PAGES {
        assert!(
            index.contains(&format!("({name}.md)")),
            "index lacks {name}"
        );
    }
    assert!(dir.join("README.md").is_file(), "top-level index");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The advisor's page (issue 15): a prediction beside a measurement for every strategy of every
/// measured setting, the baseline at 1 in both, and at least 40 settings.
fn check_advisor_page(out: &std::path::Path) {
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("advisor-predicted-vs-measured.json"))
            .expect("advisor page"),
    )
    .expect("valid JSON");
    let rows = json["page"]["table"]["rows"].as_array().expect("rows");
    let mut settings = std::collections::HashSet::new();
    for row in rows {
        let (experiment, setting, strategy) = (
            row[0].as_str().expect("experiment"),
            row[1].as_str().expect("setting"),
            row[2].as_str().expect("strategy"),
        );
        let predicted = row[3].as_f64().expect("predicted is a number");
        let measured = row[4].as_f64().expect("measured is a number");
        assert!(
            predicted > 0.0 && measured > 0.0,
            "{experiment} {setting} {strategy}"
        );
        if strategy == "baseline" {
            assert_eq!((predicted, measured), (1.0, 1.0), "{experiment} {setting}");
        }
        settings.insert((experiment, setting));
    }
    assert!(settings.len() >= 40, "{} settings", settings.len());
    let experiments: std::collections::HashSet<_> = settings.iter().map(|s| s.0).collect();
    assert!(experiments.len() >= 8, "{experiments:?}");
    assert!(
        experiments.iter().any(|e| e.contains("mcml")),
        "{experiments:?}"
    );
}
