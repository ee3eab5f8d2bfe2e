//! Named code regions with a declared issue cost.

/// A piece of code whose issues the model counts: a branch path, a loop body, a vote.
///
/// The workload declares what one issue of the region costs, in instructions ("100 FMA" is a
/// cost of 100), so that model counts can be compared with the papers' instruction counts.
/// The id indexes the counter table. A workload's regions take ids below
/// [`crate::MAX_REGIONS`], assigned by its shape (the shape traits of `reconverge-transforms`
/// declare their regions' rows); the strategies' own regions ([`Region::VOTE`],
/// [`Region::EXCHANGE`], [`Region::ATOMIC`]) have the rows after those, and ids past the
/// table are counted in the totals only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// Index of this region's row in [`crate::Counters`].
    pub id: u8,
    /// A name for reports.
    pub name: &'static str,
    /// Instructions issued each time the region runs.
    pub cost: u32,
}

impl Region {
    /// A region with the given counter row, name and cost.
    pub const fn new(id: u8, name: &'static str, cost: u32) -> Self {
        Self { id, name, cost }
    }

    /// The same region with another cost (a sweep over path lengths keeps one id).
    pub const fn with_cost(self, cost: u32) -> Self {
        Self { cost, ..self }
    }

    /// Warp votes (`ballot`, `any`, `all`) issued by strategies: one instruction each.
    pub const VOTE: Region = Region::new(crate::MAX_REGIONS as u8 + 1, "vote", 1);
    /// Shuffles issued by strategies: one instruction each.
    pub const EXCHANGE: Region = Region::new(crate::MAX_REGIONS as u8, "exchange", 1);
    /// Atomic adds on a work counter (the block's or the launch's) issued by strategies: one
    /// instruction each. A row of its own because its cost is not the instruction's: every
    /// claim on the launch's one counter is serialised by the memory system (the advisor's
    /// calibration prices it).
    pub const ATOMIC: Region = Region::new(crate::MAX_REGIONS as u8 + 2, "atomic", 1);
}
