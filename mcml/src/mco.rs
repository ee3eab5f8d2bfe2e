//! The `.mco` output format of MCML 1.2 (ASCII), and a reader for its `RAT` section.

use std::fmt::Write as _;

use rayon::prelude::*;

use crate::cfmt::{fmt_g, push_e};
use crate::{OutputFormat, RunResult};

/// Characters of one `%12.4E` number: every finite and non-finite f64 fits in 12.
const NUMBER_WIDTH: usize = 12;

/// Values of a 2-D grid that one rayon task formats: a multiple of 5, so each task's text
/// starts a line of five.
const GRID_CHUNK: usize = 2_000;
const _: () = assert!(GRID_CHUNK.is_multiple_of(5));

/// Renders a result as an `.mco` file in MCML's section order and number formats.
/// `user_time` is the run time in seconds reported in the header.
pub fn write_mco(result: &RunResult, user_time: f64) -> String {
    let input = &result.input;
    let g = input.grid;
    let columns = [
        result.a_z(),
        result.rd_r(),
        result.rd_a(),
        result.tt_r(),
        result.tt_a(),
    ];
    let grids = [result.a_rz(), result.rd_ra(), result.tt_ra()];
    // The header, A_l and the sections' heads take a few kB; each number 13 bytes, and a
    // grid's a line break for every five.
    let numbers: usize = columns.iter().chain(&grids).map(Vec::len).sum();
    let mut s = String::with_capacity(4096 + 64 * input.layers.len() + numbers * 14);
    let version = match input.format {
        OutputFormat::Ascii => "A1",
        OutputFormat::Binary => "B1",
    };
    let _ = writeln!(s, "{version} \t# Version number of the file format.\n");
    s.push_str("####\n# Data categories include: \n# InParm, RAT, \n");
    s.push_str("# A_l, A_z, Rd_r, Rd_a, Tt_r, Tt_a, \n# A_rz, Rd_ra, Tt_ra \n####\n\n");
    let _ = writeln!(
        s,
        "# User time: {:8.2} sec = {:8.2} hr.  Simulation time of this run.\n",
        user_time,
        user_time / 3600.0
    );
    // MCML's beam is the pencil beam, which the file does not name; a sampled finite beam
    // (`RunInput::beam`) is said in a comment, which MCML's readers skip.
    if input.beam != reconverge_workloads::mcml::Beam::Pencil {
        let _ = writeln!(
            s,
            "# Beam: {} (sampled in the simulation: these are its responses, not a pencil beam's).\n",
            crate::finite_beam::beam_label(input.beam)
        );
    }

    s.push_str("InParm \t\t\t# Input parameters. cm is used.\n");
    let _ = writeln!(s, "{} \tA\t\t# output file name, ASCII.", input.output_file);
    let _ = writeln!(s, "{} \t\t\t# No. of photons", result.photons);
    let _ = writeln!(s, "{}\t{}\t\t# dz, dr [cm]", fmt_g(g.dz, 6), fmt_g(g.dr, 6));
    let _ = writeln!(s, "{}\t{}\t{}\t# No. of dz, dr, da.\n", g.nz, g.nr, g.na);
    let _ = writeln!(s, "{}\t\t\t\t\t# Number of layers", input.layers.len());
    s.push_str("#n\tmua\tmus\tg\td\t# One line for each layer\n");
    let _ = writeln!(
        s,
        "{}\t\t\t\t\t# n for medium above",
        fmt_g(input.n_above, 6)
    );
    for (i, l) in input.layers.iter().enumerate() {
        let _ = writeln!(
            s,
            "{}\t{}\t{}\t{}\t{}\t# layer {}",
            fmt_g(l.n, 6),
            fmt_g(l.mua, 6),
            fmt_g(l.mus, 6),
            fmt_g(l.g, 6),
            fmt_g(l.d, 6),
            i + 1
        );
    }
    let _ = writeln!(
        s,
        "{}\t\t\t\t\t# n for medium below\n",
        fmt_g(input.n_below, 6)
    );

    s.push_str("RAT #Reflectance, absorption, transmission. \n");
    let _ = writeln!(
        s,
        "{:<14} \t#Specular reflectance [-]",
        fmt_g(result.rsp, 6)
    );
    let _ = writeln!(s, "{:<14} \t#Diffuse reflectance [-]", fmt_g(result.rd, 6));
    let _ = writeln!(s, "{:<14} \t#Absorbed fraction [-]", fmt_g(result.a, 6));
    let _ = writeln!(s, "{:<14} \t#Transmittance [-]", fmt_g(result.tt, 6));
    s.push('\n');

    s.push_str("A_l #Absorption as a function of layer. [-]\n");
    for v in result.a_l() {
        let _ = writeln!(s, "{:>12}", fmt_g(v, 4));
    }
    s.push('\n');

    let column = |s: &mut String, head: &str, values: &[f64]| {
        s.push_str(head);
        s.push('\n');
        for &v in values {
            push_e(s, v, 4, NUMBER_WIDTH);
            s.push('\n');
        }
        s.push('\n');
    };
    let [a_z, rd_r, rd_a, tt_r, tt_a] = &columns;
    column(&mut s, "A_z #A[0], [1],..A[nz-1]. [1/cm]", a_z);
    column(&mut s, "Rd_r #Rd[0], [1],..Rd[nr-1]. [1/cm2]", rd_r);
    column(&mut s, "Rd_a #Rd[0], [1],..Rd[na-1]. [sr-1]", rd_a);
    column(&mut s, "Tt_r #Tt[0], [1],..Tt[nr-1]. [1/cm2]", tt_r);
    column(&mut s, "Tt_a #Tt[0], [1],..Tt[na-1]. [sr-1]", tt_a);

    let grid2d = |s: &mut String, head: [&str; 6], values: &[f64]| {
        for h in head {
            s.push_str(h);
            s.push('\n');
        }
        push_grid(s, values);
        s.push('\n');
    };
    for (head, values) in GRID_HEADS.iter().zip(&grids) {
        grid2d(&mut s, *head, values);
    }
    s
}

