//! Occupancy: for every kernel and block sizes 32 … 1024, `reconverge-occupancy`'s prediction
//! (the device's compute capability, the kernel's registers and static shared memory from the
//! driver) against `cuOccupancyMaxActiveBlocksPerMultiprocessor`.

use std::fmt::Write as _;

use reconverge_occupancy::{ComputeCapability, KernelResources, LaunchConfig, calculate_occupancy};
use serde_json::{Value, json};

use crate::gpu::GpuContext;
use crate::report::Report;

/// The occupancy calculator against the driver, every kernel, every block size.
pub fn run(rep: &mut Report, gpu: &GpuContext) {
    println!(
        "\n== (b) occupancy: reconverge-occupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor"
    );
    let d = gpu.device();
    let cc = ComputeCapability::new(d.major.max(0) as u32, d.minor.max(0) as u32);
    let limits = match cc.limits() {
        Ok(l) => l,
        Err(e) => {
            rep.check(
                "occupancy: device in the calculator's table",
                false,
                &e.to_string(),
            );
            return;
        }
    };
    const SIZES: [u32; 6] = [32, 64, 128, 256, 512, 1024];
    println!(
        "{:<22} {:>4} {:>5} {:>5}  blocks/SM driver=predicted at {:?} (* = differ, - = over max tpb)",
        "kernel", "regs", "smem", "local", SIZES
    );
    let (mut compared, mut differ) = (0u32, 0u32);
    let mut rows = Vec::new();
    let kernels: Vec<_> = match gpu.kernels() {
        Ok(k) => k.into_iter().cloned().collect(),
        Err(e) => {
            rep.check("occupancy: every kernel loads", false, &e.to_string());
            return;
        }
    };
    for k in &kernels {
        let mut line = format!(
            "{:<22} {:>4} {:>5} {:>5} ",
            k.name, k.registers_per_thread, k.static_shared_bytes, k.local_bytes_per_thread
        );
        for tpb in SIZES {
            if tpb > k.max_threads_per_block {
                line.push_str("      -");
                continue;
            }
            let driver = gpu.max_active_blocks(&k.name, tpb);
            let res = KernelResources::new(tpb, k.registers_per_thread)
                .with_static_smem(k.static_shared_bytes);
            let predicted = calculate_occupancy(limits, &res, &LaunchConfig::default());
            let (pb, po, lim) = match &predicted {
                Ok(o) => (
                    Some(o.active_blocks_per_sm),
                    o.occupancy,
                    format!("{:?}", o.limited_by).replace(',', ";"),
                ),
                Err(e) => (None, 0.0, format!("error: {e}").replace(',', ";")),
            };
            let db = driver.as_ref().ok().copied();
            let equal = db.is_some() && db == pb;
            compared += 1;
            if !equal {
                differ += 1;
            }
            let _ = write!(
                line,
                " {:>2}{}{:<2}",
                db.map_or("?".into(), |v| v.to_string()),
                if equal { "=" } else { "*" },
                pb.map_or("?".into(), |v| v.to_string())
            );
            let _ = writeln!(
                rep.occupancy_csv,
                "{},{},{},{tpb},{},{},{po:.4},{lim},{equal}",
                k.name,
                k.registers_per_thread,
                k.static_shared_bytes,
                db.map_or(String::new(), |v| v.to_string()),
                pb.map_or(String::new(), |v| v.to_string()),
            );
            rows.push(json!({"kernel": k.name, "tpb": tpb, "driver": db, "predicted": pb, "limited_by": lim}));
        }
        println!("{line}");
    }
    rep.json.insert(
        "kernels".into(),
        Value::Array(
            kernels
                .iter()
                .map(|k| {
                    json!({"name": k.name, "registers": k.registers_per_thread,
                        "static_smem": k.static_shared_bytes, "local_bytes": k.local_bytes_per_thread,
                        "max_threads_per_block": k.max_threads_per_block,
                        "ptx_version": k.ptx_version, "binary_version": k.binary_version})
                })
                .collect(),
        ),
    );
    rep.json.insert("occupancy".into(), Value::Array(rows));
    rep.check(
        "occupancy prediction equals the driver",
        differ == 0 && compared > 0,
        &format!("({compared} kernel x block size pairs, {differ} differ)"),
    );
}
