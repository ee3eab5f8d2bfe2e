//! The `.mco` output format of MCML 1.2 (ASCII), and a reader for its `RAT` section.

use std::fmt::Write as _;

use crate::cfmt::{fmt_e, fmt_g};
use crate::{OutputFormat, RunResult};

/// Renders a result as an `.mco` file in MCML's section order and number formats.
/// `user_time` is the run time in seconds reported in the header.
pub fn write_mco(result: &RunResult, user_time: f64) -> String {
    let input = &result.input;
    let g = input.grid;
    let mut s = String::new();
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
        for v in values {
            let _ = writeln!(s, "{:>12}", fmt_e(*v, 4));
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

    let grid2d = |s: &mut String, head: [&str; 6], values: &[f64]| {
        for h in head {
            s.push_str(h);
            s.push('\n');
        }
        for (i, v) in values.iter().enumerate() {
            let _ = write!(s, "{:>12} ", fmt_e(*v, 4));
            if (i + 1) % 5 == 0 {
                s.push('\n');
            }
        }
        s.push('\n');
    };
    grid2d(
        &mut s,
        [
            "# A[r][z]. [1/cm3]",
            "# A[0][0], [0][1],..[0][nz-1]",
            "# A[1][0], [1][1],..[1][nz-1]",
            "# ...",
            "# A[nr-1][0], [nr-1][1],..[nr-1][nz-1]",
            "A_rz",
        ],
        &result.a_rz(),
    );
    grid2d(
        &mut s,
        [
            "# Rd[r][angle]. [1/(cm2sr)].",
            "# Rd[0][0], [0][1],..[0][na-1]",
            "# Rd[1][0], [1][1],..[1][na-1]",
            "# ...",
            "# Rd[nr-1][0], [nr-1][1],..[nr-1][na-1]",
            "Rd_ra",
        ],
        &result.rd_ra(),
    );
    grid2d(
        &mut s,
        [
            "# Tt[r][angle]. [1/(cm2sr)].",
            "# Tt[0][0], [0][1],..[0][na-1]",
            "# Tt[1][0], [1][1],..[1][na-1]",
            "# ...",
            "# Tt[nr-1][0], [nr-1][1],..[nr-1][na-1]",
            "Tt_ra",
        ],
        &result.tt_ra(),
    );
    s
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
