//! Machine code (SASS) beside the PTX: `ptxas` at build time, where one is installed.
//!
//! The CUDA driver JIT-compiles PTX the first time a process loads it on a machine (seconds for
//! a module of many kernels; MCML's took 4 s on an H100) and caches the result per user; a
//! cubin that `ptxas` made for the GPU's architecture loads without that step. `ptxas` is not
//! part of the Rust toolchain, so it is optional: where none is found the build ships the PTX
//! alone, as before, and says why with a `cargo:warning`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Names the `ptxas` to use (a path). Set to an empty value to build no SASS.
pub const PTXAS_ENV: &str = "RECONVERGE_PTXAS";

/// The architectures to build SASS for, separated by commas or spaces (`sm_80,sm_90`);
/// [`DEFAULT_SASS_ARCHS`] when unset; empty or `none` to build no SASS.
pub const SASS_ARCHS_ENV: &str = "RECONVERGE_SASS_ARCHS";

/// The architectures SASS is built for when [`SASS_ARCHS_ENV`] is unset: the A100 (whose cubin
/// also runs on every 8.x GPU) and the H100/H200.
pub const DEFAULT_SASS_ARCHS: &[&str] = &["sm_80", "sm_90"];

/// Environment variables whose change changes what [`Sass::from_env`] finds, for
/// `cargo:rerun-if-env-changed`. `PATH` is left out on purpose: it differs between cargo
/// invocations (rustup's proxies edit it), and each difference would rebuild every device
/// crate; name a new `ptxas` with [`PTXAS_ENV`] instead.
pub const SASS_ENV_VARS: &[&str] = &[PTXAS_ENV, SASS_ARCHS_ENV, "CUDA_PATH", "CUDA_HOME"];

/// `ptxas`'s optimisation level: its own default and highest, and what the CUDA driver's JIT
/// uses unless told otherwise (`CU_JIT_OPTIMIZATION_LEVEL` defaults to its highest, 4), so
/// that the shipped SASS is the code the PTX gave.
pub const PTXAS_OPT_LEVEL: &str = "-O3";

/// Why no `ptxas` is used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoPtxas {
    /// [`PTXAS_ENV`] names something that is not a file.
    #[error("{PTXAS_ENV}={} is not a file", .0.display())]
    EnvNotAFile(PathBuf),
    /// [`PTXAS_ENV`] or [`SASS_ARCHS_ENV`] is set to build none.
    #[error("turned off by {0}")]
    TurnedOff(&'static str),
    /// None in the places looked at.
    #[error(
        "no ptxas found ({PTXAS_ENV} unset; none in $CUDA_PATH/bin, $CUDA_HOME/bin, on PATH or in /usr/local/cuda/bin). Install CUDA's ptxas, or `pip install nvidia-cuda-nvcc-cu12` and set {PTXAS_ENV} to its bin/ptxas"
    )]
    NotFound,
}

/// Finds `ptxas`: the file [`PTXAS_ENV`] names if it is set (and only there, so that a build
/// can be pointed at one `ptxas` or, with an empty value, at none); else `$CUDA_PATH/bin`,
/// `$CUDA_HOME/bin`, each folder of `PATH`, then `/usr/local/cuda/bin`.
///
/// # Errors
/// [`NoPtxas`], saying which of these failed.
pub fn find_ptxas() -> Result<PathBuf, NoPtxas> {
    let var = |name: &str| std::env::var_os(name);
    find_ptxas_in(
        var(PTXAS_ENV).map(PathBuf::from),
        var("CUDA_PATH").map(PathBuf::from),
        var("CUDA_HOME").map(PathBuf::from),
        var("PATH").as_deref(),
    )
}

