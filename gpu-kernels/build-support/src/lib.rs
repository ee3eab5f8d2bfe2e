//! Compiles a `no_std` Rust device crate into one self-contained PTX module, from a build script.
//!
//! `rustc --emit=asm` for `nvptx64-nvidia-cuda` prints one crate's PTX and leaves every
//! non-inlined function of another crate (`libm`, `core`, your own crates) as an
//! `.extern .func` that the CUDA driver cannot resolve. [`PtxBuilder`] links instead, as
//! rustc's own `llvm-bitcode-linker` does:
//!
//! 1. `cargo build --target nvptx64-nvidia-cuda -Zbuild-std=core --release` on the nightly
//!    toolchain, with `--emit=llvm-bc` so every crate (`core` and `compiler_builtins` included)
//!    leaves its LLVM bitcode, `-C target-cpu=sm_XX`, in a target directory of its own;
//! 2. `llvm-link` of all that bitcode into one module;
//! 3. `opt -passes='internalize,default<O3>' --internalize-public-api-list=<kernels>`, so that
//!    only the kernels stay visible and everything else is inlined or dropped;
//! 4. `llc -mcpu=sm_XX` → one PTX file;
//! 5. [`check_ptx`]: every kernel is an `.entry`, and no `.extern .func` is left;
//! 6. with [`PtxBuilder::sass`], where CUDA's `ptxas` is found ([`find_ptxas`]): a cubin per
//!    architecture ([`DEFAULT_SASS_ARCHS`], or [`SASS_ARCHS_ENV`]), listed in `<stem>.cubins.rs`
//!    for `include!`, so that the first process on a machine need not wait for the driver to
//!    JIT-compile the PTX; where none is found, the PTX alone and a `cargo:warning`.
//!
//! After the build, [`loops`] reads the SASS of what was built (`cuobjdump -sass`,
//! [`cubin_sass`] / [`ptx_sass`]) for whether each entry point's per-thread loop stayed flat
//! ([`loop_nesting`]), a fact the advisor's schedule model needs (`reconverge-advisor`'s
//! `advise_compiled`).
//!
//! It needs the nightly toolchain with the `rust-src` and `llvm-tools` components. Where one is
//! missing, [`PtxBuilder::build_into`] fails with [`BuildError::MissingToolchain`], whose message is
//! the exact `rustup` command that installs it.
//!
//! # The device crate
//!
//! A library crate (`rlib`) that is its own workspace (an empty `[workspace]` table, or listed
//! in the host workspace's `exclude`), `#![no_std]`, with `panic = "abort"` in its release
//! profile and a panic handler for the nvptx target. Kernels are `#[unsafe(no_mangle)] pub
//! unsafe extern "ptx-kernel" fn`:
//!
//! ```ignore
//! #![no_std]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]
//!
//! #[cfg(target_arch = "nvptx64")]
//! #[panic_handler]
//! fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
//!     unsafe { core::arch::nvptx::trap() }
//! }
//!
//! #[cfg(target_arch = "nvptx64")]
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn scale(x: *mut f32, n: u32, by: f32) {
//!     use core::arch::nvptx::*;
//!     let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
//!     if i < n as usize {
//!         unsafe { *x.add(i) *= by };
//!     }
//! }
//! ```
//!
//! # Use from a build script
//!
//! `Cargo.toml` of the host crate: `[build-dependencies] reconverge-gpu-build = "0.1"`, then
//! `build.rs`:
//!
//! ```no_run
//! use std::path::PathBuf;
//!
//! fn main() {
//!     let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
//!     let result = reconverge_gpu_build::PtxBuilder::new("device")
//!         .kernels(["scale"])
//!         .arch("sm_90")
//!         .sass(reconverge_gpu_build::Sass::from_env())
//!         .build_into(&out_dir, "kernels.ptx");
//!     match result {
//!         // Tells cargo to rerun this script when any source file of the device crate or the
//!         // SASS settings change, and warns where no SASS was built.
//!         Ok(ptx) => ptx.emit_cargo_instructions(),
//!         Err(e) => {
//!             eprintln!("error: {e}");
//!             std::process::exit(1);
//!         }
//!     }
//! }
//! ```
//!
//! and in the host crate:
//! `const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));`, and the cubins
//! `const CUBINS: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/kernels.cubins.rs"));`
//! (for `reconverge_gpu::ModuleImages`).
//!
//! The device build runs in `OUT_DIR/ptx-target` (or [`PtxBuilder::target_dir`]), so it is
//! cached between host builds and never contends with the host build's own target directory.

mod check;
mod crate_root;
pub mod loops;
mod sass;
mod toolchain;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use check::{
    PtxCheckError, PtxSummary, check_ptx, entries, kernels_in_ir, undefined_functions,
};
pub use loops::{
    CUOBJDUMP_ENV, LoopNesting, NoCuobjdump, SassError, cubin_sass, find_cuobjdump, loop_nesting,
    loop_table, ptx_sass,
};
pub use sass::{
    Cubin, DEFAULT_SASS_ARCHS, KernelResources, NoPtxas, PTXAS_ENV, PTXAS_OPT_LEVEL,
    SASS_ARCHS_ENV, SASS_ENV_VARS, Sass, find_ptxas, ptxas_resources, sass_archs_from,
};
pub use toolchain::{Toolchain, find_toolchain};

/// The rustc target the device crate is compiled for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// The architecture used when none is given: compute capability 9.0 (H100), the GPU the
/// project measures on and the default of `reconverge-gpu`'s own build script, which uses
/// this constant. PTX for sm_90 runs on sm_90 and later only; pass `.arch("sm_80")` for an
/// A100 (sm_80 PTX the driver also compiles for every later GPU).
pub const DEFAULT_ARCH: &str = "sm_90";

/// Set in the environment of the second, GPU build of a crate that [`build_this_crate`]
/// starts: the crate's build script runs again inside it and must start no third one.
pub const DEVICE_BUILD_ENV: &str = "RECONVERGE_DEVICE_BUILD";

/// The file in `OUT_DIR` that [`build_this_crate`] writes and `reconverge::this_crate_ptx!`
/// includes.
pub const THIS_CRATE_PTX: &str = "reconverge-entry-points.ptx";

/// The variable [`build_this_crate`] sets, for the crate's own compilation, to the path of the
/// PTX it wrote: `reconverge::this_crate_ptx!()` includes the file it names, and where it is
/// unset (a `build.rs` that does not call [`build_this_crate`]) says what to write instead of
/// rustc's "couldn't read" of a file that was never built. That macro spells the name out, as
/// `env!` needs a literal.
pub const THIS_CRATE_PTX_ENV: &str = "RECONVERGE_THIS_CRATE_PTX";

/// Kernels of `reconverge-device` that the CUDA backend launches itself (adding up tally
/// copies on the GPU: `reconverge_device::tally_copies`), kept in every module whose device
/// code links that crate; a module without them still works (the backend then does that work
/// on the host), so they are not required like the listed kernels.
pub const SUPPORT_KERNELS: &[&str] = &["reconverge_add_up_tally_copies"];

/// The file [`DYNAMIC_SHARED_BASE_IR`] is written to, beside the PTX.
const DYNAMIC_SHARED_BASE_FILE: &str = "reconverge-dynamic-shared.ll";

/// LLVM IR linked into every module: `reconverge_dynamic_shared_base()`, the generic address of
/// the block's dynamic shared memory (`extern __shared__` in CUDA), which device code declares
/// as an external function. Rust cannot name LLVM's shared address space, but this function
/// returns an `addrspacecast` of a shared-space global; once `internalize` and the inliner have
/// put it into its callers, LLVM's address-space inference turns every access derived from it
/// into `ld.shared` / `st.shared`, with 32-bit offsets, where the generic pointer of an `asm!`
/// `cvta` gave generic loads and stores of 64-bit addresses (collaborative context
/// collection's stacks: `LD.E`/`ST.E` and more registers, against the CUDA twin's
/// `LDS`/`STS`). A module that does not call it loses it at `internalize`.
const DYNAMIC_SHARED_BASE_IR: &str = "\
@reconverge_dynamic_shared = external addrspace(3) global [0 x i8], align 16

define ptr @reconverge_dynamic_shared_base() alwaysinline nounwind readnone {
  ret ptr addrspacecast (ptr addrspace(3) @reconverge_dynamic_shared to ptr)
}
";

/// The whole `build.rs` of a crate with GPU entry points of its own
/// (`reconverge::gpu_entry_points!` in its library):
///
/// ```text
/// fn main() {
///     reconverge_gpu_build::build_this_crate();
/// }
/// ```
///
/// Compiles the crate's library a second time, for `nvptx64-nvidia-cuda` (nightly with
/// `rust-src` and `llvm-tools`), into one checked, self-contained PTX module,
/// `OUT_DIR/`[`THIS_CRATE_PTX`], which `reconverge::this_crate_ptx!()` includes, and, where a
/// `ptxas` is found, its cubins ([`PtxBuilder::sass`] with [`Sass::from_env`]), which
/// `reconverge::this_crate_module!()` includes with it; reruns when a source of it or the SASS
/// settings change, and names the PTX file in [`THIS_CRATE_PTX_ENV`] for the crate's own
/// compilation. Inside that second build (where [`DEVICE_BUILD_ENV`] is set) it does
/// nothing. On failure it prints the error (a missing toolchain comes with the `rustup`
/// command that installs it; a library root without `no_std`, with the line to add, before
/// anything is compiled) and exits the build script with status 1.
///
/// The library must build for the GPU: `#![cfg_attr(target_arch = "nvptx64", no_std,
/// feature(abi_ptx))]` at its top, and dependencies the GPU build cannot compile (a command-line
/// parser, say) under `[target.'cfg(not(target_arch = "nvptx64"))'.dependencies]`.
pub fn build_this_crate() {
    println!("cargo:rerun-if-env-changed={DEVICE_BUILD_ENV}");
    if std::env::var_os(DEVICE_BUILD_ENV).is_some() {
        return;
    }
    let built = PtxBuilder::this_crate().and_then(|builder| {
        let out = std::env::var_os("OUT_DIR").ok_or(BuildError::NotInBuildScript("OUT_DIR"))?;
        builder
            .sass(Sass::from_env())
            .build_into(Path::new(&out), THIS_CRATE_PTX)
    });
    match built {
        Ok(ptx) => {
            ptx.emit_cargo_instructions();
            println!(
                "cargo:rustc-env={THIS_CRATE_PTX_ENV}={}",
                ptx.path.display()
            );
        }
        Err(e) => {
            eprintln!("error: the GPU build of this crate failed: {e}");
            std::process::exit(1);
        }
    }
}

/// Why the PTX could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The toolchain, `rust-src` or `llvm-tools` is not installed.
    #[error(
        "compiling Rust to PTX needs the {toolchain} toolchain with rust-src and llvm-tools; missing: {}. Install with: `{fix}`",
        missing.join(", ")
    )]
    MissingToolchain {
        /// The toolchain asked for.
        toolchain: String,
        /// What is missing: `toolchain`, `rust-src`, `llvm-tools`.
        missing: Vec<String>,
        /// The exact command that installs it.
        fix: String,
    },
    /// The toolchain is not a nightly one (`-Zbuild-std` and `abi_ptx` need nightly).
    #[error(
        "toolchain {toolchain} is {version}, not a nightly: -Zbuild-std and extern \"ptx-kernel\" need nightly. Install with: `rustup toolchain install nightly --component rust-src,llvm-tools`"
    )]
    NotNightly {
        /// The toolchain asked for.
        toolchain: String,
        /// Its `rustc -V`.
        version: String,
    },
    /// The architecture is not of the form `sm_XX`.
    #[error("GPU architecture {0:?} is not of the form sm_XX (sm_80, sm_90, sm_90a ...)")]
    InvalidArch(String),
    /// No kernels were named.
    #[error("no kernel entry points given: name them with PtxBuilder::kernels")]
    NoKernels,
    /// [`PtxBuilder::this_crate`]: the crate's library defines no kernel.
    #[error(
        "crate {0} defines no GPU entry point for nvptx64: list them with reconverge::gpu_entry_points! in its library (src/lib.rs), or drop build_this_crate from build.rs"
    )]
    NoKernelsInCrate(String),
    /// [`PtxBuilder::this_crate`]: the crate's library root does not say `no_std`, which the
    /// GPU build needs (said before building: rustc would first report every `std` macro it
    /// cannot find).
    #[error(
        "{} is compiled for the GPU too, where there is no std, and does not say `no_std`: add `#![cfg_attr(target_arch = \"nvptx64\", no_std, feature(abi_ptx))]` as its first line; keep std-only code under #[cfg(not(target_arch = \"nvptx64\"))] and host-only dependencies under [target.'cfg(not(target_arch = \"nvptx64\"))'.dependencies]",
        .0.display()
    )]
    NotNoStd(PathBuf),
    /// [`PtxBuilder::this_crate`] outside a build script.
    #[error(
        "{0} is not set: PtxBuilder::this_crate and build_this_crate run in a build script (build.rs)"
    )]
    NotInBuildScript(&'static str),
    /// The device crate has no `Cargo.toml` (nor the manifest template it was given).
    #[error("device crate {0} has no Cargo.toml")]
    NoDeviceCrate(PathBuf),
    /// The manifest template names a `{{key}}` that was given no path.
    #[error("manifest template {}: no path given for {key} (PtxBuilder::template_path)", template.display())]
    TemplateKey {
        /// The template.
        template: PathBuf,
        /// The placeholder, braces included.
        key: String,
    },
    /// A program could not be started.
    #[error("could not run {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A tool ran and failed.
    #[error("{program} failed ({status}):\n{stderr}")]
    ToolFailed {
        /// The program.
        program: String,
        /// Its exit status.
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// Cargo compiled no library of the device crate, or left no bitcode for a crate.
    #[error("no LLVM bitcode for crate {crate_name} (expected {}); run `cargo clean` on {}", expected.display(), target_dir.display())]
    NoBitcode {
        /// The crate.
        crate_name: String,
        /// Where the bitcode should be.
        expected: PathBuf,
        /// The device build's target directory.
        target_dir: PathBuf,
    },
    /// Reading or writing a file failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// The PTX was produced but cannot be loaded as it is.
    #[error("{ptx}: {source}", ptx = path.display())]
    Check {
        /// The PTX file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: PtxCheckError,
    },
}

/// A finished, checked PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptx {
    /// Where it was written.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// What [`check_ptx`] found in it.
    pub summary: PtxSummary,
    /// Every source file the device crate and its non-registry dependencies were compiled
    /// from (from rustc's dep-info), for `cargo:rerun-if-changed`.
    pub sources: Vec<PathBuf>,
    /// The cubins built beside the PTX ([`PtxBuilder::sass`]; none without it).
    pub cubins: Vec<Cubin>,
    /// Why SASS was not built, or not for every architecture asked for: one line each.
    pub sass_skipped: Vec<String>,
    /// Whether [`PtxBuilder::sass`] was asked for (its environment is then watched).
    sass_asked: bool,
    /// `<stem>.cubins.rs` beside the PTX: the Rust expression `&[(&str, &[u8])]` of the cubins
    /// (architecture, image), for `include!`; an empty list where none was built.
    pub cubins_list: PathBuf,
}

