//! An escape-time image (the Mandelbrot set) with a rare, costly refinement branch.
//!
//! Item `i` is pixel `(x, y) = (i % width, i / width)`, the point
//! `c = (x0 + x · step, y0 + y · step)`. Its loop iterates `z ← z² + c` from `z = 0` until
//! `|z|² > 4` or `max_iter` iterations:
//!
//! ```text
//! z = 0, |z|² = 0, iter = 0, hash = 0
//! while iter < max_iter && |z|² <= 4 {
//!     if band_lo < |z|² <= band_hi {      // rare: the orbit is in a narrow band
//!         hash = fold(hash, refine(z, c))  // taken: 8 rotations, 64 dependent f32 mul/add
//!     }
//!     z = z² + c                           // both paths (the not-taken path is only this)
//!     |z|² = zr² + zi²; iter += 1          // after the branch
//! }
//! output = (iter & 0xFFFF) | (hash & 0xFFFF_0000)
//! ```
//!
//! The refinement runs 8 steps of a contracting rotation `(a, b) ← R·(a, b) + c / 8` with
//! `R = [[9/16, −3/4], [3/4, 9/16]]` (norm 15/16) from `(a, b) = z`, and folds the bits of the
//! result into an order-sensitive hash. It does not move the orbit, but its bits are in the
//! output, so no compiler can drop it and a strategy that ran it on the wrong iteration is
//! caught. Its values stay bounded (`|z| <= 2` inside the band, the rotation contracts), so it
//! never makes an infinity or a NaN, whose bits IEEE 754 leaves open.
//!
//! Only `+`, `-`, `*` and comparisons on f32, never fused (rustc does not contract `a * b + c`;
//! CUDA C++ needs `-fmad=false`), and exact conversions of pixel coordinates below 2^24: every
//! backend gives the same bits.
//!
//! # Where the costly branch runs
//!
//! With the default band `0.24 < |z|² <= 0.25` the branch catches the orbits that settle just
//! inside the main cardioid's edge, where the attracting fixed point has `|z*| → 1/2`: those
//! pixels take the costly path in almost every one of their `max_iter` iterations, while most
//! pixels take it never or once in passing. On [`super::ESCAPE_TIME`] (1024 × 768, 512
//! iterations) about 1.5 % of all iterations take it, and pixels cost from 1 iteration (far
//! outside) to 512 (inside the set).

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegion, LoopRegions, Tally};

/// Steps of the refinement's rotation (8 instructions each).
pub const REFINE_STEPS: u32 = 8;
/// The rotation's diagonal, 9/16 (exact in f32).
pub const ROT_COS: f32 = 0.5625;
/// The rotation's off-diagonal, 3/4 (exact in f32).
pub const ROT_SIN: f32 = 0.75;

/// The band test: two comparisons and an `and`.
pub const CONDITION: Region = LoopRegion::Condition.region("|z|² in the band?", 3);
/// The refinement (8 × 8 f32 instructions, `c / 8`, the hash) and the step `z ← z² + c`.
pub const TAKEN: Region = LoopRegion::Taken.region("refine + z² + c", 80);
/// The step `z ← z² + c`: 3 multiplies, 4 adds.
pub const NOT_TAKEN: Region = LoopRegion::NotTaken.region("z² + c", 7);
/// `|z|²` (2 multiplies, 1 add) and the iteration count.
pub const AFTER_BRANCH: Region = LoopRegion::AfterBranch.region("|z|², count", 4);
/// Pixel coordinates from the item (a division), `c`, and storing the output.
pub const ITEM: Region = LoopRegion::Item.region("pixel / store", 16);

/// The escape-time image's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct EscapeTime {
    /// Pixels per row (item `i` is pixel `(i % width, i / width)`; 0 is read as 1).
    pub width: u32,
    /// Rows (the image has `width · height` items; items beyond are further rows).
    pub height: u32,
    /// Iterations after which a pixel counts as inside the set.
    pub max_iter: u32,
    /// Real part of pixel `(0, 0)`'s point `c`.
    pub x0: f32,
    /// Imaginary part of pixel `(0, 0)`'s point `c`.
    pub y0: f32,
    /// Distance between neighbouring pixels in the complex plane.
    pub step: f32,
    /// The costly branch runs while `band_lo < |z|² <= band_hi`.
    pub band_lo: f32,
    /// See [`band_lo`](Self::band_lo).
    pub band_hi: f32,
}

