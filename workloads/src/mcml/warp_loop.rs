//! MCML's photon loop as a [`BranchLoop`], so every loop strategy of `reconverge-transforms`
//! runs it on either backend.
//!
//! The branch is MCML's main one (seed 002 fig. 8): does this step reach a layer boundary
//! ([`boundary`], the taken path) or end inside the layer ([`interact`]: drop and spin)? The
//! code after the branch is Russian roulette. Photon `i` is item `i` and draws from its own
//! Philox stream, so neither the strategy nor the lane that runs a photon changes its life:
//! every strategy and backend produces the same tallies, bit for bit.

use reconverge_simt::Region;
use reconverge_transforms::{BranchLoop, LoopRegions, Tally as WarpTally};

use super::float::McmlFloat;
use super::params::McmlParams;
use super::photon::{Photon, alive, boundary, interact, launch, prepare_step, roulette};
use super::tally::{Tally, TallyBin};

/// Issue costs of the photon loop's regions, in instructions of the f32 path as compiled for
/// sm_90 (approximate: they weight the model's SIMD efficiency, they do not change results).
pub const MCML_REGIONS: LoopRegions = LoopRegions {
    condition: Region::new(0, "step size (ln)", 40),
    taken: Region::new(1, "boundary: hop, Fresnel, cross or reflect", 90),
    not_taken: Region::new(2, "interaction: hop, drop, spin", 110),
    after_branch: Region::new(3, "roulette", 8),
    item: Region::new(4, "launch / retire photon", 30),
};

/// MCML over photons `0..n` with one seed: a [`BranchLoop`] whose state is a [`Photon`].
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct McmlLoop<F> {
    /// The layers, grid and constants.
    pub params: McmlParams<F>,
    /// The run's seed: photon `i` draws from Philox stream `(seed, i)`.
    pub seed: u64,
    /// Index of the photon that item 0 runs, so that a long run can go in batches (with
    /// progress between them) and still run exactly the photons of one long batch.
    pub first_photon: u64,
}

/// Forwards MCML's tally bins to a flat warp-program tally.
struct Flat<'t, T> {
    layout: super::tally::TallyLayout,
    tally: &'t mut T,
}

impl<T: WarpTally> Tally for Flat<'_, T> {
    #[inline(always)]
    fn add(&mut self, bin: TallyBin, amount: u64) {
        let index = self.layout.flat_index(bin);
        self.tally
            .add(u32::try_from(index).unwrap_or(u32::MAX), amount);
    }
}

impl<F: McmlFloat> McmlLoop<F> {
    #[inline(always)]
    fn flat<'t, T: WarpTally>(&self, tally: &'t mut T) -> Flat<'t, T> {
        Flat {
            layout: self.params.layout(),
            tally,
        }
    }
}

impl<F: McmlFloat> BranchLoop for McmlLoop<F> {
    type State = Photon<F>;
    /// Photons leave nothing per item: everything they do goes to the tallies.
    type Output = ();

    fn regions(&self) -> LoopRegions {
        MCML_REGIONS
    }

    fn tally_len(&self) -> usize {
        self.params.layout().len()
    }

    #[inline(always)]
    fn start(&self, item: u32) -> Photon<F> {
        launch(
            &self.params,
            self.seed,
            self.first_photon.wrapping_add(u64::from(item)),
        )
    }

    #[inline(always)]
    fn running(&self, photon: &Photon<F>) -> bool {
        alive(photon)
    }

    #[inline(always)]
    fn condition(&self, photon: &mut Photon<F>) -> bool {
        prepare_step(&self.params, photon)
    }

    #[inline(always)]
    fn taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        boundary(&self.params, photon, &mut self.flat(tally));
    }

    #[inline(always)]
    fn not_taken<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        interact(&self.params, photon, &mut self.flat(tally));
    }

    #[inline(always)]
    fn after_branch<T: WarpTally>(&self, photon: &mut Photon<F>, tally: &mut T) {
        roulette(&self.params, photon, &mut self.flat(tally));
    }

    #[inline(always)]
    fn finish(&self, _photon: &Photon<F>) {}
}