impl Ptx {
    /// Prints `cargo:rerun-if-changed` for every source file of the device build, so that a
    /// build script reruns exactly when device code changes.
    pub fn emit_rerun_if_changed(&self) {
        for s in &self.sources {
            println!("cargo:rerun-if-changed={}", s.display());
        }
    }

    /// What a build script prints for cargo: [`Ptx::emit_rerun_if_changed`], with
    /// [`PtxBuilder::sass`] also `cargo:rerun-if-env-changed` for [`SASS_ENV_VARS`] and a
    /// `cargo:warning` for each of [`Ptx::sass_skipped`] (the build goes on: the PTX runs
    /// everywhere, SASS only saves the driver's JIT compilation).
    pub fn emit_cargo_instructions(&self) {
        self.emit_rerun_if_changed();
        if self.sass_asked {
            for var in SASS_ENV_VARS {
                println!("cargo:rerun-if-env-changed={var}");
            }
        }
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        for why in &self.sass_skipped {
            println!("cargo:warning={name}: SASS not shipped, PTX only: {why}");
        }
    }
}

/// Builds a device crate into one PTX module. See the [crate docs](crate) for an example.
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    kernels: Vec<String>,
    arch: String,
    toolchain: String,
    target_dir: Option<PathBuf>,
    features: Vec<String>,
    no_default_features: bool,
    rustflags: Vec<String>,
    opt_args: Vec<String>,
    template: Option<PathBuf>,
    template_paths: Vec<(String, PathBuf)>,
    /// [`PtxBuilder::this_crate`]: the package whose own library is the device crate.
    own_package: Option<String>,
    sass: Option<Sass>,
}

