//! With feature `cuda`: compiles `device/` (this example's entry points, listed once in
//! `walk/entries.in`) to `OUT_DIR/walk.ptx`, checked to be self-contained.

/// The entry points' names, from the list the device crate and the host include too.
#[cfg(feature = "cuda")]
mod list {
    use reconverge_gpu_build::entry_names as entries;
    include!("walk/entries.in");
}

fn main() {
    println!("cargo:rerun-if-changed=walk/entries.in");
    println!("cargo:rerun-if-changed=walk/src/lib.rs");
    #[cfg(feature = "cuda")]
    {
        let out =
            std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        match reconverge_gpu_build::PtxBuilder::new("device")
            .kernels(
                list::WALK_ENTRY_POINTS
                    .iter()
                    .chain(user_workload_walk::WALK_PLAIN_KERNELS)
                    .copied(),
            )
            .build_into(&out, "walk.ptx")
        {
            Ok(ptx) => ptx.emit_rerun_if_changed(),
            Err(e) => {
                eprintln!("error: user-workload (feature cuda): {e}");
                std::process::exit(1);
            }
        }
    }
}
