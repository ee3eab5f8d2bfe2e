//! Seed 002 (Han & Abdelrahman) figs. 2 and 3: the worked example of iteration delaying, three
//! threads of three iterations each whose branch paths are 100 FMA each and everything else
//! free, so that a strategy's FMA count is exactly the figure's (fig. 2: 600 without delaying,
//! 400 with majority vote, 500 when the minority goes first; fig. 3: 400 and 600).
//!
//! A host-side fixture for the model (the figure's warp has three lanes), shared by the tests
//! of the transforms and of the advisor.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

/// The taken path: 100 FMA.
pub const TAKEN: Region = LoopRegion::Taken.region("taken (100 FMA)", 100);
/// The not-taken path: 100 FMA.
pub const NOT_TAKEN: Region = LoopRegion::NotTaken.region("not taken (100 FMA)", 100);

// The pattern's regions besides its paths: free, so that only the paths count.
const CONDITION: Region = LoopRegion::Condition.region("condition", 0);
const AFTER: Region = LoopRegion::AfterBranch.region("after", 0);
const ITEM: Region = LoopRegion::Item.region("item", 0);

const T: bool = true;
const N: bool = false;

/// Each thread's branch direction per iteration (`true`: taken); item `i` is thread `i % 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern(pub [[bool; 3]; 3]);

/// Fig. 2a: thread 1 runs (1,T)(4,N)(7,T), thread 2 (2,N)(5,T)(8,N), thread 3 (3,T)(6,T)(9,N).
pub const FIG2: Pattern = Pattern([[T, N, T], [N, T, N], [T, T, N]]);
/// Fig. 3: only thread 2's first iteration is not taken.
pub const FIG3: Pattern = Pattern([[T, T, T], [N, T, T], [T, T, T]]);

/// A thread: its item, its iteration and the trace of its directions so far.
#[derive(Clone, Copy, Debug)]
pub struct Thread {
    item: u32,
    iteration: usize,
    trace: u32,
}

impl BranchLoop for Pattern {
    type State = Thread;
    /// The thread's directions in base 3 after a leading 1 (1 = taken, 2 = not taken): any
    /// strategy that runs an iteration twice, skips one or reorders them changes it.
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([CONDITION, TAKEN, NOT_TAKEN, AFTER, ITEM])
    }
    fn start(&self, item: u32) -> Thread {
        Thread {
            item,
            iteration: 0,
            trace: 1,
        }
    }
    fn running(&self, s: &Thread) -> bool {
        s.iteration < 3
    }
    fn condition(&self, s: &mut Thread) -> bool {
        self.0[s.item as usize % 3][s.iteration.min(2)]
    }
    fn taken<U: Tally>(&self, s: &mut Thread, _: &mut U) {
        s.trace = s.trace * 3 + 1;
    }
    fn not_taken<U: Tally>(&self, s: &mut Thread, _: &mut U) {
        s.trace = s.trace * 3 + 2;
    }
    fn after_branch<U: Tally>(&self, s: &mut Thread, _: &mut U) {
        s.iteration += 1;
    }
    fn finish(&self, s: &Thread) -> u32 {
        s.trace
    }
}
