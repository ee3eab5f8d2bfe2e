//! Behaviour on a machine without a CUDA driver (this workplace's build machines, CI).

#[cfg(feature = "cuda")]
#[test]
fn context_and_backend_without_driver_are_no_driver() {
    // SAFETY: only tries to open libcuda by its usual names.
    if unsafe { reconverge_gpu::cudarc::driver::sys::is_culib_present() } {
        eprintln!("skipped: a CUDA driver is present on this machine");
        return;
    }
    match reconverge_paper_kernels::context(0) {
        Err(reconverge_gpu::GpuError::NoDriver) => {}
        other => panic!("expected GpuError::NoDriver, got {other:?}"),
    }
    match reconverge_paper_kernels::backend(0) {
        Err(reconverge_gpu::GpuError::NoDriver) => {}
        other => panic!("expected GpuError::NoDriver, got {:?}", other.err()),
    }
}

#[cfg(feature = "cuda")]
#[test]
fn embedded_ptx_has_every_kernel_and_no_undefined_function() {
    let summary = reconverge_gpu_build::check_ptx(
        reconverge_paper_kernels::PTX,
        reconverge_paper_kernels::KERNELS,
    );
    assert!(summary.is_ok(), "{summary:?}");
}

#[cfg(feature = "cuda")]
#[test]
fn every_listed_entry_point_is_an_entry_of_the_ptx() {
    let entries = reconverge_gpu_build::entries(reconverge_paper_kernels::PTX);
    for e in reconverge_paper_kernels::entry_points() {
        assert!(
            entries.iter().any(|x| x == e.name),
            "{} ({} under {:?}, pass {}) is not in the PTX",
            e.name,
            e.kernel,
            e.strategy,
            e.pass
        );
    }
    assert!(reconverge_gpu_build::undefined_functions(reconverge_paper_kernels::PTX).is_empty());
}

#[cfg(feature = "cuda")]
#[test]
fn missing_entry_point_is_a_typed_error() {
    use reconverge_gpu::{CudaBackend, GpuError};
    use reconverge_transforms::{Assignment, BranchLoopKernel, Decision, Strategy};
    use reconverge_workloads::synthetic::SynItDelay;
    let k = BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1));
    // A strategy the shape runs (delaying over the grid-wide counter) that SYN-ITDELAY's list
    // compiles no entry point for: any threshold has one (`itdelay_mv1_any`), this dealing none.
    let odd = Strategy::iteration_delaying(Decision::MajorityVote {
        threshold: 3,
        stop_when_a_lane_finishes: true,
    })
    .over(Assignment::GridWide);
    match CudaBackend::entry_points(&k, &odd) {
        Err(e @ GpuError::NoEntryPoint { .. }) => {
            let s = e.to_string();
            assert!(
                s.contains("BranchLoopKernel<SynItDelay>") && s.contains("GridWide"),
                "{s}"
            );
        }
        other => panic!("expected NoEntryPoint, got {other:?}"),
    }
    match CudaBackend::entry_points(&k, &Strategy::PREDICATION) {
        Err(GpuError::Strategy { .. }) => {}
        other => panic!("expected Strategy, got {other:?}"),
    }
    assert_eq!(
        CudaBackend::entry_points(&k, &Strategy::BASELINE).ok(),
        Some(vec!["itdelay_baseline"])
    );
}

/// Callers of the `Backend` trait can tell "no GPU here" and "not compiled" from other device
/// failures, and fall back (to the CPU backend, to another strategy) on those two only.
#[cfg(feature = "cuda")]
#[test]
fn backend_errors_keep_their_kind() {
    use reconverge_backend::BackendError;
    use reconverge_transforms::{Assignment, BranchLoopKernel, Decision, Strategy};
    use reconverge_workloads::synthetic::SynItDelay;

    let e = BackendError::from(reconverge_gpu::GpuError::NoDriver);
    assert!(
        matches!(
            e,
            BackendError::Unavailable {
                backend: "cuda",
                ..
            }
        ),
        "{e:?}"
    );
    // Delaying over the grid-wide counter is a valid strategy that the kernel list does not
    // compile.
    let kernel = BranchLoopKernel(SynItDelay::new(8, 100, 0.1, 1));
    let strategy = Strategy::iteration_delaying(Decision::MajorityVote {
        threshold: 3,
        stop_when_a_lane_finishes: true,
    })
    .over(Assignment::GridWide);
    let missing = reconverge_gpu::CudaBackend::entry_points(&kernel, &strategy)
        .expect_err("grid-wide delaying has no entry point");
    let e = BackendError::from(missing);
    assert!(
        matches!(&e, BackendError::NotCompiled { message, .. } if message.contains("itdelay_mv8")),
        "{e:?}"
    );
    let e = BackendError::from(reconverge_gpu::GpuError::OutOfMemory {
        bytes: 1 << 40,
        what: "outputs".into(),
    });
    assert!(
        matches!(e, BackendError::OutOfMemory { bytes, .. } if bytes == 1 << 40),
        "{e:?}"
    );
}
