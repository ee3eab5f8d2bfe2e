//! Han & Abdelrahman (GPGPU-4, 2011), *Reducing branch divergence in GPU programs* (seed 002):
//! iteration delaying (figs. 10, 11, table 1), branch distribution (fig. 12) and both on MCML
//! ([`mcml`]).

pub mod mcml;

use reconverge_backend::{Backend, Kernel, Strategy};
use reconverge_transforms::{BranchLoopKernel, FactoredBranchLoopKernel};
use reconverge_workloads::synthetic::{SynBrDis, SynBrDisDistinct, SynItDelay, SynItDelayDistinct};
use serde_json::Value;

use crate::reproduce::common::{
    BLOCK, SINCE_VOLTA, all_equal, baseline_then, driver_cells, driver_columns, f, highest, pct,
    plain_cells, plain_columns, plain_finding, side_by_side_cells, side_by_side_columns,
};
use crate::reproduce::page::{Page, Plot, Table, columns_per, fmt_num, num, text};
use crate::reproduce::paper::{PaperTable, Quantity, Row, Source, reported};
use crate::reproduce::registry::{Experiment, Paper};
use crate::reproduce::setting::{Runs, Setting, Workload, per_thread, settings};
use crate::reproduce::{Ctx, Meas, PlainBest, PlainRef, Probe, Scale, x_plain};
use crate::{Bench, label, majority_vote, round_robin};

/// Seed 002 SYN-ITDELAY: threads.
pub const FULL_ITDELAY_ITEMS: u32 = 1 << 20;
/// Seed 002 SYN-ITDELAY: loop iterations per thread.
pub const ITDELAY_ITERATIONS: u32 = 32;
/// Seed 002 SYN-BRDIS: threads.
pub const FULL_BRDIS_ITEMS: u32 = 1 << 20;
/// Seed 002 SYN-BRDIS: loop iterations.
pub const BRDIS_ITERATIONS: u32 = 16;

/// Fig. 10: iteration delaying against the branch ratio.
pub const FIG10: Experiment = Experiment {
    pages: &["seed002-fig10-iteration-delaying-vs-r"],
    paper: Paper::HanAbdelrahman,
    build: |ctx| vec![itdelay_sweep(ctx, true)],
    settings: |scale| itdelay_settings(scale, true),
    plain: &ITDELAY_PLAIN,
};

/// Fig. 11: iteration delaying against the branch frequency.
pub const FIG11: Experiment = Experiment {
    pages: &["seed002-fig11-iteration-delaying-vs-f"],
    paper: Paper::HanAbdelrahman,
    build: |ctx| vec![itdelay_sweep(ctx, false)],
    settings: |scale| itdelay_settings(scale, false),
    plain: &ITDELAY_PLAIN,
};

/// Table 1: the decision parameters of iteration delaying.
pub const TABLE1: Experiment = Experiment {
    pages: &["seed002-table1-decision-parameters"],
    paper: Paper::HanAbdelrahman,
    build: |ctx| vec![itdelay_table1(ctx)],
    settings: |scale| {
        let point = [("r = 8, f = 10 %", itdelay_runs(scale, 8.0, 0.1))];
        settings(point, Workload::IterationDelay, &table1_strategies())
    },
    plain: &ITDELAY_PLAIN,
};

/// Fig. 12: branch distribution.
pub const FIG12: Experiment = Experiment {
    pages: &["seed002-fig12-branch-distribution"],
    paper: Paper::HanAbdelrahman,
    build: |ctx| vec![brdis(ctx)],
    settings: |scale| {
        let points = brdis_points().into_iter().map(|(m, r, n)| {
            (
                format!("M = {m}, R = {r} (N = {n})"),
                brdis_runs(scale, m, n),
            )
        });
        settings(points, Workload::BranchDistribution, &BRDIS_STRATEGIES)
    },
    plain: &BRDIS_PLAIN,
};

/// §4.2: every strategy on MCML.
pub const MCML: Experiment = Experiment {
    pages: &["seed002-mcml-strategies"],
    paper: Paper::HanAbdelrahman,
    build: |ctx| vec![mcml::mcml(ctx)],
    // MCML's inputs are calibrated on the CPU model during the run (see [`mcml`]); its
    // kernels are not among [`Workload`]'s yet.
    settings: |_| Vec::new(),
    plain: &[],
};

/// Fig. 10's numbers, as the text states them.
const FIG10_PAPER: PaperTable<'static, Quantity> = PaperTable::new(
    Source::new(Paper::HanAbdelrahman, "fig. 10", "§4.2.1"),
    &["quantity", "paper (GTX 480)"],
    &[
        Quantity::new("best majority vote speedup", "~1.18"),
        Quantity::new("best round robin speedup", "~1.30"),
        Quantity::new("speedup at r = 1", "< 1"),
    ],
);

