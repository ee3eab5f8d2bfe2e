//! Named GPUs: a compute capability plus an SM count, so a user can say `--device h100`.
//!
//! SM counts are NVIDIA's published figures for the full product (whitepapers and product
//! pages); where a name covers several boards the most common one is meant (H100 = SXM5 80 GB
//! with 132 SMs, as measured in the project notes; A100 = 108 SMs; K80 = one of its two GK210
//! chips).

use serde::{Deserialize, Serialize};

use crate::arch::{ArchLimits, ComputeCapability};
use crate::error::OccupancyError;

/// A named GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// Marketing name, e.g. `"GeForce 8800 GTX"`.
    pub name: &'static str,
    /// Short names accepted by [`Device::lookup`] besides `name`.
    #[serde(skip)]
    pub aliases: &'static [&'static str],
    /// Its compute capability.
    pub compute_capability: ComputeCapability,
    /// Streaming multiprocessors on the chip as sold.
    pub sm_count: u32,
}

const fn device(
    name: &'static str,
    aliases: &'static [&'static str],
    major: u32,
    minor: u32,
    sm_count: u32,
) -> Device {
    Device {
        name,
        aliases,
        compute_capability: ComputeCapability::new(major, minor),
        sm_count,
    }
}

/// The devices [`Device::lookup`] knows, oldest first.
pub static DEVICES: [Device; 18] = [
    device("GeForce 8800 GTX", &["8800gtx", "8800", "g80"], 1, 0, 16),
    device("GeForce GTX 280", &["gtx280", "280", "gt200"], 1, 3, 30),
    device("GeForce GTX 480", &["gtx480", "480", "gf100"], 2, 0, 15),
    device("GeForce GTX 680", &["gtx680", "680", "gk104"], 3, 0, 8),
    device("Tesla K40", &["k40"], 3, 5, 15),
    device("Tesla K80", &["k80", "gk210"], 3, 7, 13),
    device("GeForce GTX 980", &["gtx980", "980", "gm204"], 5, 2, 16),
    device("Tesla P100", &["p100", "gp100"], 6, 0, 56),
    device("GeForce GTX 1080", &["gtx1080", "1080", "gp104"], 6, 1, 20),
    device("Tesla V100", &["v100", "gv100"], 7, 0, 80),
    device("Tesla T4", &["t4"], 7, 5, 40),
    device("A100", &["a100", "ga100"], 8, 0, 108),
    device("GeForce RTX 3090", &["rtx3090", "3090"], 8, 6, 82),
    device("GeForce RTX 4090", &["rtx4090", "4090", "ad102"], 8, 9, 128),
    device("H100", &["h100", "h100sxm", "gh100"], 9, 0, 132),
    device("H200", &["h200"], 9, 0, 132),
    device("B200", &["b200"], 10, 0, 148),
    device("GeForce RTX 5090", &["rtx5090", "5090"], 12, 0, 170),
];

/// Lower-cases and drops everything but letters and digits, so "RTX 4090", "rtx-4090" and
/// "GeForce RTX 4090" compare by content.
fn normalize(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Device {
    /// Finds a device by name, ignoring case, spaces and punctuation: `"h100"`, `"A100"`,
    /// `"8800gtx"`, `"GTX 480"`, `"GeForce RTX 4090"` all work.
    pub fn lookup(name: &str) -> Result<&'static Device, OccupancyError> {
        let wanted = normalize(name);
        let matches = |device: &Device| {
            let full = normalize(device.name);
            // Accept the marketing name with or without its brand prefix.
            let short = full
                .strip_prefix("geforce")
                .or_else(|| full.strip_prefix("tesla"))
                .unwrap_or(&full);
            !wanted.is_empty()
                && (wanted == full
                    || wanted == short
                    || device
                        .aliases
                        .iter()
                        .any(|alias| normalize(alias) == wanted))
        };
        DEVICES
            .iter()
            .find(|device| matches(device))
            .ok_or_else(|| OccupancyError::UnknownDevice {
                name: name.to_string(),
                known: DEVICES
                    .iter()
                    .map(|device| device.aliases[0])
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The architecture-table row for this device's compute capability (every entry of
    /// [`DEVICES`] has one; a unit test checks it).
    pub fn limits(&self) -> Result<&'static ArchLimits, OccupancyError> {
        ArchLimits::for_compute_capability(self.compute_capability)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_has_a_table_row() {
        for device in &DEVICES {
            assert!(
                ArchLimits::for_compute_capability(device.compute_capability).is_ok(),
                "{}",
                device.name
            );
        }
    }
}
