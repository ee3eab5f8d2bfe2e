//! How good the advisor's predictions are, given measurements: rank correlation and how
//! often the pick is near the measured best.
//!
//! A [`Point`] is one workload setting: every strategy's predicted speedup (from [`advise`])
//! beside its measured one (from a backend). [`spearman`] ranks predictions against
//! measurements (ties get their mean rank, so Spearman's ρ is Pearson's r of the ranks), and
//! [`Point::pick_within`] says whether the strategy predicted fastest measured within a
//! tolerance of the fastest measured.
//!
//! [`advise`]: crate::advise

use reconverge_transforms::Strategy;

/// One strategy's predicted and measured speedup over the baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    /// The strategy.
    pub strategy: Strategy,
    /// The advisor's predicted speedup.
    pub predicted: f64,
    /// The measured speedup.
    pub measured: f64,
}

/// One workload setting: every strategy that both predicted and ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The strategies, the baseline included (1.0 in both columns).
    pub scored: Vec<Scored>,
}

impl Point {
    /// The strategy predicted fastest (the first on a tie, as [`crate::Advice::recommended`]).
    pub fn pick(&self) -> Option<&Scored> {
        self.fastest_by(|s| s.predicted)
    }

    /// The strategy measured fastest.
    pub fn measured_best(&self) -> Option<&Scored> {
        self.fastest_by(|s| s.measured)
    }

    /// The strategy whose `speedup` is highest, the first on a tie.
    fn fastest_by(&self, speedup: impl Fn(&Scored) -> f64) -> Option<&Scored> {
        self.scored
            .iter()
            .fold(None, |best: Option<&Scored>, s| match best {
                Some(b) if speedup(b) >= speedup(s) => Some(b),
                _ => Some(s),
            })
    }

    /// Whether the pick's measured speedup is within `tolerance` (0.05: 5 %) of the best
    /// measured: `pick ≥ (1 − tolerance) · best`. `None` for a point with no strategies.
    pub fn pick_within(&self, tolerance: f64) -> Option<bool> {
        let pick = self.pick()?;
        let best = self.measured_best()?;
        Some(pick.measured >= (1.0 - tolerance) * best.measured)
    }
}

/// Ranks of `v`, 1 for the smallest; tied values share the mean of their ranks.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        // Positions i..=j hold equal values: ranks i+1..=j+1, mean (i+j)/2 + 1.
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation of `(predicted, measured)` pairs: Pearson's correlation of
/// their ranks, ties at mean rank. `None` with fewer than two pairs, a non-finite value, or
/// when either side is constant (no ranking to compare).
pub fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 2 || pairs.iter().any(|(a, b)| !a.is_finite() || !b.is_finite()) {
        return None;
    }
    let a = ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let b = ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(&b) {
        cov += (x - ma) * (y - mb);
        va += (x - ma) * (x - ma);
        vb += (y - mb) * (y - mb);
    }
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

/// Spearman's ρ over every strategy of every point together.
pub fn spearman_of(points: &[Point]) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = points
        .iter()
        .flat_map(|p| p.scored.iter().map(|s| (s.predicted, s.measured)))
        .collect();
    spearman(&pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_matches_worked_examples() {
        // Perfect agreement and perfect reversal.
        let up: Vec<(f64, f64)> = (0..6).map(|i| (f64::from(i), f64::from(i * i))).collect();
        assert_eq!(spearman(&up), Some(1.0));
        let down: Vec<(f64, f64)> = (0..6).map(|i| (f64::from(i), -f64::from(i))).collect();
        assert_eq!(spearman(&down), Some(-1.0));
        // Without ties ρ = 1 − 6 Σd² / (n (n² − 1)): ranks (1,2,3,4,5) against (2,1,4,3,5),
        // Σd² = 4, ρ = 1 − 24/120 = 0.8.
        let p = [
            (1.0, 20.0),
            (2.0, 10.0),
            (3.0, 40.0),
            (4.0, 30.0),
            (5.0, 50.0),
        ];
        assert!((spearman(&p).unwrap() - 0.8).abs() < 1e-12);
        // scipy.stats.spearmanr([1, 2, 2, 3], [1, 3, 2, 4]) = 0.9486832980505138 (ties at
        // mean rank 2.5).
        let t = [(1.0, 1.0), (2.0, 3.0), (2.0, 2.0), (3.0, 4.0)];
        assert!((spearman(&t).unwrap() - 0.948_683_298_050_513_8).abs() < 1e-12);
        assert_eq!(spearman(&[(1.0, 1.0)]), None);
        assert_eq!(spearman(&[(1.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(spearman(&[(1.0, f64::NAN), (2.0, 2.0)]), None);
    }

    #[test]
    fn pick_within_compares_the_pick_with_the_measured_best() {
        let s = |strategy, predicted, measured| Scored {
            strategy,
            predicted,
            measured,
        };
        let point = Point {
            scored: vec![
                s(Strategy::BASELINE, 1.0, 1.0),
                s(Strategy::DYNAMIC_WORK_ASSIGNMENT, 1.5, 1.20),
                s(Strategy::BRANCH_DISTRIBUTION, 1.2, 1.25),
            ],
        };
        assert_eq!(
            point.pick().unwrap().strategy,
            Strategy::DYNAMIC_WORK_ASSIGNMENT
        );
        assert_eq!(
            point.measured_best().unwrap().strategy,
            Strategy::BRANCH_DISTRIBUTION
        );
        // 1.20 ≥ 0.95 · 1.25 = 1.1875, but not ≥ 0.97 · 1.25 = 1.2125.
        assert_eq!(point.pick_within(0.05), Some(true));
        assert_eq!(point.pick_within(0.03), Some(false));
        assert_eq!(Point { scored: vec![] }.pick_within(0.05), None);
    }
}
