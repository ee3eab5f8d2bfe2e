//! Which entry points' plain loops reconverge after each item, read from their SASS
//! (`cuobjdump -sass`): the library form of `scripts/sass-loop-nesting.py`, which reads the
//! same fixtures (`sass-fixtures/`) in its `--self-test`.
//!
//! The advisor's schedule model runs a per-thread loop (`for item { while running { step } }`)
//! in one of two ways: nested, a warp's threads waiting for each other after every item, or
//! flat, a thread that finishes its item taking the next at once. Which one the GPU compiler
//! made is a fact of the SASS: a loop (a backward branch) inside another, with a convergence
//! barrier (`BSSY`) opened just before the inner loop and closed (its reconvergence point) after
//! the inner loop's back-edge and within the outer loop, is nested; one loop, or no such
//! barrier, is flat. A `YIELD` inside the inner loop undoes the barrier (threads waiting at it go
//! on once another yields): read as flat too. A heuristic on the SASS's shape, not a proof; it
//! reads the three entry points ncu measured as they ran (the fixtures' `costmap_*`,
//! `vtrips_dynamic`).
//!
//! ```
//! use reconverge_gpu_build::loop_nesting;
//!
//! // An item loop (back-edge at 0x12f0) around a step loop (0xf80..0x1240); barrier B0, opened
//! // just before the step loop, closes at 0x1260, after the step loop's back-edge and inside the
//! // item loop: the threads wait for each other after every item.
//! let sass = "
//!         Function : my_baseline
//!         /*0e90*/ BSSY B0, 0x1260 ;
//!         /*1240*/ @P1 BRA 0xf80 ;
//!         /*12f0*/ @!P0 BRA 0x120 ;
//!         /*1300*/ EXIT ;";
//! let read = loop_nesting(sass);
//! assert_eq!((read[0].function.as_str(), read[0].loops), ("my_baseline", 2));
//! assert!(read[0].reconverges_per_item);
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sass::{NoPtxas, PTXAS_OPT_LEVEL, find_ptxas};

/// Names the `cuobjdump` to use (a path). Set to an empty value to read no SASS.
pub const CUOBJDUMP_ENV: &str = "CUOBJDUMP";

/// One function of a SASS listing, as [`loop_nesting`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopNesting {
    /// The function (the entry point's name).
    pub function: String,
    /// Its instructions.
    pub instructions: usize,
    /// Its loops (backward branches).
    pub loops: usize,
    /// Whether a warp's threads reconverge after each item (a nested loop, see the module
    /// docs); `false`: flat.
    pub reconverges_per_item: bool,
}

/// One instruction: its address and its text up to the `;`.
type Instruction<'a> = (u64, &'a str);

/// Each function of `sass` (`cuobjdump -sass` text), by name, once (the first listing of a name
/// where a fat binary lists it once per architecture), sorted by name: its instructions, loops
/// and whether it reconverges per item.
pub fn loop_nesting(sass: &str) -> Vec<LoopNesting> {
    let mut names: Vec<&str> = sass.lines().filter_map(function_name).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let ins = instructions(sass, name);
            let (loops, reconverges_per_item) = nested(&ins);
            LoopNesting {
                function: name.to_string(),
                instructions: ins.len(),
                loops,
                reconverges_per_item,
            }
        })
        .collect()
}

/// The Markdown table `scripts/sass-loop-nesting.py FILE` prints for `rows`, which
/// `reconverge_advisor::CompiledLoops::from_sass_table` reads.
pub fn loop_table(rows: &[LoopNesting]) -> String {
    let mut s = String::from(
        "| entry point | SASS instructions | loops | reconverges per item |\n|---|---:|---:|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.function,
            r.instructions,
            r.loops,
            if r.reconverges_per_item { "yes" } else { "no" }
        ));
    }
    s
}

/// The name a `Function : NAME` line declares.
fn function_name(line: &str) -> Option<&str> {
    let (_, rest) = line.split_once("Function : ")?;
    let name = rest.split_whitespace().next()?;
    // The script's `Function : (\S+)` takes the characters right after the space.
    rest.starts_with(name).then_some(name)
}

