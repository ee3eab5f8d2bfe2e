//! GPU Gems 2 ch. 34, figs. 34-1/34-2: cost against the probability of taking the branch,
//! random vs coherent condition, under branching (baseline), predication, branch splitting
//! and static branch resolution. Probabilities 0, 0.1, 0.5, 0.9 (the book sweeps 0–1).

mod common;

use criterion::Criterion;
use reconverge_benches::{GEMS34_STRATEGIES, gems34_branch};
use reconverge_transforms::TwoPathKernel;

const ITEMS: u32 = 1 << 15;

fn figs(c: &mut Criterion) {
    let launch = common::one_item_per_thread(ITEMS);
    for (coherent, group) in [(false, "gems34_random"), (true, "gems34_coherent")] {
        let points = [0.0, 0.1, 0.5, 0.9].map(|p| {
            let w = gems34_branch(coherent, p, 1024);
            (format!("p={p}"), TwoPathKernel(w))
        });
        common::bench_sweep(c, group, points, &GEMS34_STRATEGIES, ITEMS, launch);
    }
}

common::bench_main!(figs);