/// One pixel's orbit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct EscapeState {
    /// Real part of `c`.
    pub cr: f32,
    /// Imaginary part of `c`.
    pub ci: f32,
    /// Real part of `z`.
    pub zr: f32,
    /// Imaginary part of `z`.
    pub zi: f32,
    /// `|z|²`.
    pub mag2: f32,
    /// Iterations run.
    pub iter: u32,
    /// Order-sensitive hash of the refinements' results.
    pub hash: u32,
}

impl EscapeTime {
    /// Pixel `(x, y)`'s point `c` (exact conversions for coordinates below 2^24).
    #[inline]
    pub fn point(&self, item: u32) -> (f32, f32) {
        let w = self.width.max(1);
        let (x, y) = (item % w, item / w);
        (
            self.x0 + x as f32 * self.step,
            self.y0 + y as f32 * self.step,
        )
    }

    /// Item `item` run as one plain scalar loop.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

/// `z ← z² + c` in plain mul and add (`2 · zr · zi` as `zr · zi + zr · zi`: 3 multiplies,
/// 4 adds).
#[inline(always)]
fn step(s: &mut EscapeState) {
    let zr2 = s.zr * s.zr;
    let zi2 = s.zi * s.zi;
    let zri = s.zr * s.zi;
    s.zr = zr2 - zi2 + s.cr;
    s.zi = zri + zri + s.ci;
}

/// The refinement: [`REFINE_STEPS`] steps of `(a, b) ← R·(a, b) + c / 8` from `(a, b) = z`.
#[inline(always)]
pub fn refine(zr: f32, zi: f32, cr: f32, ci: f32) -> (f32, f32) {
    let kr = cr * 0.125;
    let ki = ci * 0.125;
    let (mut a, mut b) = (zr, zi);
    for _ in 0..REFINE_STEPS {
        let na = a * ROT_COS - b * ROT_SIN + kr;
        let nb = a * ROT_SIN + b * ROT_COS + ki;
        a = na;
        b = nb;
    }
    (a, b)
}

/// Folds a refinement's result into the hash (order-sensitive).
#[inline(always)]
pub fn fold(hash: u32, a: f32, b: f32) -> u32 {
    let h = (hash.rotate_left(5) ^ a.to_bits()).wrapping_mul(0x9E37_79B1);
    (h ^ b.to_bits()).wrapping_mul(0x85EB_CA77)
}

impl BranchLoop for EscapeTime {
    type State = EscapeState;
    /// The iteration count in the low 16 bits, the refinement hash's high half above.
    type Output = u32;

