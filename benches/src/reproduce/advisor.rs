//! The advisor against measurement (issue 15): every (experiment, setting) the reproduce tool
//! times is also predicted by `reconverge-advisor` on the CPU model (on the GPU with the
//! driver's register counts, so that occupancy enters the prediction), and the page
//! `advisor-predicted-vs-measured` sets each strategy's prediction beside its measured speedup:
//! Spearman's rank correlation per experiment and overall, and how often the advisor's pick
//! measured within 5 % of the best.

use std::sync::Mutex;

use reconverge_advisor::accuracy::{Point, Scored, spearman_of};
use reconverge_advisor::{Options, Registers, advise_strategies};
use reconverge_backend::Launch;
use reconverge_occupancy::ArchLimits;
use reconverge_transforms::{Kernel, Strategy};

use super::Meas;
use super::page::fmt_num;
use super::page::{Page, Table, num, text};

/// Tolerance of "the pick is within x of the best".
const WITHIN: f64 = 0.05;

/// One (experiment, setting): what was predicted and measured.
#[derive(Clone, Debug)]
pub struct Logged {
    /// The experiment's page.
    pub experiment: String,
    /// The setting (the model kernel's parameters).
    pub setting: String,
    /// Prediction beside measurement, per strategy.
    pub point: Point,
}

#[derive(Default)]
struct Inner {
    experiment: String,
    points: Vec<Logged>,
    failures: Vec<String>,
}

/// Collects points while the experiments run (shared by reference, filled from `Ctx::measure`).
#[derive(Default)]
pub struct AdvisorLog {
    inner: Mutex<Inner>,
    /// The device's limits, where registers are known (the GPU): predictions then include
    /// occupancy.
    pub arch: Option<ArchLimits>,
}

