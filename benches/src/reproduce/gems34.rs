//! Harris & Buck, *GPU Flow-Control Idioms*, GPU Gems 2 ch. 34 (seed 003): z-cull and
//! branching against the branch's probability (figs. 34-1, 34-2) and the occlusion-query loop
//! (§34.3).

use reconverge_backend::Strategy;
use reconverge_transforms::{ItemLoopKernel, TwoPathKernel};
use reconverge_workloads::synthetic::{DynamicWork, Gems34Branch};
use serde_json::Value;

use super::common::{
    BLOCK, SINCE_VOLTA, all_equal, baseline_then, driver_cells, driver_columns, f, plain_cells,
    plain_columns, plain_finding, x2,
};
use super::page::{Page, Plot, Table, columns_per, num, text};
use super::registry::{Experiment, Paper};
use super::seed004::dwa_runs;
use super::setting::{Runs, Workload, per_thread, settings};
use super::{Ctx, Meas, Scale};
use crate::label;

/// GPU Gems 2 ch. 34: fragments.
pub const FULL_GEMS_ITEMS: u32 = 1 << 22;

/// Figs. 34-1 and 34-2: z-cull and branching against the probability (one run, two pages).
pub const FIG34_1_2: Experiment = Experiment {
    pages: &["gems34-fig34-1-zcull", "gems34-fig34-2-branching"],
    paper: Paper::Gems2Ch34,
    build: gems34,
    settings: |scale| {
        let points = branch_sweep(scale).into_iter().map(|(coherent, p, runs)| {
            let condition = if coherent { "coherent" } else { "random" };
            (format!("{condition}, p = {p}"), runs)
        });
        settings(points, Workload::Gems34, &BRANCH_STRATEGIES)
    },
    plain: &["gems34"],
};

/// §34.3: the occlusion-query loop.
pub const SECTION34_3: Experiment = Experiment {
    pages: &["gems34-3-occlusion-query-loop"],
    paper: Paper::Gems2Ch34,
    build: |ctx| vec![occlusion_query_loop(ctx)],
    settings: |scale| {
        let point = [("LOOP_NUM 16, 1-32 trips", occlusion_runs(scale))];
        settings(point, Workload::DynamicWork, &occlusion_strategies())
    },
    plain: &["dwa"],
};

// ---- GPU Gems 2 ch. 34 ----------------------------------------------------------------------

/// Branching, predication, branch splitting, static branch resolution and z-cull masking.
const BRANCH_STRATEGIES: [Strategy; 5] = crate::GEMS34_STRATEGIES;

/// Figs. 34-1 and 34-2's runs: a random and a coherent condition at each probability.
fn branch_sweep(scale: &Scale) -> Vec<(bool, f64, Runs<TwoPathKernel<Gems34Branch>>)> {
    let items = scale.items(FULL_GEMS_ITEMS, 1024);
    let model_items = items.min(scale.model_items * 4);
    let probs = [0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0];
    [false, true]
        .into_iter()
        .flat_map(|coherent| probs.map(|p| (coherent, p)))
        .map(|(coherent, p)| {
            let k = TwoPathKernel(crate::gems34_branch(coherent, p, 1024));
            let runs = Runs {
                timed: per_thread(k, items),
                sample: per_thread(k, model_items),
            };
            (coherent, p, runs)
        })
        .collect()
}

/// §34.3's loop: seed 004's LOOP_NUM and maximum trips.
const OCCLUSION_LOOP: (u32, u32) = (16, 32);
/// §34.3's iterations per pass.
const OCCLUSION_PASSES: [u32; 4] = [1, 4, 8, 32];

/// The one-kernel loop, then the occlusion-query loop at each iterations per pass.
fn occlusion_strategies() -> Vec<Strategy> {
    baseline_then(OCCLUSION_PASSES.map(Strategy::occlusion_query_loop))
}

/// §34.3's runs: seed 004 A-1's sizes.
fn occlusion_runs(scale: &Scale) -> Runs<ItemLoopKernel<DynamicWork>> {
    let (loop_num, max_trips) = OCCLUSION_LOOP;
    dwa_runs(scale, DynamicWork::new(loop_num, max_trips, 1))
}

