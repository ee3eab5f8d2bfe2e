//! Whole `.mco` files read back: the input echo (`InParm`), `RAT` and every array MCML writes
//! (`A_l`, `A_z`, `Rd_r`, `Rd_a`, `Tt_r`, `Tt_a`, `A_rz`, `Rd_ra`, `Tt_ra`), as [`McoFile`].
//!
//! The reader takes what [`crate::mco::write_mco`] and MCML 1.2 write (`shared/notes/
//! mcml-formats.md`, section 2), by MCML's own reading rules: blank lines and text after `#`
//! are skipped, fields are separated by blanks and tabs. Each section starts with its keyword
//! on a line of its own, in MCML's order; the numbers of a two-dimensional array may be laid
//! out on any number of lines. Every error names the file, the 1-based line and what was
//! expected there.
//!
//! [`McoFile::from_result`] gives the same numbers straight from a run, unrounded: a result
//! written with `write_mco` and read back equals it to the file's 4 or 6 significant digits.
//!
//! ```
//! use reconverge_mcml::builtin::van_de_hulst;
//! use reconverge_mcml::mco::write_mco;
//! use reconverge_mcml::mco_file::{McoFile, parse_mco};
//!
//! let result = reconverge_mcml::run(&van_de_hulst(), 2_000, 1).unwrap();
//! let read = parse_mco(&write_mco(&result, 0.5), "vdh.mco").unwrap();
//! let direct = McoFile::from_result(&result);
//! assert_eq!(read.input.layers, direct.input.layers);
//! assert_eq!(read.rd_r.len(), 50);
//! for (a, b) in read.rd_r.iter().zip(&direct.rd_r) {
//!     assert!((a - b).abs() <= 1e-4 * b.abs()); // %12.4E keeps 5 significant digits
//! }
//! ```

use std::f64::consts::PI;
use std::path::Path;

use reconverge_workloads::mcml::{GridSpec, LayerSpec};

use crate::batch::quote_name;
use crate::mci::LAYER_RULES;
use crate::mco::Rat;
use crate::{OutputFormat, RunInput, RunLines, RunResult};

/// Largest value of a C `short`, the type MCML writes grid counts as.
const SHORT_MAX: u32 = i16::MAX as u32;

/// Everything an `.mco` file holds, as numbers. Arrays are flat, in the file's order: `A_rz`
/// is r outer, z inner (`a_rz[ir * nz + iz]`); `Rd_ra` and `Tt_ra` r outer, angle inner.
#[derive(Clone, Debug, PartialEq)]
pub struct McoFile {
    /// The run's input as the `InParm` section echoes it (photons: the photons run). Its
    /// `line` and `lines` are the lines of the `.mco` file (0 for [`McoFile::from_result`]).
    pub input: RunInput,
    /// The `# User time:` of the header, in seconds, if the file has one.
    pub user_time: Option<f64>,
    /// Specular reflectance, diffuse reflectance, absorbed fraction, transmittance.
    pub rat: Rat,
    /// Absorbed fraction per layer.
    pub a_l: Vec<f64>,
    /// Absorption per unit depth (1/cm), `nz` values.
    pub a_z: Vec<f64>,
    /// Diffuse reflectance per unit area (1/cm²), `nr` values.
    pub rd_r: Vec<f64>,
    /// Diffuse reflectance per unit solid angle (1/sr), `na` values.
    pub rd_a: Vec<f64>,
    /// Transmittance per unit area (1/cm²), `nr` values.
    pub tt_r: Vec<f64>,
    /// Transmittance per unit solid angle (1/sr), `na` values.
    pub tt_a: Vec<f64>,
    /// Absorption density (1/cm³), `nr × nz` values.
    pub a_rz: Vec<f64>,
    /// Diffuse reflectance (1/(cm² sr)), `nr × na` values.
    pub rd_ra: Vec<f64>,
    /// Transmittance (1/(cm² sr)), `nr × na` values.
    pub tt_ra: Vec<f64>,
}

