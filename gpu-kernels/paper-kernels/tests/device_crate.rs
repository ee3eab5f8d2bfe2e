//! Builds the paper kernels' device crate (`device/`, from its manifest template) to PTX with
//! only its self-tests kept, and checks the result.
//!
//! Needs the nightly toolchain with rust-src and llvm-tools; without them the test prints why
//! it is skipped and passes (CI installs them, so there it runs).

use std::path::PathBuf;

use reconverge_gpu_build::{BuildError, find_toolchain, undefined_functions};
use reconverge_paper_kernels::SELFTESTS as KERNELS;

include!("../device/builder.rs");

/// The package's folder and the folder the tests build PTX into, or `None` (the test is
/// skipped, saying why) without the nightly toolchain.
fn package_and_out() -> Option<(PathBuf, PathBuf)> {
    if let Err(e) = find_toolchain("nightly") {
        eprintln!("skipped: {e}");
        return None;
    }
    let package = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // CARGO_TARGET_TMPDIR persists between runs, so core is compiled for nvptx only once.
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ptx-test");
    Some((package, out))
}

#[test]
fn device_crate_builds_to_self_contained_ptx() {
    let Some((package, out)) = package_and_out() else {
        return;
    };
    let ptx = device_builder(&package)
        .kernels(KERNELS.iter().copied())
        .arch("sm_80")
        .build_into(&out, "selftest.ptx");
    let ptx = match ptx {
        Ok(p) => p,
        Err(e) => panic!("building the device crate failed: {e}"),
    };
    for k in KERNELS {
        assert!(ptx.summary.entries.iter().any(|e| e == k), "{k} missing");
    }
    assert!(undefined_functions(&ptx.text).is_empty());
    assert!(!ptx.text.contains(".extern .func"));
    assert_eq!(ptx.summary.target.as_deref(), Some("sm_80"));
    // MCML's f32 math (`libmf_selftest` runs the functions the photon steps call) must be
    // IEEE operations or own code on the GPU, as on the CPU: the correctly rounded square root,
    // and none of the approximate instructions (`sqrt.approx`, `rcp.approx`, `lg2.approx`,
    // `sin.approx`, `div.full`, flush-to-zero variants) whose bits no CPU reproduces.
    let start = ptx
        .text
        .find(".entry libmf_selftest")
        .expect("libmf_selftest");
    let body = &ptx.text[start..];
    let body = &body[..body[1..].find(".entry").map_or(body.len(), |e| e + 1)];
    assert!(
        body.contains("sqrt.rn.f32"),
        "no sqrt.rn.f32 in libmf_selftest"
    );
    for approx in [
        ".approx", "div.full", ".ftz", "rsqrt", "lg2.", "ex2.", "sin.", "cos.",
    ] {
        assert!(!body.contains(approx), "libmf_selftest uses {approx}");
    }
    // rerun-if-changed covers the device crate's own sources and its path dependencies.
    let has = |suffix: &str| ptx.sources.iter().any(|s| s.ends_with(suffix));
    assert!(has("device/src/lib.rs"), "{:?}", ptx.sources);
    assert!(has("simt-model/src/gpu.rs"), "{:?}", ptx.sources);
}

#[test]
fn a_kernel_that_does_not_exist_is_named_in_the_error() {
    let Some((package, out)) = package_and_out() else {
        return;
    };
    let e = device_builder(&package)
        .kernels(["warp_selftest", "no_such_kernel"])
        .build_into(&out, "missing.ptx");
    match e {
        Err(BuildError::Check { source, .. }) => {
            assert!(source.to_string().contains("no_such_kernel"), "{source}")
        }
        other => panic!("expected a check error, got {other:?}"),
    }
}
