//! Running the runs of an `.mci` file as MCML does, with every check made before the first
//! photon: [`plan`] checks each run's input ([`crate::limits`]), its photon count and its
//! output file, and gives each run its random streams; [`run_planned`] then runs them in
//! order and writes each run's `.mco` as soon as it is done, so a failure in run 3 keeps the
//! files of runs 1 and 2.
//!
//! Output files are checked as MCML 1.2 would want them and more: names must be ASCII (MCML's
//! C runtime writes byte strings; this port refuses, rather than mangles, other names), must
//! name a file in an existing directory that can be written, and no two runs may name one file
//! (compared after resolving `.`, `..` and links, so `good.mco` and `./good.mco` clash).

use std::error::Error;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use reconverge_workloads::mcml::McmlFloat;

use crate::limits::{Field, LimitError, check_run};
use crate::mco::write_mco;
use crate::{RunInput, RunResult, Streams};

/// Lanes of a warp (`reconverge_simt::WARP_SIZE`; every backend runs 32-lane warps).
const WARP_LANES: u32 = 32;

/// Longest name (in characters) quoted whole in an error message; longer ones are cut.
const QUOTE_CHARS: usize = 80;

/// `name` quoted for a message, cut to 80 characters with its length appended
/// when longer: a 10 MB name gives a one-line error.
pub fn quote_name(name: &str) -> String {
    if name.chars().count() <= QUOTE_CHARS {
        format!("{name:?}")
    } else {
        let head: String = name.chars().take(QUOTE_CHARS).collect();
        format!("{head:?}... ({} bytes)", name.len())
    }
}

/// Why an output path was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    /// MCML writes ASCII names only.
    #[error("output file name {0} is not ASCII (MCML accepts ASCII names only)")]
    NotAscii(String),
    /// The name is a directory.
    #[error("output {0} is a directory, not a file")]
    IsDirectory(String),
    /// The file cannot be created or written.
    #[error("cannot write output file {name}: {reason}")]
    NotWritable {
        /// The name (quoted, cut).
        name: String,
        /// Why.
        reason: String,
    },
    /// Two runs would write one file.
    #[error("output file {name} is the same file as {other}, written by an earlier run{}",
        if *first_line > 0 { format!(" (line {first_line})") } else { String::new() })]
    SameFile {
        /// This run's name (quoted, cut).
        name: String,
        /// The earlier run's name (quoted, cut).
        other: String,
        /// The earlier run's line in the `.mci` file (0 if none).
        first_line: usize,
    },
}

/// Checks that `path` names a writable file, without changing an existing file (a file that
/// does not exist yet is created and removed again). Returns the path with its directory
/// resolved, for comparing runs' outputs.
pub fn check_output_path(path: &Path) -> Result<PathBuf, OutputError> {
    let shown = quote_name(&path.to_string_lossy());
    match path.to_str() {
        Some(s) if s.is_ascii() => {}
        _ => return Err(OutputError::NotAscii(shown)),
    }
    let not_writable = |reason: String| OutputError::NotWritable {
        name: shown.clone(),
        reason,
    };
    if path.as_os_str().is_empty() {
        return Err(not_writable("the name is empty".into()));
    }
    if path.is_dir() {
        return Err(OutputError::IsDirectory(shown));
    }
    let Some(file_name) = path.file_name() else {
        return Err(not_writable("the name does not end in a file name".into()));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(dir).map_err(|e| {
        not_writable(format!(
            "its directory {} cannot be opened: {e}",
            quote_name(&dir.to_string_lossy())
        ))
    })?;
    let mut key = dir.join(file_name);
    if key.exists() {
        key = std::fs::canonicalize(&key).unwrap_or(key);
        if key.is_dir() {
            return Err(OutputError::IsDirectory(shown));
        }
        // Append mode opens for writing without truncating: the file is left as it was.
        OpenOptions::new()
            .append(true)
            .open(&key)
            .map_err(|e| not_writable(e.to_string()))?;
    } else {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&key)
            .map_err(|e| not_writable(e.to_string()))?;
        std::fs::remove_file(&key).map_err(|e| not_writable(e.to_string()))?;
    }
    Ok(key)
}

