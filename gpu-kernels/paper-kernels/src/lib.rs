//! The seed papers' GPU kernels for reconverge: one entry point per (workload, strategy, pass)
//! of the papers' list (`reconverge_workloads::paper_entries!`), the device self-tests, and
//! their CPU reference ([`selftest`]).
//!
//! - Feature `cuda` (off by default): the build script compiles `device/` (a `no_std` crate
//!   whose manifest is the template `device/Cargo.toml.in`, so that it ships in this package) to
//!   one PTX module with `reconverge-gpu-build` (nightly toolchain with `rust-src` and
//!   `llvm-tools`; the build fails with the `rustup` command to run if they are missing). The
//!   PTX is embedded (`PTX`), and beside it, where the build finds CUDA's `ptxas`, cubins for
//!   sm_80 and sm_90 (`MODULE`, `MCML_MODULE`; see the README); `backend` and `context` open
//!   a GPU with them, loading the cubin for the GPU where one is shipped.
//! - Without it the crate builds on stable anywhere and offers the entry-point names and the
//!   self-tests' CPU reference.
//!
//! Your own workloads need none of this: `reconverge-gpu` (the runtime) and a device crate of
//! your own, as `examples/user-workload` shows.
//!
//! ```
//! # #[cfg(feature = "cuda")]
//! # fn main() {
//! use reconverge_gpu::GpuError;
//!
//! match reconverge_paper_kernels::context(0) {
//!     Ok(gpu) => println!("{} (cc {}.{})", gpu.device().name, gpu.device().major, gpu.device().minor),
//!     Err(GpuError::NoDriver) => println!("no CUDA driver on this machine"),
//!     Err(e) => println!("CUDA is unusable: {e}"),
//! }
//! # }
//! # #[cfg(not(feature = "cuda"))]
//! # fn main() {}
//! ```

pub mod selftest;

use reconverge_gpu::{DeviceKernel, EntryPoint};
use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, SplitLoopKernel, TwoPathKernel,
};
use reconverge_workloads::held_out::{
    Bisect, CostMap, EscapeWalk, GeometricJobs, HeavyTail, SunsetMap, TwoPathRuns, VariableTrips,
};
use reconverge_workloads::mcml::{FastF32, McmlKernel};
use reconverge_workloads::reference::{Collatz, EscapeTime};
use reconverge_workloads::synthetic::{
    BranchSplitBench, BranchSplitDistinct, ClassChains, DynamicWork, Gems34Branch, LoopSplitBench,
    PathUnification, PathUnificationDistinct, PeriodicBlockLoop, RareCostlyBody, SynBrDis,
    SynBrDisDistinct, SynItDelay, SynItDelayDistinct,
};

pub use reconverge_workloads::gpu_entries::PAPER_ENTRY_NAMES;

mod names {
    include!("../device/names.rs");
}
pub use names::{PLAIN_KERNELS, SELFTESTS, is_mcml};

/// Every entry point of the embedded PTX: [`SELFTESTS`], [`PLAIN_KERNELS`], then
/// [`PAPER_ENTRY_NAMES`].
pub const KERNELS: &[&str] = &KERNEL_ARRAY;

const KERNEL_COUNT: usize = SELFTESTS.len() + PLAIN_KERNELS.len() + PAPER_ENTRY_NAMES.len();

const KERNEL_ARRAY: [&str; KERNEL_COUNT] = {
    let mut out = [""; KERNEL_COUNT];
    let lists = [SELFTESTS, PLAIN_KERNELS, PAPER_ENTRY_NAMES];
    let (mut i, mut l) = (0, 0);
    while l < lists.len() {
        let mut j = 0;
        while j < lists[l].len() {
            out[i] = lists[l][j];
            i += 1;
            j += 1;
        }
        l += 1;
    }
    out
};

