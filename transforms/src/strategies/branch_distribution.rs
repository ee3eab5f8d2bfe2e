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
//! Branch distribution rewrites each thread's own code and needs no vote, so the CUDA backend
//! runs it without delaying as each thread's plain loop of fig. 7b
//! ([`crate::Kernel::distributed_items`]); the warp program below is the same schedule for the
//! reference model and the CPU backend, and the GPU's form where a kernel has no plain one.
//!
//! Measured on an H200 (`docs/results/plain/`, 2026-11-28) on SYN-BRDIS with paths of distinct
//! shape (`SynBrDisDistinct`, whose integer not-taken path the compiler cannot merge with the
//! float one; M = 4, R = 4, theory 1.67x): 0.69x the time of the fastest plain kernel as written
//! (1.45x faster), 1.00x the loop distributed by hand, 24.3 active threads per warp instruction
//! against 16.3. On the papers' SYN-BRDIS the compiler merges the two same-shaped paths into
//! straight-line code (32.0 active threads per warp instruction): the plain loop does not
//! diverge and there is nothing to win (the reproduce page of 2026-11-25, with the former warp
//! program: 0.49-0.82x). On MCML's boundary path (fig. 9; `docs/results/mcml/README.md`, the
//! warp program, 2026-11-25) 1.12x / 1.21x over dynamic work, 1.23x / 1.14x with cost-balanced
//! delaying too.

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
