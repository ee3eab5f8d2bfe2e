//! Criterion settings for a 2-core machine (few samples, short measurements, so a full
//! `cargo bench` takes minutes) and a helper that benches a sweep of workloads under a list
//! of strategies on the selected backend.
#![allow(dead_code)]

use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use reconverge_backend::{Backend, Kernel, Launch, Strategy};
use reconverge_benches::{Bench, label, timing_backend};

/// The bench binary's `main`: criterion with [`config`] running the `targets`.
macro_rules! bench_main {
    ($($target:path),+ $(,)?) => {
        criterion::criterion_group! {
            name = benches;
            config = $crate::common::config();
            targets = $($target),+
        }
        criterion::criterion_main!(benches);
    };
}
pub(crate) use bench_main;

/// Small sample counts and short measurement windows.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .without_plots()
}

/// One item per thread in blocks of 256 (the papers' block size).
pub fn one_item_per_thread(items: u32) -> Launch {
    Launch::one_item_per_thread(items, 256).expect("launch")
}

/// One benchmark per (point, strategy): `group/strategy/point`.
pub fn bench_sweep<K>(
    c: &mut Criterion,
    group: &str,
    points: impl IntoIterator<Item = (String, K)>,
    strategies: &[Strategy],
    items: u32,
    launch: Launch,
) where
    K: Kernel + Sync,
    K::Output: Default + Send + Sync,
    Bench: Backend<K>,
{
    let backend: Bench = timing_backend(0);
    let mut g = c.benchmark_group(group);
    for (x, k) in points {
        for s in strategies {
            g.bench_with_input(BenchmarkId::new(label(s), &x), s, |b, s| {
                b.iter(|| backend.run(&k, *s, items, launch).expect("runs"))
            });
        }
    }
    g.finish();
}