/// Fig. 11's numbers, as the text states them.
const FIG11_PAPER: PaperTable<'static, Quantity> = PaperTable::new(
    Source::new(Paper::HanAbdelrahman, "fig. 11", "§4.2.1"),
    &["quantity", "paper (GTX 480)"],
    &[
        Quantity::new("majority vote at f = 0 % and 100 %", "~0.90"),
        Quantity::new("majority vote across f", "flat"),
    ],
);

/// Fig. 12's numbers, as the text and the abstract state them.
const FIG12_PAPER: PaperTable<'static, Quantity> = PaperTable::new(
    Source::new(Paper::HanAbdelrahman, "fig. 12 and abstract", "§4.2.2"),
    &["quantity", "paper (GTX 480)"],
    &[
        Quantity::new("measured / theoretical", "~0.90"),
        Quantity::new("best speedup", "~1.8"),
        Quantity::new("sensitivity to M", "none"),
    ],
);

/// A row of table 1: a majority-vote threshold and a round-robin cycle, each with its
/// speedup over the baseline (SYN-ITDELAY, r = 8, f = 10 %).
pub struct DecisionRow {
    /// Majority vote's threshold.
    pub threshold: u32,
    /// Majority vote's speedup at that threshold.
    pub vote_speedup: f64,
    /// Round robin's cycle (the fraction of else iterations), percent.
    pub cycle_percent: u32,
    /// Round robin's speedup at that cycle.
    pub round_robin_speedup: f64,
}

impl Row for DecisionRow {
    fn cells(&self) -> Vec<String> {
        vec![
            self.threshold.to_string(),
            self.vote_speedup.to_string(),
            format!("{} %", self.cycle_percent),
            self.round_robin_speedup.to_string(),
        ]
    }
}

/// A row of table 1.
const fn decision(
    threshold: u32,
    vote_speedup: f64,
    cycle_percent: u32,
    round_robin_speedup: f64,
) -> DecisionRow {
    DecisionRow {
        threshold,
        vote_speedup,
        cycle_percent,
        round_robin_speedup,
    }
}

/// Table 1.
const TABLE1_PAPER: PaperTable<'static, DecisionRow> = PaperTable::new(
    Source::new(Paper::HanAbdelrahman, "table 1", "§4.2.1"),
    &[
        "majority vote threshold",
        "speedup",
        "round robin cycle",
        "speedup",
    ],
    &[
        decision(1, 0.89, 90, 1.05),
        decision(8, 1.15, 70, 1.04),
        decision(16, 1.11, 50, 0.91),
        decision(24, 0.95, 30, 0.92),
        decision(32, 0.73, 10, 0.55),
    ],
);

// ---- Seed 002: iteration delaying ----------------------------------------------------------

/// SYN-ITDELAY at branch ratio `r` and frequency `f_`, timed and modelled.
fn itdelay_runs(scale: &Scale, r: f64, f_: f64) -> Runs<BranchLoopKernel<SynItDelay>> {
    let items = scale.items(FULL_ITDELAY_ITEMS, 512);
    let k = BranchLoopKernel(SynItDelay::with_branch_ratio(
        r,
        ITDELAY_ITERATIONS,
        f_,
        2011,
    ));
    Runs {
        timed: per_thread(k, items),
        sample: per_thread(k, items.min(scale.model_items)),
    }
}

/// Figs. 10 and 11's strategies.
fn itdelay_strategies() -> [Strategy; 4] {
    [
        Strategy::BASELINE,
        majority_vote(16),
        round_robin(50, false),
        round_robin(50, true),
    ]
}

/// Fig. 10's (r, f) points over r (`vs_r`), or fig. 11's over f.
fn itdelay_points(vs_r: bool) -> Vec<(f64, f64)> {
    if vs_r {
        [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 50.0]
            .into_iter()
            .map(|r| (r, 0.5))
            .collect()
    } else {
        [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]
            .into_iter()
            .map(|f| (8.0, f))
            .collect()
    }
}

fn itdelay_settings(scale: &Scale, vs_r: bool) -> Vec<Setting> {
    let points = itdelay_points(vs_r).into_iter().map(|(r, f_)| {
        (
            format!("r = {r}, f = {} %", 100.0 * f_),
            itdelay_runs(scale, r, f_),
        )
    });
    settings(points, Workload::IterationDelay, &itdelay_strategies())
}

/// Table 1's strategies: the baseline, then majority vote and round robin at each row's
/// threshold and cycle.
fn table1_strategies() -> Vec<Strategy> {
    let votes = TABLE1_PAPER.rows.iter().map(|r| majority_vote(r.threshold));
    let cycles = TABLE1_PAPER
        .rows
        .iter()
        .map(|r| round_robin(r.cycle_percent, false));
    baseline_then(votes.chain(cycles))
}

/// SYN-ITDELAY's real-divergence variant at the original's point and sizes.
fn distinct(
    runs: Runs<BranchLoopKernel<SynItDelay>>,
) -> Runs<BranchLoopKernel<SynItDelayDistinct>> {
    runs.map(|k| BranchLoopKernel(SynItDelayDistinct(k.0)))
}

