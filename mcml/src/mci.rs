//! The `.mci` input format of MCML 1.2 (see `shared/notes/mcml-formats.md`, section 1).
//!
//! Reading rules, as MCML's `FindDataLine`/`CheckChar`: a line that is empty, blank or whose first
//! non-blank character is `#` is skipped; text after `#` is a comment; characters other than
//! printable ASCII, space and tab are dropped (so CRLF files read fine), except on the output
//! file name's line, where a non-ASCII byte is an error: MCML refuses such names, and dropping
//! the bytes would write another file than the one named. Fields are separated by
//! blanks and tabs; extra fields on a line are ignored (MCML reads them with `sscanf`).
//!
//! Stricter than MCML, on purpose: a field must be a whole number token (MCML's `sscanf` would
//! read `1.5` as `1` for an integer, or `0.1abc` as `0.1`); non-finite numbers are refused; lines
//! are not cut at 254 characters; and at most [`MAX_LAYERS`] layers are accepted (the parameter
//! block is fixed-size for the GPU).

use std::fmt::Write as _;
use std::path::Path;

use reconverge_workloads::mcml::{
    Beam, GridSpec, LayerSpec, MAX_LAYERS, McmlFloat, McmlParams, ParamError,
};

/// Largest value of a C `short`, the type MCML reads counts into.
const SHORT_MAX: i64 = i16::MAX as i64;

/// A field of a layer line: its name, the test its value must pass and the rule as the error
/// states it.
pub(crate) type LayerRule = (&'static str, fn(f64) -> bool, &'static str);

/// MCML's rules for the fields of a layer line (`n mua mus g d`, in order). The `.mci` parser
/// and the `.mco` reader both check them.
pub(crate) const LAYER_RULES: [LayerRule; 5] = [
    ("n", |v| v > 0.0, "> 0"),
    ("mua", |v| v >= 0.0, ">= 0"),
    ("mus", |v| v >= 0.0, ">= 0"),
    ("g", |v| (0.0..=1.0).contains(&v), "between 0 and 1"),
    ("d", |v| v >= 0.0, ">= 0"),
];

/// MCML's output format letter. Only the header (`A1`/`B1`) differs; both are written as ASCII.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// `A` (and any letter other than `B`/`b`).
    #[default]
    Ascii,
    /// `B` or `b`.
    Binary,
}

/// One simulation run of an `.mci` file (lines 3–10 of the format).
#[derive(Clone, Debug, PartialEq)]
pub struct RunInput {
    /// Output file name (unique within a file).
    pub output_file: String,
    /// Output format letter.
    pub format: OutputFormat,
    /// Number of photon packets (> 0).
    pub photons: u64,
    /// Scoring grid.
    pub grid: GridSpec,
    /// Refractive index of the medium above.
    pub n_above: f64,
    /// Tissue layers, top to bottom.
    pub layers: Vec<LayerSpec>,
    /// Refractive index of the medium below.
    pub n_below: f64,
    /// The line of the output file name in the source file (0 if not read from a file).
    pub line: usize,
    /// The lines of the run's other values (all 0 if not read from a file).
    pub lines: RunLines,
    /// The incident beam. `.mci` files have none (MCML's beam is the pencil beam, which
    /// [`parse_mci`] sets); a driver's caller may set a Gaussian or flat beam, which the photons
    /// then sample ([`Beam`]).
    pub beam: Beam,
}

/// Where a run's values are in its `.mci` file: 1-based line numbers, 0 when unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RunLines {
    /// The number of photons.
    pub photons: usize,
    /// `dz dr`.
    pub grid_sizes: usize,
    /// `nz nr na`.
    pub grid_counts: usize,
    /// The medium above.
    pub n_above: usize,
    /// Each layer's line (the first `layers.len()` entries).
    pub layers: [usize; MAX_LAYERS],
    /// The medium below.
    pub n_below: usize,
}

impl RunLines {
    /// The line holding `field`.
    pub fn line(&self, field: crate::limits::Field) -> usize {
        use crate::limits::Field;
        match field {
            Field::Photons => self.photons,
            Field::GridSizes => self.grid_sizes,
            Field::GridCounts => self.grid_counts,
            Field::NAbove => self.n_above,
            Field::Layer(k) => k
                .checked_sub(1)
                .and_then(|i| self.layers.get(i))
                .copied()
                .unwrap_or(0),
            Field::NBelow => self.n_below,
        }
    }
}

impl RunInput {
    /// The physics parameters of this run in float type `F`.
    pub fn params<F: McmlFloat>(&self) -> Result<McmlParams<F>, ParamError> {
        McmlParams::new(self.n_above, &self.layers, self.n_below, self.grid)?.with_beam(self.beam)
    }
}

