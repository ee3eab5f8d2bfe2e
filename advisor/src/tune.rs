//! The tuner: a parameterised strategy's parameters searched on the model.
//!
//! [`tune`] evaluates a coarse grid (about five points per parameter for one parameter, three
//! for two), then refines around the best point: it tries the neighbours at half the grid's
//! step, moves while a neighbour predicts a strictly higher speedup, and halves the step until
//! it is 1. [`grid`] evaluates every point. Both count model runs (the baseline's included),
//! so that the tuner's saving can be checked.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use reconverge_backend::Launch;
use reconverge_transforms::{Assignment, Decision, Kernel, PathSchedule, Strategy};

use crate::{AdviseError, Baseline, Options, profile};

/// A parameterised strategy and the range of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Iteration delaying with a majority vote; the threshold ranges over `1..=32`.
    MajorityVote {
        /// See [`Decision::MajorityVote`].
        stop_when_a_lane_finishes: bool,
        /// How the delaying lanes get their items.
        items: Assignment,
    },
    /// Iteration delaying with round robin; `num_zeros` and `num_ones` each range over
    /// `1..=max_run` (the cycle `num_zeros / (num_zeros + num_ones)` with its length).
    RoundRobin {
        /// See [`Decision::RoundRobin`].
        remove_idle: bool,
        /// How the delaying lanes get their items.
        items: Assignment,
        /// Longest run of one direction.
        max_run: u32,
    },
    /// Branch path unification; items per thread range over `1..=max_items_per_thread`.
    BranchPathUnification {
        /// Largest items per thread tried.
        max_items_per_thread: u32,
    },
    /// The occlusion-query loop; iterations per pass range over `1..=max_iterations_per_pass`.
    OcclusionQueryLoop {
        /// Largest iterations per pass tried.
        max_iterations_per_pass: u32,
    },
}

impl Family {
    /// A short name, for errors.
    pub fn name(&self) -> &'static str {
        match self {
            Family::MajorityVote { .. } => "majority vote",
            Family::RoundRobin { .. } => "round robin",
            Family::BranchPathUnification { .. } => "branch path unification",
            Family::OcclusionQueryLoop { .. } => "occlusion-query loop",
        }
    }

    /// The family a strategy belongs to, with the default ranges (round-robin runs up to 8,
    /// up to 64 items per thread or iterations per pass); `None` for a strategy without a
    /// parameter to tune.
    pub fn of(strategy: &Strategy) -> Option<Self> {
        // Cost-balanced delaying has no parameter.
        let delaying = |decision: &Decision, items| match *decision {
            Decision::MajorityVote {
                stop_when_a_lane_finishes,
                ..
            } => Some(Family::MajorityVote {
                stop_when_a_lane_finishes,
                items,
            }),
            Decision::RoundRobin { remove_idle, .. } => Some(Family::RoundRobin {
                remove_idle,
                items,
                max_run: 8,
            }),
            Decision::CostBalanced => None,
        };
        match strategy.paths {
            PathSchedule::IterationDelaying(d) => delaying(&d, strategy.items),
            PathSchedule::BranchPathUnification { .. } => Some(Family::BranchPathUnification {
                max_items_per_thread: 64,
            }),
            PathSchedule::OcclusionQueryLoop { .. } => Some(Family::OcclusionQueryLoop {
                max_iterations_per_pass: 64,
            }),
            _ => None,
        }
    }

    /// The range of each parameter.
    pub fn ranges(&self) -> Vec<RangeInclusive<u32>> {
        match *self {
            Family::MajorityVote { .. } => vec![1..=32],
            Family::RoundRobin { max_run, .. } => vec![1..=max_run, 1..=max_run],
            Family::BranchPathUnification {
                max_items_per_thread,
            } => vec![1..=max_items_per_thread],
            Family::OcclusionQueryLoop {
                max_iterations_per_pass,
            } => vec![1..=max_iterations_per_pass],
        }
    }

    /// The strategy at `point` (one value per range; missing values are 1).
    pub fn strategy(&self, point: &[u32]) -> Strategy {
        let at = |i: usize| point.get(i).copied().unwrap_or(1);
        let delaying = |decision, items| Strategy::iteration_delaying(decision).over(items);
        match *self {
            Family::MajorityVote {
                stop_when_a_lane_finishes,
                items,
            } => delaying(
                Decision::MajorityVote {
                    threshold: at(0),
                    stop_when_a_lane_finishes,
                },
                items,
            ),
            Family::RoundRobin {
                remove_idle, items, ..
            } => delaying(
                Decision::RoundRobin {
                    num_zeros: at(0),
                    num_ones: at(1),
                    remove_idle,
                },
                items,
            ),
            Family::BranchPathUnification { .. } => Strategy::branch_path_unification(at(0)),
            Family::OcclusionQueryLoop { .. } => Strategy::occlusion_query_loop(at(0)),
        }
    }
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The best strategy found.
    pub best: Strategy,
    /// Its predicted speedup over the baseline.
    pub speedup: f64,
    /// Model runs taken, the baseline's included.
    pub model_runs: usize,
    /// Every point evaluated, in order, with its predicted speedup.
    pub evaluated: Vec<(Strategy, f64)>,
}