/// The workload column's names: the paper's benchmark, then its real-divergence variant.
const ITDELAY_WORKLOADS: [&str; 2] = ["SYN-ITDELAY", "SYN-ITDELAY distinct"];
/// The plain kernels of [`ITDELAY_WORKLOADS`], in their order.
const ITDELAY_PLAIN: [&str; 2] = ["itdelay", "itdistinct"];

/// A point of figs. 10 and 11 on one workload: its x, the measurements and the best plain
/// kernel.
type ItDelayPoint = (f64, Vec<Meas>, Option<PlainBest>);

/// One row of figs. 10 and 11: `strategies` on `runs` at `x` beside the best plain kernel of
/// `prefix`, `reps` repetitions each.
fn itdelay_row<K>(
    ctx: &Ctx,
    (workload, prefix): (&str, &str),
    x: f64,
    runs: &Runs<K>,
    strategies: &[Strategy],
    reps: u32,
) -> (Vec<Value>, Vec<Meas>, Option<PlainBest>)
where
    K: Kernel + Sync + std::fmt::Debug,
    K::Output: Default + Send + Sync + PartialEq,
    Bench: Backend<K> + Probe<K> + PlainRef<K>,
{
    let (m, plain) = ctx.measure_with_plain(runs, strategies, prefix, reps);
    let mut row = vec![text(workload), num(x)];
    row.extend(m.iter().map(|m| num(m.ms())));
    row.extend(plain_cells(&m, plain.as_ref()));
    row.extend(m[1..].iter().map(|s| num(s.speedup_over(&m[0]))));
    row.extend(m.iter().map(|m| num(m.simd())));
    row.push(Value::Bool(all_equal(&m, plain.as_ref())));
    row.extend(driver_cells(&[(&m[0], 0)]));
    (row, m, plain)
}

