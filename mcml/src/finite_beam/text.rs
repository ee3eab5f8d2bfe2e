//! CONV-like text output of a finite beam's responses.
//!
//! CONV writes one file per quantity (`Rrc`, `Trc`, `Arzc`, `Frzc`), tab-separated columns
//! with a header line naming them and their units, numbers in `%-12.4E`. [`write_conv_files`]
//! writes the same four files, named `<stem>.Rrc`, `<stem>.Trc`, `<stem>.Arzc` and
//! `<stem>.Frzc`, with a `#` before the header line and a `#` comment naming the beam (so that
//! `numpy.loadtxt` and gnuplot skip both):
//!
//! | file | columns |
//! | --- | --- |
//! | `.Rrc` | `r [cm]`, diffuse reflectance `Rd [J/cm2]` |
//! | `.Trc` | `r [cm]`, transmittance `Tt [J/cm2]` |
//! | `.Arzc` | `r [cm]`, `z [cm]`, absorbed energy density `A [J/cm3]`, z fastest |
//! | `.Frzc` | `r [cm]`, `z [cm]`, fluence `F [J/cm2]` (A / µa; 0 where µa = 0), z fastest |
//!
//! Units are CONV's, for a beam of total energy `P` in J; for a power in W read W for J.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{BeamResponse, beam_label};
use crate::cfmt::fmt_e;

/// The beam line heading every file.
fn beam_comment(resp: &BeamResponse, how: &str) -> String {
    let what = match resp.beam {
        super::Beam::Gaussian { radius } => format!("Gaussian beam, 1/e2 radius {radius} cm"),
        super::Beam::Flat { radius } => format!("flat beam, radius {radius} cm"),
        super::Beam::Pencil => "pencil beam".into(),
    };
    format!(
        "# {what} ({}), total energy {} J; {how}\n",
        beam_label(resp.beam),
        resp.power
    )
}

fn num(x: f64) -> String {
    format!("{:<12}", fmt_e(x, 4))
}

/// The four files' names (suffixes) and texts: `Rrc`, `Trc`, `Arzc`, `Frzc`. `how` says where
/// the numbers come from (it goes into each file's first line).
pub fn conv_texts(resp: &BeamResponse, how: &str) -> [(&'static str, String); 4] {
    let head = beam_comment(resp, how);
    let radial = |name: &str, values: &[f64]| {
        let mut s = head.clone();
        let _ = writeln!(s, "# {:<12}\t{name}[J/cm2]", "r[cm]");
        for (r, v) in resp.r.iter().zip(values) {
            let _ = writeln!(s, "{}\t{}", num(*r), num(*v));
        }
        s
    };
    let nz = resp.z.len();
    let rz = |name: &str, unit: &str, values: &[f64]| {
        let mut s = head.clone();
        let _ = writeln!(s, "# {:<12}\t{:<12}\t{name}[{unit}]", "r[cm]", "z[cm]");
        for (ir, r) in resp.r.iter().enumerate() {
            for (iz, z) in resp.z.iter().enumerate() {
                let v = values.get(ir * nz + iz).copied().unwrap_or(0.0);
                let _ = writeln!(s, "{}\t{}\t{}", num(*r), num(*z), num(v));
            }
        }
        s
    };
    [
        ("Rrc", radial("Rd", &resp.rd_r)),
        ("Trc", radial("Tt", &resp.tt_r)),
        ("Arzc", rz("A", "J/cm3", &resp.a_rz)),
        ("Frzc", rz("F", "J/cm2", &resp.fluence_rz)),
    ]
}

/// Writes [`conv_texts`] as `<dir>/<stem>.Rrc` etc.; returns the paths written.
pub fn write_conv_files(
    resp: &BeamResponse,
    dir: &Path,
    stem: &str,
    how: &str,
) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (suffix, text) in conv_texts(resp, how) {
        let path = dir.join(format!("{stem}.{suffix}"));
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}
