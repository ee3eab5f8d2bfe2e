//! The pictures of `--plot` (feature `plot`): the files are valid SVG and PNG of the stated
//! sizes, and what they draw is what the run's `.mco` holds, read back from the written text.

use std::path::Path;

use reconverge_mcml::builtin::van_de_hulst;
use reconverge_mcml::mco::write_mco;
use reconverge_mcml::mco_file::{McoFile, read_mco};
use reconverge_mcml::plot::{
    PICTURES, PlotError, RunPlots, Scale, Series, check_plot_files, plot_files, plot_stem,
    write_plots,
};
use reconverge_mcml::{RunInput, RunResult};
use reconverge_workloads::mcml::{GridSpec, LayerSpec};

/// A glass plate (µa = 0) on a turbid slab: the map's grey layer and the layer boundary.
fn glass_on_tissue() -> RunInput {
    let mut input = van_de_hulst();
    input.output_file = "glass.mco".into();
    input.grid = GridSpec {
        dz: 0.005,
        dr: 0.01,
        nz: 40,
        nr: 40,
        na: 5,
    };
    input.layers = vec![
        LayerSpec {
            n: 1.5,
            mua: 0.0,
            mus: 0.0,
            g: 0.0,
            d: 0.02,
        },
        LayerSpec {
            n: 1.4,
            mua: 2.0,
            mus: 100.0,
            g: 0.9,
            d: 0.1,
        },
    ];
    input
}

fn simulate(input: &RunInput, photons: u64) -> RunResult {
    reconverge_mcml::run(input, photons, 7).expect("the run is valid")
}

/// `drawn` equals the file's first values within the `.mco`'s rounding (`%12.4E`: 5 significant
/// digits), at the file's bin centres.
fn same_as_file(drawn: &Series, x: &[f64], y: &[f64]) -> Result<(), String> {
    if drawn.y.len() != drawn.x.len() || drawn.y.len() > y.len() {
        return Err(format!(
            "{}: {} values drawn, {} in the file",
            drawn.name,
            drawn.y.len(),
            y.len()
        ));
    }
    for (i, ((dx, dy), (fx, fy))) in drawn
        .x
        .iter()
        .zip(&drawn.y)
        .zip(x.iter().zip(y))
        .enumerate()
    {
        if (dx - fx).abs() > 1e-12 * fx.abs().max(1.0) {
            return Err(format!(
                "{} bin {i}: drawn at {dx} cm, the file's centre is {fx}",
                drawn.name
            ));
        }
        if (dy - fy).abs() > 1e-4 * fy.abs() + 1e-300 {
            return Err(format!(
                "{} bin {i}: drawn {dy}, the file has {fy}",
                drawn.name
            ));
        }
    }
    Ok(())
}

