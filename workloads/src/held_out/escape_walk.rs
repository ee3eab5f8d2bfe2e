//! A random walk per item until it leaves a disc: item `i` walks on the integer lattice from
//! the origin, one unit step per iteration in a direction drawn from a hash, until it is at
//! least `radius` from the origin (or `cap_factor · radius²` steps have run). The radius is
//! one of four, drawn per band of `band_items` consecutive items, so neighbouring items (an
//! image's rows) share their expected length (about `radius²` steps, an exponential-like tail
//! around it) while bands differ 64-fold. An eighth of the steps, unpredictably, take a costly
//! path (`scatter_rounds` hash rounds, a new direction bias).
//!
//! ```text
//! x = y = 0, h = hash(item), r = radius(band(item)), left = cap_factor · r²
//! while x² + y² < r² and left > 0 {
//!     if h & 7 == 0 { repeat scatter_rounds: h = mix(h + 1) }   // taken: the costly path
//!     else          { h = mix(h) }                              // not taken
//!     step x or y by ±1 from h's bits 3-4; left -= 1            // after the branch
//! }
//! output = (x, y) folded into one word
//! ```
//!
//! Written for the advisor's held-out set (issue 27) after the five before it had been
//! scored, during revision 3 of the model (after its claims cost and larger samples, before
//! its per-item reconvergence), and before the advisor's predictions on it were looked at.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::{MIX_INSTRUCTIONS, item_hash, mix, mix_rounds, mix_rounds_instructions};

/// The walk's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct EscapeWalk {
    /// The smallest of the four radii, at least 1; the others are 2, 4 and 8 times it.
    pub min_radius: u32,
    /// Items sharing one radius (a band), at least 1.
    pub band_items: u32,
    /// Steps allowed per item, in units of `radius²`.
    pub cap_factor: u32,
    /// Hash rounds of the costly path.
    pub scatter_rounds: u32,
    /// Seed of the items' walks and the bands' radii.
    pub seed: u32,
}

/// One item's walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct EscapeWalkState {
    /// Position, x.
    pub x: i32,
    /// Position, y.
    pub y: i32,
    /// The walk's running hash.
    pub h: u32,
    /// Squared radius to leave.
    pub r2: u32,
    /// Steps left.
    pub left: u32,
}

impl EscapeWalk {
    /// Item `item`'s radius: `min_radius · 2^k`, `k` in 0..4 drawn per band.
    #[inline]
    pub fn radius(&self, item: u32) -> u32 {
        let band = item / self.band_items.max(1);
        let k = item_hash(self.seed ^ 0xba4d, band) & 3;
        self.min_radius.clamp(1, 1 << 12) << k
    }
}

const CONDITION: Region = LoopRegion::Condition.region("h & 7 == 0?", 2);
const TAKEN: Region = LoopRegion::Taken.region("scatter rounds", 0);
const NOT_TAKEN: Region = LoopRegion::NotTaken.region("one round", MIX_INSTRUCTIONS);
const AFTER_BRANCH: Region = LoopRegion::AfterBranch.region("step, distance", 10);
const ITEM: Region = LoopRegion::Item.region("radius, store", 26);

impl BranchLoop for EscapeWalk {
    type State = EscapeWalkState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        let taken = TAKEN.with_cost(mix_rounds_instructions(self.scatter_rounds));
        LoopRegions::new([CONDITION, taken, NOT_TAKEN, AFTER_BRANCH, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> EscapeWalkState {
        let r = self.radius(item);
        let r2 = r.saturating_mul(r);
        EscapeWalkState {
            x: 0,
            y: 0,
            h: item_hash(self.seed, item),
            r2,
            left: r2.saturating_mul(self.cap_factor.max(1)),
        }
    }

    #[inline]
    fn running(&self, s: &EscapeWalkState) -> bool {
        let d2 = (s.x.unsigned_abs()).wrapping_mul(s.x.unsigned_abs())
            + (s.y.unsigned_abs()).wrapping_mul(s.y.unsigned_abs());
        d2 < s.r2 && s.left > 0
    }

    #[inline]
    fn condition(&self, s: &mut EscapeWalkState) -> bool {
        s.h & 7 == 0
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut EscapeWalkState, _: &mut T) {
        s.h = mix_rounds(s.h, self.scatter_rounds);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut EscapeWalkState, _: &mut T) {
        s.h = mix(s.h);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut EscapeWalkState, _: &mut T) {
        let step = if s.h & 16 == 0 { 1 } else { -1 };
        if s.h & 8 == 0 {
            s.x = s.x.wrapping_add(step);
        } else {
            s.y = s.y.wrapping_add(step);
        }
        s.left -= 1;
    }

    #[inline]
    fn finish(&self, s: &EscapeWalkState) -> u32 {
        (s.x as u32).wrapping_mul(0x9E37_79B9) ^ (s.y as u32)
    }
}

#[cfg(test)]
mod tests {
    use crate::held_out::{ESCAPE_WALK, ESCAPE_WALK_ITEMS, step_item};

    #[test]
    fn walks_end_at_the_circle_or_the_cap_and_bands_share_a_radius() {
        let w = ESCAPE_WALK;
        // Neighbours in a band share the radius; the four radii all occur.
        assert_eq!(w.radius(0), w.radius(w.band_items - 1));
        let r0 = w.min_radius;
        let seen = (0..ESCAPE_WALK_ITEMS)
            .step_by(w.band_items as usize)
            .fold(0u32, |seen, i| seen | (w.radius(i) / r0));
        assert_eq!(seen, 1 | 2 | 4 | 8);
        // A finished walk is outside its circle unless it ran out of steps. A walk of unit
        // steps has E|X_n|² = n, so it leaves a disc of radius r after about r² steps: over
        // radii r0 · {1, 2, 4, 8} in equal shares the mean is about 21 r0².
        let mut steps_total = 0u64;
        for item in (0..ESCAPE_WALK_ITEMS).step_by(997) {
            let (s, steps, _) = step_item(&w, item);
            let d2 = (s.x * s.x + s.y * s.y) as u32;
            assert!(d2 >= s.r2 || s.left == 0, "item {item}");
            steps_total += u64::from(steps);
        }
        let mean = steps_total as f64 / f64::from(ESCAPE_WALK_ITEMS.div_ceil(997));
        let expected = 21.25 * f64::from(r0 * r0);
        assert!((0.7 * expected..1.3 * expected).contains(&mean), "{mean}");
    }
}
