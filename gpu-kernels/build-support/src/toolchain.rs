//! Finding the nightly toolchain, its `rust-src` and the LLVM tools of `llvm-tools`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::BuildError;

/// The tools of one rustup toolchain that the PTX build runs, by absolute path.
///
/// Absolute paths matter inside a build script: the outer cargo exports `RUSTC`, `CARGO` and
/// `RUSTUP_TOOLCHAIN` for the stable toolchain, and a plain `cargo +nightly` could still end up
/// compiling with the stable `rustc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The rustup toolchain name (`nightly`, `nightly-2026-05-01`).
    pub name: String,
    /// Its `cargo`.
    pub cargo: PathBuf,
    /// Its `rustc`.
    pub rustc: PathBuf,
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
    /// `llvm-link` of the `llvm-tools` component.
    pub llvm_link: PathBuf,
    /// `opt` of the `llvm-tools` component.
    pub opt: PathBuf,
    /// `llc` of the `llvm-tools` component.
    pub llc: PathBuf,
    /// `llvm-dis` of the `llvm-tools` component (reads a crate's kernels off its bitcode).
    pub llvm_dis: PathBuf,
}

/// The command that installs what is missing, for error messages.
fn fix_command(toolchain: &str, missing: &[&str]) -> String {
    if missing.contains(&"toolchain") {
        format!("rustup toolchain install {toolchain} --component rust-src,llvm-tools")
    } else {
        format!(
            "rustup component add {} --toolchain {toolchain}",
            missing.join(" ")
        )
    }
}

fn missing(toolchain: &str, what: &[&str]) -> BuildError {
    BuildError::MissingToolchain {
        toolchain: toolchain.to_string(),
        missing: what.iter().map(|s| s.to_string()).collect(),
        fix: fix_command(toolchain, what),
    }
}

/// Finds `toolchain` (a rustup toolchain name, normally `nightly`) and checks it has what the
/// nvptx build needs: `rust-src` (for `-Zbuild-std=core`) and `llvm-tools` (`llvm-link`,
/// `opt`, `llc`).
///
/// # Errors
/// [`BuildError::MissingToolchain`] naming what is missing and the exact `rustup` command that
/// installs it; [`BuildError::Spawn`] if `rustup` itself cannot be run.
pub fn find_toolchain(toolchain: &str) -> Result<Toolchain, BuildError> {
    let which = |tool: &str| -> Result<Option<PathBuf>, BuildError> {
        let out = Command::new("rustup")
            .args(["which", "--toolchain", toolchain, tool])
            .env_remove("RUSTUP_TOOLCHAIN")
            .output()
            .map_err(|source| BuildError::Spawn {
                program: "rustup (install it from https://rustup.rs)".into(),
                source,
            })?;
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok((out.status.success() && path.is_file()).then_some(path))
    };
    let (Some(rustc), Some(cargo)) = (which("rustc")?, which("cargo")?) else {
        return Err(missing(toolchain, &["toolchain"]));
    };

    let sysroot = command_stdout(Command::new(&rustc).args(["--print", "sysroot"]))?;
    let sysroot = PathBuf::from(sysroot.trim());
    let version = command_stdout(Command::new(&rustc).arg("-vV"))?;
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap_or("x86_64-unknown-linux-gnu")
        .trim()
        .to_string();

    let mut absent = Vec::new();
    if !sysroot
        .join("lib/rustlib/src/rust/library/core/Cargo.toml")
        .is_file()
    {
        absent.push("rust-src");
    }
    let bin = sysroot.join("lib/rustlib").join(&host).join("bin");
    let tool = |name: &str| bin.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let (llvm_link, opt, llc) = (tool("llvm-link"), tool("opt"), tool("llc"));
    let llvm_dis = tool("llvm-dis");
    if ![&llvm_link, &opt, &llc, &llvm_dis]
        .iter()
        .all(|p| p.is_file())
    {
        absent.push("llvm-tools");
    }
    if !absent.is_empty() {
        return Err(missing(toolchain, &absent));
    }
    if !version.contains("nightly") && !version.contains("-dev") {
        return Err(BuildError::NotNightly {
            toolchain: toolchain.to_string(),
            version: version.lines().next().unwrap_or_default().to_string(),
        });
    }
    Ok(Toolchain {
        name: toolchain.to_string(),
        cargo,
        rustc,
        sysroot,
        llvm_link,
        opt,
        llc,
        llvm_dis,
    })
}

/// Runs `cmd` and returns its stdout, or a [`BuildError`] with its stderr.
pub(crate) fn command_stdout(cmd: &mut Command) -> Result<String, BuildError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd.output().map_err(|source| BuildError::Spawn {
        program: program.clone(),
        source,
    })?;
    if !out.status.success() {
        return Err(BuildError::ToolFailed {
            program,
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether `path` lies under `dir` (both as given; no canonicalisation).
pub(crate) fn is_under(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fix_commands_are_exact() {
        assert_eq!(
            fix_command("nightly", &["toolchain"]),
            "rustup toolchain install nightly --component rust-src,llvm-tools"
        );
        assert_eq!(
            fix_command("nightly", &["rust-src", "llvm-tools"]),
            "rustup component add rust-src llvm-tools --toolchain nightly"
        );
    }

    #[test]
    fn a_toolchain_that_does_not_exist_is_reported_with_its_fix() {
        match find_toolchain("reconverge-no-such-toolchain") {
            Err(BuildError::MissingToolchain { fix, .. }) => {
                assert!(fix.starts_with("rustup toolchain install"), "{fix}")
            }
            // Machines without rustup cannot tell; that is a different, also clear, error.
            Err(BuildError::Spawn { .. }) => {}
            other => panic!("unexpected: {other:?}"),
        }
    }
}
