//! PASS/FAIL lines, the tables the concerns fill, and the final summary.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use reconverge_transforms::Strategy;
use serde_json::{Value, json};

/// One (workload, strategy) row of `workloads.csv`: conformance fills the comparison,
/// throughput the timings.
#[derive(Default)]
pub struct WorkloadRow {
    pub workload: &'static str,
    pub strategy: String,
    pub entries: String,
    pub items_cmp: u32,
    pub equal: Option<bool>,
    pub difference: String,
    pub cpu_items_per_s: Option<f64>,
    pub cpu_simd: Option<f64>,
    pub gpu_items: Option<u32>,
    pub gpu_ms: Option<f64>,
    pub gpu_items_per_s: Option<f64>,
    pub speedup: Option<f64>,
    pub occupancy: String,
}

pub struct Report {
    started: Instant,
    pub deadline_s: f64,
    passed: u32,
    failed: u32,
    skipped: u32,
    failures: Vec<String>,
    pub json: serde_json::Map<String, Value>,
    pub workloads: Vec<WorkloadRow>,
    pub occupancy_csv: String,
    pub mcml_csv: String,
}

impl Report {
    pub fn new(deadline_s: f64) -> Self {
        Self {
            started: Instant::now(),
            deadline_s,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: Vec::new(),
            json: serde_json::Map::new(),
            workloads: Vec::new(),
            occupancy_csv: "kernel,registers,static_smem,threads_per_block,driver_blocks_per_sm,predicted_blocks_per_sm,predicted_occupancy,limited_by,equal\n".into(),
            mcml_csv: "input,strategy,entry_point,photons,threads_per_block,blocks,kernel_s,photons_per_s,occupancy,rd,a,tt\n".into(),
        }
    }

    pub fn check(&mut self, name: &str, ok: bool, detail: &str) -> bool {
        if ok {
            self.passed += 1;
            println!("PASS {name} {detail}");
        } else {
            self.failed += 1;
            self.failures.push(format!("{name} {detail}"));
            println!("FAIL {name} {detail}");
        }
        ok
    }

    pub fn skip(&mut self, name: &str, why: &str) {
        self.skipped += 1;
        println!("SKIP {name}: {why}");
    }

    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    pub fn late(&self) -> bool {
        self.seconds() > self.deadline_s
    }

    /// Whether the time budget is spent; if so, the check `name` is reported skipped.
    pub fn skip_when_late(&mut self, name: &str) -> bool {
        let late = self.late();
        if late {
            self.skip(name, "past the time budget");
        }
        late
    }

    /// The row of `workload`'s entry points `entries` (one strategy with its parameters, named
    /// by its id: `Strategy::id`, unique and parsed back), added if the other concern has not.
    pub fn workload_row(
        &mut self,
        workload: &'static str,
        strategy: Strategy,
        entries: &str,
    ) -> &mut WorkloadRow {
        let i = match self
            .workloads
            .iter()
            .position(|r| r.workload == workload && r.entries == entries)
        {
            Some(i) => i,
            None => {
                self.workloads.push(WorkloadRow {
                    workload,
                    strategy: strategy.id().to_string(),
                    entries: entries.to_string(),
                    ..WorkloadRow::default()
                });
                self.workloads.len() - 1
            }
        };
        &mut self.workloads[i]
    }

    fn workload_csv(&self) -> String {
        let mut csv = String::from(
            "workload,strategy,entry_points,items_cmp,equal,first_difference,cpu_items_per_s,cpu_simd_efficiency,gpu_items,gpu_kernel_ms,gpu_items_per_s,gpu_speedup_vs_baseline,occupancy_per_pass\n",
        );
        let opt =
            |v: Option<f64>, digits: usize| v.map_or(String::new(), |v| format!("{v:.digits$}"));
        for r in &self.workloads {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},\"{}\",{},{},{},{},{},{},{}",
                r.workload,
                r.strategy,
                r.entries,
                r.items_cmp,
                r.equal.map_or(String::new(), |e| e.to_string()),
                r.difference.replace('"', "'"),
                opt(r.cpu_items_per_s, 0),
                opt(r.cpu_simd, 4),
                r.gpu_items.map_or(String::new(), |v| v.to_string()),
                opt(r.gpu_ms, 4),
                opt(r.gpu_items_per_s, 0),
                opt(r.speedup, 4),
                r.occupancy
            );
        }
        csv
    }

    /// Writes `workloads.csv`, `occupancy.csv`, `mcml.csv` and `summary.json` into `dir`.
    pub fn write(&self, dir: &Path) {
        let mut summary = self.json.clone();
        summary.insert("passed".into(), json!(self.passed));
        summary.insert("failed".into(), json!(self.failed));
        summary.insert("skipped".into(), json!(self.skipped));
        summary.insert("failures".into(), json!(self.failures));
        summary.insert("seconds".into(), json!(self.seconds()));
        let files = [
            ("workloads.csv", self.workload_csv()),
            ("occupancy.csv", self.occupancy_csv.clone()),
            ("mcml.csv", self.mcml_csv.clone()),
            (
                "summary.json",
                serde_json::to_string_pretty(&Value::Object(summary)).unwrap_or_default(),
            ),
        ];
        if let Err(e) = std::fs::create_dir_all(dir) {
            println!("FAIL writing {}: {e}", dir.display());
            return;
        }
        for (name, text) in files {
            let p = dir.join(name);
            if let Err(e) = std::fs::write(&p, text) {
                println!("FAIL writing {}: {e}", p.display());
            }
        }
        println!("tables written to {}", dir.display());
    }

    /// Prints the summary lines the scripts read; whether every check passed.
    pub fn summary(&self) -> bool {
        println!(
            "\nSUMMARY {} passed, {} failed, {} skipped in {:.1} s",
            self.passed,
            self.failed,
            self.skipped,
            self.seconds()
        );
        for f in &self.failures {
            println!("  FAILED {f}");
        }
        if self.failed == 0 {
            println!("ALL PASS");
        } else {
            println!("SOME CHECKS FAILED");
        }
        self.failed == 0
    }
}

/// Occupancy of each pass, `+`-joined (`?` where unknown).
pub fn fmt_occ(o: &[Option<f64>]) -> String {
    o.iter()
        .map(|v| v.map_or("?".into(), |v| format!("{v:.2}")))
        .collect::<Vec<_>>()
        .join("+")
}
