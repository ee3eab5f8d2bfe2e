//! One strategy run on the reference SIMT model, keeping what the advisor needs: counters per
//! launch (a multi-pass strategy's passes can run at different occupancies) and per warp (for
//! trip-count statistics), which the CPU backend merges away.

use std::sync::atomic::AtomicU32;

use reconverge_backend::Launch;
use reconverge_simt::{BlockShared, Counters, ModelWarp, WARP_SIZE};
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
    let strategy_error = |source| AdviseError::Strategy {
        strategy,
        shape: K::SHAPE,
        source,
    };
    let mut plan = PassPlan::of(kernel, &strategy).map_err(strategy_error)?;
    let scratch: Vec<AtomicU32> = (0..kernel.scratch_words(&strategy, items))
        .map(|_| AtomicU32::new(0))
        .collect();
    let warps_per_block = launch.threads_per_block / WARP_SIZE;
    let total_warps = launch.blocks as usize * warps_per_block as usize;
    let mut warp_steps = vec![0u64; total_warps];
    let mut warp_counters = vec![Counters::new(WARP_SIZE); total_warps];
    let mut counters = Counters::new(WARP_SIZE);
    let mut launches = Vec::new();
    while let Some(pass) = plan.next_pass_in(&scratch) {
        let mut this_launch = Counters::new(WARP_SIZE);
        // Grid-wide dealing's one counter for the launch. Blocks run one after another here, so
        // the first ones take the items the others would have taken on a GPU: the issue slots
        // are the same, each warp's share of them is not.
        let grid_counter = AtomicU32::new(0);
        for block in 0..launch.blocks {
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
                warp.set_counting(true);
                let task = WarpTask::new(items, launch.blocks, block, launch.threads_per_block, w);
                let program = kernel
                    .program(&warp, &strategy, pass, task, &scratch)
                    .map_err(strategy_error)?;
                warps.push((warp, program, true));
            }
            let first = block as usize * warps_per_block as usize;
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
            }
        }
        counters.merge(&this_launch);
        launches.push((pass, this_launch));
    }
    Ok(Profile {
        strategy,
        counters,
        launches,
        warp_steps,
        warp_counters,
    })
}

#[cfg(test)]
mod tests {
    use super::Stats;

    #[test]
    fn stats_of_values_and_of_none() {
        let s = Stats::of([3.0, 1.0, 2.0]);
        assert_eq!((s.count, s.min, s.mean, s.max), (3, 1.0, 2.0, 3.0));
        assert_eq!(Stats::of([]), Stats::default());
    }
}