impl AdvisorLog {
    /// A log whose predictions use `arch`'s occupancy rules where registers are measured.
    pub fn new(arch: Option<ArchLimits>) -> Self {
        Self {
            inner: Mutex::default(),
            arch,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Points recorded from now on belong to `experiment`.
    pub fn begin(&self, experiment: &str) {
        self.lock().experiment = experiment.to_string();
    }

    /// Predicts `strategies` on `kernel` (the model's configuration of `setting`) and records
    /// them beside `measured` (the timed backend's results, the baseline among them).
    pub fn record<K: Kernel>(
        &self,
        setting: String,
        kernel: &K,
        items: u32,
        launch: Launch,
        strategies: &[Strategy],
        measured: &[Meas],
    ) {
        let Some(base) = measured
            .iter()
            .find(|m| m.strategy == Some(Strategy::Baseline) && m.ok())
        else {
            return;
        };
        let registers = self.arch.and_then(|arch| {
            let baseline = base.registers.first().copied().flatten()?;
            let strategies = measured
                .iter()
                .filter_map(|m| {
                    let regs: Option<Vec<u32>> = m.registers.iter().copied().collect();
                    Some((m.strategy?, regs?))
                })
                .filter(|(_, regs)| !regs.is_empty())
                .collect();
            Some(Registers {
                arch,
                baseline,
                strategies,
            })
        });
        let options = Options {
            registers,
            ..Options::default()
        };
        let advice = match advise_strategies(kernel, items, launch, strategies, &options) {
            Ok(a) => a,
            Err(e) => {
                let mut inner = self.lock();
                let what = format!("{}: {setting}: {e}", inner.experiment);
                inner.failures.push(what);
                return;
            }
        };
        let scored = measured
            .iter()
            .filter_map(|m| {
                let strategy = m.strategy?;
                Some(Scored {
                    strategy,
                    predicted: advice.prediction(&strategy)?.speedup,
                    measured: m.speedup_over(base)?,
                })
            })
            .collect::<Vec<_>>();
        if scored.len() < 2 {
            return;
        }
        let mut inner = self.lock();
        let experiment = inner.experiment.clone();
        inner.points.push(Logged {
            experiment,
            setting,
            point: Point { scored },
        });
    }

    /// Every point recorded.
    pub fn points(&self) -> Vec<Logged> {
        self.lock().points.clone()
    }

    /// The page: a summary per experiment, then every (setting, strategy).
    pub fn page(&self, backend_has_registers: bool) -> Page {
        let inner = self.lock();
        let mut page = Page::new(
            "advisor-predicted-vs-measured",
            "The advisor's predicted speedups against the measured ones, every experiment and setting",
            "issue 15; reconverge-advisor (the reference SIMT model's issue slots, extra launches, occupancy from the driver's registers)",
        );
        page.setup = format!(
            "Each (experiment, setting) the reproduce tool times is also predicted by `reconverge_advisor::advise_strategies` on the CPU model, on the model configuration of that setting (the experiment's model sample), {}. Speedup = baseline time / strategy time; \"pick\" is the strategy with the highest predicted speedup (the baseline included), \"within 5 %\" means its measured speedup is at least 0.95 x the best measured one. Spearman's rank correlation (ties at mean rank) over every (setting, strategy) pair of an experiment, baseline rows included.",
            if backend_has_registers {
                "with the driver's registers per entry point, so that occupancy enters the prediction"
            } else {
                "without registers (the CPU backend has none), so predictions are issue slots and launches only"
            }
        );
        let mut summary = Table::new(&[
            "experiment",
            "settings",
            "strategy rows",
            "Spearman",
            "pick within 5 %",
        ]);
        let mut experiments: Vec<&str> = Vec::new();
        for p in &inner.points {
            if !experiments.contains(&p.experiment.as_str()) {
                experiments.push(&p.experiment);
            }
        }
        let mut within_total = 0;
        for e in &experiments {
            let points: Vec<Point> = inner
                .points
                .iter()
                .filter(|p| p.experiment == *e)
                .map(|p| p.point.clone())
                .collect();
            let within = points
                .iter()
                .filter(|p| p.pick_within(WITHIN) == Some(true))
                .count();
            within_total += within;
            summary.push(vec![
                text(*e),
                text(points.len().to_string()),
                text(
                    points
                        .iter()
                        .map(|p| p.scored.len())
                        .sum::<usize>()
                        .to_string(),
                ),
                num(spearman_of(&points)),
                text(format!("{within} of {}", points.len())),
            ]);
        }
        let all: Vec<Point> = inner.points.iter().map(|p| p.point.clone()).collect();
        let overall = spearman_of(&all);
        summary.push(vec![
            text("all"),
            text(all.len().to_string()),
            text(
                all.iter()
                    .map(|p| p.scored.len())
                    .sum::<usize>()
                    .to_string(),
            ),
            num(overall),
            text(format!("{within_total} of {}", all.len())),
        ]);
        page.findings.push(format!(
            "{} (experiment, setting) points; the pick measured within 5 % of the best in {within_total} ({:.0} %); Spearman over all {} rows {}. Targets (issue 15): within 5 % in >= 80 % of points, Spearman >= 0.8.",
            all.len(),
            100.0 * within_total as f64 / all.len().max(1) as f64,
            all.iter().map(|p| p.scored.len()).sum::<usize>(),
            overall.map_or("n/a".into(), fmt_num),
        ));
        page.paper = format!("## Per experiment\n\n{}", summary.markdown("n/a"));
        let mut table = Table::new(&[
            "experiment",
            "setting",
            "strategy",
            "predicted",
            "measured",
            "pick",
            "measured best",
        ]);
        for p in &inner.points {
            let pick = p.point.pick().map(|s| s.strategy);
            let best = p.point.measured_best().map(|s| s.strategy);
            for s in &p.point.scored {
                table.push(vec![
                    text(&p.experiment),
                    text(&p.setting),
                    text(s.strategy.to_string()),
                    num(s.predicted),
                    num(s.measured),
                    text(if pick == Some(s.strategy) { "pick" } else { "" }),
                    text(if best == Some(s.strategy) { "best" } else { "" }),
                ]);
            }
        }
        page.table = table;
        page.missing = inner
            .failures
            .iter()
            .map(|f| format!("no prediction: {f}"))
            .collect();
        page
    }
}
