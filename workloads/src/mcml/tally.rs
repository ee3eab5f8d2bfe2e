//! Integer fixed-point tallies: accumulation order never changes the sums.

/// Where a weight goes. Indices are already clamped into the grid (last bin = overflow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TallyBin {
    /// Absorbed in radial bin `ir`, depth bin `iz` (MCML's `A_rz`).
    Absorbed {
        /// Radial bin.
        ir: u32,
        /// Depth bin.
        iz: u32,
    },
    /// Escaped through the top (diffuse reflectance, MCML's `Rd_ra`).
    Reflected {
        /// Radial bin.
        ir: u32,
        /// Exit-angle bin.
        ia: u32,
    },
    /// Escaped through the bottom (transmittance, MCML's `Tt_ra`).
    Transmitted {
        /// Radial bin.
        ir: u32,
        /// Exit-angle bin.
        ia: u32,
    },
    /// Weight created by roulette survivors (`w / CHANCE − w`). Not an MCML output: it makes
    /// the energy balance checkable exactly, since roulette conserves energy only on average.
    RouletteGain,
    /// Weight destroyed by roulette losers. See [`TallyBin::RouletteGain`].
    RouletteLoss,
}

/// Sizes of the flat tally array: `A_rz` (r outer, z inner), then `Rd_ra`, then `Tt_ra`
/// (r outer, angle inner), then the roulette gain and loss counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C)]
pub struct TallyLayout {
    /// Depth bins.
    pub nz: u32,
    /// Radial bins.
    pub nr: u32,
    /// Angle bins.
    pub na: u32,
}

impl TallyLayout {
    /// Start of `A_rz`.
    pub const fn absorbed_offset(&self) -> usize {
        0
    }
    /// Start of `Rd_ra`.
    pub const fn reflected_offset(&self) -> usize {
        self.nr as usize * self.nz as usize
    }
    /// Start of `Tt_ra`.
    pub const fn transmitted_offset(&self) -> usize {
        self.reflected_offset() + self.nr as usize * self.na as usize
    }
    /// Index of the roulette gain counter (the loss counter follows it).
    pub const fn roulette_offset(&self) -> usize {
        self.transmitted_offset() + self.nr as usize * self.na as usize
    }
    /// Number of `u64` counters.
    pub const fn len(&self) -> usize {
        self.roulette_offset() + 2
    }
    /// Never empty (the roulette counters are always there); here for clippy's `len` rule.
    pub const fn is_empty(&self) -> bool {
        false
    }
    /// The flat index of a bin, for a GPU `atomicAdd` on one global `u64` array.
    #[inline(always)]
    pub const fn flat_index(&self, bin: TallyBin) -> usize {
        match bin {
            TallyBin::Absorbed { ir, iz } => {
                self.absorbed_offset() + ir as usize * self.nz as usize + iz as usize
            }
            TallyBin::Reflected { ir, ia } => {
                self.reflected_offset() + ir as usize * self.na as usize + ia as usize
            }
            TallyBin::Transmitted { ir, ia } => {
                self.transmitted_offset() + ir as usize * self.na as usize + ia as usize
            }
            TallyBin::RouletteGain => self.roulette_offset(),
            TallyBin::RouletteLoss => self.roulette_offset() + 1,
        }
    }

    /// [`TallyLayout::flat_index`] in `u32` arithmetic, what a warp program's tally takes: the
    /// same index whenever [`TallyLayout::len`] fits a `u32`, which
    /// [`McmlParams::new`](super::McmlParams::new) guarantees (a larger grid is
    /// [`ParamError::GridTooLarge`](super::ParamError::GridTooLarge)). Wrapping, so a layout
    /// built by hand beyond that gives a wrong bin rather than a panic; on the GPU this is one
    /// multiply-add per drop where the `usize` index and its conversion took five.
    #[inline(always)]
    pub const fn flat_index32(&self, bin: TallyBin) -> u32 {
        let (nr, nz, na) = (self.nr, self.nz, self.na);
        let reflected = nr.wrapping_mul(nz);
        let transmitted = reflected.wrapping_add(nr.wrapping_mul(na));
        let roulette = transmitted.wrapping_add(nr.wrapping_mul(na));
        match bin {
            TallyBin::Absorbed { ir, iz } => ir.wrapping_mul(nz).wrapping_add(iz),
            TallyBin::Reflected { ir, ia } => {
                reflected.wrapping_add(ir.wrapping_mul(na).wrapping_add(ia))
            }
            TallyBin::Transmitted { ir, ia } => {
                transmitted.wrapping_add(ir.wrapping_mul(na).wrapping_add(ia))
            }
            TallyBin::RouletteGain => roulette,
            TallyBin::RouletteLoss => roulette.wrapping_add(1),
        }
    }
}

