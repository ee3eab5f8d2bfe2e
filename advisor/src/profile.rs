//! One strategy run on the reference SIMT model, keeping what the advisor needs: counters per
//! launch (a multi-pass strategy's passes can run at different occupancies) and per warp (for
//! trip-count statistics), which the CPU backend merges away.

use std::sync::atomic::AtomicU32;

use reconverge_backend::Launch;
use reconverge_simt::{BlockShared, Counters, ModelWarp, Region, WARP_SIZE};
use reconverge_transforms::{
    Discard, Kernel, NoTally, PassPlan, Strategy, WarpProgram, WarpTask, initial_block_counters,
};

use crate::AdviseError;

/// Minimum, mean and maximum of a per-warp quantity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Warps measured.
    pub count: u64,
    /// Smallest value.
    pub min: f64,
    /// Mean value.
    pub mean: f64,
    /// Largest value.
    pub max: f64,
}

impl Stats {
    /// The statistics of `values`; all zero for none.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let (mut count, mut sum) = (0u64, 0.0);
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values {
            count += 1;
            sum += v;
            min = min.min(v);
            max = max.max(v);
        }
        if count == 0 {
            return Self::default();
        }
        Self {
            count,
            min,
            mean: sum / count as f64,
            max,
        }
    }
}

/// What one strategy did on the sample.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The strategy that ran.
    pub strategy: Strategy,
    /// Counters of every warp of every launch, merged.
    pub counters: Counters,
    /// Each launch in the order it ran: the pass index and that launch's counters. An
    /// occlusion-query loop repeats its last pass, so this can be longer than
    /// [`Kernel::passes`].
    pub launches: Vec<(u32, Counters)>,
    /// Loop iterations ([`WarpProgram::step`] calls that left work) of each warp, summed over
    /// launches: the warp's trip count, which its slowest lane sets.
    pub warp_steps: Vec<u64>,
    /// Each warp's counters, summed over launches.
    pub warp_counters: Vec<Counters>,
    /// The launch that ran: [`Profile::blocks`] are its blocks.
    pub launch: Launch,
    /// The blocks of the launch that ran, in order (all of them unless sampled).
    pub blocks: Vec<u32>,
    /// Items of the whole launch (not only of the blocks that ran).
    pub items: u32,
    /// Per launch, each warp's work ([`WarpWork`]), warps in the order of [`Profile::blocks`]
    /// (`warps_per_block` of each): what the schedule model places on the GPU.
    pub launch_warps: Vec<Vec<WarpWork>>,
    /// Dynamic shared memory the strategy's launches ask for per warp of a block
    /// ([`Kernel::dynamic_shared_bytes`] of a one-warp block: collaborative context
    /// collection's stacks), 0 for none. A block of `w` warps asks for `w` times as much, as
    /// the library's kernels do; the schedule model's resident blocks count it.
    pub shared_bytes_per_warp: u32,
}

impl Profile {
    /// Dynamic shared memory per block of `threads` threads ([`Profile::shared_bytes_per_warp`]
    /// per warp, saturating).
    pub fn dynamic_shared_bytes(&self, threads: u32) -> u32 {
        crate::plan::shared_bytes_per_block(self.shared_bytes_per_warp, threads)
    }
}

/// One warp's work in one launch: what the schedule model needs to price it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpWork {
    /// Issue slots (every region weighted by its declared cost; votes and exchanges 1 each).
    pub slots: u64,
    /// Warp votes issued ([`reconverge_simt::Region::VOTE`]).
    pub votes: u64,
    /// Shuffles issued ([`reconverge_simt::Region::EXCHANGE`]).
    pub exchanges: u64,
    /// Atomic adds on a work counter, the block's or the launch's
    /// ([`reconverge_simt::Region::ATOMIC`]): the claims of dynamic work assignment.
    pub atomics: u64,
    /// Loop iterations ([`WarpProgram::step`] calls that left work).
    pub steps: u64,
}

impl WarpWork {
    fn of(counters: &Counters, steps: u64) -> Self {
        let issues = |r| counters.region(r).map_or(0, |c| c.issues);
        Self {
            slots: counters.issue_slots(),
            votes: issues(Region::VOTE),
            exchanges: issues(Region::EXCHANGE),
            atomics: issues(Region::ATOMIC),
            steps,
        }
    }
}