impl PtxBuilder {
    /// A builder for the device crate at `crate_dir` (the folder of its `Cargo.toml`; a
    /// relative path is taken from the current directory, which in a build script is the
    /// host crate's folder).
    pub fn new(crate_dir: impl Into<PathBuf>) -> Self {
        Self {
            crate_dir: crate_dir.into(),
            kernels: Vec::new(),
            arch: DEFAULT_ARCH.to_string(),
            toolchain: "nightly".to_string(),
            target_dir: None,
            features: Vec::new(),
            no_default_features: false,
            rustflags: Vec::new(),
            opt_args: Vec::new(),
            template: None,
            template_paths: Vec::new(),
            own_package: None,
            sass: None,
        }
    }

    /// A builder for the library of the crate whose build script runs it: the crate is its own
    /// device crate, compiled a second time for `nvptx64` (its library only, `--lib`), and its
    /// kernels are every `extern "ptx-kernel"` function it defines (found in its bitcode), so
    /// none need naming. In that second build the crate's build script runs again, with
    /// [`DEVICE_BUILD_ENV`] set, and must start no third one: [`build_this_crate`] does this.
    ///
    /// # Errors
    /// [`BuildError::NotInBuildScript`] outside a build script (no `CARGO_MANIFEST_DIR` or
    /// `CARGO_PKG_NAME`).
    pub fn this_crate() -> Result<Self, BuildError> {
        let var = |name: &'static str| {
            std::env::var(name).map_err(|_| BuildError::NotInBuildScript(name))
        };
        let mut builder = Self::new(var("CARGO_MANIFEST_DIR")?);
        builder.own_package = Some(var("CARGO_PKG_NAME")?);
        Ok(builder)
    }

    /// Builds from a manifest template instead of `crate_dir/Cargo.toml`: how a device crate's
    /// sources travel inside the package of the host crate that builds them. `cargo package`
    /// leaves out every folder with a `Cargo.toml` (a package of its own), and a device
    /// manifest's `path = "../.."` dependencies would not exist in a downloaded crate; a
    /// template (`device/Cargo.toml.in`, say) is packaged like any file, and its dependencies'
    /// folders come from the build script, where they are known both in a workspace and from
    /// the registry.
    ///
    /// The template is written to `<out_dir>/<template's folder>-manifest/Cargo.toml` with `{{crate_dir}}`
    /// replaced by the absolute `crate_dir` (for `[lib] path = "{{crate_dir}}/src/lib.rs"`) and
    /// each `{{key}}` of [`PtxBuilder::template_path`] by its path; a `Cargo.lock` in
    /// `crate_dir` is copied beside it, so the device build resolves the same versions.
    ///
    /// Write each dependency given by path also in a `[patch.crates-io]` table of the
    /// template: a dependency downloaded from the registry asks for its own dependencies by
    /// version, and the patch makes those the same crates as the device crate's.
    pub fn manifest_template(mut self, template: impl Into<PathBuf>) -> Self {
        self.template = Some(template.into());
        self
    }

    /// The path that replaces `{{key}}` in the [manifest template](PtxBuilder::manifest_template):
    /// typically a dependency's source folder, which that dependency can tell a build script
    /// (reconverge's crates export it as `SOURCE_DIR`).
    pub fn template_path(mut self, key: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        self.template_paths.push((key.into(), path.into()));
        self
    }

    /// Adds kernel entry points: they stay visible in the PTX, and the build fails if one is
    /// missing. Everything else is internalized, inlined and dropped.
    pub fn kernels<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.kernels.extend(names.into_iter().map(Into::into));
        self
    }

    /// The GPU architecture ([`DEFAULT_ARCH`], `sm_90`, unless set; `sm_80` for an A100),
    /// passed as `-C target-cpu` to rustc and `-mcpu` to `llc`.
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = arch.into();
        self
    }

    /// The rustup toolchain (default `nightly`).
    pub fn toolchain(mut self, toolchain: impl Into<String>) -> Self {
        self.toolchain = toolchain.into();
        self
    }

    /// The target directory of the device build (default: `ptx-target` beside the output).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Cargo features of the device crate to enable.
    pub fn features<I: IntoIterator<Item = S>, S: Into<String>>(mut self, features: I) -> Self {
        self.features.extend(features.into_iter().map(Into::into));
        self
    }

    /// Turns the device crate's default features off.
    pub fn no_default_features(mut self) -> Self {
        self.no_default_features = true;
        self
    }

    /// Extra rustc flags for every device crate.
    pub fn rustflags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, flags: I) -> Self {
        self.rustflags.extend(flags.into_iter().map(Into::into));
        self
    }

    /// Extra arguments for the `opt` step (for instance `-inline-threshold=3000`, so that
    /// each entry point's constant arguments are propagated through the code it calls).
    pub fn opt_args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.opt_args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Also builds SASS: for each architecture of `sass`, a cubin `<stem>.<arch>.cubin` beside
    /// the PTX, assembled by `ptxas -O3` ([`PTXAS_OPT_LEVEL`], the driver JIT's level) from the
    /// PTX of that architecture (`llc -mcpu=<arch>` of the same optimised bitcode; the PTX
    /// itself for its own architecture), with `ptxas -v`'s report beside it. Where `sass` has
    /// no `ptxas`, or `ptxas` fails for an architecture, the build goes on without those
    /// cubins and [`Ptx::sass_skipped`] says why. [`Sass::from_env`] reads the environment
    /// ([`PTXAS_ENV`], [`SASS_ARCHS_ENV`]).
    pub fn sass(mut self, sass: Sass) -> Self {
        self.sass = Some(sass);
        self
    }

    /// Builds the PTX into `out_dir/file_name` and checks it.
    ///
    /// # Errors
    /// Any [`BuildError`]: a missing toolchain component (with the command that installs it),
    /// a compile error in the device crate (with cargo's output), a failing LLVM tool, or a
    /// module that lacks a kernel or calls an undefined function.
    pub fn build_into(&self, out_dir: &Path, file_name: &str) -> Result<Ptx, BuildError> {
        if self.kernels.is_empty() && self.own_package.is_none() {
            return Err(BuildError::NoKernels);
        }
        validate_arch(&self.arch)?;
        let manifest = match &self.template {
            Some(t) => t.clone(),
            None => self.crate_dir.join("Cargo.toml"),
        };
        if !manifest.is_file() {
            return Err(BuildError::NoDeviceCrate(self.crate_dir.clone()));
        }
        // Absolute, so that dep-info paths and error messages do not depend on the cwd.
        let crate_dir =
            std::fs::canonicalize(&self.crate_dir).map_err(|source| BuildError::Io {
                action: "resolving",
                path: self.crate_dir.clone(),
                source,
            })?;
        if self.own_package.is_some() {
            let manifest_text =
                std::fs::read_to_string(&manifest).map_err(|source| BuildError::Io {
                    action: "reading",
                    path: manifest.clone(),
                    source,
                })?;
            let root = crate_root::library_root(&crate_dir, &manifest_text);
            // A root that cannot be read is left to cargo, which names it as well.
            if let Ok(text) = std::fs::read_to_string(&root)
                && crate_root::missing_no_std(&text)
            {
                return Err(BuildError::NotNoStd(root));
            }
        }
        let stem = file_name.strip_suffix(".ptx").unwrap_or(file_name);
        // What the device cargo build reads, and the files whose change means a rebuild.
        let (manifest, inputs) = match &self.template {
            Some(template) => {
                // One folder per template, not per output: builds of one device crate with
                // other kernels share its package id, and so its compiled dependencies.
                let folder = template
                    .parent()
                    .and_then(Path::file_name)
                    .map_or_else(|| "device".into(), |n| n.to_string_lossy().into_owned());
                let generated = out_dir.join(format!("{folder}-manifest"));
                let written = self.write_manifest(template, &crate_dir, &generated)?;
                (written, vec![template.clone()])
            }
            None => (
                crate_dir.join("Cargo.toml"),
                vec![crate_dir.join("Cargo.toml")],
            ),
        };
        let tc = find_toolchain(&self.toolchain)?;
        let target_dir = self
            .target_dir
            .clone()
            .unwrap_or_else(|| out_dir.join("ptx-target"));
        std::fs::create_dir_all(out_dir).map_err(|source| BuildError::Io {
            action: "creating",
            path: out_dir.to_path_buf(),
            source,
        })?;

        let units = self.cargo_build(&tc, &manifest, &target_dir)?;
        let bitcode: Vec<PathBuf> = units.iter().map(|u| u.bitcode.clone()).collect();
        let mut kernels = self.kernels.clone();
        if let Some(package) = &self.own_package {
            // The crate's own library, by its manifest: its library may be named other than
            // its package (`[lib] name`).
            let own = crate_dir.join("Cargo.toml");
            let is_own = |u: &&Unit| std::fs::canonicalize(&u.manifest).is_ok_and(|m| m == own);
            for unit in units.iter().filter(is_own) {
                let ir = toolchain::command_stdout(
                    Command::new(&tc.llvm_dis)
                        .arg(&unit.bitcode)
                        .arg("-o")
                        .arg("-"),
                )?;
                kernels.extend(check::kernels_in_ir(&ir));
            }
            if kernels.is_empty() {
                return Err(BuildError::NoKernelsInCrate(package.clone()));
            }
        }
        // rustc's dep-info names a workspace member's files relative to the workspace root: for
        // a crate built as its own device crate, its host workspace's, not the crate's folder
        // (joined to that, every path was missing and the build script reran on every build).
        let root = workspace_root(&tc.cargo, &manifest).unwrap_or_else(|| crate_dir.clone());
        let sources = dep_info_sources(&units, &tc.sysroot, &root);

        let linked = out_dir.join(format!("{stem}.linked.bc"));
        let optimized = out_dir.join(format!("{stem}.opt.bc"));
        let ptx_path = out_dir.join(file_name);

        let shared_base = out_dir.join(DYNAMIC_SHARED_BASE_FILE);
        write_if_changed(&shared_base, DYNAMIC_SHARED_BASE_IR.as_bytes())?;
        let mut link = Command::new(&tc.llvm_link);
        link.args(&bitcode).arg(&shared_base).arg("-o").arg(&linked);
        toolchain::command_stdout(&mut link)?;

        let mut opt = Command::new(&tc.opt);
        // A name the linked module lacks is ignored by `internalize`.
        let kept: Vec<&str> = kernels
            .iter()
            .map(String::as_str)
            .chain(SUPPORT_KERNELS.iter().copied())
            .collect();
        opt.arg("-passes=internalize,default<O3>")
            .arg(format!("--internalize-public-api-list={}", kept.join(",")))
            .args(&self.opt_args)
            .arg(&linked)
            .arg("-o")
            .arg(&optimized);
        toolchain::command_stdout(&mut opt)?;

        let mut llc = Command::new(&tc.llc);
        llc.arg(format!("-mcpu={}", self.arch))
            .arg("-O3")
            .arg(&optimized)
            .arg("-o")
            .arg(&ptx_path);
        toolchain::command_stdout(&mut llc)?;

        let text = std::fs::read_to_string(&ptx_path).map_err(|source| BuildError::Io {
            action: "reading",
            path: ptx_path.clone(),
            source,
        })?;
        let summary = check_ptx(&text, &kernels).map_err(|source| BuildError::Check {
            path: ptx_path.clone(),
            source,
        })?;
        let mut sources = sources;
        sources.extend(inputs);
        let lock = crate_dir.join("Cargo.lock");
        if lock.is_file() {
            sources.push(lock);
        }
        let (cubins, sass_skipped) = match &self.sass {
            Some(sass) => self.build_sass(sass, &tc, &optimized, &ptx_path, out_dir, stem)?,
            None => (Vec::new(), Vec::new()),
        };
        let cubins_list = out_dir.join(format!("{stem}.cubins.rs"));
        write_if_changed(&cubins_list, sass::cubins_source(&cubins).as_bytes())?;
        Ok(Ptx {
            path: ptx_path,
            text,
            summary,
            sources,
            cubins,
            sass_skipped,
            sass_asked: self.sass.is_some(),
            cubins_list,
        })
    }

    /// The cubins of `sass`'s architectures, each from the PTX of its own architecture, built
    /// side by side; and why any was not built.
    fn build_sass(
        &self,
        sass: &Sass,
        tc: &Toolchain,
        optimized: &Path,
        ptx_path: &Path,
        out_dir: &Path,
        stem: &str,
    ) -> Result<(Vec<Cubin>, Vec<String>), BuildError> {
        let ptxas = match &sass.ptxas {
            Ok(p) => p,
            Err(e) => return Ok((Vec::new(), vec![e.to_string()])),
        };
        for arch in &sass.archs {
            validate_arch(arch)?;
        }
        let one = |arch: &str| -> Result<Cubin, BuildError> {
            // A PTX of a higher `.target` does not assemble for a lower architecture, and the
            // sm_80 cubin must come from sm_80 PTX: llc again, from the same bitcode.
            let ptx = if arch == self.arch {
                ptx_path.to_path_buf()
            } else {
                let p = out_dir.join(format!("{stem}.{arch}.ptx"));
                toolchain::command_stdout(
                    Command::new(&tc.llc)
                        .arg(format!("-mcpu={arch}"))
                        .arg("-O3")
                        .arg(optimized)
                        .arg("-o")
                        .arg(&p),
                )?;
                p
            };
            sass::assemble(
                ptxas,
                arch,
                &ptx,
                &out_dir.join(format!("{stem}.{arch}.cubin")),
            )
        };
        let results: Vec<(String, Result<Cubin, BuildError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = sass
                .archs
                .iter()
                .map(|arch| (arch.clone(), scope.spawn(move || one(arch))))
                .collect();
            handles
                .into_iter()
                .map(|(arch, h)| {
                    let result = h.join().unwrap_or_else(|_| {
                        Err(BuildError::ToolFailed {
                            program: format!("ptxas -arch={arch}"),
                            status: "the thread running it panicked".into(),
                            stderr: String::new(),
                        })
                    });
                    (arch, result)
                })
                .collect()
        });
        let (mut cubins, mut skipped) = (Vec::new(), Vec::new());
        for (arch, result) in results {
            match result {
                Ok(c) => cubins.push(c),
                Err(e) => skipped.push(format!(
                    "{arch}: {}",
                    e.to_string()
                        .lines()
                        .take(4)
                        .collect::<Vec<_>>()
                        .join(" / ")
                )),
            }
        }
        Ok((cubins, skipped))
    }

    /// Writes the manifest template, filled in, and the crate's `Cargo.lock` into `dir`;
    /// returns the manifest's path. Files whose text is unchanged are not rewritten, so their
    /// times do not make cargo rebuild the device crate.
    fn write_manifest(
        &self,
        template: &Path,
        crate_dir: &Path,
        dir: &Path,
    ) -> Result<PathBuf, BuildError> {
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| BuildError::Io {
                action,
                path,
                source,
            }
        };
        let mut text = std::fs::read_to_string(template).map_err(io("reading", template))?;
        let mut paths = vec![("crate_dir".to_string(), crate_dir.to_path_buf())];
        paths.extend(self.template_paths.iter().cloned());
        for (key, path) in &paths {
            text = text.replace(&format!("{{{{{key}}}}}"), &toml_path(path));
        }
        if let Some(start) = text.find("{{") {
            let end = text[start..]
                .find("}}")
                .map_or(text.len(), |e| start + e + 2);
            return Err(BuildError::TemplateKey {
                template: template.to_path_buf(),
                key: text[start..end].to_string(),
            });
        }
        std::fs::create_dir_all(dir).map_err(io("creating", dir))?;
        let manifest = dir.join("Cargo.toml");
        write_if_changed(&manifest, text.as_bytes())?;
        let lock = crate_dir.join("Cargo.lock");
        if lock.is_file() {
            let bytes = std::fs::read(&lock).map_err(io("reading", &lock))?;
            write_if_changed(&dir.join("Cargo.lock"), &bytes)?;
        }
        Ok(manifest)
    }

    /// Runs cargo on the device crate and returns each compiled library with its bitcode.
    fn cargo_build(
        &self,
        tc: &Toolchain,
        manifest: &Path,
        target_dir: &Path,
    ) -> Result<Vec<Unit>, BuildError> {
        let mut flags = vec![
            "--emit=llvm-bc".to_string(),
            format!("-Ctarget-cpu={}", self.arch),
            // One bitcode file per crate: with several codegen units rustc would not write it.
            "-Ccodegen-units=1".to_string(),
        ];
        flags.extend(self.rustflags.iter().cloned());

        let mut cmd = Command::new(&tc.cargo);
        cmd.arg("build")
            .arg("--manifest-path")
            .arg(manifest)
            .args(["--target", TARGET, "-Zbuild-std=core", "--release"])
            .args(["--message-format=json-render-diagnostics"])
            .arg("--target-dir")
            .arg(target_dir);
        if self.own_package.is_some() {
            // The library is the device crate; the crate's binaries, tests and examples are
            // the host's. Its build script, run again in this build, must not start another.
            cmd.arg("--lib").env(DEVICE_BUILD_ENV, "1");
        }
        if self.no_default_features {
            cmd.arg("--no-default-features");
        }
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
        clean_env(&mut cmd);
        cmd.env("RUSTC", &tc.rustc)
            // CARGO_ENCODED_RUSTFLAGS outranks RUSTFLAGS and the outer cargo sets it for build
            // scripts, so it is the one variable that reliably sets the device flags.
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\u{1f}"))
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            // A crate built as its own device crate (`this_crate`) takes its workspace's
            // release profile, whose debug info would change the code: none, as in a device
            // crate's own profile.
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = cmd.output().map_err(|source| BuildError::Spawn {
            program: tc.cargo.display().to_string(),
            source,
        })?;
        if !out.status.success() {
            return Err(BuildError::ToolFailed {
                program: format!(
                    "cargo +{} build --target {TARGET} -Zbuild-std=core (device crate {})",
                    tc.name,
                    self.crate_dir.display()
                ),
                status: out.status.to_string(),
                stderr: with_hint(
                    without_progress(&String::from_utf8_lossy(&out.stderr)),
                    self.own_package.is_some(),
                ),
            });
        }
        units_from_messages(&String::from_utf8_lossy(&out.stdout), target_dir)
    }
}

