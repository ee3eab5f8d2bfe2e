//! The strategies' test harness: runs a [`Kernel`] on the reference block executor
//! ([`reconverge_cpu::block`]), block after block, and keeps what the tests inspect.
#![allow(dead_code)]

use reconverge_cpu::block::{RunInOrder, WarpForm, run_in_order};
use reconverge_simt::{Counters, ModelWarp, Warp};
use reconverge_transforms::{Kernel, Strategy, StrategyError};

/// A launch: items split over `blocks` blocks of `threads_per_block` threads.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    pub items: u32,
    pub blocks: u32,
    pub threads_per_block: u32,
}

impl Launch {
    pub const fn new(items: u32, blocks: u32, threads_per_block: u32) -> Self {
        Self {
            items,
            blocks,
            threads_per_block,
        }
    }
}

/// The launches the property tests sweep: up to `max_items - 1` items over 1 to
/// `max_blocks - 1` blocks of 1 to 4 warps.
pub fn launches(
    max_items: u32,
    max_blocks: u32,
) -> impl proptest::strategy::Strategy<Value = Launch> {
    use proptest::strategy::Strategy as _;
    (0..max_items, 1..max_blocks, 1u32..5).prop_map(|(items, blocks, warps)| Launch {
        items,
        blocks,
        threads_per_block: 32 * warps,
    })
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

/// [`run`] of a strategy that applies, checked to write every item exactly once.
pub fn run_complete<K: Kernel>(kernel: &K, strategy: &Strategy, launch: Launch) -> Run<K::Output>
where
    K::Output: PartialEq + std::fmt::Debug,
{
    let r = run(kernel, strategy, launch).unwrap();
    r.assert_complete();
    r
}

/// [`run_complete`] under the baseline, then under `strategy`: (baseline, strategy).
pub fn beside_baseline<K: Kernel>(
    kernel: &K,
    strategy: &Strategy,
    launch: Launch,
) -> (Run<K::Output>, Run<K::Output>)
where
    K::Output: PartialEq + std::fmt::Debug,
{
    let base = run_complete(kernel, &Strategy::BASELINE, launch);
    (base, run_complete(kernel, strategy, launch))
}

/// Runs `kernel` under `strategy`: every pass in order, every block with fresh shared
/// counters, the warps of a block stepped round-robin until all are done. A warp that takes
/// more steps than any strategy needs, or a write past the last item, fails the test.
pub fn run<K: Kernel>(
    kernel: &K,
    strategy: &Strategy,
    launch: Launch,
) -> Result<Run<K::Output>, StrategyError>
where
    K::Output: PartialEq + std::fmt::Debug,
{
    assert!(
        launch.threads_per_block >= 32 && launch.threads_per_block.is_multiple_of(32),
        "{launch:?}"
    );
    let shape = reconverge_backend::Launch {
        threads_per_block: launch.threads_per_block,
        blocks: launch.blocks,
    };
    // A generous bound: no strategy needs more than a few steps per item and iteration.
    let options = RunInOrder {
        counting: true,
        step_limit: Some(64 + 4 * u64::from(launch.items) * 1000),
        form: WarpForm::Warp,
    };
    let r = match run_in_order(kernel, strategy, launch.items, shape, options) {
        Ok(r) => r,
        Err(reconverge_cpu::block::BlockError::Strategy(e)) => return Err(e),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(r.stray_writes, 0, "items written past the last one");
    // A strategy the CUDA backend runs thread by thread (each thread a warp of one lane) must
    // compute there what the warps compute: the same outputs, writes and tallies.
    if strategy.runs_per_thread() || strategy.runs_as_thread_program() {
        let per_thread = RunInOrder {
            form: WarpForm::Thread,
            ..options
        };
        match run_in_order(kernel, strategy, launch.items, shape, per_thread) {
            Ok(t) => {
                assert_eq!(t.outputs, r.outputs, "{strategy} per thread, {launch:?}");
                assert_eq!(t.writes, r.writes, "{strategy} per thread, {launch:?}");
                assert_eq!(t.tally, r.tally, "{strategy} per thread, {launch:?}");
                assert_eq!(t.stray_writes, 0, "{strategy} per thread, {launch:?}");
            }
            Err(e) => panic!("{strategy} per thread, {launch:?}: {e}"),
        }
    }
    if let reconverge_transforms::PathSchedule::BranchPathUnification { items_per_thread } =
        strategy.paths
    {
        // The per-thread loop the CUDA backend runs (`Kernel::unified_items`), each thread of
        // each block dealt the groups its lane has in the warp program: every item once, with
        // the warp program's output.
        let n = items_per_thread.max(1);
        let mut outputs = vec![None; launch.items as usize];
        let mut tally = vec![0u64; kernel.tally_len()];
        for block in 0..launch.blocks {
            for thread in 0..launch.threads_per_block {
                let task = reconverge_transforms::WarpTask::new(
                    launch.items,
                    launch.blocks,
                    block,
                    launch.threads_per_block,
                    thread,
                );
                let mut first = task.block_start + thread * n;
                let groups = || {
                    (first < task.block_end).then(|| {
                        let g = (first, (task.block_end - first).min(n));
                        first += launch.threads_per_block * n;
                        g
                    })
                };
                let ran = kernel.unified_items(
                    groups,
                    |item, out| {
                        assert!(outputs[item as usize].is_none(), "item {item} twice");
                        outputs[item as usize] = Some(out);
                    },
                    &mut reconverge_cpu::block::SliceTally(&mut tally),
                );
                assert!(ran, "{strategy}: no per-thread unified form");
            }
        }
        assert_eq!(outputs, r.outputs, "{strategy} unified items, {launch:?}");
    }
    if strategy.runs_per_thread() {
        // And the plain per-thread loop, where the kernel has one: one thread dealt the items
        // in order gives the same output per item and the same tally over all of them.
        let mut tally = vec![0u64; kernel.tally_len()];
        let mut outputs = vec![None; launch.items as usize];
        let mut items = 0..launch.items;
        let plain = kernel.plain_items(
            || items.next(),
            |item, out| outputs[item as usize] = Some(out),
            &mut reconverge_cpu::block::SliceTally(&mut tally),
        );
        if plain {
            assert_eq!(outputs, r.outputs, "{strategy} plain items, {launch:?}");
            assert_eq!(tally, r.tally, "{strategy} plain items' tally, {launch:?}");
        }
    }
    Ok(Run {
        outputs: r.outputs,
        writes: r.writes,
        tally: r.tally,
        counters: r.counters,
        pass_counters: r.pass_counters,
        max_steps: r.max_steps,
    })
}

/// Item `item`'s trip count in the loop tests' hand-checked launches: `7 item mod 23`, so
/// each 32 consecutive items hold a 22-trip item.
pub fn hand_trips(item: u32) -> u32 {
    (7 * item) % 23
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
