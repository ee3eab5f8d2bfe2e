//! Seed 002 §4.2.2, fig. 12: branch distribution on SYN-BRDIS against `R = N·M/20` (the
//! paper: R up to ~10, M from 1 to 20; here R = 1, 4, 10 at M = 4 and M = 20).

mod common;

use criterion::Criterion;
use reconverge_backend::Strategy;
use reconverge_transforms::FactoredBranchLoopKernel;
use reconverge_workloads::synthetic::SynBrDis;

const ITEMS: u32 = 2048;

fn fig12(c: &mut Criterion) {
    let launch = common::one_item_per_thread(ITEMS);
    let points = [(4, 5), (4, 20), (4, 50), (20, 1), (20, 10)].map(|(m, n)| {
        let w = SynBrDis::new(m, n, 8, 1);
        (format!("M={m},R={}", w.r()), FactoredBranchLoopKernel(w))
    });
    let strategies = [Strategy::BASELINE, Strategy::BRANCH_DISTRIBUTION];
    let group = "seed002_fig12_branch_distribution";
    common::bench_sweep(c, group, points, &strategies, ITEMS, launch);
}

common::bench_main!(fig12);