fn gems34(ctx: &Ctx) -> Vec<Page> {
    let items = ctx.scale.items(FULL_GEMS_ITEMS, 1024);
    let names = [
        "branching",
        "predication",
        "branch splitting (per-path pass)",
        "static branch resolution",
        "z-cull masking (3 passes)",
    ];
    const ZCULL: usize = 4;
    let mut res = Vec::new();
    let mut plains = Vec::new();
    for (coherent, p, runs) in branch_sweep(&ctx.scale) {
        let (m, plain) =
            ctx.measure_with_plain(&runs, &BRANCH_STRATEGIES, "gems34", ctx.scale.reps);
        res.push((coherent, p, m));
        plains.push(plain);
    }
    let mut cols = vec!["condition".to_string(), "p(taken)".to_string()];
    cols.extend(columns_per(&names, "ms"));
    cols.push("z-cull culled passes ms (mask reused)".into());
    cols.extend(plain_columns(&names));
    cols.extend(columns_per(&names, "SIMD eff"));
    cols.extend(driver_columns(&["branching"]));
    cols.push("outputs equal".into());
    let mut table = Table::with_columns(cols);
    for ((c, p, m), plain) in res.iter().zip(&plains) {
        let mut row = vec![text(if *c { "coherent" } else { "random" }), num(*p)];
        row.extend(m.iter().map(|m| num(m.ms())));
        row.push(num(m[ZCULL].passes_ms(1)));
        row.extend(plain_cells(m, plain.as_ref()));
        row.extend(m.iter().map(|m| num(m.simd())));
        row.extend(driver_cells(&[(&m[0], 0)]));
        row.push(Value::Bool(all_equal(m, plain.as_ref())));
        table.push(row);
    }
    // Both pages' first finding: every strategy against the best plain kernel at p = 0.5
    // with a random condition (the book's worst case).
    let first = res
        .iter()
        .zip(&plains)
        .find(|((c, p, _), _)| !*c && (*p - 0.5).abs() < 1e-9)
        .map(|((_, _, m), plain)| plain_finding("p = 0.5, random", &names, m, plain.as_ref()));
    let series_of = |coherent: bool, ms: &dyn Fn(&[Meas]) -> Option<f64>| -> Vec<(f64, f64)> {
        res.iter()
            .filter(|r| r.0 == coherent)
            .map(|(_, p, m)| (*p, ms(m).unwrap_or(f64::NAN)))
            .collect()
    };
    let series = |i: usize, coherent: bool| series_of(coherent, &|m: &[Meas]| m[i].ms());
    let culled = |coherent: bool| series_of(coherent, &|m: &[Meas]| m[ZCULL].passes_ms(1));
    let setup = format!(
        "{items} fragments, one per thread, blocks of {BLOCK}; taken path = expensive shading, not taken = write a constant; random condition (each fragment independently) or coherent (runs of 1024 fragments share the condition); p = 0 … 1; every strategy stated against the fastest plain kernel of the branch (`gems34_*`: `if` as written, one loop per thread, four schedules)."
    );
    let book = "The chapter's figures give no numbers (plots of cost over probability, GeForce 6 era). The text states: with locality (coherent), cost follows the probability for z-cull and for branching; with a random condition z-cull \"is not much better than predication\", and branching costs about as much as predication for any probability away from 0 and 1; both are effective only at very low or very high probability. Predication is preferred for branches of 2–4 operations.";
    let at = |coherent: bool, p: f64| {
        res.iter()
            .find(|r| r.0 == coherent && (r.1 - p).abs() < 1e-9)
            .map(|r| &r.2)
    };
    // Fig. 34-1: z-cull.
    let mut z = Page::new(
        "gems34-fig34-1-zcull",
        "GPU Gems 2 fig. 34-1: cost of a branch with z-cull against its probability",
        "Harris & Buck, GPU Gems 2 ch. 34, fig. 34-1 (§34.2.3)",
    );
    z.setup = setup.clone();
    z.paper = book.into();
    z.missing.push("the hardware's z-cull tile: `Strategy::Z_CULL_MASKING` culls at the granularity of a warp's window of 32 fragments (a mask word), where GeForce 6's z-cull tile size was not published; the mask pass is timed with the rest (column \"z-cull masking\") and without it (\"culled passes\", the book's case of a mask set up once and reused).".into());
    let mut plot = Plot::new("probability of the branch", "time (ms)");
    for coherent in [false, true] {
        let cond = if coherent { "coherent" } else { "random" };
        plot.line(format!("predication, {cond}"), series(1, coherent));
        plot.line(format!("z-cull, culled passes, {cond}"), culled(coherent));
        plot.line(
            format!("z-cull incl. mask pass, {cond}"),
            series(ZCULL, coherent),
        );
    }
    z.plot = plot;
    z.table = table.clone();
    z.findings.extend(first.clone());
    for p in [0.05, 0.5, 0.95] {
        if let (Some(r), Some(c)) = (at(false, p), at(true, p)) {
            z.findings.push(format!(
                "p = {p}: z-cull's culled passes take {} ms with a random condition and {} ms with a coherent one; predication {} / {} ms; with the mask pass {} / {} ms.",
                f(r[ZCULL].passes_ms(1)), f(c[ZCULL].passes_ms(1)), f(r[1].ms()), f(c[1].ms()),
                f(r[ZCULL].ms()), f(c[ZCULL].ms())
            ));
        }
    }
    if let (Some(r), Some(c)) = (at(false, 0.5), at(true, 0.5)) {
        z.findings.push(format!(
            "At p = 0.5: random over coherent time of the culled passes {}x (the book: without locality z-cull \"is not much better than predication\"; random z-cull / predication here {}x). Static branch resolution, which regroups fragments by condition (z-cull cannot), runs the random case at {}x predication's speed.",
            f(x2(r[ZCULL].passes_ms(1), c[ZCULL].passes_ms(1))),
            f(x2(r[ZCULL].passes_ms(1), r[1].ms())),
            f(x2(r[1].ms(), r[3].ms()))
        ));
    }
    z.since = format!(
        "Z-cull was a raster-pipeline feature with coarse tiles; a compute kernel gets the same effect at warp granularity: a warp whose 32 mask bits all fail issues nothing of the path, which needs the same spatial locality. On a GPU with branch instructions, branching (fig. 34-2) already skips a path no lane of a warp takes, so z-cull masking gains over branching only what evaluating the condition costs (here 2 instructions per fragment: little) and pays a mask pass and a load per fragment; the book's advice holds: use it when the condition is costly or reused across many passes. {SINCE_VOLTA}"
    );
    // Fig. 34-2: branching instructions.
    let mut b = Page::new(
        "gems34-fig34-2-branching",
        "GPU Gems 2 fig. 34-2: cost of branching instructions against probability",
        "Harris & Buck, GPU Gems 2 ch. 34, fig. 34-2 (§34.2.4, Pixel Shader 3.0)",
    );
    b.setup = setup;
    b.paper = book.into();
    let mut plot = Plot::new("probability of the branch", "time (ms)");
    for (i, n) in names.iter().enumerate().take(2) {
        plot.line(format!("{n}, random"), series(i, false));
        plot.line(format!("{n}, coherent"), series(i, true));
    }
    b.plot = plot;
    b.table = table;
    b.findings.extend(first);
    for p in [0.05, 0.5, 0.95] {
        if let (Some(r), Some(c)) = (at(false, p), at(true, p)) {
            b.findings.push(format!(
                "p = {p}: branching / predication time = {} random, {} coherent; branching's SIMD efficiency (model) {} random, {} coherent.",
                f(x2(r[0].ms(), r[1].ms())),
                f(x2(c[0].ms(), c[1].ms())),
                f(r[0].simd()),
                f(c[0].simd())
            ));
        }
    }
    b.since = format!(
        "GeForce 6 ran fragments in batches of hundreds to a thousand pixels, so a random condition made nearly every batch divergent at any p; a warp is 32 threads, so divergence is finer-grained, but a random condition with p between ~0.05 and ~0.95 still leaves almost every warp running both paths (1 − p^32 − (1−p)^32 of them). {SINCE_VOLTA}"
    );
    vec![z, b]
}

