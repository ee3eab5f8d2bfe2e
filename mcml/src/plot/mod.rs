//! Pictures of a run (feature `plot`): Rd(r), Tt(r), A(z) and the fluence map Φ(r, z), each as
//! SVG and PNG, with units on the axes, the run's parameters in the caption's first line and
//! its beam in the second (MCML's pencil beam, a beam sampled in the simulation, or a beam
//! convolved from a pencil-beam run, [`RunPlots::convolved`]).
//!
//! [`RunPlots::new`] takes the numbers of an `.mco` ([`McoFile`], read back with
//! [`crate::mco_file::read_mco`] or straight from a run with [`McoFile::from_result`]) and
//! holds exactly the series the pictures draw, so that what is drawn can be checked against
//! the file; [`write_plots`] draws them into a folder. The `mcml` program's `--plot DIR` calls
//! [`check_plot_files`] before the first photon and [`write_plots`] after each run.
//!
//! What is drawn:
//! - **Rd(r)** and **Tt(r)**: diffuse reflectance and total transmittance per unit area
//!   (cm⁻² per unit incident weight for the pencil beam; J cm⁻² for a finite beam of 1 J) at
//!   the centre of each radial bin (cm).
//! - **A(z)**: absorption per unit depth (cm⁻¹, or J cm⁻¹) at the centre of each depth bin
//!   (cm), with the layer boundaries dashed.
//! - **Φ(r, z)**: fluence (cm⁻², or J cm⁻²), `A(r, z)` divided by the absorption coefficient
//!   µa of the layer holding the bin's centre ([`fluence_rz`]), depth downwards, in viridis
//!   colours, with the layer boundaries dashed. A layer without absorption (µa = 0, e.g.
//!   glass) absorbs nothing, so absorption measures no fluence there: its bins are grey and
//!   carry no contour. Bins below the colour scale's floor, or with nothing absorbed, are left
//!   white.
//!
//! [`Scale::Log`] (the default) draws the curves on a log y axis (whole decades, or 1-2-5
//! steps with every tick labelled by its value when the data span less than a decade) and the
//! map on a log colour scale spanning at most [`FLUENCE_DECADES`] decades below its maximum,
//! with a contour at each whole decade; [`Scale::Linear`] draws both linearly from 0, the map
//! with contours at 10, 30, 50, 70 and 90 % of its maximum.
//!
//! MCML scores photons beyond the grid into the last radial and the last depth bin: those bins
//! are overflow, not densities, and are not drawn (nor held in [`RunPlots`]); a grid of one
//! bin keeps its bin (its curve is drawn as a level line across the bin, its map without
//! contours). Depth bins whose centre lies below the tissue hold nothing (no photon is absorbed
//! there): A(z) and the map stop at the tissue's bottom.
//!
//! The PNGs' text is drawn with DejaVu Sans, compiled into the library (`assets/fonts`, its
//! licence beside it), so the pictures need no font installed on the machine. The SVGs name
//! the font family `sans-serif` and embed the fluence map's colours as a PNG image.
//!
//! ```
//! use reconverge_mcml::builtin::van_de_hulst;
//! use reconverge_mcml::mco_file::McoFile;
//! use reconverge_mcml::plot::{RunPlots, write_plots};
//!
//! let result = reconverge_mcml::run(&van_de_hulst(), 2_000, 1).unwrap();
//! let plots = RunPlots::new(&McoFile::from_result(&result), "built-in vandehulst");
//! assert_eq!(plots.rd_r.x.len(), plots.rd_r.y.len());
//! let dir = tempfile::tempdir().unwrap();
//! let files = write_plots(&plots, dir.path(), "vdh").unwrap();
//! assert_eq!(files.len(), 8); // four pictures, SVG and PNG
//! assert!(files.iter().all(|f| f.exists()));
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;

use crate::batch::{OutputError, check_output_path, quote_name};
use crate::finite_beam::{Beam, BeamResponse, Interpolation, beam_label, mua_per_depth_bin};
use crate::mco_file::McoFile;

mod draw;

/// The y axis of the curves and the colour scale of the fluence map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scale {
    /// Logarithmic: light falls off exponentially with depth and distance.
    #[default]
    Log,
    /// Linear from 0: the shape of a profile near its peak (a beam's edge, a layer's jump).
    Linear,
}

