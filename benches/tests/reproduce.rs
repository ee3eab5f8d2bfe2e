//! The reproduce command at tiny scale: every expected page is written, with its CSV, JSON
//! and SVG, and every page names the device and carries the paper's number.

use reconverge_backend::{Backend, Kernel, Strategy};
use reconverge_benches::Bench;
use reconverge_benches::reproduce::setting::Visit;
use reconverge_benches::reproduce::{EXPERIMENTS, Error, Options, Probe, Runs, Scale, pages, run};

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
    let all: Vec<&str> = pages().collect();
    // Every registered page, in order, then the advisor's page, built from all of them.
    let mut expected = all.clone();
    expected.push("advisor-predicted-vs-measured");
    assert_eq!(summary.pages, expected, "every registered page, in order");
    check_advisor_page(&out);
    check_plain_columns(&out);
    assert_eq!(PAPER_NUMBERS.len(), all.len());
    for (name, number) in PAPER_NUMBERS {
        assert!(all.contains(name), "{name} is not a page");
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
    assert_eq!(
        csv.lines().count(),
        23,
        "header + (baseline + 10 settings) on SYN-ITDELAY and on its real-divergence variant"
    );
    let ls = std::fs::read_to_string(out.join("seed001-fig05-loop-splitting.md")).expect("page");
    assert!(!ls.contains("Not yet implemented"));
    let ls_csv =
        std::fs::read_to_string(out.join("seed001-fig05-loop-splitting.csv")).expect("csv");
    assert_eq!(ls_csv.lines().count(), 4, "3 trip counts + header");
    // The best plain kernel is the reference on the GPU; on the CPU backend its columns are
    // there and say they are GPU-only, and the first finding says so too.
    let fig10 = std::fs::read_to_string(out.join("seed002-fig10-iteration-delaying-vs-r.md"))
        .expect("page");
    assert!(
        fig10.contains("| plain best ms | plain best kernel |"),
        "{fig10}"
    );
    assert!(fig10.contains("baseline x plain"), "{fig10}");
    assert!(fig10.contains("| n/a (CPU) | n/a (CPU) |"), "{fig10}");
    assert!(
        fig10.contains("the best plain kernel is GPU-only"),
        "{fig10}"
    );
    let index = std::fs::read_to_string(out.join("README.md")).expect("index");
    for name in &all {
        assert!(
            index.contains(&format!("({name}.md)")),
            "index lacks {name}"
        );
    }
    assert!(dir.join("README.md").is_file(), "top-level index");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 40: every timed page of an experiment with plain kernels states its strategies
/// against the best of them: the plain columns (time, schedule, each strategy's ratio), a first
/// finding about the best plain kernel, and a setup that names each plain kernel it times. On
/// the CPU backend the columns are there and read "n/a (CPU)".
fn check_plain_columns(out: &std::path::Path) {
    let mut checked = 0;
    for e in EXPERIMENTS {
        for name in e.pages {
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(out.join(format!("{name}.json"))).expect("page"),
            )
            .expect("valid JSON");
            let page = &json["page"];
            let columns: Vec<&str> = page["table"]["columns"]
                .as_array()
                .expect("columns")
                .iter()
                .map(|c| c.as_str().expect("a heading"))
                .collect();
            // A page the model alone fills (table 4) times nothing to state.
            let timed = columns.iter().any(|c| *c == "ms" || c.ends_with(" ms"));
            if e.plain.is_empty() || !timed {
                continue;
            }
            for heading in ["plain best ms", "plain best kernel"] {
                assert!(columns.contains(&heading), "{name} lacks {heading:?}");
            }
            assert!(
                columns.iter().any(|c| c.ends_with(" x plain")),
                "{name}: no ratio to the plain kernel in {columns:?}"
            );
            let first = page["findings"][0].as_str().unwrap_or_default();
            assert!(
                first.contains("best plain kernel"),
                "{name}: first finding {first:?}"
            );
            let setup = page["setup"].as_str().unwrap_or_default();
            for prefix in e.plain {
                assert!(
                    setup.contains(&format!("`{prefix}_")),
                    "{name}: the setup does not name {prefix}_*"
                );
            }
            let md = std::fs::read_to_string(out.join(format!("{name}.md"))).expect("md");
            assert!(md.contains("| n/a (CPU) |"), "{name}: CPU cells");
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked} pages with plain kernels");
}

/// Each plain kernel an experiment names is one of the paper kernels' four schedules: a name
/// the module lacks would leave the GPU's page without its reference (`best_plain` finds
/// nothing to time and prints "n/a").
#[test]
fn every_named_plain_kernel_is_built() {
    use reconverge_paper_kernels::PLAIN_KERNELS;
    for e in EXPERIMENTS {
        for prefix in e.plain {
            for schedule in [
                "one_per_item",
                "grid_stride",
                "persistent",
                "block_persistent",
            ] {
                let name = format!("{prefix}_{schedule}");
                assert!(
                    PLAIN_KERNELS.contains(&name.as_str()),
                    "{}: {name}",
                    e.pages[0]
                );
            }
        }
    }
    let with = EXPERIMENTS.iter().filter(|e| !e.plain.is_empty()).count();
    assert_eq!(
        with,
        EXPERIMENTS.len() - 1,
        "all but MCML have plain kernels"
    );
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
        let predicted = row[3].as_f64().expect("predicted (eq. 1) is a number");
        let saturating = row[4].as_f64().expect("predicted (saturating) is a number");
        let measured = row[5].as_f64().expect("measured is a number");
        assert!(
            predicted > 0.0 && saturating > 0.0 && measured > 0.0,
            "{experiment} {setting} {strategy}"
        );
        if strategy == "baseline" {
            assert_eq!(
                (predicted, saturating, measured),
                (1.0, 1.0, 1.0),
                "{experiment} {setting}"
            );
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
#[test]
fn an_unknown_page_is_an_error_naming_it_and_the_pages() {
    let dir = std::env::temp_dir().join(format!(
        "reconverge-reproduce-unknown-{}",
        std::process::id()
    ));
    let err = run(&Options {
        out: dir.join("cpu"),
        scale: Scale::TINY,
        command: "reproduce --only seed009 (test)".into(),
        only: vec!["seed002-fig10".into(), "seed009".into()],
    })
    .expect_err("seed009 is no page");
    let Error::UnknownPage(e) = &err else {
        panic!("expected UnknownPage, got {err:?}");
    };
    assert_eq!(e.name, "seed009");
    assert_eq!(e.known, pages().collect::<Vec<_>>());
    let message = err.to_string();
    assert!(message.contains("\"seed009\""), "{message}");
    assert!(
        message.contains("gems34-3-occlusion-query-loop"),
        "{message}"
    );
    assert!(!dir.exists(), "nothing is written for a bad selection");
}

#[test]
fn a_page_written_with_another_is_selected_by_its_own_name() {
    let e = reconverge_benches::reproduce::registry::select(&["table4".into()]).expect("known");
    assert_eq!(e.len(), 1);
    assert!(e[0].pages.contains(&"seed004-table4-path-execution-rate"));
}

/// The timed and the sample run's items of a setting.
struct Items;

impl Visit for Items {
    type Output = (u32, u32);
    fn visit<K>(self, runs: &Runs<K>) -> (u32, u32)
    where
        K: Kernel + Sync,
        K::Output: Default + Send + Sync + PartialEq + std::fmt::Debug,
        Bench: Backend<K> + Probe<K>,
    {
        (runs.timed.items, runs.sample.items)
    }
}

#[test]
fn every_timed_experiment_exposes_its_settings() {
    let mut counts = Vec::new();
    for e in EXPERIMENTS {
        let settings = (e.settings)(&Scale::TINY);
        counts.push((e.pages[0], settings.len()));
        if e.pages == ["seed002-mcml-strategies"] {
            assert!(
                settings.is_empty(),
                "MCML calibrates its inputs during the run"
            );
            continue;
        }
        assert!(!settings.is_empty(), "{}: no settings", e.pages[0]);
        let mut labels: Vec<&str> = settings.iter().map(|s| s.label.as_str()).collect();
        labels.dedup();
        assert_eq!(
            labels.len(),
            settings.len(),
            "{}: labels repeat",
            e.pages[0]
        );
        for s in &settings {
            assert_eq!(
                s.strategies.first(),
                Some(&Strategy::BASELINE),
                "{}",
                s.label
            );
            let (timed, sample) = s.workload.visit(Items);
            assert!(
                sample > 0 && sample <= timed,
                "{}: {sample} of {timed}",
                s.label
            );
        }
    }
    let count = |page: &str| counts.iter().find(|c| c.0 == page).map(|c| c.1);
    assert_eq!(
        count("seed001-fig08-branch-splitting-linear"),
        Some(21),
        "0 … 100 % else"
    );
    assert_eq!(count("seed002-table1-decision-parameters"), Some(1));
    assert_eq!(
        count("gems34-fig34-1-zcull"),
        Some(18),
        "9 probabilities x 2 conditions"
    );
    let table1 = (seed002_table1().settings)(&Scale::TINY);
    assert_eq!(
        table1[0].strategies.len(),
        11,
        "baseline + 5 thresholds + 5 cycles"
    );
}

fn seed002_table1() -> &'static reconverge_benches::reproduce::Experiment {
    EXPERIMENTS
        .iter()
        .find(|e| e.pages == ["seed002-table1-decision-parameters"])
        .expect("registered")
}
