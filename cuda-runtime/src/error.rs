//! Typed errors of the CUDA runtime. Always compiled, so that code without feature `runtime` can
//! name and match them.

use std::fmt;

/// The shape of a kernel launch, for error messages and timing reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Blocks in the grid (x only: every kernel here is one-dimensional).
    pub blocks: u32,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared_bytes: u32,
}

impl LaunchShape {
    /// `blocks` blocks of `threads_per_block` threads, no dynamic shared memory. The
    /// arguments come in the order of [`reconverge_backend::Launch::new`], so that a shape and
    /// a launch written side by side read the same.
    pub const fn new(threads_per_block: u32, blocks: u32) -> Self {
        Self {
            threads_per_block,
            blocks,
            dynamic_shared_bytes: 0,
        }
    }

    /// Total threads of the launch.
    pub const fn threads(&self) -> u64 {
        self.blocks as u64 * self.threads_per_block as u64
    }
}

impl fmt::Display for LaunchShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} blocks x {} threads",
            self.blocks, self.threads_per_block
        )?;
        if self.dynamic_shared_bytes > 0 {
            write!(
                f,
                " + {} B dynamic shared memory",
                self.dynamic_shared_bytes
            )?;
        }
        Ok(())
    }
}

/// What went wrong on the GPU side.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No CUDA driver library (`libcuda.so`) could be loaded: no NVIDIA driver is installed.
    #[error("no CUDA driver: libcuda could not be loaded (is the NVIDIA driver installed?)")]
    NoDriver,
    /// The driver has no device of this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// Devices the driver sees.
        count: usize,
    },
    /// A driver call failed outside a launch.
    #[error("CUDA {operation} failed: {code} ({message})")]
    Driver {
        /// What was being done (`cuInit`, `cuMemAlloc` ...).
        operation: &'static str,
        /// The driver's error name (`CUDA_ERROR_...`).
        code: String,
        /// The driver's description.
        message: String,
    },
    /// A module could not be loaded (JIT compilation of its PTX failed, the PTX is too new for
    /// the driver, or a cubin is not for this GPU); the message names the module and its image.
    #[error("loading a GPU module failed: {code} ({message})")]
    ModuleLoad {
        /// The driver's error name.
        code: String,
        /// The driver's description.
        message: String,
    },
    /// The module has no such kernel, or the kernel is not one of those the context loaded.
    #[error("kernel {kernel} is not in the loaded module")]
    MissingKernel {
        /// The kernel asked for.
        kernel: String,
    },
    /// The kernel type has no entry point for this strategy and pass in the loaded module
    /// (entry points are compiled from the list its device crate gives `entries!`; add one there).
    #[error(
        "kernel {kernel} has no compiled entry point for strategy {strategy} (pass {pass}); compiled: {available}"
    )]
    NoEntryPoint {
        /// The kernel type, as the kernel list writes it.
        kernel: String,
        /// The strategy with its parameters (`Debug` form).
        strategy: String,
        /// The pass asked for.
        pass: u32,
        /// The entry points this kernel type has.
        available: String,
    },
    /// The strategy cannot run this kernel type (the kernel's own check, as on every backend).
    #[error("kernel {kernel}: {source}")]
    Strategy {
        /// The kernel type.
        kernel: String,
        /// Its shape.
        shape: &'static str,
        /// What the strategy said.
        source: reconverge_transforms::StrategyError,
    },
    /// The device code reported that it could not build the strategy's program (the status
    /// word the entry point sets; the host checks strategies first, so this means the host's
    /// and the device's code disagree).
    #[error(
        "kernel {kernel} ({shape}) reported status {status}: the device could not build the strategy's program"
    )]
    DeviceStatus {
        /// The entry point.
        kernel: String,
        /// The launch shape.
        shape: LaunchShape,
        /// The status word.
        status: u32,
    },
    /// A device allocation failed.
    #[error("out of device memory allocating {bytes} bytes for {what}")]
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
        /// What the buffer was for.
        what: String,
    },
    /// The launch shape is impossible for this kernel on this device (checked before launch
    /// against the kernel's attributes, or reported by the driver).
    #[error("bad launch configuration for kernel {kernel} ({shape}): {reason}")]
    BadLaunch {
        /// The kernel.
        kernel: String,
        /// The launch shape.
        shape: LaunchShape,
        /// Why it cannot run.
        reason: String,
    },
    /// The driver rejected the launch or the kernel failed while running (a device trap, an
    /// illegal address, out of resources).
    #[error("kernel {kernel} ({shape}) failed: {code} ({message})")]
    Launch {
        /// The kernel.
        kernel: String,
        /// The launch shape.
        shape: LaunchShape,
        /// The driver's error name.
        code: String,
        /// The driver's description.
        message: String,
    },
    /// Input the host API was given does not fit the kernel (buffer lengths, counts).
    #[error("invalid input for kernel {kernel}: {reason}")]
    InvalidInput {
        /// The kernel.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_errors_name_kernel_and_shape() {
        let e = GpuError::Launch {
            kernel: "warp_selftest".into(),
            shape: LaunchShape::new(128, 4),
            code: "CUDA_ERROR_LAUNCH_FAILED".into(),
            message: "unspecified launch failure".into(),
        };
        let s = e.to_string();
        assert!(
            s.contains("warp_selftest") && s.contains("4 blocks x 128 threads"),
            "{s}"
        );
    }

    #[test]
    fn shapes_count_threads() {
        let shape = LaunchShape::new(256, 3);
        assert_eq!((shape.threads_per_block, shape.blocks), (256, 3));
        assert_eq!(shape.threads(), 768);
        assert_eq!(shape.to_string(), "3 blocks x 256 threads");
        let mut s = LaunchShape::new(32, 1);
        s.dynamic_shared_bytes = 1024;
        assert!(s.to_string().contains("1024 B dynamic"));
    }
}
