//! An item loop with bimodal trip counts: `long_percent` % of the items run `long_min` to
//! `long_max` trips, the rest 1 to `short_max` (a work queue of mostly small jobs and a few
//! large ones). The body is two hash rounds.
//!
//! ```text
//! x = hash(item), left = trips(item)
//! while left > 0 { x = mix(mix(x) + left); left -= 1 }
//! output = x
//! ```

use reconverge_simt::Region;
use reconverge_transforms::{ItemLoop, ItemLoopRegion, ItemLoopRegions, Tally};

use super::{MIX_INSTRUCTIONS, item_hash, mix};

/// The bimodal loop's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct VariableTrips {
    /// Percent of items that are long.
    pub long_percent: u32,
    /// Trips of a short item: 1 to this.
    pub short_max: u32,
    /// Trips of a long item: this to `long_max`.
    pub long_min: u32,
    /// See `long_min`.
    pub long_max: u32,
    /// Seed.
    pub seed: u32,
}

/// One item's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct VariableTripsState {
    /// The running value.
    pub x: u32,
    /// Trips left.
    pub left: u32,
}

impl VariableTrips {
    /// Item `item`'s trip count.
    #[inline]
    pub fn trips(&self, item: u32) -> u32 {
        let h = item_hash(self.seed ^ 0x7219, item);
        let r = h >> 8;
        if h % 100 < self.long_percent {
            let span = self.long_max.saturating_sub(self.long_min) + 1;
            self.long_min.max(1) + r % span
        } else {
            1 + r % self.short_max.max(1)
        }
    }
}

const BODY: Region = ItemLoopRegion::Body.region("two rounds", 2 * MIX_INSTRUCTIONS + 3);
const ITEM: Region = ItemLoopRegion::Item.region("trips, store", 24);

impl ItemLoop for VariableTrips {
    type State = VariableTripsState;
    type Output = u32;

    fn regions(&self) -> ItemLoopRegions {
        ItemLoopRegions::new([BODY, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> VariableTripsState {
        VariableTripsState {
            x: item_hash(self.seed, item),
            left: self.trips(item),
        }
    }

    #[inline]
    fn running(&self, s: &VariableTripsState) -> bool {
        s.left > 0
    }

    #[inline]
    fn body<T: Tally>(&self, s: &mut VariableTripsState, _: &mut T) {
        s.x = mix(mix(s.x).wrapping_add(s.left));
        s.left -= 1;
    }

    #[inline]
    fn finish(&self, s: &VariableTripsState) -> u32 {
        s.x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held_out::VARIABLE_TRIPS;

    #[test]
    fn trips_are_bimodal() {
        let w = VARIABLE_TRIPS;
        let n = 100_000;
        let long = (0..n).filter(|&i| w.trips(i) >= w.long_min).count();
        // 8 % of 100,000 = 8,000; the binomial's standard deviation is about 86.
        assert!((7600..8400).contains(&long), "{long}");
        assert!((0..n).all(|i| {
            let t = w.trips(i);
            (1..=w.short_max).contains(&t) || (w.long_min..=w.long_max).contains(&t)
        }));
    }

    #[test]
    fn reference_runs_each_trip() {
        let w = VARIABLE_TRIPS;
        let item = 5;
        let mut x = item_hash(w.seed, item);
        for left in (1..=w.trips(item)).rev() {
            x = mix(mix(x).wrapping_add(left));
        }
        assert_eq!(w.run_item(item), x);
    }
}