/// The entry points of each paper kernel type, in the list's order.
const TABLES: &[&[EntryPoint]] = &[
    <BranchLoopKernel<SynItDelay> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<SynItDelayDistinct> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<PeriodicBlockLoop> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<ClassChains> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<RareCostlyBody> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<Collatz> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<EscapeTime> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<HeavyTail> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<CostMap> as DeviceKernel>::ENTRY_POINTS,
    <ItemLoopKernel<VariableTrips> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<Bisect> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<EscapeWalk> as DeviceKernel>::ENTRY_POINTS,
    <BranchLoopKernel<SunsetMap> as DeviceKernel>::ENTRY_POINTS,
    <ItemLoopKernel<GeometricJobs> as DeviceKernel>::ENTRY_POINTS,
    <TwoPathKernel<TwoPathRuns> as DeviceKernel>::ENTRY_POINTS,
    <FactoredBranchLoopKernel<SynBrDis> as DeviceKernel>::ENTRY_POINTS,
    <FactoredBranchLoopKernel<SynBrDisDistinct> as DeviceKernel>::ENTRY_POINTS,
    <TwoPathKernel<BranchSplitBench> as DeviceKernel>::ENTRY_POINTS,
    <TwoPathKernel<BranchSplitDistinct> as DeviceKernel>::ENTRY_POINTS,
    <SplitLoopKernel<LoopSplitBench> as DeviceKernel>::ENTRY_POINTS,
    <ItemLoopKernel<DynamicWork> as DeviceKernel>::ENTRY_POINTS,
    <TwoPathKernel<PathUnification> as DeviceKernel>::ENTRY_POINTS,
    <TwoPathKernel<PathUnificationDistinct> as DeviceKernel>::ENTRY_POINTS,
    <TwoPathKernel<Gems34Branch> as DeviceKernel>::ENTRY_POINTS,
    <McmlKernel<f32> as DeviceKernel>::ENTRY_POINTS,
    <McmlKernel<FastF32> as DeviceKernel>::ENTRY_POINTS,
];

/// Every (kernel type, strategy, pass) entry point of the papers' list, in its order.
pub fn entry_points() -> impl Iterator<Item = &'static EntryPoint> {
    TABLES.iter().flat_map(|t| t.iter())
}

/// The PTX module built from the device crate (feature `cuda`).
#[cfg(feature = "cuda")]
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// Every kernel of [`KERNELS`] as shipped (feature `cuda`): [`PTX`], and the cubins the build
/// made from it where it found a `ptxas` (`RECONVERGE_SASS_ARCHS`, by default sm_80 and
/// sm_90; none where it found no `ptxas`, and then a warning said so).
#[cfg(feature = "cuda")]
pub const MODULE: reconverge_gpu::ModuleImages = reconverge_gpu::ModuleImages::new(
    "kernels",
    PTX,
    include!(concat!(env!("OUT_DIR"), "/kernels.cubins.rs")),
);

/// Opens device `ordinal` with the papers' kernels, [`KERNELS`]: MCML's from [`MCML_MODULE`],
/// every other from [`MODULE`], each module loaded (from the cubin for this GPU where one is
/// shipped, else from its PTX) the first time one of its kernels is needed, so that a program
/// that runs MCML alone loads its 18 kernels alone.
///
/// Where the environment variable `RECONVERGE_GPU_CUBIN` names a file, that file is loaded
/// instead, as the one module of every kernel: a cubin that `ptxas -arch=sm_XX` made from
/// [`PTX`] for this GPU (as `device-check.sh` does).
///
/// # Errors
/// [`reconverge_gpu::GpuError::NoDriver`] where no CUDA driver is installed,
/// [`reconverge_gpu::GpuError::NoDevice`], an unreadable cubin, or a driver error; a module's
/// load errors come from the first call that needs one of its kernels.
#[cfg(feature = "cuda")]
pub fn context(ordinal: usize) -> Result<reconverge_gpu::GpuContext, reconverge_gpu::GpuError> {
    use reconverge_gpu::{GpuContext, ModuleImage};
    if let Some(image) = given_cubin()? {
        return GpuContext::with_cubin(ordinal, image, KERNELS);
    }
    GpuContext::with_modules(
        ordinal,
        [
            (
                MCML_MODULE.name,
                ModuleImage::Shipped(MCML_MODULE),
                mcml_kernels(),
            ),
            (MODULE.name, ModuleImage::Shipped(MODULE), KERNELS.to_vec()),
        ],
    )
}

