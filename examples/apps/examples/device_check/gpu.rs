//! Everything the device check takes from the GPU crates, in one place: the CUDA runtime
//! (`reconverge-gpu`) and the papers' kernels (`reconverge-paper-kernels`).

pub use reconverge_gpu::{CudaBackend, DeviceKernel, GpuContext, GpuError, WarmUp};
pub use reconverge_paper_kernels::PTX;
pub use reconverge_paper_kernels::selftest::{
    SelfTests, SlotCheck, ToleranceCheck, check_fast_math, check_libm_f64, check_mcml_math,
    check_warp_outputs, libm_inputs,
};

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