fn itdelay_sweep(ctx: &Ctx, vs_r: bool) -> Page {
    let items = ctx.scale.items(FULL_ITDELAY_ITEMS, 512);
    let strategies = itdelay_strategies();
    let names = [
        "baseline",
        "majority vote (t=16)",
        "round robin (50 %)",
        "round robin + idle removal",
    ];
    let mut page = if vs_r {
        Page::new(
            "seed002-fig10-iteration-delaying-vs-r",
            "Seed 002 fig. 10: iteration delaying against branch ratio r",
            "Han & Abdelrahman (GPGPU-4, 2011), fig. 10 (§4.2.1), SYN-ITDELAY",
        )
    } else {
        Page::new(
            "seed002-fig11-iteration-delaying-vs-f",
            "Seed 002 fig. 11: iteration delaying against branch frequency f",
            "Han & Abdelrahman (GPGPU-4, 2011), fig. 11 (§4.2.1), SYN-ITDELAY",
        )
    };
    let points = itdelay_points(vs_r);
    page.setup = format!(
        "SYN-ITDELAY, {items} threads x {ITDELAY_ITERATIONS} iterations, blocks of {BLOCK}; each path 2N FMA, 20 non-branch instructions, r = N/10; {}; majority vote threshold 16 (stops delaying once a lane finishes), round robin cycle 50 %. Below the paper's benchmark, the same points on SYN-ITDELAY distinct (`SynItDelayDistinct`: the not-taken path an integer chain of the same length, which the compiler cannot merge with the float path, so the plain kernel really diverges), timed {} times each, its SIMD efficiency modelled on {} items. Every strategy is stated against the fastest plain kernel of its workload (`itdelay_*`, `itdistinct_*`: one loop per thread, four schedules).",
        if vs_r {
            "branch frequency f = 50 %, r = 1 … 50"
        } else {
            "r = 8, f = 0 … 100 %"
        },
        ctx.scale.side_reps(),
        ctx.scale.side_model_items().min(items)
    );
    page.paper = if vs_r {
        reported(
            "Values are only in the plot. The text states: every strategy starts below 1.0 at small r (instruction overhead) and rises with r; majority vote peaks around **1.18x**, round robin and its idle-removal variant around **1.30x** (the abstract: iteration delaying up to 30 % on the synthetic benchmark); majority vote stops delaying when only 67 % of the iterations are done (anti-starvation), so a third still runs divergently; idle-iteration removal is slower than plain round robin at small r (an extra vote per iteration).",
            &FIG10_PAPER,
        )
    } else {
        reported(
            "Values are only in the plot. The text states: at r = 8 majority vote is insensitive to f; round robin favours frequent direction changes; at the end points f = 0 % and 100 % (convergent branch) majority vote shows its overhead, a **~10 % slowdown** (about 15 instructions on 160-FMA paths).",
            &FIG11_PAPER,
        )
    };
    let mut cols: Vec<String> = vec![
        "workload".into(),
        if vs_r { "r".into() } else { "f %".into() },
    ];
    cols.extend(columns_per(&names, "ms"));
    cols.extend(plain_columns(&names));
    cols.extend(columns_per(&names[1..], "x baseline"));
    cols.extend(columns_per(&names, "SIMD eff"));
    cols.push("outputs equal".into());
    cols.extend(driver_columns(&["baseline"]));
    let mut table = Table::with_columns(cols);
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 6];
    // Per workload, each point's x, measurements and best plain kernel.
    let mut all: [Vec<ItDelayPoint>; 2] = [Vec::new(), Vec::new()];
    let workloads = ITDELAY_WORKLOADS.into_iter().zip(ITDELAY_PLAIN);
    for (w, workload) in workloads.enumerate() {
        for &(r, f_) in &points {
            let runs = itdelay_runs(&ctx.scale, r, f_);
            let x = if vs_r { r } else { 100.0 * f_ };
            let (row, m, plain) = if w == 0 {
                itdelay_row(ctx, workload, x, &runs, &strategies, ctx.scale.reps)
            } else {
                let reps = ctx.scale.side_reps();
                let runs = distinct(runs).sample_at_most(ctx.scale.side_model_items());
                itdelay_row(ctx, workload, x, &runs, &strategies, reps)
            };
            for (i, s) in m[1..].iter().enumerate() {
                let sp = s.speedup_over(&m[0]).unwrap_or(f64::NAN);
                series[3 * w + i].push((x, sp));
            }
            table.push(row);
            all[w].push((x, m, plain));
        }
    }
    let mut plot = Plot::new(
        if vs_r {
            "branch ratio r"
        } else {
            "branch frequency f (%)"
        },
        "speedup over baseline",
    );
    for (i, s) in series.into_iter().enumerate() {
        if i < 3 {
            plot.line(names[i + 1], s);
        } else {
            plot.line(format!("{} (distinct)", names[i - 2]), s);
        }
    }
    let [orig, dist] = all;
    plot.reference(
        "1.0 (baseline)",
        vec![
            (orig.first().map_or(0.0, |a| a.0), 1.0),
            (orig.last().map_or(1.0, |a| a.0), 1.0),
        ],
    );
    page.plot = plot;
    page.table = table;
    let sp = |m: &[Meas], i: usize| m[i].speedup_over(&m[0]);
    // The first finding (the results index's line) is stated against the best plain kernel,
    // the real-divergence variant's next.
    let at = if vs_r { 8.0 } else { 50.0 };
    let var = if vs_r { "r" } else { "f %" };
    if let Some((_, m, plain)) = orig.iter().find(|(x, ..)| *x == at) {
        page.findings.push(plain_finding(
            &format!("{var} = {at}"),
            &names,
            m,
            plain.as_ref(),
        ));
    }
    if let Some((_, m, plain)) = dist.iter().find(|(x, ..)| *x == at) {
        page.findings.push(plain_finding(
            &format!("{var} = {at} on SYN-ITDELAY distinct (real divergence)"),
            &names,
            m,
            plain.as_ref(),
        ));
    }
    let all: Vec<(f64, Vec<Meas>)> = orig.into_iter().map(|(x, m, _)| (x, m)).collect();
    if vs_r {
        if let Some((_, m)) = all.iter().find(|(x, _)| *x == 8.0) {
            page.findings.push(format!(
                "At r = 8 majority vote is {}x the baseline, round robin {}x, round robin with idle removal {}x.",
                f(sp(m, 1)),
                f(sp(m, 2)),
                f(sp(m, 3))
            ));
        }
        for (i, paper) in [(1usize, 1.18), (2, 1.30), (3, 1.30)] {
            if let Some((x, s)) = highest(
                all.iter().filter_map(|(x, m)| sp(m, i).map(|s| (*x, s))),
                |p| p.1,
            ) {
                page.findings.push(format!(
                    "Best {}: {}x at r = {x} (paper: ~{paper}); the model's SIMD efficiency there: {} vs baseline {}.",
                    names[i],
                    fmt_num(s),
                    f(all.iter().find(|a| a.0 == x).and_then(|a| a.1[i].simd())),
                    f(all.iter().find(|a| a.0 == x).and_then(|a| a.1[0].simd())),
                ));
            }
        }
        if let Some((_, m)) = all.first() {
            page.findings.push(format!(
                "At r = 1: {} / {} / {} (paper: all below 1).",
                f(sp(m, 1)),
                f(sp(m, 2)),
                f(sp(m, 3))
            ));
        }
    } else {
        let mv: Vec<(f64, f64)> = all
            .iter()
            .filter_map(|(x, m)| sp(m, 1).map(|s| (*x, s)))
            .collect();
        if let (Some(a), Some(b)) = (mv.first(), mv.last()) {
            page.findings.push(format!(
                "Majority vote at f = 0 %: {}x, at f = 100 %: {}x (paper: ~0.90, the vote's overhead on a convergent branch).",
                fmt_num(a.1),
                fmt_num(b.1)
            ));
        }
        let mid: Vec<f64> = mv
            .iter()
            .filter(|(x, _)| *x > 0.0 && *x < 100.0)
            .map(|p| p.1)
            .collect();
        if let (Some(lo), Some(hi)) = (
            mid.iter().copied().reduce(f64::min),
            mid.iter().copied().reduce(f64::max),
        ) {
            page.findings.push(format!(
                "Between f = 10 % and 90 % majority vote ranges {}–{}x ({}; the paper: insensitive to f).",
                fmt_num(lo),
                fmt_num(hi),
                if hi - lo < 0.1 { "nearly flat, as in the paper" } else { "not flat" }
            ));
        }
        if let Some((_, m)) = all.iter().find(|(x, _)| (*x - 50.0).abs() < 1e-9) {
            page.findings.push(format!(
                "At f = 50 %: majority vote {}x, round robin {}x, with idle removal {}x.",
                f(sp(m, 1)),
                f(sp(m, 2)),
                f(sp(m, 3))
            ));
        }
    }
    page.since = format!(
        "Iteration delaying trades a warp vote per iteration for SIMD efficiency. On Fermi a vote and its bookkeeping cost ~15 instructions per iteration against 160-FMA paths. On Hopper the vote is one `vote.sync`/`popc` pair, but each path's FMAs issue at twice Fermi's rate per SM sub-partition and 64 resident warps (48 on Fermi) hide more latency, so the divergent baseline loses less to masked lanes in time than in issue slots: the model's SIMD efficiency shows what the strategy recovers, the time shows how much of it a current GPU still pays for. {SINCE_VOLTA}"
    );
    page
}