    fn regions(&self) -> LoopRegions {
        LoopRegions::new([CONDITION, TAKEN, NOT_TAKEN, AFTER_BRANCH, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> EscapeState {
        let (cr, ci) = self.point(item);
        EscapeState {
            cr,
            ci,
            zr: 0.0,
            zi: 0.0,
            mag2: 0.0,
            iter: 0,
            hash: 0,
        }
    }

    #[inline]
    fn running(&self, s: &EscapeState) -> bool {
        s.iter < self.max_iter && s.mag2 <= 4.0
    }

    #[inline]
    fn condition(&self, s: &mut EscapeState) -> bool {
        s.mag2 > self.band_lo && s.mag2 <= self.band_hi
    }

    #[inline]
    fn taken<T: Tally>(&self, s: &mut EscapeState, _: &mut T) {
        let (a, b) = refine(s.zr, s.zi, s.cr, s.ci);
        s.hash = fold(s.hash, a, b);
        step(s);
    }

    #[inline]
    fn not_taken<T: Tally>(&self, s: &mut EscapeState, _: &mut T) {
        step(s);
    }

    #[inline]
    fn after_branch<T: Tally>(&self, s: &mut EscapeState, _: &mut T) {
        s.mag2 = s.zr * s.zr + s.zi * s.zi;
        s.iter += 1;
    }

    #[inline]
    fn finish(&self, s: &EscapeState) -> u32 {
        (s.iter & 0xFFFF) | (s.hash & 0xFFFF_0000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{ESCAPE_TIME, ESCAPE_TIME_ITEMS};
    use reconverge_transforms::NoTally;

    /// Runs item `item` and returns (iterations, iterations that took the costly branch).
    fn counts(w: &EscapeTime, item: u32) -> (u32, u32) {
        let mut s = w.start(item);
        let (mut iters, mut taken) = (0, 0);
        while w.running(&s) {
            if w.condition(&mut s) {
                w.taken(&mut s, &mut NoTally);
                taken += 1;
            } else {
                w.not_taken(&mut s, &mut NoTally);
            }
            w.after_branch(&mut s, &mut NoTally);
            iters += 1;
        }
        assert_eq!(w.finish(&s), w.reference(item));
        (iters, taken)
    }

    /// The item of the pixel whose point is `(re, im)`, which must lie on the pixel grid.
    fn item_at(w: &EscapeTime, re: f32, im: f32) -> u32 {
        let x = (re - w.x0) / w.step;
        let y = (im - w.y0) / w.step;
        assert_eq!(x, x.trunc());
        assert_eq!(y, y.trunc());
        let item = y as u32 * w.width + x as u32;
        assert_eq!(w.point(item), (re, im));
        item
    }

    #[test]
    fn points_inside_the_set_run_to_max_iter() {
        let w = ESCAPE_TIME;
        // c = 0 (the main cardioid's centre, z stays 0), c = -1 (the period-2 bulb's centre,
        // z cycles 0, -1) and c = -0.25 + 0.25i (inside the main cardioid: the cardioid test
        // q(q + x - 1/4) <= y²/4 with q = (x - 1/4)² + y² holds, -0.059 <= 0.016).
        for (re, im) in [(0.0, 0.0), (-1.0, 0.0), (-0.25, 0.25)] {
            let (iters, _) = counts(&w, item_at(&w, re, im));
            assert_eq!(iters, w.max_iter, "c = {re} + {im}i");
            assert_eq!(w.reference(item_at(&w, re, im)) & 0xFFFF, w.max_iter);
        }
    }

    #[test]
    fn far_points_escape_at_once() {
        let w = ESCAPE_TIME;
        // Pixel (0, 0): c = -2.5 - 1.5i, |c|² = 8.5 > 4 after the first iteration (z = c).
        assert_eq!(counts(&w, 0), (1, 0));
        // c = 1: z = 1, 2, 5: |z|² = 4 is not > 4, so it escapes after the third iteration.
        assert_eq!(counts(&w, item_at(&w, 1.0, 0.0)).0, 3);
        // c = 1 + 1i: z = 1 + i (|z|² = 2), then 1 + 3i (|z|² = 10).
        assert_eq!(counts(&w, item_at(&w, 1.0, 1.0)).0, 2);
    }

    #[test]
    fn refinement_changes_the_output() {
        let w = ESCAPE_TIME;
        let no_band = EscapeTime {
            band_lo: 10.0,
            band_hi: 10.0,
            ..w
        };
        // Every 97th pixel: the refinement never moves the orbit, and pixels that took the
        // costly branch have another output without it (all but a few: a 16-bit hash half).
        let mut differing = 0;
        for item in (0..ESCAPE_TIME_ITEMS).step_by(97) {
            let (iters, taken) = counts(&w, item);
            let with = w.reference(item);
            let without = no_band.reference(item);
            assert_eq!(with & 0xFFFF, without & 0xFFFF, "the orbit does not move");
            assert_eq!(with & 0xFFFF, iters);
            if taken > 0 {
                differing += u32::from(with != without);
            } else {
                assert_eq!(with, without);
            }
        }
        assert!(differing > 50, "{differing}");
    }

    #[test]
    fn cost_varies_and_the_costly_branch_is_rare() {
        let w = ESCAPE_TIME;
        let (mut min, mut max) = (u32::MAX, 0);
        let (mut iters, mut taken, mut heavy) = (0u64, 0u64, 0u32);
        for item in 0..ESCAPE_TIME_ITEMS {
            let (i, t) = counts(&w, item);
            min = min.min(i);
            max = max.max(i);
            iters += u64::from(i);
            taken += u64::from(t);
            heavy += u32::from(t >= 64);
        }
        assert!(min >= 1);
        assert!(max >= 50 * min, "iterations per pixel {min} to {max}");
        let share = taken as f64 / iters as f64;
        assert!(
            (0.001..=0.1).contains(&share),
            "costly branch in {share} of iterations"
        );
        // Heavy where it happens: some pixels take it in many iterations.
        assert!(
            heavy > 100,
            "{heavy} pixels take the costly branch 64 times or more"
        );
    }

    #[test]
    fn refinement_is_bounded_and_exact_in_its_constants() {
        // 9/16 and 3/4 are exact; the rotation contracts, so a point in the band stays finite.
        assert_eq!(ROT_COS, 9.0 / 16.0);
        assert_eq!(ROT_SIN, 3.0 / 4.0);
        let (a, b) = refine(2.0, -2.0, 3.0, -3.0);
        assert!(a.is_finite() && b.is_finite() && a.abs() < 8.0 && b.abs() < 8.0);
    }
}
