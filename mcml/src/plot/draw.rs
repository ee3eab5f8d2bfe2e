//! Drawing [`RunPlots`] with plotters: the curves, the fluence map, their axes and captions.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{FAMILY, FluenceMap, RunPlots, Scale, Series};

/// A tick's label from its value on the axis.
type TickLabel<'a> = dyn Fn(&f64) -> String + 'a;

/// Height of the title and the two caption lines above each picture.
const HEADER: u32 = 76;

/// Draws one picture on `root`.
pub(super) fn draw<DB: DrawingBackend>(
    plots: &RunPlots,
    picture: &str,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let (title, body) = match picture {
        "rd_r" => ("Diffuse reflectance Rd(r)", &plots.rd_r),
        "tt_r" => ("Total transmittance Tt(r)", &plots.tt_r),
        "a_z" => ("Absorption A(z)", &plots.a_z),
        _ => return draw_fluence(plots, root),
    };
    let area = caption(root, title, plots)?;
    let u = plots.unit;
    let (x_label, y_label, boundaries) = match picture {
        "a_z" => (
            "z [cm]",
            format!("A(z) [{u}cm\u{207b}\u{b9}]"),
            &plots.layer_boundaries[..],
        ),
        "rd_r" => ("r [cm]", format!("Rd(r) [{u}cm\u{207b}\u{b2}]"), &[][..]),
        _ => ("r [cm]", format!("Tt(r) [{u}cm\u{207b}\u{b2}]"), &[][..]),
    };
    draw_curve(&area, body, plots.scale, x_label, &y_label, boundaries)
}

/// Title and the two caption lines (the run; the beam) at the top of `root`; returns the area
/// below them.
fn caption<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    plots: &RunPlots,
) -> Result<DrawingArea<DB, Shift>, String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (top, rest) = root.split_vertically(HEADER);
    let (w, _) = top.dim_in_pixel();
    let centre = Pos::new(HPos::Center, VPos::Top);
    top.draw(&Text::new(
        title.to_string(),
        (w as i32 / 2, 8),
        (FAMILY, 22).into_font().color(&BLACK).pos(centre),
    ))
    .map_err(e)?;
    for (k, line) in [&plots.caption, &plots.beam].into_iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 36 + 18 * k as i32),
            (FAMILY, 13).into_font().color(&BLACK.mix(0.75)).pos(centre),
        ))
        .map_err(e)?;
    }
    Ok(rest)
}

/// `1`, `2` or `5` times a power of ten at or below (`up` false) or above (`up` true) `v > 0`.
fn nice(v: f64, up: bool) -> f64 {
    let k = v.log10().floor();
    let base = 10f64.powf(k);
    let steps = [1.0, 2.0, 5.0, 10.0];
    if up {
        steps
            .iter()
            .map(|s| s * base)
            .find(|&s| s >= v * (1.0 - 1e-12))
            .unwrap_or(10.0 * base)
    } else {
        steps
            .iter()
            .rev()
            .map(|s| s * base)
            .find(|&s| s <= v * (1.0 + 1e-12))
            .unwrap_or(base)
    }
}

/// The y range of a log axis holding the positive values of `y`: whole decades around data
/// spanning more than a decade; 1-2-5 steps around data within one, so that the curve fills
/// the picture and its ticks are not all one decade's.
pub(super) fn log_bounds(y: &[f64]) -> Option<Range<f64>> {
    let pos = y.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = pos.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    (lo <= hi).then(|| {
        let (lo, hi) = if hi / lo > 10.0 {
            (
                10f64.powf(lo.log10().floor()),
                10f64.powf(hi.log10().ceil()),
            )
        } else {
            (nice(lo, false), nice(hi, true))
        };
        if hi > lo { lo..hi } else { lo..lo * 10.0 }
    })
}

/// The ticks of a log axis over `range`: each whole decade, and where the axis spans at most
/// a decade and a half, the 1-9 (or, over more than nine, 1-2-5) multiples between, so that an
/// axis inside one decade still has ticks.
pub(super) fn log_ticks(range: &Range<f64>) -> Vec<f64> {
    let (lo, hi) = (range.start, range.end);
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    let within = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let multiples = |steps: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|k| steps.iter().map(move |m| m * 10f64.powi(k)))
            .filter(within)
            .collect()
    };
    if hi / lo > 10f64.powf(1.5) {
        return multiples(&[1.0]);
    }
    let all = multiples(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    if all.len() > 9 {
        multiples(&[1.0, 2.0, 5.0])
    } else {
        all
    }
}

