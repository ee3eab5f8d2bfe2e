//! Behaviour on a machine without a CUDA driver (this workplace's build machines, CI).

#[cfg(feature = "runtime")]
const EMPTY_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

#[cfg(feature = "runtime")]
#[test]
fn context_and_backend_without_driver_are_no_driver() {
    use reconverge_gpu::{CudaBackend, GpuContext, GpuError};
    // SAFETY: only tries to open libcuda by its usual names.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        eprintln!("skipped: a CUDA driver is present on this machine");
        return;
    }
    let shipped = reconverge_gpu::ModuleImages::new("m", EMPTY_PTX, &[]);
    let opened = [
        GpuContext::with_ptx(0, EMPTY_PTX, &[]).err(),
        GpuContext::with_cubin(0, vec![0; 16], &[]).err(),
        GpuContext::with_images(0, shipped, &[]).err(),
        CudaBackend::with_ptx(0, EMPTY_PTX, &[]).err(),
        CudaBackend::with_images(0, shipped, &[]).err(),
    ];
    for (i, e) in opened.into_iter().enumerate() {
        assert!(
            matches!(e, Some(GpuError::NoDriver)),
            "opening {i}: expected GpuError::NoDriver, got {e:?}"
        );
    }
}

#[test]
fn errors_are_usable_without_the_feature() {
    let e = reconverge_gpu::GpuError::NoDriver;
    assert!(e.to_string().contains("no CUDA driver"));
}

#[cfg(feature = "runtime")]
#[test]
fn a_nul_byte_is_not_ptx() {
    // Checked before the driver is looked for, so the same on every machine.
    match reconverge_gpu::GpuContext::with_ptx(0, "\0", &[]) {
        Err(reconverge_gpu::GpuError::ModuleLoad { .. }) => {}
        other => panic!("expected ModuleLoad, got {other:?}"),
    }
    // In any module of several, named, though that module would load only when used.
    use reconverge_gpu::{GpuContext, GpuError, ModuleImage, ModuleImages};
    let modules = [
        ("first", ModuleImage::Ptx(EMPTY_PTX.into()), vec!["a"]),
        (
            "second",
            ModuleImage::Shipped(ModuleImages::new("second", "\0", &[])),
            vec!["b"],
        ),
    ];
    match GpuContext::with_modules(0, modules) {
        Err(GpuError::ModuleLoad { message, .. }) => {
            assert!(message.contains("second"), "{message}")
        }
        other => panic!("expected ModuleLoad, got {other:?}"),
    }
}