impl McoFile {
    /// The numbers [`crate::mco::write_mco`] writes for `result`, before rounding; the user time
    /// is the run's wall time.
    pub fn from_result(result: &RunResult) -> Self {
        let mut input = result.input.clone();
        input.photons = result.photons;
        Self {
            input,
            user_time: Some(result.elapsed.as_secs_f64()),
            rat: Rat {
                rsp: result.rsp,
                rd: result.rd,
                a: result.a,
                tt: result.tt,
            },
            a_l: result.a_l(),
            a_z: result.a_z(),
            rd_r: result.rd_r(),
            rd_a: result.rd_a(),
            tt_r: result.tt_r(),
            tt_a: result.tt_a(),
            a_rz: result.a_rz(),
            rd_ra: result.rd_ra(),
            tt_ra: result.tt_ra(),
        }
    }

    /// Centres of the radial bins, `(ir + ½) dr` (cm).
    pub fn r_centres(&self) -> Vec<f64> {
        let g = self.input.grid;
        bin_centres(g.nr, g.dr)
    }

    /// Centres of the depth bins, `(iz + ½) dz` (cm).
    pub fn z_centres(&self) -> Vec<f64> {
        let g = self.input.grid;
        bin_centres(g.nz, g.dz)
    }

    /// Centres of the exit-angle bins, `(ia + ½) dα` with `dα = (π/2) / na` (radians).
    pub fn angle_centres(&self) -> Vec<f64> {
        let g = self.input.grid;
        bin_centres(g.na, 0.5 * PI / f64::from(g.na.max(1)))
    }
}

/// The centres `(i + ½) width` of `n` bins of `width` from 0.
pub(crate) fn bin_centres(n: u32, width: f64) -> Vec<f64> {
    (0..n).map(|i| (f64::from(i) + 0.5) * width).collect()
}

/// What was wrong with an `.mco` file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum McoReadErrorKind {
    /// The file ended before the named item.
    #[error("unexpected end of file, expected {expected}")]
    UnexpectedEof {
        /// What was expected.
        expected: String,
    },
    /// A field could not be read as what it must be.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What was expected.
        expected: String,
        /// What was there (quoted), or `end of line`.
        found: String,
    },
    /// A value breaks one of MCML's rules.
    #[error("{what} = {value} is invalid: must be {rule}")]
    Invalid {
        /// Which value.
        what: String,
        /// Its text.
        value: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// The file could not be read.
    #[error("cannot read the file: {message}")]
    Io {
        /// The operating system's kind of failure (not found, permission denied ...).
        kind: std::io::ErrorKind,
        /// Its message.
        message: String,
    },
}

/// An `.mco` error: file, 1-based line (the line after the last for an early end of file, 0
/// when the file could not be read) and what was wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {kind}")]
pub struct McoReadError {
    /// The file name as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub kind: McoReadErrorKind,
}

/// The data lines of a file (1-based number, fields) and a read position in them.
struct Reader {
    lines: Vec<(usize, Vec<String>)>,
    /// Next line.
    pos: usize,
    end_line: usize,
    file: String,
}

impl Reader {
    fn new(text: &str, file: &str) -> Self {
        let mut lines = Vec::new();
        let mut count = 0;
        for (i, raw) in text.lines().enumerate() {
            count = i + 1;
            let data = raw.split('#').next().unwrap_or("");
            let fields: Vec<String> = data.split_ascii_whitespace().map(str::to_string).collect();
            if !fields.is_empty() {
                lines.push((i + 1, fields));
            }
        }
        Self {
            lines,
            pos: 0,
            end_line: count + 1,
            file: file.to_string(),
        }
    }

    fn err(&self, line: usize, kind: McoReadErrorKind) -> McoReadError {
        McoReadError {
            file: self.file.clone(),
            line,
            kind,
        }
    }

    fn eof(&self, expected: &str) -> McoReadError {
        self.err(
            self.end_line,
            McoReadErrorKind::UnexpectedEof {
                expected: expected.to_string(),
            },
        )
    }

    /// The next data line: its number and fields.
    fn line(&mut self, expected: &str) -> Result<(usize, Vec<String>), McoReadError> {
        let line = self.lines.get(self.pos).cloned();
        self.pos += 1;
        line.ok_or_else(|| self.eof(expected))
    }

    /// Field `i` of a line, parsed; `expected` names it in the error.
    fn field<T: std::str::FromStr>(
        &self,
        (number, fields): &(usize, Vec<String>),
        i: usize,
        expected: &str,
    ) -> Result<T, McoReadError> {
        let bad = |found: String| {
            self.err(
                *number,
                McoReadErrorKind::Expected {
                    expected: expected.to_string(),
                    found,
                },
            )
        };
        let tok = fields.get(i).ok_or_else(|| bad("end of line".into()))?;
        tok.parse().map_err(|_| bad(quote_name(tok)))
    }

