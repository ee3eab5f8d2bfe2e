//! Whole `.mco` files read back (`reconverge_mcml::mco_file`): a run written by `write_mco`
//! reads back to the run's own numbers, a file laid out as MCML 1.2 writes it (its `%G`
//! exponents, 5 values per line) reads, and every malformed file names its line.

use std::io::ErrorKind;

use reconverge_mcml::builtin::van_de_hulst;
use reconverge_mcml::mco::write_mco;
use reconverge_mcml::mco_file::{McoFile, McoReadErrorKind, parse_mco, read_mco};
use reconverge_mcml::run;
use reconverge_workloads::mcml::{Beam, LayerSpec};

/// A two-layer run of 2 z, 3 r and 2 angle bins in MCML 1.2's layout (`%G`, `%12.4E`, five
/// values a line), with the numbers made up so each is distinct.
const MCML12: &str = "\
A1 \t# Version number of the file format.

####
# Data categories include: 
# InParm, RAT, 
# A_l, A_z, Rd_r, Rd_a, Tt_r, Tt_a, 
# A_rz, Rd_ra, Tt_ra 
####

# User time:        3 sec =     0.00 hr.  Simulation time of this run.

InParm \t\t\t# Input parameters. cm is used.
tiny.mco \tA\t\t# output file name, ASCII.
1000 \t\t\t# No. of photons
0.05\t0.1\t\t# dz, dr [cm]
2\t3\t2\t# No. of dz, dr, da.

2\t\t\t\t\t# Number of layers
#n\tmua\tmus\tg\td\t# One line for each layer
1\t\t\t\t\t# n for medium above
1.37\t1\t100\t0.9\t0.05\t# layer 1
1.37\t0\t0\t0\t1E+08\t# layer 2
1\t\t\t\t\t# n for medium below

RAT #Reflectance, absorption, transmission. 
0.0243914     \t#Specular reflectance [-]
0.0851        \t#Diffuse reflectance [-]
0.2           \t#Absorbed fraction [-]
0.690509      \t#Transmittance [-]

A_l #Absorption as a function of layer. [-]
      0.1995
   0.0005

A_z #A[0], [1],..A[nz-1]. [1/cm]
  3.9900E+00
  1.0000E-02

Rd_r #Rd[0], [1],..Rd[nr-1]. [1/cm2]
  1.0000E+00
  2.0000E-01
  3.0000E-02

Rd_a #Rd[0], [1],..Rd[na-1]. [sr-1]
  4.0000E-02
  5.0000E-03

Tt_r #Tt[0], [1],..Tt[nr-1]. [1/cm2]
  6.0000E+00
  7.0000E-01
  8.0000E-02

Tt_a #Tt[0], [1],..Tt[na-1]. [sr-1]
  9.0000E-01
  1.0000E-01

# A[r][z]. [1/cm3]
# A[0][0], [0][1],..[0][nz-1]
# ...
A_rz
  1.1000E+01   1.2000E+01   2.1000E+01   2.2000E+01   3.1000E+01 
  3.2000E+01 

# Rd[r][angle]. [1/(cm2sr)].
Rd_ra
  1.0000E-01   2.0000E-01   3.0000E-01   4.0000E-01   5.0000E-01 
  6.0000E-01 

# Tt[r][angle]. [1/(cm2sr)].
Tt_ra
  1.0000E+00   2.0000E+00   3.0000E+00   4.0000E+00   5.0000E+00 
  6.0000E+00 
";

