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

    /// The entry points the host loads; shared with `src/lib.rs`.
    const KERNELS: &[&str] = include!("src/kernels.in");

    pub fn build() {
        println!("cargo:rerun-if-env-changed=RECONVERGE_GPU_ARCH");
        let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
            fail("OUT_DIR is not set (build.rs must run under cargo)");
        };
        let arch = std::env::var("RECONVERGE_GPU_ARCH")
            .unwrap_or_else(|_| reconverge_gpu_build::DEFAULT_ARCH.to_string());
        let result = reconverge_gpu_build::PtxBuilder::new("device")
            .kernels(KERNELS.iter().copied())
            .arch(arch)
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