fn itdelay_table1(ctx: &Ctx) -> Page {
    let items = ctx.scale.items(FULL_ITDELAY_ITEMS, 512);
    let mut page = Page::new(
        "seed002-table1-decision-parameters",
        "Seed 002 table 1: threshold and cycle of iteration delaying",
        "Han & Abdelrahman (GPGPU-4, 2011), table 1 (§4.2.1), SYN-ITDELAY r = 8, f = 10 %",
    );
    page.setup = format!(
        "SYN-ITDELAY, {items} threads x {ITDELAY_ITERATIONS} iterations, r = 8, f = 10 %, blocks of {BLOCK}; majority vote with threshold 1…32 (stop when a lane finishes), round robin with cycle 90…10 % (no idle removal). Below the paper's benchmark, the same strategies on SYN-ITDELAY distinct (`SynItDelayDistinct`: the not-taken path an integer chain, so the plain kernel really diverges), timed {} times each; every strategy is stated against the fastest plain kernel of its workload (`itdelay_*`, `itdistinct_*`).",
        ctx.scale.side_reps()
    );
    page.paper = TABLE1_PAPER.markdown();
    let strategies = table1_strategies();
    let votes = TABLE1_PAPER.rows.iter().map(|r| Some(r.vote_speedup));
    let cycles = TABLE1_PAPER
        .rows
        .iter()
        .map(|r| Some(r.round_robin_speedup));
    let papers: Vec<Option<f64>> = std::iter::once(None).chain(votes).chain(cycles).collect();
    let runs = itdelay_runs(&ctx.scale, 8.0, 0.1);
    let [prefix, prefix_d] = ITDELAY_PLAIN;
    let (m, plain) = ctx.measure_with_plain(&runs, &strategies, prefix, ctx.scale.reps);
    let reps = ctx.scale.side_reps();
    let (md, plain_d) = ctx.measure_with_plain(&distinct(runs), &strategies, prefix_d, reps);
    let mut cols: Vec<String> = ["workload", "strategy", "paper speedup", "our speedup", "ms"]
        .map(String::from)
        .into();
    cols.extend(plain_columns(&["strategy"]));
    cols.extend(
        [
            "SIMD eff (model)",
            "issue slots (model)",
            "regs",
            "occ %",
            "outputs equal",
        ]
        .map(String::from),
    );
    let mut table = Table::with_columns(cols);
    let mut plot = Plot::new(
        "row (1-5 majority vote t=1,8,16,24,32; 6-10 round robin 90..10 %)",
        "speedup",
    );
    let mut lines: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    let mut theirs = Vec::new();
    let measured = [(&m, plain.as_ref()), (&md, plain_d.as_ref())];
    for (w, (ms, p_best)) in measured.into_iter().enumerate() {
        for (i, (mm, p)) in ms.iter().zip(&papers).enumerate() {
            let s = mm.speedup_over(&ms[0]);
            let mut row = vec![
                text(ITDELAY_WORKLOADS[w]),
                text(label(&strategies[i])),
                num(if w == 0 { *p } else { None }),
                num(s),
                num(mm.ms()),
            ];
            row.extend(plain_cells(std::slice::from_ref(mm), p_best));
            row.extend([
                num(mm.simd()),
                num(mm.counters.as_ref().map(|c| c.issue_slots() as f64)),
                num(mm.regs(0)),
                pct(mm.occ(0)),
                Value::Bool(mm.outputs_match && p_best.is_none_or(|b| b.outputs_match)),
            ]);
            table.push(row);
            if i > 0 {
                lines[w].push((i as f64, s.unwrap_or(f64::NAN)));
                if w == 0 {
                    theirs.push((i as f64, p.unwrap_or(f64::NAN)));
                }
            }
        }
    }
    let [ours, ours_distinct] = lines;
    plot.line("ours", ours);
    plot.line("ours, SYN-ITDELAY distinct", ours_distinct);
    plot.reference("paper (GTX 480)", theirs);
    page.plot = plot;
    page.table = table;
    // The first finding against the best plain kernel: the baseline and the paper's best
    // threshold (8) and cycle (90 %), on the paper's benchmark, then on the variant.
    let picks = [0usize, 2, 6];
    let pick_names: Vec<String> = picks.iter().map(|&i| label(&strategies[i])).collect();
    let pick_names: Vec<&str> = pick_names.iter().map(String::as_str).collect();
    let picked = |ms: &[Meas]| -> Vec<Meas> { picks.iter().map(|&i| ms[i].clone()).collect() };
    page.findings.push(plain_finding(
        "r = 8, f = 10 %",
        &pick_names,
        &picked(&m),
        plain.as_ref(),
    ));
    page.findings.push(plain_finding(
        "r = 8, f = 10 % on SYN-ITDELAY distinct (real divergence)",
        &pick_names,
        &picked(&md),
        plain_d.as_ref(),
    ));
    let best = |range: std::ops::Range<usize>| {
        highest(
            range.filter_map(|i| m[i].speedup_over(&m[0]).map(|s| (i, s))),
            |p| p.1,
        )
    };
    if let Some((i, s)) = best(1..6) {
        page.findings.push(format!(
            "Best majority vote here: {} at {}x (paper: threshold 8 at 1.15x).",
            label(&strategies[i]),
            fmt_num(s)
        ));
    }
    if let Some((i, s)) = best(6..11) {
        page.findings.push(format!(
            "Best round robin here: {} at {}x (paper: 90 % at 1.05x).",
            label(&strategies[i]),
            fmt_num(s)
        ));
    }
    let agree = (1..11)
        .filter(|&i| {
            matches!((m[i].speedup_over(&m[0]), papers[i]), (Some(s), Some(p)) if (s >= 1.0) == (p >= 1.0))
        })
        .count();
    page.findings.push(format!(
        "{agree} of 10 settings fall on the same side of 1.0 as the paper's."
    ));
    if let Some((i, s)) = highest(
        (1..md.len()).filter_map(|i| md[i].speedup_over(&md[0]).map(|s| (i, s))),
        |p| p.1,
    ) {
        let against_plain = x_plain(md[i].ms(), plain_d.as_ref()).map_or(String::new(), |x| {
            format!(", {}x the best plain kernel", fmt_num(x))
        });
        page.findings.push(format!(
            "Best on SYN-ITDELAY distinct: {} at {}x its baseline{against_plain}.",
            label(&strategies[i]),
            fmt_num(s),
        ));
    }
    page.since = format!(
        "The threshold trades starvation against divergence; the cycle sets how often the rare path (10 % here) gets its turn. A round robin cycle of 10 % makes the frequent path wait nine iterations in ten, which is as bad on any SIMT GPU. {SINCE_VOLTA}"
    );
    page
}