/// The comment lines and keyword before each 2-D grid, `A_rz`, `Rd_ra` and `Tt_ra`, as MCML
/// writes them.
const GRID_HEADS: [[&str; 6]; 3] = [
    [
        "# A[r][z]. [1/cm3]",
        "# A[0][0], [0][1],..[0][nz-1]",
        "# A[1][0], [1][1],..[1][nz-1]",
        "# ...",
        "# A[nr-1][0], [nr-1][1],..[nr-1][nz-1]",
        "A_rz",
    ],
    [
        "# Rd[r][angle]. [1/(cm2sr)].",
        "# Rd[0][0], [0][1],..[0][na-1]",
        "# Rd[1][0], [1][1],..[1][na-1]",
        "# ...",
        "# Rd[nr-1][0], [nr-1][1],..[nr-1][na-1]",
        "Rd_ra",
    ],
    [
        "# Tt[r][angle]. [1/(cm2sr)].",
        "# Tt[0][0], [0][1],..[0][na-1]",
        "# Tt[1][0], [1][1],..[1][na-1]",
        "# ...",
        "# Tt[nr-1][0], [nr-1][1],..[nr-1][na-1]",
        "Tt_ra",
    ],
];

/// Appends a grid's values as `%12.4E ` each, five to a line (MCML's layout), formatted in
/// parallel chunks of [`GRID_CHUNK`] values joined in order.
fn push_grid(s: &mut String, values: &[f64]) {
    if values.len() <= GRID_CHUNK {
        push_rows(s, values);
        return;
    }
    let parts: Vec<String> = values
        .par_chunks(GRID_CHUNK)
        .map(|chunk| {
            let mut part = String::with_capacity(grid_text_len(chunk.len()));
            push_rows(&mut part, chunk);
            part
        })
        .collect();
    s.reserve(parts.iter().map(String::len).sum());
    for part in &parts {
        s.push_str(part);
    }
}