/// Decades of fluence the colour scale spans below the map's maximum; smaller values take the
/// lowest colour.
pub const FLUENCE_DECADES: f64 = 6.0;

/// The four pictures of a run, as the file names' suffixes: `STEM-rd_r.svg`, `STEM-rd_r.png`...
pub const PICTURES: [&str; 4] = ["rd_r", "tt_r", "a_z", "fluence"];

/// Size in pixels of the PNGs (and of the SVGs' canvas) of the curves.
const CURVE_SIZE: (u32, u32) = (800, 520);
/// Size in pixels of the fluence map's picture.
const MAP_SIZE: (u32, u32) = (900, 620);
/// The font family every text is drawn in (DejaVu Sans, registered under this name).
const FAMILY: &str = "sans-serif";
/// DejaVu Sans 2.37, unmodified (licence: assets/fonts/LICENSE-DejaVu.txt).
static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Why pictures could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The folder cannot be created or is not a folder.
    #[error("--plot folder {dir}: {reason}")]
    Dir {
        /// The folder (quoted, cut).
        dir: String,
        /// Why.
        reason: String,
    },
    /// A picture's file cannot be written.
    #[error("picture {0}")]
    Output(#[from] OutputError),
    /// Two runs would draw into the same files.
    #[error(
        "two runs would draw the same pictures {dir}/{stem}-*: give the runs different output names"
    )]
    SameStem {
        /// The folder (quoted, cut).
        dir: String,
        /// The shared stem.
        stem: String,
    },
    /// The stem is empty or names a path rather than a file name's start.
    #[error("picture name {0}: expected a plain file name stem (no folder, not empty)")]
    BadStem(String),
    /// The embedded font could not be loaded (the library's build is damaged).
    #[error("the pictures' font (DejaVu Sans) could not be loaded")]
    Font,
    /// Drawing or encoding a picture failed.
    #[error("cannot draw {file}: {reason}")]
    Draw {
        /// The picture's file (quoted, cut).
        file: String,
        /// Why.
        reason: String,
    },
}

/// One curve: `y` at each `x`, as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The `.mco` array it comes from: `Rd_r`, `Tt_r` or `A_z`.
    pub name: &'static str,
    /// Bin centres (cm).
    pub x: Vec<f64>,
    /// Values (cm⁻² for `Rd_r` and `Tt_r`, cm⁻¹ for `A_z`).
    pub y: Vec<f64>,
}

/// The fluence map as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct FluenceMap {
    /// Radial bin centres (cm), `r.len()` columns.
    pub r: Vec<f64>,
    /// Depth bin centres (cm), `z.len()` rows.
    pub z: Vec<f64>,
    /// Φ (cm⁻², or J cm⁻² for a finite beam), r outer, z inner (`phi[ir * z.len() + iz]`);
    /// NaN in layers without absorption.
    pub phi: Vec<f64>,
    /// The bounds of the log colour scale, log10 Φ (`None` when nothing was absorbed).
    pub log_range: Option<(f64, f64)>,
    /// The log scale's contour levels, log10 Φ (whole decades inside `log_range`).
    pub contour_levels: Vec<f64>,
    /// `""` (per unit incident weight) or `"J "` (a finite beam of 1 J): the unit's prefix.
    pub unit: &'static str,
}

impl FluenceMap {
    /// The map of `nr × nz` bins of `phi` (r outer, `nz_all` depths per radius).
    fn new(r: &[f64], z: &[f64], full: &[f64], nz_all: usize, unit: &'static str) -> Self {
        let (nr, nz) = (r.len(), z.len());
        let phi: Vec<f64> = (0..nr)
            .flat_map(|ir| full[ir * nz_all..ir * nz_all + nz].iter().copied())
            .collect();
        let positive = || phi.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
        let top = positive().fold(f64::NEG_INFINITY, f64::max);
        let bottom = positive().fold(f64::INFINITY, f64::min);
        let log_range = (top > 0.0 && top.is_finite()).then(|| {
            let hi = top.log10();
            let lo = bottom.log10().max(hi - FLUENCE_DECADES);
            // A flat map still gets a scale one decade wide.
            if hi - lo < 1e-9 {
                (hi - 1.0, hi)
            } else {
                (lo, hi)
            }
        });
        let contour_levels = log_range.map_or_else(Vec::new, |(lo, hi)| {
            let first = lo.ceil() as i64;
            let last = hi.floor() as i64;
            (first..=last)
                .map(|k| k as f64)
                .filter(|&k| k > lo && k < hi)
                .collect()
        });
        Self {
            r: r.to_vec(),
            z: z.to_vec(),
            phi,
            log_range,
            contour_levels,
            unit,
        }
    }

