//! With feature `cuda`: compiles `device/` (from its manifest template, `device/Cargo.toml.in`)
//! to `OUT_DIR/kernels.ptx` and `OUT_DIR/mcml.ptx` (nightly, nvptx64, every crate's bitcode
//! linked), and, where a `ptxas` is found, each to cubins (`<stem>.sm_XX.cubin`, listed in
//! `<stem>.cubins.rs`). Without it: nothing, so the crate builds on stable everywhere.

// The papers' entry list (`paper_entries!`) expands one macro level per entry point.
#![recursion_limit = "512"]
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=device/builder.rs");
    println!("cargo:rerun-if-changed=device/names.rs");
    #[cfg(feature = "cuda")]
    cuda::build();
}

#[cfg(feature = "cuda")]
mod cuda {
    use std::path::PathBuf;

    // The architecture when `RECONVERGE_GPU_ARCH` is unset: the build-support crate's default
    // (sm_90, the H100), so that the two crates cannot disagree. `sm_80` PTX also JITs on an
    // H100.
    use reconverge_gpu_build::DEFAULT_ARCH;

    include!("device/names.rs");
    include!("device/builder.rs");

    /// The papers' entry points, named from the list the device crate compiles.
    mod list {
        use reconverge_gpu_build::entry_names as entries;
        reconverge_workloads::paper_entries!(entries);
    }

    pub fn build() {
        println!("cargo:rerun-if-env-changed=RECONVERGE_GPU_ARCH");
        let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
            fail("OUT_DIR is not set (build.rs must run under cargo)");
        };
        let Some(package_dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
            fail("CARGO_MANIFEST_DIR is not set (build.rs must run under cargo)");
        };
        let arch =
            std::env::var("RECONVERGE_GPU_ARCH").unwrap_or_else(|_| DEFAULT_ARCH.to_string());
        let every: Vec<&str> = SELFTESTS
            .iter()
            .chain(PLAIN_KERNELS)
            .chain(list::PAPER_ENTRY_NAMES)
            .copied()
            .collect();
        // MCML's entry points alone, for the programs that run nothing else: the driver loads
        // (and, from PTX, JIT-compiles) a module of 18 kernels instead of 140.
        let mcml: Vec<&str> = list::PAPER_ENTRY_NAMES
            .iter()
            .copied()
            .filter(|n| is_mcml(n))
            .collect();
        for (file, kernels) in [("kernels.ptx", every), ("mcml.ptx", mcml)] {
            let built = device_builder(&package_dir)
                .kernels(kernels)
                .arch(arch.clone())
                // Inline deeply: each entry point's strategy and pass are constants, and only
                // when the warp program's methods are inlined into the entry point do they
                // fold, so that each entry point keeps only its own strategy's code and
                // registers (seed 001 branch splitting's occupancy gain; with LLVM's default
                // threshold every TwoPath entry point had the same 38 registers, with this one
                // 20 to 29).
                .opt_args(["-inline-threshold=3000"])
                // Cubins beside the PTX where a ptxas is found, so that the first process on a
                // machine does not wait seconds for the driver's JIT compilation.
                .sass(reconverge_gpu_build::Sass::from_env())
                .build_into(&out_dir, file);
            match built {
                Ok(ptx) => ptx.emit_cargo_instructions(),
                Err(e) => fail(&e.to_string()),
            }
        }
    }

    fn fail(message: &str) -> ! {
        eprintln!("error: reconverge-paper-kernels (feature cuda): {message}");
        std::process::exit(1);
    }
}