#[test]
fn a_file_in_mcml_12_layout_reads_every_section() {
    let m = parse_mco(MCML12, "tiny.mco").unwrap();
    assert_eq!(m.input.output_file, "tiny.mco");
    assert_eq!(m.input.photons, 1000);
    assert_eq!((m.input.grid.dz, m.input.grid.dr), (0.05, 0.1));
    assert_eq!(
        (m.input.grid.nz, m.input.grid.nr, m.input.grid.na),
        (2, 3, 2)
    );
    assert_eq!(
        m.input.layers[1],
        LayerSpec {
            n: 1.37,
            mua: 0.0,
            mus: 0.0,
            g: 0.0,
            d: 1e8
        }
    );
    assert_eq!(m.input.lines.layers[..2], [21, 22]);
    assert_eq!(m.user_time, Some(3.0));
    assert_eq!(m.rat.rsp, 0.0243914);
    assert_eq!(m.rat.tt, 0.690509);
    assert_eq!(m.a_l, [0.1995, 0.0005]);
    assert_eq!(m.a_z, [3.99, 0.01]);
    assert_eq!(m.rd_r, [1.0, 0.2, 0.03]);
    assert_eq!(m.tt_a, [0.9, 0.1]);
    assert_eq!(m.a_rz, [11.0, 12.0, 21.0, 22.0, 31.0, 32.0]);
    assert_eq!(m.tt_ra, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(m.r_centres(), [0.05, 0.15000000000000002, 0.25]);
    assert_eq!(m.z_centres(), [0.025, 0.07500000000000001]);
    let quarter = std::f64::consts::FRAC_PI_4;
    assert_eq!(m.angle_centres(), [quarter / 2.0, 1.5 * quarter]);
}

#[test]
fn a_written_run_reads_back_to_its_own_numbers() {
    let result = run(&van_de_hulst(), 3_000, 7).unwrap();
    let read = parse_mco(&write_mco(&result, 12.5), "vdh.mco").unwrap();
    let direct = McoFile::from_result(&result);
    assert_eq!(read.input.layers, direct.input.layers);
    assert_eq!(read.input.grid, direct.input.grid);
    assert_eq!(read.input.photons, 3_000);
    assert_eq!(read.user_time, Some(12.5));
    assert_eq!(read.input.beam, Beam::Pencil);
    // A run that sampled a beam says so in a comment, and reads back with it.
    let mut input = van_de_hulst();
    input.beam = Beam::Flat { radius: 0.125 };
    let sampled = run(&input, 200, 1).unwrap();
    let read_beam = parse_mco(&write_mco(&sampled, 0.0), "flat.mco").unwrap();
    assert_eq!(read_beam.input.beam, Beam::Flat { radius: 0.125 });
    let close = |name: &str, a: &[f64], b: &[f64], rel: f64| {
        assert_eq!(a.len(), b.len(), "{name}");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= rel * y.abs(),
                "{name}[{i}]: read {x}, run {y}"
            );
        }
    };
    // %-14.6G: 6 significant digits; %12.4G: 4; %12.4E: 5.
    let rat = |r: &McoFile| [r.rat.rsp, r.rat.rd, r.rat.a, r.rat.tt];
    close("RAT", &rat(&read), &rat(&direct), 5e-6);
    close("A_l", &read.a_l, &direct.a_l, 5e-4);
    for (name, a, b) in [
        ("A_z", &read.a_z, &direct.a_z),
        ("Rd_r", &read.rd_r, &direct.rd_r),
        ("Rd_a", &read.rd_a, &direct.rd_a),
        ("Tt_r", &read.tt_r, &direct.tt_r),
        ("Tt_a", &read.tt_a, &direct.tt_a),
        ("A_rz", &read.a_rz, &direct.a_rz),
        ("Rd_ra", &read.rd_ra, &direct.rd_ra),
        ("Tt_ra", &read.tt_ra, &direct.tt_ra),
    ] {
        close(name, a, b, 5e-5);
    }
    // Rd_r integrates to Rd over the grid's rings (the overflow ring included).
    let g = read.input.grid;
    let rd: f64 = read
        .rd_r
        .iter()
        .enumerate()
        .map(|(i, v)| v * 2.0 * std::f64::consts::PI * (i as f64 + 0.5) * g.dr * g.dr)
        .sum();
    assert!(
        (rd - result.rd).abs() <= 1e-4 * result.rd,
        "{rd} vs {}",
        result.rd
    );
}

/// Replaces line `n` (1-based) of MCML12 and returns the error's line and kind.
fn error_at(n: usize, replacement: &str) -> (usize, McoReadErrorKind) {
    let mut lines: Vec<String> = MCML12.lines().map(str::to_string).collect();
    lines[n - 1] = replacement.to_string();
    let e = parse_mco(&lines.join("\n"), "bad.mco").expect_err("must be refused");
    assert!(e.to_string().starts_with(&format!("bad.mco:{}: ", e.line)));
    (e.line, e.kind)
}

/// Lines of MCML12 spoiled one at a time: (line, its replacement, what the error must name).
/// The error is at the spoiled line.
const MALFORMED: [(usize, &str, &str); 8] = [
    // InParm missing.
    (12, "InParmX", "the section InParm"),
    // A photon count that is not a number.
    (14, "many", "number of photons"),
    // dz negative, nr too large for MCML's short.
    (15, "-0.05 0.1", "dz"),
    (16, "2 40000 2", "nr = 40000"),
    // A layer with g > 1, and one cut short.
    (21, "1.37 1 100 1.5 0.05", "g of layer 1"),
    (22, "1.37 0 0", "end of line"),
    // A value of A_rz that is not a number, on the second line of the section.
    (62, "  3.2000E+0x", "value 6 of 6 of A_rz"),
    // A section out of MCML's order.
    (39, "Tt_r #swapped", "the section Rd_r"),
];

#[test]
fn malformed_files_name_the_line_and_what_was_expected() {
    for (n, replacement, named) in MALFORMED {
        let (line, kind) = error_at(n, replacement);
        assert_eq!(line, n, "line {n} as {replacement:?}: {kind}");
        assert!(
            kind.to_string().contains(named),
            "line {n} as {replacement:?}: {kind}"
        );
    }
    // A photon count of zero.
    assert_eq!(error_at(14, "0").0, 14);
    // A file cut inside Tt_ra: the error is at the line after the last.
    let cut: String = MCML12.lines().take(71).collect::<Vec<_>>().join("\n");
    let e = parse_mco(&cut, "cut.mco").unwrap_err();
    assert_eq!(e.line, 72);
    assert!(matches!(e.kind, McoReadErrorKind::UnexpectedEof { .. }));
    assert!(e.to_string().contains("value 6 of 6 of Tt_ra"), "{e}");
    // Not an .mco at all.
    assert!(parse_mco("", "empty.mco").is_err());
    assert!(parse_mco("hello\nworld\n", "text.mco").is_err());
}

#[test]
fn files_that_cannot_be_read_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.mco");
    let e = read_mco(&missing).unwrap_err();
    assert_eq!(e.line, 0);
    assert!(matches!(
        e.kind,
        McoReadErrorKind::Io {
            kind: ErrorKind::NotFound,
            ..
        }
    ));
    let binary = dir.path().join("binary.mco");
    std::fs::write(&binary, b"A1\nInParm\n\xff\xfe\n").unwrap();
    let e = read_mco(&binary).unwrap_err();
    assert_eq!(e.line, 3);
    let good = dir.path().join("good.mco");
    std::fs::write(&good, MCML12).unwrap();
    assert_eq!(read_mco(&good).unwrap().a_rz.len(), 6);
}
