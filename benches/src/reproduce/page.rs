//! One generated results page: a table, the paper's numbers, commentary, and the four files
//! written for it (`<name>.md`, `<name>.csv`, `<name>.json`, `<name>.svg`).

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use plotters::prelude::*;
use serde::Serialize;
use serde_json::Value;

/// A column heading per name: the name, then `what` ("ms" gives "branching ms").
pub fn columns_per(names: &[&str], what: &str) -> impl Iterator<Item = String> {
    names.iter().map(move |n| format!("{n} {what}"))
}

/// A table of numbers and words; `None` cells print as "n/a" (or the table's `na` text).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Table {
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows, one value per column.
    pub rows: Vec<Vec<Value>>,
}

impl Table {
    /// A table with these headings and no rows.
    pub fn new(columns: &[&str]) -> Self {
        Self::with_columns(columns.iter().map(|c| c.to_string()).collect())
    }

    /// A table with these headings and no rows.
    pub fn with_columns(columns: Vec<String>) -> Self {
        Self {
            columns,
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<Value>) {
        self.rows.push(row);
    }

    fn cell(v: &Value, na: &str) -> String {
        match v {
            Value::Null => na.to_string(),
            Value::Number(n) => match n.as_f64() {
                Some(f) if n.is_f64() => fmt_num(f),
                _ => n.to_string(),
            },
            Value::String(s) => s.clone(),
            Value::Bool(b) => if *b { "yes" } else { "NO" }.to_string(),
            other => other.to_string(),
        }
    }

    /// The table as GitHub markdown.
    pub fn markdown(&self, na: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| {} |", self.columns.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(self.columns.len()));
        // Registers, occupancy and eq. 1 come from the driver: "n/a (CPU)" there, "—" for
        // any other missing value (a paper number the paper does not give).
        let device_col: Vec<bool> = self
            .columns
            .iter()
            .map(|c| {
                c.starts_with("regs")
                    || c.starts_with("occ")
                    || c.starts_with("eq. 1")
                    || c.starts_with("plain")
                    || c.ends_with("x plain")
            })
            .collect();
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    Self::cell(
                        v,
                        if device_col.get(i) == Some(&true) {
                            na
                        } else {
                            "—"
                        },
                    )
                })
                .collect();
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
        s
    }

    /// The table as CSV (empty cells where there is no value).
    pub fn csv(&self) -> String {
        let esc = |s: &str| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let mut s = String::new();
        let cols: Vec<String> = self.columns.iter().map(|c| esc(c)).collect();
        let _ = writeln!(s, "{}", cols.join(","));
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .map(|v| match v {
                    Value::Null => String::new(),
                    Value::Number(n) => n.to_string(),
                    Value::String(t) => esc(t),
                    Value::Bool(b) => b.to_string(),
                    other => esc(&other.to_string()),
                })
                .collect();
            let _ = writeln!(s, "{}", cells.join(","));
        }
        s
    }
}

/// A number for a table: 4 significant digits, no exponent for ordinary sizes.
pub fn fmt_num(f: f64) -> String {
    if !f.is_finite() {
        return "n/a".into();
    }
    let a = f.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{f:.0}")
    } else if a >= 100.0 {
        format!("{f:.1}")
    } else if a >= 10.0 {
        format!("{f:.2}")
    } else if a >= 0.01 {
        format!("{f:.3}")
    } else {
        format!("{f:.3e}")
    }
}

/// A JSON number, or null for NaN / infinity / `None`.
pub fn num(f: impl Into<Option<f64>>) -> Value {
    f.into()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

/// A JSON string.
pub fn text(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

/// One line of a plot.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed-looking (thin) as a reference curve: the paper's or a model's.
    pub reference: bool,
}

/// A plot: one or more series over one x axis.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Plot {
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// Lines.
    pub series: Vec<Series>,
}

impl Plot {
    /// A plot with these axis labels.
    pub fn new(x: &str, y: &str) -> Self {
        Self {
            x_label: x.into(),
            y_label: y.into(),
            series: Vec::new(),
        }
    }

