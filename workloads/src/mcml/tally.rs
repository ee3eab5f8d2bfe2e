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
