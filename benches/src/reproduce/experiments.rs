//! The experiments, one function per page (or pair of pages), with the papers' numbers.
//!
//! Sizes are the GPU's (`FULL_*`), divided by [`Scale::divisor`](super::Scale) elsewhere.

use reconverge_backend::{Backend, Launch, Strategy};
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, SplitLoopKernel, TwoPathKernel,
};
use reconverge_workloads::synthetic::kato::{BPU_A, BPU_B};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, LoopSplitBench, MaskLayout, PathUnification,
    SynBrDis, SynItDelay, branch_split, loop_split,
};
use serde_json::Value;

use super::page::{Page, Plot, Table, fmt_num, num, text};
use super::{Ctx, Meas};
use crate::{label, majority_vote, round_robin};

/// Seed 001: elements (the paper's 2^22).
pub const FULL_BSPLIT_ITEMS: u32 = 1 << 22;
/// Seed 001 loop splitting (fig. 5): items (4 M: milliseconds per point, not launch overhead).
pub const FULL_LSPLIT_ITEMS: u32 = 1 << 22;
/// Seed 002 SYN-ITDELAY: threads.
pub const FULL_ITDELAY_ITEMS: u32 = 1 << 20;
/// Seed 002 SYN-ITDELAY: loop iterations per thread.
pub const ITDELAY_ITERATIONS: u32 = 32;
/// Seed 002 SYN-BRDIS: threads.
pub const FULL_BRDIS_ITEMS: u32 = 1 << 20;
/// Seed 002 SYN-BRDIS: loop iterations.
pub const BRDIS_ITERATIONS: u32 = 16;
/// Seed 004 A-1: elements.
pub const FULL_DWA_ITEMS: u32 = 1 << 22;
/// Seed 004 A-1: elements per thread of the static kernel.
pub const DWA_ITEMS_PER_THREAD: u32 = 16;
/// Seed 004 A-2: elements.
pub const FULL_BPU_ITEMS: u32 = 1 << 22;
/// GPU Gems 2 ch. 34: fragments.
pub const FULL_GEMS_ITEMS: u32 = 1 << 22;
/// MCML: photons per (input, strategy).
pub const FULL_MCML_PHOTONS: u64 = 1 << 22;
/// Threads per block everywhere (the papers' 256; MCML 128).
pub const BLOCK: u32 = 256;

const SINCE_VOLTA: &str = "Since Volta (2017) each thread has its own program counter (independent thread scheduling): a divergent warp still issues each path with the other lanes masked off, so SIMD efficiency is lost exactly as on G80/Fermi, but the paths no longer have to reconverge at the immediate post-dominator, and warp votes need an explicit member mask (`vote.sync`), which reconverge's strategies pass.";

/// Builds the page(s) of experiment `name`.
pub fn build(ctx: &Ctx, name: &str) -> Vec<Page> {
    match name {
        "seed001-fig08-branch-splitting-linear" => vec![seed001(ctx, MaskLayout::Linear)],
        "seed001-fig10-branch-splitting-random" => vec![seed001(ctx, MaskLayout::Random)],
        "seed001-fig05-loop-splitting" => vec![seed001_loop_splitting(ctx)],
        "seed002-fig10-iteration-delaying-vs-r" => vec![itdelay_sweep(ctx, true)],
        "seed002-fig11-iteration-delaying-vs-f" => vec![itdelay_sweep(ctx, false)],
        "seed002-table1-decision-parameters" => vec![itdelay_table1(ctx)],
        "seed002-fig12-branch-distribution" => vec![brdis(ctx)],
        "seed002-mcml-strategies" => vec![super::mcml::mcml(ctx)],
        "seed004-table1-fig12-dynamic-work-assignment" => vec![dwa(ctx)],
        "seed004-tables2-3-fig14-path-unification" => bpu(ctx),
        "seed004-table4-path-execution-rate" => Vec::new(), // written with tables 2-3
        "gems34-fig34-1-zcull" => gems34(ctx),
        "gems34-fig34-2-branching" => Vec::new(), // written with fig. 34-1
        "gems34-3-occlusion-query-loop" => vec![occlusion_query_loop(ctx)],
        _ => Vec::new(),
    }
}

