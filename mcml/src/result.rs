//! Run results: raw fixed-point tallies and the physical quantities MCML reports from them.

use std::f64::consts::PI;
use std::time::Duration;

use reconverge_workloads::mcml::{FIXED_ONE, McmlFloat, McmlParams, TallyLayout};

use crate::RunInput;

/// The outcome of one run. Raw tallies are kept; every quantity is derived from them once, in
/// f64, with MCML's normalisations (`shared/notes/mcml-formats.md`, section 2).
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// The input that was run (photon count replaced by the one actually run).
    pub input: RunInput,
    /// Photons run.
    pub photons: u64,
    /// Seed of the photons' random streams.
    pub seed: u64,
    /// Layout of [`RunResult::tally`].
    pub layout: TallyLayout,
    /// Raw tallies in units of 2^-32 packets: `A_rz`, `Rd_ra`, `Tt_ra`, roulette gain and loss.
    pub tally: Vec<u64>,
    /// Specular reflectance.
    pub rsp: f64,
    /// Total diffuse reflectance (excluding specular).
    pub rd: f64,
    /// Absorbed fraction.
    pub a: f64,
    /// Total transmittance (including unscattered light).
    pub tt: f64,
    /// Weight created by roulette survivors, per photon.
    pub roulette_gain: f64,
    /// Weight destroyed by roulette, per photon.
    pub roulette_loss: f64,
    /// Wall time of the photon loop.
    pub elapsed: Duration,
    /// Photons per second of wall time.
    pub photons_per_second: f64,
}

fn weight(raw: u64) -> f64 {
    raw as f64 / FIXED_ONE as f64
}

impl RunResult {
    /// The result of running `input` (its photon count included) with `params`, the
    /// parameters read from it: the drivers' common end.
    pub(crate) fn of_run<F: McmlFloat>(
        input: RunInput,
        params: &McmlParams<F>,
        seed: u64,
        tally: Vec<u64>,
        elapsed: Duration,
    ) -> Self {
        let photons = input.photons;
        let rsp = params.rsp.as_f64();
        Self::from_tally(input, photons, seed, rsp, params.layout(), tally, elapsed)
    }

    /// Builds the result and its totals from raw tallies.
    pub fn from_tally(
        input: RunInput,
        photons: u64,
        seed: u64,
        rsp: f64,
        layout: TallyLayout,
        tally: Vec<u64>,
        elapsed: Duration,
    ) -> Self {
        let n = photons.max(1) as f64;
        let sum = |from: usize, to: usize| -> f64 {
            let raw: u128 = tally
                .get(from..to)
                .unwrap_or(&[])
                .iter()
                .map(|&v| u128::from(v))
                .sum();
            raw as f64 / FIXED_ONE as f64 / n
        };
        let a = sum(layout.absorbed_offset(), layout.reflected_offset());
        let rd = sum(layout.reflected_offset(), layout.transmitted_offset());
        let tt = sum(layout.transmitted_offset(), layout.roulette_offset());
        let roulette_gain = sum(layout.roulette_offset(), layout.roulette_offset() + 1);
        let roulette_loss = sum(layout.roulette_offset() + 1, layout.roulette_offset() + 2);
        let secs = elapsed.as_secs_f64();
        Self {
            input,
            photons,
            seed,
            layout,
            tally,
            rsp,
            rd,
            a,
            tt,
            roulette_gain,
            roulette_loss,
            elapsed,
            photons_per_second: if secs > 0.0 {
                photons as f64 / secs
            } else {
                0.0
            },
        }
    }

    /// `Rsp + Rd + A + Tt`: 1 up to roulette's statistical gain or loss.
    pub fn total(&self) -> f64 {
        self.rsp + self.rd + self.a + self.tt
    }

    /// `Rsp + Rd + A + Tt + loss − gain`: 1 up to fixed-point and float rounding only.
    pub fn energy_balance(&self) -> f64 {
        self.total() + self.roulette_loss - self.roulette_gain
    }

    fn n(&self) -> f64 {
        self.photons.max(1) as f64
    }

    fn raw(&self, i: usize) -> f64 {
        weight(self.tally.get(i).copied().unwrap_or(0))
    }

    fn da(&self) -> f64 {
        0.5 * PI / f64::from(self.layout.na.max(1))
    }

    /// Absorbed weight per photon in bin `(ir, iz)` (unscaled).
    pub fn absorbed_weight(&self, ir: u32, iz: u32) -> f64 {
        let l = self.layout;
        self.raw(l.absorbed_offset() + ir as usize * l.nz as usize + iz as usize) / self.n()
    }