/// A log axis's tick label: `10ᵏ` at a whole decade, the number itself between decades (`2`,
/// `0.05`, `3×10⁻⁴`), so that no two ticks read the same.
pub(super) fn log_tick_label(v: f64) -> String {
    if !(v.is_finite() && v > 0.0) {
        return String::new();
    }
    let k = v.log10();
    if (k - k.round()).abs() < 1e-9 {
        return decade_label(k);
    }
    let e = k.floor();
    if (-3.0..=3.0).contains(&e) {
        // Three significant digits: enough for the 1-9 multiples and for a scale's floor.
        let decimals = if e < 0.0 {
            (-e) as usize + 2
        } else {
            (2 - e as i64).max(0) as usize
        };
        trim(&format!("{v:.decimals$}"))
    } else {
        // Two significant digits are what 1-2-5 and the 1-9 multiples need.
        let m = trim(&format!("{:.1}", v / 10f64.powf(e)));
        format!("{m}\u{d7}{}", decade_label(e))
    }
}

/// A linear axis's tick label: `0`, `0.25`, `5000`, `2.5×10⁵`, with no trailing zeros.
pub(super) fn linear_tick_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let e = v.abs().log10().floor();
    if !(-3.0..=4.0).contains(&e) {
        return format!(
            "{}\u{d7}{}",
            trim(&format!("{:.2}", v / 10f64.powf(e))),
            decade_label(e)
        );
    }
    let decimals = if e < 0.0 { (-e) as usize + 2 } else { 2 };
    trim(&format!("{v:.decimals$}"))
}

/// A decimal number without trailing zeros after its point.
fn trim(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// A curve on a log or linear y axis; on a log axis zeros (no photon in the bin) are left out
/// of the line. A curve of one bin is drawn across its bin.
fn draw_curve<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &Series,
    scale: Scale,
    x_label: &str,
    y_label: &str,
    boundaries: &[f64],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let x_hi = s.x.last().copied().unwrap_or(1.0) + s.x.first().copied().unwrap_or(0.5);
    let Some(log_range) = log_bounds(&s.y) else {
        area.draw(&Text::new(
            format!("{} is zero everywhere: no photon scored", s.name),
            (60, 60),
            (FAMILY, 18).into_font(),
        ))
        .map_err(e)?;
        return Ok(());
    };
    let top =
        s.y.iter()
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max);
    let y_range = match scale {
        Scale::Log => log_range,
        Scale::Linear => 0.0..nice(top, true),
    };
    let builder = || {
        let mut b = ChartBuilder::on(area);
        b.margin(16).x_label_area_size(48).y_label_area_size(84);
        b
    };
    // Log and linear axes are different coordinate types: each builds its chart, then the
    // same drawing fills it.
    match scale {
        Scale::Log => {
            let mut chart = builder()
                .build_cartesian_2d(
                    0.0..x_hi,
                    y_range
                        .clone()
                        .log_scale()
                        .with_key_points(log_ticks(&y_range)),
                )
                .map_err(e)?;
            let tick = |v: &f64| log_tick_label(*v);
            fill_curve(
                &mut chart,
                s,
                scale,
                y_range,
                x_hi,
                boundaries,
                (x_label, y_label, &tick),
            )
        }
        Scale::Linear => {
            let mut chart = builder()
                .build_cartesian_2d(0.0..x_hi, y_range.clone())
                .map_err(e)?;
            let tick = |v: &f64| linear_tick_label(*v);
            fill_curve(
                &mut chart,
                s,
                scale,
                y_range,
                x_hi,
                boundaries,
                (x_label, y_label, &tick),
            )
        }
    }
}

