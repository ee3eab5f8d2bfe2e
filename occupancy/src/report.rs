//! A complete answer for one kernel on one device, as the `occupancy` example prints it:
//! the occupancy, the per-resource block limits and what would lift the next step.

use std::fmt::{self, Write as _};

use serde::Serialize;

use crate::arch::{ArchLimits, ComputeCapability};
use crate::calculator::{
    KernelResources, LaunchConfig, Limiter, NextStep, Occupancy, calculate_occupancy, next_steps,
};
use crate::devices::Device;
use crate::error::OccupancyError;
use crate::sweeps::SweepPoint;

/// The GPU a question is about: a named device or a bare compute capability.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Target {
    /// The named device, if one was given.
    pub device: Option<&'static Device>,
    /// The architecture-table row used.
    pub limits: &'static ArchLimits,
}

impl Target {
    /// Resolves a device name (`"h100"`) or, failing that, a compute capability (`"8.6"`).
    /// A device wins if both are given; neither is [`OccupancyError::UnknownDevice`].
    pub fn resolve(
        device: Option<&str>,
        compute_capability: Option<&str>,
    ) -> Result<Self, OccupancyError> {
        if let Some(name) = device {
            let device = Device::lookup(name)?;
            return Ok(Self {
                device: Some(device),
                limits: device.limits()?,
            });
        }
        let text = compute_capability.unwrap_or("");
        let cc: ComputeCapability = text.parse()?;
        Ok(Self {
            device: None,
            limits: cc.limits()?,
        })
    }

    fn describe(&self) -> String {
        let cc = self.limits.compute_capability;
        match self.device {
            Some(device) => format!(
                "{} (cc {cc}, {}, {} SMs)",
                device.name, self.limits.architecture, device.sm_count
            ),
            None => format!("compute capability {cc} ({})", self.limits.architecture),
        }
    }
}

/// Occupancy plus context: what was asked and what would change the answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The device's name, if a device was named.
    pub device: Option<&'static str>,
    /// The compute capability used.
    pub compute_capability: ComputeCapability,
    /// SMs on the device, if a device was named.
    pub sm_count: Option<u32>,
    /// The kernel asked about.
    pub kernel: KernelResources,
    /// The launch settings asked about.
    pub config: LaunchConfig,
    /// The result; its fields appear at the top level of the JSON form.
    #[serde(flatten)]
    pub occupancy: Occupancy,
    /// What would lift each limiting resource to one more block.
    pub next_steps: Vec<NextStep>,
    #[serde(skip)]
    target: Target,
}

/// Computes the occupancy of `kernel` on `target` and the next steps of each limiter.
pub fn report(
    target: Target,
    kernel: &KernelResources,
    config: &LaunchConfig,
) -> Result<Report, OccupancyError> {
    let occupancy = calculate_occupancy(target.limits, kernel, config)?;
    let next_steps = next_steps(target.limits, kernel, config, &occupancy);
    Ok(Report {
        device: target.device.map(|device| device.name),
        compute_capability: target.limits.compute_capability,
        sm_count: target.device.map(|device| device.sm_count),
        kernel: *kernel,
        config: *config,
        occupancy,
        next_steps,
        target,
    })
}

fn limiter_names(limiters: &[Limiter]) -> String {
    if limiters.is_empty() {
        return "-".to_string();
    }
    limiters
        .iter()
        .map(|limiter| limiter.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let occupancy = &self.occupancy;
        let kernel = &self.kernel;
        let arch = self.target.limits;
        writeln!(f, "device             {}", self.target.describe())?;
        writeln!(
            f,
            "kernel             {} threads/block, {} registers/thread, {} B shared/block ({} static + {} dynamic)",
            kernel.threads_per_block,
            kernel.registers_per_thread,
            kernel.total_smem(),
            kernel.static_smem,
            kernel.dynamic_smem
        )?;
        writeln!(f)?;
        writeln!(f, "active blocks/SM   {}", occupancy.active_blocks_per_sm)?;
        writeln!(
            f,
            "active warps/SM    {} of {}",
            occupancy.active_warps_per_sm, occupancy.max_warps_per_sm
        )?;
        writeln!(
            f,
            "active threads/SM  {} of {}",
            occupancy.active_threads_per_sm, arch.max_threads_per_sm
        )?;
        writeln!(f, "occupancy          {:.1}%", occupancy.occupancy * 100.0)?;
        writeln!(
            f,
            "limited by         {}",
            limiter_names(&occupancy.limited_by)
        )?;
        writeln!(f)?;
        writeln!(f, "  resource       blocks/SM  per block")?;
        let limits = &occupancy.block_limits;
        let unlimited = |limit: Option<u32>| limit.map_or("-".to_string(), |l| l.to_string());
        let rows = [
            (
                Limiter::Warps,
                limits.warps.to_string(),
                format!(
                    "{} warps of {} per SM",
                    occupancy.warps_per_block, arch.max_warps_per_sm
                ),
            ),
            (
                Limiter::Registers,
                unlimited(limits.registers),
                format!(
                    "{} registers of {} per SM",
                    occupancy.allocated_registers_per_block, arch.registers_per_sm
                ),
            ),
            (
                Limiter::SharedMemory,
                unlimited(limits.shared_memory),
                format!(
                    "{} B of {} B per SM",
                    occupancy.allocated_smem_per_block, occupancy.smem_per_sm
                ),
            ),
            (
                Limiter::Blocks,
                limits.blocks.to_string(),
                "hardware cap per SM".to_string(),
            ),
        ];
        for (limiter, blocks, detail) in rows {
            let mark = if occupancy.limited_by.contains(&limiter) {
                '*'
            } else {
                ' '
            };
            writeln!(f, "{mark} {:<14} {blocks:>9}  {detail}", limiter.name())?;
        }
        if !self.next_steps.is_empty() {
            writeln!(f)?;
            writeln!(f, "next step")?;
            for step in &self.next_steps {
                writeln!(f, "  {step}")?;
            }
        }
        Ok(())
    }
}

/// Renders a sweep as a text table with a bar per point; `label` names the swept value.
pub fn render_sweep(points: &[SweepPoint], label: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{label:>12}  {:>9}  {:>8}  {:>9}  limited by",
        "blocks/SM", "warps/SM", "occupancy"
    );
    for point in points {
        let bar = "#".repeat((point.occupancy * 40.0).round() as usize);
        let _ = writeln!(
            out,
            "{:>12}  {:>9}  {:>8}  {:>8.1}%  {:<28} {bar}",
            point.value,
            point.active_blocks_per_sm,
            point.active_warps_per_sm,
            point.occupancy * 100.0,
            limiter_names(&point.limited_by),
        );
    }
    out
}
