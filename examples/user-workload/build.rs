//! With feature `cuda`: this crate's library, compiled again for the GPU, to the PTX that
//! `reconverge::this_crate_ptx!()` includes.

fn main() {
    #[cfg(feature = "cuda")]
    reconverge_gpu_build::build_this_crate();
}
