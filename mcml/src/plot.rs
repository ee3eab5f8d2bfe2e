//! Pictures of a run (feature `plot`): Rd(r), Tt(r), A(z) and the fluence map Φ(r, z), each as
//! SVG and PNG, with units on the axes and the run's parameters in the caption.
//!
//! [`RunPlots::new`] takes the numbers of an `.mco` ([`McoFile`], read back with
//! [`crate::mco_file::read_mco`] or straight from a run with [`McoFile::from_result`]) and
//! holds exactly the series the pictures draw, so that what is drawn can be checked against
//! the file; [`write_plots`] draws them into a folder. The `mcml` program's `--plot DIR` calls
//! [`check_plot_files`] before the first photon and [`write_plots`] after each run.
//!
//! What is drawn:
//! - **Rd(r)** and **Tt(r)**: diffuse reflectance and total transmittance per unit area
//!   (cm⁻²) at the centre of each radial bin (cm), on a log scale.
//! - **A(z)**: absorption per unit depth (cm⁻¹) at the centre of each depth bin (cm), on a log
//!   scale, with the layer boundaries dashed.
//! - **Φ(r, z)**: fluence per unit incident weight (cm⁻²), `A(r, z)` divided by the absorption
//!   coefficient µa of the layer holding the bin's centre ([`fluence_rz`]), depth
//!   downwards, on a log colour scale (viridis) spanning at most [`FLUENCE_DECADES`] decades
//!   below the maximum, with a contour line at each whole decade and the layer boundaries
//!   dashed. A layer without absorption (µa = 0, e.g. glass) absorbs nothing, so absorption
//!   measures no fluence there: its bins are drawn grey and carry no contour. Bins with no
//!   absorbed weight at all are drawn in the scale's lowest colour.
//!
//! MCML scores photons beyond the grid into the last radial and the last depth bin: those bins
//! are overflow, not densities, and are not drawn (nor held in [`RunPlots`]); a grid of one
//! bin keeps its bin.
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
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::batch::{OutputError, check_output_path, quote_name};
use crate::mco_file::McoFile;

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
static FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

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
    /// Φ (cm⁻²), r outer, z inner (`phi[ir * z.len() + iz]`); NaN in layers without
    /// absorption.
    pub phi: Vec<f64>,
    /// The bounds of the colour scale, log10 Φ (`None` when nothing was absorbed).
    pub log_range: Option<(f64, f64)>,
    /// The contour levels drawn, log10 Φ (whole decades inside `log_range`).
    pub contour_levels: Vec<f64>,
}

/// Everything the four pictures of a run draw.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPlots {
    /// The caption under each title: input, run, photons, layers and grid.
    pub caption: String,
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
}

/// The bins drawn of `n`: all but MCML's overflow bin, or the one bin of a one-bin grid.
fn drawn(n: u32) -> usize {
    (n as usize).saturating_sub(1).max(1).min(n as usize)
}

impl RunPlots {
    /// The pictures of the run `mco` holds; `source` names its input in the caption (the
    /// `.mci` file, or a built-in).
    pub fn new(mco: &McoFile, source: &str) -> Self {
        let g = mco.input.grid;
        let (nr, nz) = (drawn(g.nr), drawn(g.nz));
        let series = |name, x: &[f64], y: &[f64], n: usize| Series {
            name,
            x: x.iter().take(n).copied().collect(),
            y: y.iter().take(n).copied().collect(),
        };
        let r = mco.r_centres();
        let z = mco.z_centres();
        let full = fluence_rz(mco);
        let nz_all = g.nz as usize;
        let phi: Vec<f64> = (0..nr)
            .flat_map(|ir| full[ir * nz_all..ir * nz_all + nz].iter().copied())
            .collect();
        let top = phi
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let bottom = phi
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold(f64::INFINITY, f64::min);
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
        let mut depth = 0.0;
        let mut layer_boundaries = Vec::new();
        for l in &mco.input.layers[..mco.input.layers.len().saturating_sub(1)] {
            depth += l.d;
            layer_boundaries.push(depth);
        }
        let layers = mco.input.layers.len();
        let caption = format!(
            "{source}, run {}: {} photons, {layers} layer{}, grid dz = {} cm \u{d7} {}, dr = {} cm \u{d7} {}, na = {}",
            mco.input.output_file,
            mco.input.photons,
            if layers == 1 { "" } else { "s" },
            g.dz,
            g.nz,
            g.dr,
            g.nr,
            g.na,
        );
        Self {
            caption,
            rd_r: series("Rd_r", &r, &mco.rd_r, nr),
            tt_r: series("Tt_r", &r, &mco.tt_r, nr),
            a_z: series("A_z", &z, &mco.a_z, nz),
            fluence: FluenceMap {
                r: r[..nr].to_vec(),
                z: z[..nz].to_vec(),
                phi,
                log_range,
                contour_levels,
            },
            layer_boundaries,
        }
    }
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
                draw(plots, picture, &root).and_then(|()| root.present().map_err(|e| e.to_string()))
            } else {
                let root = SVGBackend::new(file, size).into_drawing_area();
                draw(plots, picture, &root).and_then(|()| root.present().map_err(|e| e.to_string()))
            };
            drawn.map_err(failed)?;
        }
    }
    Ok(files)
}

