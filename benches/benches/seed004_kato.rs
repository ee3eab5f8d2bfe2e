//! Seed 004's two experiments:
//! - table 1 / fig. 12: dynamic work assignment against LOOP_NUM (paper 1–512; here 1, 8, 64),
//!   trip counts 1–32 per element;
//! - tables 2–3 / fig. 14: branch path unification against LOOP (paper 1–10000; here 1, 100,
//!   1000) and DATA_PER_THREAD (1, 4, 16, 64).

mod common;

use criterion::Criterion;
use reconverge_backend::{Launch, Strategy};
use reconverge_transforms::{ItemLoopKernel, TwoPathKernel};
use reconverge_workloads::synthetic::{DynamicWork, PathUnification};

fn table1(c: &mut Criterion) {
    let items = 8192;
    // 4 blocks of 256 threads: each thread handles 8 elements, which is what lets a finished
    // lane take more work.
    let launch = Launch::new(256, 4).expect("launch");
    let points = [1, 8, 64].map(|n| {
        let w = DynamicWork::new(n, 32, 1);
        (format!("LOOP_NUM={n}"), ItemLoopKernel(w))
    });
    let strategies = [Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT];
    let group = "seed004_table1_dynamic_work";
    common::bench_sweep(c, group, points, &strategies, items, launch);
}

fn tables_2_3(c: &mut Criterion) {
    let items = 16384;
    let launch = Launch::new(256, 4).expect("launch");
    let points = [1, 100, 1000].map(|l| {
        let w = PathUnification::new(l, 1);
        (format!("LOOP={l}"), TwoPathKernel(w))
    });
    // DATA_PER_THREAD 1, 4, 16, 64: the settings the GPU entry points are compiled for.
    let strategies = reconverge_workloads::gpu_entries::PATH_UNIFICATION_STRATEGIES;
    let group = "seed004_tables2_3_path_unification";
    common::bench_sweep(c, group, points, strategies, items, launch);
}

common::bench_main!(table1, tables_2_3);