/// Where each run's streams start: run `k` at the photons of runs `0..k` (see [`Streams`]).
/// `None` if the total overflows a `u64`.
pub fn stream_offsets(photons: &[u64]) -> Option<Vec<u64>> {
    let mut next = 0u64;
    photons
        .iter()
        .map(|&p| {
            let here = next;
            next = next.checked_add(p)?;
            Some(here)
        })
        .collect()
}

/// How to run an input's runs.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// The input's name in messages (the `.mci` path, or the built-in's name).
    pub source: String,
    /// Photons per run instead of each run's own count.
    pub photons: Option<u64>,
    /// Seed of the first run's streams.
    pub seed: u64,
    /// Write every run's `.mco` under its own name (as MCML does for an `.mci` file).
    pub write_outputs: bool,
    /// Write the (single) run's `.mco` here instead.
    pub output: Option<PathBuf>,
}

/// One run, checked and ready.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    /// The input, with the photon count to run.
    pub input: RunInput,
    /// Its random streams.
    pub streams: Streams,
    /// Where its `.mco` goes (checked writable), if anywhere.
    pub output: Option<PathBuf>,
}

/// Why a set of runs was refused before it started.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A run cannot be run.
    #[error("{}{source}", place(source_name, *line, *run))]
    Limit {
        /// The input's name.
        source_name: String,
        /// The run's line in the `.mci` file (0 for a built-in input).
        line: usize,
        /// 1-based run number.
        run: usize,
        /// What is wrong.
        source: LimitError,
    },
    /// A run's output file cannot be written.
    #[error("{}{source}", place(source_name, *line, *run))]
    Output {
        /// The input's name (or `--output`).
        source_name: String,
        /// The run's line in the `.mci` file (0 for a built-in input or `--output`).
        line: usize,
        /// 1-based run number.
        run: usize,
        /// What is wrong.
        source: OutputError,
    },
    /// `--output` names one file, for an input of several runs.
    #[error("--output names one file, but the input has {0} runs (each writes its own .mco)")]
    OutputNeedsOneRun(usize),
    /// The runs' photons together overflow the stream index.
    #[error("the runs' photon counts add up to more than 2^64")]
    TooManyPhotons,
}

fn place(source: &str, line: usize, run: usize) -> String {
    if line > 0 {
        format!("{source}:{line}: run {run}: ")
    } else {
        format!("{source}: run {run}: ")
    }
}

/// Checks every run of `runs` for float type `F` and gives each its streams and output,
/// before any photon is run.
pub fn plan<F: McmlFloat>(
    runs: &[RunInput],
    options: &PlanOptions,
) -> Result<Vec<PlannedRun>, PlanError> {
    if options.output.is_some() && runs.len() > 1 {
        return Err(PlanError::OutputNeedsOneRun(runs.len()));
    }
    let inputs: Vec<RunInput> = runs
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.photons = options.photons.unwrap_or(r.photons);
            // The `.mco`'s InParm, the pictures' names and the console's label all read the
            // run's output name: `--output` must be it, or a second run's pictures would
            // overwrite the first's under the input's own name.
            // MCML's readers take the name as one word before the format letter and a comment
            // after it: a blank or a `#` in the path would break the file for them.
            if let Some(path) = &options.output {
                r.output_file = path
                    .to_string_lossy()
                    .replace(|c: char| c.is_whitespace() || c == '#', "_");
            }
            r
        })
        .collect();
    let counts: Vec<u64> = inputs.iter().map(|r| r.photons).collect();
    let offsets = stream_offsets(&counts).ok_or(PlanError::TooManyPhotons)?;
    let mut planned: Vec<PlannedRun> = Vec::with_capacity(inputs.len());
    let mut keys: Vec<(PathBuf, String, usize)> = Vec::new();
    for (k, (input, first_photon)) in inputs.into_iter().zip(offsets).enumerate() {
        let run = k + 1;
        check_run::<F>(&input).map_err(|source| {
            // A photon count from the command line has no line in the file.
            let overridden = options.photons.is_some() && source.field() == Some(Field::Photons);
            let line = match source.field() {
                _ if overridden => 0,
                Some(f) => input.lines.line(f),
                None => 0,
            };
            PlanError::Limit {
                source_name: if overridden {
                    "--photons".into()
                } else {
                    options.source.clone()
                },
                line: if line > 0 || overridden {
                    line
                } else {
                    input.line
                },
                run,
                source,
            }
        })?;
        let (path, source_name, line) = match &options.output {
            Some(p) => (Some(p.clone()), "--output".to_string(), 0),
            None if options.write_outputs => (
                Some(PathBuf::from(&input.output_file)),
                options.source.clone(),
                input.line,
            ),
            None => (None, String::new(), 0),
        };
        if let Some(path) = &path {
            let output_error = |source| PlanError::Output {
                source_name: source_name.clone(),
                line,
                run,
                source,
            };
            let key = check_output_path(path).map_err(output_error)?;
            let shown = quote_name(&path.to_string_lossy());
            if let Some((_, other, first_line)) = keys.iter().find(|(k, _, _)| *k == key) {
                return Err(output_error(OutputError::SameFile {
                    name: shown,
                    other: other.clone(),
                    first_line: *first_line,
                }));
            }
            keys.push((key, shown, input.line));
        }
        planned.push(PlannedRun {
            input,
            streams: Streams {
                seed: options.seed,
                first_photon,
            },
            output: path,
        });
    }
    Ok(planned)
}