/// The axes (x label, y label, y ticks' labels), the boundaries and the curve of
/// [`draw_curve`] on its chart.
fn fill_curve<DB: DrawingBackend, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    s: &Series,
    scale: Scale,
    y_range: Range<f64>,
    x_hi: f64,
    boundaries: &[f64],
    (x_label, y_label, tick): (&str, &str, &TickLabel<'_>),
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .axis_desc_style((FAMILY, 16))
        .label_style((FAMILY, 13))
        .light_line_style(BLACK.mix(0.05))
        .y_label_formatter(tick)
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
    if let ([x], [y]) = (&s.x[..], &s.y[..]) {
        chart
            .draw_series(LineSeries::new(
                [(0.0, *y), (2.0 * x, *y)],
                BLUE.stroke_width(2),
            ))
            .map_err(e)?;
        return Ok(());
    }
    // The line breaks where a bin scored nothing (log 0), rather than bridging the gap.
    let drawable = |y: f64| y.is_finite() && (y > 0.0 || scale == Scale::Linear);
    let mut run: Vec<(f64, f64)> = Vec::new();
    let mut runs = Vec::new();
    for (&x, &y) in s.x.iter().zip(&s.y) {
        if drawable(y) {
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

/// What a bin of the map shows.
enum Shade {
    /// A colour on the scale, at this value (log10 Φ or Φ).
    Value(f64),
    /// Below the scale's floor, or nothing absorbed: left blank.
    Below,
    /// A layer without absorption: grey.
    NoAbsorption,
}

/// Bin (ir, iz) of `map` on the scale `(lo, hi)` of `scale`.
fn shade(map: &FluenceMap, scale: Scale, ir: usize, iz: usize, lo: f64) -> Shade {
    let v = map.phi[ir * map.z.len() + iz];
    if v.is_nan() {
        return Shade::NoAbsorption;
    }
    let v = match scale {
        Scale::Log if v > 0.0 => v.log10(),
        Scale::Log => return Shade::Below,
        Scale::Linear => v,
    };
    if v < lo {
        Shade::Below
    } else {
        Shade::Value(v)
    }
}

fn draw_fluence<DB: DrawingBackend>(
    plots: &RunPlots,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let map = &plots.fluence;
    let scale = plots.scale;
    let title = match scale {
        Scale::Log => "Fluence \u{3a6}(r, z) (log scale)",
        Scale::Linear => "Fluence \u{3a6}(r, z) (linear scale)",
    };
    let area = caption(root, title, plots)?;
    let Some((lo, hi)) = map.colour_range(scale) else {
        area.draw(&Text::new(
            "nothing was absorbed: no fluence to draw".to_string(),
            (60, 60),
            (FAMILY, 18).into_font(),
        ))
        .map_err(e)?;
        return Ok(());
    };
    let levels = map.levels(scale);
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
            let c = match shade(map, scale, ir, iz, lo) {
                Shade::Value(v) => ViridisRGB.get_color_normalized(v.min(hi), lo, hi),
                Shade::Below => RGBColor(255, 255, 255),
                Shade::NoAbsorption => RGBColor(190, 190, 190),
            };
            pixels.extend_from_slice(&[c.0, c.1, c.2]);
        }
    }
    let image = BitMapElement::with_owned_buffer((0.0, 0.0), (w, h), pixels)
        .ok_or("the fluence map's pixels do not fill its image")?;
    chart.draw_series(std::iter::once(image)).map_err(e)?;
    // A one-bin-wide or one-bin-deep map has no lines of equal fluence to draw: marching
    // squares would draw a diamond around its one cell.
    if nr > 1 && nz > 1 {
        draw_contours(&mut chart, map, scale, lo, &levels)?;
    }
    // The tissue's frame: its layers' boundaries dashed.
    for &b in plots.layer_boundaries.iter().filter(|&&b| b < z_hi) {
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, b), (r_hi, b)],
                6,
                4,
                BLACK.mix(0.45).stroke_width(1),
            ))
            .map_err(e)?;
    }
    draw_colour_bar(&bar, map, scale, (lo, hi), &levels)
}