    /// `A_rz` (1/cm³), r outer, z inner.
    pub fn a_rz(&self) -> Vec<f64> {
        let g = self.input.grid;
        let mut out = Vec::with_capacity(g.nr as usize * g.nz as usize);
        for ir in 0..g.nr {
            let area = 2.0 * PI * (f64::from(ir) + 0.5) * g.dr * g.dr * g.dz;
            for iz in 0..g.nz {
                out.push(self.absorbed_weight(ir, iz) / area);
            }
        }
        out
    }

    /// `A_z` (1/cm): absorption per unit depth.
    pub fn a_z(&self) -> Vec<f64> {
        let g = self.input.grid;
        (0..g.nz)
            .map(|iz| {
                (0..g.nr)
                    .map(|ir| self.absorbed_weight(ir, iz))
                    .sum::<f64>()
                    / g.dz
            })
            .collect()
    }

    /// `A_l`: absorbed fraction per layer; a z bin is credited to the layer holding its centre
    /// (MCML's `IzToLayer`).
    pub fn a_l(&self) -> Vec<f64> {
        let g = self.input.grid;
        let layers = &self.input.layers;
        let mut bounds = Vec::with_capacity(layers.len());
        let mut z = 0.0;
        for l in layers {
            z += l.d;
            bounds.push(z);
        }
        let mut out = vec![0.0; layers.len()];
        for iz in 0..g.nz {
            let zc = (f64::from(iz) + 0.5) * g.dz;
            let mut i = 0;
            while i + 1 < layers.len() && zc >= bounds[i] {
                i += 1;
            }
            let w: f64 = (0..g.nr).map(|ir| self.absorbed_weight(ir, iz)).sum();
            if let Some(slot) = out.get_mut(i) {
                *slot += w;
            }
        }
        out
    }

    fn ra(&self, offset: usize) -> Vec<f64> {
        let g = self.input.grid;
        let da = self.da();
        let mut out = Vec::with_capacity(g.nr as usize * g.na as usize);
        for ir in 0..g.nr {
            for ia in 0..g.na {
                let w = self.raw(offset + ir as usize * g.na as usize + ia as usize) / self.n();
                let scale = 4.0
                    * PI
                    * PI
                    * g.dr
                    * g.dr
                    * (da / 2.0).sin()
                    * (f64::from(ir) + 0.5)
                    * (2.0 * (f64::from(ia) + 0.5) * da).sin();
                out.push(w / scale);
            }
        }
        out
    }

    fn r(&self, offset: usize) -> Vec<f64> {
        let g = self.input.grid;
        (0..g.nr)
            .map(|ir| {
                let w: f64 = (0..g.na)
                    .map(|ia| self.raw(offset + ir as usize * g.na as usize + ia as usize))
                    .sum();
                w / self.n() / (2.0 * PI * (f64::from(ir) + 0.5) * g.dr * g.dr)
            })
            .collect()
    }

    fn a(&self, offset: usize) -> Vec<f64> {
        let g = self.input.grid;
        let da = self.da();
        (0..g.na)
            .map(|ia| {
                let w: f64 = (0..g.nr)
                    .map(|ir| self.raw(offset + ir as usize * g.na as usize + ia as usize))
                    .sum();
                w / self.n() / (2.0 * PI * ((f64::from(ia) + 0.5) * da).sin() * da)
            })
            .collect()
    }

    /// `Rd_ra` (1/(cm² sr)), r outer, angle inner.
    pub fn rd_ra(&self) -> Vec<f64> {
        self.ra(self.layout.reflected_offset())
    }
    /// `Tt_ra` (1/(cm² sr)), r outer, angle inner.
    pub fn tt_ra(&self) -> Vec<f64> {
        self.ra(self.layout.transmitted_offset())
    }
    /// `Rd_r` (1/cm²).
    pub fn rd_r(&self) -> Vec<f64> {
        self.r(self.layout.reflected_offset())
    }
    /// `Tt_r` (1/cm²).
    pub fn tt_r(&self) -> Vec<f64> {
        self.r(self.layout.transmitted_offset())
    }
    /// `Rd_a` (1/sr).
    pub fn rd_a(&self) -> Vec<f64> {
        self.a(self.layout.reflected_offset())
    }
    /// `Tt_a` (1/sr).
    pub fn tt_a(&self) -> Vec<f64> {
        self.a(self.layout.transmitted_offset())
    }
}

/// Adds the integer tallies `from` to `into`, counter by counter, modulo 2^64 as every tally
/// accumulates: the parts of a run split over batches, threads, processes or GPUs sum to the
/// tallies of the whole run, bit for bit, in any order.
pub fn add_tally(into: &mut [u64], from: &[u64]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a = a.wrapping_add(*b);
    }
}