/// The instructions of the first listing of function `name`: from its `Function : name` line
/// to the next line that starts (after blanks) with `Function :`.
fn instructions<'a>(sass: &'a str, name: &str) -> Vec<Instruction<'a>> {
    let mut lines = sass.lines();
    // The script's header match is `Function : NAME\n`: the name ends the line.
    let header = |line: &str| {
        line.split_once("Function : ")
            .is_some_and(|(_, rest)| rest == name)
    };
    if !lines.by_ref().any(header) {
        return Vec::new();
    }
    lines
        .take_while(|line| !line.trim_start().starts_with("Function :"))
        .filter_map(instruction)
        .collect()
}

/// `/*ADDR*/  TEXT ;` (ADDR at least four lower-case hex digits) as (address, trimmed text).
fn instruction(line: &str) -> Option<Instruction<'_>> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let (addr, rest) = rest.split_once("*/")?;
    if addr.len() < 4 || !addr.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    // At least one blank between the address and the instruction, which ends at the first `;`.
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let (text, _) = rest.split_once(';')?;
    Some((u64::from_str_radix(addr, 16).ok()?, text.trim()))
}

/// The lower-case hex number at the start of `s`, as the script's `0x([0-9a-f]+)`.
fn hex_prefix(s: &str) -> Option<u64> {
    let end = s
        .bytes()
        .position(|b| !matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        .unwrap_or(s.len());
    u64::from_str_radix(&s[..end], 16).ok()
}

/// The target of a `BRA 0x...` in `text` whose `BRA` starts a word (`@P0 BRA`, not `BRA.DIV`).
fn branch_target(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("BRA 0x") {
        let i = from + at;
        let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if word_start && let Some(t) = hex_prefix(&text[i + 6..]) {
            return Some(t);
        }
        from = i + 1;
    }
    None
}

/// The reconvergence address of a `BSSY Bn, 0x...` in `text`.
fn barrier_target(text: &str) -> Option<u64> {
    let mut from = 0;
    while let Some(at) = text[from..].find("BSSY B") {
        let i = from + at + "BSSY B".len();
        let digits = text[i..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0
            && let Some(rest) = text[i + digits..].strip_prefix(", 0x")
            && let Some(t) = hex_prefix(rest)
        {
            return Some(t);
        }
        from = i;
    }
    None
}

/// (loops, nested): the script's `nested`, rule for rule.
fn nested(ins: &[Instruction<'_>]) -> (usize, bool) {
    let mut backs: Vec<(u64, u64)> = Vec::new();
    let mut barriers: Vec<(u64, u64)> = Vec::new();
    for &(addr, text) in ins {
        if let Some(t) = branch_target(text)
            && t.saturating_add(16) < addr
        {
            backs.push((t, addr));
        }
        if let Some(r) = barrier_target(text) {
            barriers.push((addr, r));
        }
    }
    let yields: Vec<u64> = ins
        .iter()
        .filter(|(_, text)| text.starts_with("YIELD"))
        .map(|&(addr, _)| addr)
        .collect();
    for &(t1, s1) in &backs {
        for &(t2, s2) in &backs {
            if (t2, s2) != (t1, s1)
                && t1 <= t2
                && s2 <= s1
                && barriers
                    .iter()
                    .any(|&(b, r)| b < t2 && t2 - b < 0x200 && s2 < r && r <= s1)
            {
                // A YIELD in the inner loop lets the threads that left it pass the barrier
                // without the others (independent thread scheduling's forward progress): ncu
                // counted costmap_dynamic's code after the barrier at 4 threads per execution,
                // 7.4 executions per warp, where loops without one ran it at 32.
                let yields_inside = yields.iter().any(|&y| t2 <= y && y <= s2);
                return (backs.len(), !yields_inside);
            }
        }
    }
    (backs.len(), false)
}

/// Why no SASS was read.
#[derive(Debug, thiserror::Error)]
pub enum SassError {
    /// No `cuobjdump` (CUDA's binary utilities are not installed, or [`CUOBJDUMP_ENV`] says
    /// none).
    #[error("cuobjdump is not installed: {0}")]
    NoCuobjdump(NoCuobjdump),
    /// The module has no cubin for the GPU and there is no `ptxas` to make one from its PTX.
    #[error("no cubin for {arch} and no ptxas to make one: {source}")]
    NoPtxas {
        /// The architecture asked for.
        arch: String,
        /// Why there is no `ptxas`.
        source: NoPtxas,
    },
    /// A tool could not be started.
    #[error("could not run {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// A tool failed.
    #[error("{program} failed ({status}): {stderr}")]
    Failed {
        /// The program and its arguments.
        program: String,
        /// Its exit status.
        status: String,
        /// What it wrote to stderr.
        stderr: String,
    },
    /// A temporary file could not be written.
    #[error("writing {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Why no `cuobjdump` is used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoCuobjdump {
    /// [`CUOBJDUMP_ENV`] names something that is not a file.
    #[error("{CUOBJDUMP_ENV}={} is not a file", .0.display())]
    EnvNotAFile(PathBuf),
    /// [`CUOBJDUMP_ENV`] is set to an empty value.
    #[error("turned off by an empty {CUOBJDUMP_ENV}")]
    TurnedOff,
    /// None in the places looked at.
    #[error(
        "none found ({CUOBJDUMP_ENV} unset; none beside ptxas nor on PATH). Install CUDA's binary utilities (cuobjdump) or set {CUOBJDUMP_ENV} to one"
    )]
    NotFound,
}

/// Finds `cuobjdump`: the file [`CUOBJDUMP_ENV`] names if it is set (and only there; an empty
/// value: none); else beside the `ptxas` that [`find_ptxas`] finds (CUDA's `bin` holds both);
/// else each folder of `PATH`.
///
/// # Errors
/// [`NoCuobjdump`], saying which of these failed.
pub fn find_cuobjdump() -> Result<PathBuf, NoCuobjdump> {
    find_cuobjdump_in(
        std::env::var_os(CUOBJDUMP_ENV).map(PathBuf::from),
        find_ptxas().ok().as_deref(),
        std::env::var_os("PATH").as_deref(),
    )
}

fn find_cuobjdump_in(
    named: Option<PathBuf>,
    ptxas: Option<&Path>,
    path: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, NoCuobjdump> {
    if let Some(named) = named {
        if named.as_os_str().is_empty() {
            return Err(NoCuobjdump::TurnedOff);
        }
        return if named.is_file() {
            Ok(named)
        } else {
            Err(NoCuobjdump::EnvNotAFile(named))
        };
    }
    let exe = format!("cuobjdump{}", std::env::consts::EXE_SUFFIX);
    let beside_ptxas = ptxas.and_then(Path::parent).map(Path::to_path_buf);
    let on_path = path.into_iter().flat_map(std::env::split_paths);
    beside_ptxas
        .into_iter()
        .chain(on_path)
        .map(|dir| dir.join(&exe))
        .find(|p| p.is_file())
        .ok_or(NoCuobjdump::NotFound)
}

/// A fresh path in the temporary folder, for the tools' files.
fn temp_path(extension: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    std::env::temp_dir().join(format!(
        "reconverge-sass-{}-{}.{extension}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Runs `program` with `args`, returning its stdout.
fn run_tool(program: &Path, args: &[&std::ffi::OsStr]) -> Result<String, SassError> {
    let shown = program.display().to_string();
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|source| SassError::Spawn {
            program: shown.clone(),
            source,
        })?;
    if !out.status.success() {
        return Err(SassError::Failed {
            program: shown,
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The SASS text (`cuobjdump -sass`) of a cubin (or fat binary) image.
///
/// # Errors
/// [`SassError::NoCuobjdump`] where none is installed; the tool's failure otherwise.
pub fn cubin_sass(cubin: &[u8]) -> Result<String, SassError> {
    let cuobjdump = find_cuobjdump().map_err(SassError::NoCuobjdump)?;
    let file = temp_path("cubin");
    std::fs::write(&file, cubin).map_err(|source| SassError::Io {
        path: file.clone(),
        source,
    })?;
    let sass = run_tool(&cuobjdump, &["-sass".as_ref(), file.as_os_str()]);
    let _ = std::fs::remove_file(&file);
    sass
}

/// The SASS text of PTX `ptx` compiled for `arch` (`sm_90`) by `ptxas` (at the optimisation
/// level the CUDA driver's JIT uses), read by `cuobjdump -sass`.
///
/// # Errors
/// [`SassError::NoCuobjdump`] / [`SassError::NoPtxas`] where a tool is missing (checked
/// before anything runs); a tool's failure.
pub fn ptx_sass(ptx: &str, arch: &str) -> Result<String, SassError> {
    // Both tools are looked for first, so that a missing one costs no compilation.
    find_cuobjdump().map_err(SassError::NoCuobjdump)?;
    let ptxas = find_ptxas().map_err(|source| SassError::NoPtxas {
        arch: arch.to_string(),
        source,
    })?;
    let (ptx_file, cubin_file) = (temp_path("ptx"), temp_path("cubin"));
    std::fs::write(&ptx_file, ptx).map_err(|source| SassError::Io {
        path: ptx_file.clone(),
        source,
    })?;
    let arch_arg = format!("-arch={arch}");
    let assembled = run_tool(
        &ptxas,
        &[
            arch_arg.as_ref(),
            PTXAS_OPT_LEVEL.as_ref(),
            ptx_file.as_os_str(),
            "-o".as_ref(),
            cubin_file.as_os_str(),
        ],
    );
    let _ = std::fs::remove_file(&ptx_file);
    let sass = assembled.and_then(|_| {
        let image = std::fs::read(&cubin_file).map_err(|source| SassError::Io {
            path: cubin_file.clone(),
            source,
        })?;
        cubin_sass(&image)
    });
    let _ = std::fs::remove_file(&cubin_file);
    sass
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixtures and what each function must read as (`expected.tsv`: function,
    /// instructions, loops, reconverges per item), the table the script's `--self-test` checks
    /// too. The `costmap_*` and `vtrips_dynamic` excerpts keep the loops, barriers and YIELDs of
    /// three entry points ncu measured on an H100 (`docs/results/advisor/schedule-model/
    /// drift.md`): costmap_baseline's threads waited after each item (stores at 32 threads),
    /// costmap_dynamic's did not (a YIELD in its step loop: stores at 4.3 threads),
    /// vtrips_dynamic's did (its YIELD is outside the step loop). `walk.sass` is the user
    /// workload's entry points as CUDA 13's ptxas (sm_90, -O3) and cuobjdump gave them, whole.
    const FIXTURES: &[(&str, &str)] = &[
        ("shapes.sass", include_str!("../sass-fixtures/shapes.sass")),
        ("walk.sass", include_str!("../sass-fixtures/walk.sass")),
    ];
    const EXPECTED: &str = include_str!("../sass-fixtures/expected.tsv");

    #[test]
    fn fixtures_read_as_measured_and_as_the_script_reads_them() {
        let mut read: Vec<LoopNesting> = FIXTURES
            .iter()
            .flat_map(|(_, sass)| loop_nesting(sass))
            .collect();
        read.sort_by(|a, b| a.function.cmp(&b.function));
        let mut expected: Vec<LoopNesting> = EXPECTED
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                LoopNesting {
                    function: c[0].to_string(),
                    instructions: c[1].parse().expect("instructions"),
                    loops: c[2].parse().expect("loops"),
                    reconverges_per_item: c[3] == "yes",
                }
            })
            .collect();
        expected.sort_by(|a, b| a.function.cmp(&b.function));
        assert_eq!(read, expected);
        // Both readings occur, so the test can tell them apart.
        assert!(read.iter().any(|r| r.reconverges_per_item));
        assert!(read.iter().any(|r| !r.reconverges_per_item && r.loops > 1));
    }

    #[test]
    fn a_yield_inside_the_inner_loop_makes_it_flat() {
        let with = |yield_at: &str| {
            format!(
                "\tFunction : k\n /*0100*/ BSSY B0, 0x0300 ;\n /*{yield_at}*/ YIELD ;\n\
                 /*0280*/ @P0 BRA 0x0180 ;\n /*0300*/ BSYNC B0 ;\n /*0400*/ BRA 0x0080 ;\n"
            )
        };
        // Inside the inner loop (0x180..0x280): flat; before it (inside only the outer): nested.
        assert!(!loop_nesting(&with("0200"))[0].reconverges_per_item);
        assert!(loop_nesting(&with("0090"))[0].reconverges_per_item);
        // A barrier that closes before the inner loop's back-edge does not nest it.
        let early = "\tFunction : k\n /*0100*/ BSSY B0, 0x0200 ;\n /*0280*/ @P0 BRA 0x0180 ;\n\
                     /*0400*/ BRA 0x0080 ;\n";
        assert_eq!(loop_nesting(early)[0].loops, 2);
        assert!(!loop_nesting(early)[0].reconverges_per_item);
    }

    #[test]
    fn lines_that_are_not_instructions_are_skipped() {
        let sass = "\t\tFunction : k\n\t.headerflags @\"EF_CUDA_SM90\"\n\
            /*0000*/  MOV R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */\n\
            \x20                                /* 0x000fe20000000800 */\n\
            /*010*/  EXIT ;\n\
            /*0010*/EXIT ;\n\
            /*0020*/  BRA.DIV 0x0000 ;\n\
            /*0030*/  BRA 0x0030 ;\n";
        let k = &loop_nesting(sass)[0];
        // Three addresses of four digits followed by a blank; the BRA.DIV and the branch to
        // itself are no back-edges.
        assert_eq!((k.instructions, k.loops), (3, 0));
        // The table the advisor reads.
        assert!(loop_table(std::slice::from_ref(k)).ends_with("| k | 3 | 0 | no |\n"));
    }

    #[test]
    fn a_name_listed_twice_is_read_once_from_its_first_listing() {
        let sass =
            "\tFunction : k\n /*0000*/ EXIT ;\n\tFunction : k\n /*0000*/ NOP ;\n /*0010*/ EXIT ;\n";
        let read = loop_nesting(sass);
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].instructions, 1);
    }

    #[test]
    fn cuobjdump_lookup_order() {
        let dir = std::env::temp_dir().join(format!("rgb-cuobjdump-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b"));
        for d in [&a, &b] {
            std::fs::create_dir_all(d).expect("temp dir");
        }
        let exe = format!("cuobjdump{}", std::env::consts::EXE_SUFFIX);
        std::fs::write(b.join(&exe), b"").expect("fake cuobjdump");
        let path = std::env::join_paths([&a, &b]).expect("PATH");
        assert_eq!(
            find_cuobjdump_in(Some(PathBuf::new()), None, Some(&path)),
            Err(NoCuobjdump::TurnedOff)
        );
        assert_eq!(
            find_cuobjdump_in(Some(dir.join("nope")), None, Some(&path)),
            Err(NoCuobjdump::EnvNotAFile(dir.join("nope")))
        );
        // On PATH, then beside ptxas first.
        assert_eq!(find_cuobjdump_in(None, None, Some(&path)), Ok(b.join(&exe)));
        std::fs::write(a.join(&exe), b"").expect("fake cuobjdump");
        assert_eq!(
            find_cuobjdump_in(None, Some(&b.join("ptxas")), Some(&path)),
            Ok(b.join(&exe))
        );
        assert_eq!(
            find_cuobjdump_in(None, Some(&dir.join("ptxas")), None),
            Err(NoCuobjdump::NotFound)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
