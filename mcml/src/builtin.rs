//! Built-in inputs, selectable by name.

use reconverge_workloads::mcml::{Beam, GridSpec, LayerSpec};

use crate::{OutputFormat, RunInput};

/// Names accepted by [`builtin`].
pub const BUILTIN_NAMES: [&str; 4] = ["skin", "slab", "vandehulst", "giovanelli"];

fn layer(n: f64, mua: f64, mus: f64, g: f64, d: f64) -> LayerSpec {
    LayerSpec { n, mua, mus, g, d }
}

fn run(name: &str, photons: u64, grid: GridSpec, layers: Vec<LayerSpec>) -> RunInput {
    RunInput {
        output_file: format!("{name}.mco"),
        format: OutputFormat::Ascii,
        photons,
        grid,
        n_above: 1.0,
        layers,
        n_below: 1.0,
        line: 0,
        lines: Default::default(),
        beam: Beam::Pencil,
    }
}

/// The 7-layer skin model at 600 nm of the GPU-MCML benchmark (Alerstam/Lo et al.): the
/// optical properties and grid of its `input/skin/7layerskin_600nm.mci` (after Meglinski &
/// Matcher, "Modelling the sampling volume for skin blood oxygenation measurements", 2001),
/// in air above and below: dz = 0.002 cm, dr = 0.01 cm, nz = 500, nr = 200, na = 30.
pub fn skin() -> RunInput {
    run(
        "skin",
        100_000,
        GridSpec {
            dz: 0.002,
            dr: 0.01,
            nz: 500,
            nr: 200,
            na: 30,
        },
        vec![
            layer(1.53, 0.2, 1000.0, 0.9, 0.002),  // stratum corneum
            layer(1.34, 0.15, 400.0, 0.85, 0.008), // living epidermis
            layer(1.4, 0.7, 300.0, 0.8, 0.01),     // papillary dermis
            layer(1.39, 1.0, 350.0, 0.9, 0.008),   // upper blood net dermis
            layer(1.4, 0.7, 200.0, 0.76, 0.162),   // dermis
            layer(1.39, 1.0, 350.0, 0.95, 0.02),   // deep blood net dermis
            layer(1.44, 0.3, 150.0, 0.8, 0.59),    // subcutaneous fat
        ],
    )
}

/// A thick, highly scattering slab: n = 1.4, µa = 0.1, µs = 90 /cm, g = 0.9, d = 100 cm, in
/// air; dz = dr = 0.01 cm, nz = 200, nr = 500, na = 1.
pub fn slab() -> RunInput {
    run(
        "slab",
        100_000,
        GridSpec {
            dz: 0.01,
            dr: 0.01,
            nz: 200,
            nr: 500,
            na: 1,
        },
        vec![layer(1.4, 0.1, 90.0, 0.9, 100.0)],
    )
}

/// MCML manual table 6.1: van de Hulst's slab with matched boundaries (n = 1 in n = 1),
/// µa = 10, µs = 90 /cm, g = 0.75, d = 0.02 cm. Published: Rd = 0.09739, Tt = 0.66096.
pub fn van_de_hulst() -> RunInput {
    run(
        "vandehulst",
        50_000,
        GridSpec {
            dz: 0.001,
            dr: 0.01,
            nz: 20,
            nr: 50,
            na: 10,
        },
        vec![layer(1.0, 10.0, 90.0, 0.75, 0.02)],
    )
}

/// MCML manual table 6.2: Giovanelli's semi-infinite medium, n = 1.5 in air, µa = 10,
/// µs = 90 /cm, g = 0. Published total reflectance (with specular 0.04): 0.2600.
pub fn giovanelli() -> RunInput {
    run(
        "giovanelli",
        50_000,
        GridSpec {
            dz: 0.01,
            dr: 0.01,
            nz: 20,
            nr: 50,
            na: 10,
        },
        vec![layer(1.5, 10.0, 90.0, 0.0, 1e8)],
    )
}

/// The built-in input called `name` (one of [`BUILTIN_NAMES`]).
pub fn builtin(name: &str) -> Option<RunInput> {
    match name {
        "skin" => Some(skin()),
        "slab" => Some(slab()),
        "vandehulst" => Some(van_de_hulst()),
        "giovanelli" => Some(giovanelli()),
        _ => None,
    }
}