/// A run that failed in [`run_planned`], with what the runs before it produced.
#[derive(Debug, thiserror::Error)]
#[error("run {run}{}: {source}", if written.is_empty() { String::new() } else {
    format!(" (the .mco files of the {} runs before it were written)", written.len()) })]
pub struct BatchError {
    /// 1-based number of the run that failed.
    pub run: usize,
    /// Outputs written before the failure.
    pub written: Vec<PathBuf>,
    /// What went wrong.
    pub source: Box<dyn Error + Send + Sync>,
}

/// Runs `plan` in order with `simulate`, writing each run's `.mco` as soon as the run is done
/// and then calling `done(run, result, written_path)`. Stops at the first failure, keeping the
/// files already written.
pub fn run_planned(
    plan: &[PlannedRun],
    mut simulate: impl FnMut(&PlannedRun) -> Result<RunResult, Box<dyn Error + Send + Sync>>,
    mut done: impl FnMut(&PlannedRun, &RunResult, Option<&Path>),
) -> Result<Vec<PathBuf>, BatchError> {
    let mut written = Vec::new();
    for (k, planned) in plan.iter().enumerate() {
        let result = match simulate(planned) {
            Ok(r) => r,
            Err(source) => {
                return Err(BatchError {
                    run: k + 1,
                    written,
                    source,
                });
            }
        };
        if let Some(path) = &planned.output {
            let text = write_mco(&result, result.elapsed.as_secs_f64());
            if let Err(e) = std::fs::write(path, text) {
                return Err(BatchError {
                    run: k + 1,
                    written,
                    source: format!("cannot write {}: {e}", quote_name(&path.to_string_lossy()))
                        .into(),
                });
            }
            written.push(path.clone());
        }
        done(planned, &result, planned.output.as_deref());
    }
    Ok(written)
}

/// A bad command-line value of the `mcml` example.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    /// `--cycle` is not `num_zeros:num_ones` with both at least 1.
    #[error("--cycle {0:?}: expected num_zeros:num_ones, both at least 1 (e.g. 3:1)")]
    Cycle(String),
    /// `--threshold` is not a lane count of a warp.
    #[error("--threshold {value}: must be between 1 and {warp} (lanes of a warp)")]
    Threshold {
        /// The value given.
        value: String,
        /// Lanes of a warp.
        warp: u32,
    },
}

/// Round robin's duty cycle `num_zeros:num_ones`; a zero would starve one path, so both must be
/// at least 1.
pub fn parse_cycle(text: &str) -> Result<(u32, u32), ArgError> {
    let bad = || ArgError::Cycle(quote_name(text).trim_matches('"').to_string());
    let (z, o) = text.split_once(':').ok_or_else(bad)?;
    let z: u32 = z.trim().parse().map_err(|_| bad())?;
    let o: u32 = o.trim().parse().map_err(|_| bad())?;
    if z == 0 || o == 0 {
        return Err(bad());
    }
    Ok((z, o))
}

/// Majority vote's threshold: lanes of a 32-lane warp, 1 to 32 (a larger one never wins a vote).
pub fn parse_threshold(text: &str) -> Result<u32, ArgError> {
    let warp = WARP_LANES;
    let bad = || ArgError::Threshold {
        value: quote_name(text),
        warp,
    };
    let v: u32 = text.trim().parse().map_err(|_| bad())?;
    if v == 0 || v > warp {
        return Err(bad());
    }
    Ok(v)
}