    /// The colour scale's bounds on `scale`: log10 Φ, or Φ from 0 to the maximum.
    pub fn colour_range(&self, scale: Scale) -> Option<(f64, f64)> {
        let (_, hi) = self.log_range?;
        Some(match scale {
            Scale::Log => self.log_range?,
            Scale::Linear => (0.0, 10f64.powf(hi)),
        })
    }

    /// The contour levels on `scale`: whole decades (log10 Φ), or 10, 30, 50, 70 and 90 % of
    /// the maximum (Φ).
    pub fn levels(&self, scale: Scale) -> Vec<f64> {
        match (scale, self.colour_range(scale)) {
            (Scale::Log, _) => self.contour_levels.clone(),
            (Scale::Linear, Some((_, hi))) => {
                [0.1, 0.3, 0.5, 0.7, 0.9].iter().map(|f| f * hi).collect()
            }
            (Scale::Linear, None) => Vec::new(),
        }
    }
}

/// Everything the four pictures of a run draw.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPlots {
    /// The caption's first line under each title: input, run, photons, layers and grid.
    pub caption: String,
    /// The caption's second line: the beam, and how its responses were made.
    pub beam: String,
    /// Diffuse reflectance per unit area.
    pub rd_r: Series,
    /// Total transmittance per unit area.
    pub tt_r: Series,
    /// Absorption per unit depth.
    pub a_z: Series,
    /// Fluence Φ(r, z).
    pub fluence: FluenceMap,
    /// Depths of the boundaries between layers (cm), drawn dashed.
    pub layer_boundaries: Vec<f64>,
    /// `""` (per unit incident weight: MCML's pencil beam) or `"J "` (a finite beam of 1 J).
    pub unit: &'static str,
    /// The curves' y axis and the map's colour scale ([`Scale::Log`] unless changed).
    pub scale: Scale,
}

/// The bins drawn of `n`: all but MCML's overflow bin, or the one bin of a one-bin grid.
fn drawn(n: u32) -> usize {
    (n as usize).saturating_sub(1).max(1).min(n as usize)
}

/// The depth bins drawn of `mco`'s grid: [`drawn`], and only those whose centre lies inside
/// the tissue (at least one).
fn drawn_depths(mco: &McoFile) -> usize {
    let g = mco.input.grid;
    let thickness: f64 = mco.input.layers.iter().map(|l| l.d).sum();
    let inside = (0..g.nz)
        .take_while(|&iz| (f64::from(iz) + 0.5) * g.dz < thickness)
        .count();
    drawn(g.nz).min(inside.max(1))
}

/// A finite beam in words: `flat beam, radius 0.1 cm`.
pub fn beam_words(beam: Beam) -> String {
    match beam {
        Beam::Pencil => "pencil beam".into(),
        Beam::Gaussian { radius } => format!("Gaussian beam, 1/e\u{b2} radius {radius} cm"),
        Beam::Flat { radius } => format!("flat beam, radius {radius} cm"),
    }
}

impl RunPlots {
    /// The pictures of the run `mco` holds; `source` names its input in the caption (the
    /// `.mci` file, or a built-in).
    pub fn new(mco: &McoFile, source: &str) -> Self {
        let g = mco.input.grid;
        let (nr, nz) = (drawn(g.nr), drawn_depths(mco));
        let series = |name, x: &[f64], y: &[f64], n: usize| Series {
            name,
            x: x.iter().take(n).copied().collect(),
            y: y.iter().take(n).copied().collect(),
        };
        let r = mco.r_centres();
        let z = mco.z_centres();
        let beam = mco.input.beam;
        let (unit, beam_line) = match beam {
            Beam::Pencil => (
                "",
                "MCML's pencil beam at r = 0; per unit incident weight".to_string(),
            ),
            b => (
                "J ",
                format!(
                    "{} ({}), sampled in the simulation; per 1 J incident",
                    beam_words(b),
                    beam_label(b)
                ),
            ),
        };
        let fluence = FluenceMap::new(&r[..nr], &z[..nz], &fluence_rz(mco), g.nz as usize, unit);
        Self {
            caption: run_caption(mco, source),
            beam: beam_line,
            rd_r: series("Rd_r", &r, &mco.rd_r, nr),
            tt_r: series("Tt_r", &r, &mco.tt_r, nr),
            a_z: series("A_z", &z, &mco.a_z, nz),
            fluence,
            layer_boundaries: layer_boundaries(mco),
            unit,
            scale: Scale::default(),
        }
    }