/// Draws one picture on `root`.
fn draw<DB: DrawingBackend>(
    plots: &RunPlots,
    picture: &str,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (title, body) = match picture {
        "rd_r" => ("Diffuse reflectance Rd(r)", plots.rd_r.clone()),
        "tt_r" => ("Total transmittance Tt(r)", plots.tt_r.clone()),
        "a_z" => ("Absorption A(z)", plots.a_z.clone()),
        _ => return draw_fluence(plots, root),
    };
    let area = caption(root, title, &plots.caption)?;
    let (x_label, y_label, boundaries) = match picture {
        "a_z" => (
            "z [cm]",
            "A(z) [cm\u{207b}\u{b9}]",
            &plots.layer_boundaries[..],
        ),
        "rd_r" => ("r [cm]", "Rd(r) [cm\u{207b}\u{b2}]", &[][..]),
        _ => ("r [cm]", "Tt(r) [cm\u{207b}\u{b2}]", &[][..]),
    };
    draw_curve(&area, &body, x_label, y_label, boundaries)
}

/// Title and caption at the top of `root`; returns the area below them.
fn caption<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    caption: &str,
) -> Result<DrawingArea<DB, Shift>, String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (top, rest) = root.split_vertically(58);
    let (w, _) = top.dim_in_pixel();
    let centre = Pos::new(HPos::Center, VPos::Top);
    top.draw(&Text::new(
        title.to_string(),
        (w as i32 / 2, 8),
        (FAMILY, 22).into_font().color(&BLACK).pos(centre),
    ))
    .map_err(e)?;
    top.draw(&Text::new(
        caption.to_string(),
        (w as i32 / 2, 36),
        (FAMILY, 13).into_font().color(&BLACK.mix(0.75)).pos(centre),
    ))
    .map_err(e)?;
    Ok(rest)
}

/// The y range of a log axis holding the positive values of `y`.
fn log_bounds(y: &[f64]) -> Option<Range<f64>> {
    let pos = y.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = pos.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    (lo <= hi).then(|| {
        // Whole decades around the data.
        let lo = 10f64.powf(lo.log10().floor());
        let hi = 10f64.powf(hi.log10().ceil());
        if hi > lo { lo..hi } else { lo..lo * 10.0 }
    })
}