    /// Adds a measured series (points with a non-finite y are dropped).
    pub fn line(&mut self, name: impl Into<String>, points: Vec<(f64, f64)>) {
        self.add(name.into(), points, false);
    }

    /// Adds a reference series (the paper's numbers or a model).
    pub fn reference(&mut self, name: impl Into<String>, points: Vec<(f64, f64)>) {
        self.add(name.into(), points, true);
    }

    fn add(&mut self, name: String, points: Vec<(f64, f64)>, reference: bool) {
        let points: Vec<_> = points
            .into_iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        if !points.is_empty() {
            self.series.push(Series {
                name,
                points,
                reference,
            });
        }
    }

    /// Draws the plot as SVG, or a placeholder saying why there is nothing to draw.
    pub fn svg(&self, title: &str, empty_note: &str) -> Result<String, String> {
        let mut buf = String::new();
        {
            let root = SVGBackend::with_string(&mut buf, (760, 460)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let pts = self.series.iter().flat_map(|s| s.points.iter());
            let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
            for (x, y) in pts {
                x0 = x0.min(*x);
                x1 = x1.max(*x);
                y0 = y0.min(*y);
                y1 = y1.max(*y);
            }
            if self.series.is_empty() {
                root.draw(&Text::new(
                    format!("{title}: {empty_note}"),
                    (20, 220),
                    ("sans-serif", 16),
                ))
                .map_err(|e| e.to_string())?;
                root.present().map_err(|e| e.to_string())?;
            } else {
                if x1 <= x0 {
                    x1 = x0 + 1.0;
                }
                let pad = ((y1 - y0) * 0.08).max(1e-9 + y1.abs() * 0.02);
                let (y0, y1) = ((y0 - pad).min(if y0 >= 0.0 { 0.0 } else { y0 }), y1 + pad);
                let mut chart = ChartBuilder::on(&root)
                    .caption(title, ("sans-serif", 17))
                    .margin(12)
                    .x_label_area_size(40)
                    .y_label_area_size(60)
                    .build_cartesian_2d(x0..x1, y0..y1)
                    .map_err(|e| e.to_string())?;
                chart
                    .configure_mesh()
                    .x_desc(self.x_label.as_str())
                    .y_desc(self.y_label.as_str())
                    .draw()
                    .map_err(|e| e.to_string())?;
                for (i, s) in self.series.iter().enumerate() {
                    let color = Palette99::pick(i).to_rgba();
                    let style = if s.reference {
                        color.stroke_width(1)
                    } else {
                        color.stroke_width(2)
                    };
                    chart
                        .draw_series(
                            LineSeries::new(s.points.iter().copied(), style)
                                .point_size(if s.reference { 0 } else { 3 }),
                        )
                        .map_err(|e| e.to_string())?
                        .label(s.name.as_str())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                        });
                }
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(|e| e.to_string())?;
                root.present().map_err(|e| e.to_string())?;
            }
        }
        Ok(buf)
    }
}

/// Where and when the numbers were taken.
#[derive(Clone, Debug, Serialize)]
pub struct Provenance {
    /// "cpu" or "cuda".
    pub backend: String,
    /// The device in words.
    pub device: String,
    /// UTC date and time of the run.
    pub date: String,
    /// The command that produced the page.
    pub command: String,
    /// Scale of the run ("full", "quick", "tiny").
    pub scale: String,
}

/// A generated page.
#[derive(Clone, Debug, Serialize)]
pub struct Page {
    /// File stem.
    pub name: String,
    /// Title.
    pub title: String,
    /// The paper and its figure or table.
    pub source: String,
    /// What was run: workload, sizes, launch.
    pub setup: String,
    /// The paper's reported numbers, as markdown (a table or a list).
    pub paper: String,
    /// Our measurements.
    pub table: Table,
    /// Lines of commentary whose wording follows from the numbers.
    pub findings: Vec<String>,
    /// Static text: what changed since the paper's GPU, and why.
    pub since: String,
    /// Parts of the experiment that do not exist yet.
    pub missing: Vec<String>,
    /// The plot.
    #[serde(skip)]
    pub plot: Plot,
    /// Plot series, kept for the JSON.
    pub series: Vec<Series>,
}