fn png_size(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("the PNG exists"));
    let mut reader = decoder.read_info().expect("a valid PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("valid PNG data");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn pictures_are_valid_files_that_draw_the_mco_values() {
    let input = glass_on_tissue();
    let result = simulate(&input, 4_000);
    let dir = tempfile::tempdir().unwrap();
    let mco_path = dir.path().join("glass.mco");
    std::fs::write(&mco_path, write_mco(&result, 0.1)).unwrap();
    let file = read_mco(&mco_path).expect("the written .mco reads back");

    let plots = RunPlots::new(&McoFile::from_result(&result), "test glass_on_tissue");
    let stem = plot_stem(&input.output_file);
    assert_eq!(stem, "glass");
    check_plot_files(&dir.path().join("plots"), std::slice::from_ref(&stem)).unwrap();
    let files = write_plots(&plots, &dir.path().join("plots"), &stem).unwrap();
    assert_eq!(files, plot_files(&dir.path().join("plots"), &stem));
    assert_eq!(files.len(), 2 * PICTURES.len());

    // The drawn series are the file's, overflow bins (the last r and z bins) left out.
    let r = file.r_centres();
    let z = file.z_centres();
    same_as_file(&plots.rd_r, &r, &file.rd_r).unwrap();
    same_as_file(&plots.tt_r, &r, &file.tt_r).unwrap();
    same_as_file(&plots.a_z, &z, &file.a_z).unwrap();
    assert_eq!(plots.rd_r.y.len(), 39);
    // The grid is 0.2 cm deep, the tissue 0.12 cm: the 24 bins whose centre is inside it.
    assert_eq!(plots.a_z.y.len(), 24);
    assert!(
        plots.rd_r.y.iter().any(|&v| v > 0.0),
        "photons were reflected"
    );
    // Φ = A(r, z) / µa of the bin's layer, from the file's A(r, z): the glass (the first 4 bins
    // of 0.005 cm) absorbs nothing and has no Φ; the tissue's µa is 2 /cm.
    let phi: Vec<f64> = file
        .a_rz
        .iter()
        .enumerate()
        .map(|(i, a)| if i % 40 < 4 { f64::NAN } else { a / 2.0 })
        .collect();
    let map = &plots.fluence;
    assert_eq!((map.r.len(), map.z.len()), (39, 24));
    for ir in 0..39 {
        for iz in 0..24 {
            let (drawn, read) = (map.phi[ir * 24 + iz], phi[ir * 40 + iz]);
            if iz < 4 {
                assert!(drawn.is_nan() && read.is_nan(), "glass bin ({ir}, {iz})");
            } else {
                assert!(
                    (drawn - read).abs() <= 1e-4 * read.abs(),
                    "bin ({ir}, {iz}): {drawn} vs {read}"
                );
            }
        }
    }
    assert_eq!(plots.layer_boundaries, vec![0.02]);
    let (lo, hi) = map.log_range.expect("light was absorbed");
    assert!(hi - lo <= 6.0 + 1e-9 && hi > lo);
    assert!(!map.contour_levels.is_empty());
    assert!(
        map.contour_levels
            .iter()
            .all(|l| l.fract() == 0.0 && *l > lo && *l < hi)
    );

    for (k, picture) in PICTURES.iter().enumerate() {
        let svg = std::fs::read_to_string(&files[2 * k]).unwrap();
        assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(
            svg.contains("test glass_on_tissue, run glass.mco: 4,000 photons, 2 layers"),
            "{picture}: the caption"
        );
        assert!(svg.contains("pencil beam"), "{picture}: the beam");
        assert!(svg.contains("[cm]"), "{picture}: an axis in cm");
        let (w, h, pixels) = png_size(&files[2 * k + 1]);
        let expected = if *picture == "fluence" {
            (900, 620)
        } else {
            (800, 520)
        };
        assert_eq!((w, h), expected, "{picture}");
        let inked = pixels
            .chunks(3)
            .filter(|p| p.iter().any(|&c| c < 128))
            .count();
        assert!(
            inked > 2_000,
            "{picture}: the PNG has text and lines drawn ({inked} dark pixels)"
        );
    }
    let fluence_svg = std::fs::read_to_string(&files[6]).unwrap();
    assert!(
        fluence_svg.contains("<image"),
        "the map's colours are embedded"
    );
    assert!(fluence_svg.contains("cm\u{207b}\u{b2}"));
    // No contour runs along the map's edge (marching squares closes its rings there: issue 43
    // saw a white line along the tissue's bottom): no white line stays level for 100 pixels.
    for tag in fluence_svg.split("<polyline").skip(1) {
        let tag = tag.split("/>").next().unwrap();
        if !tag.contains("#FFFFFF") {
            continue;
        }
        let points: Vec<(i64, i64)> = tag
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        let mut start = 0;
        for k in 1..=points.len() {
            if k == points.len() || points[k].1 != points[start].1 {
                let run = (points[k - 1].0 - points[start].0).abs();
                assert!(
                    run < 100,
                    "a level white line of {run} px at y = {}: {tag}",
                    points[start].1
                );
                start = k;
            }
        }
    }
    let a_z_svg = std::fs::read_to_string(&files[4]).unwrap();
    assert!(a_z_svg.contains("cm\u{207b}\u{b9}"));
    // Grey glass: the top rows of the map's plotting area are grey (190, 190, 190).
    let (w, _, pixels) = png_size(&files[7]);
    let grey = pixels.chunks(3).filter(|p| p == &[190, 190, 190]).count();
    assert!(
        grey > 1_000 && grey < (w as usize) * 200,
        "{grey} grey pixels"
    );
}

