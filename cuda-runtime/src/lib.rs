//! The CUDA runtime of reconverge: contexts, modules of your own PTX, launches and errors, the
//! `CudaBackend` that runs any [`DeviceKernel`] (a workload whose entry points
//! [`device_entries!`] lists) under reconverge's `Backend` trait, and NCCL sums across GPUs.
//!
//! - Feature `runtime` (off by default) turns on `GpuContext`, `CudaBackend` and `NcclSum`,
//!   with `cudarc` (driver API, loaded at run time).
//! - Without it the crate builds anywhere and offers the entry-point types and the error types.
//!
//! No kernel is compiled here: a device crate of your own (built to PTX by
//! `reconverge-gpu-build`) holds them, and the papers' kernels are `reconverge-paper-kernels`.
//!
//! `libcuda` is loaded at run time: a binary built with `runtime` runs on a machine with no GPU,
//! where opening a context returns [`GpuError::NoDriver`] instead of panicking.
//!
//! ```
//! # #[cfg(feature = "runtime")]
//! # fn main() {
//! use reconverge_gpu::{GpuContext, GpuError};
//!
//! // A module of your own; `kernels` names the entry points to look up.
//! const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";
//! match GpuContext::with_ptx(0, PTX, &[]) {
//!     Ok(gpu) => println!("{} (cc {}.{})", gpu.device().name, gpu.device().major, gpu.device().minor),
//!     Err(GpuError::NoDriver) => println!("no CUDA driver on this machine"),
//!     Err(e) => println!("CUDA is unusable: {e}"),
//! }
//! # }
//! # #[cfg(not(feature = "runtime"))]
//! # fn main() {}
//! ```

mod error;
mod images;
mod tally_copies;

#[cfg(feature = "runtime")]
mod backend;
#[cfg(feature = "runtime")]
pub mod comparison;
#[cfg(feature = "runtime")]
mod cuda;
#[cfg(feature = "runtime")]
mod nccl;

// The entry-point tables live with the macros that compile the entry points, so that crates of
// workloads can declare theirs without this runtime; re-exported here, where they are run.
pub use error::{GpuError, LaunchShape};
pub use images::{
    FORCE_PTX_ENV, ImageChoice, LoadedImage, ModuleImages, PtxReason, best_cubin, cubin_runs_on,
    force_ptx_from_env,
};
pub use reconverge_device::{
    DeviceEntries, DeviceKernel, EntryNumbers, EntryPoint, device_entries,
};
pub use tally_copies::{DEFAULT_TALLY_COPIES, TALLY_COPIES_MAX_BYTES};

#[cfg(feature = "runtime")]
pub use backend::{CudaBackend, DYNAMIC_SHARED_LIMIT, PlainSchedule, WarmUp};
#[cfg(feature = "runtime")]
pub use cuda::{DeviceInfo, GpuContext, KernelAttributes, ModuleImage, Timed};
/// The `cudarc` this crate was built with, for launches of kernels with signatures of their own
/// through [`GpuContext::timed_launch`].
#[cfg(feature = "runtime")]
pub use cudarc;
#[cfg(feature = "runtime")]
pub use nccl::NcclSum;