/// A whole `.mci` file: its runs, in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct McInput {
    /// The runs.
    pub runs: Vec<RunInput>,
}

/// What was wrong with an `.mci` file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MciErrorKind {
    /// The file ended before the named item.
    #[error("unexpected end of file, expected {expected}")]
    UnexpectedEof {
        /// What was expected.
        expected: &'static str,
    },
    /// A field could not be read as what it must be.
    #[error("expected {expected}, found {found:?}")]
    Expected {
        /// What was expected.
        expected: &'static str,
        /// What was there (`"end of line"` for a missing field).
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
    /// Two runs write the same output file.
    #[error("output file {name:?} is also written by the run on line {first_line}")]
    DuplicateOutput {
        /// The file name.
        name: String,
        /// Line of the first run using it.
        first_line: usize,
    },
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
}

/// An `.mci` error: file, 1-based line number (the line after the last for an early end of
/// file, 0 when the file could not be read) and what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {kind}")]
pub struct MciError {
    /// The file name as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub kind: MciErrorKind,
}

/// `text` as quoted in an error: whole up to 80 characters, else its first 80 and its length,
/// so that a 10 MB token gives a short message.
fn cut(text: &str) -> String {
    let quoted = crate::batch::quote_name(text);
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        quoted
    }
}

/// Data lines of a file: (1-based line number, fields, the raw data part when it held
/// non-ASCII bytes).
struct Lines {
    lines: Vec<(usize, Vec<String>, Option<String>)>,
    pos: usize,
    end_line: usize,
    file: String,
}

impl Lines {
    fn new(bytes: &[u8], file: &str) -> Self {
        let mut lines = Vec::new();
        let mut count = 0;
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            count = i + 1;
            let clean: String = raw
                .iter()
                .filter(|&&b| b == b'\t' || (b' '..=b'~').contains(&b))
                .map(|&b| b as char)
                .collect();
            let data = clean.split('#').next().unwrap_or("");
            let fields: Vec<String> = data.split_ascii_whitespace().map(str::to_string).collect();
            let raw_data = raw.split(|&b| b == b'#').next().unwrap_or(&[]);
            let non_ascii = raw_data
                .iter()
                .any(|b| !b.is_ascii())
                .then(|| String::from_utf8_lossy(raw_data).trim().to_string());
            if !fields.is_empty() {
                lines.push((i + 1, fields, non_ascii));
            }
        }
        Self {
            lines,
            pos: 0,
            end_line: count + 1,
            file: file.to_string(),
        }
    }

    fn err(&self, line: usize, kind: MciErrorKind) -> MciError {
        MciError {
            file: self.file.clone(),
            line,
            kind,
        }
    }

    /// The refractive index of the medium above or below the layers, on the next line (which
    /// `line` records): a positive number, `what` in the error otherwise.
    fn medium_index(
        &mut self,
        expected: &'static str,
        what: &str,
        line: &mut usize,
    ) -> Result<f64, MciError> {
        let l = self.next(expected)?;
        *line = l.number;
        let n = l.float(0, expected)?;
        if n <= 0.0 {
            return Err(l.invalid(what.into(), 0, "> 0"));
        }
        Ok(n)
    }

    /// The next data line, or an end-of-file error naming what was expected.
    fn next(&mut self, expected: &'static str) -> Result<Line<'_>, MciError> {
        match self.lines.get(self.pos) {
            Some((n, fields, non_ascii)) => {
                self.pos += 1;
                Ok(Line {
                    number: *n,
                    fields,
                    non_ascii: non_ascii.as_deref(),
                    file: &self.file,
                })
            }
            None => Err(self.err(self.end_line, MciErrorKind::UnexpectedEof { expected })),
        }
    }
}

struct Line<'a> {
    number: usize,
    fields: &'a [String],
    non_ascii: Option<&'a str>,
    file: &'a str,
}