/// Evaluates points of a family, each once.
struct Search<'k, K: ?Sized> {
    kernel: &'k K,
    items: u32,
    launch: Launch,
    options: &'k Options,
    family: Family,
    baseline: Baseline,
    seen: HashMap<Vec<u32>, f64>,
    evaluated: Vec<(Strategy, f64)>,
    best: Option<(Vec<u32>, f64)>,
}

impl<'k, K: Kernel + ?Sized> Search<'k, K> {
    fn new(
        kernel: &'k K,
        items: u32,
        launch: Launch,
        family: Family,
        options: &'k Options,
    ) -> Result<Self, AdviseError> {
        for r in family.ranges() {
            if r.is_empty() || *r.start() == 0 {
                return Err(AdviseError::EmptyRange {
                    family: family.name(),
                    lo: *r.start(),
                    hi: *r.end(),
                });
            }
        }
        Ok(Self {
            kernel,
            items,
            launch,
            options,
            family,
            baseline: Baseline::measure(kernel, items, launch, options)?,
            seen: HashMap::new(),
            evaluated: Vec::new(),
            best: None,
        })
    }

    /// The predicted speedup at `point`; the best point moves only on a strictly higher one,
    /// so that among equals the first evaluated stays.
    fn eval(&mut self, point: &[u32]) -> Result<f64, AdviseError> {
        if let Some(&s) = self.seen.get(point) {
            return Ok(s);
        }
        let strategy = self.family.strategy(point);
        let run = profile(
            self.kernel,
            strategy,
            self.items,
            self.launch,
            self.options.step_limit,
        )?;
        let speedup = self.baseline.predict(run, self.options)?.speedup;
        self.seen.insert(point.to_vec(), speedup);
        self.evaluated.push((strategy, speedup));
        if self.best.as_ref().is_none_or(|(_, b)| speedup > *b) {
            self.best = Some((point.to_vec(), speedup));
        }
        Ok(speedup)
    }

    fn finish(self) -> Tuned {
        let (point, speedup) = self.best.unwrap_or((Vec::new(), 1.0));
        Tuned {
            best: self.family.strategy(&point),
            speedup,
            model_runs: self.evaluated.len() + 1,
            evaluated: self.evaluated,
        }
    }
}

/// Every combination of one value per axis, the first axis slowest.
fn cartesian<T: Copy>(axes: &[Vec<T>]) -> Vec<Vec<T>> {
    axes.iter().fold(vec![Vec::new()], |acc, axis| {
        acc.iter()
            .flat_map(|prefix| {
                axis.iter().map(move |&v| {
                    let mut p = prefix.clone();
                    p.push(v);
                    p
                })
            })
            .collect()
    })
}

/// The coarse grid [`tune`] starts from, with each axis's step: about five points for one
/// parameter, three per parameter for two, each range's ends included.
fn coarse_axes(ranges: &[RangeInclusive<u32>]) -> (Vec<Vec<u32>>, Vec<u32>) {
    // Fewer coarse points per parameter when there are two, so the grid stays small.
    let divisions = if ranges.len() > 1 { 2 } else { 4 };
    let steps: Vec<u32> = ranges
        .iter()
        .map(|r| {
            (r.end() - r.start())
                .div_ceil(divisions)
                .max(1)
                .next_power_of_two()
        })
        .collect();
    let axes = ranges
        .iter()
        .zip(&steps)
        .map(|(r, &s)| {
            let mut axis: Vec<u32> = r.clone().step_by(s as usize).collect();
            if axis.last() != Some(r.end()) {
                axis.push(*r.end());
            }
            axis
        })
        .collect();
    (axes, steps)
}