fn find_ptxas_in(
    named: Option<PathBuf>,
    cuda_path: Option<PathBuf>,
    cuda_home: Option<PathBuf>,
    path: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, NoPtxas> {
    if let Some(named) = named {
        if named.as_os_str().is_empty() {
            return Err(NoPtxas::TurnedOff(PTXAS_ENV));
        }
        return if named.is_file() {
            Ok(named)
        } else {
            Err(NoPtxas::EnvNotAFile(named))
        };
    }
    let exe = format!("ptxas{}", std::env::consts::EXE_SUFFIX);
    let roots = cuda_path.iter().chain(&cuda_home).map(|r| r.join("bin"));
    let on_path = path.into_iter().flat_map(std::env::split_paths);
    roots
        .chain(on_path)
        .chain([PathBuf::from("/usr/local/cuda/bin")])
        .map(|dir| dir.join(&exe))
        .find(|p| p.is_file())
        .ok_or(NoPtxas::NotFound)
}

/// The architectures of [`SASS_ARCHS_ENV`]'s value, or [`DEFAULT_SASS_ARCHS`] for `None`;
/// an empty list for an empty value or `none`.
pub fn sass_archs_from(value: Option<&str>) -> Vec<String> {
    match value {
        None => DEFAULT_SASS_ARCHS.iter().map(|s| s.to_string()).collect(),
        Some(v) if v.trim().eq_ignore_ascii_case("none") => Vec::new(),
        Some(v) => v
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    }
}

/// What SASS [`crate::PtxBuilder::sass`] builds: the architectures, and the `ptxas`, or why
/// there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sass {
    /// The architectures (`sm_80`, `sm_90` ...).
    pub archs: Vec<String>,
    /// The `ptxas` to run, or why none is run.
    pub ptxas: Result<PathBuf, NoPtxas>,
}

impl Sass {
    /// From the environment: [`SASS_ARCHS_ENV`] and [`find_ptxas`].
    pub fn from_env() -> Self {
        let value = std::env::var(SASS_ARCHS_ENV).ok();
        let archs = sass_archs_from(value.as_deref());
        let ptxas = if archs.is_empty() {
            Err(NoPtxas::TurnedOff(SASS_ARCHS_ENV))
        } else {
            find_ptxas()
        };
        Self { archs, ptxas }
    }

    /// `ptxas` at `ptxas` for `archs`.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(ptxas: PathBuf, archs: I) -> Self {
        Self {
            archs: archs.into_iter().map(Into::into).collect(),
            ptxas: Ok(ptxas),
        }
    }
}

/// One kernel's resources as `ptxas -v` reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelResources {
    /// The entry point.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Stack frame in bytes per thread.
    pub stack_bytes: u32,
    /// Bytes of spill stores per thread.
    pub spill_stores: u32,
    /// Bytes of spill loads per thread.
    pub spill_loads: u32,
}

/// A cubin built for one architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cubin {
    /// Its architecture (`sm_90`).
    pub arch: String,
    /// Where it was written.
    pub path: PathBuf,
    /// Each entry point's resources, from `ptxas -v` (whose whole output is written beside the
    /// cubin, as `<file>.ptxas.txt`).
    pub kernels: Vec<KernelResources>,
}

/// Reads `ptxas -v`'s report: each entry point's registers, stack frame and spills.
///
/// ```
/// let report = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
///               ptxas info    : Function properties for k\n    \
///               8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
///               ptxas info    : Used 72 registers, used 1 barriers, 16 bytes smem\n";
/// let k = &reconverge_gpu_build::ptxas_resources(report)[0];
/// assert_eq!((k.name.as_str(), k.registers, k.spill_stores), ("k", 72, 4));
/// ```
pub fn ptxas_resources(report: &str) -> Vec<KernelResources> {
    let mut out: Vec<KernelResources> = Vec::new();
    // Under each entry ptxas also lists the properties of the functions it calls (`.func`s
    // left uninlined, such as core's panic paths); those lines are not the entry's.
    let mut in_entry = false;
    let number_before = |line: &str, unit: &str| -> Option<u32> {
        let end = line.find(unit)?;
        line[..end].split_whitespace().last()?.parse().ok()
    };
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            out.push(KernelResources {
                name: rest.split('\'').next().unwrap_or_default().to_string(),
                registers: 0,
                stack_bytes: 0,
                spill_stores: 0,
                spill_loads: 0,
            });
            in_entry = false;
        } else if let Some(name) = line.split("Function properties for ").nth(1) {
            in_entry = out.last().is_some_and(|k| k.name == name.trim());
        } else if let Some(k) = out.last_mut() {
            if in_entry && line.contains("bytes stack frame") {
                k.stack_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
                k.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                k.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used ") && line.contains(" registers") {
                let used = line.split("Used ").nth(1).unwrap_or_default();
                k.registers = number_before(used, "registers").unwrap_or(0);
            }
        }
    }
    out
}

