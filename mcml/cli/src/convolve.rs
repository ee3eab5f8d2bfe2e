//! `--beam` and `--convolve`: finite beams checked before any photon, and the convolved
//! responses written after a run.

use reconverge_mcml::RunResult;
use reconverge_mcml::finite_beam::{
    Beam, ConvolveOptions, Interpolation, beam_label, convolve_result, text::write_conv_files,
};

use crate::args::{Args, InterpolationArg};

/// `--beam` and `--convolve` together: refused before any photon where they cannot work.
pub(crate) fn check_beams(args: &Args, from_file: bool) -> Result<(), String> {
    if args.convolve.is_empty() {
        return Ok(());
    }
    if args.beam != Beam::Pencil {
        return Err(format!(
            "--convolve needs the pencil beam's responses: drop --beam {} (or run twice)",
            beam_label(args.beam)
        ));
    }
    if args.convolve.contains(&Beam::Pencil) {
        return Err(
            "--convolve pencil: the pencil beam is the run itself; choose gaussian:R or flat:R"
                .into(),
        );
    }
    if !from_file && args.output.is_none() {
        return Err(
            "--convolve writes next to the .mco: give --output FILE.mco (or --input)".into(),
        );
    }
    Ok(())
}

/// A `--convolve` beam's tag in file names: `flat_0.1cm`.
fn beam_tag(beam: Beam) -> String {
    beam_label(beam).replace(':', "_") + "cm"
}

/// The stem of a `--convolve` beam's pictures beside the run's: `STEM.flat_0.1cm`.
pub(crate) fn convolved_stem(stem: &str, beam: Beam) -> String {
    format!("{stem}.{}", beam_tag(beam))
}

pub(crate) fn interpolation(args: &Args) -> Interpolation {
    match args.convolve_interpolation {
        InterpolationArg::Conv => Interpolation::Conv,
        InterpolationArg::Bins => Interpolation::Bins,
    }
}

/// `--convolve`: each beam's responses from `result`, written next to its `.mco` at `mco`
/// (`<stem>.<kind>_<R>cm.Rrc` etc.); says what it wrote and returns the responses.
pub(crate) fn write_convolutions(
    args: &Args,
    result: &RunResult,
    mco: &std::path::Path,
) -> Result<Vec<reconverge_mcml::finite_beam::BeamResponse>, String> {
    let g = result.input.grid;
    let output_grid = match (args.convolve_dr, args.convolve_nr) {
        (None, None) => None,
        (dr, nr) => {
            let dr = dr.unwrap_or(g.dr);
            // The run's extent at the new width; a refused width is the convolution's to say.
            let cover = (f64::from(g.nr) * g.dr / dr).round();
            let nr = nr.unwrap_or(if cover.is_finite() && cover >= 1.0 {
                cover.min(f64::from(u32::MAX)) as u32
            } else {
                1
            });
            Some((dr, nr))
        }
    };
    let options = ConvolveOptions {
        interpolation: interpolation(args),
        output_grid,
        ..ConvolveOptions::default()
    };
    let mut responses = Vec::new();
    let dir = mco.parent().unwrap_or(std::path::Path::new("."));
    let stem = mco
        .file_stem()
        .map_or_else(|| "mcml".into(), |s| s.to_string_lossy().into_owned());
    for &beam in &args.convolve {
        let response = convolve_result(result, beam, &options).map_err(|e| e.to_string())?;
        let tag = beam_tag(beam);
        let how = format!(
            "convolved from the pencil-beam responses of {} ({} photons), {:?} interpolation",
            mco.display(),
            result.photons,
            options.interpolation
        );
        let files = write_conv_files(&response, dir, &format!("{stem}.{tag}"), &how)
            .map_err(|e| format!("--convolve {}: {e}", beam_label(beam)))?;
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        println!(
            "  {} beam (convolved): wrote {}",
            beam_label(beam),
            names.join(", ")
        );
        responses.push(response);
    }
    Ok(responses)
}
