//! The code shapes the papers target, as workload traits.
//!
//! A workload is a type whose methods are the pieces of its kernel; a strategy decides how a
//! warp runs those pieces. Items are numbered `0..n` and a workload derives each item's input
//! from its index (and its own parameters), so that no backend needs input buffers and dynamic
//! strategies can hand any item to any lane.

use reconverge_simt::Region;

use crate::io::Tally;

/// The regions of a [`BranchLoop`], with the costs the workload declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRegions {
    /// Computing the branch condition (seed 002 fig. 5a line 5).
    pub condition: Region,
    /// The taken path ("code segment 1").
    pub taken: Region,
    /// The not-taken path ("code segment 2").
    pub not_taken: Region,
    /// The non-branch code of the loop body.
    pub after_branch: Region,
    /// Starting and finishing items (loads, stores, the next-item bookkeeping).
    pub item: Region,
}

/// A loop whose body holds one divergent two-path branch and non-branch code:
///
/// ```text
/// state = start(item)
/// while running(state) {
///     if condition(state) { taken(state) } else { not_taken(state) }
///     after_branch(state)
/// }
/// output = finish(state)
/// ```
///
/// Seed 002 fig. 4 (the pattern iteration delaying targets); MCML's photon loop (seed 002
/// fig. 8: boundary hit vs. drop-and-spin) has this shape. The condition is computed once per
/// executed iteration and may change the state (draw a random number).
pub trait BranchLoop {
    /// What a lane carries through the loop.
    type State: Copy;
    /// What an item produces.
    type Output: Copy;

    /// The regions and their costs.
    fn regions(&self) -> LoopRegions;
    /// Accumulators the workload adds to through its [`Tally`]; 0 for none.
    fn tally_len(&self) -> usize {
        0
    }
    /// The state of a fresh item.
    fn start(&self, item: u32) -> Self::State;
    /// Whether the item still has iterations to run.
    fn running(&self, state: &Self::State) -> bool;
    /// The branch condition of the next iteration.
    fn condition(&self, state: &mut Self::State) -> bool;
    /// The taken path.
    fn taken<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The not-taken path.
    fn not_taken<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The code after the branch, in every executed iteration.
    fn after_branch<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The output of a finished item.
    fn finish(&self, state: &Self::State) -> Self::Output;
}