// ---- Seed 002: branch distribution ---------------------------------------------------------

/// The baseline and branch distribution.
const BRDIS_STRATEGIES: [Strategy; 2] = [Strategy::BASELINE, Strategy::BRANCH_DISTRIBUTION];
/// Fig. 12's inputs of the factored code.
const BRDIS_M: [u32; 3] = [1, 4, 20];

/// Fig. 12's (M, R, N) points: N such that R = N·M/20 is 0.5 … 16, rounded (M = 20 rounds
/// both R = 0.5 and R = 1 to N = 1, so the page measures that point twice).
fn brdis_points() -> Vec<(u32, f64, u32)> {
    BRDIS_M
        .into_iter()
        .flat_map(|m| {
            [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
                .into_iter()
                .map(move |r| (m, r, (r * 20.0 / f64::from(m)).round() as u32))
        })
        .filter(|&(_, _, n)| n > 0)
        .collect()
}

/// SYN-BRDIS with `m` inputs and `n` factored instructions, timed and modelled.
fn brdis_runs(scale: &Scale, m: u32, n: u32) -> Runs<FactoredBranchLoopKernel<SynBrDis>> {
    let items = scale.items(FULL_BRDIS_ITEMS, 512);
    let k = FactoredBranchLoopKernel(SynBrDis::new(m, n, BRDIS_ITERATIONS, 1));
    Runs {
        timed: per_thread(k, items),
        sample: per_thread(k, items.min(scale.model_items)),
    }
}

/// The workload column's names: the paper's benchmark, then its real-divergence variant.
const BRDIS_WORKLOADS: [&str; 2] = ["SYN-BRDIS", "SYN-BRDIS distinct"];

/// The plain kernels of [`BRDIS_WORKLOADS`] as written, then distributed by hand (fig. 7b,
/// branch distribution's twin), in the same order.
const BRDIS_PLAIN: [&str; 4] = ["brdis", "brdistinct", "brdis_twin", "brdistinct_twin"];

/// One point of fig. 12 on one workload.
struct BrDisPoint {
    /// The baseline and branch distribution.
    measured: Vec<Meas>,
    /// The best plain kernel as written (fig. 7a).
    plain: Option<PlainBest>,
    /// The best plain kernel distributed by hand (fig. 7b), where the workload has one.
    by_hand: Option<PlainBest>,
}

/// [`BRDIS_STRATEGIES`] on `runs` beside the plain kernels of `prefix` and, where given, the
/// hand-distributed ones of `by_hand`, `reps` repetitions each.
fn brdis_point<K>(
    ctx: &Ctx,
    runs: &Runs<K>,
    (prefix, by_hand): (&str, Option<&str>),
    reps: u32,
) -> BrDisPoint
where
    K: Kernel + Sync + std::fmt::Debug,
    K::Output: Default + Send + Sync + PartialEq,
    Bench: Backend<K> + Probe<K> + PlainRef<K>,
{
    let (measured, plain) = ctx.measure_with_plain(runs, &BRDIS_STRATEGIES, prefix, reps);
    let by_hand = by_hand.and_then(|h| ctx.timing.best_plain(h, &runs.timed, reps));
    BrDisPoint {
        measured,
        plain,
        by_hand,
    }
}

fn brdis(ctx: &Ctx) -> Page {
    let items = ctx.scale.items(FULL_BRDIS_ITEMS, 512);
    let mut page = Page::new(
        "seed002-fig12-branch-distribution",
        "Seed 002 fig. 12: branch distribution against R",
        "Han & Abdelrahman (GPGPU-4, 2011), fig. 12 (§4.2.2), SYN-BRDIS",
    );
    page.setup = format!(
        "SYN-BRDIS, {items} threads x {BRDIS_ITERATIONS} iterations, blocks of {BLOCK}; M = 1, 4, 20 inputs of the factored code, N chosen so that R = N·M/20 = 0.5 … 16; theoretical speedup 2(1+R)/(2+R). Below the paper's benchmark, the same points on SYN-BRDIS distinct (`SynBrDisDistinct`: the not-taken path's prologue and epilogue integer chains, so the plain kernel really diverges through the factored code), timed {} times each, its issue slots modelled on {} items. Every strategy is stated against the fastest plain kernel of its workload as written (`brdis_*`, `brdistinct_*`), beside branch distribution written by hand (fig. 7b, `brdis_twin_*`, `brdistinct_twin_*`, the fastest of four schedules).",
        ctx.scale.side_reps(),
        ctx.scale.side_model_items().min(items)
    );
    page.paper = reported(
        "Values are only in the plot (measured and theoretical speedup over R). The text states: the measured speedup is about **10 % below** the theoretical 2(1+R)/(2+R) (the 19 non-branch PTX instructions of the random number generator), performance is not sensitive to M, and the abstract reports branch distribution up to **1.8x** (80 %) on the synthetic benchmark. On MCML's extracted boundary kernel R ≈ 2 and the speedup was 1.32x (theory ~1.4x).",
        &FIG12_PAPER,
    );
    let mut table = Table::new(&[
        "workload",
        "M",
        "N",
        "R",
        "theory 2(1+R)/(2+R)",
        "model issue-slot ratio",
        "measured speedup",
        "measured / theory",
    ]);
    table
        .columns
        .extend(side_by_side_columns("baseline", "distributed"));
    table
        .columns
        .extend(plain_columns(&["baseline", "distributed"]));
    table.columns.extend(
        [
            "plain by hand ms",
            "plain by hand kernel",
            "by hand x plain",
            "plain outputs equal",
        ]
        .map(String::from),
    );
    let mut plot = Plot::new("R = N·M/20", "speedup");
    let mut theory_pts = Vec::new();
    // Per workload: measured over theoretical speedup at each point, the best point.
    let mut ratios: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut best: [Option<(f64, f64, u32)>; 2] = [None, None];
    // The first findings' point, M = 4 and R = 4, per workload: measurements, plain, by hand.
    let mut at_r4: [Option<BrDisPoint>; 2] = [None, None];
    for (wi, workload) in BRDIS_WORKLOADS.into_iter().enumerate() {
        for m_ in BRDIS_M {
            let mut pts = Vec::new();
            for (_, _, n) in brdis_points().into_iter().filter(|p| p.0 == m_) {
                let runs = brdis_runs(&ctx.scale, m_, n);
                let w = runs.timed.kernel.0;
                let [prefix, prefix_d, by_hand, by_hand_d] = BRDIS_PLAIN;
                let point = if wi == 0 {
                    brdis_point(ctx, &runs, (prefix, Some(by_hand)), ctx.scale.reps)
                } else {
                    let runs = runs
                        .map(|k| FactoredBranchLoopKernel(SynBrDisDistinct(k.0)))
                        .sample_at_most(ctx.scale.side_model_items());
                    brdis_point(
                        ctx,
                        &runs,
                        (prefix_d, Some(by_hand_d)),
                        ctx.scale.side_reps(),
                    )
                };
                let mm = &point.measured;
                let th = w.theoretical_speedup();
                let model = match (&mm[0].counters, &mm[1].counters) {
                    (Some(a), Some(b)) if b.issue_slots() > 0 => {
                        Some(a.issue_slots() as f64 / b.issue_slots() as f64)
                    }
                    _ => None,
                };
                let s = mm[1].speedup_over(&mm[0]);
                if let Some(s) = s {
                    ratios[wi].push(s / th);
                    if best[wi].is_none_or(|b| s > b.1) {
                        best[wi] = Some((w.r(), s, m_));
                    }
                }
                if m_ == 4 && wi == 0 {
                    theory_pts.push((w.r(), th));
                }
                pts.push((w.r(), s.unwrap_or(f64::NAN)));
                let mut row = vec![
                    text(workload),
                    num(f64::from(m_)),
                    num(f64::from(n)),
                    num(w.r()),
                    num(th),
                    num(model),
                    num(s),
                    num(s.map(|s| s / th)),
                ];
                row.extend(side_by_side_cells(&mm[0], &mm[1]));
                row.extend(plain_cells(mm, point.plain.as_ref()));
                let hand = point.by_hand.as_ref();
                row.extend([
                    num(hand.map(PlainBest::ms)),
                    hand.map_or(Value::Null, |h| text(h.schedule)),
                    num(hand.and_then(|h| x_plain(Some(h.ms()), point.plain.as_ref()))),
                    point.plain.as_ref().map_or(Value::Null, |p| {
                        Value::Bool(p.outputs_match && all_equal(&[], hand))
                    }),
                ]);
                table.push(row);
                if m_ == 4 && n == 20 {
                    at_r4[wi] = Some(point);
                }
            }
            let name = if wi == 0 {
                format!("measured, M = {m_}")
            } else {
                format!("distinct, M = {m_}")
            };
            plot.line(name, pts);
        }
    }
    plot.reference("theory 2(1+R)/(2+R)", theory_pts);
    page.plot = plot;
    page.table = table;
    let names = ["baseline", "distributed"];
    for (wi, at) in at_r4.iter().enumerate() {
        let Some(p) = at else { continue };
        let on = if wi == 0 {
            String::new()
        } else {
            " on SYN-BRDIS distinct (real divergence)".into()
        };
        let mut finding = plain_finding(
            &format!("M = 4, R = 4{on}"),
            &names,
            &p.measured,
            p.plain.as_ref(),
        );
        if let (Some(h), Some(_)) = (&p.by_hand, &p.plain) {
            finding.push_str(&format!(
                " Branch distribution by hand ({}): {}x.",
                h.schedule,
                f(x_plain(Some(h.ms()), p.plain.as_ref()))
            ));
        }
        page.findings.push(finding);
    }
    for (wi, ratios) in ratios.iter().enumerate() {
        if ratios.is_empty() {
            continue;
        }
        let mut r = ratios.clone();
        let med = crate::reproduce::median(&mut r);
        page.findings.push(format!(
            "{}easured over theoretical speedup: median {} (paper: ~0.90), range {}–{}.",
            if wi == 0 {
                "M"
            } else {
                "SYN-BRDIS distinct: m"
            },
            fmt_num(med),
            fmt_num(ratios.iter().copied().fold(f64::MAX, f64::min)),
            fmt_num(ratios.iter().copied().fold(f64::MIN, f64::max))
        ));
    }
    for (wi, best) in best.iter().enumerate() {
        if let Some((r, s, m_)) = best {
            page.findings.push(format!(
                "{}est: {}x at R = {} (M = {m_}); paper: up to ~1.8x.",
                if wi == 0 {
                    "B"
                } else {
                    "SYN-BRDIS distinct: b"
                },
                fmt_num(*s),
                fmt_num(*r)
            ));
        }
    }
    page.since = format!(
        "Branch distribution removes instructions (the factored code runs once, convergently), so it gains on any SIMT GPU roughly as the instruction-count model says. What a current GPU changes is the register cost: factoring out M live values raises register use, which on Fermi (32,768 registers per SM, 1,536 threads) cut occupancy quickly; on an H100 (65,536 registers, 2,048 threads) a kernel keeps full occupancy up to 32 registers per thread, so M = 20 costs far less. {SINCE_VOLTA}"
    );
    page
}
