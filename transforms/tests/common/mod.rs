//! A test-only executor: runs a [`Kernel`] on [`ModelWarp`]s, block after block, the warps of
//! a block stepped round-robin so that block-shared counters are shared as on a GPU. (The real
//! CPU backend lives in `cpu-fallback/`; this one exists only to test the strategies.)
#![allow(dead_code)]

use std::sync::atomic::AtomicU32;

use reconverge_simt::{BlockShared, Counters, ModelWarp, WARP_SIZE, Warp};
use reconverge_transforms::{
    Kernel, PassPlan, Sink, Strategy, StrategyError, Tally, WarpProgram, WarpTask,
    initial_block_counters,
};

/// A launch: items split over `blocks` blocks of `threads_per_block` threads.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    pub items: u32,
    pub blocks: u32,
    pub threads_per_block: u32,
}

/// What a run produced.
#[derive(Debug)]
pub struct Run<O> {
    /// Each item's output (`None`: never written).
    pub outputs: Vec<Option<O>>,
    /// How many times each item was written.
    pub writes: Vec<u32>,
    pub tally: Vec<u64>,
    /// Counters of all warps of all passes, merged.
    pub counters: Counters,
    /// Counters per pass.
    pub pass_counters: Vec<Counters>,
    /// Steps of the busiest warp (a bound check against endless loops).
    pub max_steps: u64,
}

impl<O: Copy + PartialEq + std::fmt::Debug> Run<O> {
    /// Asserts that every item was written exactly once.
    pub fn assert_complete(&self) {
        for (i, w) in self.writes.iter().enumerate() {
            assert_eq!(*w, 1, "item {i} written {w} times");
        }
    }
}

struct VecSink<'a, O> {
    outputs: &'a mut Vec<Option<O>>,
    writes: &'a mut Vec<u32>,
}

impl<O> Sink<O> for VecSink<'_, O> {
    fn put(&mut self, item: u32, value: O) {
        let i = item as usize;
        assert!(i < self.outputs.len(), "item {item} out of range");
        self.outputs[i] = Some(value);
        self.writes[i] += 1;
    }
}

struct VecTally<'a>(&'a mut Vec<u64>);

impl Tally for VecTally<'_> {
    fn add(&mut self, index: u32, amount: u64) {
        if let Some(x) = self.0.get_mut(index as usize) {
            *x = x.wrapping_add(amount);
        }
    }
}

/// Runs `kernel` under `strategy`: every pass in order, every block with fresh shared
/// counters, the warps of a block stepped round-robin until all are done.
pub fn run<K: Kernel>(
    kernel: &K,
    strategy: &Strategy,
    launch: Launch,
) -> Result<Run<K::Output>, StrategyError> {
    let passes = kernel.passes(strategy)?;
    let n = launch.items as usize;
    let mut outputs = vec![None; n];
    let mut writes = vec![0u32; n];
    let mut tally = vec![0u64; kernel.tally_len()];
    let mut counters = Counters::new(WARP_SIZE);
    let scratch: Vec<AtomicU32> = (0..kernel.scratch_words(strategy, launch.items))
        .map(|_| AtomicU32::new(0))
        .collect();
    let mut pass_counters = Vec::new();
    let mut max_steps = 0u64;
    let warps_per_block = launch.threads_per_block / WARP_SIZE;
    assert!(warps_per_block >= 1 && launch.threads_per_block.is_multiple_of(WARP_SIZE));
    // A generous bound: no strategy needs more than a few steps per item and iteration.
    let step_limit = 64 + 4 * u64::from(launch.items) * 1000;
    let mut plan = PassPlan::new(passes, kernel.repeat_last_pass_while(strategy));
    while let Some(pass) = plan.next_pass_in(&scratch) {
        let mut this_pass = Counters::new(WARP_SIZE);
        for block in 0..launch.blocks {
            let shared = BlockShared::new();
            for (i, v) in initial_block_counters(launch.threads_per_block)
                .iter()
                .enumerate()
            {
                shared.set(i, *v);
            }
            let mut warps: Vec<ModelWarp<'_>> = (0..warps_per_block)
                .map(|_| ModelWarp::in_block(&shared))
                .collect();
            let mut programs = Vec::new();
            for (w, warp) in warps.iter().enumerate() {
                let task = WarpTask::new(
                    launch.items,
                    launch.blocks,
                    block,
                    launch.threads_per_block,
                    w as u32,
                );
                programs.push(Some(kernel.program(warp, strategy, pass, task, &scratch)?));
            }
            let mut steps = vec![0u64; programs.len()];
            let mut sink = VecSink {
                outputs: &mut outputs,
                writes: &mut writes,
            };
            let mut t = VecTally(&mut tally);
            loop {
                let mut any = false;
                for (w, slot) in programs.iter_mut().enumerate() {
                    if let Some(p) = slot {
                        if p.step(&mut warps[w], &mut sink, &mut t) {
                            any = true;
                            steps[w] += 1;
                            assert!(steps[w] < step_limit, "warp {w} does not finish");
                        } else {
                            *slot = None;
                        }
                    }
                }
                if !any {
                    break;
                }
            }
            for (w, warp) in warps.iter().enumerate() {
                this_pass.merge(warp.counters());
                max_steps = max_steps.max(steps[w]);
            }
        }
        counters.merge(&this_pass);
        pass_counters.push(this_pass);
    }
    Ok(Run {
        outputs,
        writes,
        tally,
        counters,
        pass_counters,
        max_steps,
    })
}

/// A 64-bit mixing hash (splitmix64's finaliser): random inputs derived from an index.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A value in `0..n` drawn from `(seed, a, b)`.
pub fn draw(seed: u64, a: u64, b: u64, n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        mix(mix(seed ^ mix(a)) ^ b) % n
    }
}

/// Keeps `Warp` in scope for tests that use its methods.
pub fn width_of(w: &ModelWarp<'_>) -> u32 {
    w.width()
}
