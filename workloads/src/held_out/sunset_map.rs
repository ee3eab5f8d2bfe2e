//! An image-like, spatially correlated cost map that darkens toward its bottom: item `i` is
//! pixel `(i % width, i / width)`, and its iteration count is a floor (`base_iterations`) plus a
//! term that rises with the row as `(y / height)²` (about `peak_iterations` on the bottom row,
//! almost nothing on the top one) plus a ridge along the diagonal `x ≈ y · width / height`: a
//! smooth bump across it, `ridge_iterations · (1 − (d / half)²)²` at horizontal distance `d`
//! from the diagonal (`half = 2^ridge_log` pixels; nothing beyond). The work per item thus grows
//! with the item index, and a band of each row is dearer than the rest, as in a rendered scene
//! whose lower half holds the geometry or a simulation refined along a front. Each iteration
//! takes a costly path (`glow_rounds` hash rounds) when the top byte of its value falls below
//! the pixel's heat, `128 · (1 − (d / half)²)²` of 256: up to 50 % on the diagonal, never off
//! the ridge, so the lanes of a warp disagree only there.
//!
//! ```text
//! x = hash(pixel) | 1, left = iterations(x, y), heat = heat(x, y), acc = 0
//! while left > 0 {
//!     if x >> 24 < heat { x = rounds(x ^ acc, glow_rounds) | 1 }   // taken: glow
//!     else              { x = xorshift32(x) }                      // not taken
//!     acc = rotl(acc, 5) ^ x; left -= 1
//! }
//! output = acc
//! ```
//!
//! Every quantity is a 32-bit integer (12-bit fixed-point fractions of the row and of the
//! ridge's distance, products widened to 64 bits), so every backend gives the same bits.
//!
//! Written for the advisor's held-out set (issue 27) after revision 5 of the model was fixed,
//! and before the advisor's predictions on it were looked at.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

use super::{item_hash, mix_rounds, mix_rounds_instructions};

/// Largest width and height: a row's fraction `(y + 1) · 2^12 / height` and the diagonal's
/// column `fraction · width / 2^12` then fit 32 bits.
pub const MAX_SIDE: u32 = 1 << 19;
/// Bits of the fixed-point fractions (of the row, and of the distance across the ridge).
pub const FRACTION_BITS: u32 = 12;
/// Smallest `ridge_log` (the ridge's fraction `(half² − d²) >> (2 · ridge_log − 12)` then
/// shifts right).
pub const MIN_RIDGE_LOG: u32 = 6;
/// Largest `ridge_log` (`half²` then fits 32 bits).
pub const MAX_RIDGE_LOG: u32 = 15;

/// The sunset map's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SunsetMap {
    /// Pixels per row (0 is read as 1; at most [`MAX_SIDE`]).
    pub width: u32,
    /// Rows (0 is read as 1; at most [`MAX_SIDE`]). Items past `width · height` are read as
    /// the bottom row.
    pub height: u32,
    /// Iterations of a pixel of the top row far from the ridge (at least 1).
    pub base_iterations: u32,
    /// Iterations the rows add, `peak_iterations · ((y + 1) / height)²`: all of it on the
    /// bottom row.
    pub peak_iterations: u32,
    /// Iterations the ridge adds on the diagonal, falling smoothly to 0 at `2^ridge_log`
    /// pixels from it.
    pub ridge_iterations: u32,
    /// log2 of the ridge's half-width in pixels, clamped to [`MIN_RIDGE_LOG`] to
    /// [`MAX_RIDGE_LOG`].
    pub ridge_log: u32,
    /// Hash rounds of the costly path.
    pub glow_rounds: u32,
    /// Seed of the pixels' values.
    pub seed: u32,
}

/// One pixel's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SunsetMapState {
    /// The running value, never 0 (xorshift's fixed point).
    pub x: u32,
    /// Iterations left.
    pub left: u32,
    /// Threshold of the costly path, 0 to 128 of 256.
    pub heat: u32,
    /// The values folded together.
    pub acc: u32,
}