/// A curve on a log y axis; zeros (no photon in the bin) are left out of the line.
fn draw_curve<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &Series,
    x_label: &str,
    y_label: &str,
    boundaries: &[f64],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let x_hi = s.x.last().copied().unwrap_or(1.0) + s.x.first().copied().unwrap_or(0.5);
    let Some(y_range) = log_bounds(&s.y) else {
        area.draw(&Text::new(
            format!("{} is zero everywhere: no photon scored", s.name),
            (60, 60),
            (FAMILY, 18).into_font(),
        ))
        .map_err(e)?;
        return Ok(());
    };
    let mut chart = ChartBuilder::on(area)
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(84)
        .build_cartesian_2d(0.0..x_hi, y_range.clone().log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .axis_desc_style((FAMILY, 16))
        .label_style((FAMILY, 13))
        .y_label_formatter(&|v| decade_label(v.log10()))
        .light_line_style(BLACK.mix(0.05))
        .draw()
        .map_err(e)?;
    for &b in boundaries.iter().filter(|&&b| b < x_hi) {
        chart
            .draw_series(DashedLineSeries::new(
                [(b, y_range.start), (b, y_range.end)],
                6,
                4,
                BLACK.mix(0.4).stroke_width(1),
            ))
            .map_err(e)?;
    }
    // The line breaks where a bin scored nothing (log 0), rather than bridging the gap.
    let mut run: Vec<(f64, f64)> = Vec::new();
    let mut runs = Vec::new();
    for (&x, &y) in s.x.iter().zip(&s.y) {
        if y.is_finite() && y > 0.0 {
            run.push((x, y));
        } else if !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
    }
    runs.push(run);
    for run in runs.into_iter().filter(|r| !r.is_empty()) {
        if run.len() == 1 {
            chart
                .draw_series(std::iter::once(Circle::new(run[0], 2, BLUE.filled())))
                .map_err(e)?;
        } else {
            chart
                .draw_series(LineSeries::new(run, BLUE.stroke_width(2)))
                .map_err(e)?;
        }
    }
    Ok(())
}

/// `10^k` with a superscript exponent, for log axes' labels at whole decades `k`.
fn decade_label(k: f64) -> String {
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let k = k.round() as i64;
    let digits: String = k
        .unsigned_abs()
        .to_string()
        .chars()
        .filter_map(|d| d.to_digit(10).map(|d| SUPERSCRIPT[d as usize]))
        .collect();
    format!("10{}{digits}", if k < 0 { "\u{207b}" } else { "" })
}

/// log10 Φ of bin (ir, iz): the scale's floor below it or where nothing was absorbed; `None`
/// in a layer without absorption.
fn log_phi(map: &FluenceMap, ir: usize, iz: usize, lo: f64) -> Option<f64> {
    let v = map.phi[ir * map.z.len() + iz];
    if v.is_nan() {
        None
    } else if v > 0.0 {
        Some(v.log10().max(lo))
    } else {
        Some(lo)
    }
}

