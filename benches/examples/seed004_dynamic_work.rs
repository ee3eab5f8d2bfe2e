//! Seed 004 (Kato et al.) fig. 11 / A-1, table 1 and fig. 12: dynamic work assignment against
//! LOOP_NUM. Each element runs `function` (LOOP_NUM steps of `tmp = 0xffff & (tmp*tmp + tmp)`)
//! a random number of times (1 to `max_trips`); each thread of the static kernel owns
//! `items / threads` elements in block-stride order, the dynamic one takes the next element of
//! its block from a shared counter. Paper, table 1: the enhanced kernel is slower at
//! LOOP_NUM ≤ 8 (0.0036 s vs 0.0062 s at 1) and up to ~10 % faster from 64 on.

use clap::Parser;
use reconverge_backend::{BackendError, Launch, Strategy};
use reconverge_benches::ExampleArgs;
use reconverge_transforms::ItemLoopKernel;
use reconverge_workloads::synthetic::DynamicWork;

/// Dynamic work assignment on seed 004's fig. A-1 kernel.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    shared: ExampleArgs,
    /// Elements.
    #[arg(long, default_value_t = 65536)]
    items: u32,
    /// Blocks (elements per thread = items / (block * blocks)).
    #[arg(long, default_value_t = 16)]
    blocks: u32,
    /// Largest trip count of an element.
    #[arg(long, default_value_t = 32)]
    max_trips: u32,
}

fn main() -> Result<(), BackendError> {
    let a = Args::parse();
    let sweeper = a
        .shared
        .sweeper(a.items, Launch::new(a.shared.block, a.blocks)?, 2);
    let points = [1u32, 2, 4, 8, 16, 32, 64, 128].into_iter().map(|n| {
        let w = DynamicWork::new(n, a.max_trips, 1);
        (format!("LOOP_NUM={n}"), ItemLoopKernel(w))
    });
    sweeper.sweep(
        &format!(
            "Table 1 / fig. 12: {} elements, {} blocks of {} threads, trips 1..={}",
            a.items, a.blocks, a.shared.block, a.max_trips
        ),
        "LOOP_NUM",
        points,
        &[Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT],
    )?;
    Ok(())
}