impl SunsetMap {
    /// Pixel `item`'s iteration count and heat (threshold of the costly path, of 256).
    #[inline]
    pub fn cost(&self, item: u32) -> (u32, u32) {
        let w = self.width.clamp(1, MAX_SIDE);
        let h = self.height.clamp(1, MAX_SIDE);
        let (px, py) = (item % w, (item / w).min(h - 1));
        // The row as a fraction of the height, (y + 1) / h in 12 bits (1 on the bottom row).
        let fy = ((py + 1) << FRACTION_BITS) / h;
        let fy2 = (fy * fy) >> FRACTION_BITS;
        let rows = (u64::from(self.peak_iterations) * u64::from(fy2)) >> FRACTION_BITS;
        // The ridge: the diagonal's column on this row, the distance to it (cut at half), and
        // the bump (1 − (d / half)²)² in 12 bits.
        let diagonal = (fy * w) >> FRACTION_BITS;
        let log = self.ridge_log.clamp(MIN_RIDGE_LOG, MAX_RIDGE_LOG);
        let half = 1u32 << log;
        let d = px.abs_diff(diagonal).min(half);
        let across = (half * half - d * d) >> (2 * log - FRACTION_BITS);
        let bump = (across * across) >> FRACTION_BITS;
        let ridge = (u64::from(self.ridge_iterations) * u64::from(bump)) >> FRACTION_BITS;
        // Both terms are at most their parameter (a fraction of 2^12 at most 1): they fit.
        let iterations = self
            .base_iterations
            .max(1)
            .saturating_add(rows as u32)
            .saturating_add(ridge as u32);
        (iterations, bump >> 5)
    }
}

/// Instructions of [`SunsetMap::cost`], counted from its lines: clamps 4; the pixel (a division,
/// about 10 on a GPU, the remainder 2, the row's clamp 2) 14; the row's fraction (add, shift, a
/// division) 12 and its square 2; the rows' term (a wide multiply, shift) 3; the diagonal
/// (multiply, shift) 2; `ridge_log`'s clamp, `half` 3; the distance (difference, abs, min) 3;
/// `across` (two multiplies, subtract, the shift and its amount) 6; the bump 2; the ridge's
/// term 3; the sums (max, two saturating adds) 5; the heat 1.
const COST_INSTRUCTIONS: u32 = 4 + 14 + 12 + 2 + 3 + 2 + 3 + 3 + 6 + 2 + 3 + 5 + 1;

const CONDITION: Region = LoopRegion::Condition.region("x >> 24 < heat?", 2);
/// The xor with `acc` and the final `| 1` around the rounds (added in `regions`).
const TAKEN: Region = LoopRegion::Taken.region("glow rounds", 2);
/// xorshift32: three shifts, three xors.
const NOT_TAKEN: Region = LoopRegion::NotTaken.region("xorshift", 6);
/// Rotate (one funnel shift), xor, subtract.
const AFTER_BRANCH: Region = LoopRegion::AfterBranch.region("acc, left", 3);
/// The pixel's hash (two `mix` and a xor, 17) and `| 1`, the map, and storing the output and
/// taking the next item (4).
const ITEM: Region = LoopRegion::Item.region("map, store", 17 + 1 + COST_INSTRUCTIONS + 4);