    /// A keyword line (`RAT`, `A_z` ...): the next data line must start with `keyword`.
    fn keyword(&mut self, keyword: &str) -> Result<(), McoReadError> {
        let expected = format!("the section {keyword}");
        let (number, fields) = self.line(&expected)?;
        if fields.first().map(String::as_str) != Some(keyword) {
            return Err(self.err(
                number,
                McoReadErrorKind::Expected {
                    expected,
                    found: quote_name(fields.first().map_or("", String::as_str)),
                },
            ));
        }
        Ok(())
    }

    /// Section `keyword` and its `count` numbers, laid out on any number of lines.
    fn array(&mut self, keyword: &str, count: usize, what: &str) -> Result<Vec<f64>, McoReadError> {
        self.keyword(keyword)?;
        let mut values = Vec::new();
        while values.len() < count {
            let expected = format!(
                "value {} of {count} of {keyword} ({what})",
                values.len() + 1
            );
            let (number, fields) = self.line(&expected)?;
            for tok in fields.iter().take(count - values.len()) {
                let expected = format!(
                    "value {} of {count} of {keyword} ({what})",
                    values.len() + 1
                );
                let v: f64 = tok.parse().map_err(|_| {
                    self.err(
                        number,
                        McoReadErrorKind::Expected {
                            expected,
                            found: quote_name(tok),
                        },
                    )
                })?;
                values.push(v);
            }
        }
        Ok(values)
    }
}

/// A grid count: 1 to 32767 (MCML's `short`).
fn grid_count(
    r: &Reader,
    line: &(usize, Vec<String>),
    i: usize,
    name: &str,
) -> Result<u32, McoReadError> {
    let v: i64 = r.field(line, i, name)?;
    u32::try_from(v)
        .ok()
        .filter(|v| (1..=SHORT_MAX).contains(v))
        .ok_or_else(|| {
            r.err(
                line.0,
                McoReadErrorKind::Invalid {
                    what: name.to_string(),
                    value: v.to_string(),
                    rule: "> 0 and <= 32767",
                },
            )
        })
}

/// A finite number that must satisfy `ok` (`rule` says how).
fn value(
    r: &Reader,
    line: &(usize, Vec<String>),
    i: usize,
    what: &str,
    ok: impl Fn(f64) -> bool,
    rule: &'static str,
) -> Result<f64, McoReadError> {
    let v: f64 = r.field(line, i, what)?;
    if v.is_finite() && ok(v) {
        Ok(v)
    } else {
        Err(r.err(
            line.0,
            McoReadErrorKind::Invalid {
                what: what.to_string(),
                value: v.to_string(),
                rule,
            },
        ))
    }
}

/// The `# User time: <seconds> sec` of the header, if any.
fn user_time(text: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.split_once("User time:"))
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
}

/// The beam a `# Beam: gaussian:0.1 (...)` comment names (`write_mco` writes one for a run
/// that sampled a finite beam), if any.
fn beam_comment(text: &str) -> Option<crate::finite_beam::Beam> {
    text.lines()
        .find_map(|l| {
            l.trim_start()
                .strip_prefix('#')?
                .trim()
                .strip_prefix("Beam:")
        })
        .and_then(|rest| crate::finite_beam::parse_beam(rest.split_whitespace().next()?).ok())
}