impl Page {
    /// A page with only its header set.
    pub fn new(name: &str, title: &str, source: &str) -> Self {
        Self {
            name: name.into(),
            title: title.into(),
            source: source.into(),
            setup: String::new(),
            paper: String::new(),
            table: Table::default(),
            findings: Vec::new(),
            since: String::new(),
            missing: Vec::new(),
            plot: Plot::default(),
            series: Vec::new(),
        }
    }

    /// Writes `<name>.md`, `.csv`, `.json` and `.svg` into `dir`.
    pub fn write(&mut self, dir: &Path, prov: &Provenance) -> io::Result<()> {
        self.series = self.plot.series.clone();
        let na = if prov.backend == "cpu" {
            "n/a (CPU)"
        } else {
            "n/a"
        };
        std::fs::write(dir.join(format!("{}.csv", self.name)), self.table.csv())?;
        let json = serde_json::json!({ "provenance": prov, "page": self });
        std::fs::write(
            dir.join(format!("{}.json", self.name)),
            serde_json::to_string_pretty(&json).unwrap_or_default(),
        )?;
        let svg = self
            .plot
            .svg(&self.title, "not yet implemented: nothing measured")
            .unwrap_or_else(|e| format!("<svg xmlns=\"http://www.w3.org/2000/svg\"><text x=\"10\" y=\"20\">plot failed: {e}</text></svg>"));
        std::fs::write(dir.join(format!("{}.svg", self.name)), svg)?;
        let mut md = String::new();
        let _ = writeln!(md, "# {}\n", self.title);
        let _ = writeln!(
            md,
            "*Generated by `{}` — do not edit by hand.*\n",
            prov.command
        );
        let _ = writeln!(md, "- **Paper**: {}", self.source);
        let _ = writeln!(
            md,
            "- **Device**: {} (backend `{}`)",
            prov.device, prov.backend
        );
        let _ = writeln!(md, "- **Date**: {}", prov.date);
        let _ = writeln!(md, "- **Scale**: {}", prov.scale);
        let _ = writeln!(md, "- **Setup**: {}\n", self.setup);
        if !self.missing.is_empty() {
            let _ = writeln!(md, "## Not yet implemented\n");
            for m in &self.missing {
                let _ = writeln!(md, "- {m}");
            }
            md.push('\n');
        }
        let _ = writeln!(
            md,
            "## What the paper reports\n\n{}\n",
            self.paper.trim_end()
        );
        let _ = writeln!(md, "## What we measured\n");
        if self.table.rows.is_empty() {
            let _ = writeln!(md, "Nothing measured (see *Not yet implemented*).\n");
        } else {
            let _ = writeln!(md, "{}", self.table.markdown(na));
            let _ = writeln!(
                md,
                "Times are medians of repeated runs ({}); speedups are ratios of medians measured side by side in one run. SIMD efficiency is the CPU reference model's (`smsp__average_thread_inst_executed_per_inst_executed` / 32) for the same configuration at a smaller size. Data: [`{n}.csv`]({n}.csv), [`{n}.json`]({n}.json).\n",
                if prov.backend == "cpu" {
                    "wall time of the emulated warps"
                } else {
                    "CUDA events around each kernel"
                },
                n = self.name
            );
            let _ = writeln!(md, "![{}]({}.svg)\n", self.title, self.name);
        }
        if !self.findings.is_empty() {
            let _ = writeln!(md, "## On this device\n");
            for f in &self.findings {
                let _ = writeln!(md, "- {f}");
            }
            md.push('\n');
        }
        if !self.since.is_empty() {
            let _ = writeln!(
                md,
                "## What changed since the paper's GPU\n\n{}\n",
                self.since.trim_end()
            );
        }
        std::fs::write(dir.join(format!("{}.md", self.name)), md)
    }
}
