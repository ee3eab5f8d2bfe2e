//! An item loop with geometric (memoryless) trip counts: every item runs one trip, and after
//! each trip draws whether another follows, with probability `continue_q16 / 65536` from the
//! value the trip computed (at most `max_trips` in all). An item's trip count is thus 1 plus
//! its number of leading successes, `P(trips > t) = p^t` (mean `(1 − p^max) / (1 − p)`, about
//! `1 / (1 − p)`): a queue of jobs of which each, however long it has run, is as likely to
//! need one more step. The body is two hash rounds and a xor shifted by a data-dependent
//! amount.
//!
//! ```text
//! x = hash(item), n = 0, cap = max_trips
//! while n < cap {
//!     y = mix(x + n); x = y ^ (mix(y ^ seed) >> (y & 15)); n += 1
//!     if x >> 16 >= continue_q16 { cap = n }   // no further trip
//! }
//! output = x
//! ```
//!
//! Written for the advisor's held-out set (issue 27) after revision 5 of the model was fixed,
//! and before the advisor's predictions on it were looked at.

use reconverge_simt::Region;
use reconverge_transforms::{ItemLoop, ItemLoopRegion, ItemLoopRegions, Tally};

use super::{MIX_INSTRUCTIONS, item_hash, mix};

/// The geometric loop's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct GeometricJobs {
    /// Probability that another trip follows each trip, in units of 2^-16 (65536 and above:
    /// always, up to `max_trips`).
    pub continue_q16: u32,
    /// Trips of an item at most (0 is read as 1).
    pub max_trips: u32,
    /// Seed of the items' values.
    pub seed: u32,
}

/// One item's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct GeometricJobsState {
    /// The running value.
    pub x: u32,
    /// Trips run.
    pub n: u32,
    /// Trips the item will run: `max_trips` until a draw fails, then `n`.
    pub cap: u32,
}

/// Two rounds (`mix` with an add, `mix` with a xor: 9 each), the shift amount, the shift and
/// the xor (3), the count (1), the draw (shift, compare, select: 3).
const BODY: Region = ItemLoopRegion::Body.region(
    "two rounds, xor, draw",
    2 * (MIX_INSTRUCTIONS + 1) + 3 + 1 + 3,
);
/// The item's hash (two `mix` and a xor, 17), the cap (1), storing the output and taking the
/// next item (4).
const ITEM: Region = ItemLoopRegion::Item.region("hash, store", 17 + 1 + 4);

impl ItemLoop for GeometricJobs {
    type State = GeometricJobsState;
    type Output = u32;

    fn regions(&self) -> ItemLoopRegions {
        ItemLoopRegions::new([BODY, ITEM])
    }

    #[inline]
    fn start(&self, item: u32) -> GeometricJobsState {
        GeometricJobsState {
            x: item_hash(self.seed, item),
            n: 0,
            cap: self.max_trips.max(1),
        }
    }

    #[inline]
    fn running(&self, s: &GeometricJobsState) -> bool {
        s.n < s.cap
    }

    #[inline]
    fn body<T: Tally>(&self, s: &mut GeometricJobsState, _: &mut T) {
        let y = mix(s.x.wrapping_add(s.n));
        s.x = y ^ (mix(y ^ self.seed) >> (y & 15));
        s.n += 1;
        if (s.x >> 16) >= self.continue_q16 {
            s.cap = s.n;
        }
    }

    #[inline]
    fn finish(&self, s: &GeometricJobsState) -> u32 {
        s.x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::held_out::{GEOMETRIC_JOBS, GEOMETRIC_JOBS_ITEMS};

    /// Item `item`'s trip count, by running its loop.
    fn trips(w: &GeometricJobs, item: u32) -> u32 {
        let mut t = reconverge_transforms::NoTally;
        let mut s = w.start(item);
        while w.running(&s) {
            w.body(&mut s, &mut t);
        }
        s.n
    }

    #[test]
    fn trips_are_geometric_with_the_stated_mean_and_tail() {
        extern crate std;
        let w = GEOMETRIC_JOBS;
        let p = f64::from(w.continue_q16) / 65536.0;
        let n = 1u32 << 18;
        let step = GEOMETRIC_JOBS_ITEMS / n;
        let counts: std::vec::Vec<u32> = (0..n).map(|i| trips(&w, i * step)).collect();
        assert!(counts.iter().all(|&t| (1..=w.max_trips).contains(&t)));
        // Mean (1 − p^max) / (1 − p) ≈ 20.0; a geometric law's standard deviation is
        // √p / (1 − p) ≈ 19.5, so the sample mean's is 19.5 / 512 ≈ 0.04.
        let expected = (1.0 - p.powi(w.max_trips as i32)) / (1.0 - p);
        let mean = counts.iter().map(|&t| f64::from(t)).sum::<f64>() / f64::from(n);
        assert!((19.9..20.1).contains(&expected), "{expected}");
        assert!((mean - expected).abs() < 0.3, "mean {mean} vs {expected}");
        // The tail: P(trips > t) = p^t, checked where it is 50 %, 4.6 % and 0.6 % (each
        // count within about 5 binomial standard deviations).
        for t in [14, 60, 100] {
            let over = counts.iter().filter(|&&c| c > t).count() as f64;
            let want = p.powi(t as i32) * f64::from(n);
            let sd = (want * (1.0 - want / f64::from(n))).sqrt();
            assert!(
                (over - want).abs() < 5.0 * sd,
                "P(trips > {t}): {over} vs {want}"
            );
        }
        // Memoryless: of the items past 20 trips, the share past 40 is P(trips > 20) again.
        let past = |t: u32| counts.iter().filter(|&&c| c > t).count() as f64;
        let (p20, p40_given_20) = (past(20) / f64::from(n), past(40) / past(20));
        assert!((p20 - p40_given_20).abs() < 0.02, "{p20} vs {p40_given_20}");
    }

    #[test]
    fn the_cap_and_the_extremes_hold() {
        let w = GEOMETRIC_JOBS;
        let always = GeometricJobs {
            continue_q16: 1 << 16,
            max_trips: 37,
            ..w
        };
        let never = GeometricJobs {
            continue_q16: 0,
            ..w
        };
        assert!((0..500).all(|i| trips(&always, i) == 37 && trips(&never, i) == 1));
    }

    #[test]
    fn reference_runs_each_trip() {
        let w = GEOMETRIC_JOBS;
        for item in [0, 5, 77, 4096] {
            let (mut x, mut n) = (item_hash(w.seed, item), 0u32);
            loop {
                let y = mix(x.wrapping_add(n));
                x = y ^ (mix(y ^ w.seed) >> (y & 15));
                n += 1;
                if n == w.max_trips || (x >> 16) >= w.continue_q16 {
                    break;
                }
            }
            assert_eq!(w.run_item(item), x, "item {item}");
            assert_eq!(trips(&w, item), n);
        }
    }
}
