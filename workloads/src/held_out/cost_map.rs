//! An image-like, spatially correlated cost map: item `i` is pixel `(i % width, i / width)`,
//! and its iteration count comes from a smooth map, a few cone-shaped bumps over a flat floor
//! (`base_iterations` far from them, up to about `peak_iterations` on a bump's centre), so that
//! neighbouring pixels cost about the same and whole regions of the image are expensive, as in
//! a rendered scene or an adaptive simulation. Each iteration runs a costly shading path when
//! a pseudo-random byte falls below the pixel's heat (up to 50 % in the bumps' cores, never on
//! the floor): in hot regions the lanes of a warp disagree.
//!
//! ```text
//! x = hash(pixel), left = iterations(x, y), heat = heat(x, y), acc = 0
//! while left > 0 {
//!     if (x & 255) < heat { repeat 4: x = mix(x ^ acc) }   // taken: shading
//!     else                { x = x * 0x9E3779B1 + 1 }       // not taken
//!     acc += x >> 3; left -= 1
//! }
//! output = acc
//! ```

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::{MIX_INSTRUCTIONS, item_hash, mix};

/// Bumps of the map.
pub const BUMPS: u32 = 5;
/// Shading rounds of the costly path.
pub const SHADE_ROUNDS: u32 = 4;

/// The cost map's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct CostMap {
    /// Pixels per row (0 is read as 1).
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Iterations of a pixel far from every bump (at least 1).
    pub base_iterations: u32,
    /// Iterations added at a bump's centre, at most (a bump's height is 1/2 to 1 of it).
    pub peak_iterations: u32,
    /// Seed of the bumps' places and the pixels' values.
    pub seed: u32,
}

/// One pixel's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct CostMapState {
    /// The running value.
    pub x: u32,
    /// Iterations left.
    pub left: u32,
    /// Threshold of the costly path, 0 to 128 of 256.
    pub heat: u32,
    /// Sum of the values.
    pub acc: u32,
}

impl CostMap {
    /// Bump `k`: centre `(cx, cy)`, radius (Manhattan) and height in iterations.
    #[inline]
    pub fn bump(&self, k: u32) -> (u32, u32, u32, u32) {
        let (w, h) = (self.width.max(1), self.height.max(1));
        let a = item_hash(self.seed, 0x1000 + 4 * k);
        let b = item_hash(self.seed, 0x1001 + 4 * k);
        let c = item_hash(self.seed, 0x1002 + 4 * k);
        let d = item_hash(self.seed, 0x1003 + 4 * k);
        let radius = (w.min(h) / 16).max(1) + c % (w.min(h) / 5).max(1);
        let height = self.peak_iterations / 2 + d % (self.peak_iterations / 2).max(1);
        (a % w, b % h, radius, height)
    }

    /// Pixel `item`'s iteration count and heat (threshold of the costly path, of 256).
    #[inline]
    pub fn cost(&self, item: u32) -> (u32, u32) {
        let w = self.width.max(1);
        let (px, py) = (item % w, item / w);
        let (mut extra, mut heat) = (0u32, 0u32);
        for k in 0..BUMPS {
            let (cx, cy, r, h) = self.bump(k);
            let d = px.abs_diff(cx) + py.abs_diff(cy);
            if d < r {
                // A cone: height h at the centre, 0 at the rim. u64: h · r may pass 2^32.
                let up = (u64::from(h) * u64::from(r - d) / u64::from(r)) as u32;
                extra = extra.saturating_add(up);
                heat = heat.max(128 * (r - d) / r);
            }
        }
        (self.base_iterations.max(1).saturating_add(extra), heat)
    }
}

const CONDITION: Region = LoopRegion::Condition.region("x & 255 < heat?", 2);
const TAKEN: Region = LoopRegion::Taken.region("shading", SHADE_ROUNDS * (MIX_INSTRUCTIONS + 1));
const NOT_TAKEN: Region = LoopRegion::NotTaken.region("step", 2);
const AFTER_BRANCH: Region = LoopRegion::AfterBranch.region("acc, left", 3);
const ITEM: Region = LoopRegion::Item.region("map, store", 20 + 14 * BUMPS);

impl BranchLoop for CostMap {
    type State = CostMapState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([CONDITION, TAKEN, NOT_TAKEN, AFTER_BRANCH, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> CostMapState {
        let (left, heat) = self.cost(item);
        CostMapState {
            x: item_hash(self.seed, item),
            left,
            heat,
            acc: 0,
        }
    }

    #[inline]
    fn running(&self, s: &CostMapState) -> bool {
        s.left > 0
    }

    #[inline]
    fn condition(&self, s: &mut CostMapState) -> bool {
        (s.x & 255) < s.heat
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut CostMapState, _: &mut T) {
        let mut x = s.x;
        for _ in 0..SHADE_ROUNDS {
            x = mix(x ^ s.acc);
        }
        s.x = x;
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut CostMapState, _: &mut T) {
        s.x = s.x.wrapping_mul(0x9E37_79B1).wrapping_add(1);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut CostMapState, _: &mut T) {
        s.acc = s.acc.wrapping_add(s.x >> 3);
        s.left -= 1;
    }

    #[inline]
    fn finish(&self, s: &CostMapState) -> u32 {
        s.acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held_out::{COST_MAP, COST_MAP_ITEMS, step_item};

    #[test]
    fn cost_is_spatially_correlated_and_varies_widely() {
        let w = COST_MAP;
        let (mut lo, mut hi, mut jumps) = (u32::MAX, 0, 0u64);
        for item in 0..COST_MAP_ITEMS {
            let (c, heat) = w.cost(item);
            assert!(heat <= 128);
            lo = lo.min(c);
            hi = hi.max(c);
            // Neighbours along a row differ by at most a few iterations (cone slopes).
            if item % w.width != 0 {
                jumps += u64::from(c.abs_diff(w.cost(item - 1).0));
            }
        }
        assert_eq!(lo, w.base_iterations);
        assert!(hi >= 50 * lo, "{lo} to {hi}");
        let mean_jump = jumps as f64 / f64::from(COST_MAP_ITEMS);
        assert!(mean_jump < 5.0, "mean step between neighbours {mean_jump}");
    }

    #[test]
    fn reference_runs_the_map_and_heat_matters() {
        let w = COST_MAP;
        let (cx, cy, _, _) = w.bump(0);
        let centre = cy * w.width + cx;
        let (c, heat) = w.cost(centre);
        assert!(c > w.base_iterations + w.peak_iterations / 2 - 1);
        assert!(heat >= 120);
        let (s, _, taken) = step_item(&w, centre);
        assert_eq!(w.finish(&s), w.run_item(centre));
        // Heat ~128/256: about half of the iterations shade.
        assert!(taken > c / 4 && taken < 3 * c / 4, "{taken} of {c}");
    }
}
