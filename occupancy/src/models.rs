//! The speedup models of the project's seed papers.
//!
//! - Branch splitting: S. Carrillo, J. Siegel, X. Li, "Impact analysis of conditional and
//!   loop statements for the NVIDIA G80 architecture", section 4.3, equation 1.
//! - Branch distribution: T. D. Han, T. S. Abdelrahman, "Reducing branch divergence in GPU
//!   programs" (GPGPU-4, 2011), section 4.2.2.

use serde::{Deserialize, Serialize};

use crate::error::OccupancyError;

/// One branch of a kernel before splitting, for [`branch_splitting_speedup`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BranchProfile {
    /// `t_i`: the runtime of this branch in the branched (unsplit) kernel.
    pub runtime: f64,
    /// `ρ_i`: the occupancy this branch reaches when it runs as a kernel of its own (0 < ρ ≤ 1).
    pub occupancy: f64,
}

fn check_occupancy(parameter: &'static str, value: f64) -> Result<(), OccupancyError> {
    if value > 0.0 && value <= 1.0 {
        Ok(())
    } else {
        Err(OccupancyError::InvalidModelInput {
            parameter,
            value,
            expected: "an occupancy in (0, 1]",
        })
    }
}

fn check_non_negative(parameter: &'static str, value: f64) -> Result<(), OccupancyError> {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(OccupancyError::InvalidModelInput {
            parameter,
            value,
            expected: "a finite number ≥ 0",
        })
    }
}

/// Theoretical worst-case speedup of branch splitting (Carrillo, Siegel & Li, eq. 1):
///
/// ```text
/// speedup = T / ( Σ_i t_i · ρ_min / ρ_i  +  σ )
/// ```
///
/// `branched_runtime` is `T`, the runtime of the branched kernel when every branch runs;
/// `branches` holds `t_i` and `ρ_i`; `branched_occupancy` is `ρ_min`, the occupancy of the
/// branched kernel (set by its most demanding branch); `launch_overhead` is `σ`, the cost of
/// the extra kernel launches. Each split kernel runs at its own occupancy `ρ_i` instead of
/// `ρ_min`, which scales its time by `ρ_min / ρ_i`.
///
/// The paper suggests `T ≈ Σ t_i · ρ_i` "in ideal conditions" and, in its worked example,
/// uses `T = Σ t_i` (two branches of equal time at ρ = 1 and 0.67, σ = 0: 2 / 1.67 ≈ 1.197,
/// "≈ 19.7 %"), so `T` is an input here.
pub fn branch_splitting_speedup(
    branched_runtime: f64,
    branches: &[BranchProfile],
    branched_occupancy: f64,
    launch_overhead: f64,
) -> Result<f64, OccupancyError> {
    check_non_negative("branched_runtime (T)", branched_runtime)?;
    check_occupancy("branched_occupancy (rho_min)", branched_occupancy)?;
    check_non_negative("launch_overhead (sigma)", launch_overhead)?;
    let mut split_runtime = launch_overhead;
    for branch in branches {
        check_non_negative("branch runtime (t_i)", branch.runtime)?;
        check_occupancy("branch occupancy (rho_i)", branch.occupancy)?;
        split_runtime += branch.runtime * branched_occupancy / branch.occupancy;
    }
    if split_runtime <= 0.0 {
        return Err(OccupancyError::InvalidModelInput {
            parameter: "split runtime (sum of t_i rho_min / rho_i + sigma)",
            value: split_runtime,
            expected: "a runtime > 0",
        });
    }
    Ok(branched_runtime / split_runtime)
}

/// Theoretical speedup of branch distribution (Han & Abdelrahman, section 4.2.2):
///
/// ```text
/// speedup = 2 (1 + R) / (2 + R)
/// ```
///
/// `R` is "the size of the code factored out relative to the size of one path of the
/// divergent code" (the paper's SYN-BRDIS benchmark sets `R = N·M / 20`). Counting one path's
/// own code as 1, a divergent warp issues `2 (1 + R)` before the transformation (both paths,
/// each with its copy of the common code) and `2 + R` after it (both paths, the common code
/// once); the speedup is the ratio of the two instruction counts. The speedup is 1 at
/// `R = 0` and approaches 2 as `R` grows.
pub fn branch_distribution_speedup(factored_ratio: f64) -> Result<f64, OccupancyError> {
    check_non_negative("factored_ratio (R)", factored_ratio)?;
    Ok(2.0 * (1.0 + factored_ratio) / (2.0 + factored_ratio))
}