/// A sink for fixed-point weights ([`super::FIXED_ONE`] = one packet).
///
/// The CPU uses per-thread arrays ([`SliceTally`]) summed at the end; a GPU backend implements
/// this with `atomicAdd` on global `u64` memory. Integer sums do not depend on order, so every
/// backend gets the same bits.
pub trait Tally {
    /// Adds `amount` to `bin`.
    fn add(&mut self, bin: TallyBin, amount: u64);
}

/// A tally over a borrowed flat `u64` array laid out by [`TallyLayout`].
#[derive(Debug)]
pub struct SliceTally<'a> {
    /// The layout the array follows.
    pub layout: TallyLayout,
    /// The counters; indices past its end are ignored (no panic on device).
    pub data: &'a mut [u64],
}

impl Tally for SliceTally<'_> {
    #[inline(always)]
    fn add(&mut self, bin: TallyBin, amount: u64) {
        if let Some(slot) = self.data.get_mut(self.layout.flat_index(bin)) {
            // Wrapping: sums are exact modulo 2^64 and cannot panic on overflow.
            *slot = slot.wrapping_add(amount);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcml::{GridSpec, LayerSpec, McmlParams, ParamError};

    /// The `u32` index equals the `usize` one for every bin of several layouts, the largest
    /// one a `u32` still reaches included.
    #[test]
    fn flat_index32_is_flat_index() {
        for (nr, nz, na) in [(1, 1, 1), (50, 40, 30), (3, 700, 2)] {
            let l = TallyLayout { nz, nr, na };
            let mut bins = [TallyBin::RouletteGain, TallyBin::RouletteLoss].to_vec();
            for ir in 0..nr {
                bins.extend((0..nz).map(|iz| TallyBin::Absorbed { ir, iz }));
                bins.extend((0..na).map(|ia| TallyBin::Reflected { ir, ia }));
                bins.extend((0..na).map(|ia| TallyBin::Transmitted { ir, ia }));
            }
            for b in bins {
                assert_eq!(l.flat_index32(b) as usize, l.flat_index(b), "{b:?}");
            }
        }
        // The largest grid `McmlParams::new` accepts, near 2^32 bins: its last bin still fits.
        let big = TallyLayout {
            nz: 65_533,
            nr: 65_535,
            na: 1,
        };
        assert!(big.len() as u64 <= u64::from(u32::MAX));
        let last = TallyBin::RouletteLoss;
        assert_eq!(big.flat_index32(last) as usize, big.flat_index(last));
    }

    /// A grid past what a `u32` index reaches is refused before any run.
    #[test]
    fn grid_beyond_u32_bins_is_refused() {
        extern crate std;
        let layer = [LayerSpec {
            n: 1.4,
            mua: 1.0,
            mus: 10.0,
            g: 0.9,
            d: 0.1,
        }];
        let grid = |nr, nz, na| GridSpec {
            dz: 0.01,
            dr: 0.01,
            nz,
            nr,
            na,
        };
        let ok = McmlParams::<f32>::new(1.0, &layer, 1.0, grid(65_535, 65_533, 1));
        assert!(ok.is_ok());
        let too_big = McmlParams::<f32>::new(1.0, &layer, 1.0, grid(65_536, 65_536, 1));
        assert_eq!(too_big.err(), Some(ParamError::GridTooLarge));
        let too_big = McmlParams::<f32>::new(1.0, &layer, 1.0, grid(1 << 20, 1, 1 << 11));
        assert_eq!(too_big.err(), Some(ParamError::GridTooLarge));
    }
}
