//! What the reference model counts, per region and in total.

use crate::Region;

/// Counter rows a workload's regions may use: ids `0..MAX_REGIONS`, numbered by the workload's
/// shape. The regions the strategies add ([`Region::EXCHANGE`], [`Region::VOTE`],
/// [`Region::ATOMIC`]) have rows of
/// their own after these, so no workload region can share a row with them.
pub const MAX_REGIONS: usize = 16;

/// Rows of the strategies' own regions, after the workload's: [`Region::EXCHANGE`],
/// [`Region::VOTE`] and [`Region::ATOMIC`].
pub const STRATEGY_REGIONS: usize = 3;

/// Counts of one code region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RegionCounters {
    /// The region's name, `""` while it has never run.
    pub name: &'static str,
    /// Times the region was issued (calls with at least one active lane).
    pub issues: u64,
    /// Issues weighted by the region's cost: warp-level instructions issued.
    pub issue_slots: u64,
    /// Lanes active in each issued instruction, summed: useful lane-instructions.
    pub active_lane_slots: u64,
}

impl RegionCounters {
    fn record(&mut self, region: Region, active_lanes: u32) {
        self.name = region.name;
        self.issues += 1;
        self.issue_slots += u64::from(region.cost);
        self.active_lane_slots += u64::from(region.cost) * u64::from(active_lanes);
    }

    fn merge(&mut self, other: &Self) {
        if self.name.is_empty() {
            self.name = other.name;
        }
        self.issues += other.issues;
        self.issue_slots += other.issue_slots;
        self.active_lane_slots += other.active_lane_slots;
    }

    /// Useful lane-instructions per issued instruction (0 to the warp width).
    pub fn average_active_threads_per_warp(&self) -> f64 {
        ratio(self.active_lane_slots, self.issue_slots)
    }
}

/// The SIMT counters of one warp, or of many warps merged.
///
/// Plain data: print it, compare it, merge it ([`Counters::merge`]), serialize it (feature
/// `serde`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Counters {
    /// Lanes per warp of the model that counted (the denominator of SIMD efficiency).
    pub warp_width: u32,
    /// Per-region rows, indexed by [`Region::id`]: the workload's [`MAX_REGIONS`], then the
    /// strategies' [`STRATEGY_REGIONS`].
    pub regions: [RegionCounters; MAX_REGIONS + STRATEGY_REGIONS],
    /// Sum over all regions, including those whose id is out of the table.
    pub total: RegionCounters,
}

impl Counters {
    /// Empty counters for warps of `warp_width` lanes.
    pub const fn new(warp_width: u32) -> Self {
        const ZERO: RegionCounters = RegionCounters {
            name: "",
            issues: 0,
            issue_slots: 0,
            active_lane_slots: 0,
        };
        Self {
            warp_width,
            regions: [ZERO; MAX_REGIONS + STRATEGY_REGIONS],
            total: RegionCounters {
                name: "total",
                ..ZERO
            },
        }
    }

    /// Records one issue of `region` with `active_lanes` lanes on.
    #[inline]
    pub fn record(&mut self, region: Region, active_lanes: u32) {
        if let Some(row) = self.regions.get_mut(usize::from(region.id)) {
            row.record(region, active_lanes);
        }
        let name = self.total.name;
        self.total.record(region, active_lanes);
        self.total.name = name;
    }

    /// Adds another warp's counts to these.
    pub fn merge(&mut self, other: &Self) {
        for (mine, theirs) in self.regions.iter_mut().zip(other.regions.iter()) {
            mine.merge(theirs);
        }
        self.total.merge(&other.total);
    }

    /// The row of `region`, if its id is in the table.
    pub fn region(&self, region: Region) -> Option<&RegionCounters> {
        self.regions.get(usize::from(region.id))
    }

    /// Instructions issued by the warp, all regions: the papers' "instruction count".
    pub fn issue_slots(&self) -> u64 {
        self.total.issue_slots
    }

    /// Nsight Compute's `smsp__average_thread_inst_executed_per_inst_executed`: useful lanes
    /// per issued instruction, 0 to the warp width.
    pub fn average_active_threads_per_warp(&self) -> f64 {
        self.total.average_active_threads_per_warp()
    }

    /// Fraction of issued lane-slots that did useful work: average active threads divided by
    /// the warp width, 0 to 1. A warp with no issue has efficiency 1 (nothing was wasted).
    pub fn simd_efficiency(&self) -> f64 {
        if self.total.issue_slots == 0 {
            return 1.0;
        }
        ratio(
            self.total.active_lane_slots,
            self.total.issue_slots * u64::from(self.warp_width),
        )
    }

    /// SIMD efficiency of the regions in `ids` only (say, the branch paths without the votes
    /// a strategy adds).
    pub fn simd_efficiency_of(&self, regions: &[Region]) -> f64 {
        let (mut active, mut issued) = (0u64, 0u64);
        for r in regions {
            if let Some(row) = self.region(*r) {
                active += row.active_lane_slots;
                issued += row.issue_slots;
            }
        }
        if issued == 0 {
            1.0
        } else {
            ratio(active, issued * u64::from(self.warp_width))
        }
    }
}

impl Default for Counters {
    fn default() -> Self {
        Self::new(crate::WARP_SIZE)
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Region = Region::new(0, "a", 100);
    const B: Region = Region::new(1, "b", 10);

    #[test]
    fn record_weights_by_cost_and_lanes() {
        let mut c = Counters::new(32);
        c.record(A, 32);
        c.record(B, 8);
        assert_eq!(c.issue_slots(), 110);
        assert_eq!(c.total.active_lane_slots, 100 * 32 + 10 * 8);
        assert_eq!(c.region(A).map(|r| r.issues), Some(1));
        let expected = (3200.0 + 80.0) / (110.0 * 32.0);
        assert!((c.simd_efficiency() - expected).abs() < 1e-12);
        assert_eq!(c.simd_efficiency_of(&[A]), 1.0);
        assert_eq!(c.simd_efficiency_of(&[B]), 0.25);
    }

    #[test]
    fn merge_adds_rows_and_keeps_names() {
        let mut a = Counters::new(32);
        a.record(A, 4);
        let mut b = Counters::new(32);
        b.record(A, 4);
        b.record(B, 1);
        a.merge(&b);
        assert_eq!(a.region(A).map(|r| r.issues), Some(2));
        assert_eq!(a.region(B).map(|r| r.name), Some("b"));
        assert_eq!(a.total.name, "total");
        assert_eq!(a.issue_slots(), 210);
    }
}