/// How the model runs the loop of the strategies that run per thread
/// ([`Strategy::runs_per_thread`]: the baseline and dynamic work assignment, which the CUDA
/// backend runs as the plain per-thread loop).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlainLoop {
    /// The loop as written, and as the CPU backend's emulated warps run it: a lane takes its
    /// next item as soon as its item ends, and a factored branch issues its shared code once
    /// per path. What [`profile`] counts, so that its counters are the CPU backend's.
    #[default]
    AsWritten,
    /// The loop as a GPU compiler makes it. A factored branch's shared code issues once for
    /// both paths (the compiler sinks it below the branch: SYN-BRDIS's plain loop ran at 32.0
    /// active threads per warp instruction on an H100). Where `reconverges_per_item`, the
    /// compiler nested the item's loop inside the loop over items and a warp's lanes wait for
    /// one another after each item (on the held-out workloads one resident wave of the static
    /// or dynamic plain loop measured no faster than a thread per item, which only this reading
    /// predicts); where not, it left one flat loop and a lane takes its next item at once
    /// (MCML's and Collatz's loops: [`CompiledLoops`]). The baseline's items come in the
    /// order of the CUDA backend's plain grid-stride kernel (thread `g`: items `g`,
    /// `g + threads`, ...), not over each block's chunk. The schedule model ([`crate::plan`])
    /// counts it this way.
    AsCompiled {
        /// Whether the warp's lanes reconverge after each item.
        reconverges_per_item: bool,
    },
}

/// What a GPU compiler made of a kernel's per-thread loops: the strategies whose entry point
/// kept one flat loop (no reconvergence after each item). A fact of the compiled code, read from
/// its SASS ([`crate::loop_nesting`], which [`crate::advise_compiled`] runs on a module's
/// cubin, or `scripts/sass-loop-nesting.py`, by the same rules: whether a convergence barrier closes after the
/// item's loop inside the loop over items, and the item's loop holds no `YIELD`, which lets the
/// threads that left it pass the barrier without the others); where it is not known, the
/// schedule model takes the nested loop most held-out workloads' entry points compiled to
/// ([`Default`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompiledLoops {
    /// Strategies (that run per thread) whose compiled loop stayed flat.
    pub flat: Vec<Strategy>,
}

impl CompiledLoops {
    /// How the schedule model runs `strategy`'s plain loop.
    pub fn plain_loop(&self, strategy: &Strategy) -> PlainLoop {
        PlainLoop::AsCompiled {
            reconverges_per_item: !self.flat.contains(strategy),
        }
    }

    /// The facts of `table`, the output of `scripts/sass-loop-nesting.py` (a Markdown table
    /// whose rows are `| entry point | SASS instructions | loops | reconverges per item |`), for
    /// the strategies of `entries` (each strategy with its entry point's name): a strategy whose
    /// entry point's row says `no` is flat. Entry points the table lacks stay nested.
    pub fn from_sass_table<'a>(
        table: &str,
        entries: impl IntoIterator<Item = (Strategy, &'a str)>,
    ) -> Self {
        let flat_entries: Vec<&str> = table
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                // "", name, instructions, loops, per item, "".
                match cells[..] {
                    ["", name, _, _, "no", ..] => Some(name),
                    _ => None,
                }
            })
            .collect();
        Self {
            flat: entries
                .into_iter()
                .filter(|(s, name)| s.runs_per_thread() && flat_entries.contains(name))
                .map(|(s, _)| s)
                .collect(),
        }
    }
}

/// Runs `strategy` over items `0..items` with `launch` on the model, block after block, the
/// warps of a block interleaved one step at a time (as the CPU backend's reference executor
/// does, so that dynamic work assignment's block counter is shared as on a GPU). A warp that
/// takes more than `step_limit` steps is reported, not waited for.
pub fn profile<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
    step_limit: u64,
) -> Result<Profile, AdviseError> {
    let all: Vec<u32> = (0..launch.blocks).collect();
    profile_blocks(
        kernel,
        strategy,
        items,
        launch,
        &all,
        step_limit,
        PlainLoop::AsWritten,
    )
}