/// Appends `values` as `%12.4E `, a line break after every fifth (counted from `values[0]`).
fn push_rows(s: &mut String, values: &[f64]) {
    for (i, &v) in values.iter().enumerate() {
        push_e(s, v, 4, NUMBER_WIDTH);
        s.push(' ');
        if (i + 1) % 5 == 0 {
            s.push('\n');
        }
    }
}

/// Bytes [`push_rows`] writes for `n` values.
fn grid_text_len(n: usize) -> usize {
    n * (NUMBER_WIDTH + 1) + n / 5
}

/// The `RAT` section of an `.mco` file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rat {
    /// Specular reflectance.
    pub rsp: f64,
    /// Diffuse reflectance.
    pub rd: f64,
    /// Absorbed fraction.
    pub a: f64,
    /// Transmittance.
    pub tt: f64,
}

/// Why an `.mco` file could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum McoError {
    /// No line starting with `RAT`.
    #[error("no RAT section")]
    NoRat,
    /// A RAT value is missing or not a number.
    #[error("line {line}: expected the {what} as a number, found {found:?}")]
    BadValue {
        /// 1-based line number.
        line: usize,
        /// Which value.
        what: &'static str,
        /// What was there.
        found: String,
    },
}

/// Reads the `RAT` section (Rsp, Rd, A, Tt) of `.mco` text.
pub fn read_mco_rat(text: &str) -> Result<Rat, McoError> {
    let mut lines = text.lines().enumerate();
    lines
        .by_ref()
        .find(|(_, l)| l.split_whitespace().next() == Some("RAT"))
        .ok_or(McoError::NoRat)?;
    let mut values = [0.0; 4];
    let names = [
        "specular reflectance",
        "diffuse reflectance",
        "absorbed fraction",
        "transmittance",
    ];
    for (v, what) in values.iter_mut().zip(names) {
        let (i, l) = lines.next().ok_or(McoError::BadValue {
            line: 0,
            what,
            found: "end of file".into(),
        })?;
        let tok = l.split_whitespace().next().unwrap_or("");
        *v = tok.parse().map_err(|_| McoError::BadValue {
            line: i + 1,
            what,
            found: tok.to_string(),
        })?;
    }
    Ok(Rat {
        rsp: values[0],
        rd: values[1],
        a: values[2],
        tt: values[3],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fmt_e` as it was before `push_e`: two Strings and a parsed exponent per number.
    fn old_fmt_e(x: f64, prec: usize) -> String {
        if !x.is_finite() {
            return if x.is_nan() {
                "NAN".into()
            } else if x > 0.0 {
                "INF".into()
            } else {
                "-INF".into()
            };
        }
        let s = format!("{x:.prec$e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}E{sign}{:02}", exp.abs())
    }

    /// The number sections (A_z to the end) as `write_mco` wrote them before `push_e` and
    /// the parallel grids: its `column` and `grid2d` closures, unchanged.
    fn old_number_sections(result: &RunResult) -> String {
        let mut s = String::new();
        let column = |s: &mut String, head: &str, values: &[f64]| {
            s.push_str(head);
            s.push('\n');
            for v in values {
                let _ = writeln!(s, "{:>12}", old_fmt_e(*v, 4));
            }
            s.push('\n');
        };
        column(&mut s, "A_z #A[0], [1],..A[nz-1]. [1/cm]", &result.a_z());
        column(
            &mut s,
            "Rd_r #Rd[0], [1],..Rd[nr-1]. [1/cm2]",
            &result.rd_r(),
        );
        column(
            &mut s,
            "Rd_a #Rd[0], [1],..Rd[na-1]. [sr-1]",
            &result.rd_a(),
        );
        column(
            &mut s,
            "Tt_r #Tt[0], [1],..Tt[nr-1]. [1/cm2]",
            &result.tt_r(),
        );
        column(
            &mut s,
            "Tt_a #Tt[0], [1],..Tt[na-1]. [sr-1]",
            &result.tt_a(),
        );
        let grids = [result.a_rz(), result.rd_ra(), result.tt_ra()];
        // The heads are text, not formatting: the same constant as the writer's.
        for (head, values) in GRID_HEADS.into_iter().zip(&grids) {
            s.push_str(&old_grid(head, values));
        }
        s
    }

    /// The old `grid2d` closure.
    fn old_grid(head: [&str; 6], values: &[f64]) -> String {
        let mut s = String::new();
        for h in head {
            s.push_str(h);
            s.push('\n');
        }
        for (i, v) in values.iter().enumerate() {
            let _ = write!(s, "{:>12} ", old_fmt_e(*v, 4));
            if (i + 1) % 5 == 0 {
                s.push('\n');
            }
        }
        s.push('\n');
        s
    }

    /// Panics at the first line where `new` and `old` differ.
    fn assert_same_text(new: &str, old: &str, what: &str) {
        for (i, (n, o)) in new.split('\n').zip(old.split('\n')).enumerate() {
            assert_eq!(n, o, "{what}: line {} differs", i + 1);
        }
        assert_eq!(new.len(), old.len(), "{what}: lengths differ");
    }

    use crate::cfmt::tests::SplitMix;

    /// The grid writer, serial and in parallel chunks, equals the old one for any values
    /// (zeros, negatives, subnormals, huge, NaN, infinities) and for lengths at and around the
    /// chunk size and the five-a-line breaks.
    #[test]
    fn grids_equal_the_old_writer() {
        let mut rng = SplitMix(1);
        let lens = [
            0,
            1,
            4,
            5,
            6,
            GRID_CHUNK - 1,
            GRID_CHUNK,
            GRID_CHUNK + 1,
            GRID_CHUNK + 5,
            3 * GRID_CHUNK + 7,
            100_003,
        ];
        for len in lens {
            let values: Vec<f64> = (0..len)
                .map(|_| match rng.next() % 8 {
                    0 => 0.0,
                    1 => f64::from_bits(rng.next()),
                    2 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 9.99995e-3]
                        [(rng.next() % 5) as usize],
                    _ => (rng.next() >> (rng.next() % 64)) as f64 / 4_294_967_296.0 / 1234.5,
                })
                .collect();
            let head = ["a", "b", "c", "d", "e", "f"];
            let mut s = String::from("before\n");
            for h in head {
                s.push_str(h);
                s.push('\n');
            }
            push_grid(&mut s, &values);
            s.push('\n');
            let old = format!("before\n{}", old_grid(head, &values));
            assert_same_text(&s, &old, &format!("{len} values"));
        }
    }

    /// A whole `.mco` of the skin input's grid (500 × 200 A_rz, 200 × 30 Rd_ra and Tt_ra),
    /// its tallies replaced by values of every magnitude and zeros, is byte for byte what the
    /// old writer wrote.
    #[test]
    fn write_mco_equals_the_old_writer() {
        let mut result = crate::run(&crate::builtin::skin(), 200, 3).unwrap();
        let mut rng = SplitMix(2);
        for t in &mut result.tally {
            *t = match rng.next() % 4 {
                0 => 0,
                _ => rng.next() >> (rng.next() % 64),
            };
        }
        let text = write_mco(&result, 12.5);
        let numbers = text.find("A_z #").unwrap();
        assert!(text[..numbers].starts_with("A1 \t# Version number"));
        assert!(text[..numbers].contains("\nA_l #Absorption as a function of layer."));
        assert_same_text(&text[numbers..], &old_number_sections(&result), "skin");
    }
}