impl BranchLoop for SunsetMap {
    type State = SunsetMapState;
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        let taken = TAKEN.with_cost(TAKEN.cost + mix_rounds_instructions(self.glow_rounds));
        LoopRegions::new([CONDITION, taken, NOT_TAKEN, AFTER_BRANCH, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> SunsetMapState {
        let (left, heat) = self.cost(item);
        SunsetMapState {
            x: item_hash(self.seed, item) | 1,
            left,
            heat,
            acc: 0,
        }
    }

    #[inline]
    fn running(&self, s: &SunsetMapState) -> bool {
        s.left > 0
    }

    #[inline]
    fn condition(&self, s: &mut SunsetMapState) -> bool {
        (s.x >> 24) < s.heat
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut SunsetMapState, _: &mut T) {
        s.x = mix_rounds(s.x ^ s.acc, self.glow_rounds) | 1;
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut SunsetMapState, _: &mut T) {
        let mut x = s.x;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        s.x = x;
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut SunsetMapState, _: &mut T) {
        s.acc = s.acc.rotate_left(5) ^ s.x;
        s.left -= 1;
    }

    #[inline]
    fn finish(&self, s: &SunsetMapState) -> u32 {
        s.acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held_out::{SUNSET_MAP, SUNSET_MAP_ITEMS, step_item};

    /// The map's formula in f64, written apart from the fixed-point code: rows
    /// `peak · ((y + 1) / h)²`, ridge `ridge · (1 − (d / half)²)²` for `d < half`.
    fn cost_f64(w: &SunsetMap, item: u32) -> f64 {
        let (px, py) = (f64::from(item % w.width), f64::from(item / w.width));
        let fy = (py + 1.0) / f64::from(w.height);
        let rows = f64::from(w.peak_iterations) * fy * fy;
        let half = f64::from(1u32 << w.ridge_log);
        let d = (px - fy * f64::from(w.width)).abs().min(half);
        let u = 1.0 - (d / half) * (d / half);
        f64::from(w.base_iterations) + rows + f64::from(w.ridge_iterations) * u * u
    }

    #[test]
    fn cost_follows_its_formula_rises_toward_the_bottom_and_is_smooth() {
        let w = SUNSET_MAP;
        assert_eq!(SUNSET_MAP_ITEMS, w.width * w.height);
        let quarter = SUNSET_MAP_ITEMS / 4;
        let (mut top, mut bottom, mut row_jumps, mut col_jumps) = (0u64, 0u64, 0u64, 0u64);
        let (mut lo, mut hi) = (u32::MAX, 0);
        for item in 0..SUNSET_MAP_ITEMS {
            let (c, heat) = w.cost(item);
            assert!(heat <= 128);
            // Fixed point truncates each fraction: within a few iterations of the formula.
            let exact = cost_f64(&w, item);
            assert!(
                (f64::from(c) - exact).abs() < 4.0,
                "item {item}: {c} vs {exact}"
            );
            lo = lo.min(c);
            hi = hi.max(c);
            if item < quarter {
                top += u64::from(c);
            } else if item >= SUNSET_MAP_ITEMS - quarter {
                bottom += u64::from(c);
            }
            if item % w.width != 0 {
                row_jumps += u64::from(c.abs_diff(w.cost(item - 1).0));
            }
            if item >= w.width {
                col_jumps += u64::from(c.abs_diff(w.cost(item - w.width).0));
            }
        }
        // Expected means: the rows' term over the top quarter is peak · (1/4)² / 3 ≈ 6, over
        // the bottom one peak · 37/48 ≈ 231; the ridge adds about the same to both (its bump
        // integrates to 16/15 · half of each 2048-pixel row: about 11 iterations).
        let (top, bottom) = (
            top as f64 / f64::from(quarter),
            bottom as f64 / f64::from(quarter),
        );
        assert!((15.0..30.0).contains(&top), "top quarter {top}");
        assert!((230.0..260.0).contains(&bottom), "bottom quarter {bottom}");
        assert!(bottom > 8.0 * top, "{bottom} vs {top}");
        assert_eq!(lo, w.base_iterations);
        assert!(
            hi >= w.base_iterations + w.peak_iterations + w.ridge_iterations - 8,
            "{hi}"
        );
        // Neighbours cost about the same: the steepest slope across the ridge is about
        // 1.54 · ridge / half = 1.9 iterations per pixel, 4 pixels per row down it.
        let n = f64::from(SUNSET_MAP_ITEMS);
        assert!(row_jumps as f64 / n < 1.0, "along rows {row_jumps}");
        assert!(col_jumps as f64 / n < 2.0, "down columns {col_jumps}");
    }

    #[test]
    fn heat_lies_on_the_ridge_and_the_costly_path_runs_there() {
        let w = SUNSET_MAP;
        let y = w.height / 2;
        let on = y * w.width + (y + 1) * w.width / w.height;
        let off = y * w.width + (on % w.width + w.width / 2) % w.width;
        assert_eq!(w.cost(on).1, 128);
        assert_eq!(w.cost(off).1, 0);
        let (s, iterations, taken) = step_item(&w, on);
        assert_eq!(iterations, w.cost(on).0);
        assert_eq!(w.finish(&s), w.run_item(on));
        // Heat 128 of 256: about half of the iterations glow (a binomial over ~200).
        assert!(
            taken > iterations / 3 && taken < 2 * iterations / 3,
            "{taken} of {iterations}"
        );
        let (_, _, cold) = step_item(&w, off);
        assert_eq!(cold, 0);
        // The costly path changes the output on the ridge, never off it.
        let dim = SunsetMap {
            glow_rounds: 0,
            ..w
        };
        let row = y * w.width;
        let diagonal = on % w.width;
        let near =
            (diagonal - 8..diagonal + 8).filter(|&x| w.run_item(row + x) != dim.run_item(row + x));
        assert_eq!(near.count(), 16);
        assert_eq!(w.run_item(off), dim.run_item(off));
    }

    #[test]
    fn cheap_path_is_xorshift32() {
        let w = SUNSET_MAP;
        let item = w.width - 1; // the top row's last pixel, far from the ridge: never hot
        assert_eq!(w.cost(item).1, 0);
        let (mut x, mut acc) = (item_hash(w.seed, item) | 1, 0u32);
        for _ in 0..w.cost(item).0 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            acc = acc.rotate_left(5) ^ x;
        }
        assert_eq!(w.run_item(item), acc);
    }
}
