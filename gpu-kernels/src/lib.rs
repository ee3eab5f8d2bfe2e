//! The CUDA backend of reconverge: kernels written in Rust (the `device/` crate, compiled for
//! `nvptx64-nvidia-cuda`), loaded and launched with `cudarc`.
//!
//! - Feature `cuda` (off by default) turns on `GpuContext` and the build script that compiles
//!   the device crate to one PTX module with `reconverge-gpu-build` (nightly toolchain with
//!   `rust-src` and `llvm-tools`; the build fails with the `rustup` command to run if they are
//!   missing). The PTX is embedded in the library (`PTX`).
//! - Without it the crate builds on stable anywhere and offers the error types and the
//!   self-test's CPU reference ([`selftest`]).
//!
//! `libcuda` is loaded at run time: a binary built with `cuda` runs on a machine with no GPU,
//! where `GpuContext::new` returns [`GpuError::NoDriver`] instead of panicking.
//!
//! ```
//! # #[cfg(feature = "cuda")]
//! # fn main() {
//! use reconverge_gpu::{GpuContext, GpuError};
//!
//! match GpuContext::new(0) {
//!     Ok(gpu) => println!("{} (cc {}.{})", gpu.device().name, gpu.device().major, gpu.device().minor),
//!     Err(GpuError::NoDriver) => println!("no CUDA driver on this machine"),
//!     Err(e) => println!("CUDA is unusable: {e}"),
//! }
//! # }
//! # #[cfg(not(feature = "cuda"))]
//! # fn main() {}
//! ```

mod entry;
mod error;
pub mod selftest;

#[cfg(feature = "runtime")]
mod backend;
#[cfg(feature = "runtime")]
mod cuda;
#[cfg(feature = "runtime")]
mod nccl;

pub use entry::{DeviceEntries, DeviceKernel, ENTRY_POINTS, EntryPoint, KERNELS};
pub use error::{GpuError, LaunchShape};

#[cfg(feature = "runtime")]
pub use backend::{CudaBackend, WarmUp};
#[cfg(feature = "runtime")]
pub use cuda::{DeviceInfo, GpuContext, KernelAttributes, Timed};
#[cfg(feature = "runtime")]
pub use nccl::NcclSum;

/// The PTX module built from the device crate (feature `cuda`).
#[cfg(feature = "cuda")]
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));