impl Line<'_> {
    fn err(&self, kind: MciErrorKind) -> MciError {
        MciError {
            file: self.file.to_string(),
            line: self.number,
            kind,
        }
    }

    fn field(&self, i: usize, expected: &'static str) -> Result<&str, MciError> {
        self.fields.get(i).map(String::as_str).ok_or_else(|| {
            self.err(MciErrorKind::Expected {
                expected,
                found: "end of line".into(),
            })
        })
    }

    fn int(&self, i: usize, expected: &'static str, min: i64, max: i64) -> Result<i64, MciError> {
        let tok = self.field(i, expected)?;
        let v: i64 = tok.parse().map_err(|_| {
            self.err(MciErrorKind::Expected {
                expected,
                found: cut(tok),
            })
        })?;
        if v < min || v > max {
            let rule = if max == SHORT_MAX {
                "> 0 and <= 32767"
            } else if max == MAX_LAYERS as i64 {
                "> 0 and <= 16 (reconverge's layer limit)"
            } else {
                "> 0"
            };
            return Err(self.err(MciErrorKind::Invalid {
                what: expected.to_string(),
                value: cut(tok),
                rule,
            }));
        }
        Ok(v)
    }

    fn float(&self, i: usize, expected: &'static str) -> Result<f64, MciError> {
        let tok = self.field(i, expected)?;
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.err(MciErrorKind::Expected {
                expected,
                found: cut(tok),
            })),
        }
    }

    fn invalid(&self, what: String, i: usize, rule: &'static str) -> MciError {
        let value = self.fields.get(i).map(|f| cut(f)).unwrap_or_default();
        self.err(MciErrorKind::Invalid { what, value, rule })
    }
}

/// Parses `.mci` text. `file` names the source in errors.
pub fn parse_mci(text: &str, file: &str) -> Result<McInput, MciError> {
    parse_mci_bytes(text.as_bytes(), file)
}

/// Parses `.mci` bytes (any bytes: non-printable ones are dropped as MCML does, and a
/// non-ASCII byte in an output file name is refused).
pub fn parse_mci_bytes(bytes: &[u8], file: &str) -> Result<McInput, MciError> {
    let mut lines = Lines::new(bytes, file);
    lines.next("the file version")?;
    let num_runs = {
        let l = lines.next("the number of runs")?;
        l.int(0, "the number of runs", 1, SHORT_MAX)?
    };
    let mut runs: Vec<RunInput> = Vec::new();
    for _ in 0..num_runs {
        let run = parse_run(&mut lines)?;
        if let Some(first) = runs.iter().find(|r| r.output_file == run.output_file) {
            return Err(MciError {
                file: file.to_string(),
                line: run.line,
                kind: MciErrorKind::DuplicateOutput {
                    name: cut(&run.output_file),
                    first_line: first.line,
                },
            });
        }
        runs.push(run);
    }
    Ok(McInput { runs })
}

fn parse_run(lines: &mut Lines) -> Result<RunInput, MciError> {
    let mut at = RunLines::default();
    let (output_file, format, line) = {
        let l = lines.next("the output file name and format")?;
        let name = l.field(0, "the output file name")?.to_string();
        // Elsewhere a non-ASCII byte is dropped as MCML drops it; in a file name that would
        // write another file than the one named (`résumé.mco` as `rsum.mco`).
        if let Some(raw) = l.non_ascii {
            return Err(l.err(MciErrorKind::Invalid {
                what: "the output file name".into(),
                value: crate::batch::quote_name(raw.split_whitespace().next().unwrap_or(raw))
                    .trim_matches('"')
                    .to_string(),
                rule: "ASCII (MCML accepts ASCII file names only)",
            }));
        }
        let format = match l.fields.get(1).map(String::as_str) {
            Some(f) if f.starts_with('B') || f.starts_with('b') => OutputFormat::Binary,
            _ => OutputFormat::Ascii,
        };
        (name, format, l.number)
    };
    let photons = {
        let l = lines.next("the number of photons")?;
        at.photons = l.number;
        l.int(0, "the number of photons", 1, i64::MAX)? as u64
    };
    let (dz, dr) = {
        let l = lines.next("dz and dr")?;
        at.grid_sizes = l.number;
        let dz = l.float(0, "dz (cm)")?;
        let dr = l.float(1, "dr (cm)")?;
        if dz <= 0.0 {
            return Err(l.invalid("dz".into(), 0, "> 0"));
        }
        if dr <= 0.0 {
            return Err(l.invalid("dr".into(), 1, "> 0"));
        }
        (dz, dr)
    };
    let (nz, nr, na) = {
        let l = lines.next("nz, nr and na")?;
        at.grid_counts = l.number;
        (
            l.int(0, "nz", 1, SHORT_MAX)? as u32,
            l.int(1, "nr", 1, SHORT_MAX)? as u32,
            l.int(2, "na", 1, SHORT_MAX)? as u32,
        )
    };
    let num_layers = {
        let l = lines.next("the number of layers")?;
        l.int(0, "the number of layers", 1, MAX_LAYERS as i64)? as usize
    };
    let n_above = lines.medium_index(
        "the refractive index of the medium above",
        "n of the medium above",
        &mut at.n_above,
    )?;
    let mut layers = Vec::with_capacity(num_layers);
    for i in 1..=num_layers {
        let l = lines.next("a layer line: n mua mus g d")?;
        if let Some(slot) = at.layers.get_mut(i - 1) {
            *slot = l.number;
        }
        let spec = LayerSpec {
            n: l.float(0, "the layer's refractive index n")?,
            mua: l.float(1, "the layer's mua (1/cm)")?,
            mus: l.float(2, "the layer's mus (1/cm)")?,
            g: l.float(3, "the layer's anisotropy g")?,
            d: l.float(4, "the layer's thickness d (cm)")?,
        };
        let fields = [spec.n, spec.mua, spec.mus, spec.g, spec.d];
        for (k, ((name, ok, rule), v)) in LAYER_RULES.into_iter().zip(fields).enumerate() {
            if !ok(v) {
                return Err(l.invalid(format!("{name} of layer {i}"), k, rule));
            }
        }
        layers.push(spec);
    }
    let n_below = lines.medium_index(
        "the refractive index of the medium below",
        "n of the medium below",
        &mut at.n_below,
    )?;
    Ok(RunInput {
        output_file,
        format,
        photons,
        grid: GridSpec { dz, dr, nz, nr, na },
        n_above,
        layers,
        n_below,
        line,
        lines: at,
        beam: Beam::Pencil,
    })
}