/// [`profile`] of some blocks of the launch only: each block of `blocks` runs exactly the items
/// and the warps it runs in the whole launch of `items` items (its chunk of the item range, its
/// own block counter), so that a sample of blocks spread over the launch shows the workload's
/// real within-warp divergence at every place of the item range. Blocks outside `blocks` do not
/// run. A strategy that deals items across blocks ([`Strategy::deals_across_blocks`]) would, in
/// a few blocks alone, take every item of the launch from its one counter: where `blocks` is not
/// the whole launch it is profiled with its items dealt from each block's counter
/// ([`Strategy::DYNAMIC_WORK_ASSIGNMENT`]'s per-block dealing over the same chunks) and
/// [`Profile::strategy`] keeps the strategy asked for; the schedule model then spreads its work
/// evenly over all warps, as one counter for the whole launch does. `plain` says how the
/// strategies that run per thread run their loop.
pub fn profile_blocks<K: Kernel + ?Sized>(
    kernel: &K,
    strategy: Strategy,
    items: u32,
    launch: Launch,
    blocks: &[u32],
    step_limit: u64,
    plain: PlainLoop,
) -> Result<Profile, AdviseError> {
    // Strategies that deal items to lanes in lockstep run no plain loop.
    let compiled = match plain {
        PlainLoop::AsCompiled {
            reconverges_per_item,
        } if strategy.runs_per_thread() => Some(reconverges_per_item),
        _ => None,
    };
    let sampled = blocks.len() < launch.blocks as usize;
    let asked = strategy;
    let strategy = if sampled && strategy.deals_across_blocks() {
        Strategy::DYNAMIC_WORK_ASSIGNMENT
    } else {
        strategy
    };
    let strategy_error = |source| AdviseError::Strategy {
        strategy,
        shape: K::SHAPE,
        source,
    };
    let mut plan = PassPlan::of(kernel, &strategy).map_err(strategy_error)?;
    let scratch: Vec<AtomicU32> = (0..kernel.scratch_words(&strategy, items))
        .map(|_| AtomicU32::new(0))
        .collect();
    // The CUDA backend runs the baseline as the plain grid-stride loop (thread `g` runs items
    // `g`, `g + threads`, ...), not over its block's chunk as the warp programs deal it: where
    // a launch has fewer threads than items, which items share a block, and so a block's
    // load, differ (an image's bottom rows in a few blocks, or spread over all of them).
    let grid_stride = compiled.is_some() && strategy == Strategy::BASELINE;
    let warps_per_block = launch.threads_per_block / WARP_SIZE;
    let total_warps = blocks.len() * warps_per_block as usize;
    let mut warp_steps = vec![0u64; total_warps];
    let mut warp_counters = vec![Counters::new(WARP_SIZE); total_warps];
    let mut counters = Counters::new(WARP_SIZE);
    let mut launches = Vec::new();
    let mut launch_warps = Vec::new();
    while let Some(pass) = plan.next_pass_in(&scratch) {
        let mut this_launch = Counters::new(WARP_SIZE);
        let mut warps_of_launch = Vec::with_capacity(total_warps);
        // Grid-wide dealing's one counter for the launch. Blocks run one after another here, so
        // the first ones take the items the others would have taken on a GPU: the issue slots
        // are the same, each warp's share of them is not.
        let grid_counter = AtomicU32::new(0);
        for (sampled_index, &block) in blocks.iter().enumerate() {
            if block >= launch.blocks {
                return Err(AdviseError::SampleBlock {
                    block,
                    blocks: launch.blocks,
                });
            }
            let shared = BlockShared::new();
            for (i, v) in initial_block_counters(launch.threads_per_block)
                .into_iter()
                .enumerate()
            {
                shared.set(i, v);
            }
            let mut warps = Vec::with_capacity(warps_per_block as usize);
            for w in 0..warps_per_block {
                let mut warp = ModelWarp::in_block(&shared).with_grid_counter(&grid_counter);
                if let Some(reconverges_per_item) = compiled {
                    warp = warp.as_compiled_plain_loop(reconverges_per_item);
                }
                warp.set_counting(true);
                let task = if grid_stride {
                    grid_stride_task(items, launch, block, w)
                } else {
                    WarpTask::new(items, launch.blocks, block, launch.threads_per_block, w)
                };
                let program = kernel
                    .program(&warp, &strategy, pass, task, &scratch)
                    .map_err(strategy_error)?;
                warps.push((warp, program, true));
            }
            let first = sampled_index * warps_per_block as usize;
            let steps_before: Vec<u64> =
                warp_steps[first..first + warps_per_block as usize].to_vec();
            let mut any_running = true;
            while any_running {
                any_running = false;
                for (w, (warp, program, running)) in warps.iter_mut().enumerate() {
                    if !*running {
                        continue;
                    }
                    *running = program.step(warp, &mut Discard, &mut NoTally);
                    if *running {
                        any_running = true;
                        let steps = &mut warp_steps[first + w];
                        *steps += 1;
                        if *steps > step_limit {
                            return Err(AdviseError::StepLimit {
                                strategy,
                                block,
                                warp: w as u32,
                                steps: *steps,
                            });
                        }
                    }
                }
            }
            for (w, (warp, _, _)) in warps.iter().enumerate() {
                this_launch.merge(warp.counters());
                warp_counters[first + w].merge(warp.counters());
                let steps = warp_steps[first + w] - steps_before[w];
                warps_of_launch.push(WarpWork::of(warp.counters(), steps));
            }
        }
        counters.merge(&this_launch);
        launches.push((pass, this_launch));
        launch_warps.push(warps_of_launch);
    }
    Ok(Profile {
        strategy: asked,
        counters,
        launches,
        warp_steps,
        warp_counters,
        launch,
        blocks: blocks.to_vec(),
        items,
        launch_warps,
        shared_bytes_per_warp: crate::plan::shared_bytes_per_warp(kernel, &asked),
    })
}