#[test]
fn a_wrong_series_fails_the_comparison() {
    let result = simulate(&van_de_hulst(), 2_000);
    let text = write_mco(&result, 0.1);
    let file = reconverge_mcml::mco_file::parse_mco(&text, "vdh.mco").unwrap();
    let plots = RunPlots::new(&McoFile::from_result(&result), "built-in vandehulst");
    let r = file.r_centres();
    same_as_file(&plots.rd_r, &r, &file.rd_r).unwrap();
    // Transmittance drawn as reflectance, one value 1 % off, or shifted by a bin: refused.
    assert!(same_as_file(&plots.rd_r, &r, &file.tt_r).is_err());
    let mut off = plots.rd_r.clone();
    off.y[3] *= 1.01;
    assert!(same_as_file(&off, &r, &file.rd_r).is_err());
    let mut shifted = plots.rd_r.clone();
    shifted.x.iter_mut().for_each(|x| *x += 0.005);
    assert!(same_as_file(&shifted, &r, &file.rd_r).is_err());
    // The overflow bin is not drawn.
    assert_eq!(plots.rd_r.y.len(), file.rd_r.len() - 1);
}

#[test]
fn plot_folders_are_checked_before_drawing() {
    let dir = tempfile::tempdir().unwrap();
    let a_file = dir.path().join("not-a-folder");
    std::fs::write(&a_file, "x").unwrap();
    let stems = vec!["run1".to_string()];
    assert!(matches!(
        check_plot_files(&a_file, &stems),
        Err(PlotError::Dir { .. })
    ));
    let two = vec!["run1".to_string(), "run1".to_string()];
    let err = check_plot_files(&dir.path().join("p"), &two).unwrap_err();
    assert!(matches!(err, PlotError::SameStem { .. }), "{err}");
    assert!(err.to_string().contains("run1"));
    assert!(matches!(
        check_plot_files(dir.path(), &["a/b".to_string()]),
        Err(PlotError::BadStem(_))
    ));
    // A folder that does not exist is created (and nothing is drawn yet).
    let fresh = dir.path().join("new/plots");
    check_plot_files(&fresh, &stems).unwrap();
    assert!(fresh.is_dir());
    assert_eq!(std::fs::read_dir(&fresh).unwrap().count(), 0);
    assert_eq!(plot_stem("dir/skin.mco"), "skin");
    assert_eq!(plot_stem("noext"), "noext");
}

/// The texts of an SVG's `<text>` elements, trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

/// A tick label's value: `10⁻²`, `2`, `0.05` or `3×10⁻⁴`.
fn tick_value(label: &str) -> Option<f64> {
    let power = |p: &str| -> Option<f64> {
        let digits: String = p
            .chars()
            .map(|c| match c {
                '\u{207b}' => Some('-'),
                '⁰' => Some('0'),
                '¹' => Some('1'),
                '²' => Some('2'),
                '³' => Some('3'),
                c @ ('⁴'..='⁹') => char::from_digit(c as u32 - '⁴' as u32 + 4, 10),
                _ => None,
            })
            .collect::<Option<String>>()?;
        Some(10f64.powi(digits.parse().ok()?))
    };
    if let Some((m, p)) = label.split_once("\u{d7}10") {
        return Some(m.parse::<f64>().ok()? * power(p)?);
    }
    if let Some(p) = label
        .strip_prefix("10")
        .filter(|p| !p.is_empty() && !p.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
    {
        return power(p);
    }
    label.parse().ok()
}

/// A(z) within one decade (MCML's `sample.mci` near 2.7 cm⁻¹): every y tick of the picture, read
/// back from the SVG, has its own value, and each lies on the drawn data's scale (1-2-5 bounds
/// around the data, not a bare decade).
#[test]
fn log_ticks_within_one_decade_are_labelled_each_by_its_value() {
    let result = simulate(&van_de_hulst(), 500);
    let mut mco = McoFile::from_result(&result);
    for (k, a) in mco.a_z.iter_mut().enumerate() {
        *a = 2.9 - 0.01 * k as f64;
    }
    let plots = RunPlots::new(&mco, "test");
    let dir = tempfile::tempdir().unwrap();
    let files = write_plots(&plots, dir.path(), "near").unwrap();
    let svg = std::fs::read_to_string(&files[4]).unwrap();
    // The y axis's labels: the ticks beyond the x axis's depths (0 to 0.02 cm here).
    let x_hi = plots.a_z.x.last().unwrap() + plots.a_z.x[0];
    let values: Vec<(String, f64)> = svg_texts(&svg)
        .into_iter()
        .filter_map(|t| tick_value(&t).map(|v| (t, v)))
        .filter(|(_, v)| *v > x_hi)
        .collect();
    let labels: Vec<&String> = values.iter().map(|(t, _)| t).collect();
    assert!(
        values.len() >= 2,
        "too few y ticks: {labels:?} of {:?}",
        svg_texts(&svg)
    );
    let mut distinct = labels.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        labels.len(),
        "repeated tick labels: {labels:?}"
    );
    let (lo, hi) = (2.9 - 0.01 * (plots.a_z.y.len() - 1) as f64, 2.9);
    for (t, v) in &values {
        assert!(
            *v >= 1.0 && *v <= 5.0,
            "{t} lies far outside the data ({lo}..{hi})"
        );
    }
}

