//! Branch distribution: Han & Abdelrahman, "Reducing Branch Divergence in GPU Programs"
//! (GPGPU-4, 2011), §3.2, figs. 6–7 (seed 002).
//!
//! When both paths of a divergent branch run code of the same structure, that code is factored
//! out of the branch: the paths' prologues run divergently, the shared code runs once for
//! every live lane (with whatever differs passed through the state by the prologues, fig. 6b's
//! `a = a1; b = b1`), and the epilogues run divergently. A fully divergent iteration then
//! issues the factored code once instead of twice: speedup `2(1 + R)/(2 + R)` with `R` the
//! factored code's share.
//!
//! Measured on an H100 (`docs/results/h100-reproduce/seed002-fig12-branch-distribution.md`,
//! `docs/results/mcml/README.md`), 2026-11-25, against the plain per-thread baseline: on
//! SYN-BRDIS 0.49-0.82x, a median 0.41 of the theoretical speedup (0.93 against the former
//! warp-program baseline; the paper: about 0.90): the plain loop does not diverge there at
//! all, since the compiler if-converts the two same-shaped paths into straight-line code (32.0
//! active threads per warp instruction, Nsight Compute), while the warp program issues 1.73x
//! its warp instructions at 23.4 active threads. On MCML's boundary path (fig. 9) 0.93x on skin and
//! 0.83x on the slab alone, 1.12x / 1.21x over dynamic work, 1.23x / 1.14x with cost-balanced
//! delaying too (MCML's fastest bit-identical kernel on skin).

use reconverge_simt::{LaneMask, Warp};

use crate::io::Tally;
use crate::shape::FactoredBranchLoop;
use crate::shapes::factored::DirectProgram;

impl<W: Warp, L: FactoredBranchLoop> DirectProgram<W, L> {
    /// Fig. 7b: divergent prologues, the factored code once for all, divergent epilogues.
    pub(crate) fn distributed_paths<T: Tally>(
        &mut self,
        warp: &mut W,
        taken: LaneMask,
        not_taken: LaneMask,
        tally: &mut T,
    ) {
        self.prologue(warp, true, taken, tally);
        self.prologue(warp, false, not_taken, tally);
        self.factored(warp, taken | not_taken, tally);
        self.epilogue(warp, true, taken, tally);
        self.epilogue(warp, false, not_taken, tally);
    }
}