// ---- GPU Gems 2 §34.3 ---------------------------------------------------------------------

/// The occlusion-query loop against the one-kernel loop, over the iterations per pass.
fn occlusion_query_loop(ctx: &Ctx) -> Page {
    let (loop_num, max_trips) = OCCLUSION_LOOP;
    let ks = OCCLUSION_PASSES;
    let mut page = Page::new(
        "gems34-3-occlusion-query-loop",
        "GPU Gems 2 §34.3: data-dependent looping with occlusion queries",
        "Harris & Buck, GPU Gems 2 ch. 34, §34.3 (no figure)",
    );
    page.paper = "§34.3 gives no measurements. It describes the technique: render a pass of the loop body over all fragments, discard the finished ones, count the fragments still updated with an occlusion query (pipelined, a single integer back to the CPU), and let the CPU issue passes until the count is zero — a global decision controlled by the CPU from GPU results, needed before fragment programs had data-dependent loops.".into();
    let strategies = occlusion_strategies();
    let runs = occlusion_runs(&ctx.scale);
    let (items, blocks) = (runs.timed.items, runs.timed.launch.blocks);
    let (m, plain) = ctx.measure_with_plain(&runs, &strategies, "dwa", ctx.scale.reps);
    page.setup = format!(
        "Seed 004's variable-trip loop (`DynamicWork`: LOOP_NUM {loop_num}, 1–{max_trips} trips per element), {items} elements, {blocks} blocks of {BLOCK} threads. Baseline: the loop inside one kernel. Occlusion-query loop: the loop as passes of k iterations; unfinished elements keep their state in device memory, finished ones are masked (a window of 32 finished elements skips the pass), and each pass counts the elements it left; the host reads that count after every pass and launches the next pass while it is non-zero. Kernel time: CUDA events summed over the passes; wall time adds the host's reads of the count and the launches. Every strategy is stated against the fastest plain kernel of the loop (`dwa_*`: one loop per thread, four schedules)."
    );
    let mut table = Table::new(&[
        "strategy",
        "iterations per pass",
        "passes",
        "kernel ms",
        "wall ms",
        "kernel time / baseline",
        "wall time / baseline",
        "SIMD eff (model)",
        "regs",
        "outputs equal",
    ]);
    table.columns.extend(plain_columns(&["strategy"]));
    let mut plot = Plot::new("log2 iterations per pass", "time / baseline");
    let (mut kern, mut wall) = (Vec::new(), Vec::new());
    for (i, s) in strategies.iter().enumerate() {
        let k = match s.paths {
            reconverge_transforms::PathSchedule::OcclusionQueryLoop {
                iterations_per_pass,
            } => Some(iterations_per_pass),
            _ => None,
        };
        let kr = x2(m[i].ms(), m[0].ms());
        let wr = (m[i].ok() && m[0].wall_s > 0.0).then(|| m[i].wall_s / m[0].wall_s);
        if let Some(k) = k {
            kern.push((f64::from(k).log2(), kr.unwrap_or(f64::NAN)));
            wall.push((f64::from(k).log2(), wr.unwrap_or(f64::NAN)));
        }
        let mut row = vec![
            text(label(s)),
            num(k.map(f64::from)),
            num(m[i].ok().then_some(m[i].pass_s.len() as f64)),
            num(m[i].ms()),
            num(m[i].ok().then_some(m[i].wall_s * 1e3)),
            num(kr),
            num(wr),
            num(m[i].simd()),
            num(m[i].regs(0)),
            Value::Bool(m[i].outputs_match && all_equal(&[], plain.as_ref())),
        ];
        row.extend(plain_cells(std::slice::from_ref(&m[i]), plain.as_ref()));
        table.push(row);
    }
    plot.line("kernel time", kern);
    plot.line("wall time", wall);
    page.plot = plot;
    page.table = table;
    let names: Vec<String> = strategies.iter().map(label).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    page.findings.push(plain_finding(
        &format!("LOOP_NUM {loop_num}"),
        &names,
        &m,
        plain.as_ref(),
    ));
    for (i, &k) in ks.iter().enumerate() {
        let oq = &m[i + 1];
        if oq.ok() {
            page.findings.push(format!(
                "k = {k}: {} pass{} (⌈{max_trips} / k⌉ = {}), kernel time {}x and wall time {}x the one-kernel loop's.",
                oq.pass_s.len(),
                if oq.pass_s.len() == 1 { "" } else { "es" },
                max_trips.div_ceil(k),
                f(x2(oq.ms(), m[0].ms())),
                f((m[0].wall_s > 0.0).then(|| oq.wall_s / m[0].wall_s)),
            ));
        }
    }
    page.since = "On GeForce 6 a fragment program could not run a data-dependent loop, so the CPU had to drive it pass by pass, and the occlusion query was the cheap way to learn when to stop. Today the loop runs inside one kernel, and the passes cost what they always cost: a launch and a read-back of the count per pass (the read-back synchronises the host with the GPU), and a state store and load per unfinished element. What remains useful is the bounded launch: CUDAMCML runs its photon loop 1000 steps per kernel call this way, to stay under the display watchdog and report progress.".into();
    page
}
