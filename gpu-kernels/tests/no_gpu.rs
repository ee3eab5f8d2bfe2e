//! Behaviour on a machine without a CUDA driver (this workplace's build machines, CI).

#[cfg(feature = "runtime")]
const EMPTY_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

#[cfg(feature = "runtime")]
#[test]
fn context_without_driver_is_no_driver() {
    // SAFETY: only tries to open libcuda by its usual names.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        eprintln!("skipped: a CUDA driver is present on this machine");
        return;
    }
    match reconverge_gpu::GpuContext::with_ptx(0, EMPTY_PTX, &[]) {
        Err(reconverge_gpu::GpuError::NoDriver) => {}
        other => panic!("expected GpuError::NoDriver, got {other:?}"),
    }
    match reconverge_gpu::GpuContext::with_cubin(0, vec![0; 16], &[]) {
        Err(reconverge_gpu::GpuError::NoDriver) => {}
        other => panic!("expected GpuError::NoDriver, got {other:?}"),
    }
}

#[test]
fn errors_are_usable_without_the_feature() {
    let e = reconverge_gpu::GpuError::NoDriver;
    assert!(e.to_string().contains("no CUDA driver"));
}

#[cfg(feature = "runtime")]
#[test]
fn backend_without_driver_is_no_driver() {
    // SAFETY: only tries to open libcuda by its usual names.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        eprintln!("skipped: a CUDA driver is present on this machine");
        return;
    }
    match reconverge_gpu::CudaBackend::with_ptx(0, EMPTY_PTX, &[]) {
        Err(reconverge_gpu::GpuError::NoDriver) => {}
        other => panic!("expected GpuError::NoDriver, got {:?}", other.err()),
    }
}

#[cfg(feature = "runtime")]
#[test]
fn a_nul_byte_is_not_ptx() {
    // Checked before the driver is looked for, so the same on every machine.
    match reconverge_gpu::GpuContext::with_ptx(0, "\0", &[]) {
        Err(reconverge_gpu::GpuError::ModuleLoad { .. }) => {}
        other => panic!("expected ModuleLoad, got {other:?}"),
    }
}
