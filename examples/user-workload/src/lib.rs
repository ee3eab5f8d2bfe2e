//! A workload of a user's own — not one of the papers' — as reconverge runs it: particles that
//! random-walk on a line until they escape or run out of steps, and that do an expensive
//! "reaction" in each step they spend inside a trap around the origin. Which particles are in
//! the trap changes from step to step, so a warp's lanes diverge; walks end after different
//! numbers of steps, so a warp's lanes finish at different times.
//!
//! This library is compiled twice: for the host, and (with feature `cuda`, by `build.rs`) for
//! the GPU, where it is `no_std` and its entry points, listed once below with
//! `reconverge::gpu_entry_points!`, become PTX. The workload is plain `#[repr(C)]` data, so the
//! host can copy it to the GPU byte for byte.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

use reconverge::prelude::*;

// The one list of GPU entry points: entry `i` runs `WALK_STRATEGIES[i]`. The GPU build makes
// them PTX entry points; the host build (feature `cuda`) the tables `CudaBackend` finds them
// in; both define `WALK_ENTRY_POINTS`, their names.
reconverge::gpu_entry_points! {
    pub const WALK_ENTRY_POINTS;
    Walk as BranchLoopKernel from (WALK_STRATEGIES) {
        walk_baseline, walk_dynamic, walk_majority_vote, walk_round_robin, walk_grid,
    }
}

// The plain kernels the strategies are measured against (`--compare`): the walk as a CUDA
// programmer writes it first, one thread per item, grid-stride, persistent threads on a global
// or a block counter. GPU build only; names as in `WALK_PLAIN_KERNELS`.
reconverge::device::plain_kernels!(Walk => u32, reconverge::device::plain::branch_loop_item;
    walk_one_per_item, walk_grid_stride, walk_persistent, walk_block_persistent);

/// The strategies that get GPU entry points (the list above names one entry point per strategy,
/// in this order), each written as its two parts, how lanes get items and how a warp schedules
/// the branch: the baseline, dynamic work, iteration delaying by majority vote and by round
/// robin with idle removal (seed 002's parameters), and dynamic work from one grid-wide
/// counter. A pairing no program implements ([`Strategy::pairing`]) would not compile here. Each entry point runs its
/// strategy with the numbers compiled in, and its twin `<name>_any` takes them at run time, so
/// `walk_majority_vote_any` runs a vote of any threshold and `walk_round_robin_any` any cycle.
pub const WALK_STRATEGIES: &[Strategy] = &[
    Strategy::new(Assignment::Static, PathSchedule::AsWritten),
    Strategy::new(Assignment::Dynamic, PathSchedule::AsWritten),
    Strategy::new(Assignment::Static, PathSchedule::IterationDelaying(VOTE)),
    Strategy::new(
        Assignment::Static,
        PathSchedule::IterationDelaying(ROUND_ROBIN),
    ),
    Strategy::new(Assignment::GridWide, PathSchedule::AsWritten),
];

/// Seed 002's majority vote (8 of 32 lanes, stopping when a lane finishes) and round robin
/// (3:1 with idle removal), the branch-loop shape's own parameters.
const VOTE: Decision = reconverge::transforms::PAPER_MAJORITY_VOTE;
/// See [`VOTE`].
const ROUND_ROBIN: Decision = reconverge::transforms::PAPER_ROUND_ROBIN;

/// The names of the walk's plain kernels (`plain_kernels!` above): the loop a CUDA programmer writes first, one per schedule, which the strategies
/// are measured against.
pub const WALK_PLAIN_KERNELS: &[&str] = &[
    "walk_one_per_item",
    "walk_grid_stride",
    "walk_persistent",
    "walk_block_persistent",
];

reconverge::device_data! {
    /// The walk's parameters: the backend copies them to the GPU byte for byte
    /// (`device_data!` makes the struct `#[repr(C)]` GPU data, which the entry list checks).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Walk {
        /// Steps after which a walk stops.
        pub max_steps: u32,
        /// Particles with `|x| < trap` react instead of moving.
        pub trap: u32,
        /// Particles with `|x| >= escape` have left.
        pub escape: u32,
        /// Seed of every particle's random bits.
        pub seed: u32,
    }
}

/// One particle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Particle {
    x: i32,
    rng: u32,
    steps: u32,
    energy: u32,
}

/// xorshift32: the particle's own random bits (item `i` starts from a hash of `(seed, i)`, so
/// no lane or strategy changes a particle's walk).
fn next(rng: &mut u32) -> u32 {
    let mut v = *rng;
    v ^= v << 13;
    v ^= v >> 17;
    v ^= v << 5;
    *rng = v;
    v
}

impl BranchLoop for Walk {
    type State = Particle;
    /// Energy, steps and final position folded into one word.
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([
            LoopRegion::Condition.region("in the trap?", 2),
            LoopRegion::Taken.region("react", 48),
            LoopRegion::NotTaken.region("move", 6),
            LoopRegion::AfterBranch.region("count", 1),
            LoopRegion::Item.region("launch / retire", 8),
        ])
    }

    fn start(&self, item: u32) -> Particle {
        let h = (item ^ self.seed.rotate_left(16)).wrapping_mul(0x9E37_79B9);
        Particle {
            x: 0,
            rng: h | 1,
            steps: 0,
            energy: 0,
        }
    }

    fn running(&self, p: &Particle) -> bool {
        p.steps < self.max_steps && p.x.unsigned_abs() < self.escape
    }

    fn condition(&self, p: &mut Particle) -> bool {
        p.x.unsigned_abs() < self.trap
    }

    fn taken<T: Tally>(&self, p: &mut Particle, _: &mut T) {
        // The reaction: a long dependent chain, much costlier than a move.
        let mut e = p.energy ^ next(&mut p.rng);
        for _ in 0..16 {
            e = e.wrapping_mul(0x2545_F491).rotate_left(7) ^ 0x6A09_E667;
        }
        p.energy = e;
        // A reacting particle is kicked out of the trap's centre now and then.
        if e & 3 == 0 {
            p.x += if e & 4 == 0 { 2 } else { -2 };
        }
    }

    fn not_taken<T: Tally>(&self, p: &mut Particle, _: &mut T) {
        p.x += if next(&mut p.rng) & 1 == 0 { 1 } else { -1 };
    }

    fn after_branch<T: Tally>(&self, p: &mut Particle, _: &mut T) {
        p.steps += 1;
    }

    fn finish(&self, p: &Particle) -> u32 {
        p.energy ^ (p.steps << 16) ^ (p.x as u32)
    }
}