/// The cubin `RECONVERGE_GPU_CUBIN` names, where it names one.
#[cfg(feature = "cuda")]
fn given_cubin() -> Result<Option<Vec<u8>>, reconverge_gpu::GpuError> {
    match std::env::var_os("RECONVERGE_GPU_CUBIN") {
        Some(path) if !path.is_empty() => {
            std::fs::read(&path)
                .map(Some)
                .map_err(|e| reconverge_gpu::GpuError::ModuleLoad {
                    code: "RECONVERGE_GPU_CUBIN".into(),
                    message: format!("cannot read {}: {e}", std::path::Path::new(&path).display()),
                })
        }
        _ => Ok(None),
    }
}

/// The PTX module of MCML's entry points alone ([`mcml_kernels`]), from the same device crate
/// as [`PTX`] (feature `cuda`): what a program that runs only MCML loads, since the driver
/// loads, and from PTX JIT-compiles, every kernel of a module (140 in [`PTX`]; 18 here).
#[cfg(feature = "cuda")]
pub const MCML_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/mcml.ptx"));

/// MCML's kernels as shipped (feature `cuda`): [`MCML_PTX`] and the cubins made from it, as
/// [`MODULE`].
#[cfg(feature = "cuda")]
pub const MCML_MODULE: reconverge_gpu::ModuleImages = reconverge_gpu::ModuleImages::new(
    "mcml",
    MCML_PTX,
    include!(concat!(env!("OUT_DIR"), "/mcml.cubins.rs")),
);

/// MCML's entry points ([`is_mcml`] in [`PAPER_ENTRY_NAMES`]): the kernels of `MCML_PTX`
/// (feature `cuda`).
pub fn mcml_kernels() -> Vec<&'static str> {
    PAPER_ENTRY_NAMES
        .iter()
        .copied()
        .filter(|n| is_mcml(n))
        .collect()
}

/// Opens device `ordinal` with MCML's kernels alone ([`MCML_MODULE`], [`mcml_kernels`]);
/// where `RECONVERGE_GPU_CUBIN` names a cubin (of [`PTX`] or [`MCML_PTX`]), that is loaded
/// instead, as [`context`] does.
///
/// # Errors
/// As [`context`].
#[cfg(feature = "cuda")]
pub fn mcml_context(
    ordinal: usize,
) -> Result<reconverge_gpu::GpuContext, reconverge_gpu::GpuError> {
    let kernels = mcml_kernels();
    match given_cubin()? {
        Some(image) => reconverge_gpu::GpuContext::with_cubin(ordinal, image, &kernels),
        None => reconverge_gpu::GpuContext::with_images(ordinal, MCML_MODULE, &kernels),
    }
}

/// A CUDA backend on device `ordinal` with MCML's kernels alone ([`mcml_context`]).
///
/// # Errors
/// As [`context`].
#[cfg(feature = "cuda")]
pub fn mcml_backend(
    ordinal: usize,
) -> Result<reconverge_gpu::CudaBackend, reconverge_gpu::GpuError> {
    Ok(reconverge_gpu::CudaBackend::from_context(mcml_context(
        ordinal,
    )?))
}

/// A CUDA backend on device `ordinal` with the papers' kernels ([`context`]).
///
/// # Errors
/// As [`context`].
#[cfg(feature = "cuda")]
pub fn backend(ordinal: usize) -> Result<reconverge_gpu::CudaBackend, reconverge_gpu::GpuError> {
    Ok(reconverge_gpu::CudaBackend::from_context(context(ordinal)?))
}
