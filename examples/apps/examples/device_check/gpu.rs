//! Everything the device check takes from the GPU crate, in one place: the papers' kernels
//! may move to a crate of their own, and only these lines then change.

pub use reconverge_gpu::selftest::{
    SlotCheck, check_libm_f64, check_mcml_math, check_warp_outputs, libm_inputs,
};
pub use reconverge_gpu::{CudaBackend, DeviceKernel, GpuContext, GpuError, PTX, WarmUp};

/// A launch shape, or the error the device check reports for it (`kernel` names what
/// wanted the shape).
pub fn launch(
    kernel: &str,
    shape: Result<reconverge_backend::Launch, reconverge_backend::BackendError>,
) -> Result<reconverge_backend::Launch, GpuError> {
    shape.map_err(|e| GpuError::InvalidInput {
        kernel: kernel.into(),
        reason: e.to_string(),
    })
}