/// Lines of equal fluence at `levels`, on the scale's values with the floor where nothing was
/// absorbed; segments in layers without absorption are left out.
fn draw_contours<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    map: &FluenceMap,
    scale: Scale,
    lo: f64,
    levels: &[f64],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (nr, nz) = (map.r.len(), map.z.len());
    let dr = 2.0 * map.r[0];
    let dz = 2.0 * map.z[0];
    let value = |ir: usize, iz: usize| match shade(map, scale, ir, iz, lo) {
        Shade::Value(v) => Some(v),
        Shade::Below => Some(lo),
        Shade::NoAbsorption => None,
    };
    let values: Vec<f64> = (0..nz)
        .flat_map(|iz| (0..nr).map(move |ir| (ir, iz)))
        .map(|(ir, iz)| value(ir, iz).unwrap_or(lo))
        .collect();
    // The builder takes value (i, j) as the cell [i, i + 1] x [j, j + 1] of steps: each bin's
    // value at its centre, the grid's edge at 0 and n steps.
    let lines = contour::ContourBuilder::new(nr, nz, true)
        .x_step(dr)
        .y_step(dz)
        .lines(&values, levels)
        .map_err(|err| format!("contours: {err:?}"))?;
    let in_absorbing = |x: f64, y: f64| {
        let ir = ((x / dr) as usize).min(nr - 1);
        let iz = ((y / dz) as usize).min(nz - 1);
        value(ir, iz).is_some()
    };
    // Marching squares closes each level's rings along the grid's edge: those segments are
    // no line of equal fluence (they drew a white line along the tissue's top and bottom).
    let (x0, x1, y0, y1) = (0.0, nr as f64 * dr, 0.0, nz as f64 * dz);
    let on = |a: f64, b: f64, edge: f64, step: f64| {
        (a - edge).abs() < 1e-6 * step && (b - edge).abs() < 1e-6 * step
    };
    let on_edge = |ax: f64, ay: f64, bx: f64, by: f64| {
        on(ax, bx, x0, dr) || on(ax, bx, x1, dr) || on(ay, by, y0, dz) || on(ay, by, y1, dz)
    };
    let mut paths: Vec<Vec<(f64, f64)>> = Vec::new();
    for line in &lines {
        for ls in &line.geometry().0 {
            let mut path: Vec<(f64, f64)> = Vec::new();
            for seg in ls.0.windows(2) {
                let (a, b) = (seg[0], seg[1]);
                if in_absorbing(0.5 * (a.x + b.x), 0.5 * (a.y + b.y))
                    && !on_edge(a.x, a.y, b.x, b.y)
                {
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
    Ok(())
}

/// The colour bar beside the map, labelled in Φ's units, its contour levels marked.
fn draw_colour_bar<DB: DrawingBackend>(
    bar: &DrawingArea<DB, Shift>,
    map: &FluenceMap,
    scale: Scale,
    (lo, hi): (f64, f64),
    levels: &[f64],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let mut builder = ChartBuilder::on(bar);
    builder
        .margin_top(16)
        .margin_bottom(78)
        .margin_right(8)
        .y_label_area_size(78);
    let desc = format!("\u{3a6} [{}cm\u{207b}\u{b2}]", map.unit);
    // The bar's axis is Φ, on a log axis for the log scale: the same ticks and labels as a
    // curve's log axis over that range. Scale values (log10 Φ or Φ) map to it by `to_axis`.
    match scale {
        Scale::Log => {
            let range = 10f64.powf(lo)..10f64.powf(hi);
            let ticks = log_ticks(&range);
            let mut chart = builder
                .build_cartesian_2d(0.0..1.0, range.log_scale().with_key_points(ticks))
                .map_err(e)?;
            let tick = |v: &f64| log_tick_label(*v);
            fill_colour_bar(
                &mut chart,
                (lo, hi),
                levels,
                |v| 10f64.powf(v),
                (&desc, &tick),
            )?;
        }
        Scale::Linear => {
            let mut chart = builder.build_cartesian_2d(0.0..1.0, lo..hi).map_err(e)?;
            let tick = |v: &f64| linear_tick_label(*v);
            fill_colour_bar(&mut chart, (lo, hi), levels, |v| v, (&desc, &tick))?;
        }
    }
    let (_, h) = bar.dim_in_pixel();
    let mut notes = vec![match scale {
        Scale::Log => "white: below".to_string(),
        Scale::Linear => "white: none".to_string(),
    }];
    if scale == Scale::Log {
        notes.push(format!("{} or none", log_tick_label(10f64.powf(lo))));
    }
    if map.phi.iter().any(|v| v.is_nan()) {
        notes.push("grey: \u{b5}a = 0".to_string());
    }
    for (k, note) in notes.iter().enumerate() {
        bar.draw(&Text::new(
            note.clone(),
            (4, h as i32 - 56 + 16 * k as i32),
            (FAMILY, 12).into_font(),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// The axis (its label, its ticks' labels), the colours and the contour levels' marks of the
/// bar, on its chart.
fn fill_colour_bar<DB: DrawingBackend, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    (lo, hi): (f64, f64),
    levels: &[f64],
    to_axis: impl Fn(f64) -> f64,
    (desc, tick): (&str, &TickLabel<'_>),
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc(desc)
        .axis_desc_style((FAMILY, 16))
        .label_style((FAMILY, 13))
        .y_label_formatter(tick)
        .draw()
        .map_err(e)?;
    let steps = 128;
    chart
        .draw_series((0..steps).map(|k| {
            let a = lo + (hi - lo) * k as f64 / steps as f64;
            let b = lo + (hi - lo) * (k + 1) as f64 / steps as f64;
            Rectangle::new(
                [(0.0, to_axis(a)), (1.0, to_axis(b))],
                ViridisRGB
                    .get_color_normalized(0.5 * (a + b), lo, hi)
                    .filled(),
            )
        }))
        .map_err(e)?;
    for &level in levels {
        chart
            .draw_series(std::iter::once(PathElement::new(
                [(0.0, to_axis(level)), (1.0, to_axis(level))],
                WHITE.stroke_width(1),
            )))
            .map_err(e)?;
    }
    Ok(())
}