    /// The pictures of `response`, convolved from the pencil-beam run `mco` holds with
    /// `interpolation` (as `mcml --convolve` writes it): its Rd(r), Tt(r) and Φ(r, z) per
    /// joule on the response's radial grid (its last radius, at the end of the impulse
    /// response's grid, left out as the run's overflow bin is), and A(z), which a beam does not
    /// change, as the run's times the beam's energy.
    pub fn convolved(
        mco: &McoFile,
        response: &BeamResponse,
        source: &str,
        interpolation: Interpolation,
    ) -> Self {
        let nr = response
            .r
            .len()
            .saturating_sub(1)
            .max(1)
            .min(response.r.len());
        let nz = drawn_depths(mco).min(response.z.len());
        let nz_all = response.z.len();
        // `BeamResponse` writes 0 where µa = 0, as CONV does; the map greys those layers.
        let mua = mua_per_depth_bin(&mco.input.grid, &mco.input.layers);
        let full: Vec<f64> = response
            .fluence_rz
            .iter()
            .enumerate()
            .map(|(i, &v)| match mua.get(i % nz_all.max(1)) {
                Some(&m) if m > 0.0 => v,
                _ => f64::NAN,
            })
            .collect();
        let fluence = FluenceMap::new(&response.r[..nr], &response.z[..nz], &full, nz_all, "J ");
        let z = mco.z_centres();
        let how = match interpolation {
            Interpolation::Conv => "CONV's interpolation",
            Interpolation::Bins => "bins interpolation",
        };
        Self {
            caption: run_caption(mco, source),
            beam: format!(
                "{} ({}), convolved from the pencil-beam run ({how}); {} J incident",
                beam_words(response.beam),
                beam_label(response.beam),
                response.power
            ),
            rd_r: Series {
                name: "Rd_r",
                x: response.r[..nr].to_vec(),
                y: response.rd_r[..nr].to_vec(),
            },
            tt_r: Series {
                name: "Tt_r",
                x: response.r[..nr].to_vec(),
                y: response.tt_r[..nr].to_vec(),
            },
            a_z: Series {
                name: "A_z",
                x: z[..nz].to_vec(),
                y: mco.a_z[..nz].iter().map(|a| a * response.power).collect(),
            },
            fluence,
            layer_boundaries: layer_boundaries(mco),
            unit: "J ",
            scale: Scale::default(),
        }
    }

    /// The same pictures on `scale`.
    pub fn with_scale(mut self, scale: Scale) -> Self {
        self.scale = scale;
        self
    }
}

/// The depths of the boundaries between `mco`'s layers (cm).
fn layer_boundaries(mco: &McoFile) -> Vec<f64> {
    let mut depth = 0.0;
    let mut boundaries = Vec::new();
    for l in &mco.input.layers[..mco.input.layers.len().saturating_sub(1)] {
        depth += l.d;
        boundaries.push(depth);
    }
    boundaries
}

/// `n` with a comma between thousands, as a caption reads it: `100,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, d) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The caption's first line: input, run, photons, layers and grid.
fn run_caption(mco: &McoFile, source: &str) -> String {
    let g = mco.input.grid;
    let layers = mco.input.layers.len();
    format!(
        "{source}, run {}: {} photons, {layers} layer{}, grid dz = {} cm \u{d7} {}, dr = {} cm \u{d7} {}, na = {}",
        mco.input.output_file,
        thousands(mco.input.photons),
        if layers == 1 { "" } else { "s" },
        g.dz,
        g.nz,
        g.dr,
        g.nr,
        g.na,
    )
}

