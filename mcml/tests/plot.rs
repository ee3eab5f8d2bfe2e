//! The pictures of `--plot` (feature `plot`): the files are valid SVG and PNG of the stated
//! sizes, and what they draw is what the run's `.mco` holds, read back from the written text.

use std::path::Path;

use reconverge_mcml::builtin::van_de_hulst;
use reconverge_mcml::mco::write_mco;
use reconverge_mcml::mco_file::{McoFile, read_mco};
use reconverge_mcml::plot::{
    PICTURES, PlotError, RunPlots, Series, check_plot_files, plot_files, plot_stem, write_plots,
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
    assert_eq!(plots.a_z.y.len(), 39);
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
    assert_eq!((map.r.len(), map.z.len()), (39, 39));
    for ir in 0..39 {
        for iz in 0..39 {
            let (drawn, read) = (map.phi[ir * 39 + iz], phi[ir * 40 + iz]);
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
            svg.contains("test glass_on_tissue, run glass.mco: 4000 photons, 2 layers"),
            "{picture}: the caption"
        );
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