/// The device build's errors, with what to do where a crate built as its own device crate
/// ([`PtxBuilder::this_crate`]) is not ready for the GPU. The hint goes first: rustc reports the
/// missing `std` after every `std` macro it could not find, hundreds of lines below. (A library
/// root without `no_std` is caught before the build, [`BuildError::NotNoStd`]; this is for a
/// dependency of it that needs `std`.)
fn with_hint(stderr: String, own_crate: bool) -> String {
    if own_crate && stderr.contains("can't find crate for `std`") {
        return format!(
            "hint: the library is compiled for the GPU too, without std, and it or a dependency \
             needs std: start src/lib.rs with \
             `#![cfg_attr(target_arch = \"nvptx64\", no_std, feature(abi_ptx))]`, keep std-only \
             code under #[cfg(not(target_arch = \"nvptx64\"))], and put host-only dependencies \
             under [target.'cfg(not(target_arch = \"nvptx64\"))'.dependencies]\n\n{stderr}"
        );
    }
    stderr
}

/// Cargo's output without its progress lines (`   Compiling core v0.0.0 ...`, one per crate of
/// a fresh GPU build), so that the first line after the command is the first error.
fn without_progress(stderr: &str) -> String {
    const PROGRESS: &[&str] = &[
        "Compiling ",
        "Checking ",
        "Fresh ",
        "Finished ",
        "Blocking ",
        "Locking ",
        "Updating ",
        "Downloading ",
        "Downloaded ",
        "Adding ",
    ];
    let mut out = String::with_capacity(stderr.len());
    for line in stderr.lines() {
        let trimmed = line.trim_start();
        let progress =
            trimmed.len() < line.len() && PROGRESS.iter().any(|p| trimmed.starts_with(p));
        if !progress {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Environment a build script inherits from the outer cargo that would redirect the inner
/// build to the host toolchain, the host target directory or the host's flags.
fn clean_env(cmd: &mut Command) {
    const REMOVE: &[&str] = &[
        "RUSTC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTDOC",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTUP_TOOLCHAIN",
        "CARGO",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_ENCODED_RUSTDOCFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_TARGET_DIR",
        "CARGO_INCREMENTAL",
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "RUSTC_LINKER",
    ];
    for k in REMOVE {
        cmd.env_remove(k);
    }
    for (k, _) in std::env::vars_os() {
        let k: OsString = k;
        let s = k.to_string_lossy();
        if s.starts_with("CARGO_PROFILE_") || s.starts_with("CARGO_TARGET_NVPTX64") {
            cmd.env_remove(&k);
        }
    }
}

/// One compiled device library: its package's manifest, its bitcode and its dep-info file.
#[derive(Clone, Debug)]
struct Unit {
    manifest: PathBuf,
    bitcode: PathBuf,
    dep_info: PathBuf,
}

/// Reads cargo's JSON messages: every library compiled for the nvptx target, mapped from its
/// `deps/lib<name>-<hash>.rlib|rmeta` to `deps/<name>-<hash>.bc`. Going by cargo's own list (not
/// by the `.bc` files in the folder) keeps stale bitcode of old builds out of the link.
fn units_from_messages(stdout: &str, target_dir: &Path) -> Result<Vec<Unit>, BuildError> {
    let device_dir = target_dir.join(TARGET);
    let mut units = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with('{')) {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let kinds = msg["target"]["kind"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if kinds
            .iter()
            .any(|k| k == "custom-build" || k == "proc-macro")
        {
            continue;
        }
        let crate_name = msg["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .replace('-', "_");
        let files = msg["filenames"].as_array().cloned().unwrap_or_default();
        let file = files
            .iter()
            .filter_map(|f| f.as_str())
            .map(PathBuf::from)
            .find(|f| {
                toolchain::is_under(f, &device_dir)
                    && f.parent().and_then(Path::file_name) == Some("deps".as_ref())
            });
        let Some(file) = file else {
            continue;
        };
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.strip_prefix("lib"))
            .unwrap_or_default()
            .to_string();
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let bitcode = dir.join(format!("{stem}.bc"));
        if !bitcode.is_file() {
            return Err(BuildError::NoBitcode {
                crate_name,
                expected: bitcode,
                target_dir: target_dir.to_path_buf(),
            });
        }
        units.push(Unit {
            manifest: PathBuf::from(msg["manifest_path"].as_str().unwrap_or_default()),
            bitcode,
            dep_info: dir.join(format!("{stem}.d")),
        });
    }
    if units.is_empty() {
        return Err(BuildError::NoBitcode {
            crate_name: "(any)".into(),
            expected: device_dir.join("release/deps/*.bc"),
            target_dir: target_dir.to_path_buf(),
        });
    }
    Ok(units)
}

/// Source files of the device build outside the toolchain and the cargo registry (those do not
/// change under a build), from rustc's dep-info files (`target: dep dep ...`).
fn dep_info_sources(units: &[Unit], sysroot: &Path, workspace_root: &Path) -> Vec<PathBuf> {
    let registry = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .map(|h| h.join("registry"));
    let mut out: Vec<PathBuf> = Vec::new();
    for u in units {
        let Ok(text) = std::fs::read_to_string(&u.dep_info) else {
            continue;
        };
        for line in text.lines() {
            let Some((_, deps)) = line.split_once(": ") else {
                continue;
            };
            // Make-style escaping: `\ ` is a space inside a path.
            let deps = deps.replace("\\ ", "\u{0}");
            for d in deps.split_whitespace() {
                let p = PathBuf::from(d.replace('\u{0}', " "));
                // Paths of the device workspace's own members are relative to its root.
                let p = if p.is_relative() {
                    workspace_root.join(p)
                } else {
                    p
                };
                let foreign = p.starts_with(sysroot)
                    || registry.as_ref().is_some_and(|r| p.starts_with(r))
                    || p.extension().is_some_and(|e| e == "bc");
                if !foreign && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The folder of the workspace `manifest` belongs to (`cargo locate-project --workspace`), or
/// `None` if cargo cannot say.
fn workspace_root(cargo: &Path, manifest: &Path) -> Option<PathBuf> {
    let mut cmd = Command::new(cargo);
    cmd.args(["locate-project", "--workspace", "--message-format", "plain"])
        .arg("--manifest-path")
        .arg(manifest);
    let root_manifest = toolchain::command_stdout(&mut cmd).ok()?;
    Path::new(root_manifest.trim())
        .parent()
        .map(Path::to_path_buf)
}

/// A path as the inside of a TOML basic string (`"..."`).
fn toml_path(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// Writes `bytes` to `path` unless it already holds them; through a file of its own and a
/// rename, so that a build reading `path` meanwhile never sees half of it.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let io = |action: &'static str, p: &Path| {
        let p = p.to_path_buf();
        move |source| BuildError::Io {
            action,
            path: p,
            source,
        }
    };
    // Unique per process and call: tests build in parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}.{call}.tmp", std::process::id()));
    let temp = PathBuf::from(temp);
    std::fs::write(&temp, bytes).map_err(io("writing", &temp))?;
    std::fs::rename(&temp, path).map_err(io("renaming", path))
}

/// Checks an architecture name: `sm_` then digits, optionally one letter suffix (`sm_90a`).
fn validate_arch(arch: &str) -> Result<(), BuildError> {
    let ok = arch.strip_prefix("sm_").is_some_and(|rest| {
        let digits = rest.trim_end_matches(|c: char| c.is_ascii_lowercase());
        !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit())
            && rest.len() - digits.len() <= 1
    });
    if ok {
        Ok(())
    } else {
        Err(BuildError::InvalidArch(arch.to_string()))
    }
}

/// The names of a list's entry points, for [`PtxBuilder::kernels`]: the list that
/// `reconverge_device::entries!` compiles into the module and `reconverge_gpu::device_entries!`
/// declares on the host (`pub const NAMES; Workload as Shape { name [pass N] => strategy, ... }`),
/// read by `build.rs`. Defines the constant the list's first line names: each entry and its
/// `_any` twin, which takes the strategy's numbers from the launch; the strategies are not
/// evaluated here.
///
/// ```
/// reconverge_gpu_build::entry_names! {
///     const NAMES;
///     MyLoop as BranchLoopKernel { my_baseline => Strategy::BASELINE, my_split [pass 1] => Strategy::BRANCH_SPLITTING }
/// }
/// assert_eq!(NAMES, ["my_baseline", "my_baseline_any", "my_split", "my_split_any"]);
/// ```
#[macro_export]
macro_rules! entry_names {
    (
        $vis:vis const $names:ident;
        $( $workload:ty as $shape:ident { $( $name:ident $([pass $pass:literal])? => $strategy:expr ),* $(,)? } )*
    ) => {
        $vis const $names: &[&str] =
            &[$($(stringify!($name), concat!(stringify!($name), "_any"),)*)*];
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names() {
        for ok in ["sm_80", "sm_90", "sm_90a", "sm_100a", "sm_120"] {
            assert!(validate_arch(ok).is_ok(), "{ok}");
        }
        for bad in ["80", "sm_", "sm_9x0", "compute_90", "sm_90ab", ""] {
            assert!(validate_arch(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_crate_built_as_its_own_device_crate_without_no_std_is_told_how() {
        let rustc = "error[E0463]: can't find crate for `std`\n".to_string();
        let told = with_hint(rustc.clone(), true);
        // What to do first, rustc's words after.
        assert!(told.starts_with("hint: "), "{told}");
        assert!(told.ends_with(&rustc), "{told}");
        assert!(told.contains("no_std, feature(abi_ptx)"), "{told}");
        // A device crate of its own gets rustc's words alone.
        assert_eq!(with_hint(rustc.clone(), false), rustc);
        assert_eq!(with_hint("error: other".into(), true), "error: other");
    }

    #[test]
    fn cargos_progress_lines_are_left_out_of_a_failed_builds_output() {
        let cargo = "   Compiling core v0.0.0 (/sysroot/core)\n   Compiling w v0.1.0 (/w)\n\
                     error[E0080]: evaluation panicked: GPU entry point `x`\n  --> src/lib.rs:1:1\n\
                     error: could not compile `w` (lib) due to 1 previous error\n";
        assert_eq!(
            without_progress(cargo),
            "error[E0080]: evaluation panicked: GPU entry point `x`\n  --> src/lib.rs:1:1\n\
             error: could not compile `w` (lib) due to 1 previous error\n"
        );
        // A line of rustc's that starts with such a word, unindented, is kept.
        assert_eq!(without_progress("Compiling failed\n"), "Compiling failed\n");
    }

    #[test]
    fn this_crate_needs_a_build_script() {
        // `cargo test` sets CARGO_MANIFEST_DIR and CARGO_PKG_NAME as a build script has them.
        let builder = PtxBuilder::this_crate().expect("cargo's variables");
        assert_eq!(builder.own_package.as_deref(), Some("reconverge-gpu-build"));
        assert!(builder.crate_dir.join("Cargo.toml").is_file());
    }

    /// The one message a library without `no_std` gets, before any toolchain is looked for
    /// (this test needs none) or rustc's hundreds of lines.
    #[test]
    fn a_library_without_no_std_is_told_what_to_add_before_building() {
        let dir =
            std::env::temp_dir().join(format!("reconverge-gpu-build-std-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).expect("temp dir");
        std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"w\"\n").expect("manifest");
        std::fs::write(
            dir.join("src/lib.rs"),
            "//! Mine.\nuse reconverge::prelude::*;\n",
        )
        .expect("lib.rs");
        let mut builder = PtxBuilder::new(&dir);
        builder.own_package = Some("w".into());
        let e = builder
            .build_into(&dir.join("out"), THIS_CRATE_PTX)
            .unwrap_err();
        let lib = std::fs::canonicalize(&dir)
            .expect("canonical")
            .join("src/lib.rs");
        assert!(
            matches!(&e, BuildError::NotNoStd(at) if *at == lib),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "{} is compiled for the GPU too, where there is no std, and does not say `no_std`: \
                 add `#![cfg_attr(target_arch = \"nvptx64\", no_std, feature(abi_ptx))]` as its \
                 first line; keep std-only code under #[cfg(not(target_arch = \"nvptx64\"))] and \
                 host-only dependencies under \
                 [target.'cfg(not(target_arch = \"nvptx64\"))'.dependencies]",
                lib.display()
            )
        );
        // With it, the build goes on (here to the toolchain or cargo, whatever fails first).
        std::fs::write(
            dir.join("src/lib.rs"),
            "#![cfg_attr(target_arch = \"nvptx64\", no_std, feature(abi_ptx))]\n",
        )
        .expect("lib.rs");
        let e = builder.build_into(&dir.join("out"), THIS_CRATE_PTX);
        assert!(!matches!(e, Err(BuildError::NotNoStd(_))), "{e:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// rustc's dep-info starts a workspace member's paths at the workspace root (here, in the
    /// checkout, two folders above this crate; a packaged copy is its own root).
    #[test]
    fn a_workspace_members_sources_are_found_from_the_workspace_root() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let cargo = std::env::var_os("CARGO").expect("cargo test sets CARGO");
        let root = workspace_root(Path::new(&cargo), &here.join("Cargo.toml")).expect("a root");
        let member = here
            .strip_prefix(&root)
            .expect("the crate lies under its workspace root");
        assert!(root.join("Cargo.toml").is_file(), "{}", root.display());

        let dir =
            std::env::temp_dir().join(format!("reconverge-gpu-build-d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let dep_info = dir.join("w.d");
        let relative = member.join("src/lib.rs");
        std::fs::write(
            &dep_info,
            format!("w.rlib: {} /abs/other.rs\n", relative.display()),
        )
        .expect("dep-info");
        let unit = Unit {
            manifest: here.join("Cargo.toml"),
            bitcode: dir.join("w.bc"),
            dep_info,
        };
        let sources = dep_info_sources(&[unit], Path::new("/sysroot"), &root);
        assert_eq!(sources, [here.join("src/lib.rs"), "/abs/other.rs".into()]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_kernels_is_an_error() {
        let e = PtxBuilder::new("device").build_into(Path::new("/nonexistent"), "k.ptx");
        assert!(matches!(e, Err(BuildError::NoKernels)));
    }

    #[test]
    fn missing_crate_is_an_error() {
        let e = PtxBuilder::new("/nonexistent/device")
            .kernels(["k"])
            .build_into(Path::new("/nonexistent"), "k.ptx");
        assert!(matches!(e, Err(BuildError::NoDeviceCrate(_))));
    }

    /// A device folder with a manifest template, in a fresh temporary folder.
    fn template_crate(name: &str, template: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "reconverge-gpu-build-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("device")).expect("temp dir");
        std::fs::write(dir.join("device/Cargo.toml.in"), template).expect("template");
        std::fs::write(dir.join("device/Cargo.lock"), "# lock\n").expect("lock");
        dir
    }

    #[test]
    fn a_template_is_filled_in_with_paths_and_its_lock() {
        let dir = template_crate(
            "fill",
            "[lib]\npath = \"{{crate_dir}}/src/lib.rs\"\n[dependencies]\na = { path = \"{{a}}\" }\n",
        );
        let device = dir.join("device");
        let builder = PtxBuilder::new(&device)
            .manifest_template(device.join("Cargo.toml.in"))
            .template_path("a", "/deps/a \"quoted\"");
        let out = dir.join("out");
        let crate_dir = std::fs::canonicalize(&device).expect("canonical");
        let manifest = builder
            .write_manifest(&device.join("Cargo.toml.in"), &crate_dir, &out)
            .expect("written");
        let text = std::fs::read_to_string(&manifest).expect("read");
        assert_eq!(
            text,
            format!(
                "[lib]\npath = \"{}/src/lib.rs\"\n[dependencies]\na = {{ path = \"/deps/a \\\"quoted\\\"\" }}\n",
                crate_dir.display()
            )
        );
        assert_eq!(
            std::fs::read_to_string(out.join("Cargo.lock")).expect("lock"),
            "# lock\n"
        );
        // Unchanged text is not rewritten (its time would make cargo rebuild the device crate).
        let before = std::fs::metadata(&manifest).and_then(|m| m.modified()).ok();
        builder
            .write_manifest(&device.join("Cargo.toml.in"), &crate_dir, &out)
            .expect("written again");
        let after = std::fs::metadata(&manifest).and_then(|m| m.modified()).ok();
        assert_eq!(before, after);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_template_key_without_a_path_is_named() {
        let dir = template_crate("key", "a = { path = \"{{missing-dep}}\" }\n");
        let device = dir.join("device");
        let e = PtxBuilder::new(&device)
            .manifest_template(device.join("Cargo.toml.in"))
            .kernels(["k"])
            .build_into(&dir.join("out"), "k.ptx");
        match e {
            Err(BuildError::TemplateKey { key, .. }) => assert_eq!(key, "{{missing-dep}}"),
            other => panic!("expected TemplateKey, got {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn artifacts_map_to_bitcode_and_skip_host_units() {
        let dir = std::env::temp_dir().join(format!("rgb-test-{}", std::process::id()));
        let deps = dir.join(TARGET).join("release/deps");
        std::fs::create_dir_all(&deps).ok();
        std::fs::write(deps.join("libm-0123.bc"), b"").ok();
        let msgs = format!(
            concat!(
                r#"{{"reason":"compiler-artifact","target":{{"kind":["custom-build"],"name":"build-script-build"}},"filenames":["{d}/release/build/x/build-script-build"]}}"#,
                "\n",
                r#"{{"reason":"compiler-artifact","target":{{"kind":["lib"],"name":"libm"}},"filenames":["{p}/liblibm-0123.rlib","{p}/liblibm-0123.rmeta"]}}"#,
                "\n",
                r#"{{"reason":"build-finished","success":true}}"#
            ),
            d = dir.display(),
            p = deps.display()
        );
        let units = units_from_messages(&msgs, &dir);
        std::fs::remove_dir_all(&dir).ok();
        let units = units.unwrap_or_default();
        assert_eq!(units.len(), 1);
        assert_eq!(units[0].bitcode, deps.join("libm-0123.bc"));
    }
}
