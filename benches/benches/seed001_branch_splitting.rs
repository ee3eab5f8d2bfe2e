//! Seed 001 §5, figs. 8 and 10: the single kernel (baseline) against branch splitting over
//! the fraction of else elements, for the linear (two-section) and the random decision mask.
//! The paper uses 2^22 elements and steps of a few percent; here 2^15 elements at 0, 10, 50,
//! 100 % else.

mod common;

use criterion::Criterion;
use reconverge_backend::Strategy;
use reconverge_transforms::TwoPathKernel;
use reconverge_workloads::synthetic::{BranchSplitBench, MaskLayout};

const ITEMS: u32 = 1 << 15;

fn figs_8_10(c: &mut Criterion) {
    let launch = common::one_item_per_thread(ITEMS);
    for (layout, group) in [
        (MaskLayout::Linear, "seed001_fig8_linear_mask"),
        (MaskLayout::Random, "seed001_fig10_random_mask"),
    ] {
        let points = [0.0, 0.1, 0.5, 1.0].map(|p| {
            let w = BranchSplitBench::new(ITEMS, p, layout, 1);
            (format!("else={p}"), TwoPathKernel(w))
        });
        let strategies = [Strategy::BASELINE, Strategy::BRANCH_SPLITTING];
        common::bench_sweep(c, group, points, &strategies, ITEMS, launch);
    }
}

common::bench_main!(figs_8_10);