/// Parses `.mco` text. `file` names the source in errors.
pub fn parse_mco(text: &str, file: &str) -> Result<McoFile, McoReadError> {
    let mut r = Reader::new(text, file);
    r.line("the file version (A1)")?;
    r.keyword("InParm")?;
    let mut lines = RunLines::default();
    let name_line = r.line("the output file name and format")?;
    let output_file: String = r.field(&name_line, 0, "the output file name")?;
    let format = match name_line.1.get(1).map(String::as_str) {
        Some(f) if f.starts_with('B') || f.starts_with('b') => OutputFormat::Binary,
        _ => OutputFormat::Ascii,
    };
    let l = r.line("the number of photons")?;
    lines.photons = l.0;
    let photons: u64 = r.field(&l, 0, "the number of photons")?;
    if photons == 0 {
        return Err(r.err(
            l.0,
            McoReadErrorKind::Invalid {
                what: "the number of photons".into(),
                value: "0".into(),
                rule: "> 0",
            },
        ));
    }
    let l = r.line("dz and dr")?;
    lines.grid_sizes = l.0;
    let positive = |v: f64| v > 0.0;
    let dz = value(&r, &l, 0, "dz (cm)", positive, "> 0")?;
    let dr = value(&r, &l, 1, "dr (cm)", positive, "> 0")?;
    let l = r.line("nz, nr and na")?;
    lines.grid_counts = l.0;
    let nz = grid_count(&r, &l, 0, "nz")?;
    let nr = grid_count(&r, &l, 1, "nr")?;
    let na = grid_count(&r, &l, 2, "na")?;
    let l = r.line("the number of layers")?;
    let num_layers = grid_count(&r, &l, 0, "the number of layers")? as usize;
    let l = r.line("the refractive index of the medium above")?;
    lines.n_above = l.0;
    let n_above = value(&r, &l, 0, "n of the medium above", positive, "> 0")?;
    let mut layers = Vec::new();
    for k in 1..=num_layers {
        let l = r.line("a layer line: n mua mus g d")?;
        if let Some(slot) = lines.layers.get_mut(k - 1) {
            *slot = l.0;
        }
        let mut fields = [0.0; 5];
        for (i, (field, (name, ok, rule))) in fields.iter_mut().zip(LAYER_RULES).enumerate() {
            *field = value(&r, &l, i, &format!("{name} of layer {k}"), ok, rule)?;
        }
        let [n, mua, mus, g, d] = fields;
        layers.push(LayerSpec { n, mua, mus, g, d });
    }
    let l = r.line("the refractive index of the medium below")?;
    lines.n_below = l.0;
    let n_below = value(&r, &l, 0, "n of the medium below", positive, "> 0")?;

    let rat = r.array("RAT", 4, "Rsp, Rd, A, Tt")?;
    let (nz_, nr_, na_) = (nz as usize, nr as usize, na as usize);
    let a_l = r.array("A_l", num_layers, "one per layer")?;
    let a_z = r.array("A_z", nz_, "one per z bin")?;
    let rd_r = r.array("Rd_r", nr_, "one per r bin")?;
    let rd_a = r.array("Rd_a", na_, "one per angle bin")?;
    let tt_r = r.array("Tt_r", nr_, "one per r bin")?;
    let tt_a = r.array("Tt_a", na_, "one per angle bin")?;
    let a_rz = r.array("A_rz", nr_ * nz_, "nr x nz, r outer")?;
    let rd_ra = r.array("Rd_ra", nr_ * na_, "nr x na, r outer")?;
    let tt_ra = r.array("Tt_ra", nr_ * na_, "nr x na, r outer")?;
    Ok(McoFile {
        input: RunInput {
            output_file,
            format,
            photons,
            grid: GridSpec { dz, dr, nz, nr, na },
            n_above,
            layers,
            n_below,
            line: name_line.0,
            lines,
            // MCML's pencil beam, unless a `# Beam:` comment of `write_mco` names a sampled one.
            beam: beam_comment(text).unwrap_or_default(),
        },
        user_time: user_time(text),
        rat: Rat {
            rsp: rat[0],
            rd: rat[1],
            a: rat[2],
            tt: rat[3],
        },
        a_l,
        a_z,
        rd_r,
        rd_a,
        tt_r,
        tt_a,
        a_rz,
        rd_ra,
        tt_ra,
    })
}

/// Reads and parses an `.mco` file; I/O failures are [`McoReadErrorKind::Io`] (line 0), a file
/// that is not UTF-8 text is refused with the line of its first bad byte.
pub fn read_mco(path: &Path) -> Result<McoFile, McoReadError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| McoReadError {
        file: file.clone(),
        line: 0,
        kind: McoReadErrorKind::Io {
            kind: e.kind(),
            message: e.to_string(),
        },
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
        McoReadError {
            file: file.clone(),
            line,
            kind: McoReadErrorKind::Expected {
                expected: "text (an ASCII .mco file)".into(),
                found: format!("a byte that is not UTF-8 at byte {at}"),
            },
        }
    })?;
    parse_mco(&text, &file)
}
