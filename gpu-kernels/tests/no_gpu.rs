//! Behaviour on a machine without a CUDA driver (this workplace's build machines, CI).

#[cfg(feature = "cuda")]
#[test]
fn context_without_driver_is_no_driver() {
    // SAFETY: only tries to open libcuda by its usual names.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        eprintln!("skipped: a CUDA driver is present on this machine");
        return;
    }
    match reconverge_gpu::GpuContext::new(0) {
        Err(reconverge_gpu::GpuError::NoDriver) => {}
        other => panic!("expected GpuError::NoDriver, got {other:?}"),
    }
}

#[cfg(feature = "cuda")]
#[test]
fn embedded_ptx_has_every_kernel_and_no_undefined_function() {
    let summary = reconverge_gpu_build::check_ptx(reconverge_gpu::PTX, reconverge_gpu::KERNELS);
    assert!(summary.is_ok(), "{summary:?}");
}

#[test]
fn errors_are_usable_without_the_feature() {
    let e = reconverge_gpu::GpuError::NoDriver;
    assert!(e.to_string().contains("no CUDA driver"));
}