/// Runs `ptxas -arch=<arch> -O3 -v ptx -o cubin` and writes its report to `<cubin>.ptxas.txt`.
pub(crate) fn assemble(
    ptxas: &Path,
    arch: &str,
    ptx: &Path,
    cubin: &Path,
) -> Result<Cubin, crate::BuildError> {
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(PTXAS_OPT_LEVEL)
        .arg("-v")
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output()
        .map_err(|source| crate::BuildError::Spawn {
            program: ptxas.display().to_string(),
            source,
        })?;
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(crate::BuildError::ToolFailed {
            program: format!("{} -arch={arch}", ptxas.display()),
            status: out.status.to_string(),
            stderr: report,
        });
    }
    let mut report_path = cubin.as_os_str().to_owned();
    report_path.push(".ptxas.txt");
    std::fs::write(&report_path, &report).map_err(|source| crate::BuildError::Io {
        action: "writing",
        path: PathBuf::from(&report_path),
        source,
    })?;
    Ok(Cubin {
        arch: arch.to_string(),
        path: cubin.to_path_buf(),
        kernels: ptxas_resources(&report),
    })
}

/// The Rust expression (`&[(&str, &[u8])]`) of `cubins`, each included from its file, that a
/// host crate embeds with `include!`: a list, since its length depends on the build machine.
pub(crate) fn cubins_source(cubins: &[Cubin]) -> String {
    let mut s = String::from("&[\n");
    for c in cubins {
        // Debug formatting of a str is a valid Rust string literal, escapes included.
        s.push_str(&format!(
            "    ({:?}, include_bytes!({:?}) as &[u8]),\n",
            c.arch,
            c.path.display().to_string()
        ));
    }
    s.push(']');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_lists() {
        assert_eq!(sass_archs_from(None), DEFAULT_SASS_ARCHS);
        assert_eq!(
            sass_archs_from(Some("sm_80, sm_86 sm_90")),
            ["sm_80", "sm_86", "sm_90"]
        );
        assert!(sass_archs_from(Some("none")).is_empty());
        assert!(sass_archs_from(Some(" ")).is_empty());
    }

    #[test]
    fn ptxas_lookup_order() {
        let dir = std::env::temp_dir().join(format!("rgb-ptxas-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b"));
        for d in [&a, &b] {
            std::fs::create_dir_all(d.join("bin")).expect("temp dir");
        }
        let exe = format!("ptxas{}", std::env::consts::EXE_SUFFIX);
        std::fs::write(b.join("bin").join(&exe), b"").expect("fake ptxas");
        let path = std::env::join_paths([a.join("bin"), b.join("bin")]).expect("PATH");
        // The named one wins, and only it counts: a wrong name is an error, not a search.
        assert_eq!(
            find_ptxas_in(Some(dir.join("nope")), None, None, Some(&path)),
            Err(NoPtxas::EnvNotAFile(dir.join("nope")))
        );
        assert_eq!(
            find_ptxas_in(Some(PathBuf::new()), None, None, Some(&path)),
            Err(NoPtxas::TurnedOff(PTXAS_ENV))
        );
        // CUDA_PATH before PATH; PATH in order.
        std::fs::write(a.join("bin").join(&exe), b"").expect("fake ptxas");
        assert_eq!(
            find_ptxas_in(None, Some(b.clone()), None, Some(&path)),
            Ok(b.join("bin").join(&exe))
        );
        assert_eq!(
            find_ptxas_in(None, None, None, Some(&path)),
            Ok(a.join("bin").join(&exe))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn ptxas_reports_are_read_per_kernel() {
        let report = "ptxas info    : 256 bytes gmem\n\
            ptxas info    : Compiling entry function 'a_any' for 'sm_90'\n\
            ptxas info    : Function properties for a_any\n    \
            0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
            ptxas info    : Used 4 registers, used 0 barriers\n\
            ptxas info    : Compile time = 1.437 ms\n\
            ptxas info    : Compiling entry function 'b' for 'sm_90'\n\
            ptxas info    : Function properties for b\n    \
            24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads\n\
            ptxas info    : Function properties for core_panic\n    \
            0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
            ptxas info    : Used 255 registers, used 1 barriers, 16 bytes smem\n";
        let k = ptxas_resources(report);
        assert_eq!(k.len(), 2);
        assert_eq!((k[0].name.as_str(), k[0].registers), ("a_any", 4));
        assert_eq!(
            (
                k[1].registers,
                k[1].stack_bytes,
                k[1].spill_stores,
                k[1].spill_loads
            ),
            (255, 24, 16, 12)
        );
    }

    #[test]
    fn the_cubin_list_is_rust_with_escaped_paths() {
        let list = cubins_source(&[Cubin {
            arch: "sm_90".into(),
            path: PathBuf::from("/o u\"t/m.sm_90.cubin"),
            kernels: Vec::new(),
        }]);
        assert!(
            list.contains(r#"("sm_90", include_bytes!("/o u\"t/m.sm_90.cubin") as &[u8])"#),
            "{list}"
        );
        assert_eq!(cubins_source(&[]), "&[\n]");
    }
}