/// Reads and parses an `.mci` file; I/O failures are reported as [`MciErrorKind::Io`].
pub fn read_mci(path: &Path) -> Result<McInput, MciError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| MciError {
        file: name.clone(),
        line: 0,
        kind: MciErrorKind::Io(e.to_string()),
    })?;
    parse_mci_bytes(&bytes, &name)
}

/// A float in a form that reads back to the same bits (Rust's shortest round-trip digits).
fn num(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

impl McInput {
    /// Prints the input as `.mci` text that [`parse_mci`] reads back to the same values.
    pub fn to_mci(&self) -> String {
        let mut s = String::new();
        s.push_str("# Written by reconverge-mcml. Lengths in cm, mua and mus in 1/cm.\n");
        s.push_str("1.0\t\t\t# file version\n");
        let _ = writeln!(s, "{}\t\t\t# number of runs\n", self.runs.len());
        for r in &self.runs {
            s.push_str(&r.to_mci_run());
        }
        s
    }
}

impl RunInput {
    /// What is allowed but almost certainly a mistake, one sentence each with its place (the
    /// line in the `.mci` file where it came from one): a refractive index below 1. MCML 1.2
    /// runs such an input without a word, and so does this crate (an index below 1 is real
    /// physics for X-rays, not for tissue); the `mcml` program prints these on stderr and the
    /// Python package raises them as `UserWarning`s.
    pub fn warnings(&self) -> Vec<String> {
        use crate::limits::Field;
        let mut media = vec![(Field::NAbove, "the medium above".to_string(), self.n_above)];
        for (i, l) in self.layers.iter().enumerate() {
            media.push((Field::Layer(i + 1), format!("layer {}", i + 1), l.n));
        }
        media.push((Field::NBelow, "the medium below".to_string(), self.n_below));
        media
            .into_iter()
            .filter(|&(_, _, n)| n < 1.0)
            .map(|(field, what, n)| {
                let line = self.lines.line(field);
                let place = if line > 0 {
                    format!("line {line}: ")
                } else {
                    String::new()
                };
                format!(
                    "{place}{what} has refractive index n = {n}, below vacuum's 1: allowed (MCML accepts it too) but almost always a typo"
                )
            })
            .collect()
    }

    /// This run's lines (3–10 of the format), as written inside an `.mci` file.
    pub fn to_mci_run(&self) -> String {
        let mut s = String::new();
        let letter = match self.format {
            OutputFormat::Ascii => 'A',
            OutputFormat::Binary => 'B',
        };
        let g = &self.grid;
        let _ = writeln!(
            s,
            "{}\t{letter}\t\t# output file name, format",
            self.output_file
        );
        let _ = writeln!(s, "{}\t\t\t# number of photons", self.photons);
        let _ = writeln!(s, "{}\t{}\t\t# dz, dr [cm]", num(g.dz), num(g.dr));
        let _ = writeln!(s, "{}\t{}\t{}\t# nz, nr, na", g.nz, g.nr, g.na);
        let _ = writeln!(s, "{}\t\t\t# number of layers", self.layers.len());
        s.push_str("# n\tmua\tmus\tg\td\n");
        let _ = writeln!(s, "{}\t\t\t# n for medium above", num(self.n_above));
        for (i, l) in self.layers.iter().enumerate() {
            let _ = writeln!(
                s,
                "{}\t{}\t{}\t{}\t{}\t# layer {}",
                num(l.n),
                num(l.mua),
                num(l.mus),
                num(l.g),
                num(l.d),
                i + 1
            );
        }
        let _ = writeln!(s, "{}\t\t\t# n for medium below\n", num(self.n_below));
        s
    }
}