/// Fluence Φ(r, z) (cm⁻², per unit incident weight) of every bin: `A_rz` divided by the
/// absorption coefficient of the layer holding the z bin's centre (bins below the last layer
/// belong to it, as MCML credits them), r outer, z inner; NaN where that layer has µa = 0.
pub fn fluence_rz(mco: &McoFile) -> Vec<f64> {
    let g = mco.input.grid;
    let nz = g.nz.max(1) as usize;
    let mua: Vec<f64> = mco
        .z_centres()
        .iter()
        .map(|&z| {
            let mut bottom = 0.0;
            let layer = mco.input.layers.iter().find(|l| {
                bottom += l.d;
                z < bottom
            });
            layer
                .or(mco.input.layers.last())
                .map_or(f64::NAN, |l| l.mua)
        })
        .collect();
    mco.a_rz
        .iter()
        .enumerate()
        .map(|(i, a)| match mua.get(i % nz) {
            Some(&m) if m > 0.0 => a / m,
            _ => f64::NAN,
        })
        .collect()
}

/// The eight files of a run's pictures in `dir`: each of [`PICTURES`] as SVG, then PNG.
pub fn plot_files(dir: &Path, stem: &str) -> Vec<PathBuf> {
    PICTURES
        .iter()
        .flat_map(|p| ["svg", "png"].map(|ext| dir.join(format!("{stem}-{p}.{ext}"))))
        .collect()
}

/// The stem of a run's pictures: its `.mco` name without the extension (`skin.mco` → `skin`).
pub fn plot_stem(output_file: &str) -> String {
    let name = Path::new(output_file).file_name().map_or_else(
        || output_file.to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => name,
    }
}

/// Checks, before any run, that the pictures of runs named `stems` can be written into `dir`:
/// creates `dir` if it does not exist, refuses two runs with one stem and checks every file
/// as [`check_output_path`] does (an existing picture is left as it is until it is redrawn).
pub fn check_plot_files(dir: &Path, stems: &[String]) -> Result<(), PlotError> {
    let shown = || quote_name(&dir.to_string_lossy());
    if dir.exists() && !dir.is_dir() {
        return Err(PlotError::Dir {
            dir: shown(),
            reason: "it is a file, not a folder".into(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| PlotError::Dir {
        dir: shown(),
        reason: format!("cannot be created: {e}"),
    })?;
    let mut seen = HashMap::new();
    for stem in stems {
        check_stem(stem)?;
        if seen.insert(stem.as_str(), ()).is_some() {
            return Err(PlotError::SameStem {
                dir: shown(),
                stem: stem.clone(),
            });
        }
        for file in plot_files(dir, stem) {
            check_output_path(&file)?;
        }
    }
    Ok(())
}

fn check_stem(stem: &str) -> Result<(), PlotError> {
    if stem.is_empty() || stem.contains(['/', '\\']) || stem == "." || stem == ".." {
        return Err(PlotError::BadStem(quote_name(stem)));
    }
    Ok(())
}

/// Registers DejaVu Sans as [`FAMILY`] once for the process.
fn font() -> Result<(), PlotError> {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let ok = *LOADED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

/// Draws the four pictures of `plots` into `dir` as `STEM-rd_r.svg`, `STEM-rd_r.png`...
/// (the files of [`plot_files`]); returns them.
pub fn write_plots(plots: &RunPlots, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, PlotError> {
    check_stem(stem)?;
    font()?;
    let files = plot_files(dir, stem);
    let mut it = files.iter();
    for picture in PICTURES {
        for png in [false, true] {
            let Some(file) = it.next() else { break };
            let failed = |reason: String| PlotError::Draw {
                file: quote_name(&file.to_string_lossy()),
                reason,
            };
            let size = if picture == "fluence" {
                MAP_SIZE
            } else {
                CURVE_SIZE
            };
            let drawn = if png {
                let root = BitMapBackend::new(file, size).into_drawing_area();
                draw::draw(plots, picture, &root)
                    .and_then(|()| root.present().map_err(|e| e.to_string()))
            } else {
                let root = SVGBackend::new(file, size).into_drawing_area();
                draw::draw(plots, picture, &root)
                    .and_then(|()| root.present().map_err(|e| e.to_string()))
            };
            drawn.map_err(failed)?;
        }
    }
    Ok(files)
}