/// `Scale::Linear`: the curves' axes start at 0 and read in plain numbers, with no power of ten.
#[test]
fn linear_pictures_read_in_plain_numbers_from_zero() {
    let result = simulate(&van_de_hulst(), 1_000);
    let plots = RunPlots::new(&McoFile::from_result(&result), "test").with_scale(Scale::Linear);
    let dir = tempfile::tempdir().unwrap();
    let files = write_plots(&plots, dir.path(), "lin").unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&files[0]).unwrap());
    assert!(texts.iter().any(|t| t == "0" || t == "0.0"), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.starts_with("10\u{207b}")),
        "{texts:?}"
    );
}

/// A grid of one bin draws: its curves as a level line across the bin, its map without the
/// contour diamond marching squares would draw around one cell.
#[test]
fn a_one_bin_grid_draws_without_contours() {
    let mut input = van_de_hulst();
    input.grid = GridSpec {
        dz: 2.0,
        dr: 2.0,
        nz: 1,
        nr: 1,
        na: 1,
    };
    let plots = RunPlots::new(&McoFile::from_result(&simulate(&input, 500)), "test");
    assert_eq!((plots.fluence.r.len(), plots.fluence.z.len()), (1, 1));
    let dir = tempfile::tempdir().unwrap();
    let files = write_plots(&plots, dir.path(), "one").unwrap();
    let map = std::fs::read_to_string(&files[6]).unwrap();
    // White lines are contours (on the map) and their marks on the colour bar: none here but
    // the bar's own marks, which are straight two-point lines.
    let diamonds = map
        .split("<polyline")
        .skip(1)
        .filter_map(|p| p.split_once("/>").map(|(tag, _)| tag))
        .filter(|tag| {
            let points = tag.split("points=\"").nth(1).unwrap_or("");
            let points = points.split('"').next().unwrap_or("");
            tag.contains("#FFFFFF") && points.split_whitespace().count() > 2
        })
        .count();
    assert_eq!(diamonds, 0, "a contour was drawn on a one-bin map");
    let rd = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!rd.contains("<circle"), "the one bin is a line, not a dot");
}

/// Bins where nothing was absorbed are left white on the map, not painted in the scale's lowest
/// colour: a map whose outer half absorbed nothing is white there.
#[test]
fn bins_with_nothing_absorbed_are_left_white() {
    let result = simulate(&van_de_hulst(), 2_000);
    let mut mco = McoFile::from_result(&result);
    let (nr, nz) = (mco.input.grid.nr as usize, mco.input.grid.nz as usize);
    for ir in nr / 2..nr {
        for iz in 0..nz {
            mco.a_rz[ir * nz + iz] = 0.0;
        }
    }
    let plots = RunPlots::new(&mco, "test");
    let dir = tempfile::tempdir().unwrap();
    let files = write_plots(&plots, dir.path(), "half").unwrap();
    let (w, _, pixels) = png_size(&files[7]);
    // The map's plotting area spans about x 88-752, y 92-555 of the 900 x 620 picture: a pixel
    // at three quarters of its width, halfway down, lies in the outer half.
    let at = |x: usize, y: usize| &pixels[3 * (y * w as usize + x)..3 * (y * w as usize + x) + 3];
    assert_eq!(at(600, 320), [255, 255, 255], "the empty half is white");
    assert_ne!(
        at(120, 320),
        [255, 255, 255],
        "the absorbing half is coloured"
    );
}
