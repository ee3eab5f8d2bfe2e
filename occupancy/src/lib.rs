//! Work in progress.
pub mod arch;
pub mod calculator;
pub mod devices;
pub mod error;
pub mod models;
pub mod report;
pub mod sweeps;
pub use arch::{ArchLimits, ComputeCapability};
pub use calculator::*;
pub use devices::Device;
pub use error::OccupancyError;
