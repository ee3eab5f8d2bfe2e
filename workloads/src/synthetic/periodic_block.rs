//! A loop whose expensive block comes every `period` iterations at a per-item phase: the
//! workload speculative reconvergence (Damani et al., CGO 2020) is for, and, with every item at
//! phase 0, the one it cannot help.
//!
//! Each item runs `iterations` iterations of a cheap integer step; in iteration `i` it runs
//! the expensive block (`block_rounds` integer rounds, [`super::itdelay_distinct::integer_rounds`])
//! instead when `(i + phase) % period == period - 1`. With per-item phases (`phased`), a warp's
//! lanes reach the block in different iterations, so the code as written issues it in almost
//! every iteration with about `32 / period` lanes busy; speculative reconvergence makes lanes
//! wait for each other and issues it with many. With every phase 0 (not `phased`) every lane
//! reaches the block in the same iteration already: the technique only adds its vote.
//!
//! Integer arithmetic only, so every strategy, CPU and GPU agree bit for bit; the output is an
//! order-sensitive record of every step.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::itdelay_distinct::integer_rounds;

/// The phase test: `(i + phase) % period == period - 1`.
pub const CONDITION: Region = LoopRegion::Condition.region("(i + phase) % period", 4);
/// The expensive block (its cost is `block_rounds` rounds of 4 instructions).
pub const BLOCK: Region = LoopRegion::Taken.region("expensive block: integer rounds", 0);
/// The cheap step.
pub const STEP: Region = LoopRegion::NotTaken.region("cheap step", 3);
/// The loop increment.
pub const LOOP: Region = LoopRegion::AfterBranch.region("loop increment", 1);
/// Item start and store.
pub const ITEM: Region = LoopRegion::Item.region("seed / store", 6);

/// The workload's parameters (a kernel argument on the GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct PeriodicBlockLoop {
    /// Iterations per item.
    pub iterations: u32,
    /// Iterations between an item's blocks (at least 1).
    pub period: u32,
    /// Integer rounds of the expensive block.
    pub block_rounds: u32,
    /// 1: each item's phase is its own (a hash of its index); 0: every phase is 0.
    pub phased: u32,
}

/// An item's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PeriodicBlockState {
    /// Iterations run.
    pub i: u32,
    /// The item's phase.
    pub phase: u32,
    /// The running value.
    pub x: u32,
}

impl PeriodicBlockLoop {
    /// The favourable workload: per-item phases.
    pub const fn phased(iterations: u32, period: u32, block_rounds: u32) -> Self {
        Self {
            iterations,
            period: if period == 0 { 1 } else { period },
            block_rounds,
            phased: 1,
        }
    }

    /// The unfavourable workload: every item at phase 0, so lanes reach the block together.
    pub const fn aligned(iterations: u32, period: u32, block_rounds: u32) -> Self {
        Self {
            phased: 0,
            ..Self::phased(iterations, period, block_rounds)
        }
    }

    /// Item `item` run as one plain scalar loop: the same work as any strategy, no warp.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }

    fn period(&self) -> u32 {
        self.period.max(1)
    }
}

/// A 32-bit mix of the item index (its phase and seed).
#[inline(always)]
fn mix(item: u32) -> u32 {
    let x = item.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
    (x ^ (x >> 15)).wrapping_mul(0x2C1B_3C6D)
}

impl BranchLoop for PeriodicBlockLoop {
    type State = PeriodicBlockState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([
            CONDITION,
            BLOCK.with_cost(self.block_rounds.saturating_mul(4).max(1)),
            STEP,
            LOOP,
            ITEM,
        ])
    }

    #[inline]
    fn start(&self, item: u32) -> PeriodicBlockState {
        let h = mix(item);
        PeriodicBlockState {
            i: 0,
            phase: if self.phased != 0 {
                (h >> 8) % self.period()
            } else {
                0
            },
            x: h,
        }
    }

    #[inline]
    fn running(&self, s: &PeriodicBlockState) -> bool {
        s.i < self.iterations
    }

    #[inline]
    fn condition(&self, s: &mut PeriodicBlockState) -> bool {
        let p = self.period();
        (s.i.wrapping_add(s.phase)) % p == p - 1
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut PeriodicBlockState, _: &mut T) {
        s.x = integer_rounds(s.x ^ s.i, self.block_rounds);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut PeriodicBlockState, _: &mut T) {
        s.x = s.x.rotate_left(3).wrapping_add(s.i) ^ 0x27D4_EB2F;
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut PeriodicBlockState, _: &mut T) {
        s.i += 1;
    }

    #[inline]
    fn finish(&self, s: &PeriodicBlockState) -> u32 {
        s.x
    }
}
