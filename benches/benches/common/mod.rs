//! Criterion settings for a 2-core machine: few samples, short measurements, so a full
//! `cargo bench` takes minutes.
#![allow(dead_code)]

use std::time::Duration;

use criterion::Criterion;

/// Small sample counts and short measurement windows.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(700))
        .without_plots()
}
