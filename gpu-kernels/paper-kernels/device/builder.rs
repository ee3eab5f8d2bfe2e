// How the device crate is built: from its manifest template, against the sources of the
// dependencies this package was built with (their `SOURCE_DIR`, in the workspace or from the
// registry). Included by build.rs and the device-crate tests, which build the same crate.

/// The device crate of the package at `package_dir`, ready for its kernel names.
fn device_builder(package_dir: &std::path::Path) -> reconverge_gpu_build::PtxBuilder {
    let device = package_dir.join("device");
    reconverge_gpu_build::PtxBuilder::new(&device)
        .manifest_template(device.join("Cargo.toml.in"))
        .template_path("reconverge-simt", reconverge_simt::SOURCE_DIR)
        .template_path("reconverge-device", reconverge_device::SOURCE_DIR)
        .template_path("reconverge-transforms", reconverge_transforms::SOURCE_DIR)
        .template_path("reconverge-workloads", reconverge_workloads::SOURCE_DIR)
}
