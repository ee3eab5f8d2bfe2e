//! With feature `cuda`: compiles `device/` to `OUT_DIR/kernels.ptx` (nightly, nvptx64, every
//! crate's bitcode linked). Without it: nothing, so the crate builds on stable everywhere.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/kernels.in");
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

    /// Expands the one kernel list (`src/kernels.in`, shared with `src/lib.rs` and the device
    /// crate) to the names of its entry points. Types and strategies are parsed, never resolved.
    macro_rules! reconverge_kernels {
        (
            selftests: $($selftest:ident),* $(,)? ;
            $( $kernel:ty { $( $name:ident $([pass $pass:literal])? => $strategy:expr ),* $(,)? } )*
        ) => {
            /// The entry points the host loads.
            const KERNELS: &[&str] = &[
                $(stringify!($selftest),)*
                $($(stringify!($name),)*)*
            ];
        };
    }
    include!("src/kernels.in");

    pub fn build() {
        println!("cargo:rerun-if-env-changed=RECONVERGE_GPU_ARCH");
        let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
            fail("OUT_DIR is not set (build.rs must run under cargo)");
        };
        let arch =
            std::env::var("RECONVERGE_GPU_ARCH").unwrap_or_else(|_| DEFAULT_ARCH.to_string());
        let result = reconverge_gpu_build::PtxBuilder::new("device")
            .kernels(KERNELS.iter().copied())
            .arch(arch)
            // Inline deeply: each entry point's strategy and pass are constants, and only when
            // the warp program's methods are inlined into the entry point do they fold, so
            // that each entry point keeps only its own strategy's code and registers (seed 001
            // branch splitting's occupancy gain; with LLVM's default threshold every TwoPath
            // entry point had the same 38 registers, with this one 20 to 29).
            .opt_args(["-inline-threshold=3000"])
            .build_into(&out_dir, "kernels.ptx");
        match result {
            Ok(ptx) => ptx.emit_rerun_if_changed(),
            Err(e) => fail(&e.to_string()),
        }
    }

    fn fail(message: &str) -> ! {
        eprintln!("error: reconverge-gpu (feature cuda): {message}");
        std::process::exit(1);
    }
}