fn x2(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

fn f(v: Option<f64>) -> String {
    v.map_or("n/a".into(), fmt_num)
}

fn pct(v: Option<f64>) -> Value {
    num(v.map(|x| 100.0 * x))
}

fn launch(items: u32) -> Launch {
    Launch::one_item_per_thread(items, BLOCK).unwrap_or(Launch {
        threads_per_block: BLOCK,
        blocks: 1,
    })
}

// ---- Seed 001: branch splitting ------------------------------------------------------------

fn seed001(ctx: &Ctx, layout: MaskLayout) -> Page {
    let linear = layout == MaskLayout::Linear;
    let items = ctx.scale.items(FULL_BSPLIT_ITEMS, 1024);
    let model_items = items.min(ctx.scale.model_items * 4);
    let (light, heavy) = (16, 32);
    let mut page = if linear {
        Page::new(
            "seed001-fig08-branch-splitting-linear",
            "Seed 001 fig. 8: branch splitting, linear decision mask",
            "Carrillo, Siegel & Li (2009), fig. 8 (§5.2), with eq. 1",
        )
    } else {
        Page::new(
            "seed001-fig10-branch-splitting-random",
            "Seed 001 fig. 10: branch splitting, random decision mask",
            "Carrillo, Siegel & Li (2009), fig. 10 (§5.3), with eq. 1 / eq. 2",
        )
    };
    page.setup = format!(
        "{items} elements, one per thread, blocks of {BLOCK}; if path {light} instructions, else path {heavy}; else fraction 0–100 % in steps of 5; branched single kernel (baseline) vs two split kernels (pass 0 = if, pass 1 = else). Eq. 1 with T = Σ t_i, t_i ∝ the model's issue slots of each path, ρ from the driver, σ = 0."
    );
    page.paper = if linear {
        "Values are only in the plot (runtime over % else). The text states: at 0 % else the branched kernel runs the if path at 67 % occupancy (13 registers, 256 threads/block on G80) while the split if-kernel runs at 100 % (6 registers); at 100 % both run the else path at 67 %; the split version is slower only near one end, \"roughly 5 %\" of the sweep, from the extra launch and loads.\n\n| quantity | paper (G80) |\n|---|---|\n| registers: branched / if-kernel / else-kernel | 13 / 6 / 13 |\n| occupancy: branched / if-kernel / else-kernel | 67 % / 100 % / 67 % |\n| share of the sweep where split is slower | ~5 % |\n| eq. 1 worst-case speedup (ρ 0.67 and 1, σ = 0) | 2 / (0.67 + 1) = 1.197 |\n".into()
    } else {
        "Values are only in the plot (runtime in ms over % else). The text states: the branched kernel is worst between 8 % and 16 % else (nearly every warp holds both paths); \"throughout 98 % of the benchmark the split version outperforms the branch version by 6 % to 13.5 %\", 14 % in the worst-case area; eq. 2 (eq. 1 with T = Σ t_i, ρ = 0.67 and 1, σ = 0) predicts 1.197.\n\n| quantity | paper (G80) |\n|---|---|\n| worst case of the branched kernel | 8–16 % else |\n| split faster than branched, 98 % of the sweep | 1.06–1.135x |\n| split faster in the worst-case area | 1.14x |\n| eq. 1/2 theoretical speedup | 1.197 |\n| registers: branched / if-kernel / else-kernel | 13 / 6 / 13 |\n| occupancy: branched / if-kernel / else-kernel | 67 % / 100 % / 67 % |\n".into()
    };
    let mut table = Table::new(&[
        "else %",
        "branched ms",
        "split ms",
        "split speedup",
        "eq. 1 speedup",
        "SIMD eff branched",
        "SIMD eff split",
        "regs branched",
        "regs if-kernel",
        "regs else-kernel",
        "occ branched %",
        "occ if-kernel %",
        "occ else-kernel %",
        "outputs equal",
    ]);
    let strategies = [Strategy::Baseline, Strategy::BranchSplitting];
    let mut plot = Plot::new("else-branch executions (%)", "time (ms)");
    let (mut tb, mut ts, mut sp) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows: Vec<(u32, Vec<Meas>, Option<f64>)> = Vec::new();
    for pct_else in (0..=100).step_by(5) {
        let frac = f64::from(pct_else) / 100.0;
        let w = BranchSplitBench::new(items, frac, layout, 1).with_paths(light, heavy);
        let wm = BranchSplitBench::new(model_items, frac, layout, 1).with_paths(light, heavy);
        let m = ctx.measure(
            &TwoPathKernel(w),
            &strategies,
            items,
            launch(items),
            &TwoPathKernel(wm),
            model_items,
            launch(model_items),
        );
        // Eq. 1: T = Σ t_i with t_i ∝ each path's issue slots in the branched kernel.
        let eq1 = m[0].counters.as_ref().and_then(|c| {
            let a = c
                .region(branch_split::IF_LIGHT)
                .map_or(0, |r| r.issue_slots) as f64;
            let b = c
                .region(branch_split::ELSE_HEAVY)
                .map_or(0, |r| r.issue_slots) as f64;
            let (rho_min, ra, rb) = (m[0].occ(0)?, m[1].occ(0)?, m[1].occ(1)?);
            let t = a + b;
            (t > 0.0).then(|| reconverge_occupancy_free_eq1(t, &[(a, ra), (b, rb)], rho_min))
        });
        tb.push((f64::from(pct_else), m[0].ms().unwrap_or(f64::NAN)));
        ts.push((f64::from(pct_else), m[1].ms().unwrap_or(f64::NAN)));
        sp.push((
            f64::from(pct_else),
            m[1].speedup_over(&m[0]).unwrap_or(f64::NAN),
        ));
        table.push(vec![
            num(f64::from(pct_else)),
            num(m[0].ms()),
            num(m[1].ms()),
            num(m[1].speedup_over(&m[0])),
            num(eq1),
            num(m[0].simd()),
            num(m[1].simd()),
            num(m[0].regs(0)),
            num(m[1].regs(0)),
            num(m[1].regs(1)),
            pct(m[0].occ(0)),
            pct(m[1].occ(0)),
            pct(m[1].occ(1)),
            Value::Bool(m[1].outputs_match),
        ]);
        rows.push((pct_else, m, eq1));
    }
    plot.line("branched (single kernel)", tb);
    plot.line("split (two kernels)", ts);
    page.plot = plot;
    page.table = table;
    // Findings.
    let speedups: Vec<(u32, f64)> = rows
        .iter()
        .filter_map(|(p, m, _)| m[1].speedup_over(&m[0]).map(|s| (*p, s)))
        .collect();
    let inner: Vec<&(u32, f64)> = speedups
        .iter()
        .filter(|(p, _)| *p > 0 && *p < 100)
        .collect();
    if let (Some(lo), Some(hi)) = (
        inner.iter().min_by(|a, b| a.1.total_cmp(&b.1)),
        inner.iter().max_by(|a, b| a.1.total_cmp(&b.1)),
    ) {
        let faster = inner.iter().filter(|(_, s)| *s > 1.0).count();
        page.findings.push(format!(
            "Between 5 % and 95 % else, the split version is {} to {}x the branched one's speed ({} at {} %, {} at {} %); it is faster at {faster} of {} points. The paper: {}.",
            fmt_num(lo.1),
            fmt_num(hi.1),
            fmt_num(lo.1),
            lo.0,
            fmt_num(hi.1),
            hi.0,
            inner.len(),
            if linear { "split faster except over ~5 % of the sweep" } else { "split 1.06–1.135x faster over 98 % of the sweep" }
        ));
    }
    if let Some((p, m, _)) = rows
        .iter()
        .filter(|(_, m, _)| m[0].simd().is_some())
        .min_by(|a, b| {
            a.1[0]
                .simd()
                .unwrap_or(1.0)
                .total_cmp(&b.1[0].simd().unwrap_or(1.0))
        })
    {
        page.findings.push(format!(
            "The branched kernel's SIMD efficiency (model) is lowest at {p} % else: {} (split: {}){}.",
            f(m[0].simd()),
            f(m[1].simd()),
            if linear {
                "; with a linear mask only the one warp on the boundary diverges, so it stays near 1 everywhere"
            } else {
                "; the paper puts the branched kernel's worst case at 8–16 % else"
            }
        ));
    }
    if let Some((p, m, _)) = rows.iter().max_by(|a, b| {
        a.1[0]
            .ms()
            .unwrap_or(0.0)
            .total_cmp(&b.1[0].ms().unwrap_or(0.0))
    }) {
        page.findings.push(format!(
            "The branched kernel's slowest point is {p} % else ({} ms).",
            f(m[0].ms())
        ));
    }
    let (m0, eq1) = (&rows[0].1, rows.iter().find_map(|r| r.2));
    match (m0[0].regs(0), m0[1].regs(0), m0[1].regs(1)) {
        (Some(rb), Some(ra), Some(re)) => page.findings.push(format!(
            "Registers from the driver: branched {rb:.0}, if-kernel {ra:.0}, else-kernel {re:.0} (paper: 13 / 6 / 13); occupancy {} % / {} % / {} % (paper 67 / 100 / 67 %). Eq. 1 gives {} here (paper 1.197).",
            f(m0[0].occ(0).map(|x| 100.0 * x)),
            f(m0[1].occ(0).map(|x| 100.0 * x)),
            f(m0[1].occ(1).map(|x| 100.0 * x)),
            f(eq1)
        )),
        _ => page.findings.push(
            "Registers, occupancy and eq. 1 need the driver: n/a on the CPU backend, where the model issues the same path instructions for both versions, so any split \"speedup\" here is the CPU's cache and loop overhead, not occupancy.".into(),
        ),
    }
    page.since = format!(
        "Branch splitting buys occupancy: on G80 (8,192 registers per SM, 768 threads) 13 registers capped a 256-thread kernel at 67 %, and 6 registers let the if-kernel run at 100 %. An H100 SM has 65,536 registers for at most 2,048 threads (64 warps): every kernel up to 32 registers per thread runs at full occupancy, so a 16/32-instruction kernel gains nothing from a lower register count — eq. 1 then predicts 1.0 and only the cost of the second launch and of re-reading the decision remains. Splitting still removes divergence inside a warp only where a warp's lanes all take one path (the linear mask); with a random mask each split kernel still idles the lanes of the other path. {SINCE_VOLTA}"
    );
    page
}

/// Eq. 1 of seed 001 with σ = 0: T / Σ t_i ρ_min / ρ_i.
fn reconverge_occupancy_free_eq1(t: f64, branches: &[(f64, f64)], rho_min: f64) -> f64 {
    let denom: f64 = branches
        .iter()
        .map(|(ti, rho)| ti * rho_min / rho.max(1e-9))
        .sum();
    if denom > 0.0 { t / denom } else { f64::NAN }
}

fn seed001_loop_splitting(ctx: &Ctx) -> Page {
    let items = ctx.scale.items(FULL_LSPLIT_ITEMS, 1024);
    let model_items = items.min(ctx.scale.model_items);
    let mut page = Page::new(
        "seed001-fig05-loop-splitting",
        "Seed 001 fig. 5: loop splitting",
        "Carrillo, Siegel & Li (2009), fig. 5 (§4.1)",
    );
    page.setup = format!(
        "`LoopSplitBench`: {items} items, one per thread, blocks of {BLOCK}; every item runs `trips` iterations of part A and part B, each part {n} independent u32 accumulators (multiply / xor / rotate, {pi} instructions per iteration); when loop A ends its accumulators are hashed into a 64-bit carry, and the output hashes the carry with part B's accumulators. Fused loop (baseline, fig. 5a) vs two loops in one kernel (loop splitting, fig. 5b); trips 16–256. Registers and occupancy from the driver (CUDA only); issue slots from the CPU model on {model_items} items.",
        n = loop_split::ACCUMULATORS,
        pi = loop_split::PART_INSTRUCTIONS,
    );
    page.paper = "Fig. 5 is pseudo-code only (a loop with independent memory operations on ptr1/ptr2 and ptr3/ptr4, split into two loops so that fewer pointer registers stay live). The paper reports no register count, occupancy or timing for it; its claim is qualitative: splitting \"frees at least 2 registers\", which \"can in many cases give an increase in occupancy of up to 33 %\", and helps only a kernel whose occupancy is limited by registers.".into();
    let mut table = Table::new(&[
        "trips",
        "fused ms",
        "split ms",
        "split speedup",
        "regs fused",
        "regs split",
        "occ fused %",
        "occ split %",
        "part A+B slots fused (model)",
        "part A+B slots split (model)",
        "outputs equal",
    ]);
    let strategies = [Strategy::Baseline, Strategy::LoopSplitting];
    let mut plot = Plot::new("trips per item", "time (ms)");
    let (mut tf, mut ts) = (Vec::new(), Vec::new());
    let mut rows: Vec<(u32, Vec<Meas>)> = Vec::new();
    let part_slots = |m: &Meas| {
        m.counters.as_ref().map(|c| {
            [loop_split::PART_A, loop_split::PART_B]
                .iter()
                .map(|r| c.region(*r).map_or(0, |x| x.issue_slots))
                .sum::<u64>() as f64
        })
    };
    for trips in [16u32, 64, 256] {
        let w = LoopSplitBench::new(trips, 1);
        let m = ctx.measure(
            &SplitLoopKernel(w),
            &strategies,
            items,
            launch(items),
            &SplitLoopKernel(w),
            model_items,
            launch(model_items),
        );
        tf.push((f64::from(trips), m[0].ms().unwrap_or(f64::NAN)));
        ts.push((f64::from(trips), m[1].ms().unwrap_or(f64::NAN)));
        table.push(vec![
            num(f64::from(trips)),
            num(m[0].ms()),
            num(m[1].ms()),
            num(m[1].speedup_over(&m[0])),
            num(m[0].regs(0)),
            num(m[1].regs(0)),
            pct(m[0].occ(0)),
            pct(m[1].occ(0)),
            num(part_slots(&m[0])),
            num(part_slots(&m[1])),
            Value::Bool(m[1].outputs_match),
        ]);
        rows.push((trips, m));
    }
    plot.line("fused loop (fig. 5a)", tf);
    plot.line("split loops (fig. 5b)", ts);
    page.plot = plot;
    page.table = table;
    let speedups: Vec<String> = rows
        .iter()
        .map(|(t, m)| format!("{} at {t} trips", f(m[1].speedup_over(&m[0]))))
        .collect();
    page.findings.push(format!(
        "Split over fused speed: {}; outputs equal at every point: {}.",
        speedups.join(", "),
        rows.iter().all(|(_, m)| m[1].outputs_match)
    ));
    if let Some((_, m)) = rows.first() {
        let same = part_slots(&m[0]).is_some() && part_slots(&m[0]) == part_slots(&m[1]);
        page.findings.push(format!(
            "The model issues the same part A and part B slots for both versions ({}): splitting changes which values are live, not what is executed; the split version adds one loop-exit vote per round.",
            if same { "checked" } else { "n/a" }
        ));
        match (m[0].regs(0), m[1].regs(0)) {
            (Some(rf), Some(rs)) => page.findings.push(format!(
                "Registers from the driver: fused {rf:.0}, split {rs:.0} (the paper: at least 2 fewer); occupancy {} % fused, {} % split, {} relative (the paper: \"an increase in occupancy of up to 33 %\").",
                f(m[0].occ(0).map(|x| 100.0 * x)),
                f(m[1].occ(0).map(|x| 100.0 * x)),
                match (m[0].occ(0), m[1].occ(0)) {
                    (Some(a), Some(b)) if a > 0.0 => format!("{:+.0} %", 100.0 * (b / a - 1.0)),
                    _ => "n/a".into(),
                },
            )),
            _ => page.findings.push(
                "Registers and occupancy need the driver: n/a on the CPU backend, where both versions run the same instructions, so any timing difference is the CPU's, not occupancy.".into(),
            ),
        }
    }
    page.since = format!(
        "On an H100 a kernel needs more than 32 registers per thread before occupancy drops below 100 % (65,536 registers, 2,048 threads per SM); the two pointers fig. 5 saves mattered on G80 (8,192 registers for 768 threads, ~10 registers per thread for full occupancy), so this workload keeps {} accumulators per part to cross that line. The compiler may also schedule or rematerialise values differently from the source's loops, so the register difference is the driver's, not the source's (the split program passes part A's reduced result through `core::hint::black_box`, one 8-byte local store per round, because LLVM otherwise sinks the reduction past loop B and keeps part A live). More occupancy buys time only where warps wait: G80 needed ~6 warps per SM to hide its ~24-cycle arithmetic latency and had at most 24, so registers decided speed; on Hopper integer multiply-add latency is ~4 cycles and every warp here has 12 independent accumulator chains, so the fused kernel's 75 % occupancy on an H100 (12 warps per scheduler) already issues every cycle, and the fig. 5 loop's original memory operations (pointer loads, hundreds of cycles) are what would make the extra warps pay. {SINCE_VOLTA}",
        loop_split::ACCUMULATORS
    );
    page
}

// ---- Seed 002: iteration delaying ----------------------------------------------------------

fn itdelay_measure(ctx: &Ctx, r: f64, f_: f64, strategies: &[Strategy]) -> Vec<Meas> {
    let items = ctx.scale.items(FULL_ITDELAY_ITEMS, 512);
    let model_items = items.min(ctx.scale.model_items);
    let w = SynItDelay::with_branch_ratio(r, ITDELAY_ITERATIONS, f_, 2011);
    ctx.measure(
        &BranchLoopKernel(w),
        strategies,
        items,
        launch(items),
        &BranchLoopKernel(w),
        model_items,
        launch(model_items),
    )
}

fn itdelay_sweep(ctx: &Ctx, vs_r: bool) -> Page {
    let items = ctx.scale.items(FULL_ITDELAY_ITEMS, 512);
    let strategies = [
        Strategy::Baseline,
        majority_vote(16),
        round_robin(50, false),
        round_robin(50, true),
    ];
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
    let points: Vec<(f64, f64)> = if vs_r {
        [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 50.0]
            .into_iter()
            .map(|r| (r, 0.5))
            .collect()
    } else {
        [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]
            .into_iter()
            .map(|f| (8.0, f))
            .collect()
    };
    page.setup = format!(
        "SYN-ITDELAY, {items} threads x {ITDELAY_ITERATIONS} iterations, blocks of {BLOCK}; each path 2N FMA, 20 non-branch instructions, r = N/10; {}; majority vote threshold 16 (stops delaying once a lane finishes), round robin cycle 50 %.",
        if vs_r {
            "branch frequency f = 50 %, r = 1 … 50"
        } else {
            "r = 8, f = 0 … 100 %"
        }
    );
    page.paper = if vs_r {
        "Values are only in the plot. The text states: every strategy starts below 1.0 at small r (instruction overhead) and rises with r; majority vote peaks around **1.18x**, round robin and its idle-removal variant around **1.30x** (the abstract: iteration delaying up to 30 % on the synthetic benchmark); majority vote stops delaying when only 67 % of the iterations are done (anti-starvation), so a third still runs divergently; idle-iteration removal is slower than plain round robin at small r (an extra vote per iteration).\n\n| quantity | paper (GTX 480) |\n|---|---|\n| best majority vote speedup | ~1.18 |\n| best round robin speedup | ~1.30 |\n| speedup at r = 1 | < 1 |\n".into()
    } else {
        "Values are only in the plot. The text states: at r = 8 majority vote is insensitive to f; round robin favours frequent direction changes; at the end points f = 0 % and 100 % (convergent branch) majority vote shows its overhead, a **~10 % slowdown** (about 15 instructions on 160-FMA paths).\n\n| quantity | paper (GTX 480) |\n|---|---|\n| majority vote at f = 0 % and 100 % | ~0.90 |\n| majority vote across f | flat |\n".into()
    };
    let mut cols: Vec<String> = vec![if vs_r { "r".into() } else { "f %".into() }];
    for n in &names {
        cols.push(format!("{n} ms"));
    }
    for n in &names[1..] {
        cols.push(format!("{n} speedup"));
    }
    for n in &names {
        cols.push(format!("{n} SIMD eff"));
    }
    cols.push("outputs equal".into());
    cols.push("regs baseline".into());
    cols.push("occ baseline %".into());
    let mut table = Table {
        columns: cols,
        rows: Vec::new(),
    };
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 3];
    let mut all = Vec::new();
    for (r, f_) in points {
        let m = itdelay_measure(ctx, r, f_, &strategies);
        let x = if vs_r { r } else { 100.0 * f_ };
        let mut row = vec![num(x)];
        row.extend(m.iter().map(|m| num(m.ms())));
        for (i, s) in m[1..].iter().enumerate() {
            let sp = s.speedup_over(&m[0]);
            row.push(num(sp));
            series[i].push((x, sp.unwrap_or(f64::NAN)));
        }
        row.extend(m.iter().map(|m| num(m.simd())));
        row.push(Value::Bool(m.iter().all(|m| m.outputs_match || !m.ok())));
        row.push(num(m[0].regs(0)));
        row.push(pct(m[0].occ(0)));
        table.push(row);
        all.push((x, m));
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
        plot.line(names[i + 1], s);
    }
    plot.reference(
        "1.0 (baseline)",
        vec![
            (all.first().map_or(0.0, |a| a.0), 1.0),
            (all.last().map_or(1.0, |a| a.0), 1.0),
        ],
    );
    page.plot = plot;
    page.table = table;
    let sp = |m: &[Meas], i: usize| m[i].speedup_over(&m[0]);
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
            if let Some((x, s)) = all
                .iter()
                .filter_map(|(x, m)| sp(m, i).map(|s| (*x, s)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
            {
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
        "SYN-ITDELAY, {items} threads x {ITDELAY_ITERATIONS} iterations, r = 8, f = 10 %, blocks of {BLOCK}; majority vote with threshold 1…32 (stop when a lane finishes), round robin with cycle 90…10 % (no idle removal)."
    );
    let paper_mv = [(1u32, 0.89), (8, 1.15), (16, 1.11), (24, 0.95), (32, 0.73)];
    let paper_rr = [
        (90u32, 1.05),
        (70, 1.04),
        (50, 0.91),
        (30, 0.92),
        (10, 0.55),
    ];
    page.paper = "| majority vote threshold | speedup | round robin cycle | speedup |\n|---|---|---|---|\n| 1 | 0.89 | 90 % | 1.05 |\n| 8 | 1.15 | 70 % | 1.04 |\n| 16 | 1.11 | 50 % | 0.91 |\n| 24 | 0.95 | 30 % | 0.92 |\n| 32 | 0.73 | 10 % | 0.55 |\n".into();
    let mut strategies = vec![Strategy::Baseline];
    let mut papers = vec![None];
    for (t, p) in paper_mv {
        strategies.push(majority_vote(t));
        papers.push(Some(p));
    }
    for (c, p) in paper_rr {
        strategies.push(round_robin(c, false));
        papers.push(Some(p));
    }
    let m = itdelay_measure(ctx, 8.0, 0.1, &strategies);
    let mut table = Table::new(&[
        "strategy",
        "paper speedup",
        "our speedup",
        "ms",
        "SIMD eff (model)",
        "issue slots (model)",
        "regs",
        "occ %",
        "outputs equal",
    ]);
    let mut plot = Plot::new(
        "row (1-5 majority vote t=1,8,16,24,32; 6-10 round robin 90..10 %)",
        "speedup",
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for (i, (mm, p)) in m.iter().zip(&papers).enumerate() {
        let s = mm.speedup_over(&m[0]);
        table.push(vec![
            text(label(&strategies[i])),
            num(*p),
            num(s),
            num(mm.ms()),
            num(mm.simd()),
            num(mm.counters.as_ref().map(|c| c.issue_slots() as f64)),
            num(mm.regs(0)),
            pct(mm.occ(0)),
            Value::Bool(mm.outputs_match),
        ]);
        if i > 0 {
            ours.push((i as f64, s.unwrap_or(f64::NAN)));
            theirs.push((i as f64, p.unwrap_or(f64::NAN)));
        }
    }
    plot.line("ours", ours);
    plot.reference("paper (GTX 480)", theirs);
    page.plot = plot;
    page.table = table;
    let best = |range: std::ops::Range<usize>| {
        range
            .filter_map(|i| m[i].speedup_over(&m[0]).map(|s| (i, s)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
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
    page.since = format!(
        "The threshold trades starvation against divergence; the cycle sets how often the rare path (10 % here) gets its turn. A round robin cycle of 10 % makes the frequent path wait nine iterations in ten, which is as bad on any SIMT GPU. {SINCE_VOLTA}"
    );
    page
}

// ---- Seed 002: branch distribution ---------------------------------------------------------

fn brdis(ctx: &Ctx) -> Page {
    let items = ctx.scale.items(FULL_BRDIS_ITEMS, 512);
    let model_items = items.min(ctx.scale.model_items);
    let mut page = Page::new(
        "seed002-fig12-branch-distribution",
        "Seed 002 fig. 12: branch distribution against R",
        "Han & Abdelrahman (GPGPU-4, 2011), fig. 12 (§4.2.2), SYN-BRDIS",
    );
    page.setup = format!(
        "SYN-BRDIS, {items} threads x {BRDIS_ITERATIONS} iterations, blocks of {BLOCK}; M = 1, 4, 20 inputs of the factored code, N chosen so that R = N·M/20 = 0.5 … 16; theoretical speedup 2(1+R)/(2+R)."
    );
    page.paper = "Values are only in the plot (measured and theoretical speedup over R). The text states: the measured speedup is about **10 % below** the theoretical 2(1+R)/(2+R) (the 19 non-branch PTX instructions of the random number generator), performance is not sensitive to M, and the abstract reports branch distribution up to **1.8x** (80 %) on the synthetic benchmark. On MCML's extracted boundary kernel R ≈ 2 and the speedup was 1.32x (theory ~1.4x).\n\n| quantity | paper (GTX 480) |\n|---|---|\n| measured / theoretical | ~0.90 |\n| best speedup | ~1.8 |\n| sensitivity to M | none |\n".into();
    let mut table = Table::new(&[
        "M",
        "N",
        "R",
        "theory 2(1+R)/(2+R)",
        "model issue-slot ratio",
        "measured speedup",
        "measured / theory",
        "baseline ms",
        "distributed ms",
        "SIMD eff baseline",
        "SIMD eff distributed",
        "regs baseline",
        "regs distributed",
        "occ baseline %",
        "occ distributed %",
        "outputs equal",
    ]);
    let strategies = [Strategy::Baseline, Strategy::BranchDistribution];
    let mut plot = Plot::new("R = N·M/20", "speedup");
    let mut theory_pts = Vec::new();
    let mut ratios = Vec::new();
    let mut best: Option<(f64, f64, u32)> = None;
    for m_ in [1u32, 4, 20] {
        let mut pts = Vec::new();
        for r in [0.5, 1.0, 2.0, 4.0, 8.0, 16.0] {
            let n = (r * 20.0 / f64::from(m_)).round() as u32;
            if n == 0 {
                continue;
            }
            let w = SynBrDis::new(m_, n, BRDIS_ITERATIONS, 1);
            let mm = ctx.measure(
                &FactoredBranchLoopKernel(w),
                &strategies,
                items,
                launch(items),
                &FactoredBranchLoopKernel(w),
                model_items,
                launch(model_items),
            );
            let th = w.theoretical_speedup();
            let model = match (&mm[0].counters, &mm[1].counters) {
                (Some(a), Some(b)) if b.issue_slots() > 0 => {
                    Some(a.issue_slots() as f64 / b.issue_slots() as f64)
                }
                _ => None,
            };
            let s = mm[1].speedup_over(&mm[0]);
            if let Some(s) = s {
                ratios.push(s / th);
                if best.is_none_or(|b| s > b.1) {
                    best = Some((w.r(), s, m_));
                }
            }
            if m_ == 4 {
                theory_pts.push((w.r(), th));
            }
            pts.push((w.r(), s.unwrap_or(f64::NAN)));
            table.push(vec![
                num(f64::from(m_)),
                num(f64::from(n)),
                num(w.r()),
                num(th),
                num(model),
                num(s),
                num(s.map(|s| s / th)),
                num(mm[0].ms()),
                num(mm[1].ms()),
                num(mm[0].simd()),
                num(mm[1].simd()),
                num(mm[0].regs(0)),
                num(mm[1].regs(0)),
                pct(mm[0].occ(0)),
                pct(mm[1].occ(0)),
                Value::Bool(mm[1].outputs_match),
            ]);
        }
        plot.line(format!("measured, M = {m_}"), pts);
    }
    plot.reference("theory 2(1+R)/(2+R)", theory_pts);
    page.plot = plot;
    page.table = table;
    if !ratios.is_empty() {
        let mut r = ratios.clone();
        let med = super::median(&mut r);
        page.findings.push(format!(
            "Measured over theoretical speedup: median {} (paper: ~0.90), range {}–{}.",
            fmt_num(med),
            fmt_num(ratios.iter().copied().fold(f64::MAX, f64::min)),
            fmt_num(ratios.iter().copied().fold(f64::MIN, f64::max))
        ));
    }
    if let Some((r, s, m_)) = best {
        page.findings.push(format!(
            "Best: {}x at R = {} (M = {m_}); paper: up to ~1.8x.",
            fmt_num(s),
            fmt_num(r)
        ));
    }
    page.since = format!(
        "Branch distribution removes instructions (the factored code runs once, convergently), so it gains on any SIMT GPU roughly as the instruction-count model says. What a current GPU changes is the register cost: factoring out M live values raises register use, which on Fermi (32,768 registers per SM, 1,536 threads) cut occupancy quickly; on an H100 (65,536 registers, 2,048 threads) a kernel keeps full occupancy up to 32 registers per thread, so M = 20 costs far less. {SINCE_VOLTA}"
    );
    page
}

// ---- Seed 004: dynamic work assignment and branch path unification --------------------------

/// Seed 004 A-1's timed size: elements and blocks of `BLOCK` threads with
/// `DWA_ITEMS_PER_THREAD` elements per thread.
fn dwa_sizes(ctx: &Ctx) -> (u32, u32) {
    let items = ctx.scale.items(FULL_DWA_ITEMS, 4096);
    (items, (items / (BLOCK * DWA_ITEMS_PER_THREAD)).max(1))
}

/// `strategies` on seed 004 A-1's loop `w`, timed at [`dwa_sizes`] and modelled at a smaller
/// size with the same elements per thread. Returns (items, blocks, measurements).
fn measure_dwa(ctx: &Ctx, w: DynamicWork, strategies: &[Strategy]) -> (u32, u32, Vec<Meas>) {
    let (items, blocks) = dwa_sizes(ctx);
    let model_items = items.min(ctx.scale.model_items * 2);
    let model_blocks = (model_items / (BLOCK * DWA_ITEMS_PER_THREAD)).max(1);
    let m = ctx.measure(
        &ItemLoopKernel(w),
        strategies,
        items,
        Launch::new(BLOCK, blocks).unwrap_or(launch(items)),
        &ItemLoopKernel(w),
        model_items,
        Launch::new(BLOCK, model_blocks).unwrap_or(launch(model_items)),
    );
    (items, blocks, m)
}

fn dwa(ctx: &Ctx) -> Page {
    let (items, blocks) = dwa_sizes(ctx);
    let max_trips = 32;
    let mut page = Page::new(
        "seed004-table1-fig12-dynamic-work-assignment",
        "Seed 004 table 1 / fig. 12: dynamic work assignment against LOOP_NUM",
        "Kato, Suda & Tamada, table 1 and fig. 12 (kernel of fig. A-1)",
    );
    page.setup = format!(
        "{items} elements, {blocks} blocks of {BLOCK} threads ({DWA_ITEMS_PER_THREAD} elements per thread), each element runs `function` (LOOP_NUM steps of tmp = 0xffff & (tmp*tmp + tmp)) 1–{max_trips} times; static block-stride assignment (baseline) vs a block-shared atomic counter."
    );
    let paper: [(u32, f64, f64); 10] = [
        (1, 0.003578, 0.006199),
        (2, 0.004829, 0.006539),
        (4, 0.005982, 0.007417),
        (8, 0.010972, 0.011640),
        (16, 0.021037, 0.020873),
        (32, 0.044515, 0.044844),
        (64, 0.085638, 0.081224),
        (128, 0.172095, 0.153413),
        (256, 0.327804, 0.301698),
        (512, 0.655889, 0.593056),
    ];
    let mut p =
        String::from("| LOOP_NUM | before (s) | after (s) | after / before |\n|---|---|---|---|\n");
    for (n, b, a) in paper {
        p.push_str(&format!("| {n} | {b} | {a} | {:.3} |\n", a / b));
    }
    p.push_str("\nFig. 12 plots after / before; the enhanced kernel is slower up to LOOP_NUM = 8 and ~10 % faster from 64 on (0.904 at 512).\n");
    page.paper = p;
    let mut table = Table::new(&[
        "LOOP_NUM",
        "paper after/before",
        "our after/before",
        "baseline ms",
        "dynamic ms",
        "SIMD eff baseline",
        "SIMD eff dynamic",
        "regs baseline",
        "regs dynamic",
        "occ baseline %",
        "occ dynamic %",
        "outputs equal",
    ]);
    let strategies = [Strategy::Baseline, Strategy::DynamicWorkAssignment];
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut res = Vec::new();
    for (n, b, a) in paper {
        let (_, _, m) = measure_dwa(ctx, DynamicWork::new(n, max_trips, 1), &strategies);
        let r = x2(m[1].ms(), m[0].ms());
        ours.push((f64::from(n).log2(), r.unwrap_or(f64::NAN)));
        theirs.push((f64::from(n).log2(), a / b));
        table.push(vec![
            num(f64::from(n)),
            num(a / b),
            num(r),
            num(m[0].ms()),
            num(m[1].ms()),
            num(m[0].simd()),
            num(m[1].simd()),
            num(m[0].regs(0)),
            num(m[1].regs(0)),
            pct(m[0].occ(0)),
            pct(m[1].occ(0)),
            Value::Bool(m[1].outputs_match),
        ]);
        res.push((n, r, m));
    }
    let mut plot = Plot::new("log2 LOOP_NUM", "time after / before");
    plot.line("ours", ours);
    plot.reference("paper", theirs);
    page.plot = plot;
    page.table = table;
    if let Some((_, r, _)) = res.first() {
        page.findings.push(format!(
            "At LOOP_NUM = 1 the dynamic kernel takes {}x the baseline's time (paper 1.733: the atomic refill costs more than the work).",
            f(*r)
        ));
    }
    if let Some((_, r, m)) = res.last() {
        page.findings.push(format!(
            "At LOOP_NUM = 512: {}x the baseline's time (paper 0.904); model SIMD efficiency {} → {}.",
            f(*r),
            f(m[0].simd()),
            f(m[1].simd())
        ));
    }
    if let Some((n, _, _)) = res.iter().find(|(_, r, _)| r.is_some_and(|r| r < 1.0)) {
        page.findings.push(format!(
            "The dynamic kernel first wins at LOOP_NUM = {n} (paper: 16)."
        ));
    }
    page.since = format!(
        "Dynamic work assignment pays one shared-memory atomic per refilled lane. Shared atomics were emulated with lock loops on early hardware and are native and fast since Maxwell, so the break-even LOOP_NUM drops; with 64 warps per SM the idle lanes of a warp waiting for its longest item also cost less, since other warps fill the issue slots, which narrows the gain at large LOOP_NUM. {SINCE_VOLTA}"
    );
    page
}

fn bpu(ctx: &Ctx) -> Vec<Page> {
    let items = ctx.scale.items(FULL_BPU_ITEMS, 64 * BLOCK);
    let model_items = items.min((ctx.scale.model_items * 2).max(64 * BLOCK));
    let lp = |n: u32| Launch::new(BLOCK, (n / (64 * BLOCK)).max(1)).unwrap_or(launch(n));
    let dpts = [1u32, 4, 16, 64];
    let mut strategies = vec![Strategy::Baseline];
    strategies.extend(dpts.map(|k| Strategy::BranchPathUnification {
        items_per_thread: k,
    }));
    let loops = [1u32, 10, 100, 1000, 10000];
    let t2: [[f64; 4]; 5] = [
        [0.000041, 0.000052, 0.000174, 0.001356],
        [0.000043, 0.000055, 0.000172, 0.001353],
        [0.000058, 0.000087, 0.000240, 0.001449],
        [0.000144, 0.000404, 0.001364, 0.004465],
        [0.001015, 0.004047, 0.013259, 0.043370],
    ];
    let t3: [[f64; 4]; 5] = [
        [0.000038, 0.000040, 0.000043, 0.000059],
        [0.000035, 0.000042, 0.000049, 0.000078],
        [0.000041, 0.000054, 0.000105, 0.000303],
        [0.000142, 0.000384, 0.001338, 0.005165],
        [0.001119, 0.003426, 0.012963, 0.051003],
    ];
    let mut page = Page::new(
        "seed004-tables2-3-fig14-path-unification",
        "Seed 004 tables 2–3 / fig. 14: branch path unification against LOOP and DATA_PER_THREAD",
        "Kato, Suda & Tamada, tables 2, 3 and fig. 14 (kernel of fig. A-2)",
    );
    page.setup = format!(
        "{items} elements; functionA or functionB (LOOP steps each) on bit 2 of a random value; one launch with threads for DATA_PER_THREAD = 64 ({} blocks of {BLOCK}) for every strategy; the baseline (before) is the same kernel for every DATA_PER_THREAD column, so its time is repeated across the row. LOOP = 1 … 10,000.",
        lp(items).blocks
    );
    let mut p = String::from(
        "| LOOP | DATA_PER_THREAD | before (s), table 2 | after (s), table 3 | before / after (fig. 14) |\n|---|---|---|---|---|\n",
    );
    for (i, l) in loops.iter().enumerate() {
        for (j, d) in dpts.iter().enumerate() {
            p.push_str(&format!(
                "| {l} | {d} | {} | {} | {:.2} |\n",
                t2[i][j],
                t3[i][j],
                t2[i][j] / t3[i][j]
            ));
        }
    }
    page.paper = p;
    let mut table = Table::new(&[
        "LOOP",
        "DATA_PER_THREAD",
        "paper before/after",
        "our before/after",
        "before ms",
        "after ms",
        "SIMD eff before",
        "SIMD eff after",
        "regs after",
        "occ after %",
        "outputs equal",
    ]);
    let mut plot = Plot::new("log10 LOOP", "speedup (before / after)");
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 4];
    let mut results = Vec::new();
    for (i, &l) in loops.iter().enumerate() {
        // LOOP = 10,000 only where the run is not scaled down to nothing (GPU and CPU quick).
        if l == 10_000 && ctx.scale.divisor > 64 {
            continue;
        }
        let w = TwoPathKernel(PathUnification::new(l, 1));
        let m = ctx.measure(
            &w,
            &strategies,
            items,
            lp(items),
            &w,
            model_items,
            lp(model_items),
        );
        for (j, &d) in dpts.iter().enumerate() {
            let mm = &m[j + 1];
            let s = mm.speedup_over(&m[0]);
            series[j].push((f64::from(l).log10(), s.unwrap_or(f64::NAN)));
            table.push(vec![
                num(f64::from(l)),
                num(f64::from(d)),
                num(t2[i][j] / t3[i][j]),
                num(s),
                num(m[0].ms()),
                num(mm.ms()),
                num(m[0].simd()),
                num(mm.simd()),
                num(mm.regs(0)),
                pct(mm.occ(0)),
                Value::Bool(mm.outputs_match),
            ]);
        }
        results.push((l, m));
    }
    for (j, s) in series.into_iter().enumerate() {
        plot.line(format!("DATA_PER_THREAD = {}", dpts[j]), s);
    }
    page.plot = plot;
    page.table = table;
    if let Some((l, m)) = results.iter().find(|(l, _)| *l == 100) {
        page.findings.push(format!(
            "At LOOP = {l}, unification with DATA_PER_THREAD = 64 is {}x the baseline (paper: {:.2}x as table 2 / table 3 at 64, where the paper's before-kernel also does 64x the data).",
            f(m[4].speedup_over(&m[0])),
            t2[2][3] / t3[2][3]
        ));
    }
    if let Some((l, m)) = results.last() {
        let best = (1..5)
            .filter_map(|j| m[j].speedup_over(&m[0]).map(|s| (dpts[j - 1], s)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((d, s)) = best {
            page.findings.push(format!(
                "At LOOP = {l} the best DATA_PER_THREAD is {d} at {}x; the model's SIMD efficiency rises from {} (before) to {} (64).",
                fmt_num(s),
                f(m[0].simd()),
                f(m[4].simd())
            ));
        }
    }
    page.findings.push("The paper's \"before\" column grows with DATA_PER_THREAD because its before-kernel processes DATA_PER_THREAD times more data per row; ours processes the same elements in every column, so compare ratios, not times.".into());
    page.since = format!(
        "Unification raises the fraction of lanes on each path (table 4) at the price of forward scans over each thread's elements. The scans are memory reads: on the paper's GPU they were uncached global loads, on an H100 they hit L1/L2 and are cheap, so the break-even LOOP is lower; but each thread's DATA_PER_THREAD strided elements also cost coalescing. {SINCE_VOLTA}"
    );
    // Table 4: the rate of lanes on the branch paths.
    let mut p4 = Page::new(
        "seed004-table4-path-execution-rate",
        "Seed 004 table 4: rate of lanes executing the branch paths",
        "Kato, Suda & Tamada, table 4",
    );
    p4.setup = format!(
        "CPU reference model (counters), {} elements, LOOP = 100, launched as the paper's enhanced kernel (items / DATA_PER_THREAD threads, blocks of {BLOCK}): useful lane-instructions over issued ones in functionA and functionB, for DATA_PER_THREAD = 1, 4, 16, 64 and the baseline. A property of the warp program, the same on every device.",
        64 * BLOCK * 4
    );
    p4.paper = "| DATA_PER_THREAD | 1 | 4 | 16 | 64 |\n|---|---|---|---|---|\n| execution rate of the branch path | 50.0 % | 51.8 % | 66.6 % | 79.5 % |\n".into();
    let mut t4 = Table::new(&["strategy", "DATA_PER_THREAD", "paper %", "ours (model) %"]);
    let paper4 = [None, Some(50.0), Some(51.8), Some(66.6), Some(79.5)];
    let w = TwoPathKernel(PathUnification::new(100, 1));
    // As the paper's enhanced kernel: each thread owns DATA_PER_THREAD elements.
    let t4_items = 64 * BLOCK * 4;
    let t4_launch = |dpt: u32| {
        Launch::new(BLOCK, (t4_items / (dpt * BLOCK)).max(1)).unwrap_or(launch(t4_items))
    };
    let mut pts = Vec::new();
    let mut refs = Vec::new();
    for (i, s) in strategies.iter().enumerate() {
        let rate = ctx
            .model
            .run(
                &w,
                *s,
                t4_items,
                t4_launch(if i == 0 { 1 } else { dpts[i - 1] }),
            )
            .ok()
            .and_then(|r| r.counters)
            .map(|c| 100.0 * c.simd_efficiency_of(&[BPU_A, BPU_B]));
        let d = if i == 0 {
            None
        } else {
            Some(f64::from(dpts[i - 1]))
        };
        if let (Some(d), Some(r)) = (d, rate) {
            pts.push((d.log2(), r));
        }
        if let (Some(d), Some(p)) = (d, paper4[i]) {
            refs.push((d.log2(), p));
        }
        t4.push(vec![text(label(s)), num(d), num(paper4[i]), num(rate)]);
    }
    let mut plot4 = Plot::new("log2 DATA_PER_THREAD", "lanes on the path (%)");
    plot4.line("ours (model)", pts.clone());
    plot4.reference("paper", refs);
    p4.plot = plot4;
    p4.table = t4;
    p4.findings.push(format!(
        "The model gives {} % for DATA_PER_THREAD = 1, 4, 16, 64 (paper 50.0, 51.8, 66.6, 79.5 %).",
        pts.iter()
            .map(|p| format!("{:.1}", p.1))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    p4.since = "This rate is the SIMD efficiency of the two paths; it does not depend on the GPU generation. What changed is its price in time: with 64 resident warps per SM a half-empty warp leaves issue slots that other warps can use only if enough of them are ready.".into();
    vec![page, p4]
}

// ---- GPU Gems 2 ch. 34 ----------------------------------------------------------------------

fn gems34(ctx: &Ctx) -> Vec<Page> {
    let items = ctx.scale.items(FULL_GEMS_ITEMS, 1024);
    let model_items = items.min(ctx.scale.model_items * 4);
    let strategies = [
        Strategy::Baseline,
        Strategy::Predication,
        Strategy::BranchSplitting,
        Strategy::StaticBranchResolution,
        Strategy::ZCullMasking,
    ];
    let names = [
        "branching",
        "predication",
        "branch splitting (per-path pass)",
        "static branch resolution",
        "z-cull masking (3 passes)",
    ];
    const ZCULL: usize = 4;
    let probs = [0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0];
    let mut res = Vec::new();
    for coherent in [false, true] {
        for p in probs {
            let w = if coherent {
                Gems34Branch::coherent(p, 1).with_run(1024)
            } else {
                Gems34Branch::random(p, 1)
            };
            let k = TwoPathKernel(w);
            let m = ctx.measure(
                &k,
                &strategies,
                items,
                launch(items),
                &k,
                model_items,
                launch(model_items),
            );
            res.push((coherent, p, m));
        }
    }
    let mut cols = vec!["condition".to_string(), "p(taken)".to_string()];
    for n in names {
        cols.push(format!("{n} ms"));
    }
    cols.push("z-cull culled passes ms (mask reused)".into());
    for n in names {
        cols.push(format!("{n} SIMD eff"));
    }
    cols.push("regs branching".into());
    cols.push("occ branching %".into());
    cols.push("outputs equal".into());
    let mut table = Table {
        columns: cols,
        rows: Vec::new(),
    };
    for (c, p, m) in &res {
        let mut row = vec![text(if *c { "coherent" } else { "random" }), num(*p)];
        row.extend(m.iter().map(|m| num(m.ms())));
        row.push(num(m[ZCULL].passes_ms(1)));
        row.extend(m.iter().map(|m| num(m.simd())));
        row.push(num(m[0].regs(0)));
        row.push(pct(m[0].occ(0)));
        row.push(Value::Bool(m.iter().all(|m| m.outputs_match || !m.ok())));
        table.push(row);
    }
    let series_of = |coherent: bool, ms: &dyn Fn(&[Meas]) -> Option<f64>| -> Vec<(f64, f64)> {
        res.iter()
            .filter(|r| r.0 == coherent)
            .map(|(_, p, m)| (*p, ms(m).unwrap_or(f64::NAN)))
            .collect()
    };
    let series = |i: usize, coherent: bool| series_of(coherent, &|m: &[Meas]| m[i].ms());
    let culled = |coherent: bool| series_of(coherent, &|m: &[Meas]| m[ZCULL].passes_ms(1));
    let setup = format!(
        "{items} fragments, one per thread, blocks of {BLOCK}; taken path = expensive shading, not taken = write a constant; random condition (each fragment independently) or coherent (runs of 1024 fragments share the condition); p = 0 … 1."
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
    z.missing.push("the hardware's z-cull tile: `Strategy::ZCullMasking` culls at the granularity of a warp's window of 32 fragments (a mask word), where GeForce 6's z-cull tile size was not published; the mask pass is timed with the rest (column \"z-cull masking\") and without it (\"culled passes\", the book's case of a mask set up once and reused).".into());
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
    let (loop_num, max_trips) = (16, 32);
    let ks = [1u32, 4, 8, 32];
    let mut page = Page::new(
        "gems34-3-occlusion-query-loop",
        "GPU Gems 2 §34.3: data-dependent looping with occlusion queries",
        "Harris & Buck, GPU Gems 2 ch. 34, §34.3 (no figure)",
    );
    page.paper = "§34.3 gives no measurements. It describes the technique: render a pass of the loop body over all fragments, discard the finished ones, count the fragments still updated with an occlusion query (pipelined, a single integer back to the CPU), and let the CPU issue passes until the count is zero — a global decision controlled by the CPU from GPU results, needed before fragment programs had data-dependent loops.".into();
    let mut strategies = vec![Strategy::Baseline];
    strategies.extend(ks.iter().map(|&k| Strategy::OcclusionQueryLoop {
        iterations_per_pass: k,
    }));
    let (items, blocks, m) =
        measure_dwa(ctx, DynamicWork::new(loop_num, max_trips, 1), &strategies);
    page.setup = format!(
        "Seed 004's variable-trip loop (`DynamicWork`: LOOP_NUM {loop_num}, 1–{max_trips} trips per element), {items} elements, {blocks} blocks of {BLOCK} threads. Baseline: the loop inside one kernel. Occlusion-query loop: the loop as passes of k iterations; unfinished elements keep their state in device memory, finished ones are masked (a window of 32 finished elements skips the pass), and each pass counts the elements it left; the host reads that count after every pass and launches the next pass while it is non-zero. Kernel time: CUDA events summed over the passes; wall time adds the host's reads of the count and the launches."
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
    let mut plot = Plot::new("log2 iterations per pass", "time / baseline");
    let (mut kern, mut wall) = (Vec::new(), Vec::new());
    for (i, s) in strategies.iter().enumerate() {
        let k = match s {
            Strategy::OcclusionQueryLoop {
                iterations_per_pass,
            } => Some(*iterations_per_pass),
            _ => None,
        };
        let kr = x2(m[i].ms(), m[0].ms());
        let wr = (m[i].ok() && m[0].wall_s > 0.0).then(|| m[i].wall_s / m[0].wall_s);
        if let Some(k) = k {
            kern.push((f64::from(k).log2(), kr.unwrap_or(f64::NAN)));
            wall.push((f64::from(k).log2(), wr.unwrap_or(f64::NAN)));
        }
        table.push(vec![
            text(label(s)),
            num(k.map(f64::from)),
            num(m[i].ok().then_some(m[i].pass_s.len() as f64)),
            num(m[i].ms()),
            num(m[i].ok().then_some(m[i].wall_s * 1e3)),
            num(kr),
            num(wr),
            num(m[i].simd()),
            num(m[i].regs(0)),
            Value::Bool(m[i].outputs_match),
        ]);
    }
    plot.line("kernel time", kern);
    plot.line("wall time", wall);
    page.plot = plot;
    page.table = table;
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