/// Which values of a technique's numbers a search over a backend tries, beside the listed
/// strategies ([`parameter_grid`]). A technique's `_any` GPU entry point takes a strategy's
/// numbers at run time, so every value runs, not only those an entry list names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParameterGrid {
    /// The listed strategies only.
    Listed,
    /// Each family's coarse grid, the points [`tune`] starts from (about five values of a
    /// threshold, 3 x 3 round-robin cycles).
    #[default]
    Coarse,
    /// Every point of each family's ranges ([`Family::ranges`]: 32 thresholds, 8 x 8 cycles,
    /// 64 items per thread or iterations per pass).
    Full,
}

/// `strategies`, each followed by the other points of its family ([`Family::of`]) that `grid`
/// asks for, each strategy once, in order: the candidates of a measured search over a
/// technique's numbers.
pub fn parameter_grid(strategies: &[Strategy], grid: ParameterGrid) -> Vec<Strategy> {
    let mut out: Vec<Strategy> = Vec::new();
    let mut push = |s: Strategy| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for &strategy in strategies {
        push(strategy);
        let Some(family) = Family::of(&strategy) else {
            continue;
        };
        let ranges = family.ranges();
        let axes: Vec<Vec<u32>> = match grid {
            ParameterGrid::Listed => continue,
            ParameterGrid::Coarse => coarse_axes(&ranges).0,
            ParameterGrid::Full => ranges.into_iter().map(|r| r.collect()).collect(),
        };
        for point in cartesian(&axes) {
            push(family.strategy(&point));
        }
    }
    out
}

/// Evaluates every point of `family` on the model: the reference the tuner is checked against.
pub fn grid<K: Kernel + ?Sized>(
    kernel: &K,
    items: u32,
    launch: Launch,
    family: Family,
    options: &Options,
) -> Result<Tuned, AdviseError> {
    let mut search = Search::new(kernel, items, launch, family, options)?;
    let axes: Vec<Vec<u32>> = family.ranges().into_iter().map(|r| r.collect()).collect();
    for point in cartesian(&axes) {
        search.eval(&point)?;
    }
    Ok(search.finish())
}

/// Searches `family`'s parameters on the model: a coarse grid, then refinement around the
/// best point (see the module docs). Returns the best strategy found and its predicted speedup.
pub fn tune<K: Kernel + ?Sized>(
    kernel: &K,
    items: u32,
    launch: Launch,
    family: Family,
    options: &Options,
) -> Result<Tuned, AdviseError> {
    let mut search = Search::new(kernel, items, launch, family, options)?;
    let ranges = family.ranges();
    let (axes, mut steps) = coarse_axes(&ranges);
    for point in cartesian(&axes) {
        search.eval(&point)?;
    }
    loop {
        for s in &mut steps {
            *s = (*s / 2).max(1);
        }
        // Hill-climb at this step: move to the best neighbour while one is strictly better.
        while let Some((centre, centre_speedup)) = search.best.clone() {
            let offsets: Vec<Vec<i64>> = steps
                .iter()
                .map(|&s| vec![-i64::from(s), 0, i64::from(s)])
                .collect();
            for offset in cartesian(&offsets) {
                let point: Vec<u32> = centre
                    .iter()
                    .zip(&offset)
                    .zip(&ranges)
                    .map(|((&c, &o), r)| {
                        (i64::from(c) + o).clamp(i64::from(*r.start()), i64::from(*r.end())) as u32
                    })
                    .collect();
                search.eval(&point)?;
            }
            if search
                .best
                .as_ref()
                .is_none_or(|(_, b)| *b <= centre_speedup)
            {
                break;
            }
        }
        if steps.iter().all(|&s| s == 1) {
            break;
        }
    }
    Ok(search.finish())
}