fn draw_fluence<DB: DrawingBackend>(
    plots: &RunPlots,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let map = &plots.fluence;
    let area = caption(root, "Fluence \u{3a6}(r, z) (log scale)", &plots.caption)?;
    let Some((lo, hi)) = map.log_range else {
        area.draw(&Text::new(
            "nothing was absorbed: no fluence to draw".to_string(),
            (60, 60),
            (FAMILY, 18).into_font(),
        ))
        .map_err(e)?;
        return Ok(());
    };
    let (nr, nz) = (map.r.len(), map.z.len());
    let dr = 2.0 * map.r[0];
    let dz = 2.0 * map.z[0];
    let (r_hi, z_hi) = (nr as f64 * dr, nz as f64 * dz);
    let (main, bar) = area.split_horizontally(area.dim_in_pixel().0 - 130);
    let mut chart = ChartBuilder::on(&main)
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(0.0..r_hi, z_hi..0.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("r [cm]")
        .y_desc("z [cm] (depth)")
        .axis_desc_style((FAMILY, 16))
        .label_style((FAMILY, 13))
        .draw()
        .map_err(e)?;
    // The colours, one pixel of the plotting area at a time: the bin under the pixel's centre.
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let (w, h) = ((xs.end - xs.start) as u32, (ys.end - ys.start) as u32);
    let mut pixels = Vec::with_capacity((w * h * 3) as usize);
    for py in 0..h {
        let z = (f64::from(py) + 0.5) / f64::from(h) * z_hi;
        let iz = ((z / dz) as usize).min(nz - 1);
        for px in 0..w {
            let r = (f64::from(px) + 0.5) / f64::from(w) * r_hi;
            let ir = ((r / dr) as usize).min(nr - 1);
            let c = match log_phi(map, ir, iz, lo) {
                Some(v) => ViridisRGB.get_color_normalized(v, lo, hi),
                None => RGBColor(190, 190, 190),
            };
            pixels.extend_from_slice(&[c.0, c.1, c.2]);
        }
    }
    let image = BitMapElement::with_owned_buffer((0.0, 0.0), (w, h), pixels)
        .ok_or("the fluence map's pixels do not fill its image")?;
    chart.draw_series(std::iter::once(image)).map_err(e)?;
    // Contours at whole decades, on log10 Φ with the floor where nothing was absorbed; segments
    // in layers without absorption are left out.
    let values: Vec<f64> = (0..nz)
        .flat_map(|iz| (0..nr).map(move |ir| (ir, iz)))
        .map(|(ir, iz)| log_phi(map, ir, iz, lo).unwrap_or(lo))
        .collect();
    let lines = contour::ContourBuilder::new(nr, nz, true)
        .x_step(dr)
        .y_step(dz)
        .lines(&values, &map.contour_levels)
        .map_err(|err| format!("contours: {err:?}"))?;
    let in_absorbing = |x: f64, y: f64| {
        let ir = ((x / dr) as usize).min(nr - 1);
        let iz = ((y / dz) as usize).min(nz - 1);
        log_phi(map, ir, iz, lo).is_some()
    };
    let mut paths: Vec<Vec<(f64, f64)>> = Vec::new();
    for line in &lines {
        for ls in &line.geometry().0 {
            let mut path: Vec<(f64, f64)> = Vec::new();
            for seg in ls.0.windows(2) {
                let (a, b) = (seg[0], seg[1]);
                if in_absorbing(0.5 * (a.x + b.x), 0.5 * (a.y + b.y)) {
                    if path.is_empty() {
                        path.push((a.x, a.y));
                    }
                    path.push((b.x, b.y));
                } else if !path.is_empty() {
                    paths.push(std::mem::take(&mut path));
                }
            }
            paths.push(path);
        }
    }
    chart
        .draw_series(
            paths
                .into_iter()
                .filter(|p| p.len() > 1)
                .map(|p| PathElement::new(p, WHITE.mix(0.85).stroke_width(1))),
        )
        .map_err(e)?;
    for &b in plots.layer_boundaries.iter().filter(|&&b| b < z_hi) {
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, b), (r_hi, b)],
                6,
                4,
                WHITE.mix(0.6).stroke_width(1),
            ))
            .map_err(e)?;
    }
    // The colour bar: log10 Φ, labelled in powers of ten.
    let mut scale = ChartBuilder::on(&bar)
        .margin_top(16)
        .margin_bottom(64)
        .margin_right(8)
        .y_label_area_size(78)
        .build_cartesian_2d(0.0..1.0, lo..hi)
        .map_err(e)?;
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc("\u{3a6} [cm\u{207b}\u{b2}]")
        .axis_desc_style((FAMILY, 16))
        .label_style((FAMILY, 13))
        .y_label_formatter(&|v| decade_label(*v))
        .y_labels((hi - lo).ceil() as usize + 1)
        .draw()
        .map_err(e)?;
    let steps = 128;
    scale
        .draw_series((0..steps).map(|k| {
            let a = lo + (hi - lo) * k as f64 / steps as f64;
            let b = lo + (hi - lo) * (k + 1) as f64 / steps as f64;
            Rectangle::new(
                [(0.0, a), (1.0, b)],
                ViridisRGB
                    .get_color_normalized(0.5 * (a + b), lo, hi)
                    .filled(),
            )
        }))
        .map_err(e)?;
    if map.phi.iter().any(|v| v.is_nan()) {
        let (_, h) = bar.dim_in_pixel();
        bar.draw(&Text::new(
            "grey: \u{b5}a = 0".to_string(),
            (4, h as i32 - 30),
            (FAMILY, 13).into_font(),
        ))
        .map_err(e)?;
    }
    for &level in &map.contour_levels {
        scale
            .draw_series(std::iter::once(PathElement::new(
                [(0.0, level), (1.0, level)],
                WHITE.stroke_width(1),
            )))
            .map_err(e)?;
    }
    Ok(())
}