/// Warp `warp` of block `block` of the plain grid-stride loop, as a task the baseline's warp
/// program runs: its lanes start at their thread's index in the grid and step by the grid's
/// threads to the end of the items (the baseline's program deals `block_start` plus the lane's
/// thread, then steps by `threads_per_block`, which here is the grid's stride). Only for the
/// baseline, which uses nothing else of the task.
fn grid_stride_task(items: u32, launch: Launch, block: u32, warp: u32) -> WarpTask {
    let grid = WarpTask::new(items, launch.blocks, block, launch.threads_per_block, warp);
    WarpTask {
        block_start: block.saturating_mul(launch.threads_per_block).min(items),
        block_end: items,
        threads_per_block: grid.launch_threads(),
        ..grid
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reconverge_transforms::{FactoredBranchLoop, FactoredBranchLoopKernel, ItemLoopKernel};
    use reconverge_workloads::synthetic::{DynamicWork, SynBrDis};

    #[test]
    fn the_compiled_plain_loop_issues_a_factored_branchs_shared_code_once() {
        // SYN-BRDIS at one item per thread: counted as written, the baseline issues the
        // factored code once per path of a divergent iteration; as a compiler sinks it, once,
        // as branch distribution does (whose items and lanes are the same here).
        let w = SynBrDis::new(8, 16, 4, 3);
        let kernel = FactoredBranchLoopKernel(w);
        let launch = Launch {
            threads_per_block: 64,
            blocks: 2,
        };
        let factored = |strategy, plain| -> u64 {
            profile_blocks(&kernel, strategy, 128, launch, &[0, 1], 1 << 20, plain)
                .ok()
                .and_then(|p| p.counters.region(w.regions().factored).map(|c| c.issues))
                .unwrap_or(0)
        };
        let written = factored(Strategy::BASELINE, PlainLoop::AsWritten);
        let distributed = factored(Strategy::BRANCH_DISTRIBUTION, PlainLoop::AsWritten);
        for reconverges_per_item in [true, false] {
            let compiled = factored(
                Strategy::BASELINE,
                PlainLoop::AsCompiled {
                    reconverges_per_item,
                },
            );
            assert!(compiled < written, "{compiled} {written}");
            assert_eq!(compiled, distributed);
        }
    }

    /// Each warp's steps of the baseline of seed 004's loop (trips 1-32, seed 5) over `items`
    /// items, `blocks` blocks of one warp each, all profiled; with the workload, for its trips.
    fn baseline_warp_steps(items: u32, blocks: u32, plain: PlainLoop) -> (Vec<u64>, DynamicWork) {
        let w = DynamicWork::new(1, 32, 5);
        let launch = Launch {
            threads_per_block: 32,
            blocks,
        };
        let all: Vec<u32> = (0..blocks).collect();
        let steps = profile_blocks(
            &ItemLoopKernel(w),
            Strategy::BASELINE,
            items,
            launch,
            &all,
            1 << 20,
            plain,
        )
        .map(|p| p.warp_steps)
        .unwrap_or_default();
        (steps, w)
    }

    fn compiled(reconverges_per_item: bool) -> PlainLoop {
        PlainLoop::AsCompiled {
            reconverges_per_item,
        }
    }

    #[test]
    fn a_plain_loop_reconverging_per_item_takes_the_sum_of_its_rounds_longest_items() {
        // One warp, 64 items, two per lane: lane l runs items l and l + 32. Flat (as written,
        // or compiled flat), the warp takes as many steps as its busiest lane's two items;
        // reconverging after each item, the longest item of each round, one round after the
        // other. Trip counts come from the workload, not the model.
        let steps = |plain| baseline_warp_steps(64, 1, plain);
        let (_, w) = steps(PlainLoop::AsWritten);
        let trips = |i: u32| u64::from(w.trips(i));
        let flattened = (0..32).map(|l| trips(l) + trips(l + 32)).max();
        let rounds = (0..32).map(trips).max().zip((32..64).map(trips).max());
        let per_round = rounds.map(|(a, b)| a + b);
        assert!(per_round > flattened, "{per_round:?} {flattened:?}");
        assert_eq!(steps(PlainLoop::AsWritten).0.first().copied(), flattened);
        assert_eq!(steps(compiled(false)).0.first().copied(), flattened);
        assert_eq!(steps(compiled(true)).0.first().copied(), per_round);
    }

    #[test]
    fn the_compiled_baseline_runs_its_items_grid_stride() {
        // 2 blocks of one warp, 128 items: the grid-stride loop gives lane l of block 0 items
        // l and l + 64, where the block's chunk would give it l and l + 32. Reconverging after
        // each item, each warp takes the longest item of each of its two rounds.
        let (steps, w) = baseline_warp_steps(128, 2, compiled(true));
        let trips = |i: u32| u64::from(w.trips(i));
        let rounds = |first: u32, stride: u32| -> u64 {
            (0..2)
                .map(|k| {
                    (0..32)
                        .map(|l| trips(first + l + k * stride))
                        .max()
                        .unwrap_or(0)
                })
                .sum()
        };
        let grid_stride = vec![rounds(0, 64), rounds(32, 64)];
        let chunks = vec![rounds(0, 32), rounds(64, 32)];
        assert_ne!(
            grid_stride, chunks,
            "the test's trips must tell the orders apart"
        );
        assert_eq!(steps, grid_stride);
        // As the CPU backend runs it (as written, flat), lane l of block 0 keeps its block's
        // chunk: items l and l + 32.
        let (written, _) = baseline_warp_steps(128, 2, PlainLoop::AsWritten);
        let chunk_flat = (0..32).map(|l| trips(l) + trips(l + 32)).max();
        assert_eq!(written.first().copied(), chunk_flat);
    }

    #[test]
    fn a_sass_tables_no_rows_are_the_flat_loops_of_per_thread_strategies() {
        let table = "| entry point | SASS instructions | loops | reconverges per item |\n\
                     |---|---:|---:|---|\n\
                     | w_baseline | 64 | 1 | no |\n\
                     | w_dynamic | 120 | 2 | yes |\n\
                     | w_rr | 300 | 1 | no |\n";
        let rr =
            Strategy::iteration_delaying(reconverge_transforms::Decision::round_robin(3, 1, false));
        let loops = CompiledLoops::from_sass_table(
            table,
            [
                (Strategy::BASELINE, "w_baseline"),
                (Strategy::DYNAMIC_WORK_ASSIGNMENT, "w_dynamic"),
                // Iteration delaying runs no plain loop: its row says nothing of one.
                (rr, "w_rr"),
                (Strategy::GRID_WIDE_DYNAMIC_WORK, "w_grid"),
            ],
        );
        assert_eq!(loops.flat, vec![Strategy::BASELINE]);
        let nested = PlainLoop::AsCompiled {
            reconverges_per_item: true,
        };
        assert_eq!(loops.plain_loop(&Strategy::DYNAMIC_WORK_ASSIGNMENT), nested);
        assert_eq!(loops.plain_loop(&Strategy::GRID_WIDE_DYNAMIC_WORK), nested);
        assert_ne!(loops.plain_loop(&Strategy::BASELINE), nested);
    }

    #[test]
    fn stats_of_values_and_of_none() {
        let s = Stats::of([3.0, 1.0, 2.0]);
        assert_eq!((s.count, s.min, s.mean, s.max), (3, 1.0, 2.0, 3.0));
        assert_eq!(Stats::of([]), Stats::default());
    }
}
